"""SSMClassifier / SSMRegressor: conformance, pipelines, persistence, TDI in fit, bad input."""

from __future__ import annotations

import pickle
import re
import sys
import warnings

import joblib
import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sktdi import SSMClassifier, SSMRegressor, TDIOptions, TrainingOptions
from sktdi.utils.inputs import network_input

FAST = dict(d_model=8, n_layers=1, d_state=8, max_epochs=5, batch_size=32, lr=1e-2)
NETWORK = dict(FAST, fast_path=False)  # the network alone, for tests of its training


@parametrize_with_checks(
    [
        SSMClassifier(d_model=8, n_layers=1, d_state=8, max_epochs=40, batch_size=32, lr=1e-2),
        # scikit-learn's regression check needs R² > 0.5 on a 10-step series whose target is set
        # by one position: full-batch training for 200 epochs gets there (R² ≈ 0.8)
        SSMRegressor(d_model=16, n_layers=2, d_state=8, max_epochs=200, batch_size=256, lr=3e-2),
        # the ensemble and augmentation paths through the whole suite
        SSMClassifier(
            d_model=8, n_layers=1, d_state=8, max_epochs=40, batch_size=32, lr=1e-2,
            n_estimators=2, training=TrainingOptions(augment="jitter-scale"),
        ),
    ]
)
@pytest.mark.slow  # scikit-learn's whole suite, every check a few training runs
def test_sklearn_conformance(estimator, check):
    check(estimator)


def planted(n_per_class=20, length=64, freq=0.4, seed=0, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.asarray(labels), n_per_class)
    t = np.arange(length)
    X = rng.normal(size=(len(y), length))
    phase = rng.uniform(0, 2 * np.pi, size=(n_per_class, 1))
    X[y == labels[1]] += 1.5 * np.sin(2 * np.pi * freq * t + phase)
    return X, y


def test_fit_predict_string_labels_and_proba():
    X, y = planted(labels=("calm", "ringing"))
    clf = SSMClassifier(d_model=16, max_epochs=30, random_state=0).fit(X, y)
    assert list(clf.classes_) == ["calm", "ringing"]
    assert clf.score(X, y) >= 0.9
    proba = clf.predict_proba(X)
    assert proba.shape == (40, 2) and np.allclose(proba.sum(axis=1), 1)
    assert set(clf.predict(X)) <= {"calm", "ringing"}
    scores = clf.decision_function(X)
    assert scores.shape == (40,)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(scores > 0).astype(int)])


def test_multiclass_and_multichannel():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1, 2], 12)
    X = rng.normal(size=(36, 3, 48))
    t = np.arange(48)
    X[y == 1, 0] += np.sin(2 * np.pi * 0.1 * t)
    X[y == 2, 2] += np.sin(2 * np.pi * 0.3 * t)
    clf = SSMClassifier(d_model=16, max_epochs=40, lr=1e-2, random_state=0).fit(X, y)
    assert clf.decision_function(X).shape == (36, 3)
    assert clf.n_channels_ == 3 and clf.n_timepoints_ == 48 and clf.n_features_in_ == 3
    assert clf.score(X, y) > 0.8
    assert clf.task_spectrum_.channel_values.shape[0] == 3


def test_grid_search_pipeline_n_jobs_2():
    X, y = planted(n_per_class=15)
    pipe = make_pipeline(StandardScaler(), SSMClassifier(**FAST, random_state=0))
    search = GridSearchCV(
        pipe, {"ssmclassifier__init": ["tdi", "s4d-lin"]}, cv=3, n_jobs=2, error_score="raise"
    )
    search.fit(X, y)
    assert set(search.cv_results_["param_ssmclassifier__init"]) == {"tdi", "s4d-lin"}
    assert search.best_estimator_.predict(X).shape == (30,)


@pytest.mark.parametrize("Estimator", [SSMClassifier, SSMRegressor])
def test_clone_pickle_joblib_round_trips(Estimator, tmp_path):
    X, y = planted(n_per_class=10)
    target = y if Estimator is SSMClassifier else y + 0.1 * np.arange(len(y))
    model = Estimator(**FAST, random_state=0).fit(X, target)
    expected = model.predict(X)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X), expected)
    joblib.dump(model, tmp_path / "model.joblib")
    np.testing.assert_array_equal(joblib.load(tmp_path / "model.joblib").predict(X), expected)
    np.testing.assert_array_equal(clone(model).fit(X, target).predict(X), expected)


def test_same_seed_same_model_different_seed_different_init():
    X, y = planted(n_per_class=10)
    a = SSMClassifier(**FAST, random_state=7).fit(X, y)
    b = SSMClassifier(**FAST, random_state=7).fit(X, y)
    c = SSMClassifier(**FAST, random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    sa, sb, sc = (m.net_.module_.state_dict() for m in (a, b, c))
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not torch.equal(sa["blocks.0.ssm.C"], sc["blocks.0.ssm.C"])
    # seeding does not leak into the caller's global torch RNG
    torch.manual_seed(0)
    first = torch.rand(1)
    torch.manual_seed(0)
    SSMClassifier(**FAST, random_state=1).fit(X, y)
    assert torch.equal(torch.rand(1), first)


def test_tdi_is_used_in_fit():
    """max_epochs=0 fits the initialization only: TDI's response puts over 4 times S4D-Lin's
    share of its power at the planted frequency (the base's own modes, kept beside the
    aligned ones, still peak at f = 0, where their memories are longest)."""
    X, y = planted(n_per_class=20, length=128, freq=0.4)
    grid = 512
    share = {}
    for init in ("tdi", "s4d-lin"):
        clf = SSMClassifier(init=init, max_epochs=0, random_state=0).fit(X, y)
        freqs, magnitude = clf.frequency_response(layer=0, n_freqs=grid)
        # the default conv-s4d network's S4D layers run on a quarter of a block's width
        assert magnitude.shape == (clf.network_params_["d_model"] // 4, grid)
        power = (magnitude**2).sum(axis=0)  # (grid,)
        share[init] = power[np.abs(freqs - 0.4) <= 0.01].sum() / power.sum()
        assert clf.n_epochs_ == 0 and len(clf.history_) == 0
    assert share["tdi"] > 4 * share["s4d-lin"], share
    report = SSMClassifier(max_epochs=0, random_state=0).fit(X, y).tdi_reports_[0]
    assert abs(report.peaks[0].freq - 0.4) <= 1 / 128 and report.coverage == "base"
    assert report.n_aligned_modes == report.n_spread_modes == 16  # half the modes on the peak
    tiled = SSMClassifier(max_epochs=0, tdi=TDIOptions(coverage="tiled"), random_state=0)
    freqs, magnitude = tiled.fit(X, y).frequency_response(layer=0, n_freqs=grid)
    assert abs(freqs[np.argmax((magnitude**2).sum(axis=0))] - 0.4) <= 0.01  # every mode moved
    every = SSMClassifier(max_epochs=0, tdi=TDIOptions(layers="all"), random_state=0).fit(X, y)
    assert len(every.tdi_reports_) == every.network_params_["n_layers"]
    assert abs(every.tdi_reports_[1].peaks[0].freq - 0.4) <= 1 / 128
    first = SSMClassifier(max_epochs=0, random_state=0).fit(X, y)
    assert len(first.tdi_reports_) == 1
    lin = SSMClassifier(init="s4d-lin", max_epochs=0, random_state=0).fit(X, y)
    assert lin.task_spectrum_ is None and lin.tdi_reports_ == []


def test_tdi_subsample_is_used():
    X, y = planted(n_per_class=30)
    clf = SSMClassifier(max_epochs=0, tdi=TDIOptions(subsample=10), random_state=0).fit(X, y)
    assert clf.task_spectrum_.n_samples == 10
    clf = SSMClassifier(max_epochs=0, tdi=TDIOptions(subsample=0.5), random_state=0).fit(X, y)
    assert clf.task_spectrum_.n_samples == 30


def test_regressor_multioutput_and_standardization():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 32))
    Y = np.column_stack([1000 + 50 * X[:, -4:].mean(axis=1), -3 * X[:, -1]])
    reg = SSMRegressor(d_model=16, pooling="last", max_epochs=60, lr=1e-2, random_state=0)
    reg.fit(X, Y)
    pred = reg.predict(X)
    assert pred.shape == (80, 2)
    assert abs(pred[:, 0].mean() - 1000) < 20  # mapped back to the original units
    assert reg.score(X, Y) > 0.5
    np.testing.assert_allclose(reg.y_mean_, Y.mean(axis=0))
    single = SSMRegressor(**FAST, random_state=0).fit(X, Y[:, 1])
    assert single.predict(X).shape == (80,)
    assert single.task_spectrum_.kind == "cross-spectrum"


