"""SSMClassifier and SSMRegressor: scikit-learn estimators over a skorch-managed S4D network.

Composition, not inheritance: each estimator is a plain scikit-learn estimator whose ``fit``
validates the data, builds a skorch ``NeuralNetClassifier``/``NeuralNetRegressor`` around
:class:`~sktdi.ssm.ConvS4DNetwork` or :class:`~sktdi.ssm.S4DNetwork` (stored as ``net_``),
runs TDI on a subsample to set the initial SSM modes, and trains with skorch. This module
holds what differs between the two (labels and probabilities, targets and their scaling, the
defaults); what they share, the parameters and the order of a fit's steps, is
:class:`sktdi.deep_model.base._BaseSSM`'s.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import ClassifierMixin, RegressorMixin, _fit_context
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..utils.inputs import PaddedSeriesWarning  # noqa: F401 - public here, for warning filters
from ..utils.validation import (
    check_two_classes,
    plain,
    restore_on_error,
)
from ..fast_path.ridge import SpectralRidgeClassifier, SpectralRidgeRegressor
from .base import _BaseSSM, _override_defaults
from .stacking import fit_temperature, ridge_logits


class SSMClassifier(ClassifierMixin, _BaseSSM):
    """Sequence classifier: an S4D network with Task-Dependent Initialization, trained by skorch
    on top of the fast path.

    ``fit`` validates X and encodes the labels; fits the fast path
    (:class:`~sktdi.SpectralRidgeClassifier`, with MiniRocket's features where sktime is
    installed); estimates the Fisher log-power statistic between classes and aligns the
    initial SSM modes with it (``init="tdi"``); then trains the network, whose outputs are
    added to the fast path's and whose last layer starts at zero, with AdamW on shuffled
    minibatches and a cosine learning-rate schedule, stopping early where it does not beat the
    fast path on held-out series. :doc:`/which_model` says when to use it;
    :doc:`/estimators` describes each step.

    Parameters
    ----------
    init : {"tdi", "auto", "tdi-control", "s4d-lin", "s4d-inv", "s4d-real", "s4d-legs", \
"random"}, default="tdi"
        Initialization of the SSM modes. "tdi" aligns them with the task before training;
        "auto" uses TDI only when the task statistic is reliable, else S4D-Lin;
        "tdi-control" aligns to a statistic with its peaks moved at random (a placebo, to
        measure what the statistic adds). :doc:`/choosing_init` says which to pick.
    network : {"conv-s4d", "s4d"}, default="conv-s4d"
        "conv-s4d" (:class:`~sktdi.ssm.ConvS4DNetwork`): causal convolutions for local shape
        and an S4D layer in every block for the long range. "s4d"
        (:class:`~sktdi.ssm.S4DNetwork`): S4D blocks only, faster to train. Each comes with
        its tested settings, which every parameter left at "auto" takes (Notes).
    input_scaling : {"auto", "series+scale", "channel", "series", "running", \
"running+scale"}, default="auto"
        "series+scale": each series' shape, its level and scale as channels of their own
        where they relate to the target (``input_amplitude_``): raw gains and offsets held.
        "auto": it, or "channel" (one mean and scale per channel, causal) with
        ``prefix_weight > 0``. "running+scale" from the steps so far; "series", "running"
        without level and scale (:doc:`/raw_data`).
    d_model, n_layers : int or "auto", default="auto"
        Width and depth. "conv-s4d": d_model a multiple of 4, a residual shortcut per three
        blocks; n_layers=3 took about half the fit time, level on the UCR sets but behind
        where classes differ in a period hundreds of steps long (:doc:`/deep_model`).
    d_state : int, default=64
        State size per channel (even).
    dropout : float or "auto", default="auto"
        Channel dropout after each block.
    pooling : {"mean", "max", "mean-max", "last", "auto"}, default="auto"
        How the per-step features become one vector per series.
    bidirectional : bool, default=False
        Every S4D layer also gets an anti-causal kernel and, with network="conv-s4d", the
        convolutions and the max-pool are centred, so each step sees the whole series. The
        network is then not causal (no streaming, no predictions over time, no
        ``prefix_weight``).
    dt_min, dt_max : float, default=1e-3 and "auto"
        Range of the log-uniform SSM step sizes: smaller steps give longer memories.
    n_estimators : int, default=1
        Networks in an ensemble, each with its own initialization, trained side by side in
        one loop; predictions average them. Fit time grows about linearly; three networks
        were ahead of one on data nobody chose them on, by less than their cost
        (docs/deep_model.md, "An ensemble of three").
    max_epochs : int, default=100
        Training epochs; 0 fits the initialization only.
    batch_size : int, default=16
        Series per training minibatch.
    lr : float or "auto", default="auto"
        AdamW learning rate of every parameter but the SSM's (see ``training``).
    prefix_weight : float in [0, 1], default=0.0
        Share of the training loss spent on the prediction after every step. Set it (0.5)
        when you read predictions before a series ends (:doc:`/streaming`); it costs some
        full-length accuracy. Needs a causal network.
    fast_path : bool or "auto", default="auto"
        Fit the fast path (``fast_path_``); the network trains on top of it on long series
        with few per class, else no epoch. "auto": yes, but for a model of prefixes
        (``prefix_weight > 0``, a "running" scaling, ``partial_fit``). False: the network.
    validation_fraction : float or "auto", default="auto"
        Share of the training data held out (stratified) to monitor the validation loss.
        "auto": 0.2 on the fast path where that holds out 2 series per class (a regressor:
        10 series), else 0. Not with ``partial_fit``.
    n_iter_no_change : int, None or "auto", default="auto"
        Stop after this many epochs without a better validation loss and restore the best
        weights (the fast path's counts as epoch 0). "auto": 10 where "auto" holds series out
        on the fast path, else None. An int needs held-out series: with the fast path's
        "auto" share, where too few series leave none, the fit trains on all of them for
        ``max_epochs``, as "auto" does, and warns; without the fast path, set a share > 0.
    tdi : TDIOptions or None, default=None
        How TDI aligns the modes (:class:`~sktdi.tdi.TDIOptions`; None: its defaults), e.g.
        ``TDIOptions(spectrum=...)`` to align to a known statistic. ``GridSearchCV`` reaches
        its fields as ``tdi__spread`` and so on.
    training : TrainingOptions or None, default=None
        Augmentation, the SSM parameters' learning rate, weight decay, schedule and
        gradient clipping (:class:`~sktdi.TrainingOptions`; None: its defaults).
    inference_dtype : {"float64", "float32"}, default="float64"
        Precision of the predictions. "float64" makes a series' prediction independent of
        the rest of its batch; "float32" is faster, and needed on ``device="mps"``.
    device : str, default="auto"
        "auto" (CUDA when available, else CPU), "cpu", "cuda", "cuda:1", "mps", ...
    n_threads : int or None, default=None
        CPU threads torch uses in fits and predictions, restored afterwards. None: a joblib
        worker's share of the cores, else one (never stalls on a busy machine, the same
        model whatever its load); more fit long series faster on an idle one (:doc:`/estimators`).
    random_state : int, RandomState instance or None, default=None
        Seeds the fit (network, TDI, shuffling, dropout, validation split, each its own
        stream); the global numpy and torch RNG states are left as they were.
    verbose : int, default=0
        0 silent, 1 a line per epoch (losses and learning rates), 2 also a progress bar on
        a terminal.
    warm_start : bool, default=False
        When True, ``fit`` continues training the existing network instead of starting over.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    net_ : skorch.NeuralNetClassifier
        The trained network; ``net_.module_`` is the :class:`~sktdi.ssm.ConvS4DNetwork`
        (``network="conv-s4d"``) or the :class:`~sktdi.ssm.S4DNetwork`.
    task_spectrum_ : TaskSpectrum or None
        The Fisher statistic TDI aligned to (None when no alignment ran: a named init, or
        ``"auto"`` keeping the base).
    tdi_reports_ : list of TDIReport
        What TDI did to each initialized layer (empty unless TDI ran).
    init_report_ : dict
        The initialization decision: requested and chosen init, reliability, significant bins,
        share of aligned channels, and the reason; ``applied``, the initialization the
        network starts from, and ``n_aligned_channels``, the channels TDI aligned ("s4d-lin"
        and 0 where TDI stood down: no channel aligned).
    history_ : skorch.History
        Per-epoch training log.
    network_params_ : dict
        The network's settings as fitted, every "auto" resolved (see ``network``).
    input_scaling_ : str
        The input scaling the fit used.
    input_reference_ : ndarray of shape (n_channels,) or None
        For the "+scale" scalings, each channel's unit of level and scale: the median
        standard deviation of the training series.
    input_amplitude_ : ndarray of int or None
        For the "+scale" scalings, the level and scale channels the network is given, as
        indices into the channels' levels (0 to C-1), then their scales (C to 2C-1); empty:
        the shape alone. Those whose relation to the training targets has p < 0.01 over the
        number tested (Kruskal-Wallis across the classes; Spearman for a regressor).
    n_epochs_ : int
        Epochs trained so far.
    fast_path_ : SpectralRidgeClassifier or None
        The fitted fast path whose outputs the network's are added to (None without it).
    fast_path_scale_ : float
        The temperature that makes the fast path's ridge scores log-odds, fitted on their
        leave-one-out values (1.0 without a fast path).
    fast_path_report_ : dict or None
        What the fit did with the fast path: ``validation_fraction`` and
        ``n_iter_no_change`` as the fit resolved them (None: no early stopping), the fast
        path's ``fast_path_valid_loss``, ``best_valid_loss``, ``best_epoch`` (0: no epoch
        beat the fast path, and the model is the fast path), ``network_adds`` and the
        ``reason``.
    n_features_in_, n_channels_, n_timepoints_ : int
        Input shape seen in ``fit`` (``n_features_in_`` is the length for 2-D X and the
        channel count for 3-D X).

    Notes
    -----
    Each network's tested settings, which ``d_model``, ``n_layers``, ``pooling``,
    ``dropout``, ``dt_max`` and ``lr`` take when left at "auto" (``network_params_`` holds
    what they became; :data:`sktdi.deep_model.training.NETWORK_RECIPES`): "conv-s4d"
    d_model=128, n_layers=6, pooling="mean", dropout=0.0, dt_max=0.1, lr=0.01; "s4d"
    d_model=64, n_layers=2, pooling="mean-max", dropout=0.1, dt_max=1.0, lr=0.01 (at
    conv-s4d's width and depth it scored at chance, :doc:`/long_series`).

    With its fast path (``fast_path="auto"``), the model predicts whole series only: a stream
    or predictions over time need a model fitted for prefixes (``prefix_weight > 0``, which
    leaves the fast path out). Fitted on series of one length, its MiniRocket takes series of
    that length only (:doc:`/which_model`).

    A fit whose network ends at chance on its own training series warns
    (:class:`~sklearn.exceptions.ConvergenceWarning`), naming what to try
    (:doc:`/raw_data`).

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
    # beyond _BaseSSM's declared state: one label per output of the network
    _declared_state_extra = {
        "_label_encoder": "sklearn.preprocessing.LabelEncoder",
        "classes_": "labels[n_outputs]",
        # absent from files saved before the fast path was added (issue 70)
        "fast_path_": "sktdi.SpectralRidgeClassifier(n_channels_=n_channels_) | None?",
    }
    _fast_path_class = SpectralRidgeClassifier

    def _loaded_problem(self) -> str | None:
        """The labels predictions are decoded with must be the encoder's (sktdi.persistence's
        hook, after the declared shapes)."""
        encoder = self._label_encoder.classes_
        if encoder.shape != self.classes_.shape or not np.array_equal(encoder, self.classes_):
            return "classes_ differs from the label encoder's classes"
        return None

    _criterion = torch.nn.CrossEntropyLoss

    def _n_outputs(self) -> int:
        return len(self.classes_)

    def _encode_targets(self, y, *, reset: bool, classes=None):
        check_classification_targets(y)
        if reset:
            self._label_encoder = LabelEncoder().fit(y if classes is None else classes)
            self.classes_ = self._label_encoder.classes_
            check_two_classes(self.classes_, name="y" if classes is None else "classes")
        unseen = np.setdiff1d(y, self.classes_)
        if unseen.size:
            raise ValueError(f"y contains labels not seen in the first fit: {unseen[:5]!r}")
        return self._label_encoder.transform(y).astype(np.int64)

    def _training_target(self, codes: np.ndarray) -> np.ndarray:
        return codes

    def _validation_split_problem(self, codes: np.ndarray, fraction: float) -> str | None:
        """Why the stratified split skorch draws (scikit-learn's StratifiedShuffleSplit) of
        ``fraction`` cannot be drawn, and what to do, or None: it would fail deep inside
        skorch, without naming validation_fraction."""
        present, counts = np.unique(codes, return_counts=True)
        single = present[counts < 2]
        if single.size:
            labels = ", ".join(repr(plain(label)) for label in self.classes_[single][:5])
            which = f"class {labels} has" if single.size == 1 else f"classes {labels} have"
            return (
                f"validation_fraction={fraction} holds out a stratified share of every class, "
                f"but {which} only 1 series in y: set validation_fraction=0 (no "
                f"validation split; n_iter_no_change=None too), or give every class at least "
                f"2 series"
            )
        n, n_classes = len(codes), len(present)
        n_valid = int(np.ceil(fraction * n))  # how StratifiedShuffleSplit rounds
        n_train = n - n_valid
        if n_valid < n_classes:
            return (
                f"validation_fraction={fraction} holds out {n_valid} of {n} series, fewer than "
                f"the {n_classes} classes, and a stratified split needs one series of each: "
                f"set validation_fraction above {(n_classes - 1) / n:.3g} (it holds out "
                f"ceil(validation_fraction × {n}) series), or validation_fraction=0"
            )
        if n_train < n_classes:
            return (
                f"validation_fraction={fraction} leaves {n_train} of {n} series to train on, "
                f"fewer than the {n_classes} classes: set validation_fraction <= "
                f"{(n - n_classes) / n:.3g}, or validation_fraction=0"
            )
        return None

    def _min_held_out(self, codes) -> int:
        return 2 * len(self.classes_)

    # ---- the fast path's outputs as the network's starting point (sktdi.deep_model.stacking)
    def _ridge_targets(self, fast, y) -> np.ndarray:
        """What the fast path's ridge head regressed on: the classes coded −1 and +1, one
        column per class (one column for two classes)."""
        coded = fast.ridge_._label_binarizer.transform(y).astype(np.float64)  # (n, 1 or K)
        return coded[:, 0] if coded.shape[1] == 1 else coded

    def _fit_fast_path_scale(self, outputs: np.ndarray, codes: np.ndarray, fitted) -> float:
        # the ridge's scores are in the units of its ±1 codes: the temperature that makes
        # them log-odds, fitted on their leave-one-out values. A series alone in its class has
        # no leave-one-out score worth the name (its class is missing from the fit without
        # it), so it is left out; where every class is such, the scale is fitted on the
        # in-sample scores (``fitted()``), which the smoothed targets keep finite
        own = np.bincount(codes)[codes] >= 2  # (n,): series with another of their class
        if not own.any():
            return fit_temperature(ridge_logits(fitted()), codes)
        return fit_temperature(ridge_logits(outputs[own]), codes[own])

    def _offsets(self, outputs: np.ndarray) -> np.ndarray:
        return self.fast_path_scale_ * ridge_logits(outputs)  # (n, n_classes) logits

    def _series_per_class(self, target) -> float:
        return float(np.median(np.bincount(target)))

    @restore_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Run TDI (when ``init="tdi"``) and train the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            A list may hold series of unequal length, each (length_i,) or (n_channels,
            length_i): it is right-padded with zeros and masked, as
            ``sktdi.datasets.pad_sequences(X)`` with its ``lengths`` would be. The
            predictions take such a list too.
        y : array-like of shape (n_samples,)
            Class labels of any hashable type; at least 2 classes.
        lengths : array-like of shape (n_samples,), optional
            True lengths of series of unequal length, right-padded in X: the padding is
            masked (the SSM is causal, and pooling skips it). Predictions need the lengths
            of padded series too: without them, series that end as this padding did warn
            (:class:`~sktdi.PaddedSeriesWarning`).

        Returns
        -------
        self : object
        """
        return self._fit(X, y, epochs=None, partial=False, lengths=lengths)

    @restore_on_error
    def partial_fit(self, X, y, classes=None, lengths=None):
        """One epoch of training at the constant rate ``lr``; the first call builds and
        initializes the network (TDI on this batch). ``classes`` lists every label on the
        first call if the batch lacks some."""
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

    def predict_proba_over_time(self, X, lengths=None):
        """Class probabilities after every time step, (n_samples, length, n_classes).

        Step t holds ``predict_proba`` of the series cut after t + 1 steps, all from one
        forward pass: the network is causal, and its per-step features are pooled as they
        run. A padded series (``lengths``) holds its last step's probabilities from its end
        on. A bidirectional network (``bidirectional=True``), or a model with its fast path
        (whose features need whole series: fit with ``prefix_weight > 0`` or
        ``fast_path=False``), has no prediction for a prefix and raises. The output has one
        row per step: n × length × n_classes floats.

        Examples
        --------
        >>> import numpy as np
        >>> from sktdi import SSMClassifier
        >>> rng = np.random.default_rng(0)
        >>> y = np.repeat([0, 1], 20)
        >>> X = rng.normal(size=(40, 64)) + y[:, None] * np.sin(0.8 * np.arange(64))
        >>> clf = SSMClassifier(max_epochs=2, fast_path=False, input_scaling="channel",
        ...                     random_state=0).fit(X, y)  # a causal scaling: for prefixes
        >>> proba = clf.predict_proba_over_time(X[:3])
        >>> proba.shape
        (3, 64, 2)
        >>> first_10 = list(X[:3, :10])  # each series' first 10 steps
        >>> bool(np.allclose(proba[:, 9], clf.predict_proba(first_10)))
        True
        """
        return torch.softmax(self._forward(X, lengths, over_time=True), dim=-1).numpy()

    def score(self, X, y, sample_weight=None, lengths=None):
        """Mean accuracy of ``predict(X, lengths)`` on y (scikit-learn's ``score``; series
        padded as in ``fit`` need their ``lengths`` here too)."""
        return float(accuracy_score(y, self.predict(X, lengths), sample_weight=sample_weight))


class SSMRegressor(RegressorMixin, _BaseSSM):
    """Sequence regressor: an S4D network with Task-Dependent Initialization, trained by skorch.

    As :class:`SSMClassifier`, with TDI aligned to the input–output cross-spectrum
    (:func:`sktdi.tdi.cross_spectrum`) and a mean-squared-error objective. ``y`` may be 1-D or
    2-D (multi-output); it is standardized internally and predictions are mapped back.

    Parameters
    ----------
    See :class:`SSMClassifier`; every parameter has the same meaning. The defaults differ
    where the regression studies chose otherwise: ``network="s4d"``, whose "auto" settings
    for regression are d_model=64, n_layers=2, pooling="mean", dropout=0.1, dt_max=0.1,
    lr=0.01 (:doc:`/field`); ``network="conv-s4d"`` takes the classifier's.

    Attributes
    ----------
    net_ : skorch.NeuralNetRegressor
    task_spectrum_ : TaskSpectrum or None
    tdi_reports_ : list of TDIReport
    y_mean_, y_scale_ : ndarray of shape (n_outputs,)
        The target standardization.
    fast_path_ : SpectralRidgeRegressor or None
    fast_path_scale_, fast_path_report_
        As for :class:`SSMClassifier` (``fast_path_scale_`` is 1.0: the ridge's predictions
        are in the targets' units).
    network_params_, history_, n_epochs_, n_features_in_, n_channels_, n_timepoints_
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
    # beyond _BaseSSM's declared state: the targets' scaling, one value per output
    _declared_state_extra = {
        "_y_ndim": "int",
        "y_mean_": "float64[n_outputs]",
        "y_scale_": "float64[n_outputs]",
        # absent from files saved before the fast path was added (issue 70)
        "fast_path_": "sktdi.SpectralRidgeRegressor(n_channels_=n_channels_) | None?",
    }
    _fast_path_class = SpectralRidgeRegressor
    _criterion = torch.nn.MSELoss

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
        return (Y - self.y_mean_) / self.y_scale_  # (n, n_outputs) float64, what TDI reads

    def _training_target(self, Y: np.ndarray) -> np.ndarray:
        return Y.astype(np.float32)  # the network trains in float32

    # ---- the fast path's outputs as the network's starting point (sktdi.deep_model.stacking)
    def _ridge_targets(self, fast, y) -> np.ndarray:
        return np.asarray(y, dtype=np.float64)  # (n,) or (n, n_outputs), the ridge's own

    def _fit_fast_path_scale(self, outputs: np.ndarray, target: np.ndarray, fitted) -> float:
        return 1.0  # the ridge's predictions are in the targets' own units

    def _offsets(self, outputs: np.ndarray) -> np.ndarray:
        # in the standardized units the network trains in: (n, n_outputs)
        return (outputs.reshape(len(outputs), -1) - self.y_mean_) / self.y_scale_

    @restore_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, lengths=None):
        """Run TDI (when ``init="tdi"``) and train the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, length) or (n_samples, n_channels, length), or list
            A list may hold series of unequal length, each (length_i,) or (n_channels,
            length_i) (see :meth:`SSMClassifier.fit`).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        lengths : array-like of shape (n_samples,), optional
            True lengths of right-padded series of unequal length; predictions need them too
            (see :meth:`SSMClassifier.fit`).

        Returns
        -------
        self : object
        """
        return self._fit(X, y, epochs=None, partial=False, lengths=lengths)

    @restore_on_error
    def partial_fit(self, X, y, lengths=None):
        """One epoch of training at the constant rate ``lr``; the first call builds and
        initializes the network (TDI on this batch)."""
        if not hasattr(self, "net_"):
            self._validate_params()
        return self._fit(X, y, epochs=1, partial=True, lengths=lengths)

    def predict(self, X, lengths=None):
        """Predictions in the original target units: (n_samples,) or (n_samples, n_outputs)."""
        Y = self._forward(X, lengths).numpy() * self.y_scale_ + self.y_mean_
        return Y.ravel() if self._y_ndim == 1 else Y

    def predict_over_time(self, X, lengths=None):
        """Predictions after every time step, in the target units: (n_samples, length), or
        (n_samples, length, n_outputs) for 2-D targets.

        Step t holds ``predict`` of the series cut after t + 1 steps, all from one forward
        pass (see :meth:`SSMClassifier.predict_proba_over_time`); a padded series holds its
        last step's prediction from its end on; a bidirectional network raises.
        """
        Y = self._forward(X, lengths, over_time=True).numpy() * self.y_scale_ + self.y_mean_
        return Y[..., 0] if self._y_ndim == 1 else Y  # (n, L) or (n, L, n_outputs)

    def score(self, X, y, sample_weight=None, lengths=None):
        """R² of ``predict(X, lengths)`` on y (scikit-learn's ``score``; series padded as in
        ``fit`` need their ``lengths`` here too)."""
        return float(r2_score(y, self.predict(X, lengths), sample_weight=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


# the bridge study (issue 22, docs/deep_model.md): the multi-scale convolution network with an
# S4D layer in every block; its width, depth and pooling ("auto") are the network's recipe
# (sktdi.deep_model.training.NETWORK_RECIPES). Half the depth passed the transfer protocol on
# the UCR sets (issue 36) but was reverted: it lost on the long-series study's tasks
# (docs/long_series.md). The regressor keeps the S4D network (docs/field.md): the base's
# defaults, in an __init__ of its own (whose errors name SSMRegressor)
_override_defaults(SSMClassifier, network="conv-s4d")
_override_defaults(SSMRegressor)
