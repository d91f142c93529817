"""The 3-step max-pool's compiled loops (:mod:`sktdi.ssm.conv_ops`), in their own module so that
numba is imported only when a CPU training step first pools, and can cache them on disk.

Each loop reads its input once. In torch's ops the same max-pool padded the series with -inf
(an allocation and a fill), took two maxima over strided views, and its backward pass
recomputed both, compared them for two masks and moved the gradient with three ``where`` and
six adds: on a CPU the block's max-pool branch was a third of a training step at OSULeaf's
length (``benchmarks/deep_model/bench_deep_cost.py``).

Rows are series × channels, (R, L) C-contiguous; a window of output step t covers input steps
t - left, t - left + 1 and t - left + 2, and a step outside the series is -inf. The loops
are serial: they run inside torch's training step, on whatever thread torch gives them.
"""

from __future__ import annotations

import numpy as np

from ..utils.compiled import compiled


@compiled(inline="always", nogil=True)
def _pad_row(row, left, padded):
    """padded[left + s] = row[s], -inf before and after: (L,) -> (L + 2,)."""
    L = row.shape[0]
    for i in range(left):
        padded[i] = -np.inf
    for s in range(L):
        padded[left + s] = row[s]
    for i in range(left + L, L + 2):
        padded[i] = -np.inf


@compiled(inline="always", nogil=True)
def _holds_nan(a, b, c):
    """Whether a window's three values hold a NaN (which makes torch.maximum's NaN)."""
    return (a != a) | (b != b) | (c != c)


@compiled(nogil=True)
def max_pool3_rows(x, left, out):
    """out[r, t] = the maximum of x[r]'s window at t (NaN where the window holds one, as
    torch.maximum gives); x, out: (R, L)."""
    R, L = x.shape
    padded = np.empty(L + 2, dtype=x.dtype)
    for r in range(R):
        _pad_row(x[r], left, padded)
        for t in range(L):
            a, b, c = padded[t], padded[t + 1], padded[t + 2]
            m = b if b > a else a
            m = c if c > m else m
            out[r, t] = np.nan if _holds_nan(a, b, c) else m


@compiled(nogil=True)
def max_pool3_grad_rows(x, grad_y, left, grad_x):
    """grad_x[r, s] = Σ of grad_y[r, t] over the windows t whose earliest maximum is step s;
    x, grad_y, grad_x: (R, L). A window holding a NaN sends its gradient to its last step,
    and a maximum in the padding (a window of -inf only) sends it nowhere.

    Without branches or data-dependent writes: which position of a window holds its maximum
    is as random as the data, and a mispredicted branch (or a scatter's chain of writes) per
    step cost several times the rest of the loop. Each window's gradient goes to one of
    three rows by its maximum's position, shifted to the padded position it came from; a
    step's gradient is their sum there."""
    R, L = x.shape
    padded = np.empty(L + 2, dtype=x.dtype)
    zero = grad_y.dtype.type(0.0)
    # at padded position q: the gradient of window q - k when its maximum is at position k
    # (0 where it is not, and at the ends no window reaches)
    at_first = np.zeros(L + 2, dtype=grad_y.dtype)
    at_second = np.zeros(L + 2, dtype=grad_y.dtype)
    at_third = np.zeros(L + 2, dtype=grad_y.dtype)
    for r in range(R):
        _pad_row(x[r], left, padded)
        for t in range(L):
            a, b, c = padded[t], padded[t + 1], padded[t + 2]
            m = b if b > a else a
            third = (c > m) | _holds_nan(a, b, c)
            second = (b > a) & ~third
            g = grad_y[r, t]
            at_first[t] = zero if third | second else g
            at_second[t + 1] = g if second else zero
            at_third[t + 2] = g if third else zero
        for s in range(L):
            q = s + left
            grad_x[r, s] = at_first[q] + at_second[q] + at_third[q]


@compiled(nogil=True)
def passed_values(passed, values, out):
    """out[i] = values[i] where passed[i], else 0 (flat arrays; out may be values itself):
    torch.where and masked_fill over a bool mask ran at a tenth of this speed on a CPU,
    a few (B, C, L) of them in every residual join's backward pass."""
    zero = out.dtype.type(0.0)
    for i in range(values.shape[0]):
        out[i] = values[i] if passed[i] else zero
