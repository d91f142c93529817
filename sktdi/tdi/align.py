"""From a task spectrum to S4D modes: peak initialization and gain matching (the peaks:
:mod:`.peaks`; refinement: :mod:`.refine`; the record of what was done: :mod:`.report`).

A discrete mode Ā = exp(−w + iω) resonates at ω rad/sample (f = ω/2π cycles/sample) with
half-width ≈ w. TDI chooses (ω, w) per mode in discrete time and converts back to the
continuous parameters with the layer's step: A = (−w + iω)/dt. Since ω ≤ π by construction,
Im(A)·dt ≤ π and no mode TDI places aliases, whatever dt is (the base modes that
``coverage="base"`` and ``"gain"`` keep are the base's, aliases included); dt keeps the default
log-uniform draw, so the training dynamics of the continuous parameters stay those of the
default init.

TDI starts from the layer's own modes (built once, with the base initialization
:data:`sktdi.tdi.BASE_INIT`), read once as data: :func:`align_modes` maps them, a pure
function, to the aligned modes — it keeps their C and dt, replaces A and B on the channels it
aligns, and matches the layer's kernel energy to theirs — and :func:`align_layer` sets the
layer once.
"""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np
import torch

from ..ssm.inits import ModeParams
from ..ssm.kernel import discretize, transfer_function
from ..ssm.layers import S4D
from .peaks import SpectralPeak, allocate_modes, find_spectral_peaks
from .refine import _alignment_tensors, alignment_target, refine_modes, spectral_alignment_loss
from .report import TDIReport
from .spectra import TaskSpectrum