def test_warm_start_and_partial_fit_continue_training():
    X, y = planted(n_per_class=10)
    # the network's own training, which these tests watch: without the fast path, which would
    # stop a fit on these easy series at its first epochs (tests/test_one_model.py covers it)
    clf = SSMClassifier(**NETWORK, warm_start=True, random_state=0).fit(X, y)
    weights = clf.net_.module_.head.weight.detach().clone()
    clf.fit(X, y)
    assert clf.n_epochs_ == 10
    assert not torch.equal(weights, clf.net_.module_.head.weight)
    cold = SSMClassifier(**NETWORK, random_state=0).fit(X, y).fit(X, y)
    assert cold.n_epochs_ == 5

    online = SSMClassifier(**FAST, random_state=0)
    with pytest.warns(UserWarning, match="TDI skipped"):
        online.partial_fit(X[:10], y[:10], classes=[0, 1])  # one class: no contrast for TDI
    assert online.task_spectrum_ is None
    online.partial_fit(X[10:], y[10:])
    assert online.n_epochs_ == 2 and list(online.classes_) == [0, 1]
    with pytest.raises(ValueError, match="not seen"):
        online.partial_fit(X[:4], np.array([0, 1, 2, 2]))
    reg = SSMRegressor(**FAST, random_state=0)
    reg.partial_fit(X, y.astype(float)).partial_fit(X, y.astype(float))
    assert reg.n_epochs_ == 2


@pytest.mark.usefixtures("network_ground")
def test_validation_split_and_early_stopping():
    X, y = planted(n_per_class=20)
    # the S4D network: its validation loss turns within 200 epochs on this task, which makes
    # the test of the stopping rule a short one (the rule is the same for either network)
    clf = SSMClassifier(
        **{**FAST, "max_epochs": 200}, network="s4d", validation_fraction=0.25,
        n_iter_no_change=3, random_state=0,
    ).fit(X, y)
    assert "valid_loss" in clf.history_[-1]
    assert clf.n_epochs_ < 200


def test_verbose_prints_and_silent_by_default(capsys):
    X, y = planted(n_per_class=5)
    SSMClassifier(**NETWORK, random_state=0).fit(X, y)
    assert capsys.readouterr().out == ""
    SSMClassifier(**NETWORK, verbose=1, random_state=0).fit(X, y)
    assert "train_loss" in capsys.readouterr().out


def test_prediction_runs_in_batches_for_large_inputs():
    X, y = planted(n_per_class=5, length=16)
    clf = SSMClassifier(**FAST, random_state=0).fit(X, y)
    big = np.random.default_rng(0).normal(size=(2500, 16))
    proba = clf.predict_proba(big)
    assert proba.shape == (2500, 2)
    np.testing.assert_allclose(proba[:10], clf.predict_proba(big[:10]), atol=1e-12)


def test_unavailable_cuda_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    X, y = planted(n_per_class=5)
    with pytest.raises(ValueError, match="CUDA is not available"):
        SSMClassifier(**FAST, device="cuda").fit(X, y)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_fit_predict_and_cpu_load(tmp_path):
    X, y = planted(n_per_class=10)
    clf = SSMClassifier(**FAST, device="cuda", random_state=0).fit(X, y)
    assert next(clf.net_.module_.parameters()).is_cuda
    expected = clf.predict_proba(X)
    joblib.dump(clf, tmp_path / "gpu.joblib")
    restored = joblib.load(tmp_path / "gpu.joblib")
    np.testing.assert_allclose(restored.predict_proba(X), expected, atol=1e-6)


GOOD_X = np.random.default_rng(0).normal(size=(6, 20))
GOOD_Y = np.array([0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize(
    "X, y, error, match",
    [
        (np.where(np.eye(6, 20) > 0, np.nan, GOOD_X), GOOD_Y, ValueError, "NaN"),
        (np.where(np.eye(6, 20) > 0, np.inf, GOOD_X), GOOD_Y, ValueError, "infinity"),
        (GOOD_X.astype(complex), GOOD_Y, ValueError, "[Cc]omplex"),
        (np.array([["a"] * 20] * 6, dtype=object), GOOD_Y, ValueError, "convert|string"),
        (np.zeros((0, 20)), np.zeros(0), ValueError, "0 sample"),
        (GOOD_X[:, :1], GOOD_Y, ValueError, "too short"),
        (GOOD_X[0], GOOD_Y, ValueError, r"1-D .*X\.reshape\(1, -1\)"),
        (np.zeros((6, 2, 3, 20)), GOOD_Y, ValueError, "2-D .* or 3-D"),
        (GOOD_X, np.zeros(6), ValueError, "1 class"),
        (GOOD_X, GOOD_Y[:5], ValueError, "inconsistent numbers of samples"),
        (GOOD_X, np.linspace(0, 1, 6), ValueError, "Unknown label type"),
        (GOOD_X, np.array([0, 1, np.nan, 0, 1, 0]), ValueError, "NaN"),
    ],
)
def test_bad_input_table(X, y, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match):
            SSMClassifier(**FAST).fit(X, y)


def test_bad_input_after_fit():
    clf = SSMClassifier(**FAST, random_state=0).fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="30 features"):
        clf.predict(np.zeros((2, 30)))
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(np.full((2, 20), np.nan))
    three_d = SSMClassifier(**FAST, random_state=0).fit(GOOD_X.reshape(6, 2, 10), GOOD_Y)
    with pytest.raises(ValueError, match="length 12"):
        three_d.predict(np.zeros((2, 2, 12)))
    with pytest.raises(ValueError, match="3 channels"):
        three_d.predict(np.zeros((2, 3, 10)))


def test_bad_parameters():
    with pytest.raises(ValueError, match="init"):
        SSMClassifier(init="hippo").fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="d_state must be even"):
        SSMClassifier(d_state=7).fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="dt_min"):
        SSMClassifier(dt_min=1.0, dt_max=0.1).fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="max_epochs"):
        SSMClassifier(max_epochs=-1).fit(GOOD_X, GOOD_Y)


