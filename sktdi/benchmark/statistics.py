"""The field's statistics over datasets: what a run says about "does TDI help?".

A dataset's accuracy (at one training ratio) is the mean over its resamples; every test and
rank below takes datasets as its units, as tsml-eval and aeon do, never pooled resamples (the
resamples of one dataset are not independent evidence about the method). So:

- :func:`dataset_means` — (dataset, ratio) × estimator table of mean accuracy over resamples;
- :func:`ranks_over_datasets` — average ranks (1 = best, ties share ranks);
- :func:`pairwise_over_datasets` — aeon's pairwise Wilcoxon p-values with its Holm-style
  threshold (the cliques of its critical-difference diagram, :func:`draw_critical_difference`);
- :func:`difference_over_datasets` — one arm minus another: mean over datasets, a 95%
  t-interval, the smallest difference the run could detect, and a Wilcoxon test that says when
  it has too few untied datasets to mean anything;
- :func:`tie_split` — a TDI arm's paired cells split into "TDI stood down (the models were
  one)", "same accuracy", ahead and behind.

Control datasets (:data:`CONTROL_DATASETS`, the generated task with a known band) are
reported on their own, never pooled with the real datasets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

# two accuracies closer than this are a tie (the same predictions, summed in another order)
TIE = 1e-12

# generated tasks whose answer is known, reported apart from the real datasets: on them TDI
# must beat S4D-Lin and its placebo, or the harness could not see an effect where one exists
CONTROL_DATASETS = {
    "planted": "4 classes of white noise, classes 1-3 each with a sinusoid of its own at 0.30, "
    "0.37 or 0.45 cycles/sample: all the information lies in that band",
}
# the significance level of the critical-difference cliques (tsml-eval's and aeon's default)
CD_ALPHA = 0.1
# the fewest untied pairs for which a two-sided Wilcoxon signed-rank test can reach p < 0.05
# (its smallest exact p with m pairs is 2 / 2**m: 0.0625 for 5, 0.031 for 6)
MIN_UNTIED = 6


def ok_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the cells that finished ("ok"); none of a table without a status column."""
    if "status" not in results.columns:
        return results.iloc[0:0]
    return results[results["status"] == "ok"]


