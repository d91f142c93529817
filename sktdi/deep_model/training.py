"""Training: the skorch network an estimator wraps and its learning-rate schedule.

The estimator (:mod:`sktdi.deep_model.estimators`) holds the parameters; here they become a skorch
``NeuralNetClassifier``/``NeuralNetRegressor`` around :class:`~sktdi.ssm.S4DNetwork`, with the
SSM parameters in an optimizer group of their own. The fit's random streams:
:mod:`sktdi.utils.seeding`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from copy import deepcopy
from numbers import Real

import numpy as np
import torch
from sklearn.utils._param_validation import Interval, StrOptions
from skorch.callbacks import (
    Callback,
    EarlyStopping,
    GradientNormClipping,
    LRScheduler,
    PrintLog,
    ProgressBar,
)
from skorch.classifier import NeuralNetClassifier
from skorch.dataset import ValidSplit, unpack_data
from skorch.regressor import NeuralNetRegressor
from skorch.utils import to_tensor

from ..ssm import NETWORKS, SSM_PARAMETER_NAMES, S4DEnsemble
from ..ssm.network import valid_steps
from ..tdi import read_init
from ..utils.devices import check_device, resolve_device  # noqa: F401 - used by the estimators
from ..utils.options import OptionGroup
from ..utils.validation import keyword_only
from .augmentation import AUGMENTATIONS, augment_batch

PREDICT_BATCH_SIZE = 1024

# each network's tested settings, by task: what a parameter left at "auto" becomes in fit.
# conv-s4d: the bridge study's (docs/deep_model.md; InceptionTime's width, depth and pooling);
# s4d for classification: the S4D network's own (at conv-s4d's width and depth it scored at
# chance, docs/long_series.md); s4d for regression: the regression study's (docs/field.md)
_CONV_S4D_RECIPE = {
    "d_model": 128, "n_layers": 6, "pooling": "mean", "dropout": 0.0, "dt_max": 0.1, "lr": 1e-2,
}
NETWORK_RECIPES = {
    ("classification", "conv-s4d"): _CONV_S4D_RECIPE,
    ("classification", "s4d"): {
        "d_model": 64, "n_layers": 2, "pooling": "mean-max", "dropout": 0.1, "dt_max": 1.0,
        "lr": 1e-2,
    },
    ("regression", "conv-s4d"): _CONV_S4D_RECIPE,  # no study of its own: the classifier's
    ("regression", "s4d"): {
        "d_model": 64, "n_layers": 2, "pooling": "mean", "dropout": 0.1, "dt_max": 0.1,
        "lr": 1e-2,
    },
}
RECIPE_PARAMETERS = ("d_model", "n_layers", "pooling", "dropout", "dt_max", "lr")


def resolved_network_params(estimator) -> dict:
    """``estimator``'s network settings (:data:`RECIPE_PARAMETERS`) with every ``"auto"``
    replaced by its network's tested value for the estimator's task (:data:`NETWORK_RECIPES`).

    Examples
    --------
    >>> from sktdi import SSMClassifier
    >>> from sktdi.deep_model.training import resolved_network_params
    >>> resolved_network_params(SSMClassifier(network="s4d", n_layers=4))
    {'d_model': 64, 'n_layers': 4, 'pooling': 'mean-max', 'dropout': 0.1, 'dt_max': 1.0, 'lr': 0.01}
    """
    recipe = NETWORK_RECIPES[estimator._task, estimator.network]
    return {
        name: recipe[name] if _is_auto(getattr(estimator, name)) else getattr(estimator, name)
        for name in RECIPE_PARAMETERS
    }


def _is_auto(value) -> bool:
    return isinstance(value, str) and value == "auto"


class TrainingOptions(OptionGroup):
    """How the network trains, beyond ``lr``, ``max_epochs`` and ``batch_size``; the defaults
    suit most tasks.

    Pass it as ``training=TrainingOptions(...)`` to :class:`~sktdi.SSMClassifier` or
    :class:`~sktdi.SSMRegressor`; ``GridSearchCV`` reaches a field as ``training__<field>``.
    :doc:`/estimators` describes the training loop.

    Parameters
    ----------
    augment : {"none", "jitter", "scale", "slice", "jitter-scale", "all"}, default="none"
        Label-preserving transforms of each training minibatch, their strengths in
        :mod:`sktdi.deep_model.augmentation`; predictions never see them. On the default
        network window slicing, alone and with jitter and scaling, lowered cross-validated
        accuracy (docs/deep_model.md): leave "none" unless your data's study says otherwise.
    ssm_lr : float, default=1e-3
        AdamW learning rate of the SSM parameters A, B and dt (no weight decay).
    weight_decay : float, default=0.01
        AdamW weight decay of every parameter but A, B and dt.
    lr_schedule : {"cosine", "constant"}, default="cosine"
        Cosine annealing over ``max_epochs`` in every ``fit`` call, or a constant rate
        (``partial_fit`` always trains at the first rate).
    grad_clip : float or None, default=1.0
        Largest gradient norm per step (None: no clipping).

    Examples
    --------
    >>> from sktdi import SSMClassifier, TrainingOptions
    >>> clf = SSMClassifier(training=TrainingOptions(grad_clip=5.0))
    >>> clf.set_params(training__weight_decay=0.1).training.weight_decay
    0.1
    """

    _parameter_constraints: dict = {
        "augment": [StrOptions(set(AUGMENTATIONS))],
        "ssm_lr": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "lr_schedule": [StrOptions({"cosine", "constant"})],
        "grad_clip": [None, Interval(Real, 0, None, closed="neither")],
    }

    @keyword_only
    def __init__(
        self, *, augment="none", ssm_lr=1e-3, weight_decay=0.01, lr_schedule="cosine", grad_clip=1.0
    ):
        self.augment = augment
        self.ssm_lr = ssm_lr
        self.weight_decay = weight_decay
        self.lr_schedule = lr_schedule
        self.grad_clip = grad_clip


class RestartingLRScheduler(LRScheduler):
    """skorch's LRScheduler, restarted at every training call.

    skorch resumes a schedule where the net's history ends, so a second ``fit`` with
    ``warm_start`` (or a ``partial_fit``) would continue a cosine schedule past its end, at a
    learning rate near 0. Here each call starts the schedule afresh from the configured rates,
    as scikit-learn's SGD resets ``t_`` in every ``fit``. Under ``partial_fit`` (one epoch a
    call) the rate is therefore the schedule's first: constant.
    """

    def on_train_begin(self, net, **kwargs):
        for group in net.optimizer_.param_groups:
            group["lr"] = group.get("initial_lr", group["lr"])
        self.batch_idx_ = 0
        self.lr_scheduler_ = self.policy_(net.optimizer_, last_epoch=-1, **self.kwargs)


class LearningRates(Callback):
    """Record each epoch's learning rates: ``event_lr``, the rate of every parameter but the
    SSM's (the user's ``lr``), and ``event_ssm_lr``, the rate of A, B and dt (``ssm_lr``).

    skorch's LRScheduler records the *first* optimizer group's rate, which is the SSM group
    (skorch puts the pattern-matched groups first and the remaining parameters last), so a
    log showed ``ssm_lr`` under the name ``lr``. Recorded at the start of the epoch, after any
    schedule's restart and before its step: the rates the epoch trains at, with a constant
    schedule too. PrintLog shows them as the columns ``lr`` and ``ssm_lr``.
    """

    def on_epoch_begin(self, net, **kwargs):
        *ssm_groups, main = net.optimizer_.param_groups
        net.history.record("event_lr", main["lr"])
        if ssm_groups:
            net.history.record("event_ssm_lr", ssm_groups[0]["lr"])


class TrainingDivergedError(ValueError):
    """Training reached a NaN or infinite loss, or NaN or infinite weights: the model would
    predict NaN. The message names the settings it diverged with and what to try.

    A ``ValueError``, as scikit-learn's estimators raise for settings that do not fit the
    data.
    """


class FiniteLoss(Callback):
    """Stop training at the first training batch whose loss is NaN or infinite.

    Once the loss is not finite, every later step makes the weights NaN: the epochs left
    would cost time and give a model that predicts NaN (and labels from an argmax of NaN).
    The loss is skorch's record of the batch, a float already: no extra synchronization with
    a GPU. The estimator turns the error into one that names its settings.
    """

    def on_batch_end(self, net, batch=None, training=None, **kwargs):
        if not training:
            return
        loss = net.history[-1, "batches", -1, "train_loss"]
        if not math.isfinite(loss):
            raise TrainingDivergedError(
                f"the training loss was {loss} at epoch {len(net.history)}, batch "
                f"{len(net.history[-1, 'batches'])}"
            )


def learned_nothing(outputs: np.ndarray, target: np.ndarray, task: str) -> str | None:
    """Why a fitted network is at chance on its own training series, or None. ``outputs``:
    its outputs for them in eval mode (logits, or standardized predictions), (n, O);
    ``target``: the training targets as the network trained on them (class codes (n,), or
    standardized values (n, O)).

    A classifier is at chance when its accuracy on its training series is less than halfway
    from the largest class's share to 1; a regressor when its R² there (mean over outputs)
    is below 0.1. A network that learned anything fits its own training series far better:
    in the raw-data study (:doc:`/raw_data`) the classifiers that learned scored 0.78 or
    more on their training series, those that failed 0.71 or less.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.deep_model.training import learned_nothing
    >>> codes = np.repeat([0, 1, 2, 3], 15)
    >>> logits = np.eye(4)[np.r_[codes[:30], np.zeros(30, int)]]  # the last 30 all class 0
    >>> print(learned_nothing(logits, codes, "classification"))
    accuracy on its own training series is 0.5, less than halfway from the largest class's share (0.25) to 1
    >>> learned_nothing(np.eye(4)[codes], codes, "classification")
    """
    if task == "regression":
        Y, P = target.reshape(len(target), -1), outputs.reshape(len(outputs), -1)
        spread = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)  # (O,)
        r2 = float(np.mean(1 - ((Y - P) ** 2).sum(axis=0) / np.where(spread > 0, spread, 1)))
        if r2 < 0.1:
            return (
                f"R² on its own training series is {r2:.3g}, no better than predicting the "
                "mean (0) or barely"
            )
        return None
    majority = np.bincount(target).max() / len(target)
    accuracy = float(np.mean(outputs.argmax(axis=1) == target))
    if accuracy < majority + 0.5 * (1 - majority):
        return (
            f"accuracy on its own training series is {accuracy:.3g}, less than halfway from "
            f"the largest class's share ({majority:.3g}) to 1"
        )
    return None


class ReleaseFreedMemory(Callback):
    """Hand the heap's free memory back to the system at the end of every epoch of a fit on
    series so long that the network recomputes its block outputs (on a CPU, block outputs of
    at least ``MMAP_THRESHOLD_BYTES``: 16,000 steps at batch 16; ``recomputes_block_outputs``
    of :class:`~sktdi.ssm.ConvS4DNetwork`, and of an ensemble of them).

    A CPU fit keeps freed memory for the next batch (:mod:`sktdi.utils.memory`), and glibc
    trims only the top of its heap. On such series the free pieces below the top grew with
    the epochs, all of them resident, since an epoch whose last batch is shorter than the
    others lays the next epoch's blocks out anew: at the end of a batch of a 40-series fit of
    16,000 steps the heap held over ten times as much free as in use, and the fit's peak rose
    by half over six epochs. The release costs the next batch its page faults, once an epoch:
    a few percent of an epoch there. At 8,000 steps, where the network keeps its block
    outputs, it cost a sixth of an epoch for a tenth of the peak
    (``benchmarks/long_series/results/long_series_memory_release_8k.csv``): shorter series keep their freed memory.
    """

    def on_train_begin(self, net, **kwargs):
        self.long_series_ = False

    def on_batch_begin(self, net, batch=None, training=None, **kwargs):
        if not training or self.long_series_:
            return
        X = batch[0]["X"] if isinstance(batch[0], dict) else batch[0]  # (B, C, L)
        recomputes = getattr(net.module_, "recomputes_block_outputs", None)
        with torch.enable_grad():  # as the training step will run
            self.long_series_ = bool(
                recomputes is not None and torch.is_tensor(X)
                and str(net.device).startswith("cpu") and recomputes(X)
            )

    def on_epoch_end(self, net, **kwargs):
        from ..utils.memory import release_freed_memory

        if self.long_series_:
            release_freed_memory()


def finite_weights(module: torch.nn.Module) -> bool:
    """Whether every parameter of ``module`` is finite (no NaN, no infinity)."""
    with torch.no_grad():
        return all(bool(torch.isfinite(p).all()) for p in module.parameters())


def diverged_error(what: str, estimator, training: TrainingOptions) -> TrainingDivergedError:
    """The error for a training that diverged (``what``: where), in the user's terms: the
    settings that drive a step's size and the network's scale, and what to change."""
    report = getattr(estimator, "init_report_", None) or {}
    network = resolved_network_params(estimator)
    init = repr(estimator.init)
    if report.get("n_aligned_channels"):
        init += f" (TDI aligned {report['n_aligned_channels']} channels)"
    settings = ", ".join([
        f"lr={network['lr']!r}",
        f"training.ssm_lr={training.ssm_lr!r}",
        f"training.grad_clip={training.grad_clip!r}",
        f"batch_size={estimator.batch_size!r}",
        f"network={estimator.network!r}",
        f"d_model={network['d_model']!r}",
        f"d_state={estimator.d_state!r}",
        f"n_layers={network['n_layers']!r}",
        f"init={init}",
    ])
    clip = (
        "" if training.grad_clip is not None
        else ", clip the gradients (training=TrainingOptions(grad_clip=1.0))"
    )
    return TrainingDivergedError(
        f"training diverged: {what}, so the model would predict NaN. It trained with "
        f"{settings}. Try a lower lr (e.g. lr={network['lr'] / 10:g}){clip}, or "
        f"init='s4d-lin' if TDI's modes are the cause; then fit again"
    )


class PlainWhenPipedPrintLog(PrintLog):
    """skorch's PrintLog without ANSI colour codes when stdout is not a terminal.

    PrintLog colours the epochs' best values; in a log file or a pipe the escape codes are
    noise. Decided at each line, as ``print`` writes to whatever ``sys.stdout`` is then.
    """

    def format_row(self, row, key, color):
        if _stdout_is_tty():
            return super().format_row(row, key, color)
        # without the "<key>_best" flag PrintLog formats the value without colour
        return super().format_row({k: v for k, v in row.items() if k != key + "_best"}, key, color)


class _SSMNetMixin:
    """What the estimators add to skorch's nets: augmented training batches, ensembles, and
    the loss on the predictions for prefixes.

    ``augment`` (a key of :data:`sktdi.deep_model.augmentation.AUGMENTATIONS`) transforms each
    training minibatch before the forward pass; validation and prediction batches are left alone. An
    :class:`~sktdi.ssm.S4DEnsemble` module returns one output per member in training, and the
    loss is the mean of the members' losses. ``prefix_weight`` > 0 trains on every prefix
    too: the loss is ``(1 - w)`` times the loss on the whole series plus ``w`` times the mean
    loss over the outputs after every step (:func:`prefix_loss`).
    """

    def __init__(self, *args, augment: str = "none", prefix_weight: float = 0.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.augment = augment
        self.prefix_weight = prefix_weight

    def train_step_single(self, batch, **fit_params):
        Xi, yi = unpack_data(batch)
        if self.augment != "none":
            if isinstance(Xi, dict):  # {"X": padded series, "lengths": ...}
                Xi = {**Xi, "X": augment_batch(Xi["X"], self.augment, padded=True)}
            else:
                Xi = augment_batch(Xi, self.augment)
        if not self.prefix_weight:
            return super().train_step_single((Xi, yi), **fit_params)
        # skorch's step with the outputs over time in place of the forward pass
        self._set_training(True)
        Xi = to_tensor(Xi if isinstance(Xi, dict) else {"X": Xi}, device=self.device)
        over_time = self.module_.outputs_over_time(**Xi)  # (B, L, O), ensemble (B, M, L, O)
        loss = prefix_loss(self, over_time, yi, self.prefix_weight, Xi.get("lengths"))
        loss.backward()
        return {"loss": loss, "y_pred": over_time[..., -1, :]}

    def infer(self, x, **fit_params):
        """skorch's forward pass; where the inputs carry an ``"offset"`` (the fast path's
        outputs, :mod:`sktdi.deep_model.stacking`), the network's outputs are added to it."""
        if not (isinstance(x, Mapping) and "offset" in x):
            return super().infer(x, **fit_params)
        x = dict(x)
        offset = to_tensor(x.pop("offset"), device=self.device)  # (B, O)
        outputs = super().infer(x, **fit_params)  # (B, O), an ensemble in training (B, M, O)
        if outputs.dim() == 3:
            offset = offset.unsqueeze(1)  # (B, 1, O): the same offset for every member
        return outputs + offset.to(outputs.dtype)

    def get_loss(self, y_pred, y_true, *args, **kwargs):
        if y_pred.dim() == 3:  # (B, members, outputs): an ensemble in training mode
            losses = [
                super(_SSMNetMixin, self).get_loss(y_pred[:, m], y_true, *args, **kwargs)
                for m in range(y_pred.shape[1])
            ]
            return torch.stack(losses).mean()
        return super().get_loss(y_pred, y_true, *args, **kwargs)


