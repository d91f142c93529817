"""sktime adapters (sktime's own conformance checks) and the UCR/UEA data utilities."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from sktdi.datasets import (
    LabelledStratifiedKFold,
    load_ucr,
    load_ucr_split,
    pad_sequences,
    resample_split,
    shipped_datasets,
    stratified_folds,
    training_subsample,
)
from sktdi.sktime import (
    SktimeSpectralRidgeClassifier,
    SktimeSpectralRidgeRegressor,
    SktimeSSMClassifier,
    SktimeSSMRegressor,
)

FAST = dict(d_model=8, n_layers=1, d_state=8, max_epochs=3, random_state=0)


@pytest.mark.parametrize(
    "cls",
    [
        SktimeSSMClassifier,
        SktimeSSMRegressor,
        SktimeSpectralRidgeClassifier,
        SktimeSpectralRidgeRegressor,
    ],
)
@pytest.mark.slow  # sktime's whole suite, every check a few fits
def test_sktime_check_estimator(cls):
    from sktime.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(cls, raise_exceptions=False)  # all of them, none skipped
    failed = {name: result for name, result in results.items() if result != "PASSED"}
    assert not failed, failed
    assert len(results) > 100
    # save(path) then sktime.base.load(path): the sktdi archive in sktime's file layout
    assert any(name.startswith("test_save_estimators_to_file") for name in results)
    assert cls.get_class_tag("tests:skip_by_name", None) is None


def test_adapter_mirrors_estimator_parameters():
    from sktdi import SSMClassifier

    assert set(SktimeSSMClassifier().get_params()) == set(SSMClassifier().get_params())
    clf = SktimeSSMClassifier(d_model=12, init="s4d-inv")
    assert clf.get_params()["d_model"] == 12 and clf.clone().init == "s4d-inv"
    with pytest.raises(TypeError, match="unexpected"):
        SktimeSSMClassifier(width=3)


@pytest.mark.parametrize(
    "adapter, name",
    [
        (SktimeSpectralRidgeClassifier, "SpectralRidgeClassifier"),
        (SktimeSpectralRidgeRegressor, "SpectralRidgeRegressor"),
    ],
)
def test_spectral_ridge_adapters_mirror_parameters_and_tags(adapter, name):
    import sktdi

    estimator = getattr(sktdi, name)()
    assert adapter().get_params() == estimator.get_params()
    assert adapter(n_filters=8).clone().n_filters == 8
    # every setting takes series of unequal length, MiniRocket's features too (its
    # variable-length transform when fit gets them)
    assert adapter().get_tag("capability:unequal_length") is True
    assert adapter(rocket="minirocket").get_tag("capability:unequal_length") is True
    assert adapter.get_class_tag("capability:multivariate") is True
    assert len(adapter.get_test_params()) >= 2


def test_spectral_ridge_classifier_proba_is_one_hot_of_predict():
    X, y = load_ucr("BasicMotions", "train")
    clf = SktimeSpectralRidgeClassifier(n_filters=16, random_state=0).fit(X, y)
    assert clf.estimator_.n_features_in_ == 6  # the channels: multivariate
    assert clf.get_tag("capability:predict_proba") is False  # sktime's default, said so
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 4) and set(np.unique(proba)) <= {0.0, 1.0}
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_spectral_ridge_adapter_unequal_length():
    X, y = load_ucr("JapaneseVowels", "train")
    idx = np.arange(0, len(X), max(1, len(X) // 40))
    frames = [pd.DataFrame(X[i].T) for i in idx]  # sktime's df-list: (length, channels)
    clf = SktimeSpectralRidgeClassifier(n_filters=16, random_state=0).fit(frames, y[idx])
    assert clf.predict(frames).shape == (len(idx),)
    # with MiniRocket's features too: its variable-length transform
    both = SktimeSpectralRidgeClassifier(n_filters=16, rocket="minirocket", random_state=0)
    both.fit(frames, y[idx])
    assert type(both.estimator_.rocket_).__name__ == "MiniRocketMultivariateVariable"
    assert both.predict(frames).shape == (len(idx),)


def _ridge_scores(adapter, X):
    """The ridge head's raw output: the classifier's scores, the regressor's predictions."""
    head = adapter.estimator_
    return head.decision_function(X) if hasattr(head, "decision_function") else head.predict(X)


