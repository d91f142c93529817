"""Subsampling of series: the one home for "which series do we use" (TDI's estimate, the
benchmark's training ratios). Deterministic given ``random_state``; stratified by label or plain.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def subsample_size(size: int | float | None, n_samples: int) -> int:
    """Resolve an int count or a float fraction in (0, 1] against ``n_samples``; None = all.

    Examples
    --------
    >>> from sktdi.utils.sampling import subsample_size
    >>> subsample_size(0.25, 10), subsample_size(4, 10), subsample_size(None, 10)
    (2, 4, 10)
    """
    if size is None:
        return n_samples
    if isinstance(size, (float, np.floating)):
        if not 0 < size <= 1:
            raise ValueError(f"a fractional subsample size must be in (0, 1], got {size}")
        return max(1, int(round(size * n_samples)))
    size = int(size)
    if size < 1:
        raise ValueError(f"subsample size must be >= 1, got {size}")
    return min(size, n_samples)


def subsample_indices(
    y,
    size: int | float | None,
    *,
    stratify: bool = True,
    min_per_class: int = 1,
    random_state=None,
) -> np.ndarray:
    """Sorted indices of a subsample of about ``size`` of the series labelled ``y``.

    ``size``: a count, a fraction in (0, 1] or None (all). With ``stratify``, each label keeps
    its share of the subsample (largest-remainder rounding) and at least
    ``min(min_per_class, its count)`` members, so the result can exceed ``size`` when there
    are many small classes; without, ``y`` only gives the number of series (regression).
    Taking everything draws nothing from ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.sampling import subsample_indices
    >>> y = np.repeat(["a", "b"], [8, 2])
    >>> subsample_indices(y, 0.3, min_per_class=2, random_state=0).size
    4
    >>> subsample_indices(np.zeros(10), 3, stratify=False, random_state=0).size
    3
    """
    n = len(y)
    target = subsample_size(size, n)
    if target >= n:
        return np.arange(n)
    rng = check_random_state(random_state)
    if not stratify:
        return np.sort(rng.choice(n, size=target, replace=False))
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    counts = np.bincount(codes)
    exact = counts * target / n
    take = np.floor(exact).astype(int)
    short = target - take.sum()
    if short > 0:
        take[np.argsort(-(exact - take), kind="stable")[:short]] += 1
    take = np.clip(np.maximum(take, np.minimum(min_per_class, counts)), 0, counts)
    chosen = [
        rng.choice(np.flatnonzero(codes == label), size=k, replace=False)
        for label, k in enumerate(take)
    ]
    return np.sort(np.concatenate(chosen))
