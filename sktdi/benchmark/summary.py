"""Summaries of a results table: mean ± std, wins/ties/losses, average ranks, a paired
Wilcoxon test and a readable text report (the figures are in :mod:`sktdi.benchmark.figures`).

Duplicate training sets
-----------------------
Two training ratios can draw the very same training series. :func:`run_cell` takes
``training_subsample(y_train, ratio, min_per_class=..., random_state=resample)``, i.e.
:func:`sktdi.utils.sampling.subsample_indices`: it turns the ratio into a per-class count vector
(largest-remainder rounding of ``round(ratio * n)``, raised to ``min_per_class``) and then draws,
class by class, from a generator seeded by the resample. The draw depends on the ratio only
through that count vector, so equal count vectors give the same series (sorted, so in the same
order too), and the cell is the same experiment run twice. Within a (dataset, mode, resample) the
split is fixed, and the count vector is a non-decreasing function of the target in every class
for two classes (so equal totals ``n_train`` mean equal vectors); for more classes no collision
was found in a brute-force search over random class counts. Hence cells with equal ``n_train``
within (dataset, mode, resample) are treated as one: the comparisons (wins/ties/losses, average
ranks, Wilcoxon) keep the smallest ratio and drop the others (see :func:`duplicate_training_sets`);
the accuracy table and the plots keep every ratio and mark the duplicates.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy import stats

from ..plotting import estimator_label, estimator_order
from .answer import (
    dataset_statistics,
    published_sections,
    published_statistics,
    rank_sections,
    tdi_help_sections,
    warning_sections,
    warning_table,
)
from .formatting import (
    format_p_value,  # noqa: F401 (scripts import it from the summary)
    format_points,
    format_ratio,
    format_seconds,
    section,
)
from .settings import HARNESS_SETTINGS, describe_settings, normalize_config, parse_config
from .statistics import TIE, ok_rows, real_datasets

PAIR = ["dataset", "mode", "ratio", "resample"]
SPLIT = ["dataset", "mode", "resample"]


def duplicate_training_sets(results: pd.DataFrame) -> pd.DataFrame:
    """Cells whose training series are those of a smaller ratio of the same split.

    Within one (dataset, mode, resample), ratios with the same ``n_train`` draw the same
    training series (see the module docstring); every such ratio but the smallest is listed.

    Returns
    -------
    pandas.DataFrame
        Columns dataset, mode, resample, ratio (the duplicate), n_train and same_as (the
        smallest ratio with that training set). Empty when there are none, or when the table
        has no ``n_train`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import duplicate_training_sets
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": [0.04, 0.08, 0.16], "resample": 0,
    ...     "estimator": "tdi", "accuracy": 0.5, "status": "ok", "n_train": [3, 3, 6]})
    >>> duplicate_training_sets(results)[["ratio", "same_as"]].values.tolist()
    [[0.08, 0.04]]
    """
    columns = SPLIT + ["ratio", "n_train", "same_as"]
    ok = ok_rows(results)
    if ok.empty or "n_train" not in ok.columns:
        return pd.DataFrame(columns=columns)
    sizes = (
        ok.dropna(subset=["n_train"]).groupby(SPLIT + ["ratio"])["n_train"].max().reset_index()
    ).sort_values(SPLIT + ["ratio"])
    sizes["same_as"] = sizes.groupby(SPLIT + ["n_train"])["ratio"].transform("first")
    return sizes.loc[sizes["ratio"] != sizes["same_as"], columns].reset_index(drop=True)


def distinct_training_sets(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` without the rows of :func:`duplicate_training_sets` (the smallest ratio of
    each training set stays).

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import distinct_training_sets
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": [0.04, 0.08, 0.16], "resample": 0,
    ...     "estimator": "tdi", "accuracy": 0.5, "status": "ok", "n_train": [3, 3, 6]})
    >>> distinct_training_sets(results)["ratio"].tolist()
    [0.04, 0.16]
    """
    duplicates = duplicate_training_sets(results)
    if duplicates.empty:
        return results
    drop = set(duplicates[SPLIT + ["ratio"]].itertuples(index=False, name=None))
    keys = results[SPLIT + ["ratio"]].itertuples(index=False, name=None)
    return results[[key not in drop for key in keys]]


def resample_mean_std(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Mean and standard deviation of ``metric`` over resamples (or folds), from "ok" rows.

    The one definition behind :func:`mean_std_table` and the error bars of
    :func:`sktdi.benchmark.plot_accuracy_vs_ratio`.

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
    ok = ok_rows(results)
    if ok.empty:
        index = pd.MultiIndex.from_arrays([[], [], []], names=["dataset", "estimator", "ratio"])
        return pd.DataFrame({"mean": [], "std": [], "n": []}, index=index)
    grouped = ok.groupby(["dataset", "estimator", "ratio"])[metric]
    stats = grouped.agg(["mean", "count"]).rename(columns={"count": "n"})
    # n == 1 has no spread to estimate; 0 keeps it visible, while n == 0 (no value) stays NaN
    stats["std"] = grouped.std(ddof=1).mask(stats["n"] == 1, 0.0)
    return stats[["mean", "std", "n"]]


def mean_std_long(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Mean and std of ``metric`` over resamples as numbers, one row per (dataset, ratio,
    estimator): what ``sktdi benchmark`` writes to ``summary_accuracy.csv``.

    Columns dataset, ratio, estimator, mean, std (sample std, ``ddof=1``; 0 for one resample)
    and n (resamples with a value), as in :func:`resample_mean_std`. Long (tidy) format: filter
    and group it directly, or pivot it to the printed layout with
    ``table.pivot(index=["dataset", "ratio"], columns="estimator", values="mean")``.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark.summary import mean_std_long
    >>> print(mean_std_long(results).round(4).to_string(index=False))
    dataset  ratio estimator  mean    std  n
          D    0.1   s4d-lin 0.775 0.0354  2
          D    0.1       tdi 0.800 0.1414  2
    """
    stats = resample_mean_std(results, metric).reset_index()
    columns = ["dataset", "ratio", "estimator", "mean", "std", "n"]
    stats["n"] = stats["n"].astype(int)
    return stats[columns].sort_values(["dataset", "ratio", "estimator"]).reset_index(drop=True)


