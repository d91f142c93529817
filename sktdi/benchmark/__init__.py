"""UCR benchmarking harness: datasets × training ratios × resamples × estimators."""

from __future__ import annotations

from ..utils.lazy import lazy_attributes

# Names load from their submodule on first access (PEP 562): the runner, the summaries and the
# figures import pandas, scipy and (through the estimators) torch, while the ``sktdi benchmark``
# parser only needs the estimator names and default ratios of the light ``.estimators``.
_LAZY = {
    "DEFAULT_ESTIMATORS": ".estimators",
    "DEFAULT_RATIOS": ".estimators",
    "ESTIMATORS": ".estimators",
    "available": ".estimators",
    "gives_probabilities": ".estimators",
    # the grid's definitions: a module of their own, light (no pandas or torch)
    "Cell": ".cells",
    "make_cells": ".cells",
    "read_results": ".results_file",
    "run_benchmark": ".runner",
    "run_cell": ".runner",
    "resume_plan": ".runner",
    "average_ranks": ".summary",
    "format_summary": ".summary",
    "mean_std_table": ".summary",
    "mean_std_long": ".summary",
    "mean_nll": ".summary",
    "run_settings": ".summary",
    "plot_accuracy_vs_ratio": ".figures",
    "plot_paired_difference": ".figures",
    "paired_difference_table": ".figures",
    "duplicate_training_sets": ".summary",
    "distinct_training_sets": ".summary",
    "training_size": ".summary",
    "resample_mean_std": ".summary",
    "summarize": ".summary",
    "wilcoxon_test": ".summary",
    "wins_ties_losses": ".summary",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
