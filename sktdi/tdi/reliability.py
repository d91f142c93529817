"""How far to trust a task statistic, and the initialization plan that follows from it.

The statistic is estimated from few series; below a handful per class it is mostly noise
(split-half correlation ~0.1 at 2–3 series per class in calibration). Reliability is measured
on the data itself: split the series into two stratified halves, compute the statistic on each,
correlate the two across frequency bins (Pearson: the peaks TDI uses dominate it), repeat,
and correct the mean correlation
to the full sample size (Spearman–Brown: 2r / (1 + r)).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

from .._validation import as_labels, as_sequences
from .spectra import TaskSpectrum, subsample_indices, task_spectrum

# the ``init`` values that run TDI's machinery (the others name a default initialization)
TDI_INITS = ("tdi", "auto", "tdi-control")
MIN_PER_CLASS_FOR_SPLIT = 4  # two halves of at least two series per class each
AUTO_MIN_RELIABILITY = 0.5


def split_half_reliability(
    X,
    y,
    *,
    task: str,
    n_repeats: int = 8,
    random_state=None,
    lengths=None,
) -> tuple[float, str]:
    """Spearman–Brown-corrected split-half (Pearson) agreement of the statistic, in [−1, 1].

    Returns (reliability, reason). Classification needs at least 4 series in every class and
    regression at least 8 series; below that the reliability is 0 and the reason says why.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import split_half_reliability
    >>> reliability, note = split_half_reliability(X, y, task="classification", random_state=0)
    >>> reliability > 0.5
    True
    """
    X = as_sequences(X)
    n = X.shape[0]
    rng = check_random_state(random_state)
    if task == "classification":
        _, codes = as_labels(y, n)
        smallest = int(np.bincount(codes).min())
        if smallest < MIN_PER_CLASS_FOR_SPLIT:
            return 0.0, (
                f"only {smallest} series in the smallest class; split halves need "
                f"{MIN_PER_CLASS_FOR_SPLIT}"
            )
    elif n < 8:
        return 0.0, f"only {n} series; split halves need 8"
    # both halves on one frequency grid: with unequal lengths, the segment length of the
    # shortest series overall (each half alone might pick a different one)
    spectral = {} if lengths is None else {"nperseg": int(np.min(lengths))}
    correlations = []
    for _ in range(n_repeats):
        if task == "classification":
            first = np.concatenate(
                [
                    rng.permutation(np.flatnonzero(codes == c))[: np.sum(codes == c) // 2]
                    for c in np.unique(codes)
                ]
            )
        else:
            first = rng.permutation(n)[: n // 2]
        second = np.setdiff1d(np.arange(n), first)
        halves = []
        for idx in (first, second):
            sub_lengths = None if lengths is None else np.asarray(lengths)[idx]
            halves.append(
                task_spectrum(
                    X[idx], np.asarray(y)[idx], task=task, lengths=sub_lengths, **spectral
                ).values
            )
        if np.ptp(halves[0]) == 0 or np.ptp(halves[1]) == 0:
            correlations.append(0.0)
            continue
        correlations.append(stats.pearsonr(halves[0], halves[1]).statistic)
    r = float(np.mean(correlations))
    corrected = 2 * r / (1 + r) if r > -1 else -1.0
    return corrected, f"split-half Pearson {r:.2f} over {n_repeats} splits"


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
    from .align import find_spectral_peaks

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
    """What an estimator's ``fit`` will do to its SSM modes, and why (``init_report_``).

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import plan_initialization
    >>> plan, _ = plan_initialization(X, y, init="auto", task="classification", random_state=0)
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

    def to_dict(self) -> dict:
        return asdict(self)


def plan_initialization(
    X,
    y,
    *,
    init: str,
    task: str,
    subsample=None,
    use_reliability: bool = True,
    random_state=None,
    lengths=None,
    spectrum: TaskSpectrum | None = None,
) -> tuple[InitPlan, TaskSpectrum | None]:
    """Decide the initialization: the spectrum to align to (None = the named default) and the
    share of channels to align.

    - "tdi": align; with ``use_reliability`` only a share ``clip(reliability, 0, 1)`` of the
      channels (the rest keep S4D-Lin) — shrinkage toward the default when the statistic is
      not trustworthy.
    - "auto": "tdi" when the reliability is at least 0.5 and some bin is significant, otherwise
      S4D-Lin for every channel.
    - "tdi-control": as "tdi", but on :func:`control_spectrum` (the control arm).

    A ``spectrum`` given by the caller (domain knowledge, or estimated on a larger related
    dataset) replaces the estimate: nothing is estimated from X, the reliability is not
    measured, every channel is aligned, and "auto" takes it as the evidence for TDI.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import plan_initialization
    >>> plan, spectrum = plan_initialization(X, y, init="auto", task="classification", random_state=0)
    >>> plan.chosen, spectrum is not None
    ('tdi', True)
    """
    rng = check_random_state(random_state)
    if spectrum is not None:
        if not isinstance(spectrum, TaskSpectrum):
            raise TypeError(
                f"spectrum must be a TaskSpectrum (e.g. TaskSpectrum.from_frequencies), "
                f"got {type(spectrum).__name__}"
            )
        plan = InitPlan(
            requested=init, chosen="tdi", n_significant_bins=int(spectrum.significant().sum())
        )
        scope = f"the given spectrum ({spectrum.kind}), all channels"
    else:
        X = as_sequences(X)
        # the reliability must describe the statistic TDI uses: both come from one subsample
        idx = subsample_indices(y, X.shape[0], task=task, subsample=subsample, random_state=rng)
        X, y = X[idx], np.asarray(y)[idx]
        lengths = None if lengths is None else np.asarray(lengths)[idx]
        spectrum = task_spectrum(X, y, task=task, lengths=lengths)
        plan = InitPlan(requested=init, chosen="tdi")
        plan.n_significant_bins = int(spectrum.significant().sum())
        if use_reliability or init == "auto":
            reliability, note = split_half_reliability(
                X, y, task=task, random_state=rng, lengths=lengths
            )
            plan.reliability, plan.reliability_note = reliability, note
            plan.channel_share = float(np.clip(reliability, 0.0, 1.0)) if use_reliability else 1.0
        if init == "auto":
            if plan.reliability < AUTO_MIN_RELIABILITY or plan.n_significant_bins == 0:
                plan.chosen, plan.channel_share = "s4d-lin", 0.0
                plan.reason = (
                    f"reliability {plan.reliability:.2f} < {AUTO_MIN_RELIABILITY}"
                    if plan.reliability < AUTO_MIN_RELIABILITY
                    else "no significant frequency bin"
                ) + ": the statistic is not trustworthy, keeping S4D-Lin"
                return plan, None
            plan.reason = (
                f"reliability {plan.reliability:.2f} >= {AUTO_MIN_RELIABILITY} and "
                f"{plan.n_significant_bins} significant bins: TDI"
            )
        scope = f"{plan.channel_share:.0%} of the channels"
    if init == "tdi-control":
        plan.chosen = "tdi-control"
        spectrum = control_spectrum(spectrum, rng)
    if not plan.reason:
        plan.reason = f"{plan.chosen} on {scope}"
    return plan, spectrum
