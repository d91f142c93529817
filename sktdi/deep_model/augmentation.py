"""Training-time data augmentation for time series: jitter, scaling and window slicing.

The standard label-preserving transforms of time-series classification (Um et al. 2017; Le
Guennec et al. 2016; Iwana & Uchida 2021), as pure functions of a batch. The estimators apply
them to each training minibatch (``augment``); predictions never see them. They act on the
standardized network input, so their strengths are in units of the series' own spread.

Randomness comes from torch's global generator, which the estimators seed from
``random_state`` for the whole fit.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

# augment name -> the transforms it applies, in order
AUGMENTATIONS = {
    "none": (),
    "jitter": ("jitter",),
    "scale": ("scale",),
    "slice": ("slice",),
    "jitter-scale": ("jitter", "scale"),
    "all": ("slice", "jitter", "scale"),
}
JITTER_STD = 0.05  # additive Gaussian noise, relative to the standardized series (std 1)
SCALE_STD = 0.1  # per-series, per-channel gain ~ N(1, 0.1²)
SLICE_KEEP = 0.9  # window slicing keeps 90% of the series and stretches it back


def jitter(X: Tensor, std: float = JITTER_STD) -> Tensor:
    """X (B, C, L) plus independent Gaussian noise of standard deviation ``std``.

    Examples
    --------
    >>> import torch
    >>> from sktdi.deep_model.augmentation import jitter
    >>> _ = torch.manual_seed(0)
    >>> round(float((jitter(torch.zeros(1, 1, 10_000), 0.1)).std()), 2)
    0.1
    """
    return X + std * torch.randn_like(X)  # (B, C, L)


def scale(X: Tensor, std: float = SCALE_STD) -> Tensor:
    """X (B, C, L) times a random gain per series and channel, drawn from N(1, std²).

    Examples
    --------
    >>> import torch
    >>> from sktdi.deep_model.augmentation import scale
    >>> X = torch.ones(2, 3, 5)
    >>> bool((scale(X).std(dim=-1) == 0).all())  # one gain for a whole series' channel
    True
    """
    gain = 1 + std * torch.randn(X.shape[0], X.shape[1], 1, dtype=X.dtype, device=X.device)
    return X * gain  # (B, C, L)


def window_slice(X: Tensor, keep: float = SLICE_KEEP) -> Tensor:
    """A random window of ``keep`` of each series' length, stretched back to L (linear).

    Every series gets its own window start. X: (B, C, L) -> (B, C, L).

    Examples
    --------
    >>> import torch
    >>> from sktdi.deep_model.augmentation import window_slice
    >>> X = torch.arange(10.0).expand(2, 1, 10)  # a ramp 0..9
    >>> out = window_slice(X, keep=0.5)
    >>> out.shape, (out[:, :, -1] - out[:, :, 0]).flatten().tolist()  # each spans 0.5 · 9
    (torch.Size([2, 1, 10]), [4.5, 4.5])
    """
    B, _, L = X.shape
    span = keep * (L - 1)  # the window's extent, in steps
    start = torch.rand(B, 1, dtype=X.dtype, device=X.device) * (L - 1 - span)  # (B, 1)
    positions = start + span * torch.linspace(0, 1, L, dtype=X.dtype, device=X.device)  # (B, L)
    # grid_sample reads a (B, C, 1, L) image at x in [-1, 1]; y = 0 is the single row
    x = 2 * positions / max(L - 1, 1) - 1  # (B, L)
    grid = torch.stack([x, torch.zeros_like(x)], dim=-1).unsqueeze(1)  # (B, 1, L, 2)
    out = F.grid_sample(X.unsqueeze(2), grid, mode="bilinear", align_corners=True)  # (B, C, 1, L)
    return out.squeeze(2)  # (B, C, L)


_TRANSFORMS = {"jitter": jitter, "scale": scale, "slice": window_slice}


def augment_batch(X: Tensor, augment: str, *, padded: bool = False) -> Tensor:
    """Apply the transforms of ``augment`` (a key of :data:`AUGMENTATIONS`) to X (B, C, L).

    ``padded``: the batch holds right-padded series of unequal length. Window slicing would
    stretch each series' padding into its own steps, so it is skipped there; jitter and scaling
    act step by step and the network masks the padding anyway.

    Examples
    --------
    >>> import torch
    >>> from sktdi.deep_model.augmentation import augment_batch
    >>> X = torch.randn(4, 2, 30)
    >>> augment_batch(X, "all").shape
    torch.Size([4, 2, 30])
    >>> torch.equal(augment_batch(X, "none"), X)
    True
    """
    if augment not in AUGMENTATIONS:
        raise ValueError(f"augment must be one of {tuple(AUGMENTATIONS)}, got {augment!r}")
    for name in AUGMENTATIONS[augment]:
        if name == "slice" and (padded or X.shape[-1] < 3):
            continue
        X = _TRANSFORMS[name](X)
    return X
