"""A compiled streaming step of the two networks (:class:`~sktdi.ssm.ConvS4DNetwork`, the
default, and :class:`~sktdi.ssm.S4DNetwork`): one numba kernel runs every block of the
network on each sample, without a Python or torch dispatch per layer.

The torch step (``ConvS4DNetwork.step``) spends almost all of its 1.6 ms per sample on the
dispatch of about a hundred small operations; the arithmetic is some 250k multiply-adds. Here
the eval-mode network is packed once into arrays (BatchNorm folded into a scale and a shift,
the S4D layers discretized) and each sample runs through all of it in one call.
``benchmarks/bench_stream.py`` measures both; ``tests/test_predict_streaming.py`` checks the
kernel against the network's convolution mode.

Layouts: weights as the torch modules hold them, stacked over blocks and zero-padded to the
widest block input (``C_max``: the network's input channels or ``4F``); state per stream.
"""

from __future__ import annotations

from math import erf as math_erf

import numpy as np
import torch
from numba import njit

POOLING_CODES = {"mean": 0, "max": 1, "mean-max": 2, "last": 3}


class _Stepper:
    """What both steppers share: the network's precision, its tensors as arrays of it, and
    the per-stream state arrays (named in ``STATE``, streams first) that :meth:`keep` cuts."""

    STATE: tuple[str, ...] = ()

    def __init__(self, net) -> None:
        double = next(net.parameters()).dtype == torch.float64
        self.dtype = np.float64 if double else np.float32
        self.ctype = np.complex128 if double else np.complex64

    def _array(self, tensor) -> np.ndarray:
        """A tensor as a contiguous array of the network's real precision."""
        return np.ascontiguousarray(tensor.detach().cpu().numpy().astype(self.dtype))

    def keep(self, rows: np.ndarray) -> None:
        """Follow only the streams ``rows`` (indices), in that order."""
        for name in self.STATE:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[rows]))


class ConvS4DStepper(_Stepper):
    """The packed weights of an eval-mode, causal :class:`~sktdi.ssm.ConvS4DNetwork` on the
    CPU, and the state of ``n_streams`` streams; :meth:`feed` runs the compiled step."""

    STATE = ("history", "window", "ssm_state", "total", "peak")

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
        # stacked: one (n_convs·F, F·k_max) matrix times the flattened window of the last
        # k_max bottleneck outputs
        self.conv = np.zeros((D, max(len(convs), 1) * F, F, k_max), f)
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
                    self.conv[d, c * F : (c + 1) * F, :, k_max - kw :] = array(conv.weight)
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
        # the state: each block's bottleneck history and max-pool window, the S4D states,
        # the pooling's running sum and max, the count of samples
        self.conv = self.conv.reshape(D, -1, F * k_max)
        self.history = np.zeros((S, D, F, k_max - 1), f)
        self.window = np.full((S, D, c_max, 2), -np.inf, f)
        self.ssm_state = np.zeros((S, D, F, N), ctype)
        self.total = np.zeros((S, width), f)
        self.peak = np.full((S, width), -np.inf, f)
        self.count = 0

    def feed(self, x: np.ndarray, every_step: bool) -> np.ndarray:
        """x: (S, C, k) scaled samples -> the outputs after the last sample (S, O), or after
        each of them (S, k, O) when ``every_step``."""
        x = np.ascontiguousarray(x, dtype=self.dtype)
        S, _, k = x.shape
        n_out = self.head.shape[0]
        out = np.empty((S, k if every_step else 1, n_out), self.dtype)
        _steps(
            x, out, every_step, self.count, len(self.widths), self.has_ssm, self.pooling,
            self.n_groups, self.bottleneck, self.conv, self.A_bar, self.CB_bar, self.skip,
            self.pool_proj, self.scale, self.shift, self.shortcut, self.shortcut_scale,
            self.shortcut_shift, self.head, self.head_bias, self.history, self.window,
            self.ssm_state, self.total, self.peak,
        )
        self.count += k
        return out if every_step else out[:, 0]


# reassociation lets the dot products vectorize; no flag that assumes away the -inf of the
# max-pool's empty window
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


