"""The generated regions of ``docs/study.md``, from the committed results they cite."""

from __future__ import annotations

from pathlib import Path

from ..shared.regions import _csv, region, results_dir

RESULTS = results_dir("study")  # this study's committed results



# --------------------------------------------------------------------------------------
# the data-efficiency study (docs/study.md): benchmarks/study/results/results.csv


@region("study-cells")
def study_cells() -> str:
    results = _csv(RESULTS / "results.csv")
    errors = int((results["status"] != "ok").sum())
    return (
        f"**Status: the full grid ran ({len(results)} cells: {results['dataset'].nunique()} "
        f"datasets × {results['ratio'].nunique()} ratios × {results['resample'].nunique()} "
        f"resamples × {results['estimator'].nunique()} estimators, {errors} errors); most "
        "targets are missed, and this page says by how much and why.**\n"
    )


@region("study-fit-seconds")
def study_fit_seconds() -> str:
    results = _csv(RESULTS / "results.csv")
    seconds = results[results["status"] == "ok"].groupby("estimator")["fit_seconds"].mean()
    return (
        "Mean fit seconds per cell: "
        + ", ".join(f"{name} {value:.1f}" for name, value in seconds.items())
        + ".\n"
    )


@region("study-ranks")
def study_ranks() -> str:
    from sktdi.benchmark import average_ranks

    ranks = average_ranks(_csv(RESULTS / "results.csv")).sort_values()
    return (
        "Average rank over all datasets, ratios and resamples: "
        + ", ".join(f"{name} {value:.2f}" for name, value in ranks.items())
        + ".\n"
    )


@region("study-summary")
def study_summary() -> str:
    """benchmarks/study/study_report.py's page fragment (targets, accuracy, ranks, gaps, tests),
    without redrawing its plot (``python benchmarks/study/study_report.py`` does that)."""
    import shutil
    import tempfile

    from . import study_report

    plot = study_report.plot_accuracy_vs_ratio
    study_report.plot_accuracy_vs_ratio = lambda *args, **kwargs: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(RESULTS / "results.csv", Path(tmp) / "results.csv")
            from contextlib import redirect_stdout
            from io import StringIO

            with redirect_stdout(StringIO()):
                study_report.main(tmp)
            text = (Path(tmp) / "summary.md").read_text()
    finally:
        study_report.plot_accuracy_vs_ratio = plot
    return text.rstrip() + "\n"