def _discrete_targets(
    peaks: list[SpectralPeak],
    counts: list[int],
    n_spread: int,
    d_model: int,
    length: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per channel and mode, target frequency ω (rad/sample) and decay w, each (H, N)."""
    omegas, decays = [], []
    w_min = 1.0 / max(length, 1)  # memory of at most the sequence length
    for peak, k in zip(peaks, counts):
        if k == 0:
            continue
        center = 2 * math.pi * peak.freq
        half = max(math.pi * (peak.right_freq - peak.left_freq), w_min)  # half-width, rad
        offsets = (torch.arange(k, dtype=torch.float64) - (k - 1) / 2) * (2 * half / k)  # (k,)
        jitter = (torch.rand(d_model, k, generator=generator, dtype=torch.float64) - 0.5) * (
            half / k
        )  # (H, k)
        omegas.append(center + offsets + jitter)
        decays.append(torch.full((d_model, k), max(half / k, w_min), dtype=torch.float64))
    if n_spread:
        # tile (0, π) evenly, each channel with its own random offset
        shift = torch.rand(d_model, 1, generator=generator, dtype=torch.float64)  # (H, 1)
        grid = torch.arange(n_spread, dtype=torch.float64)  # (S,)
        omegas.append(math.pi * (grid + shift) / n_spread)
        decays.append(torch.full((d_model, n_spread), math.pi / (2 * n_spread), dtype=torch.float64))
    omega = torch.cat(omegas, dim=1).clamp(0.0, math.pi)  # (H, N)
    w = torch.cat(decays, dim=1).clamp(w_min, math.pi / 2)  # (H, N)
    return omega, w


def kernel_energy(modes: ModeParams, discretization: str = "zoh") -> torch.Tensor:
    """Energy ``Σ_{l≥0} K[l]²`` of each channel's kernel (= the mean over frequency of
    ``|H(f) − D|²``, Parseval). (H,).

    With K[l] = Σ_j w_j z_j^l over the 2N poles z = (Ā, conj Ā) and weights w = (CB̄, conj CB̄),
    the sum is the geometric series Σ_{j,k} w_j w_k / (1 − z_j z_k): exact, and O(H·N²)
    rather than a frequency grid's O(H·N·F).

    Examples
    --------
    >>> from sktdi.ssm import init_modes
    >>> from sktdi.tdi import kernel_energy
    >>> kernel_energy(init_modes("s4d-lin", d_model=3, d_state=8)).shape
    torch.Size([3])
    """
    _, A_bar, B_bar = discretize(modes.A, modes.B, modes.dt, discretization)  # (H, N) each
    poles = torch.cat([A_bar, A_bar.conj()], dim=-1)  # (H, 2N)
    CB_bar = modes.C * B_bar  # (H, N)
    weights = torch.cat([CB_bar, CB_bar.conj()], dim=-1)  # (H, 2N)
    pairs = weights.unsqueeze(-1) * weights.unsqueeze(-2)  # (H, 2N, 2N)
    return (pairs / (1 - poles.unsqueeze(-1) * poles.unsqueeze(-2))).sum(dim=(-2, -1)).real


# how TDI keeps the model from being blind where the statistic is flat (``TDIOptions.coverage``)
COVERAGES = ("tiled", "base", "gain", "alias")
# where an aligned mode's decay comes from (``TDIOptions.decay``)
DECAYS = ("band", "base")


def _mode_energy(
    A: torch.Tensor, B: torch.Tensor, dt: torch.Tensor, discretization: str, length: int
) -> torch.Tensor:
    """Kernel energy Σ_{l<L} |2·Re(C B̄ Ā^l)|² of each mode for E|C|² = 1,
    ≈ 2|B̄|²(1 − |Ā|^{2L}) / (1 − |Ā|²): over the sequence's length, so a slowly decaying mode is not counted for
    the samples it never sees. (H, N)."""
    _, A_bar, B_bar = discretize(A, B, dt, discretization)  # (H, N) each
    decay = A_bar.abs() ** 2  # (H, N): |Ā|² per step
    length = max(int(length), 1)
    per_step = torch.where(
        decay < 1 - 1e-12, (1 - decay**length) / (1 - decay), torch.full_like(decay, length)
    )  # (H, N): Σ_{l<L} |Ā|^{2l}
    return 2 * B_bar.abs() ** 2 * per_step


def mode_frequencies(
    A: torch.Tensor, dt: torch.Tensor, discretization: str = "zoh"
) -> torch.Tensor:
    """Where each mode resonates, in cycles/sample on [0, 0.5]: the angle of its discrete
    pole Ā (under zoh, Im(A)·dt folded back into the band: a mode with Im(A)·dt > π
    aliases). (H, N).

    Examples
    --------
    >>> import math, torch
    >>> from sktdi.tdi import mode_frequencies
    >>> A = torch.tensor([[-0.5 + 0.5j * math.pi, -0.5 + 1.5j * math.pi]])
    >>> mode_frequencies(A, torch.tensor([1.0]))  # 0.25 and 0.75 -> aliased to 0.25
    tensor([[0.2500, 0.2500]])
    """
    _, A_bar, _ = discretize(A, torch.ones_like(A), dt, discretization)  # (H, N)
    return torch.angle(A_bar).abs() / (2 * math.pi)  # (H, N)


def _match_gain(
    modes: ModeParams, base: ModeParams, discretization: str, *, only_changed: bool = False
) -> ModeParams:
    """``modes`` with every B scaled so the layer's mean kernel energy is ``base``'s (same C
    and dt): TDI redistributes the energy over frequency, it adds none. ``only_changed``:
    scale only the channels whose poles moved (over their energy), so that every other
    channel stays exactly the base's."""
    reference = ModeParams(
        A=base.A.to(torch.complex128), B=base.B.to(torch.complex128), C=modes.C, dt=modes.dt
    )
    if not only_changed:
        scale = torch.sqrt(
            kernel_energy(reference, discretization).mean()
            / kernel_energy(modes, discretization).mean()
        )  # scalar
        return ModeParams(A=modes.A, B=modes.B * scale, C=modes.C, dt=modes.dt)
    changed = (modes.A != base.A.to(modes.A.dtype)).any(dim=1)  # (H,)
    if not changed.any():
        return modes
    scale = torch.sqrt(
        kernel_energy(reference, discretization)[changed].sum()
        / kernel_energy(modes, discretization)[changed].sum()
    )  # scalar
    B = torch.where(changed.unsqueeze(-1), modes.B * scale, modes.B)  # (H, N)
    return ModeParams(A=modes.A, B=B, C=modes.C, dt=modes.dt)


