"""The generated regions of ``docs/kernel_regime.md``, from the committed results they cite."""

from __future__ import annotations

import json

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _pts, _study_rows

RESULTS = results_dir("kernel_regime")  # this study's committed results


# --------------------------------------------------------------------------------------
# the kernel regime (docs/kernel_regime.md): SpectralRidgeClassifier against MiniRocket

KERNEL_REGIME = RESULTS / "results.csv"


#: MiniRocket as sktime's RocketClassifier: official splits only, for its clock
KERNEL_WRAPPED = "minirocket"


def _kernel_ok(wrapped: bool = False) -> pd.DataFrame:
    """The ``ok`` cells of the run; RocketClassifier's only with ``wrapped``."""
    results = _csv(KERNEL_REGIME)
    ok = results[results["status"] == "ok"]
    return ok if wrapped else ok[ok["estimator"] != KERNEL_WRAPPED]


def _kernel_means() -> pd.DataFrame:
    """Mean accuracy over resamples: (dataset, ratio) × arm."""
    return _kernel_ok().pivot_table(
        index=["dataset", "ratio"], columns="estimator", values="accuracy", aggfunc="mean"
    )


def _kernel_seconds() -> tuple[pd.Series, pd.Series]:
    """Mean fit + predict seconds per model: over every cell, and over the official splits
    (resample 0, where RocketClassifier also ran)."""
    ok = _kernel_ok(wrapped=True).assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    official = ok[ok["resample"] == 0].groupby("estimator")["total"].mean()
    return ok.groupby("estimator")["total"].mean(), official


FAST_PATH_BENCH = RESULTS / "fast_path_bench.json"
FAST_PATH_REGRESSION = RESULTS / "fast_path_regression.csv"


def _kernel_dataset_seconds() -> pd.DataFrame:
    """Mean fit + predict seconds per dataset (rows) and arm (columns), every cell."""
    ok = _kernel_ok().assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    return ok.pivot_table(index="dataset", columns="estimator", values="total", aggfunc="mean")


def _bench_runs() -> pd.DataFrame:
    return pd.DataFrame(json.loads(FAST_PATH_BENCH.read_text())["runs"])

KERNEL_CHOICE_ROUNDS = {5: "transformer_defaults_round5", 6: "transformer_defaults_round6"}
KERNEL_CHOICE_LABELS = {
    "ridge": "bank (the transformer's earlier defaults, dt 0.001–0.1)",
    "ridge-lin": "bank, S4D-Lin",
    "ridge-scales": "two banks of 64: dt 0.001–0.1 and 0.1–1",
    "ridge-local": "local bank: dt 0.01–1",
    "local-lin": "local bank, S4D-Lin",
    "wide": "bank with dt 0.001–1",
    "minirocket": "MiniRocket alone (sktime's RocketClassifier)",
    "ridge+minirocket": "bank + MiniRocket",
    "ridge-lin+minirocket": "bank + MiniRocket, S4D-Lin",
    "local+minirocket": "local bank + MiniRocket",
    "local-lin+minirocket": "local bank + MiniRocket, S4D-Lin",
    "wide+minirocket": "bank with dt 0.001–1 + MiniRocket",
    "filtered-minirocket": "MiniRocket on the series and 8 TDI-filtered copies",
}
#: the benchmark arms of the kernel-regime run, in table order
KERNEL_ARMS = {
    "tdi+ridge+minirocket": "TDI + MiniRocket",
    "s4d-lin+ridge+minirocket": "S4D-Lin + MiniRocket",
    "tdi+ridge": "TDI bank",
    "s4d-lin+ridge": "S4D-Lin bank",
    "minirocket-ridge": "MiniRocket",
}


@region("kernel-choice")
def kernel_choice() -> str:
    """Rounds 5 and 6 of the training-split study: whole models, per protocol and dataset."""
    rows = []
    for number, name in KERNEL_CHOICE_ROUNDS.items():
        results = _csv(results_dir("tdi_studies") / f"{name}.csv")
        for config, row in _study_rows(results, KERNEL_CHOICE_LABELS, "model"):
            cells = results[results["config"] == config]
            predict = _f(cells["predict_seconds"].mean(), 2)
            rows.append({"round": number, **row, "predict s": predict})
    table = pd.DataFrame(rows)
    return _md_table(table, ["r", "l"] + ["r"] * (table.shape[1] - 2))


