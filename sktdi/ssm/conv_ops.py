"""The multi-scale block's convolution and max-pool over time, with backward passes that are
fast on a CPU.

On a CPU, torch's own backward of a 1-D convolution (oneDNN) spends about 5× its forward
time: the weight gradient and the input gradient each run slower than the forward
convolution they are made of. Both gradients *are* forward convolutions, so they are written
here as such (the same values, summed in another order). The block's 3-step max-pool and its
gradient are compiled loops that read their input once (:mod:`sktdi.ssm.pool_kernels`;
torch's windowed kernel is slow at stride 1, and torch's ``where`` over a bool mask, which
its gradient and the residual join's need, ran at a tenth of a copy's speed). For
memory, the max-pool and the 1×1 projection after it are one step whose backward pass
recomputes the pooled series rather than keep it (:func:`max_pool3_project`), a few series
at a time; where a group of blocks meets its residual shortcut, the join keeps two masks and
recomputes the shortcut's 1×1 convolution rather than keep three full arrays
(:func:`residual_join`); a block's output is kept as its BatchNorm's input and recomputed
where the backward pass reads it (:class:`RecomputedActivations`); and 1×1 convolutions are
matrix products, which copy nothing (:func:`pointwise_conv`).
``benchmarks/deep_model/bench_deep_cost.py`` measures the default network's training step with these
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

from ..utils.memory import MMAP_THRESHOLD_BYTES

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
        ctx.save_for_backward(x)  # the backward pass finds each window's maximum again
        ctx.left = left
        return _max_pool3(x, left)  # (B, C, L)

    @staticmethod
    def backward(ctx, grad_y: Tensor) -> tuple[Tensor, None]:
        """grad_y: (B, C, L) -> grad x (B, C, L)."""
        (x,) = ctx.saved_tensors
        return _max_pool3_grad(x, grad_y, ctx.left), None


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
        return _pointwise(_max_pool3(x, left), weight)  # (B, C_out, L)

    @staticmethod
    def backward(ctx, grad_out: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        """grad_out: (B, C_out, L) -> grad x (B, C_in, L), grad weight (C_out, C_in, 1)."""
        x, weight = ctx.saved_tensors
        grad_x = None  # (B, C_in, L), contiguous: its parts are written in place
        if ctx.needs_input_grad[0]:
            grad_x = torch.empty_like(x, memory_format=torch.contiguous_format)
        grad_w = weight.new_zeros(weight.shape) if ctx.needs_input_grad[1] else None
        # a few series at a time: the recomputed pooled series and the pooled series'
        # gradient are each a (B, C_in, L) array for the whole batch, at the peak of a step's
        # memory
        for part in _batch_parts(x):
            if grad_w is not None:
                # Σ_b Σ_t grad_out[b, o, t] y[b, i, t], y the pooled part, recomputed
                grad_w += _sum_of_products(grad_out[part], _max_pool3(x[part], ctx.left))
            if grad_x is not None:
                grad_y = _pointwise(grad_out[part], weight.transpose(0, 1))  # (b, C_in, L)
                _max_pool3_grad(x[part], grad_y, ctx.left, out=grad_x[part])
        return grad_x, grad_w, None


class _ResidualJoin(torch.autograd.Function):
    """relu(relu(a) + BatchNorm(W r)) in training mode: the last block's pre-activation a of
    a group meets the group's shortcut, the 1×1 convolution W of the group's input r.

    Torch's own ops keep relu(a), the shortcut's convolution output (BatchNorm's input) and
    the join's output, each (B, C, L) float, for the backward pass; this keeps two bool masks
    and r (which the group's first block keeps anyway), and redoes W r there: on long series
    a sixth of a training step's saved memory, for one 1×1 convolution more.
    """

    @staticmethod
    def forward(ctx, a, r, weight, gamma, beta, running_mean, running_var, factor, eps):
        """a: (B, C, L), r: (B, C_in, L), weight: (C, C_in, 1), gamma, beta, running stats:
        (C,) -> (B, C, L); updates the running stats in place, as ``nn.BatchNorm1d`` does."""
        shortcut, mean, invstd = torch.native_batch_norm(
            _pointwise(r, weight), gamma, beta, running_mean, running_var, True, factor, eps
        )  # (B, C, L), (C,), (C,)
        a_passed = a > 0  # (B, C, L)
        for part in _batch_parts(a):  # relu(a) a few series at a time: no third (B, C, L)
            shortcut[part].add_(a[part].clamp(min=0))
        out = shortcut.relu_()  # (B, C, L)
        ctx.save_for_backward(r, weight, gamma, mean, invstd, a_passed, out > 0)
        return out

    @staticmethod
    def backward(ctx, grad_out: Tensor):
        """grad_out: (B, C, L) -> the gradients of a, r, weight, gamma and beta."""
        r, weight, gamma, mean, invstd, a_passed, out_passed = ctx.saved_tensors
        per_channel = (-1, 1)  # (C,) -> (C, 1), against (B, C, L)
        # the arrays below are ordered so that at most three (B, C, L) of them live beside
        # grad_out: the first join's backward pass is a training step's peak of memory
        g = _passed(out_passed, grad_out)  # (B, C, L): the gradient of the sum
        del out_passed
        # BatchNorm's backward pass on the recomputed shortcut
        x_hat = _pointwise(r, weight).sub_(mean.view(per_channel)).mul_(invstd.view(per_channel))
        n = g.numel() // g.shape[1]  # values per channel
        grad_beta = g.sum((0, 2))  # (C,)
        # Σ g x̂ per channel, one series at a time: no third (B, C, L) array
        grad_gamma = sum((g_b * x_b).sum(-1) for g_b, x_b in zip(g, x_hat))  # (C,)
        # γ/σ (g - mean(g) - x̂ mean(g x̂)), in x̂'s buffer
        grad_c = x_hat.mul_(-grad_gamma.view(per_channel) / n).add_(g)  # (B, C, L)
        grad_c.sub_(grad_beta.view(per_channel) / n).mul_((gamma * invstd).view(per_channel))
        grad_a = _passed(a_passed, g, out=g) if ctx.needs_input_grad[0] else None  # in g
        del g, a_passed
        grad_r = grad_w = None
        if ctx.needs_input_grad[2]:
            grad_w = _sum_of_products(grad_c, r)  # (C, C_in, 1)
        if ctx.needs_input_grad[1]:
            grad_r = _pointwise(grad_c, weight.transpose(0, 1))  # (B, C_in, L)
        return grad_a, grad_r, grad_w, grad_gamma, grad_beta, None, None, None, None


# values of a (b, C, L) part of the batch that a backward pass's temporary arrays cover at once
# (16 MiB in float32): long series' batches go a few series at a time, short ones in one part
PART_VALUES = 2**22


def _batch_parts(x: Tensor) -> list[slice]:
    """x: (B, ...) -> slices of the batch, each of at most PART_VALUES values (one series at
    least)."""
    per_part = max(1, PART_VALUES // max(1, x[0].numel()))
    return [slice(start, start + per_part) for start in range(0, x.shape[0], per_part)]


def _pointwise(x: Tensor, weight: Tensor) -> Tensor:
    """A 1×1 convolution without bias, x: (B, C_in, L), weight: (C_out, C_in, 1) ->
    (B, C_out, L), as one matrix product per series: on a CPU torch's convolution, and its
    matmul of the 2-D weight with the 3-D x, copy x or their gradients' operands first, and
    both run slower (``benchmarks/deep_model/bench_deep_cost.py``)."""
    return torch.bmm(weight[..., 0].expand(x.shape[0], -1, -1), x)  # (B, C_out, L)


def _sum_of_products(grad: Tensor, x: Tensor) -> Tensor:
    """A 1×1 convolution's weight gradient Σ_b Σ_t grad[b, o, t] x[b, i, t], grad: (B, C_out, L),
    x: (B, C_in, L) -> (C_out, C_in, 1). One matrix product per series: torch's einsum of
    the same sum copied both (B, C, L) operands first (twice the memory, twice the time)."""
    return torch.bmm(grad, x.transpose(1, 2)).sum(0).unsqueeze(-1)  # (C_out, C_in, 1)


def _rows(x: Tensor):
    """x: (B, C, L) -> its values as (B·C, L) rows (see :func:`_flat`)."""
    return _flat(x).reshape(-1, x.shape[-1])  # (B·C, L)


def _passed(passed: Tensor, values: Tensor, out: Tensor | None = None) -> Tensor:
    """``torch.where(passed, values, 0)`` for a bool mask and values of one shape, into
    ``out`` (contiguous; values itself for in place) when given."""
    from .pool_kernels import passed_values

    if out is None:
        out = torch.empty_like(values, memory_format=torch.contiguous_format)
    passed_values(_flat(passed), _flat(values), _flat(out))
    return out


def _flat(x: Tensor):
    """x's values as a flat numpy view, which the compiled loops read and write: a copy only
    where x is not contiguous, so every array they write into is made contiguous."""
    return x.detach().contiguous().numpy().reshape(-1)


def _max_pool3(x: Tensor, left: int) -> Tensor:
    """The max over each window of 3 steps, x: (B, C, L) -> (B, C, L), in one compiled pass
    (:mod:`sktdi.ssm.pool_kernels`)."""
    from .pool_kernels import max_pool3_rows

    y = torch.empty_like(x, memory_format=torch.contiguous_format)  # (B, C, L)
    max_pool3_rows(_rows(x), left, _rows(y))
    return y


def _max_pool3_grad(x: Tensor, grad_y: Tensor, left: int, out: Tensor | None = None) -> Tensor:
    """The max-pool's input gradient (B, C, L) from its input x and its output gradient grad_y
    (each (B, C, L)), into ``out`` (a contiguous (B, C, L)) when given: each window's gradient
    goes to its earliest maximum."""
    from .pool_kernels import max_pool3_grad_rows

    grad_x = torch.empty_like(x, memory_format=torch.contiguous_format) if out is None else out
    max_pool3_grad_rows(_rows(x), _rows(grad_y), left, _rows(grad_x))
    return grad_x


def _own_backward(x: Tensor) -> bool:
    """Whether this module's backward passes serve: on a CPU, outside autocast (which casts
    torch's own kernels' inputs, not these), in float32 or float64 (the compiled max-pool's
    types)."""
    return (
        x.device.type == "cpu"
        and x.dtype in (torch.float32, torch.float64)
        and not torch.is_autocast_enabled("cpu")
    )


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


def residual_join(
    a: Tensor, r: Tensor, shortcut: torch.nn.Sequential, valid: Tensor | None = None
) -> Tensor:
    """``relu(relu(a) + shortcut(r))`` for a shortcut of a 1×1 convolution without bias and a
    ``BatchNorm1d``: a (B, C, L), r (B, C_in, L) -> (B, C, L). On a CPU, in training, one step
    that keeps two masks for the backward pass (:class:`_ResidualJoin`); the BatchNorm counts
    its batches and updates its running statistics as it does alone.

    Examples
    --------
    >>> import torch
    >>> torch.manual_seed(0) and None
    >>> conv = torch.nn.Conv1d(2, 3, 1, bias=False)
    >>> shortcut = torch.nn.Sequential(conv, torch.nn.BatchNorm1d(3))
    >>> a, r = torch.randn(4, 3, 10), torch.randn(4, 2, 10)
    >>> expected = torch.relu(torch.relu(a) + shortcut.eval()(r))
    >>> bool(torch.allclose(residual_join(a, r, shortcut), expected))
    True

    ``valid`` (B, 1, L), 1 on a series' own steps and 0 on its padding: in training the
    shortcut's BatchNorm takes its statistics over the valid steps only
    (:func:`masked_batch_norm`).
    """
    conv, norm = shortcut
    if valid is not None and uses_batch_statistics(norm):
        shortcut_out, _, _ = masked_batch_norm(pointwise_conv(r, conv.weight), norm, valid)
        return F.relu(F.relu(a) + shortcut_out)  # (B, C, L)
    fused = (
        _own_backward(a)
        and torch.is_grad_enabled()
        and conv.bias is None
        and norm.training
        and norm.affine
        and norm.track_running_stats
        and a.numel() > a.shape[1]  # BatchNorm's own error for one value per channel
    )
    if not fused:
        return F.relu(F.relu(a) + shortcut(r))  # (B, C, L)
    factor = _count_batch(norm)
    return _ResidualJoin.apply(
        a, r, conv.weight, norm.weight, norm.bias, norm.running_mean, norm.running_var,
        factor, norm.eps,
    )  # (B, C, L)


def _count_batch(norm: torch.nn.BatchNorm1d) -> float:
    """Count a training batch as ``nn.BatchNorm1d`` does; the running statistics' update
    factor for it (a cumulative average when ``momentum`` is None)."""
    norm.num_batches_tracked.add_(1)
    return 1.0 / float(norm.num_batches_tracked) if norm.momentum is None else norm.momentum


def uses_batch_statistics(norm: torch.nn.BatchNorm1d) -> bool:
    """Whether ``norm`` normalizes by the batch's statistics and updates running ones."""
    return norm.training and norm.affine and norm.track_running_stats


def masked_batch_norm(
    x: Tensor, norm: torch.nn.BatchNorm1d, valid: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    """``norm(x)`` in training mode with the batch's statistics taken over the valid steps
    only: x (B, C, L), valid (B, 1, L) 1 on a series' own steps, 0 on its padding ->
    (output (B, C, L), scale (C,), shift (C,)), output = scale · x + shift. The running
    statistics and the batch count move as the module's would on the valid steps alone.

    Padding is not signal: with it in the statistics, a batch of series of unequal length
    would be normalized by how much of it is padding (a batch at a quarter valid steps had
    a third of its valid steps' variance). On a batch without padding this is ``norm(x)``.

    Examples
    --------
    >>> import torch
    >>> norm = torch.nn.BatchNorm1d(2)
    >>> x, valid = torch.randn(3, 2, 8), torch.ones(3, 1, 8)
    >>> expected = torch.nn.BatchNorm1d(2)(x)
    >>> bool(torch.allclose(masked_batch_norm(x, norm, valid)[0], expected, atol=1e-6))
    True
    """
    count = valid.sum() * 1.0  # valid steps, summed over the batch
    mean = (x * valid).sum((0, 2)) / count  # (C,)
    centered = (x - mean.unsqueeze(-1)) * valid  # (B, C, L), 0 on the padding
    var = centered.pow(2).sum((0, 2)) / count  # (C,), biased, as BatchNorm normalizes
    with torch.no_grad():
        factor = _count_batch(norm)
        unbiased = var * (count / (count - 1)) if count > 1 else var  # (C,)
        norm.running_mean.mul_(1 - factor).add_(factor * mean)
        norm.running_var.mul_(1 - factor).add_(factor * unbiased)
    scale = norm.weight * torch.rsqrt(var + norm.eps)  # (C,)
    shift = norm.bias - mean * scale  # (C,)
    return x * scale.unsqueeze(-1) + shift.unsqueeze(-1), scale, shift  # (B, C, L)


def valid_batch_norm(x: Tensor, norm: torch.nn.BatchNorm1d, valid: Tensor | None) -> Tensor:
    """``norm(x)``, x (B, C, L); in training with ``valid`` (B, 1, L), its statistics over
    the valid steps only (:func:`masked_batch_norm`)."""
    if valid is None or not uses_batch_statistics(norm):
        return norm(x)  # (B, C, L)
    return masked_batch_norm(x, norm, valid)[0]  # (B, C, L)


def batch_norm_with_statistics(
    c: Tensor, norm: torch.nn.BatchNorm1d, valid: Tensor | None = None
):
    """``norm(c)`` for a ``BatchNorm1d`` in training mode with running statistics and an
    affine map, c: (B, C, L) -> (output (B, C, L), scale (C, 1), shift (C, 1)): the output is
    relu-free scale · c + shift, the batch's statistics folded in, for recomputing it; the
    running statistics and batch count move as the module's do. With ``valid`` (B, 1, L),
    the statistics are the valid steps' (:func:`masked_batch_norm`)."""
    if valid is not None:
        y, scale, shift = masked_batch_norm(c, norm, valid)
        return y, scale.detach().unsqueeze(-1), shift.detach().unsqueeze(-1)
    y, mean, invstd = torch.native_batch_norm(
        c, norm.weight, norm.bias, norm.running_mean, norm.running_var, True,
        _count_batch(norm), norm.eps,
    )  # (B, C, L), (C,), (C,)
    with torch.no_grad():
        scale = norm.weight * invstd  # (C,)
        shift = norm.bias - mean * scale  # (C,)
    return y, scale.unsqueeze(-1), shift.unsqueeze(-1)


def pointwise_conv(x: Tensor, weight: Tensor) -> Tensor:
    """A 1×1 convolution without bias, x: (B, C_in, L), weight: (C_out, C_in, 1) ->
    (B, C_out, L); on a CPU a matrix product, whose backward pass keeps only x and the weight
    as the convolution's does (see :func:`_pointwise`).

    Examples
    --------
    >>> import torch, torch.nn.functional as F
    >>> x, w = torch.randn(2, 3, 10), torch.randn(4, 3, 1)
    >>> bool(torch.allclose(pointwise_conv(x, w), F.conv1d(x, w), atol=1e-6))
    True
    """
    if not _own_backward(x):
        return F.conv1d(x, weight)  # (B, C_out, L)
    return _pointwise(x, weight)


class _Recipe:
    """How to recompute one dropped activation, and the copy made for the saved places that
    have not read it yet."""

    __slots__ = ("make", "copy", "unread")

    def __init__(self, make) -> None:
        self.make, self.copy, self.unread = make, None, 0

    def read(self) -> Tensor:
        if self.copy is None:
            self.copy = self.make()
        value = self.copy
        self.unread -= 1
        if self.unread <= 0:  # its last reader: held no longer than the original was
            self.copy = None
        return value


class RecomputedActivations:
    """Saved-tensor hooks under which chosen activations are not kept for the backward pass
    but recomputed when it reads them, from tensors it keeps anyway.

    A block's output relu(BatchNorm(c)) is kept by the next block's 1×1 convolution and
    max-pool and by the ReLU itself, while BatchNorm keeps c: :meth:`drop` it with a function
    that recomputes it from c, and the backward pass holds one such array at a time instead
    of one per block (for the default network at 16,000 steps, 125 MiB per block at batch 16).
    Until it is :meth:`release` d or the ``with`` block (the forward pass) ends, a dropped
    tensor stays referenced, so no other tensor can take its memory and be mistaken for it.

    Examples
    --------
    >>> import torch
    >>> x = torch.randn(3, 4, requires_grad=True)
    >>> with RecomputedActivations() as recompute:
    ...     h = torch.relu(x)
    ...     recompute.drop(h, lambda: torch.relu(x.detach()))
    ...     loss = (h * h).sum()  # the product keeps h: as a recipe, not the array
    >>> loss.backward()
    >>> bool(torch.allclose(x.grad, 2 * torch.relu(x.detach())))
    True
    """

    def __init__(self) -> None:
        self._dropped: dict[int, tuple[Tensor, _Recipe]] = {}
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def __enter__(self) -> RecomputedActivations:
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._hooks.__exit__(*exc)
        self._dropped.clear()  # the forward pass's references: the arrays can go now

    def drop(self, tensor: Tensor, make) -> None:
        """Keep ``tensor`` (contiguous, its own memory) for the backward pass as ``make()``,
        which must return a tensor of the same values, shape and dtype."""
        if not tensor.is_contiguous() or tensor.storage_offset() != 0:
            raise ValueError("only a contiguous tensor that owns its memory can be dropped")
        self._dropped[tensor.untyped_storage().data_ptr()] = (tensor, _Recipe(make))

    def release(self, tensor: Tensor) -> None:
        """Drop the forward pass's reference to a dropped tensor that nothing after this will
        keep: its memory can go, and a later tensor there is kept as torch keeps it."""
        self._dropped.pop(tensor.untyped_storage().data_ptr(), None)

    def _pack(self, tensor: Tensor):
        storage = tensor.untyped_storage()
        entry = self._dropped.get(storage.data_ptr())
        if entry is None or entry[0].untyped_storage().nbytes() != storage.nbytes():
            return tensor  # kept as torch keeps it
        recipe = entry[1]
        recipe.unread += 1
        return recipe, tensor.size(), tensor.stride(), tensor.storage_offset()

    @staticmethod
    def _unpack(packed):
        if isinstance(packed, Tensor):
            return packed
        recipe, size, stride, offset = packed
        return recipe.read().as_strided(size, stride, offset)  # the view that was saved


def recompute_block_outputs(x: Tensor, channels: int) -> bool:
    """Whether a training forward pass from x (B, C, L) drops its blocks' outputs, each
    (B, channels, L), for recomputation (:class:`RecomputedActivations`): on a CPU
    (:func:`_own_backward`), with gradients on, for outputs of at least
    ``MMAP_THRESHOLD_BYTES``. Smaller arrays are served again from the heap's freed memory
    at no cost, and recomputing them costs time; larger ones are faulted in anew at every
    step anyway (``benchmarks/long_series/bench_recompute.py``, ``benchmarks/long_series/long_series.py
    --memory``)."""
    size = x.shape[0] * channels * x.shape[-1] * x.element_size()
    return _own_backward(x) and torch.is_grad_enabled() and size >= MMAP_THRESHOLD_BYTES
