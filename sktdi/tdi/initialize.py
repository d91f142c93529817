"""The one TDI entry point: from training data to initialized S4D layers.

Every estimator (``SSMClassifier``, ``SSMRegressor``, ``SpectralAlignmentTransformer`` and,
through them, the sktime adapters) reads its ``init`` once, with :func:`read_init` (an
:class:`InitRequest`: the base initialization its layers are built with, and which TDI, if
any, runs), and runs TDI through :func:`initialize_layers`:

1. :func:`plan_initialization` decides what to align to and how much: the task statistic
   estimated on a subsample (or a given one), its split-half reliability, ``init="auto"``'s
   decision, the control arm. The :class:`InitPlan` carries the spectrum it chose.
2. :func:`~sktdi.tdi.align.align_layer` aligns each layer: it reads the modes the layer was
   built with (the base initialization :data:`BASE_INIT`) once, maps them with the pure
   :func:`~sktdi.tdi.align.align_modes`, and sets the layer once.

The options are one object, :class:`~sktdi.tdi.options.TDIOptions`: every estimator's ``tdi``
parameter.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from sklearn.utils import check_random_state

from ..utils.inputs import _caller_stacklevel
from ..utils.sampling import subsample_indices
from ..utils.validation import as_sequences, check_lengths
from .align import ALIAS_FELL_BACK, align_layer
from .options import TDIOptions, resolve_coverage, resolve_spread
from .peaks import find_spectral_peaks
from .reliability import _split_half_reliability
from .report import TDIReport
from .spectra import TaskSpectrum, _task_spectrum, _task_target

# the ``init`` values that run TDI's machinery (the others name a default initialization)
TDI_INITS = ("tdi", "auto", "tdi-control")
# what TDI builds on: layers are built with it, TDI keeps its C and dt, matches its gain, and
# leaves it in place on the channels it does not align (and everywhere when it does not run)
BASE_INIT = "s4d-lin"
AUTO_MIN_RELIABILITY = 0.5


@dataclass(frozen=True)
class InitRequest:
    """An estimator's ``init``, read once (:func:`read_init`): what its layers are built
    with and what TDI does to them.

    Attributes
    ----------
    requested : str
        ``init`` as given.
    base : str
        The named initialization the layers are built with: :data:`BASE_INIT` for a TDI
        init, else ``requested``.
    tdi : str or None
        The TDI init that runs ("tdi", "auto" or "tdi-control"); None for a named init (the
        layers keep ``base``).

    Examples
    --------
    >>> from sktdi.tdi import read_init
    >>> read_init("auto")
    InitRequest(requested='auto', base='s4d-lin', tdi='auto')
    >>> read_init("s4d-inv").tdi is None
    True
    """

    requested: str
    base: str
    tdi: str | None


def read_init(init: str, spectrum=None, *, stacklevel: int | None = None) -> InitRequest:
    """The one reading of an ``init`` value: the :class:`InitRequest` the estimators pass on.

    A given ``spectrum`` (``tdi.spectrum``) has no effect with a named init: a warning says
    so rather than ignore it silently. It points at ``stacklevel`` frames above the caller,
    by default at the first frame outside sktdi and scikit-learn (the user's ``fit``,
    whatever wrappers lie between).

    Examples
    --------
    >>> from sktdi.tdi import read_init
    >>> read_init("tdi").base, read_init("s4d-inv").base
    ('s4d-lin', 's4d-inv')
    """
    tdi = init if init in TDI_INITS else None
    if spectrum is not None and tdi is None:
        warnings.warn(
            f"tdi.spectrum is ignored with init={init!r}; it takes effect with init in "
            f"{TDI_INITS}",
            UserWarning,
            stacklevel=_caller_stacklevel() if stacklevel is None else stacklevel + 1,
        )
    return InitRequest(requested=init, base=init if tdi is None else BASE_INIT, tdi=tdi)


def control_spectrum(spectrum: TaskSpectrum, random_state=None) -> TaskSpectrum:
    """The control arm's statistic: the same significant peaks (count, shape, mass) moved to
    random frequencies, so TDI's whole machinery runs on a spectrum with no task information.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import control_spectrum, fisher_log_power
    >>> control = control_spectrum(fisher_log_power(X, y), random_state=0)
    >>> control.kind
    'control(fisher-log-power)'
    """
    rng = check_random_state(random_state)
    values = np.asarray(spectrum.values, dtype=np.float64)
    freqs = np.asarray(spectrum.freqs)
    baseline = np.median(values)
    excess = np.clip(values - baseline, 0, None)
    moved = np.zeros_like(values)
    for peak in find_spectral_peaks(spectrum, max_peaks=len(values)):
        band = (freqs >= peak.left_freq) & (freqs <= peak.right_freq)
        idx = np.flatnonzero(band)
        if idx.size == 0:
            continue
        shift = rng.randint(len(values))
        moved[(idx - idx[0] + shift) % len(values)] += excess[idx]
    control_values = baseline + moved
    return TaskSpectrum(
        freqs=freqs,
        values=control_values,
        channel_values=np.broadcast_to(control_values, spectrum.channel_values.shape).copy(),
        kind=f"control({spectrum.kind})",
        estimator=spectrum.estimator,
        n_samples=spectrum.n_samples,
        length=spectrum.length,
        components={},
        threshold=spectrum.threshold,
    )


@dataclass
class InitPlan:
    """What an estimator's ``fit`` does to its SSM modes, and why.

    ``spectrum`` is the statistic to align to; None means the base initialization stays.
    :meth:`report` with the alignment's reports is every estimator's ``init_report_``.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import plan_initialization
    >>> plan = plan_initialization(X, y, init="auto", task="classification", random_state=0)
    >>> plan.chosen, plan.spectrum is not None
    ('tdi', True)
    >>> sorted(plan.to_dict())[:3]
    ['channel_share', 'chosen', 'n_significant_bins']
    """

    requested: str
    chosen: str
    reliability: float | None = None
    reliability_note: str = ""
    n_significant_bins: int | None = None
    channel_share: float = 1.0
    reason: str = ""
    spectrum: TaskSpectrum | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        """The decision as plain values (the spectrum is ``task_spectrum_``)."""
        out = asdict(self)
        del out["spectrum"]
        return out

    def report(self, reports: list[TDIReport]) -> dict:
        """Every estimator's ``init_report_``: the decision (:meth:`to_dict`, its keys as they
        were) and what the layers TDI initialized hold.

        ``chosen`` is the decision: "tdi" for ``init="tdi"`` even where TDI then aligned
        nothing. Two keys say what the model starts from: ``applied``, the initialization its
        modes hold (the base, :data:`BASE_INIT`, when TDI aligned no channel: it stood down,
        bit for bit), and ``n_aligned_channels``, the channels TDI aligned, summed over
        ``reports`` (one per aligned layer, as :func:`initialize_layers` returns them). When
        TDI stood down, ``reason`` opens with it.

        Parameters
        ----------
        reports : list of TDIReport
            What TDI did to each layer (empty when it aligned none).

        Returns
        -------
        report : dict
            The decision's keys, with ``applied`` after ``chosen`` and ``n_aligned_channels``
            after ``channel_share``.

        Examples
        --------
        >>> from sktdi.tdi import InitPlan
        >>> plan = InitPlan(requested="tdi", chosen="tdi", channel_share=0.0, reason="no bin")
        >>> report = plan.report([])
        >>> report["chosen"], report["applied"], report["n_aligned_channels"]
        ('tdi', 's4d-lin', 0)
        >>> report["reason"]
        'tdi stood down: no bin, s4d-lin kept on all'
        >>> report["summary"]
        "TDI (init='tdi') stood down; every channel starts from s4d-lin (no bin, s4d-lin kept on all)."
        """
        decision = self.to_dict()
        n_aligned = sum(report.n_aligned_channels or 0 for report in reports)
        moved = n_aligned > 0 or any(report.refine_steps > 0 for report in reports)
        applied = self.chosen
        if self.chosen in TDI_INITS and not moved:
            applied = BASE_INIT  # what a TDI init's layers are built with
            reason = decision["reason"]
            if self.channel_share > 0 and any(r.coverage == "alias" for r in reports):
                reason = "the base has no aliased mode to move on the channels TDI could align"
            elif reports and all(
                r.coverage == "base" and r.n_aligned_modes == 0 for r in reports
            ):  # spread=1: every mode stays the base's own, on every channel
                reason = "spread=1 keeps every mode the base's own, on every channel"
            elif self.channel_share > 0:  # the plan's share rounds to no channel of a layer
                reason = f"a channel share of {self.channel_share:.1%} rounds to no channel"
            if f"{applied} kept on all" not in reason:
                reason += f", {applied} kept on all"
            decision["reason"] = f"{self.chosen} stood down: {reason}"
        out = {}
        for key, value in decision.items():  # the new keys beside the ones they qualify
            out[key] = value
            if key == "chosen":
                out["applied"] = applied
            elif key == "channel_share":
                out["n_aligned_channels"] = n_aligned
        out["summary"] = self._summary(reports, applied, n_aligned, out["reason"])
        return out

    def _summary(self, reports: list[TDIReport], applied: str, n_aligned: int, reason: str):
        """What the network starts from, in one or two sentences a user can read."""
        which = f"TDI (init={self.requested!r})"
        if self.requested not in TDI_INITS:
            return f"No TDI (init={self.requested!r}): every channel starts from {applied}."
        if self.chosen not in TDI_INITS:  # "auto" decided against aligning
            why = reason.removesuffix(f", keeping {applied}")
            return f"{which} did not align: every channel starts from {applied} ({why})."
        if applied == BASE_INIT:
            why = reason.removeprefix(f"{self.chosen} stood down: ")
            return f"{which} stood down; every channel starts from {BASE_INIT} ({why})."
        total = sum(report.n_channels or 0 for report in reports)
        # the layers' own channels: a network's S4D layer may be narrower than its d_model
        # (the conv-s4d network's S4D branch is a quarter of it)
        layers = "the first S4D layer" if len(reports) == 1 else f"{len(reports)} S4D layers"
        of = f"{n_aligned} of the {total} channels" if total else f"{n_aligned} channels"
        why = (
            f", the share the statistic's split-half reliability ({self.reliability:.2f}) allows"
            if self.reliability is not None and n_aligned < total
            else ""
        )
        if reports[0].coverage == "alias" and n_aligned < total:
            # the share drew channels; only those with aliased modes changed
            drawn = round(self.channel_share * total)
            why = (
                f": the statistic's split-half reliability ({self.reliability:.2f}) allowed "
                f"{drawn}, and {n_aligned} of those had aliased modes to move (modes whose "
                f"frequency lies beyond the series' Nyquist frequency, which a discrete filter "
                f"folds onto another)"
                if self.reliability is not None and drawn < total
                else ": those with aliased modes to move (modes whose frequency lies beyond the "
                "series' Nyquist frequency, which a discrete filter folds onto another)"
            )
        statistic = f"the {reports[0].kind} statistic"
        if self.chosen == "tdi-control":  # the placebo: say so, its peaks are not the task's
            statistic += " with its peaks moved to random frequencies (the placebo)"
        rest = f"; the other channels are {BASE_INIT}'s" if n_aligned < total else ""
        fell_back = any(note.startswith(ALIAS_FELL_BACK) for r in reports for note in r.notes)
        if fell_back:  # the bank was blind at a peak: say why half of the modes moved
            rest += (
                "; the base was blind at a peak of the statistic, so modes of each aligned "
                "channel moved there beside the base's own instead of only the aliased ones"
            )
        return (
            f"{which} aligned {of} of {layers} with {statistic}{why}{rest}. On each aligned "
            f"channel, {reports[0].describe()}"
        )


def plan_initialization(
    X,
    y,
    *,
    init: str,
    task: str,
    options: TDIOptions | None = None,
    random_state=None,
    lengths=None,
) -> InitPlan:
    """Decide the initialization: the spectrum to align to (None = the base) and the share
    of channels to align.

    - "tdi": align; with ``options.reliability`` only a share ``clip(reliability, 0, 1)`` of
      the channels (the rest keep the base init) — shrinkage toward the default when the
      statistic is not trustworthy — and none when no bin of the statistic is significant.
    - "auto": "tdi" when the reliability is at least 0.5 and some bin is significant,
      otherwise the base initialization for every channel.
    - "tdi-control": as "tdi", but on :func:`control_spectrum` (the control arm).
    - a named init ("s4d-lin", ...): nothing to plan; the layers keep it.

    A ``options.spectrum`` given by the caller (domain knowledge, or estimated on a larger
    related dataset) replaces the estimate: nothing is estimated from X (y may be None), the
    reliability is not measured, every channel is aligned, and "auto" takes it as the
    evidence for TDI.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import TDIOptions, plan_initialization
    >>> plan = plan_initialization(
    ...     X, y, init="tdi", task="classification", options=TDIOptions(reliability=False))
    >>> plan.chosen, plan.channel_share
    ('tdi', 1.0)
    """
    options = TDIOptions() if options is None else options
    init = read_init(init)
    if init.tdi is None or options.spectrum is not None:
        return _plan_initialization(
            None, None, init=init, task=task, options=options, rng=check_random_state(random_state)
        )
    X = as_sequences(X)
    return _plan_initialization(
        X,
        _task_target(y, X.shape[0], task),
        init=init,
        task=task,
        options=options,
        rng=check_random_state(random_state),
        lengths=check_lengths(lengths, X),
    )


def _plan_initialization(
    X: np.ndarray | None,
    target: np.ndarray | None,
    *,
    init: InitRequest,
    task: str,
    options: TDIOptions,
    rng: np.random.RandomState,
    lengths: np.ndarray | None = None,
) -> InitPlan:
    """:func:`plan_initialization` on validated data (``target`` from ``_task_target``)."""
    if init.tdi is None:
        return InitPlan(
            requested=init.requested,
            chosen=init.base,
            channel_share=0.0,
            reason=f"the named initialization {init.base}",
        )
    tdi = init.tdi
    spectrum = options.spectrum
    if spectrum is not None:
        if not isinstance(spectrum, TaskSpectrum):
            raise TypeError(
                f"tdi.spectrum must be a TaskSpectrum (e.g. TaskSpectrum.from_frequencies), "
                f"got {type(spectrum).__name__}"
            )
        plan = InitPlan(
            requested=init.requested,
            chosen="tdi",
            n_significant_bins=int(spectrum.significant().sum()),
        )
        scope = f"the given spectrum ({spectrum.kind}), all channels"
    else:
        if task == "classification" and len(np.unique(target)) < 2:
            raise ValueError("y has only 1 class; the task statistic needs at least 2")
        # the reliability must describe the statistic TDI uses: both come from one subsample
        idx = subsample_indices(
            target,
            options.subsample,
            stratify=task == "classification",
            min_per_class=2,
            random_state=rng,
        )
        X, target = X[idx], target[idx]
        lengths = None if lengths is None else lengths[idx]
        spectrum = _task_spectrum(X, target, task=task, lengths=lengths)
        plan = InitPlan(requested=init.requested, chosen="tdi")
        plan.n_significant_bins = int(spectrum.significant().sum())
        if options.reliability or tdi == "auto":
            reliability, note = _split_half_reliability(
                X, target, task=task, rng=rng, lengths=lengths
            )
            plan.reliability, plan.reliability_note = reliability, note
            if options.reliability:
                plan.channel_share = float(np.clip(reliability, 0.0, 1.0))
        if tdi == "auto":
            if plan.reliability < AUTO_MIN_RELIABILITY or plan.n_significant_bins == 0:
                plan.chosen, plan.channel_share = BASE_INIT, 0.0
                plan.reason = (
                    f"reliability {plan.reliability:.2f} < {AUTO_MIN_RELIABILITY}"
                    if plan.reliability < AUTO_MIN_RELIABILITY
                    else "no significant frequency bin"
                ) + f": the statistic is not trustworthy, keeping {BASE_INIT}"
                return plan
            plan.reason = (
                f"reliability {plan.reliability:.2f} >= {AUTO_MIN_RELIABILITY} and "
                f"{plan.n_significant_bins} significant bins: TDI"
            )
        elif options.reliability and plan.n_significant_bins == 0:
            # whatever the halves' agreement, a statistic with no bin above its threshold
            # gives TDI nothing to align to: shrink all the way to the base init (the control
            # arm too, so that it stays comparable with "tdi" on the same data)
            plan.channel_share = 0.0
            plan.reason = (
                f"no significant frequency bin in the statistic ({spectrum.kind}, threshold "
                f"{spectrum.threshold:.3g}): nothing to align to, {tdi} on 0% of the channels, "
                f"{BASE_INIT} kept on all"
            )
        scope = f"{plan.channel_share:.0%} of the channels"
    if tdi == "tdi-control":
        plan.chosen = "tdi-control"
        spectrum = control_spectrum(spectrum, rng)
    plan.spectrum = spectrum
    if options.channel_share < 1:
        plan.channel_share *= options.channel_share
        scope = (
            f"{plan.channel_share:.0%} of the channels "
            f"(tdi.channel_share {options.channel_share:g})"
        )
    if not plan.reason:
        plan.reason = f"{plan.chosen} on {scope}"
    return plan


def initialize_layers(
    layers,
    X: np.ndarray | None,
    target: np.ndarray | None,
    *,
    init: str | InitRequest,
    task: str,
    options: TDIOptions,
    random_state=None,
    lengths: np.ndarray | None = None,
    trained: bool = True,
) -> tuple[InitPlan, list[TDIReport]]:
    """Plan TDI on validated data and align ``layers`` (built with the request's ``base``,
    :func:`read_init`) in place.

    ``trained``: whether training follows (a network) or not (a filter bank): what
    ``options.coverage="auto"`` and ``options.spread="auto"`` resolve by
    (:func:`~sktdi.tdi.resolve_coverage`, :func:`~sktdi.tdi.resolve_spread`).

    ``init``: the estimator's :class:`InitRequest` (:func:`read_init`), or the ``init`` value.

    ``X``: float64 (n, C, L) as the estimators validated it; ``target``: integer class codes
    (n,) or float targets (n, M) (None, with X, when a spectrum is given or no TDI runs).
    ``random_state`` seeds the subsample, the reliability splits and the control arm (numpy)
    and, through a seed drawn from it, the alignment's jitter and channel choice (torch).
    Returns the plan (with its spectrum) and one report per aligned layer.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)  # X (80, 1, 128), y string labels
    >>> import numpy as np
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import TDIOptions, initialize_layers
    >>> codes = np.unique(y, return_inverse=True)[1]
    >>> layer = S4D(8, 16, init="s4d-lin")
    >>> plan, reports = initialize_layers(
    ...     [layer], X, codes, init="tdi", task="classification",
    ...     options=TDIOptions(reliability=False), random_state=0)
    >>> plan.chosen, len(reports[0].peaks)
    ('tdi', 3)
    """
    rng = check_random_state(random_state)
    init = init if isinstance(init, InitRequest) else read_init(init)
    plan = _plan_initialization(
        X, target, init=init, task=task, options=options, rng=rng, lengths=lengths
    )
    if plan.spectrum is None:
        return plan, []
    generator = torch.Generator().manual_seed(int(rng.randint(2**31 - 1)))
    reports = [
        align_layer(
            layer,
            plan.spectrum,
            spread=resolve_spread(
                options.spread, trained=trained, given=options.spectrum is not None
            ),
            max_peaks=options.max_peaks,
            refine_steps=options.refine_steps,
            channel_share=plan.channel_share,
            coverage=resolve_coverage(
                options.coverage, trained=trained, given=options.spectrum is not None, task=task
            ),
            decay=options.decay,
            generator=generator,
        )
        for layer in layers
    ]
    return plan, reports
