"""The generated regions of ``docs/raw_data.md``: the raw-data study (benchmarks/raw_data/raw_data.py,
benchmarks/raw_data/results/raw_data.csv) and its row of the decision page."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _pts

RESULTS = results_dir("raw_data")  # this study's committed results


RESULTS = RESULTS / "raw_data.csv"
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


def _score_table(cells: pd.DataFrame, index: list, models) -> tuple[pd.DataFrame, list]:
    """Scores of ``cells``, one row per ``index`` and a column per model of ``models`` that
    ran (in that order, by their short names), formatted; and those models."""
    table = cells.pivot_table(index=index, columns="model", values="score")
    arms = [a for a in models if a in table]
    rows = table[arms].reset_index()
    rows.columns = [*index, *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return rows, arms


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


@lru_cache(maxsize=None)
def _test_sizes() -> pd.Series:
    """Test series per confirmation cell (dataset, perturbation): each test split loaded once
    (every region that reads the verdict asks)."""
    from sktdi.datasets import load_ucr

    sizes = {}
    for dataset, perturbation in _confirm_cells().index:
        if dataset == "PLAID-subset":
            sizes[dataset, perturbation] = 100  # 4 classes × 25 (benchmarks/raw_data/raw_data.py)
        else:
            sizes[dataset, perturbation] = len(load_ucr(dataset, "test")[1])
    return pd.Series(sizes)


CANDIDATES = ("deep-series", "deep-running")


def judge(arm: str) -> dict:
    """The transfer protocol's rule for one candidate against the incumbent, as
    ``benchmarks/shared/transfer_protocol.py``'s ``verdict`` judges each arm: ahead on the choice
    mean, then on the confirmation cells no choice saw level or ahead on the mean, and no
    cell more than WORST points (or one test series, where a series is worth more) behind."""
    means = _choice_means()
    choice = 100 * (means[arm] - means[INCUMBENT])
    cells = _confirm_cells()
    both = cells[[arm, INCUMBENT]].dropna() if arm in cells else pd.DataFrame()
    gaps = 100 * (both[arm] - both[INCUMBENT]) if len(both) else pd.Series(dtype=float)
    # a cell's resolution is one test series: behind by more than WORST points, or than one
    # series where a series is worth more
    allowed = np.maximum(WORST, 100 / _test_sizes().reindex(gaps.index)) if len(gaps) else gaps
    failing = gaps[gaps < -allowed - 1e-9] if len(gaps) else gaps
    adopted = bool(choice > 0 and len(gaps) and gaps.mean() >= 0 and failing.empty)
    return {"arm": arm, "choice": choice, "gaps": gaps, "failing": failing, "adopted": adopted}


def verdict() -> dict:
    """Each candidate judged (:func:`judge`); the scaling of whole-series models is the
    adopted candidate with the best choice mean ("channel" if none), that of networks trained
    for prefixes (which need a causal one) "running" if it was adopted, else "channel"."""
    judged = {arm: judge(arm) for arm in CANDIDATES}
    adopted = [arm for arm in CANDIDATES if judged[arm]["adopted"]]
    means = _choice_means()
    whole = max(adopted, key=lambda a: means[a]) if adopted else INCUMBENT
    prefix = "deep-running" if judged["deep-running"]["adopted"] else INCUMBENT
    return {"judged": judged, "whole": whole, "prefix": prefix, "means": means}


@region("raw-data-choice")
def raw_data_choice() -> str:
    choice = _results().query("stage == 'choice'")
    rows, arms = _score_table(choice, ["dataset", "perturbation"], ARM_SCALING)
    means = _choice_means().reindex(arms)
    listed = ", ".join(f'"{ARM_SCALING[a]}" {_f(m)}' for a, m in means.items())
    return (
        _md_table(rows)
        + f"\nMean of the choice cells (3-fold CV inside the training splits, "
        f"{choice['fold'].nunique()} folds each): {listed}.\n"
    )


@region("raw-data-confirm")
def raw_data_confirm() -> str:
    confirm = _results().query("stage == 'confirm' and task == 'classification'")
    rows, _ = _score_table(confirm, ["dataset", "perturbation"], COLUMNS)
    seen = rows["dataset"].isin(("GunPoint", "ArrowHead", "ItalyPowerDemand")) & rows[
        "perturbation"
    ].isin(("clean", "gain"))
    rows["perturbation"] = [
        f"{p} (choice)" if s else p for p, s in zip(rows["perturbation"], seen)
    ]
    return _md_table(rows)


@region("raw-data-verdict")
def raw_data_verdict() -> str:
    v = verdict()
    lines = []
    for arm, j in v["judged"].items():
        gaps = j["gaps"]
        name = ARM_SCALING[arm]
        if not len(gaps):
            lines.append(f'- "{name}": choice {_pts(j["choice"])} points; not confirmed yet.')
            continue
        worst = gaps.idxmin()
        failing = "; ".join(
            f"{d}, {p} {_pts(g)}" for (d, p), g in j["failing"].items()
        )
        lines.append(
            f'- "{name}" − "channel": choice {_pts(j["choice"])} points on the mean; '
            f"confirmation, {len(gaps)} cells: {_pts(gaps.mean())} on the mean, worst "
            f"{_pts(gaps.min())} ({worst[0]}, {worst[1]})"
            + (f"; behind by more than the rule allows: {failing}" if failing else "")
            + f": {'adopted' if j['adopted'] else 'not adopted'}."
        )
    whole, prefix = ARM_SCALING[v["whole"]], ARM_SCALING[v["prefix"]]
    if whole == prefix:
        outcome = f'The default is therefore `input_scaling="{whole}"`.'
    else:
        outcome = (
            f'The default is therefore `"{whole}"` for a model of whole series and '
            f'`"{prefix}"` for a network trained for prefixes, which needs a causal scaling.'
        )
    return "\n".join(lines) + f"\n\n{outcome}\n"


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
    rows, _ = _score_table(reg, ["dataset"], COLUMNS)
    return _md_table(rows) + "\nR² on the official test splits (SSMRegressor for the deep arms).\n"


@region("raw-data-warning")
def raw_data_warning() -> str:
    deep = _results()[_results()["model"].str.startswith("deep")]
    classify = deep[deep["task"] == "classification"]
    warned, quiet = classify[classify["warned"] == 1], classify[classify["warned"] == 0]
    regress = deep[deep["task"] == "regression"]
    return (
        f"In this study's {len(classify)} deep classification fits, {len(warned)} warned; "
        f"their accuracy on their own training series was {_f(warned['train_score'].max())} "
        f"at most, and on their test series {_f(warned['score'].max())} at most. The "
        f"{len(quiet)} that did not warn scored {_f(quiet['train_score'].min())} or more on "
        f"their training series. Of the {len(regress)} regression fits, "
        f"{int(regress['warned'].sum())} warned (training R² "
        f"{_f(regress['train_score'].min())} at least).\n"
    )


@region("raw-data-networks")
def raw_data_networks() -> str:
    rows = _results()[_results()["model"].str.startswith("network-")]
    if rows.empty:
        return "Not run yet (`python benchmarks/raw_data/raw_data.py --stage networks`).\n"
    scores = "; ".join(
        f"`network=\"{m.removeprefix('network-')}\"` {_f(s)} in {f:.0f} s"
        for m, s, f in zip(rows["model"], rows["score"], rows["fit_s"])
    )
    return (
        f"Each network at every default (100 epochs, `random_state=0`, one torch thread) on "
        f"GunPoint's official split: {scores}.\n"
    )


@region("raw-data-plaid")
def raw_data_plaid() -> str:
    plaid = _results().query("dataset == 'PLAID'").set_index("model")
    if plaid.empty:
        return "PLAID in full: not run yet (`python benchmarks/raw_data/raw_data.py --stage plaid`).\n"
    names = {**NAMES, "deep-series": 'SSMClassifier(input_scaling="series")'}
    cells = "; ".join(
        f"{names[m]} {_f(r['score'])} (fit {r['fit_s']:.0f} s)" for m, r in plaid.iterrows()
    )
    return (
        f"PLAID in full (official split, 537 series of 100 to 1,344 steps, 11 classes, one "
        f"torch thread): {cells}.\n"
    )
