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
    expected = run.get("expected_seconds")
    eta = (
        f" Its first estimate of the time left, from the cost model before any cell ran, was "
        f"{expected / 60:.1f} minutes ({100 * (expected / run['wall_seconds'] - 1):+.0f}%)."
        if expected else ""
    )
    return (
        f"`sktdi benchmark` with no arguments: {', '.join(grid['datasets'])}; training ratios "
        f"{', '.join(f'{r:g}' for r in grid['ratios'])} (floor: {grid['min_per_class']} series "
        f"per class); resamples 0–{grid['resamples'] - 1} (0: the official split); "
        f"{', '.join(f'`{e}`' for e in settings['estimators'])}, each with its defaults "
        f"(their full parameters: `benchmarks/default_benchmark/results/default_benchmark_settings.json`, the run's "
        f"`settings.json`). On the 2-core CPU machine with `n_jobs={run['n_jobs']}`, its "
        f"{run['cells_computed']} cells took {run['wall_seconds'] / 60:.1f} minutes from the "
        f"first fit to the last (the run's `run.json`).{eta}\n"
    )


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def _with_interval(row) -> str:
    if int(row["untied"]) == 0:
        return f"{_points(row['mean'])} pts (every unit tied)"
    return f"{_points(row['mean'])} pts [{_points(row['low'])}, {_points(row['high'])}]"


