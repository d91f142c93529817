"""A compiled streaming step of the default network (:class:`~sktdi.ssm.ConvS4DNetwork`):
one numba kernel runs every block of the network on each sample, without a Python or torch
dispatch per layer.

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

import numpy as np
import torch
from numba import njit

POOLING_CODES = {"mean": 0, "max": 1, "mean-max": 2, "last": 3}


class ConvS4DStepper:
    """The packed weights of an eval-mode, causal :class:`~sktdi.ssm.ConvS4DNetwork` on the
    CPU, and the state of ``n_streams`` streams; :meth:`feed` runs the compiled step."""

    def __init__(self, net, n_streams: int) -> None:
        dtype = next(net.parameters()).dtype
        self.dtype = np.float64 if dtype == torch.float64 else np.float32
        ctype = np.complex128 if self.dtype == np.float64 else np.complex64
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

        def array(tensor) -> np.ndarray:
            return tensor.detach().cpu().numpy().astype(self.dtype)

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

    def keep(self, rows: np.ndarray) -> None:
        """Follow only the streams ``rows`` (indices), in that order."""
        for name in ("history", "window", "ssm_state", "total", "peak"):
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[rows]))

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
    n_out = head.shape[0]
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
            n = count + t + 1
            for c in range(width):
                total[s, c] += feature[c]
                peak[s, c] = max(peak[s, c], feature[c])
            if every_step or t == k - 1:
                n_pooled = width
                for c in range(width):
                    if pooling == 0 or pooling == 2:
                        pooled[c] = total[s, c] / n
                    elif pooling == 1:
                        pooled[c] = peak[s, c]
                    else:
                        pooled[c] = feature[c]
                if pooling == 2:
                    for c in range(width):
                        pooled[width + c] = peak[s, c]
                    n_pooled = 2 * width
                row = t if every_step else 0
                for o in range(n_out):
                    acc = head_bias[o]
                    for c in range(n_pooled):
                        acc += head[o, c] * pooled[c]
                    out[s, row, o] = acc

