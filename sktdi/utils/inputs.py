"""The estimators' data handling: padding masks, input standardization, network inputs.

Series of unequal length arrive right-padded with their ``lengths``; the padding must not
count in the statistics and must be zero in what the network sees.
"""

from __future__ import annotations

import sys
import warnings
from typing import NamedTuple

import numpy as np

from .panels import transposed_hint


def valid_mask(X3: np.ndarray, lengths: np.ndarray | None) -> np.ndarray | float:
    """1 where a time step belongs to its series, 0 on padding: (n, 1, L), or 1.0 when all
    series are whole."""
    if lengths is None:
        return 1.0
    return (np.arange(X3.shape[-1]) < lengths[:, None])[:, None, :]  # (n, 1, L)


def fit_standardization(
    X3: np.ndarray, lengths: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and scale over every valid time step of X (n, C, L); a constant
    channel gets scale 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.inputs import fit_standardization
    >>> X = np.array([[[1.0, 3.0, 0.0]], [[1.0, 3.0, 5.0]]])
    >>> fit_standardization(X, np.array([2, 3]))
    (array([2.6]), array([1.49666295]))
    """
    mask = valid_mask(X3, lengths)  # (n, 1, L) or 1.0
    count = mask.sum() if lengths is not None else X3.shape[0] * X3.shape[2]
    # in float64 whatever X's precision: a float32 sum over long series loses digits, and
    # the fitted statistics are float64 wherever they are kept (a saved model declares so)
    mean = (X3 * mask).sum(axis=(0, 2), dtype=np.float64) / count  # (C,)
    var = (((X3 - mean[:, None]) * mask) ** 2).sum(axis=(0, 2)) / count  # (C,), float64
    scale = np.sqrt(var)  # (C,)
    return mean, np.where(scale > 0, scale, 1.0)


def network_input(
    X3: np.ndarray,
    mean: np.ndarray,
    scale: np.ndarray,
    lengths: np.ndarray | None,
    dtype=np.float32,
    scaling: str = "channel",
    reference: np.ndarray | None = None,
    kept: np.ndarray | None = None,
) -> np.ndarray:
    """Standardized series (n, C', L) in ``dtype`` with the padding zeroed: each series
    scaled on its own first (:func:`scale_each_series`, ``scaling``; C' = C plus the level
    and scale channels ``kept``), then by the fit's ``mean`` and ``scale`` per network
    channel."""
    X3 = scale_each_series(X3, lengths, scaling, reference, kept)
    X3 = (X3 - mean[:, None]) / scale[:, None]  # (n, C', L)
    return (X3 * valid_mask(X3, lengths)).astype(dtype)


# scalings that give the network each series' shape, and its level and scale as channels of
# their own where the training set shows they carry the task (the time series foundation
# models' answer to raw amplitudes: Mantis, NuTime): "series+scale" by the whole series'
# statistics, "running+scale" by those so far
WITH_SCALE = ("series+scale", "running+scale")
CAUSAL_SCALINGS = ("channel", "running", "running+scale")


def resolve_scaling(scaling: str, for_prefixes: bool) -> str:
    """``input_scaling`` with "auto" resolved: "series+scale" for a model of whole series
    (raw recordings' gains and offsets held exactly, and level on every clean set measured:
    issues 64 and 70), "channel" for one fitted for prefixes (``prefix_weight > 0``, the early
    classifier), which needs a causal scaling and keeps the one it had."""
    if scaling != "auto":
        return scaling
    return "channel" if for_prefixes else "series+scale"


def network_channels(scaling: str, n_channels: int, kept: np.ndarray | None = None) -> int:
    """The network's input channels for ``n_channels`` channels of series under ``scaling``,
    with the level and scale channels ``kept`` (:func:`amplitude_carries_task`).

    >>> import numpy as np
    >>> network_channels("series+scale", 2, np.array([1, 3])), network_channels("series", 2)
    (4, 2)
    """
    if scaling not in WITH_SCALE:
        return n_channels
    return n_channels + (2 * n_channels if kept is None else len(kept))


def scale_each_series(
    X3: np.ndarray,
    lengths: np.ndarray | None,
    scaling: str,
    reference: np.ndarray | None = None,
    kept: np.ndarray | None = None,
) -> np.ndarray:
    """X (n, C, L) with each series and channel scaled by its own statistics: "series", the
    mean and standard deviation of its valid steps (a constant one: its mean removed);
    "running", those of its steps so far (:func:`running_standardize`); "channel", as it is
    (the fit's per-channel statistics do the rest). "series+scale" and "running+scale"
    (:func:`shape_level_scale`, ``reference`` from :func:`fit_reference`, ``kept`` from
    :func:`amplitude_carries_task`): (n, C + len(kept), L), each series' shape, then the
    levels and scales kept, as channels of their own.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.inputs import scale_each_series
    >>> X = np.array([[[1.0, 3.0, 0.0]], [[10.0, 30.0, 20.0]]])
    >>> scale_each_series(X, np.array([2, 3]), "series")
    array([[[-1.        ,  1.        ,  0.        ]],
    <BLANKLINE>
           [[-1.22474487,  1.22474487,  0.        ]]])
    """
    if scaling == "channel":
        return X3
    if scaling in WITH_SCALE:
        return shape_level_scale(X3, lengths, scaling == "running+scale", reference, kept)
    if scaling == "running":
        return running_standardize(X3)[0]  # (n, C, L) float64
    if scaling != "series":
        raise ValueError(
            f"input scaling must be one of 'channel', 'series', 'running', 'series+scale' or "
            f"'running+scale', got {scaling!r}"
        )
    mask = valid_mask(X3, lengths)  # (n, 1, L) or 1.0
    count = X3.shape[-1] if lengths is None else lengths[:, None, None]  # (n, 1, 1)
    mean = (X3 * mask).sum(axis=-1, keepdims=True, dtype=np.float64) / count  # (n, C, 1)
    centered = np.where(mask, X3 - mean, 0.0)  # (n, C, L), 0 on the padding
    std = np.sqrt((centered**2).sum(axis=-1, keepdims=True) / count)  # (n, C, 1)
    # a constant series (std 0, or float64 rounding about a large mean) is its mean removed:
    # all zeros; a real variation a millionth of a large offset is kept
    constant = std <= 1e-10 * np.abs(mean)
    return centered / np.where(constant | (std == 0), np.inf, std)


def check_causal_scaling(scaling: str, what: str, fast_path: bool = False) -> None:
    """A clear error where a model whose inputs are scaled by each whole series' statistics
    (``input_scaling="series"`` or ``"series+scale"``) is asked for ``what`` needs prefixes:
    a prefix's scaling would need the steps that have not come yet. Where the fitted model
    also adds its fast path (``fast_path``), which needs whole series too, the advice names
    both, so that following it works at the first try."""
    if scaling not in CAUSAL_SCALINGS:
        causal = "running+scale" if scaling in WITH_SCALE else "running"
        advice = (
            f"fit with input_scaling='{causal}' (each series by its statistics so far: causal, "
            f"and as blind to gains and offsets) or 'channel' (one scale per channel)"
        )
        if fast_path:
            advice = (
                f"fit a model for prefixes: prefix_weight > 0 (which leaves the fast path out "
                f"and scales causally by default), input_scaling='{causal}' (which leaves it "
                f"out too), or fast_path=False with input_scaling='channel'; this model also "
                f"adds its fast path's outputs, which need whole series"
            )
        raise ValueError(
            f"{what} needs the network's output for every prefix, but input_scaling="
            f"'{scaling}' scales each series by the statistics of the whole series, which a "
            f"prefix does not have yet. For {what}, {advice}"
        )


# ---- each series' shape, and its level and scale beside it ----------------------------------


def _span(X3: np.ndarray, lengths: np.ndarray | None) -> np.ndarray:
    """Where each series and channel of X (n, C, L) varies, (n, C, L) bool: its valid steps
    from the last of a constant start to the first of a constant end. A recording started
    early, or stopped late, holds its first (last) value for a while: those steps are no
    part of its shape, and in the statistics they would shrink its scale."""
    L = X3.shape[-1]
    t = np.arange(L)  # (L,)
    valid = np.broadcast_to(np.asarray(valid_mask(X3, lengths), bool), X3.shape)  # (n, C, L)
    last = (L if lengths is None else lengths)  # the last valid step, + 1
    last = np.broadcast_to(np.asarray(last).reshape(-1, 1, 1) - 1, X3.shape[:2] + (1,))
    end_value = np.take_along_axis(X3, last, axis=-1)  # (n, C, 1)
    moved = valid & (X3 != X3[..., :1])  # (n, C, L): differs from the first value
    first_change = np.where(moved.any(-1, keepdims=True), moved.argmax(-1)[..., None], L)
    moved_back = valid & (X3 != end_value)  # differs from the last value
    last_change = np.where(
        moved_back.any(-1, keepdims=True), L - 1 - moved_back[..., ::-1].argmax(-1)[..., None], -1
    )  # (n, C, 1)
    span = valid & (t >= first_change - 1) & (t <= last_change + 1)  # (n, C, L)
    return np.where(first_change < L, span, valid)  # a constant series: all its steps


def _series_moments(X3: np.ndarray, lengths: np.ndarray | None):
    """Each series and channel's mean and standard deviation over its span (:func:`_span`),
    (n, C, 1) each, float64; the standard deviation 0 where the series is constant."""
    span = _span(X3, lengths)  # (n, C, L)
    count = np.maximum(span.sum(-1, keepdims=True), 1)  # (n, C, 1)
    mean = np.where(span, X3, 0.0).sum(-1, keepdims=True, dtype=np.float64) / count
    std = np.sqrt((np.where(span, X3 - mean, 0.0) ** 2).sum(-1, keepdims=True) / count)
    # a variation a ten-billionth of a large offset is float64 rounding: constant
    return mean, np.where(std <= 1e-10 * np.abs(mean), 0.0, std)


def amplitude_spread(X3: np.ndarray, lengths: np.ndarray | None) -> str | None:
    """Where the series of X (n, C, L) differ in scale or level more than one scale per
    channel can serve, those words (for a message); else None. Scales: the 90th percentile
    of the series' standard deviations over the 10th, above 10; levels: the spread of their
    means over the median standard deviation, above 3 (a z-normalized set: 1 and 0).

    >>> import numpy as np
    >>> X = np.sin(np.arange(50.0))[None, None] * np.logspace(-2, 2, 20)[:, None, None]
    >>> amplitude_spread(X, None)
    "the training series' scales span a factor of 1.6e+03 (10th to 90th percentile)"
    >>> amplitude_spread(X / X.std(axis=-1, keepdims=True), None) is None
    True
    """
    mean, std = _series_moments(X3, lengths)  # (n, C, 1) each
    std, mean = std[..., 0], mean[..., 0]  # (n, C)
    low, high = np.percentile(std, [10, 90], axis=0)  # (C,) each
    typical = np.median(std, axis=0)  # (C,)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(low > 0, high / low, np.where(high > 0, np.inf, 1.0))  # (C,)
        level = np.where(typical > 0, mean.std(axis=0) / typical, 0.0)  # (C,)
    if gain.max() > 10:
        return (
            f"the training series' scales span a factor of {gain.max():.2g} (10th to 90th "
            f"percentile)"
        )
    if level.max() > 3:
        return (
            f"the training series' levels spread over {level.max():.2g} times their typical "
            f"standard deviation"
        )
    return None


# a level or scale channel is kept where its relation to the target has a p-value below this,
# over the number of channels tested (Bonferroni): a gain or an offset drawn at random for each
# recording relates to nothing, and a network given it fits it to the training labels
AMPLITUDE_ALPHA = 0.01


def amplitude_carries_task(amplitude: np.ndarray, y: np.ndarray, task: str) -> np.ndarray:
    """The columns of ``amplitude`` (n, 2C): each series' levels and scales
    (:func:`shape_and_amplitude`) that relate to the target ``y`` in the training set, as
    indices (k,): for a classifier, a Kruskal-Wallis test across the classes; for a
    regressor, Spearman's correlation with each target; kept below
    :data:`AMPLITUDE_ALPHA` over the number of tests. A constant column is never kept.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> amplitude = np.stack([rng.normal(size=40), y + rng.normal(size=40) / 4], axis=1)
    >>> amplitude_carries_task(amplitude, y, "classification")
    array([1])
    """
    from scipy.stats import kruskal, spearmanr

    targets = np.asarray(y)
    n_tests = amplitude.shape[1]
    if task == "regression":
        targets = targets.reshape(len(targets), -1).astype(float)  # (n, M)
        n_tests *= targets.shape[1]
    kept = []
    for j, column in enumerate(amplitude.T):
        if np.ptp(column) == 0:
            continue
        if task == "regression":
            p = min(
                spearmanr(column, t).pvalue if np.ptp(t) > 0 else 1.0 for t in targets.T
            )
        else:
            groups = [column[targets == label] for label in np.unique(targets)]
            p = kruskal(*groups).pvalue if len(groups) > 1 else 1.0
        if np.isfinite(p) and p < AMPLITUDE_ALPHA / n_tests:
            kept.append(j)
    return np.array(kept, dtype=np.int64)


def fit_reference(X3: np.ndarray, lengths: np.ndarray | None) -> np.ndarray:
    """Per channel (C,), the unit in which the level and scale channels are read: the median
    standard deviation of the training series that vary (1 where none does).

    >>> import numpy as np
    >>> X = np.array([[[0.0, 2.0, 0.0]], [[5.0, 5.0, 5.0]], [[0.0, 20.0, 0.0]]])
    >>> fit_reference(X, None).round(3)
    array([5.185])
    """
    std = _series_moments(X3, lengths)[1][..., 0]  # (n, C)
    reference = np.array([
        np.median(column[column > 0]) if (column > 0).any() else 1.0 for column in std.T
    ])  # (C,)
    return reference


def _level_scale(mean, std, reference):
    """The level and scale channels: asinh of the mean and standard deviation in units of
    the fit's reference; about linear near it, logarithmic far above (four orders of
    magnitude become a range of about 9)."""
    unit = reference[:, None]  # (C, 1)
    # rounded to a millionth: on z-normalized series the channels are constant but for
    # rounding, which a standardization would blow up into a feature of noise
    return np.round(np.arcsinh(mean / unit), 6), np.round(np.arcsinh(std / unit), 6)


def shape_level_scale(
    X3: np.ndarray,
    lengths: np.ndarray | None,
    running: bool,
    reference: np.ndarray | None,
    kept: np.ndarray | None = None,
) -> np.ndarray:
    """(n, C + len(kept), L), float64: each series' shape (its steps standardized by its own
    mean and standard deviation; 0 where it is constant), then the channels ``kept`` of its
    levels and scales (:func:`_level_scale`; 2C of them, the levels first; None: all),
    constant over the series, or with ``running``, those of its steps so far
    (:func:`running_shape_level_scale`). Statistics
    over the span where the series varies (:func:`_span`): a flat start does not shrink the
    scale. A gain or an offset changes the shape channels in nothing.

    >>> import numpy as np
    >>> X = np.array([[[1.0, 1.0, 1.0, 3.0, 1.0]]])
    >>> shape_level_scale(X, None, False, np.array([1.0]))[0, 0].round(3)
    array([-0.707, -0.707, -0.707,  1.414, -0.707])
    """
    if running:
        return running_shape_level_scale(X3, reference, kept=kept)[0]
    shape, amplitude = shape_and_amplitude(X3, lengths, reference)  # (n, C, L), (n, 2C)
    if kept is not None:
        amplitude = amplitude[:, kept]  # (n, k)
    L = X3.shape[-1]
    return np.concatenate(
        [shape, np.repeat(amplitude[..., None], L, axis=-1)], axis=1
    )  # (n, C + k, L)


def shape_and_amplitude(
    X3: np.ndarray, lengths: np.ndarray | None, reference: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each series' shape (n, C, L), float64 (its steps standardized by its own mean and
    standard deviation over the span where it varies, :func:`_span`; 0 where it is constant),
    and its amplitude (n, 2C): the level of each channel, then the scale of each
    (:func:`_level_scale`)."""
    mean, std = _series_moments(X3, lengths)  # (n, C, 1) each
    shape = (X3 - mean) / np.where(std > 0, std, np.inf)  # (n, C, L), 0 where constant
    level, scale = _level_scale(mean, std, reference)  # (n, C, 1) each
    return shape, np.concatenate([level[..., 0], scale[..., 0]], axis=1)


def running_shape_level_scale(
    X3: np.ndarray,
    reference: np.ndarray,
    moments: RunningMoments | None = None,
    kept: np.ndarray | None = None,
) -> tuple[np.ndarray, RunningMoments]:
    """:func:`shape_level_scale` of each step by the statistics of the steps so far (causal):
    (n, C + len(kept), L) and the moments to continue with. As :func:`running_standardize`, but the
    count of steps starts at the last step of a constant start (the steps a recording
    started early hold its first value: they would shrink its scale), carried in
    ``moments.count`` (n, C, 1).

    >>> import numpy as np
    >>> X = np.array([[[1.0, 1.0, 1.0, 3.0, 1.0]]])
    >>> running_shape_level_scale(X, np.array([1.0]))[0][0, 0].round(3)
    array([ 0.   ,  0.   ,  0.   ,  1.   , -0.707])
    """
    X3 = np.asarray(X3, dtype=np.float64)
    if moments is None:
        zeros = np.zeros(X3.shape[:2] + (1,))  # (n, C, 1)
        moments = RunningMoments(X3[:, :, :1].copy(), zeros, zeros, 0, np.ones_like(zeros))
    d = X3 - moments.first  # (n, C, L)
    sums = np.cumsum(np.concatenate([moments.sum, d], axis=-1), axis=-1)[..., 1:]  # (n, C, L)
    sums_sq = np.cumsum(np.concatenate([moments.sum_sq, d * d], axis=-1), axis=-1)[..., 1:]
    # once the series has moved from its first value, every step counts (and the last
    # step of the constant start, already in the count: 1 while constant)
    counts = moments.count + np.cumsum(sums_sq > 0, axis=-1)  # (n, C, L)
    mean = sums / counts  # (n, C, L), about the first value
    mean_sq = sums_sq / counts
    var = mean_sq - mean * mean  # (n, C, L)
    varies = var > CONSTANT_SO_FAR * mean_sq  # (n, C, L)
    std = np.sqrt(np.where(varies, var, 0.0))  # (n, C, L)
    with np.errstate(invalid="ignore", divide="ignore"):
        shape = np.where(varies, (d - mean) / np.where(varies, std, 1.0), 0.0)
    level, scale = _level_scale(mean + moments.first, std, reference)  # (n, C, L) each
    last = RunningMoments(
        moments.first, sums[..., -1:], sums_sq[..., -1:], moments.steps + X3.shape[-1],
        counts[..., -1:],
    )
    amplitude = np.concatenate([level, scale], axis=1)  # (n, 2C, L)
    if kept is not None:
        amplitude = amplitude[:, kept]  # (n, k, L)
    return np.concatenate([shape, amplitude], axis=1), last  # (n, C + k, L)


# ---- each series by its own statistics, as it runs ------------------------------------------

# a variance below this share of the mean square (about the first value, for running ones) is
# rounding, not signal: the series has been constant (so far), and is given 0
CONSTANT_SO_FAR = 1e-12


class RunningMoments(NamedTuple):
    """What :func:`running_standardize` carries from one stretch of series to the next: per
    series and channel the first value, and the sums of the steps' differences from it and of
    their squares, (n, C, 1) each; ``steps``, the steps taken."""

    first: np.ndarray
    sum: np.ndarray
    sum_sq: np.ndarray
    steps: int
    # the steps counted in the statistics, (n, C, 1): for running_shape_level_scale only
    count: np.ndarray | None = None

    def select(self, rows) -> RunningMoments:
        """The moments of the series ``rows`` only, in that order."""
        return self._replace(
            first=self.first[rows], sum=self.sum[rows], sum_sq=self.sum_sq[rows],
            count=None if self.count is None else self.count[rows],
        )


def running_standardize(
    X3: np.ndarray, moments: RunningMoments | None = None
) -> tuple[np.ndarray, RunningMoments]:
    """Each series and channel of X (n, C, L) standardized at every step t by the mean and
    standard deviation of its own steps 0..t, in float64: ``(x_t - mean_t) / std_t``, 0
    while the series has been constant so far. Returns it and the moments to continue with
    (``moments``: those of the steps before X, for a stream fed a stretch at a time).

    A gain or an offset of the whole series changes nothing, and step t depends on steps
    ≤ t only: the causal network's predictions for a prefix stay those of the prefix alone.
    ``|z_t| <= sqrt(t)``: the early steps cannot blow up.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.inputs import running_standardize
    >>> x = np.array([[[2.0, 2.0, 4.0, 0.0]]])
    >>> running_standardize(x)[0].round(3)
    array([[[ 0.   ,  0.   ,  1.414, -1.414]]])
    >>> bool(np.allclose(running_standardize(1e6 * x + 3)[0], running_standardize(x)[0]))
    True
    """
    X3 = np.asarray(X3, dtype=np.float64)
    if moments is None:
        zeros = np.zeros(X3.shape[:2] + (1,))  # (n, C, 1)
        moments = RunningMoments(X3[:, :, :1].copy(), zeros, zeros, 0)
    d = X3 - moments.first  # (n, C, L): about the first value, so that an offset cancels
    # sums in the order one step at a time adds them (a stream fed a sample at a time gets
    # the same values): the carried sum first, then each step's
    sums = np.cumsum(np.concatenate([moments.sum, d], axis=-1), axis=-1)[..., 1:]  # (n, C, L)
    sums_sq = np.cumsum(np.concatenate([moments.sum_sq, d * d], axis=-1), axis=-1)[..., 1:]
    steps = moments.steps + np.arange(1, X3.shape[-1] + 1)  # (L,)
    mean = sums / steps  # (n, C, L)
    mean_sq = sums_sq / steps  # (n, C, L)
    var = mean_sq - mean * mean  # (n, C, L)
    varies = var > CONSTANT_SO_FAR * mean_sq  # (n, C, L)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(varies, (d - mean) / np.sqrt(np.where(varies, var, 1.0)), 0.0)
    last = RunningMoments(
        moments.first, sums[..., -1:], sums_sq[..., -1:], moments.steps + X3.shape[-1]
    )
    return z, last


# ---- padded series predicted without their lengths ------------------------------------------


class PaddedSeriesWarning(UserWarning):
    """A model fitted on right-padded series (``fit(X, y, lengths=...)``, or a list of series
    of unequal length) is asked to predict (a transformer: to transform) series that look
    padded, without ``lengths``: the padding would be read as signal.

    Every sktdi estimator that takes ``lengths`` gives it: ``SSMClassifier``,
    ``SSMRegressor``, ``SpectralRidgeClassifier``, ``SpectralRidgeRegressor`` and
    ``SpectralAlignmentTransformer``.

    Examples
    --------
    >>> import warnings
    >>> from sktdi import PaddedSeriesWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", PaddedSeriesWarning)  # an error in this block
    """


def fit_padding(X3: np.ndarray, lengths: np.ndarray | None, previous: dict | None = None):
    """What padded the fit's series, for :func:`warn_if_padded`: None when no series was
    padded, else ``{"value": the constant every padded step held in every channel (None when
    they differ), "steps": the longest padding}``; merged with ``previous`` (partial_fit).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.inputs import fit_padding
    >>> X = np.array([[[1.0, 2.0, 0.0, 0.0]], [[1.0, 2.0, 3.0, 4.0]]])
    >>> fit_padding(X, np.array([2, 4])), fit_padding(X, np.array([4, 4]))
    ({'value': 0.0, 'steps': 2}, None)
    """
    if lengths is None or lengths.min() == X3.shape[-1]:
        return previous
    padded = np.broadcast_to(~valid_mask(X3, lengths), X3.shape)  # (n, C, L)
    values = X3[padded]
    value = float(values[0]) if np.all(values == values[0]) else None
    steps = int(X3.shape[-1] - lengths.min())
    if previous is not None:
        value = value if previous["value"] == value else None
        steps = max(steps, previous["steps"])
    return {"value": value, "steps": steps}


def looks_padded(X3: np.ndarray, padding: dict) -> np.ndarray:
    """Per series (n,), whether X (n, C, L) ends as the fit's padding did: its last two time
    steps (one, when the fit padded by one step at most) hold the fit's padding value in every
    channel; when the fit's padding was no single constant, its last two steps are equal.

    Two steps, not one: a whole series may well end in one exact zero (counts, clipped
    signals), two in every channel far more rarely.
    """
    if padding["value"] is None:
        tail = X3[:, :, -2:]  # (n, C, 2)
        return np.all(tail == tail[:, :, -1:], axis=(1, 2))
    tail = X3[:, :, -min(2, padding["steps"]) :]  # (n, C, 1 or 2)
    return np.all(tail == padding["value"], axis=(1, 2))


def warn_if_padded(estimator, X3: np.ndarray) -> None:
    """Warn (:class:`PaddedSeriesWarning`) when ``estimator`` was fitted on padded series
    and X, given without ``lengths``, looks padded the same way."""
    padding = getattr(estimator, "_fit_padding", None)  # absent from models saved before
    if padding is None:
        return
    padded = looks_padded(X3, padding)
    if not padded.any():
        return
    if padding["value"] is None:
        tail = "2 equal time steps"
    else:
        steps = min(2, padding["steps"])
        tail = f"{steps} time step{'s' * (steps > 1)} of the padding value {padding['value']:g}"
    outputs = "features" if hasattr(estimator, "transform") else "predictions"
    warnings.warn(
        f"{type(estimator).__name__} was fitted on padded series with lengths= (or a list of "
        f"series of unequal length, padded with zeros), and {int(padded.sum())} of "
        f"{len(X3)} series given without lengths= end in {tail}, as the padding did: their "
        f"padding is read as signal, and the {outputs} differ from those with lengths=. Pass "
        f"the series' true lengths (lengths=...), or lengths=np.full(len(X), "
        f"{X3.shape[-1]}) for series that are whole",
        PaddedSeriesWarning,
        stacklevel=_caller_stacklevel(),
    )


def _caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning raised by the function calling this one at
    the first frame outside sktdi and scikit-learn: the user's call, whichever public method
    (``predict``, ``predict_proba``, ``score``, ...) led there."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in (
        "sktdi",
        "sklearn",
    ):
        frame, level = frame.f_back, level + 1
    return level


