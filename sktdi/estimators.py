"""SSMClassifier and SSMRegressor: scikit-learn estimators over a skorch-managed S4D network.

Composition, not inheritance: each estimator is a plain scikit-learn estimator whose ``fit``
validates the data, builds a skorch ``NeuralNetClassifier``/``NeuralNetRegressor`` around
:class:`~sktdi.ssm.S4DNetwork` (stored as ``net_``), runs TDI on a subsample to set the initial
SSM modes, and trains with skorch.
"""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._sklearn_utils import check_lengths, validate_sequences
from .ssm import INIT_NAMES, SSM_PARAMETER_NAMES, S4DNetwork
from .tdi import TDI_INITS, TaskSpectrum, align_layer, plan_initialization

MIN_LENGTH = 2  # a single time step is a tabular feature, not a sequence
PREDICT_BATCH_SIZE = 1024


def resolve_device(device: str) -> str:
    """"auto" -> "cuda" when available, else "cpu"; an unavailable CUDA device is an error."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was requested but CUDA is not available here")
    return device


class _BaseSSM(BaseEstimator):
    """Parameters, TDI and the skorch training loop shared by the classifier and the regressor."""

    _parameter_constraints: dict = {
        "init": [StrOptions({*TDI_INITS, *INIT_NAMES})],
        "d_model": [Interval(Integral, 1, None, closed="left")],
        "n_layers": [Interval(Integral, 1, None, closed="left")],
        "d_state": [Interval(Integral, 2, None, closed="left")],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "prenorm": ["boolean"],
        "pooling": [StrOptions({"mean", "last"})],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "ssm_lr": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "lr_schedule": [StrOptions({"cosine", "constant"})],
        "grad_clip": [None, Interval(Real, 0, None, closed="neither")],
        "validation_fraction": [Interval(Real, 0, 1, closed="left")],
        "n_iter_no_change": [None, Interval(Integral, 1, None, closed="left")],
        "tdi_subsample": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
        ],
        "tdi_spread": [Interval(Real, 0, 1, closed="both")],
        "tdi_refine_steps": [Interval(Integral, 0, None, closed="left")],
        "tdi_layers": [StrOptions({"all", "first"})],
        "tdi_reliability": ["boolean"],
        "tdi_spectrum": [None, TaskSpectrum],
        "dt_min": [Interval(Real, 0, None, closed="neither")],
        "dt_max": [Interval(Real, 0, None, closed="neither")],
        "scale_inputs": ["boolean"],
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
    }

    def __init__(
        self,
        init="tdi",
        d_model=64,
        n_layers=2,
        d_state=64,
        dropout=0.1,
        prenorm=False,
        pooling="mean",
        max_epochs=100,
        batch_size=16,
        lr=1e-2,
        ssm_lr=1e-3,
        weight_decay=0.01,
        lr_schedule="cosine",
        grad_clip=1.0,
        validation_fraction=0.0,
        n_iter_no_change=None,
        tdi_subsample=None,
        tdi_spread=0.25,
        tdi_refine_steps=0,
        tdi_layers="first",
        tdi_reliability=True,
        tdi_spectrum=None,
        dt_min=1e-3,
        dt_max=1e-1,
        scale_inputs=True,
        device="auto",
        random_state=None,
        verbose=0,
        warm_start=False,
    ):
        self.init = init
        self.d_model = d_model
        self.n_layers = n_layers
        self.d_state = d_state
        self.dropout = dropout
        self.prenorm = prenorm
        self.pooling = pooling
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.ssm_lr = ssm_lr
        self.weight_decay = weight_decay
        self.lr_schedule = lr_schedule
        self.grad_clip = grad_clip
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tdi_subsample = tdi_subsample
        self.tdi_spread = tdi_spread
        self.tdi_refine_steps = tdi_refine_steps
        self.tdi_layers = tdi_layers
        self.tdi_reliability = tdi_reliability
        self.tdi_spectrum = tdi_spectrum
        self.dt_min = dt_min
        self.dt_max = dt_max
        self.scale_inputs = scale_inputs
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    # ---- hooks for the subclasses -------------------------------------------------------
    _task: str
    _net_class: type
    _criterion: type

    def _encode_targets(self, y, *, reset: bool, classes=None):  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- data ----------------------------------------------------------------------------
    def _validate(self, X, y="no_validation", *, reset: bool, lengths=None):
        y_kwargs = {} if isinstance(y, str) else {"multi_output": self._task == "regression"}
        X3, y = validate_sequences(
            self,
            X,
            y,
            reset=reset,
            min_length=MIN_LENGTH,
            check_length=lengths is None,
            **y_kwargs,
        )
        lengths = check_lengths(lengths, X3)
        if reset:
            mask = self._valid_mask(X3, lengths)  # (n, 1, L)
            count = mask.sum() if lengths is not None else X3.shape[0] * X3.shape[2]
            mean = (X3 * mask).sum(axis=(0, 2)) / count  # (C,)
            var = (((X3 - mean[:, None]) * mask) ** 2).sum(axis=(0, 2)) / count  # (C,)
            scale = np.sqrt(var)
            if self.scale_inputs:
                self.input_mean_ = mean
                self.input_scale_ = np.where(scale > 0, scale, 1.0)
            else:
                self.input_mean_ = np.zeros(X3.shape[1])
                self.input_scale_ = np.ones(X3.shape[1])
        return X3, y, lengths

    @staticmethod
    def _valid_mask(X3: np.ndarray, lengths) -> np.ndarray | float:
        if lengths is None:
            return 1.0
        return (np.arange(X3.shape[-1]) < lengths[:, None])[:, None, :]  # (n, 1, L)

    def _net_input(self, X3: np.ndarray, lengths=None, dtype=np.float64):
        """Standardized series for the network; with ``lengths``, padding zeroed and a dict
        that skorch unpacks into ``S4DNetwork.forward(X, lengths)``."""
        X3 = (X3 - self.input_mean_[:, None]) / self.input_scale_[:, None]
        X3 = (X3 * self._valid_mask(X3, lengths)).astype(dtype)
        if lengths is None:
            return X3
        return {"X": X3, "lengths": lengths}

    # ---- the network ---------------------------------------------------------------------
    def _build_net(self, n_channels: int, n_outputs: int, seed: int):
        from skorch.callbacks import EarlyStopping, GradientNormClipping, LRScheduler, ProgressBar
        from skorch.dataset import ValidSplit

        if self.d_state % 2:
            raise ValueError(f"d_state must be even, got {self.d_state}")
        if self.dt_min > self.dt_max:
            raise ValueError(f"dt_min={self.dt_min} must not exceed dt_max={self.dt_max}")
        callbacks = []
        if self.grad_clip is not None:
            callbacks.append(("grad_clip", GradientNormClipping(self.grad_clip)))
        if self.lr_schedule == "cosine" and self.max_epochs > 0:
            callbacks.append(
                (
                    "lr_schedule",
                    LRScheduler(
                        policy=torch.optim.lr_scheduler.CosineAnnealingLR, T_max=self.max_epochs
                    ),
                )
            )
        if self.validation_fraction > 0 and self.n_iter_no_change is not None:
            callbacks.append(
                ("early_stopping", EarlyStopping(patience=self.n_iter_no_change, load_best=True))
            )
        if self.verbose >= 2:
            callbacks.append(("progress", ProgressBar()))
        train_split = None
        if self.validation_fraction > 0:
            train_split = ValidSplit(
                self.validation_fraction,
                stratified=self._task == "classification",
                random_state=seed,
            )
        ssm_group = {"lr": self.ssm_lr, "weight_decay": 0.0}
        return self._net_class(
            module=S4DNetwork,
            module__n_channels=n_channels,
            module__n_outputs=n_outputs,
            module__d_model=self.d_model,
            module__d_state=self.d_state,
            module__n_layers=self.n_layers,
            module__dropout=self.dropout,
            module__prenorm=self.prenorm,
            module__pooling=self.pooling,
            module__init="s4d-lin" if self.init in TDI_INITS else self.init,
            module__dt_min=self.dt_min,
            module__dt_max=self.dt_max,
            criterion=self._criterion,
            optimizer=torch.optim.AdamW,
            optimizer__weight_decay=self.weight_decay,
            optimizer__param_groups=[(f"*ssm.{name}", ssm_group) for name in SSM_PARAMETER_NAMES],
            lr=self.lr,
            max_epochs=self.max_epochs,
            batch_size=self.batch_size,
            iterator_train__shuffle=True,
            iterator_valid__batch_size=max(self.batch_size, PREDICT_BATCH_SIZE),
            train_split=train_split,
            callbacks=callbacks,
            device=resolve_device(self.device),
            verbose=int(self.verbose >= 1),
        )

    def _initialize_modes(
        self,
        X3: np.ndarray,
        y_tdi,
        rng: np.random.RandomState,
        seed: int,
        *,
        partial: bool,
        lengths=None,
    ):
        """TDI: task spectrum on a subsample, then every (or the first) S4D layer aligned."""
        self.task_spectrum_ = None
        self.tdi_reports_ = []
        self.init_report_ = {"requested": self.init, "chosen": self.init}
        if self.init not in TDI_INITS:
            return
        try:
            plan, spectrum = plan_initialization(
                X3,
                y_tdi,
                init=self.init,
                task=self._task,
                subsample=self.tdi_subsample,
                use_reliability=self.tdi_reliability,
                random_state=rng,
                lengths=lengths,
                spectrum=self.tdi_spectrum,
            )
        except ValueError as exc:
            if not partial:
                raise
            # a first partial_fit batch may hold one class or too few series to contrast
            warnings.warn(
                f"TDI skipped, the first partial_fit batch cannot support it ({exc}); "
                f"the network keeps the S4D-Lin initialization",
                UserWarning,
                stacklevel=3,
            )
            self.init_report_ = {"requested": self.init, "chosen": "s4d-lin", "reason": str(exc)}
            return
        self.init_report_ = plan.to_dict()
        self.task_spectrum_ = spectrum
        if spectrum is None:
            return
        layers = self.net_.module_.ssm_layers
        if self.tdi_layers == "first":
            layers = layers[:1]
        generator = torch.Generator().manual_seed(seed)
        for layer in layers:
            self.tdi_reports_.append(
                align_layer(
                    layer,
                    spectrum,
                    spread=self.tdi_spread,
                    dt_min=self.dt_min,
                    dt_max=self.dt_max,
                    refine_steps=self.tdi_refine_steps,
                    channel_share=plan.channel_share,
                    generator=generator,
                )
            )

    @contextlib.contextmanager
    def _seeded(self, seed: int):
        """Fix torch's RNG (init, shuffling, dropout) for the fit without leaking the change."""
        devices = [torch.cuda.current_device()] if torch.cuda.is_available() else []
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed(seed)
            yield

    def _fit(self, X, y, *, epochs: int | None, partial: bool, classes=None, lengths=None):
        first = not (partial or self.warm_start) or not hasattr(self, "net_")
        X3, y, lengths = self._validate(X, y, reset=first, lengths=lengths)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(2**31 - 1))
        target = self._encode_targets(y, reset=first, classes=classes)
        with self._seeded(seed):
            if first:
                self.net_ = self._build_net(X3.shape[1], self._n_outputs(), seed)
                self.net_.initialize()
                self._initialize_modes(X3, y, rng, seed, partial=partial, lengths=lengths)
                self.n_epochs_ = 0
            n_epochs = self.max_epochs if epochs is None else epochs
            if n_epochs > 0:
                self.net_.module_.float()
                inputs = self._net_input(X3, lengths, np.float32)
                self.net_.partial_fit(inputs, target, epochs=n_epochs)
                self.n_epochs_ = len(self.net_.history)
        # Inference runs in float64: float32 matrix products round differently with the batch
        # shape, so a series' prediction would depend on which other series share its batch.
        self.net_.module_.double()
        return self

    # ---- public --------------------------------------------------------------------------
    @property
    def history_(self):
        """skorch's per-epoch history (losses, learning rates, durations)."""
        check_is_fitted(self)
        return self.net_.history

    def frequency_response(self, layer: int = 0, n_freqs: int = 512) -> tuple[np.ndarray, np.ndarray]:
        """(freqs (n_freqs,) in cycles/sample, ``|H|`` (d_model, n_freqs)) of one S4D layer."""
        check_is_fitted(self)
        ssm = self.net_.module_.ssm_layers[layer]
        freqs, magnitude = ssm.frequency_response(n_freqs)
        return freqs.cpu().numpy(), magnitude.cpu().numpy()

    def _forward(self, X, lengths=None) -> torch.Tensor:
        check_is_fitted(self)
        X3, _, lengths = self._validate(X, reset=False, lengths=lengths)
        return self.net_.forward(self._net_input(X3, lengths))  # (n, n_outputs) float64, CPU

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags


