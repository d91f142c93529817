"""The generated regions of ``docs/one_model.md``: the one-model study
(benchmarks/one_model/one_model.py; results/one_model.csv and the long-series runner's
results/long_seed*.csv)."""

from __future__ import annotations

import pandas as pd

from ..shared.paired import MDD_SE
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _interval, _md_table, _pts
from .one_model import (
    CHOICE,
    CHOICE_MARGIN,
    CHOICE_WORST,
    CONFIRM_MARGIN,
    CONFIRM_WORST,
    CONFIRMATION,
    COST_RATIO,
    PERTURBATIONS,
    RAW_DRAWS,
    RAW_SETS,
    RAW_WORST,
    REGRESSION,
    verdict,
)

RESULTS = results_dir("one_model") / "one_model.csv"
LONG = sorted(results_dir("one_model").glob("long_seed*.csv"))
LABELS = {
    "combined": "SSMClassifier() (with its fast path)",
    "network": "the network alone (fast_path=False)",
    "fast-path-minirocket": 'SpectralRidgeClassifier(rocket="minirocket")',
    "minirocket": "MiniRocket (sktime)",
    "minirocket-ridge": "MiniRocket, transform and ridge",
    "combined-series+scale": 'SSMClassifier(input_scaling="series+scale")',
}


def _results() -> pd.DataFrame:
    return _csv(RESULTS)


def _clean() -> pd.DataFrame:
    table = _results()
    return table[(table["task"] == "classification") & (table["perturbation"] == "clean")]


@region("one-model-verdict")
def one_model_verdict() -> str:
    """The declared rule's tests, each with its interval and detectable difference."""
    result = verdict(_results())
    rows = []
    for stage, name in (("choice", "choice"), ("confirm", "confirmation")):
        for against, test in result[stage].items():
            if not test["n"]:
                continue
            rows.append({
                "stage": name, "SSMClassifier() against": against.removeprefix("vs "),
                "cells": test["n"], "difference, points [95% interval]": _interval(test),
                "Wilcoxon p": _f(test["p"], 3), "detectable": f"{test['mdd']:.1f}",
                "worst set": f"{_pts(test['worst_set'])} ({test['worst_set_name']})",
                "target": "yes" if test.get("holds") else ("no" if "holds" in test else "—"),
            })
    return _md_table(pd.DataFrame(rows)) + (
        f"\nTargets: on the choice sets ≥ the fast path with MiniRocket's features − "
        f"{CHOICE_MARGIN} on the mean, no set more than {CHOICE_WORST:.0f} below it, and ≥ "
        f"MiniRocket on the mean; on the confirmation sets ≥ MiniRocket − {CONFIRM_MARGIN:.0f} "
        f"on the mean, no set more than {CONFIRM_WORST:.0f} below it (— : reported, no target). "
        f"\"Detectable\" is {MDD_SE} standard errors of the mean difference (a two-sided test "
        "at 5% with 80% power).\n"
    )


@region("one-model-sets")
def one_model_sets() -> str:
    """Mean accuracy and fit seconds over the draws, per set and arm."""
    table = _clean()
    acc = table.pivot_table(index="dataset", columns="arm", values="score", aggfunc="mean")
    sec = table.pivot_table(index="dataset", columns="arm", values="fit_seconds", aggfunc="mean")
    draws = table[table["arm"] == "combined"].groupby("dataset")["resample"].nunique()
    adds = table[table["arm"] == "combined"].groupby("dataset")["network_adds"].mean()
    ratio = _fit_ratio()
    arms = ("combined", "network", "fast-path-minirocket", "minirocket")
    rows = []
    for dataset in (*CHOICE, *CONFIRMATION):
        if dataset not in acc.index:
            continue
        row = {"set": dataset, "stage": "choice" if dataset in CHOICE else "confirmation",
               "draws": int(draws.get(dataset, 0))}
        for arm in arms:
            value = acc.loc[dataset].get(arm)
            row[LABELS[arm]] = _f(value) if pd.notna(value) else "—"
        row["network adds (share of draws)"] = _f(adds.get(dataset), 2)
        row["fit s: SSMClassifier() / MiniRocket (sktime) / its transform and ridge"] = " / ".join(
            _f(sec.loc[dataset].get(arm), 1) for arm in ("combined", "minirocket",
                                                          "minirocket-ridge")
        )
        row["fit ×MiniRocket"] = _f(ratio.get(dataset), 1)
        rows.append(row)
    network = acc.get("network")
    n_network = 0 if network is None else int(network.notna().sum())
    return _md_table(pd.DataFrame(rows)) + (
        "\nMean accuracy over each set's draws (resample 0 the official split); the network "
        f"alone ran on the first draw of {n_network} sets, and its column is that draw. "
        "\"Network adds\": the share of draws where an epoch of the network beat the fast path "
        "on the held-out fifth (elsewhere the model is its fast path, and its fit stopped "
        "after 10 epochs). Fit seconds on one thread, two fits at a time; the target is ≤ "
        f"{COST_RATIO:.0f}× MiniRocket (sktime's clock, as issue 66 measured it), the mean "
        "over the draws of each draw's ratio.\n"
    )


