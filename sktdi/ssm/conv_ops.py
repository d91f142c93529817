"""The multi-scale block's convolution and max-pool over time, with backward passes that are
fast on a CPU.

On a CPU, torch's own backward of a 1-D convolution (oneDNN) spends about 5× its forward
time: the weight gradient and the input gradient each run slower than the forward
convolution they are made of. Both gradients *are* forward convolutions, so they are written
here as such (the same values, summed in another order), and the block's 3-step max-pool is
three shifted maxima instead of torch's windowed kernel, which is slow at stride 1. For
memory, the max-pool and the 1×1 projection after it are one step whose backward pass
recomputes the pooled series rather than keep it (:func:`max_pool3_project`).
``benchmarks/bench_deep_cost.py`` measures the default network's training step with these
and with torch's kernels. On a GPU torch's own kernels are kept.

``left`` is the zero padding before the series: ``kernel_size - 1`` for a causal convolution
(the output at step t sees steps ≤ t), ``(kernel_size - 1) // 2`` for a centred one; the rest
of ``kernel_size - 1`` goes after it, so the output has the input's length.

Layout: Conv1d layout, (B, C, L) — batch, channels, time.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

POOL = 3  # the max-pool's window, in steps


class _PaddedConv1d(torch.autograd.Function):
    """y[t] = Σ_j W[:, :, j] x[t - left + j], zero outside the series; no bias."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, left: int) -> Tensor:
        """x: (B, C_in, L), weight: (C_out, C_in, k) -> (B, C_out, L)."""
        ctx.save_for_backward(x, weight)
        ctx.left = left
        return F.conv1d(F.pad(x, (left, weight.shape[-1] - 1 - left)), weight)  # (B, C_out, L)

    @staticmethod
    def backward(ctx, grad_y: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        """grad_y: (B, C_out, L) -> grad x (B, C_in, L), grad weight (C_out, C_in, k)."""
        x, weight = ctx.saved_tensors
        k, left = weight.shape[-1], ctx.left
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            # x[s] feeds y[s + left - k + 1 .. s + left]: a convolution of grad_y, padded the
            # other way round, with the flipped and transposed weights
            grad_x = F.conv1d(
                F.pad(grad_y, (k - 1 - left, left)), weight.transpose(0, 1).flip(-1)
            )  # (B, C_in, L)
        if ctx.needs_input_grad[1]:
            # grad W[o, i, j] = Σ_b Σ_t grad_y[b, o, t] x_padded[b, i, t + j]: a convolution
            # over time with the batch as the channels and grad_y as the (long) kernel
            x_padded = F.pad(x, (left, k - 1 - left)).transpose(0, 1)  # (C_in, B, L + k - 1)
            grad_w = F.conv1d(x_padded, grad_y.transpose(0, 1)).transpose(0, 1)  # (C_out, C_in, k)
        return grad_x, grad_w, None


class _MaxPool3(torch.autograd.Function):
    """y[t] = max(x[t - left], x[t - left + 1], x[t - left + 2]), -inf outside the series;
    the gradient goes to the earliest maximum of each window, as torch's max-pool sends it
    (a window holding a NaN sends it to its last position, torch's to the NaN)."""

    @staticmethod
    def forward(ctx, x: Tensor, left: int) -> Tensor:
        """x: (B, C, L) -> (B, C, L)."""
        y = _max_pool3(x, left)  # (B, C, L)
        ctx.save_for_backward(x, y)
        ctx.left = left
        return y

    @staticmethod
    def backward(ctx, grad_y: Tensor) -> tuple[Tensor, None]:
        """grad_y: (B, C, L) -> grad x (B, C, L)."""
        x, y = ctx.saved_tensors
        return _max_pool3_grad(_max_pool3_masks(x, y, ctx.left), grad_y, ctx.left), None


class _MaxPool3Project(torch.autograd.Function):
    """W · max-pool3(x): the block's max-pool branch and its 1×1 projection in one step
    that keeps only x (which the block keeps anyway) for the backward pass, not the pooled
    series: on long series the pooled (B, C, L) of every block was a sixth of a training
    step's memory, and the max-pool costs a few elementwise passes to redo."""

    @staticmethod
    def forward(ctx, x: Tensor, weight: Tensor, left: int) -> Tensor:
        """x: (B, C_in, L), weight: (C_out, C_in, 1) -> (B, C_out, L)."""
        ctx.save_for_backward(x, weight)
        ctx.left = left
        return F.conv1d(_max_pool3(x, left), weight)  # (B, C_out, L)

    @staticmethod
    def backward(ctx, grad_out: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        """grad_out: (B, C_out, L) -> grad x (B, C_in, L), grad weight (C_out, C_in, 1)."""
        x, weight = ctx.saved_tensors
        y = _max_pool3(x, ctx.left)  # (B, C_in, L), recomputed
        grad_x = grad_w = None
        if ctx.needs_input_grad[1]:
            # Σ_b Σ_t grad_out[b, o, t] y[b, i, t]
            grad_w = torch.einsum("bot,bit->oi", grad_out, y).unsqueeze(-1)  # (C_out, C_in, 1)
        if ctx.needs_input_grad[0]:
            masks = _max_pool3_masks(x, y, ctx.left)
            del y  # the largest of the backward pass's arrays, not needed past the masks
            grad_y = F.conv1d(grad_out, weight.transpose(0, 1))  # (B, C_in, L)
            grad_x = _max_pool3_grad(masks, grad_y, ctx.left, spend=True)
        return grad_x, grad_w, None


def _max_pool3(x: Tensor, left: int) -> Tensor:
    """The max over each window of 3 steps, x: (B, C, L) -> (B, C, L)."""
    first, second, third = _windows(x, left)  # each (B, C, L)
    return torch.maximum(torch.maximum(first, second), third)


def _max_pool3_masks(x: Tensor, y: Tensor, left: int) -> tuple[Tensor, Tensor]:
    """Where each window's earliest maximum sits, from the max-pool's input x and output y
    (each (B, C, L)): (at its first position, at its second), bool (B, C, L) each; the
    third position takes the rest."""
    first, second, _ = _windows(x, left)  # each (B, C, L)
    take_first = first == y  # (B, C, L)
    return take_first, (second == y) & ~take_first


def _max_pool3_grad(
    masks: tuple[Tensor, Tensor], grad_y: Tensor, left: int, spend: bool = False
) -> Tensor:
    """The max-pool's input gradient (B, C, L) from :func:`_max_pool3_masks` and the
    output gradient grad_y (B, C, L); ``spend``: grad_y is the caller's own, and is used up
    as a buffer (one (B, C, L) array fewer at the backward pass's peak)."""
    take_first, take_second = masks
    L = grad_y.shape[-1]
    # the padded series' gradient: window t starts at padded position t
    grad = grad_y.new_zeros(*grad_y.shape[:-1], L + POOL - 1)  # (B, C, L + 2)
    taken = torch.where(take_first, grad_y, 0.0)  # (B, C, L)
    grad[..., :L] += taken
    rest = grad_y.sub_(taken) if spend else grad_y - taken  # (B, C, L)
    torch.where(take_second, rest, rest.new_zeros(()), out=taken)
    grad[..., 1 : L + 1] += taken
    rest -= taken
    grad[..., 2:] += rest  # the third takes what is left
    return grad[..., left : left + L]  # (B, C, L)


def _own_backward(x: Tensor) -> bool:
    """Whether this module's backward passes serve: on a CPU, outside autocast (which casts
    torch's own kernels' inputs, not these)."""
    return x.device.type == "cpu" and not torch.is_autocast_enabled("cpu")


def _windows(x: Tensor, left: int) -> tuple[Tensor, Tensor, Tensor]:
    """x: (B, C, L) -> the three positions of every window, each a (B, C, L) view."""
    padded = F.pad(x, (left, POOL - 1 - left), value=float("-inf"))  # (B, C, L + 2)
    L = x.shape[-1]
    return padded[..., :L], padded[..., 1 : L + 1], padded[..., 2:]


def conv1d_same_length(x: Tensor, weight: Tensor, left: int) -> Tensor:
    """Convolution without bias, zero-padded by ``left`` before the series and the rest of
    ``k - 1`` after it: x (B, C_in, L), weight (C_out, C_in, k) -> (B, C_out, L).

    Examples
    --------
    >>> import torch, torch.nn.functional as F
    >>> x, w = torch.randn(2, 3, 10), torch.randn(4, 3, 5)
    >>> causal = conv1d_same_length(x, w, left=4)
    >>> bool(torch.allclose(causal, F.conv1d(F.pad(x, (4, 0)), w)))
    True
    """
    if not _own_backward(x):
        return F.conv1d(F.pad(x, (left, weight.shape[-1] - 1 - left)), weight)  # (B, C_out, L)
    return _PaddedConv1d.apply(x, weight, left)


def max_pool3_same_length(x: Tensor, left: int) -> Tensor:
    """Max over windows of 3 steps that start ``left`` steps before each step (2: the last
    three steps, causal; 1: centred), x: (B, C, L) -> (B, C, L).

    Examples
    --------
    >>> import torch
    >>> x = torch.tensor([[[1.0, 3.0, 2.0, 0.0, -1.0]]])
    >>> max_pool3_same_length(x, left=2).tolist(), max_pool3_same_length(x, left=1).tolist()
    ([[[1.0, 3.0, 3.0, 3.0, 2.0]]], [[[3.0, 3.0, 3.0, 2.0, 0.0]]])
    """
    if not _own_backward(x):
        padded = F.pad(x, (left, POOL - 1 - left), value=float("-inf"))  # (B, C, L + 2)
        return F.max_pool1d(padded, POOL, stride=1)  # (B, C, L)
    return _MaxPool3.apply(x, left)


def max_pool3_project(x: Tensor, weight: Tensor, left: int) -> Tensor:
    """``conv1d(max_pool3_same_length(x, left), weight)`` for a 1×1 weight (C_out, C_in, 1),
    x: (B, C_in, L) -> (B, C_out, L); on a CPU its backward pass recomputes the pooled series
    instead of keeping it.

    Examples
    --------
    >>> import torch, torch.nn.functional as F
    >>> x, w = torch.randn(2, 3, 10), torch.randn(4, 3, 1)
    >>> bool(torch.allclose(max_pool3_project(x, w, 2),
    ...                     F.conv1d(max_pool3_same_length(x, 2), w), atol=1e-6))
    True
    """
    if not _own_backward(x):
        return F.conv1d(max_pool3_same_length(x, left), weight)  # (B, C_out, L)
    return _MaxPool3Project.apply(x, weight, left)
