"""The deep model's network on top of the fast path (issue 70): the estimator layer of
:mod:`sktdi.deep_model.stacking`'s math, as a mixin of :class:`~sktdi.deep_model.base._BaseSSM`.

At a first fit, where the model does not predict prefixes (``fast_path="auto"``), the fast
path (:class:`~sktdi.SpectralRidgeClassifier` or :class:`~sktdi.SpectralRidgeRegressor`,
with MiniRocket's features where sktime is installed) is fitted first; its ridge's
leave-one-out outputs are the offsets the network's outputs are added to in training, its
full outputs at prediction. The network's last layer starts at zero, and early stopping
counts the fast path's own validation loss as its epoch 0
(:class:`~sktdi.deep_model.training.StartFromFastPath`). What differs between the classifier
and the regressor (the ridge's targets and outputs, their scale) are hooks the estimators
fill in.
"""

from __future__ import annotations

import copy
import importlib.util
import warnings

import numpy as np
import torch

from ..fast_path.ridge import ROCKET_MIN_LENGTH
from ..tdi import TDI_INITS
from ..utils.inputs import CAUSAL_SCALINGS, _caller_stacklevel
from .stacking import ridge_loo_outputs, ridge_outputs
from .training import KEEP_MARGIN_SE

# on top of the fast path, validation_fraction="auto" and n_iter_no_change="auto" hold out this
# share of the series and stop after this many epochs that do not beat the best validation
# loss, the fast path's own counted (issue 70, benchmarks/one_model)
FAST_PATH_VALIDATION = 0.2
FAST_PATH_PATIENCE = 10
# the network's ground (issues 76, 77): long recordings, few series per class. There the
# network alone leads the fast path by far (benchmarks/long_series: 1,000 and 4,000 steps, 4
# and 20 series per class); on 21 real archive sets of at most 512 steps it was kept on 4 and
# added nothing to the mean accuracy, at about 80 times the fast path's fit
# (benchmarks/checked_network). Elsewhere the model is its fast path and trains no epoch; a
# set with many series per class is left to the fast path too, for the cost: an epoch there
# takes minutes on a CPU, unmeasured against the fast path (benchmarks/checked_network's long
# runs at these bounds; the archive's run: benchmarks/archive_study)
LONG_SERIES = 1000
FEW_PER_CLASS = 50
# the fewest held-out series that early stopping decides on (a regressor's; a classifier's is
# 2 per class): fewer would decide by chance
MIN_HELD_OUT = 10


def whole_lengths(X3: np.ndarray, lengths) -> np.ndarray:
    """The series' lengths for the fast path: ``lengths``, or the whole length of each series
    of X (n, C, L). Given with lengths, the fast path does not check again, and warn again of,
    the padding the network has already checked (whole lengths change none of its features:
    its validation reads them as no lengths, and its MiniRocket fitted on series of one length
    stays the fixed-length one, :meth:`OnFastPath._check_fast_path_lengths`)."""
    return np.full(len(X3), X3.shape[-1]) if lengths is None else lengths


def _patience(patience, from_fast_path: bool, fraction: float) -> int | None:
    """``n_iter_no_change`` resolved: None (no stop) where no series are held out, else an
    int as given, and "auto" :data:`FAST_PATH_PATIENCE` where the network starts from the
    fast path, else None. Nothing held out with an int happens only where
    ``validation_fraction="auto"`` found too few series (an explicit 0 with an int is
    refused: :meth:`OnFastPath._check_stopping_has_a_split`), and the fit says so."""
    if fraction == 0:
        return None  # nothing to monitor
    if patience != "auto":
        return patience
    return FAST_PATH_PATIENCE if from_fast_path else None


def _has_sktime() -> bool:
    """Whether sktime (for MiniRocket's features) is installed."""
    return importlib.util.find_spec("sktime") is not None