#: rounds 7-9 (issue 25): the one-line model against bare MiniRocket on the nine datasets
KERNEL_LINE_ROUNDS = {
    7: "transformer_defaults_round7",
    8: "transformer_defaults_round8",
    9: "transformer_defaults_round9",
    10: "transformer_defaults_round10",
    11: "transformer_defaults_round11",
}
KERNEL_LINE_LABELS = {
    "minirocket-ridge": "MiniRocket (transform + ridge head)",
    "ridge": "bank (the defaults)",
    "ridge-lin": "bank, S4D-Lin",
    "ridge-long-path": "bank, ridge penalties 1e-3–1e5",
    "ridge+minirocket": "bank + MiniRocket",
    "ridge+minirocket-long-path": "bank + MiniRocket, ridge penalties 1e-3–1e5",
    "ridge-mr+minirocket": "bank with MultiRocket's poolings + MiniRocket",
    "ridge+minirocket-w0.5": "bank (weight 0.5) + MiniRocket",
    "ridge+minirocket-w1.8": "bank (weight 1.8: blocks of equal variance) + MiniRocket",
    "ridge+minirocket-w3": "bank (weight 3) + MiniRocket",
    "multirocket-625": "MultiRocket, 625 kernels",
    "multirocket-1250": "MultiRocket, 1250 kernels",
    "ridge+multirocket-625": "bank + MultiRocket (625 kernels)",
    "ridge+minirocket+diff": "bank + MiniRocket of the series and of its difference",
    "ridge-float64": "bank, float64 features and head",
    "ridge+minirocket-float64": "bank + MiniRocket (and of the difference), float64",
    "ridge+minirocket-20k": "bank + MiniRocket, 10,000 features of each representation",
    "ridge+minirocket-10k": "bank + MiniRocket, 5,000 of each (the default)",
    "ridge+minirocket-6k": "bank + MiniRocket, 3,000 of each",
}


#: labels of a config whose meaning changed with the defaults: from round 10 on,
#: rocket="minirocket" also takes the first difference's MiniRocket, and the classifier runs
#: in float32
KERNEL_LINE_ROUND_LABELS = {
    (10, "ridge+minirocket"): "bank + MiniRocket (and of the difference), float32",
    (10, "ridge"): "bank, float32 features and head",
}


@region("kernel-line-choice")
def kernel_line_choice() -> str:
    """Rounds 7-9: each model against bare MiniRocket on the same training-split cells."""
    from scipy.stats import wilcoxon

    rows = []
    for number, name in KERNEL_LINE_ROUNDS.items():
        results = _csv(results_dir("tdi_studies") / f"{name}.csv").assign(
            total=lambda f: f["fit_seconds"] + f["predict_seconds"]
        )
        acc = results.pivot_table(
            index=["dataset", "protocol", "fold"], columns="config", values="accuracy"
        )
        seconds = results.pivot_table(index="dataset", columns="config", values="total")
        reference = "minirocket-ridge"
        for config in results["config"].unique():
            if config == reference:
                continue
            difference = acc[config] - acc[reference]
            nonzero = difference[difference != 0]
            p = wilcoxon(nonzero).pvalue if len(nonzero) else float("nan")
            per_protocol = acc[config].groupby(level="protocol").mean()
            rows.append(
                {
                    "round": number,
                    "model": KERNEL_LINE_ROUND_LABELS.get(
                        (number, config), KERNEL_LINE_LABELS.get(config, config)
                    ),
                    "cv": _f(per_protocol["cv"]),
                    "0.08": _f(per_protocol["ratio 0.08"]),
                    "0.16": _f(per_protocol["ratio 0.16"]),
                    "− MiniRocket (pts)": _pts(100 * difference.mean()),
                    "Wilcoxon p": f"{p:.2g}",
                    "time ÷ MiniRocket": _f((seconds[config] / seconds[reference]).mean(), 1),
                }
            )
    table = pd.DataFrame(rows)
    return _md_table(table, ["r", "l"] + ["r"] * (table.shape[1] - 2))


