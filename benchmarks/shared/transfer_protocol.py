"""Defaults that transfer: choose on some datasets, confirm on others never used to choose.

Issue 36's protocol, for every later default of the deep model. A candidate default (an arm:
SSMClassifier overrides) is compared with the incumbent (today's defaults) in two stages:

- **choice**: stratified 3-fold cross-validation inside the official *training* split of each
  :data:`CHOICE` dataset (the harness's ``mode="train-cv"``; no test split is read). These
  are the sets earlier defaults were chosen on (the bridge study's five).
- **confirmation**: the official split of each :data:`CONFIRMATION` dataset, which no choice
  of this project has used, with the field's tools beside the arms in the same run
  (:data:`PEERS`: MiniRocket, sktime's InceptionTime at the same epochs).

A candidate is adopted only if it is ahead on the choice mean *and* holds on the confirmation
sets: mean difference ≥ 0 (≥ :data:`MIN_CONFIRM_GAIN` for a candidate that multiplies the
fit time) and no set more than :data:`WORST` points behind the incumbent (:func:`verdict`).
A candidate whose purpose is a cheaper fit (:data:`COST_ARMS`) is held to the cost rule
instead, declared before its run: at most :data:`COST_RATIO` of the incumbent's fit seconds
over the choice sets (both arms in the same run), no more than :data:`COST_TOLERANCE` points
behind on either stage's mean, and no confirmation set more than
:data:`WORST` points behind. Both stages are reported, with fit times.

    python benchmarks/shared/transfer_protocol.py --stage choice --arms default noncausal
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms default noncausal --peers \
        --datasets JapaneseVowels ACSF1
    python benchmarks/shared/transfer_protocol.py --summarize

    # the augmentation candidates and the incumbent again, in one run of their own
    python benchmarks/shared/transfer_protocol.py --stage choice --arms default slice augment \
        --out benchmarks/deep_model/results/transfer/augment
    # (its confirmation was not run: neither candidate was ahead on the choice)

    # an ensemble of three; the default's choice cells are the augment run's (the same code,
    # whose cells reproduce exactly), copied in so that the harness skips them; its
    # confirmation cells ran in this run
    python benchmarks/shared/transfer_protocol.py --stage choice --arms default ensemble3 \
        --out benchmarks/deep_model/results/transfer/ensemble
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms default ensemble3 \
        --datasets JapaneseVowels ACSF1 --out benchmarks/deep_model/results/transfer/ensemble

    # the cost candidate and the incumbent again, side by side in one run of their own
    python benchmarks/shared/transfer_protocol.py --stage choice --arms default epochs50 \
        --out benchmarks/deep_model/results/transfer/epochs
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms default epochs50 \
        --datasets JapaneseVowels ACSF1 --out benchmarks/deep_model/results/transfer/epochs

    # half the blocks, then early stopping, cost candidates: the default's choice cells run
    # again beside them (the cost rule compares fit seconds within a run); its confirmation
    # cells are the ensemble run's, copied in (the same code, whose cells have reproduced
    # exactly in two runs)
    python benchmarks/shared/transfer_protocol.py --stage choice --arms default layers3 \
        --out benchmarks/deep_model/results/transfer/depth
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms default layers3 \
        --datasets JapaneseVowels ACSF1 --out benchmarks/deep_model/results/transfer/depth
    python benchmarks/shared/transfer_protocol.py --stage choice --arms default stop10 \
        --out benchmarks/deep_model/results/transfer/depth
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms default stop10 \
        --datasets JapaneseVowels ACSF1 --out benchmarks/deep_model/results/transfer/depth
    # MiniRocket and InceptionTime beside them (the field's tools again, on this code)
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms layers3 --peers \
        --datasets JapaneseVowels ACSF1 --out benchmarks/deep_model/results/transfer/depth

Each arm's cells go to ``<out>/<stage>_<arm>.csv`` (the harness's resumable results file:
a rerun skips finished cells), the peers' to ``<out>/confirm_peers.csv``. One torch thread
per cell; ``--n-jobs`` cells at a time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from sktdi import TrainingOptions
from sktdi.benchmark import Cell, run_benchmark

CHOICE = ("ItalyPowerDemand", "GunPoint", "ArrowHead", "BasicMotions", "OSULeaf")
CONFIRMATION = ("JapaneseVowels", "ACSF1", "PLAID", "digits-784")
N_FOLDS = 3
WORST = 2.0  # points: no confirmation set may fall further behind the incumbent
INCUMBENT = "default"
# arm -> SSMClassifier overrides on top of today's defaults (the harness's "tdi" estimator)
ARMS = {
    "default": {},
    "noncausal": {"bidirectional": True},  # centred convolutions, S4D both ways
    "epochs50": {"max_epochs": 50},  # half the epochs (the cosine schedule over 50): half the cost
    # half the blocks: one residual group of three instead of two, about half a step's cost;
    # the S4D branch of each block still sees the whole series, so depth was expected to buy
    # local shape only (the long-series study found otherwise: docs/long_series.md)
    "layers3": {"n_layers": 3},
    # early stopping on a held-out split, at scikit-learn's MLP and SGD settings (a tenth held
    # out, 10 epochs of patience; the best epoch's weights restored), not tuned here
    "stop10": {"validation_fraction": 0.1, "n_iter_no_change": 10},
    # training batches augmented (sktdi.deep_model.augmentation): a random 90% window of each
    # series stretched back to its length, alone and with jitter and scaling; the shift and
    # length invariance the shape sets (OSULeaf, ArrowHead) ask of a network
    "slice": {"training": TrainingOptions(augment="slice")},
    "augment": {"training": TrainingOptions(augment="all")},
    # three networks side by side, probabilities averaged (InceptionTime's paper ensembles
    # five): the question is whether an ensemble pays for its time
    "ensemble3": {"n_estimators": 3},
}
# candidates that multiply the fit time: the confirmation mean gain (points) they must show
# besides the accuracy rule; declared before their runs
MIN_CONFIRM_GAIN = {"ensemble3": 2.0}
# candidates for a cheaper fit, judged by the cost rule; declared before their runs
COST_ARMS = frozenset({"epochs50", "layers3", "stop10"})
COST_RATIO = 0.75  # at most this share of the incumbent's fit seconds on the choice sets
COST_TOLERANCE = 0.5  # points a cheaper candidate may trail on a stage's mean
PEERS = ("minirocket", "inceptiontime")
OUT = Path(__file__).resolve().parents[1] / "deep_model" / "results" / "transfer"


def cells(stage: str, arm: str, datasets, epochs: int | None) -> list[Cell]:
    """The cells of one arm (or of the peers, ``arm="peers"``) in one stage."""
    params = {} if epochs is None else {"max_epochs": epochs}
    if stage == "choice":
        mode, folds = "train-cv", range(N_FOLDS)
    else:
        mode, folds = "resample", range(1)
    estimators = PEERS if arm == "peers" else ("tdi",)
    overrides = {} if arm == "peers" else ARMS[arm]
    return [
        Cell(d, 1.0, f, e, mode=mode, n_folds=N_FOLDS if stage == "choice" else 0,
             params={**overrides, **params})
        for d in datasets
        for f in folds
        for e in estimators
    ]


def results(out: Path) -> pd.DataFrame:
    """Every results file of ``out``, one table with ``stage`` and ``arm`` columns."""
    tables = []
    for path in sorted(out.glob("*_*.csv")):
        stage, arm = path.stem.split("_", 1)
        if stage not in ("choice", "confirm") or arm not in (*ARMS, "peers"):
            continue  # e.g. the harness's *_replaced.csv, rows of other settings
        table = pd.read_csv(path)
        table = table[table["status"] == "ok"].assign(stage=stage)
        table["arm"] = table["estimator"] if arm == "peers" else arm
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def per_dataset(table: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy (over folds) and fit seconds per stage, dataset and arm; only the
    (stage, dataset, arm) with every cell finished (all folds of the choice)."""
    cells_ = table.groupby(["stage", "dataset", "arm"], as_index=False).agg(
        accuracy=("accuracy", "mean"), fit_seconds=("fit_seconds", "mean"),
        cells=("accuracy", "size"),
    )
    expected = cells_["stage"].map({"choice": N_FOLDS, "confirm": 1})
    return cells_[cells_["cells"] == expected]