def _gain_init_modes(
    spectrum: TaskSpectrum,
    base: ModeParams,
    *,
    spread: float,
    max_peaks: int,
    min_prominence: float,
    discretization: str,
    match_gain: bool,
) -> tuple[ModeParams, TDIReport]:
    """``coverage="gain"``: base's poles, each mode's energy scaled by the alignment target's
    density (relative to uniform) at the frequency the mode resonates at.

    The target mixes the statistic's excess with a uniform share ``spread``, so no mode's
    energy falls below ``spread`` × its base value; a mode on a peak gains. A, C and dt stay
    the base's — so ``decay`` has nothing to act on — and only |B| changes (then the
    layer's total energy is matched to the base's).
    """
    A = base.A.to(torch.complex128)  # (H, N)
    C = base.C.to(torch.complex128)  # (H, N)
    dt = base.dt.to(torch.float64)  # (H,)
    density = alignment_target(spectrum, spread) * len(spectrum.freqs)  # (F,): 1 = uniform
    where = mode_frequencies(A, dt, discretization).numpy()  # (H, N)
    tilt = np.interp(where, np.asarray(spectrum.freqs, dtype=np.float64), density)  # (H, N)
    B = base.B.to(torch.complex128) * torch.sqrt(torch.as_tensor(tilt))  # (H, N)
    modes = ModeParams(A=A, B=B, C=C, dt=dt)
    if match_gain:
        modes = _match_gain(modes, base, discretization)
    n_modes = A.shape[1]
    report = TDIReport(
        kind=spectrum.kind,
        peaks=find_spectral_peaks(spectrum, max_peaks=max_peaks, min_prominence=min_prominence),
        modes_per_channel=n_modes,
        n_aligned_modes=0,
        n_spread_modes=n_modes,
        gain_reference="base modes" if match_gain else None,
        coverage="gain",
        notes=[
            "coverage='gain': every mode keeps its base pole; gains follow the statistic "
            f"(max gain x{float(np.sqrt(tilt.max())):.2f}, min x{float(np.sqrt(tilt.min())):.2f} "
            "before matching the layer's energy)"
        ],
    )
    return modes, report


