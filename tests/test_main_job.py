"""The main job as a researcher runs it: the field's results files and statistics, what TDI did
per cell, warnings kept with their cells, a whole archive folder, each arm's parameters."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sktdi.benchmark import Cell, make_cells, run_benchmark, run_cell
from sktdi.benchmark.answer import warning_table
from sktdi.benchmark.estimators import ESTIMATORS
from sktdi.benchmark.progress import RunProgress, expected_seconds, format_clock
from sktdi.benchmark.statistics import (
    MIN_UNTIED,
    dataset_means,
    difference_over_datasets,
    pairwise_over_datasets,
    ranks_over_datasets,
    tie_split,
)
from sktdi.benchmark.summary import format_summary, summarize
from sktdi.benchmark.tsml_results import results_path, results_root, write_classifier_results
from sktdi.cli import main

LIGHT = ["1nn-euclidean", "tdi+ridge"]


# -- tsml-eval results files -------------------------------------------------------------------


def test_results_file_reads_back_through_tsml_eval(tmp_path):
    storage = pytest.importorskip("tsml_eval.evaluation.storage")
    rng = np.random.default_rng(0)
    classes = ["a", "b", "c"]
    y_true = rng.choice(classes, 40)
    proba = rng.dirichlet(np.ones(2), 40)  # the model saw two of the three classes
    y_pred = np.array(["c", "a"])[proba.argmax(1)]
    path = tmp_path / "testResample3.csv"
    accuracy = write_classifier_results(
        path, dataset="D", estimator="tdi", resample=3, y_true=y_true, y_pred=y_pred,
        classes=classes, proba=proba, proba_classes=["c", "a"], fit_seconds=1.5,
        predict_seconds=0.25,
    )
    loaded = storage.load_classifier_results(str(path))  # verifies the accuracy, exactly
    assert loaded.accuracy == accuracy == np.mean(y_true == y_pred)
    assert loaded.resample_id == 3 and loaded.n_classes == 3
    assert loaded.fit_time == 1500 and loaded.predict_time == 250
    np.testing.assert_allclose(loaded.probabilities[:, [2, 0]], proba, rtol=1e-12)
    assert np.all(loaded.probabilities[:, 1] == 0)
    assert list(loaded.class_labels) == [classes.index(c) for c in y_true]


def test_results_layout():
    root = results_root("run", "resample", 0.5)
    assert results_path(root, "tdi", "GunPoint", 2).as_posix() == (
        "run/tsml/ratio0.5/tdi/Predictions/GunPoint/testResample2.csv"
    )


def test_run_files_evaluate_in_tsml_eval_to_our_accuracies(tmp_path):
    pytest.importorskip("tsml_eval.evaluation")
    pytest.importorskip("seaborn")  # tsml-eval's evaluation imports it
    from benchmarks.archive_run.check_tsml import without_figures

    cells = make_cells(["ItalyPowerDemand", "GunPoint"], [0.5], 2, LIGHT)
    table = run_benchmark(cells, tmp_path / "results.csv", progress=False, tsml_out=tmp_path)
    assert set(table["status"]) == {"ok"}
    without_figures()(
        str(results_root(tmp_path, "resample", 0.5)) + "/", LIGHT,
        ["ItalyPowerDemand", "GunPoint"], str(tmp_path / "eval"), resamples=2,
        eval_name="check",
    )
    theirs = pd.read_csv(tmp_path / "eval" / "check" / "Accuracy" / "accuracy_mean.csv",
                         index_col=0, float_precision="round_trip")
    ours = dataset_means(table).xs(0.5, level="ratio")
    for name in LIGHT:
        for dataset in ours.index:
            assert theirs.loc[dataset, name] == ours.loc[dataset, name]  # exactly


# -- what a cell records -----------------------------------------------------------------------


def _warns(seed, overrides):
    from sklearn.neighbors import KNeighborsClassifier

    class Noisy(KNeighborsClassifier):
        def fit(self, X, y):
            warnings.warn("the series look odd; try odd=True", UserWarning)
            return super().fit(X, y)

    return Noisy(n_neighbors=1)


def test_warnings_stay_in_the_row(monkeypatch, recwarn):
    _warns.params_used = ()
    monkeypatch.setitem(ESTIMATORS, "noisy", (_warns, "flat", None))
    row = run_cell(Cell("ItalyPowerDemand", 0.5, 0, "noisy"))
    assert row["status"] == "ok"
    assert row["warnings"] == "UserWarning: the series look odd; try odd=True"
    assert not [w for w in recwarn if "look odd" in str(w.message)]  # none printed
    table = warning_table(pd.DataFrame([row]))
    assert table.loc[0, "cells"] == 1
    assert table.loc[0, "where"] == ["ItalyPowerDemand ratio 0.5 resample 0 noisy"]


def test_tdi_action_per_cell():
    acted = run_cell(Cell("planted", 0.5, 0, "tdi+ridge"))
    assert acted["tdi_aligned"] > 0 and "tdi on " in acted["tdi_action"]
    stood = run_cell(Cell("GunPoint", 0.05, 0, "tdi+ridge"))
    assert stood["tdi_aligned"] == 0 and "stood down" in stood["tdi_action"]
    other = run_cell(Cell("GunPoint", 0.05, 0, "1nn-euclidean"))
    assert np.isnan(other["tdi_aligned"]) and other["tdi_action"] == ""


# -- statistics over datasets ------------------------------------------------------------------


def _frame(rows):
    return pd.DataFrame(
        [
            {"dataset": d, "mode": "resample", "ratio": r, "resample": i, "estimator": e,
             "accuracy": a, "status": "ok", "tdi_aligned": al}
            for d, r, i, e, a, al in rows
        ]
    )


def test_dataset_means_average_resamples_first():
    rows = [("D", 0.1, i, e, a, np.nan) for i, (e, a) in enumerate(
        [("tdi", 0.9), ("tdi", 0.7), ("tdi", 0.8)])]
    rows += [("D", 0.1, i, "s4d-lin", 0.6, np.nan) for i in range(3)]
    means = dataset_means(_frame(rows))
    assert means.loc[("D", 0.1), "tdi"] == pytest.approx(0.8)
    assert means.loc[("D", 0.1), "s4d-lin"] == pytest.approx(0.6)


def test_difference_over_datasets_against_scipy():
    rng = np.random.default_rng(1)
    means = pd.DataFrame({"tdi": rng.uniform(0.6, 0.9, 9)})
    means["s4d-lin"] = means["tdi"] - rng.normal(0.02, 0.03, 9)
    d = difference_over_datasets(means, "tdi", "s4d-lin")
    diff = (means["tdi"] - means["s4d-lin"]).to_numpy()
    low, high = stats.t.interval(0.95, len(diff) - 1, loc=diff.mean(), scale=stats.sem(diff))
    assert d["low"] == pytest.approx(low) and d["high"] == pytest.approx(high)
    assert d["p"] == pytest.approx(stats.wilcoxon(diff).pvalue)
    assert d["untied"] == 9 and not d["too_few"]
    # power: at the detectable difference a paired t-test rejects 80% of the time
    sd, n, t = diff.std(ddof=1), len(diff), stats.t.ppf(0.975, len(diff) - 1)
    power = 1 - stats.nct.cdf(t, n - 1, d["detectable"] / (sd / np.sqrt(n)))
    assert power == pytest.approx(0.8, abs=0.03)


def test_too_few_untied_datasets_are_said():
    means = pd.DataFrame({"tdi": [0.8, 0.7, 0.9, 0.6], "s4d-lin": [0.7, 0.7, 0.8, 0.6]})
    d = difference_over_datasets(means, "tdi", "s4d-lin")
    assert d["untied"] == 2 and d["too_few"] and MIN_UNTIED == 6
    # the smallest two-sided p a Wilcoxon test reaches with 5 untied pairs is above 0.05
    assert stats.wilcoxon([1, 2, 3, 4, 5]).pvalue > 0.05
    assert stats.wilcoxon([1, 2, 3, 4, 5, 6]).pvalue < 0.05


def test_ranks_and_cliques_follow_aeon():
    pytest.importorskip("aeon")
    from aeon.visualisation import plot_critical_difference

    rng = np.random.default_rng(2)
    means = pd.DataFrame({"a": rng.uniform(0.7, 0.9, 12)})
    means["b"] = means["a"] - rng.uniform(0.0, 0.1, 12)
    means["c"] = means["a"] - rng.uniform(0.05, 0.2, 12)
    ranks = ranks_over_datasets(means)
    assert list(ranks.index) == ["a", "b", "c"] and ranks.attrs["n_datasets"] == 12
    tests = pairwise_over_datasets(means)
    _, _, p = plot_critical_difference(means.to_numpy(), ["a", "b", "c"], return_p_values=True)
    import matplotlib.pyplot as plt

    plt.close("all")
    assert [q for _, _, q in tests["pairs"]] == pytest.approx([p[0, 1], p[0, 2], p[1, 2]])


def test_ties_are_split_by_cause():
    rows = [
        ("D", 0.1, 0, "tdi", 0.8, 0.0), ("D", 0.1, 0, "s4d-lin", 0.8, np.nan),  # stood down
        ("D", 0.1, 1, "tdi", 0.7, 12.0), ("D", 0.1, 1, "s4d-lin", 0.7, np.nan),  # same
        ("D", 0.1, 2, "tdi", 0.9, 20.0), ("D", 0.1, 2, "s4d-lin", 0.8, np.nan),  # ahead
    ]
    split = tie_split(_frame(rows)).loc[("D", 0.1)]
    assert split[["cells", "stood_down", "same", "ahead", "behind"]].tolist() == [3, 1, 1, 1, 0]
    assert split["channels"] == pytest.approx(16.0)


def test_summary_answers_the_question():
    rows = []
    for k, dataset in enumerate(["A", "B", "C", "D", "E", "F", "G"]):
        for i in range(3):
            rows += [(dataset, 0.1, i, "tdi", 0.7 + 0.02 * k + 0.01 * i, 8.0),
                     (dataset, 0.1, i, "s4d-lin", 0.68 + 0.02 * k, np.nan),
                     (dataset, 0.1, i, "tdi-control", 0.69 + 0.02 * k, 8.0)]
    for i in range(3):
        rows += [("planted", 0.1, i, "tdi", 0.8, 40.0), ("planted", 0.1, i, "s4d-lin", 0.7, np.nan),
                 ("planted", 0.1, i, "tdi-control", 0.72, 40.0)]
    text = format_summary(summarize(_frame(rows)))
    assert "does TDI help? differences over datasets (controls apart)" in text
    line = next(x for x in text.splitlines() if x.startswith("TDI − S4D-Lin, ratio 0.1"))
    assert line.split()[5] == "7"  # seven real datasets: the control is not one of them
    assert "positive control" in text and "planted: TDI − placebo, ratio 0.1" in text
    assert "average rank over datasets" in text


# -- progress ----------------------------------------------------------------------------------


def test_progress_starts_from_the_cost_model_and_follows_the_pace():
    # the network trained (fast_path=False): cells that cost more than the run's start, whose
    # pace the estimate follows (on these short series the default trains no epoch)
    cells = make_cells(["GunPoint", "ItalyPowerDemand"], [0.5], 2, ["tdi", "1nn-euclidean"],
                       params={"fast_path": False})
    progress = RunProgress(cells, 2)
    assert progress.time_left(0.0) == pytest.approx(expected_seconds(cells, 2))
    first = cells[0].key()
    progress.n_done, progress.done_expected = 1, progress.seconds[first] / 2
    fast = progress.time_left(elapsed=1.0)
    slow = progress.time_left(elapsed=200.0)
    assert fast < progress.expected and slow > fast
    assert format_clock(65) == "1:05" and format_clock(3723) == "1:02:03"


def test_the_cost_model_trains_the_network_only_on_its_ground(monkeypatch):
    """A default SSM cell off the network's ground (GunPoint: 150 steps) is its fast path's
    cost, with no epoch; the same cell with fast_path=False trains; and on the ground (the
    bound lowered below GunPoint's length) the default trains too."""
    from sktdi.benchmark.progress import cell_parts
    from sktdi.deep_model import on_fast_path

    default = cell_parts(Cell("GunPoint", 1.0, 0, "tdi"))
    alone = cell_parts(Cell("GunPoint", 1.0, 0, "tdi", params={"fast_path": False}))
    assert default["epochs"] == 0 and default["predict"] == 0 and alone["epochs"] > 0
    monkeypatch.setattr(on_fast_path, "LONG_SERIES", 100)
    assert cell_parts(Cell("GunPoint", 1.0, 0, "tdi"))["epochs"] > 0


def test_tdi_action_says_what_the_one_model_ended_as():
    from sktdi import SSMClassifier
    from sktdi.benchmark.runner import tdi_action
    from sktdi.datasets import load_ucr_split

    X, y, _, _ = load_ucr_split("GunPoint")
    aligned, action = tdi_action(SSMClassifier(random_state=0).fit(X[:20], y[:20]))
    assert action.startswith("network: ") and action.endswith("; ended as: fast path")


# -- the command -------------------------------------------------------------------------------


def _write_tsv(folder, name, X_train, y_train, X_test, y_test):
    (folder / name).mkdir(parents=True)
    for tag, X, y in (("TRAIN", X_train, y_train), ("TEST", X_test, y_test)):
        lines = ["\t".join([str(label), *(f"{v:.6g}" for v in row)]) for row, label in zip(X, y)]
        (folder / name / f"{name}_{tag}.tsv").write_text("\n".join(lines) + "\n")


def test_all_datasets_of_a_folder_skip_what_the_models_cannot_take(tmp_path, capsys):
    from sktdi.datasets import planted_frequency_task

    rng = np.random.default_rng(0)
    for k, name in enumerate(["Alpha", "Beta"]):
        X, y = planted_frequency_task(6, length=32, random_state=k)
        _write_tsv(tmp_path / "archive", name, X[:, 0], y, X[:, 0] + 0.1, y)
    X, y = planted_frequency_task(6, length=32, random_state=5)
    holes = X[:, 0].copy()
    holes[3, 10] = np.nan
    _write_tsv(tmp_path / "archive", "Holes", holes, y, X[:, 0], y)
    _write_tsv(tmp_path / "archive", "Numbers", X[:, 0], rng.normal(size=len(y)), X[:, 0],
               rng.normal(size=len(y)))
    out = tmp_path / "out"
    argv = ["benchmark", "--datasets", "all", "--data-dir", str(tmp_path / "archive"),
            "--estimators", "1nn-euclidean", "--ratios", "1", "--resamples", "1", "--quiet",
            "--no-plot", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "skipping dataset Holes: Holes has missing values" in captured.err
    skipped = pd.read_csv(out / "skipped.csv")
    assert set(skipped["dataset"]) == {"Holes", "Numbers"}
    assert set(pd.read_csv(out / "results.csv")["dataset"]) == {"Alpha", "Beta"}
    assert "datasets skipped: 2" in (out / "summary.txt").read_text()
    assert (out / "tsml" / "ratio1" / "1nn-euclidean" / "Predictions" / "Beta"
            / "testResample0.csv").is_file()
    # a name typed on the command line must be usable: no silent skip
    with pytest.raises(SystemExit):
        main([*argv[:2], "Holes", *argv[3:]])
    assert "missing values" in capsys.readouterr().err
    # @FILE: the names listed, one a line
    listing = tmp_path / "names.txt"
    listing.write_text("# two of them\nAlpha\n\nHoles\n")
    assert main([*argv[:2], f"@{listing}", *argv[3:-1], str(tmp_path / "out2")]) == 0
    assert set(pd.read_csv(tmp_path / "out2" / "results.csv")["dataset"]) == {"Alpha"}


@pytest.mark.parametrize(
    "given, needle",
    [
        ({"no-arm": {"x": 1}}, "'no-arm' is not an arm of this run"),
        ({"tdi+ridge": {"no_such": 1}}, "tdi+ridge has no parameter 'no_such'"),
        ({"tdi+ridge": {"input_scaling": "nonsense"}}, "tdi+ridge: The 'input_scaling'"),
        ([1, 2], "must hold a JSON object"),
        # 1-NN's builder passes nothing on: the parameter would be dropped without a word
        ({"1nn-euclidean": {"n_neighbors": 3}}, "this arm takes no parameters"),
        ({"tdi+ridge": {"random_state": 3}}, "each cell's seed is its resample"),
        ({"*": {"no_such": 1}}, "which no arm of this run has"),
    ],
)
def test_params_file_errors(tmp_path, capsys, given, needle):
    path = tmp_path / "params.json"
    path.write_text(json.dumps(given))
    with pytest.raises(SystemExit):
        main(["benchmark", "--datasets", "ItalyPowerDemand", "--estimators", *LIGHT,
              "--params", str(path), "--out", str(tmp_path / "out")])
    assert needle in capsys.readouterr().err


def test_params_file_reaches_its_arm(tmp_path):
    path = tmp_path / "params.json"
    path.write_text(json.dumps({"tdi+ridge": {"input_scaling": "series+scale"}}))
    out = tmp_path / "out"
    assert main(["benchmark", "--datasets", "ItalyPowerDemand", "--estimators", *LIGHT,
                 "--ratios", "1", "--resamples", "1", "--params", str(path), "--quiet",
                 "--no-plot", "--out", str(out)]) == 0
    results = pd.read_csv(out / "results.csv").set_index("estimator")
    assert json.loads(results.loc["tdi+ridge", "config"]) == {"input_scaling": "series+scale"}
    assert json.loads(results.loc["1nn-euclidean", "config"]) == {}
    settings = json.loads((out / "settings.json").read_text())
    assert settings["estimators"]["tdi+ridge"]["input_scaling"] == "series+scale"


def test_an_older_results_file_cannot_split_its_ties():
    rows = [("D", 0.1, 0, "tdi", 0.8, 0.0), ("D", 0.1, 0, "s4d-lin", 0.8, np.nan)]
    assert tie_split(_frame(rows).drop(columns="tdi_aligned")).empty


def test_the_control_gets_a_verdict():
    from sktdi.benchmark.answer import _control_verdict

    def controls(low):
        return pd.DataFrame([{"a": "tdi", "b": "s4d-lin", "scope": 0.1, "low": low},
                             {"a": "tdi", "b": "tdi-control", "scope": 0.1, "low": -0.01}])

    assert _control_verdict(controls(0.004)).startswith("verdict: the run saw the control's effect")
    assert "not separated from moving modes anywhere" in _control_verdict(controls(0.004))
    assert _control_verdict(controls(-0.01)).startswith("verdict: not shown")


def test_a_names_file_without_names_says_so(tmp_path, capsys):
    listing = tmp_path / "names.txt"
    listing.write_text("# nothing yet\n\n")
    with pytest.raises(SystemExit):
        main(["benchmark", "--datasets", f"@{listing}", "--out", str(tmp_path / "out")])
    assert f"{listing} lists no dataset name" in capsys.readouterr().err


def test_a_log_hears_from_a_long_cell_every_heartbeat(monkeypatch):
    # a run of minutes-long cells (Crop's) left a log silent while they ran
    import io
    import time

    log = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", log)
    monkeypatch.setattr(RunProgress, "LOG_SECONDS", 0.01)  # the heartbeat checks this often
    monkeypatch.setattr(RunProgress, "HEARTBEAT_SECONDS", 60.0)
    cells = make_cells(["ItalyPowerDemand"], [1.0], 2, ["1nn-euclidean"])
    now = [0.0]
    with RunProgress(cells, 1, clock=lambda: now[0]):
        time.sleep(0.1)
        assert len(log.getvalue().splitlines()) == 1  # the estimate only: no minute has passed
        now[0] = 61.0  # a long first cell
        deadline = time.monotonic() + 5
        while len(log.getvalue().splitlines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert log.getvalue().splitlines()[1].startswith("0/2 cells (0%), 1:01 elapsed, about ")
        time.sleep(0.1)  # no second heartbeat within the minute after the first
        assert len(log.getvalue().splitlines()) == 2


def test_progress_into_a_log_is_lines_with_the_clock_of_their_printing(monkeypatch):
    # before: a log got nothing until the first cell ended, then tqdm's carriage-return
    # updates, each with the clock of the cell before ("3/60 cells, 0:08 elapsed" minutes in)
    import io

    log = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", log)
    cells = make_cells(["ItalyPowerDemand"], [1.0], 20, ["1nn-euclidean"])
    now = [100.0]
    with RunProgress(cells, 1, clock=lambda: now[0]) as progress:
        expected = format_clock(expected_seconds(cells, 1))
        # at once, before any cell has finished
        assert log.getvalue() == f"20 cells to compute, about {expected} expected (cost model)\n"
        for cell in cells:
            now[0] += 10.0  # a cell every 10 s: a line every third cell, at most every 30 s
            progress.finished(cell.key())
    text = log.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and len(lines) == 1 + 6 + 1  # cells 3, 6, ..., 18, and the end
    assert lines[1].startswith("3/20 cells (15%), 0:30 elapsed, about ")
    assert lines[2].startswith("6/20 cells (30%), 1:00 elapsed, about ")
    assert lines[-1] == f"20/20 cells done in 3:20 (expected about {expected})"

    # cells slower than the half minute: a line after each
    log.seek(0), log.truncate()
    with RunProgress(cells[:3], 1, clock=lambda: now[0]) as progress:
        for cell in cells[:3]:
            now[0] += 45.0
            progress.finished(cell.key())
    assert [line.split(" elapsed")[0] for line in log.getvalue().splitlines()[1:]] == [
        "1/3 cells (33%), 0:45", "2/3 cells (67%), 1:30",
        f"3/3 cells done in 2:15 (expected about {format_clock(expected_seconds(cells[:3], 1))})",
    ]


def test_progress_on_a_terminal_is_a_ticking_bar(monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    cells = make_cells(["ItalyPowerDemand"], [1.0], 2, ["1nn-euclidean"])
    with RunProgress(cells, 1) as progress:
        assert progress._ticker is not None
        for cell in cells:
            progress.finished(cell.key())
    assert progress._ticker.is_alive() is False
    assert "\r" in screen.getvalue() and "2/2 cells 100%" in screen.getvalue()