def test_ensemble_aligns_every_member_and_averages_their_probabilities():
    X, y = planted(n_per_class=20, length=128, freq=0.4)
    clf = SSMClassifier(
        **NETWORK, n_estimators=3, tdi=TDIOptions(reliability=False), random_state=0
    ).fit(X, y)
    members = clf._networks()
    assert len(members) == 3 and len(clf.tdi_reports_) == 3  # one TDI statistic, 3 layers
    for report in clf.tdi_reports_:
        assert abs(report.peaks[0].freq - 0.4) <= 1 / 128
    # independent draws: the members are different networks
    assert not torch.equal(members[0].head.weight, members[1].head.weight)
    # the ensemble's probabilities are the mean of its members' (float64, as predicted)
    inputs = torch.as_tensor(network_input(
        X[:, None, :], clf.input_mean_, clf.input_scale_, None, np.float64,
        scaling=clf.input_scaling_, reference=clf.input_reference_, kept=clf.input_amplitude_,
    ))
    with torch.no_grad():
        each = [torch.softmax(m.double().eval()(inputs), dim=-1) for m in members]
    np.testing.assert_allclose(clf.predict_proba(X), torch.stack(each).mean(0).numpy(), atol=1e-6)


def test_augmentation_is_seeded_and_acts_in_training_only():
    X, y = planted(n_per_class=10, length=64)
    fits = [
        SSMClassifier(**NETWORK, training=TrainingOptions(augment=augment), random_state=0).fit(X, y)
        for augment in ("all", "all", "none")
    ]
    first, again, plain = (clf.predict_proba(X) for clf in fits)
    np.testing.assert_array_equal(first, again)  # same random_state, same model
    assert not np.allclose(first, plain)  # the batches were transformed
    np.testing.assert_array_equal(fits[0].predict_proba(X), first)  # prediction is not augmented


@pytest.mark.parametrize(
    "params,match",
    [
        ({"training": TrainingOptions(augment="mixup")}, "augment"),
        ({"n_estimators": 0}, "n_estimators"),
        ({"pooling": "median"}, "pooling"),
        ({"bidirectional": "yes"}, "bidirectional"),
    ],
)
def test_bad_recipe_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        SSMClassifier(**params).fit(GOOD_X, GOOD_Y)


@pytest.mark.slow  # the default network, 100 epochs on GunPoint
def test_gunpoint_accuracy_with_defaults():
    from sktime.datasets import load_gunpoint

    X_train, y_train = load_gunpoint(split="train", return_type="numpy3D")
    X_test, y_test = load_gunpoint(split="test", return_type="numpy3D")
    clf = SSMClassifier(random_state=0).fit(X_train, y_train)
    assert clf.score(X_test, y_test) >= 0.90


def test_unequal_lengths_padding_is_masked():
    rng = np.random.default_rng(0)
    lengths = rng.integers(20, 41, size=30)
    y = np.arange(30) % 2
    X = np.zeros((30, 2, 40))
    for i, length in enumerate(lengths):
        t = np.arange(length)
        X[i, :, :length] = rng.normal(size=(2, length)) + y[i] * np.sin(2 * np.pi * 0.3 * t)
    clf = SSMClassifier(**FAST, random_state=0).fit(X, y, lengths=lengths)
    assert clf.task_spectrum_.estimator["method"] == "welch-ragged"
    proba = clf.predict_proba(X, lengths=lengths)
    # more padding, different padding values: same predictions
    wider = np.concatenate([X, np.full((30, 2, 15), 7.0)], axis=-1)
    np.testing.assert_allclose(clf.predict_proba(wider, lengths=lengths), proba, atol=1e-10)
    with pytest.raises(ValueError, match="lengths must lie"):
        clf.predict(X, lengths=np.full(30, 41))
    with pytest.raises(ValueError, match="one per series"):
        clf.predict(X, lengths=lengths[:5])


@pytest.mark.parametrize("make", [SSMClassifier, SSMRegressor])
def test_a_list_of_series_of_unequal_length_is_the_padded_panel_with_its_lengths(make):
    """Before: fit and every prediction refused a list of series of unequal length ("pad them
    ... pad_sequences"), which the ridge models and the transformer took. Now the list is
    padded and masked inside: fit, partial_fit and every prediction give exactly what
    pad_sequences(series) with its lengths gives."""
    from sktdi.datasets import pad_sequences

    rng = np.random.default_rng(0)
    lengths = [20, 31, 26, 40, 23, 35, 28, 38] * 2
    labels = np.arange(16) % 2
    series = [
        rng.normal(size=(2, n)) + label * np.sin(0.6 * np.arange(n))
        for n, label in zip(lengths, labels)
    ]
    y = labels if make is SSMClassifier else labels * 1.5 + 0.1
    X, padded_lengths = pad_sequences(series)
    new = [rng.normal(size=(2, n)) for n in (17, 44, 30)]  # longer than any in fit, too
    new_X, new_lengths = pad_sequences(new)
    new_y = y[:3]
    methods = ["predict", "score"]
    if make is SSMClassifier:
        methods += ["predict_proba", "decision_function"]
    for fit in ("fit", "partial_fit"):
        from_list = getattr(make(**FAST, random_state=0), fit)(series, y)
        from_padding = getattr(make(**FAST, random_state=0), fit)(X, y, lengths=padded_lengths)
        assert from_list.task_spectrum_.estimator["method"] == "welch-ragged"
        for method in methods:
            args = (new_y,) if method == "score" else ()
            np.testing.assert_array_equal(
                getattr(from_list, method)(new, *args),
                getattr(from_padding, method)(new_X, *args, lengths=new_lengths),
            )
    # univariate series, each (length_i,)
    univariate = [s[0] for s in series]
    from_list = make(**FAST, random_state=0).fit(univariate, y)
    X1, lengths1 = pad_sequences(univariate)
    np.testing.assert_array_equal(
        from_list.predict([s[0] for s in new]),
        make(**FAST, random_state=0).fit(X1, y, lengths=lengths1).predict(
            new_X[:, :1], lengths=new_lengths
        ),
    )


def test_auto_init_decides_from_reliability_and_reports_why():
    X, y = planted(n_per_class=20, length=128, freq=0.4)
    tdi = SSMClassifier(init="auto", max_epochs=0, random_state=0).fit(X, y)
    assert tdi.init_report_["chosen"] == "tdi" and tdi.tdi_reports_
    noise = np.random.default_rng(0).normal(size=(40, 128))
    lin = SSMClassifier(init="auto", max_epochs=0, random_state=0).fit(noise, y)
    assert lin.init_report_["chosen"] == "s4d-lin"
    assert lin.task_spectrum_ is None and lin.tdi_reports_ == []
    assert "reliability" in lin.init_report_["reason"] or "significant" in lin.init_report_["reason"]


