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

    from sktdi.benchmark import plot_accuracy_vs_ratio
    from sktdi.benchmark.summary import resample_mean_std

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
    ax = plot_accuracy_vs_ratio(results, datasets=["D"]).axes[0]
    from sktdi.plotting import estimator_label

    bars = {c.get_label(): c for c in ax.containers}
    for estimator, accs in values.items():
        expected = np.std(accs, ddof=1)
        assert np.isclose(stats.loc[("D", estimator, 0.1), "std"], expected)
        assert table.loc[("D", 0.1), estimator].endswith(f"± {expected:.3f}")
        # an error bar is the segment (x, mean - std) -> (x, mean + std)
        segments = bars[estimator_label(estimator)].lines[2][0].get_segments()
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
    assert "wins / ties / losses" in run.stdout and "Wilcoxon" in run.stdout
    for name in ("results.csv", "summary.txt", "summary_accuracy.csv", "accuracy_vs_ratio.png"):
        assert (tmp_path / name).exists(), name
    assert len(pd.read_csv(tmp_path / "results.csv")) == 6


# -- readable summary, duplicate training sets, figures -------------------------------------------


def _frame(cells):
    """Rows from (dataset, ratio, resample, n_train, {estimator: accuracy}) tuples."""
    return pd.DataFrame(
        [
            {"dataset": d, "mode": "resample", "ratio": ratio, "resample": r, "estimator": e,
             "accuracy": acc, "status": "ok", "fit_seconds": 0.000675 if e == "1nn" else 1.744444,
             "n_train": n, "n_classes": 3, "error": ""}
            for d, ratio, r, n, accs in cells for e, acc in accs.items()
        ]
    )


