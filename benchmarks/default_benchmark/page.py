"""The generated regions of ``docs/default_benchmark.md``, from the committed results they cite."""

from __future__ import annotations

import json

from ..shared.regions import DOCS, _csv, figure, region, results_dir

RESULTS = results_dir("default_benchmark")  # this study's committed results


SETTINGS = RESULTS / "default_benchmark_settings.json"  # the run's settings.json
RUN = RESULTS / "default_benchmark_run.json"  # the run's run.json: its wall time


# --------------------------------------------------------------------------------------
# the default benchmark (docs/benchmark.md): sktdi's own summary of the committed table


@region("default-benchmark-summary")
def default_benchmark_summary() -> str:
    from sktdi.benchmark import format_summary, summarize

    results = _csv(RESULTS / "default_benchmark_results.csv")
    return "```text\n" + format_summary(summarize(results)).rstrip() + "\n```\n"


@region("default-benchmark-size")
def default_benchmark_size() -> str:
    results = _csv(RESULTS / "default_benchmark_results.csv")
    ok = int((results["status"] == "ok").sum())
    return (
        f"The committed table has {len(results)} cells ({ok} `ok`): "
        f"{results['dataset'].nunique()} datasets × {results['ratio'].nunique()} ratios × "
        f"{results['resample'].nunique()} resamples × {results['estimator'].nunique()} estimators.\n"
    )


@region("default-benchmark-grid")
def default_benchmark_grid() -> str:
    settings, run = json.loads(SETTINGS.read_text()), json.loads(RUN.read_text())
    grid = settings["grid"]
    return (
        f"`sktdi benchmark` with no arguments: {', '.join(grid['datasets'])}; training ratios "
        f"{', '.join(f'{r:g}' for r in grid['ratios'])} (floor: {grid['min_per_class']} series "
        f"per class); resamples 0–{grid['resamples'] - 1} (0: the official split); "
        f"{', '.join(f'`{e}`' for e in settings['estimators'])}, each with its defaults "
        f"(their full parameters: `benchmarks/default_benchmark/results/default_benchmark_settings.json`, the run's "
        f"`settings.json`). On the 2-core CPU machine with `n_jobs={run['n_jobs']}`, its "
        f"{run['cells_computed']} cells took {run['wall_seconds'] / 60:.1f} minutes from the "
        f"first fit to the last (the run's `run.json`).\n"
    )


@figure
def draw_default_benchmark_figures() -> None:
    """The two figures ``sktdi benchmark`` saves, drawn from the committed default run (the
    same functions the command calls), so the page shows them as a user sees them."""
    from sktdi.benchmark import plot_accuracy_vs_ratio, plot_paired_difference

    results = _csv(RESULTS / "default_benchmark_results.csv")
    images = DOCS / "images"
    plot_accuracy_vs_ratio(results, images / "default_benchmark.png")
    plot_paired_difference(results, images / "default_benchmark_paired.png")
    print("drew docs/images/default_benchmark.png and default_benchmark_paired.png")
