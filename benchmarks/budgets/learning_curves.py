"""Accuracy at every training budget: learning curves of TDI, S4D-Lin, S4D-Inv and the control.

Issue 14's study. Each budget is its own fit (the cosine schedule spans that fit's epochs),
so a point of the curve is what a user who asks for that many epochs gets. Two modes:

- ``--mode train`` (choosing the initialization family): inside the official *training*
  split only — a stratified share ``ratio`` of it is fitted (resample r draws it with seed
  r) and the rest of the training split (at most ``--eval-max`` series) scores it. The test
  split is never read.
- ``--mode test`` (the results page): the official split resampled (resample 0 = official),
  a stratified share ``ratio`` of its training part fitted, the whole test part scored.

    python benchmarks/budgets/learning_curves.py --mode train --arms lin tiled base gain \\
        --datasets pixel-digits --ratios 0.08 --out runs/learning_curves_choice.csv
    python benchmarks/budgets/learning_curves.py --summarize runs/learning_curves_choice.csv

Every cell uses the estimator's defaults except the arm's overrides and ``max_epochs``, one
torch thread, float32 inference (the study's time goes to training, not to float64
prediction of long test sets). Rows are appended as cells finish; a rerun skips the cells
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
from benchmarks.shared.splits import cell_split, load_train  # noqa: E402

BUDGETS = (2, 5, 10, 20, 50, 100)
# arm name -> SSMClassifier overrides (set_params keys: tdi__<field> reaches TDIOptions)
ARMS = {
    "lin": {"init": "s4d-lin"},
    "inv": {"init": "s4d-inv"},
    "s4d-lin": {"init": "s4d-lin"},
    "s4d-inv": {"init": "s4d-inv"},
    "tiled": {"init": "tdi", "tdi__coverage": "tiled"},
    "tiled-control": {"init": "tdi-control", "tdi__coverage": "tiled"},
    "base": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.5},
    "base-control": {"init": "tdi-control", "tdi__coverage": "base", "tdi__spread": 0.5},
    "gain": {"init": "tdi", "tdi__coverage": "gain"},
    "gain-control": {"init": "tdi-control", "tdi__coverage": "gain"},
    # round 2: the two new families pushed toward the peaks
    "base25": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.25},
    "gain10": {"init": "tdi", "tdi__coverage": "gain", "tdi__spread": 0.1},
    "half": {"init": "tdi", "tdi__coverage": "tiled", "tdi__channel_share": 0.5},
    "half-control": {"init": "tdi-control", "tdi__coverage": "tiled", "tdi__channel_share": 0.5},
    "base25-control": {"init": "tdi-control", "tdi__coverage": "base", "tdi__spread": 0.25},
    # round 3: tiled frequencies, the base's decays (time scales)
    "tiled-bd": {"init": "tdi", "tdi__coverage": "tiled", "tdi__decay": "base"},
    "tiled-bd-control": {"init": "tdi-control", "tdi__coverage": "tiled", "tdi__decay": "base"},
    # the defaults as they stand, whatever they are: init="tdi" and nothing else
    "tdi": {"init": "tdi"},
    "tdi-control": {"init": "tdi-control"},
}
KEY = ["dataset", "ratio", "resample", "arm", "budget"]


def _split(dataset: str, mode: str, ratio: float, resample: int, eval_max: int):
    """(X_fit, y_fit, X_eval, y_eval, lengths_fit, lengths_eval) for one cell."""
    from sktdi.datasets import (
        load_dataset_split,
        pad_sequences,
        resample_split,
        take,
        training_subsample,
    )

    if mode == "train":
        X, y = load_train(dataset)  # the test split is dropped unseen
        fit, rest = cell_split(y, resample, 0, ratio)
        if len(rest) > eval_max:
            rest = np.sort(np.random.default_rng(resample).choice(rest, eval_max, replace=False))
        X_fit, y_fit, X_eval, y_eval = take(X, fit), y[fit], take(X, rest), y[rest]
    else:
        X_train, y_train, X_test, y_test = resample_split(*load_dataset_split(dataset), resample)
        fit = training_subsample(y_train, ratio, random_state=resample)
        X_fit, y_fit, X_eval, y_eval = take(X_train, fit), y_train[fit], X_test, y_test
    X_fit, lengths_fit = pad_sequences(X_fit)
    X_eval, lengths_eval = pad_sequences(X_eval)
    return X_fit, y_fit, X_eval, y_eval, lengths_fit, lengths_eval


def run_cell(
    dataset: str, mode: str, ratio: float, resample: int, arm: str, budget: int, eval_max: int
) -> dict:
    import torch

    from sktdi import SSMClassifier

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    X_fit, y_fit, X_eval, y_eval, lengths_fit, lengths_eval = _split(
        dataset, mode, ratio, resample, eval_max
    )
    model = SSMClassifier(
        max_epochs=budget,
        random_state=resample,
        n_threads=1,
        inference_dtype="float32",
    ).set_params(**ARMS[arm])
    start = time.perf_counter()
    model.fit(X_fit, y_fit, lengths=lengths_fit)
    fit_seconds = time.perf_counter() - start
    accuracy = float(np.mean(model.predict(X_eval, lengths_eval) == y_eval))
    epoch_seconds = [row["dur"] for row in model.history_]
    return {
        "dataset": dataset,
        "mode": mode,
        "ratio": ratio,
        "resample": resample,
        "arm": arm,
        "budget": budget,
        "n_fit": len(y_fit),
        "n_eval": len(y_eval),
        "accuracy": accuracy,
        "fit_seconds": fit_seconds,
        "train_seconds": float(np.sum(epoch_seconds)),
        "channel_share": model.init_report_["channel_share"],
    }


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy per (dataset, ratio, budget) and arm, with each TDI arm's lead over lin."""
    table = results.pivot_table(
        index=["dataset", "ratio", "budget"], columns="arm", values="accuracy", aggfunc="mean"
    )
    if "lin" in table:
        for arm in [a for a in table.columns if a not in ("lin", "inv") and "-" not in a]:
            table[f"{arm}-lin"] = 100 * (table[arm] - table["lin"])
    return table.round(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("train", "test"), default="train")
    parser.add_argument("--arms", nargs="+", default=["lin", "inv", "tdi", "tdi-control"])
    parser.add_argument("--datasets", nargs="+", default=["pixel-digits"])
    parser.add_argument("--ratios", nargs="+", type=float, default=[0.16])
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--resamples", type=int, default=3)
    parser.add_argument("--eval-max", type=int, default=300)
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
    out = Path(args.out)
    rows, done = finished_rows(out, KEY)
    cells = [
        (d, args.mode, ratio, r, arm, budget)
        for r in range(args.resamples)
        for d in args.datasets
        for ratio in args.ratios
        for budget in args.budgets
        for arm in args.arms
        if (d, ratio, r, arm, budget) not in done
    ]
    # the long fits first within a resample, so that the parallel tail is short
    cells.sort(key=lambda c: (c[3], -c[5]))
    cells = [(*cell, args.eval_max) for cell in cells]
    rows = run_cells(run_cell, cells, rows, out, KEY, args.n_jobs)
    print(summarize(pd.DataFrame(rows)).to_string())


if __name__ == "__main__":
    main()