def peak_init_modes(
    spectrum: TaskSpectrum,
    base: ModeParams,
    *,
    spread: float = 0.25,
    max_peaks: int = 8,
    min_prominence: float = 0.1,
    discretization: str = "zoh",
    match_gain: bool = True,
    coverage: str = "tiled",
    decay: str = "band",
    generator: torch.Generator | None = None,
) -> tuple[ModeParams, TDIReport]:
    """Peak initialization: S4D modes whose frequency response covers the task's peaks.

    Starts from ``base``, a layer's current modes (the base initialization): C and dt are
    kept, A and B are chosen anew. Per channel, ``round((1 - spread) · N)`` of the N modes
    are allocated to the dominant peaks in proportion to their mass and tile each peak's band
    (frequencies spread over it, decay = band half-width / modes on the peak); the rest tile
    the whole band (0, 0.5) so the model is not blind elsewhere. B is set per mode so the
    aligned modes hold a share (1 - spread) of the kernel energy and the spread modes the rest
    (``|H|²`` then follows :func:`alignment_target`); with ``match_gain`` all B are finally
    scaled so the layer's total kernel energy equals that of ``base``. Deterministic given
    ``generator`` (the jitter of the frequencies within a band).

    ``coverage`` says what keeps the model from being blind off the peaks (see
    :data:`COVERAGES`): "tiled" (above), "base" — the ``spread`` share of each channel's
    modes are ``base``'s own modes, unchanged (its multi-scale coverage of the band, with
    its long memories), and only the rest move to the peaks — or "gain" — no mode moves:
    every pole stays ``base``'s, and each mode's gain follows :func:`alignment_target` at
    the frequency it resonates at.

    ``decay`` (see :data:`DECAYS`): "band" gives a peak's modes the decay of its band
    (half-width / modes on it, at least 1/L: narrow peaks make long, narrowband memories);
    "base" keeps every mode's own decay ``Re(A)·dt`` from ``base`` — only the frequencies
    move to the peaks, and the base's spread of time scales (s4d-lin: one per channel,
    log-uniform over the dt range) stays.

    Returns (ModeParams, TDIReport) — the report's L_spec fields are filled by
    :func:`align_layer`.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.ssm import init_modes
    >>> from sktdi.tdi import fisher_log_power, peak_init_modes
    >>> base = init_modes("s4d-lin", d_model=4, d_state=16)
    >>> modes, report = peak_init_modes(fisher_log_power(X, y), base)
    >>> modes.A.shape, report.n_aligned_modes, report.n_spread_modes
    (torch.Size([4, 8]), 6, 2)
    >>> bool((modes.C == base.C).all() and (modes.dt == base.dt).all())
    True
    """
    if not 0 <= spread <= 1:
        raise ValueError(f"spread must be in [0, 1], got {spread}")
    if coverage == "auto":
        raise ValueError(
            "coverage='auto' names a form by the model it is for: resolve it first "
            "(sktdi.tdi.resolve_coverage), or pass one of " + ", ".join(map(repr, COVERAGES))
        )
    if coverage not in COVERAGES:
        raise ValueError(f"coverage must be one of {COVERAGES}, got {coverage!r}")
    if decay not in DECAYS:
        raise ValueError(f"decay must be one of {DECAYS}, got {decay!r}")
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    if coverage == "gain":
        return _gain_init_modes(
            spectrum,
            base,
            spread=spread,
            max_peaks=max_peaks,
            min_prominence=min_prominence,
            discretization=discretization,
            match_gain=match_gain,
        )
    if coverage == "alias":
        return _alias_init_modes(
            spectrum,
            base,
            spread=spread,
            max_peaks=max_peaks,
            min_prominence=min_prominence,
            discretization=discretization,
            match_gain=match_gain,
            decay=decay,
            generator=generator,
        )
    d_model, n_modes = base.A.shape
    C = base.C.to(torch.complex128)  # (H, N)
    dt = base.dt.to(torch.float64)  # (H,)
    peaks = find_spectral_peaks(spectrum, max_peaks=max_peaks, min_prominence=min_prominence)
    notes = []
    if not peaks:
        notes.append(
            "the statistic has no prominent, significant peak: all modes spread over the band"
        )
    had_peaks = bool(peaks)
    n_spread = n_modes if not peaks else int(round(spread * n_modes))
    if peaks and n_spread == n_modes and spread < 1:
        n_spread = n_modes - 1  # at least one mode on the main peak
    counts = allocate_modes([p.mass for p in peaks], n_modes - n_spread)
    peaks = [
        SpectralPeak(**{**asdict(p), "n_modes": c}) for p, c in zip(peaks, counts) if c > 0
    ]
    omega, w = _discrete_targets(
        peaks, [p.n_modes for p in peaks], n_spread, d_model, spectrum.length, generator
    )
    if decay == "base":
        w = (-base.A.real.to(torch.float64) * dt.unsqueeze(-1)).clamp(max=math.pi / 2)  # (H, N)
    A = torch.complex(-w, omega) / dt.unsqueeze(-1)  # (H, N)
    # energy per mode: the aligned modes share (1 - spread) of the kernel energy, the spread
    # modes the rest, equally within each group — so |H|² follows the alignment target. A mode's
    # kernel energy is ≈ 2|C B̄|²/(1 − |Ā|²) with E|C|² = 1; solve it for |B|.
    n_aligned = n_modes - n_spread
    share = torch.empty(n_modes, dtype=torch.float64)  # (N,)
    share[:n_aligned] = (1 - spread if n_spread else 1.0) / max(n_aligned, 1)
    share[n_aligned:] = (spread if n_aligned else 1.0) / max(n_spread, 1)
    _, A_bar, B_bar_unit = discretize(A, torch.ones_like(A), dt, discretization)  # (H, N) each
    B = (torch.sqrt(share * (1 - A_bar.abs() ** 2) / 2) / B_bar_unit.abs()).to(torch.complex128)
    if coverage == "base" and had_peaks and spread >= 1:
        # spread=1 sends nothing to the peaks: every mode stays the base's (a statistic with
        # no clear peak still spreads every mode, as measured in docs/tdi_real.md)
        A, B = base.A.to(torch.complex128), base.B.to(torch.complex128)  # (H, N) each
        notes.append("no mode moved (spread=1): every mode is the base's own")
    if coverage == "base" and n_spread and n_aligned:
        # the spread share keeps the base's own modes — its first ones: for s4d-lin the
        # lowest frequencies — scaled as a group to hold the spread share of the channel's
        # energy (measured over the sequence's length), as the tiled modes would
        kept = slice(n_aligned, None)
        base_A = base.A.to(torch.complex128)[:, :n_spread]  # (H, S)
        base_B = base.B.to(torch.complex128)[:, :n_spread]  # (H, S)
        A = torch.cat([A[:, :n_aligned], base_A], dim=1)  # (H, N)
        energy = _mode_energy(base_A, base_B, dt, discretization, spectrum.length)  # (H, S)
        scale = torch.sqrt(spread / energy.sum(dim=1, keepdim=True).clamp_min(1e-300))  # (H, 1)
        B = torch.cat([B[:, :n_aligned], base_B * scale], dim=1)  # (H, N)
        notes.append(
            f"the base's first {n_spread} mode(s) kept on each channel (for s4d-lin its lowest "
            f"frequencies), as modes {kept.start}..{n_modes - 1}"
        )
    modes = ModeParams(A=A, B=B, C=C, dt=dt)
    if match_gain:
        modes = _match_gain(modes, base, discretization)
    report = TDIReport(
        kind=spectrum.kind,
        peaks=peaks,
        modes_per_channel=n_modes,
        n_aligned_modes=n_modes - n_spread,
        n_spread_modes=n_spread,
        gain_reference="base modes" if match_gain else None,
        notes=notes,
        # what the modes are: with no clear peak, "base" coverage tiled the band too
        coverage=coverage if had_peaks else "tiled",
    )
    return modes, report


