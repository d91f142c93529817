"""The generated regions of ``docs/field.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _cv_round, _f, _md_table, _pts

RESULTS = results_dir("field")  # this study's committed results



# --------------------------------------------------------------------------------------
# issue 13: the recipe study (benchmarks/field/choose_recipe.py) and the field run (docs/field.md)

RECIPE_LABELS = {
    "base": "defaults before the study (causal, mean pooling)",
    "bi": "bidirectional",
    "bi-max": "bidirectional, max pooling",
    "bi-meanmax": "bidirectional, mean+max pooling",
    "bi-meanmax-aug": "bidirectional, mean+max, all augmentations",
    "bi-meanmax-jitscale": "bidirectional, mean+max, jitter+scale",
    "bi-meanmax-ens3": "bidirectional, mean+max, 3-network ensemble",
    "bi-meanmax-3layers": "bidirectional, mean+max, 3 layers",
    "bi-meanmax-d128": "bidirectional, mean+max, d_model 128",
    "bi-meanmax-epochs50": "bidirectional, mean+max, 50 epochs",
    "bi-meanmax-epochs200": "bidirectional, mean+max, 200 epochs",
    "bi-meanmax-prenorm": "bidirectional, mean+max, pre-norm",
    "bi-meanmax-dropout0.2": "bidirectional, mean+max, dropout 0.2",
    "bi-meanmax-es": "bidirectional, mean+max, early stopping (20% held out)",
    "bi-meanmax-lin": "bidirectional, mean+max, S4D-Lin",
    "dtmax1": "dt_max 1",
    "dt1e-2-1": "dt in [1e-2, 1]",
    "bi-meanmax-dtmax1": "bidirectional, mean+max, dt_max 1",
    "dtmax1-meanmax": "**mean+max pooling, dt_max 1** (chosen)",
    "dtmax1-aug": "dt_max 1, all augmentations",
    "bi-meanmax-aug-dtmax1": "bidirectional, mean+max, all augmentations, dt_max 1",
}
RECIPE_CHOSEN = "dtmax1-meanmax"
FIELD = RESULTS / "field_results.csv"
FIELD_REGRESSION = results_dir("kernel_regime") / "field_regression_results.csv"
ANCHORS = RESULTS / "published_anchors.csv"
FIELD_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-lin": "S4D-Lin",
    "tdi-control": "TDI control",
    "minirocket": "MiniRocket",
}


def _recipe_table(results, sort_by: str = "avg rank") -> str:
    table = _cv_round(results, value="score", labels=RECIPE_LABELS, sort_by=sort_by)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("recipe-round-a")
def recipe_round_a() -> str:
    return _recipe_table(RESULTS / "recipe_study_roundA.csv")


@region("recipe-osuleaf")
def recipe_osuleaf() -> str:
    return _recipe_table(RESULTS / "recipe_study_osuleaf.csv")


@region("recipe-combined")
def recipe_combined() -> str:
    """Rounds A and B together (same folds, same seeds), by mean CV accuracy: the rule."""
    rounds = [_csv(RESULTS / f"recipe_study_round{name}.csv") for name in ("A", "B")]
    both = pd.concat(rounds)
    return _recipe_table(both, sort_by="mean")


@region("recipe-regression")
def recipe_regression() -> str:
    chosen = RECIPE_LABELS[RECIPE_CHOSEN]
    return _recipe_table(RESULTS / "recipe_study_regression.csv", sort_by="mean").replace(
        chosen, "mean+max pooling, dt_max 1 (the classifier's choice)"
    )


def _field_ok() -> pd.DataFrame:
    results = _csv(FIELD)
    return results[results["status"] == "ok"]


def _field_stats(ratio: float) -> pd.DataFrame:
    """sktdi's resample mean/std/n per (dataset, estimator) at one training ratio."""
    from sktdi.benchmark.summary import resample_mean_std

    return resample_mean_std(_csv(FIELD)).xs(ratio, level="ratio")


def _field_means(ratio: float) -> pd.DataFrame:
    """Mean accuracy over resamples, dataset × estimator, at one training ratio."""
    return _field_stats(ratio)["mean"].unstack("estimator")


