"""Inference: the precision predictions are computed in, and the batched forward pass.

Training runs in float32. A float32 forward pass rounds differently with the batch's shape
(matrix-product blocking), so a series' prediction would depend on which other series share
its batch; in float64 the differences fall far below any tolerance. The precision is the
estimator's ``inference_dtype``: "float64" (default) predicts with a float64 copy of the
trained network, "float32" with the network itself (faster, batch-dependent in the last bits).
"""

from __future__ import annotations

import copy

import numpy as np
import torch

INFERENCE_DTYPES = {"float64": torch.float64, "float32": torch.float32}


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


@torch.no_grad()
def predict_outputs(
    module: torch.nn.Module,
    X: np.ndarray,
    lengths: np.ndarray | None,
    *,
    batch_size: int,
) -> torch.Tensor:
    """Forward X (n, C, L) through ``module`` in batches of ``batch_size``: (n, n_outputs)
    on the CPU, in the module's precision."""
    reference = next(module.parameters())
    outputs = []
    for start in range(0, len(X), batch_size):
        batch = torch.as_tensor(
            X[start : start + batch_size], dtype=reference.dtype, device=reference.device
        )  # (b, C, L)
        batch_lengths = None
        if lengths is not None:
            batch_lengths = torch.as_tensor(lengths[start : start + batch_size])  # (b,)
        outputs.append(module(batch, batch_lengths).cpu())  # (b, n_outputs)
    return torch.cat(outputs)  # (n, n_outputs)
