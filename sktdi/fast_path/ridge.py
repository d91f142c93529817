"""The fast path in one line: the untrained, task-aligned filter bank with a ridge head.

:class:`SpectralRidgeClassifier` and :class:`SpectralRidgeRegressor` are the pipeline
``SpectralAlignmentTransformer → StandardScaler → RidgeClassifierCV / RidgeCV`` as single
estimators, the way sktime's ``RocketClassifier`` wraps MiniRocket. Nothing is trained but the
ridge head, so a fit takes a small fraction of ``SSMClassifier``'s training time.
``rocket="minirocket"`` also appends sktime's MiniRocket features of the raw series (the
alignment sees the spectrum, the dilated kernels the local shape).

Series of unequal length come as a list of series or as right-padded X with ``lengths``, as
for the transformer (MiniRocket's features excepted: sktime's MiniRocketMultivariate needs
series of one length). A model fitted with ``lengths`` warns (:class:`~sktdi.PaddedSeriesWarning`)
when asked to predict or score series that end as the fit's padding did, without ``lengths``.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..persistence import PARAMETERS_AT_FIT, SaveMixin, remember_fit_parameters
from ..persistence.declared import input_dims
from ..tdi import TDIOptions, read_init
from ..utils.inputs import (
    _caller_stacklevel,
    amplitude_carries_task,
    amplitude_spread,
    fit_reference,
    shape_and_amplitude,
    valid_mask,
)
from ..utils.options import HasOptionGroups, resolve_options
from ..utils.seeding import spawn_seeds
from ..utils.threads import default_threads
from ..utils.validation import (
    INPUT_RECORD_STATE,
    check_two_classes,
    keyword_only,
    restore_on_error,
    validate_padded_sequences,
)
from .rocket import (
    MINIROCKET_KERNELS,
    ROCKET_MIN_LENGTH,
    _check_rocket_lengths,
    _is_variable,
    _minirocket_problem,
    _rocket_transformer,
    _run_rocket,
    quant_features,
    quant_width,
)
from .transformers import SpectralAlignmentTransformer

# RocketClassifier's grid, so that the two heads are tuned alike
DEFAULT_ALPHAS = np.logspace(-3, 3, 10)
# the transformer's parameters the ridge models pass on unchanged
BANK_PARAMETERS = (
    "n_filters", "d_state", "init", "tdi", "n_biases", "difference", "dt_min", "dt_max",
    "batch_size", "random_state",
)
# MiniRocket's features in all (its own default), split evenly between the series and its
# first difference when the bank filters that (benchmarks/tdi_studies/choose_transformer_defaults.py,
# round 11: the split kept the accuracy of two full sets in about 70% of their time)
ROCKET_FEATURES = 10_000


# what a fitted model's MiniRocket may be (_rocket_transformer), as its saved state declares
_ROCKET_TYPES = (
    "sktime.MiniRocket | sktime.MiniRocketMultivariate | sktime.MiniRocketMultivariateVariable "
    "| None"
)


class _SpectralRidge(HasOptionGroups, SaveMixin, BaseEstimator):
    """What the classifier and the regressor share: the features, and their scaling."""

    _task: str  # the TDI statistic: "classification" or "regression"
    _feature_dtype: type  # the features', the scaler's and the ridge head's float type
    _clip_features = False
    # parameters that may change after fit: a memory setting, and the seed, which only drew
    # the fitted values (an int replaces a RandomState, which no file holds, before saving);
    # the others must still be the fit's when the model is saved
    # (sktdi.persistence.remember_fit_parameters)
    _free_after_fit = ("batch_size", "random_state")
    _option_groups = {"tdi": TDIOptions}
    # files saved before the option group (sktdi.persistence.current_params maps it)
    _parameters_moved = {"tdi_spectrum": "tdi__spectrum"}

    # the fitted state, checked on load before anything reads it (sktdi.persistence.declared): the
    # feature matrix is laid out by the bank's and MiniRocket's feature counts, which the
    # scaler and the head must take
    _declared_state = {
        **INPUT_RECORD_STATE,
        PARAMETERS_AT_FIT: "data?",
        "transformer_": (
            "sktdi.SpectralAlignmentTransformer(n_channels_=n_channels_, "
            "_n_features_out=n_bank_features)"
        ),
        "rocket_": _ROCKET_TYPES,
        "difference_rocket_": _ROCKET_TYPES,
        # the length QUANT's features were fitted on (rocket="minirocket+quant", series of one
        # length); absent from files saved before it (issue 77): None
        "quant_length_": "int | None?",
        "scaler_": "sklearn.preprocessing.StandardScaler(n_features_in_=n_features)",
        # absent from files saved before the fast path read each series' shape (issue 64)
        "input_reference_": "float64[n_channels_] | None?",
        "input_amplitude_": "int64[n_amplitude] | None?",
    }

    def _head_problem(self) -> str | None:
        """Hook: why the ridge head does not fit the model's outputs, or None."""
        return None

    def _declared_dims(self) -> dict:
        """The width of the feature matrix: the bank's features, then MiniRocket's (84 per
        feature of each dilation), checked first (its arrays are indexed unchecked)."""
        n_features = self.transformer_._n_features_out
        for name in ("rocket_", "difference_rocket_"):
            rocket = vars(self)[name]
            if rocket is None:
                continue
            problem = _minirocket_problem(vars(rocket).get("parameters"), self.n_channels_)
            if problem is not None:
                raise ValueError(problem)
            per_dilation = rocket.parameters[-2]
            n_features += MINIROCKET_KERNELS * int(per_dilation.sum(dtype=np.int64))
        if vars(self).get("quant_length_") is not None:
            n_features += quant_width(self.n_channels_, self.quant_length_)
        if vars(self).get("input_reference_") is not None:  # each channel's level and scale
            n_features += 2 * self.n_channels_
        return {
            **input_dims(self),
            "n_timepoints_": self.transformer_.n_timepoints_,  # MiniRocket's length check
            "n_bank_features": self.transformer_._n_features_out,
            "n_features": n_features,
        }

    def _loaded_problem(self) -> str | None:
        """Why the loaded MiniRockets (``rocket_``, ``difference_rocket_``) cannot be the ones
        the fit made, or None (sktdi.persistence's hook: the file was altered)."""
        bank = self.transformer_
        for name in ("n_filters", "d_state", "n_biases", "features", "difference"):
            if getattr(bank, name) != getattr(self, name):
                return f"transformer_'s {name} differs from the model's"
        # the head computes in the features' float type (a float64 head would change the
        # float32 classifier's scores in their last bits)
        for name in ("coef_", "intercept_"):
            value = getattr(self.ridge_, name)
            if isinstance(value, np.ndarray) and value.dtype != self._feature_dtype:
                return f"ridge_.{name} is {value.dtype}, not {np.dtype(self._feature_dtype)}"
        problem = self._head_problem()
        if problem is not None:
            return problem
        quant_length = vars(self).get("quant_length_")
        if quant_length is not None and (
            self.rocket != "minirocket+quant" or quant_length != self.transformer_.n_timepoints_
        ):
            return "quant_length_ is not the fit's: rocket='minirocket+quant' on its series' length"
        rockets = (self.rocket_, self.difference_rocket_)
        if self.rocket is None and any(rocket is not None for rocket in rockets):
            return "the model holds a MiniRocket with rocket=None"
        for name in ("rocket_", "difference_rocket_"):
            rocket = vars(self).get(name)
            if rocket is None:
                continue
            n_channels = vars(self).get("n_channels_")
            if type(n_channels) is not int or n_channels < 1:
                return f"n_channels_ is {n_channels!r}, not a channel count"
            # the fit's choice (_rocket_transformer): variable-length for unequal lengths,
            # else univariate for one channel
            expected = "MiniRocket" if n_channels == 1 else "MiniRocketMultivariate"
            if _is_variable(rocket):
                expected = "MiniRocketMultivariateVariable"
            try:
                from sktime.transformations import rocket as rockets
            except ImportError:  # then the file's rocket_ is no MiniRocket
                rockets = None
            if rockets is None or type(rocket) is not getattr(rockets, expected):
                return f"{name} is a {type(rocket).__name__}, not sktime's {expected}"
            reference = vars(rocket).get("_fitted_reference_length")
            if _is_variable(rocket) and type(reference) is not int:
                return f"{name}'s reference length is not a whole number of steps"
            problem = _minirocket_problem(vars(rocket).get("parameters"), n_channels)
            if problem is not None:
                return problem
        return None

    # the bank's parameters are validated as the transformer validates them (one home)
    _parameter_constraints: dict = {
        **{
            name: SpectralAlignmentTransformer._parameter_constraints[name]
            for name in BANK_PARAMETERS
        },
        "features": [StrOptions({"stats", "multirocket"})],  # the head needs pooled features
        "rocket": [None, StrOptions({"minirocket", "minirocket+quant"})],
        "input_scaling": [StrOptions({"channel", "series+scale"})],
        "alphas": [None, "array-like"],
    }
    # files saved before input_scaling existed read the series as given
    _value_before_parameter_existed = {"input_scaling": "channel"}

    @keyword_only
    def __init__(
        self,
        *,
        n_filters=128,
        d_state=16,
        init="tdi",
        tdi=None,
        features="stats",
        n_biases=8,
        difference="auto",
        dt_min=1e-2,
        dt_max=1.0,
        rocket=None,
        input_scaling="series+scale",
        alphas=None,
        batch_size=256,
        random_state=None,
    ):
        self.n_filters = n_filters
        self.d_state = d_state
        self.init = init
        self.tdi = tdi
        self.features = features
        self.n_biases = n_biases
        self.difference = difference
        self.dt_min = dt_min
        self.dt_max = dt_max
        self.rocket = rocket
        self.input_scaling = input_scaling
        self.alphas = alphas
        self.batch_size = batch_size
        self.random_state = random_state

    @default_threads
    def _fit_features(self, X: np.ndarray, y: np.ndarray, lengths) -> np.ndarray:
        """Fit the bank (and MiniRocket) and the scaler on validated X (n, C, L); return the
        scaled training features."""
        remember_fit_parameters(self)
        # here, not in the transformer, which is given no spectrum then: one warning
        init = read_init(self.init, resolve_options(self.tdi, TDIOptions).spectrum)
        # independent streams for the bank and MiniRocket's biases (series, difference)
        seeds = spawn_seeds(self.random_state, 3)
        bank = {name: getattr(self, name) for name in BANK_PARAMETERS}
        bank["random_state"] = seeds[0]
        if init.tdi is None:
            bank["tdi"] = None  # ignored, and said so above: the bank need not repeat it
        elif self.tdi is not None:
            # the bank's own copy: set_params(tdi__...) on this model after fit must not
            # change the fitted bank's parameters (the given spectrum stays the same object)
            bank["tdi"] = copy.copy(self.tdi)
        transformer = SpectralAlignmentTransformer(**bank, features=self.features, task=self._task)
        difference = transformer._difference()  # "auto": the series' first difference too
        # series of unequal length: a short one is extended for MiniRocket (_frames); of
        # one length, all must be long enough
        shortest = ROCKET_MIN_LENGTH + difference
        if self.rocket is not None and lengths is None and X.shape[-1] < shortest:
            raise ValueError(
                f"rocket={self.rocket!r} needs series of at least {shortest} time steps "
                f"(MiniRocket's kernel length"
                + (", on the first difference too" if difference else "")
                + f"); got {X.shape[-1]}"
                + ("; pass difference=False for the series alone" if difference else "")
            )
        # "series+scale": each series' level and scale are features of their own
        # (_raw_features); the bank and MiniRocket read each series' shape, so that a gain or
        # an offset per recording moves those two features and no other, unless the training
        # set shows the level or scale to relate to the target: then the amplitude is
        # signal, in every feature. "channel": the series as given
        self.input_reference_ = self.input_amplitude_ = None
        if self.input_scaling == "channel":
            self._warn_if_amplitude_is_nuisance(X, y, lengths)
        if self.input_scaling == "series+scale":
            self.input_reference_ = fit_reference(X, lengths)
            shape, amplitude = shape_and_amplitude(X, lengths, self.input_reference_)
            self.input_amplitude_ = amplitude_carries_task(amplitude, y, self._task)
            X = self._read(X, lengths, shape)
        else:
            amplitude = None
        self.transformer_ = transformer.fit(X, y, lengths=lengths)
        self.rocket_ = self.difference_rocket_ = None
        if self.rocket is not None:
            # MiniRocket's feature budget, shared by the series and its difference
            n_features = ROCKET_FEATURES // (1 + difference)
            unequal = lengths is not None
            self.rocket_ = _run_rocket(
                "fit", _rocket_transformer(seeds[1], X.shape[1], n_features, unequal),
                X, lengths, False,
            )
            if difference:  # as MultiRocket does: the difference's shapes too
                self.difference_rocket_ = _run_rocket(
                    "fit", _rocket_transformer(seeds[2], X.shape[1], n_features, unequal),
                    X, lengths, True,
                )
        # QUANT's quantiles of the series, its differences and its spectrum (issue 77): for
        # series of one length (its intervals are the length's); unequal ones keep MiniRocket's
        quant = self.rocket == "minirocket+quant"
        one_length = lengths is None or bool(np.all(lengths == X.shape[-1]))
        self.quant_length_ = X.shape[-1] if quant and one_length else None
        if quant and not one_length:
            warnings.warn(
                f"{type(self).__name__}: rocket='minirocket+quant' adds QUANT's features to "
                f"series of one length; these have {int(lengths.min())} to "
                f"{int(lengths.max())} time steps, so the model has MiniRocket's alone",
                UserWarning,
                stacklevel=_caller_stacklevel(),
            )
        # the scale of a feature is no information: PPVs are fractions, the statistics are
        # in the series' units, MiniRocket's are counts; the ridge penalty needs them alike
        # in place (copy=False): the features are this model's own fresh array, and a copy of
        # (n, F) doubled the time and the peak memory of multichannel fits
        self.scaler_ = StandardScaler(copy=False)
        features = self.scaler_.fit_transform(self._raw_features(X, lengths, amplitude))
        if self._clip_features:
            # the training range of each scaled feature: new series are clipped to it
            self.feature_range_ = np.stack([features.min(axis=0), features.max(axis=0)])  # (2, F)
        return features

    def _warn_if_amplitude_is_nuisance(self, X, y, lengths) -> None:
        """Warn where the training series' scales or levels differ widely and relate to
        nothing in the target (a gain or an offset per recording): ``"series+scale"`` would
        read their shapes. Where they relate to it, they are signal, and the series are read
        as given either way: nothing to say."""
        amplitudes = amplitude_spread(X, lengths)
        if amplitudes is None:
            return
        amplitude = shape_and_amplitude(X, lengths, fit_reference(X, lengths))[1]
        if amplitude_carries_task(amplitude, y, self._task).size:
            return
        warnings.warn(
            f"{type(self).__name__}: {amplitudes}, and they do not relate to the target: a "
            f"gain or an offset per recording (raw recordings, units that differ by device) "
            f"moves every feature. Pass input_scaling='series+scale' (each series' shape, its "
            f"level and scale as two features)",
            UserWarning,
            stacklevel=_caller_stacklevel(),
        )

    def _shape_and_amplitude(self, X: np.ndarray, lengths):
        """What the bank and MiniRocket read, (n, C, L): each series' shape, its padding
        zero, or X as it is where the fit found the amplitude to be signal
        (``input_amplitude_`` not empty); and each series' level and scale (n, 2C)
        (:func:`~sktdi.utils.inputs.shape_and_amplitude`). X as it is, and no amplitude, for
        a model saved before the fast path read shapes."""
        reference = vars(self).get("input_reference_")
        if reference is None:
            return X, None
        shape, amplitude = shape_and_amplitude(X, lengths, reference)
        return self._read(X, lengths, shape), amplitude

    def _read(self, X: np.ndarray, lengths, shape: np.ndarray) -> np.ndarray:
        """Of X and its series' ``shape``, what the bank and MiniRocket read: X where the fit
        found the amplitude to be signal (``input_amplitude_`` not empty), else the shape,
        its padding zero."""
        if len(vars(self)["input_amplitude_"]):
            return X
        if lengths is not None:
            shape *= valid_mask(shape, lengths)
        return shape

    def _raw_features(self, X: np.ndarray, lengths, amplitude) -> np.ndarray:
        """The features (n, F) of the series' shapes X (:meth:`_shape_and_amplitude`): the
        bank's, MiniRocket's, QUANT's, then each channel's level and scale (``amplitude``)."""
        rockets = []  # MiniRocket's features of the series, then of its difference; QUANT's
        for rocket, difference in ((self.rocket_, False), (self.difference_rocket_, True)):
            if rocket is not None:
                features = _run_rocket("transform", rocket, X, lengths, difference)
                rockets.append(np.asarray(features))  # (n, F_mr)
        if vars(self).get("quant_length_") is not None:
            rockets.append(quant_features(X))  # (n, F_quant)
        # one (n, F) matrix that every block is written into: no stacking copy
        n_bank = self.transformer_._n_features_out
        n_amplitude = 0 if amplitude is None else amplitude.shape[1]
        features = np.empty(
            (len(X), n_bank + sum(block.shape[1] for block in rockets) + n_amplitude),
            self._feature_dtype,
        )  # (n, F)
        self.transformer_._transform(X, lengths, out=features[:, :n_bank])
        start = n_bank
        for block in rockets + ([] if amplitude is None else [amplitude]):
            features[:, start : start + block.shape[1]] = block
            start += block.shape[1]
        return features

    @default_threads
    def _features(self, X, lengths) -> np.ndarray:
        check_is_fitted(self)
        X, _, lengths = validate_padded_sequences(self, X, lengths=lengths, reset=False)
        _check_rocket_lengths(self.rocket_, X, lengths, self.n_timepoints_)
        X, amplitude = self._shape_and_amplitude(X, lengths)
        features = self.scaler_.transform(self._raw_features(X, lengths, amplitude))  # (n, F)
        if self._clip_features:
            np.clip(features, *self.feature_range_, out=features)
        return features

    def _min_series_length(self) -> int:
        """The fewest time steps a series may have here: its filter bank's."""
        return self.transformer_._min_series_length()

    def _fixed_length_reason(self) -> str | None:
        """Why this model needs series of the fit's length (None: it takes any length with
        their lengths), for the length error of :mod:`sktdi.utils.validation`."""
        if self.rocket is None or _is_variable(self.rocket_):
            return None
        return (
            f"rocket={self.rocket!r} fitted on series of one length needs series of that "
            f"length, as sktime's MiniRocketMultivariate does (fitted on series of unequal "
            f"length, it takes any lengths; rocket=None takes any length with their lengths)"
        )

    @property
    def init_report_(self) -> dict:
        """The bank's ``init_report_`` (what TDI decided and what the filters start from),
        here as on the SSM models. The bank is seeded from this model's ``random_state``
        through a stream of its own, so its reliability, estimated on random split halves,
        differs from a SpectralAlignmentTransformer's given the same ``random_state``."""
        check_is_fitted(self)
        return self.transformer_.init_report_

    def _alphas(self) -> np.ndarray:
        return DEFAULT_ALPHAS if self.alphas is None else np.asarray(self.alphas, dtype=float)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags


