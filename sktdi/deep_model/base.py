"""What SSMClassifier and SSMRegressor share (:mod:`sktdi.deep_model.estimators` holds the two
estimators): the parameters, their validation, and the order of a fit's steps; each step has
its own home:

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
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
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
from ..utils.inputs import (
    WITH_SCALE,
    _caller_stacklevel,
    amplitude_carries_task,
    amplitude_spread,
    check_causal_scaling,
    fit_reference,
    fit_standardization,
    network_channels,
    network_input,
    resolve_scaling,
    scale_each_series,
    shape_and_amplitude,
)
from ..utils.memory import keep_freed_memory
from ..utils.options import HasOptionGroups, resolve_options
from ..utils.seeding import random_streams, seeded
from ..utils.threads import flushed_denormals, resolve_n_threads, torch_threads
from ..utils.validation import (
    INPUT_RECORD_STATE,
    check_state_params,
    keyword_only,
    validate_padded_sequences,
)
from .inference import INFERENCE_DTYPES, check_inference_device, inference_module, predict_outputs
from .on_fast_path import OnFastPath, whole_lengths
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
# its statistics so far (causal); "series+scale" and "running+scale": each series' shape by its
# own statistics, its level and scale as channels of their own (issue 64)
INPUT_SCALINGS = ("auto", "channel", "series", "running", "series+scale", "running+scale")


def _loss_still_falling(history) -> bool:
    """Whether the training loss of the fit's last epochs was still falling: the last third's
    mean below 90% of the first third's (a loss that rose, or stalled, was not)."""
    losses = np.asarray([row.get("train_loss", np.nan) for row in history], dtype=float)
    losses = losses[np.isfinite(losses)]
    if len(losses) < 3:
        return True  # too few epochs to tell: more of them is the first thing to try
    third = len(losses) // 3
    return bool(losses[-third:].mean() < 0.9 * losses[:third].mean())


