"""The generated regions of ``docs/raw_data.md``'s second round (issue 64): each series' shape
with its level and scale beside it, against the incumbent (benchmarks/raw_data/raw_data.py's
round 2, benchmarks/raw_data/results/representation.csv)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..shared.paired import paired
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _pts

RESULTS = results_dir("raw_data") / "representation.csv"
INCUMBENT = "deep-channel"
CANDIDATES = ("deep-series", "deep-series+scale", "deep-running+scale")
CAUSAL = "deep-running+scale"  # the default if it passes: streams need a causal scaling
WORST = 2.0  # points: no confirmation cell may fall further behind the incumbent
R2_WORST = 0.02  # R²: nor a regression set
CHOICE_SETS = ("GunPoint", "ArrowHead", "ItalyPowerDemand")
SHORT = {
    "deep-channel": "channel", "deep-series": "series", "deep-series+scale": "series+scale",
    "deep-running+scale": "running+scale",
    "deep-series+scale-ungated": "series+scale, ungated",
    "deep-running+scale-ungated": "running+scale, ungated",
    "fast-path": "fast path", "fast-path-shape": "fast path, series+scale",
    "fast-path-shape-ungated": "fast path, shape (ungated)", "minirocket": "MiniRocket",
    "inceptiontime": "InceptionTime",
}
DEEP = ("deep-channel", "deep-series", "deep-series+scale", "deep-running+scale")
CONFIRM_COLUMNS = (*DEEP, "fast-path", "fast-path-shape-ungated", "minirocket", "inceptiontime")


def _results() -> pd.DataFrame:
    return _csv(RESULTS)


def _scaling(arm: str) -> str:
    return arm.removeprefix("deep-")


def _choice() -> pd.DataFrame:
    """Choice scores, one row per (dataset, perturbation, fold), a column per arm."""
    choice = _results().query("stage == 'choice'")
    return choice.pivot_table(
        index=["dataset", "perturbation", "fold"], columns="model", values="score"
    )


def _confirm() -> pd.DataFrame:
    return _results().query("stage == 'confirm'")


def _unseen_cells() -> pd.DataFrame:
    """Classification cells of the confirmation no choice saw: (dataset, perturbation) by
    arm."""
    confirm = _confirm().query("task == 'classification'")
    seen = confirm["dataset"].isin(CHOICE_SETS) & confirm["perturbation"].isin(("clean", "gain"))
    return confirm[~seen].pivot_table(
        index=["dataset", "perturbation"], columns="model", values="score"
    )


@lru_cache(maxsize=None)
def _test_sizes() -> pd.Series:
    from sktdi.datasets import load_ucr

    sizes = {}
    for dataset in {d for d, _ in _unseen_cells().index}:
        sizes[dataset] = 100 if dataset == "PLAID-subset" else len(load_ucr(dataset, "test")[1])
    return pd.Series(sizes)


def resampled(arm: str = CAUSAL) -> pd.DataFrame:
    """The resampled stage's paired differences (points) per (dataset, perturbation): ``arm``
    (the causal candidate; "series+scale" is reported beside it) − "channel", with n, the
    mean, its 95% half-interval and the smallest detectable difference (:func:`paired`)."""
    rows = _results().query("stage == 'resample'")
    if rows.empty:
        return pd.DataFrame(columns=["n", "mean", "half", "mdd"])
    table = rows.pivot_table(
        index=["dataset", "perturbation", "fold"], columns="model", values="score"
    )
    if arm not in table or INCUMBENT not in table:
        return pd.DataFrame(columns=["n", "mean", "half", "mdd"])
    gaps = 100 * (table[arm] - table[INCUMBENT])
    return pd.DataFrame({
        cell: paired(g.droplevel([0, 1])) for cell, g in gaps.groupby(level=[0, 1])
    }).T


def judge(arm: str, one_fit: bool = False) -> dict:
    """The declared rule for one candidate against "channel" (raw_data.py's round 2); where
    the resampled stage ran a cell (the causal candidate's), its mean over the resamples is
    the cell's gap, unless ``one_fit`` (the single fits alone: what chose the resampled
    cells)."""
    choice = paired(100 * (_choice()[arm] - _choice()[INCUMBENT]))
    cells = _unseen_cells()
    gaps = 100 * (cells[arm] - cells[INCUMBENT]).dropna() if arm in cells else pd.Series()
    if arm == CAUSAL and not one_fit:
        # the resampled cells: their means replace the single fits, and the clean sets the
        # choice saw are judged too (declared with the resampled stage)
        again = resampled()
        for cell in again.index:
            gaps[cell] = again.loc[cell, "mean"]
    allowed = np.maximum(WORST, 100 / _test_sizes().reindex([d for d, _ in gaps.index]).values)
    failing = gaps[gaps.values < -allowed - 1e-9]
    regression = _confirm().query("task == 'regression'").pivot_table(
        index="dataset", columns="model", values="score"
    )
    r2_gaps = (regression[arm] - regression[INCUMBENT]) if arm in regression else pd.Series()
    r2_failing = r2_gaps[r2_gaps < -R2_WORST - 1e-12]
    complete = bool(
        len(gaps) and cells.index.isin(gaps.index).all() and len(r2_gaps) == len(regression)
    )
    adopted = bool(
        complete and choice["mean"] > 0 and gaps.mean() >= 0 and failing.empty
        and r2_failing.empty
    )
    return {
        "arm": arm, "choice": choice, "gaps": gaps, "failing": failing, "r2": r2_gaps,
        "r2_failing": r2_failing, "complete": complete, "adopted": adopted,
    }


def chosen_scaling() -> tuple[str, str]:
    """(whole-series, prefix) input scalings the second round's verdict gives: the causal
    candidate if it passed (a default must stream), else the incumbent for both."""
    if judge(CAUSAL)["adopted"]:
        return _scaling(CAUSAL), _scaling(CAUSAL)
    return _scaling(INCUMBENT), _scaling(INCUMBENT)


@region("raw-data-r2-choice")
def raw_data_r2_choice() -> str:
    table = _choice().groupby(["dataset", "perturbation"]).mean()
    arms = [a for a in (*DEEP, *SHORT) if a in table and a.startswith("deep")]
    arms = list(dict.fromkeys(arms))
    rows = table[arms].reset_index()
    rows.columns = ["dataset", "perturbation", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    lines = []
    for against in (INCUMBENT, "deep-series"):
        for arm in arms:
            if arm in (INCUMBENT, against):
                continue
            p = paired(100 * (_choice()[arm] - _choice()[against]))
            lines.append(
                f'- "{SHORT[arm]}" − "{SHORT[against]}": {_pts(p["mean"])} points '
                f'(95% interval ±{p["half"]:.1f}; {p["n"]} paired cells, smallest detectable '
                f'difference {p["mdd"]:.1f} points)'
            )
    return (
        _md_table(rows)
        + "\nMeans over the 3 folds (stratified 3-fold cross-validation inside the training "
        "splits). Paired over the folds and sets:\n\n" + "\n".join(lines) + "\n"
    )


@region("raw-data-r2-confirm")
def raw_data_r2_confirm() -> str:
    confirm = _confirm().query("task == 'classification'")
    table = confirm.pivot_table(index=["dataset", "perturbation"], columns="model", values="score")
    arms = [a for a in CONFIRM_COLUMNS if a in table]
    rows = table[arms].reset_index()
    seen = rows["dataset"].isin(CHOICE_SETS) & rows["perturbation"].isin(("clean", "gain"))
    rows["perturbation"] = [f"{p} (choice)" if s else p for p, s in zip(rows["perturbation"], seen)]
    rows.columns = ["dataset", "perturbation", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return _md_table(rows)


@region("raw-data-r2-verdict")
def raw_data_r2_verdict() -> str:
    lines = []
    for arm in CANDIDATES:
        j = judge(arm)
        c = j["choice"]
        head = (
            f'- "{SHORT[arm]}" − "channel": choice {_pts(c["mean"])} points '
            f'(±{c["half"]:.1f})'
        )
        if not len(j["gaps"]):
            lines.append(head + "; not confirmed yet.")
            continue
        gaps = j["gaps"]
        worst = gaps.idxmin()
        failing = "; ".join(f"{d}, {p} {_pts(g)}" for (d, p), g in j["failing"].items())
        r2 = ", ".join(f"{d} {v:+.3f}" for d, v in j["r2"].items())
        lines.append(
            head + f"; confirmation, {len(gaps)} cells: {_pts(gaps.mean())} on "
            f"the mean, worst {_pts(gaps.min())} ({worst[0]}, {worst[1]})"
            + (f"; behind by more than the rule allows: {failing}" if failing else "")
            + (f"; R² {r2}" if r2 else "")
            + (f" (behind by more than {R2_WORST})" if len(j["r2_failing"]) else "")
            + ("" if j["complete"] else "; incomplete")
            + f": {'passes' if j['adopted'] else 'does not pass'}."
        )
    whole, _ = chosen_scaling()
    outcome = (
        f'The default is therefore `input_scaling="{whole}"`'
        + (" (causal: streams and the early classifier keep working at the default)."
           if whole == _scaling(CAUSAL) else
           ": the causal candidate did not pass, and a default must stream.")
    )
    return "\n".join(lines) + f"\n\n{outcome}\n"


def _holds() -> pd.DataFrame:
    """Per arm and perturbation, perturbed − clean accuracy in points, mean over the sets
    that have both; and per arm and set, the worst perturbation."""
    confirm = _confirm().query("task == 'classification'")
    table = confirm.pivot_table(index=["dataset", "model"], columns="perturbation", values="score")
    table = table[table["clean"].notna()]
    return table.drop(columns="clean").sub(table["clean"], axis=0) * 100


@region("raw-data-r2-holds")
def raw_data_r2_holds() -> str:
    drops = _holds()
    means = drops.groupby("model").mean()
    worst = drops.min(axis=1).groupby("model").min()
    arms = [a for a in CONFIRM_COLUMNS if a in means.index]
    kinds = [k for k in ("gain", "offset", "trend", "unequal") if k in means]
    rows = pd.DataFrame({
        "model": [SHORT[a] for a in arms],
        **{k: [_pts(means.loc[a, k]) for a in arms] for k in kinds},
        "worst cell": [_pts(worst[a]) for a in arms],
    })
    return (
        _md_table(rows)
        + "\nPerturbed − clean accuracy, points, on the official splits: the mean over the sets "
        "that have both (GunPoint, ArrowHead, ItalyPowerDemand; BasicMotions for gain, offset "
        "and trend), and the worst single (set, perturbation) cell. The target: within 2 points "
        "on every set.\n"
    )


@region("raw-data-r2-regression")
def raw_data_r2_regression() -> str:
    reg = _confirm().query("task == 'regression'")
    table = reg.pivot_table(index="dataset", columns="model", values="score")
    arms = [a for a in (*CONFIRM_COLUMNS, "deep-series+scale-ungated",
                        "deep-running+scale-ungated") if a in table]
    rows = table[arms].reset_index()
    rows.columns = ["dataset", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return _md_table(rows) + "\nR² on the official test splits (SSMRegressor for the deep arms).\n"


@region("raw-data-r2-amplitude")
def raw_data_r2_amplitude() -> str:
    """Where the amplitude is the signal: the gated and ungated forms side by side."""
    confirm = _confirm()
    cells = confirm[confirm["dataset"].isin(("PLAID-subset", "Covid3Month", "Tecator"))]
    table = cells.pivot_table(index="dataset", columns="model", values="score")
    arms = [a for a in ("deep-series", "deep-series+scale", "deep-series+scale-ungated",
                        "deep-running+scale", "deep-running+scale-ungated") if a in table]
    rows = table[arms].reset_index()
    rows.columns = ["dataset", *[SHORT[a] for a in arms]]
    for a in arms:
        rows[SHORT[a]] = rows[SHORT[a]].map(_f)
    return (
        _md_table(rows)
        + "\nAccuracy (PLAID subset) and R² (the regression sets), official splits.\n"
    )


@region("raw-data-r2-resampled")
def raw_data_r2_resampled() -> str:
    again = resampled()
    if again.empty:
        return "Not run yet (`python benchmarks/raw_data/raw_data.py --stage round2-resample`).\n"
    one_fit = judge(CAUSAL, one_fit=True)["gaps"]
    whole = resampled("deep-series+scale")
    confirm = _confirm().query("task == 'classification'").pivot_table(
        index=["dataset", "perturbation"], columns="model", values="score"
    )
    sizes = _test_sizes()
    rows = []
    for (dataset, perturbation), r in again.iterrows():
        series = 100 / sizes.get(dataset, np.nan)
        allowance = max(WORST, series)
        single = one_fit.get((dataset, perturbation))
        if single is None and (dataset, perturbation) in confirm.index:
            single = 100 * (confirm.loc[(dataset, perturbation), CAUSAL]
                            - confirm.loc[(dataset, perturbation), INCUMBENT])
        rows.append({
            "set": dataset, "perturbation": perturbation,
            "one fit": _pts(single) if single is not None else "",
            "resamples": f"{_pts(r['mean'])} ± {r['half']:.1f} ({int(r['n'])})",
            "detectable": f"{r['mdd']:.1f}",
            "one test series": f"{series:.1f}",
            "verdict": "fails" if r["mean"] < -allowance - 1e-9 else "holds",
            '"series+scale", resampled': (
                f"{_pts(whole.loc[(dataset, perturbation), 'mean'])} ± "
                f"{whole.loc[(dataset, perturbation), 'half']:.1f}"
                if (dataset, perturbation) in whole.index else ""
            ),
        })
    return (
        _md_table(pd.DataFrame(rows))
        + f'\n"{SHORT[CAUSAL]}" − "channel", points: at one fit (the confirmation), and the '
        "mean over the resamples with its 95% interval (their count in brackets); the smallest "
        "difference the resamples can detect (2.8 standard errors); a cell fails where the "
        "resampled mean is more than 2 points behind, or one test series where one is worth "
        'more. The last column, reported and not judged: "series+scale" − "channel" on the same '
        "resamples.\n"
    )


FAST = "fast-path-shape"
FAST_BEFORE = "fast-path"


def _fast_cells() -> pd.DataFrame:
    return _results().query("stage == 'fast-resample'").pivot_table(
        index=["dataset", "perturbation", "fold"], columns="model", values="score"
    )


def judge_fast_path() -> dict:
    """The fast path's declared rule (raw_data.py): its resampled mean against itself as it
    was, on every cell: level or ahead on the mean of the classification cells, no cell more
    than 2 points (or one test series) behind, R² no more than 0.02 behind."""
    table = _fast_cells()
    if table.empty or FAST not in table or FAST_BEFORE not in table:
        return {"cells": pd.DataFrame(), "adopted": False, "complete": False}
    rows = []
    for (dataset, perturbation), cell in table.groupby(level=[0, 1]):
        regression = perturbation == "raw"
        scale = 1.0 if regression else 100.0
        p = paired(scale * (cell[FAST] - cell[FAST_BEFORE]))
        if regression:
            allowance = R2_WORST
        else:
            from sktdi.datasets import load_ucr

            allowance = max(WORST, 100 / len(load_ucr(dataset, "test")[1]))
        rows.append({
            "dataset": dataset, "perturbation": perturbation, "regression": regression,
            "fast": cell[FAST].mean(), "before": cell[FAST_BEFORE].mean(),
            "minirocket": cell["minirocket"].mean() if "minirocket" in cell else np.nan,
            **p, "allowance": allowance, "fails": p["mean"] < -allowance - 1e-12,
        })
    cells = pd.DataFrame(rows)
    classify = cells[~cells["regression"]]
    adopted = bool(classify["mean"].mean() >= 0 and not cells["fails"].any())
    return {"cells": cells, "adopted": adopted, "complete": True}


@region("raw-data-r2-fast-path")
def raw_data_r2_fast_path() -> str:
    verdict = judge_fast_path()
    cells = verdict["cells"]
    if cells.empty:
        return "Not run yet (`python benchmarks/raw_data/raw_data.py --stage round2-fast-path`).\n"
    rows = pd.DataFrame({
        "set": cells["dataset"], "perturbation": cells["perturbation"],
        "series+scale": cells["fast"].map(_f), "as given (default)": cells["before"].map(_f),
        "MiniRocket": cells["minirocket"].map(_f),
        "difference": [
            (f"{m:+.3f} ± {h:.3f}" if r else f"{_pts(m)} ± {h:.1f}")
            for m, h, r in zip(cells["mean"], cells["half"], cells["regression"])
        ],
        "verdict": np.where(cells["fails"], "behind", "holds"),
    })
    classify = cells[~cells["regression"]]
    failing = cells[cells["fails"]]
    outcome = (
        "it is adopted as the default" if verdict["adopted"] else
        "it is not adopted: " + ("; ".join(
            f"{d}, {p} behind by more than the rule allows" for d, p in
            zip(failing["dataset"], failing["perturbation"])
        ) or "behind on the mean")
    )
    return (
        _md_table(rows)
        + f"\nMeans over {int(cells['n'].max())} resamples (accuracy; R² for the regression "
        "sets, perturbation `raw`); the difference is `input_scaling=\"series+scale\"` − the "
        "series as given (the default), "
        "paired by resample, with its 95% interval (points; R² for regression). Mean over the "
        f"classification cells: {_pts(classify['mean'].mean())} points; " + outcome + ".\n"
    )


STREAM_RATE = results_dir("raw_data") / "stream_rate.csv"


@region("raw-data-r2-streams")
def raw_data_r2_streams() -> str:
    rates = _csv(STREAM_RATE).set_index("scaling")
    base = rates.loc["channel"]
    rows = pd.DataFrame({
        "input_scaling": [f'`"{s}"`' for s in rates.index],
        "one stream, a sample at a time": [f"{v:,.0f}" for v in rates["one_stream"]],
        "÷ \"channel\"": [f"{v / base['one_stream']:.2f}" for v in rates["one_stream"]],
        "1,000 streams, chunks of 100": [f"{v:,.0f}" for v in rates["streams_1000"]],
        "÷ \"channel\" ": [f"{v / base['streams_1000']:.2f}" for v in rates["streams_1000"]],
    })
    return (
        _md_table(rows)
        + "\nSamples per second (each the best of 3 runs, one thread, the scalings "
        "interleaved in one process; `benchmarks/raw_data/stream_rate.py`).\n"
    )
