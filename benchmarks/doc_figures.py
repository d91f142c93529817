"""Every measured figure in the docs, generated from the committed results files.

A page keeps each measured figure inside a marked region::

    <!-- generated: default-benchmark-summary -->
    ...Markdown written by the function registered under that name...
    <!-- end generated -->

Each region name maps to one function below that reads committed results (``docs/data/``,
``docs/study/``) and returns the region's Markdown.

    python benchmarks/doc_figures.py           # rewrite every region in place
    python benchmarks/doc_figures.py --check   # exit 1 and list the regions that differ

After a new default benchmark run (``sktdi benchmark --out runs/default``), copy its
``results.csv`` to ``docs/data/default_benchmark_results.csv`` and run this script: the
benchmark page's tables, ranks, wins/ties/losses and Wilcoxon tests follow.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = DOCS / "data"
STUDY = DOCS / "study"

#: the pages that may hold generated regions
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]

REGION = re.compile(
    r"(?P<start><!-- generated: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(?P<end><!-- end generated -->)",
    re.DOTALL,
)

GENERATORS: dict[str, Callable[[], str]] = {}

# pages whose generators live in a module of their own (benchmarks/figures_*.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures_transfer import REGIONS as TRANSFER_REGIONS  # noqa: E402
from figures_transfer import confirmation_clause  # noqa: E402

from figures_structure import REGIONS as STRUCTURE_REGIONS  # noqa: E402

GENERATORS.update(TRANSFER_REGIONS)
GENERATORS.update(STRUCTURE_REGIONS)


def region(name: str):
    """Register the function that writes the region ``name``."""

    def register(func):
        GENERATORS[name] = func
        return func

    return register


@lru_cache(maxsize=None)
def _csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


def _md_table(frame: pd.DataFrame, align: list[str] | None = None) -> str:
    """A pipe table; ``align`` per column: 'l' or 'r' (default: r for numbers)."""
    columns = list(frame.columns)
    if align is None:
        align = ["r" if pd.api.types.is_numeric_dtype(frame[c]) else "l" for c in columns]
    lines = [
        "| " + " | ".join(str(c) for c in columns) + " |",
        "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |",
    ]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _f(value: float, digits: int = 3) -> str:
    return "" if pd.isna(value) else f"{value:.{digits}f}"


def _pts(value: float) -> str:
    """Accuracy difference in points, signed, one decimal (minus sign as on the pages)."""
    return f"{value:+.1f}".replace("-", "−")


# --------------------------------------------------------------------------------------
# the default benchmark (docs/benchmark.md): sktdi's own summary of the committed table


@region("default-benchmark-summary")
def default_benchmark_summary() -> str:
    from sktdi.benchmark import format_summary, summarize

    results = _csv(DATA / "default_benchmark_results.csv")
    return "```text\n" + format_summary(summarize(results)).rstrip() + "\n```\n"


@region("default-benchmark-size")
def default_benchmark_size() -> str:
    results = _csv(DATA / "default_benchmark_results.csv")
    ok = int((results["status"] == "ok").sum())
    return (
        f"The committed table has {len(results)} cells ({ok} `ok`): "
        f"{results['dataset'].nunique()} datasets × {results['ratio'].nunique()} ratios × "
        f"{results['resample'].nunique()} resamples × {results['estimator'].nunique()} estimators.\n"
    )


# --------------------------------------------------------------------------------------
# SSMClassifier's defaults (benchmarks/choose_defaults.py; docs/estimators.md, docs/study.md)

DEFAULTS_LABELS = {
    "lin": "S4D-Lin",
    "tdi-first-layer": "TDI, first layer only",
    "lr1e-2": "lr 1e-2",
    "base": "initial defaults",
    "spread0.5": "tdi.spread 0.5",
    "wide-1-layer": "1 layer, d_model 128",
    "epochs50": "50 epochs",
    "dropout0.2": "dropout 0.2",
    "first-epochs200": "TDI first layer, 200 epochs",
    "lin-lr1e-2": "S4D-Lin, lr 1e-2",
    "first-lr1e-2": "**TDI first layer, lr 1e-2** (chosen)",
    "first-spread0.5": "TDI first layer, spread 0.5",
    "first-batch32": "TDI first layer, batch 32",
    "small-steps300": "at least 300 optimizer steps",
    "small-wd0.1": "weight decay 0.1",
    "small-dropout0.3": "dropout 0.3",
    "small-base": "**current defaults**",
    "small-dropout0": "dropout 0",
    "small-1-layer": "1 layer",
    "small-lin": "S4D-Lin",
    "small-norel": "TDI without reliability shrinkage",
    "small-lr3e-3": "lr 3e-3",
}
DATASET_SHORT = {"ItalyPowerDemand": "ItalyPower"}


def _cv_round(
    path_or_results,
    *,
    value: str = "accuracy",
    labels: dict = DEFAULTS_LABELS,
    sort_by: str = "avg rank",
) -> pd.DataFrame:
    """A CV study's table (choose_defaults.py, choose_recipe.py): mean ``value`` per config ×
    dataset, mean, average rank, fit s; best first by ``sort_by`` ("avg rank" or "mean")."""
    results = _csv(path_or_results) if isinstance(path_or_results, Path) else path_or_results
    acc = results.pivot_table(index="config", columns="dataset", values=value, aggfunc="mean")
    out = pd.DataFrame(index=acc.index)
    for dataset in acc.columns:
        out[DATASET_SHORT.get(dataset, dataset)] = acc[dataset].map(_f)
    mean = acc.mean(axis=1)
    out["mean"] = mean.map(_f)
    rank = acc.rank(ascending=False).mean(axis=1)
    out["avg rank"] = rank.map(lambda v: _f(v, 2))
    out["fit s"] = results.groupby("config")["fit_seconds"].mean().map(lambda v: _f(v, 1))
    key = rank if sort_by == "avg rank" else -mean  # ascending: best first
    out = out.loc[key.sort_values(kind="stable").index]
    out.insert(0, "config", [labels.get(c, c) for c in out.index])
    return out.reset_index(drop=True)


def _mean_acc(path: Path, config: str) -> float:
    results = _csv(path)
    return results[results["config"] == config].groupby("dataset")["accuracy"].mean().mean()


@region("defaults-round1")
def defaults_round1() -> str:
    table = _cv_round(DATA / "defaults_study_round1.csv")
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("defaults-round2")
def defaults_round2() -> str:
    table = _cv_round(DATA / "defaults_study_round2.csv")
    r1, r2 = DATA / "defaults_study_round1.csv", DATA / "defaults_study_round2.csv"
    tdi_gain = 100 * (_mean_acc(r2, "first-lr1e-2") - _mean_acc(r2, "tdi-first-layer"))
    lin_gain = 100 * (_mean_acc(r2, "lin-lr1e-2") - _mean_acc(r1, "lin"))
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1)) + (
        f"\nlr 1e-2 against lr 3e-3, mean CV accuracy: TDI on the first layer {_pts(tdi_gain)} "
        f"points, S4D-Lin {_pts(lin_gain)} points (S4D-Lin at lr 3e-3 from round 1). "
        f"Chosen TDI {_f(_mean_acc(r2, 'first-lr1e-2'))} vs S4D-Lin at lr 1e-2 "
        f"{_f(_mean_acc(r2, 'lin-lr1e-2'))}.\n"
    )


def _small_round() -> tuple[pd.DataFrame, pd.DataFrame]:
    results = _csv(DATA / "defaults_study_round3.csv")
    acc = results.pivot_table(
        index="config", columns=["dataset", "ratio"], values="accuracy", aggfunc="mean"
    )
    by_ratio = acc.T.groupby(level="ratio").mean().T  # mean over datasets per ratio
    return acc, by_ratio


@region("defaults-round3")
def defaults_round3() -> str:
    results = _csv(DATA / "defaults_study_round3.csv")
    acc, by_ratio = _small_round()
    rank = acc.rank(ascending=False).mean(axis=1)
    out = pd.DataFrame(index=acc.index)
    for ratio in by_ratio.columns:
        out[f"{ratio:g}"] = by_ratio[ratio].map(_f)
    out["avg rank"] = rank.map(lambda v: _f(v, 2))
    out["fit s"] = results.groupby("config")["fit_seconds"].mean().map(lambda v: _f(v, 1))
    out = out.loc[rank.sort_values(kind="stable").index]
    out.insert(0, "config", [DEFAULTS_LABELS.get(c, c) for c in out.index])
    return _md_table(out.reset_index(drop=True), ["l"] + ["r"] * (out.shape[1] - 1))


@region("defaults-round3-reading")
def defaults_round3_reading() -> str:
    acc, by_ratio = _small_round()
    ratios = list(by_ratio.columns)

    def diff(config, ref="small-base", frame=by_ratio):
        return " / ".join(_pts(100 * (frame.loc[config, r] - frame.loc[ref, r])) for r in ratios)

    planted = acc.xs("planted", axis=1, level="dataset")
    return (
        f"Against the current defaults, at ratios {' / '.join(f'{r:g}' for r in ratios)}: "
        f"aligning every channel (no reliability shrinkage) {diff('small-norel')} points; "
        f"S4D-Lin {diff('small-lin')} points on average over the six datasets, "
        f"{diff('small-lin', frame=planted)} on the planted task.\n"
    )


# --------------------------------------------------------------------------------------
# SpectralAlignmentTransformer's defaults (benchmarks/choose_transformer_defaults.py)

TRANSFORMER_LABELS = {
    "32f-0b": "32 filters, mean/std/max/min only",
    "32f-4b": "32 filters, 4 biases",
    "64f-4b": "64 filters, 4 biases",
    "128f-4b": "128 filters, 4 biases",
    "128f-8b": "128 filters, 8 biases",
    "128f-4b-lin": "128 filters, 4 biases, S4D-Lin filters",
    "128f-8b-rel": "128 filters, 8 biases, reliability shrinkage (chosen)",
    "128f-8b-spread0.5": "128 filters, 8 biases, spread 0.5",
    "128f-8b-lin": "128 filters, 8 biases, S4D-Lin filters",
    "rel-dstate32": "chosen, d_state 32",
    "rel-dstate64": "chosen, d_state 64",
    "rel-dtmax0.5": "chosen, dt_max 0.5",
    "rel": "the defaults (mean/std/max/min + PPV)",
    "rel-lin": "the defaults' features, S4D-Lin bank",
    "rel-diff": "defaults + first difference",
    "rel-mr": "MultiRocket poolings",
    "rel-mr-diff": "MultiRocket poolings + first difference",
    "rel-mr-diff-lin": "MultiRocket poolings + first difference, S4D-Lin bank",
}


def _study_rows(results: pd.DataFrame, labels: dict, name_column: str):
    """(config, row) per configuration of a training-split study: mean accuracy per protocol,
    per dataset (over protocols) and overall, and the mean fit time."""
    acc = results.pivot_table(
        index="config", columns=["protocol", "dataset"], values="accuracy", aggfunc="mean"
    )
    by_protocol = acc.T.groupby(level="protocol").mean().T
    by_dataset = acc.T.groupby(level="dataset").mean().T
    for config in results["config"].unique():
        row = {name_column: labels.get(config, config)}
        for protocol in ["cv", "ratio 0.08", "ratio 0.16"]:
            row[protocol.replace("ratio ", "")] = _f(by_protocol.loc[config, protocol])
        for dataset in sorted(by_dataset.columns):
            row[DATASET_SHORT.get(dataset, dataset)] = _f(by_dataset.loc[config, dataset])
        row["mean"] = _f(by_dataset.loc[config].mean())
        row["fit s"] = _f(results[results["config"] == config]["fit_seconds"].mean(), 2)
        yield config, row


@region("transformer-features")
def transformer_features() -> str:
    """Round 4: the feature families, per protocol and per dataset (mean over protocols)."""
    results = _csv(DATA / "transformer_defaults_round4.csv")
    rows = [row for _, row in _study_rows(results, TRANSFORMER_LABELS, "features")]
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("transformer-defaults")
def transformer_defaults() -> str:
    rows = []
    for number, name in enumerate(
        ["transformer_defaults", "transformer_defaults_round2", "transformer_defaults_round3"], 1
    ):
        results = _csv(DATA / f"{name}.csv")
        acc = results.pivot_table(
            index="config", columns=["protocol", "dataset"], values="accuracy", aggfunc="mean"
        )
        means = acc.T.groupby(level="protocol").mean().T
        for config in results["config"].unique():
            row = {"round": number, "config": TRANSFORMER_LABELS.get(config, config)}
            for protocol in ["cv", "ratio 0.08", "ratio 0.16"]:
                row[protocol.replace("ratio ", "")] = _f(means.loc[config, protocol])
            for dataset in ["ArrowHead", "OSULeaf", "planted"]:
                row[f"{dataset} (mean)"] = _f(acc.loc[config].xs(dataset, level="dataset").mean())
            rows.append(row)
    table = pd.DataFrame(rows)
    return _md_table(table, ["r", "l"] + ["r"] * (table.shape[1] - 2))


# --------------------------------------------------------------------------------------
# reliability calibration and given spectrum (docs/tdi.md)

RELIABILITY_ROWS = [
    ("planted", 4),
    ("planted", 8),
    ("digits", 3),
    ("digits", 4),
    ("ItalyPowerDemand", 4),
    ("ItalyPowerDemand", 8),
    ("GunPoint", 4),
    ("GunPoint", 8),
    ("ArrowHead", 4),
    ("OSULeaf", 4),
]


@region("reliability-calibration")
def reliability_calibration() -> str:
    results = _csv(DATA / "reliability_calibration.csv")
    means = results.groupby(["dataset", "per_class"])[["true", "split_half", "bootstrap"]].mean()
    rows = []
    for dataset, k in RELIABILITY_ROWS:
        m = means.loc[(dataset, k)]
        rows.append(
            {
                "dataset": dataset,
                "k": k,
                "true": _f(m["true"], 2).replace("-", "−"),
                "split-half": _f(m["split_half"], 2).replace("-", "−"),
                "bootstrap": _f(m["bootstrap"], 2).replace("-", "−"),
            }
        )
    return _md_table(pd.DataFrame(rows), ["l", "r", "r", "r", "r"])


@region("given-spectrum")
def given_spectrum() -> str:
    results = _csv(DATA / "given_spectrum.csv")
    acc = results.pivot_table(
        index=["dataset", "per_class"], columns="arm", values="accuracy", aggfunc="mean"
    )
    order = ["planted", "ItalyPowerDemand", "digits", "GunPoint"]
    acc = acc.reindex(sorted(acc.index, key=lambda i: (order.index(i[0]), i[1])))
    table = pd.DataFrame(
        {
            "dataset": [i[0] for i in acc.index],
            "series per class": [i[1] for i in acc.index],
            "S4D-Lin": acc["s4d-lin"].map(_f).values,
            "TDI (estimated)": acc["tdi"].map(_f).values,
            "TDI (transferred)": acc["tdi-transfer"].map(_f).values,
            "TDI (known)": acc["tdi-known"].map(_f).values,
        }
    )
    return _md_table(table, ["l", "r", "r", "r", "r", "r"])


# --------------------------------------------------------------------------------------
# the data-efficiency study (docs/study.md): docs/study/results.csv


@region("study-cells")
def study_cells() -> str:
    results = _csv(STUDY / "results.csv")
    errors = int((results["status"] != "ok").sum())
    return (
        f"**Status: the full grid ran ({len(results)} cells: {results['dataset'].nunique()} "
        f"datasets × {results['ratio'].nunique()} ratios × {results['resample'].nunique()} "
        f"resamples × {results['estimator'].nunique()} estimators, {errors} errors); most "
        "targets are missed, and this page says by how much and why.**\n"
    )


@region("study-fit-seconds")
def study_fit_seconds() -> str:
    results = _csv(STUDY / "results.csv")
    seconds = results[results["status"] == "ok"].groupby("estimator")["fit_seconds"].mean()
    return (
        "Mean fit seconds per cell: "
        + ", ".join(f"{name} {value:.1f}" for name, value in seconds.items())
        + ".\n"
    )


@region("study-ranks")
def study_ranks() -> str:
    from sktdi.benchmark import average_ranks

    ranks = average_ranks(_csv(STUDY / "results.csv")).sort_values()
    return (
        "Average rank over all datasets, ratios and resamples: "
        + ", ".join(f"{name} {value:.2f}" for name, value in ranks.items())
        + ".\n"
    )


@region("study-summary")
def study_summary() -> str:
    """benchmarks/study_report.py's page fragment (targets, accuracy, ranks, gaps, tests),
    without redrawing its plot (``python benchmarks/study_report.py`` does that)."""
    import shutil
    import tempfile

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import study_report
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    plot = study_report.plot_accuracy_vs_ratio
    study_report.plot_accuracy_vs_ratio = lambda *args, **kwargs: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(STUDY / "results.csv", Path(tmp) / "results.csv")
            from contextlib import redirect_stdout
            from io import StringIO

            with redirect_stdout(StringIO()):
                study_report.main(tmp)
            text = (Path(tmp) / "summary.md").read_text()
    finally:
        study_report.plot_accuracy_vs_ratio = plot
    return text.rstrip() + "\n"


# --------------------------------------------------------------------------------------
# issue 13: the recipe study (benchmarks/choose_recipe.py) and the field run (docs/field.md)

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
FIELD = DATA / "field_results.csv"
FIELD_REGRESSION = DATA / "field_regression_results.csv"
ANCHORS = DATA / "published_anchors.csv"
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
    return _recipe_table(DATA / "recipe_study_roundA.csv")


@region("recipe-osuleaf")
def recipe_osuleaf() -> str:
    return _recipe_table(DATA / "recipe_study_osuleaf.csv")


@region("recipe-combined")
def recipe_combined() -> str:
    """Rounds A and B together (same folds, same seeds), by mean CV accuracy: the rule."""
    rounds = [_csv(DATA / f"recipe_study_round{name}.csv") for name in ("A", "B")]
    both = pd.concat(rounds)
    return _recipe_table(both, sort_by="mean")


@region("recipe-regression")
def recipe_regression() -> str:
    chosen = RECIPE_LABELS[RECIPE_CHOSEN]
    return _recipe_table(DATA / "recipe_study_regression.csv", sort_by="mean").replace(
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
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", ""]), ["l", "r", "l"])


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


# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# the deep model (docs/deep_model.md): the bridge study and the side-by-side run (issue 22)

BRIDGE = DATA / "bridge_study.csv"
DEEP_FIELD = DATA / "deep_field_results.csv"
BRIDGE_NAMES = {
    "inceptiontime": "InceptionTime, sktime's recipe",
    "inception": "InceptionTime's network, sktdi's recipe",
    "inception-causal": "… causal padding (sktdi's convolutions)",
    "inception-s4d": "… widest convolution → S4D (**conv-s4d**)",
    "conv-s4d-recipe": "conv-s4d, InceptionTime's recipe",
    "conv-s4d-narrow": "conv-s4d, half width (d_model 64)",
    "s4d": "S4D network (the previous default)",
    "s4d-local": "S4D network, fast modes only (dt ≥ 0.05)",
    "s4d-deep": "S4D network, 4 blocks",
}
DEEP_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-lin": "SSMClassifier, S4D-Lin",
    "s4d-network": "previous default (S4D network)",
    "inceptiontime": "InceptionTime",
    "resnet": "ResNet",
    "minirocket": "MiniRocket",
}


@region("bridge-study")
def bridge_study() -> str:
    results = _csv(BRIDGE)
    means = results.pivot_table(index="arm", columns="dataset", values="cv_accuracy")
    folds = results.pivot_table(index="arm", columns="dataset", values="fold", aggfunc="count")
    arms = [a for a in BRIDGE_NAMES if a in means.index]
    datasets = sorted(means.columns, key=lambda d: (d != "OSULeaf", d))
    out = pd.DataFrame({"step": [BRIDGE_NAMES[a] for a in arms]})
    for d in datasets:
        out[f"{d} ({int(folds[d].max())} folds)"] = [_f(means.loc[a, d]) for a in arms]
    # the sets every step of the bridge itself ran (the five arms from InceptionTime to S4D)
    chain = [a for a, _, _ in BRIDGE_STEPS[:4]] + ["s4d"]
    core = means.columns[means.loc[[a for a in chain if a in means.index]].notna().all()]
    out[f"mean over {', '.join(core)}"] = [
        _f(means.loc[a, core].mean()) if means.loc[a, core].notna().all() else "" for a in arms
    ]
    train = results.groupby("arm")["train_accuracy"].mean()
    out["training accuracy"] = [_f(train[a]) for a in arms]
    seconds = results.pivot_table(index="arm", columns="dataset", values="fit_seconds")
    ratio = (seconds.div(seconds.loc["inceptiontime"], axis=1)).mean(axis=1)
    out["fit time ÷ InceptionTime's"] = [f"{ratio[a]:.2f}×" for a in arms]
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


#: the bridge, one step at a time: (from, to, what the step changes)
BRIDGE_STEPS = (
    ("inceptiontime", "inception", "the recipe: sktime's → sktdi's training loop"),
    ("inception", "inception-causal", "causal (left) padding, sktdi's convolutions"),
    ("inception-causal", "inception-s4d", "widest convolution → S4D layer (conv-s4d)"),
    ("inception-s4d", "s4d", "conv-s4d → the S4D network"),
    ("inception-s4d", "conv-s4d-recipe", "conv-s4d, sktdi's recipe → InceptionTime's"),
    ("inception-s4d", "conv-s4d-narrow", "conv-s4d, half width"),
)


@region("bridge-steps")
def bridge_steps() -> str:
    means = _csv(BRIDGE).pivot_table(index="arm", columns="dataset", values="cv_accuracy")
    rows = []
    for a, b, what in BRIDGE_STEPS:
        if a not in means.index or b not in means.index:
            continue
        gap = (100 * (means.loc[b] - means.loc[a])).dropna()
        per = ", ".join(f"{d} {_pts(v)}" for d, v in gap.items())
        rows.append(
            {
                "step": what,
                "change in CV accuracy (pts, mean over sets)": _pts(gap.mean()),
                "per dataset": per,
            }
        )
    return _md_table(pd.DataFrame(rows), ["l", "r", "l"])


@region("bridge-cells")
def bridge_cells() -> str:
    results = _csv(BRIDGE)
    return (
        f"{len(results)} fits: {results['dataset'].nunique()} datasets, "
        f"{results['arm'].nunique()} steps, {int(results['epochs'].iloc[0])} epochs each, "
        "one torch thread per fit, beside other runs on the shared 2-core machine.\n"
    )


BRIDGE_REGRESSION = DATA / "bridge_study_regression.csv"


@region("bridge-regression")
def bridge_regression() -> str:
    results = _csv(BRIDGE_REGRESSION)
    names = {
        "regressor-s4d": "S4D network (the regressor's default)",
        "regressor-conv-s4d": "conv-s4d network (the classifier's)",
    }
    r2 = results.pivot_table(index="arm", columns="dataset", values="cv_r2")
    train = results.groupby("arm")["train_r2"].mean()
    seconds = results.groupby("arm")["fit_seconds"].mean()
    arms = [a for a in names if a in r2.index]
    out = pd.DataFrame({"network": [names[a] for a in arms]})
    for d in r2.columns:
        out[f"{d} CV R²"] = [_f(r2.loc[a, d]) for a in arms]
    out["training R²"] = [_f(train[a]) for a in arms]
    out["mean fit seconds"] = [f"{seconds[a]:.0f}" for a in arms]
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


def _deep_ok() -> pd.DataFrame:
    results = _csv(DEEP_FIELD)
    return results[results["status"] == "ok"]


def _deep_means() -> pd.DataFrame:
    """Mean accuracy over resamples, dataset × estimator (datasets every estimator ran)."""
    ok = _deep_ok()
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


@region("deep-field-cells")
def deep_field_cells() -> str:
    results = _csv(DEEP_FIELD)
    ok = _deep_ok()
    resamples = ok.groupby("dataset")["resample"].nunique()
    per = ", ".join(f"{d} {n}" for d, n in resamples.items())
    return (
        f"One `sktdi benchmark` run at the full training sets: {len(results)} cells "
        f"({len(ok)} `ok`), estimators {', '.join(sorted(results['estimator'].unique()))}, "
        f"every deep model at {_deep_epochs()} epochs; splits per dataset (resample 0 is "
        f"the official split): {per}.\n"
    )


def _deep_epochs() -> int:
    import json

    # only the trained models read max_epochs (MiniRocket and 1-NN record none); 100 is the
    # default, which a run's config leaves out
    results = _csv(DEEP_FIELD)
    trained = results[~results["estimator"].isin(["minirocket", "1nn-euclidean", "1nn-dtw"])]
    return max(json.loads(c).get("max_epochs", 100) for c in trained["config"])


@region("deep-field")
def deep_field() -> str:
    means = _deep_means()
    ok = _deep_ok()
    std = ok.pivot_table(index="dataset", columns="estimator", values="accuracy", aggfunc="std")
    names = [e for e in DEEP_NAMES if e in means.columns]
    out = pd.DataFrame(index=means.index)
    for e in names:
        cell = means[e].map(_f)
        if e in std.columns and std[e].notna().any():
            cell = cell + std[e].reindex(means.index).map(
                lambda v: "" if pd.isna(v) else f" ± {v:.3f}"
            )
        out[DEEP_NAMES[e]] = cell
    out["default − InceptionTime (pts)"] = (100 * (means["tdi"] - means["inceptiontime"])).map(_pts)
    out["default − MiniRocket (pts)"] = (100 * (means["tdi"] - means["minirocket"])).map(_pts)
    out.loc["**mean**"] = {
        **{DEEP_NAMES[e]: _f(means[e].mean()) for e in names},
        "default − InceptionTime (pts)": _pts(100 * (means["tdi"] - means["inceptiontime"]).mean()),
        "default − MiniRocket (pts)": _pts(100 * (means["tdi"] - means["minirocket"]).mean()),
    }
    out = out.reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


DEEP_TIMING = DATA / "deep_timing_results.csv"


def _timing_ratio() -> pd.Series:
    """Default SSMClassifier's fit seconds ÷ InceptionTime's per dataset, idle-machine run."""
    ok = _csv(DEEP_TIMING)
    seconds = ok[ok["status"] == "ok"].pivot_table(
        index="dataset", columns="estimator", values="fit_seconds"
    )
    return seconds["tdi"] / seconds["inceptiontime"]


@region("deep-timing")
def deep_timing() -> str:
    results = _csv(DEEP_TIMING)
    ok = results[results["status"] == "ok"]
    seconds = ok.pivot_table(index="dataset", columns="estimator", values="fit_seconds")
    names = [e for e in DEEP_NAMES if e in seconds.columns]
    out = pd.DataFrame({DEEP_NAMES[e]: seconds[e].map(lambda v: f"{v:.1f}") for e in names})
    ratio = _timing_ratio()
    out["default ÷ InceptionTime"] = ratio.map(lambda v: f"{v:.2f}×")
    accuracy = ok.pivot_table(index="dataset", columns="estimator", values="accuracy")
    for e in names:
        out[f"{DEEP_NAMES[e]} accuracy"] = accuracy[e].map(_f)
    out.loc["**mean of ratios**"] = {"default ÷ InceptionTime": f"{ratio.mean():.2f}×"}
    out = out.fillna("").reset_index().rename(columns={"index": "dataset"})
    import json

    epochs = {json.loads(c).get("max_epochs") for c in results["config"]} - {None}
    return (
        f"Fit seconds (and test accuracy, official split) at "
        f"{', '.join(str(e) for e in sorted(epochs))} epochs, cells one after another on the "
        "idle 2-core machine, each with both cores:\n\n"
        + _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))
    )


DEEP_FEWSHOT = DATA / "deep_fewshot_results.csv"
FEWSHOT_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-network": "previous default (S4D network)",
    "tdi+ridge": "SpectralRidgeClassifier",
}


def _fewshot_means() -> pd.DataFrame:
    ok = _csv(DEEP_FEWSHOT)
    ok = ok[ok["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


@region("deep-fewshot")
def deep_fewshot() -> str:
    results = _csv(DEEP_FEWSHOT)
    means = _fewshot_means()
    names = [e for e in FEWSHOT_NAMES if e in means.columns]
    out = pd.DataFrame({FEWSHOT_NAMES[e]: means[e].map(_f) for e in names})
    gap = 100 * (means["tdi"] - means["tdi+ridge"])
    out["default − SpectralRidge (pts)"] = gap.map(_pts)
    out.loc["**mean**"] = {
        **{FEWSHOT_NAMES[e]: _f(means[e].mean()) for e in names},
        "default − SpectralRidge (pts)": _pts(gap.mean()),
    }
    out = out.reset_index().rename(columns={"index": "dataset"})
    n_train = results.groupby("dataset")["n_train"].first()
    classes = results.groupby("dataset")["n_classes"].first()
    resamples = results.groupby("dataset")["resample"].nunique()
    per_class = ", ".join(
        f"{d} {int(n_train[d])}/{int(classes[d])} ({resamples[d]} resamples)" for d in means.index
    )
    return (
        f"Two training series per class (`--ratios 0.01 --min-per-class 2`), the whole test "
        f"split scored; training series / classes (splits): {per_class}.\n\n"
        + _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))
    )


LEARNING_CONV_S4D = DATA / "learning_curves_conv_s4d.csv"


def _conv_s4d_pairs() -> pd.DataFrame:
    """TDI's and S4D-Lin's learning-curve cells whose (resample, budget) both ran: paired
    only (the control arm, where it ran, is read by the zoo's targets)."""
    results = _csv(LEARNING_CONV_S4D)
    results = results[results["arm"].isin(["tdi", "s4d-lin"])]
    arms = results.groupby(["resample", "budget"])["arm"].transform("nunique")
    return results[arms == 2]


def _conv_s4d_budget_gap() -> pd.DataFrame:
    """TDI and S4D-Lin on the conv-s4d network, pixel-digits: mean accuracy per budget."""
    results = _conv_s4d_pairs()
    means = results.pivot_table(index="budget", columns="arm", values="accuracy")
    means["gap"] = 100 * (means["tdi"] - means["s4d-lin"])
    means["resamples"] = results.groupby("budget")["resample"].nunique()
    return means


@region("deep-budgets")
def deep_budgets() -> str:
    means = _conv_s4d_budget_gap()
    results = _conv_s4d_pairs()
    out = pd.DataFrame(
        {
            "epochs": means.index,
            "TDI": means["tdi"].map(_f).values,
            "S4D-Lin": means["s4d-lin"].map(_f).values,
            "TDI − S4D-Lin (pts)": means["gap"].map(_pts).values,
            "resamples": means["resamples"].values,
        }
    )
    n_fit = int(results["n_fit"].iloc[0])
    return (
        f"pixel-digits, {n_fit} training series (a stratified {results['ratio'].iloc[0]:g} of "
        "the training split), the whole test split scored, `learning_curves.py --mode test`:\n\n"
        + _md_table(out, None)
    )


@region("deep-field-targets")
def deep_field_targets() -> str:
    means = _deep_means()
    gap_it = 100 * (means["tdi"] - means["inceptiontime"])
    gap_mr = 100 * (means["tdi"] - means["minirocket"])
    time_ratio = _timing_ratio()
    worst = gap_it.idxmin()

    def met(flag: bool) -> str:
        return "met" if flag else "**missed**"

    rows = [
        ("mean ≥ InceptionTime's", f"{_pts(gap_it.mean())} pts", met(gap_it.mean() >= 0)),
        (
            "no dataset more than 2 points behind InceptionTime",
            f"worst {worst} {_pts(gap_it[worst])} pts",
            met(gap_it.min() >= -2),
        ),
    ]
    for dataset, bar in (("OSULeaf", 0.93), ("ArrowHead", 0.85)):
        if dataset in means.index:
            value = means.loc[dataset, "tdi"]
            rows.append((f"{dataset} ≥ {bar}", _f(value), met(value >= bar)))
    fewshot = _fewshot_means()
    gap_fs = 100 * (fewshot["tdi"] - fewshot["tdi+ridge"]).mean()
    rows += [
        ("mean ≥ MiniRocket − 1", f"{_pts(gap_mr.mean())} pts", met(gap_mr.mean() >= -1)),
        (
            "2 series per class: within 5 points of SpectralRidgeClassifier (mean)",
            f"{_pts(gap_fs)} pts",
            met(gap_fs >= -5),
        ),
        (
            "fit time ≤ 0.5× InceptionTime's at equal epochs",
            f"{time_ratio.mean():.2f}× (mean of ratios, idle machine)",
            met(time_ratio.mean() <= 0.5),
        ),
    ]
    budgets = _conv_s4d_budget_gap()
    worst = budgets["gap"].min()
    rows.append(
        (
            "TDI − S4D-Lin ≥ −0.5 at every budget on pixel-digits",
            f"worst {_pts(worst)} pts",
            met(worst >= -0.5),
        )
    )
    if 5 in budgets.index:
        rows.append(
            (
                "TDI − S4D-Lin ≥ +5 at 5 epochs",
                f"{_pts(budgets.loc[5, 'gap'])} pts",
                met(budgets.loc[5, "gap"] >= 5),
            )
        )
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", "status"]), None)


# --------------------------------------------------------------------------------------
# TDI's safety net (docs/budgets.md, "The task zoo"): benchmarks/tdi_zoo.py's results

ZOO_RESULTS = DATA / "tdi_zoo.csv"
ZOO_DIAGNOSIS = DATA / "tdi_zoo_diagnosis.csv"
CONV_S4D_CHOICE = DATA / "learning_curves_conv_s4d_choice.csv"
CONV_S4D_STUDY = DATA / "learning_curves_conv_s4d_study.csv"
ZOO_INFORMATIVE = ["broadband-64", "one-band-256", "multi-band-128", "one-band-32", "multi-band-40"]
ZOO_DIAGNOSIS_ARMS = {
    "tdi": "TDI (default: tiled coverage, band decays)",
    "tdi-control": "its control",
    "auto": 'init="auto" (TDI only when reliability ≥ 0.5)',
    "tdi-base": "base coverage, spread 0.5",
    "tdi-gain": "gain coverage",
    "tdi-bd": "base decays",
    "control-bd": "control, base decays",
}


def _paired_gaps(results: pd.DataFrame, arm: str, reference: str) -> pd.Series:
    """Per (task, budget, seed): 100 × (arm − reference), where both ran."""
    table = results.pivot_table(
        index=["task", "budget", "seed"], columns="arm", values="accuracy", aggfunc="mean"
    )
    if arm not in table or reference not in table:
        return pd.Series(dtype=float)
    return (100 * (table[arm] - table[reference])).dropna()


def _mean_se(gaps: pd.Series) -> str:
    """'+1.2 ± 0.4 (n)': mean, standard error over draws, number of draws."""
    n = len(gaps)
    se = gaps.std(ddof=1) / n**0.5 if n > 1 else float("nan")
    return f"{_pts(gaps.mean())} ± {se:.1f} ({n})"


@region("zoo-tasks")
def zoo_tasks() -> str:
    from sktdi.datasets import ZOO_TASKS

    rows = [
        {
            "task": name,
            "family": spec["family"],
            "length": spec["length"],
            "classes": spec["n_classes"],
            "training series / class": spec["n_per_class"],
            "noise": spec.get("noise", "white"),
            "strength": f"{spec.get('strength', 1.0):g}",
        }
        for name, spec in ZOO_TASKS.items()
    ]
    return _md_table(pd.DataFrame(rows), align=["l", "l", "r", "r", "r", "l", "r"])


@region("zoo-diagnosis")
def zoo_diagnosis() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    # seeds 100-199: the diagnosis proper (200 and up: the few-step cell's own table)
    results = results[results["task"].isin(ZOO_INFORMATIVE) & (results["seed"] < 200)]
    rows = []
    for network, prefix in (("conv-s4d (default)", ""), ("S4D, issue 13's recipe", "old-")):
        for arm, label in ZOO_DIAGNOSIS_ARMS.items():
            gaps = _paired_gaps(results, prefix + arm, prefix + "s4d-lin")
            if gaps.empty:
                continue
            cells = gaps.groupby(level=["task", "budget"]).mean()
            worst = cells.idxmin()
            rows.append(
                {
                    "network": network,
                    "arm": label,
                    "− S4D-Lin, 5 epochs": _mean_se(gaps.xs(5, level="budget")),
                    "− S4D-Lin, 20 epochs": _mean_se(gaps.xs(20, level="budget")),
                    "worst cell (its mean)": f"{worst[0]}, {worst[1]} ep: {_pts(cells.min())}",
                    "worst draw": _pts(gaps.min()),
                }
            )
    table = pd.DataFrame(rows)
    return (
        _md_table(table, align=["l", "l", "r", "r", "l", "r"])
        + "\nPoints of accuracy against S4D-Lin on the same draw (same training series, same "
        "seed): mean ± standard error (number of draws) over the five zoo tasks where the "
        "statistic has significant bins, other draws than the report's (seeds 100–108). "
        "A cell is one task at one budget; a draw, one seed of one cell.\n"
    )


@region("zoo-targets")
def zoo_targets() -> str:
    cells = _zoo_cells().dropna(subset=["draws"])
    worst = cells["lin_mean"].idxmin()
    w = cells.loc[worst]
    rows = [
        [
            "zoo: TDI − S4D-Lin ≥ −0.5 pts in every cell (task × budget)",
            (
                f"worst {worst[0]} at {int(worst[1])} epochs: {_pts(w['lin_mean'])} ± "
                f"{w['lin_se']:.1f} ({int(w['draws'])} draws); "
                f"{int((cells['lin_mean'] < -0.5).sum())} of {len(cells)} cells below −0.5"
            ),
            "met" if w["lin_mean"] >= -0.5 else "**missed**",
        ]
    ]
    results = _csv(ZOO_RESULTS)
    by_budget = {
        int(budget): _paired_gaps(subset, "tdi", "tdi-control").mean()
        for budget, subset in results.groupby("budget")
    }
    rows.append(
        [
            "zoo: TDI ≥ its control on the mean, at every budget",
            ", ".join(f"{_pts(v)} at {b}" for b, v in by_budget.items()),
            "met" if min(by_budget.values()) >= 0 else "**missed**",
        ]
    )
    pixel = _csv(LEARNING_CONV_S4D).rename(columns={"resample": "seed", "dataset": "task"})
    gaps = _paired_gaps(pixel, "tdi", "s4d-lin").groupby(level="budget")
    means, counts = gaps.mean(), gaps.count()
    rows.append(
        [
            "pixel-digits (test split): TDI − S4D-Lin ≥ −0.5 pts at every budget run",
            ", ".join(f"{_pts(v)} at {int(b)} ({counts[b]})" for b, v in means.items()),
            "met" if means.min() >= -0.5 else "**missed**",
        ]
    )
    rows.append(
        [
            "pixel-digits (test split): TDI − S4D-Lin ≥ +5 pts at 5 epochs",
            _pts(means.get(5, float("nan"))),
            "met" if means.get(5, float("nan")) >= 5 else "**missed**",
        ]
    )
    control = _paired_gaps(pixel, "tdi", "tdi-control").groupby(level="budget").mean()
    rows.append(
        [
            "pixel-digits (test split): TDI ≥ its control",
            ", ".join(f"{_pts(v)} at {int(b)}" for b, v in control.items()),
            "met" if control.min() >= 0 else "**missed**",
        ]
    )
    study = _csv(CONV_S4D_STUDY).rename(columns={"resample": "seed", "dataset": "task"})
    cells = _paired_gaps(study, "tdi", "s4d-lin").groupby(level=["task", "budget"]).mean()
    worst = cells.idxmin()
    rows.append(
        [
            (
                "study datasets where TDI aligns (test split): TDI − S4D-Lin ≥ −0.5 pts at "
                "every budget run"
            ),
            f"worst {worst[0]} at {int(worst[1])} epochs: {_pts(cells.min())}; mean "
            + ", ".join(
                f"{_pts(v)} at {int(b)}" for b, v in cells.groupby(level="budget").mean().items()
            ),
            "met" if cells.min() >= -0.5 else "**missed**",
        ]
    )
    table = pd.DataFrame(rows, columns=["target", "measured", ""])
    return _md_table(table, align=["l", "l", "l"])


@region("zoo-study")
def zoo_study() -> str:
    study = _csv(CONV_S4D_STUDY)
    cells = _zoo_cells(study.rename(columns={"resample": "seed", "dataset": "task"}))
    n_fit = study.groupby("dataset")["n_fit"].first()
    return (
        _md_table(_cell_rows(cells, "dataset", "resamples"), align=["l"] + ["r"] * 7)
        + "\nMean test accuracy over resamples (resample 0: the official split) and the paired "
        "differences in points, mean ± standard error over the resamples; a stratified "
        "16% of the training split fitted ("
        + ", ".join(f"{d}: {n} series" for d, n in n_fit.items())
        + "), the default conv-s4d network.\n"
    )


ZOO_CAUSE_ARMS = {
    "tdi": "TDI (default)",
    "tdi-control": "its control",
    "tdi-norel": "no reliability shrinkage",
    "auto": 'init="auto"',
    "tdi-base": "base coverage, spread 0.5",
    "control-base": "control, base coverage",
    "tdi-gain": "gain coverage",
    "tdi-bd": "base decays",
    "tdi-2peaks": "at most 2 peaks",
    "tdi-all-layers": "every layer aligned",
}


@region("zoo-cause-length40")
def zoo_cause_length40() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    results = results[(results["task"] == "multi-band-40") & (results["budget"] == 20)]
    results = results[results["seed"].isin(sorted(results["seed"].unique())[:4])]
    rows = []
    for arm, label in ZOO_CAUSE_ARMS.items():
        row = {"arm": label}
        for network, prefix in (("conv-s4d (default)", ""), ("S4D, issue 13's recipe", "old-")):
            gaps = _paired_gaps(results, prefix + arm, prefix + "s4d-lin")
            row[network] = _mean_se(gaps) if len(gaps) else ""
        rows.append(row)
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r", "r"])
        + "\nmulti-band-40 at 20 epochs, points against S4D-Lin on the same draw: mean ± "
        "standard error (draws), seeds 100–103.\n"
    )


