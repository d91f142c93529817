"""The generated regions of ``docs/raw_data.md``: the raw-data study (benchmarks/raw_data.py,
docs/data/raw_data.csv) and its row of the decision page."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .common import DATA, _csv, _f, _md_table, _pts, region

RESULTS = DATA / "raw_data.csv"
INCUMBENT = "deep-channel"  # input_scaling="channel", the default before the study
WORST = 2.0  # points: no confirmation cell may fall further behind the incumbent
ARM_SCALING = {"deep-channel": "channel", "deep-running": "running", "deep-series": "series"}
NAMES = {
    "deep-channel": 'SSMClassifier, input_scaling="channel" (before)',
    "deep-running": '"running"',
    "deep-series": '"series"',
    "deep-running+amplitude": '"running" + level and log-scale channels',
    "fast-path": "SpectralRidge (fast path)",
    "minirocket": "MiniRocket",
    "inceptiontime": "InceptionTime",
}
COLUMNS = ("deep-channel", "deep-series", "deep-running", "deep-running+amplitude",
           "fast-path", "minirocket", "inceptiontime")
SHORT = {
    "deep-channel": "channel", "deep-series": "series", "deep-running": "running",
    "deep-running+amplitude": "running+amp.", "fast-path": "fast path",
    "minirocket": "MiniRocket", "inceptiontime": "InceptionTime",
}


def _results() -> pd.DataFrame:
    return _csv(RESULTS)


def _choice_means() -> pd.Series:
    choice = _results().query("stage == 'choice'")
    cells = choice.groupby(["model", "dataset", "perturbation"])["score"].mean()
    return cells.groupby("model").mean()


def _confirm_cells() -> pd.DataFrame:
    """Classification cells of the confirmation stage that the choice never saw: score per
    (dataset, perturbation) and model."""
    confirm = _results().query("stage == 'confirm' and task == 'classification'")
    seen = (confirm["dataset"].isin(("GunPoint", "ArrowHead", "ItalyPowerDemand"))) & (
        confirm["perturbation"].isin(("clean", "gain"))
    )
    return confirm[~seen].pivot_table(
        index=["dataset", "perturbation"], columns="model", values="score"
    )


def _test_sizes() -> pd.Series:
    """Test series per confirmation cell (dataset, perturbation)."""
    from sktdi.datasets import load_ucr

    sizes = {}
    for dataset, perturbation in _confirm_cells().index:
        if dataset == "PLAID-subset":
            sizes[dataset, perturbation] = 100  # 4 classes × 25 (benchmarks/raw_data.py)
        else:
            sizes[dataset, perturbation] = len(load_ucr(dataset, "test")[1])
    return pd.Series(sizes)


def verdict() -> dict:
    """The transfer protocol's rule on this study: the arm with the best choice mean is
    adopted if, on the confirmation cells, its mean is at least the incumbent's and no cell
    is more than WORST points behind; else the incumbent stays."""
    means = _choice_means().reindex(list(ARM_SCALING)).dropna()
    best = means.idxmax()
    cells = _confirm_cells()
    if best == INCUMBENT or best not in cells or INCUMBENT not in cells:
        return {"arm": INCUMBENT, "best": best, "means": means, "gaps": None, "adopted": False}
    both = cells[[best, INCUMBENT]].dropna()
    gaps = 100 * (both[best] - both[INCUMBENT])
    # a cell's resolution is one test series: behind by more than WORST points, or than one
    # series where a series is worth more
    one_series = 100 / _test_sizes().reindex(gaps.index)
    adopted = bool(gaps.mean() >= 0 and (gaps >= -np.maximum(WORST, one_series) - 1e-9).all())
    return {
        "arm": best if adopted else INCUMBENT, "best": best, "means": means, "gaps": gaps,
        "adopted": adopted,
    }


def chosen_scaling() -> str:
    """The input_scaling the study's verdict gives (the default must be this one)."""
    return ARM_SCALING[verdict()["arm"]]