@region("kernel-cells")
def kernel_cells() -> str:
    results = _csv(KERNEL_REGIME)
    ok = results[results["status"] == "ok"]
    wrapped = ok["estimator"] == KERNEL_WRAPPED
    paired = (
        ok[ok["resample"] == 0]
        .pivot_table(index=["dataset", "ratio"], columns="estimator", values="accuracy")[
            [KERNEL_WRAPPED, "minirocket-ridge"]
        ]
        .dropna()
    )
    agree = int((paired[KERNEL_WRAPPED] == paired["minirocket-ridge"]).sum())
    return (
        f"One `sktdi benchmark` run (`benchmarks/kernel_regime/run_kernel_regime.sh`): {len(results)} cells "
        f"({len(ok)} `ok`), {results['dataset'].nunique()} datasets × ratios "
        f"{', '.join(f'{r:g}' for r in sorted(results['ratio'].unique()))} × "
        f"{results['resample'].nunique()} resamples (resample 0 is the official split) × "
        f"{len(KERNEL_ARMS)} models ({', '.join(KERNEL_ARMS.values())}), plus sktime's "
        f"RocketClassifier on the official splits ({int(wrapped.sum())} cells); every model "
        "saw the same training series in the same cell, and the test split is scored whole. "
        "RocketClassifier and MiniRocket's bare transform + ridge head agree on "
        f"{agree} of {len(paired)} of those cells.\n"
    )


@region("kernel-means")
def kernel_means() -> str:
    """Mean accuracy per ratio (datasets averaged after resamples), each arm."""
    means = _kernel_means()
    arms = [a for a in KERNEL_ARMS if a in means.columns]
    by_ratio = means.groupby(level="ratio").mean()
    rows = []
    for ratio, row in by_ratio.iterrows():
        out = {"ratio": f"{ratio:g}"}
        out.update({KERNEL_ARMS[a]: _f(row[a]) for a in arms})
        out["TDI + MiniRocket − MiniRocket"] = _pts(
            100 * (row["tdi+ridge+minirocket"] - row["minirocket-ridge"])
        )
        rows.append(out)
    overall = means.mean()
    out = {"ratio": "**all**"}
    out.update({KERNEL_ARMS[a]: _f(overall[a]) for a in arms})
    out["TDI + MiniRocket − MiniRocket"] = _pts(
        100 * (overall["tdi+ridge+minirocket"] - overall["minirocket-ridge"])
    )
    rows.append(out)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


def _kernel_gap_table(arm: str, reference: str) -> str:
    """Points ``arm − reference`` per dataset (rows) and ratio (columns)."""
    means = _kernel_means()
    gap = (100 * (means[arm] - means[reference])).unstack("ratio")
    out = gap.apply(lambda column: column.map(_pts))
    out.columns = [f"{r:g}" for r in gap.columns]
    out["mean"] = gap.mean(axis=1).map(_pts)
    out.loc["**mean**"] = [*gap.mean().map(_pts), _pts(gap.to_numpy().mean())]
    out = out.reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


@region("kernel-vs-minirocket")
def kernel_vs_minirocket() -> str:
    return _kernel_gap_table("tdi+ridge+minirocket", "minirocket-ridge")


@region("kernel-bank-vs-minirocket")
def kernel_bank_vs_minirocket() -> str:
    return _kernel_gap_table("tdi+ridge", "minirocket-ridge")


