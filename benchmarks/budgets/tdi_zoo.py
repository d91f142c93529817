"""TDI's safety net: TDI against S4D-Lin and its placebo on the task zoo, at every budget.

Issue 23's study. Every zoo task (:data:`sktdi.datasets.ZOO_TASKS`) is drawn once per seed
with ``TEST_PER_CLASS`` more series per class than its training split, and split
(stratified) into the training series and the test series; every arm is fitted on the
same training half with the same ``random_state`` (paired) and scored on the test half. Each
budget is its own fit (the cosine schedule spans that fit's epochs), so a point is what a
user who asks for that many epochs gets.

The zoo is a check, not a tuning set. ``--seed-offset`` moves to other draws of every task:
the diagnosis (``--seed-offset 100``, ``benchmarks/budgets/results/tdi_zoo_diagnosis.csv``) never shares a
draw with the report (offset 0, ``benchmarks/budgets/results/tdi_zoo.csv``).

    python benchmarks/budgets/tdi_zoo.py --out benchmarks/budgets/results/tdi_zoo.csv
    python benchmarks/budgets/tdi_zoo.py --summarize benchmarks/budgets/results/tdi_zoo.csv

Every cell uses SSMClassifier's defaults except the arm's overrides and ``max_epochs``, one
torch thread, float32 inference. Rows are appended as cells finish; a rerun skips the cells
its ``--out`` file already holds.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.results_file import finished_rows, run_cells  # noqa: E402

BUDGETS = (5, 10, 20, 50, 100)
# arm name -> SSMClassifier overrides (set_params keys: tdi__<field> reaches TDIOptions)
ARMS = {
    "tdi": {"init": "tdi"},
    "s4d-lin": {"init": "s4d-lin"},
    "tdi-control": {"init": "tdi-control"},
    # diagnosis: one candidate cause per arm, each with its control where it has one
    "auto": {"init": "auto"},  # TDI only where the statistic is reliable
    "tdi-norel": {"init": "tdi", "tdi__reliability": False},  # the reliability shrinkage
    "tdi-base": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.5},  # base coverage
    "control-base": {"init": "tdi-control", "tdi__coverage": "base", "tdi__spread": 0.5},
    "tdi-gain": {"init": "tdi", "tdi__coverage": "gain"},  # no mode moves, gains follow
    "control-gain": {"init": "tdi-control", "tdi__coverage": "gain"},
    "tdi-bd": {"init": "tdi", "tdi__decay": "base"},  # the base's decays (time scales)
    "control-bd": {"init": "tdi-control", "tdi__decay": "base"},
    "tdi-2peaks": {"init": "tdi", "tdi__max_peaks": 2},  # peaks against frequency bins
    "tdi-all-layers": {"init": "tdi", "tdi__layers": "all"},  # the layers TDI touches
}
# the recipe issue 23 was filed under (before issue 22's network): "old-<arm>" arms
OLD_RECIPE = {
    "network": "s4d",
    "d_model": 64,
    "n_layers": 2,
    "pooling": "mean-max",
    "dropout": 0.1,
    "dt_max": 1.0,
}
ARMS.update({f"old-{arm}": {**OLD_RECIPE, **overrides} for arm, overrides in list(ARMS.items())})
KEY = ["task", "seed", "arm", "budget"]
TEST_PER_CLASS = 64  # enough test series that one of them is not a point and more


def run_cell(task: str, seed: int, arm: str, budget: int) -> dict:
    import torch
    from sklearn.model_selection import train_test_split

    from sktdi import SSMClassifier
    from sktdi.datasets import ZOO_TASKS, zoo_task

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    spec = ZOO_TASKS[task]
    n_fit = spec["n_per_class"] * spec["n_classes"]
    X, y = zoo_task(
        **{**spec, "n_per_class": spec["n_per_class"] + TEST_PER_CLASS}, random_state=seed
    )
    X_fit, X_eval, y_fit, y_eval = train_test_split(
        X, y, train_size=n_fit, stratify=y, random_state=seed
    )
    model = SSMClassifier(
        max_epochs=budget, random_state=seed, n_threads=1, inference_dtype="float32"
    ).set_params(**ARMS[arm])
    start = time.perf_counter()
    model.fit(X_fit, y_fit)
    fit_seconds = time.perf_counter() - start
    report = model.init_report_
    return {
        "task": task,
        "seed": seed,
        "arm": arm,
        "budget": budget,
        "n_fit": len(y_fit),
        "n_eval": len(y_eval),
        "accuracy": float(np.mean(model.predict(X_eval) == y_eval)),
        "train_accuracy": float(np.mean(model.predict(X_fit) == y_fit)),
        "fit_seconds": fit_seconds,
        "chosen": report["chosen"],
        "channel_share": report["channel_share"],
        "reliability": report["reliability"],
        "n_significant_bins": report["n_significant_bins"],
    }


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy per (task, budget) and arm, with TDI's lead over S4D-Lin and over its
    control, in points."""
    table = results.pivot_table(
        index=["task", "budget"], columns="arm", values="accuracy", aggfunc="mean"
    )
    if {"tdi", "s4d-lin"} <= set(table):
        table["tdi-lin"] = 100 * (table["tdi"] - table["s4d-lin"])
    if {"tdi", "tdi-control"} <= set(table):
        table["tdi-control_lead"] = 100 * (table["tdi"] - table["tdi-control"])
    return table.round(3)


def main() -> None:
    from sktdi.datasets import ZOO_TASKS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", nargs="+", default=["tdi", "s4d-lin", "tdi-control"])
    parser.add_argument("--tasks", nargs="+", default=list(ZOO_TASKS))
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed-offset", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("--summarize", default=None, help="print the table of a results file")
    args = parser.parse_args()
    if args.summarize:
        print(summarize(pd.read_csv(args.summarize)).to_string())
        return
    for arm in args.arms:
        if arm not in ARMS:
            parser.error(f"unknown arm {arm!r}; choose from {sorted(ARMS)}")
    for task in args.tasks:
        if task not in ZOO_TASKS:
            parser.error(f"unknown task {task!r}; choose from {sorted(ZOO_TASKS)}")
    out = Path(args.out)
    rows, done = finished_rows(out, KEY)
    cells = [
        (task, seed, arm, budget)
        for seed in range(args.seed_offset, args.seed_offset + args.seeds)
        for task in args.tasks
        for budget in args.budgets
        for arm in args.arms
        if (task, seed, arm, budget) not in done
    ]
    cells.sort(key=lambda c: (c[1], -c[3]))  # long fits first within a seed: a short tail
    rows = run_cells(run_cell, cells, rows, out, KEY, args.n_jobs)
    print(summarize(pd.DataFrame(rows)).to_string())


if __name__ == "__main__":
    main()
