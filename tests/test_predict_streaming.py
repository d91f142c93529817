"""Predictions stream their batches: no transformed copy of the whole X, bounded CPU batches,
and the inference cache stays out of pickles."""

import pickle

import numpy as np
import pytest
import torch

import sktdi.deep_model.base
from sktdi import SSMClassifier, SSMRegressor
from sktdi.deep_model.inference import CPU_BATCH_STEPS, predict_outputs, prediction_batch_size
from sktdi.utils.inputs import network_input
from sktdi.deep_model.training import PREDICT_BATCH_SIZE
from sktdi.ssm import S4DNetwork

LONG = 2000  # long enough that a CPU batch holds fewer series than the test has


@pytest.fixture(scope="module")
def long_series():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    t = np.arange(LONG)
    X = rng.normal(size=(len(y), 1, LONG)) + y[:, None, None] * np.sin(0.3 * t)
    return X.astype(np.float32), y


@pytest.fixture(scope="module")
def small_model(long_series):
    X, y = long_series
    return SSMClassifier(
        d_model=4, d_state=4, n_layers=1, max_epochs=1, init="s4d-lin", device="cpu",
        random_state=0,
    ).fit(X, y)


def test_cpu_batches_are_bounded_in_series_times_steps():
    assert prediction_batch_size(LONG, "cpu") * LONG <= CPU_BATCH_STEPS
    assert prediction_batch_size(10, "cpu") == PREDICT_BATCH_SIZE
    assert prediction_batch_size(10**7, "cpu") == 1  # one series, however long
    assert prediction_batch_size(LONG, torch.device("cuda")) == PREDICT_BATCH_SIZE


def test_prepare_per_batch_equals_preparing_the_whole_input():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(37, 2, 50))
    lengths = rng.integers(2, 51, size=37)
    mean, scale = np.array([0.5, -1.0]), np.array([2.0, 0.5])
    module = S4DNetwork(n_channels=2, n_outputs=3, d_model=4, d_state=4, n_layers=1).double()
    module.eval()
    whole = network_input(X, mean, scale, lengths, np.float64)
    expected = predict_outputs(module, whole, lengths, batch_size=37)

    def prepare(batch, batch_lengths):
        assert len(batch) <= 8
        return network_input(batch, mean, scale, batch_lengths, np.float64)

    streamed = predict_outputs(module, X, lengths, batch_size=8, prepare=prepare)
    torch.testing.assert_close(streamed, expected, rtol=0, atol=1e-12)


def test_estimator_standardizes_one_batch_at_a_time(long_series, small_model, monkeypatch):
    X, _ = long_series
    expected = small_model.predict_proba(X)
    sizes = []

    def recording(X3, *args, **kwargs):
        sizes.append(len(X3))
        return network_input(X3, *args, **kwargs)

    monkeypatch.setattr(sktdi.deep_model.base, "network_input", recording)
    streamed = small_model.predict_proba(X)
    batch = prediction_batch_size(LONG, "cpu")
    assert max(sizes) == batch < len(X) and sum(sizes) == len(X)
    # float64 inference: the batch size does not change the predictions beyond rounding
    np.testing.assert_allclose(streamed, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", [SSMClassifier, SSMRegressor])
def test_pickle_leaves_out_the_inference_cache(cls, long_series):
    X, y = long_series
    # the network alone: a model left its fast path (no epoch) predicts without the network
    model = cls(d_model=4, d_state=4, n_layers=1, max_epochs=0, init="s4d-lin", device="cpu",
                fast_path=False)
    X, y = X[::4, :, :64], y[::4]  # both classes, short series
    model.fit(X, y)
    before = model.predict(X)
    assert model.__dict__["_inference_modules"]  # the cache that predict filled
    restored = pickle.loads(pickle.dumps(model))
    assert "_inference_modules" not in restored.__dict__
    assert "_inference_modules" in model.__dict__  # pickling does not touch the original
    np.testing.assert_array_equal(restored.predict(X), before)