@region("zoo-fewsteps")
def zoo_fewsteps() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    results = results[
        (results["task"] == "multi-band-128") & (results["budget"] == 5) & (results["seed"] >= 200)
    ]
    labels = {
        "tdi": "TDI (default)",
        "tdi-control": "its control",
        "tdi-norel": "no reliability shrinkage",
        "tdi-base": "base coverage, spread 0.5",
        "tdi-gain": "gain coverage",
        "tdi-bd": "base decays",
        "control-bd": "control, base decays",
    }
    rows = []
    for arm, label in labels.items():
        gaps = _paired_gaps(results, arm, "s4d-lin")
        rows.append(
            {
                "arm": label,
                "− S4D-Lin": _mean_se(gaps),
                "draw SD": f"{gaps.std(ddof=1):.1f}",
                "worst draw": _pts(gaps.min()),
                "best draw": _pts(gaps.max()),
            }
        )
    lin = results[results["arm"] == "s4d-lin"]["accuracy"].mean()
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r", "r", "r", "r"])
        + f"\nmulti-band-128 at 5 epochs (16 training series, batch 16: five optimizer steps), "
        f"seeds 200 and up; points against S4D-Lin on the same draw (S4D-Lin: {_f(lin)}).\n"
    )


@region("zoo-pixel-choice")
def zoo_pixel_choice() -> str:
    results = _csv(CONV_S4D_CHOICE).rename(columns={"resample": "seed", "dataset": "task"})
    labels = {
        "tdi": "TDI (default)",
        "tdi-control": "its control",
        "base": "base coverage, spread 0.5",
        "base-control": "control, base coverage",
        "gain": "gain coverage",
        "gain-control": "control, gain coverage",
        "tiled-bd": "base decays",
        "tiled-bd-control": "control, base decays",
    }
    rows = []
    for arm, label in labels.items():
        gaps = _paired_gaps(results, arm, "s4d-lin")
        if gaps.empty:
            continue
        rows.append({"arm": label, "− S4D-Lin at 5 epochs": _mean_se(gaps)})
    lin = results[results["arm"] == "s4d-lin"]["accuracy"].mean()
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r"])
        + f"\npixel-digits, 144 training series (16%), 300 other series of the training split "
        f"scored, the default conv-s4d network at 5 epochs (S4D-Lin: {_f(lin)}); mean ± "
        "standard error over resamples (their number).\n"
    )


