"""The generated regions of ``docs/benchmark.md`` on the real UCR archive folder: the run beside
the published results, and what a run costs (its first estimate against its wall time, and
the cost model's parts), from the committed results of this study and of ``cost_model``."""

from __future__ import annotations

import json

from ..shared.regions import _csv, region, results_dir

RESULTS = results_dir("ucr_archive_run")
COST = results_dir("cost_model")
SUFFIX = " (published)"


def _run(name: str) -> dict:
    return json.loads((RESULTS / f"{name}_run.json").read_text())


def _label(column: str) -> str:
    from sktdi.plotting import estimator_label

    return column if column.endswith(SUFFIX) else estimator_label(column)


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


@region("ucr-archive-published")
def ucr_archive_published() -> str:
    from sktdi.benchmark.formatting import p_text
    from sktdi.benchmark.statistics import (
        CD_ALPHA,
        difference_over_datasets,
        pairwise_over_datasets,
        ranks_over_datasets,
    )

    results = _csv(RESULTS / "light_results.csv")
    skipped = _csv(RESULTS / "light_skipped.csv")
    check = _csv(RESULTS / "light_published_check.csv")
    table = _csv(RESULTS / "light_beside_published.csv").set_index("dataset")
    ok = results[results["status"] == "ok"]
    complete = table.dropna()
    ranks = ranks_over_datasets(complete)
    tests = pairwise_over_datasets(complete)
    means = complete.mean()
    order = list(ranks.index)
    reasons = "; ".join(f"{r.dataset} ({r.reason.split(' (')[0].split(';')[0]})"
                        for r in skipped.itertuples())
    figures, equal = int(check["figures"].sum()), int(check["equal"].sum())
    lacking = ", ".join(f"{r.classifier} {r.datasets_lacking}"
                        for r in check.itertuples() if r.datasets_lacking)
    ours = difference_over_datasets(table[["minirocket-ridge", f"MiniRocket{SUFFIX}"]].dropna(),
                                    "minirocket-ridge", f"MiniRocket{SUFFIX}")
    fast = difference_over_datasets(table[["tdi+ridge+minirocket", "minirocket-ridge"]].dropna(),
                                    "tdi+ridge+minirocket", "minirocket-ridge")
    differ = [(a, b, p) for a, b, p in tests["pairs"] if p < tests["threshold"]]
    cliques = (
        f"Friedman {p_text(tests['friedman_p'])}; pairs that differ (Wilcoxon, Holm, "
        f"α = {CD_ALPHA:g}): "
        + ("; ".join(f"{_label(a)} > {_label(b)}" for a, b, _ in differ) if differ else "none")
    )
    rank_text = ", ".join(f"{_label(c)} {ranks[c]:.2f}" for c in order)
    mean_text = ", ".join(f"{_label(c)} {100 * means[c]:.2f}"
                          for c in means.sort_values(ascending=False).index)
    return (
        f"On the real archive folder (`bash ../shared/data/ucr_archive.sh`: 59 UCR datasets, "
        f"their official splits; `benchmarks/ucr_archive_run/`), `--datasets all` ran "
        f"{ok['dataset'].nunique()} datasets and skipped {len(skipped)}: {reasons}. Arms: "
        "MiniRocket's algorithm (`minirocket-ridge`) and the fast path "
        "(`tdi+ridge+minirocket`), resample 0, with `--published aeon "
        "MiniRocket=minirocket_ucr109_mean.csv` beside them. Every one of the "
        f"{figures} published figures the summary set beside the run equals its file's "
        f"({equal} of {figures}, read again with the csv module: resample 0 of aeon's tables, "
        f"the paper's mean for MiniRocket). The tables lack some of the run's datasets "
        f"({lacking}), which the summary names.\n\n"
        f"Over the {len(complete)} datasets with every figure, mean accuracy: {mean_text}. "
        f"Average ranks: {rank_text}. {cliques}. Our MiniRocket − its published mean: "
        f"{_points(ours['mean'])} points [{_points(ours['low'])}, {_points(ours['high'])}] "
        f"over {ours['n']} datasets (the official split against a mean of 30 resamples: a "
        f"check of the protocol, not a pairing); the fast path − our MiniRocket: "
        f"{_points(fast['mean'])} [{_points(fast['low'])}, {_points(fast['high'])}], "
        f"{fast['wins']} ahead and {fast['losses']} behind, Wilcoxon {p_text(fast['p'])}.\n"
    )


