"""SpectralRidgeClassifier / SpectralRidgeRegressor: conformance, and identity with the
pipeline they stand for."""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sktdi import (
    SpectralAlignmentTransformer,
    SpectralRidgeClassifier,
    SpectralRidgeRegressor,
    SSMClassifier,
)
from sktdi.tdi import TaskSpectrum, TDIOptions


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
@pytest.mark.slow  # scikit-learn's whole suite on the default bank and MiniRocket
def test_sklearn_conformance(estimator, check):
    check(estimator)


@pytest.mark.parametrize("init", ["tdi", "s4d-lin"])
def test_classifier_is_the_pipeline_it_stands_for(init):
    X, y = planted()
    # the series as given (input_scaling="channel"): the pipeline of the bank and the head
    model = SpectralRidgeClassifier(n_filters=8, init=init, input_scaling="channel",
                                    random_state=0).fit(X, y)
    # the classifier's features, scaling and head run in float32, as MiniRocket's do
    pipeline = make_pipeline(
        clone(model.transformer_),
        FunctionTransformer(lambda F: F.astype(np.float32)),
        StandardScaler(),
        RidgeClassifierCV(np.logspace(-3, 3, 10)),
    ).fit(X, y)
    X_new, _ = planted(seed=1)
    np.testing.assert_allclose(
        model.decision_function(X_new), pipeline.decision_function(X_new), rtol=1e-5
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
    model = SpectralRidgeRegressor(n_filters=8, alphas=[0.1, 1.0], input_scaling="channel",
                                   random_state=0)
    model.fit(X[:40], amplitude[:40])
    pipeline = make_pipeline(
        clone(model.transformer_), StandardScaler(), RidgeCV(alphas=[0.1, 1.0])
    ).fit(X[:40], amplitude[:40])
    assert model.predict(X[40:]).shape == (20, 2)
    # the regressor clips new series' scaled features to their training range
    scaled = pipeline[:-1].transform(X[40:])  # (20, F)
    training = pipeline[:-1].transform(X[:40])  # (40, F)
    np.testing.assert_allclose(model.feature_range_, [training.min(0), training.max(0)])
    clipped = np.clip(scaled, training.min(0), training.max(0))
    assert (clipped != scaled).any()  # some new values lie outside: the test can fail
    np.testing.assert_allclose(model.predict(X[40:]), pipeline[-1].predict(clipped), rtol=1e-10)
    assert model.transformer_.task == "regression"


def test_minirocket_features_are_appended():
    pytest.importorskip("sktime")
    pytest.importorskip("numba")
    X, y = planted(n_per_class=10)
    X3 = X[:, np.newaxis, :]  # (n, 1, L)
    # the series as given: the features are the bank's and MiniRocket's alone
    plain = SpectralRidgeClassifier(n_filters=4, input_scaling="channel", random_state=0).fit(X3, y)
    both = SpectralRidgeClassifier(n_filters=4, rocket="minirocket", input_scaling="channel",
                                   random_state=0).fit(X3, y)
    n_rocket = np.asarray(both.rocket_.transform(X3)).shape[1]
    # the first difference's MiniRocket, as the bank's own difference (on by default)
    n_difference = np.asarray(both.difference_rocket_.transform(np.diff(X3, axis=-1))).shape[1]
    assert n_rocket > 1000 and n_difference > 1000  # MiniRocket's ~10,000 features, each
    assert both.scaler_.n_features_in_ == plain.scaler_.n_features_in_ + n_rocket + n_difference
    alone = SpectralRidgeClassifier(
        n_filters=4, rocket="minirocket", difference=False, input_scaling="channel",
        random_state=0
    ).fit(X3, y)
    assert alone.difference_rocket_ is None
    # MiniRocket's feature budget is shared by the two representations, or the series' alone
    n_alone = np.asarray(alone.rocket_.transform(X3)).shape[1]
    assert n_alone > n_rocket + n_difference / 2
    assert alone.scaler_.n_features_in_ == 4 * 12 + n_alone
    assert both.predict(X).shape == (len(y),)  # 2-D input works as (n, 1, L)
    with pytest.raises(ValueError, match="at least 10 time steps .* difference=False"):
        SpectralRidgeClassifier(rocket="minirocket").fit(X[:, :9], y)
    with pytest.raises(ValueError, match="at least 9 time steps"):
        SpectralRidgeClassifier(rocket="minirocket", difference=False).fit(X[:, :8], y)
    # a MiniRocket fitted on one length needs that length, unpadded: refused by name, not
    # computed on the padding, with the way to series of unequal length
    with pytest.raises(ValueError, match=r"fitted on series of one length \(64\).* unequal"):
        both.predict([X[0], X[1, :40]])
    with pytest.raises(ValueError, match=r"fitted on series of one length \(64\)"):
        both.predict([X[0, :40], X[1, :40]])
    # an array of another length: the reason, not lengths= (which MiniRocket cannot use)
    with pytest.raises(ValueError) as info:
        both.predict(X[:2, :40])
    message = str(info.value)
    assert message.startswith("X has sequences of length 40, but SpectralRidgeClassifier was")
    assert "rocket='minirocket' fitted on series of one length needs" in message
    assert "rocket=None" in message and "pass lengths=" not in message


def test_quant_features_are_aeons_after_minirocket():
    """rocket="minirocket+quant": the features are the bank's, MiniRocket's, then aeon's
    QUANT of the same series (computed here by aeon itself), each standardized; series of
    unequal length keep MiniRocket's alone, and a saved model says its QUANT length."""
    pytest.importorskip("sktime")
    quant = pytest.importorskip("aeon.transformations.collection.interval_based")
    X, y = planted(n_per_class=10)
    X3 = X[:, np.newaxis, :]  # (n, 1, L)
    params = dict(n_filters=4, input_scaling="channel", random_state=0)
    rocket = SpectralRidgeClassifier(rocket="minirocket", **params).fit(X3, y)
    both = SpectralRidgeClassifier(rocket="minirocket+quant", **params).fit(X3, y)
    expected = quant.QUANTTransformer().fit_transform(X3)  # (n, F_quant)
    n_rocket = rocket.scaler_.n_features_in_
    assert both.quant_length_ == 64
    assert both.scaler_.n_features_in_ == n_rocket + expected.shape[1]
    raw = both._raw_features(X3, None, None)  # (n, F): before the scaler
    np.testing.assert_allclose(raw[:, :n_rocket], rocket._raw_features(X3, None, None))
    np.testing.assert_allclose(raw[:, n_rocket:], expected, rtol=1e-6)
    series = [x[: 40 + i % 12] for i, x in enumerate(X)]  # 40 to 51 steps
    with pytest.warns(UserWarning, match=r"QUANT's features to series of one length; these "
                      r"have 40 to 51 time steps, so the model has MiniRocket's alone"):
        unequal = SpectralRidgeClassifier(rocket="minirocket+quant", **params).fit(series, y)
    assert unequal.quant_length_ is None and unequal.predict(series).shape == (len(y),)


def test_minirocket_takes_series_of_unequal_length_over_their_own_steps():
    """Fitted on series of unequal length, MiniRocket's part is sktime's variable-length
    transform: each series convolved over its own steps (so padding changes no feature), a
    series shorter than its kernel extended by its last value, and any length predicted."""
    pytest.importorskip("sktime")
    import pandas as pd

    from sktdi.datasets import pad_sequences

    X, y = planted(n_per_class=10)
    cut = [x[: 20 + 3 * i] for i, x in enumerate(X)]  # 20 to 77 steps
    model = SpectralRidgeClassifier(n_filters=4, rocket="minirocket", random_state=0)
    model.fit(cut, y)
    assert type(model.rocket_).__name__ == "MiniRocketMultivariateVariable"
    padded, lengths = pad_sequences(cut, 90)
    np.testing.assert_array_equal(
        model.decision_function(padded, lengths=lengths), model.decision_function(cut)
    )
    # the rocket's own features of one series do not depend on its company
    alone = np.asarray(model.rocket_.transform([pd.DataFrame(cut[5])]))
    together = np.asarray(model.rocket_.transform([pd.DataFrame(x) for x in cut[:8]]))
    np.testing.assert_allclose(alone[0], together[5])
    # other lengths, a series shorter than MiniRocket's 9 steps among them
    assert model.predict([X[0, :5], X[1, :120]]).shape == (2,)


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


# ---- series of unequal length ------------------------------------------------------------
def unequal(lengths, freq=0.3, seed=0, pad_value=1e3):
    """Planted-tone series of unequal length, as a list and right-padded with junk."""
    rng = np.random.default_rng(seed)
    y = np.arange(len(lengths)) % 2
    series = [
        rng.normal(size=n) + label * np.sin(2 * np.pi * freq * np.arange(n))
        for n, label in zip(lengths, y)
    ]
    padded = np.full((len(series), max(lengths) + 5), pad_value)
    for i, s in enumerate(series):
        padded[i, : len(s)] = s
    return series, padded, np.array(lengths), y


@pytest.mark.parametrize("make", [SpectralRidgeClassifier, SpectralRidgeRegressor])
def test_padded_series_are_predicted_as_each_series_alone(make):
    """Before: a list of series of unequal length was refused with a message that said to pass
    lengths=, which neither fit nor predict took. Now the list, or the series padded with junk
    plus lengths=, fit the same model, and each series' prediction is that of the series alone:
    the ridge head on the features of its own steps only."""
    series, padded, lengths, y = unequal([40, 64, 52, 48, 57, 44] * 4)
    target = y if make is SpectralRidgeClassifier else y * 1.5
    scores = "decision_function" if make is SpectralRidgeClassifier else "predict"
    # the series as given: the bank's features alone are the head's (no level and scale)
    model = make(n_filters=8, input_scaling="channel", random_state=0).fit(series, target)
    from_padding = make(n_filters=8, input_scaling="channel", random_state=0).fit(
        padded, target, lengths=lengths)
    np.testing.assert_allclose(from_padding.ridge_.coef_, model.ridge_.coef_, rtol=1e-8)

    new, new_padded, new_lengths, new_y = unequal([30, 75, 61], seed=1)
    # each series alone: whole, its own length, no padding and no mask
    alone = np.vstack([model.transformer_.transform([s]) for s in new])  # (3, F)
    alone = alone.astype(model._feature_dtype)  # the classifier's features are float32
    alone = model.scaler_.transform(alone)
    if make is SpectralRidgeRegressor:  # clipped to the training range
        alone = np.clip(alone, *model.feature_range_)
    expected = getattr(model.ridge_, scores)(alone)
    np.testing.assert_allclose(getattr(model, scores)(new), expected, rtol=1e-5)
    np.testing.assert_allclose(
        getattr(model, scores)(new_padded, lengths=new_lengths), expected, rtol=1e-5
    )
    new_target = new_y if make is SpectralRidgeClassifier else new_y * 1.5
    assert model.score(new_padded, new_target, lengths=new_lengths) == pytest.approx(
        model.score(new, new_target)
    )


def test_padded_univariate_series_may_have_another_padded_length_than_in_fit():
    # fitted on 2-D X, n_features_in_ is a length: padded series of another length are fine
    _, padded, lengths, y = unequal([40, 64, 52, 48] * 3)
    model = SpectralRidgeClassifier(n_filters=4, random_state=0).fit(padded, y, lengths=lengths)
    assert model.n_features_in_ == padded.shape[1]
    _, other, other_lengths, _ = unequal([30, 80], seed=1)
    np.testing.assert_array_equal(
        model.predict(other, lengths=other_lengths), model.predict([other[0, :30], other[1, :80]])
    )
    with pytest.raises(ValueError, match="features") as info:  # without lengths, sklearn's
        model.predict(other)  # check stands, and says how to give other lengths
    assert "pass lengths= with X" in str(info.value)
    assert _named_arguments(str(info.value)) <= {"lengths"}


def _named_arguments(message: str) -> set[str]:
    return set(re.findall(r"\b([a-z_]+)=", message))


@pytest.mark.parametrize(
    "call",
    [
        # a list carries its own lengths
        lambda X, padded, lengths, y: SpectralRidgeClassifier().fit(X, y, lengths=lengths),
        # a MiniRocket fitted on one length takes that length only
        lambda X, padded, lengths, y: SpectralRidgeClassifier(rocket="minirocket")
        .fit(padded, y)
        .predict(X),
        lambda X, padded, lengths, y: SpectralRidgeRegressor(rocket="minirocket")
        .fit(padded, y)
        .predict(padded, lengths=lengths),
        # a series of one step has no first difference
        lambda X, padded, lengths, y: SpectralRidgeClassifier().fit(
            padded, y, lengths=np.r_[1, lengths[1:]]
        ),
        lambda X, padded, lengths, y: SpectralRidgeClassifier().fit(padded, y, lengths=lengths[1:]),
    ],
    ids=["list-and-lengths", "minirocket-list", "minirocket-padded", "length-1", "lengths-shape"],
)
def test_unequal_length_errors_name_only_arguments_that_exist(call):
    series, padded, lengths, y = unequal([20, 30, 25, 18])
    with pytest.raises(ValueError) as info:
        call(series, padded, lengths, y)
    message = str(info.value)
    existing = set(SpectralRidgeClassifier().get_params()) | set(
        inspect.signature(SpectralRidgeClassifier.fit).parameters
    )
    assert _named_arguments(message) <= existing, message
    if "rocket" in message:
        assert "fitted on series of one length" in message
        assert "rocket=None" in message


def test_the_banks_default_tdi_moves_only_the_aliased_modes():
    """coverage="auto" on the never-trained bank, classification, statistic estimated: only the
    S4D-Lin bank's aliased poles (|Im A|·dt > π) move; every other pole is the S4D-Lin bank's
    own. A given spectrum, regression and the deep models keep coverage="base"."""
    from sktdi import SSMClassifier
    from sktdi.tdi import aliased_modes

    X, y = planted(n_per_class=20, freq=0.3)
    tdi = SpectralRidgeClassifier(n_filters=32, random_state=0).fit(X, y).transformer_
    lin = SpectralRidgeClassifier(n_filters=32, init="s4d-lin", random_state=0).fit(X, y)
    assert tdi.tdi_report_.coverage == "alias" and tdi.init_report_["applied"] == "tdi"
    before, after = lin.transformer_.layer_.modes(), tdi.layer_.modes()
    moved = (after.A != before.A).numpy()
    aliased = aliased_modes(before.A, before.dt).numpy()
    assert moved.any() and not (moved & ~aliased).any()  # nothing but aliased poles moved
    given = TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.3]))
    assert SpectralRidgeClassifier(n_filters=32, tdi=given, random_state=0).fit(
        X, y).transformer_.tdi_report_.coverage == "base"
    assert SpectralRidgeRegressor(n_filters=32, random_state=0).fit(
        X, (y == y[0]) * 1.0).transformer_.tdi_report_.coverage == "base"
    network = dict(network="s4d", d_model=8, n_layers=1, max_epochs=0, random_state=0)
    assert SSMClassifier(**network).fit(X, y).tdi_reports_[0].coverage == "base"


