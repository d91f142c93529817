"""Which torch device a fit or a loaded model runs on: the accepted spellings of ``device``
and ``"auto"``'s resolution. Shared by the deep model's estimators and by loading (which maps a
saved network onto a device) so that neither imports the other."""

from __future__ import annotations

import torch

DEVICE_FORMS = '"auto", "cpu", "cuda", "cuda:N" (N: the GPU\'s index, as "cuda:1") or "mps"'


def check_device(device) -> None:
    """Refuse a ``device`` that torch cannot parse (``"gpu"``), naming it and the accepted
    forms, before torch's RuntimeError from deep in the network's construction, which lists
    every device type torch knows.

    Examples
    --------
    >>> from sktdi.utils.devices import check_device
    >>> check_device("cuda:1")
    >>> check_device("gpu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: device='gpu' is not a device: use "auto", "cpu", "cuda", "cuda:N" ...
    """
    if device == "auto":
        return
    try:
        torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(
            f"device={device!r} is not a device: use {DEVICE_FORMS}; \"auto\" takes CUDA "
            f"when it is available, else the CPU"
        ) from None


def resolve_device(device: str) -> str:
    """"auto" -> "cuda" when available, else "cpu"; an unavailable device is an error, and
    so is a string that names no device (:func:`check_device`)."""
    check_device(device)
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was requested but CUDA is not available here")
    if str(device).startswith("mps") and not torch.backends.mps.is_available():
        raise ValueError(f"device={device!r} was requested but MPS is not available here")
    return device
