"""TDI: task spectra on planted-frequency tasks, peak initialization, refinement, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.signal import find_peaks

from sktdi.ssm import S4D, init_modes
from sktdi.tdi import (
    BASE_INIT,
    TDIOptions,
    align_layer,
    allocate_modes,
    cross_spectrum,
    find_spectral_peaks,
    fisher_log_power,
    peak_init_modes,
    refine_modes,
    task_spectrum,
)

PLANTED = [0.05, 0.2, 0.37]


def base_modes(d_model, d_state, seed=0):
    """The modes a layer is built with before TDI (the base initialization)."""
    return init_modes(BASE_INIT, d_model, d_state, generator=torch.Generator().manual_seed(seed))


def planted_classification(freqs, n_per_class=20, length=256, amplitude=1.0, seed=0):
    """Class 0 is noise; class k adds a random-phase sinusoid at freqs[k-1]."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    y = np.repeat(np.arange(len(freqs) + 1), n_per_class)
    X = rng.normal(size=(len(y), length))
    for k, f in enumerate(freqs, start=1):
        phase = rng.uniform(0, 2 * np.pi, size=(n_per_class, 1))
        X[y == k] += amplitude * np.sin(2 * np.pi * f * t + phase)
    return X, y


def planted_band_power_regression(freq, n=80, length=256, seed=0):
    """y = power of a random-phase sinusoid at ``freq`` buried in noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    amp = rng.uniform(0, 2, size=(n, 1))
    phase = rng.uniform(0, 2 * np.pi, size=(n, 1))
    X = rng.normal(size=(n, length)) + amp * np.sin(2 * np.pi * freq * t + phase)
    return X, amp.ravel() ** 2


def summed_response(layer, freqs):
    """Σ_h |H_h(f)|²: the SSM-induced kernel's eigenvalue profile."""
    _, magnitude = layer.frequency_response(torch.as_tensor(freqs, dtype=torch.float64))
    return magnitude.pow(2).sum(dim=0).numpy()


@pytest.mark.parametrize("freq", PLANTED)
def test_fisher_statistic_peaks_at_planted_frequency(freq):
    X, y = planted_classification([freq])
    spectrum = fisher_log_power(X, y)
    bin_width = spectrum.freqs[1] - spectrum.freqs[0]
    assert abs(spectrum.dominant_frequency() - freq) <= bin_width
    assert spectrum.kind == "fisher-log-power"
    assert spectrum.values.shape == spectrum.freqs.shape
    assert spectrum.freqs[0] == 0 and spectrum.freqs[-1] <= 0.5


@pytest.mark.parametrize("freq", PLANTED)
def test_cross_spectrum_peaks_at_band_power_frequency(freq):
    X, y = planted_band_power_regression(freq)
    spectrum = cross_spectrum(X, y)
    bin_width = spectrum.freqs[1] - spectrum.freqs[0]
    assert abs(spectrum.dominant_frequency() - freq) <= bin_width
    # random phase: the power term carries it, the linear term stays small
    k = np.argmin(np.abs(spectrum.freqs - freq))
    assert spectrum.components["power"][k] > 0.5
    assert spectrum.components["linear"][k] < 0.3


def test_cross_spectrum_linear_target_and_multioutput():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 64))
    t = np.arange(64)
    g1, g2 = np.cos(2 * np.pi * 0.1 * t), np.cos(2 * np.pi * 0.4 * t)
    single = cross_spectrum(X, X @ g1)
    assert abs(single.dominant_frequency() - 0.1) <= 1 / 64
    multi = cross_spectrum(X, np.column_stack([X @ g1, X @ g2]))
    top2 = np.sort(multi.freqs[np.argsort(-multi.values)[:2]])
    np.testing.assert_allclose(top2, [0.1, 0.4], atol=1 / 64)


def test_coherence_for_sequence_targets():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 512))
    # the target is X band-passed around 0.25 plus independent noise
    spec = np.fft.rfft(X, axis=-1)
    f = np.fft.rfftfreq(512)
    spec[:, np.abs(f - 0.25) > 0.03] = 0
    Y = np.fft.irfft(spec, n=512, axis=-1) + 0.1 * rng.normal(size=X.shape)
    spectrum = cross_spectrum(X, Y, sequence_target=True)
    assert spectrum.kind == "coherence"
    assert abs(spectrum.dominant_frequency() - 0.25) < 0.03
    assert spectrum.values.max() <= 1 + 1e-12
    with pytest.raises(ValueError, match="sequence targets"):
        cross_spectrum(X, Y[:, :100], sequence_target=True)


def test_multivariate_per_channel_and_pooled():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 3, 128))
    X[y == 1, 1] += np.sin(2 * np.pi * 0.3 * np.arange(128))
    spectrum = fisher_log_power(X, y)
    assert spectrum.channel_values.shape == (3, len(spectrum.freqs))
    peak_channel = spectrum.channel_values.max(axis=1)
    assert np.argmax(peak_channel) == 1 and peak_channel[1] > 5 * peak_channel[[0, 2]].max()
    np.testing.assert_allclose(spectrum.values, spectrum.channel_values.mean(axis=0))
    assert abs(spectrum.dominant_frequency() - 0.3) <= 1 / 128


def test_many_classes():
    freqs = list(np.linspace(0.05, 0.45, 9))
    X, y = planted_classification(freqs, n_per_class=6, length=128)
    spectrum = fisher_log_power(X, y.astype(str))  # string labels too
    assert np.all(np.isfinite(spectrum.values))
    peaks = find_spectral_peaks(spectrum, max_peaks=20)
    found = np.array([p.freq for p in peaks])
    for f in freqs:
        assert np.min(np.abs(found - f)) <= 2 / 128


@pytest.mark.parametrize("length", [8, 9, 100, 16384])
def test_lengths_and_two_samples_per_class(length):
    rng = np.random.default_rng(4)
    y = np.array([0, 0, 1, 1])
    X = rng.normal(size=(4, length))
    X[2:] += np.sin(2 * np.pi * 0.25 * np.arange(length))
    with np.errstate(all="raise"):
        spectrum = fisher_log_power(X, y)
    assert np.all(np.isfinite(spectrum.values)) and np.all(spectrum.values >= 0)
    expected_method = "periodogram" if length <= 256 else "welch"
    assert spectrum.estimator["method"] == expected_method
    assert spectrum.length == length and spectrum.n_samples == 4