def aliased_modes(A: torch.Tensor, dt: torch.Tensor) -> torch.Tensor:
    """Which modes alias: ``|Im(A)|·dt > π``, a resonance past the band folded back into it
    (:func:`mode_frequencies`), with the short memory of its channel's large step. (H, N) bool.

    Examples
    --------
    >>> from sktdi.ssm import init_modes
    >>> from sktdi.tdi import aliased_modes
    >>> import torch
    >>> modes = init_modes("s4d-lin", d_model=2, d_state=8)  # A = -1/2 + iπn, n = 0..3
    >>> aliased_modes(modes.A, torch.tensor([0.5, 0.1])).tolist()
    [[False, False, False, True], [False, False, False, False]]
    """
    return A.imag.abs() * dt.unsqueeze(-1) > math.pi  # (H, N)


# a layer is blind at a peak when its power response Σ_h |H_h|² there (the mean over the peak's
# band) is under this share of its mean over the band: on every real dataset of
# docs/tdi_real.md, S4D-Lin's is at least 0.42 at the statistic's peaks; on a bank whose
# steps stop short of a planted tone (dt ≤ 0.1, f = 0.3), 0.16
BLIND_POWER = 0.25
# how a report's notes say that coverage="alias" placed the modes as "base" does (the summary
# of sktdi.tdi.initialize reads it)
ALIAS_FELL_BACK = "coverage='alias' fell back to 'base'"


def _blind_peaks(
    peaks: list[SpectralPeak], base: ModeParams, spectrum: TaskSpectrum, discretization: str
) -> list[tuple[float, float]]:
    """(frequency, relative power) of each peak where the base's layer is blind
    (:data:`BLIND_POWER`)."""
    if not peaks:
        return []
    _, A_bar, B_bar = discretize(
        base.A.to(torch.complex128), base.B.to(torch.complex128), base.dt.to(torch.float64),
        discretization,
    )  # (H, N) each
    freqs = np.asarray(spectrum.freqs, dtype=np.float64)  # (F,)
    CB_bar = base.C.to(torch.complex128) * B_bar  # (H, N)
    response = transfer_function(
        A_bar, CB_bar, torch.zeros(A_bar.shape[0], dtype=torch.float64), torch.as_tensor(freqs)
    )  # (H, F)
    power = response.abs().pow(2).sum(dim=0).numpy()  # (F,)
    power = power / power.mean()
    blind = []
    for peak in peaks:
        band = (freqs >= peak.left_freq) & (freqs <= peak.right_freq)
        at = power[band].mean() if band.any() else float(np.interp(peak.freq, freqs, power))
        if at < BLIND_POWER:
            blind.append((peak.freq, float(at)))
    return blind


