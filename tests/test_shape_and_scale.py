"""Each series' shape, with its level and scale beside it (issue 64): the representations
"series+scale" and "running+scale" against their definitions, their blindness to gains,
offsets and flat starts, the gate on the level and scale channels, streams, saved models, and
the fast path's shape features."""

import warnings

import numpy as np
import pytest

import sktdi
from sktdi import SpectralRidgeClassifier, SSMClassifier, SSMRegressor
from sktdi.datasets import load_ucr
from sktdi.deep_model.saved_net import module_kwargs
from sktdi.utils.inputs import (
    amplitude_carries_task,
    fit_reference,
    running_shape_level_scale,
    shape_level_scale,
)

SMALL = dict(d_model=8, n_layers=1, d_state=8, batch_size=32, n_threads=1)


def _span_by_hand(x):
    """The span of one series (L,) where it varies: from the last step of a constant start
    to the first of a constant end, by a loop."""
    start = 0
    while start + 1 < len(x) and x[start + 1] == x[0]:
        start += 1
    stop = len(x) - 1
    while stop - 1 >= 0 and x[stop - 1] == x[-1]:
        stop -= 1
    if start >= stop:  # constant
        return x
    return x[start : stop + 1]


def test_series_shape_level_and_scale_match_their_definition():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 2, 40)) * rng.uniform(0.1, 10, size=(5, 2, 1)) + 3.0
    X[0, 0, :12] = X[0, 0, 12]  # a flat start
    X[1, 1, 30:] = X[1, 1, 29]  # a flat end
    X[2, 0] = 4.0  # constant
    reference = np.array([2.0, 0.5])
    out = shape_level_scale(X, None, False, reference)  # (5, 6, 40): shape, levels, scales
    assert out.shape == (5, 6, 40)
    for i in range(5):
        for c in range(2):
            span = _span_by_hand(X[i, c])
            mean, std = span.mean(), span.std()
            shape = (X[i, c] - mean) / std if std > 0 else np.zeros(40)
            np.testing.assert_allclose(out[i, c], shape, atol=1e-12)
            np.testing.assert_allclose(
                out[i, 2 + c], np.round(np.arcsinh(mean / reference[c]), 6), atol=1e-12
            )
            np.testing.assert_allclose(
                out[i, 4 + c], np.round(np.arcsinh(std / reference[c]), 6), atol=1e-12
            )


def test_shape_ignores_gain_offset_and_a_recording_started_early():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, 1, 60))
    reference = np.ones(1)
    shape = shape_level_scale(X, None, False, reference)[:, :1]
    gains = 10 ** rng.uniform(-2, 2, size=(4, 1, 1))
    moved = shape_level_scale(X * gains - 1e3, None, False, reference)[:, :1]
    np.testing.assert_allclose(moved, shape, atol=1e-7)
    early = np.concatenate([np.repeat(X[..., :1], 25, axis=-1), X], axis=-1)  # (4, 1, 85)
    np.testing.assert_allclose(
        shape_level_scale(early, None, False, reference)[:, :1, 25:], shape, atol=1e-12
    )
    running = running_shape_level_scale(X, reference)[0][:, :1]
    np.testing.assert_allclose(
        running_shape_level_scale(early, reference)[0][:, :1, 25:], running, atol=1e-12
    )
    assert (running_shape_level_scale(early, reference)[0][:, 0, :25] == 0).all()


def test_running_shape_matches_each_prefix_and_streams_in_pieces():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3, 2, 30)) * 5 + 2
    X[0, 0, :8] = X[0, 0, 0]  # a flat start: counted from its last step
    reference = np.array([1.0, 3.0])
    running, _ = running_shape_level_scale(X, reference)  # (3, 6, 30)
    for t in range(1, 30):
        # a prefix's last step by the whole-series form of that prefix: the same statistics
        # once its flat start is over (a constant-so-far prefix: shape 0, by both)
        whole = shape_level_scale(X[..., : t + 1], None, False, reference)[..., -1]
        varies = np.ptp(X[..., : t + 1], axis=-1) > 0  # (3, 2)
        np.testing.assert_allclose(
            running[:, :2, t][varies], whole[:, :2][varies], atol=1e-9
        )
        np.testing.assert_allclose(running[:, 4:, t], whole[:, 4:], atol=2e-6)
    first, moments = running_shape_level_scale(X[..., :11], reference)
    rest, _ = running_shape_level_scale(X[..., 11:], reference, moments)
    np.testing.assert_array_equal(np.concatenate([first, rest], axis=-1), running)