# how prefix_loss weighs a series' steps: "uniform", every step the same, or "ramp", step t
# in proportion to t (towards the end); a switch for the study that chose uniform
PREFIX_STEPS = "uniform"


def prefix_loss(
    net,
    over_time: torch.Tensor,
    y_true: torch.Tensor,
    weight: float,
    lengths: torch.Tensor | None = None,
) -> torch.Tensor:
    """``(1 - weight)`` · the loss of the whole series (the last step's output) + ``weight`` ·
    the loss of the outputs after every step, each prefix labelled with its series' target.

    ``over_time``: (B, L, O), or (B, M, L, O) for an ensemble's members; ``lengths`` (B,):
    padded series' own lengths. Each series weighs the same, its own steps equally: a model
    trained so is calibrated on short prefixes (unsure where the series has not yet told the
    classes apart), which is what a probability threshold needs.
    """
    y_true = y_true.to(over_time.device)
    final = net.get_loss(over_time[..., -1, :], y_true, training=True)
    return (1 - weight) * final + weight * _every_step_loss(net, over_time, y_true, lengths)


def _every_step_loss(net, over_time, y_true, lengths) -> torch.Tensor:
    """Each series' loss averaged over its own steps, then over the series and the members."""
    criterion = type(net.criterion_)(reduction="none")  # the net's loss, per element
    members = over_time if over_time.dim() == 4 else over_time.unsqueeze(1)  # (B, M, L, O)
    B, M, L, _ = members.shape
    factory = {"dtype": members.dtype, "device": members.device}
    own = torch.full((B,), L, device=members.device) if lengths is None else lengths
    weights = valid_steps(own.to(members.device), L, members.dtype)[..., 0]  # (B, L): own steps
    if PREFIX_STEPS == "ramp":
        weights = weights * torch.arange(1, L + 1, **factory)  # (B, L), step t weighs t
    weights = weights / weights.sum(dim=-1, keepdim=True)  # (B, L), each row sums to 1
    targets = y_true.repeat_interleave(L, dim=0)  # (B·L, ...)
    losses = []
    for m in range(M):
        loss = criterion(members[:, m].flatten(0, 1), targets)  # (B·L,) or (B·L, O)
        loss = loss.reshape(B, L, -1).mean(dim=-1)  # (B, L)
        losses.append((loss * weights).sum(dim=-1).mean())
    return torch.stack(losses).mean()


