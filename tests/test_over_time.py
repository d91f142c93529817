"""Predictions over time: one forward pass gives, at every step, the prediction for the
series cut there (the networks are causal, their pooling runs)."""

import numpy as np
import pytest
import torch

from sktdi import SSMClassifier, SSMRegressor
from sktdi.utils.inputs import network_input

# causal input scaling: predictions over time and streams read prefixes
SMALL = {"max_epochs": 1, "random_state": 0, "device": "cpu", "input_scaling": "running"}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 8)
    t = np.arange(40)
    X = rng.normal(size=(len(y), 2, 40)) + y[:, None, None] * np.sin(0.7 * t)
    return X, y


def _prefixes(X, steps, lengths=None):
    """Each series cut after ``steps`` steps (or at its own length, if shorter): a list."""
    ends = [steps if lengths is None else min(steps, n) for n in
            (lengths if lengths is not None else [X.shape[-1]] * len(X))]
    return [series[:, :end] for series, end in zip(X, ends)]


@pytest.mark.parametrize(
    "params",
    [
        {"network": "conv-s4d", "d_model": 16, "n_layers": 3},
        {"network": "s4d", "d_model": 8, "d_state": 8, "pooling": "mean-max"},
        {"network": "s4d", "d_model": 8, "d_state": 8, "pooling": "last", "n_estimators": 2},
    ],
    ids=["conv-s4d", "s4d-mean-max", "s4d-last-ensemble"],
)
def test_each_step_is_the_prediction_for_the_prefix(data, params):
    X, y = data
    clf = SSMClassifier(**SMALL, **params).fit(X, y)
    proba = clf.predict_proba_over_time(X[:6])  # (6, L, 3)
    assert proba.shape == (6, 40, 3)
    np.testing.assert_allclose(proba.sum(axis=-1), 1.0)
    for t in (0, 1, 17, 39):
        np.testing.assert_allclose(
            proba[:, t], clf.predict_proba(_prefixes(X[:6], t + 1)), rtol=0, atol=1e-10
        )
    np.testing.assert_allclose(proba[:, -1], clf.predict_proba(X[:6]), rtol=0, atol=1e-10)


def test_padded_series_hold_their_last_prediction(data):
    X, y = data
    clf = SSMClassifier(**SMALL, d_model=16, n_layers=3).fit(X, y)
    lengths = np.array([40, 7, 23, 1])
    padded = X[:4].copy()
    for i, n in enumerate(lengths):
        padded[i, :, n:] = 1e3  # junk that must not be read
    proba = clf.predict_proba_over_time(padded, lengths=lengths)
    for t in (0, 6, 22, 39):
        np.testing.assert_allclose(
            proba[:, t], clf.predict_proba(_prefixes(X[:4], t + 1, lengths)), atol=1e-10
        )
    # a list of series of unequal length: padded inside, the same
    np.testing.assert_allclose(
        clf.predict_proba_over_time([s[:, :n] for s, n in zip(X[:4], lengths)]), proba
    )


@pytest.mark.parametrize("two_d", [False, True])
def test_regressor_predictions_over_time(data, two_d):
    X, y = data
    target = np.c_[y, -2.0 * y] if two_d else 1.5 * y
    reg = SSMRegressor(**SMALL, d_model=16, n_layers=3).fit(X, target)
    over_time = reg.predict_over_time(X[:5])
    assert over_time.shape == ((5, 40, 2) if two_d else (5, 40))
    for t in (0, 20, 39):
        np.testing.assert_allclose(
            over_time[:, t], reg.predict(_prefixes(X[:5], t + 1)), rtol=0, atol=1e-10
        )


def test_a_bidirectional_network_has_no_prediction_for_a_prefix(data):
    X, y = data
    clf = SSMClassifier(**SMALL, network="s4d", d_model=8, d_state=8, bidirectional=True)
    clf.fit(X, y)
    with pytest.raises(ValueError, match="bidirectional network .* no output for a prefix"):
        clf.predict_proba_over_time(X[:2])