class SSMClassifier(ClassifierMixin, _BaseSSM):
    """Sequence classifier: an S4D network with Task-Dependent Initialization, trained by skorch.

    ``fit`` validates X, encodes the labels, estimates the Fisher log-power statistic between
    classes on a stratified subsample (``tdi_subsample``) and aligns the initial SSM modes with
    it (``init="tdi"``), then trains with AdamW (the SSM parameters A, B, dt in their own group:
    ``ssm_lr``, no weight decay), shuffled minibatches seeded from ``random_state``, gradient
    clipping, a cosine learning-rate schedule and optional validation-based early stopping.

    Parameters
    ----------
    init : {"tdi", "auto", "tdi-control", "s4d-lin", "s4d-inv", "s4d-real", "s4d-legs", \
"random"}, default="tdi"
        Initialization of the SSM modes. "tdi" aligns them with the task before training;
        "auto" uses TDI only when the task statistic is reliable (split-half reliability
        ≥ 0.5 and a significant bin), else S4D-Lin; "tdi-control" runs TDI on a statistic
        whose peaks are moved to random frequencies (the control arm of a study).
    d_model, n_layers, d_state : int, default=64, 2, 64
        Width, depth and state size per channel (even) of the network.
    dropout : float, default=0.1
        Channel dropout in each block.
    prenorm : bool, default=False
        LayerNorm before (True) or after (False) each residual block.
    pooling : {"mean", "last"}, default="mean"
        How the sequence of features is reduced before the linear head.
    max_epochs : int, default=100
        Training epochs; 0 fits the initialization only.
    batch_size : int, default=16
    lr : float, default=1e-2
        AdamW learning rate of every parameter but A, B and dt.
    ssm_lr : float, default=1e-3
        Learning rate of A, B and dt (no weight decay).
    weight_decay : float, default=0.01
    lr_schedule : {"cosine", "constant"}, default="cosine"
        Cosine annealing over ``max_epochs``, or a constant rate.
    grad_clip : float or None, default=1.0
        Gradient norm clipping.
    validation_fraction : float, default=0.0
        Share of the training data held out (stratified) to monitor validation loss.
    n_iter_no_change : int or None, default=None
        With a validation split: stop after this many epochs without improvement and restore
        the best weights.
    tdi_subsample : int, float or None, default=None
        Series used to estimate the task statistic: a count, a fraction, or all (None).
    tdi_spread : float, default=0.25
        Share of each channel's modes spread over the whole band instead of the task's peaks.
    tdi_refine_steps : int, default=0
        Gradient steps on the spectral-alignment loss after peak initialization.
    tdi_reliability : bool, default=True
        Shrink TDI toward the default: only a share of the channels equal to the statistic's
        split-half reliability (clipped to [0, 1]) is aligned; the others keep S4D-Lin.
    tdi_spectrum : TaskSpectrum or None, default=None
        A task statistic to align to instead of estimating one from X: domain knowledge
        (:meth:`TaskSpectrum.from_frequencies`) or a statistic estimated on a larger, related
        dataset. Every channel is aligned and no reliability is measured; it works even with
        one series per class, where nothing can be estimated. The named inits ignore it.
    tdi_layers : {"all", "first"}, default="first"
        Which S4D layers TDI initializes. Deeper layers see features, not the raw series, so
        the input's statistic describes them less well (cross-validation agreed, see
        ``docs/estimators.md``).
    dt_min, dt_max : float, default=1e-3, 1e-1
        Range of the log-uniform SSM step sizes.
    scale_inputs : bool, default=True
        Standardize each input channel with the training mean and standard deviation.
    device : str, default="auto"
        "auto" (CUDA when available, else CPU), "cpu", "cuda", "cuda:1", ...
    random_state : int, RandomState instance or None, default=None
        Seeds the initialization, the TDI subsample, shuffling and dropout.
    verbose : int, default=0
        0 silent, 1 a line per epoch (skorch's PrintLog), 2 also a progress bar.
    warm_start : bool, default=False
        When True, ``fit`` continues training the existing network instead of starting over.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    net_ : skorch.NeuralNetClassifier
        The trained network; ``net_.module_`` is the :class:`~sktdi.ssm.S4DNetwork`.
    task_spectrum_ : TaskSpectrum or None
        The Fisher statistic TDI used (None unless ``init="tdi"``).
    tdi_reports_ : list of TDIReport
        What TDI did to each initialized layer (empty unless TDI ran).
    init_report_ : dict
        The initialization decision: requested and chosen init, reliability, significant bins,
        share of aligned channels, and the reason.
    history_ : skorch.History
        Per-epoch training log.
    n_epochs_ : int
        Epochs trained so far.
    n_features_in_, n_channels_, n_timepoints_ : int
        Input shape seen in ``fit`` (``n_features_in_`` is the length for 2-D X and the
        channel count for 3-D X).

    See Also
    --------
    SSMRegressor : The same model for regression.
    sktdi.SpectralAlignmentTransformer : The alignment alone, as untrained features.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi import SSMClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 64)) + y[:, None] * np.sin(0.8 * np.pi * np.arange(64))
    >>> clf = SSMClassifier(d_model=16, max_epochs=30, random_state=0).fit(X, y)
    >>> clf.score(X, y)
    1.0
    """

    _task = "classification"

    @property
    def _net_class(self):
        from skorch import NeuralNetClassifier

        return NeuralNetClassifier

    _criterion = torch.nn.CrossEntropyLoss

    def _n_outputs(self) -> int:
        return len(self.classes_)

    def _encode_targets(self, y, *, reset: bool, classes=None):
        check_classification_targets(y)
        if reset:
            self._label_encoder = LabelEncoder().fit(y if classes is None else classes)
            self.classes_ = self._label_encoder.classes_
            if len(self.classes_) < 2:
                raise ValueError(
                    f"y has only 1 class ({self.classes_[0]!r}); a classifier needs at least 2"
                )
        unseen = np.setdiff1d(y, self.classes_)
        if unseen.size:
            raise ValueError(f"y contains labels not seen in the first fit: {unseen[:5]!r}")
        return self._label_encoder.transform(y).astype(np.int64)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Run TDI (when ``init="tdi"``) and train the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length)
        y : array-like of shape (n_samples,)
            Class labels of any hashable type; at least 2 classes.
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X: the padding is
            masked (the SSM is causal, and pooling skips it).

        Returns
        -------
        self : object
        """
        return self._fit(X, y, epochs=None, partial=False, lengths=lengths)

    def partial_fit(self, X, y, classes=None, lengths=None):
        """One epoch of training; the first call builds and initializes the network (TDI on
        this batch). ``classes`` lists every label on the first call if the batch lacks some."""
        if not hasattr(self, "net_"):
            self._validate_params()
        return self._fit(X, y, epochs=1, partial=True, classes=classes, lengths=lengths)

    def decision_function(self, X, lengths=None):
        """Logits (n_samples, n_classes); for two classes, logit[1] − logit[0] (n_samples,)."""
        logits = self._forward(X, lengths).numpy()
        if logits.shape[1] == 2:
            return logits[:, 1] - logits[:, 0]
        return logits

    def predict_proba(self, X, lengths=None):
        """Class probabilities (n_samples, n_classes), columns in the order of ``classes_``."""
        return torch.softmax(self._forward(X, lengths), dim=1).numpy()

    def predict(self, X, lengths=None):
        """Most probable class label per series."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X, lengths), axis=1)]