# the network's best epoch is kept only where its held-out loss beats the fast path's by more
# than this many standard errors of the mean of their paired per-series differences: the best
# of a few dozen epochs on a few held-out series beats the fast path by chance alone (in issue
# 75's archive run, one fit in three that kept the network scored below its fast path)
KEEP_MARGIN_SE = 2.0


def beats_by_margin(
    start_losses: np.ndarray, losses: np.ndarray, margin: float = KEEP_MARGIN_SE
) -> tuple[bool, float, float]:
    """Whether per-series ``losses`` (n,) beat ``start_losses`` (n,), paired, by more than
    ``margin`` standard errors of their mean difference (0: by any amount); with the mean
    gain and its standard error.

    Examples
    --------
    >>> start = np.array([0.9, 0.8, 1.0, 0.7])
    >>> beats_by_margin(start, start - 0.5)[0], beats_by_margin(start, start[::-1])[0]
    (True, False)
    """
    gain = np.asarray(start_losses, np.float64) - np.asarray(losses, np.float64)  # (n,)
    mean = float(gain.mean())
    spread = float(gain.std(ddof=1)) if len(gain) > 1 else 0.0
    error = spread / np.sqrt(len(gain))
    return bool(mean > 0 and mean > margin * error), mean, error


class StartFromFastPath(EarlyStopping):
    """skorch's early stopping, counting the state training starts from as its epoch 0.

    The network added to the fast path starts with its last layer at zero: its predictions
    are the fast path's. At the start of training, the validation loss of that state is the
    one to beat, and its weights are the best so far; an epoch counts only where it beats
    the best, and after ``patience`` epochs that do not, the best weights are restored. So
    where no epoch beats the fast path on the held-out series, the model ends as it started:
    the fast path, and training stopped ``patience`` epochs in. Where the best epoch beats it
    by less than the held-out series can tell apart (:func:`beats_by_margin`), the starting
    state is restored too, and ``by_chance_`` says so.
    """

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        super().on_train_begin(net, X=X, y=y, **kwargs)
        self.start_losses_ = validation_losses(net, X, y)  # (n_valid,)
        self.start_loss_ = float(self.start_losses_.mean())
        self.dynamic_threshold_ = self._calc_new_threshold(self.start_loss_)
        self.best_model_weights_ = deepcopy(net.module_.state_dict())
        self.start_weights_ = self.best_model_weights_
        self.best_epoch_ = 0  # skorch numbers the epochs from 1: 0 is the starting state
        self.by_chance_ = False
        self.gain_ = self.gain_error_ = None

    def on_train_end(self, net, X=None, y=None, **kwargs):
        super().on_train_end(net, X=X, y=y, **kwargs)  # the best epoch's weights restored
        if self.best_epoch_ == 0:
            return
        keep, self.gain_, self.gain_error_ = beats_by_margin(
            self.start_losses_, validation_losses(net, X, y)
        )
        if not keep:
            net.module_.load_state_dict(self.start_weights_)
            self.by_chance_ = True