def _mean_std(ratio: float, estimator: str) -> pd.Series:
    stats = _field_stats(ratio).xs(estimator, level="estimator")
    return stats["mean"].map(_f) + " ± " + stats["std"].map(_f)


@region("field-cells")
def field_cells() -> str:
    results = _csv(FIELD)
    ok = results[results["status"] == "ok"]
    return (
        f"One `sktdi benchmark` run: {len(results)} cells ({len(ok)} `ok`), "
        f"{results['dataset'].nunique()} datasets × ratios "
        f"{', '.join(f'{r:g}' for r in sorted(results['ratio'].unique()))} × "
        f"{results['resample'].nunique()} resamples (resample 0 is the official split) × "
        f"estimators {', '.join(sorted(results['estimator'].unique()))}; every estimator saw the "
        "same training series in the same cell.\n"
    )


@region("field-full")
def field_full() -> str:
    means = _field_means(1.0)
    anchors = _csv(ANCHORS).pivot_table(index="dataset", columns="model", values="accuracy")
    out = pd.DataFrame(index=means.index)
    for estimator in ("tdi", "minirocket"):
        out[FIELD_NAMES[estimator]] = _mean_std(1.0, estimator)
    gap = 100 * (means["tdi"] - means["minirocket"])
    out["default − MiniRocket (pts)"] = gap.map(_pts)
    for model in ("ResNet", "InceptionTime"):
        out[f"{model} (published)"] = anchors[model].reindex(out.index).map(_f)
    out.loc["**mean**"] = pd.Series(
        {
            FIELD_NAMES["tdi"]: _f(means["tdi"].mean()),
            FIELD_NAMES["minirocket"]: _f(means["minirocket"].mean()),
            "default − MiniRocket (pts)": _pts(gap.mean()),
        }
    )
    out = out.fillna("").reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] * out.shape[1])


@region("field-official")
def field_official() -> str:
    ok = _field_ok()
    cells = ok[(ok["ratio"] == 1.0) & (ok["resample"] == 0)]
    table = cells.pivot_table(index="dataset", columns="estimator", values="accuracy")
    names = [e for e in FIELD_NAMES if e in table.columns]
    out = pd.DataFrame({FIELD_NAMES[e]: table[e].map(_f) for e in names})
    out.loc["**mean**"] = {FIELD_NAMES[e]: _f(table[e].mean()) for e in names}
    out = out.reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] + ["r"] * len(names))


@region("field-small")
def field_small() -> str:
    rows = []
    for ratio in (0.08, 0.16):
        means = _field_means(ratio)
        row = {"ratio": f"{ratio:g}"}
        for estimator in [e for e in FIELD_NAMES if e in means.columns]:
            row[FIELD_NAMES[estimator]] = _f(means[estimator].mean())
        gap = 100 * (means["tdi"] - means["minirocket"])
        row["default − MiniRocket (pts)"] = _pts(gap.mean())
        rows.append(row)
    return _md_table(pd.DataFrame(rows), None)


@region("field-paired")
def field_paired() -> str:
    from sktdi.benchmark import wilcoxon_test, wins_ties_losses
    from sktdi.benchmark.summary import format_p_value

    results = _csv(FIELD)
    lines = []
    present = set(results["estimator"])
    for baseline in [b for b in ("minirocket", "s4d-lin", "tdi-control") if b in present]:
        for label, subset in (
            ("full training sets", results[results["ratio"] == 1.0]),
            ("ratios 0.08–0.16", results[results["ratio"] < 1.0]),
        ):
            test = wilcoxon_test(subset, "tdi", baseline, merge_duplicates=False)
            wtl = wins_ties_losses(subset, "tdi")
            record = wtl.loc[baseline] if baseline in wtl.index else None
            counts = (
                ""
                if record is None
                else f"{int(record.iloc[0])}/{int(record.iloc[1])}/{int(record.iloc[2])}"
            )
            lines.append(
                {
                    "default vs": FIELD_NAMES.get(baseline, baseline),
                    "cells": label,
                    "pairs": int(test["n_pairs"]),
                    "mean difference (pts)": _pts(100 * test["mean_difference"]),
                    "wins/ties/losses": counts,
                    "Wilcoxon p": format_p_value(test["p_value"]),
                }
            )
    return _md_table(pd.DataFrame(lines), ["l", "l", "r", "r", "r", "r"])


