"""SpectralAlignmentTransformer: a task-aligned S4D filter bank as a scikit-learn transformer."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ..persistence import PARAMETERS_AT_FIT, SaveMixin, remember_fit_parameters
from ..persistence.declared import input_dims
from ..ssm import INIT_NAMES, S4D, fft_conv
from ..tdi import (
    TDI_INITS,
    TDIOptions,
    initialize_layers,
    read_init,
)
from ..tdi.options import FLAT_TDI_PARAMETERS
from ..utils.inputs import valid_mask
from ..utils.options import HasOptionGroups, resolve_options
from ..utils.seeding import spawn_seeds
from ..utils.threads import default_threads
from ..utils.validation import (
    INPUT_RECORD_STATE,
    check_state_params,
    keyword_only,
    restore_on_error,
    validate_padded_sequences,
)
from .scan import quantiles, sample_outputs, scan_features

STATISTICS = ("mean", "std", "max", "min")  # then one proportion of positive values per bias
# features="multirocket": MultiRocket's four poolings of (filtered − bias), per bias
MULTIROCKET_POOLINGS = ("ppv", "mpv", "mipv", "lspv")
# the PPV biases are quantiles of the bank's outputs on a fixed-size random sample of the
# training series (a fitted value must not depend on batch_size, a memory setting)
BIAS_ROWS = 256
BIAS_SAMPLE = 4096  # at most this many filtered values per filter give its bias quantiles


def infer_task(y) -> str:
    """"classification" for binary/multiclass labels, "regression" for continuous targets."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind in ("binary", "multiclass"):
        return "classification"
    if kind in ("continuous", "continuous-multioutput"):
        return "regression"
    raise ValueError(f"cannot infer the task from y of type {kind!r}; set task explicitly")


