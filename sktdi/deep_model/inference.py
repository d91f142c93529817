"""Inference: the precision predictions are computed in, and the batched forward pass.

Training runs in float32. A float32 forward pass rounds differently with the batch's shape
(matrix-product blocking), so a series' prediction would depend on which other series share
its batch; in float64 the differences fall far below any tolerance. The precision is the
estimator's ``inference_dtype``: "float64" (default) predicts with a float64 copy of the
trained network, "float32" with the network itself (faster, batch-dependent in the last bits).

Memory: the series are standardized and forwarded batch by batch, so a prediction holds the
caller's X, the outputs and one batch's activations, whatever the number of series. A batch
holds at most ``PREDICT_BATCH_SIZE`` series and, on the CPU, at most ``CPU_BATCH_STEPS``
series × time steps (:func:`prediction_batch_size`), and every ``RELEASE_EVERY`` CPU batches
the free memory malloc kept is returned to the system (:mod:`sktdi.utils.memory`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np
import torch

from ..utils.memory import release_freed_memory
from .training import PREDICT_BATCH_SIZE

INFERENCE_DTYPES = {"float64": torch.float64, "float32": torch.float32}
# Series × time steps in one CPU prediction batch. 1024 series of length 1000 made a d_model-64
# network's float64 activations 0.5 GiB and their spectra 1 GiB, each one fresh memory
# (above glibc's mmap threshold, even as sktdi.utils.memory raises it) whose page faults took more
# time than the arithmetic, for a peak of 3.5 GiB; at 2**16 steps they are 32 and 64 MiB,
# kept for reuse, and predict ran several times as many series/s on 2 threads
# (benchmarks/gpu/bench_predict_memory.py). Accelerators keep batches of PREDICT_BATCH_SIZE
# series: their throughput grows with the batch.
CPU_BATCH_STEPS = 2**16
# CPU batches between two releases of malloc's free memory: freed blocks kept for reuse
# fragment over a long prediction (sktdi.utils.memory). At length 1000 a release every 8 batches
# held predict's peak near 0.5 GiB (every 16: 0.6-0.9 GiB) at the same series/s; the next
# batch pays its page faults again
RELEASE_EVERY = 8


def check_inference_device(inference_dtype: str, device: str) -> None:
    """Fail clearly where a device cannot compute in the requested precision."""
    if inference_dtype == "float64" and str(device).startswith("mps"):
        raise ValueError(
            f"device={device!r} cannot compute in float64; set inference_dtype='float32'"
        )


def inference_module(module: torch.nn.Module, inference_dtype: str) -> torch.nn.Module:
    """The trained ``module`` in eval mode, or an eval-mode copy in the inference precision
    (the trained module itself is never converted)."""
    dtype = INFERENCE_DTYPES[inference_dtype]
    if next(module.parameters()).dtype != dtype:
        module = copy.deepcopy(module).to(dtype=dtype)
    return module.eval()


def prediction_batch_size(length: int, device: torch.device | str) -> int:
    """Series per prediction batch for series of ``length`` time steps on ``device``.

    Examples
    --------
    >>> from sktdi.deep_model.inference import prediction_batch_size
    >>> prediction_batch_size(64, "cpu"), prediction_batch_size(1000, "cpu")
    (1024, 65)
    >>> prediction_batch_size(1000, "cuda")
    1024
    """
    if torch.device(device).type != "cpu":
        return PREDICT_BATCH_SIZE
    return max(1, min(PREDICT_BATCH_SIZE, CPU_BATCH_STEPS // max(1, length)))


@torch.no_grad()
def predict_outputs(
    module: torch.nn.Module,
    X: np.ndarray,
    lengths: np.ndarray | None,
    *,
    batch_size: int | None = None,
    prepare: Callable[[np.ndarray, np.ndarray | None], np.ndarray] | None = None,
    over_time: bool = False,
) -> torch.Tensor:
    """Forward X (n, C, L) through ``module`` in batches: (n, n_outputs) on the CPU, in the
    module's precision; with ``over_time``, the output after every step, (n, L, n_outputs),
    from the module's ``outputs_over_time``.

    ``prepare(X_batch, lengths_batch)`` turns each batch of X into the network's input (the
    estimators' standardization), so that no transformed copy of the whole X is made;
    ``batch_size`` None: :func:`prediction_batch_size` for the module's device.
    """
    reference = next(module.parameters())
    if batch_size is None:
        batch_size = prediction_batch_size(X.shape[-1], reference.device)
    on_cpu = reference.device.type == "cpu"
    outputs = []
    for index, start in enumerate(range(0, len(X), batch_size)):
        if on_cpu and index and index % RELEASE_EVERY == 0:
            release_freed_memory()
        batch = X[start : start + batch_size]  # (b, C, L), a view
        batch_lengths = None if lengths is None else lengths[start : start + batch_size]  # (b,)
        if prepare is not None:
            batch = prepare(batch, batch_lengths)
        batch = torch.as_tensor(batch, dtype=reference.dtype, device=reference.device)
        if batch_lengths is not None:
            batch_lengths = torch.as_tensor(batch_lengths)  # (b,)
        forward = module.outputs_over_time if over_time else module
        outputs.append(forward(batch, batch_lengths).cpu())  # (b, n_outputs) or (b, L, n_outputs)
    return torch.cat(outputs)  # (n, n_outputs) or (n, L, n_outputs)
