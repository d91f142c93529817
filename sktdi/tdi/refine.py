"""Refinement: a few gradient steps on the spectral mismatch (L_spec = 1 − cosine of the
layer's summed power response with the target), over A and B."""

from __future__ import annotations

import time

import numpy as np
import torch

from ..ssm.kernel import transfer_function
from ..ssm.layers import S4D
from .spectra import TaskSpectrum


def alignment_target(spectrum: TaskSpectrum, spread: float = 0.25) -> np.ndarray:
    """The distribution ``|H|²`` should follow: the significant excess of the statistic over its
    median (unit mass), mixed with a uniform share ``spread`` — the same split of attention
    that peak init gives the modes.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import alignment_target, fisher_log_power
    >>> target = alignment_target(fisher_log_power(X, y))
    >>> round(float(target.sum()), 6)
    1.0
    """
    excess = np.clip(spectrum.values - np.median(spectrum.values), 0, None)
    excess = np.where(spectrum.significant(), excess, 0.0)
    uniform = np.full_like(excess, 1.0 / len(excess))
    if excess.sum() <= 0:
        return uniform
    return (1 - spread) * excess / excess.sum() + spread * uniform


def spectral_alignment_loss(layer: S4D, freqs: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``L_spec = 1 − cos(Σ_h |H_h − D_h|², target)``: 0 when the layer's power response (summed
    over channels) has the target's shape, 1 when they share no frequency. Differentiable.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> import torch
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import alignment_target, fisher_log_power, spectral_alignment_loss
    >>> spectrum = fisher_log_power(X, y)
    >>> freqs = torch.as_tensor(spectrum.freqs, dtype=torch.float32)
    >>> target = torch.as_tensor(alignment_target(spectrum), dtype=torch.float32)
    >>> 0 <= float(spectral_alignment_loss(S4D(8, 16), freqs, target).detach()) <= 1
    True
    """
    _, A_bar, CB_bar = layer.discrete()
    response = transfer_function(A_bar, CB_bar, torch.zeros_like(layer.D), freqs)  # (H, F)
    power = response.abs().pow(2).sum(dim=0)  # (F,)
    return 1 - torch.nn.functional.cosine_similarity(power, target, dim=0)


def _alignment_tensors(
    layer: S4D, spectrum: TaskSpectrum, spread: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """The spectrum's frequencies and :func:`alignment_target`, on the layer's device/dtype."""
    ref = layer.log_dt
    freqs = torch.as_tensor(spectrum.freqs, dtype=ref.dtype, device=ref.device)  # (F,)
    target = torch.as_tensor(alignment_target(spectrum, spread), dtype=ref.dtype, device=ref.device)
    return freqs, target  # (F,), (F,)


def refine_modes(
    layer: S4D,
    spectrum: TaskSpectrum,
    *,
    steps: int = 50,
    lr: float = 1e-2,
    max_seconds: float = 10.0,
    spread: float = 0.25,
) -> tuple[float, float, int, float]:
    """A few Adam steps on L_spec over A and B (C, D and dt stay). Stops after ``steps`` or
    ``max_seconds``. Returns (L_spec before, L_spec after, steps run, seconds).

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import fisher_log_power, refine_modes
    >>> before, after, steps, seconds = refine_modes(S4D(8, 16), fisher_log_power(X, y), steps=20)
    >>> steps, after < before
    (20, True)
    """
    freqs, target = _alignment_tensors(layer, spectrum, spread)
    params = [layer.log_neg_real_A, layer.imag_A, layer.B]
    optimizer = torch.optim.Adam(params, lr=lr)
    with torch.no_grad():
        before = float(spectral_alignment_loss(layer, freqs, target))
    start, done = time.perf_counter(), 0
    while done < steps and time.perf_counter() - start < max_seconds:
        optimizer.zero_grad()
        loss = spectral_alignment_loss(layer, freqs, target)
        loss.backward()
        optimizer.step()
        done += 1
    layer.zero_grad(set_to_none=True)  # C, D and dt received gradients too; leave none behind
    with torch.no_grad():
        after = float(spectral_alignment_loss(layer, freqs, target))
    return before, after, done, time.perf_counter() - start