def test_constant_series_no_division_by_zero():
    X = np.ones((6, 32)) * np.arange(6)[:, None]
    y = np.array([0, 0, 0, 1, 1, 1])
    with np.errstate(all="raise"):
        fisher = fisher_log_power(X, y)
        cross = cross_spectrum(X, np.arange(6.0))
        flat = fisher_log_power(np.zeros((6, 32)), y)
    for spectrum in (fisher, cross, flat):
        assert np.all(np.isfinite(spectrum.values))
    np.testing.assert_allclose(flat.values, 0, atol=1e-10)
    # a flat statistic has no peak: peak init spreads every mode
    modes, report = peak_init_modes(flat, base_modes(4, 8))
    assert report.peaks == [] and report.n_spread_modes == 4
    assert bool((modes.A.real < 0).all())


def test_three_d_input_matches_two_d_for_one_channel():
    X, y = planted_classification([0.2], n_per_class=8, length=64)
    a = fisher_log_power(X, y)
    b = fisher_log_power(X[:, None, :], y)
    np.testing.assert_allclose(a.values, b.values)


@pytest.mark.parametrize(
    "X, y, error, match",
    [
        (np.full((4, 16), np.nan), [0, 0, 1, 1], ValueError, "NaN"),
        (np.full((4, 16), np.inf), [0, 0, 1, 1], ValueError, "infinity"),
        (np.zeros((4, 16)), [0, 0, 0, 0], ValueError, "only 1 class"),
        (np.zeros((4,)), [0, 0, 1, 1], ValueError, "2-D"),
        (np.zeros((4, 2, 3, 5)), [0, 0, 1, 1], ValueError, "2-D"),
        (np.zeros((0, 16)), [], ValueError, "0 samples"),
        (np.zeros((4, 16)), [0, 1, 1], ValueError, "3 labels"),
        (np.zeros((4, 16), dtype=complex), [0, 0, 1, 1], ValueError, "complex"),
        (np.array([["a"] * 16] * 4), [0, 0, 1, 1], TypeError, "numeric"),
    ],
)
def test_bad_input_clear_errors(X, y, error, match):
    with pytest.raises(error, match=match):
        fisher_log_power(X, y)


def test_bad_regression_input():
    with pytest.raises(ValueError, match="NaN"):
        cross_spectrum(np.zeros((5, 16)), [0.0, 1.0, np.nan, 2.0, 3.0])
    with pytest.raises(ValueError, match="at least 3"):
        cross_spectrum(np.zeros((2, 16)), [0.0, 1.0])
    with pytest.raises(TypeError, match="numeric"):
        cross_spectrum(np.zeros((4, 16)), ["a", "b", "c", "d"])


def test_bad_method():
    with pytest.raises(ValueError, match="method"):
        fisher_log_power(np.zeros((4, 16)), [0, 0, 1, 1], method="multitaper")


def test_task_spectrum_subsample_is_stratified_and_seeded():
    X, y = planted_classification([0.2, 0.4], n_per_class=30, length=64)
    a = task_spectrum(X, y, task="classification", subsample=12, random_state=0)
    b = task_spectrum(X, y, task="classification", subsample=12, random_state=0)
    c = task_spectrum(X, y, task="classification", subsample=0.2, random_state=1)
    assert a.n_samples == 12 and c.n_samples == 18
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    # tiny subsample: still >= 2 per class
    tiny = task_spectrum(X, y, task="classification", subsample=1, random_state=0)
    assert tiny.n_samples == 6
    reg = task_spectrum(X, np.arange(90.0), task="regression", subsample=20, random_state=0)
    assert reg.n_samples == 20 and reg.kind == "cross-spectrum"
    with pytest.raises(ValueError, match="task"):
        task_spectrum(X, y, task="ranking")


def test_allocate_modes_by_mass():
    assert allocate_modes([3.0, 1.0], 8) == [6, 2]
    assert allocate_modes([100.0, 1.0, 1.0], 4) == [2, 1, 1]  # every peak served while modes last
    assert sum(allocate_modes([0.3, 0.3, 0.4], 7)) == 7
    assert allocate_modes([5.0, 1.0, 1.0], 1) == [1, 0, 0]
    assert allocate_modes([], 5) == []


@pytest.mark.parametrize("freq", PLANTED)
def test_peak_init_response_peaks_at_planted_frequency(freq):
    X, y = planted_classification([freq])
    spectrum = fisher_log_power(X, y)
    torch.manual_seed(0)
    lin = S4D(64, 32, init="s4d-lin").double()
    tdi = S4D(64, 32, init="s4d-lin").double()
    report = align_layer(tdi, spectrum, generator=torch.Generator().manual_seed(0))
    grid = np.linspace(0, 0.5, 1001)
    tdi_response = summed_response(tdi, grid)
    assert abs(grid[np.argmax(tdi_response)] - freq) <= 0.01
    assert report.peaks and abs(report.peaks[0].freq - freq) <= 1 / 256
    if freq > 0.3:  # S4D-Lin's bias is low-frequency: it does not reach 0.37
        lin_response = summed_response(lin, grid)
        assert grid[np.argmax(lin_response)] < 0.1
        at_planted = lin_response[np.argmin(np.abs(grid - freq))]
        assert at_planted < 0.6 * lin_response.max()
        ratio_tdi = tdi_response[np.argmin(np.abs(grid - freq))] / np.median(tdi_response)
        ratio_lin = at_planted / np.median(lin_response)
        assert ratio_tdi > 3 * ratio_lin