# ---- a given task spectrum ---------------------------------------------------------------
@pytest.mark.parametrize("make", [SpectralRidgeClassifier, SpectralRidgeRegressor])
def test_given_spectrum_is_the_one_the_bank_is_aligned_to(make):
    """Before: TypeError, unexpected keyword argument (the spectrum). Now the bank is aligned
    to the given spectrum, whatever the training data's own statistic: the same bank from two
    datasets with tones at other frequencies, and the bank a transformer builds from the
    spectrum without any labels."""
    given = TaskSpectrum.from_frequencies([0.1])
    fits = []
    for freq, seed in [(0.3, 0), (0.42, 1)]:
        X, y = planted(n_per_class=10, freq=freq, seed=seed)
        target = y if make is SpectralRidgeClassifier else y * 1.5
        fits.append(make(n_filters=8, tdi=TDIOptions(spectrum=given), random_state=0).fit(X, target))
    first, second = (model.transformer_ for model in fits)
    assert first.task_spectrum_ is given and second.task_spectrum_ is given
    assert first.init_report_["reason"].startswith("tdi on the given spectrum")
    from_spectrum = clone(first).fit(np.zeros((2, 64)))  # no y: nothing to estimate
    for bank in (second, from_spectrum):
        for name, value in first.layer_.state_dict().items():
            np.testing.assert_array_equal(bank.layer_.state_dict()[name], value)
    freqs, magnitude = first.frequency_response(257)
    assert abs(freqs[np.argmax(magnitude.mean(axis=0))] - 0.1) < 0.03  # not the data's 0.3
    copied = clone(fits[0]).get_params()["tdi__spectrum"]  # clone copies it
    np.testing.assert_array_equal(copied.values, given.values)


