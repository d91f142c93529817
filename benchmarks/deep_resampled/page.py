"""The generated regions of ``docs/deep_model.md`` from the resampled protocol
(benchmarks/deep_resampled/deep_resampled.py, results/resamples.csv)."""

from __future__ import annotations

import pandas as pd

from ..shared.paired import MDD_SE, paired
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _interval, _md_table, _pts
from .deep_resampled import (
    ARMS,
    CHOICE,
    CONFIRMATION,
    INCUMBENT,
    NON_INFERIORITY,
    PEER_EPOCHS,
    R2_WORST_SET,
    REGRESSION,
    ROUND2,
    WORST_SET,
    differences,
    holds,
    verdict,
)

RESULTS = results_dir("deep_resampled") / "resamples.csv"
LABELS = {
    "default": "default (width 128, 100 epochs)",
    "narrow": "narrow (width 32, 40 epochs)",
    "narrow3": "three narrow networks",
    "medium": "medium (width 64, 40 epochs; round 2)",
    "minirocket": "MiniRocket",
    "inceptiontime": f"InceptionTime ({PEER_EPOCHS} epochs)",
    "running+scale": 'input_scaling="running+scale"',
}
REGRESSION_LABELS = {
    "default": 'default (S4D network, "channel")',
    "running+scale": 'input_scaling="running+scale"',
    "minirocket": "MiniRocket",
}
STAGES = {"choice": "choice", "confirm": "confirmation"}


def _results() -> pd.DataFrame:
    return _csv(RESULTS)


def _classify() -> pd.DataFrame:
    table = _results()
    return table[table["task"] == "classification"]


