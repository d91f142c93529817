"""Named S4D initializations as pure functions returning continuous-time mode tensors.

Conventions follow the state-spaces S4D papers: ``d_state`` = N is the full (real) state size,
of which N/2 complex modes are stored, the conjugate half implied; n = 0..N/2-1.

=========  ==================================================  =============================
name       eigenvalue A_n                                      character
=========  ==================================================  =============================
s4d-lin    -1/2 + iπn                                          frequencies spread linearly
s4d-inv    -1/2 + i(N/π)(N/(2n+1) - 1)                         HiPPO-like, low-frequency heavy
s4d-real   -(n+1)                                              no oscillation (decays only)
s4d-legs   -1/2 + i·eig(skew part of HiPPO-LegS)               diagonalized normal LegS
random     -1/2 + i·U[0, πN/2)                                 S4D-Lin's band, random positions
=========  ==================================================  =============================

For every init B_n = 1, C_n ~ CN(0, 1) (real and imaginary parts N(0, 1/2)) and
log dt ~ U[log dt_min, log dt_max] per channel. The eigenvalues are shared by all channels;
only C and dt are random.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

INIT_NAMES = ("s4d-lin", "s4d-inv", "s4d-real", "s4d-legs", "random")


@dataclass(frozen=True)
class ModeParams:
    """Continuous-time parameters of one diagonal SSM layer (conjugate half implied).

    Attributes
    ----------
    A : complex Tensor (d_model, d_state // 2), Re A < 0
    B : complex Tensor (d_model, d_state // 2)
    C : complex Tensor (d_model, d_state // 2)
    dt : real Tensor (d_model,), dt > 0

    Examples
    --------
    >>> from sktdi.ssm import init_modes
    >>> modes = init_modes("s4d-lin", d_model=2, d_state=8)
    >>> modes.A.shape, modes.dt.shape
    (torch.Size([2, 4]), torch.Size([2]))
    """

    A: Tensor
    B: Tensor
    C: Tensor
    dt: Tensor


def _check_state_size(d_state: int) -> int:
    if d_state < 2 or d_state % 2:
        raise ValueError(f"d_state must be an even integer >= 2, got {d_state}")
    return d_state // 2


def s4d_lin_eigenvalues(d_state: int) -> Tensor:
    """-1/2 + iπn: the Fourier-like basis of S4D-Lin. Complex128 (d_state // 2,)."""
    n = torch.arange(_check_state_size(d_state), dtype=torch.float64)
    return torch.complex(torch.full_like(n, -0.5), math.pi * n)


def s4d_inv_eigenvalues(d_state: int) -> Tensor:
    """-1/2 + i(N/π)(N/(2n+1) - 1): S4D-Inv, the asymptotics of HiPPO-LegS' spectrum."""
    n = torch.arange(_check_state_size(d_state), dtype=torch.float64)
    imag = d_state / math.pi * (d_state / (2 * n + 1) - 1)
    return torch.complex(torch.full_like(n, -0.5), imag)


def s4d_real_eigenvalues(d_state: int) -> Tensor:
    """-(n+1): purely decaying modes (the diagonal of HiPPO-LegS)."""
    n = torch.arange(_check_state_size(d_state), dtype=torch.float64)
    return torch.complex(-(n + 1), torch.zeros_like(n))


def s4d_legs_eigenvalues(d_state: int) -> Tensor:
    """Eigenvalues of the normal part of HiPPO-LegS, S = A + PPᵀ = -I/2 + skew-symmetric.

    The positive-imaginary half, in increasing order of frequency.
    """
    n_modes = _check_state_size(d_state)
    q = np.arange(d_state, dtype=np.float64)
    scale = np.sqrt(2 * q + 1)
    # off-diagonal of S is ∓ ½·sqrt((2n+1)(2k+1)) below/above the diagonal
    skew = -0.5 * np.tril(np.outer(scale, scale), k=-1)
    skew = skew - skew.T
    # i·skew is Hermitian, so eigvalsh is exact and stable; eig(skew) = -i·eig(i·skew)
    freqs = -np.linalg.eigvalsh(1j * skew)
    imag = np.sort(freqs[freqs > 0])[:n_modes]
    imag = torch.as_tensor(imag, dtype=torch.float64)
    return torch.complex(torch.full_like(imag, -0.5), imag)


def random_eigenvalues(d_state: int, generator: torch.Generator | None = None) -> Tensor:
    """-1/2 + i·U[0, πN/2): S4D-Lin's frequency band with random positions."""
    n_modes = _check_state_size(d_state)
    imag = torch.rand(n_modes, generator=generator, dtype=torch.float64) * math.pi * n_modes
    imag, _ = torch.sort(imag)
    return torch.complex(torch.full_like(imag, -0.5), imag)


def sample_log_dt(
    d_model: int, dt_min: float, dt_max: float, generator: torch.Generator | None = None
) -> Tensor:
    """log dt ~ U[log dt_min, log dt_max], one per channel. Float64 (d_model,)."""
    if not 0 < dt_min <= dt_max:
        raise ValueError(f"need 0 < dt_min <= dt_max, got dt_min={dt_min}, dt_max={dt_max}")
    u = torch.rand(d_model, generator=generator, dtype=torch.float64)
    return math.log(dt_min) + u * (math.log(dt_max) - math.log(dt_min))


def init_modes(
    name: str,
    d_model: int,
    d_state: int,
    *,
    dt_min: float = 1e-3,
    dt_max: float = 1e-1,
    generator: torch.Generator | None = None,
) -> ModeParams:
    """Initial continuous-time modes of one layer for a named initialization (float64).

    Examples
    --------
    >>> from sktdi.ssm import init_modes
    >>> modes = init_modes("s4d-lin", d_model=2, d_state=8)
    >>> modes.A[0, :2]
    tensor([-0.5000+0.0000j, -0.5000+3.1416j], dtype=torch.complex128)
    """
    if name == "random":
        eigenvalues = random_eigenvalues(d_state, generator)
    elif name in _EIGENVALUES:
        eigenvalues = _EIGENVALUES[name](d_state)
    else:
        raise ValueError(f"unknown initialization {name!r}; expected one of {INIT_NAMES}")
    if d_model < 1:
        raise ValueError(f"d_model must be >= 1, got {d_model}")
    n_modes = d_state // 2
    A = eigenvalues.unsqueeze(0).expand(d_model, n_modes).clone()  # (H, N)
    B = torch.ones(d_model, n_modes, dtype=torch.complex128)  # (H, N)
    C = torch.randn(d_model, n_modes, dtype=torch.complex128, generator=generator)  # (H, N)
    dt = torch.exp(sample_log_dt(d_model, dt_min, dt_max, generator))  # (H,)
    return ModeParams(A=A, B=B, C=C, dt=dt)


_EIGENVALUES = {
    "s4d-lin": s4d_lin_eigenvalues,
    "s4d-inv": s4d_inv_eigenvalues,
    "s4d-real": s4d_real_eigenvalues,
    "s4d-legs": s4d_legs_eigenvalues,
}