def _zoo_cells(results: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (task, budget): mean TDI − S4D-Lin and TDI − control, with standard errors, and
    each arm's mean accuracy (``results``: the zoo's, or a learning-curve file renamed to
    task/seed)."""
    results = _csv(ZOO_RESULTS) if results is None else results
    out = {}
    for name, reference in (("lin", "s4d-lin"), ("control", "tdi-control")):
        gaps = _paired_gaps(results, "tdi", reference)
        grouped = gaps.groupby(level=["task", "budget"])
        out[f"{name}_mean"] = grouped.mean()
        out[f"{name}_se"] = grouped.std(ddof=1) / grouped.count() ** 0.5
        out["draws"] = grouped.count()
    means = results.pivot_table(
        index=["task", "budget"], columns="arm", values="accuracy", aggfunc="mean"
    )
    return pd.DataFrame(out).join(means)


def _cell_rows(cells: pd.DataFrame, name: str, draws: str) -> pd.DataFrame:
    """The per-cell table: arms' mean accuracies and the paired gaps ± their errors."""
    rows = [
        {
            name: task,
            "epochs": int(budget),
            draws: int(cell["draws"]),
            "S4D-Lin": _f(cell["s4d-lin"]),
            "TDI": _f(cell["tdi"]),
            "control": _f(cell["tdi-control"]),
            "TDI − S4D-Lin": f"{_pts(cell['lin_mean'])} ± {cell['lin_se']:.1f}",
            "TDI − control": f"{_pts(cell['control_mean'])} ± {cell['control_se']:.1f}",
        }
        for (task, budget), cell in cells.dropna(subset=["draws"]).iterrows()
    ]
    return pd.DataFrame(rows)