@njit(cache=True, nogil=True, fastmath=FASTMATH)
def _steps(
    x, out, every_step, count, n_convs, has_ssm, pooling, n_groups, bottleneck, conv, A_bar,
    CB_bar, skip, pool_proj, scale, shift, shortcut, shortcut_scale, shortcut_shift, head,
    head_bias, history, window, ssm_state, total, peak,
):  # pragma: no cover - compiled; tested through PredictionStream against the network
    S, n_in, k = x.shape
    D, F, c_max = bottleneck.shape
    width = scale.shape[1]
    n_hist = history.shape[-1]  # k_max - 1
    k_max = n_hist + 1
    N = A_bar.shape[-1]
    dt = x.dtype
    feature = np.zeros(c_max, dt)  # the current block's input
    residual = np.zeros(c_max, dt)  # the input of the current group of three
    z = np.zeros(F, dt)
    recent = np.zeros(F * k_max, dt)  # (F, k_max) flattened
    pool_max = np.zeros(c_max, dt)
    branches = np.zeros(width, dt)
    pooled = np.zeros(2 * width, dt)
    for s in range(S):
        for t in range(k):
            feature[:] = 0
            for c in range(n_in):
                feature[c] = x[s, c, t]
            residual[:] = feature
            for d in range(D):
                # the bottleneck: z = W_b · input
                for f in range(F):
                    acc = 0.0
                    for c in range(c_max):
                        acc += bottleneck[d, f, c] * feature[c]
                    z[f] = acc
                b = 0
                if has_ssm:  # x_k = Ā x_{k-1} + C·B̄ u_k; y = 2 Re Σ x + D u
                    for f in range(F):
                        acc = 0.0
                        for n in range(N):
                            state = A_bar[d, f, n] * ssm_state[s, d, f, n] + CB_bar[d, f, n] * z[f]
                            ssm_state[s, d, f, n] = state
                            acc += state.real
                        branches[f] = 2.0 * acc + skip[d, f] * z[f]
                    b = F
                for i in range(F):  # history ++ [z]: the last k_max bottleneck outputs
                    for j in range(n_hist):
                        recent[i * k_max + j] = history[s, d, i, j]
                    recent[i * k_max + n_hist] = z[i]
                for r in range(n_convs * F):  # every convolution's output channels
                    acc = 0.0
                    for j in range(F * k_max):
                        acc += conv[d, r, j] * recent[j]
                    branches[b + r] = acc
                b += n_convs * F
                for c in range(c_max):  # never -inf: the window holds the current input
                    pool_max[c] = max(window[s, d, c, 0], window[s, d, c, 1], feature[c])
                for f in range(F):  # the max-pool over the last 3 inputs, projected
                    acc = 0.0
                    for c in range(c_max):
                        acc += pool_proj[d, f, c] * pool_max[c]
                    branches[b + f] = acc
                # the state moves on one sample
                for i in range(F):
                    for j in range(n_hist - 1):
                        history[s, d, i, j] = history[s, d, i, j + 1]
                    history[s, d, i, n_hist - 1] = z[i]
                for c in range(c_max):
                    window[s, d, c, 0] = window[s, d, c, 1]
                    window[s, d, c, 1] = feature[c]
                # BatchNorm (eval) and ReLU: the next block's input
                for c in range(width):
                    feature[c] = max(scale[d, c] * branches[c] + shift[d, c], 0.0)
                for c in range(width, c_max):
                    feature[c] = 0.0
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


@njit(cache=True, nogil=True, fastmath=FASTMATH)
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

    STATE = ("ssm_state", "total", "peak")

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
        self.ssm_state = np.zeros((S, *self.A_bar.shape), ctype)  # (S, n_layers, H, N)
        self.total = np.zeros((S, H), self.dtype)
        self.peak = np.full((S, H), -np.inf, self.dtype)
        self.count = 0

    def feed(self, x: np.ndarray, every_step: bool) -> np.ndarray:
        """As :meth:`ConvS4DStepper.feed`."""
        x = np.ascontiguousarray(x, dtype=self.dtype)
        S, _, k = x.shape
        out = np.empty((S, k if every_step else 1, self.head.shape[0]), self.dtype)
        _s4d_steps(
            x, out, every_step, self.count, self.pooling, self.prenorm, self.eps, self.encoder,
            self.encoder_bias, self.A_bar, self.CB_bar, self.skip, self.mix, self.mix_bias,
            self.norm, self.norm_bias, self.head, self.head_bias, self.ssm_state, self.total,
            self.peak,
        )
        self.count += k
        return out if every_step else out[:, 0]


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


@njit(cache=True, nogil=True, fastmath=FASTMATH)
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


@njit(cache=True, nogil=True, fastmath=FASTMATH)
def _s4d_steps(
    x, out, every_step, count, pooling, prenorm, eps, encoder, encoder_bias, A_bar, CB_bar,
    skip, mix, mix_bias, norm, norm_bias, head, head_bias, ssm_state, total, peak,
):  # pragma: no cover - compiled; tested through PredictionStream against the network
    S, n_in, k = x.shape
    n_layers, H, N = A_bar.shape
    dt = x.dtype
    feature = np.zeros(H, dt)
    z = np.zeros(H, dt)
    gelu = np.zeros(H, dt)
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
                for h in range(H):  # the S4D step, then GELU (exact, torch's default)
                    acc = 0.0
                    for n in range(N):
                        state = A_bar[layer, h, n] * ssm_state[s, layer, h, n] + (
                            CB_bar[layer, h, n] * z[h]
                        )
                        ssm_state[s, layer, h, n] = state
                        acc += state.real
                    y = 2.0 * acc + skip[layer, h] * z[h]
                    gelu[h] = 0.5 * y * (1.0 + math_erf(y * root_half))
                for h in range(H):  # Linear(H, 2H), GLU, the residual sum
                    a = mix_bias[layer, h]
                    g = mix_bias[layer, H + h]
                    for j in range(H):
                        a += mix[layer, h, j] * gelu[j]
                        g += mix[layer, H + h, j] * gelu[j]
                    feature[h] += a / (1.0 + np.exp(-g))
                if not prenorm:
                    _layer_norm(feature, norm[layer], norm_bias[layer], eps)
            _pool_and_head(
                feature, count + t + 1, total[s], peak[s], pooling, head, head_bias, pooled,
                out[s, t if every_step else 0], every_step or t == k - 1,
            )