def validation_losses(net, X, y) -> np.ndarray:
    """The loss of ``net`` as it is on each validation series its ``train_split`` holds out
    of (X, y), (n_valid,): their mean is skorch's ``valid_loss``."""
    _, dataset_valid = net.get_split_datasets(X, y)
    losses = []
    for batch in net.get_iterator(dataset_valid, training=False):
        y_pred = net.evaluation_step(batch, training=False)  # (B, O)
        y_true = to_tensor(unpack_data(batch)[1], device=net.device)  # (B,) or (B, O)
        losses += [net.get_loss(y_pred[i : i + 1], y_true[i : i + 1]).item()
                   for i in range(len(y_pred))]
    return np.asarray(losses, dtype=np.float64)


class SSMNetClassifier(_SSMNetMixin, NeuralNetClassifier):
    """skorch's NeuralNetClassifier with augmentation and ensemble training."""


class SSMNetRegressor(_SSMNetMixin, NeuralNetRegressor):
    """skorch's NeuralNetRegressor with augmentation and ensemble training."""


def _stdout_is_tty() -> bool:
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def build_net(
    estimator,
    training: TrainingOptions,
    n_channels: int,
    n_outputs: int,
    split_seed: int,
    *,
    validation_fraction: float = 0.0,
    n_iter_no_change: int | None = None,
    from_fast_path: bool = False,
):
    """The skorch net for ``estimator``'s parameters and its ``training`` options (not yet
    initialized), with the held-out share and early stopping the fit resolved; a network
    added to the fast path (``from_fast_path``) stops early against the fast path's own
    validation loss (:class:`StartFromFastPath`)."""
    callbacks = [("learning_rates", LearningRates()), ("finite_loss", FiniteLoss()),
                 ("release_freed_memory", ReleaseFreedMemory())]
    if training.grad_clip is not None:
        callbacks.append(("grad_clip", GradientNormClipping(training.grad_clip)))
    if training.lr_schedule == "cosine" and estimator.max_epochs > 0:
        schedule = RestartingLRScheduler(
            policy=torch.optim.lr_scheduler.CosineAnnealingLR,
            T_max=estimator.max_epochs,
            event_name=None,  # LearningRates records the rates, by group
        )
        callbacks.append(("lr_schedule", schedule))
    if n_iter_no_change is not None:
        stopping = StartFromFastPath if from_fast_path else EarlyStopping
        early = stopping(patience=n_iter_no_change, load_best=True)
        callbacks.append(("early_stopping", early))
    if estimator.verbose >= 2 and _stdout_is_tty():
        # a piped progress bar is redrawn in place by carriage returns: in a log it is a
        # line of empty or garbled bars, so it is shown on a terminal only
        callbacks.append(("progress", ProgressBar()))
    train_split = None
    if validation_fraction > 0:
        train_split = ValidSplit(
            validation_fraction,
            stratified=estimator._task == "classification",
            random_state=split_seed,
        )
    # the one optimizer-group mechanism: A, B and dt by name, own rate, no weight decay
    ssm_group = {"lr": training.ssm_lr, "weight_decay": 0.0}
    module, module_kwargs = estimator._network_spec(n_channels, n_outputs)
    net_class = SSMNetClassifier if estimator._task == "classification" else SSMNetRegressor
    return net_class(
        module=module,
        **{f"module__{name}": value for name, value in module_kwargs.items()},
        augment=training.augment,
        prefix_weight=estimator.prefix_weight,
        criterion=estimator._criterion,
        optimizer=torch.optim.AdamW,
        optimizer__weight_decay=training.weight_decay,
        optimizer__param_groups=[(f"*ssm.{name}", ssm_group) for name in SSM_PARAMETER_NAMES],
        lr=resolved_network_params(estimator)["lr"],
        max_epochs=estimator.max_epochs,
        batch_size=estimator.batch_size,
        iterator_train__shuffle=True,
        iterator_valid__batch_size=max(estimator.batch_size, PREDICT_BATCH_SIZE),
        train_split=train_split,
        callbacks=callbacks,
        callbacks__print_log=PlainWhenPipedPrintLog(),
        device=resolve_device(estimator.device),
        verbose=int(estimator.verbose >= 1),
    )


