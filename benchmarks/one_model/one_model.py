"""One model (issue 70): the deep network starts where the fast path ends.

``SSMClassifier()`` and ``SSMRegressor()`` now add the fast path (the TDI-aligned filter
bank and MiniRocket's features under a ridge head) to the network: the network's last layer
starts at zero and learns a residual on the ridge's leave-one-out outputs; it holds out a
fifth of the series and stops after 10 epochs that do not beat the fast path's own validation
loss, keeping the best state, the fast path alone included (``sktdi.deep_model.stacking``,
``fast_path="auto"``). Does the one model keep the fast path's accuracy on short sets, the
network's on long recordings, at a fraction of the network's fit?

Declared before any cell ran (candidate 1 of the issue, the residual; the other two, a
weighted pair and a fixed branch, are not built: the residual contains the weighted pair's
choice, fast path alone or both, and was the one this session could build and measure).

Draws: the bake-off's (``sktdi.datasets.resample_split``; resample 0 the official split),
each fit ``random_state=r``, one torch thread, two fits at a time: arms paired on the draw.

Arms (classification):

- ``combined``: ``SSMClassifier()`` as it ships (the harness's ``tdi`` arm);
- ``network``: ``SSMClassifier(fast_path=False)``, the default before this issue, on the first
  draw of the four short choice sets (its fits cost 20 to 500 s each, so not on every draw);
- ``fast-path-minirocket``: ``SpectralRidgeClassifier(rocket="minirocket")``;
- ``minirocket``: sktime's ``RocketClassifier(rocket_transform="minirocket")`` (issue 66's
  clock), and ``minirocket-ridge``, MiniRocket's transform and ridge without sktime's
  wrapper (the harness's fair clock for the algorithm).

Sets. Choice (the five earlier defaults were chosen on; 10 draws, OSULeaf 3): ItalyPowerDemand,
GunPoint, ArrowHead, BasicMotions, OSULeaf. Confirmation, sets no choice of this issue read:
JapaneseVowels (10 draws; multivariate, unequal lengths), ACSF1 (3; appliance power, 1,460
steps), ``digits`` (scikit-learn's digits read row by row, 64 steps, 898 training series: a
shape set; 3 draws), the PLAID subset of the raw-data study (raw electrical recordings of
unequal length; 10 draws).

Raw recordings at the defaults: ``combined`` and ``combined-series+scale``
(``input_scaling="series+scale"``) on the official splits of GunPoint, ArrowHead and
ItalyPowerDemand, clean and under the raw-data study's gain, offset and trend
(``benchmarks/shared/raw_inputs.perturb``, seed 0 for the training split and 1 for the test
split), 3 draws each.

Regression: ``SSMRegressor()`` (with its fast path), ``SSMRegressor(fast_path=False)`` and
MiniRocket's ridge regressor, 10 draws of Covid3Month and Tecator.

The rule, declared before any cell ran (paired differences in points over a stage's cells;
each reported with its mean, 95% t-interval, Wilcoxon p and the smallest difference the cells
can detect, 2.8 standard errors, ``benchmarks/shared/paired.py``):

- choice: ``combined`` ≥ ``fast-path-minirocket`` − 0.5 on the mean, no set more than 2 below
  it; ``combined`` ≥ ``minirocket`` on the mean;
- confirmation: ``combined`` ≥ ``minirocket`` − 1 on the mean, no set more than 3 below it;
- the long recordings (``benchmarks/long_series``'s tasks at 1,000 and 4,000 steps, seeds 1
  and 2, 50 epochs, run by its own runner into this folder): no task below ``network`` by
  more than 2 points, the mean ≥ MiniRocket + 10;
- raw: gain and offset within 2 points of clean, trend within 3, per set (mean over draws);
- cost: ``combined``'s fit ≤ 20× ``minirocket``'s (sktime's clock) on the short sets.

    python benchmarks/one_model/one_model.py [--n-jobs 2] [--stage choice|confirm|raw|regression|all]
    python benchmarks/one_model/one_model.py --summarize
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/one_model/results/long.csv \\
        --lengths 1000 4000 --models ssm ssm-network minirocket --seeds 1 2

Rows go to ``results/one_model.csv`` as cells finish; a rerun skips the cells it holds.

Amended after the first cell, before any was read for the rule: the plan was to take the
``network`` arm's other draws from issue 66's committed cells (``benchmarks/deep_resampled``),
checked on the first draws. The first check failed: on ItalyPowerDemand's official split
today's code gives 0.9553 with ``fast_path=False`` and at the commit before this issue alike,
where the committed cell holds 0.9572 (made by an earlier state of the code). So the
``network`` arm is this run's own cells only, and no rule reads it on the short sets.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "benchmarks.one_model"

from ..shared.paired import paired  # noqa: E402
from ..shared.results_file import run_unfinished  # noqa: E402
from ..shared.short_sets import (  # noqa: E402
    CHOICE,
    CONFIRMATION,
    DRAWS,
    draws,
    stage_of,
)
from ..shared.short_sets import (
    split_of as _split,
)

RAW_SETS = ("GunPoint", "ArrowHead", "ItalyPowerDemand")
PERTURBATIONS = ("clean", "gain", "offset", "trend")
REGRESSION = ("Covid3Month", "Tecator")
RAW_DRAWS = 3
# arm -> (the harness's estimator, its overrides)
ARMS = {
    "combined": ("tdi", {}),
    "network": ("tdi", {"fast_path": False}),
    "fast-path-minirocket": ("tdi+ridge+minirocket", {}),
    "minirocket": ("minirocket", {}),
    "minirocket-ridge": ("minirocket-ridge", {}),
    "combined-series+scale": ("tdi", {"input_scaling": "series+scale"}),
}
PEERS = ("combined", "fast-path-minirocket", "minirocket", "minirocket-ridge")
RAW_ARMS = ("combined", "combined-series+scale")
REGRESSION_ARMS = ("combined", "network", "minirocket")
# the rule (see the module docstring)
CHOICE_MARGIN, CHOICE_WORST = 0.5, 2.0
CONFIRM_MARGIN, CONFIRM_WORST = 1.0, 3.0
RAW_WORST = {"gain": 2.0, "offset": 2.0, "trend": 3.0}
COST_RATIO = 20.0

RESULTS = Path(__file__).resolve().parent / "results" / "one_model.csv"
KEY = ["task", "dataset", "perturbation", "arm", "resample"]


def plan(stage: str = "all") -> list[tuple]:
    """Every cell, cheap stages first, draw by draw (an interrupted run leaves whole draws)."""
    jobs = []
    if stage in ("choice", "all"):
        for d in CHOICE[:4]:
            jobs.append(("classification", d, "clean", "network", 0))
        for r in range(DRAWS):
            for d in CHOICE:
                if r in draws(d):
                    jobs += [("classification", d, "clean", arm, r) for arm in PEERS]
    if stage in ("confirm", "all"):
        for r in range(DRAWS):
            for d in CONFIRMATION:
                if r in draws(d):
                    jobs += [("classification", d, "clean", arm, r) for arm in PEERS]
    if stage in ("raw", "all"):
        for r in range(RAW_DRAWS):
            for d in RAW_SETS:
                for kind in PERTURBATIONS:
                    arms = RAW_ARMS + (("minirocket",) if kind != "clean" else ())
                    jobs += [("classification", d, kind, arm, r) for arm in arms]
    if stage in ("regression", "all"):
        for r in range(DRAWS):
            for d in REGRESSION:
                jobs += [("regression", d, "clean", arm, r) for arm in REGRESSION_ARMS]
    return jobs


def run(task: str, dataset: str, perturbation: str, arm: str, resample: int) -> dict:
    """One cell's row: score (accuracy, or R²) and fit seconds."""
    row = {"task": task, "dataset": dataset, "perturbation": perturbation, "arm": arm,
           "resample": resample, "stage": stage_of(dataset)}
    if task == "regression":
        return {**row, **_regress(dataset, arm, resample)}
    from sktdi.benchmark.estimators import ESTIMATORS
    from sktdi.benchmark.runner import _inputs, _longest, _warm_up, cell_threads

    X, y, Xt, yt = _split(dataset, perturbation, resample)
    name, params = ARMS[arm]
    build, kind, _ = ESTIMATORS[name]
    with cell_threads(1):
        model = build(resample, params)
        length = max(_longest(X), _longest(Xt))
        (args, kwargs), (test_args, test_kwargs) = _inputs(kind, X, length), _inputs(kind, Xt, length)
        _warm_up(name, model, args, y, kwargs)
        start = time.perf_counter()
        model.fit(*args, y, **kwargs)
        seconds = time.perf_counter() - start
        score = float(np.mean(model.predict(*test_args, **test_kwargs) == yt))
    out = {"score": score, "fit_seconds": seconds, "n_train": len(y), "n_test": len(yt)}
    report = getattr(model, "fast_path_report_", None)
    if report is not None:  # what the network added: its best epoch (0: the fast path alone)
        out.update(best_epoch=report["best_epoch"], epochs=model.n_epochs_,
                   network_adds=report["network_adds"])
    return {**row, **out}


