"""UCR benchmarking harness: datasets × training ratios × resamples × estimators."""

from .estimators import DEFAULT_ESTIMATORS, ESTIMATORS, available
from .runner import DEFAULT_RATIOS, Cell, make_cells, run_benchmark, run_cell
from .summary import (
    average_ranks,
    format_summary,
    mean_std_table,
    plot_accuracy_vs_ratio,
    summarize,
    wilcoxon_test,
    wins_ties_losses,
)

__all__ = [
    "Cell",
    "DEFAULT_ESTIMATORS",
    "DEFAULT_RATIOS",
    "ESTIMATORS",
    "available",
    "average_ranks",
    "format_summary",
    "make_cells",
    "mean_std_table",
    "plot_accuracy_vs_ratio",
    "run_benchmark",
    "run_cell",
    "summarize",
    "wilcoxon_test",
    "wins_ties_losses",
]
