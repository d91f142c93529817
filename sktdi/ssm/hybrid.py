"""Multi-scale convolution network with S4D layers for the long range.

Layout: Conv1d layout, (B, C, L) — batch, channels, time — inside the blocks; the S4D layer
takes (B, L, H) and is transposed in and out.

By default every padding is on the left (causal): the output at step t depends on steps ≤ t
only, so the network can run on a prefix and stream one sample at a time
(:meth:`ConvS4DNetwork.step`). ``bidirectional=True`` centres the convolutions and the
max-pool and lets the S4D layers run both ways: every step sees the whole series, which a
model of whole series may use and a stream cannot.
"""

from __future__ import annotations

import contextlib
import functools

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .conv_ops import POOL as MAX_POOL
from .conv_ops import (
    RecomputedActivations,
    batch_norm_with_statistics,
    conv1d_same_length,
    max_pool3_project,
    max_pool3_same_length,
    pointwise_conv,
    recompute_block_outputs,
    residual_join,
    uses_batch_statistics,
    valid_batch_norm,
)
from .layers import S4D, ChannelDropout
from .network import (
    POOLINGS,
    StreamState,
    check_streamable,
    initial_pool_state,
    outputs_over_time,
    pool_step,
    pool_steps,
    valid_steps,
)

LONG_RANGES = ("conv", "s4d")


def _normalized_relu(branches: Tensor, scale: Tensor, shift: Tensor) -> Tensor:
    """A block's output again, relu(scale · branches + shift): its training-mode BatchNorm
    with the batch's statistics folded into ``scale`` and ``shift`` (C, 1) each."""
    with torch.no_grad():
        return torch.addcmul(shift, branches, scale).relu_()  # (B, n_out, L)


def _masked(remake, mask: Tensor) -> Tensor:
    """A dropped block output recomputed, times the padding mask (B, 1, L)."""
    return remake().mul_(mask)  # (B, n_out, L)


