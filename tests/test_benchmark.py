"""The UCR benchmarking harness and the ``sktdi benchmark`` command."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sktdi.benchmark import (
    ESTIMATORS,
    Cell,
    average_ranks,
    make_cells,
    mean_std_table,
    run_benchmark,
    run_cell,
    summarize,
    wilcoxon_test,
    wins_ties_losses,
)
from sktdi.benchmark.runner import finished_keys

FAST = {"max_epochs": 2, "d_model": 8, "n_layers": 1, "d_state": 8}


def tiny_cells(**kwargs):
    return make_cells(
        ["ItalyPowerDemand", "GunPoint"],
        ratios=[0.1, 1.0],
        resamples=1,
        estimators=["tdi", "1nn-euclidean"],
        params=FAST,
        **kwargs,
    )


def test_tiny_grid_end_to_end_and_resume(tmp_path):
    path = tmp_path / "results.csv"
    cells = tiny_cells()
    table = run_benchmark(cells, path, n_jobs=2, progress=False)
    assert len(table) == 8 and (table["status"] == "ok").all()
    assert set(table.columns) >= {
        "dataset", "ratio", "resample", "estimator", "accuracy", "balanced_accuracy", "nll",
        "fit_seconds", "predict_seconds", "n_train", "config",
    }
    small = table[(table["ratio"] == 0.1) & (table["dataset"] == "GunPoint")]
    assert (small["n_train"] == 5).all()  # 10% of 50, stratified
    assert table.loc[table["estimator"] == "tdi", "nll"].notna().all()
    # resume: nothing is recomputed
    stamps = table.set_index(["dataset", "ratio", "estimator"])["finished_at"]
    again = run_benchmark(cells, path, n_jobs=2, progress=False)
    pd.testing.assert_series_equal(
        again.set_index(["dataset", "ratio", "estimator"])["finished_at"], stamps
    )
    # growing the grid computes only the new cells
    more = run_benchmark(cells + make_cells(["ItalyPowerDemand"], [0.5], 1, ["1nn-euclidean"]),
                         path, progress=False)
    assert len(more) == 9


def test_failing_estimator_becomes_an_error_row(tmp_path, monkeypatch):
    def broken(seed, overrides):
        raise RuntimeError("this estimator is broken")

    monkeypatch.setitem(ESTIMATORS, "broken", (broken, "panel", None))
    cells = make_cells(["ItalyPowerDemand"], [1.0], 1, ["broken", "1nn-euclidean"])
    table = run_benchmark(cells, tmp_path / "r.csv", n_jobs=1, progress=False)
    row = table[table["estimator"] == "broken"].iloc[0]
    assert row["status"] == "error" and "this estimator is broken" in row["error"]
    assert (table.loc[table["estimator"] == "1nn-euclidean", "status"] == "ok").all()
    assert summarize(table)["errors"] == 1


def test_failing_cell_keeps_its_traceback_in_the_csv(tmp_path):
    path = tmp_path / "results.csv"
    run_benchmark([Cell("NoSuchDataset", 1.0, 0, "1nn-euclidean")], path, progress=False)
    row = pd.read_csv(path).iloc[0]  # read back from the file, not from memory
    assert row["status"] == "error" and "NoSuchDataset" in row["error"]
    assert isinstance(row["traceback"], str) and row["traceback"].startswith("Traceback")
    assert "ValueError" in row["traceback"] and "\n" in row["traceback"]


def test_resuming_an_older_results_file_without_a_traceback_column(tmp_path):
    path = tmp_path / "results.csv"
    ok = Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean")
    first = run_benchmark([ok], path, progress=False)
    first.drop(columns="traceback").to_csv(path, index=False)  # as an older version wrote it
    bad = Cell("NoSuchDataset", 1.0, 0, "1nn-euclidean")
    for _ in range(2):  # the second run retries the error row and must not duplicate it
        table = run_benchmark([ok, bad], path, progress=False)
        assert len(table) == 2 and list(finished_keys(path)) == [ok.key()]
        good, failed = table.iloc[0], table.iloc[1]
        assert good["finished_at"] == first["finished_at"].iloc[0]  # not recomputed
        assert pd.isna(good["traceback"]) and failed["status"] == "error"
        assert "Traceback" in failed["traceback"]


def test_summary_table_and_plot_share_the_resample_std():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.benchmark.summary import resample_mean_std
    from sktdi.plotting import plot_accuracy_vs_ratio

    values = {"tdi": [0.9, 0.7], "s4d-lin": [0.8, 0.75]}
    rows = [
        {"dataset": "D", "mode": "resample", "ratio": 0.1, "resample": r, "estimator": e,
         "accuracy": acc, "status": "ok", "fit_seconds": 1.0}
        for e, accs in values.items() for r, acc in enumerate(accs)
    ]
    # one resample only at ratio 1.0: its spread is 0, not NaN
    rows += [{**rows[0], "ratio": 1.0}, {**rows[2], "ratio": 1.0}]
    results = pd.DataFrame(rows)
    stats = resample_mean_std(results)
    table = mean_std_table(results)
    ax = plot_accuracy_vs_ratio(results, "D")
    bars = {c.get_label(): c for c in ax.containers}
    for estimator, accs in values.items():
        expected = np.std(accs, ddof=1)
        assert np.isclose(stats.loc[("D", estimator, 0.1), "std"], expected)
        assert table.loc[("D", 0.1), estimator].endswith(f"± {expected:.3f}")
        # an error bar is the segment (x, mean - std) -> (x, mean + std)
        segments = bars[estimator].lines[2][0].get_segments()
        drawn = [(seg[1][1] - seg[0][1]) / 2 for seg in segments]
        np.testing.assert_allclose(drawn, [expected, 0.0])
        assert table.loc[("D", 1.0), estimator].endswith("± 0.000")
    plt.close(ax.figure)


def test_dask_backend_gives_the_same_table_as_loky(tmp_path):
    pytest.importorskip("dask.distributed")
    cells = tiny_cells()
    loky = run_benchmark(cells, tmp_path / "loky.csv", n_jobs=2, progress=False)
    dask = run_benchmark(cells, tmp_path / "dask.csv", n_jobs=2, backend="dask", progress=False)
    key = ["dataset", "ratio", "resample", "estimator"]
    cols = key + ["n_train", "n_test", "accuracy", "balanced_accuracy", "nll", "status"]
    pd.testing.assert_frame_equal(
        loky.sort_values(key)[cols].reset_index(drop=True),
        dask.sort_values(key)[cols].reset_index(drop=True),
    )


def test_cv_mode_and_unequal_lengths():
    cells = make_cells(["JapaneseVowels"], [0.2], estimators=["tdi"], cv=3, params=FAST)
    assert [c.resample for c in cells] == [0, 1, 2] and cells[0].mode == "cv"
    row = run_cell(cells[0])
    assert row["status"] == "ok", row.get("error")
    assert row["n_test"] == 640 // 3 or row["n_test"] in (213, 214)


def test_summary_statistics_on_a_known_table():
    rows = []
    for resample in range(6):
        for estimator, acc in (("tdi", 0.9), ("s4d-lin", 0.8), ("other", 0.85)):
            rows.append(
                {"dataset": "D", "mode": "resample", "ratio": 0.04, "resample": resample,
                 "estimator": estimator, "accuracy": acc + 0.01 * resample, "status": "ok",
                 "fit_seconds": 1.0}
            )
    table = pd.DataFrame(rows)
    wtl = wins_ties_losses(table, "tdi")
    assert wtl.loc["s4d-lin", "wins"] == 6 and wtl.loc["other", "losses"] == 0
    ranks = average_ranks(table)
    assert list(ranks.index) == ["tdi", "other", "s4d-lin"] and ranks["tdi"] == 1
    test = wilcoxon_test(table, "tdi", "s4d-lin")
    assert test["n_pairs"] == 6 and test["p_value"] < 0.05
    assert np.isclose(test["mean_difference"], 0.1)
    summary = summarize(table)
    assert summary["accuracy"].loc[("D", 0.04), "tdi"].startswith("0.925 ± ")


def test_cli_help_and_tiny_run(tmp_path):
    help_text = subprocess.run(
        [sys.executable, "-m", "sktdi.cli", "benchmark", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "--backend" in help_text and "--cv" in help_text and "--resamples" in help_text
    run = subprocess.run(
        [
            sys.executable, "-m", "sktdi.cli", "benchmark", "--datasets", "ItalyPowerDemand",
            "--ratios", "0.2", "1.0", "--resamples", "1", "--estimators", "tdi", "s4d-lin",
            "1nn-euclidean", "--max-epochs", "2", "--n-jobs", "2", "--out", str(tmp_path),
            "--quiet",
        ],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "wins ties losses" in run.stdout and "wilcoxon" in run.stdout
    for name in ("results.csv", "summary.txt", "summary_accuracy.csv", "accuracy_vs_ratio.png"):
        assert (tmp_path / name).exists(), name
    assert len(pd.read_csv(tmp_path / "results.csv")) == 6