@region("kernel-alignment")
def kernel_alignment() -> str:
    """What the alignment adds: the TDI bank − the S4D-Lin bank with the same features."""
    means = _kernel_means()
    rows = []
    for dataset, frame in means.groupby(level="dataset"):
        small = frame[frame.index.get_level_values("ratio") <= 0.16]
        row = {"dataset": dataset}
        for arm, lin, label in (
            ("tdi+ridge", "s4d-lin+ridge", "bank"),
            ("tdi+ridge+minirocket", "s4d-lin+ridge+minirocket", "with MiniRocket"),
        ):
            row[f"{label}: ratios ≤ 0.16"] = _pts(100 * (small[arm] - small[lin]).mean())
            row[f"{label}: all ratios"] = _pts(100 * (frame[arm] - frame[lin]).mean())
            row[f"{label}: worst cell"] = _pts(100 * (frame[arm] - frame[lin]).min())
        rows.append(row)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("kernel-paired")
def kernel_paired() -> str:
    from sktdi.benchmark import wilcoxon_test, wins_ties_losses
    from sktdi.benchmark.summary import format_p_value

    results = _csv(KERNEL_REGIME)
    lines = []
    pairs = [
        ("tdi+ridge+minirocket", "minirocket-ridge"),
        ("tdi+ridge", "minirocket-ridge"),
        ("tdi+ridge+minirocket", "s4d-lin+ridge+minirocket"),
        ("tdi+ridge", "s4d-lin+ridge"),
    ]
    for a, b in pairs:
        for label, subset in (
            ("all ratios", results),
            ("ratios ≤ 0.08", results[results["ratio"] <= 0.08]),
        ):
            # a training set repeated at a larger ratio (the per-class floor) is one pair
            test = wilcoxon_test(subset, a, b)
            record = wins_ties_losses(subset, a).loc[b]
            lines.append(
                {
                    "model": KERNEL_ARMS[a],
                    "vs": KERNEL_ARMS[b],
                    "cells": label,
                    "pairs": int(test["n_pairs"]),
                    "mean difference (pts)": _pts(100 * test["mean_difference"]),
                    "wins/ties/losses": "/".join(str(int(v)) for v in record.iloc[:3]),
                    "Wilcoxon p": format_p_value(test["p_value"]),
                }
            )
    return _md_table(pd.DataFrame(lines), ["l", "l", "l", "r", "r", "r", "r"])


@region("kernel-timing")
def kernel_timing() -> str:
    """Seconds per cell (fit; predict on the whole test split), and fit + predict against
    MiniRocket bare (every cell) and wrapped as RocketClassifier (official splits)."""
    ok = _kernel_ok(wrapped=True)
    seconds = ok.groupby("estimator")[["fit_seconds", "predict_seconds"]].mean()
    total, official = _kernel_seconds()
    names = {**KERNEL_ARMS, KERNEL_WRAPPED: "MiniRocket as sktime's RocketClassifier"}
    rows = []
    for arm in [a for a in names if a in seconds.index]:
        every_cell = arm != KERNEL_WRAPPED
        rows.append(
            {
                "model": names[arm],
                "fit s": _f(seconds.loc[arm, "fit_seconds"], 2),
                "predict s": _f(seconds.loc[arm, "predict_seconds"], 2),
                "fit + predict s": _f(total[arm], 2),
                "÷ MiniRocket": _f(total[arm] / total["minirocket-ridge"], 1) if every_cell else "",
                "official splits: fit + predict s": _f(official[arm], 2),
                "÷ RocketClassifier": _f(official[arm] / official[KERNEL_WRAPPED], 2),
            }
        )
    return _md_table(pd.DataFrame(rows), ["l"] + ["r"] * 6)


BENCH_MODELS = {
    "tdi+ridge": "TDI bank",
    "tdi+ridge-float64": "TDI bank, float64 recurrence",
    "tdi+ridge+minirocket": "TDI + MiniRocket",
    "minirocket-ridge": "MiniRocket",
}


