"""What a benchmark run leaves after its cells: the summary, its tables and its figures.

:func:`summarize_results` is the one place a results table becomes ``summary.txt``,
``summary_accuracy.csv``, ``results.parquet``, ``skipped.csv`` and the figures: ``sktdi
benchmark`` calls it when its cells are done, and ``sktdi benchmark --summarize-only`` on the
cells a stopped run left.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the figures a run draws into --out (benchmark.figures: plot_accuracy_vs_ratio,
# plot_paired_difference)
ACCURACY_FIGURE = "accuracy_vs_ratio.png"
PAIRED_FIGURE = "tdi_minus_s4d_lin.png"
# aeon's critical-difference diagram of each ratio (and of all ratios): critical_difference_<scope>
CD_FIGURE = "critical_difference_{}.png"
# failed cells listed per distinct reason, and distinct reasons listed, after a run
MAX_CELLS_LISTED = 5
MAX_REASONS_LISTED = 10


def summarize_results(
    results, wanted: set, out: Path, *, skipped: list, counts: str, no_plot: bool = False,
    published=None,
) -> int:
    """Print and write the summary of the rows of ``results`` whose keys are in ``wanted``
    (a grid): summary.txt, summary_accuracy.csv, results.parquet, skipped.csv and the
    figures in ``out``, as a finished run and ``--summarize-only`` both do. ``counts`` is the
    line that says which cells the summary holds; ``published`` the published results to set
    beside the run (:func:`sktdi.benchmark.published.read_all_published`'s table). Returns
    0, or 1 when no cell succeeded."""
    from .cells import cell_keys

    path = out / "results.csv"
    n_rows = len(results)  # every row of results.csv, earlier runs' grids included
    results = results[[k in wanted for k in cell_keys(results)]]
    ok = results["status"] == "ok"
    failed = results[~ok]
    if not ok.any():
        # nothing to summarize: mean ± std, ranks and tests of an empty table mean nothing
        print(f"all {len(results)} cells failed; tracebacks in {path}:", file=sys.stderr)
        print("\n".join(failure_report(failed)), file=sys.stderr)
        print(counts, file=sys.stderr)
        return 1

    from .figures import plot_accuracy_vs_ratio, plot_paired_difference
    from .summary import format_summary, mean_std_long, summarize

    summary = summarize(results, published=published)
    summary["skipped"] = skipped
    text = format_summary(summary)
    print(text)
    if len(failed):
        print(
            f"\n{len(failed)} of {len(results)} cells failed; tracebacks in {path}:",
            file=sys.stderr,
        )
        print("\n".join(failure_report(failed)), file=sys.stderr)
    print(f"\n{counts}")
    coverage = coverage_line(len(results), n_rows, path)
    print(coverage)
    (out / "summary.txt").write_text(f"{text}\n\n{coverage}\n")
    mean_std_long(results).to_csv(out / "summary_accuracy.csv", index=False)
    try:
        results.to_parquet(out / "results.parquet", index=False)
    except ImportError:
        pass  # Parquet needs pyarrow; the CSV is the primary table
    if skipped:
        import pandas as pd

        pd.DataFrame(skipped, columns=["dataset", "reason"]).to_csv(
            out / "skipped.csv", index=False)
    drawn = set()
    if not no_plot:
        drawn |= draw_critical_differences(results, out)
        beside = summary.get("published") or {}
        if beside and draw_published_difference(beside["complete"], out):
            drawn.add(CD_FIGURE.format("published"))
        plot_accuracy_vs_ratio(results, out / ACCURACY_FIGURE)
        drawn.add(ACCURACY_FIGURE)
        ok = set(results.loc[results["status"] == "ok", "estimator"])
        if {"tdi", "s4d-lin"} <= ok:  # the figure that answers "does TDI beat S4D-Lin?"
            plot_paired_difference(results, out / PAIRED_FIGURE)
            drawn.add(PAIRED_FIGURE)
    # a figure of an earlier run into this folder would sit beside a summary of another grid
    # (the paired figure of a TDI/S4D-Lin run beside a summary without S4D-Lin)
    for stale in [out / ACCURACY_FIGURE, out / PAIRED_FIGURE, *out.glob(CD_FIGURE.format("*"))]:
        name = stale.name
        if name not in drawn and stale.is_file():
            stale.unlink()
            print(f"removed {stale}, an earlier run's figure: this run does not draw it")
    return 0


def describe_cell(cell_key: tuple) -> str:
    """A cell's key in words: "GunPoint ratio 0.5 resample 2 tdi" ("fold" with --cv)."""
    dataset, mode, ratio, resample, estimator = cell_key
    split = "fold" if mode == "cv" else "resample"
    return f"{dataset} ratio {ratio:g} {split} {resample} {estimator}"


def failure_report(failed) -> list[str]:
    """Lines naming the failed cells, grouped by their one-line reason."""
    from .cells import cell_keys

    groups: dict[str, list[tuple]] = {}
    for key, error in zip(cell_keys(failed), failed["error"].fillna("unknown error").astype(str)):
        reason = (error.strip().splitlines() or ["unknown error"])[0]
        groups.setdefault(reason[:300], []).append(key)
    lines = []
    for reason, keys in sorted(groups.items(), key=lambda item: -len(item[1]))[
        :MAX_REASONS_LISTED
    ]:
        listed = "; ".join(describe_cell(k) for k in keys[:MAX_CELLS_LISTED])
        more = f"; and {len(keys) - MAX_CELLS_LISTED} more" if len(keys) > MAX_CELLS_LISTED else ""
        lines.append(f"  {reason} ({len(keys)} cell{'s' if len(keys) > 1 else ''}): {listed}{more}")
    if len(groups) > MAX_REASONS_LISTED:
        lines.append(f"  ... and {len(groups) - MAX_REASONS_LISTED} other reasons")
    return lines


def draw_critical_differences(results, out: Path) -> set[str]:
    """aeon's critical-difference diagram of each ratio, and of all ratios where there are
    several, over the real datasets (the controls apart); the names of the files drawn."""
    from .statistics import draw_critical_difference, scopes_over_datasets

    drawn = set()
    for scope, table in scopes_over_datasets(results):
        name, title = (
            ("all", "all ratios, each (dataset, ratio) a unit") if scope == "all"
            else (f"ratio{scope:g}", f"ratio {scope:g}")
        )
        figure = CD_FIGURE.format(name)
        if draw_critical_difference(table, out / figure, f"{title}: {len(table)} datasets"):
            drawn.add(figure)
    return drawn


def draw_published_difference(complete, out: Path) -> bool:
    """aeon's critical-difference diagram of the run's arms beside the published classifiers,
    over the datasets with every figure (``critical_difference_published.png``)."""
    from .statistics import draw_critical_difference

    return draw_critical_difference(
        complete, out / CD_FIGURE.format("published"),
        f"ratio 1 beside published results: {len(complete)} datasets")


def coverage_line(n_summarized: int, n_rows: int, path: Path) -> str:
    """What the summary covers: this run's grid, which may be part of results.csv.

    Examples
    --------
    >>> from sktdi.benchmark.report import coverage_line
    >>> print(coverage_line(6, 10, Path("out/results.csv")))
    the summary covers this run's grid: 6 of the 10 rows in out/results.csv (the other 4 are \
earlier runs' cells outside this grid: rerun with their datasets, ratios, resamples and \
estimators to summarize them)
    """
    line = f"the summary covers this run's grid: {n_summarized} of the {n_rows} rows in {path}"
    if n_summarized < n_rows:
        line += (
            f" (the other {n_rows - n_summarized} are earlier runs' cells outside this grid: "
            f"rerun with their datasets, ratios, resamples and estimators to summarize them)"
        )
    return line
