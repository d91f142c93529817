"""TDI on real series: TDI against S4D-Lin and its placebo on real sequential data, at every budget.

Issue 35's study. The zoo (``tdi_zoo.py``) is synthetic; this study is what a user's data
looks like: scikit-learn's digits read as sequences (64 steps, and upsampled to 28×28 and
read row by row, 784 steps: the paper's sequential-image task at 1% and 2% of its source),
and the shipped UCR/UEA sets at a few series per class. Every arm of a cell is fitted on the
same series with the same ``random_state`` (paired) and scored on the same series.

Two modes, and two sets of datasets:

- ``--mode train`` (choosing): inside the official *training* split only. ``per_class``
  series per class are fitted (resample r draws them with seed r) and the rest of the
  training split (at most ``--eval-max`` series) scores them. The test split is never read.
- ``--mode test`` (reporting): the same draw from the training split, the whole official test
  split scores it.
- :data:`CHOICE` datasets may be used to choose; :data:`CONFIRMATION` datasets never are
  (a default holds only if it holds there too; ``docs/tdi_real.md`` reports both).

    python benchmarks/tdi_real/tdi_real.py --mode train --datasets digits-784 --preset s4d-1 \\
        --arms s4d-lin tdi tdi-control beside beside-control --out benchmarks/tdi_real/results/tdi_real_choice.csv
    python benchmarks/tdi_real/tdi_real.py --summarize benchmarks/tdi_real/results/tdi_real_choice.csv

Every cell uses SSMClassifier's defaults except the preset's and the arm's overrides and
``max_epochs``; one torch thread, float32 inference. Rows are appended as cells finish; a
rerun skips the cells its ``--out`` file already holds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.results_file import finished_rows, run_cells  # noqa: E402

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread per cell, the bank's scan too

# datasets that may be used to choose a default, and datasets that never are
CHOICE = ("digits-784", "digits", "GunPoint", "JapaneseVowels")
CONFIRMATION = ("ArrowHead", "ItalyPowerDemand", "OSULeaf", "BasicMotions", "ACSF1")
BUDGETS = (5, 10, 20, 50, 100)
# the network a cell trains: SSMClassifier overrides on top of its defaults
PRESETS = {
    "default": {},
    "s4d-1": {"network": "s4d", "n_layers": 1},  # the paper's setting: one S4D layer
    "conv-1": {"n_layers": 1},  # one block of the default network
    # the fast path: SpectralRidgeClassifier's filter bank and ridge head (no epochs: budget 0)
    "bank": {},
    # the bisection (issue 35, item 2): from the recipe of the +8.2 (before issues 22 and 23)
    # to today's default network, one change at a time
    "old": {"network": "s4d", "d_model": 64, "n_layers": 2, "pooling": "mean-max",
            "dropout": 0.1, "dt_max": 1.0},
    "old-dt": {"network": "s4d", "d_model": 64, "n_layers": 2, "pooling": "mean-max",
               "dropout": 0.1},  # + dt_max 0.1
    "old-dt-mean": {"network": "s4d", "d_model": 64, "n_layers": 2, "pooling": "mean",
                    "dropout": 0.1},  # + mean pooling
    "old-dt-mean-conv": {"d_model": 64, "n_layers": 2, "dropout": 0.1},  # + conv-s4d network
}
# arm name -> SSMClassifier overrides (set_params keys: tdi__<field> reaches TDIOptions)
ARMS = {
    "s4d-lin": {"init": "s4d-lin"},
    "tdi": {"init": "tdi"},  # the defaults as they stand, whatever they are
    "tdi-control": {"init": "tdi-control"},
    # the TDI of issues 5-34: every mode moves (peaks + tiles), band decays
    "tiled": {"init": "tdi", "tdi__coverage": "tiled", "tdi__spread": 0.25},
    "tiled-control": {"init": "tdi-control", "tdi__coverage": "tiled", "tdi__spread": 0.25},
    # the base's lower half of the modes kept as they are, the upper half to the peaks
    "beside": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.5},
    "beside-control": {"init": "tdi-control", "tdi__coverage": "base", "tdi__spread": 0.5},
    "beside75": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.75},
    "beside75-control": {"init": "tdi-control", "tdi__coverage": "base", "tdi__spread": 0.75},
    "gain": {"init": "tdi", "tdi__coverage": "gain"},
    # only the base's aliased modes move to the peaks (at most half of a channel's)
    "alias": {"init": "tdi", "tdi__coverage": "alias", "tdi__spread": 0.5},
    "alias-control": {"init": "tdi-control", "tdi__coverage": "alias", "tdi__spread": 0.5},
    "alias-norel": {"init": "tdi", "tdi__coverage": "alias", "tdi__spread": 0.5,
                    "tdi__reliability": False},
    "beside-all": {"init": "tdi", "tdi__coverage": "base", "tdi__spread": 0.5,
                   "tdi__layers": "all"},
}
KEY = ["dataset", "mode", "preset", "per_class", "resample", "arm", "budget"]


def _split(dataset: str, mode: str, per_class: int, resample: int, eval_max: int):
    """(X_fit, y_fit, X_eval, y_eval, lengths_fit, lengths_eval) for one cell."""
    from sktdi.datasets import load_dataset_split, pad_sequences, take

    X_train, y_train, X_test, y_test = load_dataset_split(dataset)
    rng = np.random.default_rng(resample)
    fit = np.sort(np.concatenate([
        rng.permutation(np.flatnonzero(y_train == label))[:per_class]
        for label in np.unique(y_train)
    ]))
    if mode == "train":  # the test split is dropped unseen
        rest = np.setdiff1d(np.arange(len(y_train)), fit)
        if len(rest) > eval_max:
            rest = np.sort(rng.choice(rest, eval_max, replace=False))
        X_eval, y_eval = take(X_train, rest), y_train[rest]
    else:
        X_eval, y_eval = X_test, y_test
    X_fit, lengths_fit = pad_sequences(take(X_train, fit))
    X_eval, lengths_eval = pad_sequences(X_eval)
    return X_fit, y_train[fit], X_eval, y_eval, lengths_fit, lengths_eval


def run_cell(dataset, mode, preset, per_class, resample, arm, budget, eval_max) -> dict:
    import torch

    from sktdi import SpectralRidgeClassifier, SSMClassifier

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    X_fit, y_fit, X_eval, y_eval, lengths_fit, lengths_eval = _split(
        dataset, mode, per_class, resample, eval_max
    )
    if preset == "bank":
        model = SpectralRidgeClassifier(random_state=resample).set_params(**ARMS[arm])
    else:
        model = SSMClassifier(
            max_epochs=budget, random_state=resample, n_threads=1, inference_dtype="float32"
        ).set_params(**{**PRESETS[preset], **ARMS[arm]})
    start = time.perf_counter()
    model.fit(X_fit, y_fit, lengths=lengths_fit)
    fit_seconds = time.perf_counter() - start
    report = model.init_report_
    return {
        "dataset": dataset,
        "mode": mode,
        "preset": preset,
        "per_class": per_class,
        "resample": resample,
        "arm": arm,
        "budget": budget,
        "n_fit": len(y_fit),
        "n_eval": len(y_eval),
        "length": X_fit.shape[-1],
        "accuracy": float(np.mean(model.predict(X_eval, lengths_eval) == y_eval)),
        "fit_seconds": fit_seconds,
        "chosen": report["chosen"],
        "applied": report["applied"],
        "channel_share": report["channel_share"],
        "reliability": report["reliability"],
    }


def mode_census(dataset: str = "digits-784", per_class: int = 60) -> pd.DataFrame:
    """Where each arm puts the first layer's modes on ``dataset`` (one draw, training split):
    the share aliased (Im(A)·dt > π), their memory 1/w in steps (w = −Re(A)·dt), and their
    frequencies. An S4D layer of SSMClassifier's d_model, d_state and dt range (the one-layer
    S4D network's)."""
    import math

    import torch

    from sktdi import SSMClassifier
    from sktdi.datasets import load_dataset_split
    from sktdi.ssm import S4D
    from sktdi.tdi import TDIOptions, align_layer, fisher_log_power

    X, y, _, _ = load_dataset_split(dataset)
    rng = np.random.default_rng(0)
    fit = np.sort(np.concatenate([
        rng.permutation(np.flatnonzero(y == label))[:per_class] for label in np.unique(y)
    ]))
    spectrum = fisher_log_power(X[fit], y[fit])
    length = X.shape[-1]
    defaults = SSMClassifier().get_params()
    rows = []
    for arm in ("s4d-lin", "tiled", "beside"):
        layer = S4D(
            defaults["d_model"], defaults["d_state"], init="s4d-lin", dt_min=defaults["dt_min"],
            dt_max=defaults["dt_max"], generator=torch.Generator().manual_seed(0),
        )
        if arm != "s4d-lin":
            options = TDIOptions(
                **{k[len("tdi__"):]: v for k, v in ARMS[arm].items() if k.startswith("tdi__")}
            )
            align_layer(layer, spectrum, spread=options.spread, coverage=options.coverage)
        modes = layer.modes()
        z = modes.A.detach().to(torch.complex128) * modes.dt.detach().double()[:, None]  # (H, N)
        memory = (1 / -z.real).numpy().ravel()  # steps for the mode's envelope to fall by e
        freq = (torch.angle(torch.exp(z)).abs() / (2 * math.pi)).numpy().ravel()
        rows.append({
            "dataset": dataset,
            "length": length,
            "arm": arm,
            "aliased": float((z.imag.abs() > math.pi).double().mean()),
            "memory_median": float(np.median(memory)),
            "long_memory": float(np.mean(memory >= length / 4)),
            "short_memory": float(np.mean(memory <= 10)),
            "freq_median": float(np.median(freq)),
            "below_0.05": float(np.mean(freq <= 0.05)),
        })
    return pd.DataFrame(rows)