@region("kernel-speed")
def kernel_speed() -> str:
    """Fit + predict per dataset, each arm ÷ bare MiniRocket in the same cells."""
    seconds = _kernel_dataset_seconds()
    arms = ["tdi+ridge", "s4d-lin+ridge", "tdi+ridge+minirocket"]
    rows = []
    for dataset, row in seconds.iterrows():
        out = {"dataset": dataset, "MiniRocket s": _f(row["minirocket-ridge"], 2)}
        for arm in arms:
            out[f"{KERNEL_ARMS[arm]} ÷ MiniRocket"] = _f(row[arm] / row["minirocket-ridge"], 2)
        rows.append(out)
    ratios = seconds[arms].div(seconds["minirocket-ridge"], axis=0).mean()
    out = {"dataset": "**mean of ratios**", "MiniRocket s": _f(seconds["minirocket-ridge"].mean(), 2)}
    out.update({f"{KERNEL_ARMS[a]} ÷ MiniRocket": _f(ratios[a], 2) for a in arms})
    rows.append(out)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("kernel-memory")
def kernel_memory() -> str:
    """bench_fast_path.py: peak memory above the process's before the fit, and the clock."""
    runs = _bench_runs()
    runs = runs[runs["threads"] == runs["threads"].max()]
    peak = runs.pivot_table(index="dataset", columns="model", values="peak_increase_mib")
    seconds = runs.pivot_table(index="dataset", columns="model", values="fit_predict_s")
    rows = []
    for dataset in peak.index:
        out = {"dataset": dataset}
        for model in [m for m in BENCH_MODELS if m in peak.columns]:
            out[f"{BENCH_MODELS[model]}: peak MiB"] = _f(peak.loc[dataset, model], 0)
        for model in [m for m in BENCH_MODELS if m in seconds.columns]:
            if model != "minirocket-ridge":
                out[f"{BENCH_MODELS[model]}: time ÷ MiniRocket"] = _f(
                    seconds.loc[dataset, model] / seconds.loc[dataset, "minirocket-ridge"], 2
                )
        rows.append(out)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("kernel-bench-setup")
def kernel_bench_setup() -> str:
    report = json.loads(FAST_PATH_BENCH.read_text())
    runs = _bench_runs()
    return (
        f"`benchmarks/kernel_regime/bench_fast_path.py`, {report['started'][:10]}: each dataset's official "
        f"split, whole training set, {int(runs['threads'].max())} threads, one model at a time "
        f"in a fresh process (after one warm-up fit); time is the median of "
        f"{report['repeats']} fits + predictions; peak is the resident high-water mark above "
        "the process's resident memory before the fit.\n"
    )


RIDGE_REGRESSOR_PATH = RESULTS / "ridge_regressor_path.csv"
RIDGE_REGRESSOR_LABELS = {
    "default": "no clipping (before)",
    "path-1e5": "no clipping, ridge penalties 1e-3–1e5",
    "path-1e7": "no clipping, ridge penalties 1e-3–1e7",
    "default+minirocket": "no clipping, + MiniRocket",
    "path-1e5+minirocket": "no clipping, penalties 1e-3–1e5, + MiniRocket",
    "clip": "clipped to the training range (the default)",
    "clip+minirocket": "clipped, + MiniRocket",
    "minirocket": "sktime's RocketRegressor (MiniRocket)",
}


@region("ridge-regressor-path")
def ridge_regressor_path() -> str:
    """choose_ridge_regressor.py: 5-fold CV R² inside the training splits, mean and median."""
    results = _csv(RIDGE_REGRESSOR_PATH)
    rows = []
    for config, cells in results.groupby("config", sort=False):
        row = {"configuration": RIDGE_REGRESSOR_LABELS.get(config, config)}
        for dataset, frame in cells.groupby("dataset"):
            row[f"{dataset}: mean R²"] = f"{frame['r2'].mean():.3g}".replace("-", "−")
            row[f"{dataset}: median R²"] = f"{frame['r2'].median():.3f}".replace("-", "−")
        rows.append(row)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("kernel-regression")
