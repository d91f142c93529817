"""How far to trust a task statistic: split-half reliability.

The statistic is estimated from few series; below a handful per class it is mostly noise
(split-half correlation ~0.1 at 2–3 series per class in calibration). Reliability is measured
on the data itself: split the series into two stratified halves, compute the statistic on each,
correlate the two across frequency bins (Pearson: the peaks TDI uses dominate it), repeat,
and correct the mean correlation to the full sample size (Spearman–Brown: 2r / (1 + r)).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn.utils import check_random_state

from .._validation import as_sequences, check_lengths
from .spectra import _task_spectrum, _task_target

MIN_PER_CLASS_FOR_SPLIT = 4  # two halves of at least two series per class each
MIN_SERIES_FOR_SPLIT = 8  # regression: two halves of at least four series


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
    # both halves on one frequency grid: with unequal lengths, the segment length of the
    # shortest series overall (each half alone might pick a different one)
    spectral = {} if lengths is None else {"nperseg": int(np.min(lengths))}
    correlations = []
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
        halves = [
            _task_spectrum(
                X[idx],
                target[idx],
                task=task,
                lengths=None if lengths is None else lengths[idx],
                **spectral,
            ).values
            for idx in (first, second)
        ]
        if np.ptp(halves[0]) == 0 or np.ptp(halves[1]) == 0:
            correlations.append(0.0)
            continue
        correlations.append(stats.pearsonr(halves[0], halves[1]).statistic)
    r = float(np.mean(correlations))
    corrected = 2 * r / (1 + r) if r > -1 else -1.0
    return corrected, f"split-half Pearson {r:.2f} over {n_repeats} splits"