class _BaseSSM(OnFastPath, HasOptionGroups, SaveMixin, BaseEstimator):
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
        "fast_path": ["boolean", StrOptions({"auto"})],
        "validation_fraction": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "n_iter_no_change": [
            None, Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}),
        ],
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
        input_scaling="auto",
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
        fast_path="auto",
        validation_fraction="auto",
        n_iter_no_change="auto",
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
        self.fast_path = fast_path
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
    # and were standardized with one mean and scale per channel; before ``fast_path``, the
    # network was the whole model
    _value_before_parameter_existed = {
        "network": "s4d", "input_scaling": "channel", "fast_path": False,
    }
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
        # absent from files saved before them: None
        "input_reference_": "float64[n_channels_] | None?",
        "input_amplitude_": "int64[n_amplitude] | None?",
        "input_mean_": "float64[n_network_channels]",
        "input_scale_": "float64[n_network_channels]",
        "net_": "net",
        # absent from files saved before the fast path was added (issue 70): None, and 1
        "fast_path_scale_": "float?",
        "fast_path_report_": "data?",
    }
    # attributes not saved: a cache of inference copies, rebuilt at the next prediction
    _not_saved = ("_inference_modules",)

    def _declared_dims(self) -> dict:
        """The network's channels and outputs, which the fitted arrays must match."""
        kwargs = module_kwargs(self.net_)
        kept = self.__dict__.get("input_amplitude_")  # None but for the "+scale" scalings
        return {
            **input_dims(self),
            "n_channels_": kwargs["n_channels"] - (0 if kept is None else len(kept)),
            "n_network_channels": kwargs["n_channels"],
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
        self._check_fast_path(for_partial_fit)
        # partial_fit's error first: no validation_fraction makes early stopping work there,
        # so the advice of _check_stopping_has_a_split (set one > 0) would mislead
        if for_partial_fit and (
            self.validation_fraction not in (0, "auto")
            or self.n_iter_no_change not in (None, "auto")
        ):
            raise ValueError(
                "validation_fraction and n_iter_no_change are for fit: partial_fit trains on "
                "every series it is given (early stopping needs one fixed held-out set); set "
                "validation_fraction=0 and n_iter_no_change=None"
            )
        self._check_stopping_has_a_split(for_partial_fit)
        if self.prefix_weight > 0:
            check_causal_scaling(self._scaling(), f"prefix_weight={self.prefix_weight}")
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
            self.input_scaling_ = self._scaling()
            self.input_reference_ = self.input_amplitude_ = None
            if self.input_scaling_ in WITH_SCALE:
                self.input_reference_ = fit_reference(X3, lengths)
                # the level and scale channels the training set shows to carry the task
                amplitude = shape_and_amplitude(X3, lengths, self.input_reference_)[1]
                self.input_amplitude_ = amplitude_carries_task(amplitude, y, self._task)
            self.input_mean_, self.input_scale_ = fit_standardization(
                self._scaled(X3, lengths), lengths
            )
        return X3, y, lengths

    def _scaled(self, X3, lengths):
        """X (n, C, L) scaled series by series as the fit was (:func:`scale_each_series`):
        (n, C', L), the network's channels before the fit's per-channel standardization."""
        return scale_each_series(
            X3, lengths, self._fitted_scaling(), self.__dict__.get("input_reference_"),
            self.__dict__.get("input_amplitude_"),
        )

    def _tdi_input(self, X3, lengths):
        """What TDI reads: the series as the network sees their shape (each series scaled
        by its own statistics, where the fit's scaling does), not their raw amplitudes, which
        on raw recordings would hide the task's spectrum under each series' gain."""
        if self._fitted_scaling() == "channel":
            return X3
        return self._scaled(X3, lengths)[:, : X3.shape[1]]  # (n, C, L): the shape channels

    def _scaling(self) -> str:
        """``input_scaling`` as a fit resolves it (:func:`~sktdi.utils.inputs.resolve_scaling`):
        "auto" is "series+scale", or "channel" for a model of prefixes."""
        return resolve_scaling(self.input_scaling, for_prefixes=self.prefix_weight > 0)

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
        streams = random_streams(self.random_state)
        offsets = None  # the fast path's outputs (n, n_outputs), which the network adds to
        if first:
            self.fast_path_, self.fast_path_scale_, self.fast_path_report_ = None, 1.0, None
            if self._uses_fast_path(partial):
                offsets = self._fit_fast_path(X3, y, target, lengths, streams.fast_path)
        elif self.__dict__.get("fast_path_") is not None:
            # a warm start continues from the fast path fitted first: its outputs for these
            # series (in-sample for series it was fitted on)
            offsets = self._offsets(self._fast_path_outputs(X3, whole_lengths(X3, lengths)))
        fraction, patience, note = self._stopping(offsets is not None, target)
        decided = None  # the model chosen before any epoch: "fast path" or "network"
        if first and offsets is not None and n_epochs > 0:
            off_ground = self._off_network_ground(X3, lengths, target)
            if off_ground is not None:
                decided, note, n_epochs = "fast path", off_ground, 0
            elif note is not None:
                # too few series to hold any out: on its own ground, the network alone,
                # trained as fast_path=False trains it (a check on folds of half the series
                # chose the fast path where the network alone was far ahead: issue 76)
                decided, offsets = "network", None
            if self.verbose and note is not None:
                print(f"{type(self).__name__}: {note}", flush=True)  # the choice, and why
        # an explicit share that cannot split these series is an error, also where the gate
        # above left the model its fast path: the user asked for that split
        if (n_epochs > 0 or decided == "fast path") and fraction > 0:
            problem = self._validation_split_problem(target, fraction)
            if problem is not None:
                raise ValueError(problem)
        if decided == "fast path":
            fraction, patience = 0.0, None  # no epoch trains: nothing held out, no stop
        # subnormals flushed: an epoch otherwise took up to 20 times as long, at random
        with torch_threads(resolve_n_threads(self.n_threads)), seeded(streams.torch), \
                flushed_denormals():
            if first:
                self.net_ = build_net(
                    self, training,
                    network_channels(self.input_scaling_, X3.shape[1], self.input_amplitude_),
                    self._n_outputs(), streams.split,
                    validation_fraction=fraction, n_iter_no_change=patience,
                    from_fast_path=offsets is not None,
                )
                self.net_.initialize()  # every layer built once, with the base init
                self._initialize_modes(
                    self._tdi_input(X3, lengths), target, streams.tdi, init, tdi,
                    partial=partial, lengths=lengths,
                )
                if offsets is not None:
                    self._start_from_fast_path()
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
                    reference=self.__dict__.get("input_reference_"),
                    kept=self.__dict__.get("input_amplitude_"),
                )
                if lengths is not None or offsets is not None:
                    # skorch unpacks the dict into forward; the net adds the offset
                    # (sktdi.deep_model.training._SSMNetMixin.infer)
                    inputs = {"X": inputs}
                    if lengths is not None:
                        inputs["lengths"] = lengths
                    if offsets is not None:
                        inputs["offset"] = offsets.astype(np.float32)
                self._train(inputs, target, n_epochs, training)
                self.n_epochs_ = len(self.net_.history)
        if first and self.fast_path_ is not None:
            self.fast_path_report_ = self._fast_path_report(fraction, patience, note, decided)
            if decided == "network":
                self.fast_path_ = None  # the network alone predicts
        # the trained weights changed: empty the cache of inference copies before the check
        # below reads them (a refit's held the previous network's), and after it (a fitted
        # model holds no copy until it predicts)
        self._inference_modules = {}
        if n_epochs > 0 and not partial:
            self._warn_if_learned_nothing(X3, lengths, target)
            self._inference_modules = {}
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
        amplitudes = amplitude_spread(X3, lengths)
        if self._fitted_scaling() == "channel" and amplitudes is not None:
            # what the data showed first: one scale per channel cannot serve series whose
            # scales or levels differ this much (a network for prefixes needs a causal form)
            scaling = "running+scale" if self.prefix_weight > 0 else "series+scale"
            tries.append(
                f"input_scaling='{scaling}' (each series' shape by its own statistics, its "
                f"level and scale beside it: {amplitudes}, and one scale per channel leaves "
                f"many series near-constant)"
            )
        more_epochs = f"more epochs (max_epochs > {self.n_epochs_})"
        # the series are alike in scale: training is the question. A loss still falling at
        # the end asks for more epochs first; one that did not fall, for a lower rate
        still_falling = _loss_still_falling(self.net_.history)
        if amplitudes is None and still_falling:
            tries.append(more_epochs)
        recipe_lr = NETWORK_RECIPES[self._task, self.network]["lr"]
        if network["lr"] >= recipe_lr:  # a rate set below the recipe's: not lower still
            tries.append(f"a lower lr (lr={network['lr'] / 10:g})")
        set_by_hand = [name for name in RECIPE_PARAMETERS if getattr(self, name) != "auto"]
        if set_by_hand:
            tries.append(
                f"the network's tested settings (leave {', '.join(set_by_hand)} at 'auto')"
            )
        if more_epochs not in tries:
            tries.append(more_epochs)
        fast = "SpectralRidgeClassifier" if self._task == "classification" else (
            "SpectralRidgeRegressor"
        )
        # a model with its fast path holds that check already: it is at chance too
        check = "" if self.__dict__.get("fast_path_") is not None else (
            f"; or sktdi's {fast} (the fast path), to check that the data hold the task"
        )
        warnings.warn(
            f"{type(self).__name__} learned nothing from its training series: after "
            f"{self.n_epochs_} epochs, its {reason}. Try {'; '.join(tries)}{check}",
            ConvergenceWarning,
            stacklevel=_caller_stacklevel(),
        )

    def _network_spec(self, n_channels: int, n_outputs: int) -> tuple[type, dict]:
        """Hook: the network's module class and keyword arguments (see
        :func:`sktdi.deep_model.training.network_spec`)."""
        return network_spec(self, n_channels, n_outputs)

    def _validation_split_problem(self, target, fraction: float) -> str | None:
        """Hook: why a classifier's stratified validation split cannot be drawn, or None."""
        return None

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

    def frequency_response(
        self, layer: int = 0, n_freqs: int = 512
    ) -> tuple[np.ndarray, np.ndarray]:
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
            check_causal_scaling(self._fitted_scaling(), "a prediction over time",
                                 fast_path=self.__dict__.get("fast_path_") is not None)
        if over_time:
            self._check_without_fast_path("a prediction over time")
        X3, _, lengths = self._validate(X, reset=False, lengths=lengths)
        self._check_fast_path_lengths(X3, lengths)
        if self.__dict__.get("fast_path_") is not None and not over_time and self._head_is_zero():
            # no epoch changed the network's zero last layer: its outputs are zero, and the
            # model's are the fast path's (the network's forward pass cost up to 10 times
            # the fast path's prediction)
            offsets = self._offsets(self._fast_path_outputs(X3, whole_lengths(X3, lengths)))
            dtype = INFERENCE_DTYPES[self.inference_dtype]
            return torch.as_tensor(offsets, dtype=dtype)  # (n, n_outputs)
        module = self._inference_module()
        keep_freed_memory()  # the batches are prepared on the CPU

        def prepare(batch, batch_lengths):
            # standardized batch by batch: a float64 copy of the whole X would grow with n
            return network_input(
                batch, self.input_mean_, self.input_scale_, batch_lengths, np.float64,
                scaling=self._fitted_scaling(), reference=self.__dict__.get("input_reference_"),
                kept=self.__dict__.get("input_amplitude_"),
            )

        with torch_threads(resolve_n_threads(self.n_threads)):
            outputs = predict_outputs(module, X3, lengths, prepare=prepare, over_time=over_time)
        if self.__dict__.get("fast_path_") is not None:
            whole = whole_lengths(X3, lengths)
            offsets = self._offsets(self._fast_path_outputs(X3, whole))  # (n, n_outputs)
            outputs = outputs + torch.as_tensor(offsets, dtype=outputs.dtype)
        return outputs

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
        >>> clf = SSMClassifier(max_epochs=2, fast_path=False, input_scaling="channel",
        ...                     random_state=0).fit(X, y)  # a causal scaling: for prefixes
        >>> live = clf.stream(n_streams=2)
        >>> for k in range(64):  # one sample of each of 2 series, (n_streams, n_channels)
        ...     proba = live.update(X[:2, k : k + 1]).predict_proba()
        >>> bool(np.allclose(proba, clf.predict_proba(X[:2])))
        True
        """
        check_is_fitted(self)
        self._check_without_fast_path("a stream")
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