@pytest.mark.parametrize(
    "cls, params",
    [
        (SktimeSpectralRidgeClassifier, {}),
        (SktimeSpectralRidgeClassifier, {"rocket": "minirocket"}),
        (SktimeSpectralRidgeRegressor, {}),
        (SktimeSpectralRidgeRegressor, {"rocket": "minirocket"}),
    ],
    ids=["classifier", "classifier-minirocket", "regressor", "regressor-minirocket"],
)
def test_spectral_ridge_adapters_save_load_round_trip(tmp_path, cls, params):
    from sktime.base import load as sktime_load

    import sktdi

    if cls is SktimeSpectralRidgeClassifier:
        X, y = load_ucr("BasicMotions", "train")
        X_new = load_ucr("BasicMotions", "test")[0]
    else:
        X, y = load_ucr("Covid3Month", "train")
        X_new, y = load_ucr("Covid3Month", "test")[0], y.astype(float)
    model = cls(n_filters=16, random_state=0, **params).fit(X, y)
    expected = model.predict(X_new)
    scores = _ridge_scores(model, X_new)
    # to a file in sktime's layout: sktime.base.load and sktdi.load both read it
    written = model.save(str(tmp_path / "model"))
    assert written == tmp_path / "model.zip"
    for loaded in (sktime_load(str(tmp_path / "model")), sktdi.load(written)):
        assert type(loaded) is cls and loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict(X_new), expected)
        np.testing.assert_array_equal(_ridge_scores(loaded, X_new), scores)
    # in memory, through sktime's loader: the bytes are the sktdi archive
    kind, data = model.save()
    assert kind is cls and data[:2] == b"PK"
    np.testing.assert_array_equal(sktime_load((kind, data)).predict(X_new), expected)


def test_multivariate_fit():
    X, y = load_ucr("BasicMotions", "train")
    clf = SktimeSSMClassifier(**FAST).fit(X, y)
    assert clf.estimator_.n_channels_ == 6
    assert clf.predict_proba(X[:5]).shape == (5, 4)


