"""Streaming: a fitted deep model's predictions for series that arrive a sample at a time.

The networks are causal, and each has a recurrent mode (``initial_state``, ``step``): the
S4D layers carry their state, the convolutions their last few inputs, the pooling its running
sums. A :class:`PredictionStream` holds that state for ``n_streams`` series and updates it
with every sample, at a constant cost and memory per sample, however long the streams run.
After t samples its predictions equal the estimator's on the series' first t steps. On a
CPU both networks run a compiled step (:mod:`sktdi.deep_model.stream_kernels`: every block in one
numba call per sample), and a chunk of samples the convolution mode with the state carried
across chunks; ensembles and GPUs step through torch.

A stream is a snapshot of the estimator as it was when the stream was made: an eval-mode copy
of its network, on the network's device, with the input scaling and the classes of that fit.
Training the estimator further (``partial_fit``, a ``warm_start`` fit) or refitting it while
the stream runs changes nothing in the stream.
"""

from __future__ import annotations

import copy
from numbers import Integral

import numpy as np
import torch
from sklearn.utils.validation import check_is_fitted

from ..utils.inputs import (
    CONSTANT_SO_FAR,
    RunningMoments,
    check_causal_scaling,
    running_shape_level_scale,
    running_standardize,
)
from ..utils.threads import resolve_n_threads, torch_threads
from ..utils.validation import check_not_text
from .stream_kernels import (
    all_finite,
    compiled_stepper,
    running_scale_sample,
    running_shape_sample,
    scale_sample,
)

# a sample of these types takes the compiled path of one sample (PredictionStream._feed_sample)
_SAMPLE_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def _raise_lost_streams(outputs: np.ndarray) -> None:
    """Finite samples can still overflow inside the network (values near the precision's
    limit): a stream's running state then stays NaN or infinite for good. Say which streams,
    every time their outputs are read, rather than let their predictions go quietly NaN; each
    stream's state is its own, so the others go on. outputs: (S, O), some not finite."""
    lost = np.flatnonzero(~np.isfinite(outputs).all(axis=-1)).tolist()
    raise ValueError(
        f"the state of stream(s) {lost} overflowed: a sample was too large for the network "
        "to carry, and their predictions are NaN from here on (the samples were taken). Drop "
        "them with keep(...) to go on with the others, or start a new stream"
    )