def test_the_gate_keeps_the_level_and_scale_that_carry_the_task():
    rng = np.random.default_rng(3)
    y = np.repeat(["a", "b"], 30)
    nuisance = 10 ** rng.uniform(-2, 2, size=60)  # a gain per recording
    signal = np.where(y == "a", 1.0, 4.0) * 10 ** rng.uniform(-0.1, 0.1, size=60)
    amplitude = np.stack([rng.normal(size=60), np.log(nuisance), np.log(signal)], axis=1)
    np.testing.assert_array_equal(amplitude_carries_task(amplitude, y, "classification"), [2])
    target = np.log(signal) + rng.normal(size=60) / 10
    np.testing.assert_array_equal(amplitude_carries_task(amplitude, target, "regression"), [2])
    constant = np.ones((60, 2))
    assert amplitude_carries_task(constant, y, "classification").size == 0


def _gained(X, y, seed, by_class: bool):
    rng = np.random.default_rng(seed)
    if by_class:  # the amplitude is the signal
        gains = np.where(y == y[0], 1.0, 3.0) * 10 ** rng.uniform(-0.1, 0.1, size=len(X))
    else:  # a nuisance gain per recording, over four orders of magnitude
        gains = 10 ** rng.uniform(-2, 2, size=len(X))
    return X * gains[:, None, None] + rng.uniform(-5, 5, size=(len(X), 1, 1))


