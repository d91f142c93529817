"""scikit-learn input validation for sequence data: 2-D (n, length) or 3-D (n, channels, length).

``validate_data`` does the standard checks (dtype, NaN/inf, empty input, n_features_in_); this
adds what sequences need: 3-D support, the length recorded at fit and checked afterwards, and
(n, 1, L) and (n, L) treated as the same univariate data.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data


def validate_sequences(
    estimator,
    X,
    y="no_validation",
    *,
    reset: bool,
    min_length: int = 1,
    check_length: bool = True,
    **kwargs,
):
    """Validate X (and y) for ``estimator``; returns (X as float (n, C, L), y).

    At fit (``reset=True``) records ``n_features_in_`` (the length for 2-D input, the channel
    count for 3-D input, as ``validate_data`` does), ``n_channels_`` and ``n_timepoints_``.
    Afterwards, a different channel count or length is an error naming both
    (``check_length=False``: padded series of unequal length, only channels must match).
    """
    if not reset:
        shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
        fitted_ndim = estimator._input_ndim
        if len(shape) == 3 and fitted_ndim == 2 and shape[1] == 1:
            X = np.asarray(X)[:, 0, :]
        elif len(shape) == 2 and fitted_ndim == 3 and estimator.n_channels_ == 1:
            X = np.asarray(X)[:, np.newaxis, :]
        elif len(shape) == 3 and fitted_ndim == 3:
            _check_fitted_shape(estimator, shape[1], shape[2] if check_length else None)
    kwargs.setdefault("dtype", [np.float64, np.float32])
    if isinstance(y, str) and y == "no_validation":
        X = validate_data(estimator, X, reset=reset, allow_nd=True, **kwargs)
    else:
        X, y = validate_data(estimator, X, y, reset=reset, allow_nd=True, **kwargs)
    if X.ndim not in (2, 3):
        raise ValueError(
            f"X must be 2-D (n_samples, length) or 3-D (n_samples, n_channels, length); "
            f"got an array of shape {X.shape}"
        )
    X3 = X[:, np.newaxis, :] if X.ndim == 2 else X
    n_channels, length = X3.shape[1], X3.shape[2]
    name = type(estimator).__name__
    if reset:
        estimator._input_ndim = X.ndim
        estimator.n_channels_ = n_channels
        estimator.n_timepoints_ = length
        if length < min_length:
            raise ValueError(
                f"X holds sequences of length {length} (n_features = {length}), too short for "
                f"{name}: at least "
                f"{min_length} time steps are required"
            )
    else:
        _check_fitted_shape(estimator, n_channels, length if check_length else None)
    return X3, y


def _check_fitted_shape(estimator, n_channels: int, length: int | None) -> None:
    name = type(estimator).__name__
    if n_channels != estimator.n_channels_:
        raise ValueError(
            f"X has {n_channels} channels, but {name} was fitted on {estimator.n_channels_}"
        )
    if length is not None and length != estimator.n_timepoints_:
        raise ValueError(
            f"X has sequences of length {length}, but {name} was fitted on length "
            f"{estimator.n_timepoints_}"
        )


def check_lengths(lengths, X3: np.ndarray) -> np.ndarray | None:
    """Validate per-series lengths of right-padded X (n, C, L): integers in [1, L]."""
    if lengths is None:
        return None
    arr = np.asarray(lengths)
    if arr.shape != (X3.shape[0],):
        raise ValueError(
            f"lengths must have shape ({X3.shape[0]},), one per series; got {arr.shape}"
        )
    if arr.dtype.kind not in "iu" and not (
        arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
    ):
        raise TypeError(f"lengths must be integers; got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 1 or arr.max() > X3.shape[-1]:
        raise ValueError(
            f"lengths must lie in [1, {X3.shape[-1]}] (the padded length); got "
            f"[{arr.min()}, {arr.max()}]"
        )
    return arr