def _regress(dataset: str, arm: str, resample: int) -> dict:
    from sktdi import SSMRegressor
    from sktdi.benchmark._minirocket_ridge import MiniRocketRidgeRegressor
    from sktdi.benchmark.runner import cell_threads

    X, y, Xt, yt = _split(dataset, "clean", resample, stratify=False)
    with cell_threads(1):
        if arm == "minirocket":
            model = MiniRocketRidgeRegressor(random_state=0)
        else:
            model = SSMRegressor(random_state=resample, **ARMS[arm][1])
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        score = model.score(Xt, yt)
    return {"score": score, "fit_seconds": seconds, "n_train": len(y), "n_test": len(yt)}


# ---- the verdict ------------------------------------------------------------------------------


def cells() -> pd.DataFrame:
    return pd.read_csv(RESULTS)


def differences(table: pd.DataFrame, arm: str, reference: str, scale: float = 100.0):
    """``arm`` − ``reference`` per cell (dataset, perturbation, draw) where both finished."""
    wide = table.pivot_table(index=["stage", "dataset", "perturbation", "resample"],
                             columns="arm", values="score")
    if arm not in wide or reference not in wide:
        return pd.DataFrame(columns=["stage", "dataset", "perturbation", "resample", "diff"])
    return (scale * (wide[arm] - wide[reference])).dropna().rename("diff").reset_index()


