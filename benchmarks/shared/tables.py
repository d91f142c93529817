"""Markdown helpers every page shares: pipe tables, numbers and accuracy differences as the
pages print them, and the rows of a training-split configuration study."""

from __future__ import annotations

import pandas as pd


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


def _interval(test: dict) -> str:
    """A paired test's mean with its 95% interval, in points: '+0.2 [−0.5, +0.9]'."""
    return f"{_pts(test['mean'])} [{_pts(test['low'])}, {_pts(test['high'])}]"


DATASET_SHORT = {"ItalyPowerDemand": "ItalyPower"}


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



def _mean_se(gaps: pd.Series) -> str:
    """'+1.2 ± 0.4 (n)': mean, standard error over draws, number of draws."""
    n = len(gaps)
    se = gaps.std(ddof=1) / n**0.5 if n > 1 else float("nan")
    return f"{_pts(gaps.mean())} ± {se:.1f} ({n})"

