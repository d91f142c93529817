"""Published results beside a run (sktdi.benchmark.published and the summary's sections)."""

from __future__ import annotations

import csv
import importlib.util

import numpy as np
import pandas as pd
import pytest

from sktdi.benchmark.published import (
    MEAN,
    beside_run,
    column_name,
    read_all_published,
    read_published,
)
from sktdi.benchmark.summary import format_summary, summarize
from sktdi.benchmark.tsml_results import results_path, write_classifier_results

needs_aeon = pytest.mark.skipif(importlib.util.find_spec("aeon") is None, reason="needs aeon")


def _table(tmp_path, name="HC2_accuracy.csv", text="Resamples:,0,1,2\nA,0.9,0.8,0.7\nB,0.5,0.6,\n"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_results_table_in_aeons_layout(tmp_path):
    table = read_published(str(_table(tmp_path)))
    assert set(table["classifier"]) == {"HC2"}  # the file name without _accuracy
    wide = table.pivot(index="dataset", columns="resample", values="accuracy")
    assert wide.loc["A"].tolist() == [0.9, 0.8, 0.7]
    # B's empty resample 2 is not a figure: it is left out, not read as 0
    assert wide.loc["B"].tolist()[:2] == [0.5, 0.6] and np.isnan(wide.loc["B", 2])
    named = read_published(f"HIVE-COTE 2={_table(tmp_path)}")
    assert set(named["classifier"]) == {"HIVE-COTE 2"}


def test_a_table_of_means(tmp_path):
    path = _table(tmp_path, "minirocket.csv", "dataset,accuracy,time_training_seconds\nA,0.85,1\n")
    table = read_published(f"MiniRocket={path}")
    assert table[["dataset", "resample", "accuracy"]].values.tolist() == [["A", MEAN, 0.85]]


@pytest.mark.parametrize("text, message", [
    ("Resamples:,zero\nA,0.9\n", "is not a resample number"),
    ("Resamples:,0\nA,93.5\n", "percentages"),
    ("Resamples:\nA\n", "no resample columns"),
])
def test_a_table_that_is_not_results_is_named(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_published(str(_table(tmp_path, "X.csv", text)))


def test_missing_path_and_folder_without_results(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_published(str(tmp_path / "nothing.csv"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="neither a tsml-eval results folder"):
        read_published(str(tmp_path / "empty"))


def test_a_classifier_in_two_sources_must_be_named(tmp_path):
    one = _table(tmp_path)
    (tmp_path / "other").mkdir()
    two = _table(tmp_path / "other")
    with pytest.raises(ValueError, match="in both"):
        read_all_published([str(one), str(two)])
    both = read_all_published([str(one), f"HC2-again={two}"])
    assert set(both["classifier"]) == {"HC2", "HC2-again"}


def test_a_tsml_eval_results_folder_gives_each_files_accuracy(tmp_path):
    root = tmp_path / "results"
    written = {}
    for estimator in ("ROCKET", "DTW"):
        for dataset, resample, pred in [("A", 0, ["x", "x", "y"]), ("A", 1, ["x", "y", "y"]),
                                        ("B", 0, ["y", "y", "y"])]:
            written[estimator, dataset, resample] = write_classifier_results(
                results_path(root, estimator, dataset, resample), dataset=dataset,
                estimator=estimator, resample=resample, y_true=["x", "y", "y"], y_pred=pred,
                classes=["x", "y"])
    table = read_published(str(root))  # a root of several classifiers
    got = {(r.classifier, r.dataset, r.resample): r.accuracy for r in table.itertuples()}
    assert got == written
    one = read_published(str(root / "DTW"))  # one classifier's folder
    assert set(one["classifier"]) == {"DTW"} and len(one) == 3


def _means(**columns):
    return pd.DataFrame(columns, index=pd.Index(["A", "B"], name="dataset"))


def test_resample_0_pairs_with_the_official_split(tmp_path):
    published = read_published(str(_table(tmp_path)))
    out = beside_run(_means(tdi=[0.95, 0.55]), {"A": [0], "B": [0]}, published)
    assert out["table"][column_name("HC2")].tolist() == [0.9, 0.5]
    assert "paired" in out["pairing"]["HC2"] and out["missing"] == []


def test_several_resamples_set_means_beside_means(tmp_path):
    published = read_published(str(_table(tmp_path)))
    out = beside_run(_means(tdi=[0.95, 0.55]), {"A": [0, 1], "B": [0, 1]}, published)
    # each dataset's mean over every resample the table has, in order (B has two)
    assert out["table"][column_name("HC2")].tolist() == [np.mean([0.9, 0.8, 0.7]),
                                                           np.mean([0.5, 0.6])]
    assert "not tsml's draws" in out["pairing"]["HC2"]


def test_what_a_table_lacks_is_said_not_filled(tmp_path):
    published = read_published(str(_table(tmp_path, text="Resamples:,0,1\nA,,0.8\n")))
    out = beside_run(_means(tdi=[0.95, 0.55]), {"A": [0], "B": [0]}, published)
    assert out["table"][column_name("HC2")].isna().all()
    assert out["missing"] == [("HC2", "A", "resample 0"), ("HC2", "B", "dataset")]


def _results(datasets, arms=("tdi", "minirocket-ridge"), ratio=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([
        {"dataset": d, "mode": "resample", "ratio": ratio, "resample": 0, "estimator": a,
         "accuracy": rng.uniform(0.6, 1.0), "status": "ok", "n_train": 10, "n_classes": 2}
        for d in datasets for a in arms])


@needs_aeon
def test_aeons_shipped_results_reproduce_in_the_summary():
    published = read_all_published(["aeon"])
    assert {"HC2", "InceptionTime", "FreshPRINCE", "WEASEL-2.0"} <= set(published["classifier"])
    from sktdi.benchmark.published import aeon_reference_folder

    # every figure beside the run is the file's own resample 0, read here with the csv module
    with open(aeon_reference_folder() / "HC2_accuracy.csv") as handle:
        rows = {row[0]: row[1:] for row in csv.reader(handle)}
    datasets = ["ACSF1", "Beef", "GunPoint", "Crop", "NotInTheArchive"]
    summary = summarize(_results(datasets, arms=("tdi", "minirocket-ridge", "1nn-euclidean")),
                        published=published)
    table = summary["published"]["table"]
    for dataset in datasets[:-1]:
        assert table.loc[dataset, column_name("HC2")] == float(rows[dataset][0])
    assert np.isnan(table.loc["NotInTheArchive", column_name("HC2")])
    assert len(summary["published"]["complete"]) == 4
    ranks = summary["published"]["ranks"]
    assert column_name("HC2") in ranks.index and "tdi" in ranks.index
    text = format_summary(summary)
    assert "beside published results: 5 datasets at ratio 1" in text
    assert "HC2: 1 dataset: NotInTheArchive" in text
    assert "TDI − HC2 (published)" in text


def test_no_ratio_1_cells_says_why_nothing_is_beside(tmp_path):
    published = read_published(str(_table(tmp_path)))
    summary = summarize(_results(["A", "B"], ratio=0.5), published=published)
    assert summary["published"] == {}
    assert "no published figure sits beside this run" in format_summary(summary)


def test_the_command_refuses_what_is_not_results(tmp_path, capsys):
    from sktdi.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["benchmark", "--datasets", "ItalyPowerDemand", "--estimators", "1nn-euclidean",
              "--published", str(tmp_path / "HC2.csv"), "--out", str(tmp_path / "run")])
    assert stop.value.code == 2
    assert "--published: " in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # refused before anything ran


@needs_aeon
def test_the_command_sets_a_run_beside_published_results(tmp_path, capsys):
    from sktdi.cli import main

    out = tmp_path / "run"
    means = _table(tmp_path, "means.csv", "dataset,accuracy\nItalyPowerDemand,0.5\nGunPoint,0.9\n")
    argv = ["benchmark", "--datasets", "ItalyPowerDemand", "GunPoint", "--estimators",
            "1nn-euclidean", "--ratios", "1", "--resamples", "1", "--n-jobs", "1", "--quiet",
            "--published", "aeon", f"Means={means}", "--out", str(out)]
    assert main(argv) == 0
    text = (out / "summary.txt").read_text()
    assert "beside published results: 2 datasets at ratio 1" in text
    assert "Means: a table of means (not paired with any split of the run)" in text
    assert (out / "critical_difference_published.png").is_file()
    import json

    recorded = json.loads((out / "settings.json").read_text())["published"]
    assert recorded == ["aeon", f"Means={means.resolve()}"]
    # a stopped run's summary reads the recorded tables again
    (out / "summary.txt").unlink()
    capsys.readouterr()
    assert main(["benchmark", "--summarize-only", "--out", str(out), "--no-plot"]) == 0
    assert "1-NN (Euclidean) − HC2 (published)" in (out / "summary.txt").read_text()


def test_one_file_under_two_names_and_a_name_left_empty_are_refused(tmp_path):
    path = _table(tmp_path)
    with pytest.raises(ValueError, match="is given twice, as HC2 and Other"):
        read_all_published([str(path), f"Other={path}"])
    with pytest.raises(ValueError, match="needs a name"):
        read_published(f"={path}")


def test_a_run_without_ratio_1_hears_it_before_anything_trains(tmp_path, capsys):
    from sktdi.cli import main

    argv = ["benchmark", "--datasets", "ItalyPowerDemand", "--estimators", "1nn-euclidean",
            "--ratios", "0.5", "--resamples", "1", "--published", str(_table(tmp_path)),
            "--dry-run", "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    assert "nothing will sit beside it" in capsys.readouterr().err
