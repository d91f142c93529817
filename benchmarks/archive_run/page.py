"""The generated region of ``docs/benchmark.md`` on a whole archive, from the committed results."""

from __future__ import annotations

from ..shared.regions import _csv, region, results_dir

RESULTS = results_dir("archive_run")  # this study's committed results


@region("archive-run")
def archive_run() -> str:
    from sktdi.benchmark.answer import dataset_statistics

    results = _csv(RESULTS / "archive_results.csv")
    skipped = _csv(RESULTS / "archive_skipped.csv")
    check = _csv(RESULTS / "archive_tsml_check.csv")
    speed = _csv(RESULTS / "archive_throughput.csv").set_index("backend")
    ok = results[results["status"] == "ok"]
    n_data, n_arms = ok["dataset"].nunique(), ok["estimator"].nunique()
    reasons = "; ".join(
        f"{r.dataset} ("
        + r.reason.split(";")[0].split(" (")[0].removeprefix(f"{r.dataset} is a ")
        .removeprefix(f"{r.dataset} has ")
        + ")"
        for r in skipped.itertuples()
    )
    from sktdi.datasets import shipped_datasets

    generated = sorted(set(ok["dataset"]) - set(shipped_datasets()))
    exact = int((check["difference"] == 0).sum())
    loky, dask = speed.loc["loky"], speed.loc["dask"]
    stats = dataset_statistics(results)
    help_ = stats["tdi_help"]
    row = help_[(help_["a"] == "tdi+ridge") & (help_["b"] == "s4d-lin+ridge")].iloc[0]
    ranks = stats["ranks"][1.0]
    return (
        f"Measured on a folder of {n_data + len(skipped)} datasets "
        f"(`benchmarks/archive_run/`: sktime's shipped sets rewritten in the archive's `.tsv` "
        f"and `.ts` layouts, and generated ones: unequal-length `.tsv` sets padded with NaN, "
        f"multivariate `.ts` sets, one with gaps), `--datasets all` ran {n_data} datasets × "
        f"{n_arms} fast arms × {ok['resample'].nunique()} resamples ({len(ok)} cells, all "
        f"`ok`) and skipped {len(skipped)}: {reasons}. tsml-eval's "
        f"`evaluate_classifiers_by_problem` read the run's results files and reproduced "
        f"{exact} of the {len(check)} per-dataset accuracies exactly (largest difference "
        f"{check['difference'].abs().max():.3g}). On 2 cores the run took "
        f"{loky['wall_seconds']:.0f} s with joblib's 2 workers ({loky['cells_per_minute']:.0f} "
        f"cells a minute) and {dask['wall_seconds']:.0f} s through a Dask LocalCluster of 2 "
        f"single-threaded workers ({dask['cells_per_minute']:.0f} a minute). Its summary's "
        f"answer for the fast path: TDI − S4D-Lin over {int(row['n'])} datasets "
        f"{100 * row['mean']:+.1f} points [{100 * row['low']:+.1f}, {100 * row['high']:+.1f}], "
        f"{int(row['wins'])} ahead and {int(row['losses'])} behind, Wilcoxon p = "
        f"{row['p']:.2g}; average ranks over datasets: "
        + ", ".join(f"`{name}` {rank:.2f}" for name, rank in ranks.items())
        + f". {len(generated)} of the {n_data} datasets are generated, most with their "
        f"information in frequency bands by design: this shows the harness at work, not "
        f"evidence about real recordings.\n"
    )
