"""SpectralRidgeClassifier / SpectralRidgeRegressor: conformance, and identity with the
pipeline they stand for."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sktdi import SpectralAlignmentTransformer, SpectralRidgeClassifier, SpectralRidgeRegressor


def planted(n_per_class=20, length=64, freq=0.3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n_per_class)
    t = np.arange(length)
    X = rng.normal(size=(len(y), length)) + y[:, None] * np.sin(2 * np.pi * freq * t)
    return X, y


@parametrize_with_checks(
    [
        SpectralRidgeClassifier(n_filters=16, random_state=0),
        # the regression check needs R² > 0.5 on a target set by one position of a 10-step
        # series: the default bank's features are enough (pooled features lose positions)
        SpectralRidgeRegressor(random_state=0),
    ]
)
def test_sklearn_conformance(estimator, check):
    check(estimator)


@pytest.mark.parametrize("init", ["tdi", "s4d-lin"])
def test_classifier_is_the_pipeline_it_stands_for(init):
    X, y = planted()
    model = SpectralRidgeClassifier(n_filters=8, init=init, random_state=0).fit(X, y)
    pipeline = make_pipeline(
        clone(model.transformer_), StandardScaler(), RidgeClassifierCV(np.logspace(-3, 3, 10))
    ).fit(X, y)
    X_new, _ = planted(seed=1)
    np.testing.assert_allclose(
        model.decision_function(X_new), pipeline.decision_function(X_new), rtol=1e-10
    )
    assert model.transformer_.task == "classification"


def test_the_aligned_bank_sees_the_planted_band_that_s4d_lin_misses():
    # the class difference is a tone at 0.3 cycles/sample; 8 S4D-Lin filters with dt ≤ 0.1
    # barely reach it, TDI puts modes on it (the default dt up to 1 reaches it either way)
    X, y = planted()
    X_new, y_new = planted(seed=1)
    scores = {
        init: SpectralRidgeClassifier(n_filters=8, init=init, dt_max=0.1, random_state=0)
        .fit(X, y)
        .score(X_new, y_new)
        for init in ("tdi", "s4d-lin")
    }
    assert scores["tdi"] >= 0.9
    assert scores["tdi"] >= scores["s4d-lin"] + 0.1


def test_regressor_is_the_pipeline_it_stands_for_with_several_outputs():
    rng = np.random.default_rng(0)
    amplitude = rng.uniform(0, 1, size=(60, 2))
    t = np.arange(80)
    X = (
        rng.normal(size=(60, 80))
        + amplitude[:, :1] * np.sin(0.6 * t)
        + amplitude[:, 1:] * np.sin(2.0 * t)
    )
    model = SpectralRidgeRegressor(n_filters=8, alphas=[0.1, 1.0], random_state=0)
    model.fit(X[:40], amplitude[:40])
    pipeline = make_pipeline(
        clone(model.transformer_), StandardScaler(), RidgeCV(alphas=[0.1, 1.0])
    ).fit(X[:40], amplitude[:40])
    assert model.predict(X[40:]).shape == (20, 2)
    np.testing.assert_allclose(model.predict(X[40:]), pipeline.predict(X[40:]), rtol=1e-10)
    assert model.transformer_.task == "regression"


def test_minirocket_features_are_appended():
    pytest.importorskip("sktime")
    pytest.importorskip("numba")
    X, y = planted(n_per_class=10)
    X3 = X[:, np.newaxis, :]  # (n, 1, L)
    plain = SpectralRidgeClassifier(n_filters=4, random_state=0).fit(X3, y)
    both = SpectralRidgeClassifier(n_filters=4, rocket="minirocket", random_state=0).fit(X3, y)
    n_rocket = np.asarray(both.rocket_.transform(X3)).shape[1]
    assert n_rocket > 1000  # MiniRocket's ~10,000 features
    assert both.scaler_.n_features_in_ == plain.scaler_.n_features_in_ + n_rocket
    assert both.predict(X).shape == (len(y),)  # 2-D input works as (n, 1, L)
    with pytest.raises(ValueError, match="at least 9 time steps"):
        SpectralRidgeClassifier(rocket="minirocket").fit(X[:, :8], y)


@pytest.mark.parametrize("make", [SpectralRidgeClassifier, SpectralAlignmentTransformer])
def test_series_of_length_1_are_refused_in_plain_terms(make):
    # before: "difference=True needs series of at least 2 time steps", naming a value the user
    # never set (the default is difference="auto")
    X = np.random.default_rng(0).normal(size=(10, 1))
    y = np.repeat([0, 1], 5)
    with pytest.raises(ValueError) as info:
        make(n_filters=4).fit(X, y)
    message = str(info.value)
    assert "series of length 1" in message and "too short for the filter bank" in message
    assert "at least 2 time steps" in message
    assert "difference=True" not in message and "difference='auto'" in message
    # the way out the message offers works
    make(n_filters=4, difference=False).fit(X, y)
