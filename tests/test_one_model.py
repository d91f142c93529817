"""The deep model on top of the fast path (issue 70): the stacking math against independent
computations, and the estimators' behaviour around it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from scipy.special import softmax
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge, RidgeClassifier

from sktdi import SpectralRidgeClassifier, SSMClassifier, SSMRegressor
from sktdi.deep_model.stacking import fit_temperature, ridge_logits, ridge_loo_outputs


def _task(n_per_class=12, length=48, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    t = np.arange(length)
    X = rng.normal(size=(len(y), 1, length))
    X[:, 0] += np.sin(2 * np.pi * (0.1 + 0.15 * y[:, None]) * t)
    return X, y


# ---- the math -------------------------------------------------------------------------------


@pytest.mark.parametrize("n_outputs", [1, 3])
def test_leave_one_out_outputs_are_those_of_refits_without_each_series(n_outputs):
    rng = np.random.default_rng(1)
    features = rng.normal(size=(15, 40)).astype(np.float32)  # more features than series
    targets = rng.normal(size=(15, n_outputs)).squeeze()
    alpha = 0.7
    loo = ridge_loo_outputs(features, targets, alpha)
    for i in range(15):
        keep = np.arange(15) != i
        refit = Ridge(alpha=alpha).fit(features[keep].astype(np.float64), targets[keep])
        expected = refit.predict(features[i : i + 1].astype(np.float64))[0]
        np.testing.assert_allclose(loo[i], expected, rtol=1e-6, atol=1e-8)


def test_leave_one_out_scores_of_a_ridge_classifier_match_its_refits():
    """The classifier's scores regress the ±1 class codes: for three classes, one column each."""
    rng = np.random.default_rng(2)
    features = rng.normal(size=(18, 30))
    y = np.repeat([0, 1, 2], 6)
    codes = np.where(y[:, None] == np.arange(3), 1.0, -1.0)  # (18, 3)
    loo = ridge_loo_outputs(features, codes, 2.0)
    for i in range(18):
        keep = np.arange(18) != i
        refit = RidgeClassifier(alpha=2.0).fit(features[keep], y[keep])
        np.testing.assert_allclose(loo[i], refit.decision_function(features[i : i + 1])[0],
                                   rtol=1e-6, atol=1e-8)


def test_ridge_logits_and_temperature():
    """The scale minimizes the cross-entropy on Platt's smoothed targets (true class
    1 - 1/(n+2)), found here on a grid."""
    np.testing.assert_array_equal(ridge_logits(np.array([0.5, -2.0])), [[-0.5, 0.5], [2.0, -2.0]])
    scores = np.array([[1.0, -1.0], [-1.0, 1.0], [0.4, -0.4], [-0.3, 0.3], [0.8, -0.8]])
    codes = np.array([0, 1, 0, 0, 1])
    grid = np.exp(np.linspace(np.log(1e-2), np.log(1e2), 4001))
    for labels in (codes, np.array([0, 1, 0, 1, 0])):  # the second separable
        smoothed = np.where(np.eye(2)[labels] == 1, 1 - 1 / 7, 1 / 7)
        losses = [-(smoothed * np.log(softmax(g * scores, axis=1))).sum(axis=1).mean()
                  for g in grid]
        t = fit_temperature(scores, labels)
        assert abs(np.log(t) - np.log(grid[int(np.argmin(losses))])) < 0.01


