"""Compare two results files of the same benchmark cells (before and after a change).

Pairs the cells by (dataset, ratio, resample, estimator) and reports, per estimator, the mean
and spread of the accuracy change and a Wilcoxon signed-rank test of it; then, per (estimator,
dataset, ratio), whether the change of the mean over resamples lies within the resample
standard deviation (ddof=1) of the first run — "the same table within resample noise".

The design consolidation (issue 11) was checked with it::

    sktdi benchmark --out before   # on the commit before the change
    sktdi benchmark --out after    # on the commit after it
    python benchmarks/run_comparisons/compare_runs.py benchmarks/run_comparisons/results/consolidation/before_results.csv \\
        benchmarks/run_comparisons/results/consolidation/after_results.csv

and so was the house cleanup (issue 27: option groups, class-owned saving, the init walk),
``benchmarks/run_comparisons/results/house/before_results.csv`` (e2a638a) against ``after_results.csv``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy import stats

KEY = ["dataset", "ratio", "resample", "estimator"]


def paired_changes(before: pd.DataFrame, after: pd.DataFrame, metric: str = "accuracy"):
    """One row per cell present (status ok) in both runs: the metric before, after, change."""
    ok = [frame[frame["status"] == "ok"][KEY + [metric]] for frame in (before, after)]
    pairs = ok[0].merge(ok[1], on=KEY, suffixes=("_before", "_after"))
    pairs["change"] = pairs[f"{metric}_after"] - pairs[f"{metric}_before"]
    return pairs


def per_estimator(pairs: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    rows = []
    for estimator, group in pairs.groupby("estimator"):
        change = group["change"].to_numpy()
        nonzero = change[change != 0]
        rows.append(
            {
                "estimator": estimator,
                "cells": len(change),
                "identical": int((change == 0).sum()),
                "mean_before": group[f"{metric}_before"].mean(),
                "mean_after": group[f"{metric}_after"].mean(),
                "mean_change_points": 100 * change.mean(),
                "sd_change_points": 100 * change.std(ddof=1),
                "max_abs_change_points": 100 * np.abs(change).max(),
                "wilcoxon_p": stats.wilcoxon(nonzero).pvalue if len(nonzero) else 1.0,
            }
        )
    return pd.DataFrame(rows)


def per_setting(pairs: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    table = pairs.groupby(["estimator", "dataset", "ratio"]).agg(
        before=(f"{metric}_before", "mean"),
        after=(f"{metric}_after", "mean"),
        resample_sd=(f"{metric}_before", lambda v: v.std(ddof=1)),
    )
    table["change"] = table["after"] - table["before"]
    table["within_one_sd"] = table["change"].abs() <= table["resample_sd"] + 1e-12
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--metric", default="accuracy")
    args = parser.parse_args(argv)
    pairs = paired_changes(pd.read_csv(args.before), pd.read_csv(args.after), args.metric)
    print(f"{len(pairs)} paired cells\n")
    print(per_estimator(pairs, args.metric).round(4).to_string(index=False), "\n")
    table = per_setting(pairs, args.metric)
    print(table.round(3).to_string(), "\n")
    print(
        f"change of the mean within one resample sd in {int(table['within_one_sd'].sum())} "
        f"of {len(table)} (estimator, dataset, ratio) settings"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
