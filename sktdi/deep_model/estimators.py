"""SSMClassifier and SSMRegressor: scikit-learn estimators over a skorch-managed S4D network.

Composition, not inheritance: each estimator is a plain scikit-learn estimator whose ``fit``
validates the data, builds a skorch ``NeuralNetClassifier``/``NeuralNetRegressor`` around
:class:`~sktdi.ssm.ConvS4DNetwork` or :class:`~sktdi.ssm.S4DNetwork` (stored as ``net_``),
runs TDI on a subsample to set the initial SSM modes, and trains with skorch. This module
holds the parameters and the order of the steps; each step has its own home:

- data handling (standardization, padding masks): :mod:`sktdi.utils.inputs`;
- the skorch network and its schedule: :mod:`sktdi.deep_model.training`;
- the fit's independent random streams: :mod:`sktdi.utils.seeding`;
- TDI: :func:`sktdi.tdi.initialize_layers`;
- inference precision and the batched forward pass: :mod:`sktdi.deep_model.inference`.
"""

from __future__ import annotations

import inspect
import warnings
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import LabelEncoder
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..persistence import SaveMixin
from ..persistence.declared import input_dims
from ..ssm import INIT_NAMES, NETWORKS, POOLINGS
from ..tdi import (
    TDI_INITS,
    InitPlan,
    InitRequest,
    TDIOptions,
    initialize_layers,
    read_init,
)
from ..tdi.options import FLAT_TDI_PARAMETERS
from ..utils.inputs import (  # noqa: F401 - PaddedSeriesWarning: public here, for filters
    PaddedSeriesWarning,
    _caller_stacklevel,
    check_causal_scaling,
    fit_standardization,
    network_input,
    scale_each_series,
)
from ..utils.memory import keep_freed_memory
from ..utils.options import HasOptionGroups, resolve_options
from ..utils.seeding import random_streams, seeded
from ..utils.threads import resolve_n_threads, torch_threads
from ..utils.validation import (
    INPUT_RECORD_STATE,
    check_state_params,
    check_two_classes,
    keyword_only,
    plain,
    restore_on_error,
    validate_padded_sequences,
)
from .inference import INFERENCE_DTYPES, check_inference_device, inference_module, predict_outputs
from .saved_net import check_network_as_fitted, load_net, module_kwargs, net_record
from .streaming import PredictionStream
from .training import (
    NETWORK_RECIPES,
    RECIPE_PARAMETERS,
    TrainingDivergedError,
    TrainingOptions,
    build_net,
    check_network_params,
    diverged_error,
    finite_weights,
    learned_nothing,
    network_parameters,
    network_spec,
    resolve_device,
    resolved_network_params,
)

MIN_LENGTH = 2  # a single time step is a tabular feature, not a sequence
# "channel": one mean and scale per channel for every series (the default: the raw-data study
# adopted neither other, docs/raw_data.md); "series": each series standardized by its own
# statistics (gain and offset free; a whole series' statistics: not causal); "running": by
# its statistics so far (causal)
INPUT_SCALINGS = ("channel", "series", "running")