@pytest.mark.parametrize("name", ["JapaneseVowels", "PLAID"])
def test_unequal_length_fit(name):
    X, y = load_ucr(name, "train")
    assert isinstance(X, list) and len({s.shape[-1] for s in X}) > 1
    idx = np.arange(0, len(X), max(1, len(X) // 40))
    frames = [pd.DataFrame(X[i].T) for i in idx]  # sktime's df-list: (length, channels)
    clf = SktimeSSMClassifier(**FAST).fit(frames, y[idx])
    assert clf.predict(frames).shape == (len(idx),)
    assert clf.estimator_.task_spectrum_.estimator["method"] == "welch-ragged"


def test_missing_values_are_refused_clearly():
    X, y = load_ucr("GunPoint", "train")
    X = X.copy()
    X[0, 0, 5] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        SktimeSSMClassifier(**FAST).fit(X, y)


def test_sktime_evaluate_with_stratified_splitter():
    from sktime.classification.model_evaluation import evaluate
    from sklearn.metrics import accuracy_score

    X, y = load_ucr("ItalyPowerDemand", "train")
    results = evaluate(
        SktimeSSMClassifier(**FAST),
        cv=LabelledStratifiedKFold(y, n_splits=3),
        X=X,
        y=pd.Series(y),
        scoring=accuracy_score,
    )
    assert len(results) == 3 and results["test_accuracy_score"].notna().all()


def test_shipped_datasets_listed_and_no_download():
    names = shipped_datasets()
    for name in ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "JapaneseVowels"):
        assert name in names
    with pytest.raises(ValueError, match="not shipped"):
        load_ucr("Adiac")
    with pytest.raises(ValueError, match="split"):
        load_ucr("GunPoint", split="valid")


def test_regression_dataset_has_float_targets():
    X, y = load_ucr("Tecator", "train")
    assert X.shape == (172, 1, 100) and y.dtype.kind == "f"


def _write_tsv(path, X, y):
    rows = [np.concatenate([[float(label)], series[0]]) for series, label in zip(X, y)]
    width = max(len(r) for r in rows)
    table = np.full((len(rows), width), np.nan)
    for i, row in enumerate(rows):
        table[i, : len(row)] = row
    np.savetxt(path, table, delimiter="\t", fmt="%.10g")


def test_local_archive_tsv_and_ts(tmp_path):
    from sktime.datasets import write_ndarray_to_tsfile

    X_train, y_train, X_test, y_test = load_ucr_split("GunPoint")
    tsv_dir = tmp_path / "UCRArchive_2018" / "GunPoint"
    tsv_dir.mkdir(parents=True)
    _write_tsv(tsv_dir / "GunPoint_TRAIN.tsv", X_train, y_train)
    _write_tsv(tsv_dir / "GunPoint_TEST.tsv", X_test, y_test)
    X, y = load_ucr("GunPoint", "train", data_dir=tmp_path / "UCRArchive_2018")
    np.testing.assert_allclose(X, X_train, rtol=1e-9)
    np.testing.assert_array_equal(y, y_train)

    ts_dir = tmp_path / "ts"
    for split, (Xs, ys) in {"TRAIN": (X_train, y_train), "TEST": (X_test, y_test)}.items():
        write_ndarray_to_tsfile(
            Xs, str(ts_dir), problem_name="GunPoint", class_label=sorted(set(ys)),
            class_value_list=ys, fold=f"_{split}",
        )
    X, y = load_ucr("GunPoint", None, data_dir=ts_dir)
    np.testing.assert_allclose(X, np.concatenate([X_train, X_test]), rtol=1e-9)
    assert len(y) == 200
    with pytest.raises(FileNotFoundError, match="GunPoint_TRAIN"):
        load_ucr("GunPoint", "train", data_dir=tmp_path / "empty")


def test_local_archive_unequal_length_tsv(tmp_path):
    X = [np.arange(5.0)[None], np.arange(8.0)[None], np.arange(3.0)[None]]
    _write_tsv(tmp_path / "Toy_TRAIN.tsv", X, [1, 2, 1])
    loaded, y = load_ucr("Toy", "train", data_dir=tmp_path)
    assert [s.shape for s in loaded] == [(1, 5), (1, 8), (1, 3)]
    padded, lengths = pad_sequences(loaded)
    assert padded.shape == (3, 1, 8) and lengths.tolist() == [5, 8, 3]
    assert list(y) == ["1", "2", "1"]


def _archive(tmp_path, name, content: bytes, suffix=".tsv"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}_TRAIN{suffix}").write_bytes(content)
    return tmp_path


@pytest.mark.parametrize(
    "content, pattern",
    [
        # before: IndexError: too many indices for array
        (b"", r"Toy_TRAIN\.tsv is empty"),
        (b"\n\n  \n", r"Toy_TRAIN\.tsv is empty"),
        # before: numpy's "Number of columns at line #2 is 3 ..." naming no file
        (
            b"1\t0.1\t0.2\t0.3\n2\t0.1\t0.2\n",
            r"Toy_TRAIN\.tsv, line 2 has 3 tab-separated fields, but line 1 has 4",
        ),
        # before: UnicodeDecodeError
        (bytes(range(256)) * 4, r"Toy_TRAIN\.tsv is not a text file"),
        (b"\x89PNG\r\n\x1a\n\xff\xfe", r"Toy_TRAIN\.tsv is not UTF-8 text \(byte 0x89 on line 1\)"),
        # before: silently NaN in X
        (b"1\t0.1\t0.2\n2\t0.1\tabc\n", r"Toy_TRAIN\.tsv, line 2, column 3: 'abc' is not a number"),
        (b"label\tt1\n1\t0.5\n", r"line 1, column 2: 't1' is not a number \(a header line"),
        # before: silently NaN labels
        (
            b"1\t0.1\t0.2\n\t0.1\t0.3\n",
            r"Toy_TRAIN\.tsv, line 2: the label \(first column\) is missing",
        ),
        (b"1\t0.1\nNaN\t0.1\n", r"line 2: the label \(first column\) is missing"),
        (b"1,0.1,0.2\n", r"line 1: a label and no values \(the file looks comma-separated"),
        (b"1\t0.1\n2\tNaN\n", r"series 2 .* has no values"),
    ],
    ids=[
        "empty", "blank-lines", "ragged", "binary", "not-utf8", "non-numeric", "header",
        "no-label", "nan-label", "comma-separated", "all-nan-row",
    ],
)
def test_broken_tsv_names_file_and_line(tmp_path, content, pattern):
    root = _archive(tmp_path, "Toy", content)
    with pytest.raises(ValueError, match=pattern):
        load_ucr("Toy", "train", data_dir=root)


@pytest.mark.parametrize(
    "content, pattern",
    [
        (b"", r"Toy_TRAIN\.ts is empty"),  # before: sktime's OSError "empty file"
        (b"@problemName Toy\n\xff\xfe", r"Toy_TRAIN\.ts is not UTF-8 text"),  # UnicodeDecodeError
        (
            b"@problemName Toy\n@timeStamps false\n@classLabel true 1 2\n@data\n1,2,3:1\n1,2:abc\n",
            r"Toy_TRAIN\.ts is not a readable \.ts file: OSError",
        ),
    ],
    ids=["empty", "binary", "corrupt"],
)
def test_broken_ts_names_the_file(tmp_path, content, pattern):
    root = _archive(tmp_path, "Toy", content, suffix=".ts")
    with pytest.raises(ValueError, match=pattern):
        load_ucr("Toy", "train", data_dir=root)


def test_missing_split_and_data_dir_are_named(tmp_path):
    root = _archive(tmp_path, "Toy", b"1\t0.1\t0.2\n2\t0.3\t0.4\n")
    X, y = load_ucr("Toy", "train", data_dir=root)
    assert X.shape == (2, 1, 2) and y.tolist() == ["1", "2"]
    with pytest.raises(FileNotFoundError, match=r"no Toy_TEST\.ts or \.tsv under"):
        load_ucr("Toy", None, data_dir=root)
    with pytest.raises(FileNotFoundError, match="data_dir .*nowhere does not exist"):
        load_ucr("Toy", "train", data_dir=tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no Other_TRAIN"):
        load_ucr("Other", "train", data_dir=root)


def test_splits_with_different_channel_counts_are_named(tmp_path):
    # before: numpy's "all input arrays must have the same shape" from np.stack
    root = _archive(tmp_path, "Toy", b"1\t0.1\t0.2\n2\t0.3\t0.4\n")
    (root / "Toy" / "Toy_TEST.ts").write_text(
        "@problemName Toy\n@timeStamps false\n@missing false\n@univariate false\n"
        "@dimensions 2\n@equalLength true\n@seriesLength 2\n@classLabel true 1 2\n@data\n"
        "0.1,0.2:0.3,0.4:1\n0.5,0.6:0.7,0.8:2\n"
    )
    assert load_ucr("Toy", "test", data_dir=root)[0].shape == (2, 2, 2)
    with pytest.raises(ValueError, match=r"differ in their number of channels.*TRAIN.*\[1\].*TEST"):
        load_ucr("Toy", None, data_dir=root)


def test_tsv_text_labels_and_empty_padding_fields(tmp_path):
    root = _archive(tmp_path, "Toy", b"cat\t1\t2\t\ndog\t3\t4\t5\n")
    X, y = load_ucr("Toy", "train", data_dir=root)
    assert [s.shape for s in X] == [(1, 2), (1, 3)] and y.tolist() == ["cat", "dog"]


def test_resampling_keeps_class_counts_and_official_split():
    X_train, y_train, X_test, y_test = load_ucr_split("ArrowHead")
    same = resample_split(X_train, y_train, X_test, y_test, 0)
    assert same[0] is X_train
    a = resample_split(X_train, y_train, X_test, y_test, 1)
    b = resample_split(X_train, y_train, X_test, y_test, 1)
    c = resample_split(X_train, y_train, X_test, y_test, 2)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    for label in np.unique(y_train):
        assert np.sum(a[1] == label) == np.sum(y_train == label)
    assert len(a[1]) + len(a[3]) == len(y_train) + len(y_test)


def test_unstratified_resampling_for_regression_targets():
    from sktdi.datasets import load_dataset_split

    X_train, y_train, X_test, y_test = load_dataset_split("Tecator")
    a = resample_split(X_train, y_train, X_test, y_test, 1, stratify=False)
    b = resample_split(X_train, y_train, X_test, y_test, 1, stratify=False)
    np.testing.assert_array_equal(a[1], b[1])
    assert len(a[1]) == len(y_train) and len(a[3]) == len(y_test)
    # every pooled series lands on exactly one side, and the split is a new one
    pooled = np.sort(np.concatenate([y_train, y_test]))
    np.testing.assert_array_equal(np.sort(np.concatenate([a[1], a[3]])), pooled)
    assert not np.array_equal(a[1], y_train)
    assert resample_split(X_train, y_train, X_test, y_test, 0, stratify=False)[0] is X_train


def test_training_subsample_floor_and_determinism():
    y = np.repeat(["a", "b", "c"], [20, 10, 2])
    idx = training_subsample(y, 0.04, min_per_class=1, random_state=0)
    assert set(y[idx]) == {"a", "b", "c"}
    np.testing.assert_array_equal(idx, training_subsample(y, 0.04, random_state=0))
    half = training_subsample(y, 0.5, random_state=0)
    assert abs(len(half) - 16) <= 1 and np.sum(y[half] == "a") == 10
    assert len(training_subsample(y, 1.0)) == 32
    with pytest.raises(ValueError, match="ratio"):
        training_subsample(y, 0.0)


def test_stratified_folds_cover_everything_once():
    y = np.repeat([0, 1], [12, 6])
    folds = stratified_folds(y, 3)
    tests = np.concatenate([test for _, test in folds])
    assert sorted(tests.tolist()) == list(range(18))
    assert all(np.sum(y[test] == 1) == 2 for _, test in folds)


def test_extra_datasets_digits_and_planted():
    from sktdi.datasets import load_dataset_split, planted_frequency_task

    X_train, y_train, X_test, y_test = load_dataset_split("digits")
    assert X_train.shape == (898, 1, 64) and X_test.shape == (899, 1, 64)
    assert len(set(y_train)) == 10
    X, y = planted_frequency_task(5, length=32, random_state=0)
    assert X.shape == (20, 1, 32) and sorted(set(y)) == ["0", "1", "2", "3"]
    X_train, y_train, X_test, y_test = load_dataset_split("planted")
    assert X_train.shape == (400, 1, 128) and not np.allclose(X_train, X_test)


def test_pixel_digits_are_the_images_upsampled_bilinearly_and_read_by_rows():
    """Checked against torch's bilinear interpolation (an independent implementation)."""
    import torch
    from sklearn.datasets import load_digits

    from sktdi.datasets import load_dataset_split, pixel_digits

    X, y = pixel_digits()
    assert X.shape == (1797, 1, 1024) and X.dtype == np.float64
    images = torch.tensor(load_digits().images[:20])[:, None]  # (20, 1, 8, 8)
    expected = torch.nn.functional.interpolate(
        images, size=(32, 32), mode="bilinear", align_corners=False
    )
    np.testing.assert_allclose(X[:20, 0], expected.reshape(20, 1024).numpy(), atol=1e-12)
    assert pixel_digits(16)[0].shape == (1797, 1, 256)
    with pytest.raises(ValueError, match="at least 8"):
        pixel_digits(4)
    X_train, y_train, X_test, y_test = load_dataset_split("pixel-digits")
    assert X_train.shape == (898, 1, 1024) and X_test.shape == (899, 1, 1024)
    # the same stratified half/half split as "digits": the same images, upsampled
    digits_train = load_dataset_split("digits")[1]
    assert (y_train == digits_train).all()


@pytest.fixture(scope="module")
def vowels_as_sktime_loads_them():
    """JapaneseVowels (12 channels, 7 to 29 steps) in sktime's default nested frame, every
    ninth series, beside the list of (channels, length) arrays it holds."""
    from sktime.datasets import load_japanese_vowels

    X, y = load_japanese_vowels(split="train")
    nested, y = X.iloc[::9].reset_index(drop=True), np.asarray(y)[::9]  # 30 series
    series = [np.stack([np.asarray(cell) for cell in row]) for row in nested.to_numpy()]
    return nested, series, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: __import__("sktdi").SSMClassifier(**FAST),
        lambda: __import__("sktdi").SSMRegressor(**FAST),
        lambda: __import__("sktdi").SpectralRidgeClassifier(random_state=0),
        lambda: __import__("sktdi").SpectralRidgeClassifier(rocket="minirocket", random_state=0),
        lambda: __import__("sktdi").SpectralRidgeRegressor(random_state=0),
        lambda: __import__("sktdi").SpectralAlignmentTransformer(n_filters=8, random_state=0),
    ],
    ids=["ssm-classifier", "ssm-regressor", "ridge", "ridge-minirocket", "ridge-regressor",
         "transformer"],
)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_every_estimator_fits_sktimes_nested_frame_as_the_list_it_holds(
    make, vowels_as_sktime_loads_them
):
    nested, series, labels = vowels_as_sktime_loads_them
    model = make()
    y = labels.astype(float) if "Regressor" in type(model).__name__ else labels
    from_frame = make().fit(nested, y)
    from_list = model.fit(series, y)
    out = "transform" if hasattr(model, "transform") else "predict"
    np.testing.assert_array_equal(getattr(from_frame, out)(nested), getattr(from_list, out)(series))
    # sktime's list of frames, (length, channels) each, and its multi-indexed frame
    frames = [pd.DataFrame(x.T) for x in series]
    np.testing.assert_array_equal(getattr(from_frame, out)(frames), getattr(from_list, out)(series))
    stacked = pd.concat(frames, keys=range(len(frames)))  # index (series, time)
    np.testing.assert_array_equal(getattr(from_frame, out)(stacked), getattr(from_list, out)(series))


def test_a_list_of_series_with_time_first_is_told_to_transpose(vowels_as_sktime_loads_them):
    from sktdi import SpectralRidgeClassifier

    _, series, y = vowels_as_sktime_loads_them
    with pytest.raises(ValueError, match=r"transpose each series: \[x\.T for x in X\]"):
        SpectralRidgeClassifier().fit([x.T for x in series], y)


def test_series_of_one_length_given_time_first_are_warned_about():
    """Of one length, (length, channels) series read as many channels of few steps raise no
    error: a warning names the transpose; series the right way round give none."""
    import warnings

    from sktdi import SpectralRidgeClassifier

    X, y = load_ucr("BasicMotions", "train")  # (40, 6, 100)
    with pytest.warns(UserWarning, match=r"read as 100 channels of 6 time steps.*x\.T"):
        SpectralRidgeClassifier(n_filters=8, random_state=0).fit([x.T for x in X], y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SpectralRidgeClassifier(n_filters=8, random_state=0).fit(list(X), y)