def kernel_regression() -> str:
    """SpectralRidgeRegressor against sktime's MiniRocket regressor (field_regression.py)."""
    results = _csv(FAST_PATH_REGRESSION).assign(
        total=lambda f: f["fit_seconds"] + f["predict_seconds"]
    )
    names = {
        "tdi+ridge": "SpectralRidgeRegressor()",
        "s4d-lin+ridge": "SpectralRidgeRegressor(init=\"s4d-lin\")",
        "tdi+ridge+minirocket": "SpectralRidgeRegressor(rocket=\"minirocket\")",
        "minirocket": "sktime's RocketRegressor (MiniRocket)",
    }
    rows = []
    for (dataset, estimator), cells in results.groupby(["dataset", "estimator"], sort=False):
        rows.append(
            {
                "dataset": dataset,
                "model": names.get(estimator, estimator),
                "R² (mean ± std)": f"{cells['r2'].mean():.3f} ± {cells['r2'].std():.3f}",
                "resamples": len(cells),
                "fit + predict s": _f(cells["total"].mean(), 2),
            }
        )
    return _md_table(pd.DataFrame(rows), ["l", "l", "r", "r", "r"])


@region("kernel-targets")
def kernel_targets() -> str:
    """Issue 25's targets, each as measured in this run (and in bench_fast_path.py for memory
    and field_regression.py for the regressor)."""
    from sktdi.benchmark import wilcoxon_test

    means = _kernel_means()
    results = _csv(KERNEL_REGIME)
    seconds = _kernel_dataset_seconds()
    best = "tdi+ridge+minirocket"

    def verdict(met: bool) -> str:
        return "met" if met else "**missed**"

    rows = []
    bank_ratio = seconds["tdi+ridge"] / seconds["minirocket-ridge"]
    rows.append(
        (
            "`SpectralRidgeClassifier()` fit + predict ≤ 2× bare MiniRocket (mean over datasets)",
            f"{bank_ratio.mean():.2f}×",
            verdict(bank_ratio.mean() <= 2),
        )
    )
    worst = bank_ratio.idxmax()
    rows.append(
        (
            "… and ≤ 3× on every dataset",
            f"worst {worst} {bank_ratio.max():.2f}×",
            verdict(bank_ratio.max() <= 3),
        )
    )
    test = wilcoxon_test(results, best, "minirocket-ridge")
    gap = 100 * (means[best].mean() - means["minirocket-ridge"].mean())
    rows.append(
        (
            "best one-line model (`rocket=\"minirocket\"`) ≥ MiniRocket + 1 pt, Wilcoxon p < 0.05",
            f"{_pts(gap)} pts, p {test['p_value']:.2g}",
            verdict(gap >= 1 and test["p_value"] < 0.05),
        )
    )
    best_ratio = seconds[best] / seconds["minirocket-ridge"]
    rows.append(
        (
            "… its fit + predict ≤ 3× bare MiniRocket (mean over datasets)",
            f"{best_ratio.mean():.2f}× (worst {best_ratio.idxmax()} {best_ratio.max():.2f}×)",
            verdict(best_ratio.mean() <= 3),
        )
    )
    lead = 100 * (means["tdi+ridge"] - means["s4d-lin+ridge"])
    per_dataset = lead.groupby(level="dataset").mean()
    rows.append(
        (
            "TDI bank − S4D-Lin bank ≥ +1 pt over all cells",
            f"{lead.mean():+.2f} pts".replace("-", "−"),
            verdict(lead.mean() >= 1),
        )
    )
    rows.append(
        (
            "… and never below −1 pt on a dataset",
            f"worst {per_dataset.idxmin()} {_pts(per_dataset.min())}",
            verdict(per_dataset.min() >= -1),
        )
    )
    runs = _bench_runs()
    peak = runs.pivot_table(index="dataset", columns="model", values="peak_increase_mib")
    over = peak["tdi+ridge"] - peak["minirocket-ridge"]
    rows.append(
        (
            "`SpectralRidgeClassifier()` peak memory ≤ MiniRocket's (every dataset)",
            f"largest excess {over.idxmax()} {over.max():+.0f} MiB",
            verdict(bool((over <= 0).all())),
        )
    )
    regression = _csv(FAST_PATH_REGRESSION).groupby(["dataset", "estimator"])["r2"].mean()
    for dataset in regression.index.get_level_values("dataset").unique():
        ours, theirs = regression[dataset, "tdi+ridge"], regression[dataset, "minirocket"]
        rows.append(
            (
                f"`SpectralRidgeRegressor()` R² ≥ sktime's MiniRocket regressor on {dataset}",
                f"{ours:.3f} against {theirs:.3f}".replace("-", "−"),
                verdict(ours >= theirs),
            )
        )
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", "status"]), ["l", "r", "l"])