def test_init_report_says_when_tdi_stood_down():
    """Before: init="tdi" on a task with no significant bin reported chosen "tdi" and
    nothing else said the network started from S4D-Lin on every channel."""
    tiny = {
        "network": "s4d", "d_model": 8, "n_layers": 1, "d_state": 8, "max_epochs": 0,
        "random_state": 0,
    }
    X, y = planted(n_per_class=20, length=128, freq=0.4)
    aligned = SSMClassifier(**tiny).fit(X, y).init_report_
    assert aligned["chosen"] == aligned["applied"] == "tdi"
    assert aligned["n_aligned_channels"] > 0 and "stood down" not in aligned["reason"]
    noise = np.random.default_rng(2).normal(size=X.shape)  # no significant bin
    flat = SSMClassifier(**tiny).fit(noise, y).init_report_
    assert flat["chosen"] == "tdi" and flat["n_significant_bins"] == 0  # the decision, kept
    assert flat["applied"] == "s4d-lin" and flat["n_aligned_channels"] == 0
    assert flat["reason"].startswith("tdi stood down: no significant frequency bin")
    assert list(flat)[:3] == ["requested", "chosen", "applied"]  # printed side by side
    # the summary, in words: what every channel starts from, and what an aligned one holds
    assert flat["summary"].startswith(
        "TDI (init='tdi') stood down; every channel starts from s4d-lin (no significant "
        "frequency bin"
    )
    assert re.fullmatch(
        r"TDI \(init='tdi'\) aligned \d of the 8 channels of the first S4D layer with the "
        r"fisher-log-power statistic, the "
        r"share the statistic's split-half reliability \(0\.\d\d\) allows; the other channels "
        r"are s4d-lin's\. On each aligned channel, 2 of 4 modes are the base's own \(its lowest "
        r"frequencies, kept as built\) and 2 sit on the statistic's \d peaks? \(f = 0\.(39|40)[^)]*\); "
        r"the layer keeps the base's kernel energy\.",
        aligned["summary"],
    ), aligned["summary"]
    # a share that rounds to no channel of an 8-channel layer stands down too
    rounded = SSMClassifier(**tiny, tdi=TDIOptions(channel_share=0.01)).fit(X, y).init_report_
    assert rounded["applied"] == "s4d-lin" and rounded["n_aligned_channels"] == 0
    assert re.fullmatch(  # the share: the reliability times tdi.channel_share
        r"tdi stood down: a channel share of 0\.\d% rounds to no channel, s4d-lin kept on all",
        rounded["reason"],
    )
    named = SSMClassifier(**{**tiny, "init": "s4d-inv"}).fit(X, y).init_report_
    assert named["applied"] == "s4d-inv" and "stood down" not in named["reason"]


def test_control_arm_uses_the_same_machinery_elsewhere():
    X, y = planted(n_per_class=20, length=128, freq=0.4)
    control = SSMClassifier(init="tdi-control", max_epochs=0, random_state=0).fit(X, y)
    assert control.task_spectrum_.kind.startswith("control")
    assert control.init_report_["chosen"] == "tdi-control"
    assert control.tdi_reports_ and control.tdi_reports_[0].n_aligned_modes > 0
    plain = SSMClassifier(init="tdi", tdi=TDIOptions(reliability=False), max_epochs=0, random_state=0)
    assert plain.fit(X, y).init_report_["channel_share"] == 1.0


def test_given_spectrum_aligns_with_one_series_per_class():
    from sktdi.tdi import TaskSpectrum

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2, 1, 64)), np.array(["a", "b"])
    given = TaskSpectrum.from_frequencies([0.3])
    model = SSMClassifier(**FAST, tdi=TDIOptions(spectrum=given), random_state=0).fit(X, y)
    assert model.init_report_["chosen"] == "tdi" and model.task_spectrum_ is given
    lin = SSMClassifier(**FAST, init="s4d-lin", random_state=0).fit(X, y)
    freqs, magnitude = SSMClassifier(**{**FAST, "max_epochs": 0}, tdi=TDIOptions(spectrum=given),
                                     random_state=0).fit(X, y).frequency_response()
    _, lin_magnitude = SSMClassifier(**{**FAST, "max_epochs": 0}, init="s4d-lin",
                                     random_state=0).fit(X, y).frequency_response()
    # gain matching keeps the total gain of S4D-Lin: the given band gets the larger share
    band = np.abs(freqs - 0.3) < 0.03
    share = magnitude[:, band].mean() / magnitude.mean()
    assert share > 1.1 * lin_magnitude[:, band].mean() / lin_magnitude.mean()
    # the aligned modes' own response (the base's kept modes peak at f = 0) peaks on the band
    assert abs(model.tdi_reports_[0].peaks[0].freq - 0.3) < 0.03
    assert lin.init_report_["requested"] == lin.init_report_["chosen"] == "s4d-lin"
    assert lin.init_report_["channel_share"] == 0.0
    assert clone(model).get_params()["tdi__spectrum"].kind == "given"


# ---- design-review defects: each test failed before its fix -----------------------------


@pytest.mark.parametrize("Estimator", [SSMClassifier, SSMRegressor])
def test_constructor_is_keyword_only(Estimator):
    with pytest.raises(TypeError):
        Estimator("tdi")


def _epoch_lrs(model):
    """The learning rate of the main (non-SSM) parameter group in each epoch, as the
    history records it (event_lr: the main group's rate, the user's lr)."""
    return list(model.history_[:, "event_lr"])


@pytest.mark.usefixtures("network_ground")
def test_warm_start_restarts_the_schedule_and_partial_fit_runs_at_lr():
    X, y = planted(n_per_class=10)
    clf = SSMClassifier(**FAST, warm_start=True, random_state=0).fit(X, y)
    first = _epoch_lrs(clf)
    assert first[0] == pytest.approx(clf.lr) and first[-1] < 0.2 * clf.lr  # a cosine over 5
    clf.fit(X, y)
    second = _epoch_lrs(clf)[5:]
    np.testing.assert_allclose(second, first)  # the whole schedule again, not its tail
    online = SSMClassifier(**FAST, random_state=0)
    for _ in range(7):  # more calls than max_epochs
        online.partial_fit(X, y)
    np.testing.assert_allclose(_epoch_lrs(online), [online.lr] * 7)


def test_cross_parameter_checks_are_never_silent():
    X, y = planted(n_per_class=10)
    # an int patience with nothing that holds series out, whatever the data: the network
    # alone ("auto" holds none out without the fast path), or an explicit 0
    with pytest.raises(ValueError, match=r"only on top of the fast path.*\(fast_path=False\)"):
        SSMClassifier(**NETWORK, n_iter_no_change=3).fit(X, y)
    with pytest.raises(ValueError, match="validation_fraction > 0"):
        SSMClassifier(**FAST, n_iter_no_change=3, validation_fraction=0).fit(X, y)
    with pytest.raises(ValueError, match="leaves out \\(prefix_weight=0.5 trains"):
        SSMClassifier(**FAST, n_iter_no_change=3, prefix_weight=0.5).fit(X, y)
    for params in ({"validation_fraction": 0.2}, {"validation_fraction": 0.2, "n_iter_no_change": 2}):
        with pytest.raises(ValueError, match="partial_fit"):
            SSMClassifier(**FAST, **params).partial_fit(X, y)
    from sktdi.tdi import TaskSpectrum

    given = TaskSpectrum.from_frequencies([0.2])
    with pytest.warns(UserWarning, match="tdi.spectrum is ignored"):
        SSMClassifier(**FAST, init="s4d-inv", tdi=TDIOptions(spectrum=given)).fit(X, y)
    with pytest.raises(ValueError, match="d_state must be even"):
        SSMClassifier(**{**FAST, "d_state": 7}).fit(X, y)


def test_fit_leaves_global_rng_states_untouched():
    X, y = planted(n_per_class=10)
    np.random.seed(7)
    torch.manual_seed(7)
    numpy_state, torch_state = np.random.get_state()[1].copy(), torch.get_rng_state().clone()
    clf = SSMClassifier(**FAST, random_state=0).fit(X, y)
    clf.predict(X)
    SSMRegressor(**FAST, random_state=0).partial_fit(X, y.astype(float))
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    assert torch.equal(torch.get_rng_state(), torch_state)