def test_peak_init_covers_several_planted_frequencies():
    X, y = planted_classification(PLANTED)
    spectrum = fisher_log_power(X, y)
    layer = S4D(64, 64).double()
    report = align_layer(layer, spectrum, generator=torch.Generator().manual_seed(0))
    assert len(report.peaks) >= 3
    assert report.n_aligned_modes + report.n_spread_modes == 32
    assert sum(p.n_modes for p in report.peaks) == report.n_aligned_modes
    grid = np.linspace(0, 0.5, 1001)
    response = summed_response(layer, grid)
    for f in PLANTED:
        near = np.abs(grid - f) <= 0.01
        assert response[near].max() > 5 * np.median(response)
    idx, _ = find_peaks(response)
    top = grid[idx[np.argmax(response[idx])]]
    assert min(abs(top - f) for f in PLANTED) <= 0.01
    assert report.l_spec_init < report.l_spec_reference  # aligned better than the default
    text = str(report)
    assert "peak at f=0.37" in text and "spectral mismatch" in text
    assert report.to_dict()["n_aligned_modes"] == report.n_aligned_modes


def test_peak_init_is_stable_unaliased_deterministic_and_gain_matched():
    from sktdi.tdi import kernel_energy

    X, y = planted_classification([0.2, 0.45])
    spectrum = fisher_log_power(X, y)
    base = base_modes(16, 32, seed=5)
    a, _ = peak_init_modes(spectrum, base, generator=torch.Generator().manual_seed(5))
    b, _ = peak_init_modes(spectrum, base, generator=torch.Generator().manual_seed(5))
    c, _ = peak_init_modes(spectrum, base, generator=torch.Generator().manual_seed(6))
    for name in ("A", "B", "C", "dt"):
        torch.testing.assert_close(getattr(a, name), getattr(b, name))
    assert not torch.equal(a.A, c.A)  # the generator jitters frequencies within a band
    # C and dt are the base's, drawn once: TDI chooses A and B only
    assert torch.equal(a.C, base.C) and torch.equal(c.C, base.C) and torch.equal(a.dt, base.dt)
    assert bool((a.A.real < 0).all())
    assert bool((a.A.imag * a.dt.unsqueeze(-1) <= np.pi + 1e-12).all())  # nothing aliases
    np.testing.assert_allclose(
        kernel_energy(a).mean().item(), kernel_energy(base).mean().item(), rtol=1e-8
    )


@pytest.mark.parametrize("spread", [0.0, 0.5, 1.0])
def test_spread_share(spread):
    X, y = planted_classification([0.2])
    spectrum = fisher_log_power(X, y)
    _, report = peak_init_modes(spectrum, base_modes(4, 32), spread=spread)
    assert report.n_spread_modes == round(spread * 16) or (spread == 0 and report.n_spread_modes == 0)
    with pytest.raises(ValueError, match="spread"):
        peak_init_modes(spectrum, base_modes(4, 32), spread=1.5)


def test_gain_coverage_keeps_every_pole_and_tilts_gains_toward_the_peak():
    """coverage="gain": A, C and dt are the base's; |B| alone follows the statistic, so the
    modes resonating near the planted frequency gain relative to the others, and the layer's
    energy is the base's."""
    from sktdi.tdi import kernel_energy
    from sktdi.tdi import mode_frequencies

    X, y = planted_classification([0.2])
    spectrum = fisher_log_power(X, y)
    base = base_modes(16, 64, seed=2)
    modes, report = peak_init_modes(spectrum, base, coverage="gain")
    for name in ("A", "C", "dt"):
        value = getattr(modes, name)
        torch.testing.assert_close(value, getattr(base, name).to(value.dtype))
    gain = (modes.B.abs() / base.B.abs()).numpy()  # (H, N)
    where = mode_frequencies(base.A.to(torch.complex128), base.dt.double()).numpy()
    near, far = np.abs(where - 0.2) < 0.01, np.abs(where - 0.2) > 0.1
    assert near.any() and far.any()
    assert gain[near].mean() > 2 * gain[far].mean()
    np.testing.assert_allclose(
        kernel_energy(modes).mean().item(), kernel_energy(base).mean().item(), rtol=1e-8
    )
    assert report.n_aligned_modes == 0 and "gain" in str(report)


def test_base_coverage_with_nothing_to_move_keeps_every_base_mode():
    """Before: coverage="base" with spread=1 tiled every mode anew and said the statistic had
    no peak. Now every mode stays the base's."""
    X, y = planted_classification([0.3], n_per_class=20, length=128)
    spectrum = fisher_log_power(X, y)
    base = init_modes("s4d-lin", d_model=4, d_state=16)
    modes, report = peak_init_modes(spectrum, base, spread=1.0, coverage="base")
    assert torch.equal(modes.A, base.A.to(modes.A.dtype)) and report.n_aligned_modes == 0
    torch.testing.assert_close(modes.B, base.B.to(modes.B.dtype))  # gain-matched to itself
    assert report.describe().startswith("all 8 modes are the base's own, kept as built (spread=1)")


def test_base_coverage_keeps_the_base_modes_on_the_spread_share():
    """coverage="base": per channel the spread share of the modes are the base's own poles
    (its first ones), the rest sit on the peak; C and dt stay."""
    X, y = planted_classification([0.3])
    spectrum = fisher_log_power(X, y)
    base = base_modes(8, 32, seed=1)  # 16 modes per channel
    modes, report = peak_init_modes(spectrum, base, spread=0.5, coverage="base")
    assert report.n_spread_modes == 8 and report.n_aligned_modes == 8
    torch.testing.assert_close(modes.A[:, 8:], base.A[:, :8].to(modes.A.dtype))
    freqs = modes.A[:, :8].imag * modes.dt.unsqueeze(-1) / (2 * np.pi)  # aligned modes
    assert bool((freqs - 0.3).abs().max() < 0.05)
    assert torch.equal(modes.C, base.C.to(modes.C.dtype))
    assert torch.equal(modes.dt, base.dt.double())
    with pytest.raises(ValueError, match="coverage"):
        peak_init_modes(spectrum, base, coverage="everywhere")
    with pytest.raises(ValueError, match="resolve_coverage"):
        peak_init_modes(spectrum, base, coverage="auto")


def _energy_over_length(A, B, dt, length):
    """Σ_{l<L} 2|B̄|²|Ā|^{2l} per mode, summed term by term (zoh): an independent check of
    the energy TDI shares out. (H, N)."""
    A, B = A.numpy(), B.numpy()
    dt = dt.numpy()[:, None]
    A_bar = np.exp(A * dt)
    B_bar = (A_bar - 1) / A * B
    powers = np.abs(A_bar)[..., None] ** (2 * np.arange(length))  # (H, N, L)
    return 2 * np.abs(B_bar) ** 2 * powers.sum(-1)