@pytest.mark.parametrize("scaling", ["series+scale", "running+scale"])
def test_models_see_the_amplitude_only_where_it_is_the_signal(scaling):
    X, y = load_ucr("GunPoint", "train")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SSMClassifier(**SMALL, input_scaling=scaling, max_epochs=2, random_state=0)
        model.fit(_gained(X, y, 0, by_class=False), y)
    assert model.input_amplitude_.size == 0  # neither the offsets nor the gains relate to y
    assert module_kwargs(model.net_)["n_channels"] == 1  # the shape channel alone
    # blind to each recording's gain and offset: the shape alone reaches the network (and the
    # fast path, whose float32 features of a scaled shape round within 1e-3, as below)
    A = _gained(X, y, 1, by_class=False)
    np.testing.assert_allclose(model.predict_proba(A), model.predict_proba(X), atol=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(_gained(X, y, 0, by_class=True), y)
    np.testing.assert_array_equal(model.input_amplitude_, [1])  # the scale, not the level
    assert model.n_channels_ == 1 and module_kwargs(model.net_)["n_channels"] == 2


def test_a_stream_and_a_saved_model_keep_the_running_shape_and_scale(tmp_path):
    X, y = load_ucr("GunPoint", "train")
    A = _gained(X, y, 0, by_class=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SSMClassifier(**SMALL, input_scaling="running+scale", max_epochs=2,
                              random_state=0).fit(A, y)
    assert model.input_amplitude_.size == 1
    live = model.stream(n_streams=4)
    for k in range(60):  # a sample at a time: the compiled step
        live.update(A[:4, :, k])
    np.testing.assert_allclose(live.predict_proba(), model.predict_proba(list(A[:4, :, :60])),
                               atol=1e-9)
    chunked = model.stream(n_streams=4).update(A[:4, :, :33]).update(A[:4, :, 33:60])
    np.testing.assert_allclose(chunked.predict_proba(), live.predict_proba(), atol=1e-9)
    model.save(tmp_path / "model.sktdi")
    loaded = sktdi.load(tmp_path / "model.sktdi")
    np.testing.assert_array_equal(loaded.predict_proba(A), model.predict_proba(A))
    np.testing.assert_array_equal(loaded.input_amplitude_, model.input_amplitude_)


def test_whole_series_scalings_refuse_prefixes_and_name_the_causal_form():
    X, y = load_ucr("GunPoint", "train")
    model = SSMClassifier(**SMALL, input_scaling="series+scale", max_epochs=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    with pytest.raises(ValueError, match="input_scaling='running\\+scale'"):
        model.stream()
    with pytest.raises(ValueError, match="input_scaling='running\\+scale'"):
        SSMClassifier(prefix_weight=0.5, input_scaling="series+scale").fit(X, y)


def test_a_regressor_keeps_the_level_that_is_its_target():
    rng = np.random.default_rng(4)
    level = rng.uniform(-3, 3, size=40)
    X = rng.normal(size=(40, 1, 50)) + 10 * level[:, None, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SSMRegressor(**SMALL, input_scaling="series+scale", max_epochs=1,
                             random_state=0).fit(X, level)
    np.testing.assert_array_equal(model.input_amplitude_, [0])  # the level, not the scale


def test_fast_path_reads_the_shape_and_keeps_the_amplitude_as_two_features():
    X, y = load_ucr("GunPoint", "train")
    Xt, _ = load_ucr("GunPoint", "test")
    plain_model = SpectralRidgeClassifier(
        n_filters=8, d_state=8, input_scaling="channel", random_state=0
    ).fit(X, y)
    assert plain_model.input_reference_ is None  # "channel" reads the series as given
    model = SpectralRidgeClassifier(n_filters=8, d_state=8, random_state=0).fit(X, y)
    assert model.input_scaling == "series+scale"  # the default (issue 76)
    assert model.input_amplitude_.size == 0
    np.testing.assert_allclose(model.input_reference_, fit_reference(X, None))
    n = model.scaler_.n_features_in_
    gains = 10 ** np.random.default_rng(5).uniform(-2, 2, size=(len(Xt), 1, 1))
    plain, moved = model._features(Xt, None), model._features(Xt * gains + 7.0, None)
    # every feature but the level and scale (the last two) is blind to a gain and an offset
    np.testing.assert_allclose(moved[:, : n - 2], plain[:, : n - 2], atol=1e-3)
    assert not np.allclose(moved[:, n - 2 :], plain[:, n - 2 :])


def test_fast_path_reads_the_series_as_given_where_the_amplitude_is_the_signal(tmp_path):
    X, y = load_ucr("GunPoint", "train")
    A = _gained(X, y, 0, by_class=True)
    model = SpectralRidgeClassifier(
        n_filters=8, d_state=8, input_scaling="series+scale", random_state=0
    ).fit(A, y)
    np.testing.assert_array_equal(model.input_amplitude_, [1])  # the scale carries the class
    shape, amplitude = model._shape_and_amplitude(A, None)
    assert shape is A and amplitude.shape == (len(A), 2)
    model.save(tmp_path / "ridge.sktdi")
    loaded = sktdi.load(tmp_path / "ridge.sktdi")
    np.testing.assert_array_equal(loaded.predict(A), model.predict(A))


def test_the_fast_path_names_the_scaling_where_the_series_scales_differ():
    X, y = load_ucr("GunPoint", "train")
    with pytest.warns(UserWarning, match=r"scales span a factor of .*input_scaling='series\+scale'"):
        SpectralRidgeClassifier(n_filters=8, d_state=8, input_scaling="channel",
                                random_state=0).fit(_gained(X, y, 0, by_class=False), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # curated series: nothing to say
        SpectralRidgeClassifier(n_filters=8, d_state=8, input_scaling="channel",
                                random_state=0).fit(X, y)
        SpectralRidgeClassifier(  # the default reads each series' shape: nothing to say
            n_filters=8, d_state=8, random_state=0
        ).fit(_gained(X, y, 0, by_class=False), y)
