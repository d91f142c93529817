"""How SSMClassifier's architecture and training recipe were chosen: CV on *training* splits.

Issue 13's study. The levers (bidirectional S4D, pooling, augmentation, ensembles, depth,
width, epochs, early stopping) are scored by 3-fold stratified cross-validation inside the
official training split of each dataset (shuffled, seed 0); the test splits are never read.
Each configuration is a set of overrides on ``RECIPE_BASE``, the estimator's defaults before
the study, pinned so that a rerun measures the same thing whatever the defaults are now; both
are ``set_params`` keys (``training__augment`` reaches ``TrainingOptions.augment``).
Cells run in parallel with joblib, one torch thread each.

    python benchmarks/field/choose_recipe.py --round A --out benchmarks/field/results/recipe_study_roundA.csv

Results: one CSV row per (dataset, config, fold); the printed table has the mean CV accuracy
per dataset, the mean, the average rank and the mean fit seconds per configuration.
ACSF1 is left out of the study on purpose: it is the held-out check of the chosen recipe.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import KFold, StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.splits import load_train  # noqa: E402

# the estimator's defaults before issue 13
RECIPE_BASE = {
    "init": "tdi",
    "d_model": 64,
    "n_layers": 2,
    "d_state": 64,
    "dropout": 0.1,
    "pooling": "mean",
    "bidirectional": False,
    "training__augment": "none",
    "n_estimators": 1,
    "max_epochs": 100,
    "batch_size": 16,
    "lr": 1e-2,
}
_BI = {"bidirectional": True}
_BI_MM = {"bidirectional": True, "pooling": "mean-max"}
CONFIGS = {
    "base": {},
    "bi": _BI,
    "bi-max": {**_BI, "pooling": "max"},
    "bi-meanmax": _BI_MM,
    "bi-meanmax-aug": {**_BI_MM, "training__augment": "all"},
    "bi-meanmax-jitscale": {**_BI_MM, "training__augment": "jitter-scale"},
    "bi-meanmax-ens3": {**_BI_MM, "n_estimators": 3},
    "bi-meanmax-3layers": {**_BI_MM, "n_layers": 3},
    "bi-meanmax-d128": {**_BI_MM, "d_model": 128},
    "bi-meanmax-epochs50": {**_BI_MM, "max_epochs": 50},
    "bi-meanmax-epochs200": {**_BI_MM, "max_epochs": 200},
    # "bi-meanmax-prenorm" ({**_BI_MM, "prenorm": True}) belonged to the earlier API;
    # prenorm has since been removed (post-norm always), so the arm can no longer run. No
    # committed round (benchmarks/field/results/recipe_study_*.csv) holds it; doc_figures.py keeps its label.
    "bi-meanmax-dropout0.2": {**_BI_MM, "dropout": 0.2},
    "bi-meanmax-es": {**_BI_MM, "validation_fraction": 0.2, "n_iter_no_change": 20},
    "bi-meanmax-lin": {**_BI_MM, "init": "s4d-lin"},
    # faster-decaying modes: kernels short enough for local shape, as convolutions have
    "dtmax1": {"dt_max": 1.0},
    "dt1e-2-1": {"dt_min": 1e-2, "dt_max": 1.0},
    "bi-meanmax-dtmax1": {**_BI_MM, "dt_max": 1.0},
    # round B: causal and bidirectional with the faster modes
    "dtmax1-meanmax": {"dt_max": 1.0, "pooling": "mean-max"},
    "dtmax1-aug": {"dt_max": 1.0, "training__augment": "all"},
    "bi-meanmax-aug-dtmax1": {**_BI_MM, "training__augment": "all", "dt_max": 1.0},
}
ROUNDS = {
    "A": ["base", "bi", "bi-meanmax", "bi-meanmax-aug"],
    # OSULeaf lost 5-8 points to bidirectional in round A: is it the time scales?
    "osuleaf": ["dtmax1", "dt1e-2-1", "bi-meanmax-dtmax1"],
    "B": ["dtmax1", "dtmax1-meanmax", "dtmax1-aug", "bi-meanmax-aug-dtmax1"],
    # the regressor, on the training splits of the regression datasets (R²)
    "regression": ["base", "dtmax1-meanmax", "dtmax1", "bi-meanmax-aug"],
}
DATASETS = (
    "GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "BasicMotions", "JapaneseVowels",
    "digits",
)
# scored by R² with SSMRegressor (plain K-fold); every other dataset is a classification task
REGRESSION_DATASETS = ("Tecator", "Covid3Month")


def run_cell(dataset: str, config: str, fold: int, n_folds: int) -> dict:
    import torch
    from sklearn.metrics import r2_score

    from sktdi import SSMClassifier, SSMRegressor
    from sktdi.datasets import pad_sequences

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    X, y = load_train(dataset)  # the official training split only
    X, lengths = pad_sequences(X)
    regression = dataset in REGRESSION_DATASETS
    folds = (KFold if regression else StratifiedKFold)(n_folds, shuffle=True, random_state=0)
    train, valid = list(folds.split(np.zeros(len(y)), y))[fold]
    Estimator = SSMRegressor if regression else SSMClassifier
    model = Estimator(random_state=fold, n_threads=1).set_params(
        **{**RECIPE_BASE, **CONFIGS[config]}
    )
    start = time.perf_counter()
    model.fit(X[train], y[train], lengths=lengths[train])
    fit_seconds = time.perf_counter() - start
    predicted = model.predict(X[valid], lengths[valid])
    score = r2_score(y[valid], predicted) if regression else np.mean(predicted == y[valid])
    return {
        "dataset": dataset,
        "metric": "r2" if regression else "accuracy",
        "n_train": len(train),
        "config": config,
        "fold": fold,
        "score": float(score),
        "fit_seconds": fit_seconds,
        "epochs": model.n_epochs_,
    }


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean CV score per dataset and configuration, the mean, the average rank, fit seconds."""
    scores = results.pivot_table(index="config", columns="dataset", values="score", aggfunc="mean")
    summary = scores.round(3)
    summary["mean"] = scores.mean(axis=1).round(3)
    summary["avg_rank"] = scores.rank(ascending=False).mean(axis=1).round(2)
    summary["fit_s"] = results.groupby("config")["fit_seconds"].mean().round(1)
    return summary.sort_values("avg_rank")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", choices=sorted(ROUNDS), default=None)
    parser.add_argument("--configs", nargs="+", default=None, choices=sorted(CONFIGS))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--summarize", action="store_true", help="print the table of an existing --out file"
    )
    args = parser.parse_args()
    if args.summarize:
        print(summarize(pd.read_csv(args.out)).to_string())
        return
    configs = args.configs or ROUNDS[args.round or "A"]

    cells = [(d, c, f) for d in args.datasets for c in configs for f in range(args.folds)]
    # the slowest cells first, so that the parallel tail is short
    cells.sort(key=lambda cell: (cell[0] not in ("OSULeaf", "digits"), "ens" not in cell[1]))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    # rows are written as they finish, so a long round can be followed (and is not lost)
    for row in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_cell)(d, c, f, args.folds) for d, c, f in cells
    ):
        rows.append(row)
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"{len(rows)}/{len(cells)} {row}", flush=True)
    results = pd.read_csv(out).sort_values(["dataset", "config", "fold"])
    results.to_csv(out, index=False)
    print(summarize(results).to_string())
    print(f"cells written to {out}")


if __name__ == "__main__":
    main()
