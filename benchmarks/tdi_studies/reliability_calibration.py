"""Is the reliability estimate of the task statistic calibrated at few series per class?

The *true* reliability of the Fisher log-power statistic estimated from k series per class is
the correlation (across frequency bins) between the statistics of two independent samples of k
per class. Here both samples are disjoint draws from a dataset's *training split*; each
estimator sees only the first sample, as ``fit`` would. Estimators compared:

- ``split_half``: the package's :func:`sktdi.tdi.split_half_reliability` (stratified halves,
  Pearson, Spearman–Brown; 0 below 4 series per class);
- ``bootstrap``: mean pairwise correlation of statistics on stratified bootstrap resamples;
- ``jackknife``: 1 − (grouped delete-one jackknife variance) / (across-bin variance).

    python benchmarks/tdi_studies/reliability_calibration.py          # ~3 min on 2 cores

Writes benchmarks/tdi_studies/results/reliability_calibration.csv (one row per dataset, k, repeat) and prints the
mean of each column per (dataset, k).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from sktdi.datasets import load_dataset_split
from sktdi.tdi import split_half_reliability, task_spectrum

DATASETS = ("planted", "digits", "ItalyPowerDemand", "GunPoint", "ArrowHead", "OSULeaf")


def statistic(X, y) -> np.ndarray:
    return task_spectrum(X, y, task="classification").values


def bootstrap_reliability(X, y, rng, n_resamples: int = 10) -> float:
    _, codes = np.unique(y, return_inverse=True)
    replicates = []
    for _ in range(n_resamples):
        idx = np.concatenate(
            [rng.choice(np.flatnonzero(codes == c), np.sum(codes == c)) for c in np.unique(codes)]
        )
        replicates.append(statistic(X[idx], y[idx]))
    corr = np.corrcoef(np.array(replicates))
    return float(corr[np.triu_indices(n_resamples, 1)].mean())


def jackknife_reliability(X, y, rng, max_groups: int = 10) -> float:
    _, codes = np.unique(y, return_inverse=True)
    n_groups = min(max_groups, int(np.bincount(codes).min()))
    if n_groups < 3:
        return float("nan")
    groups = np.empty(len(y), dtype=int)
    for c in np.unique(codes):
        members = rng.permutation(np.flatnonzero(codes == c))
        groups[members] = np.arange(len(members)) % n_groups
    full = statistic(X, y)
    left_out = np.array([statistic(X[groups != g], y[groups != g]) for g in range(n_groups)])
    variance = (n_groups - 1) / n_groups * ((left_out - left_out.mean(0)) ** 2).sum(0)
    return float(1 - variance.mean() / full.var())


def calibrate(name: str, per_class, n_repeats: int, seed: int = 0) -> list[dict]:
    X, y, _, _ = load_dataset_split(name)  # training split only
    _, codes = np.unique(y, return_inverse=True)
    rng = np.random.RandomState(seed)
    rows = []
    for k in per_class:
        if np.bincount(codes).min() < 2 * k:
            continue
        for repeat in range(n_repeats):
            first, second = [], []
            for c in np.unique(codes):
                members = rng.permutation(np.flatnonzero(codes == c))
                first.extend(members[:k])
                second.extend(members[k : 2 * k])
            first, second = np.array(first), np.array(second)
            a, b = statistic(X[first], y[first]), statistic(X[second], y[second])
            rows.append(
                {
                    "dataset": name,
                    "per_class": k,
                    "repeat": repeat,
                    "true": stats.pearsonr(a, b).statistic,
                    "split_half": split_half_reliability(
                        X[first], y[first], task="classification", random_state=repeat
                    )[0],
                    "bootstrap": bootstrap_reliability(X[first], y[first], rng),
                    "jackknife": jackknife_reliability(X[first], y[first], rng),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--per-class", nargs="+", type=int, default=[2, 3, 4, 8])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", default="benchmarks/tdi_studies/results/reliability_calibration.csv")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rows = [
        row for name in args.datasets for row in calibrate(name, args.per_class, args.repeats)
    ]
    results = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out, index=False)
    table = results.groupby(["dataset", "per_class"])[
        ["true", "split_half", "bootstrap", "jackknife"]
    ].mean()
    print(table.round(2).to_string())
    print(f"rows written to {args.out}")


if __name__ == "__main__":
    main()