class PredictionStream:
    """Predictions for ``n_streams`` series fed to a fitted model as they arrive.

    Made by :meth:`SSMClassifier.stream <sktdi.SSMClassifier.stream>` (or
    ``SSMRegressor.stream``). Feed samples with :meth:`update`, read the predictions for the
    series so far with :meth:`predict` (and :meth:`predict_proba` for a classifier).

    Parameters
    ----------
    estimator : fitted SSMClassifier or SSMRegressor
        The stream is a snapshot of it: an eval-mode copy of its network (on the device it
        was trained on, where each sample is moved), its input scaling and classes as they
        are now; training or refitting the estimator later leaves the stream as it is.
    n_streams : int
        Series followed at once.

    Attributes
    ----------
    n_streams : int
    n_steps_ : int
        Samples fed so far to each stream.
    """

    def __init__(self, estimator, n_streams: int = 1):
        if not callable(getattr(estimator, "_inference_module", None)):
            raise TypeError(
                "PredictionStream follows a fitted SSMClassifier or SSMRegressor (or use their "
                f"stream() method); got {type(estimator).__name__}"
            )
        check_is_fitted(estimator)
        if not estimator.bidirectional:  # a bidirectional network's own error first
            check_causal_scaling(estimator._fitted_scaling(), "a stream",
                                 fast_path=estimator.__dict__.get("fast_path_") is not None)
        if not isinstance(n_streams, Integral) or isinstance(n_streams, bool) or n_streams < 1:
            raise ValueError(f"n_streams must be a positive int, got {n_streams!r}")
        self.n_streams = int(n_streams)
        self._kind = type(estimator).__name__
        module = estimator._inference_module()
        if module is estimator.net_.module_:
            # float32 inference uses the trained module itself, which further training
            # changes in place and leaves in training mode (dropout on, BatchNorm on the
            # batch's statistics): the stream takes a copy of its own. The float64 copy is
            # already one, never trained nor changed (a fit replaces it, in a new cache)
            module = copy.deepcopy(module).eval()
        self._module = module
        reference = next(module.parameters())
        self._dtype, self._device = reference.dtype, reference.device
        # what the stream reads of the fit, as it was: a refit assigns new arrays
        self._n_channels = estimator.n_channels_
        self._input_mean = np.array(estimator.input_mean_, dtype=np.float64)  # (C,)
        self._input_scale = np.array(estimator.input_scale_, dtype=np.float64)  # (C,)
        # input_scaling="running": each stream's running moments, from its first sample on
        self._running = estimator._fitted_scaling() == "running"
        # input_scaling="running+scale": the shape so far, and the levels and scales kept,
        # in the fit's reference unit
        self._with_scale = estimator._fitted_scaling() == "running+scale"
        self._reference = estimator.__dict__.get("input_reference_")
        self._kept = estimator.__dict__.get("input_amplitude_")
        if self._with_scale:  # each level's and scale's channel of the network (-1: none)
            self._position = np.full(2 * self._n_channels, -1, dtype=np.int64)  # (2C,)
            self._position[self._kept] = self._n_channels + np.arange(len(self._kept))
        self._moments = None
        self._classes = getattr(estimator, "classes_", None)
        if self._classes is not None:
            self._classes = self._classes.copy()
        else:
            self._y_mean, self._y_scale = estimator.y_mean_.copy(), estimator.y_scale_.copy()
            self._y_ndim = estimator._y_ndim
        self._n_threads = estimator.n_threads
        self._state = None
        with torch.no_grad():
            self._stepper = compiled_stepper(module, self.n_streams)  # holds the state
            if self._stepper is None:  # an ensemble, a GPU: torch's step, state on the device
                self._state = self._module.initial_state(self.n_streams)
        self._output = None  # (n_streams, n_outputs) after the last sample
        self.n_steps_ = 0

    def update(self, x) -> PredictionStream:
        """Feed the next sample of every stream, x of shape (n_streams, n_channels), or the
        next k samples, (n_streams, n_channels, k). Returns the stream itself.

        A univariate model's sample is (n_streams, 1). Samples must be real, finite numbers,
        and not so large that the fit's input scaling overflows the network's precision
        (a ValueError, and nothing is taken). A sample that still overflows inside the
        network leaves that stream's state NaN for good: update and predict then raise a
        ValueError naming the streams lost, which :meth:`keep` can drop."""
        self._feed(x, every_step=False)
        return self

    def outputs_after_each(self, x) -> torch.Tensor:
        """Feed x as :meth:`update` does; return the raw outputs (logits for a classifier)
        after each of its k samples, (n_streams, k, n_outputs), on the network's device."""
        return self._feed(x, every_step=True)  # (S, k, O)

    def _feed(self, x, every_step: bool) -> torch.Tensor | None:
        """Step the network through x; the output after each sample when ``every_step``
        (update keeps only the last: nothing is collected per sample on its path)."""
        if (
            not every_step
            and self._stepper is not None
            and type(x) is np.ndarray
            and x.dtype in _SAMPLE_DTYPES
            and x.shape == (self.n_streams, self._n_channels)
            and self._feed_sample(x)
        ):
            return None
        n_channels = self._n_channels
        check_not_text(x, name="update's x")
        try:
            given = np.shape(x)
            x = np.asarray(x)
        except ValueError as error:  # a ragged list: numpy's message names no shape
            raise ValueError(
                "update takes x of shape (n_streams, n_channels) or (n_streams, n_channels, k); "
                f"got a nested sequence of uneven lengths ({error})"
            ) from None
        if x.dtype.kind == "c":
            raise ValueError("update takes real samples; got complex values")
        if x.dtype == object and any(v is None for v in x.ravel()):
            # numpy reads None as NaN (or as a 0-d array): name what was given instead
            raise ValueError(
                "update got None where a sample belongs; a stream needs a finite number for "
                "every stream and channel, and nothing was taken"
            )
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 2:
            x = x[:, :, np.newaxis]  # (n_streams, C, 1)
        if x.ndim != 3 or x.shape[:2] != (self.n_streams, n_channels) or x.shape[-1] == 0:
            raise ValueError(
                f"update takes x of shape (n_streams, n_channels) = ({self.n_streams}, "
                f"{n_channels}), or (n_streams, n_channels, k) for k >= 1 samples; got "
                f"{given}"
            )
        if not np.isfinite(x).all():  # before any scaling: the running one would hide it
            stream, channel, k = (int(v) for v in np.argwhere(~np.isfinite(x))[0])
            where = f"stream {stream}, channel {channel}" + (
                f", sample {k} of the chunk" if x.shape[-1] > 1 else ""
            )
            raise ValueError(
                f"update got NaN or infinite values ({where}); a stream needs finite "
                "samples, and nothing was taken"
            )
        given_x = x
        moments = self._moments
        with np.errstate(over="ignore", invalid="ignore"):
            if self._running:  # taken (moments kept) only once the checks below pass
                x, moments = running_standardize(x, moments)  # (S, C, k)
            elif self._with_scale:
                x, moments = running_shape_level_scale(
                    x, self._reference, moments, self._kept
                )  # (S, C', k)
            x = x - self._input_mean[:, None]  # (S, C', k), a new array: scaled in place
            x /= self._input_scale[:, None]
            if self._dtype == torch.float32:
                x = x.astype(np.float32)
        if not np.isfinite(x).all():  # checked once scaled: the state would keep an overflow
            raise ValueError(
                "update got samples too large for the network: scaled by the fit's input "
                f"scale, they overflow its {str(self._dtype).removeprefix('torch.')} precision "
                f"(largest |x| given: {np.abs(given_x).max():.3g})"
            )
        self._moments = moments
        if self._stepper is not None:
            # a sample costs the compiled step tens of microseconds: nothing here that can
            # wait (the threads, resolved for chunks only; torch, when outputs are read)
            outputs = self._stepper.feed(x, every_step, n_threads=self._n_threads)
            self._output = outputs[:, -1] if every_step else outputs  # (S, O), an array
            self.n_steps_ += x.shape[-1]
            if not np.isfinite(self._output).all():  # a microsecond: checked at every update
                _raise_lost_streams(self._output)
            return torch.from_numpy(outputs) if every_step else None  # (S, k, O)
        x = torch.as_tensor(x, dtype=self._dtype, device=self._device)  # (S, C, k)
        outputs = []
        with torch.no_grad(), torch_threads(resolve_n_threads(self._n_threads)):
            for k in range(x.shape[-1]):
                self._output, self._state = self._module.step(x[..., k], self._state)
                if every_step:
                    outputs.append(self._output)  # (S, O)
        self.n_steps_ += x.shape[-1]
        # on a GPU the outputs are read (and checked) by predict, not at every sample
        return torch.stack(outputs, dim=1) if every_step else None  # (S, k, O)

    def _feed_sample(self, x: np.ndarray) -> bool:
        """One sample (S, C) of floats through the compiled step, scaled and checked in one
        compiled pass: a live stream's usual call, where the checks of :meth:`_feed` cost a
        fifth of the step. False, and nothing fed, where a scaled value is not finite:
        :meth:`_feed` then names the problem."""
        if self._with_scale:  # the shape, then the levels and scales kept
            width = self._n_channels + len(self._kept)
            scaled = np.empty((x.shape[0], width, 1), self._stepper.dtype)  # (S, C', 1)
            taken = self._running_shape_sample(x, scaled)
        else:
            scaled = np.empty((*x.shape, 1), self._stepper.dtype)  # (S, C, 1)
            taken = (
                self._running_scale_sample(x, scaled) if self._running
                else scale_sample(x, self._input_mean, self._input_scale, scaled)
            )
        if not taken:
            return False
        self._output = self._stepper.feed(scaled, every_step=False)  # (S, O)
        self.n_steps_ += 1
        if not all_finite(self._output):
            _raise_lost_streams(self._output)
        return True

    def _running_scale_sample(self, x: np.ndarray, scaled: np.ndarray) -> bool:
        """One sample (S, C) scaled by each stream's running statistics and the fit's, into
        ``scaled`` (S, C, 1), in one compiled pass; the moments move on only when every
        value is finite (False, and nothing taken, otherwise)."""
        if not all_finite(x):  # the running scaling would hide a NaN (as 0)
            return False
        moments = self._moments
        if moments is None:  # the first sample: its values are each stream's first
            zeros = np.zeros((*x.shape, 1))  # (S, C, 1)
            moments = RunningMoments(np.empty((*x.shape, 1)), zeros, zeros, 0)
        new_sum, new_sum_sq = np.empty((2, *x.shape, 1))  # (S, C, 1) each
        if not running_scale_sample(
            x, moments.first, moments.sum, moments.sum_sq, moments.steps, self._input_mean,
            self._input_scale, scaled, new_sum, new_sum_sq, CONSTANT_SO_FAR,
        ):
            return False
        self._moments = RunningMoments(moments.first, new_sum, new_sum_sq, moments.steps + 1)
        return True

    def _running_shape_sample(self, x: np.ndarray, scaled: np.ndarray) -> bool:
        """One sample (S, C) as each stream's shape, level and scale so far, scaled by the
        fit's, into ``scaled`` (S, C', 1), in one compiled pass; the moments move on only when
        every value is finite (False, and nothing taken, otherwise)."""
        if not all_finite(x):  # the running scaling would hide a NaN (as 0)
            return False
        moments = self._moments
        if moments is None:  # the first sample: its values are each stream's first
            zeros = np.zeros((*x.shape, 1))  # (S, C, 1)
            moments = RunningMoments(np.empty((*x.shape, 1)), zeros, zeros, 0, zeros + 1.0)
        new_sum, new_sum_sq, new_count = np.empty((3, *x.shape, 1))  # (S, C, 1) each
        if not running_shape_sample(
            x, moments.first, moments.sum, moments.sum_sq, moments.count, moments.steps,
            self._reference, self._position, self._input_mean, self._input_scale, scaled,
            new_sum, new_sum_sq,
            new_count, CONSTANT_SO_FAR,
        ):
            return False
        self._moments = RunningMoments(
            moments.first, new_sum, new_sum_sq, moments.steps + 1, new_count
        )
        return True

    def keep(self, streams) -> PredictionStream:
        """Follow only ``streams`` (distinct indices, or a boolean mask of length n_streams),
        in that order; the others' state is dropped. Returns the stream itself.

        For series that end or leave while the rest go on: an early classifier drops the
        series it has decided on.
        """
        streams = np.asarray(streams)
        if streams.ndim != 1:
            raise ValueError(
                f"keep takes a 1-D list of stream indices or a boolean mask of length "
                f"n_streams = {self.n_streams}; got an array of shape {streams.shape}"
            )
        if streams.size == 0:  # keep none
            streams = streams.astype(np.intp)
        if streams.dtype == bool and streams.shape != (self.n_streams,):
            raise ValueError(
                f"keep takes a boolean mask of length n_streams = {self.n_streams}, or "
                f"indices; got a mask of shape {streams.shape}"
            )
        if streams.dtype != bool and (
            streams.dtype.kind not in "iu" or ((streams < 0) | (streams >= self.n_streams)).any()
        ):
            raise ValueError(
                f"keep takes indices of the {self.n_streams} streams (0 to "
                f"{self.n_streams - 1}), or a boolean mask; got {streams.tolist()!r}"
            )
        rows = np.arange(self.n_streams)[streams]  # (S',)
        values, counts = np.unique(rows, return_counts=True)
        if (counts > 1).any():
            raise ValueError(
                f"keep takes distinct stream indices; {values[counts > 1].tolist()} repeat. To "
                "keep streams by a mask, pass booleans (e.g. np.array([...], dtype=bool))"
            )
        index = torch.as_tensor(rows, dtype=torch.long, device=self._device)  # (S',)
        if self._moments is not None:
            self._moments = self._moments.select(rows)
        if self._stepper is not None:
            self._stepper.keep(rows)
        else:
            self._state = self._state.select(index)
        if self._output is not None:
            self._output = self._output[rows if self._stepper is not None else index]
        self.n_streams = len(rows)
        return self

    def _outputs(self) -> torch.Tensor:
        if self._output is None:
            raise ValueError("the stream has no sample yet: feed one with update(x) first")
        if isinstance(self._output, np.ndarray):  # the compiled step's
            return torch.from_numpy(self._output)  # (n_streams, n_outputs)
        return self._output  # (n_streams, n_outputs), on the network's device

    def _finite_outputs(self) -> np.ndarray:
        """The raw outputs as an array, (n_streams, n_outputs); the streams whose state
        overflowed are named instead (:func:`_raise_lost_streams`)."""
        outputs = self._outputs().cpu().numpy()
        if not np.isfinite(outputs).all():
            _raise_lost_streams(outputs)
        return outputs

    def predict_proba(self) -> np.ndarray:
        """Class probabilities for the series so far, (n_streams, n_classes)."""
        if self._classes is None:
            raise AttributeError("predict_proba is for a classifier's stream")
        logits = self._finite_outputs()  # (S, K)
        return torch.softmax(torch.from_numpy(logits), dim=-1).numpy()

    def predict(self) -> np.ndarray:
        """Predicted labels (a classifier) or values (a regressor) for the series so far,
        (n_streams,) or (n_streams, n_outputs)."""
        if self._classes is not None:
            return self._classes[np.argmax(self.predict_proba(), axis=1)]
        Y = self._finite_outputs() * self._y_scale + self._y_mean  # (S, O)
        return Y.ravel() if self._y_ndim == 1 else Y

    def __repr__(self) -> str:
        return (
            f"PredictionStream({self._kind}, n_streams={self.n_streams}, "
            f"n_steps_={self.n_steps_})"
        )