def test_accuracy_figure_keeps_a_long_legend_inside_one_panel(tmp_path):
    """One dataset and the default run's six estimators: the legend wraps onto rows that fit
    the figure's width, below the title and above the panel; one resample says so."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")

    from sktdi.benchmark import plot_accuracy_vs_ratio

    names = ["tdi", "s4d-lin", "tdi+ridge", "tdi+ridge+minirocket", "minirocket", "1nn-euclidean"]
    cells = [("D", ratio, 0, 20, {name: 0.5 + 0.05 * i for i, name in enumerate(names)})
             for ratio in (0.1, 0.5)]
    fig = plot_accuracy_vs_ratio(_frame(cells), tmp_path / "one.png")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.legends[0].get_window_extent(renderer)
    figure_box = fig.bbox
    assert box.x0 >= figure_box.x0 and box.x1 <= figure_box.x1  # nothing cut at the sides
    panel = fig.axes[0].get_window_extent(renderer)
    title = fig.get_suptitle() and fig._suptitle.get_window_extent(renderer)
    assert box.y0 >= panel.y1 and box.y1 <= title.y0 + 1
    assert any("over 1 resample (" in text.get_text() for text in fig.texts)
    colors = {str(container.lines[0].get_color()) for container in fig.axes[0].containers}
    assert len(colors) == len(names)  # no two lines share a colour


def test_formatted_summary_is_a_readable_report():
    import re

    from sktdi.benchmark import format_summary

    cells = [
        ("D", ratio, r, n, {"tdi": 0.7 + 0.1 * r + 1 / 3, "s4d-lin": 0.6 + 0.1 * r + 1 / 3 - 0.2,
                            "1nn": 0.3 + 1 / 7})
        for r in range(3) for ratio, n in ((0.1, 3), (1.0, 30))
    ]
    text = format_summary(summarize(_frame(cells)))
    assert not re.search(r"\d\.\d{5,}", text), text  # no raw pandas floats
    # ranks over datasets, at each ratio (one dataset here)
    assert "ratio 0.1 (1 dataset): TDI 1.00, S4D-Lin 2.00, 1nn 3.00" in text, text
    # mean difference in accuracy points, signed
    assert re.search(r"^S4D-Lin\s+6\s+0\s+0\s+6\s+\+30\.0 pts$", text, re.M), text
    assert "1.74 s" in text and "0.675 ms" in text
    assert "3 (1/class)" in text and "30 (10/class)" in text
    # TDI − S4D-Lin with datasets as units: here each (dataset, ratio) over both ratios
    assert re.search(r"^TDI − S4D-Lin, ratio all\s+2\s+\+30\.0 pts", text, re.M), text


def test_cells_with_the_same_training_set_count_once():
    from sktdi.benchmark import format_summary

    cells = []
    for r in range(3):
        # ratios 0.04 and 0.08 give the same 3 series (same n_train, same split): one experiment
        for ratio, n in ((0.04, 3), (0.08, 3), (0.16, 6)):
            cells.append(("D", ratio, r, n, {"tdi": 0.8 + 0.01 * r + ratio, "s4d-lin": 0.7}))
        cells.append(("E", 0.04, r, 3, {"tdi": 0.5, "s4d-lin": 0.6 + 0.01 * r}))
        cells.append(("E", 0.08, r, 6, {"tdi": 0.5, "s4d-lin": 0.6 + 0.01 * r}))
    table = _frame(cells)
    wtl = wins_ties_losses(table, "tdi")
    assert wtl.loc["s4d-lin", ["wins", "ties", "losses", "n_pairs"]].tolist() == [6, 0, 6, 12]
    assert wins_ties_losses(table, "tdi", merge_duplicates=False).loc["s4d-lin", "wins"] == 9
    assert wilcoxon_test(table, "tdi", "s4d-lin")["n_pairs"] == 12
    assert average_ranks(table).attrs["n_cells"] == 12
    summary = summarize(table)
    assert len(summary["duplicates"]) == 3
    assert set(summary["duplicates"]["same_as"]) == {0.04}
    assert summary["wilcoxon"].loc["all ratios", "n_pairs"] == 12
    text = format_summary(summary)
    assert "duplicate training sets merged: 3 (dataset, ratio, resample) cells" in text
    assert "D ratio 0.08 = ratio 0.04 in resamples 0, 1, 2" in text
    # the accuracy table still shows every ratio
    assert ("D", 0.08) in summary["accuracy"].index


def test_summary_of_empty_failed_or_partial_tables_does_not_crash():
    from sktdi.benchmark import format_summary

    empty = format_summary(summarize(pd.DataFrame()))
    assert "no successful cells" in empty
    failed = _frame([("D", 0.1, 0, 3, {"tdi": np.nan, "s4d-lin": np.nan})]).assign(
        status="error", n_train=np.nan
    )
    summary = summarize(failed)
    assert summary["errors"] == 2 and "wins_ties_losses" not in summary
    assert "no successful cells: 2 of 2 cells failed" in format_summary(summary)
    only = _frame([("D", 0.1, r, 3, {"1nn": 0.5 + 0.1 * r}) for r in range(2)])
    text = format_summary(summarize(only))
    assert "0.550 ± 0.071" in text and "Wilcoxon" not in text
    no_baseline = _frame([("D", 0.1, r, 3, {"tdi": 0.5, "1nn": 0.4}) for r in range(2)])
    text = format_summary(summarize(no_baseline))
    assert "does TDI help?" not in text  # no S4D-Lin, no placebo: nothing to set TDI against


def test_accuracy_figure_labels_every_ratio_and_shares_the_y_range(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.benchmark import plot_accuracy_vs_ratio

    ratios = [0.04, 0.08, 0.16, 0.32, 1.0]
    cells = [
        (d, ratio, r, int(ratio * 90), {"tdi": 0.5 + 0.3 * ratio + off, "s4d-lin": 0.5 + off,
                                         "minirocket": 0.2 + off})
        for d, off in (("D", 0.0), ("E", 0.3)) for ratio in ratios for r in range(2)
    ]
    fig = plot_accuracy_vs_ratio(_frame(cells))
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 2
    assert len({ax.get_ylim() for ax in panels}) == 1  # one y range for every dataset
    low, high = panels[0].get_ylim()
    assert low <= 0.2 and high >= 0.8 + 0.3
    for ax in panels:
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert [label.split("\n")[0] for label in labels] == ["0.04", "0.08", "0.16", "0.32", "1"]
        assert labels[0].split("\n")[1] == "1/class" and labels[-1].split("\n")[1] == "30/class"
        assert {c.get_label() for c in ax.containers} == {"TDI", "S4D-Lin", "MiniRocket"}
    assert any(text.get_text().startswith("Points: mean test accuracy over 2 resamples")
               for text in fig.texts)
    assert fig.legends and "TDI" in [t.get_text() for t in fig.legends[0].get_texts()]
    plt.close(fig)


def test_paired_difference_figure_shows_the_mean_and_t_interval(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from scipy import stats

    from sktdi.benchmark import paired_difference_table, plot_paired_difference

    gaps = [0.10, 0.05, 0.15]  # TDI − S4D-Lin per resample at ratio 0.1; identical at 1.0
    cells = [("D", 0.1, r, 3, {"tdi": 0.6 + gap, "s4d-lin": 0.6}) for r, gap in enumerate(gaps)]
    cells += [("D", 1.0, r, 30, {"tdi": 0.9, "s4d-lin": 0.9}) for r in range(3)]
    results = _frame(cells)
    mean = 100 * np.mean(gaps)
    half = stats.t.ppf(0.975, 2) * 100 * np.std(gaps, ddof=1) / np.sqrt(3)
    row = paired_difference_table(results).loc[("D", 0.1)]
    assert np.isclose(row["mean_pts"], mean) and np.isclose(row["half_width_pts"], half)
    fig = plot_paired_difference(results, tmp_path / "difference.png")
    assert (tmp_path / "difference.png").exists()
    ax = fig.axes[0]
    heights = [patch.get_height() for patch in ax.patches]
    np.testing.assert_allclose(heights, [mean, 0.0])
    segments = ax.collections[0].get_segments()  # the whiskers, one per ratio
    np.testing.assert_allclose(
        [(seg[0][1], seg[1][1]) for seg in segments], [(mean - half, mean + half), (0.0, 0.0)]
    )
    assert 0.0 in [line.get_ydata()[0] for line in ax.lines if len(line.get_ydata()) == 2]
    assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["0.1", "1"]


def test_saving_the_figures_leaves_the_users_backend_alone(tmp_path):
    # a library must not switch the user's backend (it called matplotlib.use("Agg") once): a
    # figure saved to a file is a bare Figure, no pyplot, so the backend chosen here (a GUI one,
    # which a headless machine could not even load) is neither loaded nor changed; a fresh
    # process, so that no earlier test has loaded pyplot
    pytest.importorskip("matplotlib")
    gaps = [0.10, 0.05, 0.15]
    _frame([("D", 0.1, r, 3, {"tdi": 0.6 + gap, "s4d-lin": 0.6})
            for r, gap in enumerate(gaps)]).to_csv(tmp_path / "results.csv", index=False)
    script = (
        "import sys, matplotlib, pandas as pd\n"
        "matplotlib.use('tkagg')\n"
        "backend = matplotlib.get_backend()\n"
        "from sktdi.benchmark import plot_accuracy_vs_ratio, plot_paired_difference\n"
        "results = pd.read_csv('results.csv')\n"
        "plot_accuracy_vs_ratio(results, 'accuracy.png')\n"
        "plot_paired_difference(results, 'paired.png')\n"
        "assert matplotlib.get_backend() == backend, matplotlib.get_backend()\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "accuracy.png").stat().st_size and (tmp_path / "paired.png").stat().st_size


def test_plot_learning_curves_against_epochs_and_seconds():
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from sktdi.plotting import plot_learning_curves

    results = pd.DataFrame({
        "arm": ["tdi", "tdi", "s4d-lin", "s4d-lin", "tdi"],
        "budget": [2, 10, 2, 10, 2],
        "accuracy": [0.5, 0.9, 0.3, 0.9, 0.7],
        "train_seconds": [1.0, 5.0, 2.0, 8.0, 3.0],
    })
    ax = plot_learning_curves(results, x="seconds")
    tdi = ax.get_lines()[0]
    # budget 2 of TDI: mean of two fits (0.5, 0.7) at their mean time (1 s, 3 s)
    assert list(tdi.get_xdata()) == [2.0, 5.0] and list(tdi.get_ydata()) == [0.6, 0.9]
    assert ax.get_xlabel() == "training time (s)"
    with pytest.raises(ValueError, match="x must be"):
        plot_learning_curves(results, x="steps")
    with pytest.raises(ValueError, match="train_seconds"):
        plot_learning_curves(results.drop(columns="train_seconds"))


def test_ridge_arms_differ_by_the_bank_alone():
    """tdi+ridge and s4d-lin+ridge (and their +minirocket arms) build the same model around a
    TDI and an S4D-Lin bank."""
    from sktdi.benchmark import available

    for suffix in ("", "+minirocket"):
        tdi = ESTIMATORS["tdi+ridge" + suffix][0](3, {})
        lin = ESTIMATORS["s4d-lin+ridge" + suffix][0](3, {})
        assert available("s4d-lin+ridge")
        tdi_params, lin_params = tdi.get_params(), lin.get_params()
        assert tdi_params.pop("init") == "tdi" and lin_params.pop("init") == "s4d-lin"
        assert tdi_params == lin_params and tdi_params["random_state"] == 3
        assert type(tdi) is type(lin)
        assert tdi_params["rocket"] == ("minirocket" if suffix else None)


def test_unequal_length_splits_are_padded_to_one_length():
    """JapaneseVowels' splits have different longest series: both are padded to the longer,
    so models fitted on one length (the transformer, flattened 1-NN) read the test split."""
    row = run_cell(Cell("JapaneseVowels", 0.04, 0, "tdi+ridge"))
    assert row["status"] == "ok", row["error"]
    assert row["accuracy"] > 0.5

@pytest.mark.parametrize("name", ["inceptiontime", "resnet"])
def test_deep_peers_train_for_the_ssm_arms_epochs(name):
    """The deep peers follow --max-epochs, and without it SSMClassifier's own default, so the
    SSM arms and the peers of one run always train for the same number of epochs."""
    from sktdi import SSMClassifier

    assert ESTIMATORS[name][0](0, {"max_epochs": 3}).get_params()["num_epochs"] == 3
    peer = ESTIMATORS[name][0](4, {})
    assert peer.get_params()["num_epochs"] == SSMClassifier().max_epochs
    assert peer.get_params()["random_state"] == 4


def test_deep_peer_cell_runs_end_to_end():
    row = run_cell(Cell("ItalyPowerDemand", 0.2, 0, "resnet", params={"max_epochs": 1}))
    assert row["status"] == "ok", row["error"]
    assert 0 <= row["accuracy"] <= 1 and row["n_test"] == 1029


@pytest.mark.parametrize("name", ["tdi", "inceptiontime"])
def test_a_deep_models_first_fit_in_a_process_is_warmed_up_for_one_epoch(name, monkeypatch):
    """What a deep model's first fit in a process pays once (torch's optimizer imports its
    compiler stack; each package loads its modules and kernels) is not timed: a clone
    trains one epoch first, once per process and input signature, and the timed model is
    left as it was."""
    from sktdi.benchmark import runner

    monkeypatch.setattr(runner, "_WARMED", set())
    fitted = []
    monkeypatch.setattr(
        "sklearn.base.clone",
        lambda model: type("Spy", (), {
            "get_params": lambda self, deep=False: model.get_params(deep=False),
            "set_params": lambda self, **params: fitted.append(params) or self,
            "fit": lambda self, *args, **kwargs: fitted.append("fit"),
        })(),
    )
    model = ESTIMATORS[name][0](0, {"max_epochs": 7})
    X, y = np.zeros((4, 1, 16)), np.array([0, 1, 0, 1])
    for _ in range(2):
        runner._warm_up(name, model, (X,), y, {})
    epochs = "max_epochs" if name == "tdi" else "num_epochs"
    assert fitted == [{epochs: 1}, "fit"]  # once per process and signature, one epoch
    assert model.get_params()[epochs] == 7


# -- resume by settings, numeric summary CSV, NLL of hard-label models, paired-plot axis ----------


def _captions(fig) -> list[str]:
    """The figure's texts, their wrapping undone."""
    return [" ".join(t.get_text().split()) for t in fig.texts]