class SpectralRidgeClassifier(ClassifierMixin, _SpectralRidge):
    """Task-aligned S4D filter bank features with a cross-validated ridge classifier.

    One estimator for the pipeline ``SpectralAlignmentTransformer(task="classification") →
    StandardScaler → RidgeClassifierCV(alphas)``; only the ridge head is trained. The bank's
    parameters are those of :class:`~sktdi.SpectralAlignmentTransformer`; with ``init="s4d-lin"``
    the same features come from an S4D-Lin bank, which shows what the alignment adds.

    Parameters
    ----------
    n_filters, d_state, init, features, n_biases, difference, batch_size
        As for :class:`~sktdi.SpectralAlignmentTransformer` (``features`` is "stats" or
        "multirocket": the head needs pooled features).
    tdi : TDIOptions or None, default=None
        How TDI aligns the bank (:class:`~sktdi.tdi.TDIOptions`; None: its defaults). Give
        ``TDIOptions(spectrum=...)`` when the training set is too small for a reliable
        estimate of the statistic (:doc:`/choosing_init`).
    dt_min, dt_max : float, default=0.01, 1.0
        Range of the filters' log-uniform step sizes. Up to 1, the bank also holds
        fast-decaying, local filters that see local shape, with poles over the whole band.
        Rarely worth changing; how the range was chosen: ``docs/kernel_regime.md``.
    rocket : {None, "minirocket", "minirocket+quant"}, default=None
        Also append sktime's MiniRocket features of the series and, with ``difference``, of
        its first difference (needs sktime, and at least 9 time steps, 10 with the
        difference); "minirocket+quant" also aeon's QUANT features (interval quantiles; needs
        aeon) for series of one length.
    input_scaling : {"series+scale", "channel"}, default="series+scale"
        "series+scale": the bank and MiniRocket read each series' shape, and each channel's
        level and scale are two features; where those relate to the target
        (``input_amplitude_``) the series are read as given: raw gains and offsets held
        (:doc:`/raw_data`). "channel": the series as given.
    alphas : array-like or None, default=None
        Ridge penalties tried by leave-one-out CV; None is ``np.logspace(-3, 3, 10)``, as in
        sktime's ``RocketClassifier``.
    random_state : int, RandomState instance or None, default=None
        Seeds the bank and MiniRocket.

    Attributes
    ----------
    transformer_ : SpectralAlignmentTransformer
        The fitted filter bank.
    init_report_ : dict
        The bank's initialization report, ``transformer_.init_report_``: requested, chosen
        and ``applied`` init, ``n_aligned_channels``, the reason ("tdi stood down: ..." where
        TDI aligned no filter), as for :class:`~sktdi.SSMClassifier`.
    rocket_, difference_rocket_ : sktime MiniRocket (one channel), MiniRocketMultivariate or None
        The fitted MiniRocket transformers of the series and of its first difference
        (``rocket="minirocket"``; the second with ``difference``).
    quant_length_ : int or None
        The length QUANT's features were fitted on (``rocket="minirocket+quant"``, series of
        one length); QUANT draws nothing at random, so the model keeps its length alone.
    input_reference_ : ndarray of shape (n_channels,) or None
        With ``input_scaling="series+scale"``, each channel's unit of level and scale (the
        median standard deviation of the training series).
    input_amplitude_ : ndarray of int or None
        With ``input_scaling="series+scale"``, the levels and scales (indices into the
        channels' levels, then scales) that relate to the training targets (p < 0.01 over the
        number tested; Kruskal-Wallis across the classes, Spearman for a regressor).
    scaler_ : StandardScaler
    ridge_ : RidgeClassifierCV
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
        Length of the series for 2-D input, number of channels for 3-D input.

    See Also
    --------
    sktdi.SSMClassifier : The trained network, for when there is time to train.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi import SpectralRidgeClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> X = rng.normal(size=(60, 100)) + y[:, None] * np.sin(2 * np.pi * 0.3 * np.arange(100))
    >>> SpectralRidgeClassifier(random_state=0).fit(X[::2], y[::2]).score(X[1::2], y[1::2])
    1.0
    """

    _task = "classification"
    _declared_state_extra = {
        "ridge_": "sklearn.linear_model.RidgeClassifierCV(n_features_in_=n_features)",
        "classes_": "labels[n_classes]",
    }

    def _head_problem(self) -> str | None:
        """The head's labels are the model's and its binarizer's, with one row of weights
        per class (one for two classes): predict indexes the labels by the scores' argmax."""
        head = self.ridge_
        for labels in (head.classes_, head._label_binarizer.classes_):
            if labels.shape != self.classes_.shape or not np.array_equal(labels, self.classes_):
                return "the ridge head's classes differ from classes_"
        rows = 1 if head.coef_.ndim == 1 else head.coef_.shape[0]
        if len(self.classes_) < 2 or rows != (1 if len(self.classes_) == 2 else len(self.classes_)):
            return f"the ridge head has {rows} rows of weights for {len(self.classes_)} classes"
        if np.size(head.intercept_) != rows:
            return f"the ridge head has {np.size(head.intercept_)} intercepts for {rows} rows"
        return None
    # float32 features, scaling and ridge head, as MiniRocket's own ridge runs: half the
    # memory and time of float64 on (n, F) matrices of ~10^4 columns, at the same
    # cross-validated accuracy (benchmarks/tdi_studies/choose_transformer_defaults.py, round 10)
    _feature_dtype = np.float32

    @restore_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Build the aligned bank on (X, y) and fit the ridge head on its features.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            A list may hold series of unequal length, each (length_i,) or (n_channels,
            length_i).
        y : array-like of shape (n_samples,)
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X: the padding changes
            no feature. Predictions need the lengths of padded series too: without them,
            series that end as this padding did warn (:class:`~sktdi.PaddedSeriesWarning`).

        Returns
        -------
        self : object
        """
        self._fit_returning_features(X, y, lengths)
        return self

    def _fit_returning_features(self, X, y, lengths=None) -> np.ndarray:
        """``fit`` past its parameter check; returns the scaled training features (n, F), which
        the one model's leave-one-out outputs read (computing them again cost a third of it)."""
        X, y, lengths = validate_padded_sequences(self, X, y, lengths=lengths, reset=True)
        check_classification_targets(y)
        # before the bank: TDI's own check speaks of its statistic, and a named init's bank
        # would fit a ridge head that predicts the one class for everything
        check_two_classes(np.unique(y))
        features = self._fit_features(X, y, lengths)  # (n, F)
        self.ridge_ = RidgeClassifierCV(alphas=self._alphas()).fit(features, y)
        self.classes_ = self.ridge_.classes_
        return features

    def decision_function(self, X, lengths=None):
        """Ridge scores, (n_samples,) for two classes, else (n_samples, n_classes);
        ``lengths`` as in ``fit``."""
        features = self._features(X, lengths)  # first: it raises NotFittedError before fit
        return self.ridge_.decision_function(features)

    def predict(self, X, lengths=None):
        """Predicted class labels, (n_samples,); ``lengths`` as in ``fit``."""
        features = self._features(X, lengths)  # first: it raises NotFittedError before fit
        return self.ridge_.predict(features)

    def score(self, X, y, sample_weight=None, lengths=None):
        """Accuracy on (X, y); ``lengths`` as in ``fit``."""
        return accuracy_score(y, self.predict(X, lengths), sample_weight=sample_weight)