def answer() -> str:
    """What the committed default run answers to "does TDI help?", in sentences built from
    its summary's numbers (the README and the study page show it)."""
    import numpy as np

    from sktdi.benchmark.answer import dataset_statistics
    from sktdi.benchmark.statistics import CONTROL_DATASETS, MIN_UNTIED

    results = _csv(RESULTS / "default_benchmark_results.csv")
    stats = dataset_statistics(results)
    help_, controls = stats["tdi_help"], stats["controls"]
    real = sorted(set(results["dataset"]) - set(CONTROL_DATASETS))
    deep = help_[(help_["a"] == "tdi") & (help_["scope"] != "all")]
    by_ratio, placebo = deep[deep["b"] == "s4d-lin"], deep[deep["b"] == "tdi-control"]
    ratios = " and ".join(f"{_with_interval(r)} at ratio {r['scope']:g}"
                          for _, r in by_ratio.iterrows())
    placebos = " and ".join(f"{_with_interval(r)} at ratio {r['scope']:g}"
                            for _, r in placebo.iterrows())
    untied = int(help_[(help_["a"] == "tdi") & (help_["scope"] == "all")]["untied"].max())
    split = stats["tie_split"]["tdi", "s4d-lin"]
    real_split = split[~split.index.get_level_values("dataset").isin(CONTROL_DATASETS)]
    text = (
        f"On the default run's {len(real)} real datasets ({', '.join(real)}), TDI − S4D-Lin "
        f"over datasets is {ratios}; TDI − placebo is {placebos} (95% intervals over "
        f"{len(real)} datasets). At most {untied} dataset{'s' if untied != 1 else ''} untied "
        f"in any comparison, where a Wilcoxon test needs {MIN_UNTIED} to reach p < 0.05"
        + (": the default run cannot decide whether TDI helps on real data. In "
           if untied < MIN_UNTIED else ". In ")
        + f"{int(real_split['stood_down'].sum())} of its {int(real_split['cells'].sum())} "
        f"paired cells on real data TDI stood down (it aligned no channel), so those tie by "
        f"construction.\n"
    )
    if len(controls):
        vs_lin = controls[(controls["a"] == "tdi") & (controls["b"] == "s4d-lin")]
        vs_placebo = controls[(controls["a"] == "tdi") & (controls["b"] == "tdi-control")]
        always = bool((vs_lin["losses"] == 0).all() and (vs_lin["wins"] > 0).all())
        text += (
            f"\nOn the positive control ({', '.join(sorted(set(controls['dataset'])))}, all of "
            f"its information in a known band) TDI − S4D-Lin is "
            + " and ".join(f"{_with_interval(r)} at ratio {r['scope']:g}"
                           for _, r in vs_lin.iterrows())
            + ", TDI − placebo "
            + " and ".join(f"{_with_interval(r)} at ratio {r['scope']:g}"
                           for _, r in vs_placebo.iterrows())
            + f" ({int(vs_lin['n'].max())} resamples"
            + ("; TDI ahead of S4D-Lin in every resample" if always else "")
            + ("): the harness sees the effect, its interval above zero at ratio "
               + ", ".join(f"{r:g}" for r in vs_lin.loc[vs_lin["low"] > 0, "scope"])
               + " (not at the other)" * bool((vs_lin["low"] <= 0).any())
               if bool((vs_lin["low"] > 0).any()) else
               "): no interval excludes zero, so this run could not show the effect the "
               "control holds")
            + ("; against the placebo, TDI is ahead on the mean at every ratio, its interval "
               "above zero at ratio "
               + ", ".join(f"{r:g}" for r in vs_placebo.loc[vs_placebo["low"] > 0, "scope"])
               if bool((vs_placebo["mean"] > 0).all() and (vs_placebo["low"] > 0).any())
               else "")
            + "."
        )
        fast = controls[(controls["a"] == "tdi+ridge") & (controls["b"] == "s4d-lin+ridge")]
        if len(fast):
            text += (
                " In the fast path (the same features on TDI's filters and on S4D-Lin's) the "
                "control gives "
                + " and ".join(f"{_with_interval(r)} at ratio {r['scope']:g}"
                               for _, r in fast.iterrows())
                + "."
            )
        text += "\n"
    ranks = stats["ranks"].get("all")
    if ranks is not None and {"tdi+ridge+minirocket", "minirocket-ridge"} <= set(ranks.index):
        tests = stats["pairwise"].get("all") or {}
        friedman = tests.get("friedman_p", np.nan)
        best = ranks.index[0] == "tdi+ridge+minirocket"
        text += (
            f"\nAcross the real datasets and both ratios, the fast path with MiniRocket's "
            f"features has {'the best' if best else 'an'} average rank, "
            f"{ranks['tdi+ridge+minirocket']:.2f} (MiniRocket {ranks['minirocket-ridge']:.2f}, "
            f"the one model with TDI {ranks['tdi']:.2f}"
            + (f"; the same on S4D-Lin's filters {ranks['s4d-lin+ridge+minirocket']:.2f}"
               if "s4d-lin+ridge+minirocket" in ranks.index else
               "; the run has no S4D-Lin arm with MiniRocket's features, so this rank does "
               "not credit TDI")
            + f"). Over {ranks.attrs['n_datasets']} (dataset, ratio) units "
            + (f"the Friedman test finds no difference among the arms (p = {friedman:.2f}); "
               f"these short sets do not separate them.\n" if friedman >= 0.1 else
               f"the Friedman test finds a difference (p = {friedman:.2f}; the critical-"
               f"difference cliques are in the summary).\n")
        )
    return text


@region("default-benchmark-answer")
def default_benchmark_answer() -> str:
    return answer()


@region("main-job-answer")
def main_job_answer() -> str:
    return answer()


@figure
def draw_default_benchmark_figures() -> None:
    """The two figures ``sktdi benchmark`` saves, drawn from the committed default run (the
    same functions the command calls), so the page shows them as a user sees them."""
    from sktdi.benchmark import plot_accuracy_vs_ratio, plot_paired_difference

    results = _csv(RESULTS / "default_benchmark_results.csv")
    images = DOCS / "images"
    plot_accuracy_vs_ratio(results, images / "default_benchmark.png")
    plot_paired_difference(results, images / "default_benchmark_paired.png")
    from sktdi.benchmark.statistics import dataset_means, draw_critical_difference, real_datasets

    means = dataset_means(real_datasets(results))
    draw_critical_difference(
        means, images / "default_benchmark_cd.png",
        f"all ratios, each (dataset, ratio) a unit: {len(means)} datasets",
    )
    print("drew docs/images/default_benchmark.png, default_benchmark_paired.png and "
          "default_benchmark_cd.png")
