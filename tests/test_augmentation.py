"""Training-time augmentation: each transform against its definition."""

from __future__ import annotations

import pytest
import torch

from sktdi.deep_model.augmentation import AUGMENTATIONS, augment_batch, jitter, scale, window_slice


def test_jitter_adds_noise_of_the_given_spread():
    torch.manual_seed(0)
    X = torch.randn(8, 2, 500)
    noise = jitter(X, std=0.2) - X
    assert abs(float(noise.std()) - 0.2) < 0.01
    assert abs(float(noise.mean())) < 0.01


def test_scale_is_one_gain_per_series_and_channel():
    torch.manual_seed(0)
    X = torch.randn(64, 3, 40)
    ratio = scale(X, std=0.1) / X  # (B, C, L): constant along time
    torch.testing.assert_close(ratio, ratio[..., :1].expand_as(ratio))
    gains = ratio[..., 0]
    assert abs(float(gains.mean()) - 1) < 0.05 and 0.05 < float(gains.std()) < 0.15


def test_window_slice_stretches_a_window_of_the_series():
    # a linear ramp stays linear; the slice spans keep·(L-1) of it, inside the original range
    torch.manual_seed(0)
    L = 51
    ramp = torch.arange(L, dtype=torch.float64).expand(6, 2, L)
    out = window_slice(ramp, keep=0.8)
    span = out[..., -1] - out[..., 0]
    torch.testing.assert_close(span, torch.full_like(span, 0.8 * (L - 1)))
    assert float(out.min()) >= 0 and float(out.max()) <= L - 1
    steps = out.diff(dim=-1)
    torch.testing.assert_close(steps, torch.full_like(steps, 0.8))
    starts = out[:, 0, 0]
    assert len(set(starts.tolist())) > 1  # every series draws its own window


def test_augment_batch_names_and_padding():
    torch.manual_seed(0)
    X = torch.randn(4, 1, 30)
    assert torch.equal(augment_batch(X, "none"), X)
    for name in AUGMENTATIONS:
        assert augment_batch(X, name).shape == X.shape
    # padded batches skip the slice, which would stretch padding into the series
    ramp = torch.arange(30.0).expand(4, 1, 30)
    assert torch.equal(augment_batch(ramp, "slice", padded=True), ramp)
    with pytest.raises(ValueError, match="augment must be one of"):
        augment_batch(X, "mixup")