@region("field-fit-times")
def field_fit_times() -> str:
    ok = _field_ok()
    full = ok[ok["ratio"] == 1.0]
    seconds = full.pivot_table(
        index="dataset", columns="estimator", values="fit_seconds", aggfunc="mean"
    )
    out = pd.DataFrame(index=seconds.index)
    for estimator in [e for e in FIELD_NAMES if e in seconds.columns]:
        out[f"{FIELD_NAMES[estimator]} (s)"] = seconds[estimator].map(lambda v: _f(v, 1))
    out["default ÷ MiniRocket"] = (seconds["tdi"] / seconds["minirocket"]).map(lambda v: _f(v, 1))
    mean = seconds.mean()
    out.loc["**mean**"] = {
        f"{FIELD_NAMES[e]} (s)": _f(mean[e], 1) for e in FIELD_NAMES if e in mean
    }
    out.loc["**mean**", "default ÷ MiniRocket"] = _f(mean["tdi"] / mean["minirocket"], 1)
    out = out.fillna("").reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


@region("field-targets")
def field_targets() -> str:
    full, small = _field_means(1.0), pd.concat([_field_means(0.08), _field_means(0.16)])
    gap = 100 * (full["tdi"] - full["minirocket"])
    worst = gap.idxmin()
    small_gap = 100 * (small["tdi"] - small["minirocket"]).mean()
    osu = full["tdi"].get("OSULeaf", float("nan"))
    ok = _field_ok()
    seconds = ok[ok["ratio"] == 1.0].groupby(["estimator", "dataset"])["fit_seconds"].mean()
    cost = seconds["tdi"].mean() / seconds["minirocket"].mean()
    reg = _csv(FIELD_REGRESSION).groupby(["dataset", "estimator"])["r2"].mean().unstack()

    def verdict(met: bool) -> str:
        return "met" if met else "**missed**"

    rows = [
        (
            "full data: mean ≥ MiniRocket − 1 pt",
            f"{_pts(gap.mean())} pts",
            verdict(gap.mean() >= -1),
        ),
        (
            "full data: no dataset > 3 pts behind",
            f"worst {worst} {_pts(gap.min())} pts",
            verdict(gap.min() >= -3),
        ),
        ("full data: OSULeaf ≥ 0.93", _f(osu), verdict(osu >= 0.93)),
        (
            "ratios 0.08–0.16: mean ≥ MiniRocket − 3 pts",
            f"{_pts(small_gap)} pts",
            verdict(small_gap >= -3),
        ),
        ("fit time ≤ 15× MiniRocket (mean, full data)", f"{cost:.1f}×", verdict(cost <= 15)),
    ]
    for dataset in reg.index:
        rows.append(
            (
                f"{dataset}: SSMRegressor R² ≥ MiniRocket regressor",
                f"{_f(reg.loc[dataset, 'tdi'])} vs {_f(reg.loc[dataset, 'minirocket'])}",
                verdict(reg.loc[dataset, "tdi"] >= reg.loc[dataset, "minirocket"]),
            )
        )
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", "status"]), ["l", "r", "l"])


@region("field-regression")
def field_regression() -> str:
    results = _csv(FIELD_REGRESSION)
    grouped = results.groupby(["dataset", "estimator"])
    r2 = grouped["r2"].agg(["mean", "std"])
    seconds = grouped["fit_seconds"].mean()
    rows = []
    for (dataset, estimator), row in r2.iterrows():
        rows.append(
            {
                "dataset": dataset,
                "estimator": FIELD_NAMES.get(estimator, estimator).replace(
                    "Classifier", "Regressor"
                ),
                "R² (mean ± std)": f"{_f(row['mean'])} ± {_f(row['std'])}",
                "fit s": _f(seconds[(dataset, estimator)], 1),
                "resamples": int(grouped.size()[(dataset, estimator)]),
            }
        )
    return _md_table(pd.DataFrame(rows), ["l", "l", "r", "r", "r"])
