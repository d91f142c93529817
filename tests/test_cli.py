"""The ``sktdi benchmark`` command: argument checks, failure reports, resuming, threads."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from sktdi.benchmark import ESTIMATORS, Cell
from sktdi.benchmark.runner import _joblib_results, cell_threads
from sktdi.cli import main

FAST = ["--datasets", "ItalyPowerDemand", "--estimators", "1nn-euclidean", "--no-plot", "--quiet"]


def usage_error(capsys, argv: list[str]) -> str:
    """The error line of a command that must stop with status 2 before running any cell."""
    with pytest.raises(SystemExit) as exc:
        main(["benchmark", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and lines[0].startswith("sktdi benchmark: error: "), err
    return lines[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--ratios", "0"], ["--ratios", "(0, 1]"]),
        (["--ratios", "0.5", "2.5"], ["--ratios", "2.5"]),
        (["--ratios", "nan"], ["--ratios"]),
        (["--cv", "1"], ["--cv", "2"]),
        (["--max-epochs", "-1"], ["--max-epochs"]),
        (["--resamples", "0"], ["--resamples"]),
        (["--min-per-class", "0"], ["--min-per-class"]),
        (["--n-jobs", "0"], ["--n-jobs", "-1"]),
        (["--n-jobs", "-3"], ["--n-jobs"]),
        (["--data-dir", "/nonexistent"], ["--data-dir", "/nonexistent"]),
        (["--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler", "--backend dask"]),
    ],
)
def test_number_and_option_errors(capsys, tmp_path, argv, names):
    line = usage_error(capsys, [*FAST, "--out", str(tmp_path / "out"), *argv])
    for name in names:
        assert name in line
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


def test_out_must_be_a_writable_folder(capsys, tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert "is not a folder" in usage_error(capsys, [*FAST, "--out", str(a_file)])
    line = usage_error(capsys, [*FAST, "--out", str(a_file / "sub")])
    assert "--out" in line and "cannot create" in line


def test_out_with_a_foreign_results_file(capsys, tmp_path):
    (tmp_path / "results.csv").write_text("a,b\n1,2\n")
    line = usage_error(capsys, [*FAST, "--out", str(tmp_path)])
    assert "--out" in line and "not an sktdi benchmark results file" in line


@pytest.mark.parametrize(
    "datasets, needles",
    [
        (["NoSuchSet"], ["'NoSuchSet'", "--data-dir"]),
        (["gunpoint"], ["did you mean 'GunPoint'"]),
        (["Tecator"], ["Tecator is a regression dataset", "classifiers"]),
        (["ItalyPowerDemand", "Covid3Month"], ["Covid3Month is a regression dataset"]),
    ],
)
def test_dataset_errors(capsys, tmp_path, datasets, needles):
    argv = ["--estimators", "1nn-euclidean", "--out", str(tmp_path), "--datasets", *datasets]
    line = usage_error(capsys, argv)
    assert "--datasets" in line
    for needle in needles:
        assert needle in line


def test_dataset_missing_from_data_dir(capsys, tmp_path):
    line = usage_error(capsys, [*FAST, "--data-dir", str(tmp_path), "--out", str(tmp_path)])
    assert "'ItalyPowerDemand' is not in " + str(tmp_path) in line


def test_cv_larger_than_the_smallest_class(capsys, tmp_path):
    line = usage_error(capsys, [*FAST, "--cv", "1000", "--out", str(tmp_path)])
    assert line.count("--cv 1000") == 1 and "ItalyPowerDemand" in line and "series" in line
    assert not (tmp_path / "results.csv").exists()


def test_unreachable_scheduler_fails_fast(capsys, tmp_path):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{closed_port()}"
    line = usage_error(
        capsys, [*FAST, "--backend", "dask", "--scheduler", address, "--out", str(tmp_path)]
    )
    assert "--scheduler" in line and "cannot reach" in line


def _broken(seed, overrides):
    raise RuntimeError("this estimator always fails")


@pytest.fixture
def broken_estimator(monkeypatch):
    # run in this process (--n-jobs 1), so the patched registry is the one run_cell reads
    monkeypatch.setitem(ESTIMATORS, "broken", (_broken, "flat", None))


def test_partial_failure_lists_the_failed_cells(capsys, tmp_path, broken_estimator):
    argv = ["--datasets", "ItalyPowerDemand", "--ratios", "0.5", "1", "--resamples", "1",
            "--estimators", "broken", "1nn-euclidean", "--n-jobs", "1", "--no-plot",
            "--quiet", "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 0
    captured = capsys.readouterr()
    assert "2 of 4 cells failed" in captured.err
    assert "RuntimeError: this estimator always fails (2 cells)" in captured.err
    assert "ItalyPowerDemand ratio 0.5 resample 0 broken" in captured.err
    assert "test accuracy" in captured.out  # the summary of the ok cells still prints
    assert (tmp_path / "summary.txt").exists()


def test_total_failure_exits_1_with_the_reason(capsys, tmp_path, broken_estimator):
    argv = ["--datasets", "ItalyPowerDemand", "--ratios", "0.5", "1", "--resamples", "1",
            "--estimators", "broken", "--n-jobs", "1", "--no-plot", "--quiet",
            "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 1
    err = capsys.readouterr().err
    assert "all 2 cells failed" in err
    assert "RuntimeError: this estimator always fails (2 cells)" in err
    assert "Traceback" not in err and "UFunc" not in err
    assert (pd.read_csv(tmp_path / "results.csv")["status"] == "error").all()


def test_resumed_run_says_nothing_was_computed(capsys, tmp_path):
    argv = [*FAST, "--ratios", "1", "--resamples", "1", "--n-jobs", "1", "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 0
    first = capsys.readouterr().out
    assert "1 cells: 1 computed now in " in first and "0 taken from" in first
    assert main(["benchmark", *argv]) == 0
    again = capsys.readouterr().out
    assert "1 cells: 0 computed now, 1 taken from" in again
    assert "wall time" not in again and " s," not in again


def _epochs_knn(seed, overrides):
    """A fast stand-in for an SSM arm: it reads max_epochs, so --max-epochs is its setting."""
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=3)


def test_rerun_with_other_max_epochs_recomputes_and_records_the_settings(
    capsys, tmp_path, monkeypatch
):
    # before: a --max-epochs 5 rerun into a folder of 20-epoch cells took them silently
    monkeypatch.setitem(ESTIMATORS, "epochs-knn", (_epochs_knn, "flat", None))
    argv = ["--datasets", "ItalyPowerDemand", "--ratios", "0.5", "1", "--resamples", "2",
            "--estimators", "epochs-knn", "1nn-euclidean", "--n-jobs", "1", "--no-plot",
            "--quiet", "--out", str(tmp_path)]
    assert main(["benchmark", *argv, "--max-epochs", "20"]) == 0
    first = capsys.readouterr()
    assert "other settings" not in first.err
    assert "max_epochs=20: epochs-knn" in (tmp_path / "summary.txt").read_text()

    assert main(["benchmark", *argv, "--max-epochs", "5"]) == 0
    again = capsys.readouterr()
    assert again.err.count("other settings") == 1
    assert (f"4 cells in {tmp_path} were computed with other settings (max_epochs=20) and will "
            "be recomputed with max_epochs=5") in again.err
    assert "8 cells: 4 computed now in " in again.out and "4 taken from" in again.out
    results = pd.read_csv(tmp_path / "results.csv")
    assert len(results) == 8
    assert set(results.loc[results["estimator"] == "epochs-knn", "config"]) == {
        '{"max_epochs": 5}'}
    summary = (tmp_path / "summary.txt").read_text()
    assert summary.startswith("== non-default run settings ==\nmax_epochs=5: epochs-knn\n")
    assert "max_epochs=20" not in summary
    assert len(pd.read_csv(tmp_path / "results_replaced.csv")) == 4

    # summary_accuracy.csv: numbers, one row per (dataset, ratio, estimator)
    table = pd.read_csv(tmp_path / "summary_accuracy.csv")
    assert list(table.columns) == ["dataset", "ratio", "estimator", "mean", "std", "n"]
    assert len(table) == 4 and table["mean"].dtype == float and table["std"].dtype == float
    assert (table["n"] == 2).all() and table["mean"].between(0, 1).all()


SEEN_THREADS: list[int] = []


class _ThreadsKnn:
    """A fast stand-in for an SSM arm that records torch's thread count in its fit."""

    def __init__(self):
        from sklearn.neighbors import KNeighborsClassifier

        self.knn = KNeighborsClassifier(n_neighbors=3)

    def fit(self, X, y):
        import torch

        SEEN_THREADS.append(torch.get_num_threads())
        self.knn.fit(X, y)
        self.classes_ = self.knn.classes_
        return self

    def predict(self, X):
        return self.knn.predict(X)


