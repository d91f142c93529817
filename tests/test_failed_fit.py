"""A failed ``fit`` (``partial_fit``) leaves the estimator exactly as it was: a fitted model
still predicts as before, a never-fitted one is still not fitted (sktdi.utils.validation's
``restore_on_error``).

Before: the input checks recorded the new input (``n_features_in_``, ``n_channels_``,
``classes_``, the padding record) before a later check failed, and the model was half of one
fit and half of another: ``predict`` raised IndexError, or predicted with mixed state (and
``save`` kept it), or a never-fitted model raised AttributeError instead of NotFittedError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import sktdi

SSM = dict(d_model=4, n_layers=1, d_state=4, max_epochs=1, batch_size=8, random_state=0)
BANK = dict(n_filters=4, d_state=4, random_state=0)
PARAMS = {
    "SSMClassifier": SSM,
    "SSMRegressor": SSM,
    "SpectralRidgeClassifier": BANK,
    "SpectralRidgeRegressor": BANK,
    "SpectralAlignmentTransformer": BANK,
}
OUTPUT = {
    "SSMClassifier": "predict_proba",
    "SSMRegressor": "predict",
    "SpectralRidgeClassifier": "decision_function",
    "SpectralRidgeRegressor": "predict",
    "SpectralAlignmentTransformer": "transform",
}
# a step of each fit after the input checks (which record the new input) have run
LATE_STEP = {
    "SSMClassifier": ("sktdi.deep_model.base", "build_net"),
    "SSMRegressor": ("sktdi.deep_model.base", "build_net"),
    "SpectralRidgeClassifier": ("sktdi.fast_path.ridge", "StandardScaler"),
    "SpectralRidgeRegressor": ("sktdi.fast_path.ridge", "StandardScaler"),
    "SpectralAlignmentTransformer": ("sktdi.fast_path.transformers", "initialize_layers"),
}


def data(n=16, length=24, n_channels=None, seed=0, labels=(0, 1)):
    rng = np.random.default_rng(seed)
    y = np.resize(np.asarray(labels), n)
    shape = (n, length) if n_channels is None else (n, n_channels, length)
    return rng.normal(size=shape), y


def target(name, y):
    return (y == y[0]).astype(float) if "Regressor" in name else y


def quietly(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny data: TDI's and skorch's warnings are expected
        return call()


def fitted(name):
    X, y = data()
    model = getattr(sktdi, name)(**PARAMS[name])
    return quietly(lambda: model.fit(X, target(name, y))), X


def assert_unchanged(model, before: dict):
    """Every attribute as it was: the same names, each the same object."""
    after = vars(model)
    assert set(after) == set(before), set(after) ^ set(before)
    changed = [name for name, value in before.items() if after[name] is not value]
    assert not changed, changed


@pytest.mark.parametrize("name", list(PARAMS))
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_failed_refit_leaves_the_fitted_model_as_it_was(name, error, monkeypatch):
    model, X = fitted(name)
    expected = getattr(model, OUTPUT[name])(X)
    before = dict(vars(model))

    def fail(*args, **kwargs):
        raise error("a late step fails")

    module, step = LATE_STEP[name]
    monkeypatch.setattr(f"{module}.{step}", fail)
    # other channels, another length, other labels, series of unequal length: every record
    # of the input the checks make differs from the fit's
    X_other, y_other = data(n=12, length=30, n_channels=3, seed=1, labels=("a", "b", "c"))
    series = [x[:, : 20 + i % 5] for i, x in enumerate(X_other)]
    with pytest.raises(error, match="a late step fails"):
        quietly(lambda: model.fit(series, target(name, y_other)))
    monkeypatch.undo()
    assert_unchanged(model, before)
    np.testing.assert_array_equal(getattr(model, OUTPUT[name])(X), expected)


@pytest.mark.parametrize("name", list(PARAMS))
def test_a_failed_first_fit_leaves_the_model_unfitted(name, monkeypatch):
    model = getattr(sktdi, name)(**PARAMS[name])
    before = dict(vars(model))

    def fail(*args, **kwargs):
        raise RuntimeError("a late step fails")

    module, step = LATE_STEP[name]
    monkeypatch.setattr(f"{module}.{step}", fail)
    X, y = data()
    with pytest.raises(RuntimeError, match="a late step fails"):
        quietly(lambda: model.fit(X, target(name, y)))
    assert_unchanged(model, before)
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    with pytest.raises(NotFittedError):
        getattr(model, OUTPUT[name])(X)


# ---- the new user's cases, with real inputs -------------------------------------------------


def test_a_one_class_refit_of_the_deep_classifier_keeps_its_classes():
    # before: classes_ became ['a'], and predict raised IndexError
    model, X = fitted("SSMClassifier")
    expected = model.predict(X)
    with pytest.raises(ValueError, match="only 1 class"):
        model.fit(X, np.full(len(X), "a"))
    np.testing.assert_array_equal(model.predict(X), expected)
    assert list(model.classes_) == [0, 1]


def test_a_one_class_refit_of_the_ridge_classifier_keeps_the_model_and_its_file(tmp_path):
    # before: it predicted with the new n_channels_ and classes_ beside the old bank and
    # head, and save kept that mixture
    model, X = fitted("SpectralRidgeClassifier")
    expected = model.decision_function(X)
    X_other, _ = data(n=12, length=30, n_channels=3, seed=1)
    with pytest.raises(ValueError, match="only 1 class"):
        model.fit(X_other, np.full(len(X_other), "a"))
    assert model.n_channels_ == 1 and list(model.classes_) == [0, 1]
    np.testing.assert_array_equal(model.decision_function(X), expected)
    model.save(tmp_path / "model.sktdi")
    np.testing.assert_array_equal(
        sktdi.load(tmp_path / "model.sktdi").decision_function(X), expected
    )


def test_a_failed_first_fit_of_the_ridge_classifier_is_not_fitted():
    # before: AttributeError 'scaler_' from predict
    X, _ = data()
    model = sktdi.SpectralRidgeClassifier(**BANK)
    with pytest.raises(ValueError, match="only 1 class"):
        model.fit(X, np.zeros(len(X)))
    with pytest.raises(NotFittedError):
        model.predict(X)


def test_a_failed_minirocket_fit_on_unequal_lengths_is_not_fitted():
    # before: predict said "fitted on 12 channels", with a PaddedSeriesWarning, from the
    # records of the failed fit's padded list
    X, y = data(n=12, length=30, n_channels=2, seed=1)
    series = [x[:, : 20 + i % 5] for i, x in enumerate(X)]
    model = sktdi.SpectralRidgeClassifier(rocket="minirocket", **BANK)
    with pytest.raises(ValueError, match="only 1 class"):  # after the padded list's records
        model.fit(series, np.zeros(len(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PaddedSeriesWarning either
        with pytest.raises(NotFittedError):
            model.predict(X)


def test_a_failed_partial_fit_leaves_the_model_as_it_was():
    model = sktdi.SSMClassifier(**SSM)
    X, y = data()
    quietly(lambda: model.partial_fit(X, y, classes=[0, 1]))
    expected = model.predict_proba(X)
    before = dict(vars(model))
    series = [x[: 20 + i % 5] for i, x in enumerate(X)]  # padded: a new padding record
    with pytest.raises(ValueError, match="labels not seen in the first fit"):
        model.partial_fit(series, np.full(len(X), 7))
    assert_unchanged(model, before)
    np.testing.assert_array_equal(model.predict_proba(X), expected)


def test_a_failed_transformer_refit_keeps_its_bank():
    model, X = fitted("SpectralAlignmentTransformer")
    expected = model.transform(X)
    with pytest.raises(ValueError, match="too short for the filter bank"):
        model.fit(np.ones((4, 2, 1)), [0, 1, 0, 1])  # 2 channels of 1 step recorded, refused
    assert model.n_channels_ == 1 and model.n_timepoints_ == 24
    np.testing.assert_array_equal(model.transform(X), expected)