def test_alias_coverage_moves_only_the_aliased_modes():
    """coverage="alias": a mode moves to the peak only if the base's pole aliases
    (|Im A|·dt > π), at most (1 - spread)·N of a channel's, its highest; every other pole, and
    every channel with no aliased mode, is the base's exactly. The moved modes hold 1 - spread
    of their channel's energy over the series' length."""
    from sktdi.tdi import aliased_modes

    X, y = planted_classification([0.3], length=128)
    spectrum = fisher_log_power(X, y)
    base = init_modes(BASE_INIT, 12, 64, dt_min=1e-3, dt_max=0.2,
                      generator=torch.Generator().manual_seed(4))
    A0, B0 = base.A.to(torch.complex128), base.B.to(torch.complex128)
    aliased = (A0.imag.abs() * base.dt.double().unsqueeze(-1) > np.pi).numpy()  # (H, N)
    assert aliased.any() and not aliased.all(axis=1).any() and not aliased.any(axis=1).all()
    np.testing.assert_array_equal(aliased_modes(A0, base.dt.double()).numpy(), aliased)
    modes, report = peak_init_modes(spectrum, base, coverage="alias", spread=0.5, match_gain=False)
    moved = (modes.A != A0).numpy()
    most = 16  # (1 - spread) of the 32 modes
    expected = aliased & (np.cumsum(aliased[:, ::-1], axis=1)[:, ::-1] <= most)
    np.testing.assert_array_equal(moved, expected)
    freqs = (modes.A.imag * modes.dt.unsqueeze(-1) / (2 * np.pi)).numpy()[moved]
    assert np.abs(freqs - 0.3).max() < 0.05  # on the peak, and no longer aliasing
    still = ~aliased.any(axis=1)
    assert torch.equal(modes.B[still], B0[still])  # untouched channels, bit for bit
    changed = moved.any(axis=1)
    energy = _energy_over_length(modes.A, modes.B, modes.dt.double(), spectrum.length)
    share = (energy * moved).sum(1)[changed] / energy.sum(1)[changed]
    np.testing.assert_allclose(share, 0.5, rtol=1e-6)
    kept = ~moved & changed[:, None]
    ratio = (modes.B.abs() / B0.abs()).numpy()
    for h in np.flatnonzero(changed):  # kept modes keep their proportions on a channel
        np.testing.assert_allclose(ratio[h][kept[h]], ratio[h][kept[h]][0], rtol=1e-10)
    assert report.coverage == "alias" and "aliased" in report.describe()


def test_alias_coverage_with_a_channel_share_changes_only_what_it_reports():
    """Before: with a channel share the alias form's notes counted the modes of every channel
    with aliasing, and drawn channels that had none kept their poles but got the layer's gain
    scale. Now a channel whose poles did not move is the base's bit for bit, the layer keeps
    the base's kernel energy, and the report counts what moved."""
    from sktdi.tdi import align_modes, kernel_energy

    X, y = planted_classification([0.3], length=128)
    spectrum = fisher_log_power(X, y)
    base = init_modes(BASE_INIT, 32, 16, dt_min=1e-2, dt_max=1.0,
                      generator=torch.Generator().manual_seed(2))
    modes, report = align_modes(spectrum, base, coverage="alias", channel_share=0.5)
    A0, B0 = base.A.to(modes.A.dtype), base.B.to(modes.B.dtype)
    moved = modes.A != A0  # (H, N)
    changed = moved.any(dim=1)
    assert 0 < int(changed.sum()) < 16  # some of the 16 drawn channels had no aliased mode
    assert torch.equal(modes.B[~changed], B0[~changed])
    np.testing.assert_allclose(
        kernel_energy(modes).mean().item(), kernel_energy(base).mean().item(), rtol=1e-8
    )
    assert report.n_aligned_channels == int(changed.sum())
    assert report.notes[0].startswith(
        f"{int(moved.sum())} aliased mode(s) on {int(changed.sum())} of 32 channels moved"
    )
    assert any("drew 16 of 32 channels" in note for note in report.notes)
    assert sum(p.n_modes for p in report.peaks) >= 1 and all(p.n_modes > 0 for p in report.peaks)


def test_alias_coverage_with_no_aliased_mode_stands_down_bit_for_bit():
    """A network whose steps never alias, and which covers the planted tone, gives
    coverage="alias" nothing to move: the estimator says TDI stood down and its first layer
    is S4D-Lin's, bit for bit."""
    from sktdi import SSMClassifier

    X, y = planted_classification([0.3], n_per_class=10, length=96)
    # 4 modes at f = n·dt/2, n ≤ 3: up to 0.45 and none past the band (n·dt < 1)
    kwargs = dict(network="s4d", d_model=8, n_layers=1, d_state=8, dt_min=0.15, dt_max=0.3,
                  max_epochs=0, random_state=0)
    tdi = SSMClassifier(init="tdi", tdi=TDIOptions(coverage="alias", reliability=False),
                        **kwargs).fit(X, y)
    lin = SSMClassifier(init="s4d-lin", **kwargs).fit(X, y)
    assert tdi.init_report_["applied"] == "s4d-lin"
    assert "no aliased mode" in tdi.init_report_["summary"]
    for a, b in zip(tdi._networks()[0].ssm_layers[0].parameters(),
                    lin._networks()[0].ssm_layers[0].parameters()):
        assert torch.equal(a, b)


