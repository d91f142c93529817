"""MiniRocket's features for the fast path: sktime's transforms, built, run and checked as
:class:`~sktdi.SpectralRidgeClassifier` and :class:`~sktdi.SpectralRidgeRegressor` use them
(``rocket="minirocket"``).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from ..utils.threads import keep_torch_threads, numba_thread_count
from .scan import _steps

# MiniRocket's kernels have 9 taps; shorter series have nothing for them to slide over
ROCKET_MIN_LENGTH = 9


def _rocket_transformer(random_state: int, n_channels: int, n_features: int, unequal: bool):
    """sktime's MiniRocket with about ``n_features`` features, with a clear error when sktime
    is missing: for series of unequal length its variable-length transform (each series
    convolved over its own steps, as the bank filters them: no feature of padding); else the
    univariate transform for one channel (its multivariate one computes the same features of
    a single channel about twice as slowly), the multivariate one otherwise."""
    try:
        from sktime.transformations.rocket import (
            MiniRocket,
            MiniRocketMultivariate,
            MiniRocketMultivariateVariable,
        )
    except ImportError as exc:  # sktime is an optional dependency
        raise ImportError(
            "rocket='minirocket' uses sktime's MiniRocket: pip install 'sktdi[sktime]'"
        ) from exc
    # n_jobs (the transform's threads) is set by _run_rocket at each call, in the process
    # that runs it
    if unequal:
        # dilations for the longest series ("max", sktime's default), so that a long series'
        # slow shapes are seen; a shorter series' widest kernels run over its own steps
        rocket = MiniRocketMultivariateVariable(
            num_kernels=n_features, random_state=random_state
        )
        # sktime's input checks of a list of frames cost more than the transform on short
        # series (0.5 s of a 1.6 s fit on JapaneseVowels); _frames builds exactly the list
        # of (L_i, C) frames its inner methods read
        return rocket.set_config(input_conversion="off", output_conversion="off")
    rocket = MiniRocket if n_channels == 1 else MiniRocketMultivariate
    return rocket(num_kernels=n_features, random_state=random_state)


def _is_variable(rocket) -> bool:
    """Whether ``rocket`` is MiniRocket's variable-length transform (it takes any lengths)."""
    return type(rocket).__name__ == "MiniRocketMultivariateVariable"


def _frames(X3: np.ndarray, lengths: np.ndarray | None, difference: bool) -> list:
    """X (n, C, L) as the variable-length MiniRocket reads it: one (L_i, C) frame a series,
    its own steps only (or its first difference's). A series shorter than MiniRocket's
    kernel (9 steps, 10 for a difference) is extended by repeating its last value, which
    adds no shape (a difference of 0) where zeros would add a step down to 0."""
    import pandas as pd

    steps = _steps(X3, lengths)  # (n,)
    shortest = ROCKET_MIN_LENGTH + difference
    frames = []
    for series, n in zip(X3, steps):
        own = series[:, :n]  # (C, L_i)
        if n < shortest:
            own = np.pad(own, [(0, 0), (0, shortest - n)], mode="edge")  # (C, shortest)
        frames.append(pd.DataFrame((np.diff(own, axis=-1) if difference else own).T))
    return frames


def _run_rocket(method: str, rocket, X3: np.ndarray, lengths, difference: bool):
    """``rocket.fit`` or ``rocket.transform`` (``method``) on X (n, C, L)'s series, or their
    first differences, in the form the transform reads: frames of each series' own steps
    (:func:`_frames`) for the variable-length one, the (n, C, L) panel otherwise."""
    if method == "transform":
        # a shallow copy, so that predicting changes nothing of the fitted model
        rocket = copy.copy(rocket)
    # the transform's threads (sktime passes n_jobs to numba.set_num_threads): torch's count,
    # as the bank's scan runs on (the fit's default_threads: one, or a joblib worker's
    # share), within what numba allows in the process that runs it, not the one that fitted:
    # a model fitted on 2 threads may predict in a loky worker whose numba allows 1. The
    # features do not depend on it
    rocket.n_jobs = numba_thread_count()
    if _is_variable(rocket):
        data = _frames(X3, lengths, difference)
    else:
        data = np.diff(X3, axis=-1) if difference else X3  # (n, C, L or L - 1)
    with keep_torch_threads(), warnings.catch_warnings():  # numba's first start resets OpenMP
        # the variable transform advises its fixed-length siblings for one channel or one
        # length; here it runs because the fit's lengths were unequal
        warnings.filterwarnings("ignore", message="X is (univariate|of equal length)")
        return getattr(rocket, method)(data)