def _set_means(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mean score and mean fit seconds over the draws, per set (rows) and arm (columns)."""

    def mean_of(values):
        return table.pivot_table(index="dataset", columns="arm", values=values, aggfunc="mean")

    return mean_of("score"), mean_of("fit_seconds")


@region("resampled-verdict")
def resampled_verdict() -> str:
    """Each candidate against the default, per stage, and the decision."""
    result = verdict(_results())
    rows = []
    for arm, stages in result["arms"].items():
        for stage, test in stages.items():
            rows.append({
                "candidate": LABELS[arm], "stage": STAGES[stage], "cells": test["n"],
                "difference, points [95% interval]": _interval(test),
                "Wilcoxon p": _f(test["p"], 3),
                "detectable": f"{test['mdd']:.1f}",
                "worst set": _pts(test["worst_set"]),
                "holds": ("yes" if test["holds"] else "no")
                + (" (not adoptable this round)" if arm in ROUND2 else ""),
            })
    adopted = result["adopted"]
    if adopted is None:
        decision = "Undecided: a cell of round 1 has not finished."
    elif adopted == INCUMBENT:
        decision = "Neither candidate held on both stages: the default is unchanged."
    else:
        decision = f"Adopted by the rule: {LABELS[adopted]}."
    return (
        _md_table(pd.DataFrame(rows))
        + f"\nA candidate holds on a stage when the interval's lower end lies above "
        f"−{NON_INFERIORITY:.0f} point and no set's mean over its draws is more than "
        f"{WORST_SET:.0f} points behind; \"detectable\" is {MDD_SE} standard errors of the "
        f"mean difference (a two-sided test at 5% with 80% power). {decision}\n"
    )


@region("resampled-sets")
def resampled_sets() -> str:
    """Mean accuracy over the draws per set and arm, with the draws and the mean fit seconds."""
    table = _classify()
    acc, sec = _set_means(table)
    n = table.pivot_table(index="dataset", columns="arm", values="score", aggfunc="size")
    rows = []
    for dataset in (*CHOICE, *CONFIRMATION):
        if dataset not in acc.index:
            continue
        row = {"set": dataset, "stage": "choice" if dataset in CHOICE else "confirmation",
               "draws": int(n.loc[dataset].get(INCUMBENT, 0) or 0)}
        for arm in (*ARMS, *ROUND2, "minirocket", "inceptiontime"):
            value = acc.loc[dataset].get(arm)
            row[LABELS[arm]] = _f(value) if pd.notna(value) else "—"
        for arm in (*ARMS, *ROUND2, "minirocket"):
            value = sec.loc[dataset].get(arm)
            row[f"fit s, {arm}"] = _f(value, 1) if pd.notna(value) else "—"
        rows.append(row)
    return _md_table(pd.DataFrame(rows)) + (
        "\nMean accuracy over each set's draws (resample 0 the official split), and mean fit "
        f"seconds on one thread; InceptionTime ran on draws 0 to 2 of the sets whose fit is "
        "short, and its mean is over those.\n"
    )


@region("resampled-peers")
def resampled_peers() -> str:
    """Each arm against MiniRocket and InceptionTime, paired on the draws both ran."""
    table = _classify()
    rows = []
    for arm in (*ARMS, *ROUND2):
        for peer in ("minirocket", "inceptiontime"):
            diff = differences(table, arm, peer)
            for stage in ("choice", "confirm"):
                part = diff[diff["stage"] == stage]
                if part.empty:
                    continue
                test = holds(part)
                rows.append({
                    "arm": LABELS[arm], "against": LABELS[peer], "stage": STAGES[stage],
                    "cells": test["n"], "difference, points [95% interval]": _interval(test),
                    "worst set": _pts(test["worst_set"]),
                })
    return _md_table(pd.DataFrame(rows))


@region("resampled-regression")
def resampled_regression() -> str:
    """R² over the regression draws, and the regressor's candidate against its default."""
    reg = _results()[lambda t: t["task"] == "regression"]
    r2, sec = _set_means(reg)
    rows = []
    for dataset in REGRESSION:
        if dataset not in r2.index:
            continue
        row = {"set": dataset, "draws": int((reg["dataset"] == dataset).sum() // r2.shape[1])}
        for arm, label in REGRESSION_LABELS.items():
            row[label] = _f(r2.loc[dataset].get(arm))
        row["fit s, default"] = _f(sec.loc[dataset].get("default"), 1)
        row["fit s, MiniRocket"] = _f(sec.loc[dataset].get("minirocket"), 2)
        rows.append(row)
    test = verdict(_results())["regression"]
    diff = differences(reg, "running+scale", scale=1.0)
    mr = paired(differences(reg, "running+scale", "minirocket", scale=1.0)["diff"])
    mr_default = paired(differences(reg, "default", "minirocket", scale=1.0)["diff"])
    return _md_table(pd.DataFrame(rows)) + (
        f"\nMean test R² over the draws. `running+scale` − default, paired over "
        f"{len(diff)} draws: {test['mean']:+.3f} [{test['low']:+.3f}, {test['high']:+.3f}] "
        f"(Wilcoxon p {_f(test['p'], 3)}), worst set {test['worst_set']:+.3f} (the rule: "
        f"≥ 0 on the mean, no set below −{R2_WORST_SET}): "
        f"{'adopted' if test['holds'] else 'not adopted'}. Against MiniRocket's regressor: "
        f"the default {mr_default['mean']:+.3f} [{mr_default['low']:+.3f}, "
        f"{mr_default['high']:+.3f}], `running+scale` {mr['mean']:+.3f} [{mr['low']:+.3f}, "
        f"{mr['high']:+.3f}].\n"
    )


@region("resampled-targets")
def resampled_targets() -> str:
    """The issue's targets that this run measures, for the arm the rule leaves as the default."""
    table = _classify()
    chosen = verdict(_results())["adopted"] or INCUMBENT  # undecided: today's default
    acc, sec = _set_means(table)
    rows = []
    confirm = differences(table, chosen, "minirocket")
    confirm = confirm[confirm["stage"] == "confirm"]
    by_set = confirm.groupby("dataset")["diff"].mean()
    mean = by_set.mean() if len(by_set) else float("nan")
    rows.append({
        "target": "confirmation sets: ≥ MiniRocket − 2 points on the mean, no set 5 behind",
        "measured": f"{_pts(mean)} on the mean; worst set {_pts(by_set.min())} "
        f"({by_set.idxmin() if len(by_set) else ''})",
        "met": "yes" if mean >= -2 and by_set.min() >= -5 else "no",
    })
    peer = differences(table, chosen, "inceptiontime")
    same = "; ".join(
        f"{arm} {_pts(differences(table, arm, 'inceptiontime')['diff'].mean())}"
        for arm in ARMS if arm != INCUMBENT
    )
    rows.append({
        "target": f"ahead of InceptionTime at the same epochs ({PEER_EPOCHS})",
        "measured": f"the default (at its 100) {_pts(peer['diff'].mean())} over {len(peer)} "
        f"paired draws (the short sets, draws 0 to 2); at the same {PEER_EPOCHS}: {same}",
        "met": "yes" if peer["diff"].mean() > 0 else "no",
    })
    osu = acc.loc["OSULeaf"].get(chosen) if "OSULeaf" in acc.index else float("nan")
    rows.append({"target": "OSULeaf ≥ 0.93 at the default",
                 "measured": f"{_f(osu)} (mean of its draws)",
                 "met": "yes" if osu >= 0.93 else "no"})
    for dataset in ("ACSF1", "OSULeaf"):
        if dataset not in sec.index:
            continue
        ratio = sec.loc[dataset, chosen] / sec.loc[dataset, "minirocket"]
        rows.append({"target": f"{dataset}: fit ≤ 15× MiniRocket's, same run",
                     "measured": f"{ratio:.0f}× ({_f(sec.loc[dataset, chosen], 0)} s against "
                     f"{_f(sec.loc[dataset, 'minirocket'], 1)} s)",
                     "met": "yes" if ratio <= 15 else "no"})
    if chosen == INCUMBENT:
        rows.append({"target": "the default's fit no slower than today's on any set",
                     "measured": "the default is today's", "met": "yes"})
    else:
        slower = (sec[chosen] / sec[INCUMBENT]).dropna()
        rows.append({"target": "the default's fit no slower than today's on any set",
                     "measured": f"at most {slower.max():.2f}× today's ({slower.idxmax()})",
                     "met": "yes" if slower.max() <= 1.0 else "no"})
    # the round-1 candidates' detectable differences, per stage and over every cell
    arms = [a for a in ARMS if a != INCUMBENT]
    tests = verdict(_results())["arms"]
    stage_mdd = {stage: max(tests[a][stage]["mdd"] for a in arms) for stage in STAGES}
    pooled = max(paired(differences(table, a)["diff"])["mdd"] for a in arms)
    rows.append({
        "target": "the protocol detects 1.5 points or less",
        "measured": f"choice {stage_mdd['choice']:.1f}, confirmation "
        f"{stage_mdd['confirm']:.1f}, every cell {pooled:.1f} (the larger of the candidates)",
        "met": "yes" if max(*stage_mdd.values(), pooled) <= 1.5
        else ("on the choice and over every cell; not on the confirmation alone"
              if max(stage_mdd["choice"], pooled) <= 1.5 else "no"),
    })
    frame = pd.DataFrame(rows)
    return _md_table(frame, align=["l", "l", "l"]) + (
        f"\nThe default here is the arm the rule leaves: {LABELS[chosen]}.\n"
    )