def test_alias_coverage_where_the_base_is_blind_places_half_the_modes_on_the_peak():
    """Steps that stop short of the planted tone (dt ≤ 0.01: every mode below f = 0.16) leave
    the base blind there and nothing aliases: moving only the base's waste would change
    nothing, so the layer gets coverage="base" and the report says why."""
    X, y = planted_classification([0.3], length=128)
    spectrum = fisher_log_power(X, y)
    base = init_modes(BASE_INIT, 8, 32, dt_min=1e-3, dt_max=1e-2,
                      generator=torch.Generator().manual_seed(0))
    alias, report = peak_init_modes(spectrum, base, coverage="alias", spread=0.5)
    beside, _ = peak_init_modes(spectrum, base, coverage="base", spread=0.5)
    torch.testing.assert_close(alias.A, beside.A)
    torch.testing.assert_close(alias.B, beside.B)
    assert report.coverage == "base" and report.n_aligned_modes == 8
    assert any("blind at f = 0.30" in note for note in report.notes), report.notes


def test_base_decay_moves_only_the_frequencies():
    """decay="base": every mode keeps the base's decay Re(A)·dt; the aligned frequencies are
    those of the default decay="band" (same generator)."""
    X, y = planted_classification([0.3])
    spectrum = fisher_log_power(X, y)
    base = base_modes(8, 32, seed=3)
    band, _ = peak_init_modes(spectrum, base, generator=torch.Generator().manual_seed(1))
    kept, _ = peak_init_modes(
        spectrum, base, decay="base", generator=torch.Generator().manual_seed(1)
    )
    dt = base.dt.double().unsqueeze(-1)
    torch.testing.assert_close(kept.A.real * dt, base.A.real.double() * dt)
    torch.testing.assert_close(kept.A.imag, band.A.imag)
    assert not torch.allclose(band.A.real, kept.A.real)
    with pytest.raises(ValueError, match="decay"):
        peak_init_modes(spectrum, base, decay="short")


def test_channel_share_option_caps_the_aligned_channels():
    """tdi.channel_share caps the share of aligned channels; reliability multiplies it."""
    from sktdi.tdi import TDIOptions, plan_initialization

    X, y = planted_classification([0.2])
    full = plan_initialization(
        X, y, init="tdi", task="classification", options=TDIOptions(), random_state=0
    )
    half = plan_initialization(
        X, y, init="tdi", task="classification", options=TDIOptions(channel_share=0.5),
        random_state=0,
    )
    assert half.channel_share == pytest.approx(0.5 * full.channel_share)
    assert "tdi.channel_share 0.5" in half.reason
    layer = S4D(16, 16, init="s4d-lin")
    before = layer.imag_A.detach().clone()
    report = align_layer(layer, fisher_log_power(X, y), channel_share=0.0)
    assert report.n_aligned_channels == 0
    assert torch.equal(layer.imag_A.detach(), before)  # left as built, bit for bit


def test_refinement_lowers_alignment_loss_and_is_bounded():
    X, y = planted_classification(PLANTED)
    spectrum = fisher_log_power(X, y)
    layer = S4D(16, 16).double()
    report = align_layer(layer, spectrum, refine_steps=40, generator=torch.Generator().manual_seed(0))
    assert report.refine_steps == 40
    assert report.l_spec_final < report.l_spec_init
    shapes = {name: p.shape for name, p in layer.named_parameters()}
    assert bool((layer.modes().A.real < 0).all())
    # bounded in time: a zero budget runs no step
    before, after, steps, _ = refine_modes(layer, spectrum, steps=100, max_seconds=0.0)
    assert steps == 0 and before == after
    assert shapes == {name: p.shape for name, p in layer.named_parameters()}
    assert all(p.grad is None for p in layer.parameters())


def test_align_layer_changes_only_initial_values():
    X, y = planted_classification([0.3])
    spectrum = fisher_log_power(X, y)
    layer = S4D(8, 16)
    D_before = layer.D.detach().clone()
    n_params = sum(p.numel() for p in layer.parameters())
    align_layer(layer, spectrum)
    assert sum(p.numel() for p in layer.parameters()) == n_params
    torch.testing.assert_close(layer.D, D_before)
    assert layer.log_dt.dtype == torch.float32


def test_significance_threshold_controls_false_peaks():
    """Under the null (labels unrelated to X) a bin is rarely significant: Bonferroni keeps the
    family-wise rate near alpha; a planted frequency clears the threshold easily."""
    rng = np.random.default_rng(0)
    false_alarms = 0
    for _ in range(40):
        X = rng.normal(size=(30, 64))
        y = rng.permutation(np.repeat([0, 1, 2], 10))
        false_alarms += bool(fisher_log_power(X, y).significant().any())
        Xr = rng.normal(size=(30, 64))
        false_alarms += bool(cross_spectrum(Xr, rng.normal(size=30)).significant().any())
    assert false_alarms <= 10  # 80 tests at a nominal family-wise 5%: ~4 expected
    X, y = planted_classification([0.2], n_per_class=10, length=64)
    spectrum = fisher_log_power(X, y)
    assert spectrum.significant()[np.argmin(np.abs(spectrum.freqs - 0.2))]


def test_one_series_per_class_supports_no_peak():
    X, y = planted_classification([0.2], n_per_class=1, length=64)
    spectrum = fisher_log_power(X, y)
    assert spectrum.threshold == np.inf and not spectrum.significant().any()
    _, report = peak_init_modes(spectrum, base_modes(4, 16))
    assert report.peaks == [] and report.n_spread_modes == 8


def test_split_half_reliability_separates_signal_from_noise():
    from sktdi.tdi import split_half_reliability

    X, y = planted_classification([0.2], n_per_class=20, length=128)
    strong, note = split_half_reliability(X, y, task="classification", random_state=0)
    assert strong > 0.7 and "split-half" in note
    rng = np.random.default_rng(0)
    null, _ = split_half_reliability(
        rng.normal(size=(40, 128)), np.arange(40) % 2, task="classification", random_state=0
    )
    assert null < 0.4
    few, reason = split_half_reliability(X[:6], np.array([0, 0, 0, 1, 1, 1]), task="classification")
    assert few == 0.0 and "smallest class" in reason
    Xr, yr = planted_band_power_regression(0.3, n=60, length=128)
    assert split_half_reliability(Xr, yr, task="regression", random_state=0)[0] > 0.5


