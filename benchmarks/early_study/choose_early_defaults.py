"""The early classifier's defaults, chosen on training splits only: ``prefix_weight`` (how much
of the loss trains the predictions for prefixes) and the decision rule (probability
threshold, consecutive steps).

On each dataset's official training split, 3-fold stratified cross-validation: a default
``SSMClassifier`` is fitted on two folds with each ``prefix_weight``, its probabilities over
time are read on the third, and every (threshold, consecutive) rule is applied to them. Each
row: the held-out fold's full-length accuracy, and the rule's harmonic mean of accuracy and
1 - earliness, accuracy and earliness. The test splits are never read.

Two ways to weigh the steps in the prefix loss (``--steps``): "uniform", every step the
same, and "ramp", step t in proportion to t (weighted towards the end, where the full-length
prediction is).

The choice: the (steps, weight > 0, threshold, consecutive) with the best harmonic mean on
the mean over the datasets, among the weightings whose mean full-length accuracy is within a
point of training on whole series only (weight 0); if none is, among all of them, and the
cost is reported.

    python benchmarks/early_study/choose_early_defaults.py --out benchmarks/early_study/results/early_defaults.csv
    python benchmarks/early_study/choose_early_defaults.py --steps ramp --weights 0.25 0.5 \
        --out benchmarks/early_study/results/early_defaults.csv
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
import pandas as pd

DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "BasicMotions")
WEIGHTS = (0.0, 0.25, 0.5, 0.75)
THRESHOLDS = (0.7, 0.8, 0.85, 0.9, 0.95, 0.99)
CONSECUTIVE = (1, 2, 3, 5)
N_FOLDS = 3


def rule_scores(probabilities: np.ndarray, y_index: np.ndarray) -> list[dict]:
    """Every (threshold, consecutive) rule on probabilities over time (n, L, K)."""
    from sktdi.deep_model.early import rule_score

    length = probabilities.shape[1]
    rows = []
    for threshold, consecutive in itertools.product(THRESHOLDS, CONSECUTIVE):
        hm, accuracy, earliness = rule_score(
            probabilities, y_index, threshold, consecutive, full_length=length
        )
        rows.append(
            {"threshold": threshold, "consecutive": consecutive, "hm": hm,
             "accuracy": accuracy, "earliness": earliness}
        )
    return rows


def one_fold(dataset: str, fold: int, weight: float, steps: str = "uniform") -> list[dict]:
    from sktdi import SSMClassifier
    from sktdi.datasets import load_dataset_split, stratified_folds
    from sktdi.deep_model import training as _training

    _training.PREFIX_STEPS = steps  # how the prefix loss weighs the steps (this process only)

    X, y, _, _ = load_dataset_split(dataset)  # the training split only
    train, held_out = stratified_folds(y, N_FOLDS, random_state=0)[fold]
    start = time.perf_counter()
    model = SSMClassifier(prefix_weight=weight, random_state=fold, n_threads=1)
    model.fit(X[train], y[train])
    fit_seconds = time.perf_counter() - start
    probabilities = model.predict_proba_over_time(X[held_out])  # (n, L, K)
    y_index = np.searchsorted(model.classes_, y[held_out])
    full = float(np.mean(probabilities[:, -1].argmax(axis=1) == y_index))
    base = {"dataset": dataset, "fold": fold, "prefix_weight": weight, "steps": steps,
            "full_accuracy": full, "fit_seconds": fit_seconds}
    return [{**base, **row} for row in rule_scores(probabilities, y_index)]


def choose(results: pd.DataFrame, tolerance: float = 0.01) -> pd.Series:
    """The chosen (steps, prefix_weight, threshold, consecutive), with its mean scores."""
    keys = ["steps", "prefix_weight", "threshold", "consecutive"]
    per_dataset = results.groupby([*keys, "dataset"])[
        ["hm", "accuracy", "earliness", "full_accuracy"]
    ].mean()
    mean = per_dataset.groupby(keys).mean()
    full = mean["full_accuracy"].groupby(["steps", "prefix_weight"]).max()
    trained = full[full.index.get_level_values("prefix_weight") > 0]
    allowed = trained[trained >= full.loc[("uniform", 0.0)] - tolerance].index
    if allowed.empty:  # every weighting costs more than the tolerance: the best, its cost shown
        allowed = trained.index
    eligible = mean[mean.index.droplevel(["threshold", "consecutive"]).isin(allowed)]
    best = eligible["hm"].idxmax()
    return pd.Series({**dict(zip(keys, best)), **eligible.loc[best].to_dict()})


def main() -> None:
    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--weights", nargs="+", type=float, default=list(WEIGHTS))
    parser.add_argument("--steps", default="uniform", choices=["uniform", "ramp"])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    done = pd.read_csv(out) if out.exists() else pd.DataFrame()
    if not done.empty:
        done["steps"] = done.get("steps", pd.Series(index=done.index)).fillna("uniform")
    weights = [w for w in args.weights if w > 0 or args.steps == "uniform"]  # 0: no prefix loss
    tasks = [
        (dataset, fold, weight, args.steps)
        for dataset in args.datasets for weight in weights for fold in range(N_FOLDS)
        if done.empty or not ((done.dataset == dataset) & (done.fold == fold)
                              & (done.prefix_weight == weight) & (done.steps == args.steps)).any()
    ]
    for rows in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(one_fold)(*task) for task in tasks
    ):
        done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
        done.to_csv(out, index=False)  # after every fold: an interrupted run resumes
        first = rows[0]
        print(first["dataset"], first["fold"], first["steps"], first["prefix_weight"],
              f"full {first['full_accuracy']:.3f}", f"{first['fit_seconds']:.0f} s", flush=True)
    print(choose(done))


if __name__ == "__main__":
    main()