MIN_CONFIRMATION = 2  # datasets the confirmation needs before it can decide


def verdict(table: pd.DataFrame, arm: str) -> dict:
    """The protocol's decision for ``arm`` against :data:`INCUMBENT`: paired differences in
    accuracy points (``mean``, ``worst``) over the datasets where both have every cell.

    ``adopt`` is None (undecided) until the choice covers every :data:`CHOICE` dataset and
    the confirmation at least :data:`MIN_CONFIRMATION` datasets; an accuracy candidate not
    ahead on the finished choice is not adopted whatever its confirmation (its confirmation
    stage need not run).
    """
    cells_ = per_dataset(table)
    decision = {"arm": arm}
    for stage in ("choice", "confirm"):
        part = cells_[cells_["stage"] == stage]
        wide = part.pivot(index="dataset", columns="arm", values="accuracy")
        if arm not in wide or INCUMBENT not in wide:
            decision[stage] = None
            continue
        diff = 100 * (wide[arm] - wide[INCUMBENT]).dropna()
        decision[stage] = {
            "datasets": len(diff),
            "mean": round(float(diff.mean()), 2) if len(diff) else None,
            "worst": round(float(diff.min()), 2) if len(diff) else None,
        }
        if stage == "choice" and arm in COST_ARMS:
            seconds = part.pivot(index="dataset", columns="arm", values="fit_seconds")
            both = seconds[[arm, INCUMBENT]].dropna()
            decision["fit_ratio"] = round(float(both[arm].sum() / both[INCUMBENT].sum()), 3)
    choice, confirm = decision["choice"], decision["confirm"]
    chosen_on = bool(choice) and choice["datasets"] >= len(CHOICE)
    confirmed_on = bool(confirm) and confirm["datasets"] >= MIN_CONFIRMATION
    if chosen_on and arm not in COST_ARMS and choice["mean"] <= 0:
        decision["adopt"] = False  # not ahead on the choice: no confirmation can adopt it
    elif arm in COST_ARMS and confirmed_on and (
        confirm["mean"] < -COST_TOLERANCE or confirm["worst"] < -WORST
    ):
        decision["adopt"] = False  # the confirmation fails the cost rule, whatever the choice
    elif not chosen_on or not confirmed_on:
        decision["adopt"] = None
    elif arm in COST_ARMS:
        decision["adopt"] = bool(
            decision["fit_ratio"] <= COST_RATIO and choice["mean"] >= -COST_TOLERANCE
            and confirm["mean"] >= -COST_TOLERANCE and confirm["worst"] >= -WORST
        )
    else:
        decision["adopt"] = bool(
            choice["mean"] > 0 and confirm["mean"] >= MIN_CONFIRM_GAIN.get(arm, 0.0)
            and confirm["worst"] >= -WORST
        )
    return decision


