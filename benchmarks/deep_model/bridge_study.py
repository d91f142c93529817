"""Bridge study (issue 22): from InceptionTime's network to the S4D network, one step at a time.

Why does ``SSMClassifier`` fit every training set and lose on the test split where sktime's
InceptionTime generalizes? Each arm below changes one thing on the way from InceptionTime (its
network and recipe) to today's S4D network, and every arm is scored the same way: stratified
K-fold cross-validation inside the *training* split of each dataset (test splits are not
touched). The arms:

- ``inceptiontime``: sktime's ``InceptionTimeClassifierTorch``, its own recipe (Adam 1e-3,
  batch 64, constant rate); the reference;
- ``inception``: the same network (sktime's ``InceptionTimeNetworkTorch``) inside
  SSMClassifier's training loop (AdamW 1e-2, weight decay 0.01, cosine, batch 16, clipping,
  input standardization): what the recipe costs;
- ``inception-causal``: sktdi's multi-scale convolution network with causal (left) padding,
  in that loop: what causality costs (a streaming network must be causal);
- ``inception-s4d``: the same, with every module's longest convolution (kernel 40) replaced by
  an S4D layer over the bottleneck channels: S4D for the long range, short convolutions for
  shape;
- ``conv-s4d-recipe``: ``inception-s4d`` trained with InceptionTime's recipe (Adam-like:
  lr 1e-3, no weight decay, batch 64, constant rate, no clipping): the recipe, on the new
  network;
- ``conv-s4d-narrow``: ``inception-s4d`` at half the width (``d_model=64``, 16 filters a
  branch): a quarter of the convolutions' cost;
- ``s4d``: today's SSMClassifier (pointwise encoder, two depthwise S4D blocks, mean-max);
- ``s4d-local``: today's network with only fast-decaying modes (``dt_min=0.05``): locality
  alone;
- ``s4d-deep``: today's network, four blocks: depth alone.

For regression (``--task regression``), the same question for ``SSMRegressor`` on the
regression datasets shipped with sktime, scored by R² in shuffled K-fold CV of the training
split: ``regressor-s4d`` (its default network) against ``regressor-conv-s4d`` (the
classifier's new network and settings).

Run: ``python benchmarks/deep_model/bridge_study.py --out benchmarks/deep_model/results/bridge_study.csv`` (resumable: rows
already in the file are kept). One torch thread per worker; ``--n-jobs 2`` on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import pandas as pd

DATASETS = ("OSULeaf", "ArrowHead", "GunPoint", "BasicMotions", "ItalyPowerDemand")
ARMS = (
    "inceptiontime",
    "inception",
    "inception-causal",
    "inception-s4d",
    "conv-s4d-recipe",
    "conv-s4d-narrow",
    "s4d",
    "s4d-local",
    "s4d-deep",
)


def _sktime_inception_module():
    """sktime's InceptionTime network, taking (B, C, L) as sktdi's loop feeds it."""
    import torch
    from sktime.networks.inceptiontime import InceptionTimeNetworkTorch

    class SktimeInception(torch.nn.Module):
        def __init__(self, n_channels: int, n_outputs: int):
            super().__init__()
            self.net = InceptionTimeNetworkTorch(
                input_size=n_channels, num_classes=n_outputs, activation_hidden=torch.nn.ReLU()
            )
            self.ssm_layers = []  # nothing for TDI to align

        def forward(self, X, lengths=None):
            return self.net(X.transpose(1, 2))  # sktime's network takes (B, L, C)

    return SktimeInception


def build(arm: str, seed: int, epochs: int):
    """A fresh classifier for ``arm``."""
    from sktdi import SSMClassifier

    if arm == "inceptiontime":
        from sktime.classification.deep_learning import InceptionTimeClassifierTorch

        return InceptionTimeClassifierTorch(num_epochs=epochs, random_state=seed)
    common = {"max_epochs": epochs, "random_state": seed, "n_threads": 1}
    # the S4D network with the classifier's defaults before this study (issue 13's recipe)
    s4d = {"network": "s4d", "d_model": 64, "n_layers": 2, "pooling": "mean-max",
           "dropout": 0.1, "dt_max": 1.0, **common}
    conv_s4d = {"network": "conv-s4d", "d_model": 128, "n_layers": 6, "pooling": "mean",
                "dropout": 0.0, "dt_max": 0.1, **common}
    if arm == "s4d":
        return SSMClassifier(**s4d)
    if arm == "s4d-local":
        return SSMClassifier(**{**s4d, "dt_min": 0.05})
    if arm == "s4d-deep":
        return SSMClassifier(**{**s4d, "n_layers": 4})
    if arm == "inception-s4d":
        return SSMClassifier(**conv_s4d)
    if arm == "conv-s4d-recipe":
        recipe = {"lr": 1e-3, "batch_size": 64, "training__weight_decay": 0.0,
                  "training__lr_schedule": "constant", "training__grad_clip": None}
        return SSMClassifier(**conv_s4d).set_params(**recipe)
    if arm == "conv-s4d-narrow":
        return SSMClassifier(**{**conv_s4d, "d_model": 64})

    class _Causal(SSMClassifier):
        def _network_spec(self, n_channels, n_outputs):
            # a causal convolution of width 40 where the S4D layer sits
            network, kwargs = super()._network_spec(n_channels, n_outputs)
            return network, {**kwargs, "long_range": "conv"}

    class _Inception(SSMClassifier):
        def _network_spec(self, n_channels, n_outputs):
            return _sktime_inception_module(), {"n_channels": n_channels, "n_outputs": n_outputs}

    if arm == "inception-causal":
        return _Causal(init="s4d-lin", **conv_s4d)
    return _Inception(init="s4d-lin", **common)


REGRESSION_DATASETS = ("Tecator", "Covid3Month")
REGRESSION_ARMS = ("regressor-s4d", "regressor-conv-s4d")


def run_one_regression(dataset: str, fold: int, n_folds: int, arm: str, epochs: int) -> dict:
    import torch
    from sklearn.metrics import r2_score
    from sklearn.model_selection import KFold

    from sktdi import SSMRegressor
    from sktdi.datasets import load_dataset_split

    torch.set_num_threads(1)
    X, y, _, _ = load_dataset_split(dataset)  # the training split only
    y = y.astype(float)
    train, valid = list(KFold(n_folds, shuffle=True, random_state=0).split(X))[fold]
    params = {"max_epochs": epochs, "random_state": fold, "n_threads": 1}
    if arm == "regressor-conv-s4d":
        params.update(network="conv-s4d", d_model=128, n_layers=6, pooling="mean", dropout=0.0)
    row = {"dataset": dataset, "fold": fold, "arm": arm, "epochs": epochs}
    return _fit_and_score(SSMRegressor(**params), X, y, train, valid, r2_score, "r2", row)


def _fit_and_score(model, X, y, train, valid, score, name: str, row: dict) -> dict:
    """``row`` with the training size, the fit's seconds and ``score`` on both parts."""
    start = time.perf_counter()
    model.fit(X[train], y[train])
    seconds = time.perf_counter() - start
    return {
        **row,
        "n_train": len(train),
        f"cv_{name}": float(score(y[valid], model.predict(X[valid]))),
        f"train_{name}": float(score(y[train], model.predict(X[train]))),
        "fit_seconds": seconds,
    }