class CausalConv1d(nn.Conv1d):
    """``nn.Conv1d`` without bias, padded so that the output has the input's length: on the
    left by ``kernel_size - 1`` (the output at step t sees inputs t - kernel_size + 1 .. t),
    or, with ``causal=False``, centred (``(kernel_size - 1) // 2`` before, the rest after)."""

    def __init__(self, *args, causal: bool = True, **kwargs) -> None:
        super().__init__(*args, bias=False, **kwargs)
        self.causal = causal

    @property
    def left(self) -> int:
        """Zero padding before the series."""
        k = self.kernel_size[0]
        return k - 1 if self.causal else (k - 1) // 2

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, C_in, L) -> (B, C_out, L)."""
        return conv1d_same_length(x, self.weight, self.left)  # (B, C_out, L)


class MultiScaleBlock(nn.Module):
    """One multi-scale module: a 1×1 bottleneck, parallel convolutions of several widths, a
    max-pool branch, concatenated, BatchNorm, ReLU (InceptionTime's module; causal unless
    ``bidirectional``).

    ``long_range="s4d"`` replaces the widest convolution by an S4D layer over the bottleneck
    channels: its kernel spans the whole series at the cost of a few modes per channel.
    ``bidirectional=True``: centred convolutions and max-pool, and an S4D layer that runs
    both ways (:class:`~sktdi.ssm.S4D`'s ``bidirectional``); such a block cannot :meth:`step`.
    """

    def __init__(
        self,
        in_channels: int,
        n_filters: int = 32,
        kernel_sizes: tuple[int, ...] = (40, 20, 10),
        long_range: str = "conv",
        *,
        d_state: int = 64,
        init: str = "s4d-lin",
        dt_min: float = 1e-3,
        dt_max: float = 1e-1,
        bidirectional: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if long_range not in LONG_RANGES:
            raise ValueError(f"long_range must be one of {LONG_RANGES}, got {long_range!r}")
        factory = {"device": device, "dtype": dtype}
        self.bottleneck = nn.Conv1d(in_channels, n_filters, 1, bias=False, **factory)
        widths = sorted(kernel_sizes, reverse=True)
        self.ssm = None
        if long_range == "s4d":
            self.ssm = S4D(
                n_filters, d_state, init=init, dt_min=dt_min, dt_max=dt_max,
                bidirectional=bidirectional, **factory,
            )
            widths = widths[1:]
        self.convs = nn.ModuleList(
            CausalConv1d(n_filters, n_filters, k, causal=not bidirectional, **factory)
            for k in widths
        )
        self.bidirectional = bidirectional
        self.pool_proj = nn.Conv1d(in_channels, n_filters, 1, bias=False, **factory)
        self.n_out = n_filters * (len(kernel_sizes) + 1)
        self.norm = nn.BatchNorm1d(self.n_out, **factory)

    @property
    def history(self) -> int:
        """Past bottleneck outputs a streamed step needs: the widest convolution's reach."""
        return max((conv.kernel_size[0] for conv in self.convs), default=1) - 1

    def forward(self, x: Tensor, valid: Tensor | None = None) -> Tensor:
        """x: (B, C_in, L) -> (B, n_out, L). ``valid``: (B, 1, L) bool, False on the padding
        after a right-padded series (x is zero there already)."""
        # in place: BatchNorm's backward pass needs its input, not its output
        return F.relu(self.pre_activation(x, valid), inplace=True)  # (B, n_out, L)

    def pre_activation(self, x: Tensor, valid: Tensor | None = None) -> Tensor:
        """The block before its ReLU: the branches concatenated and normalized, x: (B, C_in, L)
        -> (B, n_out, L) (see :meth:`forward`)."""
        mask = None if valid is None else valid.to(x.dtype)  # (B, 1, L)
        return valid_batch_norm(self.branches(x, valid), self.norm, mask)  # (B, n_out, L)

    def branches(self, x: Tensor, valid: Tensor | None = None) -> Tensor:
        """The branches concatenated, BatchNorm's input: x: (B, C_in, L) -> (B, n_out, L)."""
        z = pointwise_conv(x, self.bottleneck.weight)  # (B, F, L)
        branches = [conv(z) for conv in self.convs]  # each (B, F, L)
        if self.ssm is not None:
            branches.insert(0, self.ssm(z.transpose(1, 2)).transpose(1, 2))  # (B, F, L)
        # the window of MAX_POOL steps: the last three, or centred
        left = 1 if self.bidirectional else MAX_POOL - 1
        if self.bidirectional and valid is not None:
            # a centred window at a series' last step must not see the padding's zeros (a
            # series alone is padded with -inf); the padding's own outputs are zeroed
            x = x.masked_fill(~valid, float("-inf"))  # (B, C_in, L)
            pooled = max_pool3_same_length(x, left).masked_fill(~valid, 0.0)  # (B, C_in, L)
            branches.append(pointwise_conv(pooled, self.pool_proj.weight))  # (B, F, L)
        else:
            branches.append(max_pool3_project(x, self.pool_proj.weight, left))  # (B, F, L)
        return torch.cat(branches, dim=1)  # (B, n_out, L)

    def initial_state(self, batch_size: int) -> dict:
        """Zero history for :meth:`step` (the zeros and -inf that ``forward`` pads with): the
        block's per-stream part of the network's :class:`StreamState`."""
        check_streamable(self.bidirectional)
        weight = self.bottleneck.weight  # (F, C_in, 1)
        factory = {"dtype": weight.dtype, "device": weight.device}
        return {
            "z": torch.zeros(batch_size, weight.shape[0], self.history, **factory),  # (B, F, K-1)
            "x": torch.full((batch_size, weight.shape[1], MAX_POOL - 1), float("-inf"), **factory),
            "ssm": None if self.ssm is None else self.ssm.initial_state(batch_size),
        }

    def step_parameters(self) -> tuple[Tensor, Tensor] | None:
        """The S4D branch's discretization for :meth:`step` (None without one): computed once
        per stream, shared by every stream."""
        return None if self.ssm is None else self.ssm.step_parameters()

    def step(self, x_k: Tensor, state: dict, discrete=None) -> tuple[Tensor, dict]:
        """x_k: (B, C_in) -> (B, n_out), new state. Eval mode (BatchNorm's running stats).
        ``discrete``: :meth:`step_parameters`, cached for the stream (None: computed here)."""
        z_k = F.linear(x_k, self.bottleneck.weight[..., 0])  # (B, F)
        z = torch.cat([state["z"], z_k.unsqueeze(-1)], dim=-1)  # (B, F, K)
        # each convolution reads its own last k steps of the bottleneck's history
        branches = [
            torch.einsum("bfk,gfk->bg", z[..., z.shape[-1] - conv.kernel_size[0] :], conv.weight)
            for conv in self.convs
        ]  # each (B, F)
        ssm_state = state["ssm"]
        if self.ssm is not None:
            y_k, ssm_state = self.ssm.step(z_k, ssm_state, discrete)  # (B, F)
            branches.insert(0, y_k)
        window = torch.cat([state["x"], x_k.unsqueeze(-1)], dim=-1)  # (B, C_in, MAX_POOL)
        branches.append(F.linear(window.amax(dim=-1), self.pool_proj.weight[..., 0]))  # (B, F)
        out = F.relu(self.norm(torch.cat(branches, dim=1)))  # (B, n_out)
        new_state = {**state, "z": z[..., 1:], "x": window[..., 1:], "ssm": ssm_state}
        return out, new_state


class ConvS4DNetwork(nn.Module):
    """Stacked :class:`MultiScaleBlock` s with a residual shortcut over each group of three,
    pooling over time and a linear head.

    Parameters
    ----------
    n_channels, n_outputs : int
        Input channels and the head's size.
    depth : int
        Number of blocks (a residual shortcut spans each full group of three).
    n_filters : int
        Filters per branch; a block outputs ``4 * n_filters`` channels.
    long_range : {"conv", "s4d"}
        The widest branch of every block: a convolution (kernel 40), or an S4D layer.
    pooling : {"mean", "max", "mean-max", "last"}
        How the last block's features become one vector ("mean": InceptionTime's global
        average pooling).
    dropout : float
        Channel dropout after every block (0: none, as InceptionTime).
    d_state, init, dt_min, dt_max
        The S4D layers' settings (see :class:`~sktdi.ssm.S4D`).
    bidirectional : bool
        False (causal): the output at step t sees steps ≤ t, so the network streams.
        True: centred convolutions and max-pool and S4D layers that run both ways; every step
        sees the whole series, and :meth:`step` and :meth:`outputs_over_time` raise.
    device, dtype
        Where and in which real dtype every parameter is created.

    Notes
    -----
    ``forward`` takes X (B, C, L) or (B, L) and optional ``lengths`` (B,) of right-padded
    series: the padding is zeroed before every block and pooling ignores it. A causal network
    (the default) streams: :meth:`initial_state` and :meth:`step` feed a series one sample at a
    time, each step equal to ``forward`` on the prefix (eval mode).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import ConvS4DNetwork
    >>> net = ConvS4DNetwork(n_channels=2, n_outputs=3, long_range="s4d", n_filters=8).eval()
    >>> X = torch.randn(4, 2, 50)  # (B, C, L)
    >>> net(X).shape, len(net.ssm_layers)
    (torch.Size([4, 3]), 6)
    >>> with torch.no_grad():
    ...     state = net.initial_state(batch_size=4)
    ...     for k in range(50):
    ...         out, state = net.step(X[:, :, k], state)
    ...     bool(torch.allclose(out, net(X), atol=1e-4))
    True
    """

    def __init__(
        self,
        n_channels: int = 1,
        n_outputs: int = 1,
        depth: int = 6,
        n_filters: int = 32,
        long_range: str = "s4d",
        pooling: str = "mean",
        dropout: float = 0.0,
        d_state: int = 64,
        init: str = "s4d-lin",
        dt_min: float = 1e-3,
        dt_max: float = 1e-1,
        bidirectional: bool = False,
        *,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        factory = {"device": device, "dtype": dtype}
        ssm = {"d_state": d_state, "init": init, "dt_min": dt_min, "dt_max": dt_max}
        self.pooling = pooling
        self.bidirectional = bidirectional
        self.blocks = nn.ModuleList()
        channels = n_channels
        for _ in range(depth):
            block = MultiScaleBlock(
                channels, n_filters, long_range=long_range, bidirectional=bidirectional,
                **ssm, **factory,
            )
            self.blocks.append(block)
            channels = block.n_out
        self.shortcuts = nn.ModuleList(
            nn.Sequential(
                nn.Conv1d(n_channels if g == 0 else channels, channels, 1, bias=False, **factory),
                nn.BatchNorm1d(channels, **factory),
            )
            for g in range(depth // 3)
        )
        self.dropout = ChannelDropout(dropout)
        pooled = 2 * channels if pooling == "mean-max" else channels
        self.head = nn.Linear(pooled, n_outputs, **factory)

    @property
    def ssm_layers(self) -> list[S4D]:
        """The S4D layer of each block, input side first (empty for ``long_range="conv"``)."""
        return [block.ssm for block in self.blocks if block.ssm is not None]

    def _closes_group(self, d: int) -> bool:
        """Whether block ``d`` ends a group of three that has a residual shortcut."""
        return d % 3 == 2 and d // 3 < len(self.shortcuts)

    def recomputes_block_outputs(self, X: Tensor) -> bool:
        """Whether a forward pass of X (B, C, L) or (B, L) in this grad mode drops its blocks'
        outputs for recomputation (:func:`~sktdi.ssm.conv_ops.recompute_block_outputs`: on a
        CPU, in training, on long series)."""
        if X.dim() == 2:
            X = X.unsqueeze(1)  # (B, 1, L)
        return recompute_block_outputs(X, self.blocks[0].n_out)

    def sequence_features(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) or (B, L) -> the last block's per-step features (B, L, 4F)."""
        if X.dim() == 2:
            X = X.unsqueeze(1)  # (B, 1, L)
        mask = None
        if lengths is not None:
            mask = valid_steps(lengths.to(X.device), X.shape[-1], X.dtype).transpose(1, 2)  # (B, 1, L)
        # on a CPU in training on long series, the output of a block without a shortcut is
        # kept for the backward pass as its BatchNorm's input, which BatchNorm keeps anyway
        recompute = RecomputedActivations() if self.recomputes_block_outputs(X) else None
        with recompute or contextlib.nullcontext():
            x, residual = X, X  # (B, C, L)
            remake = None  # recomputes x, when x is dropped
            for d, block in enumerate(self.blocks):
                inputs = (x, None) if mask is None else (x * mask, mask > 0)
                if remake is not None and mask is not None:
                    recompute.drop(inputs[0], functools.partial(_masked, remake, mask))
                branches = block.branches(*inputs)  # (B, 4F, L)
                if remake is not None:  # kept as recipes by now: their memory can go
                    recompute.release(x)
                    recompute.release(inputs[0])
                x = inputs = remake = None
                # in training, BatchNorm's statistics are the valid steps' (not the padding's)
                if (
                    self._closes_group(d) or recompute is None
                    or not uses_batch_statistics(block.norm)
                ):
                    normalized = valid_batch_norm(branches, block.norm, mask)  # (B, 4F, L)
                else:
                    normalized, *affine = batch_norm_with_statistics(branches, block.norm, mask)
                    remake = functools.partial(_normalized_relu, branches, *affine)
                    recompute.drop(normalized, remake)
                if self._closes_group(d):
                    # relu(block(x) + shortcut(residual)), as one step that keeps less memory
                    x = residual = residual_join(
                        normalized, residual, self.shortcuts[d // 3], mask
                    )
                else:
                    # in place: BatchNorm's backward pass needs its input, not its output
                    x = F.relu(normalized, inplace=True)  # (B, 4F, L)
                branches = normalized = None
                # (B, L, 4F) view for ChannelDropout, which drops a channel at every step
                dropped = self.dropout(x.transpose(1, 2)).transpose(1, 2)  # (B, 4F, L)
                if dropped.data_ptr() != x.data_ptr():  # a new array, not a view of x
                    remake = None
                x = dropped
        return x.transpose(1, 2)  # (B, L, 4F)

    def forward(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) or (B, L) -> (B, n_outputs)."""
        return self.head(pool_steps(self.sequence_features(X, lengths), self.pooling, lengths))

    def outputs_over_time(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) -> (B, L, n_outputs): the output for every prefix, from one pass."""
        check_streamable(self.bidirectional)
        return outputs_over_time(self, X, lengths)

    def initial_state(self, batch_size: int) -> StreamState:
        """State for :meth:`step`: each block's history and S4D state, the pooling sums.

        The S4D layers' discretization is computed here, once for the stream: after the
        parameters change, call ``initial_state`` again.
        """
        check_streamable(self.bidirectional)
        return StreamState(
            streams={
                "blocks": [block.initial_state(batch_size) for block in self.blocks],
                "pool": initial_pool_state(batch_size, self.blocks[-1].n_out, self.head.weight),
            },
            shared={"discrete": [block.step_parameters() for block in self.blocks], "steps": 0},
        )

    def step(self, x_k: Tensor, state: StreamState) -> tuple[Tensor, StreamState]:
        """Feed one time step x_k (B, C); get the output for the prefix so far (eval mode)."""
        x, residual = x_k, x_k  # (B, C)
        blocks = []
        layers = zip(self.blocks, state.streams["blocks"], state.shared["discrete"])
        for d, (block, block_state, discrete) in enumerate(layers):
            x, block_state = block.step(x, block_state, discrete)  # (B, 4F)
            blocks.append(block_state)
            if self._closes_group(d):
                shortcut = self.shortcuts[d // 3]
                skip = shortcut[1](F.linear(residual, shortcut[0].weight[..., 0]))  # (B, 4F)
                x = residual = F.relu(x + skip)  # (B, 4F)
        steps = state.shared["steps"] + 1
        pooled, pool = pool_step(self.pooling, state.streams["pool"], x, steps)  # (B, 4F|8F)
        return self.head(pooled), StreamState(
            {"blocks": blocks, "pool": pool}, {**state.shared, "steps": steps}
        )

