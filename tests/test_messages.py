"""Bad input gets one clear error naming the problem and the way out, never the message of the
library underneath (numpy's "inhomogeneous shape", scikit-learn's "reshape(-1, 1)" hint)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from sktdi import SSMClassifier, SSMRegressor
from sktdi.datasets import pad_sequences
from sktdi.tdi import fisher_log_power, plan_initialization, split_half_reliability

TINY = dict(d_model=4, n_layers=1, d_state=4, max_epochs=0, random_state=0)


def _series(lengths, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=n) for n in lengths]


def _fitted():
    X = np.random.default_rng(0).normal(size=(8, 16))
    return SSMClassifier(**TINY).fit(X, np.arange(8) % 2)


# ---- text ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "as_text",
    [
        lambda X: X.astype(str),  # numbers as text: read as numbers before, without a word
        lambda X: np.full(X.shape, "a"),  # numpy's "could not convert string to float" before
        lambda X: [list(map(str, row)) for row in X],
        lambda X: [row.astype(bytes) for row in X],
    ],
    ids=["numeric-text", "text", "list-of-text", "list-of-bytes"],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda X: SSMClassifier(**TINY).fit(X, np.arange(len(X)) % 2),
        lambda X: _fitted().predict(X),
        lambda X: fisher_log_power(X, np.arange(len(X)) % 2),
    ],
    ids=["fit", "predict", "fisher_log_power"],
)
def test_series_given_as_text_are_refused_by_name(as_text, call):
    X = np.random.default_rng(1).normal(size=(8, 16))
    with pytest.raises(TypeError, match=r"X must be numeric, but holds text \(.*\): .*dtype=float"):
        call(as_text(X))


def test_numbers_in_an_object_array_are_still_numbers():
    # scikit-learn's conformance checks fit on object arrays of floats
    X = np.random.default_rng(1).normal(size=(8, 16))
    assert (_fitted().predict(X.astype(object)) == _fitted().predict(X)).all()


# ---- 1-D X -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda X: SSMClassifier(**TINY).fit(X, np.arange(len(X)) % 2),
        lambda X: SSMRegressor(**TINY).fit(X, np.arange(len(X), dtype=float)),
        lambda X: _fitted().predict(X),
        lambda X: fisher_log_power(X, np.arange(len(X)) % 2),
        lambda X: split_half_reliability(X, np.arange(len(X)) % 2, task="classification"),
    ],
    ids=["classifier-fit", "regressor-fit", "predict", "fisher_log_power", "reliability"],
)
def test_1d_X_gets_the_sequence_hint_not_reshape_minus_one_one(call):
    # before: "Reshape your data either using array.reshape(-1, 1) if your data has a single
    # feature ...", whose first half makes series of length 1
    with pytest.raises(ValueError) as info:
        call(np.arange(16.0))
    message = str(info.value)
    assert "1-D" in message and "X.reshape(1, -1)" in message and "2-D or 3-D" in message
    assert "reshape(-1, 1)" not in message


def test_the_1d_hint_works():
    X = np.sin(np.arange(16.0))
    model = SSMRegressor(**TINY, init="s4d-lin").fit(np.stack([X, -X]), [1.0, -1.0])
    assert model.predict(X.reshape(1, -1)).shape == (1,)


def test_scalar_X_is_refused_clearly():
    with pytest.raises(ValueError, match="X is a scalar"):
        SSMClassifier(**TINY).fit(3.0, [0])


# ---- series of unequal length ------------------------------------------------------------
#: the forms a user's ragged series come in
RAGGED_FORMS = pytest.mark.parametrize(
    "make",
    [
        lambda: _series([5, 7, 6, 7]),  # list of 1-D arrays
        lambda: [s.tolist() for s in _series([5, 7, 6, 7])],  # list of lists
        lambda: [s[np.newaxis] for s in _series([5, 7, 6, 7])],  # list of (1, L_i)
        lambda: np.array(_series([5, 7, 6, 7]), dtype=object),  # object array
    ],
    ids=["arrays", "lists", "2d-arrays", "object-array"],
)


@RAGGED_FORMS
@pytest.mark.parametrize(
    "call",
    [
        lambda X: fisher_log_power(X, [0, 1, 0, 1]),
        lambda X: plan_initialization(X, [0, 1, 0, 1], init="tdi", task="classification"),
    ],
    ids=["fisher_log_power", "plan_initialization"],
)
def test_ragged_series_name_the_lengths_and_pad_sequences(make, call):
    # before: "setting an array element with a sequence. The requested array has an
    # inhomogeneous shape after 1 dimensions..."
    with pytest.raises(ValueError) as info:
        call(make())
    message = str(info.value)
    assert "unequal lengths (5 to 7 time steps)" in message
    assert "sktdi.datasets.pad_sequences(series)" in message and "lengths=lengths" in message
    assert "inhomogeneous" not in message


@RAGGED_FORMS
@pytest.mark.parametrize("make_model", [SSMClassifier, SSMRegressor])
def test_the_ssm_models_take_a_list_of_series_of_unequal_length(make, make_model):
    """Before: "X holds 4 series of unequal lengths ... pad them", where the ridge models and
    the transformer took the list. Now fit and the predictions take it as they take
    pad_sequences(series) with its lengths."""
    y = [0, 1, 0, 1] if make_model is SSMClassifier else [0.0, 1.0, 0.5, -1.0]
    X, lengths = pad_sequences(_series([5, 7, 6, 7]))
    from_list = make_model(**TINY).fit(make(), y)
    from_padding = make_model(**TINY).fit(X, y, lengths=lengths)
    np.testing.assert_array_equal(from_list.input_mean_, from_padding.input_mean_)
    np.testing.assert_array_equal(
        from_list.predict(make()), from_padding.predict(X, lengths=lengths)
    )
    assert from_list.score(make(), y) == from_padding.score(X, y, lengths=lengths)


def test_the_ragged_hint_works():
    series = _series([20, 24, 22, 24, 21, 23])
    X, lengths = pad_sequences(series)
    assert X.shape == (6, 1, 24) and lengths.tolist() == [20, 24, 22, 24, 21, 23]
    model = SSMClassifier(**TINY).fit(X, [0, 1] * 3, lengths=lengths)
    assert model.predict(X, lengths=lengths).shape == (6,)


def test_series_of_mixed_shapes_are_named():
    with pytest.raises(ValueError, match=r"different shapes .*\(length,\)"):
        fisher_log_power([np.ones(5), np.ones((1, 5))], [0, 1])
    with pytest.raises(ValueError, match=r"X\[1\] is itself ragged"):
        fisher_log_power([[[1.0, 2.0]], [[1.0, 2.0], [1.0]]], [0, 1])
    # the estimators pad a list: (length,) is univariate, as (1, length) is ...
    model = SSMClassifier(**TINY, init="s4d-lin").fit([np.ones(5), np.ones((1, 6))], [0, 1])
    assert model.n_channels_ == 1
    # ... and series with other channel counts cannot be padded into one array
    with pytest.raises(ValueError, match=r"differ in their number of channels \(\[1, 2\]\)"):
        SSMClassifier(**TINY).fit([np.ones(5), np.ones((2, 6))], [0, 1])


def _named_arguments(message: str) -> set[str]:
    import re

    return set(re.findall(r"\b([a-z_]+)=", message))


@pytest.mark.parametrize("make_model", [SSMClassifier, SSMRegressor])
def test_a_list_with_lengths_names_only_arguments_that_exist(make_model):
    import inspect

    series, y = _series([5, 7, 6, 7]), [0, 1, 0, 1]
    with pytest.raises(ValueError, match="pass lengths=None") as info:
        make_model(**TINY).fit(series, y, lengths=[5, 7, 6, 7])
    existing = set(make_model().get_params())
    for method in ("fit", "partial_fit", "predict"):
        existing |= set(inspect.signature(getattr(make_model, method)).parameters)
    assert _named_arguments(str(info.value)) <= existing, str(info.value)


def test_pad_sequences_reads_1d_series_as_univariate():
    # before: the first series' length was taken for a channel count: shape (2, 2, 3)
    X, lengths = pad_sequences([np.ones(2), np.ones(3)])
    assert X.shape == (2, 1, 3) and lengths.tolist() == [2, 3]
    np.testing.assert_array_equal(X[0, 0], [1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="number of channels"):
        pad_sequences([np.ones((1, 3)), np.ones((2, 3))])
    with pytest.raises(ValueError, match="no series"):
        pad_sequences([])


def test_equal_length_lists_still_work():
    X = [list(s) for s in _series([16] * 8)]
    assert SSMClassifier(**TINY).fit(X, np.arange(8) % 2).n_timepoints_ == 16


# ---- validation_fraction -----------------------------------------------------------------
def test_validation_fraction_with_a_singleton_class_names_the_parameter():
    # needs the check in SSMClassifier._fit (see the report of item 2d); before: scikit-learn's
    # "The least populated classes in y have only 1 member, which is too few..." from inside
    # skorch's ValidSplit, which does not say that validation_fraction asked for the split
    X = np.random.default_rng(0).normal(size=(11, 32))
    y = np.array([0] * 5 + [1] * 5 + [2])
    model = SSMClassifier(**{**TINY, "max_epochs": 1}, validation_fraction=0.2)
    with pytest.raises(ValueError, match="validation_fraction") as info:
        model.fit(X, y)
    assert "only 1 series" in str(info.value) and "least populated" not in str(info.value)


def test_validation_fraction_too_small_for_the_classes_names_the_parameter():
    # before: scikit-learn's "The test_size = 1 should be greater or equal to the number of
    # classes = 2", from inside skorch
    X = np.random.default_rng(0).normal(size=(11, 32))
    model = SSMClassifier(**{**TINY, "max_epochs": 1}, validation_fraction=0.05)
    with pytest.raises(ValueError, match=r"validation_fraction=0.05 holds out 1 of 11 series"):
        model.fit(X, np.array([0] * 6 + [1] * 5))


# ---- positional constructor arguments (issue 24, item 11) --------------------------------
PUBLIC_ESTIMATORS = [
    "SSMClassifier",
    "SSMRegressor",
    "SpectralRidgeClassifier",
    "SpectralRidgeRegressor",
    "SpectralAlignmentTransformer",
]


@pytest.mark.parametrize("name", PUBLIC_ESTIMATORS)
def test_positional_arguments_name_the_class_and_keywords(name):
    # before: "_BaseSSM.__init__() takes 1 positional argument but 2 were given" (or the
    # private _SpectralRidge), which names neither the class the user called nor the fix
    import inspect

    import sktdi

    cls = getattr(sktdi, name)
    first = next(iter(inspect.signature(cls).parameters))
    with pytest.raises(TypeError) as info:
        cls("tdi")
    message = str(info.value)
    assert message.startswith(f"{name} takes keyword arguments only: {name}({first}=...)")
    assert "__init__" not in message and "_Base" not in message


def test_data_given_to_the_constructor_points_to_fit():
    X = np.zeros((4, 8))
    with pytest.raises(TypeError, match=r"the data goes to fit: SSMClassifier\(\.\.\.\)\.fit"):
        SSMClassifier(X, np.arange(4) % 2)


@pytest.mark.parametrize("name", ["SktimeSSMClassifier", "SktimeSSMRegressor"])
def test_positional_arguments_to_the_sktime_adapters(name):
    pytest.importorskip("sktime")
    import sktdi.sktime

    with pytest.raises(TypeError, match=f"^{name} takes keyword arguments only"):
        getattr(sktdi.sktime, name)("tdi")


@pytest.mark.parametrize("name", PUBLIC_ESTIMATORS)
def test_keyword_only_signature_is_what_scikit_learn_reads(name):
    # the friendlier error must not change what get_params, clone and the checks introspect
    import inspect

    from sklearn.base import clone

    import sktdi

    cls = getattr(sktdi, name)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert parameters and all(
        p.kind is p.KEYWORD_ONLY and p.default is not p.empty for p in parameters
    )
    estimator = cls(random_state=3)
    assert clone(estimator).get_params() == estimator.get_params()
    assert set(estimator.get_params()) == {p.name for p in parameters}


# ---- one class ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda X, y: SSMClassifier(**TINY).fit(X, y),
        lambda X, y: fisher_log_power(X, y),
    ],
    ids=["classifier-fit", "fisher_log_power"],
)
def test_one_class_is_named_as_the_user_wrote_it(call):
    # before: "y has only 1 class (np.float64(0.0))", numpy 2's repr of the label
    X = np.random.default_rng(0).normal(size=(6, 16))
    with pytest.raises(ValueError, match="only 1 class") as info:
        call(X, np.zeros(6))
    assert "(0.0)" in str(info.value) and "np." not in str(info.value)
    with pytest.raises(ValueError, match=r"only 1 class \('calm'\)"):
        call(X, np.array(["calm"] * 6))


# ---- padded series predicted without their lengths ---------------------------------------
def _padded(seed=0):
    """Univariate series of 10..16 steps, zero-padded to 16 (pad_sequences), and labels."""
    X, lengths = pad_sequences(_series([10, 12, 14, 16, 11, 13, 15, 16], seed))
    return X, lengths, np.arange(8) % 2


def _padding_warnings(call):
    import warnings

    from sktdi.deep_model.estimators import PaddedSeriesWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, PaddedSeriesWarning)]


@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function", "score"])
def test_padded_fit_predicted_without_lengths_warns(method):
    """Before: the same padded series predicted without lengths= gave other predictions, in
    silence (the padding read as signal)."""
    X, lengths, y = _padded()
    model = SSMClassifier(**TINY).fit(X, y, lengths=lengths)
    args = (X, y) if method == "score" else (X,)
    caught = _padding_warnings(lambda: getattr(model, method)(*args))
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "fitted on padded series with lengths=" in message
    # padded by 2 steps or more: the series of 15 steps ends in one zero, as a whole one may
    assert "5 of 8 series given without lengths= end in 2 time steps of the padding value 0" in message
    assert "lengths=np.full(len(X), 16)" in message
    assert caught[0].filename == __file__  # points at the user's call
    assert not _padding_warnings(lambda: getattr(model, method)(*args, lengths=lengths))
    # what the warning is about
    from sktdi.deep_model.estimators import PaddedSeriesWarning

    with pytest.warns(PaddedSeriesWarning):
        without = model.predict_proba(X)
    assert not np.allclose(without, model.predict_proba(X, lengths=lengths))


def test_padded_regressor_predicted_without_lengths_warns():
    X, lengths, y = _padded()
    model = SSMRegressor(**TINY).fit(X, y.astype(float), lengths=lengths)
    assert len(_padding_warnings(lambda: model.predict(X))) == 1
    assert not _padding_warnings(lambda: model.predict(X, lengths=lengths))


def test_no_padding_warning_for_whole_series():
    X, lengths, y = _padded()
    whole = np.random.default_rng(1).normal(size=X.shape)
    whole[:, :, -1] = 0.0  # one trailing zero is no padding: a series may end at 0
    padded_fit = SSMClassifier(**TINY).fit(X, y, lengths=lengths)
    assert not _padding_warnings(lambda: padded_fit.predict(whole))
    # fitted without lengths, or with every series whole: padding-like tails are data
    plain_fit = SSMClassifier(**TINY).fit(whole, y)
    assert not _padding_warnings(lambda: plain_fit.predict(X))
    whole_fit = SSMClassifier(**TINY).fit(whole, y, lengths=np.full(8, 16))
    assert not _padding_warnings(lambda: whole_fit.predict(X))


def test_padding_that_is_no_constant_is_recognised_by_its_flat_tail():
    """Series padded by repeating their last value (edge padding)."""
    X, lengths, y = _padded()
    for i, length in enumerate(lengths):
        X[i, :, length:] = X[i, :, length - 1 : length]
    model = SSMClassifier(**TINY).fit(X, y, lengths=lengths)
    caught = _padding_warnings(lambda: model.predict(X))
    assert len(caught) == 1 and "end in 2 equal time steps" in str(caught[0].message)
    assert not _padding_warnings(lambda: model.predict(X, lengths=lengths))


# every model that takes lengths= warns alike: one fit and prediction check, sktdi.utils.inputs
FAST_PATH = {
    "SpectralRidgeClassifier": dict(n_filters=4, d_state=4, random_state=0),
    "SpectralRidgeRegressor": dict(n_filters=4, d_state=4, random_state=0),
    "SpectralAlignmentTransformer": dict(n_filters=2, d_state=4, random_state=0),
}
ALL_MODELS = ["SSMClassifier", "SSMRegressor", *FAST_PATH]
# what each model computes from series: the methods that warn
OUTPUTS = {
    "SSMClassifier": ["predict", "predict_proba", "decision_function", "score"],
    "SSMRegressor": ["predict", "score"],
    "SpectralRidgeClassifier": ["predict", "decision_function", "score"],
    "SpectralRidgeRegressor": ["predict", "score"],
    "SpectralAlignmentTransformer": ["transform"],
}


def _model(name):
    import sktdi

    return getattr(sktdi, name)(**FAST_PATH.get(name, TINY))


def _target(name, y):
    return y.astype(float) * 1.5 if "Regressor" in name else y


def _call(model, method, X, y, **kwargs):
    args = (X, y) if method == "score" else (X,)
    return getattr(model, method)(*args, **kwargs)


@pytest.mark.parametrize("name", list(FAST_PATH))
def test_the_fast_path_warns_for_padded_series_predicted_without_lengths(name):
    """Before: the ridge models and the transformer, fitted with lengths=, predicted (or
    transformed) the same padded series without lengths= in silence, their padding read as
    signal; the SSM models warned. Now every model warns alike, once per call."""
    X, lengths, y = _padded()
    y = _target(name, y)
    for fitted in (_model(name).fit(X, y, lengths=lengths), _model(name).fit(
        [x[:, :n] for x, n in zip(X, lengths)], y  # a list of series: padded with zeros inside
    )):
        for method in OUTPUTS[name]:
            caught = _padding_warnings(lambda: _call(fitted, method, X, y))
            assert len(caught) == 1, method
            message = str(caught[0].message)
            assert message.startswith(f"{name} was fitted on padded series with lengths=")
            assert "5 of 8 series given without lengths= end in 2 time steps of the padding " \
                "value 0" in message
            assert caught[0].filename == __file__  # points at the user's call
            assert not _padding_warnings(lambda: _call(fitted, method, X, y, lengths=lengths))
            # the way out the message offers for whole series
            whole = np.full(len(X), X.shape[-1])
            assert not _padding_warnings(lambda: _call(fitted, method, X, y, lengths=whole))
    # what the warning is about
    output = OUTPUTS[name][0]
    assert not np.allclose(
        _call(fitted, output, X, y, lengths=whole), _call(fitted, output, X, y, lengths=lengths)
    )


@pytest.mark.parametrize("name", list(FAST_PATH))
def test_the_fast_path_never_warns_after_a_fit_on_whole_series(name):
    X, lengths, y = _padded()
    y = _target(name, y)
    whole = np.random.default_rng(1).normal(size=X.shape)
    for fitted in (_model(name).fit(whole, y), _model(name).fit(whole, y, lengths=np.full(8, 16))):
        assert fitted._fit_padding is None
        for method in OUTPUTS[name]:
            assert not _padding_warnings(lambda: _call(fitted, method, X, y))
    padded_fit = _model(name).fit(X, y, lengths=lengths)
    whole[:, :, -1] = 0.0  # one trailing zero is no padding: a series may end at 0
    assert not _padding_warnings(lambda: _call(padded_fit, OUTPUTS[name][0], whole, y))


@pytest.mark.parametrize("name", ALL_MODELS)
def test_the_padding_record_survives_saving_and_pickling(tmp_path, name):
    import pickle

    from sktdi import load

    X, lengths, y = _padded()
    y = _target(name, y)
    method = OUTPUTS[name][0]
    model = _model(name).fit(X, y, lengths=lengths)
    model.save(tmp_path / "model.sktdi")
    for copy in (load(tmp_path / "model.sktdi"), pickle.loads(pickle.dumps(model))):
        assert copy._fit_padding == model._fit_padding == {"value": 0.0, "steps": 6}
        assert len(_padding_warnings(lambda copy=copy: _call(copy, method, X, y))) == 1
    del model._fit_padding  # a model saved before the record existed: no warning, no error
    assert not _padding_warnings(lambda: _call(model, method, X, y))


def test_padded_series_warning_is_public():
    import sktdi
    from sktdi.deep_model.estimators import PaddedSeriesWarning

    assert sktdi.PaddedSeriesWarning is PaddedSeriesWarning
    assert "PaddedSeriesWarning" in sktdi.__all__ and "PaddedSeriesWarning" in dir(sktdi)


# ---- an empty X --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("empty", [[], (), np.array([])], ids=["list", "tuple", "array"])
def test_an_empty_X_holds_no_series(name, empty):
    # before: "X is 1-D (shape (0,)) ... one series is X.reshape(1, -1)"
    with pytest.raises(ValueError) as info:
        _model(name).fit(empty, [])
    message = str(info.value)
    assert message.startswith("X holds no series") and "reshape" not in message
    X, _, y = _padded()
    fitted = _model(name).fit(X[:, 0], _target(name, y))
    with pytest.raises(ValueError, match="X holds no series"):
        getattr(fitted, OUTPUTS[name][0])(empty)


def test_an_empty_X_for_the_functions():
    with pytest.raises(ValueError, match="X holds no series"):
        fisher_log_power([], [])


# ---- one class on the fast path ----------------------------------------------------------
@pytest.mark.parametrize("init", ["tdi", "s4d-lin"])
def test_the_ridge_classifier_needs_two_classes_as_ssm_classifier_does(init):
    # before: init="s4d-lin" fitted and predicted the one class for everything; init="tdi"
    # said "the task statistic needs at least 2"
    from sktdi import SpectralRidgeClassifier

    X = np.random.default_rng(0).normal(size=(6, 16))
    messages = []
    for model in (SpectralRidgeClassifier(init=init, n_filters=4), SSMClassifier(**TINY)):
        with pytest.raises(ValueError) as info:
            model.fit(X, np.array(["calm"] * 6))
        messages.append(str(info.value))
    expected = "y has only 1 class ('calm'); a classifier needs at least 2"
    assert messages[0] == messages[1] == expected


# ---- device ------------------------------------------------------------------------------
@pytest.mark.parametrize("make_model", [SSMClassifier, SSMRegressor])
@pytest.mark.parametrize("device", ["gpu", "cuda:x", "GPU:0"])
def test_an_invalid_device_is_named_with_the_accepted_forms(make_model, device):
    # before: torch's RuntimeError from torch/nn/modules/module.py listing ~20 device types
    X = np.random.default_rng(0).normal(size=(6, 16))
    with pytest.raises(ValueError) as info:
        make_model(**{**TINY, "device": device}).fit(X, np.arange(6) % 2)
    message = str(info.value)
    assert message.startswith(f"device={device!r} is not a device")
    for form in ('"auto"', '"cpu"', '"cuda"', '"cuda:N"', '"mps"'):
        assert form in message
    assert "xla" not in message and "Expected one of" not in message


# ---- series of another length than the fit's ---------------------------------------------
def _other_lengths(name, fit_as):
    """A model fitted on 8 series of 16 steps: whole (``"equal"``), padded (``"lengths"``),
    or a list of series of unequal length (``"list"``)."""
    X, lengths, y = _padded()
    y = _target(name, y)
    if fit_as == "equal":
        model = _model(name)
        if name.startswith("SSM"):
            # the network takes series of any length; its fast path, fitted on series of one
            # length, takes no others (sktime's MiniRocket), which test_one_model covers
            model.set_params(fast_path=False)
        return model.fit(np.random.default_rng(1).normal(size=X.shape), y)
    if fit_as == "lengths":
        return _model(name).fit(X, y, lengths=lengths)
    return _model(name).fit([x[:, :n] for x, n in zip(X, lengths)], y)


@pytest.mark.parametrize("fit_as", ["equal", "lengths", "list"])
@pytest.mark.parametrize("name", ALL_MODELS)
def test_another_length_says_lengths_or_a_list_is_the_way(name, fit_as):
    # before: "X has sequences of length 18, but ... fitted on length 16" (or scikit-learn's
    # "X has 18 features"), with nothing of lengths=, which takes series of any length
    import warnings

    model = _other_lengths(name, fit_as)
    method = OUTPUTS[name][0]
    rng = np.random.default_rng(2)
    for X in (rng.normal(size=(3, 18)), rng.normal(size=(3, 1, 10))):
        length = X.shape[-1]
        with pytest.raises(ValueError) as info:
            getattr(model, method)(X)
        message = str(info.value)
        assert str(length) in message and "16" in message
        assert "pass lengths= with X (" in message and "or a list of series" in message
        assert f"lengths=np.full(len(X), {length})" in message
        if fit_as != "equal":  # the fit's series were padded: say so
            assert "the length its series were padded to" in message
        # ... and the ways out the message names work, at any length
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # whole series: no padding warning either
            by_lengths = getattr(model, method)(X, lengths=np.full(len(X), length))
            by_list = getattr(model, method)(list(X))
        np.testing.assert_allclose(by_lengths, by_list)


def test_another_length_keeps_scikit_learns_words_for_2d_X():
    # scikit-learn's check_n_features_in_after_fitting matches this opening
    model = SSMClassifier(**TINY).fit(np.zeros((8, 16)), np.arange(8) % 2)
    with pytest.raises(ValueError, match="X has 18 features, but SSMClassifier is expecting 16 "
                       "features as input"):
        model.predict(np.zeros((3, 18)))


def test_models_that_need_the_fit_length_say_why():
    from sktdi import SpectralAlignmentTransformer

    X = np.random.default_rng(0).normal(size=(8, 16))
    bank = SpectralAlignmentTransformer(n_filters=2, d_state=4, features="sequence")
    bank.fit(X, np.arange(8) % 2)
    with pytest.raises(ValueError) as info:
        bank.transform(np.zeros((2, 18)))
    message = str(info.value)
    assert "features='sequence'" in message and "lengths=" not in message.split(":", 1)[0]
    assert "pass lengths=" not in message  # no way out that would fail in turn


# ---- padding that is NaN, empty series, zero lengths, the channel axis --------------------
@pytest.mark.parametrize("name", ALL_MODELS)
def test_nan_padding_with_lengths_is_read_as_zero_padding(name):
    # sktime's unequal-length panels and the UCR files pad with NaN; before, scikit-learn's
    # "Input X contains NaN" refused it although lengths= said where each series ends
    X, lengths, y = _padded()
    y = _target(name, y)
    with_nan = X.copy()
    with_nan[np.arange(16) >= lengths[:, None, None]] = np.nan
    method = OUTPUTS[name][0]
    zeros = _call(_model(name).fit(X, y, lengths=lengths), method, X, y, lengths=lengths)
    nans = _call(_model(name).fit(with_nan, y, lengths=lengths), method, with_nan, y,
                 lengths=lengths)
    np.testing.assert_array_equal(nans, zeros)
    assert np.isnan(with_nan).any()  # the caller's array is left as it was


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_within_a_series_length_is_named(bad):
    X, lengths, y = _padded()
    X[3, 0, 5] = bad  # series 3 has 16 steps: step 5 is inside it
    word = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=rf"X contains {word} within series 3's length \(16 "
                       r"steps\): channel 0, step 5; a series needs finite values \(only "
                       r"right-padding past a series' length, where lengths= says it begins"):
        SSMClassifier(**TINY).fit(X, y, lengths=lengths)
    with pytest.raises(ValueError, match="within series 3's length"):
        _fitted().predict(X, lengths=lengths)


def test_nan_padding_needs_lengths():
    X, lengths, y = _padded()
    X[np.arange(16) >= lengths[:, None, None]] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SSMClassifier(**TINY).fit(X, y)  # without lengths= the NaN is data: refused


def test_nan_padding_without_lengths_points_to_lengths():
    # before: scikit-learn's "Input X contains NaN ... HistGradientBoostingClassifier"
    X, lengths, y = _padded()
    X[np.arange(16) >= lengths[:, None, None]] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN at the end of 6 series \(series 0 "
                       r"from step 10 on\), as right-padding to one length does\. Pass each series' "
                       r"true length with lengths="):
        SSMClassifier(**TINY).fit(X, y)
    with pytest.raises(ValueError, match="at the end of 6 series"):
        _fitted().predict(X[:, 0, :])
    X[2] = np.nan  # a series NaN from its first step is no padding: lengths= cannot help
    with pytest.raises(ValueError, match=r"X contains NaN: series 0, channel 0, step 10; a "
                       r"series needs finite values"):
        SSMClassifier(**TINY).fit(X, y)


@pytest.mark.parametrize("pad", [np.nan, np.inf, -np.inf])
def test_infinite_padding_and_padding_in_some_channels_are_padding(pad):
    X = np.random.default_rng(0).normal(size=(8, 2, 16))
    lengths = np.array([16, 12, 10, 16, 9, 14, 16, 11])
    y = np.arange(8) % 2
    padded = X.copy()
    past = np.arange(16) >= lengths[:, None]  # (n, L)
    padded[:, 1][past] = pad  # the padding of one channel only
    zeros = X * ~past[:, None, :]
    clf = SSMClassifier(**TINY).fit(zeros, y, lengths=lengths)
    other = SSMClassifier(**TINY).fit(padded, y, lengths=lengths)
    np.testing.assert_array_equal(other.predict_proba(padded, lengths=lengths),
                                  clf.predict_proba(zeros, lengths=lengths))
    if np.isnan(pad):  # NaN to the end of a channel's row, without lengths=: the hint
        with pytest.raises(ValueError, match=r"at the end of 5 series \(series 1 from step 12 "
                           r"on\), as right-padding"):
            SSMClassifier(**TINY).fit(padded, y)


def test_nan_padding_in_a_data_frame_and_an_object_array():
    pd = pytest.importorskip("pandas")
    X, lengths, y = _padded()
    flat = X[:, 0, :].copy()
    flat[np.arange(16) >= lengths[:, None]] = np.nan
    zeros = np.nan_to_num(flat)
    expected = SSMClassifier(**TINY).fit(zeros, y, lengths=lengths).predict_proba(
        zeros, lengths=lengths)
    for given in (pd.DataFrame(flat, columns=[f"t{i}" for i in range(16)]), flat.astype(object)):
        clf = SSMClassifier(**TINY).fit(given, y, lengths=lengths)
        np.testing.assert_array_equal(clf.predict_proba(given, lengths=lengths), expected)
        with pytest.raises(ValueError, match="at the end of 6 series"):
            SSMClassifier(**TINY).fit(given, y)
    frame = pd.DataFrame(flat, columns=[f"t{i}" for i in range(16)])
    assert list(SSMClassifier(**TINY).fit(frame, y, lengths=lengths).feature_names_in_) == list(
        frame.columns)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_infinity_inside_series_is_located(bad):
    X, _, y = _padded()
    X[2, 0, 4] = bad
    word = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=rf"X contains {word}: series 2, channel 0, step 4"):
        SSMClassifier(**TINY).fit(X, y)
    series = _series([5, 6, 7, 5, 6, 7, 5, 8])
    series[6][3] = bad  # in a list: within the series' own length
    with pytest.raises(ValueError, match=rf"X contains {word} within series 6's length \(5 "
                       r"steps\): channel 0, step 3"):
        SSMClassifier(**TINY).fit(series, np.arange(8) % 2)


def test_an_empty_1d_series_among_multichannel_ones_is_named_as_empty():
    # before: "the series differ in their number of channels ([1, 3])"
    series = [np.ones((3, 5))] * 7 + [np.array([])]
    with pytest.raises(ValueError, match=r"series 7 of X is empty"):
        pad_sequences(series)


def test_lengths_with_a_fraction_say_whole_numbers():
    X, lengths, _ = _padded()
    with pytest.raises(TypeError, match=r"lengths must be whole numbers .* with a fraction"):
        _fitted().predict(X, lengths=lengths + 0.5)
    # whole numbers as floats: fine (for the network: a fast path fitted on series of one
    # length takes no others, test_one_model)
    _fitted().set_params(fast_path=False).fit(X[:, 0], np.arange(8) % 2).predict(
        X, lengths=lengths.astype(float)
    )


@pytest.mark.parametrize("name", ALL_MODELS)
def test_an_option_group_given_as_a_dict_says_how_it_goes_in(name):
    # before: scikit-learn's "must be None or an instance of TDIOptions", nothing more
    import sktdi
    from sklearn.utils._param_validation import InvalidParameterError

    X, _, y = _padded()
    model = getattr(sktdi, name)(tdi={"spread": 0.5})
    with pytest.raises(InvalidParameterError, match=r"The 'tdi' parameter of \w+ must be None "
                       r"or an instance of TDIOptions\. Got \{'spread': 0\.5\} instead: a "
                       r"dict of its fields goes in as tdi=TDIOptions\(\*\*fields\)"):
        model.fit(X[:, 0, :], _target(name, y))


@pytest.mark.parametrize("where", ["fit", "predict"])
def test_an_empty_series_in_a_list_is_named(where):
    # before: "lengths must lie in [1, 5]", a lengths= the caller never passed
    series = _series([5, 6, 7, 5, 6, 7, 5, 0])
    call = (lambda: SSMClassifier(**TINY).fit(series, np.arange(8) % 2)) if where == "fit" \
        else (lambda: _fitted().predict(series))
    with pytest.raises(ValueError, match=r"series 7 of X is empty \(0 time steps\)"):
        call()


@pytest.mark.parametrize("name", ALL_MODELS)
def test_length_zero_gives_no_lengths_advice_that_would_fail(name):
    model = _other_lengths(name, "equal")
    with pytest.raises(ValueError) as info:
        getattr(model, OUTPUTS[name][0])(np.zeros((2, 1, 0)))
    message = str(info.value)
    assert re.search(r"needs series of at least [12] time step", message)
    assert "lengths=" not in message


@pytest.mark.parametrize("name", list(FAST_PATH))
def test_series_too_short_for_the_bank_get_no_lengths_advice(name):
    # before: "pass lengths=np.full(len(X), 1)", which the bank (it filters the first
    # difference too) then refused
    model = _other_lengths(name, "equal")
    with pytest.raises(ValueError, match=r"needs series of at least 2 time steps$") as info:
        getattr(model, OUTPUTS[name][0])(np.zeros((2, 1, 1)))
    assert "lengths=" not in str(info.value)


def test_a_zero_length_names_its_series():
    X, lengths, _ = _padded()
    lengths[4] = 0
    with pytest.raises(ValueError, match=r"a series needs at least 1 time step\); got \[0, 16\], "
                       r"first series 4: 0"):
        _fitted().predict(X, lengths=lengths)


def test_2d_X_for_a_multichannel_model_names_the_channels():
    # before: scikit-learn's "X has 16 features, but SSMClassifier is expecting 3 features"
    X = np.random.default_rng(0).normal(size=(8, 3, 16))
    model = SSMClassifier(**TINY).fit(X, np.arange(8) % 2)
    with pytest.raises(ValueError, match=r"X is 2-D \(8, 16\), a panel of univariate series .*"
                       r"fitted on 3 channels: pass X as a 3-D array \(n_samples, 3, length\)"):
        model.predict(X[:, 0, :])


# ---- a list of series given with lengths= ------------------------------------------------
@pytest.mark.parametrize("name", ALL_MODELS)
def test_a_list_of_series_with_lengths_is_refused_by_every_method(name):
    """Before: a list of series of one length, given with lengths=, was read as padded X:
    each series silently cut to its value. A list carries its own lengths, whatever they
    are: lengths= with one is an error, in fit and in every method that takes X."""
    X, _, y = _padded()
    y = _target(name, y)
    whole = list(np.random.default_rng(1).normal(size=(8, 16)))  # one length
    ragged = [x[: 10 + i] for i, x in enumerate(whole)]
    cut = np.full(8, 10)
    for series in (whole, ragged):
        with pytest.raises(ValueError, match="carry their own lengths: pass lengths=None"):
            _model(name).fit(series, y, lengths=cut)
    fitted = _model(name)
    if name.startswith("SSM"):  # as in test_another_length_says_lengths_or_a_list_is_the_way
        fitted.set_params(fast_path=False)
    fitted.fit(X, y)
    padded, lengths = pad_sequences(ragged)
    for method in OUTPUTS[name]:
        for series in (whole, ragged):
            with pytest.raises(ValueError, match="pass lengths=None"):
                _call(fitted, method, series, y, lengths=cut)
        # the two ways the error offers: the list as it is, or one array with its lengths
        np.testing.assert_allclose(
            _call(fitted, method, ragged, y), _call(fitted, method, padded, y, lengths=lengths)
        )


# ---- unknown keywords ---------------------------------------------------------------------
@pytest.mark.parametrize("name", PUBLIC_ESTIMATORS)
def test_an_unknown_keyword_names_the_class_and_the_keyword(name):
    # before: "_SpectralRidge.__init__() got an unexpected keyword argument 'n_epochs'" (a
    # private class), or Python's own words for the transformer
    import sktdi

    cls = getattr(sktdi, name)
    with pytest.raises(TypeError) as info:
        cls(n_epochs=3)
    message = str(info.value)
    assert message.startswith(f"{name} got an unexpected parameter 'n_epochs'")
    assert message.endswith(f"{name}().get_params() lists its parameters")
    assert "__init__" not in message and "_Spectral" not in message and "_Base" not in message
    if "SSM" in name:
        assert "(did you mean max_epochs?)" in message
    else:  # nothing close: no guess
        assert "did you mean" not in message
    with pytest.raises(TypeError, match=r"unexpected parameters 'n_epochs', 'verbosity'"):
        cls(n_epochs=3, verbosity=1)


@pytest.mark.parametrize(
    "name, typo, meant",
    [
        ("SpectralRidgeClassifier", "n_filter", "n_filters"),
        ("SpectralAlignmentTransformer", "batchsize", "batch_size"),
        ("SSMRegressor", "randomstate", "random_state"),
    ],
)
def test_an_unknown_keyword_close_to_a_parameter_names_it(name, typo, meant):
    import sktdi

    with pytest.raises(TypeError, match=rf"^{name} got an unexpected parameter '{typo}' "
                       rf"\(did you mean {meant}\?\)"):
        getattr(sktdi, name)(**{typo: 1})


@pytest.mark.parametrize(
    "name", ["SktimeSSMClassifier", "SktimeSSMRegressor", "SktimeSpectralRidgeClassifier"]
)
def test_an_unknown_keyword_to_the_sktime_adapters(name):
    pytest.importorskip("sktime")
    import sktdi.sktime

    with pytest.raises(TypeError, match=f"^{name} got an unexpected parameter 'n_epochs'"):
        getattr(sktdi.sktime, name)(n_epochs=3)


# ---- warnings from fit point at the user's call ------------------------------------------
def test_fit_warnings_point_at_the_callers_line():
    # before: fit's warning pointed into scikit-learn's base.py (its _fit_context wrapper);
    # the wrapper that restores a failed fit adds a frame to every path, which a fixed
    # stacklevel would not follow
    import warnings

    from sktdi import SpectralAlignmentTransformer
    from sktdi.tdi import TaskSpectrum, TDIOptions

    X, y = np.random.default_rng(0).normal(size=(8, 16)), np.arange(8) % 2
    given = dict(init="s4d-lin", tdi=TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.2])))
    calls = {
        "fit": lambda: SSMClassifier(**TINY, **given).fit(X, y),
        "partial_fit": lambda: SSMClassifier(**TINY, **given).partial_fit(X, y, classes=[0, 1]),
        "tdi skipped": lambda: SSMClassifier(**TINY).partial_fit(X[:1], y[:1], classes=[0, 1]),
        "transformer": lambda: SpectralAlignmentTransformer(n_filters=2, d_state=4, **given).fit(X),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        ours = [w for w in caught if "tdi.spectrum is ignored" in str(w.message)
                or "TDI skipped" in str(w.message)]
        assert len(ours) == 1 and ours[0].filename == __file__, (name, ours[:1])


# ---- a time column in sktime's frames ---------------------------------------------------------
@pytest.mark.parametrize("form", ["df-list", "pd-multiindex"])
def test_a_column_that_rises_at_every_step_is_named_as_a_likely_time_column(form):
    pd = pytest.importorskip("pandas")
    from sktdi import SpectralRidgeClassifier

    rng = np.random.default_rng(0)
    frames = [
        pd.DataFrame({"t_ms": 10.0 * np.arange(n), "ax": rng.normal(size=n)})
        for n in (30, 40, 35, 30, 45, 30)
    ]
    X = frames
    if form == "pd-multiindex":
        X = pd.concat(frames, keys=range(len(frames)))
    y = np.arange(len(frames)) % 2
    with pytest.warns(UserWarning, match=r"column 't_ms' of X \(sktime's " + form) as caught:
        SpectralRidgeClassifier(n_filters=4, d_state=4, random_state=0).fit(X, y)
    assert all("'ax'" not in str(w.message) for w in caught)
    assert all(w.filename == __file__ for w in caught if "t_ms" in str(w.message))
    # a signal that falls somewhere is no clock: no warning
    frames[2].loc[5, "t_ms"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        from sktdi.utils.panels import read_sktime_panel

        read_sktime_panel(frames)
