"""The fast path in one line: the untrained, task-aligned filter bank with a ridge head.

:class:`SpectralRidgeClassifier` and :class:`SpectralRidgeRegressor` are the pipeline
``SpectralAlignmentTransformer → StandardScaler → RidgeClassifierCV / RidgeCV`` as single
estimators, the way sktime's ``RocketClassifier`` wraps MiniRocket. Nothing is trained but the
ridge head, so a fit takes a small fraction of ``SSMClassifier``'s training time.
``rocket="minirocket"`` also appends sktime's MiniRocket features of the raw series (the
alignment sees the spectrum, the dilated kernels the local shape).
"""

from __future__ import annotations


import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._seeding import spawn_seeds
from ._validation import keyword_only, validate_sequences
from .persistence import SaveMixin
from .transformers import SpectralAlignmentTransformer

# RocketClassifier's grid, so that the two heads are tuned alike
DEFAULT_ALPHAS = np.logspace(-3, 3, 10)
# the transformer's parameters the ridge models pass on unchanged
BANK_PARAMETERS = (
    "n_filters", "d_state", "init", "n_biases", "difference", "dt_min", "dt_max", "batch_size",
    "random_state",
)
# MiniRocket's kernels have 9 taps; shorter series have nothing for them to slide over
ROCKET_MIN_LENGTH = 9


def _rocket_transformer(random_state: int):
    """sktime's MiniRocket for 1..C channels, with a clear error when sktime is missing."""
    try:
        from sktime.transformations.panel.rocket import MiniRocketMultivariate
    except ImportError as exc:  # sktime is an optional dependency
        raise ImportError(
            "rocket='minirocket' uses sktime's MiniRocket: pip install 'sktdi[sktime]'"
        ) from exc
    return MiniRocketMultivariate(random_state=random_state)


class _SpectralRidge(SaveMixin, BaseEstimator):
    """What the classifier and the regressor share: the features, and their scaling."""

    _task: str  # the TDI statistic: "classification" or "regression"

    # the bank's parameters are validated as the transformer validates them (one home)
    _parameter_constraints: dict = {
        **{
            name: SpectralAlignmentTransformer._parameter_constraints[name]
            for name in BANK_PARAMETERS
        },
        "features": [StrOptions({"stats", "multirocket"})],  # the head needs pooled features
        "rocket": [None, StrOptions({"minirocket"})],
        "alphas": [None, "array-like"],
    }

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
        dt_min=1e-2,
        dt_max=1.0,
        rocket=None,
        alphas=None,
        batch_size=256,
        random_state=None,
    ):
        self.n_filters = n_filters
        self.d_state = d_state
        self.init = init
        self.features = features
        self.n_biases = n_biases
        self.difference = difference
        self.dt_min = dt_min
        self.dt_max = dt_max
        self.rocket = rocket
        self.alphas = alphas
        self.batch_size = batch_size
        self.random_state = random_state

    def _fit_features(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Fit the bank (and MiniRocket) and the scaler; return the scaled training features."""
        if X.ndim == 2:
            X = X[:, np.newaxis, :]  # (n, 1, L): MiniRocket reads 3-D panels
        if self.rocket is not None and X.shape[-1] < ROCKET_MIN_LENGTH:
            raise ValueError(
                f"rocket={self.rocket!r} needs series of at least {ROCKET_MIN_LENGTH} time "
                f"steps (MiniRocket's kernel length); got {X.shape[-1]}"
            )
        # independent streams for the bank and MiniRocket's biases
        seeds = spawn_seeds(self.random_state, 2)
        bank = {name: getattr(self, name) for name in BANK_PARAMETERS}
        self.transformer_ = SpectralAlignmentTransformer(
            **{**bank, "random_state": seeds[0]}, features=self.features, task=self._task
        ).fit(X, y)
        self.rocket_ = None
        if self.rocket is not None:
            self.rocket_ = _rocket_transformer(seeds[1]).fit(X)
        # the scale of a feature is no information: PPVs are fractions, the statistics are
        # in the series' units, MiniRocket's are counts; the ridge penalty needs them alike
        self.scaler_ = StandardScaler()
        return self.scaler_.fit_transform(self._raw_features(X))

    def _raw_features(self, X: np.ndarray) -> np.ndarray:
        blocks = [self.transformer_.transform(X)]  # (n, F_bank)
        if self.rocket_ is not None:
            blocks.append(np.asarray(self.rocket_.transform(X), dtype=np.float64))  # (n, F_mr)
        return np.hstack(blocks)  # (n, F)

    def _features(self, X) -> np.ndarray:
        check_is_fitted(self)
        X, _ = validate_sequences(self, X, reset=False)
        if X.ndim == 2:
            X = X[:, np.newaxis, :]  # (n, 1, L): MiniRocket reads 3-D panels
        return self.scaler_.transform(self._raw_features(X))

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
    dt_min, dt_max : float, default=0.01, 1.0
        Range of the filters' log-uniform step sizes. Up to 1, the bank also holds
        fast-decaying, local filters with poles over the whole band (pole radius down to e^-0.5);
        chosen by cross-validation on training splits (``docs/kernel_regime.md``, rounds 5
        and 6), where this local bank beat the transformer's narrower dt 0.001–0.1.
    rocket : {None, "minirocket"}, default=None
        Also append sktime's MiniRocket features of the raw series (needs sktime and series
        of at least 9 time steps).
    alphas : array-like or None, default=None
        Ridge penalties tried by leave-one-out CV; None is ``np.logspace(-3, 3, 10)``, as in
        sktime's ``RocketClassifier``.
    random_state : int, RandomState instance or None, default=None
        Seeds the bank and MiniRocket.

    Attributes
    ----------
    transformer_ : SpectralAlignmentTransformer
        The fitted filter bank.
    rocket_ : sktime MiniRocketMultivariate or None
        The fitted MiniRocket transformer (``rocket="minirocket"``).
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Build the aligned bank on (X, y) and fit the ridge head on its features.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        X, y = validate_sequences(self, X, y, reset=True)
        check_classification_targets(y)
        features = self._fit_features(X, y)  # (n, F)
        self.ridge_ = RidgeClassifierCV(alphas=self._alphas()).fit(features, y)
        self.classes_ = self.ridge_.classes_
        return self

    def decision_function(self, X):
        """Ridge scores, (n_samples,) for two classes, else (n_samples, n_classes)."""
        features = self._features(X)  # first: it raises NotFittedError before fit
        return self.ridge_.decision_function(features)

    def predict(self, X):
        """Predicted class labels, (n_samples,)."""
        features = self._features(X)  # first: it raises NotFittedError before fit
        return self.ridge_.predict(features)


class SpectralRidgeRegressor(RegressorMixin, _SpectralRidge):
    """Task-aligned S4D filter bank features with a cross-validated ridge regressor.

    The regression counterpart of :class:`SpectralRidgeClassifier`: TDI aligns the bank with
    the input–output cross-spectrum, then ``StandardScaler → RidgeCV(alphas)``. The
    parameters and attributes are the classifier's (``ridge_`` is a ``RidgeCV``).

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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Build the aligned bank on (X, y) and fit the ridge head on its features.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self : object
        """
        X, y = validate_sequences(self, X, y, reset=True, multi_output=True, y_numeric=True)
        features = self._fit_features(X, y)  # (n, F)
        self.ridge_ = RidgeCV(alphas=self._alphas()).fit(features, y)
        return self

    def predict(self, X):
        """Predicted targets, (n_samples,) or (n_samples, n_outputs)."""
        features = self._features(X)  # first: it raises NotFittedError before fit
        return self.ridge_.predict(features)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
