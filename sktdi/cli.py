"""Command line: ``sktdi benchmark``."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead")


def _benchmark_parser(sub) -> argparse.ArgumentParser:
    from .benchmark import DEFAULT_ESTIMATORS, DEFAULT_RATIOS, ESTIMATORS

    p = sub.add_parser(
        "benchmark",
        help="compare estimators on UCR datasets across training ratios",
        description=(
            "Run datasets x training ratios x resamples x estimators, write one tidy results "
            "table (resumable), print and save a summary (mean ± std, wins/ties/losses, "
            "average rank, paired Wilcoxon TDI vs S4D-Lin) and an accuracy-vs-ratio plot. "
            "With no arguments: the shipped univariate datasets GunPoint, ItalyPowerDemand "
            "and ArrowHead, 5 ratios, 3 resamples, a few minutes on 2 cores."
        ),
    )
    p.add_argument("--datasets", nargs="+", default=list(DEFAULT_DATASETS), metavar="NAME")
    p.add_argument("--data-dir", help="local UCR/UEA archive folder (default: sktime's shipped data)")
    p.add_argument("--ratios", nargs="+", type=float, default=list(DEFAULT_RATIOS))
    p.add_argument("--resamples", type=int, default=3, help="resample 0 is the official split")
    p.add_argument("--cv", type=int, metavar="K", help="stratified K-fold CV on pooled data instead")
    p.add_argument(
        "--estimators", nargs="+", default=None, choices=sorted(ESTIMATORS), metavar="NAME",
        help=f"from {sorted(ESTIMATORS)}; default: those of {list(DEFAULT_ESTIMATORS)} whose "
        "packages are installed",
    )
    p.add_argument("--min-per-class", type=int, default=1, help="training-ratio floor per class")
    p.add_argument("--max-epochs", type=int, help="override the SSM models' max_epochs")
    p.add_argument("--out", default="sktdi-benchmark", help="output folder (results are resumed)")
    p.add_argument("--n-jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--backend", choices=["loky", "dask"], default="loky")
    p.add_argument("--scheduler", help="dask.distributed scheduler address (default: a LocalCluster)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def run_benchmark_command(args: argparse.Namespace) -> int:
    from .benchmark import (
        DEFAULT_ESTIMATORS,
        available,
        format_summary,
        make_cells,
        plot_accuracy_vs_ratio,
        run_benchmark,
        summarize,
    )

    estimators = args.estimators or [e for e in DEFAULT_ESTIMATORS if available(e)]
    missing = [e for e in estimators if not available(e)]
    if missing:
        print(f"skipping {missing}: their packages are not installed", file=sys.stderr)
        estimators = [e for e in estimators if available(e)]
    params = {"max_epochs": args.max_epochs} if args.max_epochs is not None else {}
    cells = make_cells(
        args.datasets,
        args.ratios,
        args.resamples,
        estimators,
        cv=args.cv,
        min_per_class=args.min_per_class,
        data_dir=args.data_dir,
        params=params,
        threads=1 if args.n_jobs != 1 else (os.cpu_count() or 1),
    )
    out = Path(args.out)
    start = time.perf_counter()
    results = run_benchmark(
        cells,
        out / "results.csv",
        n_jobs=args.n_jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        progress=not args.quiet,
    )
    wall = time.perf_counter() - start
    wanted = {c.key() for c in cells}
    keys = list(zip(results["dataset"], results["mode"], results["ratio"].astype(float),
                    results["resample"].astype(int), results["estimator"]))
    results = results[[k in wanted for k in keys]]
    summary = summarize(results)
    text = format_summary(summary)
    print(text)
    print(f"\n{len(cells)} cells, wall time {wall:.0f} s; results in {out / 'results.csv'}")
    (out / "summary.txt").write_text(text + "\n")
    summary["accuracy"].to_csv(out / "summary_accuracy.csv")
    try:
        results.to_parquet(out / "results.parquet", index=False)
    except ImportError:
        pass  # Parquet needs pyarrow; the CSV is the primary table
    if not args.no_plot and summary["errors"] < len(results):
        plot_accuracy_vs_ratio(results, out / "accuracy_vs_ratio.png")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sktdi", description="sktdi command line tools")
    sub = parser.add_subparsers(dest="command", required=True)
    _benchmark_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "benchmark":
        return run_benchmark_command(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
