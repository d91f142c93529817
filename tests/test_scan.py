"""The compiled scan (sktdi.fast_path.scan) against numpy: the recurrence is the convolution with
the bank's kernel, and the fused pooling gives numpy's statistics of the filtered series."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sktdi.fast_path.scan import quantiles, sample_outputs, scan_features
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_long_stretch_of_zeros_is_filtered_as_data(dtype):
    """Zeros after a series (padding given without lengths) are steps like any other: the
    states that decay through them are set to 0 once negligible (before they reach the
    slow subnormal floats), and the features still agree with numpy's convolution."""
    layer, A_bar, CB_bar = _bank(n_filters=6)
    X, _ = _series(lengths=(60, 25), channels=1)
    X = np.concatenate([X, np.zeros((2, 1, 3000))], axis=-1)  # (2, 1, 3060)
    # (1, H, 3): near the padding's decaying outputs, but not at 0, whose sign in a decayed
    # tail (|y| < 1e-18) is round-off in float32 and float64 alike
    biases = np.array([[[-1e-3, 1e-3, 0.1]] * 6])
    F = scan_features(X, None, A_bar, CB_bar, [(biases, False)], dtype=dtype)
    expected = []
    for i in range(2):
        row = []
        for h, f in enumerate(_filtered(layer, X[i, 0])):
            row += [f.mean(), f.std(), f.max(), f.min()] + [np.mean(f > b) for b in biases[0, h]]
        expected.append(row)
    tolerance = 1e-4 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(F, np.array(expected), rtol=tolerance, atol=tolerance * 1e-2)


def test_a_recording_in_tiny_units_keeps_its_features():
    """The floor below which a state is set to 0 scales with the series: a recording in
    units of 1e-30 has its features scaled by 1e-30, its PPVs unchanged."""
    _, A_bar, CB_bar = _bank(n_filters=6)
    X, lengths = _series(lengths=(300, 120))
    biases = np.zeros((X.shape[1], 6, 1))  # (C, H, 1)
    F = scan_features(X, lengths, A_bar, CB_bar, [(biases, False)], dtype=np.float64)
    tiny = scan_features(X * 1e-30, lengths, A_bar, CB_bar, [(biases, False)], dtype=np.float64)
    np.testing.assert_allclose(tiny.reshape(2, 2, 6, 5)[..., :4] * 1e30,
                               F.reshape(2, 2, 6, 5)[..., :4], rtol=1e-9)
    np.testing.assert_array_equal(tiny.reshape(2, 2, 6, 5)[..., 4], F.reshape(2, 2, 6, 5)[..., 4])


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


# ---- series far from zero ------------------------------------------------------------------


def _small_signal(n=30, length=150, seed=3):
    """Series of amplitude 0.01 around zero, (n, 1, L): a signal that an offset of 1000
    puts below float32's resolution."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    phase = rng.uniform(0, 2 * np.pi, size=(n, 1, 1))
    return 0.01 * (rng.normal(size=(n, 1, length)) + np.sin(2 * np.pi * 0.2 * t + phase))


def _spread_scaled_error(got, expected):
    """The largest error of each feature as a share of that feature's spread over series."""
    spread = expected.std(axis=0)
    keep = spread > 0
    return float((np.abs(got - expected)[:, keep] / spread[keep]).max())


@pytest.mark.parametrize("offset", [1e3, 1e5])
@pytest.mark.parametrize("multirocket", [False, True])
def test_a_series_far_from_zero_keeps_its_signal(offset, multirocket):
    """The float32 recurrence on raw X lost a small signal far from zero (amplitude 0.01 at
    offset 1000: a mean feature's error was 14 times its spread over series; the difference,
    which does not depend on the offset at all, was 0.4 of its spread off at 1e3 and 3 at
    1e5). Each channel far from zero is now centred in float64 before the recurrence, the
    centre's response added back in float64, and the difference taken in float64: the
    difference's features are those of the series without the offset, and the series' own
    (which depend on the offset: the filters' response to a step) those of the float64
    scan."""
    _, A_bar, CB_bar = _bank(n_filters=8)
    X = _small_signal()
    rng = np.random.default_rng(4)
    raw = [(offset + rng.normal(scale=0.01, size=(1, 8, 3)), False)]  # (C, H, Q) biases
    diff = [(rng.normal(scale=0.005, size=(1, 8, 3)), True)]
    shifted = X + offset
    difference = scan_features(shifted, None, A_bar, CB_bar, diff, multirocket=multirocket)
    # the difference does not depend on the offset: the same features as without it
    alone = scan_features(X, None, A_bar, CB_bar, diff, multirocket=multirocket)
    assert _spread_scaled_error(difference, alone) < 1e-3
    # the series' own features: float64's
    single = scan_features(shifted, None, A_bar, CB_bar, raw, multirocket=multirocket)
    double = scan_features(
        shifted, None, A_bar, CB_bar, raw, multirocket=multirocket, dtype=np.float64
    )
    assert _spread_scaled_error(single, double) < 1e-3


