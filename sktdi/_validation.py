"""Input checks shared by the pure functions: sequences in, float64 (n, C, L) out, clear errors."""

from __future__ import annotations

import numpy as np


def as_sequences(X, *, name: str = "X", min_length: int = 1) -> np.ndarray:
    """Validate a batch of sequences and return it as float64 of shape (n, n_channels, length).

    2-D input is (n_samples, length), univariate; 3-D is (n_samples, n_channels, length).
    Raises ValueError / TypeError that name the problem (dtype, shape, NaN, length).
    """
    if hasattr(X, "to_numpy"):  # pandas
        X = X.to_numpy()
    arr = np.asarray(X)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} is complex ({arr.dtype}); complex data is not supported")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must be numeric; got dtype {arr.dtype} that cannot be converted to float"
            ) from exc
    if arr.ndim == 2:
        arr = arr[:, np.newaxis, :]
    elif arr.ndim != 3:
        raise ValueError(
            f"{name} must be 2-D (n_samples, length) or 3-D (n_samples, n_channels, length); "
            f"got an array of shape {arr.shape}"
        )
    n_samples, n_channels, length = arr.shape
    if n_samples == 0:
        raise ValueError(f"{name} has 0 samples (shape {arr.shape}); at least 1 is required")
    if n_channels == 0:
        raise ValueError(f"{name} has 0 channels (shape {arr.shape})")
    if length < min_length:
        raise ValueError(
            f"{name} holds sequences of length {length}, too short: at least {min_length} "
            f"time steps are required"
        )
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(
            f"{name} contains NaN ({n_nan} values) or infinity ({n_inf} values); "
            f"fill or drop missing values first"
        )
    return arr


def as_targets(y, n_samples: int, *, name: str = "y") -> np.ndarray:
    """Validate numeric regression targets; returns float64 (n_samples, n_outputs)."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric for regression; got dtype {arr.dtype}") from exc
    if arr.ndim == 1:
        arr = arr[:, np.newaxis]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} samples but X has {n_samples}")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def as_labels(y, n_samples: int, *, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Validate class labels; returns (classes, integer codes). Needs at least 2 classes."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D class labels; got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_samples} samples")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    classes, codes = np.unique(arr, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{name} has only 1 class ({classes[0]!r}); a class contrast needs at least 2"
        )
    return classes, codes
