"""The estimators' data handling: padding masks, input standardization, network inputs.

Series of unequal length arrive right-padded with their ``lengths``; the padding must not
count in the statistics and must be zero in what the network sees.
"""

from __future__ import annotations

import numpy as np


def valid_mask(X3: np.ndarray, lengths: np.ndarray | None) -> np.ndarray | float:
    """1 where a time step belongs to its series, 0 on padding: (n, 1, L), or 1.0 when all
    series are whole."""
    if lengths is None:
        return 1.0
    return (np.arange(X3.shape[-1]) < lengths[:, None])[:, None, :]  # (n, 1, L)


def fit_standardization(
    X3: np.ndarray, lengths: np.ndarray | None, *, enabled: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and scale over every valid time step of X (n, C, L); a constant
    channel gets scale 1. ``enabled=False``: the identity (zeros, ones).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi._inputs import fit_standardization
    >>> X = np.array([[[1.0, 3.0, 0.0]], [[1.0, 3.0, 5.0]]])
    >>> fit_standardization(X, np.array([2, 3]))
    (array([2.6]), array([1.49666295]))
    """
    n_channels = X3.shape[1]
    if not enabled:
        return np.zeros(n_channels), np.ones(n_channels)
    mask = valid_mask(X3, lengths)  # (n, 1, L) or 1.0
    count = mask.sum() if lengths is not None else X3.shape[0] * X3.shape[2]
    mean = (X3 * mask).sum(axis=(0, 2)) / count  # (C,)
    var = (((X3 - mean[:, None]) * mask) ** 2).sum(axis=(0, 2)) / count  # (C,)
    scale = np.sqrt(var)  # (C,)
    return mean, np.where(scale > 0, scale, 1.0)


def network_input(
    X3: np.ndarray,
    mean: np.ndarray,
    scale: np.ndarray,
    lengths: np.ndarray | None,
    dtype=np.float32,
) -> np.ndarray:
    """Standardized series (n, C, L) in ``dtype`` with the padding zeroed."""
    X3 = (X3 - mean[:, None]) / scale[:, None]  # (n, C, L)
    return (X3 * valid_mask(X3, lengths)).astype(dtype)
