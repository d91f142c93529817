"""Diagonal SSM math: discretization, convolution kernel, FFT convolution, frequency response.

Pure torch functions, no modules. Shapes: H channels (d_model), N complex modes per channel
(d_state // 2, the conjugate half implied), L sequence length, F frequencies, B batch.
Frequencies are in cycles per sample, f in [0, 0.5].
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F
from scipy.fft import next_fast_len
from torch import Tensor

DISCRETIZATIONS = ("zoh", "bilinear")


def _complex_expm1(z: Tensor) -> Tensor:
    """exp(z) - 1 without the cancellation that loses B̄'s precision when ``|dt·A|`` is tiny."""
    x, y = z.real, z.imag
    real = torch.expm1(x) * torch.cos(y) - 2.0 * torch.sin(y / 2.0) ** 2
    imag = torch.exp(x) * torch.sin(y)
    return torch.complex(real, imag)


def _complex_exp(z: Tensor) -> Tensor:
    """exp(z) as a magnitude and a phase: about 4× faster than torch's complex exp on CPU."""
    magnitude = torch.exp(z.real)  # same shape as z
    if magnitude.requires_grad:
        # the hook holds a detached alias (same storage, no autograd state): the tensor itself
        # would make a cycle (tensor -> its hooks -> the hook -> tensor) that Python's garbage
        # collector cannot see through, and every training step leaked its kernel's magnitudes
        magnitude.register_hook(
            functools.partial(_finite_magnitude_gradient, magnitude.detach())
        )
    return torch.polar(magnitude, z.imag)  # same shape as z


def _finite_magnitude_gradient(magnitude: Tensor, grad: Tensor) -> Tensor:
    """torch.polar's gradient with respect to a subnormal magnitude, which is infinite, as 0.

    polar's gradient takes the phase of its result, dividing by the magnitude; where a fast
    mode has decayed to a subnormal magnitude within the kernel (TDI's spread modes decay by
    π/2 a step: float32 is subnormal after about 60 steps), that division overflows, and one
    training step made every SSM parameter NaN. The true gradient there, through exp, is at
    most the upstream gradient times the magnitude: 0 to float precision. A hook rather than a
    custom backward: the graph, and the order autograd sums gradients in, stay as they were,
    so every finite gradient is the same to the last bit.
    """
    subnormal = magnitude < torch.finfo(magnitude.dtype).tiny  # or 0
    return torch.where(subnormal & ~torch.isfinite(grad), torch.zeros_like(grad), grad)


def discretize(
    A: Tensor, B: Tensor, dt: Tensor, method: str = "zoh"
) -> tuple[Tensor, Tensor, Tensor]:
    """Discretize continuous diagonal modes with step ``dt``.

    Parameters
    ----------
    A, B : complex Tensor of shape (H, N)
        Continuous-time eigenvalues (Re A < 0) and input vectors.
    dt : real Tensor of shape (H,)
        Step size per channel.
    method : {"zoh", "bilinear"}

    Returns
    -------
    log_A_bar, A_bar, B_bar : complex Tensors of shape (H, N)
        ``A_bar ** l == exp(l * log_A_bar)``, which the Vandermonde kernel uses.

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import discretize
    >>> A = torch.tensor([[-0.5 + 3.0j]], dtype=torch.complex128)
    >>> dt = torch.tensor([0.1], dtype=torch.float64)
    >>> log_A_bar, A_bar, B_bar = discretize(A, torch.ones_like(A), dt)
    >>> bool(torch.allclose(A_bar, torch.exp(0.1 * A)))
    True
    """
    dtA = A * dt.unsqueeze(-1)  # (H, N)
    if method == "zoh":
        log_A_bar = dtA  # (H, N)
        A_bar = torch.exp(dtA)  # (H, N)
        B_bar = _complex_expm1(dtA) / A * B  # (H, N)
    elif method == "bilinear":
        half = dtA / 2  # (H, N)
        A_bar = (1 + half) / (1 - half)  # (H, N)
        log_A_bar = torch.log(A_bar)  # (H, N)
        B_bar = dt.unsqueeze(-1) * B / (1 - half)  # (H, N)
    else:
        raise ValueError(f"discretization must be one of {DISCRETIZATIONS}, got {method!r}")
    return log_A_bar, A_bar, B_bar