#: (what was added, results file, with it, without it): pairs of training-split configs
KERNEL_FAMILIES = [
    ("first difference", "transformer_defaults_round4", "rel-diff", "rel"),
    ("MultiRocket's four poolings", "transformer_defaults_round4", "rel-mr", "rel"),
    ("local bank (dt 0.01–1)", "transformer_defaults_round5", "ridge-local", "ridge"),
    ("two banks (dt 0.001–0.1 and 0.1–1)", "transformer_defaults_round5", "ridge-scales", "ridge"),
    ("MiniRocket beside the bank", "transformer_defaults_round5", "ridge+minirocket", "ridge"),
    ("the bank beside MiniRocket", "transformer_defaults_round5", "ridge+minirocket", "minirocket"),
    (
        "TDI-filtered copies as MiniRocket's input",
        "transformer_defaults_round5",
        "filtered-minirocket",
        "minirocket",
    ),
    ("the alignment (TDI vs S4D-Lin bank)", "transformer_defaults_round5", "ridge", "ridge-lin"),
    (
        "the alignment, with MiniRocket",
        "transformer_defaults_round5",
        "ridge+minirocket",
        "ridge-lin+minirocket",
    ),
    ("the alignment, local bank", "transformer_defaults_round6", "ridge-local", "local-lin"),
]


@region("kernel-families")
def kernel_families() -> str:
    """What each feature family added on the training splits: accuracy with − without, in
    points, per protocol, and the datasets where it helped and hurt most."""
    rows = []
    for label, name, with_it, without in KERNEL_FAMILIES:
        results = _csv(results_dir("tdi_studies") / f"{name}.csv")
        acc = results.pivot_table(
            index=["protocol", "dataset"], columns="config", values="accuracy", aggfunc="mean"
        )
        gain = 100 * (acc[with_it] - acc[without])
        by_protocol = gain.groupby(level="protocol").mean()
        by_dataset = gain.groupby(level="dataset").mean()
        row = {"added": label, "round": name.rsplit("round", 1)[-1]}
        for protocol in ["cv", "ratio 0.08", "ratio 0.16"]:
            row[protocol.replace("ratio ", "")] = _pts(by_protocol[protocol])
        row["mean"] = _pts(gain.mean())
        row["most help"] = f"{by_dataset.idxmax()} {_pts(by_dataset.max())}"
        row["most harm"] = f"{by_dataset.idxmin()} {_pts(by_dataset.min())}"
        rows.append(row)
    table = pd.DataFrame(rows)
    return _md_table(table, ["l", "r", "r", "r", "r", "r", "l", "l"])


@region("fast-path-minirocket-claim")
def fast_path_minirocket_claim() -> str:
    """Where the fast path with MiniRocket's features is ahead of MiniRocket alone, by dataset:
    a claim that names the data it holds on (the documentation's landing page)."""
    means = _kernel_means()
    gap = (means["tdi+ridge+minirocket"] - means["minirocket-ridge"]).groupby(level="dataset").mean()
    ahead = sorted(gap[gap > 0].index)
    behind = sorted(gap[gap <= 0].index)
    cells = means["tdi+ridge+minirocket"] - means["minirocket-ridge"]
    return (
        f"`SpectralRidgeClassifier(rocket=\"minirocket\")`, the aligned filters with MiniRocket's "
        f"features, is ahead of MiniRocket alone in mean accuracy on {len(ahead)} of the "
        f"{len(gap)} datasets of [the fast path's study](kernel_regime.md) ({', '.join(ahead)}; "
        f"by {_pts(100 * gap.max())} points at most, on {gap.idxmax()}), and level or behind on "
        f"{', '.join(behind) or 'none'} ({int((cells > 0).sum())} of {len(cells)} (dataset, "
        f"ratio) cells ahead, 5 resamples each).\n"
    )