def paired(results: pd.DataFrame, arm: str, reference: str) -> pd.DataFrame:
    """``arm`` − ``reference`` in points per cell (paired on everything but the arm), with the
    mean, its standard error and the number of pairs per (dataset, preset, per_class, budget)."""
    index = [k for k in KEY if k != "arm"]
    wide = results.pivot_table(index=index, columns="arm", values="accuracy")
    if arm not in wide or reference not in wide:
        return pd.DataFrame()
    diff = (100 * (wide[arm] - wide[reference])).dropna().rename("diff").reset_index()
    group = ["dataset", "mode", "preset", "per_class", "budget"]
    out = diff.groupby(group)["diff"].agg(["mean", "sem", "count"])
    return out.round(2)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy (percent) per cell group and arm."""
    table = results.pivot_table(
        index=["dataset", "mode", "preset", "per_class", "budget"], columns="arm",
        values="accuracy", aggfunc="mean",
    )
    return (100 * table).round(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("train", "test"), default="train")
    parser.add_argument("--datasets", nargs="+", default=list(CHOICE))
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument("--arms", nargs="+", default=["s4d-lin", "tdi", "tdi-control"])
    parser.add_argument("--per-class", nargs="+", type=int, default=[4])
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--resamples", type=int, default=3)
    parser.add_argument("--eval-max", type=int, default=600)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--summarize", default=None, help="print the tables of a results file")
    parser.add_argument("--census", default=None, help="write the modes' census to this file")
    args = parser.parse_args()
    if args.census:
        census = mode_census()
        census.to_csv(args.census, index=False)
        print(census.round(3).to_string())
        return
    if args.summarize:
        results = pd.read_csv(args.summarize)
        print(summarize(results).to_string())
        for arm in sorted(set(results.arm) - {"s4d-lin"}):
            table = paired(results, arm, "s4d-lin")
            if len(table):
                print(f"\n{arm} - s4d-lin (points)\n{table.to_string()}")
        return
    for arm in args.arms:
        if arm not in ARMS:
            parser.error(f"unknown arm {arm!r}; choose from {sorted(ARMS)}")
    out = Path(args.out)
    rows, done = finished_rows(out, KEY)
    budgets = [0] if args.preset == "bank" else args.budgets  # the bank trains no epochs
    cells = [
        (d, args.mode, args.preset, k, r, arm, budget)
        for r in range(args.resamples)
        for d in args.datasets
        for k in args.per_class
        for budget in budgets
        for arm in args.arms
        if (d, args.mode, args.preset, k, r, arm, budget) not in done
    ]
    cells.sort(key=lambda c: (c[4], -c[6]))  # long fits first within a resample
    cells = [(*cell, args.eval_max) for cell in cells]
    rows = run_cells(run_cell, cells, rows, out, KEY, args.n_jobs)
    print(summarize(pd.DataFrame(rows)).to_string())


if __name__ == "__main__":
    main()
