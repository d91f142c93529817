"""The generated regions of ``docs/default_benchmark.md``, from the committed results they cite."""

from __future__ import annotations

from .common import DATA, _csv, region


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
