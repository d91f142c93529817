"""SSMRegressor and the fast path against sktime's MiniRocket regressor, side by side in one run.

The regression datasets shipped with sktime (Tecator, Covid3Month): resample 0 is the official
train/test split, resample r > 0 a reshuffle of the pooled series into train and test parts of
the official sizes (seed r). Each estimator is fitted on the training part and scored by R² on
the test part; fit seconds are wall-clock on this machine. Cells run one at a time with the
given thread count, so the timings compare like with like.

    python benchmarks/kernel_regime/field_regression.py --out benchmarks/kernel_regime/results/field_regression_results.csv
    python benchmarks/kernel_regime/field_regression.py --estimators tdi+ridge s4d-lin+ridge \
        tdi+ridge+minirocket minirocket --out benchmarks/kernel_regime/results/fast_path_regression.csv

"tdi+ridge" is ``SpectralRidgeRegressor()``, "+minirocket" its ``rocket="minirocket"``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import pandas as pd

DATASETS = ("Tecator", "Covid3Month")
ESTIMATORS = ("tdi", "s4d-lin", "minirocket")


def split(name: str, resample: int):
    from sktdi.datasets import load_dataset_split, resample_split

    return resample_split(*load_dataset_split(name), resample, stratify=False)


def build(name: str, seed: int, threads: int):
    if name == "minirocket":
        from sktime.regression.kernel_based import RocketRegressor

        return RocketRegressor(rocket_transform="minirocket", random_state=seed)
    if "+ridge" in name:
        from sktdi import SpectralRidgeRegressor

        init, _, rocket = name.partition("+ridge")
        return SpectralRidgeRegressor(
            init=init, rocket=rocket.lstrip("+") or None, random_state=seed
        )
    from sktdi import SSMRegressor

    return SSMRegressor(init=name, random_state=seed, n_threads=threads)


def run_cell(dataset: str, resample: int, estimator: str, threads: int) -> dict:
    import torch
    from sklearn.metrics import r2_score

    torch.set_num_threads(threads)
    warnings.filterwarnings("ignore")
    X_train, y_train, X_test, y_test = split(dataset, resample)
    model = build(estimator, resample, threads)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    r2 = float(r2_score(y_test, model.predict(X_test)))
    predict_seconds = time.perf_counter() - start
    return {
        "dataset": dataset,
        "resample": resample,
        "estimator": estimator,
        "n_train": len(y_train),
        "n_test": len(y_test),
        "r2": r2,
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS))
    parser.add_argument("--resamples", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rows = []
    for dataset in args.datasets:
        for resample in range(args.resamples):
            for estimator in args.estimators:
                rows.append(run_cell(dataset, resample, estimator, args.threads))
                print(rows[-1], flush=True)
    results = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results.to_csv(out, index=False)
    print(results.groupby(["dataset", "estimator"])[["r2", "fit_seconds"]].agg(["mean", "std"]))


if __name__ == "__main__":
    main()