# ---- streams ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"network": "conv-s4d", "d_model": 16, "n_layers": 3},
        {"network": "s4d", "d_model": 8, "d_state": 8, "pooling": "mean-max", "n_estimators": 2},
    ],
    ids=["conv-s4d", "s4d-ensemble"],
)
def test_a_stream_predicts_what_the_estimator_predicts_over_time(data, params):
    """Sample by sample, or in chunks: after t samples, the prediction over time at t."""
    X, y = data
    clf = SSMClassifier(**SMALL, **params).fit(X, y)
    expected = clf.predict_proba_over_time(X[:3])  # (3, L, K)
    live = clf.stream(n_streams=3)
    for t in range(15):
        live.update(X[:3, :, t])  # (n_streams, n_channels)
        np.testing.assert_allclose(live.predict_proba(), expected[:, t], atol=1e-10)
    live.update(X[:3, :, 15:40])  # a chunk (n_streams, n_channels, k)
    assert live.n_steps_ == 40
    np.testing.assert_allclose(live.predict_proba(), expected[:, -1], atol=1e-10)
    np.testing.assert_array_equal(live.predict(), clf.predict(X[:3]))


def test_a_regressor_stream(data):
    X, y = data
    reg = SSMRegressor(**SMALL, d_model=16, n_layers=3).fit(X, 1.5 * y)
    live = reg.stream(n_streams=2).update(X[:2, :, :30])
    np.testing.assert_allclose(live.predict(), reg.predict_over_time(X[:2])[:, 29], atol=1e-10)