def multirocket_pooling(filtered: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """MultiRocket's four poolings of z = filtered − bias over time: (..., L) -> (..., 4).

    - PPV, the proportion of positive values: #{t: z_t > 0} / L;
    - MPV, the mean of the positive values (0 when there are none);
    - MIPV, the mean index of the positive values, as a fraction of L − 1 (−1 when none);
    - LSPV, the longest stretch of consecutive positive values, as a fraction of L.

    Indices and stretches are fractions of the length (MultiRocket counts samples) so that a
    feature means the same at every length. ``bias`` broadcasts against ``filtered[..., 0]``.

    Examples
    --------
    >>> import torch
    >>> from sktdi.fast_path.transformers import multirocket_pooling
    >>> multirocket_pooling(torch.tensor([1.0, 3.0, -1.0, 2.0, 2.0]), torch.tensor(0.0))
    tensor([0.8000, 2.0000, 0.5000, 0.4000])
    """
    length = filtered.shape[-1]
    z = filtered - bias.unsqueeze(-1)  # (..., L)
    positive = z > 0  # (..., L)
    count = positive.sum(dim=-1)  # (...,)
    some = count > 0  # (...,)
    steps = torch.arange(length, device=z.device)  # (L,)
    ppv = count.to(z.dtype) / length  # (...,)
    mpv = torch.where(positive, z, 0.0).sum(dim=-1) / count.clamp_min(1)  # (...,)
    index_sum = torch.where(positive, steps.to(z.dtype), 0.0).sum(dim=-1)  # (...,)
    mipv = torch.where(
        some, index_sum / count.clamp_min(1) / max(length - 1, 1), torch.full_like(ppv, -1.0)
    )  # (...,)
    # the run of positives ending at t is t minus the last non-positive index at or before it
    last_break = torch.cummax(
        torch.where(positive, torch.full_like(steps, -1), steps), dim=-1
    ).values  # (..., L)
    lspv = (steps - last_break).amax(dim=-1).to(z.dtype) / length  # (...,)
    return torch.stack([ppv, mpv, mipv, lspv], dim=-1)  # (..., 4)


def _shortest_length(X3: np.ndarray, lengths: np.ndarray | None) -> int:
    """The true length of the shortest series of right-padded X (n, C, L)."""
    return X3.shape[-1] if lengths is None else int(lengths.min())


def _check_sequence_features_length(features: str, lengths, length: int, fitted_length: int):
    """features="sequence" is one feature per time step: it needs whole series of the fitted
    length (padding would be features; other lengths, another feature count)."""
    if features == "sequence" and (lengths is not None or length != fitted_length):
        got = (
            f"series of {lengths.min()} to {lengths.max()} time steps"
            if lengths is not None
            else f"series of length {length}"
        )
        raise ValueError(
            f"features='sequence' returns one feature per time step, so it needs whole series "
            f"of the length seen in fit ({fitted_length}); got {got}. Series of unequal length "
            f"need pooled features: features='stats' or 'multirocket'"
        )


def _check_bank_length(length: int, difference, filters_difference: bool) -> None:
    """Refuse series too short for the bank, in the user's terms: ``difference`` is named
    with the value it has (often the default ``"auto"``, which the user never wrote), and
    the remedy is a public parameter of the transformer and of the ridge models. ``length``
    is the shortest series' (its true length when the series are padded).

    Examples
    --------
    >>> _check_bank_length(1, "auto", filters_difference=False)  # 1 step is enough without it
    >>> _check_bank_length(1, "auto", filters_difference=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: series of length 1 (n_features = 1) are too short for the filter bank: need ...
    """
    if filters_difference and length < 2:
        # "n_features = 1" is what scikit-learn's check_fit2d_1feature looks for
        raise ValueError(
            f"series of length {length} (n_features = {length}) are too short for the filter "
            f"bank: need at least 2 time steps, because it also filters each series' first "
            f"difference (difference={difference!r}); pass longer series, or difference=False"
        )


def _zero_padding(X3: np.ndarray, lengths: np.ndarray | None) -> np.ndarray:
    """X (n, C, L) with the padding zeroed: the causal filters keep it out of a series' own
    steps, but a large padding value would still reach them through the FFT's round-off."""
    return X3 if lengths is None else X3 * valid_mask(X3, lengths)


class SpectralAlignmentTransformer(HasOptionGroups, SaveMixin, TransformerMixin, BaseEstimator):
    """Filter sequences with an S4D filter bank aligned to the task's spectrum.

    ``fit`` estimates the task statistic (Fisher log-power between classes, or the input–output
    cross-spectrum for regression) on a subsample and builds a bank of ``n_filters`` diagonal
    SSM filters whose frequency responses peak where that statistic does (peak initialization,
    see :func:`sktdi.tdi.align_layer`). Nothing is trained. ``transform`` filters every channel
    of every series with the whole bank and returns either pooled statistics of the filtered
    sequences or the filtered sequences themselves, Φ(u) = T_h u / √L — the feature map of the
    SSM-induced kernel K(u, u') = Φ(u)ᵀΦ(u').

    Series of unequal length (pooled features only) come as a list of series or as
    right-padded X with ``lengths``: the filters are causal and every statistic pools a
    series' own time steps only, so padding changes no feature. A transformer fitted with
    ``lengths`` warns (:class:`~sktdi.PaddedSeriesWarning`) when ``transform`` is given series
    without ``lengths`` that end as the fit's padding did.

    Parameters
    ----------
    n_filters : int, default=128
        Number of SSM filters (channels of the S4D layer).
    d_state : int, default=16
        State size of each filter (even); d_state / 2 complex modes per filter.
    init : {"tdi", "auto", "tdi-control", "s4d-lin", "s4d-inv", "s4d-real", "s4d-legs", \
"random"}, default="tdi"
        "tdi" aligns the bank with the task and needs ``y``; "auto" does so only when the
        statistic is reliable; "tdi-control" aligns to randomly moved peaks (a control); a
        named initialization ignores ``y`` (for comparison).
    features : {"stats", "multirocket", "sequence"}, default="stats"
        "stats": per channel and filter, the mean, standard deviation, maximum and minimum of
        the filtered series, and the share of steps above each of ``n_biases`` biases
        (MiniRocket's PPV). "multirocket": MultiRocket's four poolings at each bias
        (:func:`multirocket_pooling`), more features at about twice the cost. "sequence":
        the kernel's feature map Φ(u) itself, n_filters × length values per channel.
    n_biases : int, default=8
        Thresholds per filter for ``features="stats"`` and ``"multirocket"``: quantiles
        (j + ½) / n_biases of the filter's output on the training series, set in ``fit``;
        0 = none ("stats" only).
    difference : bool or "auto", default="auto"
        Also filter the first difference of each series (as MultiRocket does) and append its
        features, with their own biases. "auto": on for the pooled features ("stats",
        "multirocket"), off for ``features="sequence"``, where True is an error. Set False to
        halve the transform time, usually at some cost in accuracy.
    task : {"auto", "classification", "regression"}, default="auto"
        Which statistic TDI uses; "auto" infers it from ``y``.
    tdi : TDIOptions or None, default=None
        How TDI aligns the filters (:class:`~sktdi.tdi.TDIOptions`; None: its defaults),
        e.g. ``TDIOptions(spectrum=...)`` to align to a known statistic. ``layers`` does not
        apply: the bank is one layer.
    dt_min, dt_max : float, default=1e-2, 1.0
        Range of the filters' log-uniform step sizes. Up to 1, the bank also holds
        fast-decaying, local filters that see local shape, and the filters TDI leaves
        unaligned see every frequency up to 0.5 cycles/sample. Rarely worth changing; how
        the range was chosen: ``docs/kernel_regime.md``.
    batch_size : int, default=256
        Series filtered at once (bounds memory; the fitted features do not depend on it).
    random_state : int, RandomState instance or None, default=None
        Seeds the subsample, the output vectors C, the step sizes and the mode jitter.

    Attributes
    ----------
    task_spectrum_ : TaskSpectrum or None
        The statistic TDI aligned to (None for a named ``init``).
    tdi_report_ : TDIReport or None
        Peaks found, modes per peak, alignment loss (None for a named ``init``).
    init_report_ : dict
        The initialization decision (requested and chosen init, reliability, significant
        bins, share of aligned channels, reason) and what the bank starts from, as for
        :class:`~sktdi.SSMClassifier`: ``applied``, the initialization its modes hold, and
        ``n_aligned_channels``, the filters TDI aligned ("s4d-lin" and 0 where TDI stood
        down, and ``reason`` then begins with "tdi stood down").
    layer_ : sktdi.ssm.S4D
        The filter bank (float64, D = 0).
    biases_ : ndarray of shape (n_channels, n_filters, n_biases)
        The PPV (and MultiRocket pooling) thresholds.
    difference_biases_ : ndarray of shape (n_channels, n_filters, n_biases)
        The thresholds for the first difference (when its features are appended).
    n_features_in_ : int
        Length of the series for 2-D input, number of channels for 3-D input.
    n_channels_, n_timepoints_ : int
        Channels and length of the series seen in ``fit`` (the padded length for series of
        unequal length).

    See Also
    --------
    sktdi.tdi.fisher_log_power : The classification statistic.
    sktdi.tdi.cross_spectrum : The regression statistic.
    sklearn.kernel_approximation.RBFSampler : A random, task-agnostic feature map.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import RidgeClassifierCV
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sktdi import SpectralAlignmentTransformer
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> t = np.arange(100)
    >>> X = rng.normal(size=(60, 100)) + y[:, None] * np.sin(2 * np.pi * 0.3 * t)
    >>> model = make_pipeline(SpectralAlignmentTransformer(random_state=0), StandardScaler(),
    ...                       RidgeClassifierCV())
    >>> model.fit(X[::2], y[::2]).score(X[1::2], y[1::2])
    1.0
    """

    _parameter_constraints: dict = {
        "n_filters": [Interval(Integral, 1, None, closed="left")],
        "d_state": [Interval(Integral, 2, None, closed="left")],
        "init": [StrOptions({*TDI_INITS, *INIT_NAMES})],
        "features": [StrOptions({"stats", "multirocket", "sequence"})],
        "n_biases": [Interval(Integral, 0, None, closed="left")],
        "difference": ["boolean", StrOptions({"auto"})],
        "task": [StrOptions({"auto", "classification", "regression"})],
        "tdi": [None, TDIOptions],
        "dt_min": [Interval(Real, 0, None, closed="neither")],
        "dt_max": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    # parameters that may change after fit: a memory setting, and the seed, which only drew
    # the fitted values (an int replaces a RandomState, which no file holds, before saving);
    # the others must still be the fit's when the transformer is saved
    # (sktdi.persistence.remember_fit_parameters)
    _free_after_fit = ("batch_size", "random_state")
    _option_groups = {"tdi": TDIOptions}
    # files saved before the option group (sktdi.persistence.current_params maps them)
    _parameters_moved = FLAT_TDI_PARAMETERS

    # the fitted state, checked on load before anything reads it (sktdi.persistence.declared): the
    # compiled scans index the biases with the bank's sizes unchecked
    _declared_state = {
        **INPUT_RECORD_STATE,
        "_n_features_out": "int",
        PARAMETERS_AT_FIT: "data?",  # absent from files written before the record existed
        "init_report_": "data",
        "task_spectrum_": "sktdi.tdi.TaskSpectrum | None",
        "tdi_report_": "sktdi.tdi.TDIReport | None",
        "layer_": "s4d_layer(d_model=n_filters, d_state=d_state)",
        "biases_": "float64[n_channels_, n_filters, n_bias_columns]",
        "difference_biases_": "float64[n_channels_, n_filters, n_bias_columns]?",
    }

    def _declared_dims(self) -> dict:
        """The sizes the declared state is checked with that follow from the parameters:
        the biases per filter, and the feature count that the ridge models' feature matrix
        is laid out by."""
        if self.features == "stats":
            per_filter = len(STATISTICS) + self.n_biases
        elif self.features == "multirocket":
            per_filter = len(MULTIROCKET_POOLINGS) * self.n_biases
        else:
            per_filter = self.n_timepoints_
        n_representations = 2 if self._difference() else 1
        return {
            **input_dims(self),
            "n_bias_columns": 0 if self.features == "sequence" else self.n_biases,
            "_n_features_out": n_representations * self.n_channels_ * self.n_filters * per_filter,
        }

    def _loaded_problem(self) -> str | None:
        """Why the loaded state cannot be one that ``fit`` made, or None (sktdi.persistence's
        hook, after the declared shapes): the difference's biases exactly when it is
        filtered."""
        if ("difference_biases_" in vars(self)) != self._difference():
            return (
                f"difference_biases_ is {'present' if self._difference() is False else 'absent'}"
                f" with difference={self.difference!r} and features={self.features!r}"
            )
        return None

    @keyword_only
    def __init__(
        self,
        *,
        n_filters=128,
        d_state=16,
        init="tdi",
        features="stats",
        n_biases=8,
        difference="auto",
        task="auto",
        tdi=None,
        dt_min=1e-2,
        dt_max=1.0,
        batch_size=256,
        random_state=None,
    ):
        self.n_filters = n_filters
        self.d_state = d_state
        self.init = init
        self.features = features
        self.n_biases = n_biases
        self.difference = difference
        self.task = task
        self.tdi = tdi
        self.dt_min = dt_min
        self.dt_max = dt_max
        self.batch_size = batch_size
        self.random_state = random_state

    @restore_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    @default_threads
    def fit(self, X, y=None, lengths=None):
        """Estimate the task spectrum and build the aligned filter bank.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            A list may hold series of unequal length, each (length_i,) or (n_channels,
            length_i).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels or regression targets; required when ``init`` is a TDI init and no
            ``tdi.spectrum`` is given.
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X: the padding is left
            out of the task statistic, the biases and the features.

        Returns
        -------
        self : object
        """
        remember_fit_parameters(self)
        check_state_params(self.d_state, self.dt_min, self.dt_max)
        if self.features == "sequence" and self._difference():
            raise ValueError(
                "difference=True appends pooled features of the first difference; it needs "
                "features='stats' or 'multirocket', not 'sequence'"
            )
        if self.features == "multirocket" and self.n_biases == 0:
            raise ValueError(
                "features='multirocket' pools at fitted biases: n_biases must be at least 1"
            )
        options = resolve_options(self.tdi, TDIOptions)
        init = read_init(self.init, options.spectrum)  # the bank's base init; warns if ignored
        needs_y = self._needs_y()
        if needs_y:
            X, y, lengths = validate_padded_sequences(
                self, X, y, lengths=lengths, reset=True, multi_output=True, y_numeric=False
            )
        else:
            X, _, lengths = validate_padded_sequences(self, X, lengths=lengths, reset=True)
        _check_sequence_features_length(self.features, lengths, X.shape[-1], X.shape[-1])
        _check_bank_length(_shortest_length(X, lengths), self.difference, self._difference())
        X = _zero_padding(X, lengths)
        # independent streams: the bank's base modes, TDI, the bias sample
        seeds = spawn_seeds(self.random_state, 3)
        self.layer_ = S4D(
            self.n_filters,
            self.d_state,
            init=init.base,
            dt_min=self.dt_min,
            dt_max=self.dt_max,
            generator=torch.Generator().manual_seed(seeds[0]),
            dtype=torch.float64,
        )
        task = self.task
        target = None
        if needs_y:
            task = infer_task(y) if task == "auto" else task
            if task == "classification":
                target = np.unique(y, return_inverse=True)[1].ravel()  # (n,) class codes
            else:
                target = np.asarray(y, dtype=np.float64).reshape(len(y), -1)  # (n, M)
        plan, reports = initialize_layers(
            [self.layer_],
            X if needs_y else None,
            target,
            init=init,
            task=task,
            options=options,
            random_state=seeds[1],
            lengths=lengths if needs_y else None,
            trained=False,  # the bank is never trained: coverage="auto" moves the least
        )
        self.task_spectrum_ = plan.spectrum
        self.init_report_ = plan.report(reports)
        self.tdi_report_ = reports[0] if reports else None
        with torch.no_grad():
            self.layer_.D.zero_()  # a pure filter bank: no skip connection
        self.layer_.requires_grad_(False)
        bias_rng = np.random.RandomState(seeds[2])
        self.biases_ = self._fit_biases(X, lengths, bias_rng)
        if self._difference():  # drawn after the series' own: those stay as without it
            self.difference_biases_ = self._fit_biases(X, lengths, bias_rng, difference=True)
        if self.features == "stats":
            per_filter = len(STATISTICS) + self.n_biases
        elif self.features == "multirocket":
            per_filter = len(MULTIROCKET_POOLINGS) * self.n_biases
        else:
            per_filter = X.shape[-1]
        n_representations = 2 if self._difference() else 1
        self._n_features_out = n_representations * X.shape[1] * self.n_filters * per_filter
        return self

    def _fixed_length_reason(self) -> str | None:
        """Why this transformer needs series of the fit's length (None: pooled features take
        any length with their lengths), for the length error of :mod:`sktdi.utils.validation`."""
        if self.features != "sequence":
            return None
        return (
            "features='sequence' returns one feature per time step, so it needs series of the "
            "length seen in fit (pooled features, features='stats' or 'multirocket', take "
            "series of any length with their lengths)"
        )

    def _min_series_length(self) -> int:
        """The fewest time steps a series may have here (2 where the bank also filters the
        first difference), for the length error of :mod:`sktdi.utils.validation`."""
        return 2 if self._difference() else 1

    def _difference(self) -> bool:
        """Whether the first difference's features are appended (``difference`` resolved)."""
        if self.difference == "auto":
            return self.features != "sequence"
        return bool(self.difference)

    def _needs_y(self) -> bool:
        # not validated here: the tags read it too, before any fit checks the options
        spectrum = getattr(self.tdi, "spectrum", None)
        return read_init(self.init).tdi is not None and spectrum is None

    def _filter(self, X: np.ndarray):
        """Yield the filtered batches of X, each (b, n_channels, n_filters, length). The
        filters are causal: a padded series' own steps are filtered as without the padding."""
        n, n_channels, length = X.shape
        K = self.layer_.kernel(length)  # (H, L)
        for start in range(0, n, self.batch_size):
            u = torch.tensor(X[start : start + self.batch_size], dtype=torch.float64)  # (b, C, L)
            b = u.shape[0]
            filtered = fft_conv(u.reshape(b * n_channels, length, 1), K)  # (b·C, L, H)
            yield filtered.transpose(1, 2).reshape(b, n_channels, self.n_filters, length)

    def _fit_biases(
        self, X: np.ndarray, lengths: np.ndarray | None, rng, difference: bool = False
    ) -> np.ndarray:
        """PPV thresholds (n_channels, n_filters, n_biases): quantiles of each filter's output
        on (a sample of) the training series (or their first differences), over their own
        time steps."""
        n, n_channels, _ = X.shape
        if self.features == "sequence" or self.n_biases == 0:
            return np.zeros((n_channels, self.n_filters, 0))
        rows = np.sort(rng.choice(n, size=min(n, BIAS_ROWS), replace=False))
        # the outputs of the sampled series laid end to end, evenly thinned
        values = sample_outputs(
            X[rows],
            None if lengths is None else lengths[rows],
            *self._modes(),
            at_most=BIAS_SAMPLE,
            difference=difference,
        )  # (C, H, ≤ BIAS_SAMPLE)
        levels = (np.arange(self.n_biases) + 0.5) / self.n_biases
        return quantiles(values, levels)  # (C, H, Q)

    def _modes(self) -> tuple[np.ndarray, np.ndarray]:
        """(Ā, CB̄), complex (n_filters, d_state // 2): the bank's filters, as the scans of
        :mod:`sktdi.fast_path.scan` run them."""
        _, A_bar, CB_bar = self.layer_.discrete()
        return A_bar.detach().numpy(), CB_bar.detach().numpy()

    @default_threads
    def transform(self, X, lengths=None):
        """Filter X with the bank and return the features.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            Same channel count as in ``fit``. Pooled features take any length, and a list of
            series of unequal length; ``features="sequence"`` needs the length seen in ``fit``.
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X. Needed for series
            padded as in ``fit``: without them, series that end as the fit's padding did
            warn (:class:`~sktdi.PaddedSeriesWarning`), their padding read as signal.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features_out)
        """
        check_is_fitted(self)
        X, _, lengths = validate_padded_sequences(self, X, lengths=lengths, reset=False)
        return self._transform(X, lengths)

    def _transform(
        self, X: np.ndarray, lengths: np.ndarray | None, dtype=np.float64, out=None
    ) -> np.ndarray:
        """:meth:`transform` of validated X (n, C, L) and lengths (the ridge models' entry:
        they validated X already, with the lengths a list of series carries), the pooled
        features stored as ``dtype``, or written into ``out`` (n, F), a column block of the
        caller's feature matrix."""
        _check_sequence_features_length(self.features, lengths, X.shape[-1], self.n_timepoints_)
        _check_bank_length(_shortest_length(X, lengths), self.difference, self._difference())
        if self.features == "sequence":
            X = _zero_padding(X, lengths)  # the FFT reads the whole padded series
            return np.concatenate(
                [
                    (filtered / math.sqrt(X.shape[-1])).reshape(len(filtered), -1).numpy()
                    for filtered in self._filter(X)
                ]
            )  # (n, C·H·L)
        representations = [(self.biases_, False)]  # the series', then their differences'
        if self._difference():
            representations.append((self.difference_biases_, True))
        # pooled: one compiled pass per representation, nothing held per time step; each
        # series stops at its own length, so its padding is never read
        return scan_features(
            X,
            lengths,
            *self._modes(),
            representations,
            multirocket=self.features == "multirocket",
            out_dtype=dtype,
            out=out,
        )  # (n, F)

    def fit_transform(self, X, y=None, lengths=None):
        """``fit(X, y, lengths=lengths).transform(X, lengths=lengths)``: scikit-learn's
        would not pass ``lengths`` on to ``transform``."""
        return self.fit(X, y, lengths=lengths).transform(X, lengths=lengths)

    def get_feature_names_out(self, input_features=None):
        """Names "c{channel}_f{filter}_{statistic}" or "c{channel}_f{filter}_t{step}"; the
        first difference's features (with ``difference``) follow, prefixed ``diff_``."""
        check_is_fitted(self)
        if self.features == "stats":
            last = list(STATISTICS) + [f"ppv{j}" for j in range(self.n_biases)]
        elif self.features == "multirocket":
            last = [f"{p}{j}" for j in range(self.n_biases) for p in MULTIROCKET_POOLINGS]
        else:
            last = [f"t{k}" for k in range(self.n_timepoints_)]
        prefixes = ["", "diff_"] if self._difference() else [""]
        return np.asarray(
            [
                f"{prefix}c{c}_f{h}_{s}"
                for prefix in prefixes
                for c in range(self.n_channels_)
                for h in range(self.n_filters)
                for s in last
            ],
            dtype=object,
        )

    def frequency_response(self, n_freqs: int = 512) -> tuple[np.ndarray, np.ndarray]:
        """(freqs (n_freqs,) in cycles/sample, ``|H|`` (n_filters, n_freqs)) of the filter bank."""
        check_is_fitted(self)
        freqs, magnitude = self.layer_.frequency_response(n_freqs)
        return freqs.numpy(), magnitude.numpy()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.target_tags.required = self._needs_y()
        return tags