class SSMRegressor(RegressorMixin, _BaseSSM):
    """Sequence regressor: an S4D network with Task-Dependent Initialization, trained by skorch.

    As :class:`SSMClassifier`, with TDI aligned to the input–output cross-spectrum
    (:func:`sktdi.tdi.cross_spectrum`) and a mean-squared-error objective. ``y`` may be 1-D or
    2-D (multi-output); it is standardized internally and predictions are mapped back.

    Parameters
    ----------
    See :class:`SSMClassifier`; every parameter has the same meaning.

    Attributes
    ----------
    net_ : skorch.NeuralNetRegressor
    task_spectrum_ : TaskSpectrum or None
    tdi_reports_ : list of TDIReport
    y_mean_, y_scale_ : ndarray of shape (n_outputs,)
        The target standardization.
    history_, n_epochs_, n_features_in_, n_channels_, n_timepoints_
        As for :class:`SSMClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi import SSMRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 32))
    >>> y = X[:, -8:].mean(axis=1)
    >>> reg = SSMRegressor(d_model=16, pooling="last", max_epochs=40, random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.5)
    True
    """

    _task = "regression"
    _criterion = torch.nn.MSELoss

    @property
    def _net_class(self):
        from skorch import NeuralNetRegressor

        return NeuralNetRegressor

    def _n_outputs(self) -> int:
        return len(self.y_mean_)

    def _encode_targets(self, y, *, reset: bool, classes=None):
        y = np.asarray(y, dtype=np.float64)
        if reset:
            self._y_ndim = y.ndim
        Y = y.reshape(len(y), -1)
        if reset:
            self.y_mean_ = Y.mean(axis=0)
            scale = Y.std(axis=0)
            self.y_scale_ = np.where(scale > 0, scale, 1.0)
        elif Y.shape[1] != len(self.y_mean_):
            raise ValueError(f"y has {Y.shape[1]} outputs, but the model has {len(self.y_mean_)}")
        return ((Y - self.y_mean_) / self.y_scale_).astype(np.float32)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Run TDI (when ``init="tdi"``) and train the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        lengths : array-like of shape (n_samples,), optional
            True lengths of right-padded series of unequal length.

        Returns
        -------
        self : object
        """
        return self._fit(X, y, epochs=None, partial=False, lengths=lengths)

    def partial_fit(self, X, y, lengths=None):
        """One epoch of training; the first call builds and initializes the network."""
        if not hasattr(self, "net_"):
            self._validate_params()
        return self._fit(X, y, epochs=1, partial=True, lengths=lengths)

    def predict(self, X, lengths=None):
        """Predictions in the original target units: (n_samples,) or (n_samples, n_outputs)."""
        Y = self._forward(X, lengths).numpy() * self.y_scale_ + self.y_mean_
        return Y.ravel() if self._y_ndim == 1 else Y

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
