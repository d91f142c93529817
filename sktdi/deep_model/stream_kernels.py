"""A compiled streaming step of the two networks (:class:`~sktdi.ssm.ConvS4DNetwork`, the
default, and :class:`~sktdi.ssm.S4DNetwork`): one numba kernel runs every block of the
network on each sample, without a Python or torch dispatch per layer.

The torch step (``ConvS4DNetwork.step``) spends almost all of its 1.6 ms per sample on the
dispatch of about a hundred small operations; the arithmetic is some 250k multiply-adds. Here
the eval-mode network is packed once into arrays (BatchNorm folded into a scale and a shift,
the S4D layers discretized) and each sample runs through all of it in one call.
``benchmarks/early_study/bench_stream.py`` measures both; ``tests/test_predict_streaming.py`` checks the
kernel against the network's convolution mode.

A chunk of several samples runs in the convolution mode instead, layer after layer, with the
state carried across chunks (:func:`_ssm_chunk`): each weight then multiplies every sample of
the chunk in one BLAS product, where the step touches all of them once per sample. Streams are
taken a few at a time so that a block's intermediate arrays stay in the cache.

Layouts: weights as the torch modules hold them, stacked over blocks and zero-padded to the
widest block input (``C_max``: the network's input channels or ``4F``); state per stream.
"""

from __future__ import annotations

from math import erf as math_erf

import numpy as np
import torch
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import erf, expit

from ..utils.compiled import compiled
from ..utils.threads import blas_threads, resolve_n_threads

POOLING_CODES = {"mean": 0, "max": 1, "mean-max": 2, "last": 3}
# a chunk of MIN_CHUNK samples or more runs in the convolution mode, in time tiles of at most
# TILE samples, over streams taken ROWS // tile samples at a time (bench_stream.py measures)
MIN_CHUNK = 16
TILE = 128
ROWS = 4096