def test_control_spectrum_keeps_peaks_moves_positions():
    from sktdi.tdi import control_spectrum

    X, y = planted_classification([0.2, 0.4], n_per_class=20)
    spectrum = fisher_log_power(X, y)
    control = control_spectrum(spectrum, random_state=3)
    base = np.median(spectrum.values)
    original_peaks = find_spectral_peaks(spectrum)
    moved_peaks = find_spectral_peaks(control)
    assert control.kind == "control(fisher-log-power)"
    assert control.threshold == spectrum.threshold
    np.testing.assert_allclose(
        np.clip(control.values - base, 0, None).sum(),
        sum(
            np.clip(spectrum.values - base, 0, None)[
                (spectrum.freqs >= p.left_freq) & (spectrum.freqs <= p.right_freq)
            ].sum()
            for p in original_peaks
        ),
    )
    assert 1 <= len(moved_peaks) <= len(original_peaks)
    assert {round(p.freq, 2) for p in moved_peaks} != {round(p.freq, 2) for p in original_peaks}


def test_plan_initialization_auto_and_shrinkage():
    from sktdi.tdi import plan_initialization

    X, y = planted_classification([0.3], n_per_class=20, length=128)
    plan = plan_initialization(X, y, init="auto", task="classification", random_state=0)
    assert plan.chosen == "tdi" and plan.spectrum is not None and "TDI" in plan.reason
    assert plan.channel_share == pytest.approx(min(1.0, plan.reliability))
    rng = np.random.default_rng(1)
    noise = rng.normal(size=(40, 128))
    plan = plan_initialization(
        noise, np.arange(40) % 2, init="auto", task="classification", random_state=0
    )
    assert plan.chosen == BASE_INIT and plan.spectrum is None and BASE_INIT in plan.reason
    plan = plan_initialization(
        X,
        y,
        init="tdi",
        task="classification",
        options=TDIOptions(reliability=False),
        random_state=0,
    )
    assert plan.channel_share == 1.0 and plan.reliability is None
    plan = plan_initialization(X, y, init="tdi-control", task="classification", random_state=0)
    assert plan.chosen == "tdi-control" and plan.spectrum.kind.startswith("control")
    named = plan_initialization(X, y, init="s4d-inv", task="classification")
    assert named.chosen == "s4d-inv" and named.spectrum is None


def test_init_plan_report_says_what_the_layers_start_from():
    """InitPlan.report, every estimator's init_report_ (it lived in sktdi.deep_model.estimators,
    where the transformer did not use it)."""
    from sktdi.tdi import InitPlan, initialize_layers

    X, y = planted_classification([0.3], n_per_class=20, length=128)
    codes = np.unique(y, return_inverse=True)[1]
    options = TDIOptions(reliability=False)
    layers = [S4D(8, 4).double(), S4D(8, 4).double()]
    plan, reports = initialize_layers(
        layers, X[:, None], codes, init="tdi", task="classification", options=options,
        random_state=0,
    )
    report = plan.report(reports)
    assert report["applied"] == "tdi" and report["n_aligned_channels"] == 16  # both layers
    assert report["reason"] == plan.reason and list(report) == [
        "requested", "chosen", "applied", "reliability", "reliability_note",
        "n_significant_bins", "channel_share", "n_aligned_channels", "reason", "summary",
    ]
    assert {key: report[key] for key in plan.to_dict()} == plan.to_dict()  # none lost
    # the summary says, in words, what an aligned channel holds: here every mode moved
    assert report["summary"].startswith("TDI (init='tdi') aligned 16 of the 16 channels of 2 S4D "
                                        "layers with the fisher-log-power statistic. On each")
    assert "sits on the statistic's 1 peak (f = 0.30" in report["summary"]
    # a share that rounds to no channel of an 8-channel layer: TDI stood down
    plan, reports = initialize_layers(
        [S4D(8, 4).double()], X[:, None], codes, init="tdi-control", task="classification",
        options=TDIOptions(reliability=False, channel_share=0.05), random_state=0,
    )
    report = plan.report(reports)
    assert report["chosen"] == "tdi-control" and report["applied"] == BASE_INIT
    assert report["reason"] == (
        "tdi-control stood down: a channel share of 5.0% rounds to no channel, s4d-lin kept "
        "on all"
    )
    # refinement moves the modes even where no channel was peak-aligned: not stood down
    moved = InitPlan(requested="tdi", chosen="tdi", channel_share=0.0, reason="r")
    from dataclasses import replace

    assert moved.report([replace(reports[0], refine_steps=3)])["applied"] == "tdi"
    named = InitPlan(requested="s4d-inv", chosen="s4d-inv", channel_share=0.0, reason="named")
    assert named.report([])["applied"] == "s4d-inv" and named.report([])["reason"] == "named"


def test_reliability_is_measured_on_the_tdi_subsample():
    from sktdi.tdi import plan_initialization

    X, y = planted_classification([0.3], n_per_class=20, length=128)
    full = plan_initialization(X, y, init="tdi", task="classification", random_state=0)
    assert full.reliability > 0.5 and full.spectrum.n_samples == 40
    # 3 series per class in the subsample: too few for split halves, whatever X holds
    small = plan_initialization(
        X, y, init="tdi", task="classification", options=TDIOptions(subsample=6), random_state=0
    )
    assert small.spectrum.n_samples == 6
    assert small.reliability == 0.0 and "only 3 series" in small.reliability_note
    assert small.channel_share == 0.0


@pytest.mark.parametrize("share", [0.0, 0.5])
def test_channel_share_keeps_default_modes_elsewhere(share):
    X, y = planted_classification([0.3])
    spectrum = fisher_log_power(X, y)
    layer = S4D(16, 16).double()
    before = layer.modes().A.detach().clone()
    report = align_layer(layer, spectrum, channel_share=share)
    after = layer.modes().A.detach()
    unchanged = torch.all(torch.isclose(before, after), dim=1)
    assert int(unchanged.sum()) == 16 - round(share * 16)
    assert report.n_aligned_channels == round(share * 16)
    with pytest.raises(ValueError, match="channel_share"):
        align_layer(layer, spectrum, channel_share=1.5)