def mean_std_table(results: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """"mean ± std" of ``metric`` per (dataset, ratio) row and estimator column: text, for
    printing (the numbers: :func:`mean_std_long`).

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
    if stats.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_arrays([[], []], names=["dataset", "ratio"]))
    cells = stats["mean"].map("{:.3f}".format) + " ± " + stats["std"].map("{:.3f}".format)
    return cells.unstack("estimator")


def run_settings(results: pd.DataFrame) -> pd.DataFrame:
    """The settings of the "ok" cells (their "config" column, :mod:`sktdi.benchmark.settings`):
    one row per (estimator, settings) with the number of cells.

    Columns estimator, config (sorted JSON, ``{}`` for every default) and cells. Empty when the
    table has no "config" column. An estimator with more than one row mixes settings.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import run_settings
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": 0, "status": "ok",
    ...     "estimator": ["tdi", "1nn-euclidean"], "accuracy": 0.5,
    ...     "config": ['{"max_epochs": 5}', '{"max_epochs": 5}']})
    >>> run_settings(results).values.tolist()
    [['1nn-euclidean', '{}', 1], ['tdi', '{"max_epochs": 5}', 1]]
    """
    columns = ["estimator", "config", "cells"]
    ok = ok_rows(results)
    if ok.empty or "config" not in ok.columns:
        return pd.DataFrame(columns=columns)
    # normalized: an older file recorded --max-epochs on 1-NN rows too, where it means nothing
    config = [normalize_config(e, c) for e, c in zip(ok["estimator"], ok["config"])]
    table = ok.assign(config=config).groupby(["estimator", "config"]).size()
    return table.rename("cells").reset_index()[columns]


def settings_lines(settings: pd.DataFrame, reference: str = "tdi",
                   baseline: str = "s4d-lin") -> list[str]:
    """Lines naming the non-default settings of :func:`run_settings`, for the report and the
    figures: first the run's own settings, those every cell shares (``data_dir``,
    ``min_per_class``, the fold count: "run: data_dir=..."), then what differs per arm,
    "max_epochs=5: TDI, S4D-Lin" (estimators at their defaults are not named), and for
    an estimator whose cells mix settings, "TDI: mixed settings, ..." with the cells of each.
    Empty when every cell ran with the defaults.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import settings_lines
    >>> settings = pd.DataFrame({"estimator": ["tdi", "s4d-lin", "1nn-euclidean"],
    ...                          "config": ['{"max_epochs": 5}'] * 2 + ["{}"], "cells": 4})
    >>> settings_lines(settings)
    ['max_epochs=5: TDI, S4D-Lin']
    >>> settings["config"] = ['{"data_dir": "ucr", "max_epochs": 5}'] * 2 + ['{"data_dir": "ucr"}']
    >>> settings_lines(settings)
    ['run: data_dir=ucr', 'max_epochs=5: TDI, S4D-Lin']
    """
    if settings is None or not len(settings):
        return []
    configs = [parse_config(c) for c in settings["config"]]
    # a harness setting with one value in every cell is the run's, not an arm's
    shared = {
        key: configs[0][key] for key in HARNESS_SETTINGS
        if key in configs[0] and all(c.get(key, None) == configs[0][key] for c in configs)
    }
    own = [json.dumps({k: v for k, v in c.items() if k not in shared}, sort_keys=True)
           for c in configs]
    settings = settings.assign(config=own)
    lines, uniform = [], {}
    for name in _estimator_order(settings["estimator"], reference, baseline):
        rows = settings[settings["estimator"] == name]
        if len(rows) > 1:
            parts = [f"{describe_settings(c)} ({n} cell{'s' if n != 1 else ''})"
                     for c, n in zip(rows["config"], rows["cells"])]
            lines.append(f"{estimator_label(name)}: mixed settings, " + "; ".join(parts))
        elif rows["config"].iloc[0] != "{}":
            uniform.setdefault(rows["config"].iloc[0], []).append(estimator_label(name))
    run = [f"run: {describe_settings(shared)}"] if shared else []
    return run + [f"{describe_settings(c)}: {', '.join(names)}"
                  for c, names in uniform.items()] + lines


def mean_nll(results: pd.DataFrame) -> pd.Series:
    """Mean test NLL (log loss) per estimator over "ok" cells, NaN for hard-label models.

    An estimator whose ``predict_proba`` is a 0/1 vote (1-NN, MiniRocket's ridge head:
    :data:`sktdi.benchmark.estimators.HARD_LABEL`) has no NLL worth the name, only its error
    rate times the clip's 34.5 nats; results files written before the harness knew that hold
    one, which is not shown. Empty when the table has no "nll" column.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import mean_nll
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": 0, "status": "ok",
    ...     "estimator": ["tdi", "1nn-euclidean"], "accuracy": 0.7, "nll": [0.61, 9.44]})
    >>> mean_nll(results).to_dict()
    {'1nn-euclidean': nan, 'tdi': 0.61}
    """
    return mean_probability_score(results, "nll")


def mean_probability_score(results: pd.DataFrame, column: str) -> pd.Series:
    """Mean of a score of the test probabilities, ``column`` ("nll", "brier" or "ece": the
    expected calibration error, 15 bins; :mod:`sktdi.benchmark.probabilities`), per estimator
    over "ok" cells, NaN for hard-label models (as :func:`mean_nll`). Empty when the table
    has no such column (a results file from before it).

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import mean_probability_score
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": 0, "status": "ok",
    ...     "estimator": ["tdi", "1nn-euclidean"], "accuracy": 0.7, "ece": [0.04, 0.3]})
    >>> mean_probability_score(results, "ece").to_dict()
    {'1nn-euclidean': nan, 'tdi': 0.04}
    """
    from .estimators import gives_probabilities

    ok = ok_rows(results)
    if ok.empty or column not in ok.columns or ok[column].isna().all():
        return pd.Series(dtype=float, name=column)
    score = ok.groupby("estimator")[column].mean()
    return score.where([gives_probabilities(name) for name in score.index])


def training_size(results: pd.DataFrame) -> pd.DataFrame:
    """Training series behind each (dataset, ratio): ``n_train`` (min and max over resamples),
    ``n_classes`` and ``per_class`` (mean ``n_train / n_classes``), from "ok" rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.summary import training_size
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": [0.04, 0.08], "resample": 0,
    ...     "estimator": "tdi", "accuracy": 0.5, "status": "ok", "n_train": [2, 4], "n_classes": 2})
    >>> training_size(results)["per_class"].tolist()
    [1.0, 2.0]
    """
    columns = ["n_train_min", "n_train_max", "n_classes", "per_class"]
    ok = ok_rows(results)
    if ok.empty or "n_train" not in ok.columns:
        index = pd.MultiIndex.from_arrays([[], []], names=["dataset", "ratio"])
        return pd.DataFrame({c: [] for c in columns}, index=index)
    ok = ok.assign(
        per_class=ok["n_train"] / ok["n_classes"] if "n_classes" in ok.columns else np.nan,
        n_classes=ok["n_classes"] if "n_classes" in ok.columns else np.nan,
    )
    grouped = ok.groupby(["dataset", "ratio"])
    return pd.DataFrame(
        {
            "n_train_min": grouped["n_train"].min(),
            "n_train_max": grouped["n_train"].max(),
            "n_classes": grouped["n_classes"].max(),
            "per_class": grouped["per_class"].mean(),
        }
    )


def paired(
    results: pd.DataFrame, metric: str = "accuracy", merge_duplicates: bool = True
) -> pd.DataFrame:
    """One row per (dataset, mode, ratio, resample), one column per estimator.

    With ``merge_duplicates``, cells that repeat a smaller ratio's training set are dropped
    (:func:`duplicate_training_sets`), so each distinct experiment counts once.
    """
    if merge_duplicates:
        results = distinct_training_sets(results)
    ok = ok_rows(results)
    if ok.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_arrays([[]] * len(PAIR), names=PAIR))
    return ok.pivot_table(index=PAIR, columns="estimator", values=metric)


def wins_ties_losses(
    results: pd.DataFrame, reference: str, metric: str = "accuracy", merge_duplicates: bool = True
) -> pd.DataFrame:
    """How often ``reference`` beats, ties and loses to each other estimator, paired cells.

    Cells repeating a training set of a smaller ratio count once (``merge_duplicates``).
    Columns: wins, ties, losses, n_pairs and mean_difference (``reference − other``, as a
    fraction of accuracy; :func:`format_summary` shows it in points).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import wins_ties_losses
    >>> wins_ties_losses(results, "tdi").loc["s4d-lin", ["wins", "losses", "n_pairs"]].tolist()
    [1, 1, 2]
    """
    table = paired(results, metric, merge_duplicates)
    rows = []
    if reference in table.columns:
        for other in table.columns.drop(reference):
            both = table[[reference, other]].dropna()
            diff = both[reference] - both[other]
            rows.append(
                {
                    "versus": other,
                    "wins": int((diff > TIE).sum()),
                    "ties": int((diff.abs() <= TIE).sum()),
                    "losses": int((diff < -TIE).sum()),
                    "n_pairs": len(diff),
                    "mean_difference": float(diff.mean()) if len(diff) else np.nan,
                }
            )
    return pd.DataFrame(rows).set_index("versus") if rows else pd.DataFrame()


def average_ranks(
    results: pd.DataFrame, metric: str = "accuracy", merge_duplicates: bool = True
) -> pd.Series:
    """Mean rank of each estimator over paired cells where every estimator finished (1 = best;
    ties share ranks; a repeated training set counts once).

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
    table = paired(results, metric, merge_duplicates).dropna()
    ranks = table.rank(axis=1, ascending=False).mean().sort_values()
    ranks.attrs["n_cells"] = len(table)
    return ranks