@region("zoo-results")
def zoo_results() -> str:
    return (
        _md_table(_cell_rows(_zoo_cells(), "task", "draws"), align=["l"] + ["r"] * 7)
        + "\nMean test accuracy over draws (seeds 0 and up; each draw a fresh task, its "
        "training series and 64 test series per class), and the paired differences in points, "
        "mean ± standard error over the draws.\n"
    )


@region("zoo-budgets")
def zoo_budgets() -> str:
    results = _csv(ZOO_RESULTS)
    rows = []
    for budget, subset in results.groupby("budget"):
        lin = _paired_gaps(subset, "tdi", "s4d-lin")
        control = _paired_gaps(subset, "tdi", "tdi-control")
        cells = lin.groupby(level="task").mean()
        rows.append(
            {
                "epochs": int(budget),
                "tasks": cells.size,
                "TDI − S4D-Lin": _mean_se(lin),
                "worst task": f"{cells.idxmin()}: {_pts(cells.min())}",
                "TDI − control": _mean_se(control),
            }
        )
    return (
        _md_table(pd.DataFrame(rows), align=["r", "r", "r", "l", "r"])
        + "\nPoints of accuracy, paired on the draw: mean ± standard error over every draw of "
        "every task run at that budget (their number: tasks × draws; seeds 0 and up). The "
        "worst task is the lowest mean over its draws.\n"
    )


# --------------------------------------------------------------------------------------
# the guide's decision page (docs/which_model.md) and the advice on `init`
# (docs/choosing_init.md): what a user can expect, read from the studies' committed results


def _given(dataset: str, per_class: int) -> pd.Series:
    results = _csv(DATA / "given_spectrum.csv")
    return results[(results["dataset"] == dataset) & (results["per_class"] == per_class)].groupby(
        "arm"
    )["accuracy"].mean()


def _standing(test: dict) -> str:
    """How a paired comparison reads: ahead or behind only when the test separates them."""
    if test["p_value"] >= 0.05:
        return "level with"
    return "ahead of" if test["mean_difference"] > 0 else "behind"