def test_random_streams_are_independent():
    from sktdi.utils.seeding import random_streams

    streams = random_streams(0)
    assert len({streams.torch, streams.tdi, streams.split}) == 3
    # the TDI stream is not the torch seed: the alignment's draws do not replay the init's
    assert streams.tdi != streams.torch


def test_seeding_forks_every_cuda_device(monkeypatch):
    from sktdi.utils import seeding as _seeding

    forked = {}

    class Recorder:
        def __init__(self, devices):
            forked["devices"] = list(devices)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 3)
    monkeypatch.setattr(torch.random, "fork_rng", lambda devices: Recorder(devices))
    monkeypatch.setattr(torch, "manual_seed", lambda seed: None)
    with _seeding.seeded(0):
        pass
    assert forked["devices"] == [0, 1, 2]  # not only the current device


def test_training_module_stays_float32_and_inference_precision_is_explicit():
    X, y = planted(n_per_class=10)
    clf = SSMClassifier(**NETWORK, random_state=0).fit(X, y)
    assert {p.dtype for p in clf.net_.module_.parameters()} == {torch.float32}
    proba64 = clf.predict_proba(X)
    assert proba64.dtype == np.float64
    # a series' prediction does not depend on its batch neighbours
    np.testing.assert_allclose(clf.predict_proba(X[:3]), proba64[:3], rtol=1e-12, atol=1e-14)
    assert {p.dtype for p in clf.net_.module_.parameters()} == {torch.float32}  # not flipped
    weights = clf.net_.module_.head.weight.detach().clone()
    clf.set_params(warm_start=True).fit(X, y)  # training goes on from the float32 weights
    assert not torch.equal(weights, clf.net_.module_.head.weight)
    fast = clone(clf).set_params(inference_dtype="float32", warm_start=False).fit(X, y)
    assert fast.predict_proba(X).dtype == np.float32
    np.testing.assert_allclose(fast.predict_proba(X), clf.set_params(warm_start=False).fit(X, y).predict_proba(X), atol=1e-5)
    with pytest.raises(ValueError, match="inference_dtype|MPS|mps"):
        SSMClassifier(**FAST, device="mps").fit(X, y)


def test_the_optimizer_groups_that_act():
    """One mechanism: skorch's param_groups patterns put exactly A, B and dt in a group with
    ssm_lr and no weight decay."""
    from sktdi.ssm import SSM_PARAMETER_NAMES

    X, y = planted(n_per_class=5)
    clf = SSMClassifier(
        **{**FAST, "max_epochs": 0}, training=TrainingOptions(ssm_lr=2e-3, weight_decay=0.05)
    ).fit(X, y)
    module, optimizer = clf.net_.module_, clf.net_.optimizer_
    names = {id(p): n for n, p in module.named_parameters()}
    *ssm_groups, rest = optimizer.param_groups  # skorch: one group per name pattern
    ssm_params = [p for group in ssm_groups for p in group["params"]]
    assert {names[id(p)].rsplit(".", 1)[-1] for p in ssm_params} == set(SSM_PARAMETER_NAMES)
    assert all(g["lr"] == 2e-3 and g["weight_decay"] == 0.0 for g in ssm_groups)
    assert rest["lr"] == clf.lr and rest["weight_decay"] == 0.05
    assert len(ssm_params) + len(rest["params"]) == len(names)


def test_tdi_options_are_one_object_everywhere():
    """Every estimator that runs TDI holds the options as one ``tdi`` parameter, and
    scikit-learn's nested routing reaches its fields (from the default None too)."""
    from sktdi import SpectralAlignmentTransformer, SpectralRidgeClassifier
    from sktdi.sktime import SktimeSSMClassifier

    for Estimator in (SSMClassifier, SSMRegressor, SpectralAlignmentTransformer,
                      SpectralRidgeClassifier, SktimeSSMClassifier):
        params = Estimator().get_params()
        assert params["tdi"] is None, Estimator
        assert not {name for name in params if name.startswith("tdi_")}, Estimator
        routed = Estimator().set_params(tdi__spread=0.5, tdi__max_peaks=2)
        assert routed.tdi == TDIOptions(spread=0.5, max_peaks=2), Estimator
        assert routed.get_params()["tdi__spread"] == 0.5
    X, y = planted(n_per_class=10)
    search = GridSearchCV(
        SSMClassifier(**{**FAST, "max_epochs": 0}, random_state=0),
        {"tdi__spread": [0.0, 0.5], "tdi__max_peaks": [1, 4]},
        cv=2,
        error_score="raise",
    ).fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    assert search.best_estimator_.tdi.spread in (0.0, 0.5)


def test_option_groups_are_validated_and_cloned():
    X, y = planted(n_per_class=5)
    with pytest.raises(ValueError, match="'spread' parameter of TDIOptions"):
        SSMClassifier(**FAST, tdi=TDIOptions(spread=2.0)).fit(X, y)
    with pytest.raises(ValueError, match="'augment' parameter of TrainingOptions"):
        SSMClassifier(**FAST, training=TrainingOptions(augment="rotate")).fit(X, y)
    with pytest.raises(ValueError, match="'tdi' parameter of SSMClassifier"):
        SSMClassifier(**FAST, tdi={"spread": 0.5}).fit(X, y)
    options = TDIOptions(spread=0.5)
    model = SSMClassifier(tdi=options)
    copy = clone(model)
    assert copy.tdi == options and copy.tdi is not options  # clone copies the group
    copy.set_params(tdi__spread=0.1)
    assert options.spread == 0.5  # the original is left alone


def test_set_params_of_a_group_set_to_none_in_the_same_call():
    """``set_params(tdi=None, tdi__spread=0.5)`` routes the field into the group's defaults
    (it raised AttributeError on None), as a field of a None group does."""
    from sktdi import SpectralAlignmentTransformer

    for Estimator in (SSMClassifier, SpectralAlignmentTransformer):
        model = Estimator(tdi=TDIOptions(max_peaks=2)).set_params(tdi=None, tdi__spread=0.5)
        assert model.tdi == TDIOptions(spread=0.5), Estimator
    model = SSMClassifier().set_params(training=None, training__augment="jitter")
    assert model.training == TrainingOptions(augment="jitter")


def test_a_failed_set_params_leaves_the_parameters_as_they_were():
    options = TDIOptions(spread=0.5)
    model = SSMClassifier(d_model=8, tdi=options)
    for bad in (
        {"tdi__no_such_field": 1},
        {"tdi__spread": 0.1, "tdi__no_such_field": 1},  # a valid field, then a bad one
        {"d_model": 16, "no_such_parameter": 1},
        {"tdi": None, "tdi__max_peaks": 2, "training__no_such_field": 1},
    ):
        with pytest.raises(ValueError, match="Invalid parameter"):
            model.set_params(**bad)
        assert model.d_model == 8 and model.tdi is options and model.training is None, bad
        assert options == TDIOptions(spread=0.5), bad  # the group's own fields too
    unset = SSMClassifier()
    with pytest.raises(ValueError, match="Invalid parameter"):
        unset.set_params(tdi__no_such_field=1)
    assert unset.tdi is None  # not the defaults' object left behind


