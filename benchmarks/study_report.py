"""Write the study's results page fragment (docs/study/summary.md) and plot from its table.

    python benchmarks/study_report.py [docs/study]
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from sktdi.benchmark import plot_accuracy_vs_ratio, summarize

LOW = 0.16


def _gap_table(results: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Mean accuracy difference a − b (points) per dataset and ratio, paired on resamples."""
    ok = results[results["status"] == "ok"]
    wide = ok.pivot_table(index=["dataset", "ratio", "resample"], columns="estimator", values="accuracy")
    if a not in wide or b not in wide:
        return pd.DataFrame()
    diff = (wide[a] - wide[b]).dropna() * 100
    return diff.groupby(["dataset", "ratio"]).mean().unstack("ratio").round(1)


def main(folder: str = "docs/study") -> None:
    folder = Path(folder)
    results = pd.read_csv(folder / "results.csv")
    summary = summarize(results)
    n_ok = int((results["status"] == "ok").sum())
    lines = [
        f"Cells finished: {n_ok} ok, {summary['errors']} errors "
        f"(datasets so far: {', '.join(sorted(results['dataset'].unique()))}).",
        "",
        "![accuracy vs training ratio](study/accuracy_vs_ratio.png)",
        "",
        "## Mean accuracy ± std over resamples",
        "",
        summary["accuracy"].to_markdown(),
        "",
        "## Average rank (1 = best, paired cells where every estimator finished)",
        "",
        summary["average_rank"].round(2).to_frame("rank").to_markdown(),
        "",
    ]
    for a, b in (("tdi", "s4d-lin"), ("tdi", "tdi-control"), ("auto", "s4d-lin"), ("tdi+ridge", "minirocket")):
        gaps = _gap_table(results, a, b)
        if not gaps.empty:
            lines += [f"## {a} − {b}, accuracy points (mean over resamples)", "", gaps.to_markdown(), ""]
    if "wins_ties_losses" in summary:
        lines += ["## TDI: wins / ties / losses", "", summary["wins_ties_losses"].round(4).to_markdown(), ""]
        lines += ["## Paired Wilcoxon, TDI vs S4D-Lin", "", summary["wilcoxon"].round(4).to_markdown(), ""]
    lines += ["## Mean fit seconds", "", summary["fit_seconds"].round(2).to_frame("fit s").to_markdown(), ""]
    (folder / "summary.md").write_text("\n".join(lines))
    plot_accuracy_vs_ratio(results, folder / "accuracy_vs_ratio.png")
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:])