def test_temperature_is_finite_on_separable_scores():
    """Scores that separate the classes (a small set's leave-one-out scores often do) give a
    finite scale: the plain cross-entropy's minimum was at its bound, 100."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=30)
    scores = np.eye(3)[codes] * 2 - 1 + rng.normal(scale=0.1, size=(30, 3))  # separable
    t = fit_temperature(scores, codes)
    top = softmax(t * scores, axis=1).max(axis=1)
    assert t < 50 and top.max() < 1 - 1 / 64


# ---- the estimators -------------------------------------------------------------------------


def test_before_training_the_model_is_its_fast_path():
    """The network's last layer starts at zero: with no epoch, the model's probabilities are
    the fast path's scores through the fitted temperature, computed here from its own
    decision_function."""
    X, y = _task()
    model = SSMClassifier(max_epochs=0, d_model=8, random_state=0).fit(X, y)
    assert isinstance(model.fast_path_, SpectralRidgeClassifier)
    scores = model.fast_path_.decision_function(X)
    expected = softmax(model.fast_path_scale_ * ridge_logits(scores), axis=1)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X), model.fast_path_.predict(X))


def test_the_network_is_trained_against_leave_one_out_outputs(monkeypatch):
    """The offsets the network trains on are the ridge's outputs for series it was fitted
    without (refits here), not its fitted outputs (which a ridge with more features than
    series fits exactly)."""
    from sktdi.deep_model import base

    seen = {}
    original = base._BaseSSM._fit_fast_path

    def spy(self, *args, **kwargs):
        seen["offsets"] = offsets = original(self, *args, **kwargs)
        return offsets

    monkeypatch.setattr(base._BaseSSM, "_fit_fast_path", spy)
    X, y = _task(n_per_class=8)
    model = SSMClassifier(max_epochs=0, d_model=8, random_state=0).fit(X, y)
    fast = model.fast_path_
    features = fast._features(X, None).astype(np.float64)
    alpha = float(fast.ridge_.alpha_)
    loo = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        refit = RidgeClassifier(alpha=alpha).fit(features[keep], y[keep])
        loo.append(refit.decision_function(features[i : i + 1])[0])
    expected = model.fast_path_scale_ * ridge_logits(np.array(loo))
    np.testing.assert_allclose(seen["offsets"], expected, rtol=1e-4, atol=1e-5)
    fitted = model.fast_path_scale_ * ridge_logits(fast.decision_function(X))
    assert not np.allclose(seen["offsets"], fitted, atol=1e-3)


def test_off_the_networks_ground_the_model_is_its_fast_path_and_trains_no_epoch(monkeypatch):
    """Series shorter than LONG_SERIES steps, or more than FEW_PER_CLASS series per class: no
    epoch is trained, the report says why, and predicting (which then skips the network) gives
    the fast path's scores through the temperature, as the network's zero head would."""
    from sktdi.deep_model import on_fast_path

    X, y = _task(n_per_class=20)
    model = SSMClassifier(d_model=8, n_layers=1, random_state=0).fit(X, y)
    report = model.fast_path_report_
    assert model.n_epochs_ == 0 and report["model"] == "fast path" and not report["network_adds"]
    # no epoch trained: the report holds out nothing and monitors no stop (a new user's trial)
    assert report["validation_fraction"] == 0.0 and report["n_iter_no_change"] is None
    assert "48 time steps" in report["reason"] and "shorter than the network's ground (1000" \
        in report["reason"]
    scores = model.fast_path_.decision_function(X)
    expected = softmax(model.fast_path_scale_ * ridge_logits(scores), axis=1)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-5, atol=1e-8)
    # the network's forward pass, as a trained model runs it, gives the same outputs
    monkeypatch.setattr(type(model), "_head_is_zero", lambda self: False)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-5, atol=1e-8)
    monkeypatch.setattr(on_fast_path, "LONG_SERIES", 1)
    monkeypatch.setattr(on_fast_path, "FEW_PER_CLASS", 10)
    many = SSMClassifier(d_model=8, n_layers=1, random_state=0).fit(X, y)
    assert many.n_epochs_ == 0 and "20 series per class (the median), more than" \
        in many.fast_path_report_["reason"]


@pytest.mark.usefixtures("network_ground")
def test_where_no_epoch_beats_the_fast_path_the_model_ends_as_it_started():
    """A task the fast path solves: early stopping counts its validation loss as epoch 0,
    no epoch beats it, and the network's last layer is restored to zero."""
    X, y = _task(n_per_class=20)
    model = SSMClassifier(d_model=8, n_layers=3, random_state=0).fit(X, y)
    report = model.fast_path_report_
    assert report["validation_fraction"] == 0.2
    if report["best_epoch"] == 0:
        assert not report["network_adds"]
        assert model.n_epochs_ == 10  # patience, then stop
        head = model.net_.module_.head
        assert torch.count_nonzero(head.weight) == 0 and torch.count_nonzero(head.bias) == 0
        np.testing.assert_array_equal(model.predict(X), model.fast_path_.predict(X))
    else:  # an epoch beat it on the held-out series: that epoch's weights are kept
        assert report["best_valid_loss"] < report["fast_path_valid_loss"]
    assert report["fast_path_valid_loss"] >= 0 and model.n_epochs_ < model.max_epochs


