"""Deterministic (stratified) subsampling of training sets."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def subsample_size(size: int | float | None, n_samples: int) -> int:
    """Resolve an int count or a float fraction in (0, 1] against ``n_samples``; None = all."""
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


def stratified_indices(
    codes: np.ndarray,
    size: int | float | None,
    *,
    min_per_class: int = 1,
    random_state=None,
) -> np.ndarray:
    """Indices of a stratified subsample of about ``size`` items, sorted.

    Each class keeps its share of ``size`` (largest-remainder rounding) and at least
    ``min(min_per_class, class count)`` members, so the result can exceed ``size`` when there
    are many small classes. Deterministic given ``random_state``.
    """
    codes = np.asarray(codes)
    n = len(codes)
    target = subsample_size(size, n)
    rng = check_random_state(random_state)
    labels, counts = np.unique(codes, return_counts=True)
    exact = counts * target / n
    take = np.floor(exact).astype(int)
    short = target - take.sum()
    if short > 0:
        take[np.argsort(-(exact - take), kind="stable")[:short]] += 1
    take = np.clip(np.maximum(take, np.minimum(min_per_class, counts)), 0, counts)
    chosen = [
        rng.choice(np.flatnonzero(codes == label), size=k, replace=False)
        for label, k in zip(labels, take)
    ]
    return np.sort(np.concatenate(chosen))


def random_indices(n_samples: int, size: int | float | None, *, random_state=None) -> np.ndarray:
    """Indices of a plain random subsample (regression), sorted."""
    target = subsample_size(size, n_samples)
    rng = check_random_state(random_state)
    return np.sort(rng.choice(n_samples, size=target, replace=False))
