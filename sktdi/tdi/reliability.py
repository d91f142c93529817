"""How far to trust a task statistic: split-half reliability.

The statistic is estimated from few series; below a handful per class it is mostly noise
(split-half correlation ~0.1 at 2–3 series per class in calibration). Reliability is measured
on the data itself: split the series into two stratified halves, compute the statistic on each,
correlate the two across frequency bins (Pearson: the peaks TDI uses dominate it), repeat,
and correct the mean correlation to the full sample size (Spearman–Brown: 2r / (1 + r)).

Agreement alone is not reliability: two halves can agree perfectly on something that is not
task information. Identical series (constant X) give both halves the same floating-point
residue, which correlates at 1.0; and the null shape of a statistic (edge bins have other
degrees of freedom) correlates across halves even when y is independent of X. So a split
counts as 0 when either half has no variation across frequency or when neither half has a
significant bin, and series that are all identical give reliability 0 outright.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

from ..utils.validation import as_sequences, check_lengths
from .spectra import _task_spectrum, _task_target

MIN_PER_CLASS_FOR_SPLIT = 4  # two halves of at least two series per class each
MIN_SERIES_FOR_SPLIT = 8  # regression: two halves of at least four series
# X varying across series by less than this (relative to its largest value) is roundoff
IDENTICAL_RTOL = 1e-12
# a statistic whose range across frequency is below this (relative) is flat: roundoff only
FLAT_RTOL = 1e-9


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
    Series that are all identical give 0, and a split counts as 0 when a half's statistic is
    flat across frequency or neither half has a significant bin (the reason counts them).

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import split_half_reliability
    >>> reliability, note = split_half_reliability(X, y, task="classification", random_state=0)
    >>> reliability > 0.5
    True

    Constant series carry no task information, however well the halves agree:

    >>> import numpy as np
    >>> reliability, note = split_half_reliability(
    ...     np.ones((40, 1, 64)), np.repeat([0, 1], 20), task="classification", random_state=0)
    >>> reliability, note[:28]
    (0.0, 'the series are all identical')
    """
    X = as_sequences(X)
    target = _task_target(y, X.shape[0], task)
    lengths = check_lengths(lengths, X)
    return _split_half_reliability(
        X, target, task=task, n_repeats=n_repeats, rng=check_random_state(random_state),
        lengths=lengths,
    )


def _split_half_reliability(
    X: np.ndarray,
    target: np.ndarray,
    *,
    task: str,
    rng: np.random.RandomState,
    n_repeats: int = 8,
    lengths: np.ndarray | None = None,
) -> tuple[float, str]:
    """:func:`split_half_reliability` on validated data (``target``: class codes or float
    targets, as :func:`sktdi.tdi.spectra._task_target` makes them)."""
    n = X.shape[0]
    if task == "classification":
        smallest = int(np.bincount(target).min())
        if smallest < MIN_PER_CLASS_FOR_SPLIT:
            return 0.0, (
                f"only {smallest} series in the smallest class; split halves need "
                f"{MIN_PER_CLASS_FOR_SPLIT}"
            )
    elif n < MIN_SERIES_FOR_SPLIT:
        return 0.0, f"only {n} series; split halves need {MIN_SERIES_FOR_SPLIT}"
    # identical series give both halves the same floating-point residue of a statistic (a
    # Fisher ratio of ~1e-17 everywhere, or roundoff-over-roundoff correlations for
    # regression), which correlates at 1.0: agreement about nothing
    scale = max(float(np.max(np.abs(X))), np.finfo(np.float64).tiny)
    if np.all(np.ptp(X, axis=0) <= IDENTICAL_RTOL * scale):
        return 0.0, (
            "the series are all identical: X does not vary across series, so the statistic "
            "carries no task information"
        )
    # both halves on one frequency grid: with unequal lengths, the segment length of the
    # shortest series overall (each half alone might pick a different one)
    spectral = {} if lengths is None else {"nperseg": int(np.min(lengths))}
    correlations = []
    n_flat = n_insignificant = 0
    for _ in range(n_repeats):
        if task == "classification":
            first = np.concatenate(
                [
                    rng.permutation(np.flatnonzero(target == c))[: np.sum(target == c) // 2]
                    for c in np.unique(target)
                ]
            )
        else:
            first = rng.permutation(n)[: n // 2]
        second = np.setdiff1d(np.arange(n), first)
        spectra = [
            _task_spectrum(
                X[idx],
                target[idx],
                task=task,
                lengths=None if lengths is None else lengths[idx],
                **spectral,
            )
            for idx in (first, second)
        ]
        halves = [spectrum.values for spectrum in spectra]
        # a half flat across frequency has no shape to agree on (Pearson is undefined, and a
        # flat residue of roundoff would correlate at random or perfectly)
        if any(np.ptp(h) <= FLAT_RTOL * max(1.0, float(np.max(np.abs(h)))) for h in halves):
            n_flat += 1
            correlations.append(0.0)
            continue
        # halves that agree only below the significance threshold agree on the statistic's
        # null shape, not on task information
        if not any(spectrum.significant().any() for spectrum in spectra):
            n_insignificant += 1
            correlations.append(0.0)
            continue
        correlations.append(stats.pearsonr(halves[0], halves[1]).statistic)
    if n_flat == n_repeats:
        return 0.0, (
            f"the statistic has no variation across frequency in any of the {n_repeats} "
            f"split halves"
        )
    if n_flat + n_insignificant == n_repeats:
        return 0.0, (
            f"no significant bin in either half of any of the {n_repeats} splits: the halves "
            f"share no task information"
        )
    r = float(np.mean(correlations))
    corrected = 2 * r / (1 + r) if r > -1 else -1.0
    # the halves are drawn at random: another seed (a model seeded otherwise, or the fast
    # path's bank, seeded from its model's random_state through a stream of its own) draws
    # other halves, and its estimate differs by about the spread of the splits
    note = f"split-half Pearson {r:.2f} over {n_repeats} random splits"
    if n_flat or n_insignificant:
        note += (
            f" ({n_flat + n_insignificant} counted as 0: {n_insignificant} with no significant "
            f"bin in either half, {n_flat} with a half flat across frequency)"
        )
    return corrected, note