@pytest.mark.usefixtures("network_ground")
def test_too_few_series_to_hold_out_train_the_network_alone():
    """4 series per class, 5 classes (the long-series study's size), on the network's
    ground: a fifth held out would be 4 series, fewer than 2 per class. The model is the
    network alone, as fast_path=False fits it from the same seed (a check on folds of half
    the series chose the fast path where the network alone was far ahead: issue 76)."""
    X, y = _task(n_per_class=4, n_classes=5)
    params = dict(d_model=8, n_layers=3, max_epochs=3, random_state=0)
    kept = SSMClassifier(**params).fit(X, y)
    alone = SSMClassifier(**params, fast_path=False).fit(X, y)
    report = kept.fast_path_report_
    assert report["validation_fraction"] == 0.0
    assert "too few to hold out" in report["reason"] and "the network alone" in report["reason"]
    assert kept.fast_path_ is None and report["model"] == "network"
    assert kept.n_epochs_ == 3 and report["network_adds"]
    np.testing.assert_allclose(kept.predict_proba(X), alone.predict_proba(X), rtol=0, atol=0)


@pytest.mark.usefixtures("network_ground")
def test_the_report_says_how_the_networks_training_ended(monkeypatch):
    """fast_path_report_'s reason says how many epochs a patience stop trained, and where
    nothing was held out, that the network was not checked against the fast path (a new
    user's trial: it said the best epoch had beaten the fast path on held-out series)."""
    from sktdi.deep_model import training

    monkeypatch.setattr(training.StartFromFastPath, "_is_score_improved", lambda self, s: False)
    X, y = _task(n_per_class=20)
    params = dict(d_model=8, n_layers=1, max_epochs=20, random_state=0)
    asked = SSMClassifier(**params, n_iter_no_change=4).fit(X, y)
    report = asked.fast_path_report_
    assert asked.n_epochs_ == 4 and report["model"] == "fast path" and report["best_epoch"] == 0
    assert report["reason"] == (
        "no epoch of the 4 trained beat the fast path on the held-out series (training stops "
        "after 4 epochs without a better one, or at max_epochs): the fast path alone")
    np.testing.assert_array_equal(asked.predict(X), asked.fast_path_.predict(X))
    unchecked = SSMClassifier(**{**params, "max_epochs": 2}, validation_fraction=0).fit(X, y)
    assert unchecked.fast_path_report_["reason"] == (
        "no series held out (validation_fraction=0): the network trained on every series "
        "for 2 epochs, not checked against the fast path")


@pytest.mark.usefixtures("network_ground")
def test_a_best_epoch_within_chance_of_the_fast_path_is_not_kept(monkeypatch):
    """The best epoch on the held-out fifth is kept only where it beats the fast path by more
    than chance (beats_by_margin); otherwise the model ends as its fast path, and says so."""
    from sktdi.deep_model import training
    from sktdi.deep_model.training import beats_by_margin

    start = np.array([0.6, 0.5, 0.7, 0.4, 0.9, 0.3])
    assert beats_by_margin(start, start - 0.2)[0]  # every series better
    assert not beats_by_margin(start, start + np.array([-0.5, 0.4, -0.5, 0.4, -0.1, 0.2]))[0]
    X, y = _task(n_per_class=20)
    params = dict(d_model=8, n_layers=1, max_epochs=6, n_iter_no_change=3, random_state=0)
    monkeypatch.setattr(training, "beats_by_margin", lambda *a: (False, 0.01, 0.1))
    model = SSMClassifier(**params).fit(X, y)
    report = model.fast_path_report_
    assert report["best_epoch"] == 0 and not report["network_adds"]
    scores = model.fast_path_.decision_function(X)
    expected = softmax(model.fast_path_scale_ * ridge_logits(scores), axis=1)
    # an epoch that beat it within chance is reverted; none that beat it, restored anyway
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-5, atol=1e-9)