def off_network_ground(length: float, per_class: float) -> str | None:
    """Why training series of this (median) ``length`` and this many ``per_class`` (median)
    are not the network's ground (:data:`LONG_SERIES`, :data:`FEW_PER_CLASS`), or None: the
    one rule the estimators fit by, the benchmark's cost model estimates by and the studies
    read their runs by."""
    if length < LONG_SERIES:
        return (f"series of {length:g} time steps (the median), shorter than the network's "
                f"ground ({LONG_SERIES} or more)")
    if per_class > FEW_PER_CLASS:
        return (f"{per_class:g} series per class (the median), more than the network's "
                f"ground ({FEW_PER_CLASS} or fewer)")
    return None


class OnFastPath:
    """The fit's and the predictions' steps that concern the fast path (see the module
    docstring); the estimator holds ``fast_path``, ``validation_fraction``,
    ``n_iter_no_change`` and the fitted ``fast_path_``, ``fast_path_scale_`` and
    ``fast_path_report_``."""

    def _fast_path_obstacle(self, partial: bool) -> str | None:
        """Why this fit cannot add the fast path, or None: it makes its predictions from
        whole series, so a model that predicts prefixes or streams cannot have it."""
        if partial:
            return "partial_fit trains batch by batch, and the fast path fits a whole training set"
        if self.prefix_weight > 0:
            return (
                f"prefix_weight={self.prefix_weight} trains predictions for prefixes, and the "
                f"fast path predicts from whole series"
            )
        if self._scaling() in ("running", "running+scale"):
            return (
                f"input_scaling={self.input_scaling!r} is for streams, and the fast path "
                f"predicts from whole series"
            )
        return None

    def _check_fast_path(self, partial: bool) -> None:
        if self.fast_path == "auto" or not self.fast_path:
            return
        obstacle = self._fast_path_obstacle(partial)
        if obstacle is not None:
            raise ValueError(
                f"fast_path=True, but {obstacle}: set fast_path='auto' (which leaves it out "
                f"here) or fast_path=False"
            )

    def _uses_fast_path(self, partial: bool) -> bool:
        return bool(self.fast_path) and self._fast_path_obstacle(partial) is None

    def _check_stopping_has_a_split(self, partial: bool) -> None:
        """An int ``n_iter_no_change`` needs series held out: refused where the parameters
        hold out none whatever the data, an explicit ``validation_fraction=0``, or "auto"
        on a model without the fast path (on top of which alone "auto" holds series out).
        Where "auto" is on the fast path, the data decide (:meth:`_stopping`)."""
        patience, fraction = self.n_iter_no_change, self.validation_fraction
        if patience in (None, "auto"):
            return
        if fraction == 0:
            raise ValueError(
                f"n_iter_no_change={patience} needs a validation split to monitor: set "
                f"validation_fraction > 0 (e.g. 0.2), or 'auto' (on the fast path, "
                f"{FAST_PATH_VALIDATION:g} where the data afford it), or n_iter_no_change=None"
            )
        if fraction == "auto" and not self._uses_fast_path(partial):
            why = "fast_path=False" if not self.fast_path else self._fast_path_obstacle(partial)
            raise ValueError(
                f"n_iter_no_change={patience} needs a validation split to monitor, and "
                f"validation_fraction='auto' holds series out only on top of the fast path, "
                f"which this model leaves out ({why}): set validation_fraction > 0 "
                f"(e.g. 0.2), or n_iter_no_change=None"
            )

    def _stopping(self, from_fast_path: bool, target) -> tuple[float, int | None, str | None]:
        """The held-out share and early stopping's patience, each "auto" resolved, and what
        the fit does about them, for ``fast_path_report_``. On top of the fast path, "auto"
        holds out :data:`FAST_PATH_VALIDATION` of the series and stops after
        ``n_iter_no_change`` epochs ("auto": :data:`FAST_PATH_PATIENCE`) that do not beat
        the best validation loss, the fast path's own counted: the network adds only what
        held-out series show it earns. Where that share would hold out fewer than
        :meth:`_min_held_out` series (a few long recordings per class: the network's own
        ground), a held-out set that small would decide by chance and cost the network a
        fifth of its few series: the network alone trains on all of them, for
        ``max_epochs``, whatever ``n_iter_no_change`` says (an int warns that it is not
        applied: an explicit ``validation_fraction`` holds series out regardless). Without
        the fast path, "auto" is as before it: no split, no stop."""
        fraction, patience, note = self.validation_fraction, self.n_iter_no_change, None
        if fraction == "auto":
            fraction = FAST_PATH_VALIDATION if from_fast_path else 0.0
            n_held_out = int(np.ceil(fraction * len(target)))  # as the splits round
            if fraction and (
                n_held_out < self._min_held_out(target)
                or self._validation_split_problem(target, fraction) is not None
            ):
                fraction = 0.0
                too_few = (
                    f"{len(target)} series: too few to hold out {FAST_PATH_VALIDATION:g} of "
                    f"them ({n_held_out}, fewer than {self._min_held_out(target)})"
                )
                note = f"{too_few}, so the network alone trained on all of them"
                if patience != "auto":
                    # an int asks for a stop that has nothing to monitor here: "auto"'s choice
                    # stands, as for the default patience (a fit in a grid search must not
                    # fail on a small fold), and is said
                    note += f" for max_epochs; n_iter_no_change={patience} was not applied"
                    warnings.warn(
                        f"{type(self).__name__}: n_iter_no_change={patience} is not applied, "
                        f"and the network trains on every series for max_epochs: "
                        f"validation_fraction='auto' holds none out of {too_few}. Set "
                        f"validation_fraction > 0 to hold series out regardless (early "
                        f"stopping on so few decides by chance)",
                        UserWarning,
                        stacklevel=_caller_stacklevel(),
                    )
        return fraction, _patience(patience, from_fast_path, fraction), note

    def _fitted_stopping(self) -> dict:
        """:func:`~sktdi.deep_model.training.build_net`'s held-out share, patience and start,
        as the fit resolved them, from the fitted state (a saved network is rebuilt so)."""
        report = self.__dict__.get("fast_path_report_")
        from_fast_path = self.__dict__.get("fast_path_") is not None
        fraction, patience = self.validation_fraction, self.n_iter_no_change
        if report:  # the share the fit built its net with (none where no epoch trained)
            fraction = report["validation_fraction"]
        elif fraction == "auto":
            fraction = 0.0
        return {"validation_fraction": fraction,
                "n_iter_no_change": _patience(patience, from_fast_path, fraction),
                "from_fast_path": from_fast_path}

    def _min_held_out(self, target) -> int:
        """Hook: the fewest held-out series early stopping may decide on (2 per class for a
        classifier)."""
        return MIN_HELD_OUT

    def _fit_fast_path(self, X3, y, target, lengths, seed: int) -> np.ndarray:
        """Fit ``fast_path_`` on the training series; return its leave-one-out outputs as
        the network's offsets (n, n_outputs): the residual is trained against what the fast
        path predicts for series it was not fitted on (:mod:`sktdi.deep_model.stacking`)."""
        shortest = X3.shape[-1] if lengths is None else int(np.min(lengths))
        # MiniRocket's features where sktime is installed and the series are long enough (QUANT's
        # too did not pass issue 77's rule on the choice datasets: benchmarks/fast_path_features)
        rocket = "minirocket" if shortest > ROCKET_MIN_LENGTH and _has_sktime() else None
        # the fast path reads what the network reads: each series' shape where the network's
        # scaling does, else the series as given
        scaling = "series+scale" if self._scaling() in ("series", "series+scale") else "channel"
        # its bank from the same initialization and TDI options as the network's layers (its
        # own copy of the options: set_params on this model after fit must not change it), so
        # that arms that differ by ``init`` differ in both parts
        # (a spectrum given with a named init is ignored, which this model has said once)
        tdi = copy.copy(self.tdi) if self.init in TDI_INITS else None
        fast = self._fast_path_class(
            init=self.init, tdi=tdi, rocket=rocket, input_scaling=scaling, random_state=seed,
        )
        lengths = whole_lengths(X3, lengths)
        fast._validate_params()  # as its fit would: the parameters built above are checked
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # the scaled features its head read (n, F), which the leave-one-out outputs need
            features = fast._fit_returning_features(X3, y, lengths)
        self.fast_path_ = fast
        # its warnings said again from this model (its advice, input_scaling="series+scale",
        # is this model's too), pointing at the caller's line
        fast_name = type(fast).__name__
        for caught_warning in caught:
            message = str(caught_warning.message).replace(fast_name, type(self).__name__, 1)
            warnings.warn(message, caught_warning.category, stacklevel=_caller_stacklevel())
        outputs = ridge_loo_outputs(
            features, self._ridge_targets(fast, y), float(fast.ridge_.alpha_)
        )  # (n,) or (n, T)
        self.fast_path_scale_ = self._fit_fast_path_scale(
            outputs, target, lambda: ridge_outputs(features, fast.ridge_)
        )
        return self._offsets(outputs)

    def _off_network_ground(self, X3, lengths, target) -> str | None:
        """Why these series are not the network's ground (:func:`off_network_ground`), so
        that the model is its fast path and trains no epoch; or None."""
        length = X3.shape[-1] if lengths is None else int(np.median(lengths))
        why = off_network_ground(length, self._series_per_class(target))
        if why is None:
            return None
        return f"{why}: the fast path alone, no epoch trained (fast_path=False trains the network)"

    def _series_per_class(self, target) -> float:
        """Hook: the median number of training series of a class (a regressor's: all)."""
        return float(len(target))

    def _head_is_zero(self) -> bool:
        """Whether every network's last layer is zero: the model's outputs are its fast
        path's, and predicting need not run the network."""
        return all(
            not torch.count_nonzero(network.head.weight)
            and not torch.count_nonzero(network.head.bias)
            for network in self._networks()
        )

    def _start_from_fast_path(self) -> None:
        """Zero each network's last layer: the model's outputs are the fast path's until
        training changes them."""
        with torch.no_grad():
            for network in self._networks():
                network.head.weight.zero_()
                network.head.bias.zero_()

    def _fast_path_report(
        self, fraction: float, patience: int | None, note: str | None, decided: str | None
    ) -> dict:
        """What the fit did with the fast path, for ``fast_path_report_``: among it the
        held-out share and the patience, each "auto" resolved."""
        early = dict(self.net_.callbacks_).get("early_stopping")
        start = getattr(early, "start_loss_", None)
        best_epoch = int(getattr(early, "best_epoch_", self.n_epochs_))
        history = self.net_.history
        best = min((row["valid_loss"] for row in history if "valid_loss" in row), default=None)
        network_adds = best_epoch > 0 if early is not None else self.n_epochs_ > 0
        by_chance = bool(getattr(early, "by_chance_", False))
        if by_chance:
            network_adds = False
            note = note or (
                f"the network's best epoch ({best_epoch}) beat the fast path on the held-out "
                f"series by {early.gain_:.3g} in loss, less than {KEEP_MARGIN_SE:g} standard "
                f"errors of that gain ({KEEP_MARGIN_SE:g} × {early.gain_error_:.3g}): within "
                f"chance, so the fast path alone"
            )
            best_epoch = 0
        if decided is not None:  # chosen before training: the network alone, or the fast path
            network_adds = decided == "network"
            best_epoch = self.n_epochs_ if network_adds else 0
        model = ("network" if decided is not None else "fast path + network") if network_adds \
            else "fast path"
        return {
            "model": model,
            "rocket": self.fast_path_.rocket,
            "validation_fraction": fraction,
            "n_iter_no_change": patience,
            "fast_path_valid_loss": start,
            "best_valid_loss": None if best is None else float(best),
            "best_epoch": best_epoch,
            "network_adds": bool(network_adds),
            "reason": note or self._training_reason(early, network_adds),
        }

    def _training_reason(self, early, network_adds: bool) -> str:
        """Why the network trained on top of the fast path was kept or not, from how its
        training ended."""
        epochs = self.n_epochs_
        if not epochs:
            return "no epoch trained (max_epochs=0): the fast path alone"
        if early is None:  # nothing held out (validation_fraction=0): nothing to check on
            return (f"no series held out (validation_fraction=0): the network trained on every "
                    f"series for {epochs} epochs, not checked against the fast path")
        if network_adds:
            return "the network's best epoch beat the fast path on the held-out series"
        return (f"no epoch of the {epochs} trained beat the fast path on the held-out series "
                f"(training stops after {early.patience} epochs without a better one, or at "
                f"max_epochs): the fast path alone")

    def _fast_path_outputs(self, X3, lengths) -> np.ndarray:
        """The fitted fast path's outputs for X (n, C, L) and its whole_lengths: its ridge
        head's scores (a classifier) or predictions (a regressor), in float64."""
        features = self.fast_path_._features(X3, lengths)  # (n, F)
        return ridge_outputs(features, self.fast_path_.ridge_)  # (n,) or (n, rows)

    def _offsets(self, outputs: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_without_fast_path(self, what: str) -> None:
        """A clear error where ``what`` (a stream, predictions over time) needs the network
        alone, and the model adds the fast path's outputs, which need whole series (a
        bidirectional network's or a whole-series scaling's own error, which no refit without
        the fast path mends, comes first)."""
        if self.__dict__.get("fast_path_") is None or self.bidirectional:
            return
        if self._fitted_scaling() not in CAUSAL_SCALINGS:
            return  # its scaling's own error comes first: a prefix lacks its statistics too
        raise ValueError(
            f"{what} needs predictions for prefixes of a series, and this model adds its fast "
            f"path's outputs (fast_path={self.fast_path!r}), which are computed from whole "
            f"series. Fit a model for prefixes: prefix_weight > 0 or "
            f"input_scaling='running+scale' (which leave the fast path out), or fast_path=False"
        )

    def _fixed_length_reason(self) -> str | None:
        """Why this model needs series of the fit's length (None: it takes any length with
        their lengths), for the length error of :mod:`sktdi.utils.validation`: a fast path
        whose MiniRocket was fitted on series of one length."""
        fast = self.__dict__.get("fast_path_")
        if fast is None or fast._fixed_length_reason() is None:
            return None
        return (
            f"{type(self).__name__} fitted on series of one length adds its fast path's "
            f"MiniRocket (sktime's, fitted on series of one length), which takes series of that "
            f"length only. Fit on series of unequal length (a list of series, or padded X with "
            f"lengths=) for MiniRocket's variable-length transform, or set fast_path=False (the "
            f"network alone takes series of any length)"
        )

    def _check_fast_path_lengths(self, X3, lengths) -> None:
        """A clear error where the fast path cannot take these series: a MiniRocket fitted on
        series of one length (sktime's MiniRocket) takes series of that length only, where
        the network takes any."""
        fast = self.__dict__.get("fast_path_")
        if fast is None or fast._fixed_length_reason() is None:
            return
        fitted = fast.n_timepoints_
        if lengths is None and X3.shape[-1] == fitted:
            return
        got = (
            f"series of {X3.shape[-1]} time steps" if lengths is None
            else f"series of {int(np.min(lengths))} to {int(np.max(lengths))} time steps"
        )
        raise ValueError(
            f"{type(self).__name__} was fitted on series of one length ({fitted}), and its "
            f"fast path's MiniRocket (sktime's, fitted on series of one length) takes series of "
            f"that length only; got {got}. Fit on series of unequal length (a list of series, "
            f"or padded X with lengths=) for MiniRocket's variable-length transform, or set "
            f"fast_path=False (the network alone takes series of any length)"
        )