def test_stream_errors_name_the_problem(data):
    X, y = data
    clf = SSMClassifier(**SMALL, d_model=16, n_layers=3).fit(X, y)
    live = clf.stream(n_streams=2)
    with pytest.raises(ValueError, match="no sample yet"):
        live.predict_proba()
    with pytest.raises(ValueError, match=r"\(n_streams, n_channels\) = \(2, 2\)"):
        live.update(X[:3, :, 0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        live.update(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match=r"got \(2, 1\)"):  # the shape as given
        live.update(X[:2, :1, 0])
    with pytest.raises(ValueError, match="indices of the 2 streams"):
        live.keep([5])
    with pytest.raises(ValueError, match="mask of length n_streams = 2"):
        live.keep([True, False, True])
    with pytest.raises(ValueError, match="n_streams must be a positive int"):
        clf.stream(n_streams=0)
    bidirectional = SSMClassifier(
        **SMALL, network="s4d", d_model=8, d_state=8, bidirectional=True
    ).fit(X, y)
    with pytest.raises(ValueError, match="bidirectional network"):
        bidirectional.stream()


def test_stream_input_the_estimator_would_refuse_is_refused_by_name(data):
    """What the estimator's validation refuses, update refuses too (found by a new-user
    trial): text, numbers written as text, complex samples, ragged lists, repeated indices in
    keep, and a PredictionStream made of something it cannot follow."""
    from sklearn.exceptions import NotFittedError

    from sktdi import PredictionStream

    X, y = data
    clf = SSMClassifier(**SMALL, d_model=16, n_layers=3).fit(X, y)
    live = clf.stream(n_streams=2)
    for text in ([["1", "2"], ["3", "4"]], np.array([["a", "b"], ["c", "d"]])):
        # the hint is code a user can run: a Python name, not the message's "update's x"
        with pytest.raises(TypeError, match=r"must be numeric, but holds text .*"
                           r"np\.asarray\(x, dtype=float\)"):
            live.update(text)
    with pytest.raises(ValueError, match="real samples; got complex"):
        live.update(np.ones((2, 2)) * 1j)
    with pytest.raises(ValueError, match="uneven lengths"):
        live.update([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match=r"distinct stream indices; \[1\] repeat"):
        live.keep([1, 1])
    assert live.n_steps_ == 0  # nothing refused was taken
    with pytest.raises(NotFittedError):
        PredictionStream(SSMClassifier(), 2)
    with pytest.raises(TypeError, match="follows a fitted SSMClassifier or SSMRegressor"):
        PredictionStream("model", 2)


@pytest.mark.parametrize("inference_dtype", ["float32", "float64"])
def test_a_single_sample_in_any_form_steps_the_same(data, inference_dtype):
    """One sample as a float64 or float32 (S, C) array takes the compiled path of one sample
    (scaled and checked in one pass); as a list, or as (S, C, 1), the general one: the same
    outputs. A refused sample leaves the stream as it was, whichever path saw it."""
    X, y = data
    clf = SSMClassifier(**SMALL, d_model=16, n_layers=3, inference_dtype=inference_dtype)
    clf.fit(X, y)
    forms = [
        lambda t: np.ascontiguousarray(X[:2, :, t]),
        lambda t: X[:2, :, t].astype(np.float32).astype(np.float64),
        lambda t: X[:2, :, t].astype(np.float32),
        lambda t: X[:2, :, t].astype(np.float32).tolist(),
        lambda t: X[:2, :, t : t + 1].astype(np.float32),
    ]
    streams = [clf.stream(2) for _ in forms]
    for t in range(6):
        for live, form in zip(streams, forms):
            live.update(form(t))
    outputs = [live.predict_proba() for live in streams]
    np.testing.assert_array_equal(outputs[1], outputs[2])  # float32 samples, read exactly
    np.testing.assert_array_equal(outputs[2], outputs[3])
    np.testing.assert_array_equal(outputs[2], outputs[4])
    np.testing.assert_allclose(outputs[0], outputs[1], atol=1e-3)
    live = streams[0]
    for bad in (np.array([[np.nan, 0.0], [0.0, 0.0]]), np.array([[0.0, 0.0], [np.inf, 0.0]])):
        with pytest.raises(ValueError, match=r"update got NaN or infinite values \(stream \d, "
                           r"channel 0\); a stream needs finite samples, and nothing was taken"):
            live.update(bad)
    for missing in (None, [[None, 0.0], [0.0, 0.0]]):  # numpy would read None as NaN
        with pytest.raises(ValueError, match=r"update got None where a sample belongs"):
            live.update(missing)
    assert live.n_steps_ == 6
    np.testing.assert_array_equal(live.predict_proba(), outputs[0])


@pytest.mark.parametrize("inference_dtype", ["float32", "float64"])
def test_a_sample_too_large_for_the_network_is_named_not_carried_silently(data, inference_dtype):
    """A finite sample that overflows once scaled to the network's precision is refused
    before it reaches the state; one that overflows inside the network (its state NaN for
    good) is named, with the streams it cost, at every update; the other streams go on."""
    X, y = data
    # one scale per channel: a sample's size reaches the network as it is (the network
    # alone, which streams: a model of "channel" would otherwise hold the fast path)
    clf = SSMClassifier(
        **{**SMALL, "input_scaling": "channel"}, d_model=16, n_layers=3,
        inference_dtype=inference_dtype, fast_path=False,
    )
    clf.fit(X, y)
    live = clf.stream(n_streams=3).update(X[:3, :, :5])
    if inference_dtype == "float32":
        with pytest.raises(ValueError, match="too large for the network.*float32"):
            live.update(np.full((3, 2), 1e39))
        assert live.n_steps_ == 5  # refused before the state
    huge = np.zeros((3, 2, 8))  # near the largest finite value, both signs: some channel's
    huge[1] = (1.7e308 if inference_dtype == "float64" else 3e38) * np.array([[1], [-1]])
    huge[1, :, 1::2] *= -1  # running sum overflows whatever the weights
    with pytest.raises(ValueError, match=r"stream\(s\) \[1\] overflowed"):
        live.update(huge)
    with pytest.raises(ValueError, match=r"stream\(s\) \[1\] overflowed"):
        live.update(X[:3, :, 6:30])  # the chunk mode too, and every update after
    with pytest.raises(ValueError, match=r"stream\(s\) \[1\] overflowed"):
        live.predict_proba()
    live.keep([0, 2]).update(X[[0, 2], :, 30:])
    assert np.isfinite(live.predict_proba()).all()


def test_a_stream_keeps_the_streams_it_is_told_to(data):
    """keep drops streams mid-way: the rest go on as if they had been alone."""
    X, y = data
    clf = SSMClassifier(**SMALL, network="s4d", d_model=8, d_state=8, n_estimators=2).fit(X, y)
    live = clf.stream(n_streams=4).update(X[:4, :, :13])
    live.keep(np.array([False, True, False, True])).update(X[[1, 3], :, 13:])
    assert live.n_streams == 2
    np.testing.assert_allclose(live.predict_proba(), clf.predict_proba(X[[1, 3]]), atol=1e-10)
    with pytest.raises(ValueError, match=r"1-D list of stream indices .* shape \(1, 2\)"):
        live.keep([[0, 1]])
    assert live.n_streams == 2
    steps = clf.stream(n_streams=2).outputs_after_each(X[:2])  # (2, L, K) logits
    np.testing.assert_allclose(
        np.exp(steps.numpy()) / np.exp(steps.numpy()).sum(-1, keepdims=True),
        clf.predict_proba_over_time(X[:2]),
        atol=1e-10,
    )


@pytest.mark.parametrize("inference_dtype", ["float32", "float64"])
@pytest.mark.parametrize("change", ["partial_fit", "refit"])
def test_a_stream_is_a_snapshot_of_the_model_it_was_made_from(data, inference_dtype, change):
    """Training the estimator again while a stream runs changes nothing in the stream: its
    network is an eval-mode copy (float32 used the trained module itself, which partial_fit
    changed and left in training mode: BatchNorm on one stream's batch statistics raised),
    and its scaling and classes are those it was made with (they were read live)."""
    X, y = data
    clf = SSMClassifier(
        **SMALL, network="conv-s4d", d_model=16, n_layers=2, inference_dtype=inference_dtype
    ).fit(X, y)
    expected = clf.predict_proba_over_time(X[:1])  # (1, L, K)
    labels = clf.predict(X[:1])
    live = clf.stream(n_streams=1).update(X[:1, :, :20])
    if change == "partial_fit":
        clf.partial_fit(X, y)
    else:  # another scale, other labels
        clf.fit(3.0 * X + 2.0, np.array(["a", "b", "c"])[y])
    live.update(X[:1, :, 20:])
    tolerance = 1e-5 if inference_dtype == "float32" else 1e-10
    np.testing.assert_allclose(live.predict_proba(), expected[:, -1], atol=tolerance)
    np.testing.assert_array_equal(live.predict(), labels)


def test_a_stream_feeds_its_network_on_the_networks_device(data):
    """A network on another device than the CPU, where the samples come from (here torch's
    meta device, which computes shapes only; a GPU below): update moves each sample there."""
    X, y = data
    for network in ("s4d", "conv-s4d"):
        clf = SSMClassifier(**SMALL, network=network, d_model=8, d_state=8).fit(X, y)
        clf.net_.module_.to("meta")  # as if trained there
        live = clf.stream(n_streams=2)
        steps = live.outputs_after_each(X[:2, :, :5])
        assert steps.device.type == "meta" and steps.shape == (2, 5, 3), network
        live.keep([1]).update(X[1:2, :, 5])  # its state stays there too
        assert live.n_streams == 1 and live.n_steps_ == 6


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_stream_of_a_model_trained_on_a_gpu(data):
    X, y = data
    clf = SSMClassifier(**{**SMALL, "device": "cuda"}, d_model=16, n_layers=2).fit(X, y)
    expected = clf.predict_proba_over_time(X[:3])  # (3, L, K)
    live = clf.stream(n_streams=3).update(X[:3, :, :25])
    np.testing.assert_allclose(live.predict_proba(), expected[:, 24], atol=1e-10)
    live.keep([0, 2]).update(X[[0, 2], :, 25:])
    np.testing.assert_allclose(live.predict_proba(), expected[[0, 2], -1], atol=1e-10)
    from sktdi.sktime import SktimeSSMEarlyClassifier

    early = SktimeSSMEarlyClassifier(
        SSMClassifier(**{**SMALL, "device": "cuda"}, d_model=16, n_layers=2)
    ).fit(X, y)
    labels, decided = early.predict(X)
    assert decided.all() and set(labels) <= set(y)


def test_prefix_loss_is_the_weighted_sum_of_the_whole_and_every_step():
    """Checked against cross-entropy computed step by step."""
    import torch

    from sktdi.deep_model.training import prefix_loss

    class Net:  # what prefix_loss asks of the skorch net: its loss and criterion
        criterion_ = torch.nn.CrossEntropyLoss()

        def get_loss(self, y_pred, y_true, training):
            return torch.nn.functional.cross_entropy(y_pred, y_true)

    rng = np.random.default_rng(0)
    over_time = torch.as_tensor(rng.normal(size=(3, 5, 4)))  # (B, L, K)
    y = torch.tensor([0, 3, 1])
    by_step = [torch.nn.functional.cross_entropy(over_time[:, t], y) for t in range(5)]
    expected = 0.7 * by_step[-1] + 0.3 * torch.stack(by_step).mean()
    assert torch.isclose(prefix_loss(Net(), over_time, y, 0.3), expected)
    # an ensemble's members (B, M, L, K): the mean of the members' losses at each step
    members = torch.as_tensor(rng.normal(size=(3, 2, 5, 4)))

    class EnsembleNet(Net):
        def get_loss(self, y_pred, y_true, training):
            return torch.stack(
                [super(EnsembleNet, self).get_loss(y_pred[:, m], y_true, training) for m in range(2)]
            ).mean()

    expected = torch.stack([prefix_loss(Net(), members[:, m], y, 0.3) for m in range(2)]).mean()
    assert torch.isclose(prefix_loss(EnsembleNet(), members, y, 0.3), expected)
    # padded series: each series' own steps only, every series weighing the same
    lengths = torch.tensor([5, 2, 3])
    per_series = [
        torch.nn.functional.cross_entropy(over_time[b, : lengths[b]], y[b].repeat(lengths[b]))
        for b in range(3)
    ]
    expected = 0.7 * by_step[-1] + 0.3 * torch.stack(per_series).mean()
    assert torch.isclose(prefix_loss(Net(), over_time, y, 0.3, lengths), expected)


def test_the_ramp_weighs_step_t_in_proportion_to_t(monkeypatch):
    import torch

    from sktdi.deep_model import training as _training

    class Net:
        criterion_ = torch.nn.CrossEntropyLoss()

        def get_loss(self, y_pred, y_true, training):
            return self.criterion_(y_pred, y_true)

    monkeypatch.setattr(_training, "PREFIX_STEPS", "ramp")
    rng = np.random.default_rng(1)
    over_time = torch.as_tensor(rng.normal(size=(3, 4, 2)))  # (B, L, K)
    y = torch.tensor([0, 1, 1])
    by_step = torch.stack(
        [torch.nn.functional.cross_entropy(over_time[:, t], y) for t in range(4)]
    )
    ramp = torch.arange(1.0, 5.0, dtype=torch.float64) / 10
    expected = 0.5 * by_step[-1] + 0.5 * (ramp * by_step).sum()
    assert torch.isclose(_training.prefix_loss(Net(), over_time, y, 0.5), expected)


def test_training_on_prefixes(data):
    """prefix_weight trains the predictions for prefixes: their loss falls below that of a
    network trained on whole series only, from the same seed; a bidirectional network
    refuses it."""
    X, y = data
    losses = {}
    for weight in (0.0, 0.5):
        clf = SSMClassifier(**{**SMALL, "max_epochs": 15}, d_model=16, prefix_weight=weight)
        proba = clf.fit(X, y).predict_proba_over_time(X)[:, :20]  # the first half
        losses[weight] = -np.log(proba[np.arange(len(y)), :, y]).mean()
    assert losses[0.5] < losses[0.0]
    with pytest.raises(ValueError, match="prefix_weight=0.5 trains the predictions for prefixes"):
        SSMClassifier(network="s4d", bidirectional=True, prefix_weight=0.5).fit(X, y)
    # an ensemble, padded series, and a regressor train on prefixes too
    lengths = np.full(len(y), 40)
    lengths[::3] = 25
    ensemble = SSMClassifier(**SMALL, network="s4d", d_model=8, d_state=8, n_estimators=2,
                             prefix_weight=0.5).fit(X, y, lengths=lengths)
    assert ensemble.predict_proba_over_time(X[:2]).shape == (2, 40, 3)
    reg = SSMRegressor(**SMALL, d_model=16, n_layers=3, prefix_weight=0.5).fit(X, 1.5 * y)
    assert np.isfinite(reg.predict_over_time(X[:2])).all()


@pytest.mark.parametrize("inference_dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "network", [{"n_layers": 4}, {"network": "s4d", "n_layers": 2, "d_state": 8}],
    ids=["conv-s4d", "s4d"],
)
def test_a_stream_runs_the_compiled_step_and_agrees_with_torchs(data, network, inference_dtype):
    """The compiled step (sktdi.deep_model.stream_kernels) against the network's own torch step,
    with streams dropped half-way (keep) and samples fed one at a time and in chunks."""
    X, y = data
    clf = SSMClassifier(
        **SMALL, **network, d_model=16, pooling="mean-max", inference_dtype=inference_dtype
    ).fit(X, y)
    live = clf.stream(n_streams=3)
    assert live._stepper is not None
    module = clf._inference_module()
    with torch.no_grad():
        state = module.initial_state(3)
        scaled = torch.as_tensor(
            network_input(
                X[:3], clf.input_mean_, clf.input_scale_, None, np.float64,
                scaling=clf.input_scaling_,
            ),
            dtype=next(module.parameters()).dtype,
        )  # (3, C, L)
        torch_steps = []
        for t in range(40):
            if t == 20:
                state = state.select(torch.tensor([2, 0]))
                scaled = scaled[[2, 0]]
            out, state = module.step(scaled[..., t], state)
            torch_steps.append(out)
    atol = 1e-10 if inference_dtype == "float64" else 1e-5
    for t in range(10):
        live.update(X[:3, :, t])
        np.testing.assert_allclose(live._outputs().numpy(), torch_steps[t].numpy(), atol=atol)
    live.update(X[:3, :, 10:20])
    live.keep([2, 0])
    chunk = live.outputs_after_each(X[[2, 0], :, 20:40]).numpy()  # (2, 20, K)
    np.testing.assert_allclose(chunk, torch.stack(torch_steps[20:], dim=1).numpy(), atol=atol)



@pytest.mark.parametrize(
    "network",
    [{"n_layers": 4, "pooling": "mean-max"}, {"network": "s4d", "n_layers": 2, "d_state": 8}],
    ids=["conv-s4d", "s4d"],
)
def test_a_chunk_runs_the_convolution_mode_with_the_state_carried(data, network, monkeypatch):
    """A chunk runs layer after layer over its samples (the convolution mode), in time tiles,
    over streams taken a few at a time; the state it leaves is the step's: mixed feeds of
    single samples, short and long chunks agree with the step alone and with the estimator."""
    from sktdi.deep_model import stream_kernels

    X, y = data
    clf = SSMClassifier(**SMALL, **network, d_model=16).fit(X, y)
    X = np.concatenate([X, X[:, :, ::-1]], axis=-1)[:5]  # (5, C, 80): past the fit's length
    monkeypatch.setattr(stream_kernels, "TILE", 16)  # a chunk of 35 runs as 16 + 16 + 3
    monkeypatch.setattr(stream_kernels, "ROWS", 40)  # 2 streams at a time for tiles of 16
    monkeypatch.setattr(stream_kernels, "MIN_CHUNK", 10**9)
    stepped = clf.stream(5).outputs_after_each(X).numpy()  # (5, 80, K): every sample a step
    monkeypatch.setattr(stream_kernels, "MIN_CHUNK", 4)
    live = clf.stream(5)
    chunks = [
        live.outputs_after_each(X[:, :, start:end]).numpy()
        for start, end in [(0, 1), (1, 36), (36, 38), (38, 42), (42, 79)]
    ]
    np.testing.assert_allclose(np.concatenate(chunks, axis=1), stepped[:, :79], atol=1e-10)
    live.update(X[:, :, 79:])
    proba = clf.predict_proba_over_time(X, lengths=np.full(5, 80))[:, -1]  # (5, K)
    np.testing.assert_allclose(live.predict_proba(), proba, atol=1e-10)
    live = clf.stream(5).update(X[:, :, :50]).update(X[:, :, 50:])  # update keeps the last
    np.testing.assert_allclose(live.predict_proba(), proba, atol=1e-10)


def test_the_default_networks_step_reads_float32_weights_only_where_they_are_exact(data):
    """A float64 network trained in float32 holds float32 values: the step reads its larger
    weights as float32 (half the bytes) and computes what it computed from the float64
    arrays; weights that are not float32 values stay float64."""
    from sktdi.deep_model.stream_kernels import compiled_stepper

    X, y = data
    clf = SSMClassifier(**SMALL, n_layers=4, d_model=16).fit(X, y)
    module = clf._inference_module()
    assert next(module.parameters()).dtype == torch.float64
    stepper = compiled_stepper(module, 3)
    assert stepper.conv.dtype == np.float32 and stepper.step_bottleneck.dtype == np.float32
    assert stepper.bottleneck.dtype == np.float64  # the convolution mode's BLAS products
    read = stepper.step_arrays()
    assert "step_bottleneck" in read and "bottleneck" not in read and "conv_taps" not in read
    wide = compiled_stepper(module, 3)
    for name in ("conv", "step_bottleneck", "step_pool_proj", "step_shortcut"):
        setattr(wide, name, getattr(wide, name).astype(np.float64))
    scaled = (X[:3] - clf.input_mean_[:, None]) / clf.input_scale_[:, None]  # (3, C, 40)
    outputs = [stepper.feed(scaled[..., :8], every_step=True),
               wide.feed(scaled[..., :8], every_step=True)]
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=0, atol=1e-13)
    with torch.no_grad():  # weights off float32's grid are read as they are
        module.blocks[0].convs[0].weight.add_(1e-12)
    assert compiled_stepper(module, 3).conv.dtype == np.float64
