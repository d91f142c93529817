"""The generated regions of ``docs/tdi_studies.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _study_rows

RESULTS = results_dir("tdi_studies")  # this study's committed results


# --------------------------------------------------------------------------------------
# SpectralAlignmentTransformer's defaults (benchmarks/tdi_studies/choose_transformer_defaults.py)

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


@region("transformer-features")
def transformer_features() -> str:
    """Round 4: the feature families, per protocol and per dataset (mean over protocols)."""
    results = _csv(RESULTS / "transformer_defaults_round4.csv")
    rows = [row for _, row in _study_rows(results, TRANSFORMER_LABELS, "features")]
    table = pd.DataFrame(rows)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("transformer-defaults")
def transformer_defaults() -> str:
    rows = []
    for number, name in enumerate(
        ["transformer_defaults", "transformer_defaults_round2", "transformer_defaults_round3"], 1
    ):
        results = _csv(RESULTS / f"{name}.csv")
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
    results = _csv(RESULTS / "reliability_calibration.csv")
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