def real_datasets(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` without the control datasets."""
    return results[~results["dataset"].isin(CONTROL_DATASETS)]


def complete_cells(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """``metric`` of the finished cells, one row per (dataset, ratio, resample) that every
    estimator finished, one column per estimator (empty without finished cells)."""
    ok = ok_rows(results)
    if ok.empty:
        return pd.DataFrame()
    return ok.pivot_table(
        index=["dataset", "ratio", "resample"], columns="estimator", values=metric
    ).dropna()


def dataset_means(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Mean ``metric`` over resamples: one row per (dataset, ratio), one column per estimator.

    Only resamples that every estimator finished count, so that each estimator's mean is over
    the same test sets.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.statistics import dataset_means
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok"})
    >>> dataset_means(results).round(3).to_dict("records")
    [{'s4d-lin': 0.775, 'tdi': 0.8}]
    """
    cells = complete_cells(results, metric)
    if cells.empty:
        return pd.DataFrame()
    # numpy's mean of the resamples in order, as tsml-eval takes it: its evaluation of the
    # run's results files then gives these very numbers, not ones a rounding apart
    return cells.groupby(level=["dataset", "ratio"]).agg(lambda v: float(np.mean(v.to_numpy())))


def scopes_over_datasets(results: pd.DataFrame) -> list[tuple[object, pd.DataFrame]]:
    """(scope, :func:`dataset_means` of the real datasets) for each training ratio, and
    ("all", every (dataset, ratio) as a unit) where there are several ratios: the units of the
    ranks, the critical-difference diagrams and the differences over datasets."""
    means = dataset_means(real_datasets(results))
    if means.empty:
        return []
    ratios = sorted(means.index.get_level_values("ratio").unique())
    scopes = [(r, means.xs(r, level="ratio")) for r in ratios]
    if len(ratios) > 1:
        scopes.append(("all", means))
    return scopes


def ranks_over_datasets(means: pd.DataFrame) -> pd.Series:
    """Average rank of each estimator over the rows of ``means`` (1 = best, ties averaged).

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.statistics import ranks_over_datasets
    >>> means = pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.8, 0.8, 0.6]})
    >>> ranks_over_datasets(means).to_dict()
    {'a': 1.1666666666666667, 'b': 1.8333333333333333}
    """
    if means.empty:
        return pd.Series(dtype=float)
    ranks = means.rank(axis=1, ascending=False).mean().sort_values()
    ranks.attrs["n_datasets"] = len(means)
    return ranks


def pairwise_over_datasets(means: pd.DataFrame, alpha: float = CD_ALPHA) -> dict:
    """The tests behind aeon's critical-difference diagram of ``means`` (rows: datasets).

    Returns ``{"friedman_p": p, "threshold": alpha / (k - 1), "pairs": [(a, b, p), ...]}``
    with aeon's own Friedman test and pairwise Wilcoxon p-values (aeon first tests Friedman;
    where it finds no difference, every estimator is one clique). A pair differs when its p is
    below the threshold (aeon's "holm" correction). Empty without aeon or with fewer than 2
    datasets or estimators.
    """
    if means.shape[0] < 2 or means.shape[1] < 2:
        return {}
    try:
        from aeon.benchmarking.stats import check_friedman
        from aeon.benchmarking.stats import wilcoxon_test as aeon_wilcoxon
    except ImportError:
        return {}
    # best average rank first, as aeon orders them: its pairwise test is one-sided, the
    # better-ranked estimator against the worse
    means = means[ranks_over_datasets(means).index]
    scores = means.to_numpy()  # (n_datasets, k)
    labels = list(means.columns)
    ranks = stats.rankdata(-scores, axis=1)
    import warnings

    # aeon warns of a pair equal on every dataset (TDI where it stood down everywhere); the
    # summary says that itself, per cell, so the warning would only repeat it after the run
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        # Friedman's test needs 3 arms; with 2 the pairwise test is the whole comparison
        friedman = float(check_friedman(ranks)) if len(labels) > 2 else float("nan")
        p = np.asarray(aeon_wilcoxon(scores, labels))  # (k, k), upper triangle filled
    pairs = [
        (labels[i], labels[j], float(p[i, j]))
        for i in range(len(labels)) for j in range(i + 1, len(labels))
    ]
    return {"friedman_p": friedman, "threshold": alpha / (len(labels) - 1), "pairs": pairs}


def draw_critical_difference(means: pd.DataFrame, path, title: str = "") -> bool:
    """Draw aeon's critical-difference diagram (Wilcoxon–Holm cliques, α = :data:`CD_ALPHA`)
    of ``means`` to ``path``; False (nothing drawn) without aeon or with fewer than 2 datasets
    or 3 estimators (its Friedman test needs 3)."""
    if means.shape[0] < 2 or means.shape[1] < 3:
        return False
    try:
        from aeon.visualisation import plot_critical_difference
    except ImportError:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import warnings

    import matplotlib.pyplot as plt

    from ..plotting import estimator_label

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # see pairwise_over_datasets
        fig, ax = plot_critical_difference(
            means.to_numpy(), [estimator_label(c) for c in means.columns], alpha=CD_ALPHA,
            test="wilcoxon", correction="holm",
        )
    if title:
        ax.set_title(title, fontsize=9, pad=18)
    fig.savefig(path, bbox_inches="tight", dpi=120)
    plt.close(fig)
    return True


def difference_over_datasets(means: pd.DataFrame, a: str, b: str) -> dict:
    """``a − b`` with datasets as the units: per-dataset differences of mean accuracy.

    Returns n (datasets with both), mean, low/high (95% t-interval over datasets), detectable
    (the smallest true mean difference a paired t-test at α = 0.05 would find with 80% power,
    given the spread seen: (t₀.₉₇₅ + t₀.₈) · sd / √n), untied (datasets whose difference is not
    0), wins/losses, p (two-sided Wilcoxon signed-rank over the untied datasets; NaN without
    any) and too_few (fewer than :data:`MIN_UNTIED` untied datasets: no outcome of the test
    could reach p < 0.05).

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.statistics import difference_over_datasets
    >>> means = pd.DataFrame({"tdi": [0.8, 0.9, 0.7, 0.6], "s4d-lin": [0.7, 0.9, 0.65, 0.6]})
    >>> d = difference_over_datasets(means, "tdi", "s4d-lin")
    >>> d["n"], round(d["mean"], 4), d["untied"], d["too_few"]
    (4, 0.0375, 2, True)
    """
    out = {"a": a, "b": b, "n": 0, "mean": np.nan, "low": np.nan, "high": np.nan,
           "detectable": np.nan, "untied": 0, "wins": 0, "losses": 0, "p": np.nan,
           "too_few": True}
    if a not in means or b not in means:
        return out
    diff = (means[a] - means[b]).dropna().to_numpy()
    n = len(diff)
    out["n"] = n
    if n == 0:
        return out
    untied = diff[np.abs(diff) > TIE]
    out.update(
        mean=float(diff.mean()), untied=len(untied), wins=int((untied > 0).sum()),
        losses=int((untied < 0).sum()), too_few=len(untied) < MIN_UNTIED,
    )
    if n >= 2:
        se = diff.std(ddof=1) / np.sqrt(n)
        t = stats.t.ppf(0.975, n - 1)
        out.update(
            low=float(diff.mean() - t * se), high=float(diff.mean() + t * se),
            detectable=float((t + stats.t.ppf(0.8, n - 1)) * se),
        )
    if len(untied):
        out["p"] = float(stats.wilcoxon(untied).pvalue)
    return out


def tie_split(results: pd.DataFrame, a: str = "tdi", b: str = "s4d-lin") -> pd.DataFrame:
    """Paired cells of TDI arm ``a`` and ``b``, split by what happened, per (dataset, ratio).

    Columns: cells, stood_down ("TDI stood down": ``a`` aligned no channel, so it was ``b``'s
    model, and the two tie by construction when ``b`` is its base), same (equal accuracy
    though TDI acted), ahead, behind, channels (mean channels aligned where it acted).
    Needs the results' ``tdi_aligned`` column: a file written before it was recorded cannot
    tell the two kinds of tie apart, and gets an empty table.
    """
    ok = ok_rows(results)
    if "tdi_aligned" not in ok.columns:
        return pd.DataFrame()
    cells = ok[ok["estimator"].isin([a, b])]
    if cells.empty or a not in set(cells["estimator"]) or b not in set(cells["estimator"]):
        return pd.DataFrame()
    key = ["dataset", "ratio", "resample"]
    left = cells[cells["estimator"] == a].set_index(key)
    right = cells[cells["estimator"] == b].set_index(key)
    both = left.join(right[["accuracy"]], rsuffix="_b", how="inner")
    aligned = both["tdi_aligned"]
    diff = both["accuracy"] - both["accuracy_b"]
    stood_down = aligned.fillna(-1).eq(0)
    frame = pd.DataFrame({
        "stood_down": stood_down,
        "same": ~stood_down & (diff.abs() <= TIE),
        "ahead": ~stood_down & (diff > TIE),
        "behind": ~stood_down & (diff < -TIE),
        "channels": aligned.where(~stood_down),
    })
    grouped = frame.groupby(level=["dataset", "ratio"])
    table = grouped[["stood_down", "same", "ahead", "behind"]].sum().astype(int)
    table.insert(0, "cells", grouped.size())
    table["channels"] = grouped["channels"].mean()
    return table