def _long() -> pd.DataFrame | None:
    if not LONG:
        return None
    return pd.concat([_csv(path) for path in LONG], ignore_index=True)


@region("one-model-long")
def one_model_long() -> str:
    """The long-series study's tasks: the one model, the network alone, MiniRocket."""
    table = _long()
    if table is None:
        return "Not run yet (the long-series runner's command in the study's README).\n"
    acc = table.pivot_table(index=["task", "length"], columns="model", values="accuracy",
                            aggfunc="mean")
    sec = table.pivot_table(index=["task", "length"], columns="model", values="fit_seconds",
                            aggfunc="mean")
    seeds = table.groupby(["task", "length"])["seed"].nunique()
    rows = []
    for (task, length), row in acc.iterrows():
        rows.append({
            "task": task, "length": length, "seeds": int(seeds.loc[task, length]),
            "SSMClassifier()": _f(row.get("ssm")),
            "network alone": _f(row.get("ssm-network")),
            "MiniRocket": _f(row.get("minirocket")),
            "one − network": _pts(100 * (row.get("ssm") - row.get("ssm-network"))),
            "fit s: one / network / MiniRocket": " / ".join(
                _f(sec.loc[(task, length)].get(m), 1) for m in ("ssm", "ssm-network", "minirocket")
            ),
        })
    mean = acc.mean()
    return _md_table(pd.DataFrame(rows)) + (
        f"\nMean over the cells: SSMClassifier() {_f(mean.get('ssm'))}, the network alone "
        f"{_f(mean.get('ssm-network'))}, MiniRocket {_f(mean.get('minirocket'))} "
        f"({_pts(100 * (mean.get('ssm') - mean.get('minirocket')))} points from MiniRocket). "
        "Targets: no task below the network alone by more than 2 points; the mean ≥ MiniRocket "
        "+ 10. 4 training series per class: too few to hold out a fifth (2 per class), so the "
        "network trains on all of them from the fast path's outputs, for the study's 50 "
        "epochs.\n"
    )


@region("one-model-raw")
def one_model_raw() -> str:
    """Each perturbation's accuracy against the clean set's, per arm (official splits' draws)."""
    table = _results()
    # the raw stage's draws: the clean sets' other draws (the choice's) are not compared
    table = table[table["dataset"].isin(RAW_SETS) & (table["task"] == "classification")
                  & (table["resample"] < RAW_DRAWS)]
    arms = ("combined", "combined-series+scale", "minirocket")
    means = table.pivot_table(index=["dataset", "perturbation"], columns="arm", values="score",
                              aggfunc="mean")
    rows = []
    for dataset in RAW_SETS:
        for kind in PERTURBATIONS:
            if (dataset, kind) not in means.index:
                continue
            row = {"set": dataset, "perturbation": kind}
            for arm in arms:
                value = means.loc[(dataset, kind)].get(arm)
                clean = means.loc[(dataset, "clean")].get(arm) if arm != "minirocket" else None
                text = _f(value) if pd.notna(value) else "—"
                if kind != "clean" and clean is not None and pd.notna(value):
                    text += f" ({_pts(100 * (value - clean))})"
                row[LABELS[arm]] = text
            rows.append(row)
    if not rows:
        return "Not run yet.\n"
    limits = ", ".join(f"{k} {v:.0f}" for k, v in RAW_WORST.items())
    return _md_table(pd.DataFrame(rows)) + (
        f"\nMean accuracy over {RAW_DRAWS} draws; in brackets, points from the same model on the clean "
        f"set. Targets, per set: within {limits} points of clean. MiniRocket (its clean "
        "accuracy is in the sets' table) reads every series as given.\n"
    )