def test_bias_samples_of_a_series_far_from_zero_are_float64s():
    _, A_bar, CB_bar = _bank(n_filters=8)
    shifted = _small_signal() + 1e3
    for difference in (False, True):
        single = sample_outputs(shifted, None, A_bar, CB_bar, at_most=500, difference=difference)
        double = sample_outputs(
            shifted, None, A_bar, CB_bar, at_most=500, difference=difference, dtype=np.float64
        )
        spread = double.std(axis=-1, keepdims=True)  # (C, H, 1) over the sampled outputs
        assert float((np.abs(single - double) / spread).max()) < 1e-3, difference


def test_a_transformer_fitted_far_from_zero_has_the_differences_features_of_the_signal():
    """End to end, the biases fitted too: a transformer fitted on the series at offset 1000
    gives their differences the features one fitted without the offset gives."""
    from sktdi import SpectralAlignmentTransformer

    X = _small_signal()
    y = np.repeat([0, 1], 15)
    params = {"n_filters": 8, "init": "s4d-lin", "random_state": 0}
    near = SpectralAlignmentTransformer(**params).fit(X, y)
    far = SpectralAlignmentTransformer(**params).fit(X + 1e3, y)
    names = near.get_feature_names_out()
    diff = np.array([name.startswith("diff_") for name in names])
    np.testing.assert_allclose(
        far.difference_biases_, near.difference_biases_, rtol=0,
        atol=1e-4 * near.difference_biases_.std(),
    )
    got, expected = far.transform(X + 1e3)[:, diff], near.transform(X)[:, diff]
    assert _spread_scaled_error(got, expected) < 1e-3


# ---- threads ---------------------------------------------------------------------------------

_TWO_THREADS = """
import threading
import numpy as np
from sktdi import SpectralAlignmentTransformer

rng = np.random.default_rng(0)
X, y = rng.normal(size=(64, 2, 300)), np.repeat([0, 1], 32)
bank = SpectralAlignmentTransformer(n_filters=32, init="s4d-lin", random_state=0).fit(X, y)
expected = bank.transform(X)
results = []

def work():
    for _ in range(10):
        results.append(bank.transform(X))

threads = [threading.Thread(target=work) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(results), all(np.array_equal(r, expected) for r in results))
"""


def test_two_threads_transform_at_once_under_numbas_workqueue_layer():
    """numba's fallback threading layer, workqueue (no TBB, no OpenMP), aborted the process
    when two threads launched parallel kernels at once (it did, rc 134, when the scans were
    numba-parallel): the scans' own threads run beside each other, and give what one thread
    gives. In a subprocess, so that an abort fails the test rather than killing pytest."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue", "NUMBA_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", _TWO_THREADS], env=env, capture_output=True, text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["20", "True"], done.stdout


def test_compiled_loops_run_where_numba_has_nowhere_to_cache_them(monkeypatch):
    # a read-only install run by an account without a writable home: numba finds no cache
    # locator and njit(cache=True) raises at import; sktdi's loops compile without the cache
    import numba
    from numba.core import caching

    from sktdi.utils.compiled import compiled

    def twice(x):
        return 2 * x

    monkeypatch.setattr(caching.CacheImpl, "_locator_classes", [])
    monkeypatch.setattr(numba.config, "CACHE_LOCATOR_CLASSES", "", raising=False)
    with pytest.raises(RuntimeError, match="cannot cache"):
        numba.njit(cache=True)(twice)
    assert compiled(nogil=True)(twice)(3) == 6
    monkeypatch.undo()
    assert isinstance(compiled(nogil=True)(twice)._cache, caching.FunctionCache)