def _alias_init_modes(
    spectrum: TaskSpectrum,
    base: ModeParams,
    *,
    spread: float,
    max_peaks: int,
    min_prominence: float,
    discretization: str,
    match_gain: bool,
    decay: str,
    generator: torch.Generator,
) -> tuple[ModeParams, TDIReport]:
    """``coverage="alias"``: only the base's aliased modes (:func:`aliased_modes`; at most
    ``round((1 - spread)·N)`` per channel, the highest ones) move to the statistic's peaks;
    every other mode keeps its pole as built.

    An aliased mode resonates at its frequency folded back into the band, with the short
    memory of a large step: a random narrow-band filter, which is what the placebo puts on
    the peaks. Moving those modes, and only those, keeps everything else the base gives — its
    low frequencies and long memories on every channel. A channel with no aliased mode is
    left as built; so is every channel when the statistic has no peak. Where the base is
    blind to a peak (:data:`BLIND_POWER`), moving its waste is not enough: the layer gets
    ``coverage="base"`` instead, and the report's notes say so.

    On a channel that moves ``m`` modes they hold a share ``1 - spread`` of its kernel energy
    (measured over the sequence's length) and its kept modes, scaled as a group, the rest, as
    with ``coverage="base"``; ``match_gain`` then matches the layer's energy to the base's.
    """
    peaks = find_spectral_peaks(spectrum, max_peaks=max_peaks, min_prominence=min_prominence)
    blind = _blind_peaks(peaks, base, spectrum, discretization)
    if blind:
        # moving only what the base wastes would leave it blind there: place half of each
        # channel's modes on the peaks as coverage="base" does
        modes, report = peak_init_modes(
            spectrum, base, spread=spread, max_peaks=max_peaks, min_prominence=min_prominence,
            discretization=discretization, match_gain=match_gain, coverage="base",
            decay=decay, generator=generator,
        )
        where = ", ".join(f"f = {freq:.3f} ({power:.2f})" for freq, power in blind)
        report.notes.append(
            f"{ALIAS_FELL_BACK}: the base is blind at {where}, its power there under "
            f"{BLIND_POWER} of its mean"
        )
        return modes, report
    A = base.A.to(torch.complex128).clone()  # (H, N)
    B = base.B.to(torch.complex128).clone()  # (H, N)
    C = base.C.to(torch.complex128)  # (H, N)
    dt = base.dt.to(torch.float64)  # (H,)
    n_modes = A.shape[1]
    most = n_modes - int(round(spread * n_modes))
    aliased = aliased_modes(A, dt)  # (H, N)
    # the highest aliased modes of each channel, at most `most` of them
    rank_from_top = torch.flip(torch.cumsum(torch.flip(aliased.long(), [1]), 1), [1])  # (H, N)
    moved = aliased & (rank_from_top <= most) if peaks else torch.zeros_like(aliased)  # (H, N)
    counts_per_channel = moved.sum(dim=1)  # (H,)
    length = spectrum.length
    for m in sorted(set(counts_per_channel.tolist()) - {0}):
        rows = torch.nonzero(counts_per_channel == m).flatten()  # channels that move m modes
        counts = allocate_modes([p.mass for p in peaks], m)
        omega, w = _discrete_targets(peaks, counts, 0, len(rows), length, generator)  # (h, m)
        if decay == "base":
            w = (-A.real[rows][moved[rows]].view(len(rows), m) * dt[rows, None]).clamp(
                max=math.pi / 2
            )  # (h, m)
        where = moved[rows]  # (h, N)
        block_A = A[rows]  # (h, N)
        block_A[where] = (torch.complex(-w, omega) / dt[rows, None]).reshape(-1)
        A[rows] = block_A
    changed = counts_per_channel > 0  # (H,)
    if changed.any():
        # energies over the sequence's length, E|C|² = 1: the moved modes share 1 - spread of
        # each changed channel's energy equally, the kept modes keep their proportions
        unit = _mode_energy(A, torch.ones_like(B), dt, discretization, length)  # (H, N)
        kept_energy = (_mode_energy(A, B, dt, discretization, length) * ~moved).sum(1)  # (H,)
        share = torch.where(
            moved,
            (1 - spread) / counts_per_channel.clamp_min(1).unsqueeze(-1),
            torch.zeros((), dtype=torch.float64),
        )  # (H, N)
        B_moved = torch.sqrt(share / unit.clamp_min(1e-300)).to(torch.complex128)  # (H, N)
        keep_scale = torch.sqrt(spread / kept_energy.clamp_min(1e-300)).unsqueeze(-1)  # (H, 1)
        B_new = torch.where(moved, B_moved, B * keep_scale)  # (H, N)
        B = torch.where(changed.unsqueeze(-1), B_new, B)  # (H, N)
    modes = ModeParams(A=A, B=B, C=C, dt=dt)
    if match_gain:
        modes = _match_gain(modes, base, discretization, only_changed=True)
    return modes, _alias_report(spectrum, peaks, modes, base, match_gain)


