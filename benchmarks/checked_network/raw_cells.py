"""Issue 70's raw-recording cells and the PLAID subset at issue 76's defaults: SSMClassifier()
(now input_scaling="series+scale", its network checked against its fast path) on the official
splits of GunPoint, ArrowHead and ItalyPowerDemand, clean and under the raw-data study's gain,
offset and trend (``benchmarks/shared/raw_inputs.perturb``, seed 0 for the training split and
1 for the test split), 3 draws each, and on 10 draws of the PLAID subset (raw electrical
recordings of unequal length), as issue 70's study drew them (``sktdi.datasets.resample_split``,
resample 0 the official split; each fit ``random_state=r``, one torch thread).

    OMP_NUM_THREADS=1 python benchmarks/checked_network/raw_cells.py [--n-jobs 1]
    # at issue 77's defaults (the network on its own ground only)
    OMP_NUM_THREADS=1 python benchmarks/checked_network/raw_cells.py \\
        --out results/raw_cells_ground.csv

Rows go to ``results/raw_cells.csv`` (or ``--out``, inside this study's folder) as cells
finish; a rerun skips the cells it holds.
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

RAW_SETS = ("GunPoint", "ArrowHead", "ItalyPowerDemand")
PERTURBATIONS = ("clean", "gain", "offset", "trend")
RAW_DRAWS, PLAID_DRAWS = 3, 10
RESULTS = Path(__file__).resolve().parent / "results" / "raw_cells.csv"
KEY = ["dataset", "perturbation", "resample"]


def plan() -> list[tuple]:
    jobs = [(d, kind, r) for r in range(RAW_DRAWS) for d in RAW_SETS for kind in PERTURBATIONS]
    return jobs + [("PLAID-subset", "clean", r) for r in range(PLAID_DRAWS)]


def run(dataset: str, perturbation: str, resample: int) -> dict:
    from sklearn.metrics import log_loss

    from sktdi import SSMClassifier
    from sktdi.benchmark.runner import cell_threads
    from sktdi.datasets import load_dataset_split, resample_split

    from ..shared.raw_inputs import perturb, plaid_subset

    split = plaid_subset() if dataset == "PLAID-subset" else load_dataset_split(dataset)
    X, y, Xt, yt = resample_split(*split, resample)
    if perturbation != "clean":
        X, Xt = perturb(np.asarray(X), perturbation, 0), perturb(np.asarray(Xt), perturbation, 1)
    with cell_threads(1):
        model = SSMClassifier(random_state=resample)
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        proba = model.predict_proba(Xt)
    return {"dataset": dataset, "perturbation": perturbation, "resample": resample,
            "accuracy": float(np.mean(model.classes_[proba.argmax(axis=1)] == yt)),
            "log_loss": log_loss(yt, proba, labels=model.classes_), "fit_seconds": seconds,
            "model": model.fast_path_report_["model"] if model.fast_path_report_ else "network"}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default="results/raw_cells.csv",
                        help="the results file, relative to this study's folder")
    args = parser.parse_args(argv)
    out = RESULTS.parents[1] / args.out
    run_unfinished(run, plan(), out, KEY, args.n_jobs)


if __name__ == "__main__":
    main()