def _check_rocket_lengths(rocket_, X3: np.ndarray, lengths: np.ndarray | None, fitted_length: int):
    """A MiniRocket fitted on series of one length (``rocket_``, the fitted transform) needs
    whole series of that length: sktime's fixed-length transforms take no others, and their
    features of padding would be features. The variable-length one takes any lengths."""
    if rocket_ is None or _is_variable(rocket_):
        return
    if lengths is not None:
        raise ValueError(
            f"this model's MiniRocket was fitted on series of one length ({fitted_length}), so "
            f"it takes whole series of that length; these have {lengths.min()} to "
            f"{lengths.max()} time steps. Fit on series of unequal length (a list of series, "
            f"or padded X with lengths=) for MiniRocket's variable-length transform, or set "
            f"rocket=None"
        )
    if X3.shape[-1] != fitted_length:
        raise ValueError(
            f"this model's MiniRocket was fitted on series of one length ({fitted_length}), "
            f"as sktime's MiniRocketMultivariate needs; got series of length {X3.shape[-1]}"
        )


# MiniRocket's numba transform hardcodes its 84 kernels (the 3-of-9 weight patterns)
MINIROCKET_KERNELS = 84


def _minirocket_problem(parameters, n_channels: int) -> str | None:
    """Why ``parameters`` (MiniRocketMultivariate's fitted ``parameters``) cannot come from
    a fit on ``n_channels`` channels, or None.

    Notes
    -----
    ``_fit_multi`` returns (channels per combination, channel indices, dilations, features per
    dilation, biases): one combination per kernel and dilation, each taking its slice of the
    channel indices and one bias per feature. The numba transform indexes the input and the
    biases with these counts without bounds checks, so counts that do not fit each other would
    read outside the arrays instead of raising.
    """
    univariate = n_channels == 1 and type(parameters) is tuple and len(parameters) == 3
    dtypes = (np.int32, np.int32, np.float32) if univariate else (
        np.int32, np.int32, np.int32, np.int32, np.float32
    )
    if type(parameters) is not tuple or len(parameters) != len(dtypes) or not all(
        type(a) is np.ndarray and a.ndim == 1 and a.dtype == dtype
        for a, dtype in zip(parameters, dtypes)
    ):
        return (
            "MiniRocket's parameters are not its five 1-D arrays (4 of int32, 1 of float32), "
            "or for one channel its three (2 of int32, 1 of float32)"
        )
    if univariate:  # the univariate transform: no channel combinations
        dilations, per_dilation, biases = parameters
        per_combination = np.ones(MINIROCKET_KERNELS * len(dilations), dtype=np.int32)
        channels = np.zeros(len(per_combination), dtype=np.int32)
    else:
        per_combination, channels, dilations, per_dilation, biases = parameters
    n_features = MINIROCKET_KERNELS * int(per_dilation.sum(dtype=np.int64))
    if len(per_dilation) != len(dilations) or (dilations < 1).any() or (per_dilation < 0).any():
        return "MiniRocket's dilations and their feature counts do not match"
    if len(per_combination) != MINIROCKET_KERNELS * len(dilations) or (per_combination < 1).any():
        return "MiniRocket's channel combinations are not one per kernel and dilation"
    if int(per_combination.sum(dtype=np.int64)) != len(channels) or (
        channels.size and (channels.min() < 0 or channels.max() >= n_channels)
    ):
        return f"MiniRocket's channel indices are not {len(channels)} channels of {n_channels}"
    if len(biases) != n_features:
        return f"MiniRocket has {len(biases)} biases for {n_features} features"
    return None


def _quant_transformer():
    """aeon's QUANT, with a clear error when aeon is missing."""
    try:
        from aeon.transformations.collection.interval_based import QUANTTransformer
    except ImportError as exc:  # aeon is an optional dependency
        raise ImportError(
            "rocket='minirocket+quant' uses aeon's QUANT: pip install aeon"
        ) from exc
    return QUANTTransformer()


def quant_features(X3: np.ndarray) -> np.ndarray:
    """aeon's QUANT features (n, F) of X (n, C, L): quantiles of the series, of its smoothed
    first difference, of its second difference and of its Fourier magnitudes, over dyadic
    intervals. Nothing is drawn at random and its fit reads only the length, so a model keeps
    the length it was fitted on (``quant_length_``), not the transform."""
    # torch's quantiles, on the caller's torch threads (the fit's default_threads)
    with warnings.catch_warnings():
        # aeon's interval arithmetic on a torch scalar: NumPy 2's notice, once per interval
        warnings.filterwarnings("ignore", message="__array_wrap__", category=DeprecationWarning)
        return np.asarray(_quant_transformer().fit_transform(X3), dtype=np.float64)  # (n, F)


def quant_width(n_channels: int, length: int) -> int:
    """How many QUANT features a series of ``n_channels`` channels and ``length`` steps has
    (for the saved state's check: the scaler and the head must take them)."""
    return quant_features(np.zeros((1, n_channels, length))).shape[1]