@pytest.mark.parametrize("omp, expected", [("1", 1), ("3", 3), (None, 8)])
def test_one_job_respects_omp_num_threads(capsys, tmp_path, monkeypatch, omp, expected):
    # before: --n-jobs 1 gave each cell every core whatever OMP_NUM_THREADS said, and on a
    # loaded machine the SSM cells' fit times came out 10-15 times too long
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    if omp is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", omp)
    build = lambda seed, params: _ThreadsKnn()  # noqa: E731
    monkeypatch.setitem(ESTIMATORS, "threads-knn", (build, "flat", None))
    SEEN_THREADS.clear()
    argv = ["--datasets", "ItalyPowerDemand", "--ratios", "1", "--resamples", "1",
            "--estimators", "threads-knn", "--n-jobs", "1", "--no-plot", "--quiet",
            "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 0
    assert SEEN_THREADS == [expected]


def test_omp_num_threads_caps_the_share_of_several_jobs(monkeypatch):
    import os

    from sktdi.benchmark.runner import worker_threads

    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert worker_threads(2, environ={}) == 8
    assert worker_threads(2, environ={"OMP_NUM_THREADS": "2"}) == 2
    assert worker_threads(2, environ={"OMP_NUM_THREADS": "12"}) == 8  # a cap, not more
    assert worker_threads(1, environ={"OMP_NUM_THREADS": "junk"}) == 16  # ignored


def test_n_jobs_help_names_omp_num_threads(capsys):
    with pytest.raises(SystemExit):
        main(["benchmark", "--help"])
    assert "OMP_NUM_THREADS" in " ".join(capsys.readouterr().out.split())


def report_threads(cell: Cell) -> dict:
    """What a cell sees inside its worker: torch's threads and the native pools' limits."""
    import torch
    from threadpoolctl import threadpool_info

    with cell_threads(cell.threads):
        return {
            "torch": torch.get_num_threads(),
            "pools": sorted({pool["num_threads"] for pool in threadpool_info()}),
        }


@pytest.mark.parametrize("threads", [1, 2])
def test_cells_in_workers_get_their_threads(threads):
    cells = [Cell("ItalyPowerDemand", 1.0, i, "1nn-euclidean", threads=threads) for i in range(2)]
    for seen in _joblib_results(cells, n_jobs=2, func=report_threads):
        assert seen["torch"] == threads
        assert seen["pools"] == [threads]  # numpy's BLAS and OpenMP too, not one per core


def test_version(capsys):
    # before: "sktdi: error: the following arguments are required: command", status 2
    import sktdi

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"sktdi {sktdi.__version__}\n"


def test_version_of_the_installed_console_script():
    import sktdi

    script = Path(sys.executable).with_name("sktdi")  # pip puts it beside the interpreter
    if not script.exists():
        pytest.skip("the sktdi console script is not installed beside this Python")
    run = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"sktdi {sktdi.__version__}\n"


def test_help_and_argument_errors_do_not_import_torch():
    code = (
        "import sys, sktdi.cli\n"
        "for argv in (['--help'], ['--version'], ['benchmark', '--help'],\n"
        "             ['benchmark', '--cv', '1']):\n"
        "    try:\n"
        "        sktdi.cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = [m for m in ('torch', 'sklearn', 'sktime', 'pandas') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert run.stdout.splitlines()[-1] == "[]", run.stdout


def test_lazy_package_attributes():
    import sktdi

    assert sktdi.__version__
    from sktdi import SpectralAlignmentTransformer, SSMClassifier, SSMRegressor  # noqa: F401

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sktdi.nope  # noqa: B018


def loky_leak_limit(cell: Cell) -> int:
    from joblib.externals.loky import process_executor

    return process_executor._MAX_MEMORY_LEAK_SIZE


def test_loky_workers_tolerate_the_cells_memory_growth():
    # loky's default (300 MB over the RSS after a worker's first task) retires workers that
    # only imported torch/skorch and JIT-compiled minirocket, with a "worker stopped" warning
    from sktdi.benchmark.runner import LOKY_MEMORY_GROWTH_LIMIT

    cells = [Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean")]
    assert list(_joblib_results(cells, n_jobs=2, func=loky_leak_limit)) == [
        LOKY_MEMORY_GROWTH_LIMIT
    ]


def _knn(n_neighbors: int):
    """A fast stand-in for an SSM arm (the summary and figures only read its results)."""

    def build(seed, overrides):
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=n_neighbors)

    return build


def test_a_partial_rerun_leaves_no_figure_of_another_grid(capsys, tmp_path, monkeypatch):
    # before: a rerun into the same folder without S4D-Lin rewrote summary.txt and
    # accuracy_vs_ratio.png for its grid, but left the TDI/S4D-Lin run's
    # tdi_minus_s4d_lin.png, and nothing said results.csv held more rows than the summary
    pytest.importorskip("matplotlib")
    monkeypatch.setitem(ESTIMATORS, "tdi", (_knn(1), "flat", None))
    monkeypatch.setitem(ESTIMATORS, "s4d-lin", (_knn(5), "flat", None))
    base = ["--datasets", "ItalyPowerDemand", "--ratios", "0.5", "1", "--resamples", "2",
            "--n-jobs", "1", "--quiet", "--out", str(tmp_path)]
    paired, curves = tmp_path / "tdi_minus_s4d_lin.png", tmp_path / "accuracy_vs_ratio.png"
    assert main(["benchmark", *base, "--estimators", "tdi", "s4d-lin"]) == 0
    assert paired.is_file() and curves.is_file()
    out = capsys.readouterr().out
    assert f"the summary covers this run's grid: 8 of the 8 rows in {tmp_path}" in out

    assert main(["benchmark", *base, "--estimators", "tdi", "1nn-euclidean"]) == 0
    out = capsys.readouterr().out
    assert not paired.exists() and curves.is_file()
    assert f"removed {paired}, an earlier run's figure: this run does not draw it" in out
    covers = f"the summary covers this run's grid: 8 of the 12 rows in {tmp_path}"
    assert covers in out and "the other 4 are earlier runs' cells" in out
    summary = (tmp_path / "summary.txt").read_text()
    assert covers in summary and "S4D-Lin" not in summary

    # --no-plot: no figure of an earlier run beside the new summary either
    assert main(["benchmark", *base, "--estimators", "tdi", "s4d-lin", "--no-plot"]) == 0
    assert not curves.exists() and not paired.exists()
    assert f"removed {curves}" in capsys.readouterr().out


def test_help_says_what_the_default_run_runs_not_how_long(capsys):
    # before: "a few minutes on 2 cores", a duration nobody measured for this network
    with pytest.raises(SystemExit):
        main(["benchmark", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "minutes" not in text and "cores." not in text
    assert "GunPoint, ItalyPowerDemand, ArrowHead, planted (the last the positive control" in text
    assert "x 2 ratios x 3 resamples" in text
    assert ("tdi, s4d-lin, tdi-control, tdi+ridge, s4d-lin+ridge, tdi+ridge+minirocket, "
            "s4d-lin+ridge+minirocket, minirocket-ridge, 1nn-euclidean" in text)
    assert "up to 216 cells" in text


def test_a_missing_benchmark_extra_is_named_before_any_cell_runs(monkeypatch, capsys):
    # before: a bare ImportError traceback from the middle of the run (tqdm's, after the cells)
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tqdm" else real(name, *a)
    )
    with pytest.raises(SystemExit) as info:
        main(["benchmark", "--datasets", "ItalyPowerDemand"])
    assert info.value.code == 2
    assert "pip install 'sktdi[benchmark]'" in capsys.readouterr().err


# -- a dry run, a stopped run, its summary ----------------------------------------------------


def test_dry_run_prints_the_plan_and_trains_and_writes_nothing(capsys, tmp_path, monkeypatch):
    from sktdi.benchmark import make_cells, runner
    from sktdi.benchmark.progress import expected_seconds, format_clock

    out = tmp_path / "out"
    listing = tmp_path / "names.txt"
    listing.write_text("ItalyPowerDemand\nGunPoint\nNoSuchSet\n")
    argv = ["--datasets", f"@{listing}", "--estimators", "1nn-euclidean", "tdi", "--ratios",
            "0.5", "1", "--resamples", "2", "--n-jobs", "2", "--quiet", "--no-plot",
            "--out", str(out)]
    # a part of the grid finished before: the plan counts it as reused
    first = ["--datasets", "ItalyPowerDemand", "GunPoint", "--estimators", "1nn-euclidean",
             "--ratios", "1", "--resamples", "2", "--quiet", "--no-plot", "--out", str(out)]
    assert main(["benchmark", *first]) == 0
    finished = (out / "results.csv").read_bytes(), (out / "settings.json").read_bytes()
    capsys.readouterr()

    def no_training(*args, **kwargs):
        raise AssertionError("a dry run trained")

    monkeypatch.setattr(runner, "run_benchmark", no_training)
    monkeypatch.setattr(runner, "run_cell", no_training)
    assert main(["benchmark", *argv, "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "skipping dataset NoSuchSet: not found" in captured.err  # the usual checks ran
    lines = captured.out.splitlines()
    assert "  ItalyPowerDemand: 67 train, length 24, 2 classes, 1029 test" in lines
    assert "  GunPoint: 50 train, length 150, 2 classes, 150 test" in lines
    from sktdi.benchmark.progress import cell_seconds, format_duration

    left = make_cells(["ItalyPowerDemand", "GunPoint"], [0.5], 2, ["1nn-euclidean"])
    assert f"  1nn-euclidean: 4 of 8 cells, {format_duration(sum(cell_seconds(left)))}" in lines
    assert any(line.startswith("  tdi: 8 of 8 cells, ") for line in lines)
    assert f"finished in {out / 'results.csv'}: 4 cells, which a resume reuses" in lines
    cells = make_cells(["ItalyPowerDemand", "GunPoint"], [0.5, 1.0], 2, ["1nn-euclidean", "tdi"])
    todo = [c for c in cells if not (c.estimator == "1nn-euclidean" and c.ratio == 1.0)]
    expected = format_clock(expected_seconds(todo, 2))
    assert (f"expected wall time: about {expected} for 12 cells on 2 workers (--n-jobs 2; cost "
            "model)") in lines
    assert lines[-1] == "dry run: nothing was trained or written"
    assert ((out / "results.csv").read_bytes(), (out / "settings.json").read_bytes()) == finished
    assert not (out / "skipped.csv").exists()  # the first run skipped none; this one wrote none
    # nothing at all when --out does not exist yet
    assert main(["benchmark", *argv[:-1], str(tmp_path / "new"), "--dry-run"]) == 0
    assert not (tmp_path / "new").exists()


def _stops_after(n_cells: int, how: str, out: Path):
    """A 1-NN arm whose cell n_cells + 1 is stopped: Ctrl-C, or a kill (SIGTERM)."""
    built = []

    def build(seed, overrides):
        import os
        import signal

        from sklearn.neighbors import KNeighborsClassifier

        # what the run compares is on disk from its start
        assert (out / "settings.json").is_file()
        built.append(seed)
        if len(built) > n_cells:
            if how == "sigterm":
                os.kill(os.getpid(), signal.SIGTERM)
            raise KeyboardInterrupt
        return KNeighborsClassifier(n_neighbors=1)

    return build


@pytest.mark.parametrize("how, status", [("ctrl-c", 130), ("sigterm", 143)])
def test_a_stopped_run_is_recorded_and_summarized(capsys, tmp_path, monkeypatch, how, status):
    import json

    pytest.importorskip("matplotlib")
    monkeypatch.setitem(ESTIMATORS, "knn", (_stops_after(3, how, tmp_path), "flat", None))
    argv = ["benchmark", "--datasets", "ItalyPowerDemand", "--ratios", "0.5", "1",
            "--resamples", "3", "--estimators", "knn", "--n-jobs", "1", "--out", str(tmp_path)]
    assert main(argv) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err
    stopped = [line for line in err.splitlines() if line.startswith("stopped:")]
    assert stopped == [(
        f"stopped: 3 of 6 cells finished (3 computed in this session, in "
        f"{tmp_path / 'results.csv'}); summarize them with: sktdi benchmark --summarize-only "
        f"--out {tmp_path}"
    )]
    assert len(pd.read_csv(tmp_path / "results.csv")) == 3
    settings = json.loads((tmp_path / "settings.json").read_text())
    assert settings["grid"]["ratios"] == [0.5, 1.0] and list(settings["estimators"]) == ["knn"]
    run = json.loads((tmp_path / "run.json").read_text())
    assert [(s["interrupted"], s["cells_computed"]) for s in run["sessions"]] == [(True, 3)]
    assert run["cells_computed"] == 3 and run["n_jobs"] == 1

    # the command it names summarizes the finished half, as a finished run would
    assert main(["benchmark", "--summarize-only", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert (f"6 cells in the grid of {tmp_path / 'settings.json'}: 3 finished, 3 missing"
            in captured.out)
    assert "test accuracy" in captured.out
    for name in ("summary.txt", "summary_accuracy.csv", "accuracy_vs_ratio.png"):
        assert (tmp_path / name).is_file(), name
    assert len(pd.read_csv(tmp_path / "summary_accuracy.csv")) == 1  # ratio 0.5 only

    # resumed: the other half, and run.json adds the session and the totals
    monkeypatch.setitem(ESTIMATORS, "knn", (_stops_after(99, how, tmp_path), "flat", None))
    assert main([*argv, "--quiet"]) == 0
    assert "6 cells: 3 computed now in " in capsys.readouterr().out
    run = json.loads((tmp_path / "run.json").read_text())
    sessions = run["sessions"]
    assert [(s["interrupted"], s["cells_computed"]) for s in sessions] == [(True, 3), (False, 3)]
    assert run["cells_computed"] == 6 and run["n_sessions"] == 2 and not run["interrupted"]
    assert run["wall_seconds"] == pytest.approx(sum(s["wall_seconds"] for s in sessions), abs=0.1)
    assert run["started"] == sessions[0]["started"] and run["finished"] == sessions[1]["finished"]


def test_an_older_run_json_is_read_as_one_session(capsys, tmp_path):
    import json

    older = {"command": "sktdi benchmark", "finished": "2026-01-01T00:00:00+0000",
             "wall_seconds": 10.0, "expected_seconds": 12.0, "cells": 1, "cells_computed": 1,
             "n_jobs": 2}
    (tmp_path / "run.json").write_text(json.dumps(older))
    argv = [*FAST, "--ratios", "1", "--resamples", "1", "--n-jobs", "1", "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 0
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["sessions"][0] == {**older, "interrupted": False}
    assert run["cells_computed"] == 2 and run["wall_seconds"] >= 10.0
    assert run["expected_seconds"] == 12.0  # the first estimate: a resumed one would count twice


def test_summarize_only_needs_a_run_folder_and_no_grid(capsys, tmp_path):
    import json

    line = usage_error(capsys, ["--summarize-only", "--out", str(tmp_path)])
    assert f"no {tmp_path / 'settings.json'}" in line
    line = usage_error(capsys, ["--summarize-only", "--datasets", "GunPoint", "--out",
                                str(tmp_path)])
    assert "--datasets cannot be given with it" in line
    # a run stopped before its first cell ended: its grid, and no row yet
    grid = {"datasets": ["GunPoint"], "ratios": [1.0], "resamples": 1, "cv": False}
    (tmp_path / "settings.json").write_text(
        json.dumps({"grid": grid, "estimators": {"tdi": {}}}))
    assert main(["benchmark", "--summarize-only", "--out", str(tmp_path)]) == 1
    assert "no cell of the grid in" in capsys.readouterr().err


def test_a_row_cut_short_is_said_in_one_line_and_computed_again(capsys, tmp_path):
    argv = [*FAST, "--ratios", "1", "--resamples", "2", "--n-jobs", "1", "--out", str(tmp_path)]
    assert main(["benchmark", *argv]) == 0
    whole = pd.read_csv(tmp_path / "results.csv")
    text = (tmp_path / "results.csv").read_text()
    (tmp_path / "results.csv").write_text(text[:-30])  # a kill in the middle of the last row
    capsys.readouterr()
    assert main(["benchmark", *argv]) == 0
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if "cut short" in line]
    assert len(said) == 1 and said[0].startswith("warning: ") and "computed again" in said[0]
    assert "TruncatedResultsWarning" not in captured.err
    assert "2 cells: 1 computed now in " in captured.out
    again = pd.read_csv(tmp_path / "results.csv")
    assert list(again["resample"]) == list(whole["resample"]) == [0, 1]