def test_a_group_set_to_its_defaults_after_fit_still_saves(tmp_path):
    """None means the group's defaults: setting a field to its default value after a fit
    with ``tdi=None`` (or ``tdi=None`` after one with ``TDIOptions()``) changes no model,
    so saving is not refused; another value still is."""
    import sktdi
    from sktdi import SpectralAlignmentTransformer

    X = np.random.default_rng(0).normal(size=(20, 16))
    bank = SpectralAlignmentTransformer(n_filters=4, init="s4d-lin", random_state=0).fit(X)
    bank.set_params(tdi__spread=TDIOptions().spread)  # the default
    bank.save(tmp_path / "a.sktdi")
    np.testing.assert_array_equal(sktdi.load(tmp_path / "a.sktdi").transform(X), bank.transform(X))
    explicit = SpectralAlignmentTransformer(
        n_filters=4, init="s4d-lin", random_state=0, tdi=TDIOptions()
    ).fit(X)
    explicit.set_params(tdi=None).save(tmp_path / "b.sktdi")
    bank.set_params(tdi__spread=0.75)
    with pytest.raises(ValueError, match=r"changed since fit: tdi=TDIOptions\(spread=0.75\) now"):
        bank.save(tmp_path / "c.sktdi")


def _reproducing_tdi():
    """The reviewer's TDI settings, the defaults then, pinned: spread modes that tile the
    band (one per channel at d_state=8, decaying by π/2 a step)."""
    from sktdi.tdi import TaskSpectrum

    return TDIOptions(
        spectrum=TaskSpectrum.from_frequencies([0.3]), spread=0.25, coverage="tiled"
    )


def test_a_narrow_network_aligned_to_a_given_band_trains_to_a_finite_loss():
    """The reproduction of issue 37: TDI's spread modes decay to subnormal float32 magnitudes
    within the kernel, whose gradient was infinite; the first step made the SSM parameters
    NaN, and predict_proba returned NaN with predict's labels, without a word."""
    from sktdi.datasets import planted_frequency_task

    X, y = planted_frequency_task(6)
    clf = SSMClassifier(
        tdi=_reproducing_tdi(), d_model=8, n_layers=1, d_state=8, max_epochs=5, random_state=0,
        device="cpu",
    ).fit(X, y)
    assert np.isfinite([epoch["train_loss"] for epoch in clf.history_]).all()
    assert np.isfinite(clf.predict_proba(X)).all()


@pytest.mark.parametrize("with_lengths", [False, True])
def test_a_fit_on_long_series_hands_back_the_heaps_free_memory_each_epoch(
    monkeypatch, with_lengths
):
    """Where the network recomputes its block outputs (long series on a CPU), every epoch
    ends by returning malloc's free memory to the system; shorter series, and networks that
    never recompute, keep it for the next batch."""
    from sktdi.ssm import conv_ops
    from sktdi.utils import memory

    released = []
    monkeypatch.setattr(memory, "release_freed_memory", lambda: released.append(1) or True)
    X, y = planted(n_per_class=6, length=16)
    lengths = np.full(len(X), 16) if not with_lengths else np.r_[np.full(len(X) - 1, 16), 9]
    params = dict(d_model=4, n_layers=3, d_state=4, max_epochs=3, random_state=0, device="cpu",
                  fast_path=False)
    SSMClassifier(**params).fit(X, y, lengths=lengths)
    assert released == []  # short series
    monkeypatch.setattr(conv_ops, "MMAP_THRESHOLD_BYTES", 1)  # every block output is "long"
    SSMClassifier(**params).fit(X, y, lengths=lengths)
    assert len(released) == 3  # once an epoch
    SSMClassifier(**params, n_estimators=2).fit(X, y, lengths=lengths)
    assert len(released) == 6  # an ensemble of such networks too
    SSMClassifier(**params, network="s4d").fit(X, y, lengths=lengths)
    assert len(released) == 6  # an S4D network keeps its outputs: nothing to hand back


@pytest.mark.usefixtures("network_ground")
@pytest.mark.parametrize("Estimator", [SSMClassifier, SSMRegressor])
def test_a_diverging_training_is_an_error_that_names_its_settings(Estimator):
    """A loss that becomes NaN or infinite stops the fit with an error in plain words: what
    diverged, the settings it diverged with, what to try; the model is left as before."""
    from sktdi import TrainingDivergedError

    X, y = planted(n_per_class=12, length=32)
    target = y if Estimator is SSMClassifier else X[:, -4:].mean(axis=1)
    model = Estimator(
        network="s4d", d_model=8, n_layers=1, d_state=8, max_epochs=3, batch_size=8,
        lr=1e20, training=TrainingOptions(grad_clip=None), random_state=0, device="cpu",
    )
    with pytest.raises(TrainingDivergedError) as caught:
        model.fit(X, target)
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    diverged = r"training diverged: the training loss was (nan|inf) at epoch 1, batch 2"
    assert re.search(diverged, message)
    for setting in ("lr=1e+20", "d_model=8", "d_state=8", "n_layers=1", "grad_clip=None",
                    "init='tdi'"):
        assert setting in message, setting
    assert "lower lr" in message and "Traceback" not in message
    assert not hasattr(model, "net_")  # as before the fit


@pytest.mark.usefixtures("network_ground")
def test_weights_made_non_finite_by_the_last_step_are_an_error(monkeypatch):
    """One batch, one epoch: the only loss is computed before the step that breaks the
    weights, so the check after training catches it. The step is broken by a NaN gradient
    of the kernel's exponential, as torch.polar's gradient broke it before issue 37 (infinite
    at subnormal magnitudes: on some CPUs only, so the test no longer relies on them)."""
    import sktdi.ssm.kernel
    from sktdi import TrainingDivergedError
    from sktdi.datasets import planted_frequency_task

    class NaNGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return torch.exp(z)

        @staticmethod
        def backward(ctx, grad):
            return torch.full_like(grad, float("nan"))

    monkeypatch.setattr(sktdi.ssm.kernel, "_complex_exp", NaNGradient.apply)
    X, y = planted_frequency_task(6)
    model = SSMClassifier(
        tdi=_reproducing_tdi(), d_model=8, n_layers=1, d_state=8, max_epochs=1, batch_size=64,
        random_state=0, device="cpu",
    )
    with pytest.raises(TrainingDivergedError, match="weights became NaN or infinite") as caught:
        model.fit(X, y)
    assert "TDI aligned 2 channels" in str(caught.value)


def test_estimators_have_at_most_27_parameters():
    # 25 until the raw-data study (docs/raw_data.md) measured a reason for input_scaling: each
    # series' own scaling where gains and offsets vary, a causal one for streams, and one
    # scale per channel where the amplitude is the signal; 27 since the one-model study
    # (docs/one_model.md) for fast_path: a model of prefixes (streams) needs the network alone
    from sktdi import SpectralAlignmentTransformer, SpectralRidgeClassifier, SpectralRidgeRegressor
    from sktdi.sktime import SktimeSSMClassifier

    for Estimator in (SSMClassifier, SSMRegressor, SpectralAlignmentTransformer,
                      SpectralRidgeClassifier, SpectralRidgeRegressor, SktimeSSMClassifier):
        assert len(Estimator().get_params(deep=False)) <= 27, Estimator


# ---- threads, verbose output, validation split checks --------------------------------------


def _threads_seen_in_forward(monkeypatch=None):
    """Patch the forward of the classifier's default network to record torch's thread count
    at each call (training and prediction); returns the set it fills, and the undo (for use
    outside pytest)."""
    from sktdi.ssm import NETWORKS

    network = NETWORKS[SSMClassifier().network]
    seen = set()
    original = network.forward

    def spy(self, *args, **kwargs):
        seen.add(torch.get_num_threads())
        return original(self, *args, **kwargs)

    if monkeypatch is not None:
        monkeypatch.setattr(network, "forward", spy)
        return seen, None
    network.forward = spy
    return seen, lambda: setattr(network, "forward", original)