class _BaseSSM(HasOptionGroups, SaveMixin, BaseEstimator):
    """Parameters and the order of the fit's steps, shared by the classifier and regressor."""

    _parameter_constraints: dict = {
        "init": [StrOptions({*TDI_INITS, *INIT_NAMES})],
        "network": [StrOptions(set(NETWORKS))],
        "input_scaling": [StrOptions(set(INPUT_SCALINGS))],
        "d_model": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_layers": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "d_state": [Interval(Integral, 2, None, closed="left")],
        "dropout": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "pooling": [StrOptions({*POOLINGS, "auto"})],
        "bidirectional": ["boolean"],
        "dt_min": [Interval(Real, 0, None, closed="neither")],
        "dt_max": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "prefix_weight": [Interval(Real, 0, 1, closed="both")],
        "validation_fraction": [Interval(Real, 0, 1, closed="left")],
        "n_iter_no_change": [None, Interval(Integral, 1, None, closed="left")],
        "tdi": [None, TDIOptions],
        "training": [None, TrainingOptions],
        "inference_dtype": [StrOptions(set(INFERENCE_DTYPES))],
        "device": [str],
        "n_threads": [None, Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
    }
    _option_groups = {"tdi": TDIOptions, "training": TrainingOptions}

    def __init__(
        self,
        *,
        init="tdi",
        network="s4d",
        input_scaling="channel",
        d_model="auto",
        n_layers="auto",
        d_state=64,
        dropout="auto",
        pooling="auto",
        bidirectional=False,
        dt_min=1e-3,
        dt_max="auto",
        n_estimators=1,
        max_epochs=100,
        batch_size=16,
        lr="auto",
        prefix_weight=0.0,
        validation_fraction=0.0,
        n_iter_no_change=None,
        tdi=None,
        training=None,
        inference_dtype="float64",
        device="auto",
        n_threads=None,
        random_state=None,
        verbose=0,
        warm_start=False,
    ):
        self.init = init
        self.network = network
        self.input_scaling = input_scaling
        self.d_model = d_model
        self.n_layers = n_layers
        self.d_state = d_state
        self.dropout = dropout
        self.pooling = pooling
        self.bidirectional = bidirectional
        self.dt_min = dt_min
        self.dt_max = dt_max
        self.n_estimators = n_estimators
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.prefix_weight = prefix_weight
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tdi = tdi
        self.training = training
        self.inference_dtype = inference_dtype
        self.device = device
        self.n_threads = n_threads
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    # files saved before ``network`` existed hold the S4D network (sktdi.persistence reads this)
    # and were standardized with one mean and scale per channel
    _value_before_parameter_existed = {"network": "s4d", "input_scaling": "channel"}
    # files saved before the option groups (sktdi.persistence.current_params maps them): the
    # tdi_* parameters are tdi=TDIOptions(...), the training ones training=TrainingOptions(...);
    # scale_inputs and prenorm were removed, and their effect is in the saved state (the
    # fitted input_mean_/input_scale_; the saved network's module keywords,
    # sktdi.deep_model.saved_net)
    _parameters_moved = {
        **FLAT_TDI_PARAMETERS,
        "tdi_layers": "tdi__layers",
        **{name: f"training__{name}" for name in (
            "augment", "ssm_lr", "weight_decay", "lr_schedule", "grad_clip",
        )},
    }
    _parameters_removed = ("scale_inputs", "prenorm")

    # ---- saving (sktdi.persistence's hooks): the network is stored as its module's
    # settings, weights, optimizer state and history, and rebuilt from the parameters on load
    # the fitted state, checked on load (sktdi.persistence.declared); the network's tensors are
    # checked against the network the parameters build (sktdi.deep_model.saved_net)
    _declared_state = {
        **INPUT_RECORD_STATE,
        "n_epochs_": "int",
        "init_report_": "data",
        "task_spectrum_": "sktdi.tdi.TaskSpectrum | None",
        "tdi_reports_": "data",
        "input_scaling_": "str?",  # absent from files saved before it: "channel"
        "input_mean_": "float64[n_channels_]",
        "input_scale_": "float64[n_channels_]",
        "net_": "net",
    }
    # attributes not saved: a cache of inference copies, rebuilt at the next prediction
    _not_saved = ("_inference_modules",)

    def _declared_dims(self) -> dict:
        """The network's channels and outputs, which the fitted arrays must match."""
        kwargs = module_kwargs(self.net_)
        return {
            **input_dims(self),
            "n_channels_": kwargs["n_channels"],
            "n_outputs": kwargs["n_outputs"],
        }

    def _check_describes_fit(self, params: dict) -> None:
        super()._check_describes_fit(params)
        if "net_" in vars(self):  # an unfitted one (a parameter) has no network
            check_network_as_fitted(self, self.net_)

    def _saved_state(self, writer, key: str) -> dict:
        attributes = self._fitted_attributes()
        for name in self._not_saved:
            attributes.pop(name, None)
        net = attributes.pop("net_", None)
        state = writer.encode_attributes(attributes, key)
        if net is not None:
            state["net_"] = net_record(writer, self, net, f"{key}/attributes/net_")
        return state

    @classmethod
    def _from_saved_state(cls, reader, params: dict, attributes: dict):
        attributes = dict(attributes)
        net = attributes.pop("net_", None)  # built last: from the other attributes too
        estimator = super()._from_saved_state(reader, params, attributes)
        if net is not None:
            estimator.net_ = load_net(reader, estimator, net)
        return estimator

    # ---- hooks for the subclasses -------------------------------------------------------
    _task: str
    _criterion: type

    def _encode_targets(self, y, *, reset: bool, classes=None):  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- checks ---------------------------------------------------------------------------
    def _more_validate_params(
        self, for_partial_fit: bool = False, building: bool = True
    ) -> tuple[InitRequest, TDIOptions, TrainingOptions]:
        """Parameter combinations the constraints cannot express: an error or a warning,
        never a silent no-op (scikit-learn's SGD pattern). Returns what the fit uses, each
        read and checked once: ``init`` (:func:`sktdi.tdi.read_init`) and the option groups,
        their defaults for None."""
        check_state_params(self.d_state, self.dt_min, resolved_network_params(self)["dt_max"])
        check_network_params(self)
        if self.n_iter_no_change is not None and self.validation_fraction == 0:
            raise ValueError(
                f"n_iter_no_change={self.n_iter_no_change} needs a validation split to "
                f"monitor: set validation_fraction > 0 (e.g. 0.2), or n_iter_no_change=None"
            )
        if for_partial_fit and (self.validation_fraction > 0 or self.n_iter_no_change is not None):
            raise ValueError(
                "validation_fraction and n_iter_no_change are for fit: partial_fit trains on "
                "every series it is given (early stopping needs one fixed held-out set); set "
                "validation_fraction=0 and n_iter_no_change=None"
            )
        if self.prefix_weight > 0:
            check_causal_scaling(self.input_scaling, f"prefix_weight={self.prefix_weight}")
        if self.prefix_weight > 0 and self.bidirectional:
            raise ValueError(
                f"prefix_weight={self.prefix_weight} trains the predictions for prefixes, which "
                f"a bidirectional network does not have (each step sees the whole series); set "
                f"bidirectional=False, or prefix_weight=0"
            )
        tdi = resolve_options(self.tdi, TDIOptions)
        training = resolve_options(self.training, TrainingOptions)
        # a spectrum given with a named init warns when a network is built
        init = read_init(self.init, tdi.spectrum if building else None)
        check_inference_device(self.inference_dtype, resolve_device(self.device))
        return init, tdi, training

    # ---- data ----------------------------------------------------------------------------
    def _validate(self, X, y="no_validation", *, reset: bool, lengths=None):
        fitting = not isinstance(y, str)  # predictions pass no y ("no_validation")
        y_kwargs = {"multi_output": self._task == "regression"} if fitting else {}
        # a list of series of unequal length is padded here; the fit records its padding,
        # and predictions of series that look padded, given without lengths, warn
        X3, y, lengths = validate_padded_sequences(
            self, X, y, lengths=lengths, reset=reset, min_length=MIN_LENGTH, **y_kwargs
        )
        if reset:
            self.input_scaling_ = self.input_scaling
            self.input_mean_, self.input_scale_ = fit_standardization(
                scale_each_series(X3, lengths, self.input_scaling_), lengths
            )
        return X3, y, lengths

    def _fitted_scaling(self) -> str:
        """The input scaling the fit used (``input_scaling_``; "channel" for models saved
        before it existed, which scaled so)."""
        return self.__dict__.get("input_scaling_", "channel")

    # ---- the fit: build, TDI, train ------------------------------------------------------
    def _initialize_modes(
        self,
        X3,
        target,
        seed: int,
        init: InitRequest,
        options: TDIOptions,
        *,
        partial: bool,
        lengths=None,
    ):
        """TDI (``init`` and ``options``, :meth:`_more_validate_params`'s) on the freshly
        built network (its layers hold the base initialization)."""
        depth = 1 if options.layers == "first" else None
        layers = [layer for network in self._networks() for layer in network.ssm_layers[:depth]]
        try:
            plan, self.tdi_reports_ = initialize_layers(
                layers,
                X3,
                target,
                init=init,
                task=self._task,
                options=options,
                random_state=seed,
                lengths=lengths,
            )
        except ValueError as exc:
            if not partial:
                raise
            # a first partial_fit batch may hold one class or too few series to contrast
            warnings.warn(
                f"TDI skipped, the first partial_fit batch cannot support it ({exc}); "
                f"the network keeps its base initialization",
                UserWarning,
                stacklevel=_caller_stacklevel(),
            )
            plan = InitPlan(
                requested=init.requested, chosen=init.base, channel_share=0.0, reason=str(exc)
            )
            self.tdi_reports_ = []
        self.task_spectrum_ = plan.spectrum
        self.init_report_ = plan.report(self.tdi_reports_)

    def _fit(self, X, y, *, epochs: int | None, partial: bool, classes=None, lengths=None):
        first = not (partial or self.warm_start) or not hasattr(self, "net_")
        init, tdi, training = self._more_validate_params(for_partial_fit=partial, building=first)
        X3, y, lengths = self._validate(X, y, reset=first, lengths=lengths)
        target = self._encode_targets(y, reset=first, classes=classes)
        n_epochs = self.max_epochs if epochs is None else epochs
        if n_epochs > 0:
            self._check_validation_split(target)
        streams = random_streams(self.random_state)
        with torch_threads(resolve_n_threads(self.n_threads)), seeded(streams.torch):
            if first:
                self.net_ = build_net(
                    self, training, X3.shape[1], self._n_outputs(), streams.split
                )
                self.net_.initialize()  # every layer built once, with the base init
                self._initialize_modes(
                    X3, target, streams.tdi, init, tdi, partial=partial, lengths=lengths
                )
                self.n_epochs_ = 0
            if n_epochs > 0:
                if not first:
                    # the weights change in place: empty (not replace) the cache of their
                    # inference copies, so that it stays empty should restore_on_error put
                    # the attributes back after an interruption
                    self.__dict__.get("_inference_modules", {}).clear()
                if str(self.net_.device).startswith("cpu"):
                    keep_freed_memory()  # a CPU step's page faults are a third of its time
                inputs = network_input(
                    X3, self.input_mean_, self.input_scale_, lengths,
                    scaling=self._fitted_scaling(),
                )
                if lengths is not None:
                    inputs = {"X": inputs, "lengths": lengths}  # skorch unpacks it into forward
                self._train(inputs, target, n_epochs, training)
                self.n_epochs_ = len(self.net_.history)
        if n_epochs > 0 and not partial:
            self._warn_if_learned_nothing(X3, lengths, target)
        self._inference_modules = {}  # the trained weights changed
        return self

    def _train(self, inputs, target, n_epochs: int, training: TrainingOptions) -> None:
        """skorch's training, stopped with an error that names the settings where the loss
        or the weights stop being finite (a NaN model predicted NaN without a word)."""
        try:
            self.net_.partial_fit(inputs, self._training_target(target), epochs=n_epochs)
        except TrainingDivergedError as exc:  # the first non-finite batch loss
            raise diverged_error(str(exc), self, training) from None
        if not finite_weights(self.net_.module_):  # the last step broke them
            raise diverged_error(
                "the network's weights became NaN or infinite at the last training step",
                self,
                training,
            )

    def _warn_if_learned_nothing(self, X3, lengths, target) -> None:
        """A :class:`~sklearn.exceptions.ConvergenceWarning` when the fitted network is at
        chance on its own training series (:func:`~sktdi.deep_model.training.learned_nothing`,
        one prediction pass over them), naming what to try: a fit that learned nothing must
        not look like any other."""
        outputs = self._forward(X3, lengths).numpy()  # (n, n_outputs)
        reason = learned_nothing(outputs, target, self._task)
        if reason is None:
            return
        network = resolved_network_params(self)
        tries = []
        if self._fitted_scaling() == "channel":
            # a network trained for prefixes needs a causal scaling
            scaling, by = (
                ("running", "its statistics so far") if self.prefix_weight > 0
                else ("series", "its own statistics")
            )
            tries.append(
                f"input_scaling='{scaling}' (each series scaled by {by}: amplitudes that "
                "differ by orders of magnitude leave many series near-constant otherwise)"
            )
        recipe_lr = NETWORK_RECIPES[self._task, self.network]["lr"]
        if network["lr"] >= recipe_lr:  # a rate set below the recipe's: not lower still
            tries.append(f"a lower lr (lr={network['lr'] / 10:g})")
        set_by_hand = [name for name in RECIPE_PARAMETERS if getattr(self, name) != "auto"]
        if set_by_hand:
            tries.append(
                f"the network's tested settings (leave {', '.join(set_by_hand)} at 'auto')"
            )
        tries.append(f"more epochs (max_epochs > {self.n_epochs_})")
        fast = "SpectralRidgeClassifier" if self._task == "classification" else (
            "SpectralRidgeRegressor"
        )
        warnings.warn(
            f"{type(self).__name__} learned nothing from its training series: after "
            f"{self.n_epochs_} epochs, its {reason}. Try "
            f"{'; '.join(tries)}; or sktdi's {fast} (the fast path), to check that the data "
            f"hold the task",
            ConvergenceWarning,
            stacklevel=_caller_stacklevel(),
        )

    def _network_spec(self, n_channels: int, n_outputs: int) -> tuple[type, dict]:
        """Hook: the network's module class and keyword arguments (see
        :func:`sktdi.deep_model.training.network_spec`)."""
        return network_spec(self, n_channels, n_outputs)

    def _check_validation_split(self, target) -> None:
        """Hook: a classifier checks that its stratified validation split can be drawn."""

    def _networks(self) -> list:
        """The trained S4DNetwork, or each member of an ensemble (``n_estimators > 1``)."""
        module = self.net_.module_
        return list(getattr(module, "members", [module]))

    # ---- public --------------------------------------------------------------------------
    @property
    def history_(self):
        """skorch's per-epoch history (losses, learning rates, durations)."""
        check_is_fitted(self)
        return self.net_.history

    @property
    def network_params_(self) -> dict:
        """The fitted network's settings, each ``"auto"`` resolved to the value it took:
        ``{"d_model", "n_layers", "pooling", "dropout", "dt_max", "lr"}``, read from the
        fitted network (:data:`~sktdi.deep_model.training.NETWORK_RECIPES` holds each
        network's values)."""
        check_is_fitted(self)
        fitted = network_parameters(self.net_.module, module_kwargs(self.net_))
        fitted["lr"] = self.net_.lr
        return {name: fitted[name] for name in RECIPE_PARAMETERS}

    def frequency_response(self, layer: int = 0, n_freqs: int = 512) -> tuple[np.ndarray, np.ndarray]:
        """(freqs (n_freqs,) in cycles/sample, ``|H|`` (d_model, n_freqs)) of one S4D layer
        (of the first network, in an ensemble; a bidirectional layer's causal kernel, whose
        poles its anti-causal kernel shares)."""
        check_is_fitted(self)
        ssm = self._networks()[0].ssm_layers[layer]
        freqs, magnitude = ssm.frequency_response(n_freqs)
        return freqs.cpu().numpy(), magnitude.cpu().numpy()

    def _forward(self, X, lengths=None, over_time=False) -> torch.Tensor:
        """Network outputs (n, n_outputs) on the CPU, in the precision ``inference_dtype``;
        with ``over_time``, after every step: (n, L, n_outputs)."""
        check_is_fitted(self)
        if over_time and not self.bidirectional:  # a bidirectional network's own error first
            check_causal_scaling(self._fitted_scaling(), "a prediction over time")
        X3, _, lengths = self._validate(X, reset=False, lengths=lengths)
        module = self._inference_module()
        keep_freed_memory()  # the batches are prepared on the CPU

        def prepare(batch, batch_lengths):
            # standardized batch by batch: a float64 copy of the whole X would grow with n
            return network_input(
                batch, self.input_mean_, self.input_scale_, batch_lengths, np.float64,
                scaling=self._fitted_scaling(),
            )

        with torch_threads(resolve_n_threads(self.n_threads)):
            return predict_outputs(module, X3, lengths, prepare=prepare, over_time=over_time)

    def _inference_module(self) -> torch.nn.Module:
        """The trained network in eval mode, in the precision ``inference_dtype`` (a cached
        copy when that is not the training precision)."""
        modules = self.__dict__.setdefault("_inference_modules", {})
        if self.inference_dtype not in modules:
            modules[self.inference_dtype] = inference_module(
                self.net_.module_, self.inference_dtype
            )
        return modules[self.inference_dtype]

    def stream(self, n_streams: int = 1):
        """A :class:`~sktdi.PredictionStream`: predictions for ``n_streams`` series that
        arrive a sample (or a chunk of samples) at a time, updated by the network's recurrent
        mode at a constant cost and memory per sample. The stream is a snapshot of the model
        as it is now: training or refitting the estimator afterwards does not change it.

        Examples
        --------
        >>> import numpy as np
        >>> from sktdi import SSMClassifier
        >>> rng = np.random.default_rng(0)
        >>> y = np.repeat([0, 1], 20)
        >>> X = rng.normal(size=(40, 64)) + y[:, None] * np.sin(0.8 * np.arange(64))
        >>> clf = SSMClassifier(max_epochs=2, random_state=0).fit(X, y)
        >>> live = clf.stream(n_streams=2)
        >>> for k in range(64):  # one sample of each of 2 series, (n_streams, n_channels)
        ...     proba = live.update(X[:2, k : k + 1]).predict_proba()
        >>> bool(np.allclose(proba, clf.predict_proba(X[:2])))
        True
        """
        check_is_fitted(self)
        return PredictionStream(self, n_streams)

    def __getstate__(self):
        # the inference copies are a cache, rebuilt at the next prediction; pickled, they would
        # hold tensors on the training device, and a model predicted with on CUDA would fail to
        # unpickle on a CPU-only machine (skorch maps only its own net's tensors to the CPU)
        state = dict(super().__getstate__())  # a copy: object's may be the live __dict__
        state.pop("_inference_modules", None)
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags


class SSMClassifier(ClassifierMixin, _BaseSSM):
    """Sequence classifier: an S4D network with Task-Dependent Initialization, trained by skorch.

    ``fit`` validates X, encodes the labels, estimates the Fisher log-power statistic between
    classes and aligns the initial SSM modes with it (``init="tdi"``), then trains with AdamW
    on shuffled minibatches, a cosine learning-rate schedule and optional early stopping.
    :doc:`/which_model` says when to use it; :doc:`/estimators` describes each step.

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
    input_scaling : {"channel", "series", "running"}, default="channel"
        "channel": one mean and scale per channel for all series. "series": each series by
        the mean and scale of its own steps, so a gain or an offset changes nothing: for raw
        recordings whose amplitudes span orders of magnitude (:doc:`/raw_data`). "running":
        by those of its steps so far, the same for streams and predictions over time.
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
    validation_fraction : float, default=0.0
        Share of the training data held out (stratified) to monitor the validation loss.
        Not with ``partial_fit``.
    n_iter_no_change : int or None, default=None
        Stop after this many epochs without a better validation loss and restore the best
        weights; needs ``validation_fraction > 0``.
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
        worker's share of the cores, else torch's setting. Set 1 when several processes
        fit at once on one machine (:doc:`/estimators`).
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
    n_epochs_ : int
        Epochs trained so far.
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
    }

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

    def _check_validation_split(self, codes: np.ndarray) -> None:
        """The stratified split skorch draws (scikit-learn's StratifiedShuffleSplit) fails
        deep inside skorch, without naming validation_fraction; say why, and what to do."""
        if self.validation_fraction == 0:
            return
        present, counts = np.unique(codes, return_counts=True)
        fraction = self.validation_fraction
        single = present[counts < 2]
        if single.size:
            labels = ", ".join(repr(plain(label)) for label in self.classes_[single][:5])
            which = f"class {labels} has" if single.size == 1 else f"classes {labels} have"
            raise ValueError(
                f"validation_fraction={fraction} holds out a stratified share of every class, "
                f"but {which} only 1 series in y: set validation_fraction=0 (no "
                f"validation split; n_iter_no_change=None too), or give every class at least "
                f"2 series"
            )
        n, n_classes = len(codes), len(present)
        n_valid = int(np.ceil(fraction * n))  # how StratifiedShuffleSplit rounds
        n_train = n - n_valid
        if n_valid < n_classes:
            raise ValueError(
                f"validation_fraction={fraction} holds out {n_valid} of {n} series, fewer than "
                f"the {n_classes} classes, and a stratified split needs one series of each: "
                f"set validation_fraction >= {n_classes / n:.3g}, or validation_fraction=0"
            )
        if n_train < n_classes:
            raise ValueError(
                f"validation_fraction={fraction} leaves {n_train} of {n} series to train on, "
                f"fewer than the {n_classes} classes: set validation_fraction <= "
                f"{(n - n_classes) / n:.3g}, or validation_fraction=0"
            )

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
        on. A bidirectional network (``bidirectional=True``) has no prediction for a prefix
        and raises. The output has one row per step: n × length × n_classes floats.

        Examples
        --------
        >>> import numpy as np
        >>> from sktdi import SSMClassifier
        >>> rng = np.random.default_rng(0)
        >>> y = np.repeat([0, 1], 20)
        >>> X = rng.normal(size=(40, 64)) + y[:, None] * np.sin(0.8 * np.arange(64))
        >>> clf = SSMClassifier(max_epochs=2, random_state=0).fit(X, y)
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
    }
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


def _override_defaults(cls, **defaults):
    """Give ``cls`` the shared ``_BaseSSM.__init__`` with some defaults changed.

    scikit-learn reads an estimator's parameters and defaults from its ``__init__`` signature
    (``get_params``, ``clone``, the conformance checks), so the signature carries the new
    defaults; the parameters, their order and the keyword-only rule stay the base's, in one
    place.
    """
    base = inspect.signature(_BaseSSM.__init__)
    unknown = set(defaults) - set(base.parameters)
    if unknown:
        raise TypeError(f"not parameters of {cls.__name__}: {sorted(unknown)}")

    @keyword_only  # which also refuses a keyword that is not in the signature below
    def __init__(self, **params):
        _BaseSSM.__init__(self, **{**defaults, **params})

    __init__.__signature__ = base.replace(
        parameters=[
            p.replace(default=defaults.get(p.name, p.default)) for p in base.parameters.values()
        ]
    )
    __init__.__qualname__ = f"{cls.__name__}.__init__"
    cls.__init__ = __init__
    return cls


# the bridge study (issue 22, docs/deep_model.md): the multi-scale convolution network with an
# S4D layer in every block; its width, depth and pooling ("auto") are the network's recipe
# (sktdi.deep_model.training.NETWORK_RECIPES). Half the depth passed the transfer protocol on
# the UCR sets (issue 36) but was reverted: it lost on the long-series study's tasks
# (docs/long_series.md). The regressor keeps the S4D network (docs/field.md): the base's
# defaults, in an __init__ of its own (whose errors name SSMRegressor)
_override_defaults(SSMClassifier, network="conv-s4d")
_override_defaults(SSMRegressor)