@region("which-model")
def which_model() -> str:
    """One row per kind of data: the model to use and what it scored in the studies."""
    kernel = _kernel_means()
    overall = kernel.mean()
    planted = kernel.xs("planted", level="dataset").mean()
    smallest = kernel.xs(kernel.index.get_level_values("ratio").min(), level="ratio").mean()
    by_ratio = kernel.xs("planted", level="dataset")
    planted_gaps = 100 * (by_ratio["tdi+ridge+minirocket"] - by_ratio["minirocket-ridge"])
    cells = _kernel_ok()
    cells = cells[cells["dataset"] == "planted"]
    planted_sizes = (cells["n_train"] / cells["n_classes"]).groupby(cells["ratio"]).mean()
    total, _ = _kernel_seconds()
    seconds = _kernel_dataset_seconds()
    speed = seconds.div(seconds["minirocket-ridge"], axis=0).mean()
    n_kernel = kernel.index.get_level_values("dataset").nunique()
    deep = _deep_means()
    worst = (100 * (deep["tdi"] - deep["inceptiontime"])).idxmin()
    fewshot = _fewshot_means()
    given = _given("planted", 2)
    regression = _csv(DATA / "field_regression_results.csv")
    r2 = regression.pivot_table(
        index="dataset", columns="estimator", values="r2"
    )
    ridge_r2 = _csv(FAST_PATH_REGRESSION).pivot_table(
        index="dataset", columns="estimator", values="r2"
    )
    from sktdi.benchmark import wilcoxon_test

    kernel_test = wilcoxon_test(_csv(KERNEL_REGIME), "tdi+ridge+minirocket", "minirocket-ridge")
    rows = [
        {
            "your data": "shapes or events (outlines, gestures, motion); no reason to expect "
            "frequency bands; a CPU",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`, or sktime's MiniRocket",
            "what to expect": (
                f"{_standing(kernel_test)} MiniRocket: mean accuracy "
                f"{_f(overall['tdi+ridge+minirocket'])} against "
                f"{_f(overall['minirocket-ridge'])} over {n_kernel} datasets at five training "
                f"sizes (Wilcoxon p {kernel_test['p_value']:.2g}); "
                f"{total['tdi+ridge+minirocket']:.2f} s to fit and predict, "
                f"{speed['tdi+ridge+minirocket']:.1f}× bare MiniRocket's time (mean over "
                "datasets)"
            ),
        },
        {
            "your data": "information in frequency bands (vibration, audio, physiology, "
            "spectra), a band you cannot name, and several series per class",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`; "
            "`SpectralRidgeClassifier()` without sktime",
            "what to expect": (
                "ahead of MiniRocket where the information is spectral: "
                f"{_pts(100 * (planted['tdi+ridge+minirocket'] - planted['minirocket-ridge']))} "
                "points on the planted-frequency task (mean over training sizes; "
                f"{_pts(planted_gaps.iloc[0])} at the smallest, "
                f"{int(planted_sizes.iloc[0])} series per class); without "
                "MiniRocket's features "
                f"{_pts(100 * (overall['tdi+ridge'] - overall['minirocket-ridge']))} points "
                "against MiniRocket on average over the datasets"
            ),
        },
        {
            "your data": "you know the informative band, or have a larger related dataset",
            "use": "`SSMClassifier(tdi=TDIOptions(spectrum=...))`, or "
            "`SpectralRidgeClassifier(tdi=TDIOptions(spectrum=...))` without `rocket` (MiniRocket's features know nothing of the band); "
            "`TaskSpectrum.from_frequencies([...])`, or `task_spectrum` of the related data",
            "what to expect": (
                "the largest gain measured (SSMClassifier, planted-frequency task, two series per "
                f"class): {_f(given['s4d-lin'])} with S4D-Lin, {_f(given['tdi-known'])} with the "
                f"band given, {_f(given['tdi-transfer'])} with the spectrum of related data"
            ),
        },
        {
            "your data": "one to three series per class",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`, or sktime's MiniRocket",
            "what to expect": (
                "at the smallest training size "
                f"{_pts(100 * (smallest['tdi+ridge+minirocket'] - smallest['minirocket-ridge']))} "
                "points against MiniRocket with MiniRocket's features, "
                f"{_pts(100 * (smallest['tdi+ridge'] - smallest['minirocket-ridge']))} without "
                f"them (mean of {n_kernel} datasets); the deep model trails the filter bank "
                f"alone by {_pts(100 * (fewshot['tdi'] - fewshot['tdi+ridge']).mean())[1:]} "
                f"points at two series per class ({len(fewshot)} datasets)"
            ),
        },
        {
            "your data": "dozens of series per class or more, and a reason for a deep model: "
            "a GPU, a model to fine-tune, or one to run step by step on a stream",
            "use": "`SSMClassifier()`",
            "what to expect": (
                f"full training sets, {len(deep)} datasets: mean accuracy {_f(deep['tdi'].mean())}, "
                f"InceptionTime {_f(deep['inceptiontime'].mean())}, MiniRocket "
                f"{_f(deep['minirocket'].mean())}; furthest behind on {worst} "
                f"({_pts(100 * (deep.loc[worst, 'tdi'] - deep.loc[worst, 'inceptiontime']))} "
                f"points against InceptionTime); fit time {_timing_ratio().mean():.1f}× "
                f"InceptionTime's{confirmation_clause()}"
            ),
        },
        {
            "your data": "a numeric target (regression)",
            "use": "`SpectralRidgeRegressor(rocket=\"minirocket\")` or sktime's MiniRocket "
            "regressor, whichever cross-validates better on your data; `SSMRegressor()` when you "
            "need a deep model",
            "what to expect": "R² on the two datasets measured (mean over resamples): "
            + "; ".join(
                f"{d}: SpectralRidgeRegressor {_f(ridge_r2.loc[d, 'tdi+ridge'])}, with "
                f"MiniRocket's features {_f(ridge_r2.loc[d, 'tdi+ridge+minirocket'])}, "
                f"MiniRocket {_f(ridge_r2.loc[d, 'minirocket'])}, SSMRegressor "
                f"{_f(r2.loc[d, 'tdi'])}"
                for d in ridge_r2.index
            ),
        },
    ]
    return _md_table(pd.DataFrame(rows), ["l", "l", "l"])


#: a measured gap this many standard errors below zero makes S4D-Lin the advice
ADVICE_STANDARD_ERRORS = 2.0


def _default_init_gaps() -> pd.DataFrame:
    """Every paired gap (points) of the default TDI (``beside``) against S4D-Lin on real
    series, deep model: the choice set's training-split cells and the test splits' cells."""
    choice = _csv(TDI_REAL_CHOICE)
    choice = choice[choice["preset"] != "bank"]
    gaps = pd.concat([_real_pairs(choice, "beside"), _real_test_gaps("beside")])
    return gaps.rename("gap").reset_index()


def init_advice() -> pd.DataFrame:
    """Per training budget on real series (the default TDI against S4D-Lin, every real
    dataset of docs/tdi_real.md): the gap, its standard error over paired draws, and the
    `init` to advise: S4D-Lin only where TDI is measurably behind."""
    gaps = _default_init_gaps()
    rows = []
    for budget, subset in gaps.groupby("budget"):
        se = subset["gap"].std(ddof=1) / len(subset) ** 0.5
        behind = subset["gap"].mean() + ADVICE_STANDARD_ERRORS * se < 0
        rows.append(
            {
                "epochs": int(budget),
                "gap": subset["gap"].mean(),
                "se": se,
                "draws": len(subset),
                "datasets": subset["dataset"].nunique(),
                "advice": "s4d-lin" if behind else "tdi",
            }
        )
    return pd.DataFrame(rows)


@region("init-by-budget")
def init_by_budget() -> str:
    advice = init_advice()
    table = pd.DataFrame(
        {
            "epochs (`max_epochs`)": advice["epochs"],
            "TDI − S4D-Lin (points)": [
                f"{_pts(g)} ± {s:.1f} ({n})"
                for g, s, n in zip(advice["gap"], advice["se"], advice["draws"])
            ],
            "datasets": advice["datasets"],
            "use": [f'`"{a}"`' for a in advice["advice"]],
        }
    )
    return (
        _md_table(table, ["r", "r", "r", "l"])
        + "\nReal series ({doc}`tdi_real`): the 784-step digits with one S4D layer, and the "
        "64-step digits and the UCR/UEA sets at 4 series per class with the default network; "
        "mean ± standard error over paired draws (their number in brackets), training and test "
        "splits together. The advice is S4D-Lin only where TDI is behind by more than "
        f"{ADVICE_STANDARD_ERRORS:g} standard errors.\n"
    )


# --------------------------------------------------------------------------------------
# TDI on real series (docs/tdi_real.md, issue 35): benchmarks/tdi_real.py's results

TDI_REAL_CHOICE = DATA / "tdi_real_choice.csv"
TDI_REAL_CONFIRM = DATA / "tdi_real_confirm.csv"
TDI_REAL_BISECTION = DATA / "tdi_real_bisection.csv"
TDI_REAL_MODES = DATA / "tdi_real_modes.csv"
TDI_REAL_LABELS = {
    "s4d-lin": "S4D-Lin",
    "tiled": "TDI before (tiled)",
    "tiled-control": "control, tiled",
    "beside": "TDI now (beside the base)",
    "beside-control": "control, beside",
    "beside75": "beside75 (a quarter moved)",
    "gain": "gain",
    "beside-all": "beside, every block",
}
TDI_REAL_PRESETS = {
    "default": "default network",
    "s4d-1": "`network=\"s4d\"`, one layer",
    "conv-1": "default network, one block",
    "bank": "fast path (bank + ridge)",
    "old": "the recipe of the +8.2: S4D network, d_model 64, 2 layers, mean-max, dt_max 1.0",
    "old-dt": "… dt_max 0.1 (today's)",
    "old-dt-mean": "… and mean pooling",
    "old-dt-mean-conv": "… and the conv-s4d network (d_model 64, 2 blocks)",
}
TDI_REAL_GROUP = ["dataset", "mode", "preset", "per_class", "budget"]


def _real_pairs(results: pd.DataFrame, arm: str, reference: str = "s4d-lin") -> pd.Series:
    """100 × (arm − reference) per paired cell (same draw, network and budget)."""
    index = TDI_REAL_GROUP + ["resample"]
    wide = results.pivot_table(index=index, columns="arm", values="accuracy")
    if arm not in wide or reference not in wide:
        return pd.Series(dtype=float)
    return (100 * (wide[arm] - wide[reference])).dropna()


def _real_table(results: pd.DataFrame, arms: list[str], with_mean: bool = True) -> str:
    """One row per (dataset, network, size, budget): S4D-Lin's accuracy and each arm's gap to
    it (mean ± SE over draws, their number in brackets); with several datasets, a mean row per
    budget (each dataset's mean gap weighs the same) with the worst dataset's."""
    reference = results[results["arm"] == "s4d-lin"].groupby(TDI_REAL_GROUP)["accuracy"].mean()
    gaps = {arm: _real_pairs(results, arm) for arm in arms}
    label = {arm: f"{TDI_REAL_LABELS[arm]} − S4D-Lin" for arm in arms}
    rows = []
    for key, accuracy in reference.items():
        dataset, _, preset, per_class, budget = key
        row = {
            "dataset": dataset,
            "network": TDI_REAL_PRESETS[preset],
            "series per class": str(int(per_class)) if per_class < 10_000 else "all",
            "epochs": str(int(budget)) if budget else "–",
            "S4D-Lin": _f(accuracy),
        }
        for arm in arms:
            cell = gaps[arm].droplevel("resample") if len(gaps[arm]) else gaps[arm]
            cell = cell[cell.index.isin([key])] if len(cell) else cell
            row[label[arm]] = _mean_se(cell) if len(cell) else ""
        rows.append(row)
    table = pd.DataFrame(rows)
    if with_mean and table["dataset"].nunique() > 1:
        for budget in sorted(results["budget"].unique()):
            row = {"dataset": "**mean**", "network": "", "series per class": "",
                   "epochs": str(int(budget)) if budget else "–", "S4D-Lin": ""}
            for arm in arms:
                at = gaps[arm][gaps[arm].index.get_level_values("budget") == budget]
                per_dataset = at.groupby(level="dataset").mean()
                row[label[arm]] = (
                    f"{_pts(per_dataset.mean())} (worst {_pts(per_dataset.min())})"
                    if len(per_dataset) else ""
                )
            rows.append(row)
        table = pd.DataFrame(rows)
    return _md_table(table, ["l", "l", "r", "r", "r"] + ["r"] * len(arms))


@region("tdi-real-census")
def tdi_real_census() -> str:
    census = _csv(TDI_REAL_MODES)
    length = int(census["length"].iloc[0])
    table = pd.DataFrame({
        "first layer's modes": [TDI_REAL_LABELS[a] for a in census["arm"]],
        "aliased (Im(A)·dt > π)": census["aliased"].map(lambda v: f"{v:.0%}"),
        "median memory (steps)": census["memory_median"].map(lambda v: f"{v:.0f}"),
        f"memory ≥ L/4 ({length // 4} steps)": census["long_memory"].map(lambda v: f"{v:.0%}"),
        "memory ≤ 10 steps": census["short_memory"].map(lambda v: f"{v:.0%}"),
        "at f ≤ 0.05": census["below_0.05"].map(lambda v: f"{v:.0%}"),
    })
    return _md_table(table, ["l"] + ["r"] * 5)


@region("tdi-real-bisection")
def tdi_real_bisection() -> str:
    results = _csv(TDI_REAL_BISECTION)
    rows = []
    for preset in [p for p in TDI_REAL_PRESETS if p in set(results["preset"])]:
        subset = results[results["preset"] == preset]
        means = subset.groupby("arm")["accuracy"].mean()
        row = {"network": TDI_REAL_PRESETS[preset], "S4D-Lin": _f(means.get("s4d-lin"))}
        for arm in ("tiled", "beside"):
            if arm in means:
                row[f"{TDI_REAL_LABELS[arm]} − S4D-Lin"] = _pts(
                    100 * (means[arm] - means["s4d-lin"])
                )
        rows.append(row)
    return _md_table(pd.DataFrame(rows), ["l", "r", "r", "r"])


@region("tdi-real-choice")
def tdi_real_choice() -> str:
    results = _csv(TDI_REAL_CHOICE)
    results = results[results["preset"] != "bank"]
    arms = [a for a in ("tiled", "beside", "beside-control", "beside75", "gain", "beside-all")
            if a in set(results["arm"])]
    return _real_table(results, arms)


@region("tdi-real-confirm")
def tdi_real_confirm() -> str:
    results = _csv(TDI_REAL_CONFIRM)
    results = results[~results["preset"].isin(["bank"]) & (results["dataset"] != "digits-784")]
    arms = [a for a in ("beside", "beside-control", "tiled") if a in set(results["arm"])]
    return _real_table(results, arms)


@region("tdi-real-digits")
def tdi_real_digits() -> str:
    results = _csv(TDI_REAL_CONFIRM)
    results = results[(results["dataset"] == "digits-784") & (results["preset"] != "bank")]
    arms = [a for a in ("beside", "beside-control", "tiled") if a in set(results["arm"])]
    return _real_table(results, arms, with_mean=False)


@region("tdi-real-fast")
def tdi_real_fast() -> str:
    results = _csv(TDI_REAL_CONFIRM)
    results = results[results["preset"] == "bank"]
    arms = [a for a in ("beside", "beside-control", "tiled") if a in set(results["arm"])]
    return _real_table(results, arms)


GIVEN_BESIDE = DATA / "given_spectrum_beside.csv"


def _given_gaps(path: Path, arm: str) -> pd.Series:
    """Per-class mean of 100 × (arm − S4D-Lin) on the planted task (paired resamples)."""
    results = _csv(path)
    results = results[results["dataset"] == "planted"]
    wide = results.pivot_table(index=["per_class", "resample"], columns="arm", values="accuracy")
    return (100 * (wide[arm] - wide["s4d-lin"])).groupby(level="per_class").mean()


@region("tdi-real-given")
def tdi_real_given() -> str:
    """The planted task, where the base is blind: TDI's gain over S4D-Lin with the band
    given, transferred or estimated, the old form (tiled) and the new (beside), one run."""
    results = _csv(GIVEN_BESIDE)
    lin = results[results["arm"] == "s4d-lin"].groupby("per_class")["accuracy"].mean()
    rows = []
    for arm, label in (("tdi-known", "band given"), ("tdi-transfer", "spectrum of related data"),
                       ("tdi", "estimated from the training series")):
        now = _given_gaps(GIVEN_BESIDE, arm)
        tiled = (
            _given_gaps(GIVEN_BESIDE, f"{arm}-tiled")
            if f"{arm}-tiled" in set(results["arm"]) else pd.Series(dtype=float)
        )
        for per_class in now.index:
            rows.append({
                "TDI's statistic": label,
                "series per class": int(per_class),
                "S4D-Lin": _f(lin[per_class]),
                "TDI before (tiled) − S4D-Lin": _pts(tiled[per_class]) if per_class in tiled else "",
                "TDI now (beside the base) − S4D-Lin": _pts(now[per_class]),
            })
    return _md_table(pd.DataFrame(rows), ["l", "r", "r", "r", "r"])


def _real_test_gaps(arm: str, reference: str = "s4d-lin") -> pd.Series:
    """Every paired gap (points) of the real datasets' test splits, deep model, both sets."""
    confirm = _csv(TDI_REAL_CONFIRM)
    return _real_pairs(confirm[confirm["preset"] != "bank"], arm, reference)


def _check(ok: bool) -> str:
    return "met" if ok else "**missed**"


@region("tdi-real-targets")
def tdi_real_targets() -> str:
    """Issue 35's targets against the measurements, each from the results files."""
    rows = []
    choice = _csv(TDI_REAL_CHOICE)
    choice = choice[choice["preset"] != "bank"]
    gaps = pd.concat([_real_pairs(choice, "beside"), _real_test_gaps("beside")])
    cells = gaps.groupby(level=["dataset", "mode", "preset", "budget"]).mean()
    worst = cells.idxmin()
    by_budget = gaps.groupby(level="budget").mean()
    rows.append({
        "target": "TDI − S4D-Lin ≥ −0.5 at every budget on every real dataset, and on the mean",
        "measured": (
            f"worst cell {_pts(cells.min())} ({worst[0]}, {worst[3]} epochs, {worst[1]} split); "
            "mean per budget " + ", ".join(f"{int(b)}: {_pts(v)}" for b, v in by_budget.items())
        ),
        "": _check(cells.min() >= -0.5 and by_budget.min() >= -0.5),
    })
    confirm = _csv(TDI_REAL_CONFIRM)
    digits = confirm[(confirm["dataset"] == "digits-784") & (confirm["preset"] == "s4d-1")]
    lead = _real_pairs(digits, "beside").groupby(level="budget").mean()
    rows.append({
        "target": "784-step digits at 1%, one layer: TDI ≥ S4D-Lin + 3 at 5 and 10 epochs",
        "measured": ", ".join(f"{int(b)} epochs {_pts(v)}" for b, v in lead.items()),
        "": _check(len(lead) > 0 and lead.min() >= 3),
    })
    control = pd.concat([
        _real_pairs(choice, "beside", "beside-control"), _real_test_gaps("beside", "beside-control")
    ])
    control = control.groupby(level=["dataset", "budget"]).mean().groupby(level="budget").mean()
    rows.append({
        "target": "TDI ahead of its control on the mean at every budget",
        "measured": ", ".join(f"{int(b)}: {_pts(v)}" for b, v in control.items()),
        "": _check(control.min() > 0),
    })
    known, transfer = _given_gaps(GIVEN_BESIDE, "tdi-known"), _given_gaps(GIVEN_BESIDE, "tdi-transfer")
    rows.append({
        "target": "keep the gains where the base is blind (+16 to +41 with a given spectrum)",
        "measured": "planted task, band given: " + ", ".join(
            f"{int(k)} per class {_pts(v)}" for k, v in known.items()
        ) + "; related data's spectrum: " + ", ".join(
            f"{int(k)} per class {_pts(v)}" for k, v in transfer.items()
        ),
        "": _check(min(known.min(), transfer.min()) >= 16),
    })
    bank = confirm[confirm["preset"] == "bank"]
    bank_gaps = _real_pairs(bank, "beside").groupby(level="dataset").mean()
    rows.append({
        "target": "fast path: TDI bank − S4D-Lin bank ≥ +1 on the mean, never below −1",
        "measured": f"mean {_pts(bank_gaps.mean())}, worst {_pts(bank_gaps.min())} "
        f"({bank_gaps.idxmin()})",
        "": _check(bank_gaps.mean() >= 1 and bank_gaps.min() >= -1),
    })
    return _md_table(pd.DataFrame(rows), ["l", "l", "l"])


@region("tdi-real-summary")
def tdi_real_summary() -> str:
    """The decision page's sentence on TDI and real data, from docs/tdi_real.md's results."""
    gaps = _default_init_gaps()
    per_dataset = gaps.groupby("dataset")["gap"].mean()
    confirm = _csv(TDI_REAL_CONFIRM)
    digits = confirm[(confirm["dataset"] == "digits-784") & (confirm["preset"] == "s4d-1")]
    lead = _real_pairs(digits, "beside").groupby(level="budget").mean()
    tiled = _real_pairs(digits, "tiled").groupby(level="budget").mean()
    control = gaps.merge(
        pd.concat([
            _real_pairs(_csv(TDI_REAL_CHOICE)[lambda d: d["preset"] != "bank"], "beside-control"),
            _real_test_gaps("beside-control"),
        ]).rename("control").reset_index()
    )
    over_control = (control["gap"] - control["control"]).mean()
    return (
        f"On real series ({per_dataset.size} datasets, {{doc}}`tdi_real`), TDI − S4D-Lin is "
        f"{_pts(gaps['gap'].mean())} points on the mean of {len(gaps)} paired fits (from "
        f"{_pts(per_dataset.min())} on {per_dataset.idxmin()} to {_pts(per_dataset.max())} on "
        f"{per_dataset.idxmax()}), and {_pts(over_control)} against its placebo. On the 784-step "
        "digits at 1% with one S4D layer it is "
        + ", ".join(f"{_pts(v)} at {int(b)} epochs" for b, v in lead.items())
        + " (the TDI of earlier versions: "
        + ", ".join(f"{_pts(v)}" for v in tiled.values)
        + ").\n"
    )


def regions(path: Path) -> list[tuple[str, str]]:
    """(name, body) of every generated region in a page."""
    return [(m["name"], m["body"]) for m in REGION.finditer(path.read_text())]


def render(path: Path) -> str:
    """The page with every region regenerated."""

    def replace(match):
        name = match["name"]
        if name not in GENERATORS:
            raise KeyError(f"{path.name}: no generator for region {name!r}")
        return match["start"] + GENERATORS[name]() + match["end"]

    return REGION.sub(replace, path.read_text())


def stale(pages=None) -> list[str]:
    """'page: region' for every region whose text differs from what its generator writes."""
    out = []
    for page in pages or PAGES:
        current = regions(page)
        if not current:
            continue
        fresh = [(m["name"], m["body"]) for m in REGION.finditer(render(page))]
        for (name, body), (_, new) in zip(current, fresh):
            if new != body:
                out.append(f"{page.relative_to(ROOT)}: {name}")
    return out


# --------------------------------------------------------------------------------------
# TDI at every training budget (docs/budgets.md): benchmarks/learning_curves.py's results

BUDGET_ARMS = {
    "lin": "S4D-Lin",
    "tiled": "TDI, tiled coverage (before)",
    "base": "TDI, base coverage, spread 0.5",
    "gain": "TDI, gain coverage",
    "tiled-control": "control, tiled",
    "base-control": "control, base",
    "gain-control": "control, gain",
    "base25": "TDI, base coverage, spread 0.25",
    "gain10": "TDI, gain coverage, spread 0.1",
    "half": "TDI, tiled, half the channels",
    "half-control": "control, tiled, half the channels",
    "base25-control": "control, base, spread 0.25",
    "tiled-bd": "TDI, tiled, base decays",
    "tiled-bd-control": "control, tiled, base decays",
    "tdi": "TDI",
    "s4d-lin": "S4D-Lin",
    "s4d-inv": "S4D-Inv",
    "tdi-control": "TDI control",
}
BUDGET_CHOICE = DATA / "learning_curves_choice.csv"
BUDGET_CHOICE_STUDY = DATA / "learning_curves_choice_study.csv"
BUDGET_RESULTS = DATA / "learning_curves.csv"
BUDGET_RESULTS_STUDY = DATA / "learning_curves_study.csv"
TRAINING_STEP = DATA / "training_step.json"


def _budget_means(results: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy per (dataset, ratio, budget) × arm: over resamples."""
    return results.pivot_table(
        index=["dataset", "ratio", "budget"], columns="arm", values="accuracy", aggfunc="mean"
    )


def _budget_table(
    results: pd.DataFrame, arms: list[str], reference: str, leads: list[str], labels: dict
):
    """Rows = budgets (datasets averaged after resamples), a column per arm, then each of
    ``leads`` minus ``reference`` in points and, over several datasets, the worst dataset's
    difference."""
    means = _budget_means(results)
    by_budget = means.groupby(level="budget").mean()
    out = pd.DataFrame({"epochs": by_budget.index.astype(int)})
    for arm in arms:
        if arm in by_budget:
            out[labels[arm]] = by_budget[arm].map(_f).to_numpy()
    several = means.index.get_level_values("dataset").nunique() > 1
    for arm in leads:
        if arm not in means:
            continue
        gap = 100 * (means[arm] - means[reference])
        name = f"{labels[arm]} − {labels[reference]}"
        out[name] = gap.groupby(level="budget").mean().map(_pts).to_numpy()
        if several:
            out[f"worst dataset ({labels[arm]})"] = (
                gap.groupby(level="budget").min().map(_pts).to_numpy()
            )
    return out


# short names for the choice tables (the page's list says what each family is)
CHOICE_LABELS = {
    "lin": "S4D-Lin",
    "tiled": "tiled",
    "base": "base",
    "gain": "gain",
    "tiled-bd": "tiled+decays",
    "tiled-control": "ctrl tiled",
    "base-control": "ctrl base",
    "gain-control": "ctrl gain",
}


@region("budget-choice-pixel")
def budget_choice_pixel() -> str:
    results = _csv(BUDGET_CHOICE)
    arms = [
        "lin",
        "tiled",
        "base",
        "gain",
        "tiled-bd",
        "tiled-control",
        "base-control",
        "gain-control",
    ]
    table = _budget_table(
        results, arms, "lin", ["tiled", "base", "gain", "tiled-bd"], CHOICE_LABELS
    )
    cells = results[results["arm"].isin(arms)].groupby(["arm", "budget"])["resample"].nunique()
    short = [
        f"{BUDGET_ARMS[a]} at {int(b)} epochs ({n})"
        for (a, b), n in cells.items()
        if n < cells.max()
    ]
    note = (
        f"\nMean validation accuracy over {cells.max()} resamples"
        + (f" (fewer: {', '.join(short)})" if short else "")
        + f"; {int(results['n_fit'].iloc[0])} training series fitted, "
        f"{int(results['n_eval'].iloc[0])} other series of the training split scored. A "
        "blank: the arm was not run at that budget (the controls only up to 20 epochs).\n"
    )
    return _md_table(table, align=["r"] * len(table.columns)) + note


@region("budget-choice-study")
def budget_choice_study() -> str:
    results = _csv(BUDGET_CHOICE_STUDY)
    arms = ["lin", "tiled", "base", "gain"]
    table = _budget_table(results, arms, "lin", arms[1:], CHOICE_LABELS)
    datasets = ", ".join(sorted(results["dataset"].unique()))
    n = results.groupby("arm")["resample"].nunique().min()
    return (
        _md_table(table, align=["r"] * len(table.columns))
        + f"\nMean over the datasets ({datasets}) of the mean validation accuracy over {n} "
        'resamples; "worst dataset" is the arm\'s largest loss to S4D-Lin on one dataset.\n'
    )


@region("budget-choice-resamples")
def budget_choice_resamples() -> str:
    """Per resample at the longest budget: how much of a gap is one draw of 144 series."""
    results = _csv(BUDGET_CHOICE)
    longest = results["budget"].max()
    arms = ["lin", "tiled", "base", "gain", "tiled-bd"]
    at = results[(results["budget"] == longest) & results["arm"].isin(arms)]
    table = at.pivot_table(index="resample", columns="arm", values="accuracy")
    table = table[[a for a in arms if a in table]]
    out = pd.DataFrame({"resample": table.index})
    for arm in table.columns:
        out[CHOICE_LABELS[arm]] = table[arm].map(_f).to_numpy()
    out["tiled − S4D-Lin"] = (100 * (table["tiled"] - table["lin"])).map(_pts).to_numpy()
    stopped = results.groupby("arm")["resample"].nunique()
    stopped = stopped[stopped < stopped.max()]
    partial = results[results["arm"].isin(stopped.index)]
    notes = [
        f"{BUDGET_ARMS[r.arm]}: {r.accuracy:.3f} at {int(r.budget)} epochs, "
        f"resample {int(r.resample)}"
        for r in partial[partial["budget"] == longest].itertuples()
    ]
    return (
        f"Validation accuracy at {int(longest)} epochs, per resample (a blank: not run).\n\n"
        + _md_table(out, align=["r"] * len(out.columns))
        + "\nArms stopped before their other resamples (so left out of the choice): "
        + "; ".join(notes)
        + ".\n"
    )


def _budget_gap(results: pd.DataFrame, arm: str, reference: str) -> pd.Series:
    """Mean over datasets of the mean-over-resamples gap ``arm − reference`` (points), by
    (ratio, budget)."""
    means = _budget_means(results)
    gap = 100 * (means[arm] - means[reference])
    return gap.groupby(level=["ratio", "budget"]).mean()


@region("budget-targets")
def budget_targets() -> str:
    rows = []
    long_gap = _budget_gap(_csv(BUDGET_RESULTS), "tdi", "s4d-lin")
    for ratio, gaps in long_gap.groupby(level="ratio"):
        gaps = gaps.droplevel("ratio")
        worst = gaps.idxmin()
        rows.append(
            [
                f"pixel-digits, ratio {ratio:g}: TDI − S4D-Lin ≥ −0.5 pts at every budget",
                f"worst {_pts(gaps.min())} pts at {int(worst)} epochs",
                "met" if gaps.min() >= -0.5 else "**missed**",
            ]
        )
        early = gaps[gaps.index <= 5]
        rows.append(
            [
                f"pixel-digits, ratio {ratio:g}: TDI − S4D-Lin ≥ +5 pts at ≤ 5 epochs",
                ", ".join(f"{_pts(v)} at {int(b)}" for b, v in early.items()),
                "met" if early.min() >= 5 else "**missed**",
            ]
        )
    study = _csv(BUDGET_RESULTS_STUDY)
    gaps = _budget_gap(study, "tdi", "s4d-lin").droplevel("ratio")
    worst = gaps.idxmin()
    rows.append(
        [
            "study datasets (mean), ratio 0.16: TDI − S4D-Lin ≥ −0.5 pts at every budget",
            f"worst {_pts(gaps.min())} pts at {int(worst)} epochs",
            "met" if gaps.min() >= -0.5 else "**missed**",
        ]
    )
    step = _training_step()
    epoch, layer = step["epoch"]["ratio"], step["layer"]["layer"]["ratio"]
    rows.append(
        [
            "estimator epoch ≤ 1.05 × a plain torch loop",
            f"{epoch:.3f}×",
            "met" if epoch <= 1.05 else "**missed**",
        ]
    )
    rows.append(
        [
            "S4D layer step ≤ 0.7 × before (16, 64, 64, 1024)",
            f"{layer:.2f}×",
            "met" if layer <= 0.7 else "**missed**",
        ]
    )
    table = pd.DataFrame(rows, columns=["target", "measured", ""])
    return _md_table(table, align=["l", "l", "l"])


@region("budget-results")
def budget_results() -> str:
    results = _csv(BUDGET_RESULTS)
    parts = []
    for ratio, subset in results.groupby("ratio"):
        table = _budget_table(
            subset, ["tdi", "s4d-lin", "s4d-inv", "tdi-control"], "s4d-lin", ["tdi"], BUDGET_ARMS
        )
        control = _budget_table(subset, [], "tdi-control", ["tdi"], BUDGET_ARMS)
        table[control.columns[-1]] = control[control.columns[-1]]
        n_fit = int(subset["n_fit"].iloc[0])
        n = subset["resample"].nunique()
        parts.append(
            f"**Training ratio {ratio:g}** ({n_fit} series, {n} resamples, the whole test "
            f"split scored)\n\n" + _md_table(table, align=["r"] * len(table.columns))
        )
    return "\n\n".join(parts) + "\n"


@region("budget-results-study")
def budget_results_study() -> str:
    results = _csv(BUDGET_RESULTS_STUDY)
    table = _budget_table(
        results, ["tdi", "s4d-lin", "s4d-inv", "tdi-control"], "s4d-lin", ["tdi"], BUDGET_ARMS
    )
    datasets = ", ".join(sorted(results["dataset"].unique()))
    n = results["resample"].nunique()
    ratio = ", ".join(f"{r:g}" for r in sorted(results["ratio"].unique()))
    return (
        _md_table(table, align=["r"] * len(table.columns))
        + f"\nMean test accuracy over the datasets ({datasets}), training ratio {ratio}, "
        f'{n} resamples each; "worst dataset" is TDI\'s largest loss to S4D-Lin on one '
        "dataset.\n"
    )


def _training_step() -> dict:
    import json

    return json.loads(TRAINING_STEP.read_text())


@region("training-step")
def training_step() -> str:
    step = _training_step()
    layer, epoch = step["layer"], step["epoch"]
    shape = layer["shape"]
    rows = []
    for part, what in (
        ("layer", "S4D layer"),
        ("block", "S4D block (layer, GELU, GLU mixing, LayerNorm)"),
    ):
        m = layer[part]
        rows.append(
            [
                what,
                f"{m['baseline_ms']:.1f} ms",
                f"{m['code_only_ms']:.1f} ms ({m['code_only_ratio']:.2f}×)",
                f"{m['current_ms']:.1f} ms (**{m['ratio']:.2f}×**)",
            ]
        )
    table = pd.DataFrame(
        rows,
        columns=[
            f"forward + backward, batch {shape['batch']}, d_model {shape['d_model']}, "
            f"d_state {shape['d_state']}, length {shape['length']}",
            f"before ({layer['baseline']})",
            "now, code alone",
            "now, as a fit trains it",
        ],
    )
    return (
        _md_table(table, align=["l", "r", "r", "r"])
        + f"\nMedian over {layer['rounds']} alternating rounds, {layer['threads']} threads; "
        '"code alone" runs the new code in a process left at glibc\'s malloc defaults (as the '
        'baseline ran), "as a fit trains it" with freed memory kept (below).\n\n'
        + f"One epoch of `SSMClassifier.fit` ({epoch['series']} pixel-digits series, "
        f"{epoch['steps_per_epoch']} steps of 16, one layer, d_model 64): "
        f"**{epoch['estimator_epoch_s']:.2f} s**, against {epoch['plain_loop_epoch_s']:.2f} s "
        f"for a plain torch loop doing the same work: **{epoch['ratio']:.3f}×** (median of "
        f"{epoch['epochs_timed']} epochs, {epoch['threads']} threads, both in one process).\n"
    )


@region("freed-memory")
def freed_memory() -> str:
    """What keeping freed memory (sktdi.utils.memory) buys a CPU training step: the same code with
    glibc's defaults against it kept, from the training-step benchmark."""
    layer = _training_step()["layer"]
    shape = layer["shape"]

    def change(part: str) -> str:
        m = layer[part]
        ratio = m["current_ms"] / m["code_only_ms"]
        return f"from {m['code_only_ms']:.1f} ms to {m['current_ms']:.1f} ms ({ratio:.2f}×)"

    return (
        f"Keeping freed memory takes an S4D layer's training step (forward + backward, batch "
        f"{shape['batch']}, d_model {shape['d_model']}, length {shape['length']}) "
        f"{change('layer')}, and an S4D block's {change('block')}: median over "
        f"{layer['rounds']} alternating rounds, {layer['threads']} threads, in fresh "
        f"processes ({{doc}}`budgets`).\n"
    )


PREDICT_MEMORY = DATA / "predict_memory.json"


@region("predict-memory")
def predict_memory() -> str:
    """docs/gpu.md: ``predict``'s peak memory and throughput on long inputs (CPU), from
    benchmarks/bench_predict_memory.py's results."""
    import json

    result = json.loads(PREDICT_MEMORY.read_text())
    runs = result["runs"]
    rows = [
        [
            f"{r['n_series']:,}",
            f"{r['input_mib']:.0f} MiB",
            f"{r['peak_increase_mib']:.0f} MiB",
            f"{r['predict_s']:.0f} s",
            f"{r['series_per_s']:.0f}",
            f"{r['load_average_after']:.1f}",
        ]
        for r in runs
    ]
    table = pd.DataFrame(
        rows,
        columns=[
            f"series of length {runs[0]['length']}",
            f"X ({runs[0]['input_dtype']})",
            "peak memory of `predict` (above the process before the call)",
            "time",
            "series/s",
            "machine load",
        ],
    )
    model = result["model"]
    return (
        _md_table(table, align=["r"] * 6)
        + f"\n`predict` of an {model['estimator']}, {runs[0]['inference_dtype']} inference, "
        f"batches of {runs[0]['predict_batch_size']} series, {runs[0]['torch_threads']} CPU "
        f"threads of a {result['machine']['cpu_count']}-core machine, each size in a fresh "
        "process; peak: the kernel's resident high-water mark; machine load: the 1-minute load "
        "average at the end, other work included (above 2, the series/s are shared with it). "
        "`benchmarks/bench_predict_memory.py`.\n"
    )


def draw_learning_curves() -> None:
    """docs/images/learning_curves.png: the long-sequence task's curves against epochs and
    against training time, from the committed results (the same plotting function users
    call)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.plotting import plot_learning_curves

    results = _csv(BUDGET_RESULTS)
    ratios = sorted(results["ratio"].unique())
    fig, axes = plt.subplots(len(ratios), 2, figsize=(10, 3.6 * len(ratios)), squeeze=False)
    for row, ratio in zip(axes, ratios):
        subset = results[results["ratio"] == ratio]
        for ax, x in zip(row, ("budget", "seconds")):
            plot_learning_curves(subset, x=x, ax=ax)
            ax.set_title(f"pixel-digits, training ratio {ratio:g}")
            ax.set_ylabel("test accuracy")
    fig.tight_layout()
    fig.savefig(DOCS / "images" / "learning_curves.png", dpi=110)
    plt.close(fig)
    print("drew docs/images/learning_curves.png")


def draw_default_benchmark_figures() -> None:
    """The two figures ``sktdi benchmark`` saves, drawn from the committed default run (the
    same functions the command calls), so the page shows them as a user sees them."""
    from sktdi.benchmark import plot_accuracy_vs_ratio, plot_paired_difference

    results = _csv(ROOT / "docs" / "data" / "default_benchmark_results.csv")
    images = ROOT / "docs" / "images"
    plot_accuracy_vs_ratio(results, images / "default_benchmark.png")
    plot_paired_difference(results, images / "default_benchmark_paired.png")
    print("drew docs/images/default_benchmark.png and default_benchmark_paired.png")


# --------------------------------------------------------------------------------------
# the kernel regime (docs/kernel_regime.md): SpectralRidgeClassifier against MiniRocket

KERNEL_REGIME = DATA / "kernel_regime" / "results.csv"
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
#: MiniRocket as sktime's RocketClassifier: official splits only, for its clock
KERNEL_WRAPPED = "minirocket"


@region("kernel-choice")
def kernel_choice() -> str:
    """Rounds 5 and 6 of the training-split study: whole models, per protocol and dataset."""
    rows = []
    for number, name in KERNEL_CHOICE_ROUNDS.items():
        results = _csv(DATA / f"{name}.csv")
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
        results = _csv(DATA / f"{name}.csv").assign(
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
        f"One `sktdi benchmark` run (`benchmarks/run_kernel_regime.sh`): {len(results)} cells "
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


def _kernel_seconds() -> tuple[pd.Series, pd.Series]:
    """Mean fit + predict seconds per model: over every cell, and over the official splits
    (resample 0, where RocketClassifier also ran)."""
    ok = _kernel_ok(wrapped=True).assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    official = ok[ok["resample"] == 0].groupby("estimator")["total"].mean()
    return ok.groupby("estimator")["total"].mean(), official


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


FAST_PATH_BENCH = DATA / "fast_path_bench.json"
FAST_PATH_REGRESSION = DATA / "fast_path_regression.csv"
BENCH_MODELS = {
    "tdi+ridge": "TDI bank",
    "tdi+ridge-float64": "TDI bank, float64 recurrence",
    "tdi+ridge+minirocket": "TDI + MiniRocket",
    "minirocket-ridge": "MiniRocket",
}


def _kernel_dataset_seconds() -> pd.DataFrame:
    """Mean fit + predict seconds per dataset (rows) and arm (columns), every cell."""
    ok = _kernel_ok().assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    return ok.pivot_table(index="dataset", columns="estimator", values="total", aggfunc="mean")


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


def _bench_runs() -> pd.DataFrame:
    return pd.DataFrame(json.loads(FAST_PATH_BENCH.read_text())["runs"])


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
        f"`benchmarks/bench_fast_path.py`, {report['started'][:10]}: each dataset's official "
        f"split, whole training set, {int(runs['threads'].max())} threads, one model at a time "
        f"in a fresh process (after one warm-up fit); time is the median of "
        f"{report['repeats']} fits + predictions; peak is the resident high-water mark above "
        "the process's resident memory before the fit.\n"
    )


RIDGE_REGRESSOR_PATH = DATA / "ridge_regressor_path.csv"
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


@region("fast-path-speed")
def fast_path_speed() -> str:
    """The guide's one paragraph on cost, from the kernel-regime run and the memory bench."""
    seconds = _kernel_dataset_seconds()
    ratio = seconds.div(seconds["minirocket-ridge"], axis=0).mean()
    runs = _bench_runs()
    peak = runs.pivot_table(index="dataset", columns="model", values="peak_increase_mib")
    n = len(seconds)
    return (
        f"Fitting and predicting takes {ratio['tdi+ridge']:.1f}× the time of MiniRocket's own "
        f"transform and ridge head, and {ratio['tdi+ridge+minirocket']:.1f}× with "
        f"`rocket=\"minirocket\"` (mean over the {n} datasets of {{doc}}`kernel_regime` of "
        "the per-dataset ratios, "
        f"where MiniRocket took {seconds['minirocket-ridge'].mean():.2f} s per fit and "
        f"prediction); its peak memory was {peak['tdi+ridge'].median():.0f} MiB above the "
        f"process's (median over datasets; MiniRocket's {peak['minirocket-ridge'].median():.0f})."
        "\n"
    )


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
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", ""]), ["l", "r", "l"])


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
        results = _csv(DATA / f"{name}.csv")
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


# ---- streaming and early classification (docs/streaming.md, docs/early_study.md) -------
EARLY_RESULTS = DATA / "early_classification.csv"
EARLY_DEFAULTS = DATA / "early_defaults.csv"
STREAM_BENCH = DATA / "stream_bench.json"
EARLY_MODELS = {
    "ssm-early": "sktdi early classifier",
    "teaser": "TEASER (WEASEL/MUSE)",
    "threshold-cif": "probability threshold, CIF",
    "threshold-tsf": "probability threshold, TSF",
}
# sktime's two early classifiers with their default base classifiers: the target's bar
EARLY_DEFAULT_PEERS = ("teaser", "threshold-cif")


def _early() -> pd.DataFrame:
    return _csv(EARLY_RESULTS)


def _early_table(frame: pd.DataFrame, value: str) -> pd.DataFrame:
    """dataset × model of ``value``, NaN where a model failed or did not run."""
    ok = frame[frame["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="model", values=value)


def _early_datasets(frame: pd.DataFrame) -> list[str]:
    order = ["GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "BasicMotions", "pixel-digits"]
    return [d for d in order if d in set(frame["dataset"])]


@region("early-results")
def early_results() -> str:
    """Per dataset: harmonic mean (accuracy, earliness) of each model; then fit seconds."""
    frame = _early()
    hm, acc, early = (_early_table(frame, v) for v in ("hm", "accuracy", "earliness"))
    rows = []
    for dataset in _early_datasets(frame):
        row = {"dataset": DATASET_SHORT.get(dataset, dataset)}
        for model, label in EARLY_MODELS.items():
            if model in hm.columns and pd.notna(hm[model].get(dataset, float("nan"))):
                row[label] = (f"{_f(hm.at[dataset, model])} ({_f(acc.at[dataset, model], 2)} / "
                              f"{_f(early.at[dataset, model], 2)})")
            else:
                status = frame.loc[(frame.dataset == dataset) & (frame.model == model), "status"]
                row[label] = {"error": "failed", "timeout": "over time"}.get(
                    status.iloc[0] if len(status) else "", "not run"
                )
        rows.append(row)
    mean = {"dataset": "**mean**"}
    for model, label in EARLY_MODELS.items():
        values = hm[model].dropna() if model in hm.columns else pd.Series(dtype=float)
        n = len(values)
        mean[label] = f"{_f(values.mean())} ({n} datasets)" if n else "—"
    rows.append(mean)
    table = _md_table(pd.DataFrame(rows), ["l"] + ["r"] * len(EARLY_MODELS))
    seconds = _early_table(frame, "fit_seconds")
    fit_rows = []
    for dataset in _early_datasets(frame):
        row = {"dataset": DATASET_SHORT.get(dataset, dataset)}
        for model, label in EARLY_MODELS.items():
            value = seconds.get(model, pd.Series(dtype=float)).get(dataset, float("nan"))
            row[label] = "—" if pd.isna(value) else f"{value:.1f}"
        fit_rows.append(row)
    fit_table = _md_table(pd.DataFrame(fit_rows), ["l"] + ["r"] * len(EARLY_MODELS))
    full = _early_table(frame, "full_accuracy")
    both = full[["ssm-early", "ssm-whole"]].dropna()
    lin = hm[["ssm-early", "ssm-early-lin"]].dropna()
    lin_early = early[["ssm-early", "ssm-early-lin"]].dropna()
    config = frame.loc[frame["model"] == "ssm-early", ["dataset", "config"]]
    budgets = [f"{DATASET_SHORT.get(d, d)} {json.loads(c)['max_epochs']} epochs"
               for d, c in config.itertuples(index=False) if isinstance(c, str) and "max_epochs" in c]
    return (
        "Harmonic mean of accuracy and 1 − earliness on each official test split, with "
        "(accuracy / earliness); higher is better, and earliness is the share of the series "
        "read before deciding. One run, on a 2-core CPU, two models at a time with one "
        "thread each:\n\n" + table + "\n\nFit seconds (one thread):\n\n" + fit_table
        + "\n\n"
        f"Training for prefixes cost full-length accuracy: {_f(both['ssm-early'].mean())} with "
        f"`prefix_weight`, {_f(both['ssm-whole'].mean())} without (mean over "
        f"{len(both)} datasets, every series read to its end). With TDI's initialization the "
        f"early classifier decided after {_f(lin_early['ssm-early'].mean(), 2)} of the series "
        f"on average, with S4D-Lin's after {_f(lin_early['ssm-early-lin'].mean(), 2)} "
        f"(harmonic mean {_f(lin['ssm-early'].mean())} against "
        f"{_f(lin['ssm-early-lin'].mean())}, {len(lin)} datasets)."
        + (f" Shorter budgets where 100 epochs did not fit the run: {', '.join(budgets)}."
           if budgets else "")
        + "\n"
    )


@region("early-targets")
def early_targets() -> str:
    frame = _early()
    hm = _early_table(frame, "hm")
    seconds = _early_table(frame, "fit_seconds")
    full = _early_table(frame, "full_accuracy")
    lines = []
    peers = [m for m in EARLY_DEFAULT_PEERS if m in hm.columns]
    better = hm[peers].max(axis=1).dropna()  # per dataset, the better of those that ran
    if len(better):
        ours = hm.loc[better.index, "ssm-early"]
        verdict = "met" if ours.mean() >= better.mean() else "missed"
        lines.append(
            f"- Harmonic mean ≥ the better of sktime's TEASER and probability-threshold "
            f"classifier with their default base classifiers (per dataset, the better of those "
            f"that ran), on the mean over the {len(better)} datasets where one ran: "
            f"{_f(ours.mean())} against {_f(better.mean())}: **{verdict}**."
        )
    tsf = hm[["ssm-early", "threshold-tsf"]].dropna() if "threshold-tsf" in hm.columns else None
    if tsf is not None and len(tsf):
        lines.append(
            f"- Against the strongest configuration found, the probability threshold with a "
            f"time series forest ({len(tsf)} datasets): {_f(tsf['ssm-early'].mean())} against "
            f"{_f(tsf['threshold-tsf'].mean())}."
        )
    both = full[["ssm-early", "ssm-whole"]].dropna()
    cost = both["ssm-early"].mean() - both["ssm-whole"].mean()
    lines.append(
        f"- Full-length accuracy with prefix training ≥ without it − 1 point, on the mean: "
        f"{f'{100 * cost:+.2f}'.replace('-', '−')} points ({len(both)} datasets): **{'met' if cost >= -0.01 else 'missed'}**."
    )
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    default = runs[runs["model"] == "conv-s4d"]
    one = default[(default["n_streams"] == 1) & (default["chunk"] == 1)]["samples_per_s"].iloc[0]
    many = default[default["n_streams"] == 1000]["samples_per_s"].iloc[0]
    lines.append(
        f"- Stream throughput, default network, one thread: one stream {one:,.0f} samples/s "
        f"(target 10,000: **{'met' if one >= 1e4 else 'missed'}**); 1000 streams in chunks of "
        f"100, {many:,.0f} samples/s in aggregate (target 1,000,000: "
        f"**{'met' if many >= 1e6 else 'missed'}**)."
    )
    long = runs[runs["model"] == "s4d-small"]
    if len(long):
        memory = long["rss_mib_each_tenth"].iloc[0]
        lines.append(
            f"- Memory constant in the stream's length, at {int(long['steps_per_stream'].iloc[0]):,} "
            f"steps: resident memory {memory[0]:.1f} MiB after the first tenth, "
            f"{memory[-1]:.1f} MiB at the end (a small network; the state is the same few "
            f"tensors whatever the width): **{'met' if memory[-1] - memory[0] < 1 else 'missed'}**."
        )
    fit_peers = [m for m in EARLY_DEFAULT_PEERS if m in seconds.columns]
    fits = seconds[["ssm-early", *fit_peers]].dropna(subset=["ssm-early"])
    faster = fits[fit_peers].min(axis=1)
    met = (fits["ssm-early"] <= faster).sum()
    each = [
        f"{DATASET_SHORT.get(d, d)} {fits.at[d, 'ssm-early']:.0f} s against {faster[d]:.0f} s"
        for d in faster.dropna().index
    ]
    lines.append(
        f"- Fit time ≤ the faster of the two sktime early classifiers (where either ran): "
        f"met on {met} of {faster.notna().sum()} datasets ({'; '.join(each)})."
    )
    return "\n".join(lines) + "\n"


@region("stream-speed")
def stream_speed() -> str:
    """bench_stream.py: a stream's samples per second against the alternatives."""
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    rows = []
    for network, label in (("conv-s4d", 'default (`network="conv-s4d"`)'),
                           ("s4d", '`network="s4d"`')):
        mine = runs[runs["model"] == network]
        one = mine[(mine["n_streams"] == 1) & (mine["chunk"] == 1)]["samples_per_s"].iloc[0]
        many = mine[mine["n_streams"] == 1000]["samples_per_s"].iloc[0]
        prefix = mine["every_prefix_samples_per_s"].dropna().iloc[0]
        bound = mine["over_time_samples_per_s"].dropna().iloc[0]
        torch_step = (
            mine["torch_step_samples_per_s"].dropna() if "torch_step_samples_per_s" in mine
            else pd.Series(dtype=float)
        )
        rows.append({
            "network": label,
            "one stream, sample by sample": f"{one:,.0f}",
            "the same through torch's step": (
                f"{torch_step.iloc[0]:,.0f}" if len(torch_step) else "—"
            ),
            "1000 streams, chunks of 100": f"{many:,.0f}",
            "one pass over whole series": f"{bound:,.0f}",
            "re-run on every prefix": f"{prefix:,.0f}",
        })
    rocket = runs[runs["model"] == "minirocket"]["every_prefix_samples_per_s"].iloc[0]
    rows.append({"network": "MiniRocket", "one stream, sample by sample": "—",
                 "the same through torch's step": "—",
                 "1000 streams, chunks of 100": "—", "one pass over whole series": "—",
                 "re-run on every prefix": f"{rocket:,.0f}"})
    table = _md_table(pd.DataFrame(rows), ["l", "r", "r", "r", "r", "r"])
    default = runs[runs["model"] == "conv-s4d"]
    weights = int(default["weights_per_sample"].dropna().iloc[0])
    long = runs[runs["model"] == "s4d-small"]
    memory = long["rss_mib_each_tenth"].iloc[0]
    return (
        "Samples per second on one CPU thread (`benchmarks/bench_stream.py`). A stream runs "
        "the compiled step; \"through torch's step\" is the network's own `step`, one call "
        "per sample, as streams ran before it. \"One pass over "
        "whole series\" is `predict_proba_over_time` on 1000 series of 200 steps: every "
        "step's prediction from the convolution mode, the most a stream fed in chunks could "
        "reach. \"Re-run on every prefix\" is what a model without a recurrent mode must do "
        "for a prediction after every sample of a 200-step series.\n\n" + table + "\n\n"
        f"The default network multiplies about {weights:,} weights per sample, which bounds "
        "its throughput on one thread whatever the mode. A stream's memory does not grow: "
        f"over {int(long['steps_per_stream'].iloc[0]):,} samples of one stream, resident memory "
        f"went from {memory[0]:.1f} to {memory[-1]:.1f} MiB.\n"
    )


@region("stream-targets")
def stream_targets() -> str:
    """bench_stream.py against the compiled step's targets (issue 38)."""
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    rows = []
    for network, key, goal, what in (
        ("conv-s4d", (1, 1), 8000, "one stream of the default network"),
        ("s4d", (1, 1), 30000, 'one stream of `network="s4d"` (the classifier\'s 6 layers)'),
        ("conv-s4d", (1000, 100), 50000, "1000 streams of the default network in chunks of 100"),
    ):
        mine = runs[(runs["model"] == network) & (runs["n_streams"] == key[0])
                    & (runs["chunk"] == key[1])]["samples_per_s"].iloc[0]
        rows.append({"target (samples per second, one thread)": f"{what} ≥ {goal:,}",
                     "measured": f"{mine:,.0f}",
                     "status": "met" if mine >= goal else "**missed**"})
    return _md_table(pd.DataFrame(rows), ["l", "r", "l"]) + "\n"


@region("early-defaults")
def early_defaults() -> str:
    """choose_early_defaults.py: per weighting, its best rule, and the choice."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from choose_early_defaults import choose

    results = _csv(EARLY_DEFAULTS).copy()
    results["steps"] = results["steps"].fillna("uniform")
    keys = ["steps", "prefix_weight", "threshold", "consecutive"]
    mean = (
        results.groupby([*keys, "dataset"])[["hm", "accuracy", "earliness", "full_accuracy"]]
        .mean().groupby(keys).mean()
    )
    rows = []
    order = {"uniform": 0, "ramp": 1}
    weightings = sorted(
        mean.groupby(level=["steps", "prefix_weight"]),
        key=lambda item: (item[0][1] > 0, order.get(item[0][0], 2), item[0][1]),
    )
    for (steps, weight), group in weightings:
        best = group["hm"].idxmax()
        rows.append({
            "prefix loss": "none" if weight == 0 else f"{steps}, weight {weight:g}",
            "best rule": f"threshold {best[2]:g}, {best[3]} step{'s' if best[3] > 1 else ''}",
            "harmonic mean": _f(group.loc[best, "hm"]),
            "accuracy": _f(group.loc[best, "accuracy"]),
            "earliness": _f(group.loc[best, "earliness"]),
            "full-length accuracy": _f(group.loc[best, "full_accuracy"]),
        })
    table = _md_table(pd.DataFrame(rows), ["l", "l", "r", "r", "r", "r"])
    chosen = choose(results)
    base = mean.xs(("uniform", 0.0), level=["steps", "prefix_weight"])["full_accuracy"].max()
    datasets = ", ".join(sorted(results["dataset"].unique()))
    return (
        f"3-fold cross-validation inside the official training splits of {datasets}; the "
        "default `SSMClassifier` with each prefix loss, every decision rule applied to its "
        "probabilities over time on the held-out fold; means over the datasets. \"uniform\" "
        "weighs every step the same, \"ramp\" step t in proportion to t:\n\n" + table + "\n\n"
        f"Chosen: the {chosen['steps']} prefix loss with weight {chosen['prefix_weight']:g}, "
        f"threshold {chosen['threshold']:g} held for {int(chosen['consecutive'])} "
        f"step{'s' if chosen['consecutive'] > 1 else ''}: harmonic mean {_f(chosen['hm'])}, "
        f"full-length accuracy {_f(chosen['full_accuracy'])} against {_f(base)} without the "
        f"prefix loss ({_pts(100 * (chosen['full_accuracy'] - base))} points).\n"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list stale regions, exit 1 if any")
    parser.add_argument(
        "--figures",
        action="store_true",
        help="also redraw the default benchmark's figures in docs/images from its results file",
    )
    args = parser.parse_args(argv)
    if args.figures:
        draw_default_benchmark_figures()
        draw_learning_curves()
    if args.check:
        bad = stale()
        for line in bad:
            print(f"stale generated region: {line}")
        return 1 if bad else 0
    for page in PAGES:
        if regions(page):
            new = render(page)
            if new != page.read_text():
                page.write_text(new)
                print(f"updated {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