def vandermonde_kernel(log_A_bar: Tensor, CB_bar: Tensor, length: int) -> Tensor:
    """Convolution kernel K[h, l] = 2·Re Σ_n CB̄[h, n] · Ā[h, n]^l for l = 0..length-1.

    With l = a·S + b (S = ⌈√L⌉), Ā^l = Ā^{aS} · Ā^b, so the Vandermonde product factors into
    one batched complex matmul (H, L/S, N) @ (H, N, S): O(H·N·√L) exponentials and memory
    instead of O(H·N·L), no loop over channels or modes. Returns a real Tensor (H, L).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import vandermonde_kernel
    >>> log_A_bar = torch.log(torch.tensor([[0.5 + 0j]]))
    >>> vandermonde_kernel(log_A_bar, torch.tensor([[1.0 + 0j]]), 4)
    tensor([[2.0000, 1.0000, 0.5000, 0.2500]])
    """
    block = max(1, math.isqrt(length - 1) + 1) if length > 1 else 1
    n_blocks = -(-length // block)
    real_dtype = log_A_bar.real.dtype
    inner = torch.arange(block, device=log_A_bar.device, dtype=real_dtype)  # (S,)
    outer = torch.arange(n_blocks, device=log_A_bar.device, dtype=real_dtype) * block  # (L/S,)
    near = _complex_exp(log_A_bar.unsqueeze(-1) * inner)  # (H, N, S)
    far = _complex_exp(log_A_bar.unsqueeze(-1) * outer) * CB_bar.unsqueeze(-1)  # (H, N, L/S)
    K = torch.matmul(far.transpose(-1, -2), near)  # (H, L/S, S)
    return 2 * K.reshape(K.shape[0], -1)[:, :length].real  # (H, L)


# on a CPU the batch is transformed a few series at a time, each group's spectrum at most
# this many bytes: the whole batch's spectra (B·H·(n/2+1) complex numbers, several times the
# layer's input) were a large share of a long-series training step's peak memory, and short
# series still go in one group. A GPU transforms the whole batch at once.
SPECTRUM_GROUP_BYTES = 8 * 2**20


def _row_groups(u: Tensor, channels: int, n_fft: int) -> list[slice]:
    """Slices of u's first (batch) axis whose spectra, ``channels`` × (n/2+1) complex numbers
    per series, fill at most ``SPECTRUM_GROUP_BYTES`` each (one slice for an unbatched u or
    on a GPU)."""
    if u.dim() < 3 or u.device.type != "cpu":
        return [slice(None)]
    per_series = channels * (n_fft // 2 + 1) * 2 * u.element_size()
    rows = max(1, SPECTRUM_GROUP_BYTES // per_series)
    return [slice(start, start + rows) for start in range(0, u.shape[0], rows)]


class _FFTConvolution(torch.autograd.Function):
    """y = first L samples of the circular convolution of zero-padded u with k, over time.

    u: (B, L, H) (or (L, H)) real; k: (H, n) real, a kernel already laid out on the n-point
    circle. Differentiable once (``create_graph`` double backward is refused).
    Autograd through ``rfft(u, n)`` differentiates it as a complex-to-complex transform of
    the whole padded length, zero-filled (about a third of a layer's training step on CPU);
    the gradients here are the same correlations written as real transforms. The backward
    pass transforms u again rather than keep its spectrum from the forward pass. On a CPU
    the batch goes a few series at a time (``SPECTRUM_GROUP_BYTES``).
    """

    @staticmethod
    def forward(ctx, u: Tensor, k: Tensor) -> Tensor:
        length, n_fft = u.shape[-2], k.shape[-1]
        k_f = torch.fft.rfft(k)  # (H, n/2+1)
        channels = max(u.shape[-1], k.shape[0])  # u may hold one channel for H kernels
        y = u.new_empty(*u.shape[:-1], channels)  # (B, L, H)
        for rows in _row_groups(u, channels, n_fft):
            u_f = torch.fft.rfft(u[rows].transpose(-1, -2), n=n_fft)  # (b, H, n/2+1)
            y_rows = torch.fft.irfft(u_f * k_f, n=n_fft)  # (b, H, n)
            y[rows] = y_rows[..., :length].transpose(-1, -2)  # (b, L, H)
        # u, not its spectrum: u is the layer's input, which the network keeps anyway, and
        # the spectrum (twice its bytes) is one transform to redo in the backward pass
        ctx.save_for_backward(u, k_f)
        ctx.length, ctx.n_fft = length, n_fft  # n may be odd: not recoverable from k_f
        return y  # (B, L, H)

    @staticmethod
    @torch.autograd.function.once_differentiable  # the saved spectra carry no graph
    def backward(ctx, grad_y: Tensor) -> tuple[Tensor | None, Tensor | None]:
        u, k_f = ctx.saved_tensors  # (B, L, H), (H, n/2+1)
        n_fft, length = ctx.n_fft, ctx.length
        grad_u = torch.empty_like(u) if ctx.needs_input_grad[0] else None  # (B, L, H)
        # dL/dk[m] = Σ_b Σ_l g[l] u[l - m]: summed over the batch before the inverse
        cross = torch.zeros_like(k_f) if ctx.needs_input_grad[1] else None  # (H, n/2+1)
        for rows in _row_groups(u, k_f.shape[0], n_fft):
            g_f = torch.fft.rfft(grad_y[rows].transpose(-1, -2), n=n_fft)  # (b, H, n/2+1)
            if cross is not None:
                u_f = torch.fft.rfft(u[rows].transpose(-1, -2), n=n_fft)  # (b, H, n/2+1)
                products = g_f * u_f.conj_physical_()  # (b, H, n/2+1)
                if products.dim() > 2:  # any batch dimensions (none for an unbatched u)
                    products = products.sum(dim=tuple(range(products.dim() - 2)))
                cross += products  # (H, n/2+1)
            if grad_u is not None:
                # dL/du[j] = Σ_l g[l] k[l - j]: a correlation with k, i.e. conj(k_f) in
                # frequency; in place, as g_f is not needed after this
                grad_rows = torch.fft.irfft(g_f.mul_(k_f.conj()), n=n_fft)  # (b, H, n)
                grad_u[rows] = grad_rows[..., :length].transpose(-1, -2)  # (b, L, H)
        grad_k = None if cross is None else torch.fft.irfft(cross, n=n_fft)  # (H, n)
        return grad_u, grad_k


def fft_conv(
    u: Tensor, K: Tensor, K_back: Tensor | None = None, D: Tensor | None = None
) -> Tensor:
    """Causal convolution y[:, l, h] = Σ_{j<=l} K[h, l-j] u[:, j, h] by FFT, plus with
    ``K_back`` the anti-causal part Σ_{j>=l} K_back[h, j-l] u[:, j, h], plus with ``D`` the
    skip term D[h]·u[:, l, h].

    u: (B, L, H) real; K, K_back: (H, L) real; D: (H,) real. Returns (B, L, H). Zero-padding
    to n ≥ 2L makes the circular FFT convolution equal to the linear one, and leaves room for
    the negative lags: K_back[j] sits at position n - j of a single two-sided kernel (j = 0
    adds to K[0]), so both directions cost one transform of u, not two; D is lag 0 too, so
    the skip costs nothing beyond the kernel. n is the next size with small prime factors,
    which the FFT handles fastest; the transforms run over the contiguous axis, and the
    backward pass uses real transforms only (see :class:`_FFTConvolution`).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import fft_conv
    >>> u = torch.randn(1, 5, 2)
    >>> identity = torch.zeros(2, 5)
    >>> identity[:, 0] = 1.0
    >>> bool(torch.allclose(fft_conv(u, identity), u, atol=1e-6))
    True
    >>> bool(torch.allclose(fft_conv(u, identity, identity), 2 * u, atol=1e-6))
    True
    >>> bool(torch.allclose(fft_conv(u, 0 * identity, D=torch.ones(2)), u, atol=1e-6))
    True
    """
    length = u.shape[-2]
    n_fft = next_fast_len(2 * length, real=True)
    k = F.pad(K, (0, n_fft - length))  # (H, n_fft): lags 0..L-1
    if D is not None:
        k = k + F.pad(D.unsqueeze(-1), (0, n_fft - 1))  # (H, n_fft): D at lag 0
    if K_back is not None:
        k = k + F.pad(K_back[:, :1], (0, n_fft - 1))  # (H, n_fft): lag 0
        k = k + F.pad(K_back[:, 1:].flip(-1), (n_fft - length + 1, 0))  # lags -(L-1)..-1
    return _FFTConvolution.apply(u, k)  # (B, L, H)


def transfer_function(A_bar: Tensor, CB_bar: Tensor, D: Tensor, freqs: Tensor) -> Tensor:
    """Closed-form frequency response H(e^{iω}) of each channel, ω = 2π·freqs.

    H(z) = D + Σ_n [CB̄_n z / (z - Ā_n) + conj(CB̄_n) z / (z - conj(Ā_n))], the z-transform of
    the impulse response D·δ[l] + K[l]. Returns a complex Tensor of shape (H, F).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import transfer_function
    >>> A_bar, CB_bar = torch.tensor([[0.5 + 0j]]), torch.tensor([[1.0 + 0j]])
    >>> transfer_function(A_bar, CB_bar, torch.zeros(1), torch.tensor([0.0])).real  # 2 / (1 - 0.5)
    tensor([[4.]])
    """
    omega = 2 * math.pi * freqs.to(A_bar.real.dtype)  # (F,)
    z_inv = torch.exp(torch.complex(torch.zeros_like(omega), -omega))  # (F,)
    A_bar = A_bar.unsqueeze(-1)  # (H, N, 1)
    CB_bar = CB_bar.unsqueeze(-1)  # (H, N, 1)
    per_mode = CB_bar / (1 - A_bar * z_inv) + CB_bar.conj() / (1 - A_bar.conj() * z_inv)  # (H, N, F)
    return D.unsqueeze(-1) + per_mode.sum(dim=-2)  # (H, F)
