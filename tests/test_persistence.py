"""est.save(path) / sktdi.load(path): exact round trips, device mapping, and refusal of every
file that is not an intact sktdi archive (never a half-loaded model, never code execution)."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import pickle
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import LabelEncoder, MinMaxScaler

import sktdi
from sktdi import SpectralAlignmentTransformer, SSMClassifier, SSMRegressor
from sktdi.tdi import TaskSpectrum, TDIOptions

# on the CPU everywhere, so that round trips compare bit for bit (a GPU's own test is below)
FAST = dict(
    d_model=4, n_layers=1, d_state=4, max_epochs=2, batch_size=8, random_state=0, device="cpu"
)
BANK = dict(n_filters=4, d_state=4, random_state=0)


def planted(n_per_class=10, length=24, labels=("calm", "ringing"), n_channels=None, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.asarray(labels), n_per_class)
    shape = (len(y), length) if n_channels is None else (len(y), n_channels, length)
    X = rng.normal(size=shape)
    X[y == labels[1]] += np.sin(2 * np.pi * 0.3 * np.arange(length))
    return X, y


def quietly_fit(estimator, X, y=None, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tiny data: TDI's and skorch's warnings are expected
        return estimator.fit(X, y, **kwargs)


def round_trip(estimator, tmp_path, name="model.sktdi"):
    path = tmp_path / name
    estimator.save(path)
    return sktdi.load(path)


# ---- exact equality of fitted state -------------------------------------------------------


def assert_same(a, b, where="estimator"):
    """Same types, dtypes, shapes and values, all the way down."""
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    if isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, torch.Tensor):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert torch.equal(a.cpu(), b.cpu()), where
    elif dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            assert_same(getattr(a, field.name), getattr(b, field.name), f"{where}.{field.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), where
    elif isinstance(a, LabelEncoder):
        assert_same(a.classes_, b.classes_, f"{where}.classes_")
    elif isinstance(a, torch.nn.Module):
        assert_same(a.state_dict(), b.state_dict(), f"{where}.state_dict()")
        assert a.training == b.training, where
    elif hasattr(a, "module_"):  # a skorch net: its state (callbacks start afresh each fit)
        assert_same(a.module_, b.module_, f"{where}.module_")
        assert_same(a.optimizer_.state_dict(), b.optimizer_.state_dict(), f"{where}.optimizer_")
        assert_same(a.history.to_list(), b.history.to_list(), f"{where}.history")
        assert_same(
            getattr(a, "classes_inferred_", None), getattr(b, "classes_inferred_", None), where
        )
        assert a.device == b.device, where
        splits = [getattr(net.train_split, "__dict__", None) for net in (a, b)]
        assert splits[0] == splits[1], f"{where}.train_split"
    elif hasattr(a, "get_params"):
        assert_same_estimator(a, b, where)
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def assert_same_estimator(a, b, where="estimator"):
    assert type(a) is type(b), where
    assert_same(a.get_params(deep=False), b.get_params(deep=False), f"{where}.get_params()")
    fitted = {k: v for k, v in vars(a).items() if k != "_inference_modules"}
    assert set(fitted) == {k for k in vars(b) if k != "_inference_modules"}, where
    for name, value in fitted.items():
        if name not in a.get_params(deep=False):
            assert_same(value, vars(b)[name], f"{where}.{name}")


# ---- round trips --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def classifier():
    X, y = planted(n_channels=2)
    return quietly_fit(SSMClassifier(**FAST), X, y), X, y


@pytest.mark.parametrize(
    "params",
    [
        {},
        # an ensemble, a bidirectional layer and a validation split (its seed is rebuilt)
        dict(
            n_estimators=2, network="s4d", bidirectional=True, validation_fraction=0.25,
            init="auto",
        ),
    ],
    ids=["default", "ensemble-validation"],
)
def test_classifier_round_trip_is_exact(params, tmp_path):
    X, y = planted(n_channels=2)
    clf = quietly_fit(SSMClassifier(**FAST, **params), X, y)
    loaded = round_trip(clf, tmp_path)
    assert_same_estimator(clf, loaded)
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    assert loaded.score(X, y) == clf.score(X, y)
    assert loaded.classes_.dtype == clf.classes_.dtype and loaded.history_ == clf.history_


def test_regressor_round_trip_is_exact_multi_output_and_lengths(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(16, 20))
    Y = np.stack([X[:, -4:].mean(axis=1), X[:, :4].std(axis=1)], axis=1)
    lengths = rng.integers(10, 21, size=16)
    reg = quietly_fit(SSMRegressor(**FAST), X, Y, lengths=lengths)
    loaded = round_trip(reg, tmp_path)
    assert_same_estimator(reg, loaded)
    np.testing.assert_array_equal(
        loaded.predict(X, lengths=lengths), reg.predict(X, lengths=lengths)
    )
    np.testing.assert_array_equal(loaded.frequency_response()[1], reg.frequency_response()[1])


@pytest.mark.parametrize("estimator_class", [SSMClassifier, SSMRegressor])
def test_a_deep_model_fitted_on_float32_series_saves_and_loads(estimator_class, tmp_path):
    # float32 input (what audio tools hand over) made float32 standardization statistics,
    # which save refused as not the declared float64; found by a new-user trial
    X, y = planted(n_channels=2)
    X = X.astype(np.float32)
    target = y if estimator_class is SSMClassifier else X[:, 0, -4:].mean(axis=1)
    model = quietly_fit(estimator_class(**FAST), X, target)
    assert model.input_mean_.dtype == model.input_scale_.dtype == np.float64
    loaded = round_trip(model, tmp_path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize(
    "params",
    [
        dict(features="stats"),
        dict(features="multirocket", n_biases=2),
        dict(features="sequence", init="s4d-lin"),
        # a given spectrum: a TaskSpectrum among the parameters
        dict(tdi=TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.3], n_bins=17))),
    ],
    ids=["stats", "multirocket", "sequence", "given-spectrum"],
)
def test_transformer_round_trip_is_exact(params, tmp_path):
    X, y = planted()
    bank = quietly_fit(SpectralAlignmentTransformer(**BANK, **params), X, y)
    loaded = round_trip(bank, tmp_path)
    assert_same_estimator(bank, loaded)
    np.testing.assert_array_equal(loaded.transform(X), bank.transform(X))
    np.testing.assert_array_equal(loaded.get_feature_names_out(), bank.get_feature_names_out())
    assert loaded.get_feature_names_out().dtype == object


def test_loaded_classifier_keeps_training_as_the_original(classifier, tmp_path):
    # the optimizer state round-trips: one more epoch gives the same weights
    clf, X, y = classifier
    loaded = round_trip(clf, tmp_path)
    original = pickle.loads(pickle.dumps(clf))  # the fixture stays as it is
    for model in (original, loaded):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.partial_fit(X, y)
    assert_same(loaded.net_.module_.state_dict(), original.net_.module_.state_dict())
    np.testing.assert_array_equal(loaded.predict_proba(X), original.predict_proba(X))


def test_feature_names_labels_and_pickle_of_a_loaded_model(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = planted(labels=(3, 7))
    frame = pd.DataFrame(X, columns=[f"t{i}" for i in range(X.shape[1])])
    clf = quietly_fit(SSMClassifier(**FAST), frame, y.astype(np.int32))
    loaded = round_trip(clf, tmp_path)
    assert loaded.classes_.dtype == np.int32
    assert_same(loaded.feature_names_in_, clf.feature_names_in_)
    np.testing.assert_array_equal(loaded.predict(frame), clf.predict(frame))
    # a loaded model pickles as any other
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(loaded)).predict(frame), clf.predict(frame)
    )


def test_save_accepts_str_and_pathlike_and_is_deterministic(classifier, tmp_path):
    clf, X, _ = classifier
    clf.save(str(tmp_path / "a.sktdi"))
    clf.save(tmp_path / "b.sktdi")
    assert (tmp_path / "a.sktdi").read_bytes() == (tmp_path / "b.sktdi").read_bytes()
    np.testing.assert_array_equal(sktdi.load(str(tmp_path / "b.sktdi")).predict(X), clf.predict(X))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sktdi", "b.sktdi"]  # no temp files


def test_save_and_load_take_binary_file_objects(classifier, tmp_path):
    import io

    clf, X, _ = classifier
    buffer = io.BytesIO()
    clf.save(buffer)
    clf.save(tmp_path / "a.sktdi")
    assert buffer.getvalue() == (tmp_path / "a.sktdi").read_bytes()
    buffer.seek(0)
    np.testing.assert_array_equal(sktdi.load(buffer).predict(X), clf.predict(X))
    with open(tmp_path / "a.sktdi", "rb") as file:
        np.testing.assert_array_equal(sktdi.load(file).predict(X), clf.predict(X))
    with open(tmp_path / "a.sktdi", "r", encoding="latin-1") as text, \
            pytest.raises(TypeError, match="open it with 'rb'"):
        sktdi.load(text)
    for bad in (5, None, b"model.sktdi"):  # before: pathlib's "expected str, bytes or ..."
        with pytest.raises(TypeError, match=r"save takes a file path .* or a binary file object"):
            clf.save(bad)
    for bad in (5, None):
        with pytest.raises(TypeError, match=r"load takes a file path"):
            sktdi.load(bad)
    with pytest.raises(TypeError, match=r"not the file's bytes: load\(io.BytesIO\(data\)\)"):
        sktdi.load(buffer.getvalue())
    with pytest.raises(ValueError, match=r"at its end .* seek\(0\) first"):
        sktdi.load(buffer)  # read to its end above
    with open(tmp_path / "t.sktdi", "w") as text, pytest.raises(TypeError, match="'wb'"):
        clf.save(text)
    with open(tmp_path / "a.sktdi", "rb") as readable, pytest.raises(TypeError, match="'wb'"):
        clf.save(readable)
    with open(tmp_path / "w.sktdi", "wb") as writable, pytest.raises(TypeError, match="'rb'"):
        sktdi.load(writable)
    with open(tmp_path / "a.sktdi", encoding="utf-8") as text, pytest.raises(TypeError,
                                                                          match="'rb'"):
        sktdi.load(text)


def test_sktime_adapters_round_trip(tmp_path):
    pytest.importorskip("sktime")
    pd = pytest.importorskip("pandas")
    from sktime.base import load as sktime_load

    from sktdi.sktime import SktimeSSMClassifier, SktimeSSMRegressor

    X, y = planted(n_channels=2)
    rng = np.random.default_rng(0)
    # a df-list of unequal lengths: sktime records dtype kinds, the estimator pads and masks
    frames = [pd.DataFrame(X[i, :, : 16 + i % 5].T) for i in range(len(X))]
    clf = quietly_fit(SktimeSSMClassifier(**FAST), frames, y)
    loaded = round_trip(clf, tmp_path, "clf.sktdi")
    assert_same_estimator(clf, loaded)
    np.testing.assert_array_equal(loaded.predict(frames), clf.predict(frames))
    np.testing.assert_array_equal(loaded.predict_proba(frames), clf.predict_proba(frames))
    # in memory, through sktime's own loader: the bytes are the sktdi archive
    kind, data = clf.save()
    assert kind is SktimeSSMClassifier and data[:2] == b"PK"
    np.testing.assert_array_equal(sktime_load((kind, data)).predict(frames), clf.predict(frames))
    # sktime's pickle formats stay available
    assert sktime_load(clf.save(serialization_format="pickle")).predict(frames).shape == (20,)

    target = rng.normal(size=len(X))
    reg = quietly_fit(SktimeSSMRegressor(**FAST), X, target)
    loaded = round_trip(reg, tmp_path, "reg.sktdi")
    assert_same_estimator(reg, loaded)
    np.testing.assert_array_equal(loaded.predict(X), reg.predict(X))


def test_sktime_load_reads_the_adapters_files_without_unpickling_their_state(
    classifier, tmp_path, monkeypatch
):
    # before: save("estimator") wrote a bare sktdi archive at "estimator", and
    # sktime.base.load("estimator") said "The given save location ... was not found"
    pytest.importorskip("sktime")
    from sktime.base import load as sktime_load

    from sktdi.sktime import SktimeSSMClassifier

    _, X, y = classifier
    clf = quietly_fit(SktimeSSMClassifier(**FAST), X, y)
    expected = clf.predict_proba(X)
    # sktime's convention: a name without a suffix gets .zip, where sktime.base.load looks
    written = clf.save(str(tmp_path / "estimator"))
    assert written == tmp_path / "estimator.zip" and written.is_file()
    with zipfile.ZipFile(written) as archive:
        assert sorted(archive.namelist()) == ["_metadata", "_obj"]
        assert archive.read("_obj")[:2] == b"PK"  # the sktdi archive
    unpickled = []
    real_loads = pickle.loads

    def spy(data, *args, **kwargs):  # sktime's loader unpickles _metadata: the class only
        unpickled.append(real_loads(data, *args, **kwargs))
        return unpickled[-1]

    with monkeypatch.context() as patch:
        patch.setattr(pickle, "loads", spy)
        loaded = sktime_load(str(tmp_path / "estimator"))
    assert unpickled == [SktimeSSMClassifier] and type(loaded) is SktimeSSMClassifier
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    with monkeypatch.context() as patch:  # sktdi.load reads the same file, unpickling nothing
        refusing_to_unpickle(patch)
        loaded = sktdi.load(written)
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    # a name with a suffix is written as it is, and both loaders read it
    assert clf.save(tmp_path / "clf.sktdi") == tmp_path / "clf.sktdi"
    np.testing.assert_array_equal(sktime_load(tmp_path / "clf.sktdi").predict_proba(X), expected)
    np.testing.assert_array_equal(sktdi.load(tmp_path / "clf.sktdi").predict_proba(X), expected)
    # sktime's own pickle files still go through sktime's loader
    clf.save(str(tmp_path / "pickled"), serialization_format="pickle")
    np.testing.assert_array_equal(sktime_load(str(tmp_path / "pickled")).predict(X), clf.predict(X))


def test_an_altered_sktime_class_reference_is_refused(classifier, tmp_path):
    # sktime.base.load would unpickle _metadata: sktdi.load accepts only the exact class
    # reference save writes, so a file it loads holds nothing else for sktime's loader to run
    pytest.importorskip("sktime")
    from sktdi.sktime import SktimeSSMClassifier, SktimeSSMRegressor

    _, X, y = classifier
    path = quietly_fit(SktimeSSMClassifier(**FAST), X, y).save(tmp_path / "clf.zip")
    with zipfile.ZipFile(path) as archive:
        inner = archive.read("_obj")
    for name, reference in [
        ("code", pickle.dumps(print)),  # any callable: what a malicious file would hold
        ("other-class", pickle.dumps(SktimeSSMRegressor, protocol=4)),
    ]:
        with zipfile.ZipFile(tmp_path / f"{name}.zip", "w") as archive:
            archive.writestr("_metadata", reference)
            archive.writestr("_obj", inner)
        with pytest.raises(ValueError, match="_metadata member .* SktimeSSMClassifier"):
            sktdi.load(tmp_path / f"{name}.zip")
    # sktime's own pickle file is not an sktdi one: its _obj is a pickle, never read
    with zipfile.ZipFile(tmp_path / "pickled.zip", "w") as archive:
        archive.writestr("_metadata", pickle.dumps(SktimeSSMClassifier))
        archive.writestr("_obj", pickle.dumps(None))
    with pytest.raises(ValueError, match=r"pickled.zip is in sktime's pickle format"):
        sktdi.load(tmp_path / "pickled.zip")


@pytest.mark.parametrize("serialization_format", ["pickle", "cloudpickle"])
def test_sktime_pickle_files_are_named_with_the_loader_that_reads_them(
    serialization_format, tmp_path, monkeypatch
):
    # before: "its _obj member is implausibly large" (sktime deflates the pickle, which is
    # then larger than the file), as if the file were damaged or a zip bomb
    pytest.importorskip("sktime")
    if serialization_format == "cloudpickle":
        pytest.importorskip("cloudpickle")
    from sktdi.sktime import SktimeSpectralRidgeClassifier

    X, y = planted(n_channels=2)
    adapter = SktimeSpectralRidgeClassifier(**BANK).fit(X, y)
    adapter.save(str(tmp_path / "model"), serialization_format=serialization_format)
    with monkeypatch.context() as patch, pytest.raises(ValueError) as info:
        refusing_to_unpickle(patch)
        sktdi.load(tmp_path / "model.zip")
    message = str(info.value)
    assert "model.zip is in sktime's pickle format" in message
    assert "sktdi.load never reads" in message and "sktime.base.load" in message
    assert "save(path)" in message  # the default format, which sktdi.load reads
    assert "implausibly" not in message


# ---- what cannot be saved -----------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: SSMClassifier(),
        lambda: SSMRegressor(),
        lambda: SpectralAlignmentTransformer(),
        lambda: pytest.importorskip("sktdi.sktime").SktimeSSMClassifier(),
        lambda: pytest.importorskip("sktdi.sktime").SktimeSSMRegressor(),
    ],
    ids=["classifier", "regressor", "transformer", "sktime-classifier", "sktime-regressor"],
)
def test_unfitted_estimator_cannot_be_saved(make, tmp_path):
    with pytest.raises(NotFittedError):
        make().save(tmp_path / "model.sktdi")
    assert not (tmp_path / "model.sktdi").exists()


def test_saving_into_a_missing_folder_names_the_folder(tmp_path, monkeypatch):
    # before: "No such file or directory: '.../m.sktditn8sn9pt.tmp'", the temporary file
    bank = SpectralAlignmentTransformer(**BANK, init="s4d-lin").fit(planted()[0])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        bank.save("no/such/dir/m.sktdi")
    message = str(info.value)
    assert "the folder no/such/dir does not exist" in message and ".tmp" not in message
    assert not (tmp_path / "no").exists()  # nothing created
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="file is not a folder"):
        bank.save(tmp_path / "file" / "m.sktdi")


@pytest.mark.parametrize("form", ["str", "slash", "path", "new-slash"])
def test_saving_to_a_folder_asks_for_a_file_name(tmp_path, form):
    # before: IsADirectoryError "[Errno 21] Is a directory: '/tmpatluymjs.tmp' -> '/tmp'",
    # naming a temporary file (left behind in the folder above)
    bank = SpectralAlignmentTransformer(**BANK, init="s4d-lin").fit(planted()[0])
    folder = tmp_path / "models"
    folder.mkdir()
    target = {
        "str": str(folder), "slash": f"{folder}/", "path": folder, "new-slash": f"{folder}/new/"
    }[form]
    with pytest.raises(IsADirectoryError) as info:
        bank.save(target)
    message = str(info.value)
    assert message.startswith(f"cannot save to {target}: it ") and ".tmp" not in message
    assert "give a file name" in message
    inside = Path(str(target).rstrip("/")) / "model.sktdi"
    assert f"save({str(inside)!r})" in message
    # nothing written anywhere, no temporary file left beside the folder
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["models"]
    if form != "new-slash":
        bank.save(inside)  # the way out works
        assert sktdi.load(inside).n_filters == bank.n_filters


def test_values_without_a_safe_encoding_are_named(tmp_path):
    X, _ = planted()
    bank = SpectralAlignmentTransformer(**{**BANK, "random_state": np.random.RandomState(0)})
    bank = quietly_fit(bank.set_params(init="s4d-lin"), X)
    with pytest.raises(ValueError, match="parameter 'random_state' .* RandomState.*an int"):
        bank.save(tmp_path / "bank.sktdi")
    bank.set_params(random_state=0)
    bank.__dict__["tdi"] = MinMaxScaler()  # an estimator object as a parameter
    with pytest.raises(ValueError, match="parameter 'tdi' .* MinMaxScaler"):
        bank.save(tmp_path / "bank.sktdi")
    bank.__dict__["tdi"] = None
    bank.callback_ = {"hook": print}  # a callable, nested in a fitted attribute
    with pytest.raises(ValueError, match=r"attribute 'callback_' .* \(at hook\)") as info:
        bank.save(tmp_path / "bank.sktdi")
    # what fit made cannot be "set" to another value: no parameter's advice for an attribute
    assert "random_state" not in str(info.value) and "set it" not in str(info.value)
    assert not (tmp_path / "bank.sktdi").exists()


def test_subclasses_and_changed_architectures_are_refused(classifier, tmp_path):
    clf, _, _ = classifier

    class MyClassifier(SSMClassifier):
        pass

    mine = MyClassifier()
    mine.__dict__.update({k: v for k, v in vars(clf).items() if k not in clf.get_params()})
    with pytest.raises(TypeError, match="MyClassifier cannot be saved"):
        mine.save(tmp_path / "m.sktdi")
    # the default conv-s4d network takes d_model as four branches of n_filters, and n_layers
    # as its depth: the error names the estimator's parameters, not the network's
    for params, named in [
        ({"d_model": clf.d_model + 4}, f"d_model={clf.d_model + 4} now, {clf.d_model} at fit"),
        ({"n_layers": clf.n_layers + 1}, f"n_layers={clf.n_layers + 1} now, {clf.n_layers} at"),
        ({"network": "s4d"}, "network='s4d' now, 'conv-s4d' at fit"),
        ({"n_estimators": 2}, "n_estimators=2 now, 1 at fit"),
        ({"dropout": 0.5, "pooling": "max"}, "dropout=0.5 now, 0.0 at fit; pooling='max' now"),
    ]:
        changed = pickle.loads(pickle.dumps(clf)).set_params(**params)
        with pytest.raises(ValueError, match="changed since fit") as info:
            changed.save(tmp_path / "m.sktdi")
        message = str(info.value)
        assert named in message, message
        assert "n_filters" not in message and "depth" not in message
        # the values the fitted network has ("auto" resolved: network_params_)
        fitted = {**clf.get_params(), **clf.network_params_}
        assert f"set_params({', '.join(f'{k}={fitted[k]!r}' for k in params)})" in message
    s4d = SSMClassifier(network="s4d", d_model=8, n_layers=1, d_state=8, max_epochs=1)
    s4d.fit(*classifier[1:])
    with pytest.raises(ValueError, match="changed since fit: d_model=6 now, 8 at fit"):
        pickle.loads(pickle.dumps(s4d)).set_params(d_model=6).save(tmp_path / "s.sktdi")


FAST_PATH_MODELS = [
    "SpectralRidgeClassifier", "SpectralRidgeRegressor", "SpectralAlignmentTransformer"
]


def fast_path_model(name, **params):
    X, labels = planted()
    y = labels if name != "SpectralRidgeRegressor" else (labels == "ringing") * 1.5
    return getattr(sktdi, name)(**{**BANK, **params}).fit(X, y), X


def outputs(model, X):
    return model.transform(X) if hasattr(model, "transform") else model.predict(X)


@pytest.mark.parametrize("name", FAST_PATH_MODELS)
def test_the_fast_path_refuses_to_save_parameters_changed_since_fit(name, tmp_path):
    # before: set_params(n_filters=64) then save wrote n_filters=64 beside a bank of 128
    # filters, and set_params(rocket="minirocket") a file that loaded with rocket_=None
    model, X = fast_path_model(name)
    changes = [({"n_filters": 8}, "n_filters=8 now, 4 at fit"),
               ({"init": "s4d-lin", "d_state": 6}, "d_state=6 now, 4 at fit; init='s4d-lin' now,"
                                                   " 'tdi' at fit")]
    if name != "SpectralAlignmentTransformer":
        changes.append(({"rocket": "minirocket"}, "rocket='minirocket' now, None at fit"))
    for params, named in changes:
        changed = pickle.loads(pickle.dumps(model)).set_params(**params)
        with pytest.raises(ValueError, match="changed since fit") as info:
            changed.save(tmp_path / "m.sktdi")
        message = str(info.value)
        # the deep models' wording, naming the public class and the way back
        assert message.startswith(f"the parameters of {name} no longer match its fitted model")
        assert named in message, message
        back = ", ".join(f"{k}={getattr(model, k)!r}" for k in sorted(params))
        assert message.endswith(f"refit, or set them back (set_params({back})), before saving")
        assert "_params_at_fit" not in message
        changed.set_params(**{k: getattr(model, k) for k in params}).save(tmp_path / "m.sktdi")
    assert [p.name for p in tmp_path.iterdir()] == ["m.sktdi"]  # a refused save wrote nothing
    # settings no fitted value depends on may change: a memory setting, and the seed
    model.set_params(batch_size=3, random_state=7).save(tmp_path / "m.sktdi")
    np.testing.assert_array_equal(outputs(sktdi.load(tmp_path / "m.sktdi"), X), outputs(model, X))


@pytest.mark.parametrize("name", FAST_PATH_MODELS)
def test_a_loaded_fast_path_model_with_a_given_spectrum_saves_again(name, tmp_path):
    # a parameter object is compared by value: the loaded model's tdi (its spectrum) and its
    # record of the fit's are two equal objects
    params = {"tdi": TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.3]))}
    if name != "SpectralAlignmentTransformer":
        params["alphas"] = np.array([0.1, 1.0])  # an array parameter, compared by value too
    model, X = fast_path_model(name, **params)
    loaded = round_trip(model, tmp_path)
    loaded.save(tmp_path / "again.sktdi")
    assert (tmp_path / "again.sktdi").read_bytes() == (tmp_path / "model.sktdi").read_bytes()
    other = TaskSpectrum.from_frequencies([0.1])
    with pytest.raises(ValueError, match="changed since fit: tdi="):
        loaded.set_params(tdi=TDIOptions(spectrum=other)).save(tmp_path / "changed.sktdi")


def test_loaded_and_saved_again_is_the_same_bytes(classifier, tmp_path):
    # before: the same contents in another key order (load sets the network last), though
    # persistence.md promises that the same model always saves to the same bytes
    clf, X, _ = classifier
    clf.save(tmp_path / "first.sktdi")
    sktdi.load(tmp_path / "first.sktdi").save(tmp_path / "again.sktdi")
    assert (tmp_path / "again.sktdi").read_bytes() == (tmp_path / "first.sktdi").read_bytes()
    for name in ("SpectralRidgeClassifier", "SpectralRidgeRegressor"):
        model, _ = fast_path_model(name)
        model.save(tmp_path / f"{name}.sktdi")
        sktdi.load(tmp_path / f"{name}.sktdi").save(tmp_path / f"{name}-again.sktdi")
        first = (tmp_path / f"{name}.sktdi").read_bytes()
        assert (tmp_path / f"{name}-again.sktdi").read_bytes() == first, name


# ---- devices and versions -----------------------------------------------------------------


def rewrite(source: Path, target: Path, *, metadata=None, members=None, checksums=True):
    """A copy of the archive ``source`` with its metadata edited by ``metadata(dict)`` and
    members replaced by ``members`` ({name: bytes}); checksums recomputed unless told not to."""
    with zipfile.ZipFile(source) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    contents.update(members or {})
    meta = json.loads(contents["metadata.json"])
    if checksums:
        for name, entry in meta["members"].items():
            data = contents[name]
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    if metadata is not None:
        metadata(meta)
    contents["metadata.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    return target


@pytest.fixture(scope="module")
def saved(classifier, tmp_path_factory):
    clf, X, y = classifier
    path = tmp_path_factory.mktemp("saved") / "clf.sktdi"
    clf.save(path)
    return path, clf, X


def test_a_model_saved_on_cuda_loads_on_the_cpu(saved, tmp_path, monkeypatch):
    path, clf, X = saved

    def on_cuda(meta):  # as the same model trained with device="cuda:1" writes it
        meta["estimator"]["params"]["device"] = "cuda:1"
        meta["estimator"]["attributes"]["net_"]["device"] = "cuda:1"

    cuda_file = rewrite(path, tmp_path / "cuda.sktdi", metadata=on_cuda)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # as on a CPU-only machine
    with pytest.warns(UserWarning, match="device='cuda:1', which is not available here"):
        loaded = sktdi.load(cuda_file)
    assert loaded.device == "cpu" and str(loaded.net_.device) == "cpu"
    assert next(loaded.net_.module_.parameters()).device.type == "cpu"
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_model_trained_on_cuda_loads_on_cuda_and_on_the_cpu(tmp_path, monkeypatch):
    X, y = planted()
    clf = quietly_fit(SSMClassifier(**{**FAST, "device": "cuda"}), X, y)
    clf.save(tmp_path / "gpu.sktdi")
    expected = clf.predict_proba(X)
    on_gpu = sktdi.load(tmp_path / "gpu.sktdi")
    assert next(on_gpu.net_.module_.parameters()).is_cuda
    np.testing.assert_array_equal(on_gpu.predict_proba(X), expected)
    if torch.cuda.device_count() < 2:  # a card this machine lacks
        path = rewrite(
            tmp_path / "gpu.sktdi", tmp_path / "gpu1.sktdi",
            metadata=set_in(["estimator", "params", "device"], "cuda:1"),
        )
        with pytest.warns(UserWarning, match="device='cuda:1', which is not available"):
            assert sktdi.load(path).device == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.warns(UserWarning, match="not available here"):
        on_cpu = sktdi.load(tmp_path / "gpu.sktdi")
    assert on_cpu.device == "cpu" and not next(on_cpu.net_.module_.parameters()).is_cuda
    np.testing.assert_allclose(on_cpu.predict_proba(X), expected, rtol=0, atol=1e-6)


def test_other_sktdi_and_torch_versions_warn_but_load(saved, tmp_path):
    path, clf, X = saved

    def older(meta):
        meta["sktdi_version"], meta["torch_version"] = "0.0.1", "1.13.0+cu117"

    old_file = rewrite(path, tmp_path / "old.sktdi", metadata=older)
    with pytest.warns(UserWarning) as records:
        loaded = sktdi.load(old_file)
    messages = " ".join(str(record.message) for record in records)
    assert "sktdi '0.0.1'" in messages and "torch '1.13.0+cu117'" in messages
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))


def test_the_same_versions_load_silently(saved):
    path, _, _ = saved
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sktdi.load(path)


# ---- files that are refused ---------------------------------------------------------------


def set_in(keys, value):
    def edit(meta):
        target = meta
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return edit


@pytest.mark.parametrize(
    "edit, match",
    [
        (set_in(["format_version"], 2), "format version 2 .* upgrade sktdi"),
        (set_in(["format"], "something-else"), "not an sktdi model file"),
        (set_in(["estimator", "class"], "os.system"), "class 'os.system', which is not one"),
        (
            set_in(["estimator", "attributes", "_label_encoder", "class"], "subprocess.Popen"),
            "unknown class 'subprocess.Popen'",
        ),
        (set_in(["estimator", "attributes", "__class__"], 1), "invalid attribute name"),
        (set_in(["estimator", "params", "no_such_parameter"], 1), "malformed metadata"),
        (set_in(["estimator", "attributes", "classes_", "__sktdi_type__"], "eval"), "unknown"),
        (set_in(["estimator", "attributes", "input_mean_", "shape"], [3]), "altered"),
        (
            set_in(["estimator", "attributes", "net_", "module_kwargs", "d_model"], 8),
            "does not match",
        ),
    ],
    ids=[
        "newer-format", "other-format", "top-class", "nested-class", "dunder", "parameter",
        "value-type", "array-shape", "architecture",
    ],
)
def test_altered_metadata_is_refused(saved, tmp_path, edit, match):
    path, _, _ = saved
    with pytest.raises(ValueError, match=match):
        sktdi.load(rewrite(path, tmp_path / "altered.sktdi", metadata=edit))


def test_truncated_and_corrupted_files_are_refused(saved, tmp_path):
    path, _, _ = saved
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 100):
        (tmp_path / "cut.sktdi").write_bytes(data[:cut])
        with pytest.raises(ValueError):
            sktdi.load(tmp_path / "cut.sktdi")
    # one byte of the weights flipped, inside a valid zip: the checksum catches it
    with zipfile.ZipFile(path) as archive:
        tensors = bytearray(archive.read("tensors.safetensors"))
    tensors[-1] ^= 0xFF
    flipped = rewrite(
        path, tmp_path / "flip.sktdi", members={"tensors.safetensors": bytes(tensors)},
        checksums=False,
    )
    with pytest.raises(ValueError, match="SHA-256 checksum of tensors.safetensors"):
        sktdi.load(flipped)


def test_tensors_that_do_not_fit_are_refused_even_with_valid_checksums(saved, tmp_path):
    from safetensors.torch import load as load_tensors
    from safetensors.torch import save as save_tensors

    path, _, _ = saved
    with zipfile.ZipFile(path) as archive:
        tensors = load_tensors(archive.read("tensors.safetensors"))
    head = next(key for key in tensors if key.endswith("module/head.weight"))
    cases = {
        "wrong shape": ({**tensors, head: torch.zeros(3, 3)}, "the network's is"),
        "wrong dtype": ({**tensors, head: tensors[head].double()}, "the network's is"),
        "missing": ({k: v for k, v in tensors.items() if k != head}, "missing from the tensor"),
        "extra": ({**tensors, "extra": torch.zeros(1)}, "does not refer to"),
    }
    for name, (altered, match) in cases.items():
        target = rewrite(
            path, tmp_path / "t.sktdi", members={"tensors.safetensors": save_tensors(altered)}
        )
        with pytest.raises(ValueError, match=match):
            sktdi.load(target)


def test_foreign_files_are_refused(classifier, tmp_path):
    clf, _, _ = classifier
    (tmp_path / "model.pkl").write_bytes(pickle.dumps(clf))
    (tmp_path / "notes.txt").write_text("not a model\n")
    with zipfile.ZipFile(tmp_path / "random.zip", "w") as archive:
        archive.writestr("data.csv", "a,b\n1,2\n")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("metadata.json", "[1, 2")
        archive.writestr("arrays.safetensors", b"")
        archive.writestr("tensors.safetensors", b"")
    (tmp_path / "bad_json.sktdi").write_bytes(buffer.getvalue())
    (tmp_path / "empty.sktdi").write_bytes(b"")
    for name, match in [
        ("model.pkl", "no zip archive found"),
        ("notes.txt", "no zip archive found"),
        ("empty.sktdi", "no zip archive found"),
        ("random.zip", "has no metadata.json"),
        ("bad_json.sktdi", "not valid JSON"),
    ]:
        with pytest.raises(ValueError, match=match):
            sktdi.load(tmp_path / name)


def test_extra_members_are_refused(saved, tmp_path):
    path, _, _ = saved
    target = tmp_path / "extra.sktdi"
    target.write_bytes(path.read_bytes())
    with zipfile.ZipFile(target, "a") as archive:
        archive.writestr("payload.pkl", pickle.dumps(print))
    with pytest.raises(ValueError, match="expected exactly"):
        sktdi.load(target)


def refusing_to_unpickle(monkeypatch):
    """Make every way of unpickling (or evaluating code) fail, until the context ends."""

    def refuse(*args, **kwargs):
        raise AssertionError("load must not unpickle")

    for module, name in [
        (pickle, "loads"), (pickle, "load"), (pickle, "Unpickler"), (torch, "load"),
    ]:
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr("builtins.eval", refuse)
    monkeypatch.setattr("builtins.exec", refuse)


def test_load_never_unpickles(saved, monkeypatch):
    path, clf, X = saved
    refusing_to_unpickle(monkeypatch)
    np.testing.assert_array_equal(sktdi.load(path).predict(X), clf.predict(X))


def ridge_target(estimator_class, labels):
    return labels if estimator_class == "SpectralRidgeClassifier" else (labels == "ringing") * 1.5


@pytest.mark.parametrize("estimator_class", ["SpectralRidgeClassifier", "SpectralRidgeRegressor"])
def test_ridge_models_round_trip(estimator_class, tmp_path):
    X, labels = planted()
    model = getattr(sktdi, estimator_class)(**BANK).fit(X, ridge_target(estimator_class, labels))
    loaded = round_trip(model, tmp_path)
    assert_same(model, loaded)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize(
    "n_channels", [None, 3, "unequal"], ids=["univariate", "multivariate", "unequal-lengths"]
)
@pytest.mark.parametrize("estimator_class", ["SpectralRidgeClassifier", "SpectralRidgeRegressor"])
def test_ridge_models_with_minirocket_round_trip_exactly(estimator_class, n_channels, tmp_path):
    # before: "attribute 'rocket_' ... holds a MiniRocketMultivariate, which the sktdi format
    # cannot store: set it to such a value (an int random_state, for example)"
    pytest.importorskip("numba")
    rocket = pytest.importorskip("sktime.transformations.rocket")
    unequal = n_channels == "unequal"
    X, labels = planted(n_channels=None if unequal else n_channels)
    model = getattr(sktdi, estimator_class)(rocket="minirocket", **BANK)
    if unequal:  # series of unequal length: MiniRocket's variable-length transform
        series = [x[: 12 + i % 12] for i, x in enumerate(X)]  # 12 to 23 steps
        model.fit(series, ridge_target(estimator_class, labels))
        with pytest.MonkeyPatch.context() as patch:
            refusing_to_unpickle(patch)
            loaded = round_trip(model, tmp_path)
        assert type(loaded.rocket_) is rocket.MiniRocketMultivariateVariable
        assert_same(model, loaded)
        np.testing.assert_array_equal(loaded.predict(series), model.predict(series))
        return
    model.fit(X, ridge_target(estimator_class, labels))
    with pytest.MonkeyPatch.context() as patch:
        refusing_to_unpickle(patch)
        loaded = round_trip(model, tmp_path)
    # a real fitted sktime MiniRocket, with the fitted state (dilations, features per
    # dilation, biases, channel combinations) and sktime's own bookkeeping as they were
    # (the univariate transform for one channel, as the fit chose)
    expected = rocket.MiniRocket if n_channels is None else rocket.MiniRocketMultivariate
    assert type(loaded.rocket_) is expected and loaded.rocket_.is_fitted
    assert_same(model, loaded)
    panel = X.reshape(len(X), -1, X.shape[-1])  # (n, C, L): what the model gives MiniRocket
    np.testing.assert_array_equal(
        loaded.rocket_.transform(panel), model.rocket_.transform(panel)
    )
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    if estimator_class == "SpectralRidgeClassifier":  # no predict_proba: a ridge head
        np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_fast_path_with_quant_round_trips_and_an_altered_length_is_refused(tmp_path):
    pytest.importorskip("sktime")
    pytest.importorskip("aeon")
    X, y = planted(n_channels=2)
    model = sktdi.SpectralRidgeClassifier(rocket="minirocket+quant", **BANK).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert loaded.quant_length_ == model.quant_length_ == X.shape[-1]
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    loaded.quant_length_ = X.shape[-1] - 1  # a state that claims another length
    with pytest.raises(ValueError, match=r"scaler_\.n_features_in_ has \d+ where n_features"):
        loaded.save(tmp_path / "altered.sktdi")


@pytest.fixture(scope="module")
def saved_rocket(tmp_path_factory):
    pytest.importorskip("numba")
    pytest.importorskip("sktime")
    X, y = planted(n_channels=2)
    model = sktdi.SpectralRidgeClassifier(rocket="minirocket", **BANK).fit(X, y)
    path = tmp_path_factory.mktemp("rocket") / "rocket.sktdi"
    model.save(path)
    return path


@pytest.mark.parametrize(
    "index, alter, match",
    [
        (1, lambda channels: channels + 2, "channel indices are not .* of 2"),  # 2 channels
        (3, lambda per_dilation: per_dilation + 1, r"\d+ biases for \d+ features"),
        (0, lambda per_combination: per_combination * 0, "one per kernel and dilation"),
    ],
    ids=["channel-index", "features-per-dilation", "empty-combinations"],
)
def test_altered_minirocket_parameters_are_refused(saved_rocket, tmp_path, index, alter, match):
    # MiniRocket's numba transform indexes with these counts unchecked: arrays that do not
    # fit each other would read outside the input and the biases, not raise
    from safetensors.numpy import load as load_arrays
    from safetensors.numpy import save as save_arrays

    with zipfile.ZipFile(saved_rocket) as archive:
        arrays = load_arrays(archive.read("arrays.safetensors"))
    key = f"estimator/attributes/rocket_/attributes/parameters/{index}"
    altered = {**arrays, key: alter(arrays[key]).astype(arrays[key].dtype)}  # same shape
    target = rewrite(
        saved_rocket, tmp_path / "r.sktdi", members={"arrays.safetensors": save_arrays(altered)}
    )
    with pytest.raises(ValueError, match=f"MiniRocket.*{match}.*the file was altered"):
        sktdi.load(target)


def test_a_minirocket_file_without_sktime_names_what_to_install(saved_rocket, monkeypatch):
    monkeypatch.setitem(sys.modules, "sktime.transformations.rocket", None)  # as if missing
    with pytest.raises(ImportError, match=r"needs sktime; .*pip install 'sktdi\[sktime\]'"):
        sktdi.load(saved_rocket)


def test_altered_univariate_minirocket_parameters_are_refused(tmp_path):
    # one channel: sktime's univariate MiniRocket, three arrays (dilations, features per
    # dilation, biases), checked as the multivariate five are
    pytest.importorskip("numba")
    pytest.importorskip("sktime")
    from safetensors.numpy import load as load_arrays
    from safetensors.numpy import save as save_arrays

    X, y = planted()
    path = tmp_path / "one.sktdi"
    sktdi.SpectralRidgeClassifier(rocket="minirocket", **BANK).fit(X, y).save(path)
    with zipfile.ZipFile(path) as archive:
        arrays = load_arrays(archive.read("arrays.safetensors"))
    key = "estimator/attributes/rocket_/attributes/parameters/1"
    altered = {**arrays, key: arrays[key] + 1}
    target = rewrite(path, tmp_path / "r.sktdi", members={"arrays.safetensors": save_arrays(altered)})
    with pytest.raises(ValueError, match=r"MiniRocket.*\d+ biases for \d+ features.*altered"):
        sktdi.load(target)


# ---- files written by an older sktdi ------------------------------------------------------

# written by sktdi at e2a638a (tests/data/legacy_v1/write_fixtures.py), before the tdi and
# training option groups: the file, the method whose outputs expected.npz holds, and the
# option groups its old parameters map to (TDI's defaults then were coverage="tiled" and
# spread=0.25: the groups say so, so that a refit of a loaded model is the model it was)
LEGACY = Path(__file__).parent / "data" / "legacy_v1"
LEGACY_FILES = {
    "ssm_classifier": (
        "ssm_classifier.sktdi", "predict_proba",
        {"tdi": TDIOptions(spread=0.5, coverage="tiled"),
         "training": sktdi.TrainingOptions(augment="jitter")},
    ),
    "ssm_regressor": (  # prenorm=True, scale_inputs=False: removed parameters
        "ssm_regressor.sktdi", "predict",
        {"tdi": TDIOptions(spread=0.25, coverage="tiled"),  # TDI's defaults then
         "training": sktdi.TrainingOptions(lr_schedule="constant", grad_clip=None)},
    ),
    "transformer": ("transformer.sktdi", "transform", {"tdi": TDIOptions(reliability=False, spread=0.25, coverage="tiled")}),
    "ridge_classifier": (
        "ridge_classifier.sktdi", "decision_function",
        {"tdi": TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.3, 0.37], n_bins=17),
                           spread=0.25, coverage="tiled")},  # the fields it had no parameter for
    ),
    "sktime_classifier": (
        "sktime_classifier.zip", "predict_proba",
        {"tdi": TDIOptions(max_peaks=4, spread=0.25, coverage="tiled"),
         "training": sktdi.TrainingOptions(weight_decay=0.05)},
    ),
}


def load_legacy(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a later sktdi or torch version warns, and loads
        return sktdi.load(LEGACY / LEGACY_FILES[name][0])


@pytest.mark.parametrize("name", list(LEGACY_FILES))
def test_files_of_older_parameters_load_predict_and_save_as_saved(name, tmp_path):
    if name.startswith("sktime"):
        pytest.importorskip("sktime")
    _, method, options = LEGACY_FILES[name]
    expected = np.load(LEGACY / "expected.npz")
    model = load_legacy(name)
    # the same model: the deep models' float64 predictions equal to their last bits (torch's
    # thread count, which other tests and numba change, orders the float64 reductions
    # differently); the filter bank's to float32's rounding, since numba compiles its float32
    # scan for the CPU at hand, whose instructions (fused multiply-adds or not) may round the
    # last bit otherwise than the machine that wrote the expected values
    fast_path = name in ("transformer", "ridge_classifier")
    np.testing.assert_allclose(
        getattr(model, method)(expected["X"]), expected[name],
        rtol=1e-5 if fast_path else 1e-12, atol=1e-6 if fast_path else 1e-14,
    )
    params = model.get_params(deep=False)
    assert not [p for p in params if p.startswith("tdi_") or p in ("prenorm", "scale_inputs")]
    for group, value in options.items():  # the old parameters, as the option groups now
        assert_same(params[group], value, group)
    if name.startswith("sktime"):  # the wrapped estimator's own parameters too
        assert_same(model.estimator_.get_params()["tdi"], options["tdi"], "estimator_.tdi")
    again = round_trip(model, tmp_path)  # saved in today's parameters, the same model
    np.testing.assert_array_equal(
        getattr(again, method)(expected["X"]), getattr(model, method)(expected["X"])
    )
    assert_same(again.get_params(deep=False), params)


def test_removed_parameters_of_an_older_file_keep_their_effect(tmp_path):
    # prenorm=True lives on in the saved network's module keywords, scale_inputs=False in the
    # fitted standardization (zeros and ones): the model predicts as saved (above), and keeps
    # both when saved again
    model = load_legacy("ssm_regressor")
    blocks = model.net_.module_.blocks
    assert model.net_.get_params()["module__prenorm"] is True and all(b.prenorm for b in blocks)
    assert not model.input_mean_.any() and (model.input_scale_ == 1).all()
    again = round_trip(model, tmp_path)
    assert all(block.prenorm for block in again.net_.module_.blocks)
    # a network of today's parameters has no prenorm: set_params cannot have changed it
    model.set_params(d_model=4)
    with pytest.raises(ValueError, match="changed since fit: d_model=4 now, 8 at fit"):
        model.save(tmp_path / "changed.sktdi")


def test_a_file_from_before_a_parameter_existed_takes_its_old_value(tmp_path):
    # the first files had no network parameter: an S4D network, whatever the default is now
    def without_network(meta):
        del meta["estimator"]["params"]["network"]

    regressor = rewrite(
        LEGACY / "ssm_regressor.sktdi", tmp_path / "r.sktdi", metadata=without_network
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sktdi.load(regressor).network == "s4d"
        # the classifier's conv-s4d network cannot be the S4D network the file then meant
        classifier = rewrite(
            LEGACY / "ssm_classifier.sktdi", tmp_path / "c.sktdi", metadata=without_network
        )
        with pytest.raises(ValueError, match="does not match"):
            sktdi.load(classifier)


def test_a_group_saved_as_none_means_the_defaults_it_was_fitted_with(tmp_path):
    """Before: a file written while TDI's defaults were coverage="tiled", spread=0.25 (issue
    35 made them "base", 0.5; then "auto"), saved with tdi=None, loaded as today's defaults: a
    refit of the loaded model was another model. Now the file says which defaults its None
    means."""
    X, y = planted(n_per_class=10, length=64)
    bank = SpectralAlignmentTransformer(n_filters=4, random_state=0).fit(X, y)
    path = tmp_path / "now.sktdi"
    bank.save(path)
    assert sktdi.load(path).tdi is None  # today's defaults, as saved

    def earlier(meta):
        del meta["option_defaults"]  # a file of an sktdi before the key existed

    loaded = sktdi.load(rewrite(path, tmp_path / "earlier.sktdi", metadata=earlier))
    assert loaded.tdi == TDIOptions(coverage="tiled", spread=0.25)
    np.testing.assert_array_equal(loaded.transform(X), bank.transform(X))  # the same model
    round_trip(loaded, tmp_path)  # and it saves: the fit's parameters were mapped alike

    def until_auto(meta):
        meta["option_defaults"] = 2  # coverage="base" for every model, before "auto"

    loaded = sktdi.load(rewrite(path, tmp_path / "until_auto.sktdi", metadata=until_auto))
    assert loaded.tdi == TDIOptions(coverage="base")
    np.testing.assert_array_equal(loaded.transform(X), bank.transform(X))
    round_trip(loaded, tmp_path)

    def newer(meta):
        meta["option_defaults"] = 99

    with pytest.raises(ValueError, match="invalid option_defaults 99"):
        sktdi.load(rewrite(path, tmp_path / "newer.sktdi", metadata=newer))


def test_old_and_new_parameters_together_are_refused(tmp_path):
    def both(meta):
        meta["estimator"]["params"]["tdi"] = {
            "__sktdi_type__": "object", "class": "sktdi.tdi.TDIOptions",
            "params": {"spread": 0.5}, "attributes": {},
        }

    target = rewrite(LEGACY / "ridge_classifier.sktdi", tmp_path / "both.sktdi", metadata=both)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="malformed metadata .* both tdi and"):
            sktdi.load(target)


def test_an_older_fast_path_file_checks_its_fit_parameters_when_saved_again(tmp_path):
    # its record of the fit's parameters is mapped as its parameters are
    model = load_legacy("ridge_classifier")
    assert_same(model._params_at_fit["tdi"], model.tdi)
    model.save(tmp_path / "same.sktdi")
    with pytest.raises(ValueError, match="changed since fit: tdi=None now, TDIOptions"):
        model.set_params(tdi=None).save(tmp_path / "changed.sktdi")


@pytest.mark.parametrize("name", FAST_PATH_MODELS)
def test_an_option_changed_in_place_since_fit_is_refused(name, tmp_path):
    # set_params(tdi__spread=...) changes the model's TDIOptions itself, not a copy
    model, _ = fast_path_model(name, tdi=TDIOptions(spread=0.5))
    model.set_params(tdi__spread=0.75)
    with pytest.raises(ValueError, match=r"changed since fit: tdi=TDIOptions\(spread=0.75\) now"):
        model.save(tmp_path / "m.sktdi")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_saved_file_gets_the_mode_open_gives_a_file_beside_it(tmp_path, umask):
    bank = SpectralAlignmentTransformer(**BANK).fit(*planted())
    previous = os.umask(umask)
    try:
        bank.save(tmp_path / "model.sktdi")
        with open(tmp_path / "beside.txt", "wb"):
            pass
    finally:
        os.umask(previous)
    mode = os.stat(tmp_path / "model.sktdi").st_mode & 0o777
    assert mode == os.stat(tmp_path / "beside.txt").st_mode & 0o777 == 0o666 & ~umask
    # an overwrite keeps the file's own mode, as open() does
    os.chmod(tmp_path / "model.sktdi", 0o640)
    bank.save(tmp_path / "model.sktdi")
    assert os.stat(tmp_path / "model.sktdi").st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


# written by sktdi at a48cb7d (tests/data/legacy_v2/write_legacy_v2.py), before issue 76: one
# scale per channel by default, the network on the fast path unchecked where nothing could be
# held out, the temperature fitted on unsmoothed targets
LEGACY_V2 = Path(__file__).parent / "data" / "legacy_v2"
LEGACY_V2_FILES = {
    "one_model_held_out": "predict_proba",
    "one_model_unchecked": "predict_proba",
    "one_model_regressor": "predict",
    "ridge_classifier": "decision_function",
}


@pytest.mark.parametrize("name", list(LEGACY_V2_FILES))
def test_models_saved_before_the_new_defaults_load_and_predict_as_saved(name, tmp_path):
    """A file saved before input_scaling="auto" holds "channel", and its model predicts
    exactly as it did: the new defaults change new fits only."""
    pytest.importorskip("sktime")  # their fast paths hold MiniRocket
    expected = np.load(LEGACY_V2 / "expected.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a later sktdi or torch version warns, and loads
        model = sktdi.load(LEGACY_V2 / f"{name}.sktdi")
    method = LEGACY_V2_FILES[name]
    assert model.get_params()["input_scaling"] == "channel"
    np.testing.assert_allclose(getattr(model, method)(expected["X"]), expected[name],
                               rtol=1e-5 if name == "ridge_classifier" else 1e-12,
                               atol=1e-6 if name == "ridge_classifier" else 1e-14)
    again = round_trip(model, tmp_path)
    np.testing.assert_array_equal(getattr(again, method)(expected["X"]),
                                  getattr(model, method)(expected["X"]))
