"""Summaries of a results table: mean ± std, wins/ties/losses, average ranks, a paired
Wilcoxon test, and accuracy-vs-ratio plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

PAIR = ["dataset", "mode", "ratio", "resample"]


def _ok(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["status"] == "ok"]


def resample_mean_std(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Mean and standard deviation of ``metric`` over resamples (or folds), from "ok" rows.

    The one definition behind :func:`mean_std_table` and the error bars of
    :func:`sktdi.plotting.plot_accuracy_vs_ratio`.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table, as returned by :func:`run_benchmark`.
    metric : str
        The column to summarize.

    Returns
    -------
    pandas.DataFrame
        Indexed by (dataset, estimator, ratio), with columns "mean", "std" and "n" (the number
        of resamples with a value). "std" is the sample standard deviation (``ddof=1``): the
        resamples are a sample of the splits one could draw. A single resample gives std 0,
        not NaN, so its cell and error bar still show.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark.summary import resample_mean_std
    >>> resample_mean_std(results).loc[("D", "tdi", 0.1), ["mean", "std"]].round(4).tolist()
    [0.8, 0.1414]
    >>> float(resample_mean_std(results[results["resample"] == 0]).loc[("D", "tdi", 0.1), "std"])
    0.0
    """
    grouped = _ok(results).groupby(["dataset", "estimator", "ratio"])[metric]
    stats = grouped.agg(["mean", "count"]).rename(columns={"count": "n"})
    # n == 1 has no spread to estimate; 0 keeps it visible, while n == 0 (no value) stays NaN
    stats["std"] = grouped.std(ddof=1).mask(stats["n"] == 1, 0.0)
    return stats[["mean", "std", "n"]]


def mean_std_table(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """"mean ± std" of ``metric`` per (dataset, ratio) row and estimator column.

    The spread is the sample standard deviation over resamples, as in
    :func:`resample_mean_std`.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import mean_std_table
    >>> mean_std_table(results).loc[("D", 0.1), "tdi"]
    '0.800 ± 0.141'
    """
    stats = resample_mean_std(results, metric)
    cells = stats["mean"].map("{:.3f}".format) + " ± " + stats["std"].map("{:.3f}".format)
    return cells.unstack("estimator")


def paired(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """One row per (dataset, mode, ratio, resample), one column per estimator."""
    return _ok(results).pivot_table(index=PAIR, columns="estimator", values=metric)


def wins_ties_losses(results: pd.DataFrame, reference: str, metric: str = "accuracy") -> pd.DataFrame:
    """How often ``reference`` beats, ties and loses to each other estimator, paired cells.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import wins_ties_losses
    >>> wins_ties_losses(results, "tdi").loc["s4d-lin", ["wins", "losses"]].tolist()
    [1, 1]
    """
    table = paired(results, metric)
    rows = []
    for other in table.columns.drop(reference, errors="ignore"):
        both = table[[reference, other]].dropna()
        diff = both[reference] - both[other]
        rows.append(
            {
                "versus": other,
                "wins": int((diff > 1e-12).sum()),
                "ties": int((diff.abs() <= 1e-12).sum()),
                "losses": int((diff < -1e-12).sum()),
                "mean_difference": float(diff.mean()) if len(diff) else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("versus") if rows else pd.DataFrame()


def average_ranks(results: pd.DataFrame, metric: str = "accuracy") -> pd.Series:
    """Mean rank of each estimator over paired cells (1 = best; ties share ranks).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import average_ranks
    >>> average_ranks(results).to_dict()
    {'s4d-lin': 1.5, 'tdi': 1.5}
    """
    table = paired(results, metric).dropna()
    return table.rank(axis=1, ascending=False).mean().sort_values()


def wilcoxon_test(
    results: pd.DataFrame, a: str, b: str, metric: str = "accuracy", max_ratio: float | None = None
) -> dict:
    """Paired Wilcoxon signed-rank test of ``a`` vs ``b`` over (dataset, ratio, resample).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import wilcoxon_test
    >>> wilcoxon_test(results, "tdi", "s4d-lin")["n_pairs"]
    2
    """
    table = paired(results, metric)
    if max_ratio is not None:
        table = table[table.index.get_level_values("ratio") <= max_ratio]
    if a not in table or b not in table:
        return {"a": a, "b": b, "n_pairs": 0, "mean_difference": np.nan, "p_value": np.nan}
    both = table[[a, b]].dropna()
    diff = (both[a] - both[b]).to_numpy()
    out = {"a": a, "b": b, "n_pairs": len(diff), "mean_difference": float(np.mean(diff)) if len(diff) else np.nan}
    if np.count_nonzero(diff) == 0:
        out.update(statistic=np.nan, p_value=1.0)
    else:
        test = stats.wilcoxon(diff, zero_method="zsplit")
        out.update(statistic=float(test.statistic), p_value=float(test.pvalue))
    return out


def summarize(
    results: pd.DataFrame, reference: str = "tdi", baseline: str = "s4d-lin"
) -> dict[str, object]:
    """All summary tables of a results table, keyed by name.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import summarize
    >>> sorted(summarize(results))
    ['accuracy', 'average_rank', 'errors', 'fit_seconds', 'wilcoxon', 'wins_ties_losses']
    """
    ok = _ok(results)
    summary: dict[str, object] = {
        "accuracy": mean_std_table(results),
        "average_rank": average_ranks(results),
        "fit_seconds": ok.groupby("estimator")["fit_seconds"].mean(),
        "errors": int((results["status"] != "ok").sum()),
    }
    if reference in set(ok["estimator"]):
        summary["wins_ties_losses"] = wins_ties_losses(results, reference)
        summary["wilcoxon"] = pd.DataFrame(
            [
                wilcoxon_test(results, reference, baseline),
                wilcoxon_test(results, reference, baseline, max_ratio=0.16),
            ],
            index=["all ratios", "ratio <= 0.16"],
        )
    return summary


def format_summary(summary: dict[str, object]) -> str:
    """Plain-text rendering of :func:`summarize`.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import format_summary, summarize
    >>> format_summary(summarize(results)).splitlines()[0]
    '== accuracy =='
    """
    parts = []
    for name, value in summary.items():
        title = name.replace("_", " ")
        if isinstance(value, (pd.DataFrame, pd.Series)):
            parts.append(f"== {title} ==\n{value.to_string()}")
        else:
            parts.append(f"== {title} == {value}")
    return "\n\n".join(parts)


def plot_accuracy_vs_ratio(results: pd.DataFrame, path: str | Path, metric: str = "accuracy"):
    """One panel per dataset (:func:`sktdi.plotting.plot_accuracy_vs_ratio`); saves a PNG and
    returns the figure.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark import plot_accuracy_vs_ratio
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "curves.png"
    >>> _ = plot_accuracy_vs_ratio(results, path)
    >>> path.exists()
    True
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from ..plotting import plot_accuracy_vs_ratio as plot_one

    datasets = sorted(_ok(results)["dataset"].unique())
    n_cols = min(3, max(1, len(datasets)))
    n_rows = -(-len(datasets) // n_cols)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4.5 * n_cols, 3.4 * n_rows), squeeze=False)
    for ax, dataset in zip(axes.ravel(), datasets):
        plot_one(results, dataset, ax=ax, metric=metric)
    for ax in axes.ravel()[len(datasets):]:
        ax.set_visible(False)
    axes.ravel()[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return fig