def test_task_spectrum_from_frequencies():
    from sktdi.tdi import TaskSpectrum, find_spectral_peaks

    spectrum = TaskSpectrum.from_frequencies([0.05, 0.3, 0.45], weights=[1, 3, 2], width=0.005)
    peaks = find_spectral_peaks(spectrum)
    assert [round(p.freq, 2) for p in peaks] == [0.3, 0.45, 0.05]  # by mass
    assert spectrum.kind == "given" and spectrum.channel_values.shape == (1, 257)
    for bad, match in [
        (dict(freqs=[0.6]), "Nyquist"),
        (dict(freqs=[]), "non-empty"),
        (dict(freqs=[0.1], weights=[0]), "positive"),
        (dict(freqs=[0.1], width=0), "width"),
    ]:
        with pytest.raises(ValueError, match=match):
            TaskSpectrum.from_frequencies(**bad)


def test_plan_initialization_with_given_spectrum():
    from sktdi.tdi import TaskSpectrum, plan_initialization

    given = TaskSpectrum.from_frequencies([0.2])
    X, y = planted_classification([0.3], n_per_class=1, length=64)  # nothing to estimate from
    for init in ("tdi", "auto"):
        plan = plan_initialization(
            X, y, init=init, task="classification", options=TDIOptions(spectrum=given)
        )
        assert plan.spectrum is given and plan.chosen == "tdi" and plan.channel_share == 1.0
        assert plan.reliability is None and "given spectrum" in plan.reason
    plan = plan_initialization(
        X,
        y,
        init="tdi-control",
        task="classification",
        options=TDIOptions(spectrum=given),
        random_state=0,
    )
    assert plan.chosen == "tdi-control" and plan.spectrum.kind == "control(given)"
    with pytest.raises(TypeError, match="TaskSpectrum"):
        plan_initialization(
            X, y, init="tdi", task="classification", options=TDIOptions(spectrum=[0.2])
        )


@pytest.mark.parametrize("share", [0.5, 1.0])
def test_align_layer_keeps_the_one_draw_of_c_and_dt(share):
    """The layer's modes are drawn once: TDI keeps every channel's C and dt (before, aligned
    channels got a second, independent C/dt draw beside the kept channels' first one)."""
    X, y = planted_classification([0.3])
    layer = S4D(16, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    before = layer.modes()
    C, dt = before.C.detach().clone(), before.dt.detach().clone()
    align_layer(layer, fisher_log_power(X, y), channel_share=share)
    after = layer.modes()
    torch.testing.assert_close(after.C.detach(), C, rtol=0, atol=0)
    torch.testing.assert_close(after.dt.detach(), dt, rtol=1e-15, atol=0)


def _count_validation_calls(monkeypatch):
    """Count every entry into sktdi.utils.validation's checks, wherever they were imported."""
    import sys

    import sktdi.utils.validation as validation

    calls = []
    for name in ("as_sequences", "as_labels", "as_targets", "check_lengths"):
        original = getattr(validation, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("sktdi") and getattr(
                module, name, None
            ) is original:
                monkeypatch.setattr(module, name, counted)
    return calls


def test_plan_initialization_validates_once(monkeypatch):
    from sktdi.tdi import plan_initialization

    X, y = planted_classification([0.3], n_per_class=20, length=128)
    calls = _count_validation_calls(monkeypatch)
    plan_initialization(X, y, init="tdi-control", task="classification", random_state=0)
    # X, y and lengths once each, at the public entry; none inside reliability's 16 spectra
    assert sorted(calls) == ["as_labels", "as_sequences", "check_lengths"]


def test_estimator_fit_runs_no_tdi_revalidation(monkeypatch):
    from sktdi import SSMClassifier

    X, y = planted_classification([0.3], n_per_class=10, length=64)
    calls = _count_validation_calls(monkeypatch)
    # the network alone: its fast path, a model of its own, validates its input once more
    SSMClassifier(
        d_model=4, n_layers=1, d_state=4, max_epochs=0, fast_path=False, random_state=0
    ).fit(X, y)
    assert calls == ["check_lengths"]  # the estimator's own lengths check; TDI adds none


def test_tdi_leaves_global_rngs_untouched():
    from sktdi.tdi import plan_initialization, split_half_reliability

    X, y = planted_classification([0.3], n_per_class=10, length=64)
    np.random.seed(123)
    torch.manual_seed(123)
    numpy_state, torch_state = np.random.get_state()[1].copy(), torch.get_rng_state().clone()
    task_spectrum(X, y, task="classification")  # no subsample: nothing to draw
    split_half_reliability(X, y, task="classification", random_state=0)
    plan_initialization(X, y, init="tdi-control", task="classification", random_state=0)
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    assert torch.equal(torch.get_rng_state(), torch_state)


def test_constant_X_is_not_reliable_and_aligns_no_channel():
    # before: reliability 1.0 and TDI on 100% of the channels with 0 significant bins; both
    # halves of identical series share one floating-point residue (~1e-17 in every bin) and
    # that residue correlates at 1.0 across halves
    from sktdi.tdi import plan_initialization, split_half_reliability

    X, y = np.ones((40, 1, 64)), np.repeat(["a", "b"], 20)
    reliability, note = split_half_reliability(X, y, task="classification", random_state=0)
    assert reliability == 0.0 and "identical" in note
    Xr = np.full((40, 64), 3.0)
    reliability, note = split_half_reliability(
        Xr, np.random.default_rng(0).normal(size=40), task="regression", random_state=0
    )
    assert reliability == 0.0 and "identical" in note  # before: 0.72
    for init in ("tdi", "tdi-control"):
        plan = plan_initialization(X, y, init=init, task="classification", random_state=0)
        assert plan.n_significant_bins == 0 and plan.channel_share == 0.0
        assert plan.reliability == 0.0 and "no significant frequency bin" in plan.reason
    plan = plan_initialization(X, y, init="auto", task="classification", random_state=0)
    assert plan.chosen == BASE_INIT and plan.channel_share == 0.0


def test_labels_independent_of_X_give_low_reliability_and_no_alignment():
    from sktdi.tdi import plan_initialization, split_half_reliability

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 1, 64)), np.repeat(["a", "b"], 20)
    reliability, note = split_half_reliability(X, y, task="classification", random_state=0)
    # before: 0.23, the agreement of the statistic's null shape across halves
    assert abs(reliability) < 0.1 and "no significant bin in either half" in note
    plan = plan_initialization(X, y, init="tdi", task="classification", random_state=0)
    assert plan.n_significant_bins == 0 and plan.channel_share == 0.0
    assert "no significant frequency bin" in plan.reason and "0% of the channels" in plan.reason
    # shrinkage off: the user asked for every channel, reliability or not
    plan = plan_initialization(
        X, y, init="tdi", task="classification", options=TDIOptions(reliability=False)
    )
    assert plan.channel_share == 1.0