@pytest.mark.usefixtures("network_ground")
def test_n_threads_applies_inside_fit_and_predict_and_restores(monkeypatch):
    X, y = planted(n_per_class=5)
    previous = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        seen, _ = _threads_seen_in_forward(monkeypatch)
        clf = SSMClassifier(**FAST, n_threads=1, random_state=0).fit(X, y)
        assert seen == {1}
        assert torch.get_num_threads() == 2  # the process's count is restored
        seen.clear()
        clf.predict(X)
        assert seen == {1} and torch.get_num_threads() == 2
        seen.clear()
        SSMClassifier(**FAST, random_state=0).fit(X, y)  # None, not in a worker: one thread
        assert seen == {1} and torch.get_num_threads() == 2
        with pytest.raises(ValueError, match="n_threads"):
            SSMClassifier(**FAST, n_threads=0).fit(X, y)
    finally:
        torch.set_num_threads(previous)


def test_torch_threads_restores_after_an_error_and_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    from sktdi.utils.threads import torch_threads

    previous = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with pytest.raises(RuntimeError), torch_threads(1):
            raise RuntimeError
        assert torch.get_num_threads() == 2
        # overlapping blocks in two threads: the last one out restores the caller's count
        import threading

        inside = threading.Barrier(2)

        def block():
            with torch_threads(1):
                inside.wait()
                return torch.get_num_threads()

        with ThreadPoolExecutor(2) as pool:
            assert list(pool.map(lambda _: block(), range(2))) == [1, 1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(previous)


def test_blas_threads_limits_numpys_blas_and_restores_it():
    """A stream's chunk runs numpy's products under blas_threads(n_threads)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")

    from sktdi.utils.threads import blas_threads

    def counts():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["user_api"] == "blas"]

    before = counts()
    with blas_threads(1):
        assert counts() and set(counts()) == {1}
    with pytest.raises(RuntimeError), blas_threads(1):
        raise RuntimeError
    assert counts() == before
    with blas_threads(None):
        assert counts() == before


def _fit_in_worker():
    """A small fit; the thread counts torch had inside it."""
    seen, undo = _threads_seen_in_forward()
    try:
        X, y = planted(n_per_class=5, length=16)
        # the network alone: on series this short the default trains no epoch (its fast path
        # alone), and a worker process does not see a test's monkeypatch
        SSMClassifier(**{**NETWORK, "max_epochs": 2}, random_state=0).fit(X, y)
    finally:
        undo()
    return sorted(seen)


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_default_threads_in_joblib_workers_are_the_workers_share(backend, monkeypatch):
    # joblib hands loky workers the caller's OMP_NUM_THREADS when it is set (the user's
    # explicit choice); the default share is what this test is about
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    share = max(joblib.cpu_count() // 2, 1)
    previous = torch.get_num_threads()
    try:
        # the process's default, explicit: thread workers would inherit it before the fix
        torch.set_num_threads(max(joblib.cpu_count(), 2))
        results = joblib.Parallel(n_jobs=2, backend=backend)(
            joblib.delayed(_fit_in_worker)() for _ in range(2)
        )
        assert torch.get_num_threads() == max(joblib.cpu_count(), 2)
    finally:
        torch.set_num_threads(previous)
    for seen in results:
        assert seen and max(seen) <= share, (backend, results)


def test_resolve_n_threads_reads_the_workers_share(monkeypatch):
    from joblib._parallel_backends import LokyBackend

    from sktdi.utils.threads import resolve_n_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert resolve_n_threads(None) == 1  # not in a worker: one thread
    assert resolve_n_threads(2) == 2
    with joblib.parallel_config(backend=LokyBackend(nesting_level=1)):  # as inside a worker
        assert resolve_n_threads(None) == 3
        monkeypatch.delenv("OMP_NUM_THREADS")
        assert resolve_n_threads(None) == 1
        assert resolve_n_threads(4) == 4


@pytest.mark.usefixtures("network_ground")
def test_verbose_log_shows_the_users_lr_without_colour_codes(capsys):
    X, y = planted(n_per_class=5)
    clf = SSMClassifier(
        **{**FAST, "max_epochs": 3, "lr": 0.01},
        training=TrainingOptions(ssm_lr=0.001),
        validation_fraction=0.2,
        verbose=1,
    ).fit(X, y)
    out = capsys.readouterr().out
    assert "\x1b[" not in out  # piped (capsys is not a terminal): no ANSI colours
    header, _, first_row = out.splitlines()[:3]
    columns = dict(zip(header.split(), first_row.split()))
    assert float(columns["lr"]) == pytest.approx(0.01)  # the user's lr, not ssm_lr
    assert float(columns["ssm_lr"]) == pytest.approx(0.001)
    assert clf.history_[0, "event_lr"] == pytest.approx(0.01)
    constant = {**FAST, "max_epochs": 2, "lr": 0.02}
    SSMClassifier(**constant, fast_path=False, training=TrainingOptions(lr_schedule="constant"),
                  verbose=1).fit(X, y)
    header, _, first_row = capsys.readouterr().out.splitlines()[:3]
    assert float(dict(zip(header.split(), first_row.split()))["lr"]) == pytest.approx(0.02)


def test_verbose_colours_on_a_terminal_only(monkeypatch):
    from sktdi.deep_model.training import PlainWhenPipedPrintLog

    log = PlainWhenPipedPrintLog().initialize()
    row = {"epoch": 1, "train_loss": 0.5, "train_loss_best": True, "dur": 0.1}
    assert "\x1b[" not in log.table(row)
    monkeypatch.setattr("sktdi.deep_model.training._stdout_is_tty", lambda: True)
    assert "\x1b[" in log.table(row)


def test_verbose_2_piped_has_no_progress_bar(capsys):
    X, y = planted(n_per_class=5)
    clf = SSMClassifier(**{**NETWORK, "max_epochs": 2}, verbose=2).fit(X, y)
    captured = capsys.readouterr()
    assert "train_loss" in captured.out
    assert "\r" not in captured.out + captured.err and "it/s" not in captured.out + captured.err
    assert "progress" not in dict(clf.net_.callbacks_)


def test_validation_split_errors_name_validation_fraction():
    X, y = planted(n_per_class=10, labels=("a", "b"))
    X1, y1 = np.vstack([X, X[:1]]), np.append(y, "c")  # class "c": one series
    match = r"validation_fraction=0.2 .*class 'c' has only 1 series"
    with pytest.raises(ValueError, match=match):
        SSMClassifier(**FAST, validation_fraction=0.2).fit(X1, y1)
    with pytest.raises(ValueError, match=match):  # labels as Python objects
        SSMClassifier(**FAST, validation_fraction=0.2).fit(X1, y1.astype(object))
    SSMClassifier(**FAST).fit(X1, y1)  # without a split it fits
    with pytest.raises(ValueError, match=r"validation_fraction=0.02 holds out 1 of 20 series"
                       r".*above 0.05 ") as raised:
        SSMClassifier(**FAST, validation_fraction=0.02).fit(X, y)
    # the bound it names is exact: just above it, the split is drawn (2 of 20 held out)
    assert "above 0.05 (it holds out ceil(validation_fraction × 20) series)" in str(raised.value)
    SSMClassifier(**FAST, validation_fraction=0.051).fit(X, y)
    with pytest.raises(ValueError, match=r"validation_fraction=0.99 leaves 0 of 20 series"):
        SSMClassifier(**FAST, validation_fraction=0.99).fit(X, y)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux-only")
@pytest.mark.parametrize("setting,expected", [(None, "True"), ("0", "False")])
def test_keep_freed_memory_applies_once_and_can_be_turned_off(setting, expected):
    """Run in a fresh interpreter: the thresholds are process state, set once."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "SKTDI_KEEP_FREED_MEMORY"}
    if setting is not None:
        env["SKTDI_KEEP_FREED_MEMORY"] = setting
    code = (
        "import platform; from sktdi.utils.memory import keep_freed_memory as k; "
        "glibc = platform.libc_ver()[0] == 'glibc'; "
        "print(k() if glibc else " + expected + ", k() == k())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [expected, "True"]


def _run_python(code: str, **env_changes) -> list[str]:
    """Run ``code`` in a fresh interpreter (thread settings are process state); its stdout
    split into words. ``env_changes``: a value sets the variable, None removes it."""
    import os
    import subprocess

    env = dict(os.environ)
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.split()


@pytest.mark.parametrize("guarded", [True, False])
def test_keep_torch_threads_keeps_the_users_count_when_numba_starts(guarded):
    """numba's OpenMP threading layer sets the OpenMP thread count, which torch shares, to
    NUMBA_NUM_THREADS (the CPU count by default) when it starts; keep_torch_threads gives
    torch the count the user set back. Unguarded, the start shows the mechanism (omp layer)."""
    pytest.importorskip("numba")
    code = (
        "import contextlib, torch, numba\n"
        "from sktdi.utils.threads import keep_torch_threads\n"
        "torch.set_num_threads(1)\n"
        # torch applies a count on a thread's first use, after which it is OpenMP's setting
        "assert torch.get_num_threads() == 1\n"
        f"with keep_torch_threads() if {guarded} else contextlib.nullcontext():\n"
        "    numba.get_num_threads()  # starts the threading layer, once per process\n"
        "print(torch.get_num_threads(), numba.threading_layer())\n"
    )
    # NUMBA_NUM_THREADS=2: the start asks for 2 threads even on a 1-CPU machine
    count, layer = _run_python(code, OMP_NUM_THREADS=None, NUMBA_NUM_THREADS="2")
    if guarded:
        assert count == "1"
    elif layer == "omp":
        assert count == "2"  # the mechanism the guard undoes
    else:  # pragma: no cover - tbb/workqueue layers leave OpenMP alone
        assert count == "1"


def test_minirocket_leaves_torch_threads_as_the_user_set_them():
    """OMP_NUM_THREADS=1: after a MiniRocket-path fit and predict torch still runs on 1
    thread, and so does the SSMClassifier fit after it (n_threads=None leaves torch's own
    count; before the fix numba had raised it to the CPU count, 40x slower on a busy machine)."""
    pytest.importorskip("sktime")
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "import numpy as np, torch\n"
        "from sktdi import SSMClassifier, SpectralRidgeClassifier\n"
        "rng = np.random.default_rng(0)\n"
        "X, y = rng.normal(size=(12, 2, 24)), np.repeat([0, 1], 6)\n"
        "before = torch.get_num_threads()\n"
        "model = SpectralRidgeClassifier(rocket='minirocket', n_filters=4, random_state=0)\n"
        "model.fit(X, y)\n"
        "after_fit = torch.get_num_threads()\n"
        "model.predict(X)\n"
        "after_predict = torch.get_num_threads()\n"
        "seen = set()\n"
        "torch.nn.modules.module.register_module_forward_pre_hook(\n"
        "    lambda module, args: seen.add(torch.get_num_threads()))\n"
        # the network's ground extended to these 24 steps, so that the fit runs an epoch on
        # top of its fast path (by default it would train none on series this short)
        "import sktdi.deep_model.on_fast_path as on_fast_path; on_fast_path.LONG_SERIES = 1\n"
        "SSMClassifier(network='s4d', d_model=4, n_layers=1, d_state=4, max_epochs=1,\n"
        "              random_state=0).fit(X, y)\n"
        "print(before, after_fit, after_predict, *sorted(seen))\n"
    )
    out = _run_python(code, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="2")
    assert out == ["1", "1", "1", "1"], out


def test_minirocket_asks_numba_for_no_more_threads_than_it_allows():
    """A loky worker runs torch on the user's OMP_NUM_THREADS (2) while numba there allows
    NUMBA_NUM_THREADS (1): MiniRocket's n_jobs was torch's count, and numba.set_num_threads(2)
    failed every fit ("The number of threads must be between 1 and 1"). A model fitted where
    numba allowed 2 (its MiniRocket's n_jobs=2, as a file from another machine holds it)
    predicts here too, in this process and in a worker, and predicting changes it not."""
    pytest.importorskip("sktime")
    code = (
        "import joblib, numpy as np\n"
        "from sktdi import SpectralRidgeClassifier\n"
        "rng = np.random.default_rng(0)\n"
        "y = np.repeat([0, 1], 10)\n"
        "X = rng.normal(size=(20, 1, 32)) + y[:, None, None] * np.sin(0.8 * np.arange(32))\n"
        "def fit_and_predict():\n"
        "    model = SpectralRidgeClassifier(n_filters=4, rocket='minirocket', random_state=0)\n"
        "    model.fit(X, y)\n"
        "    model.rocket_.n_jobs = 2\n"
        "    return model.score(X, y), model.rocket_.n_jobs\n"
        "# in one worker: numba compiles MiniRocket once (seconds), in the worker alone\n"
        "done = joblib.Parallel(n_jobs=2)(joblib.delayed(fit_and_predict)() for _ in range(1))\n"
        "print(*done[0])\n"
    )
    out = _run_python(code, OMP_NUM_THREADS="2", NUMBA_NUM_THREADS="1")
    assert float(out[0]) > 0.9 and out[1] == "2", out


def test_grid_search_n_jobs_2_where_omp_num_threads_exceeds_the_workers_share():
    """The issue's case (75): OMP_NUM_THREADS=2 set by the user (as clusters set it) and
    GridSearchCV(n_jobs=2) on two cores: loky passes the user's OMP_NUM_THREADS on to its
    workers, so torch runs a fit on 2 threads, but sets each worker's NUMBA_NUM_THREADS to
    its share, cpu_count() // 2 = 1. OMP_NUM_THREADS is one more than that share here, so
    that the case is the same on any machine of 2 cores or more."""
    import os

    pytest.importorskip("sktime")
    code = (
        "import numpy as np\n"
        "from sklearn.model_selection import GridSearchCV\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "from sktdi import SSMClassifier\n"
        "rng = np.random.default_rng(0)\n"
        "y = np.repeat([0, 1], 10)\n"
        "X = rng.normal(size=(20, 32)) + y[:, None] * np.sin(0.8 * np.arange(32))\n"
        "pipe = make_pipeline(StandardScaler(), SSMClassifier(\n"
        "    d_model=8, n_layers=1, d_state=8, max_epochs=1, random_state=0))\n"
        "# refit=False: the fits in the workers are the case; a refit here would add one\n"
        "search = GridSearchCV(pipe, {'ssmclassifier__init': ['tdi']}, cv=2, n_jobs=2,\n"
        "                      refit=False, error_score='raise').fit(X, y)\n"
        "print(*search.cv_results_['mean_test_score'])\n"
    )
    share = max((os.cpu_count() or 1) // 2, 1)
    out = _run_python(code, OMP_NUM_THREADS=str(share + 1), NUMBA_NUM_THREADS=None)
    assert len(out) == 1 and 0 <= float(out[0]) <= 1, out