def summarize(out: Path) -> None:
    table = results(out)
    if table.empty:
        print(f"no results under {out}")
        return
    cells_ = per_dataset(table)
    for stage in ("choice", "confirm"):
        part = cells_[cells_["stage"] == stage]
        if part.empty:
            continue
        print(f"\n{stage}: accuracy (fit seconds)")
        acc = part.pivot(index="dataset", columns="arm", values="accuracy")
        fit = part.pivot(index="dataset", columns="arm", values="fit_seconds")
        shown = acc.round(3).astype(str) + " (" + fit.round(0).astype("Int64").astype(str) + ")"
        print(shown.to_string())
        common = acc.dropna()
        print(f"mean over the {len(common)} datasets every arm finished: "
              + " ".join(f"{a}={v:.3f}" for a, v in common.mean().items()))
    for arm in ARMS:
        if arm != INCUMBENT:
            print(f"{arm} - {INCUMBENT}, accuracy points:", verdict(table, arm))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", choices=("choice", "confirm"))
    parser.add_argument("--arms", nargs="+", choices=list(ARMS),
                        default=[arm for arm in ARMS if arm not in COST_ARMS],
                        help="default: the accuracy candidates (a cost candidate runs beside "
                        "the default in a run of its own, --out)")
    parser.add_argument("--datasets", nargs="+", help="a subset of the stage's datasets")
    parser.add_argument("--peers", action="store_true", help="the confirmation's field tools too")
    parser.add_argument("--max-epochs", type=int, help="every deep model's epochs (default: ours)")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--summarize", action="store_true")
    args = parser.parse_args()
    if args.summarize:
        summarize(args.out)
        return
    if args.stage is None:
        parser.error("give --stage choice or --stage confirm (or --summarize)")
    if args.peers and args.stage != "confirm":
        parser.error("--peers runs with the confirmation stage only")
    allowed = CHOICE if args.stage == "choice" else CONFIRMATION
    datasets = args.datasets or allowed
    stray = sorted(set(datasets) - set(allowed))
    if stray:
        parser.error(f"{stray} are not {args.stage} datasets ({', '.join(allowed)})")
    fixed = [arm for arm in args.arms if "max_epochs" in ARMS[arm]]
    if args.max_epochs is not None and fixed:
        parser.error(f"{fixed} set their own epochs; --max-epochs would override them")
    runs = list(args.arms) + (["peers"] if args.peers else [])
    for arm in runs:
        run_benchmark(
            cells(args.stage, arm, datasets, args.max_epochs),
            args.out / f"{args.stage}_{arm}.csv",
            n_jobs=args.n_jobs,
        )
    summarize(args.out)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