def _alias_report(
    spectrum: TaskSpectrum,
    peaks: list[SpectralPeak],
    modes: ModeParams,
    base: ModeParams,
    match_gain: bool,
) -> TDIReport:
    """What ``coverage="alias"`` did, counted on the modes as they are (after any channel
    share): the changed channels, per changed channel the mean number of moved modes, and
    each peak's share of them (only the peaks that got a mode are listed)."""
    moved = modes.A != base.A.to(modes.A.dtype)  # (H, N)
    counts = moved.sum(dim=1)  # (H,)
    changed = counts > 0  # (H,)
    n_changed, n_modes = int(changed.sum()), moved.shape[1]
    total = np.zeros(len(peaks))
    for m in counts[changed].tolist():  # each channel's m moved modes, split as allocated
        total += allocate_modes([p.mass for p in peaks], m)
    per_channel = int(round(float(counts[changed].float().mean()))) if n_changed else 0
    used = [
        SpectralPeak(**{**asdict(p), "n_modes": max(1, int(round(t / n_changed)))})
        for p, t in zip(peaks, total)
        if t > 0
    ]
    if n_changed:
        note = (
            f"{int(moved.sum())} aliased mode(s) on {n_changed} of {len(counts)} channels moved "
            "to the peaks; every other mode keeps its pole as built, and every other channel "
            "is the base's exactly"
        )
    elif peaks:
        note = "no aliased mode to move: every mode is kept as built"
    else:
        note = "the statistic has no prominent, significant peak: every mode is kept"
    return TDIReport(
        kind=spectrum.kind,
        peaks=used,
        modes_per_channel=n_modes,
        n_aligned_modes=per_channel,
        n_spread_modes=n_modes - per_channel,
        gain_reference="base modes" if match_gain and n_changed else None,
        n_aligned_channels=n_changed,
        notes=[note],
        coverage="alias",
    )


def align_modes(
    spectrum: TaskSpectrum,
    base: ModeParams,
    *,
    spread: float = 0.25,
    max_peaks: int = 8,
    min_prominence: float = 0.1,
    discretization: str = "zoh",
    match_gain: bool = True,
    channel_share: float = 1.0,
    coverage: str = "tiled",
    decay: str = "band",
    generator: torch.Generator | None = None,
) -> tuple[ModeParams, TDIReport]:
    """TDI's map from a layer's base modes to its aligned modes, as a pure function:
    :func:`peak_init_modes`, then the channels that keep ``base``.

    ``channel_share`` < 1 aligns only that share of the channels (chosen at random with
    ``generator``, after the peak init's draws); the others keep ``base``'s modes —
    shrinkage toward the base initialization. The report's ``n_aligned_channels`` says how
    many were aligned; its L_spec fields are :func:`align_layer`'s. ``base`` is left alone.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.ssm import init_modes
    >>> from sktdi.tdi import align_modes, fisher_log_power
    >>> base = init_modes("s4d-lin", d_model=4, d_state=16)
    >>> modes, report = align_modes(fisher_log_power(X, y), base, channel_share=0.5)
    >>> report.n_aligned_channels, int((modes.A == base.A).all(dim=1).sum())
    (2, 2)
    """
    if not 0 <= channel_share <= 1:
        raise ValueError(f"channel_share must be in [0, 1], got {channel_share}")
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    modes, report = peak_init_modes(
        spectrum,
        base,
        spread=spread,
        max_peaks=max_peaks,
        min_prominence=min_prominence,
        discretization=discretization,
        match_gain=match_gain,
        coverage=coverage,
        decay=decay,
        generator=generator,
    )
    d_model = base.A.shape[0]
    n_aligned = int(round(channel_share * d_model))
    # spread=1 with the base's own modes: peak_init_modes moved none, so no channel changed
    nothing_moved = coverage == "base" and spread >= 1
    if nothing_moved:
        n_aligned = 0
        report.notes.append(
            f"none of the {d_model} channels changed: every one keeps the base initialization"
        )
    elif n_aligned < d_model:
        keep = torch.ones(d_model, dtype=torch.bool)  # (H,)
        keep[torch.randperm(d_model, generator=generator)[:n_aligned]] = False
        keep = keep.unsqueeze(-1)  # (H, 1): channels that keep the base modes
        modes = ModeParams(
            A=torch.where(keep, base.A.to(modes.A.dtype), modes.A),  # (H, N)
            B=torch.where(keep, base.B.to(modes.B.dtype), modes.B),  # (H, N)
            C=modes.C,
            dt=modes.dt,
        )
        if report.coverage == "alias":
            # only the drawn channels that had aliased modes changed: the report counts what
            # moved on them (and the layer's energy is matched over them, below)
            peaks = find_spectral_peaks(
                spectrum, max_peaks=max_peaks, min_prominence=min_prominence
            )  # all of them, as the alias form allocated its modes over them
            report = _alias_report(spectrum, peaks, modes, base, match_gain)
            report.notes.append(
                f"the channel share ({channel_share:.2f}) drew {n_aligned} of {d_model} "
                f"channels; {report.n_aligned_channels} of them had aliased modes and changed"
            )
        else:
            report.notes.append(
                f"{n_aligned} of {d_model} channels aligned (channel share "
                f"{channel_share:.2f}); the others keep the base initialization"
            )
    if report.coverage == "alias":
        if match_gain:  # over the channels that changed after the share
            modes = _match_gain(modes, base, discretization, only_changed=True)
        n_aligned = report.n_aligned_channels  # the channels with aliased modes to move
    report.n_aligned_channels = n_aligned
    report.n_channels = d_model
    return modes, report


