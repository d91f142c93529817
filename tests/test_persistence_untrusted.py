"""Files crafted to break the loader (issue 37): fitted arrays of the wrong shape for the
compiled scans, layer sizes that would allocate without bound, members that inflate far past
the file's size. Each is refused with a ValueError that names the file, before anything is
allocated for it or reaches compiled code."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from safetensors.numpy import load as arrays_from_bytes
from safetensors.numpy import save as arrays_to_bytes

import sktdi
from sktdi import SpectralAlignmentTransformer, SpectralRidgeClassifier, SSMClassifier

FAST = dict(d_model=4, n_layers=1, d_state=4, max_epochs=1, batch_size=8, random_state=0,
            device="cpu")
BANK = dict(n_filters=4, d_state=4, n_biases=2, random_state=0)
MiB = 2**20


def planted(n=16, n_channels=1, length=24, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["calm", "ringing"], n // 2)
    X = rng.normal(size=(n, n_channels, length))
    X[y == "ringing"] += np.sin(2 * np.pi * 0.3 * np.arange(length))
    return X, y


def fitted(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


def members_of(path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def write_archive(path, members: dict, *, compress=(), reseal=True):
    """The archive of ``members`` (name -> bytes; metadata.json may be a dict), with the data
    members' recorded sizes and checksums recomputed (``reseal``): what someone crafting a
    file writes, not damage."""
    members = dict(members)
    meta = members["metadata.json"]
    if isinstance(meta, (bytes, str)):
        meta = json.loads(meta)
    if reseal:
        for name, entry in meta["members"].items():
            entry.update(sha256=hashlib.sha256(members[name]).hexdigest(), size=len(members[name]))
    members["metadata.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            kind = zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=kind)
    return path


def replace_array(members: dict, key_suffix: str, new: np.ndarray) -> dict:
    """``members`` with the stored array whose key ends with ``key_suffix`` replaced by
    ``new``, its metadata entry saying so (a consistent, crafted file)."""
    arrays = arrays_from_bytes(members["arrays.safetensors"])
    (key,) = [k for k in arrays if k.endswith(key_suffix)]
    arrays[key] = new
    meta = json.loads(members["metadata.json"])

    def edit(value):
        if isinstance(value, dict):
            if value.get("__sktdi_type__") == "ndarray" and value.get("key") == key:
                value["shape"], value["dtype"] = list(new.shape), new.dtype.str
            for item in value.values():
                edit(item)
        elif isinstance(value, list):
            for item in value:
                edit(item)

    edit(meta)
    return {**members, "metadata.json": meta, "arrays.safetensors": arrays_to_bytes(arrays)}


def edit_metadata(members: dict, edit) -> dict:
    meta = json.loads(members["metadata.json"])
    edit(meta)
    return {**members, "metadata.json": meta}


@pytest.fixture(scope="module")
def transformer_file(tmp_path_factory):
    X, y = planted()
    path = tmp_path_factory.mktemp("t") / "bank.sktdi"
    fitted(SpectralAlignmentTransformer(**BANK), X, y).save(path)
    return path, X


@pytest.fixture(scope="module")
def ridge_file(tmp_path_factory):
    X, y = planted()
    path = tmp_path_factory.mktemp("r") / "ridge.sktdi"
    fitted(SpectralRidgeClassifier(**BANK), X, y).save(path)
    return path, X


@pytest.fixture(scope="module")
def ssm_file(tmp_path_factory):
    X, y = planted()
    path = tmp_path_factory.mktemp("s") / "ssm.sktdi"
    fitted(SSMClassifier(**FAST), X, y).save(path)
    return path, X


def refused(path, match):
    with pytest.raises(ValueError, match=match) as info:
        sktdi.load(path)
    assert str(path) in str(info.value)  # the message names the file
    return info.value


# ---- 1. fitted arrays that do not fit the compiled filter bank -----------------------------


def test_transformer_biases_of_the_wrong_shape_are_refused(transformer_file, tmp_path):
    path, _ = transformer_file
    wide = np.zeros((1, 4, 4000))  # (C, H, Q) with Q = 4000, not n_biases = 2
    crafted = write_archive(
        tmp_path / "wide.sktdi", replace_array(members_of(path), "difference_biases_", wide)
    )
    refused(crafted, "difference_biases_")


def test_the_ridge_models_nested_transformer_is_checked(ridge_file, tmp_path):
    path, _ = ridge_file
    crafted = write_archive(
        tmp_path / "ridge.sktdi",
        replace_array(members_of(path), "transformer_/attributes/biases_", np.zeros((3, 4, 2))),
    )
    refused(crafted, "biases_")


def test_ridge_head_of_the_wrong_width_is_refused(ridge_file, tmp_path):
    path, _ = ridge_file
    members = members_of(path)
    coef = arrays_from_bytes(members["arrays.safetensors"])
    (key,) = [k for k in coef if k.endswith("ridge_/attributes/coef_")]
    wider = np.zeros(coef[key].shape[:-1] + (coef[key].shape[-1] + 7,), coef[key].dtype)
    crafted = write_archive(tmp_path / "head.sktdi", replace_array(members, key, wider))
    refused(crafted, "coef_")


def test_an_undeclared_or_missing_fitted_attribute_is_refused(transformer_file, tmp_path):
    path, _ = transformer_file

    def drop(meta):
        del meta["estimator"]["attributes"]["biases_"]

    def add(meta):
        meta["estimator"]["attributes"]["extra_"] = 1

    for name, edit in (("missing", drop), ("extra", add)):
        crafted = write_archive(tmp_path / f"{name}.sktdi", edit_metadata(members_of(path), edit))
        refused(crafted, "biases_" if name == "missing" else "extra_")


def test_a_filter_bank_layer_larger_than_its_tensors_is_refused(transformer_file, tmp_path):
    path, _ = transformer_file

    def huge(meta):
        meta["estimator"]["attributes"]["layer_"]["d_model"] = 2**40

    crafted = write_archive(tmp_path / "layer.sktdi", edit_metadata(members_of(path), huge))
    tracemalloc.start()
    try:
        refused(crafted, "d_model")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * MiB


@pytest.mark.parametrize("name, value", [("d_model", 2**16), ("d_state", 2**20),
                                         ("n_estimators", 2**14)])
def test_network_sizes_beyond_the_saved_tensors_are_refused_before_building(
    ssm_file, tmp_path, name, value
):
    path, _ = ssm_file

    def bigger(meta):
        meta["estimator"]["params"][name] = value

    crafted = write_archive(tmp_path / "net.sktdi", edit_metadata(members_of(path), bigger))
    tracemalloc.start()
    try:
        refused(crafted, name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * MiB


def test_the_scans_refuse_biases_that_do_not_fit_the_bank():
    from sktdi.fast_path.scan import scan_features

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2, 1, 16))
    A = np.full((4, 2), 0.5 + 0.1j)  # (H, N)
    CB = np.ones((4, 2), complex)
    good = np.zeros((1, 4, 2))
    out = np.empty((2, 2 * 4 * 6))
    with pytest.raises(ValueError, match="biases"):
        scan_features(X, None, A, CB, [(good, False), (np.zeros((1, 4, 4000)), True)], out=out)
    with pytest.raises(ValueError, match="biases"):
        scan_features(X, None, A, CB, [(np.zeros((3, 4, 2)), False)])
    with pytest.raises(ValueError, match="lengths"):
        scan_features(X, np.array([16, 99]), A, CB, [(good, False)])


# ---- 2. bounded reading ------------------------------------------------------------------


def peak_while_loading(path, match) -> int:
    tracemalloc.start()
    try:
        refused(path, match)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_compressed_data_member_that_inflates_far_past_the_file_is_refused(
    transformer_file, tmp_path
):
    path, _ = transformer_file
    members = members_of(path)
    bomb = bytes(200 * MiB)  # 200 MiB of zeros deflate to ~200 KB
    members["arrays.safetensors"] = bomb
    crafted = write_archive(tmp_path / "bomb.sktdi", members, compress={"arrays.safetensors"})
    assert crafted.stat().st_size < 1 * MiB
    assert peak_while_loading(crafted, "arrays.safetensors") < 16 * MiB


def test_metadata_that_inflates_past_its_cap_is_refused(transformer_file, tmp_path):
    path, _ = transformer_file
    members = members_of(path)
    meta = json.loads(members["metadata.json"])
    meta["padding"] = " " * (64 * MiB)
    crafted = write_archive(tmp_path / "meta.sktdi", {**members, "metadata.json": meta},
                            compress={"metadata.json"})
    assert crafted.stat().st_size < 1 * MiB
    assert peak_while_loading(crafted, "metadata.json") < 16 * MiB


def test_a_string_array_of_huge_declared_width_is_refused(ssm_file, tmp_path):
    path, _ = ssm_file

    def wide(meta):
        meta["estimator"]["attributes"]["classes_"]["dtype"] = "<U100000000"

    crafted = write_archive(tmp_path / "wide.sktdi", edit_metadata(members_of(path), wide))
    assert peak_while_loading(crafted, "string") < 64 * MiB


# ---- declarations --------------------------------------------------------------------------


def test_every_saved_class_declares_its_fitted_state():
    from sktdi.persistence.declared import declaration_of
    from sktdi.persistence import NESTED_OBJECT_CLASSES, RECORD_CLASSES, _registered_class

    for registry in (NESTED_OBJECT_CLASSES, RECORD_CLASSES):
        for name in registry:
            cls = _registered_class(registry, name, "class")
            assert declaration_of(cls, name) is not None, name


def test_a_class_without_a_declaration_cannot_be_saved(transformer_file, tmp_path, monkeypatch):
    X, y = planted()
    bank = fitted(SpectralAlignmentTransformer(**BANK), X, y)
    monkeypatch.delattr(SpectralAlignmentTransformer, "_declared_state")
    with pytest.raises(TypeError, match="declare"):
        bank.save(tmp_path / "undeclared.sktdi")


def test_a_state_that_differs_from_its_declaration_cannot_be_saved(tmp_path):
    X, y = planted()
    bank = fitted(SpectralAlignmentTransformer(**BANK), X, y)
    bank.biases_ = bank.biases_[:, :, :1]
    with pytest.raises(ValueError, match="biases_"):
        bank.save(tmp_path / "inconsistent.sktdi")


# ---- 9. the early classifier saves in sktdi's format ----------------------------------------


def test_the_early_classifier_saves_safely_and_loads_with_both_loaders(tmp_path, monkeypatch):
    import pickle

    from sktime.base import load as sktime_load
    from sktime.utils.estimator_checks import check_estimator

    from sktdi.sktime import SktimeSSMEarlyClassifier

    X, y = planted(n_channels=2)
    early = fitted(SktimeSSMEarlyClassifier(SSMClassifier(**FAST), random_state=0), X, y)
    labels, decided = early.predict(X[:, :, :6])  # a prediction in progress: not saved
    written = early.save(tmp_path / "early")
    assert written == tmp_path / "early.zip"
    with zipfile.ZipFile(written) as archive:  # sktime's layout around sktdi's archive
        assert archive.read("_obj")[:4] == b"PK\x03\x04"

    def refuse(*args, **kwargs):
        raise AssertionError("the early classifier's state was unpickled")

    monkeypatch.setattr(pickle, "loads", refuse)  # sktdi.load never unpickles
    loaded = sktdi.load(written)
    monkeypatch.undo()
    again = sktime_load(str(tmp_path / "early"))  # sktime's loader: only the class reference
    for model in (loaded, again):
        assert type(model) is SktimeSSMEarlyClassifier
        assert model.state_info is None  # no case in progress, as after fit
        got, got_decided = model.predict(X[:, :, :6])
        np.testing.assert_array_equal(got, labels)
        np.testing.assert_array_equal(got_decided, decided)
        np.testing.assert_array_equal(model.predict_proba(X)[0], early.predict_proba(X)[0])
    # sktime's own file checks pass (their predict_proba cases compare a tuple, which numpy
    # cannot build: those are skipped, as for sktime's TEASER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(
            SktimeSSMEarlyClassifier, raise_exceptions=False,
            tests_to_run=["test_save_estimators_to_file"],
        )
    passed = {name for name, result in results.items() if result == "PASSED"}
    assert {name for name in results if name.endswith("-predict]")} <= passed


def test_an_early_classifier_file_with_a_case_in_progress_is_refused(tmp_path):
    from sktdi.sktime import SktimeSSMEarlyClassifier

    X, y = planted(n_channels=2)
    early = fitted(SktimeSSMEarlyClassifier(SSMClassifier(**FAST), random_state=0), X, y)
    early.save(tmp_path / "early.zip")
    outer = members_of(tmp_path / "early.zip")
    inner = {}
    with zipfile.ZipFile(io.BytesIO(outer["_obj"])) as archive:
        inner = {info.filename: archive.read(info) for info in archive.infolist()}

    def in_progress(meta):  # state_info without the stream it belongs to
        meta["estimator"]["attributes"]["state_info"] = {"__sktdi_type__": "tuple", "items": [1]}

    archive = write_archive(tmp_path / "inner.sktdi", edit_metadata(inner, in_progress))
    crafted = tmp_path / "crafted.zip"
    with zipfile.ZipFile(crafted, "w") as target:
        target.writestr("_metadata", outer["_metadata"])
        target.writestr("_obj", archive.read_bytes())
    refused(crafted, "state_info")


def test_an_unfitted_estimator_in_place_of_a_fitted_one_is_refused(tmp_path):
    from sktdi.sktime import SktimeSpectralRidgeClassifier

    X, y = planted(n_channels=2)
    adapter = fitted(SktimeSpectralRidgeClassifier(**BANK), X, y)
    path = tmp_path / "adapter.sktdi"
    adapter.save(path)
    outer = members_of(path)
    with zipfile.ZipFile(io.BytesIO(outer["_obj"])) as archive:
        inner = {info.filename: archive.read(info) for info in archive.infolist()}

    def unfit(meta):  # the wrapped ridge model without its fitted state
        meta["estimator"]["attributes"]["estimator_"]["attributes"] = {}

    from safetensors.numpy import save as save_arrays
    from safetensors.torch import save as save_tensors

    crafted_inner = edit_metadata(inner, unfit)
    crafted_inner["arrays.safetensors"] = save_arrays({})
    crafted_inner["tensors.safetensors"] = save_tensors({})
    archive = write_archive(tmp_path / "inner.sktdi", crafted_inner)
    crafted = tmp_path / "crafted.zip"
    with zipfile.ZipFile(crafted, "w") as target:
        target.writestr("_metadata", outer["_metadata"])
        target.writestr("_obj", archive.read_bytes())
    refused(crafted, "unfitted")


# ---- what the fuzzer found (benchmarks/fuzz_loader/fuzz_loader.py) ------------------------------------


def test_zip_headers_altered_into_unsupported_features_or_offsets_are_refused_by_name(
    transformer_file, tmp_path
):
    path, _ = transformer_file
    data = bytearray(path.read_bytes())
    patched = bytearray(data)
    start = patched.find(b"PK\x01\x02")  # the first central header's flags: "patched data"
    patched[start + 8] |= 1 << 5
    (tmp_path / "patched.sktdi").write_bytes(patched)
    refused(tmp_path / "patched.sktdi", "damaged")
    seek = bytearray(data)
    end = seek.rfind(b"PK\x05\x06")  # the central directory's size: a negative seek
    struct.pack_into("<I", seek, end + 12, 2**30)
    (tmp_path / "seek.sktdi").write_bytes(seek)
    refused(tmp_path / "seek.sktdi", "sktdi model file|damaged")


def test_a_single_output_ridge_head_reshaped_to_several_outputs_is_refused(tmp_path):
    from sktdi import SpectralRidgeRegressor

    X, _ = planted()
    target = X[:, 0].mean(axis=1)
    path = tmp_path / "regressor.sktdi"
    fitted(SpectralRidgeRegressor(**BANK), X, target).save(path)
    members = members_of(path)
    coef = arrays_from_bytes(members["arrays.safetensors"])
    (key,) = [k for k in coef if k.endswith("ridge_/attributes/coef_")]
    crafted = write_archive(tmp_path / "rows.sktdi", replace_array(members, key, coef[key][None]))
    refused(crafted, "ridge head")