def _tested(diff: pd.DataFrame) -> dict:
    test = paired(diff["diff"])
    by_set = diff.groupby("dataset")["diff"].mean()
    test["worst_set"] = float(by_set.min()) if len(by_set) else np.nan
    test["worst_set_name"] = str(by_set.idxmin()) if len(by_set) else ""
    return test


def verdict(table: pd.DataFrame) -> dict:
    """The rule's tests (module docstring), each with its figures."""
    clean = table[(table["task"] == "classification") & (table["perturbation"] == "clean")]
    out = {}
    choice = clean[clean["stage"] == "choice"]
    confirm = clean[clean["stage"] == "confirm"]
    vs_fast = _tested(differences(choice, "combined", "fast-path-minirocket"))
    vs_fast["holds"] = bool(vs_fast["mean"] >= -CHOICE_MARGIN
                            and vs_fast["worst_set"] >= -CHOICE_WORST)
    vs_mr = _tested(differences(choice, "combined", "minirocket"))
    vs_mr["holds"] = bool(vs_mr["mean"] >= 0)
    out["choice"] = {"vs fast-path-minirocket": vs_fast, "vs minirocket": vs_mr,
                     "vs network": _tested(differences(choice, "combined", "network"))}
    conf = _tested(differences(confirm, "combined", "minirocket"))
    conf["holds"] = bool(conf["mean"] >= -CONFIRM_MARGIN and conf["worst_set"] >= -CONFIRM_WORST)
    out["confirm"] = {"vs minirocket": conf,
                      "vs fast-path-minirocket": _tested(
                          differences(confirm, "combined", "fast-path-minirocket")),
                      "vs network": _tested(differences(confirm, "combined", "network"))}
    short = clean[clean["stage"] == "choice"].pivot_table(
        index=["dataset", "resample"], columns="arm", values="fit_seconds")
    if {"combined", "minirocket"} <= set(short):
        ratio = (short["combined"] / short["minirocket"]).groupby("dataset").mean()
        out["cost"] = {"ratio_by_set": ratio.round(2).to_dict(),
                       "holds": bool((ratio <= COST_RATIO).all())}
    raw = table[(table["task"] == "classification") & table["dataset"].isin(RAW_SETS)
                & table["arm"].isin(RAW_ARMS) & (table["resample"] < RAW_DRAWS)]
    raw_out = {}
    for arm in RAW_ARMS:
        means = raw[raw["arm"] == arm].groupby(["dataset", "perturbation"])["score"].mean()
        if means.empty:
            continue
        gaps = {}
        for kind, worst in RAW_WORST.items():
            gap = {d: 100 * (means.get((d, kind), np.nan) - means.get((d, "clean"), np.nan))
                   for d in RAW_SETS}
            gaps[kind] = {"by_set": gap, "holds": bool(all(g >= -worst for g in gap.values()))}
        raw_out[arm] = gaps
    out["raw"] = raw_out
    reg = table[table["task"] == "regression"]
    out["regression"] = reg.groupby(["dataset", "arm"])["score"].mean().round(3).unstack().to_dict()
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--stage", default="all",
                        choices=("choice", "confirm", "raw", "regression", "all"))
    parser.add_argument("--summarize", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not args.summarize:
        run_unfinished(run, plan(args.stage), args.out, KEY, args.n_jobs)
    print(json.dumps(verdict(cells()), indent=1, default=float))


if __name__ == "__main__":
    main()