def pad_sequences(X, length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad a list of series with zeros: (X (n, C, L_max), lengths (n,)).

    ``length`` pads to at least that many time steps, so that two panels (a training and a
    test split) can share one length.

    Each series is (n_channels, length_i), or (length_i,) for a univariate one; all must have
    the same channel count. An equal-length ndarray passes through with its lengths.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.datasets import pad_sequences
    >>> X, lengths = pad_sequences([np.ones((1, 3)), np.ones((1, 5))])
    >>> X.shape, lengths.tolist()
    ((2, 1, 5), [3, 5])
    >>> X, lengths = pad_sequences([[1.0, 2.0], [1.0, 2.0, 3.0]])  # 1-D: univariate
    >>> X.shape, lengths.tolist()
    ((2, 1, 3), [2, 3])
    >>> pad_sequences(np.ones((2, 1, 3)), length=4)[0][0]
    array([[1., 1., 1., 0.]])
    """
    if isinstance(X, np.ndarray) and X.dtype != object:
        lengths = np.full(X.shape[0], X.shape[-1])
        extra = max(0, (length or 0) - X.shape[-1])
        if extra:
            X = np.pad(X, [(0, 0)] * (X.ndim - 1) + [(0, extra)])
        return X, lengths
    if len(X) == 0:
        raise ValueError("pad_sequences got no series")
    # 1-D series are univariate: without this, X[0].shape[0] would be read as a channel count
    series = [np.atleast_2d(np.asarray(s, dtype=np.float64)) for s in X]
    bad = next((i for i, s in enumerate(series) if s.ndim != 2), None)
    if bad is not None:
        raise ValueError(
            f"series {bad} has shape {np.shape(X[bad])}; each series must be (length,) or "
            f"(n_channels, length)"
        )
    empty = [i for i, s in enumerate(series) if s.shape[-1] < 1]
    if empty:  # before the channels: an empty 1-D series reads as one channel
        raise ValueError(
            f"series {', '.join(map(str, empty[:5]))}{' ...' if len(empty) > 5 else ''} of X "
            f"{'is' if len(empty) == 1 else 'are'} empty (0 time steps); every series needs at "
            f"least 1"
        )
    channels = {s.shape[0] for s in series}
    if len(channels) > 1:
        raise ValueError(
            f"the series differ in their number of channels ({sorted(channels)}); padding "
            f"only evens out lengths{transposed_hint([s.shape for s in series])}"
        )
    lengths = np.array([s.shape[-1] for s in series])
    out = np.zeros((len(series), series[0].shape[0], max(lengths.max(), length or 0)))
    for i, s in enumerate(series):
        out[i, :, : s.shape[-1]] = s
    return out, lengths