class _Stepper:
    """What both steppers share: the network's precision, its tensors as arrays of it, and
    the per-stream state arrays (named in ``STATE``, streams first) that :meth:`keep` cuts."""

    STATE: tuple[str, ...] = ()
    # arrays the step does not stream through per sample: the convolution mode's complex
    # Ā and C·B̄ (the step reads their parts), and the convolutions' widths and first taps
    # (a few integers)
    NOT_STEPPED: frozenset = frozenset({"A_bar", "CB_bar", "tap_start", "widths"})

    def __init__(self, net) -> None:
        double = next(net.parameters()).dtype == torch.float64
        self.dtype = np.float64 if double else np.float32
        self.ctype = np.complex128 if double else np.complex64

    def _array(self, tensor) -> np.ndarray:
        """A tensor as a contiguous array of the network's real precision."""
        return np.ascontiguousarray(tensor.detach().cpu().numpy().astype(self.dtype))

    def _narrowed(self, weight: np.ndarray) -> np.ndarray:
        """A weight the step reads, as float32 where every value of it is one: a model
        trained in float32 and predicting in float64 holds float32 values in float64
        arrays. Widened back in the step it is the same number, and the step sums in
        float64 as before: the same outputs (up to the order of the sums, which the
        compiler may vectorize otherwise; bit for bit where tested) from half the bytes.
        The default network's step read 2.8 MiB a sample, most of it the convolutions'
        weights, against 1 MiB of L2 a core; narrowed, 1.6 MiB, and its single stream runs
        faster (``benchmarks/early_study/bench_stream.py``). The S4D network's step gained nothing
        from it (its GLU weights narrowed ran slower in an A/B run), and reads its weights
        as they are."""
        if self.dtype == np.float64:
            narrow = np.ascontiguousarray(weight, dtype=np.float32)
            if np.array_equal(narrow, weight):
                return narrow
        return weight

    def step_arrays(self) -> dict:
        """Every array the compiled step streams through per sample, by name: the weights
        in the precision the step reads them (a ``step_`` copy where there is one) and a
        stream's state (not :data:`NOT_STEPPED`)."""
        arrays = {name: value for name, value in vars(self).items()
                  if isinstance(value, np.ndarray) and name not in self.NOT_STEPPED}
        return {name: value for name, value in arrays.items()
                if f"step_{name}" not in arrays}

    def _split_ssm(self, n_streams: int) -> None:
        """The S4D layers' Ā and C·B̄ (complex (D, H, N) each, kept for the convolution
        mode) as real and imaginary parts, and the state as two real (S, D, H, N) arrays:
        the step's loops vectorize over separate parts, not over interleaved complex
        numbers."""
        real = self.dtype
        self.A_re, self.A_im = (np.ascontiguousarray(p, real) for p in (self.A_bar.real,
                                                                        self.A_bar.imag))
        self.CB_re, self.CB_im = (np.ascontiguousarray(p, real) for p in (self.CB_bar.real,
                                                                          self.CB_bar.imag))
        self.ssm_re = np.zeros((n_streams, *self.A_bar.shape), real)
        self.ssm_im = np.zeros((n_streams, *self.A_bar.shape), real)

    def keep(self, rows: np.ndarray) -> None:
        """Follow only the streams ``rows`` (indices), in that order."""
        for name in self.STATE:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[rows]))

    def feed(self, x: np.ndarray, every_step: bool, n_threads: int | None = None) -> np.ndarray:
        """x: (S, C, k) scaled samples -> the outputs after the last sample (S, O), or after
        each of them (S, k, O) when ``every_step``. A chunk of at least ``MIN_CHUNK`` samples
        runs in the convolution mode, in time tiles of at most ``TILE`` samples (the SSM's
        Toeplitz products grow as the tile's square), its BLAS products on the threads an
        estimator's ``n_threads`` resolves to; fewer run the compiled step, on one thread
        (where a few microseconds per sample count, nothing else is looked up)."""
        x = np.ascontiguousarray(x, dtype=self.dtype)
        S, _, k = x.shape
        if k < MIN_CHUNK:  # the compiled step
            out = np.empty((S, k if every_step else 1, self.head.shape[0]), self.dtype)
            self._steps(x, out, every_step)
            self.count += k
            return out if every_step else out[:, 0]
        tiles = []
        # a sample too large for the network overflows here as in the step, which says so
        # in numba's silence: PredictionStream names the streams it lost
        with blas_threads(resolve_n_threads(n_threads)), np.errstate(over="ignore",
                                                                     invalid="ignore"):
            for start in range(0, k, TILE):
                part = x[:, :, start : start + TILE]  # (S, C, k')
                if every_step or start + TILE >= k:  # update keeps only the last output
                    tiles.append(self._chunk(part, every_step))  # (S, k' or 1, O)
                else:
                    self._chunk(part, every_step=False)
                self.count += part.shape[-1]
        out = np.concatenate(tiles, axis=1)  # (S, k or 1, O)
        return out if every_step else out[:, 0]

    def _chunk(self, x: np.ndarray, every_step: bool) -> np.ndarray:
        """x: (S, C, k) -> (S, k or 1, O): the convolution mode over streams taken a few
        at a time (about ``ROWS`` samples each), the state updated."""
        S, _, k = x.shape
        out = np.empty((S, k if every_step else 1, self.head.shape[0]), self.dtype)
        kernels = self._chunk_kernels(k)
        per = max(1, ROWS // k)
        for start in range(0, S, per):
            rows = slice(start, min(start + per, S))
            # channels first: a layer's weights times (channels, streams · samples)
            feature = np.ascontiguousarray(x[rows].transpose(1, 0, 2))  # (C, B, k)
            feature = self._blocks_chunk(feature, rows, kernels)  # (P, B, k)
            out[rows] = self._pool_head_chunk(feature, rows, every_step)
        return out

    def _chunk_kernels(self, k: int) -> list:
        """Each S4D layer's :func:`ssm_chunk_kernels` for a tile of k samples, kept for the
        two tile lengths a feed uses."""
        cache = self.__dict__.setdefault("_kernels", {})
        if k not in cache:
            if len(cache) >= 2:
                cache.clear()
            cache[k] = [
                ssm_chunk_kernels(A_bar, CB_bar, k, self.dtype)
                for A_bar, CB_bar in zip(self.A_bar, self.CB_bar)
            ]
        return cache[k]

    def _pool_head_chunk(self, feature: np.ndarray, rows: slice, every_step: bool):
        """The running pooling over a chunk's features (P, B, k) and the head's outputs after
        each sample (B, k, O), or after the last (B, 1, O); total and peak updated."""
        P, B, k = feature.shape
        total, peak = self.total[rows].T, self.peak[rows].T  # (P, B) each, views
        if every_step:
            sums = total[:, :, None] + np.cumsum(feature, axis=2)  # (P, B, k)
            peaks = np.maximum(peak[:, :, None], np.maximum.accumulate(feature, axis=2))
        else:  # the last sample's only
            sums = (total + feature.sum(axis=2))[:, :, None]  # (P, B, 1)
            peaks = np.maximum(peak, feature.max(axis=2))[:, :, None]
            feature = feature[:, :, -1:]
        total[:] = sums[:, :, -1]
        peak[:] = peaks[:, :, -1]
        n = self.count + np.arange(k - sums.shape[2] + 1, k + 1, dtype=self.dtype)  # (k',)
        if self.pooling == POOLING_CODES["mean"]:
            pooled = sums / n
        elif self.pooling == POOLING_CODES["max"]:
            pooled = peaks
        elif self.pooling == POOLING_CODES["mean-max"]:
            pooled = np.concatenate([sums / n, peaks], axis=0)  # (2P, B, k')
        else:
            pooled = feature
        outputs = self.head @ pooled.reshape(len(pooled), -1)  # (O, B·k')
        return outputs.reshape(-1, B, pooled.shape[2]).transpose(1, 2, 0) + self.head_bias


class ConvS4DStepper(_Stepper):
    """The packed weights of an eval-mode, causal :class:`~sktdi.ssm.ConvS4DNetwork` on the
    CPU, and the state of ``n_streams`` streams; :meth:`feed` runs the compiled step."""

    STATE = ("history", "window", "ssm_re", "ssm_im", "total", "peak")

    def __init__(self, net, n_streams: int) -> None:
        super().__init__(net)
        ctype, array = self.ctype, self._array
        blocks = net.blocks
        D = len(blocks)
        F = blocks[0].bottleneck.weight.shape[0]
        n_in = blocks[0].bottleneck.weight.shape[1]
        width = blocks[-1].n_out  # 4F
        c_max = max(n_in, width)
        convs = blocks[0].convs
        self.widths = np.array([c.kernel_size[0] for c in convs], dtype=np.int64)  # (n_convs,)
        k_max = int(self.widths.max()) if len(convs) else 1
        has_ssm = blocks[0].ssm is not None
        N = blocks[0].ssm.d_state // 2 if has_ssm else 1

        def folded(norm) -> tuple[np.ndarray, np.ndarray]:
            # eval-mode BatchNorm as y = scale * x + shift
            scale = norm.weight / torch.sqrt(norm.running_var + norm.eps)
            return array(scale), array(norm.bias - norm.running_mean * scale)

        f = self.dtype
        self.bottleneck = np.zeros((D, F, c_max), f)
        self.pool_proj = np.zeros((D, F, c_max), f)
        # every convolution right-aligned in the widest one's window, all of a block's
        # stacked: one (n_convs·F, k_max·F) matrix over the tap-major window of the last
        # k_max bottleneck outputs, [c·F + o, j·F + i] = weight_c[o, i, j - (k_max - kw_c)];
        # the step reads each convolution's own taps only, never its zeros
        self.conv = np.zeros((D, max(len(convs), 1) * F, k_max, F), f)
        self.A_bar = np.zeros((D, F, N), ctype)
        self.CB_bar = np.zeros((D, F, N), ctype)
        self.skip = np.zeros((D, F), f)
        self.scale = np.zeros((D, width), f)
        self.shift = np.zeros((D, width), f)
        with torch.no_grad():
            for d, block in enumerate(blocks):
                c_in = block.bottleneck.weight.shape[1]
                self.bottleneck[d, :, :c_in] = array(block.bottleneck.weight[..., 0])
                self.pool_proj[d, :, :c_in] = array(block.pool_proj.weight[..., 0])
                for c, conv in enumerate(block.convs):
                    kw = conv.kernel_size[0]
                    weight = array(conv.weight).transpose(0, 2, 1)  # (F, kw, F): [o, j, i]
                    self.conv[d, c * F : (c + 1) * F, k_max - kw :] = weight
                if has_ssm:
                    A_bar, CB_bar = block.ssm.step_parameters()  # (F, N) each
                    self.A_bar[d] = A_bar.cpu().numpy()
                    self.CB_bar[d] = CB_bar.cpu().numpy()
                    self.skip[d] = array(block.ssm.D)
                self.scale[d], self.shift[d] = folded(block.norm)
            G = len(net.shortcuts)
            self.shortcut = np.zeros((max(G, 1), width, c_max), f)
            self.shortcut_scale = np.zeros((max(G, 1), width), f)
            self.shortcut_shift = np.zeros((max(G, 1), width), f)
            for g, shortcut in enumerate(net.shortcuts):
                c_in = shortcut[0].weight.shape[1]
                self.shortcut[g, :, :c_in] = array(shortcut[0].weight[..., 0])
                self.shortcut_scale[g], self.shortcut_shift[g] = folded(shortcut[1])
            self.head = array(net.head.weight)  # (O, P)
            self.head_bias = array(net.head.bias)  # (O,)
        self.n_groups = G
        self.has_ssm = has_ssm
        self.pooling = POOLING_CODES[net.pooling]
        self.n_in, self.c_max, self.width = n_in, c_max, width
        S = n_streams
        # the convolution mode's: each convolution as an (F, taps·F) matrix over the last
        # `taps` rows of the tap-major window, [o, j·F + i] = weight[o, i, j]
        self.conv_taps = [
            np.ascontiguousarray(self.conv[:, c * F : (c + 1) * F, k_max - kw :]).reshape(
                D, F, kw * F
            )
            for c, kw in enumerate(self.widths)
        ]  # (D, F, kw·F) each
        # only the step reads this stacked form (the convolution mode reads conv_taps)
        self.conv = self._narrowed(self.conv.reshape(D, -1, k_max * F))
        # the step's copies of the weights the convolution mode reads too (its BLAS products
        # want the network's precision)
        self.step_bottleneck, self.step_pool_proj, self.step_shortcut = (
            self._narrowed(weight) for weight in (self.bottleneck, self.pool_proj, self.shortcut)
        )
        self.tap_start = (k_max - self.widths) * F  # (n_convs,): each one's first column
        # the state: each block's bottleneck history (tap-major) and max-pool window, the
        # S4D states, the pooling's running sum and max, the count of samples
        self.history = np.zeros((S, D, k_max - 1, F), f)
        self.window = np.full((S, D, c_max, 2), -np.inf, f)
        self._split_ssm(S)
        self.total = np.zeros((S, width), f)
        self.peak = np.full((S, width), -np.inf, f)
        self.count = 0

    def _steps(self, x: np.ndarray, out: np.ndarray, every_step: bool) -> None:
        """The compiled step over x (S, C, k), the outputs into ``out``."""
        _steps(
            x, out, every_step, self.count, self.tap_start, self.has_ssm, self.pooling,
            self.n_groups, self.step_bottleneck, self.conv, self.A_re, self.A_im, self.CB_re,
            self.CB_im, self.skip, self.step_pool_proj, self.scale, self.shift,
            self.step_shortcut,
            self.shortcut_scale, self.shortcut_shift, self.head, self.head_bias, self.history,
            self.window, self.ssm_re, self.ssm_im, self.total, self.peak,
        )

    def _blocks_chunk(self, feature: np.ndarray, rows: slice, kernels: list) -> np.ndarray:
        """Every block over a chunk of the streams ``rows``: (C, B, k) -> (4F, B, k); the
        bottleneck histories, max-pool windows and S4D states carried in and updated."""
        _, B, k = feature.shape
        n_hist = self.history.shape[2]  # k_max - 1
        F = self.bottleneck.shape[1]
        residual, c_in = feature, self.n_in  # the input of the current group of three
        for d in range(self.bottleneck.shape[0]):
            z = self.bottleneck[d, :, :c_in] @ feature.reshape(c_in, B * k)  # (F, B·k)
            z = z.reshape(F, B, k)
            branches = np.empty((self.width, B, k), self.dtype)  # each branch's F rows
            row = 0
            if self.has_ssm:
                state = self.ssm_re[rows, d], self.ssm_im[rows, d]  # (B, F, N) each, views
                _ssm_chunk(z, state, self.skip[d], kernels[d], out=branches[:F])
                row = F
            history = self.history[rows, d]  # (B, k_max - 1, F), a view
            recent = np.concatenate([history.transpose(2, 0, 1), z], axis=2)  # (F, B, k_max-1+k)
            windows = sliding_window_view(recent, n_hist + 1, axis=2)  # (F, B, k, k_max)
            windows = np.ascontiguousarray(windows.transpose(3, 0, 1, 2))  # (k_max, F, B, k)
            windows = windows.reshape(-1, B * k)  # (k_max·F, B·k): [j·F + i, b·k + t]
            for taps in self.conv_taps:  # each over its own last taps of the window
                own = windows[len(windows) - taps.shape[2] :]  # (kw·F, B·k)
                np.matmul(taps[d], own, out=branches[row : row + F].reshape(F, B * k))
                row += F
            window = self.window[rows, d, :c_in]  # (B, c_in, 2), a view
            padded = np.concatenate([window.transpose(1, 0, 2), feature], axis=2)  # (c_in, B, 2+k)
            pool_max = np.maximum(padded[..., :-2], padded[..., 1:-1])  # (c_in, B, k)
            np.maximum(pool_max, padded[..., 2:], out=pool_max)
            if n_hist:
                history[:] = recent[:, :, -n_hist:].transpose(1, 2, 0)
            window[:] = padded[:, :, -2:].transpose(1, 0, 2)
            pool_proj = self.pool_proj[d, :, :c_in]  # (F, c_in)
            np.matmul(pool_proj, pool_max.reshape(c_in, B * k),
                      out=branches[row : row + F].reshape(F, B * k))
            # BatchNorm (eval) and ReLU, in place: the next block's input
            feature = branches  # (4F, B, k)
            _affine_relu(feature.reshape(self.width, B * k), self.scale[d], self.shift[d])
            c_in = self.width
            if d % 3 == 2 and d // 3 < self.n_groups:
                g = d // 3
                weight = self.shortcut[g, :, : len(residual)]  # (4F, C_g)
                shortcut = weight @ residual.reshape(len(residual), B * k)  # (4F, B·k)
                _add_affine_relu(feature.reshape(self.width, B * k), shortcut,
                                 self.shortcut_scale[g], self.shortcut_shift[g])
                residual = feature
        return feature


def ssm_chunk_kernels(A_bar: np.ndarray, CB_bar: np.ndarray, k: int, dtype) -> tuple:
    """The convolution mode of one S4D layer over a tile of k samples with a carried state,
    as real matrices for batched products: from the recurrence x_t = Ā x_{t-1} + C·B̄ u_t,
    y_t = 2 Re Σ_n x_t,

    - y_t = Σ_{j≤t} K_{t-j} u_j + 2 Re Σ_n Ā^{t+1} x_{-1}, with K_i = 2 Re Σ_n Ā^i C·B̄;
    - x_{k-1} = Ā^k x_{-1} + Σ_j Ā^{k-1-j} C·B̄ u_j.

    A_bar, CB_bar: complex (H, N). Returns (toeplitz (H, k, k), from_state (H, 2N, k),
    to_state (H, k, 2N), decay (H, N) complex); the 2N rows and columns are the state's real
    parts, then its imaginary parts, as the steppers keep them (``ssm_re``, ``ssm_im``).
    """
    t = np.arange(k + 1)  # (k+1,)
    powers = np.exp(np.log(A_bar)[:, :, None] * t)  # (H, N, k+1): Ā^t
    K = 2.0 * (powers[:, :, :k] * CB_bar[:, :, None]).real.sum(axis=1)  # (H, k)
    lag = t[None, :k] - t[:k, None]  # (k, k): [j, t] = t - j
    toeplitz = np.where(lag >= 0, K[:, np.maximum(lag, 0)], 0.0)  # (H, k, k): [h, j, t]
    H, N = A_bar.shape
    ahead = powers[:, :, 1:]  # (H, N, k): Ā^{t+1}
    # 2 Re(P x) = 2 (Re P Re x - Im P Im x), rows [Re x_0, ..., Re x_N-1, Im x_0, ...]
    from_state = 2.0 * np.concatenate([ahead.real, -ahead.imag], axis=1)  # (H, 2N, k)
    into = powers[:, :, k - 1 :: -1] * CB_bar[:, :, None]  # (H, N, k): Ā^{k-1-j} C·B̄
    to_state = np.concatenate([into.real, into.imag], axis=1).transpose(0, 2, 1)  # (H, k, 2N)
    real = [np.ascontiguousarray(m, dtype=dtype) for m in (toeplitz, from_state, to_state)]
    return (*real, powers[:, :, k])


def _ssm_chunk(u: np.ndarray, state: tuple, skip: np.ndarray, kernels: tuple, out=None):
    """One S4D layer over a tile: u (H, B, k) real and contiguous, state the real and
    imaginary parts (B, H, N) each, updated in place -> y (H, B, k), into ``out`` if given;
    ``kernels`` from :func:`ssm_chunk_kernels`. (numpy's matmul calls BLAS on contiguous
    operands only.)"""
    toeplitz, from_state, to_state, decay = kernels
    real, imag = state
    B, H, N = real.shape
    carried = np.empty((H, B, 2 * N), u.dtype)
    carried[:, :, :N] = real.transpose(1, 0, 2)
    carried[:, :, N:] = imag.transpose(1, 0, 2)
    y = np.matmul(u, toeplitz, out=out)  # (H, B, k)
    y += np.matmul(carried, from_state)
    y += skip[:, None, None] * u
    added = np.matmul(u, to_state)  # (H, B, 2N)
    _advance_state(real, imag, decay.real, decay.imag, added)
    return y


# reassociation lets the dot products vectorize; no flag that assumes away the -inf of the
# max-pool's empty window
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


@compiled(nogil=True)
def scale_sample(x, mean, scale, out):  # pragma: no cover - compiled
    """One sample of every stream scaled by the fit's input statistics, in out's precision:
    out[s, c, 0] = (x[s, c] - mean[c]) / scale[c], x (S, C), out (S, C, 1). False where a
    value is not finite once scaled (no fastmath: its flags would assume infinities away)."""
    S, C = x.shape
    finite = True
    for s in range(S):
        for c in range(C):
            out[s, c, 0] = (x[s, c] - mean[c]) / scale[c]
            finite &= np.isfinite(out[s, c, 0])
    return finite


@compiled(nogil=True)
def running_scale_sample(
    x, first, total, total_sq, steps, mean, scale, out, new_total, new_total_sq, floor
):  # pragma: no cover - compiled
    """One sample of every stream scaled by its stream's running statistics, then by the
    fit's, in out's precision: :func:`sktdi.utils.inputs.running_standardize` of one step
    (the same operations in the same order), fused with :func:`scale_sample`. x (S, C);
    ``first``, ``total``, ``total_sq`` (S, C, 1): the moments before it, ``steps`` the
    samples taken (0: x is the first, and ``first`` is filled from it); the new sums go to
    ``new_total`` and ``new_total_sq``, so that a refused sample leaves the moments as they
    were. False where a value is not finite once scaled."""
    S, C = x.shape
    finite = True
    t = steps + 1.0
    for s in range(S):
        for c in range(C):
            if steps == 0:
                first[s, c, 0] = x[s, c]
            d = x[s, c] - first[s, c, 0]
            sums = total[s, c, 0] + d
            sums_sq = total_sq[s, c, 0] + d * d
            m = sums / t
            m_sq = sums_sq / t
            var = m_sq - m * m
            z = (d - m) / np.sqrt(var) if var > floor * m_sq else 0.0
            new_total[s, c, 0] = sums
            new_total_sq[s, c, 0] = sums_sq
            out[s, c, 0] = (z - mean[c]) / scale[c]
            finite &= np.isfinite(out[s, c, 0])
    return finite


@compiled(nogil=True)
def running_shape_sample(
    x, first, total, total_sq, count, steps, reference, position, mean, scale, out, new_total,
    new_total_sq, new_count, floor,
):  # pragma: no cover - compiled
    """:func:`sktdi.utils.inputs.running_shape_level_scale` of one sample (the same operations
    in the same order), fused with :func:`scale_sample`, as :func:`running_scale_sample`; plus
    ``count`` (S, C, 1) and ``position`` (2C,), each level's and scale's channel of out
    (S, C', 1) (-1: not kept); the new moments go to the ``new_`` arrays."""
    S, C = x.shape
    finite = True
    for s in range(S):
        for c in range(C):
            if steps == 0:
                first[s, c, 0] = x[s, c]
            d = x[s, c] - first[s, c, 0]
            sums = total[s, c, 0] + d
            sums_sq = total_sq[s, c, 0] + d * d
            n = count[s, c, 0] + (1.0 if sums_sq > 0 else 0.0)
            m = sums / n
            m_sq = sums_sq / n
            var = m_sq - m * m
            varies = var > floor * m_sq
            std = np.sqrt(var) if varies else 0.0
            z = (d - m) / std if varies else 0.0
            level = np.round(np.arcsinh((m + first[s, c, 0]) / reference[c]), 6)
            spread = np.round(np.arcsinh(std / reference[c]), 6)
            new_total[s, c, 0] = sums
            new_total_sq[s, c, 0] = sums_sq
            new_count[s, c, 0] = n
            out[s, c, 0] = (z - mean[c]) / scale[c]
            finite &= np.isfinite(out[s, c, 0])
            for j, value in ((position[c], level), (position[C + c], spread)):
                if j >= 0:
                    out[s, j, 0] = (value - mean[j]) / scale[j]
                    finite &= np.isfinite(out[s, j, 0])
    return finite


@compiled(nogil=True)
def all_finite(a):  # pragma: no cover - compiled
    """Whether every value of the 2-D array a is finite (np.isfinite(a).all() without the
    temporary array and the reduction's dispatch: a microsecond a sample)."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if not np.isfinite(a[i, j]):
                return False
    return True


@compiled(nogil=True, fastmath=FASTMATH)
def _advance_state(real, imag, decay_re, decay_im, added):  # pragma: no cover - compiled
    """An S4D state after a tile, in place: x <- Ā^k x + added, on the real and imaginary
    parts (B, H, N) each; decay Ā^k as its two parts (H, N), added (H, B, 2N) real parts
    first."""
    B, H, N = real.shape
    for b in range(B):
        for h in range(H):
            for n in range(N):
                re, im = real[b, h, n], imag[b, h, n]
                d_re, d_im = decay_re[h, n], decay_im[h, n]
                real[b, h, n] = d_re * re - d_im * im + added[h, b, n]
                imag[b, h, n] = d_re * im + d_im * re + added[h, b, N + n]


# the convolution mode's BatchNorm and ReLU (and the residual join) in one pass over the
# array, where numpy's three took 8× as long (stream samples are finite: no NaN rule)


@compiled(nogil=True, fastmath=FASTMATH)
def _affine_relu(x, scale, shift):  # pragma: no cover - compiled
    """x (C, M) <- max(scale · x + shift, 0) per channel, in place: eval BatchNorm and ReLU."""
    C, M = x.shape
    for c in range(C):
        a, b = scale[c], shift[c]
        for m in range(M):
            x[c, m] = max(a * x[c, m] + b, 0.0)


@compiled(nogil=True, fastmath=FASTMATH)
def _add_affine_relu(x, y, scale, shift):  # pragma: no cover - compiled
    """x (C, M) <- max(x + scale · y + shift, 0) per channel, in place: the residual join."""
    C, M = x.shape
    for c in range(C):
        a, b = scale[c], shift[c]
        for m in range(M):
            x[c, m] = max(x[c, m] + a * y[c, m] + b, 0.0)


@compiled(nogil=True, fastmath=FASTMATH)
def _ssm_step(A_re, A_im, CB_re, CB_im, state_re, state_im, skip, u, y):  # pragma: no cover
    """One step of an S4D layer, in place: x_k = Ā x_{k-1} + C·B̄ u_k, y = 2 Re Σ x + D u,
    over (H, N) parts kept apart (complex numbers in one array do not vectorize)."""
    H, N = A_re.shape
    for h in range(H):
        u_h = u[h]
        acc = 0.0
        for n in range(N):
            re, im = state_re[h, n], state_im[h, n]
            a_re, a_im = A_re[h, n], A_im[h, n]
            new_re = a_re * re - a_im * im + CB_re[h, n] * u_h
            state_im[h, n] = a_re * im + a_im * re + CB_im[h, n] * u_h
            state_re[h, n] = new_re
            acc += new_re
        y[h] = 2.0 * acc + skip[h] * u_h


@compiled(nogil=True, fastmath=FASTMATH)
def _steps(
    x, out, every_step, count, tap_start, has_ssm, pooling, n_groups, bottleneck, conv, A_re,
    A_im, CB_re, CB_im, skip, pool_proj, scale, shift, shortcut, shortcut_scale,
    shortcut_shift, head, head_bias, history, window, ssm_re, ssm_im, total, peak,
):  # pragma: no cover - compiled; tested through PredictionStream against the network
    S, n_in, k = x.shape
    D, F, c_max = bottleneck.shape
    width = scale.shape[1]
    n_hist = history.shape[2]  # k_max - 1
    n_convs = tap_start.shape[0]
    dt = x.dtype
    feature = np.zeros(c_max, dt)  # the current block's input
    residual = np.zeros(c_max, dt)  # the input of the current group of three
    recent = np.zeros((n_hist + 1) * F, dt)  # the last k_max bottleneck outputs, tap-major
    z = np.zeros(F, dt)
    pool_max = np.zeros(c_max, dt)
    branches = np.zeros(width, dt)
    pooled = np.zeros(2 * width, dt)
    for s in range(S):
        for t in range(k):
            feature[:] = 0
            for c in range(n_in):
                feature[c] = x[s, c, t]
            residual[:] = feature
            c_in = n_in  # the first block reads the input's channels, the others 4F
            for d in range(D):
                # the bottleneck: z = W_b · input
                for f in range(F):
                    acc = 0.0
                    for c in range(c_in):
                        acc += bottleneck[d, f, c] * feature[c]
                    z[f] = acc
                b = 0
                if has_ssm:
                    _ssm_step(A_re[d], A_im[d], CB_re[d], CB_im[d], ssm_re[s, d], ssm_im[s, d],
                              skip[d], z, branches)
                    b = F
                for j in range(n_hist):  # history ++ [z]
                    for i in range(F):
                        recent[j * F + i] = history[s, d, j, i]
                for i in range(F):
                    recent[n_hist * F + i] = z[i]
                for c in range(n_convs):  # each convolution over its own last taps
                    own = recent[tap_start[c] :]
                    for o in range(F):
                        row = conv[d, c * F + o, tap_start[c] :]
                        acc = 0.0
                        for q in range(own.shape[0]):
                            acc += row[q] * own[q]
                        branches[b + c * F + o] = acc
                b += n_convs * F
                for c in range(c_in):  # never -inf: the window holds the current input
                    pool_max[c] = max(window[s, d, c, 0], window[s, d, c, 1], feature[c])
                for f in range(F):  # the max-pool over the last 3 inputs, projected
                    acc = 0.0
                    for c in range(c_in):
                        acc += pool_proj[d, f, c] * pool_max[c]
                    branches[b + f] = acc
                # the state moves on one sample
                for j in range(n_hist):
                    for i in range(F):
                        history[s, d, j, i] = recent[(j + 1) * F + i]
                for c in range(c_in):
                    window[s, d, c, 0] = window[s, d, c, 1]
                    window[s, d, c, 1] = feature[c]
                # BatchNorm (eval) and ReLU: the next block's input
                for c in range(width):
                    feature[c] = max(scale[d, c] * branches[c] + shift[d, c], 0.0)
                feature[width:] = 0.0  # past 4F, only the input's channels had values
                c_in = width
                if d % 3 == 2 and d // 3 < n_groups:
                    g = d // 3
                    for o in range(width):
                        acc = 0.0
                        for c in range(c_max):
                            acc += shortcut[g, o, c] * residual[c]
                        feature[o] = max(
                            feature[o] + shortcut_scale[g, o] * acc + shortcut_shift[g, o], 0.0
                        )
                    residual[:] = feature
            _pool_and_head(
                feature, count + t + 1, total[s], peak[s], pooling, head, head_bias, pooled,
                out[s, t if every_step else 0], every_step or t == k - 1,
            )


@compiled(nogil=True, fastmath=FASTMATH)
def _pool_and_head(
    feature, n, total, peak, pooling, head, head_bias, pooled, out_row, write
):  # pragma: no cover - compiled
    """The running pooling after the n-th sample (total, peak updated in place) and, when
    ``write``, the head's output for the prefix so far into ``out_row``."""
    width = total.shape[0]
    for c in range(width):
        total[c] += feature[c]
        peak[c] = max(peak[c], feature[c])
    if not write:
        return
    for c in range(width):
        if pooling == 0 or pooling == 2:
            pooled[c] = total[c] / n
        elif pooling == 1:
            pooled[c] = peak[c]
        else:
            pooled[c] = feature[c]
        if pooling == 2:
            pooled[width + c] = peak[c]
    n_pooled = 2 * width if pooling == 2 else width
    for o in range(head.shape[0]):
        acc = head_bias[o]
        for c in range(n_pooled):
            acc += head[o, c] * pooled[c]
        out_row[o] = acc


class S4DStepper(_Stepper):
    """:class:`ConvS4DStepper` for an eval-mode, causal :class:`~sktdi.ssm.S4DNetwork`:
    the encoder, every residual S4D block (S4D step, GELU, GLU, LayerNorm) and the head."""

    STATE = ("ssm_re", "ssm_im", "total", "peak")

    def __init__(self, net, n_streams: int) -> None:
        super().__init__(net)
        ctype, array = self.ctype, self._array
        blocks = net.blocks
        with torch.no_grad():
            self.encoder, self.encoder_bias = array(net.encoder.weight), array(net.encoder.bias)
            discrete = [block.ssm.step_parameters() for block in blocks]  # (H, N) each
            self.A_bar = np.stack([a.cpu().numpy() for a, _ in discrete]).astype(ctype)
            self.CB_bar = np.stack([cb.cpu().numpy() for _, cb in discrete]).astype(ctype)
            self.skip = np.stack([array(block.ssm.D) for block in blocks])  # (n_layers, H)
            self.mix = np.stack([array(block.mix.weight) for block in blocks])  # (n_layers, 2H, H)
            self.mix_bias = np.stack([array(block.mix.bias) for block in blocks])
            self.norm = np.stack([array(block.norm.weight) for block in blocks])  # (n_layers, H)
            self.norm_bias = np.stack([array(block.norm.bias) for block in blocks])
            self.head, self.head_bias = array(net.head.weight), array(net.head.bias)
        self.eps = float(blocks[0].norm.eps)
        self.prenorm = bool(blocks[0].prenorm)
        self.pooling = POOLING_CODES[net.pooling]
        H = self.encoder.shape[0]
        S = n_streams
        self._split_ssm(S)  # (S, n_layers, H, N) each
        self.total = np.zeros((S, H), self.dtype)
        self.peak = np.full((S, H), -np.inf, self.dtype)
        self.count = 0

    def _steps(self, x: np.ndarray, out: np.ndarray, every_step: bool) -> None:
        """The compiled step over x (S, C, k), the outputs into ``out``."""
        _s4d_steps(
            x, out, every_step, self.count, self.pooling, self.prenorm, self.eps, self.encoder,
            self.encoder_bias, self.A_re, self.A_im, self.CB_re, self.CB_im, self.skip,
            self.mix, self.mix_bias, self.norm, self.norm_bias, self.head, self.head_bias,
            self.ssm_re, self.ssm_im, self.total, self.peak,
        )

    def _blocks_chunk(self, feature: np.ndarray, rows: slice, kernels: list) -> np.ndarray:
        """The encoder and every block over a chunk of the streams ``rows``: (C, B, k) ->
        (H, B, k); the S4D states carried in and updated."""
        C, B, k = feature.shape
        H = self.encoder.shape[0]
        feature = (self.encoder @ feature.reshape(C, B * k)).reshape(H, B, k)
        feature += self.encoder_bias[:, None, None]
        for layer in range(len(self.mix)):
            z = self._layer_norm(feature, layer) if self.prenorm else feature  # (H, B, k)
            state = self.ssm_re[rows, layer], self.ssm_im[rows, layer]  # (B, H, N), views
            y = _ssm_chunk(z, state, self.skip[layer], kernels[layer])  # (H, B, k)
            # exact, torch's default; a Python float keeps float32 arrays float32
            gelu = 0.5 * y * (1.0 + erf(y * 0.5**0.5))
            mixed = (self.mix[layer] @ gelu.reshape(H, B * k)).reshape(2 * H, B, k)
            mixed += self.mix_bias[layer][:, None, None]
            feature = feature + mixed[:H] * expit(mixed[H:])  # GLU, the residual sum
            if not self.prenorm:
                feature = self._layer_norm(feature, layer)
        return feature

    def _layer_norm(self, x: np.ndarray, layer: int) -> np.ndarray:
        """LayerNorm over the channels of x (H, B, k)."""
        centred = x - x.mean(axis=0)
        inv = 1.0 / np.sqrt((centred**2).mean(axis=0) + self.eps)
        return centred * inv * self.norm[layer][:, None, None] + self.norm_bias[layer][:, None, None]


def compiled_stepper(module, n_streams: int):
    """The compiled step of ``module`` for ``n_streams`` streams, or None where there is none
    (an ensemble, a GPU, a network that cannot stream): the caller goes through torch there."""
    from ..ssm import ConvS4DNetwork, S4DNetwork

    if next(module.parameters()).device.type != "cpu" or getattr(module, "bidirectional", False):
        return None  # a bidirectional network's initial_state says why it cannot stream
    if isinstance(module, ConvS4DNetwork):
        return ConvS4DStepper(module, n_streams)
    if isinstance(module, S4DNetwork):
        return S4DStepper(module, n_streams)
    return None


@compiled(nogil=True, fastmath=FASTMATH)
def _layer_norm(x, weight, bias, eps):  # pragma: no cover - compiled
    """LayerNorm of the vector x, in place."""
    H = x.shape[0]
    mean = 0.0
    for h in range(H):
        mean += x[h]
    mean /= H
    var = 0.0
    for h in range(H):
        var += (x[h] - mean) ** 2
    inv = 1.0 / np.sqrt(var / H + eps)
    for h in range(H):
        x[h] = (x[h] - mean) * inv * weight[h] + bias[h]


@compiled(nogil=True, fastmath=FASTMATH)
def _s4d_steps(
    x, out, every_step, count, pooling, prenorm, eps, encoder, encoder_bias, A_re, A_im, CB_re,
    CB_im, skip, mix, mix_bias, norm, norm_bias, head, head_bias, ssm_re, ssm_im, total, peak,
):  # pragma: no cover - compiled; tested through PredictionStream against the network
    S, n_in, k = x.shape
    n_layers, H, N = A_re.shape
    dt = x.dtype
    feature = np.zeros(H, dt)
    z = np.zeros(H, dt)
    y = np.zeros(H, dt)
    pooled = np.zeros(2 * H, dt)
    root_half = np.sqrt(0.5)
    for s in range(S):
        for t in range(k):
            for h in range(H):  # the encoder: a linear map of the sample
                acc = encoder_bias[h]
                for c in range(n_in):
                    acc += encoder[h, c] * x[s, c, t]
                feature[h] = acc
            for layer in range(n_layers):
                z[:] = feature
                if prenorm:
                    _layer_norm(z, norm[layer], norm_bias[layer], eps)
                _ssm_step(A_re[layer], A_im[layer], CB_re[layer], CB_im[layer], ssm_re[s, layer],
                          ssm_im[s, layer], skip[layer], z, y)
                for h in range(H):  # GELU (exact, torch's default)
                    y[h] = 0.5 * y[h] * (1.0 + math_erf(y[h] * root_half))
                for h in range(H):  # Linear(H, 2H), GLU, the residual sum
                    a = mix_bias[layer, h]
                    g = mix_bias[layer, H + h]
                    for j in range(H):
                        a += mix[layer, h, j] * y[j]
                        g += mix[layer, H + h, j] * y[j]
                    feature[h] += a / (1.0 + np.exp(-g))
                if not prenorm:
                    _layer_norm(feature, norm[layer], norm_bias[layer], eps)
            _pool_and_head(
                feature, count + t + 1, total[s], peak[s], pooling, head, head_bias, pooled,
                out[s, t if every_step else 0], every_step or t == k - 1,
            )