def test_reliability_counts_flat_halves_as_zero():
    from sktdi.tdi import split_half_reliability

    # every series flat at its own level: X varies across series, but the statistic of
    # each half is roundoff everywhere except DC and carries no significant bin
    rng = np.random.default_rng(0)
    X = np.repeat(rng.normal(size=(40, 1, 1)), 64, axis=-1)
    reliability, note = split_half_reliability(
        X, np.repeat([0, 1], 20), task="classification", random_state=0
    )
    assert reliability == 0.0 and ("no significant bin" in note or "no variation" in note)


def test_kernel_energy_is_the_kernels_sum_of_squares():
    """The closed form (a geometric series over pole pairs) against the kernel itself,
    summed over enough steps for the slowest mode to have decayed."""
    from sktdi.ssm import discretize, init_modes, vandermonde_kernel
    from sktdi.tdi import kernel_energy

    modes = init_modes("s4d-lin", d_model=4, d_state=8)
    modes = type(modes)(
        A=modes.A.to(torch.complex128), B=modes.B.to(torch.complex128),
        C=modes.C.to(torch.complex128), dt=modes.dt.to(torch.float64) * 10,
    )
    log_A_bar, _, B_bar = discretize(modes.A, modes.B, modes.dt)
    K = vandermonde_kernel(log_A_bar, modes.C * B_bar, 40_000)  # (H, L)
    np.testing.assert_allclose(kernel_energy(modes), K.pow(2).sum(-1), rtol=1e-8)


def test_a_mistyped_dataset_name_lists_sktdis_own_datasets_too():
    """Before: load_dataset_split("digits-785") said it was not shipped with sktime and sent
    the user to download an archive, naming none of sktdi's own datasets."""
    from sktdi.datasets import load_dataset_split

    with pytest.raises(ValueError, match=r"'digits-785' is neither one of sktdi's own datasets "
                                         r"\(digits, pixel-digits, digits-784, planted\)"):
        load_dataset_split("digits-785")


def test_spread_auto_commits_three_quarters_to_a_given_spectrum_on_a_deep_model():
    """spread="auto" (resolve_spread): a deep model given a spectrum puts three quarters of
    each aligned channel's modes on its peaks, beside a quarter of the base's; an estimated
    statistic, or the untrained filter bank, keeps half; an explicit spread is kept."""
    from sktdi import SpectralAlignmentTransformer, SSMClassifier
    from sktdi.tdi import TaskSpectrum, TDIOptions, resolve_spread

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 1, 64)), np.repeat([0, 1], 6)
    spectrum = TaskSpectrum.from_frequencies([0.1, 0.3])
    fit = {"d_model": 8, "n_layers": 1, "max_epochs": 1, "random_state": 0}
    given = SSMClassifier(**fit, tdi=TDIOptions(spectrum=spectrum)).fit(X, y)
    assert "8 of 32 modes are the base's own" in given.init_report_["summary"]
    half = SSMClassifier(**fit, tdi=TDIOptions(spectrum=spectrum, spread=0.5)).fit(X, y)
    assert "16 of 32 modes are the base's own" in half.init_report_["summary"]
    bank = SpectralAlignmentTransformer(
        random_state=0, tdi=TDIOptions(spectrum=spectrum, coverage="base")
    ).fit(X, y)
    assert "4 of 8 modes are the base's own" in bank.init_report_["summary"]
    assert resolve_spread("auto", trained=False, given=True) == 0.5
    assert resolve_spread("auto", trained=True) == 0.5
    assert resolve_spread(0.75, trained=True, given=True) == 0.75
    assert type(resolve_spread(np.float32(0.5), trained=True)) is float  # assigned into tensors
    with pytest.raises(ValueError, match="spread must be a float in"):
        resolve_spread("half", trained=True)
    assert TDIOptions().spread == "auto"


@pytest.mark.parametrize("field", ["spread", "channel_share"])
def test_a_boolean_where_an_option_takes_a_number_is_refused_by_name(field):
    """scikit-learn's Real intervals take True as 1: an option group refuses it by name."""
    from sktdi import SSMClassifier
    from sktdi.tdi import TDIOptions

    X, y = np.random.default_rng(0).normal(size=(8, 1, 32)), np.repeat([0, 1], 4)
    clf = SSMClassifier(d_model=4, n_layers=1, max_epochs=1, tdi=TDIOptions(**{field: True}))
    with pytest.raises(ValueError, match=rf"The '{field}' parameter of TDIOptions takes a "
                                         r"number .* not a boolean: got True"):
        clf.fit(X, y)
    assert TDIOptions(reliability=False).validated().reliability is False  # a boolean field


def test_spread_one_reports_no_channel_aligned():
    """spread=1 keeps every mode the base's own: the reports must not count aligned channels
    beside it (they said "26 of 32 channels aligned" next to "no mode moved")."""
    from sktdi import SSMClassifier, TDIOptions
    from sktdi.datasets import planted_frequency_task
    from sktdi.ssm import init_modes
    from sktdi.tdi import align_modes, fisher_log_power

    X, y = planted_frequency_task(20, random_state=0)
    base = init_modes("s4d-lin", d_model=32, d_state=16)
    modes, report = align_modes(
        fisher_log_power(X, y), base, channel_share=0.8, spread=1.0, coverage="base"
    )
    assert bool((modes.A == base.A).all()) and report.n_aligned_channels == 0
    assert not any("channels aligned" in note for note in report.notes)
    model = SSMClassifier(tdi=TDIOptions(spread=1.0), max_epochs=0, random_state=0).fit(X, y)
    assert model.init_report_["n_aligned_channels"] == 0
    assert "spread=1" in model.init_report_["reason"]