def wilcoxon_test(
    results: pd.DataFrame,
    a: str,
    b: str,
    metric: str = "accuracy",
    max_ratio: float | None = None,
    merge_duplicates: bool = True,
) -> dict:
    """Paired Wilcoxon signed-rank test (two-sided, zero differences split) of ``a`` vs ``b``
    over (dataset, ratio, resample); a repeated training set is one pair, not two.

    Returns a dict with a, b, n_pairs, n_ties (pairs whose difference is 0),
    mean_difference (``a − b``, fraction), statistic and p_value (NaN when there are no
    pairs; 1 when every difference is 0).

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
    table = paired(results, metric, merge_duplicates)
    if max_ratio is not None:
        table = table[table.index.get_level_values("ratio") <= max_ratio]
    out = {"a": a, "b": b, "n_pairs": 0, "n_ties": 0, "mean_difference": np.nan,
           "statistic": np.nan, "p_value": np.nan}
    if a not in table or b not in table:
        return out
    both = table[[a, b]].dropna()
    diff = (both[a] - both[b]).to_numpy()
    out.update(
        n_pairs=len(diff), n_ties=int(np.count_nonzero(np.abs(diff) <= TIE)),
        mean_difference=float(np.mean(diff)) if len(diff) else np.nan,
    )
    if len(diff) == 0:
        return out
    if np.count_nonzero(np.abs(diff) > TIE) == 0:
        out.update(statistic=np.nan, p_value=1.0)
    else:
        test = stats.wilcoxon(diff, zero_method="zsplit")
        out.update(statistic=float(test.statistic), p_value=float(test.pvalue))
    return out


def summarize(
    results: pd.DataFrame, reference: str = "tdi", baseline: str = "s4d-lin",
    published: pd.DataFrame | None = None,
) -> dict[str, object]:
    """All summary tables of a results table, keyed by name.

    "accuracy" (mean ± std strings, the printed table), "accuracy_stats"
    (:func:`resample_mean_std`, the numbers; :func:`mean_std_long` is the same in long format,
    as the CLI writes it to ``summary_accuracy.csv``), "training_size", "duplicates"
    (:func:`duplicate_training_sets`), "average_rank" (over cells), "fit_seconds" and
    "predict_seconds"
    (means per estimator),
    "nll", "brier" and "ece" (:func:`mean_probability_score`: the mean test log-loss, Brier
    score and expected calibration error per estimator, NaN for hard-label models),
    "settings" (:func:`run_settings`), "errors" (number of failed cells), "cells" (number of
    rows), "reference", "baseline"; the statistics over datasets of
    :func:`sktdi.benchmark.answer.dataset_statistics` ("ranks", "pairwise", "tdi_help",
    "controls", "tie_split") and "warnings" (:func:`~sktdi.benchmark.answer.warning_table`);
    with ``published`` (:func:`sktdi.benchmark.published.read_published`'s table), "published"
    (:func:`~sktdi.benchmark.answer.published_statistics`, or "published_note" saying why
    nothing sits beside the run);
    and, when ``reference`` has results, "wins_ties_losses" (over the real datasets' cells) and
    "wilcoxon" (over cells, kept for scripts: the report uses the tests over datasets). An
    empty or all-error table gives empty tables, never an exception.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import summarize
    >>> sorted(summarize(results))  # doctest: +NORMALIZE_WHITESPACE
    ['accuracy', 'accuracy_stats', 'average_rank', 'baseline', 'brier', 'cells', 'controls',
     'duplicates', 'ece', 'errors', 'fit_seconds', 'nll', 'pairwise', 'predict_seconds', 'ranks',
     'reference',
     'settings', 'tdi_help', 'tie_split', 'training_size', 'warnings', 'wilcoxon',
     'wins_ties_losses']
    >>> summarize(pd.DataFrame())["errors"]
    0
    """
    ok = ok_rows(results)
    errors = int((results["status"] != "ok").sum()) if "status" in results.columns else 0
    fit, predict = (
        ok.groupby("estimator")[column].mean() if not ok.empty and column in ok
        else pd.Series(dtype=float, name=column) for column in ("fit_seconds", "predict_seconds")
    )
    summary: dict[str, object] = {
        "accuracy": mean_std_table(results),
        "accuracy_stats": resample_mean_std(results),
        "training_size": training_size(results),
        "duplicates": duplicate_training_sets(results),
        "average_rank": average_ranks(results),
        "fit_seconds": fit,
        "predict_seconds": predict,
        "nll": mean_nll(results),
        "brier": mean_probability_score(results, "brier"),
        "ece": mean_probability_score(results, "ece"),
        "settings": run_settings(results),
        "errors": errors,
        "cells": len(results),
        "reference": reference,
        "baseline": baseline,
    }
    summary.update(dataset_statistics(results, reference, baseline))
    summary["warnings"] = warning_table(results)
    if published is not None:
        summary["published"] = published_statistics(results, published)
        if not summary["published"]:
            summary["published_note"] = (
                "no published figure sits beside this run: they train on the whole official "
                "training split, and the run has no ratio-1 cell of the official split or its "
                "resamples on a real dataset")
    if not ok.empty and reference in set(ok["estimator"]):
        # the real datasets, as the differences over datasets: the control would swell them
        summary["wins_ties_losses"] = wins_ties_losses(real_datasets(results), reference)
        summary["wilcoxon"] = pd.DataFrame(
            [
                wilcoxon_test(results, reference, baseline),
                wilcoxon_test(results, reference, baseline, max_ratio=0.16),
            ],
            index=["all ratios", "ratio <= 0.16"],
        )
    return summary


# -- text report -------------------------------------------------------------------------------


def _estimator_order(names, reference: str, baseline: str) -> list[str]:
    return estimator_order(names, first=(reference, baseline))


def per_class_label(per_class: float) -> str:
    """Training series per class as the report and the figures write it: "4/class", or
    "≈1.5/class" when the classes differ in size (the mean of n_train / n_classes).

    Examples
    --------
    >>> from sktdi.benchmark.summary import per_class_label
    >>> per_class_label(4.0), per_class_label(1.5)
    ('4/class', '≈1.5/class')
    """
    if np.isclose(per_class, round(per_class)):
        return f"{per_class:.0f}/class"
    return f"≈{per_class:.3g}/class"


def _per_class(row: pd.Series) -> str:
    low, high = int(row["n_train_min"]), int(row["n_train_max"])
    total = f"{low}" if low == high else f"{low}–{high}"
    per_class = row["per_class"]
    if not np.isfinite(per_class):
        return total
    return f"{total} ({per_class_label(per_class)})"


def _accuracy_section(summary: dict) -> str:
    stats_ = summary.get("accuracy_stats")
    table = summary["accuracy"]
    reference, baseline = summary.get("reference", "tdi"), summary.get("baseline", "s4d-lin")
    order = _estimator_order(table.columns, reference, baseline)
    report = table[order].rename(columns=estimator_label)
    report.columns.name = None
    sizes = summary.get("training_size")
    duplicates = summary.get("duplicates")
    marked = set()
    if duplicates is not None and len(duplicates):
        # a (dataset, ratio) whose training set repeats a smaller ratio in some resample
        marked = set(zip(duplicates["dataset"], duplicates["ratio"]))
    if sizes is not None and len(sizes):
        column = [
            (_per_class(sizes.loc[key]) if key in sizes.index else "?")
            + (" *" if key in marked else "")
            for key in report.index
        ]
        report.insert(0, "training series", column)
    report.index = pd.MultiIndex.from_tuples(
        [(d, format_ratio(r)) for d, r in report.index], names=["dataset", "ratio"]
    )
    n = stats_["n"] if stats_ is not None and len(stats_) else pd.Series([0])
    mode = "resamples"
    low, high = int(n.min()), int(n.max())
    count = f"{low}" if low == high else f"{low}–{high}"
    title = f"test accuracy: mean ± sample std over {count} {mode}"
    body = report.to_string()
    if marked:
        body += ("\n* same training series as a smaller ratio of the same split (equal n_train);"
                 " counted once below")
    return section(title, body)


def format_summary(summary: dict[str, object]) -> str:
    """Plain-text report of :func:`summarize`: accuracy table with training series per class,
    average ranks, fit times, wins/ties/losses and the Wilcoxon test (differences in accuracy
    points), duplicate training sets and errors.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> from sktdi.benchmark import format_summary, summarize
    >>> print(format_summary(summarize(results)).split("\\n\\n")[0])
    == test accuracy: mean ± sample std over 2 resamples ==
                             TDI        S4D-Lin
    dataset ratio
    D       0.1    0.800 ± 0.141  0.775 ± 0.035
    >>> print(format_summary(summarize(results.assign(status="error"))))
    == results ==
    no successful cells: 4 of 4 cells failed (see the error column of the results table)
    """
    errors, cells = summary.get("errors", 0), summary.get("cells")
    reference, baseline = summary.get("reference", "tdi"), summary.get("baseline", "s4d-lin")
    accuracy = summary.get("accuracy")
    if accuracy is None or len(accuracy) == 0:
        of = f" of {cells}" if cells is not None else ""
        why = (f"{errors}{of} cells failed (see the error column of the results table)"
               if errors else "the results table is empty")
        return section("results", f"no successful cells: {why}")
    parts = []
    settings = settings_lines(summary.get("settings"), reference, baseline)
    if settings:
        parts.append(section("non-default run settings", "\n".join(settings)))
    parts.append(_accuracy_section(summary))

    parts.extend(tdi_help_sections(summary))
    parts.extend(rank_sections(summary))
    parts.extend(published_sections(summary))

    fit, nll = summary.get("fit_seconds"), summary.get("nll")
    predict = summary.get("predict_seconds", pd.Series(dtype=float))
    if fit is not None and len(fit) and nll is not None and len(nll):
        order = _estimator_order(fit.index, reference, baseline)
        table = pd.DataFrame(
            {
                "fit time": [format_seconds(fit[name]) for name in order],
                "predict time": [format_seconds(predict[name]) if name in predict else "—"
                                 for name in order],
                "test NLL": [
                    f"{nll[name]:.3f}" if name in nll.index and np.isfinite(nll[name]) else "—"
                    for name in order
                ],
            },
            index=[estimator_label(name) for name in order],
        )
        for column, title in (("brier", "test Brier"), ("ece", "test ECE")):
            score = summary.get(column)
            if score is not None and len(score):  # not in results files from before them
                table[title] = [
                    f"{score[name]:.3f}" if name in score.index and np.isfinite(score[name])
                    else "—" for name in order
                ]
        if not len(predict):  # a results file from before predict times were recorded
            table = table.drop(columns="predict time")
        body = table.to_string()
        if (table["test NLL"] == "—").any():
            body += ("\n—: no probabilities (a 0/1 vote such as 1-NN's or MiniRocket's ridge "
                     "head, or no predict_proba), so no NLL, Brier or ECE")
        parts.append(section(
            f"mean per cell: {', '.join(table.columns)} (NLL: log loss; ECE: expected "
            f"calibration error, 15 bins)", body))
    elif fit is not None and len(fit):
        order = _estimator_order(fit.index, reference, baseline)
        lines = [f"{estimator_label(name):<20} {format_seconds(fit[name])}" for name in order]
        parts.append(section("mean fit time per cell", "\n".join(lines)))

    wtl = summary.get("wins_ties_losses")
    ref = estimator_label(reference)
    if wtl is not None and len(wtl):
        report = pd.DataFrame(
            {
                f"{ref} wins": wtl["wins"],
                "ties": wtl["ties"],
                f"{ref} losses": wtl["losses"],
                "pairs": wtl["n_pairs"] if "n_pairs" in wtl else wtl[["wins", "ties", "losses"]].sum(1),
                f"mean {ref} − other": wtl["mean_difference"].map(format_points),
            }
        )
        order = _estimator_order(report.index, baseline, reference)
        report = report.loc[order]
        report.index = [estimator_label(name) for name in report.index]
        report.index.name = "versus"
        parts.append(section(f"{ref} wins / ties / losses (distinct paired cells of the real "
                              "datasets, controls apart)",
                              report.to_string()))

    parts.extend(warning_sections(summary))

    duplicates = summary.get("duplicates")
    if duplicates is not None and len(duplicates):
        groups = duplicates.groupby(["dataset", "ratio", "same_as"])["resample"].agg(list)
        lines = [
            f"{dataset} ratio {format_ratio(ratio)} = ratio {format_ratio(same)} in resample"
            f"{'s' if len(resamples) > 1 else ''} {', '.join(map(str, resamples))}"
            for (dataset, ratio, same), resamples in groups.items()
        ]
        parts.append(section(
            f"duplicate training sets merged: {len(duplicates)} (dataset, ratio, resample) cells",
            "\n".join(lines) + "\nsame n_train in the same split draws the same training series;"
            " ranks, wins/ties/losses and Wilcoxon keep the smallest ratio"))

    of = f" of {cells}" if cells is not None else ""
    parts.append(section("errors", f"{errors}{of} cells failed"))
    skipped = summary.get("skipped")
    if skipped:
        lines = [f"{name}: {reason}" for name, reason in skipped]
        parts.append(section(f"datasets skipped: {len(skipped)}", "\n".join(lines)))
    return "\n\n".join(parts)
