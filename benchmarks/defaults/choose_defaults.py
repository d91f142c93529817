"""How SSMClassifier's defaults were chosen: cross-validation on the *training* splits.

For each shipped UCR dataset (GunPoint, ItalyPowerDemand, ArrowHead, OSULeaf) only the official
training split is used: 3-fold stratified cross-validation (shuffled, seed 0) scores every
candidate configuration; test splits are never touched. Cells run in parallel with joblib
(one torch thread each). Results: a CSV of every (dataset, config, fold) cell and a printed
table of mean CV accuracy, fit seconds and average rank per configuration.

    python benchmarks/defaults/choose_defaults.py                       # round 1, ~13 min on 2 cores
    python benchmarks/defaults/choose_defaults.py --configs tdi-first-layer first-lr1e-2 \
        first-epochs200 first-spread0.5 first-batch32 lin-lr1e-2 \
        --out benchmarks/defaults/results/defaults_study_round2.csv                 # round 2

Round 3 (``--ratios``) measures the low-data regime the way the study uses it, still on the
training splits only: a stratified share ``ratio`` of the training split (at least one series per
class) trains the model and the *rest of the training split* scores it; three resamples per ratio.

    python benchmarks/defaults/choose_defaults.py --ratios 0.08 0.16 \
        --datasets GunPoint ItalyPowerDemand ArrowHead OSULeaf digits planted \
        --configs small-base small-steps300 small-1-layer small-dropout0 small-dropout0.3 \
        small-wd0.1 small-lr3e-3 small-norel small-lin \
        --out benchmarks/defaults/results/defaults_study_round3.csv                 # round 3, ~25 min

The configurations are relative to the estimator's defaults *at the time of the study*
(round 1: init="tdi", tdi__layers="all", lr=3e-3, max_epochs=100, batch_size=16, dropout=0.1,
d_model=64, n_layers=2); ``STUDY_BASE`` pins those so reruns reproduce the
study whatever the current defaults are. Every configuration is a dict of ``set_params`` keys:
``tdi__<field>`` reaches ``TDIOptions``, ``training__<field>`` ``TrainingOptions``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.splits import cell_split, load_train  # noqa: E402

CONFIGS = {
    "base": {},
    "spread0.5": {"tdi__spread": 0.5},
    "tdi-first-layer": {"tdi__layers": "first"},
    "lr1e-2": {"lr": 1e-2},
    "epochs50": {"max_epochs": 50},
    "dropout0.2": {"dropout": 0.2},
    "wide-1-layer": {"n_layers": 1, "d_model": 128},
    "lin": {"init": "s4d-lin"},
    # round 2, around the round-1 winner (TDI on the first layer only)
    "first-lr1e-2": {"tdi__layers": "first", "lr": 1e-2},
    "first-epochs200": {"tdi__layers": "first", "max_epochs": 200},
    "first-spread0.5": {"tdi__layers": "first", "tdi__spread": 0.5},
    "first-batch32": {"tdi__layers": "first", "batch_size": 32},
    "lin-lr1e-2": {"init": "s4d-lin", "lr": 1e-2},
    # round 3, small data, relative to the defaults after round 2 (SMALL_DATA_BASE);
    # "min_steps" stretches the epochs so that a tiny training set still gets that many
    # optimizer steps (100 epochs of one batch is only 100 steps)
    "small-base": {},
    "small-steps300": {"min_steps": 300},
    "small-1-layer": {"n_layers": 1},
    "small-dropout0": {"dropout": 0.0},
    "small-dropout0.3": {"dropout": 0.3},
    "small-wd0.1": {"training__weight_decay": 0.1},
    "small-lr3e-3": {"lr": 3e-3},
    "small-norel": {"tdi__reliability": False},
    "small-lin": {"init": "s4d-lin"},
}
ROUND_1 = [
    "base", "spread0.5", "tdi-first-layer", "lr1e-2", "epochs50", "dropout0.2", "wide-1-layer", "lin"
]
# the estimator's defaults when the study ran, pinned so that reruns measure the same thing
STUDY_BASE = {
    "init": "tdi",
    "tdi__layers": "all",
    "tdi__spread": 0.25,
    "lr": 3e-3,
    "max_epochs": 100,
    "batch_size": 16,
    "dropout": 0.1,
    "d_model": 64,
    "n_layers": 2,
}
# the defaults after round 2 (the package's defaults when round 3 ran)
SMALL_DATA_BASE = {
    "init": "tdi",
    "tdi__layers": "first",
    "tdi__spread": 0.25,
    "tdi__reliability": True,
    "lr": 1e-2,
    "max_epochs": 100,
    "batch_size": 16,
    "dropout": 0.1,
    "training__weight_decay": 0.01,
    "d_model": 64,
    "n_layers": 2,
}
DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf")


def run_cell(dataset: str, config: str, fold: int, n_folds: int, ratio=None) -> dict:
    import torch

    from sktdi import SSMClassifier

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    X, y = load_train(dataset)
    train, valid = cell_split(y, fold, n_folds, ratio)
    params = {**(STUDY_BASE if ratio is None else SMALL_DATA_BASE), **CONFIGS[config]}
    min_steps = params.pop("min_steps", 0)
    batches_per_epoch = -(-len(train) // params["batch_size"])
    params["max_epochs"] = max(params["max_epochs"], -(-min_steps // batches_per_epoch))
    model = SSMClassifier(random_state=fold).set_params(**params)
    start = time.perf_counter()
    model.fit(X[train], y[train])
    fit_seconds = time.perf_counter() - start
    return {
        "dataset": dataset,
        "ratio": ratio,
        "n_train": len(train),
        "config": config,
        "fold": fold,
        "accuracy": model.score(X[valid], y[valid]),
        "fit_seconds": fit_seconds,
    }


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    columns = ["dataset", "ratio"] if results.get("ratio", pd.Series()).notna().any() else "dataset"
    acc = results.pivot_table(index="config", columns=columns, values="accuracy", aggfunc="mean")
    ranks = acc.rank(ascending=False).mean(axis=1)
    summary = acc.round(3)
    summary["mean"] = acc.mean(axis=1).round(3)
    summary["avg_rank"] = ranks.round(2)
    summary["fit_s"] = results.groupby("config")["fit_seconds"].mean().round(1)
    return summary.sort_values("avg_rank")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=ROUND_1)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--ratios", nargs="+", type=float, default=None,
        help="small-data protocol: train on this share of the training split, score on the rest",
    )
    parser.add_argument("--out", default="benchmarks/defaults/results/defaults_study_round1.csv")
    args = parser.parse_args()

    ratios = args.ratios or [None]
    cells = [
        (d, c, f, r)
        for d in args.datasets
        for c in args.configs
        for f in range(args.folds)
        for r in ratios
    ]
    # biggest datasets first so that the parallel tail is short
    cells.sort(key=lambda cell: cell[0] not in ("OSULeaf", "digits"))
    rows = Parallel(n_jobs=args.n_jobs, verbose=5)(
        delayed(run_cell)(d, c, f, args.folds, r) for d, c, f, r in cells
    )
    results = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results.to_csv(out, index=False)
    print(summarize(results).to_string())
    print(f"cells written to {out}")


if __name__ == "__main__":
    main()