@pytest.mark.usefixtures("network_ground")
def test_an_int_patience_stops_early_on_the_split_that_auto_holds_out():
    """n_iter_no_change=2 with validation_fraction="auto" (it was refused, "needs a
    validation split"): on the fast path "auto" holds out its share, the network stops after
    2 epochs that do not beat the best validation loss (the fast path's counted as epoch 0),
    and fast_path_report_ says what the fit chose."""
    X, y = _task(n_per_class=20)
    model = SSMClassifier(d_model=8, n_layers=1, max_epochs=30, n_iter_no_change=2,
                          random_state=0).fit(X, y)
    report = model.fast_path_report_
    assert report["validation_fraction"] == 0.2 and report["n_iter_no_change"] == 2
    assert "valid_loss" in model.history_[-1]
    assert model.n_epochs_ == report["best_epoch"] + 2 < 30  # stopped at the patience's end
    default = SSMClassifier(d_model=8, n_layers=1, max_epochs=1, random_state=0).fit(X, y)
    assert default.fast_path_report_["n_iter_no_change"] == 10  # "auto"'s patience, resolved


@pytest.mark.usefixtures("network_ground")
def test_an_int_patience_where_auto_holds_nothing_out_trains_on_all_and_says_so():
    """Too few series for "auto" to hold any out (the long-series study's size): the fit
    does what "auto" does for the default patience (the network alone on every series for
    max_epochs), and warns, from the caller's line,
    that the int was not applied; the report says so."""
    X, y = _task(n_per_class=4, n_classes=5)
    with pytest.warns(UserWarning, match=r"n_iter_no_change=2 is not applied.*too few") as seen:
        model = SSMClassifier(d_model=8, n_layers=3, max_epochs=3, n_iter_no_change=2,
                              random_state=0).fit(X, y)
    assert {warning.filename for warning in seen} == {__file__}
    report = model.fast_path_report_
    assert report["validation_fraction"] == 0.0 and report["n_iter_no_change"] is None
    assert "n_iter_no_change=2 was not applied" in report["reason"]
    assert model.n_epochs_ == 3 and not any("valid_loss" in row for row in model.history_)
    # an explicit share holds series out regardless, with its own errors where it cannot
    with pytest.raises(ValueError, match="validation_fraction=0.2 holds out 4 of 20 series"):
        SSMClassifier(d_model=8, n_layers=3, max_epochs=3, n_iter_no_change=2,
                      validation_fraction=0.2, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default patience follows "auto" silently
        # (one epoch of the network alone may learn nothing, and say so: not the point here)
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        SSMClassifier(d_model=8, n_layers=3, max_epochs=1, random_state=0).fit(X, y)


def test_models_for_prefixes_leave_the_fast_path_out_and_say_why_elsewhere():
    X, y = _task()
    streaming = SSMClassifier(d_model=8, max_epochs=1, prefix_weight=0.5, random_state=0)
    assert streaming.fit(X, y).fast_path_ is None
    streaming.stream(1)  # as before the fast path
    whole = SSMClassifier(d_model=8, max_epochs=1, input_scaling="channel", random_state=0)
    whole.fit(X, y)
    with pytest.raises(ValueError, match="fast_path=False"):
        whole.stream(1)
    default = SSMClassifier(d_model=8, max_epochs=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"'series\+scale' scales each series.*prefix_weight > 0"
                       r".*fast_path=False with input_scaling='channel'"):
        default.stream(1)  # both obstacles named: its scaling and its fast path
    with pytest.raises(ValueError, match="fast_path=False with input_scaling='channel'"):
        default.predict_proba_over_time(X[:2])
    with pytest.raises(ValueError, match="computed from whole series"):
        whole.predict_proba_over_time(X[:2])
    with pytest.raises(ValueError, match="fast_path=True, but prefix_weight=0.5"):
        SSMClassifier(fast_path=True, prefix_weight=0.5).fit(X, y)
    with pytest.raises(ValueError, match="fast_path=True, but partial_fit"):
        SSMClassifier(fast_path=True, d_model=8).partial_fit(X, y)


def test_without_the_fast_path_the_network_is_as_before():
    """fast_path=False: no fast path, no held-out series, no early stopping (the defaults
    before issue 70), and the same network from the same seed as an explicit request for it."""
    X, y = _task()
    plain = SSMClassifier(d_model=8, max_epochs=2, fast_path=False, random_state=0).fit(X, y)
    explicit = SSMClassifier(d_model=8, max_epochs=2, fast_path=False, validation_fraction=0.0,
                             n_iter_no_change=None, random_state=0).fit(X, y)
    assert plain.fast_path_ is None and plain.fast_path_report_ is None
    np.testing.assert_array_equal(plain.predict_proba(X), explicit.predict_proba(X))


def test_the_regressor_starts_from_its_fast_path():
    rng = np.random.default_rng(0)
    amplitude = rng.uniform(0, 1, size=60)
    X = rng.normal(size=(60, 1, 64)) + amplitude[:, None, None] * np.sin(0.6 * np.arange(64))
    model = SSMRegressor(max_epochs=0, random_state=0).fit(X, amplitude)
    np.testing.assert_allclose(model.predict(X), model.fast_path_.predict(X), rtol=1e-6,
                               atol=1e-9)
    trained = SSMRegressor(random_state=0).fit(X, amplitude)
    # off the network's ground (64 steps): its fast path, nothing held out
    assert trained.fast_path_report_["model"] == "fast path"
    assert trained.fast_path_report_["validation_fraction"] == 0.0
    assert trained.score(X, amplitude) > 0.5


def test_a_model_with_its_fast_path_saves_and_loads_exactly(tmp_path):
    import sktdi

    X, y = _task()
    model = SSMClassifier(d_model=8, max_epochs=2, random_state=0).fit(X, y)
    path = tmp_path / "model.sktdi"
    model.save(path)
    loaded = sktdi.load(path)
    assert type(loaded.fast_path_) is SpectralRidgeClassifier
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.fast_path_report_ == model.fast_path_report_


def test_a_fast_path_fitted_on_one_length_names_what_takes_other_lengths():
    """sktime's MiniRocket fitted on series of one length takes that length only: the model
    says so, and names the two ways out; fitted on series of unequal length, it takes any."""
    X, y = _task()
    model = SSMClassifier(d_model=8, max_epochs=0, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"fitted on series of one length \(48\).* got series "
                       r"of 30 to 48 time steps.*fast_path=False"):
        model.predict(X, lengths=np.r_[np.full(12, 48), np.full(12, 30)])
    # without lengths=, the length error says the same, not that any length would do
    with pytest.raises(ValueError, match=r"fitted on length 48: SSMClassifier fitted on series "
                       r"of one length adds its fast path's MiniRocket.*fast_path=False"):
        model.predict(X[:, :, :30])
    ragged = [x[:, : 40 + i % 8] for i, x in enumerate(X)]
    unequal = SSMClassifier(d_model=8, max_epochs=0, random_state=0).fit(ragged, y)
    assert unequal.predict([x[:, :30] for x in X]).shape == (24,)


def test_the_fast_paths_advice_on_raw_amplitudes_comes_from_the_model():
    """A gain per recording that relates to nothing in the target: the fast path's warning,
    which names input_scaling='series+scale' (this model's option too), is said by the model
    the user fitted, at the user's line."""
    import warnings

    X, y = _task(n_per_class=20)
    gains = 10 ** np.random.default_rng(1).uniform(-2, 2, size=(len(X), 1, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SSMClassifier(d_model=8, max_epochs=0, input_scaling="channel",
                      random_state=0).fit(X * gains, y)
    ours = [w for w in caught if "input_scaling='series+scale'" in str(w.message)]
    assert len(ours) == 1 and str(ours[0].message).startswith("SSMClassifier: ")
    assert ours[0].filename == __file__