def _epochs_knn(seed, overrides):
    """A fast stand-in for an SSM arm: it reads max_epochs (so --max-epochs is its setting)."""
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=3)


def test_resume_recomputes_cells_computed_with_other_settings(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(ESTIMATORS, "epochs-knn", (_epochs_knn, "flat", None))
    path = tmp_path / "results.csv"

    def cells(epochs):
        return make_cells(["ItalyPowerDemand"], [1.0], 2, ["epochs-knn", "1nn-euclidean"],
                          params={"max_epochs": epochs})

    first = run_benchmark(cells(20), path, progress=False)
    assert capsys.readouterr().err == ""
    assert set(first.loc[first["estimator"] == "epochs-knn", "config"]) == {'{"max_epochs": 20}'}
    # an older version recorded every override on every row, 1-NN's too: still the same cell
    first.assign(config='{"max_epochs": 20}').to_csv(path, index=False)

    again = run_benchmark(cells(5), path, progress=False)
    err = capsys.readouterr().err
    assert err.count("computed with other settings") == 1, err
    assert (f"2 cells in {tmp_path} were computed with other settings (max_epochs=20) and will "
            "be recomputed with max_epochs=5") in err
    assert len(again) == 4 and (again["status"] == "ok").all()  # one row per cell
    knn = again[again["estimator"] == "epochs-knn"]
    assert (knn["config"] == '{"max_epochs": 5}').all()  # recomputed, not reused
    one_nn = again[again["estimator"] == "1nn-euclidean"]
    assert list(one_nn["finished_at"]) == list(first.loc[first["estimator"] == "1nn-euclidean",
                                                         "finished_at"])  # reused
    # the replaced rows are kept aside, not mixed into the results file
    from sktdi.benchmark.runner import replaced_path

    aside = pd.read_csv(replaced_path(path))
    assert len(aside) == 2 and set(aside["estimator"]) == {"epochs-knn"}
    assert (aside["config"] == '{"max_epochs": 20}').all()
    # the same settings again: nothing recomputed, nothing said
    run_benchmark(cells(5), path, progress=False)
    assert capsys.readouterr().err == ""
    assert len(pd.read_csv(replaced_path(path))) == 2
    # 1-NN reads no max_epochs: new rows record none, and old rows that did are read without it
    assert Cell("D", 1.0, 0, "1nn-euclidean", params={"max_epochs": 5}).config() == "{}"
    from sktdi.benchmark.summary import run_settings

    assert run_settings(again).values.tolist() == [
        ["1nn-euclidean", "{}", 2], ["epochs-knn", '{"max_epochs": 5}', 2]]


def test_every_setting_that_changes_a_result_is_part_of_the_resume_check(tmp_path):
    from sktdi.benchmark.runner import resume_plan

    cell = Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean")
    assert cell.settings() == {} and cell.config() == "{}"
    assert Cell("D", 1.0, 0, "tdi", mode="cv", n_folds=3, min_per_class=2,
                params={"max_epochs": 5}).settings() == {
        "max_epochs": 5, "n_folds": 3, "min_per_class": 2}
    assert Cell("D", 1.0, 0, "tdi", data_dir="/archive").settings() == {"data_dir": "/archive"}
    # an override the estimator does not read is not its setting
    assert Cell("D", 1.0, 0, "1nn-euclidean", params={"max_epochs": 5}).settings() == {}
    assert Cell("D", 1.0, 0, "resnet", params={"max_epochs": 5, "d_model": 8}).settings() == {
        "max_epochs": 5}
    path = tmp_path / "results.csv"
    run_benchmark([cell], path, progress=False)
    other = Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean", min_per_class=2)
    assert resume_plan([cell], path) == ([], [])
    assert resume_plan([other], path) == ([other], [(other, "{}")])


def test_ridge_arms_ignore_max_epochs():
    # before: every tdi+ridge cell of a --max-epochs run failed with "unexpected keyword argument"
    model = ESTIMATORS["tdi+ridge"][0](0, {"max_epochs": 5})
    assert model.get_params()["init"] == "tdi"
    assert Cell("D", 1.0, 0, "tdi+ridge", params={"max_epochs": 5}).config() == "{}"


def test_summary_csv_holds_numbers_in_long_format():
    from sktdi.benchmark.summary import mean_std_long

    results = _frame([("D", 0.1, r, 3, {"tdi": 0.9 - 0.2 * r, "s4d-lin": 0.8 - 0.05 * r})
                      for r in range(2)])
    table = mean_std_long(results)
    assert list(table.columns) == ["dataset", "ratio", "estimator", "mean", "std", "n"]
    row = table.set_index("estimator").loc["tdi"]
    assert np.isclose(row["mean"], 0.8) and np.isclose(row["std"], np.std([0.9, 0.7], ddof=1))
    assert row["n"] == 2
    assert all(pd.api.types.is_float_dtype(table[c]) for c in ("mean", "std", "ratio"))


def test_hard_label_models_get_no_nll():
    # 1-NN's predict_proba is a 0/1 vote: its "NLL" was 34.5 nats times the error rate
    from sktdi.benchmark.runner import _inputs, _split

    cell = Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean")
    X_train, y_train, X_test, _ = _split(cell)
    model = ESTIMATORS["1nn-euclidean"][0](0, {})
    (train,), _ = _inputs("flat", X_train, 24)
    (test,), _ = _inputs("flat", X_test, 24)
    proba = model.fit(train, y_train).predict_proba(test)
    assert set(np.unique(proba)) == {0.0, 1.0}  # what puts it among the hard-label models
    row = run_cell(cell)
    assert row["status"] == "ok" and np.isnan(row["nll"])
    assert np.isnan(row["brier"]) and np.isnan(row["ece"])
    scored = run_cell(Cell("ItalyPowerDemand", 1.0, 0, "tdi", params=FAST))
    assert np.isfinite(scored["nll"]) and 0 <= scored["brier"] <= 2 and 0 <= scored["ece"] <= 1


def test_probability_scores_match_independent_computations():
    """The Brier score against scikit-learn's (two classes: half the multiclass sum), and the
    expected calibration error against a loop over numpy's histogram bins."""
    from sklearn.metrics import brier_score_loss

    from sktdi.benchmark.probabilities import brier, expected_calibration_error

    rng = np.random.default_rng(0)
    p1 = rng.uniform(size=200)
    codes = (rng.uniform(size=200) < p1).astype(int)
    proba = np.column_stack([1 - p1, p1])  # (200, 2)
    assert brier(proba, codes) == pytest.approx(2 * brier_score_loss(codes, p1))
    K = 4
    logits = rng.normal(size=(300, K)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    codes = np.array([rng.choice(K, p=p) for p in proba])
    confidence, correct = proba.max(axis=1), proba.argmax(axis=1) == codes
    edges = np.linspace(0, 1, 16)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (confidence >= lo) & ((confidence < hi) | (hi == 1.0))
        if inside.any():
            ece += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())
    assert expected_calibration_error(proba, codes) == pytest.approx(ece)


def test_summary_shows_nll_only_for_models_that_give_probabilities():
    from sktdi.benchmark import format_summary

    # as an older version wrote it: an NLL for 1-NN too
    results = _frame([("D", 0.1, r, 3, {"tdi": 0.8, "1nn-euclidean": 0.7}) for r in range(2)])
    results["nll"] = np.where(results["estimator"] == "tdi", 0.6123, 9.44)
    summary = summarize(results)
    assert summary["nll"]["tdi"] == pytest.approx(0.6123)
    assert np.isnan(summary["nll"]["1nn-euclidean"])
    text = format_summary(summary)
    assert "9.44" not in text
    import re

    assert re.search(r"^TDI\s+1\.74 s\s+0\.612$", text, re.MULTILINE), text
    assert re.search(r"^1-NN \(Euclidean\)\s+1\.74 s\s+—$", text, re.MULTILINE), text
    # with the Brier score and the ECE recorded (issue 76), beside the NLL
    results["brier"] = np.where(results["estimator"] == "tdi", 0.2345, 0.6)
    results["ece"] = np.where(results["estimator"] == "tdi", 0.0456, 0.3)
    text = format_summary(summarize(results))
    assert re.search(r"^TDI\s+1\.74 s\s+0\.612\s+0\.234\s+0\.046$", text, re.MULTILINE), text
    assert re.search(r"^1-NN \(Euclidean\)\s+1\.74 s\s+—\s+—\s+—$", text, re.MULTILINE), text


def test_non_default_settings_are_recorded_in_the_summary_and_the_figures():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.benchmark import format_summary, plot_accuracy_vs_ratio, plot_paired_difference

    accuracies = {"tdi": 0.8, "s4d-lin": 0.7, "1nn-euclidean": 0.6}
    results = _frame([("D", 0.1, r, 3, {e: acc + 0.01 * r * (e == "tdi")
                                        for e, acc in accuracies.items()}) for r in range(3)])
    results["config"] = np.where(results["estimator"] == "1nn-euclidean", "{}",
                                 '{"max_epochs": 5}')
    text = format_summary(summarize(results))
    assert text.startswith("== non-default run settings ==\nmax_epochs=5: TDI, S4D-Lin\n"), text
    for fig in (plot_accuracy_vs_ratio(results), plot_paired_difference(results)):
        captions = _captions(fig)
        assert any(c.startswith("Non-default settings: max_epochs=5: TDI, S4D-Lin.")
                   for c in captions), captions
        plt.close(fig)
    # defaults: no settings anywhere
    plain = format_summary(summarize(results.assign(config="{}")))
    assert "settings" not in plain
    # a table mixing settings for one estimator says so
    mixed = results.copy()
    mixed.loc[mixed.index[0], "config"] = '{"max_epochs": 20}'
    assert ("TDI: mixed settings, max_epochs=20 (1 cell); max_epochs=5 (2 cells)"
            in format_summary(summarize(mixed)))


def test_paired_difference_axis_is_not_squashed_by_few_resamples():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.benchmark import paired_difference_table, plot_paired_difference

    # two resamples: t has one degree of freedom, the interval at 0.1 is about ±95 points
    gaps = {0.1: [0.10, -0.05], 1.0: [0.02, 0.04]}
    results = _frame([("D", ratio, r, int(30 * ratio), {"tdi": 0.6 + gap, "s4d-lin": 0.6})
                      for ratio, values in gaps.items() for r, gap in enumerate(values)])
    assert paired_difference_table(results).loc[("D", 0.1), "half_width_pts"] > 90
    fig = plot_paired_difference(results)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert -5 > low > -8 and 10 < high < 13  # the dots (-5 … +10 points), padded
    assert np.isnan(ax.collections[0].get_segments()[0]).all()  # no whisker from 2
    assert any("No whisker with fewer than 3 resamples" in c for c in _captions(fig))
    plt.close(fig)

    # three resamples, an interval that still runs far off the data: cut, marked and labelled
    gaps = {0.1: [0.0, 0.0, 0.30], 1.0: [0.01, 0.02, 0.01]}
    results = _frame([("D", ratio, r, int(30 * ratio), {"tdi": 0.6 + gap, "s4d-lin": 0.6})
                      for ratio, values in gaps.items() for r, gap in enumerate(values)])
    row = paired_difference_table(results, confidence=0.999).loc[("D", 0.1)]
    fig = plot_paired_difference(results, confidence=0.999)
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert row["low_pts"] < low and high < row["high_pts"]
    assert -30 - 6 < low and high < 60 + 6  # one data span (0 … 30 points) beyond, padded
    arrows = [line for line in ax.lines if line.get_marker() in ("^", "v")]
    assert len(arrows) == 2
    assert {t.get_text() for t in ax.texts} == {f"{row['high_pts']:+.0f}", f"{row['low_pts']:+.0f}"}
    assert any("the interval runs off the axis" in c for c in _captions(fig))
    plt.close(fig)


def test_a_cell_records_an_option_group_by_its_fields():
    """A model override that is an option group (``training=TrainingOptions(...)``) goes into
    the results file as the JSON of its fields, and a file's config reads back the same."""
    import json

    from sktdi import TrainingOptions
    from sktdi.benchmark.settings import normalize_config

    cell = Cell("GunPoint", 1.0, 0, "tdi", params={"training": TrainingOptions(augment="slice")})
    config = cell.config()
    assert json.loads(config)["training"]["augment"] == "slice"
    assert normalize_config("tdi", config) == config
    other = Cell("GunPoint", 1.0, 0, "tdi", params={"training": TrainingOptions(augment="all")})
    assert other.config() != config
    # a numpy number and a plain dict are written as JSON has them, not as their repr
    plain = Cell("GunPoint", 1.0, 0, "tdi", params={"max_epochs": np.int64(5)}).config()
    assert plain == Cell("GunPoint", 1.0, 0, "tdi", params={"max_epochs": 5}).config()
    nested = Cell("GunPoint", 1.0, 0, "tdi", params={"training": {"augment": "slice"}})
    assert json.loads(nested.config())["training"] == {"augment": "slice"}


# -- a stopped run's files ----------------------------------------------------------------------


def test_a_row_cut_short_by_a_kill_is_dropped_then_recomputed(tmp_path):
    from sktdi.benchmark.results_file import TruncatedResultsWarning, read_results
    from sktdi.benchmark.runner import resume_plan

    cells = make_cells(["ItalyPowerDemand"], [1.0], 2, ["1nn-euclidean"])
    path = tmp_path / "results.csv"
    run_benchmark(cells, path, progress=False)
    header, first, last = path.read_text().splitlines(keepends=True)
    path.write_text(header + first + last[: len(last) // 2])  # killed halfway through a write
    with pytest.warns(TruncatedResultsWarning, match="cut short"):
        assert list(read_results(path)["resample"]) == [0]
    with pytest.warns(TruncatedResultsWarning, match="left out"):
        assert resume_plan(cells, path)[0] == [cells[1]]
    # the resumed run cuts the half row off before appending, and recomputes its cell
    with pytest.warns(TruncatedResultsWarning, match="removed"):
        table = run_benchmark(cells, path, progress=False)
    assert list(table["resample"]) == [0, 1] and set(table["status"]) == {"ok"}
    assert path.read_text().startswith(header + first) and path.read_text().count("\n") == 3


def _always_fails(seed, overrides):
    raise RuntimeError("no model\nsecond line of the message")


def test_a_row_cut_inside_its_traceback_is_dropped(tmp_path, monkeypatch):
    # a traceback holds newlines inside quotes: a cut right after one ends the file with a
    # newline, inside an open quote (pandas alone fails with "EOF inside string")
    from sktdi.benchmark.results_file import TruncatedResultsWarning, complete_part, read_results

    monkeypatch.setitem(ESTIMATORS, "fails", (_always_fails, "flat", None))
    cells = make_cells(["ItalyPowerDemand"], [1.0], 1, ["1nn-euclidean", "fails"])
    path = tmp_path / "results.csv"
    run_benchmark(cells, path, progress=False)
    text = path.read_text()
    cut = text.index("\n", text.index("Traceback")) + 1
    path.write_text(text[:cut])
    cut_short = complete_part(text[:cut].encode())[1]
    assert cut_short.startswith(b"ItalyPowerDemand,resample,1.0,0,fails")
    with pytest.warns(TruncatedResultsWarning):
        table = read_results(path)
    assert list(table["estimator"]) == ["1nn-euclidean"]


def test_a_row_is_appended_in_one_write(tmp_path, monkeypatch):
    import os
    import types

    from sktdi.benchmark import results_file

    writes = []

    def write(descriptor, data):
        writes.append(data)
        return os.write(descriptor, data)

    monkeypatch.setattr(results_file, "os", types.SimpleNamespace(**{**vars(os), "write": write}))
    path = tmp_path / "results.csv"
    row = {"dataset": "D", "status": "error", "traceback": 'Traceback\n  "x"\nValueError'}
    results_file.append_row(path, row)
    results_file.append_row(path, {**row, "dataset": "E"})
    assert len(writes) == 2 and writes[0].startswith(b"dataset,mode,")  # the header with row 1
    table = results_file.read_results(path)
    assert list(table["dataset"]) == ["D", "E"] and table["traceback"][1] == row["traceback"]


def test_a_tsml_file_is_never_left_half_written(tmp_path, monkeypatch):
    import os

    from sktdi.benchmark import results_file
    from sktdi.benchmark.tsml_results import write_classifier_results

    path = tmp_path / "testResample0.csv"
    kwargs = {"dataset": "D", "estimator": "e", "resample": 0, "y_true": ["a", "b"],
              "y_pred": ["a", "a"], "classes": ["a", "b"]}
    write_classifier_results(path, **kwargs)
    before = path.read_text()

    def stopped(source, target):
        raise KeyboardInterrupt  # Ctrl-C after the new text is written, before it replaces

    monkeypatch.setattr(results_file.os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_classifier_results(path, **{**kwargs, "y_pred": ["a", "b"]})
    monkeypatch.undo()
    assert path.read_text() == before and os.listdir(tmp_path) == [path.name]