def run_one(dataset: str, fold: int, n_folds: int, arm: str, epochs: int) -> dict:
    import torch

    from sktdi.datasets import load_dataset_split, stratified_folds

    torch.set_num_threads(1)
    X, y, _, _ = load_dataset_split(dataset)  # the training split only
    train, valid = stratified_folds(y, n_folds, random_state=0)[fold]
    from sklearn.metrics import accuracy_score

    row = {"dataset": dataset, "fold": fold, "arm": arm, "epochs": epochs}
    model = build(arm, seed=fold, epochs=epochs)
    return _fit_and_score(model, X, y, train, valid, accuracy_score, "accuracy", row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", choices=["classification", "regression"],
                        default="classification")
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--arms", nargs="+", default=None, choices=ARMS + REGRESSION_ARMS)
    parser.add_argument("--folds", type=int, default=3, help="K of the stratified K-fold")
    parser.add_argument(
        "--max-folds", type=int, default=None, help="run only the first folds (large sets)"
    )
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/deep_model/results/bridge_study.csv")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from joblib import Parallel, delayed

    regression = args.task == "regression"
    datasets = args.datasets or list(REGRESSION_DATASETS if regression else DATASETS)
    arms = args.arms or list(REGRESSION_ARMS if regression else ARMS)
    func = run_one_regression if regression else run_one
    out = Path(args.out)
    done = set()
    if out.exists():
        table = pd.read_csv(out)
        done = set(zip(table.dataset, table.fold, table.arm, table.epochs))
    jobs = [
        (d, f, a)
        for d in datasets
        for f in range(args.max_folds or args.folds)
        for a in arms
        if (d, f, a, args.epochs) not in done
    ]
    for row in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(func)(d, f, args.folds, a, args.epochs) for d, f, a in jobs
    ):
        print(json.dumps(row), flush=True)
        frame = pd.DataFrame([row])
        frame.to_csv(out, mode="a", header=not out.exists(), index=False)


if __name__ == "__main__":
    main()