@region("raw-data-choice")
def raw_data_choice() -> str:
    choice = _results().query("stage == 'choice'")
    table = choice.pivot_table(index=["dataset", "perturbation"], columns="model", values="score")
    arms = [a for a in ARM_SCALING if a in table]
    rows = table[arms].reset_index()
    rows.columns = ["dataset", "perturbation", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    v = verdict()
    means = ", ".join(f'"{ARM_SCALING[a]}" {_f(m)}' for a, m in v["means"].items())
    return (
        _md_table(rows)
        + f"\nMean of the choice cells (3-fold CV inside the training splits, "
        f"{choice['fold'].nunique()} folds each): {means}. Best: "
        f'"{ARM_SCALING[v["best"]]}".\n'
    )


@region("raw-data-confirm")
def raw_data_confirm() -> str:
    confirm = _results().query("stage == 'confirm' and task == 'classification'")
    table = confirm.pivot_table(index=["dataset", "perturbation"], columns="model", values="score")
    arms = [a for a in COLUMNS if a in table]
    rows = table[arms].reset_index()
    seen = rows["dataset"].isin(("GunPoint", "ArrowHead", "ItalyPowerDemand")) & rows[
        "perturbation"
    ].isin(("clean", "gain"))
    rows["perturbation"] = [
        f"{p} (choice)" if s else p for p, s in zip(rows["perturbation"], seen)
    ]
    rows.columns = ["dataset", "perturbation", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return _md_table(rows)


@region("raw-data-verdict")
def raw_data_verdict() -> str:
    v = verdict()
    best = ARM_SCALING[v["best"]]
    if v["gaps"] is None:
        return f'The choice kept "channel" (best: "{best}"); nothing to confirm.\n'
    gaps = v["gaps"]
    worst = gaps.idxmin()
    outcome = (
        f'adopted: `input_scaling="{best}"` is the default'
        if v["adopted"]
        else f'not adopted: the default stays `input_scaling="channel"`'
    )
    return (
        f'"{best}" − "channel" on the {len(gaps)} confirmation cells no choice saw: '
        f"{_pts(gaps.mean())} points on the mean, worst {_pts(gaps.min())} "
        f"({worst[0]}, {worst[1]}); the rule asks ≥ 0 on the mean and no cell more than "
        f"{WORST:g} points (or one test series) behind: {outcome}.\n"
    )


def _holds() -> pd.DataFrame:
    """Per model and perturbation, the mean over sets of (perturbed − clean) accuracy, in
    points, on the official splits."""
    confirm = _results().query("stage == 'confirm' and task == 'classification'")
    table = confirm.pivot_table(index=["dataset", "model"], columns="perturbation", values="score")
    table = table[table["clean"].notna()]
    drops = table.drop(columns="clean").sub(table["clean"], axis=0) * 100
    return drops.groupby("model").mean()


@region("raw-data-holds")
def raw_data_holds() -> str:
    drops = _holds()
    arms = [a for a in COLUMNS if a in drops.index]
    kinds = [k for k in ("gain", "offset", "trend", "unequal") if k in drops]
    rows = pd.DataFrame(
        {"model": [NAMES[a] for a in arms],
         **{k: [_pts(drops.loc[a, k]) if pd.notna(drops.loc[a, k]) else "" for a in arms]
            for k in kinds}}
    )
    return (
        _md_table(rows)
        + "\nPerturbed − clean accuracy, points, mean over the sets that have both "
        "(GunPoint, ArrowHead, ItalyPowerDemand; BasicMotions for gain, offset and trend); "
        "the target is within 2 points.\n"
    )


@region("raw-data-regression")
def raw_data_regression() -> str:
    reg = _results().query("task == 'regression'")
    table = reg.pivot_table(index="dataset", columns="model", values="score")
    arms = [a for a in COLUMNS if a in table]
    rows = table[arms].reset_index()
    rows.columns = ["dataset", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return _md_table(rows) + "\nR² on the official test splits (SSMRegressor for the deep arms).\n"


@region("raw-data-warning")
def raw_data_warning() -> str:
    deep = _results()[_results()["model"].str.startswith("deep")]
    warned = deep[deep["warned"] == 1]
    quiet = deep[deep["warned"] == 0]
    classify = deep["task"] == "classification"
    at_chance = deep[classify & (deep["train_score"] <= 0.75)]
    return (
        f"Of the study's {len(deep)} deep fits, {len(warned)} warned that they learned "
        f"nothing; their training accuracy (eval mode, after the fit) was "
        f"{_f(warned.query('task == \"classification\"')['train_score'].max())} at most, and "
        f"their test score {_f(warned['score'].max())} at most. The {len(quiet)} that did "
        f"not warn scored {_f(quiet.query('task == \"classification\"')['train_score'].min())} "
        f"or more on their own training series. Classification fits at or below 0.75 "
        f"training accuracy: {len(at_chance)}, of which {int(at_chance['warned'].sum())} "
        f"warned.\n"
    )