def check_network_params(estimator) -> None:
    """The parameters that one of the two networks cannot honour: an error naming them."""
    if estimator.network != "conv-s4d":
        return
    d_model = resolved_network_params(estimator)["d_model"]
    if d_model % 4:
        raise ValueError(
            f"network='conv-s4d' splits d_model over four branches (three convolution widths "
            f"and a max-pool), so d_model must be a multiple of 4; got {d_model}"
        )


def network_spec(estimator, n_channels: int, n_outputs: int) -> tuple[type, dict]:
    """(module class, its keyword arguments) for ``estimator``'s network: a
    :class:`~sktdi.ssm.ConvS4DNetwork` or :class:`~sktdi.ssm.S4DNetwork`, or an
    :class:`~sktdi.ssm.S4DEnsemble` of them."""
    network = resolved_network_params(estimator)
    kwargs = {
        "n_channels": n_channels,
        "n_outputs": n_outputs,
        "d_state": estimator.d_state,
        "dropout": network["dropout"],
        "pooling": network["pooling"],
        "init": read_init(estimator.init).base,  # what the layers are built with
        "dt_min": estimator.dt_min,
        "dt_max": network["dt_max"],
    }
    if estimator.network == "conv-s4d":
        kwargs.update(depth=network["n_layers"], n_filters=network["d_model"] // 4)
        if estimator.bidirectional:
            # only when set: the causal network's files from before it existed hold no such
            # argument, and a saved network must match the one its parameters build
            kwargs["bidirectional"] = True
    else:
        kwargs.update(
            d_model=network["d_model"],
            n_layers=network["n_layers"],
            bidirectional=estimator.bidirectional,
        )
    if estimator.n_estimators == 1:
        return NETWORKS[estimator.network], kwargs
    combine = "probabilities" if estimator._task == "classification" else "mean"
    return S4DEnsemble, {
        "n_members": estimator.n_estimators, "combine": combine, "network": estimator.network,
        **kwargs,
    }


def network_parameters(module: type, module_kwargs: dict) -> dict:
    """The estimator parameters :func:`network_spec` made ``(module, module_kwargs)`` from,
    by their public names (``d_model``, ``n_layers``, ``network``, ``n_estimators``, ...):
    what an error about a network can name. ``init`` is the base initialization the layers
    are built with (``read_init(init).base``, :func:`sktdi.tdi.read_init`); the data's ``n_channels`` and
    ``n_outputs`` are left out.

    Examples
    --------
    >>> from sktdi import SSMClassifier
    >>> from sktdi.deep_model.training import network_parameters, network_spec
    >>> spec = network_spec(SSMClassifier(d_model=32, n_layers=2), 1, 2)
    >>> {k: v for k, v in network_parameters(*spec).items() if k in ("d_model", "n_layers")}
    {'d_model': 32, 'n_layers': 2}
    """
    kwargs = dict(module_kwargs)
    kwargs.pop("n_channels", None)
    kwargs.pop("n_outputs", None)
    if module is S4DEnsemble:
        parameters = {"n_estimators": kwargs.pop("n_members"), "network": kwargs.pop("network")}
        kwargs.pop("combine", None)  # the task's, not a parameter
    else:
        names = [name for name, cls in NETWORKS.items() if cls is module]
        parameters = {"n_estimators": 1, "network": names[0] if names else module.__name__}
    if "n_filters" in kwargs:  # conv-s4d: d_model as four branches of n_filters
        parameters["d_model"] = 4 * kwargs.pop("n_filters")
    if "depth" in kwargs:
        parameters["n_layers"] = kwargs.pop("depth")
    parameters.update(kwargs)
    return parameters
