"""The compiled scan (sktdi._scan) against numpy: the recurrence is the convolution with the
bank's kernel, and the fused pooling gives numpy's statistics of the filtered series."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sktdi._scan import quantiles, sample_outputs, scan_features
from sktdi.ssm import S4D
from tests.test_transformer import _numpy_multirocket


def _bank(n_filters=5, d_state=8, seed=0):
    layer = S4D(
        n_filters, d_state, dt_min=0.01, dt_max=1.0, dtype=torch.float64,
        generator=torch.Generator().manual_seed(seed),
    )
    with torch.no_grad():
        layer.D.zero_()
    _, A_bar, CB_bar = layer.discrete()
    return layer, A_bar.detach().numpy(), CB_bar.detach().numpy()


def _filtered(layer, u: np.ndarray) -> np.ndarray:
    """Each filter's output on the 1-D series u, by numpy's convolution: (H, len(u))."""
    K = layer.kernel(len(u)).detach().numpy()  # (H, L)
    return np.stack([np.convolve(u, k)[: len(u)] for k in K])


def _series(lengths=(17, 40, 29), channels=2, seed=1):
    rng = np.random.default_rng(seed)
    X = np.zeros((len(lengths), channels, max(lengths)))
    for i, n in enumerate(lengths):
        X[i, :, :n] = rng.normal(size=(channels, n))
    return X, np.array(lengths)


@pytest.mark.parametrize("multirocket", [False, True])
@pytest.mark.parametrize("difference", [False, True])
def test_scan_features_are_numpys_statistics_of_the_convolution(multirocket, difference):
    """In float64 the scan is the convolution to round-off; each padded series stops at its
    own length, and the difference is that of the series' own steps."""
    layer, A_bar, CB_bar = _bank()
    X, lengths = _series()
    rng = np.random.default_rng(2)
    biases = rng.normal(scale=0.3, size=(X.shape[1], A_bar.shape[0], 3))  # (C, H, Q)
    F = scan_features(
        X, lengths, A_bar, CB_bar, [(biases, difference)],
        multirocket=multirocket, dtype=np.float64,
    )  # (n, C·H·P)
    expected = []
    for i, n in enumerate(lengths):
        row = []
        for c in range(X.shape[1]):
            u = X[i, c, :n]
            u = np.diff(u) if difference else u
            for h, f in enumerate(_filtered(layer, u)):
                if multirocket:
                    for b in biases[c, h]:
                        row += _numpy_multirocket(f - b)
                else:
                    row += [f.mean(), f.std(), f.max(), f.min()]
                    row += [np.mean(f > b) for b in biases[c, h]]
        expected.append(row)
    np.testing.assert_allclose(F, np.array(expected), rtol=1e-9, atol=1e-10)


def test_float32_state_agrees_with_float64():
    """The default float32 state: continuous statistics agree to float32 round-off."""
    _, A_bar, CB_bar = _bank(n_filters=16)
    X, lengths = _series(lengths=(200, 150, 300))
    biases = np.zeros((X.shape[1], 16, 0))  # the four statistics only
    single = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)])
    double = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)], dtype=np.float64)
    np.testing.assert_allclose(single, double, rtol=1e-4, atol=1e-5)


def test_representations_are_written_one_after_another():
    _, A_bar, CB_bar = _bank()
    X, lengths = _series()
    biases = np.zeros((X.shape[1], A_bar.shape[0], 2))
    both = scan_features(X, lengths, A_bar, CB_bar, [(biases, False), (biases + 1, True)])
    first = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)])
    second = scan_features(X, lengths, A_bar, CB_bar, [(biases + 1, True)])
    np.testing.assert_array_equal(both, np.hstack([first, second]))


@pytest.mark.parametrize("every", [1, 3])
def test_sample_outputs_keep_every_kth_step_of_the_series_end_to_end(every):
    layer, A_bar, CB_bar = _bank()
    X, lengths = _series()
    at_most = -(-int(lengths.sum()) // every)  # the bound that thins to every k-th output
    out = sample_outputs(X, lengths, A_bar, CB_bar, at_most=at_most, dtype=np.float64)
    assert out.shape[-1] <= at_most  # (C, H, m)
    for c in range(X.shape[1]):
        laid = np.concatenate(
            [_filtered(layer, X[i, c, :n]) for i, n in enumerate(lengths)], axis=-1
        )  # (H, Σ lengths)
        np.testing.assert_allclose(out[c], laid[:, ::every], rtol=1e-9, atol=1e-10)


def test_quantiles_are_numpys():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(3, 4, 101)).astype(np.float32)
    levels = (np.arange(8) + 0.5) / 8
    np.testing.assert_allclose(
        quantiles(values, levels), np.moveaxis(np.quantile(values, levels, axis=-1), 0, -1),
        rtol=1e-6,
    )


def test_the_scan_runs_on_torchs_thread_count_and_leaves_it():
    """The scan uses torch's thread count (an estimator's n_threads, a worker's share) and
    gives numba and torch back the counts they had; the features do not depend on it."""
    import numba

    _, A_bar, CB_bar = _bank()
    X, lengths = _series()
    biases = np.zeros((X.shape[1], A_bar.shape[0], 2))
    torch_before, numba_before = torch.get_num_threads(), numba.get_num_threads()
    with torch.no_grad():
        torch.set_num_threads(1)
        try:
            one = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)])
            assert torch.get_num_threads() == 1
        finally:
            torch.set_num_threads(torch_before)
    several = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)])
    assert torch.get_num_threads() == torch_before
    assert numba.get_num_threads() == numba_before
    np.testing.assert_array_equal(one, several)