def align_layer(
    layer: S4D,
    spectrum: TaskSpectrum,
    *,
    spread: float = 0.25,
    max_peaks: int = 8,
    min_prominence: float = 0.1,
    match_gain: bool = True,
    refine_steps: int = 0,
    refine_lr: float = 1e-2,
    refine_max_seconds: float = 10.0,
    channel_share: float = 1.0,
    coverage: str = "tiled",
    decay: str = "band",
    generator: torch.Generator | None = None,
) -> TDIReport:
    """TDI for one S4D layer, in place: the layer's modes read once, mapped by
    :func:`align_modes`, the layer set once; then optional refinement. Returns the report.

    ``channel_share`` < 1 aligns only that share of the channels (chosen at random); the
    others keep their current (base) modes — shrinkage toward the base initialization. Every
    channel keeps its C and dt; only A and B change on the aligned ones (their initial values);
    shapes, D and everything else stay.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import align_layer, fisher_log_power
    >>> report = align_layer(S4D(16, 32), fisher_log_power(X, y))
    >>> len(report.peaks), report.l_spec_init < report.l_spec_reference
    (3, True)
    """
    with torch.no_grad():
        # the modes as the layer holds them (its float32 parameters, for a float32 layer):
        # what TDI aligns, keeps on the other channels and matches the gain of
        base = ModeParams(**{k: v.detach().cpu() for k, v in vars(layer.modes()).items()})
    modes, report = align_modes(
        spectrum,
        base,
        spread=spread,
        max_peaks=max_peaks,
        min_prominence=min_prominence,
        discretization=layer.discretization,
        match_gain=match_gain,
        channel_share=channel_share,
        coverage=coverage,
        decay=decay,
        generator=generator,
    )
    freqs, target = _alignment_tensors(layer, spectrum, spread)
    with torch.no_grad():
        report.l_spec_reference = float(spectral_alignment_loss(layer, freqs, target))
    if report.n_aligned_channels > 0:
        # with no channel to align the layer is left as built, bit for bit (a round trip
        # through the float64 parameterization would round the base modes)
        layer.set_modes(modes)
    if refine_steps > 0:
        before, after, done, seconds = refine_modes(
            layer,
            spectrum,
            steps=refine_steps,
            lr=refine_lr,
            max_seconds=refine_max_seconds,
            spread=spread,
        )
        report.l_spec_init, report.l_spec_final = before, after
        report.refine_steps, report.refine_seconds = done, seconds
    else:
        with torch.no_grad():
            report.l_spec_init = float(spectral_alignment_loss(layer, freqs, target))
        report.l_spec_final = report.l_spec_init
    return report