class SpectralRidgeRegressor(RegressorMixin, _SpectralRidge):
    """Task-aligned S4D filter bank features with a cross-validated ridge regressor.

    The regression counterpart of :class:`SpectralRidgeClassifier`: TDI aligns the bank with
    the input–output cross-spectrum, then ``StandardScaler → RidgeCV(alphas)``. The
    parameters and attributes are the classifier's (``ridge_`` is a ``RidgeCV``), and one
    more: ``feature_range_`` (2, n_features), the smallest and largest scaled value of each
    feature in fit. New series' features are clipped to it, so that a series of another
    amplitude than the training series cannot drive the predictions far outside the
    targets the head was fitted on.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi import SpectralRidgeRegressor
    >>> rng = np.random.default_rng(0)
    >>> amplitude = rng.uniform(0, 1, size=80)
    >>> X = rng.normal(size=(80, 100)) + amplitude[:, None] * np.sin(0.6 * np.arange(100))
    >>> model = SpectralRidgeRegressor(random_state=0).fit(X[::2], amplitude[::2])
    >>> model.score(X[1::2], amplitude[1::2]) > 0.8
    True
    """

    _task = "regression"
    _declared_state_extra = {
        "ridge_": "sklearn.linear_model.RidgeCV(n_features_in_=n_features)",
        "feature_range_": "float64[2, n_features]",
    }

    def _head_problem(self) -> str | None:
        """One intercept per row of weights (per output): a 1-D head and a scalar intercept
        for one target, (outputs, features) and (outputs,) for several (the predictions'
        shape follows the head's)."""
        head = self.ridge_
        if head.coef_.ndim != 1 + np.ndim(head.intercept_) or (
            head.coef_.ndim == 2 and head.coef_.shape[0] != np.size(head.intercept_)
        ):
            return (
                f"the ridge head's weights {head.coef_.shape} do not fit its intercept "
                f"{np.shape(head.intercept_)}"
            )
        return None
    # float64: a regressor's predictions are numbers whose digits matter (scikit-learn's
    # checks ask for float64 predictions)
    _feature_dtype = np.float64
    # new series' scaled features are clipped to their training range (feature_range_): a
    # series of another amplitude (Covid3Month's counts span four orders of magnitude) then
    # cannot drive the linear head far outside the targets it was fitted on; chosen by
    # cross-validation on the training splits (benchmarks/kernel_regime/choose_ridge_regressor.py)
    _clip_features = True

    @restore_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Build the aligned bank on (X, y) and fit the ridge head on its features.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            A list may hold series of unequal length, each (length_i,) or (n_channels,
            length_i).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X: the padding changes
            no feature. Predictions need the lengths of padded series too: without them,
            series that end as this padding did warn (:class:`~sktdi.PaddedSeriesWarning`).

        Returns
        -------
        self : object
        """
        self._fit_returning_features(X, y, lengths)
        return self

    def _fit_returning_features(self, X, y, lengths=None) -> np.ndarray:
        """``fit`` past its parameter check; returns the training features, as the classifier's."""
        X, y, lengths = validate_padded_sequences(
            self, X, y, lengths=lengths, reset=True, multi_output=True, y_numeric=True
        )
        features = self._fit_features(X, y, lengths)  # (n, F)
        self.ridge_ = RidgeCV(alphas=self._alphas()).fit(features, y)
        return features

    def predict(self, X, lengths=None):
        """Predicted targets, (n_samples,) or (n_samples, n_outputs); ``lengths`` as in
        ``fit``."""
        features = self._features(X, lengths)  # first: it raises NotFittedError before fit
        return self.ridge_.predict(features)

    def score(self, X, y, sample_weight=None, lengths=None):
        """R² on (X, y), averaged uniformly over the outputs; ``lengths`` as in ``fit``."""
        return r2_score(y, self.predict(X, lengths), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