def test_init_report_is_the_banks_as_on_the_ssm_models():
    """Before: AttributeError; the report lay in transformer_ alone. Now init_report_ is read
    where the SSM models have it, with the keys that say whether TDI stood down."""
    X, y = planted(n_per_class=2)
    noise = np.random.default_rng(1).normal(size=X.shape)  # labels that are noise
    model = SpectralRidgeClassifier(n_filters=4, random_state=0)
    assert not hasattr(model, "init_report_")  # not fitted
    report = model.fit(noise, y).init_report_
    assert report is model.transformer_.init_report_
    assert report["applied"] == "s4d-lin" and report["n_aligned_channels"] == 0
    assert report["reason"].startswith("tdi stood down: ")
    X, y = planted()
    assert model.fit(X, y).init_report_["applied"] == "tdi"


@pytest.mark.parametrize("bad", [[0.3], "0.3", np.array([0.3])], ids=["list", "str", "array"])
@pytest.mark.parametrize("make", [SpectralRidgeClassifier, SpectralRidgeRegressor])
def test_invalid_spectrum_is_refused_as_by_the_ssm_models(make, bad):
    X, y = planted(n_per_class=3, length=16)
    with pytest.raises(InvalidParameterError) as ours:
        make(tdi=TDIOptions(spectrum=bad)).fit(X, y)
    with pytest.raises(InvalidParameterError) as ssm:
        SSMClassifier(tdi=TDIOptions(spectrum=bad)).fit(X, y)
    assert str(ours.value) == str(ssm.value)  # one option object, one message
    assert "'spectrum' parameter of TDIOptions" in str(ours.value)
    assert "TaskSpectrum" in str(ours.value)


def test_given_spectrum_with_a_named_init_warns_at_the_callers_line():
    X, y = planted(n_per_class=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SpectralRidgeClassifier(
            n_filters=4,
            init="s4d-lin",
            tdi=TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.2])),
        ).fit(X, y)
    ignored = [w for w in caught if "tdi.spectrum is ignored" in str(w.message)]
    assert len(ignored) == 1  # once, not again from the bank inside
    assert ignored[0].filename == __file__


def test_given_spectrum_and_unequal_lengths_survive_saving(tmp_path):
    from sktdi import load

    series, padded, lengths, y = unequal([40, 64, 52, 48] * 3)
    given = TaskSpectrum.from_frequencies([0.2])
    model = SpectralRidgeClassifier(n_filters=4, tdi=TDIOptions(spectrum=given), random_state=0)
    model.fit(series, y).save(tmp_path / "model.sktdi")
    restored = load(tmp_path / "model.sktdi")
    assert restored.tdi.spectrum.kind == "given"
    np.testing.assert_array_equal(
        restored.decision_function(padded, lengths=lengths),
        model.decision_function(padded, lengths=lengths),
    )
