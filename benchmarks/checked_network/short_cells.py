"""Issue 70's short choice and confirmation cells at today's defaults (issue 76's target: no
cell more than 0.5 below the one model that issue 70 measured), with each cell's
probabilities scored: log-loss, the Brier score and the expected calibration error (15 bins).

The cells are ``benchmarks/one_model``'s (``benchmarks/shared/short_sets``: the same sets,
draws and seeds), the
``combined`` arm only: ``SSMClassifier()`` as it ships, built by the harness (``tdi``) with
``random_state`` the draw, one thread. The one model of issue 70 is that study's committed
``combined`` cells (``benchmarks/one_model/results/one_model.csv``), read, not rerun.

    OMP_NUM_THREADS=1 python benchmarks/checked_network/short_cells.py [--n-jobs 1]

Rows go to ``results/short_cells.csv`` as cells finish; a rerun skips the cells it holds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "benchmarks.checked_network"

from ..shared.results_file import run_unfinished  # noqa: E402
from ..shared.short_sets import CHOICE, CONFIRMATION, DRAWS, draws, split_of, stage_of  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "short_cells.csv"
KEY = ["dataset", "resample"]


def plan() -> list[tuple]:
    """(dataset, draw) of every cell of issue 70's choice and confirmation sets."""
    return [(dataset, r) for r in range(DRAWS) for dataset in CHOICE + CONFIRMATION
            if r in draws(dataset)]


def run(dataset: str, resample: int) -> dict:
    from sktdi.benchmark.estimators import ESTIMATORS
    from sktdi.benchmark.probabilities import brier, expected_calibration_error, log_loss
    from sktdi.benchmark.runner import _inputs, _longest, _warm_up, cell_threads

    X, y, Xt, yt = split_of(dataset, "clean", resample)
    build, kind, _ = ESTIMATORS["tdi"]
    with cell_threads(1):
        model = build(resample, {})
        length = max(_longest(X), _longest(Xt))
        (args, kwargs), (test_args, test_kwargs) = _inputs(kind, X, length), _inputs(kind, Xt, length)
        _warm_up("tdi", model, args, y, kwargs)
        start = time.perf_counter()
        model.fit(*args, y, **kwargs)
        seconds = time.perf_counter() - start
        proba = model.predict_proba(*test_args, **test_kwargs)  # (n_test, n_classes)
    codes = np.searchsorted(model.classes_, yt)
    report = model.fast_path_report_
    return {"dataset": dataset, "resample": resample, "stage": stage_of(dataset),
            "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == yt)),
            "log_loss": log_loss(proba, codes), "brier": brier(proba, codes),
            "ece": expected_calibration_error(proba, codes), "fit_seconds": seconds,
            "model": report["model"] if report else "network", "epochs": model.n_epochs_}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    run_unfinished(run, plan(), RESULTS, KEY, args.n_jobs)


if __name__ == "__main__":
    main()