@region("one-model-regression")
def one_model_regression() -> str:
    table = _results()
    table = table[table["task"] == "regression"]
    if table.empty:
        return "Not run yet.\n"
    means = table.pivot_table(index="dataset", columns="arm", values="score", aggfunc="mean")
    n = table.groupby("dataset")["resample"].nunique()
    rows = [{
        "set": d, "draws": int(n.loc[d]),
        "SSMRegressor() (with its fast path)": _f(means.loc[d].get("combined")),
        "the network alone": _f(means.loc[d].get("network")),
        "MiniRocket's ridge regressor": _f(means.loc[d].get("minirocket")),
        "one − MiniRocket": f"{means.loc[d].get('combined') - means.loc[d].get('minirocket'):+.3f}",
    } for d in REGRESSION if d in means.index]
    return _md_table(pd.DataFrame(rows)) + (
        "\nMean R² over the draws. Targets: ≥ MiniRocket's − 0.02 on Tecator and − 0.03 on "
        "Covid3Month.\n"
    )


def _set_means(stage: str) -> pd.DataFrame:
    table = _clean()
    table = table[table["stage"] == stage]
    return table.pivot_table(index="dataset", columns="arm", values="score", aggfunc="mean")


def _fit_ratio() -> pd.Series:
    """SSMClassifier()'s fit over MiniRocket's (sktime's clock), per set, mean of draws."""
    table = _clean()
    sec = table.pivot_table(index=["dataset", "resample"], columns="arm", values="fit_seconds")
    return (sec["combined"] / sec["minirocket"]).groupby("dataset").mean()


@region("one-model-summary")
def one_model_summary() -> str:
    """The decision page's sentence on the one model, from this study's results."""
    choice, confirm = _set_means("choice"), _set_means("confirm")
    ratio = _fit_ratio()
    text = (
        f"On resampled draws of {len(choice)} shipped sets ([One model](one_model.md)), "
        f"`SSMClassifier()` scored {_f(choice['combined'].mean())} on the mean, the fast path "
        f"with MiniRocket's features {_f(choice['fast-path-minirocket'].mean())} and "
        f"MiniRocket {_f(choice['minirocket'].mean())}; on {len(confirm)} sets no choice read, "
        f"{_f(confirm['combined'].mean())} against MiniRocket's "
        f"{_f(confirm['minirocket'].mean())}. Its fit took {ratio.min():.1f}× to "
        f"{ratio.max():.1f}× MiniRocket's (sktime's) on these sets."
    )
    long = _long()
    if long is not None:
        acc = long.pivot_table(index=["task", "length"], columns="model", values="accuracy",
                               aggfunc="mean").mean()
        text += (
            f" On long recordings (audio-like tasks of 1,000 and 4,000 steps, 4 series per "
            f"class) it scored {_f(acc.get('ssm'))}, the network alone "
            f"{_f(acc.get('ssm-network'))} and MiniRocket {_f(acc.get('minirocket'))}."
        )
    return text + "\n"


@region("one-model-minirocket")
def one_model_minirocket() -> str:
    """Where MiniRocket alone is the better choice, from this study's per-set gaps and fits."""
    sets = pd.concat([_set_means("choice"), _set_means("confirm")])
    gaps = 100 * (sets["combined"] - sets["minirocket"])
    behind = gaps[gaps < -1].sort_values()
    ratio = _fit_ratio()
    where = (
        "on every set measured it was within a point of MiniRocket or ahead"
        if behind.empty else
        "it was more than a point behind MiniRocket on "
        + ", ".join(f"{d} ({_pts(g)})" for d, g in behind.items())
    )
    return (
        f"**Where MiniRocket is the better choice.** `SSMClassifier()` contains MiniRocket's "
        f"features, and {where} ([One model](one_model.md)); its fit took "
        f"{ratio.min():.1f}× to {ratio.max():.1f}× sktime's MiniRocket's. Where the "
        "fit's time matters more than the last point, or you need nothing sktdi adds (a "
        "spectral prior, unequal lengths, safe saving, a GPU, streams), sktime's MiniRocket "
        "alone, or `SpectralRidgeClassifier(rocket=\"minirocket\")` without a training loop, "
        "is the lighter model.\n"
    )