@region("cost-model")
def cost_model() -> str:
    fit = json.loads((COST / "fit.json").read_text())
    deep = _csv(COST / "cells_deep.csv")
    light, one = _run("light"), _run("one_model")
    results = _csv(RESULTS / "light_results.csv")
    ok = results[results["status"] == "ok"].pivot_table(
        index="dataset", columns="estimator", values="fit_seconds")
    fast_ratio = (ok["tdi+ridge+minirocket"] / ok["minirocket-ridge"]).median()
    big = results[(results["dataset"] == "ElectricDevices")
                  & (results["estimator"] == "minirocket-ridge")].iloc[0]
    one_results = _csv(RESULTS / "one_model_results.csv")
    one_ok = one_results[one_results["status"] == "ok"].set_index("dataset")
    one_ratio = (one_ok["fit_seconds"] / ok.loc[one_ok.index, "minirocket-ridge"]).median()
    early = deep[deep["validation_fraction"] > 0]
    stood = int((early["best_epoch"] == 0).sum())
    a, per_series, b = fit["deep"]["epoch"]
    n_light = _csv(COST / "cells_light.csv")["dataset"].nunique()
    denormals = _csv(COST / "denormals.csv")
    kept = denormals.loc[~denormals["flushed"], "seconds"]
    flushed = denormals.loc[denormals["flushed"], "seconds"]

    def estimate(run: dict) -> str:
        return (f"first estimate {run['expected_seconds'] / 60:.1f} min, wall "
                f"{run['wall_seconds'] / 60:.1f} min ({run['expected_seconds'] / run['wall_seconds']:.2f}"
                "× the wall time)")

    return (
        "What a run costs, on the 2-core machine, `--n-jobs 2`, stderr to a log "
        "(`benchmarks/ucr_archive_run/`): the real archive folder with the two light arms, "
        f"{light['cells_computed']} cells: {estimate(light)}; the one model on the "
        f"{one['cells_computed']} smallest datasets the cost model was not fitted on: "
        f"{estimate(one)}. The estimate is printed before the first cell starts; "
        "`--dry-run` prints it, with each dataset's sizes and each arm's expected time, "
        "without training.\n\n"
        f"The cost model (`benchmarks/cost_model/`) was fitted on choice datasets, {n_light} for "
        f"the light arms and {deep['dataset'].nunique()} for the one model; the one model's run "
        "above is on none of them. A light cell is its transform, "
        f"{1e6 * fit['light']['minirocket']['per_step']:.1f} µs (MiniRocket) and "
        f"{1e6 * fit['light']['fast path']['per_step']:.1f} µs (the fast path) per series and "
        "step, training and test, and its ridge, whose Gram matrix and eigendecomposition rule "
        f"past a few thousand series (ElectricDevices' {int(big['n_train'])}: "
        f"{big['fit_seconds']:.0f} s of MiniRocket's fit). Fit "
        f"seconds on the run's datasets, median: the fast path {fast_ratio:.1f}× MiniRocket's "
        f"algorithm, the one model {one_ratio:.0f}× it. The one model adds the network: "
        f"{1e3 * a:.1f} ms + {1e3 * per_series:.1f} ms per training series + {1e6 * b:.0f} µs "
        "per training series and step (at least 64) for each epoch, and its float64 "
        "predictions, "
        f"{1e6 * fit['deep']['predict_per_step']:.0f} µs per test series and step. Where "
        "`validation_fraction=\"auto\"` holds a fifth out (2 series per class or more), early "
        f"stopping ended the fits after {fit['deep']['early_stopped_epochs']:.0f} epochs on the "
        f"mean ({early['epochs'].min()} to {early['epochs'].max()}; in {stood} of "
        f"{len(early)} no epoch beat the fast path); elsewhere the network trains for "
        "`max_epochs` (100). `--max-epochs N` caps the epochs: the network's part of a cell "
        "scales with N where it trains them all, and not at all where it stops earlier. "
        "The network trains with subnormal floats flushed to zero: with them kept, CBF's "
        f"epochs took {kept.min():.1f} to {kept.max():.1f} s, at random, against "
        f"{flushed.min():.2f} to {flushed.max():.2f} s flushed, with the same losses "
        "(`benchmarks/cost_model/denormals.py`).\n"
    )
