"""The benchmark's figures: test accuracy against the training ratio, and the paired difference
of two estimators with its t-interval; one function per figure.

Each function returns a :class:`matplotlib.figure.Figure`. Given a ``path``, it saves the figure
there (PNG, 120 dpi) from a bare ``Figure``: no pyplot, so nothing depends on, or changes, the
matplotlib backend (``sktdi benchmark`` saves them headless). Without one, the figure is made by
pyplot, in the user's backend, to be shown or saved. matplotlib is imported when a function is
called.

The numbers come from :mod:`sktdi.benchmark.summary` (the same mean ± sample std and paired
differences as the text report); the estimators' labels, order and colours from
:mod:`sktdi.plotting`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..plotting import estimator_color, estimator_label, estimator_order
from .statistics import ok_rows
from .summary import (
    duplicate_training_sets,
    paired,
    per_class_label,
    resample_mean_std,
    run_settings,
    settings_lines,
    training_size,
)

#: the fewest resamples a paired-difference whisker is drawn from: with 2, Student's t has one
#: degree of freedom (t = 12.7 at 95%) and the interval is about ±9 sample stds of the resamples
MIN_INTERVAL_RESAMPLES = 3


def _grid(n_panels: int, path, panel_size=(4.3, 3.3), extra_height: float = 1.1):
    """A figure of ``n_panels`` axes sharing y, at most 3 a row: a bare ``Figure`` when it is
    to be saved to ``path``, a pyplot figure (the user's backend) otherwise."""
    n_cols = min(3, max(1, n_panels))
    n_rows = max(1, -(-n_panels // n_cols))
    figsize = (panel_size[0] * n_cols, panel_size[1] * n_rows + extra_height)
    if path is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=figsize)
    else:
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
    axes = fig.subplots(n_rows, n_cols, sharey=True, squeeze=False)
    for ax in axes.ravel()[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def _save(fig, path: str | Path | None) -> None:
    if path is not None:
        fig.savefig(path, dpi=120)


def _ratio_tick_labels(results, dataset: str, ratios) -> list[str]:
    """"0.04\n1/class" per ratio: the ratio and the training series per class behind it."""
    sizes = training_size(results[results["dataset"] == dataset])
    labels = []
    for ratio in ratios:
        label = f"{ratio:g}"
        key = (dataset, ratio)
        if key in sizes.index and np.isfinite(sizes.loc[key, "per_class"]):
            label += "\n" + per_class_label(sizes.loc[key, "per_class"])
        elif key in sizes.index and np.isfinite(sizes.loc[key, "n_train_max"]):
            label += f"\nn={sizes.loc[key, 'n_train_max']:.0f}"
        labels.append(label)
    return labels


def _log_ratio_axis(ax, results, dataset: str, ratios) -> None:
    import matplotlib.ticker as mticker

    ratios = sorted(ratios)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(mticker.FixedLocator(ratios))
    ax.xaxis.set_major_formatter(
        mticker.FixedFormatter(_ratio_tick_labels(results, dataset, ratios))
    )
    ax.xaxis.set_minor_locator(mticker.NullLocator())
    if ratios:
        ax.set_xlim(ratios[0] / 10**0.15, ratios[-1] * 10**0.15)
    ax.tick_params(axis="x", labelsize=8)


def _finish(fig, axes, *, title: str, caption: str, legend: bool):
    """Figure title and legend on top, caption at the bottom, panels in between."""
    import textwrap

    width_chars = int(fig.get_figwidth() * 14)
    lines = textwrap.wrap(caption, width_chars)
    handles, labels = axes.ravel()[0].get_legend_handles_labels() if legend else ([], [])
    legend_inch = _legend_height(fig, handles, labels) if labels else 0.0
    # room for every caption line (8 pt, about 0.135 in each); a longer caption (settings, the
    # notes on intervals) makes the figure taller instead of covering the axis labels
    top_inch = max(0.62, 0.45 + legend_inch) if labels else 0.4
    bottom_inch = max(0.5, 0.2 + 0.135 * len(lines))
    fig.set_figheight(fig.get_figheight() + bottom_inch - 0.5 + max(0.0, top_inch - 0.62))
    height = fig.get_figheight()
    if labels:
        fig.legends[-1].set_bbox_to_anchor((0.5, 1 - 0.38 / height), transform=fig.transFigure)
    fig.suptitle(title, y=1 - 0.08 / height, fontsize=11, va="top")
    fig.text(0.5, 0.1 / height, "\n".join(lines), ha="center",
             va="bottom", fontsize=8, color="0.25")
    fig.tight_layout(rect=(0, bottom_inch / height, 1, 1 - top_inch / height))


def _legend_height(fig, handles, labels) -> float:
    """Put the figure's legend on top with as many entries a row as its width holds (the
    rest on further rows; measured, not guessed: labels differ in length); its height in
    inches."""
    for n_cols in range(len(labels), 0, -1):
        legend = fig.legend(handles, labels, loc="upper center", ncol=n_cols, frameon=False,
                            fontsize=9)
        box = legend.get_window_extent()  # drawn by the figure's own renderer
        if box.width <= 0.96 * fig.bbox.width or n_cols == 1:
            return box.height / fig.dpi
        legend.remove()
    return 0.0


def _datasets(results):
    ok = results[results["status"] == "ok"] if "status" in results.columns else results.iloc[0:0]
    return list(dict.fromkeys(ok["dataset"])) if len(ok) else []


def _accuracy_panel(ax, results, dataset: str, *, metric: str, estimators, dodge: float = 0.03):
    """One dataset's panel: mean ``metric`` ± 1 sample std per ratio, one line per estimator,
    each offset by ``dodge`` decades from the next so that equal values do not hide a line."""
    subset = results[results["dataset"] == dataset]
    stats = resample_mean_std(subset, metric)
    present = list(stats.index.get_level_values("estimator").unique())
    order = estimator_order(estimators if estimators is not None else present)
    order = [name for name in order if name in present]
    for i, estimator in enumerate(order):
        curve = stats.xs(estimator, level="estimator").droplevel("dataset").sort_index()
        shift = 10 ** ((i - (len(order) - 1) / 2) * dodge)
        ax.errorbar(
            curve.index * shift, curve["mean"], yerr=curve["std"], marker="o", ms=4, lw=1.3,
            capsize=2, elinewidth=0.9, label=estimator_label(estimator),
            color=estimator_color(estimator),
        )
    ratios = sorted(stats.index.get_level_values("ratio").unique())
    _log_ratio_axis(ax, results, dataset, ratios)
    ax.set(title=dataset, xlabel="training ratio (series per class)", ylabel=f"test {metric}")
    ax.grid(alpha=0.3)
    return ax


def plot_accuracy_vs_ratio(
    results: pd.DataFrame,
    path: str | Path | None = None,
    metric: str = "accuracy",
    *,
    estimators=None,
    datasets=None,
):
    """Mean ``metric`` (± 1 sample std over resamples) against the training ratio, one panel per
    dataset, one line per estimator; panels share the y range, with one legend for the figure
    and a caption saying what the bars are. Saved to ``path`` (PNG) when given.

    Mean and std are those of :func:`sktdi.benchmark.summary.resample_mean_std` (sample std,
    0 for a single resample), so the error bars match the summary table. Every ratio is an x
    tick, labelled with the training series per class under it (``n_train / n_classes``);
    the estimators are offset slightly from each other so that equal values do not hide a
    line. Lines are labelled with :func:`sktdi.plotting.estimator_label`.

    Parameters
    ----------
    results : DataFrame
        A results table (:func:`sktdi.benchmark.run_benchmark`).
    path : str or Path, optional
        Where to save the figure; it is then drawn without pyplot (see the module).
    metric : str
        The column to plot.
    estimators : list of str, optional
        The estimators to draw, in this order first (default: all, in the usual order).
    datasets : list of str, optional
        The datasets to draw, one panel each, in this order (default: all).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": ["D"] * 4 + ["E"] * 4, "mode": "resample", "ratio": 0.1,
    ...     "resample": [0, 0, 1, 1] * 2, "estimator": ["tdi", "s4d-lin"] * 4,
    ...     "accuracy": [0.9, 0.8, 0.7, 0.75, 0.5, 0.6, 0.55, 0.6], "status": "ok"})
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark import plot_accuracy_vs_ratio
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "curves.png"
    >>> fig = plot_accuracy_vs_ratio(results, path)
    >>> path.exists()
    True
    >>> panels = [ax for ax in fig.axes if ax.get_visible()]
    >>> [ax.get_title() for ax in panels], len({ax.get_ylim() for ax in panels})
    (['D', 'E'], 1)
    >>> [t.get_text() for t in panels[0].get_xticklabels()]
    ['0.1']
    """
    present = _datasets(results)
    if datasets is None:
        datasets = present
    else:
        datasets = [d for d in dict.fromkeys(datasets) if d in present]
        results = results[results["dataset"].isin(datasets)]
    fig, axes = _grid(len(datasets), path)
    for ax, dataset in zip(axes.ravel(), datasets):
        _accuracy_panel(ax, results, dataset, metric=metric, estimators=estimators)
    for ax in axes.ravel()[1:]:
        ax.set_ylabel("")
    stats = resample_mean_std(results, metric)
    if len(stats):
        low = float((stats["mean"] - stats["std"]).min())
        high = float((stats["mean"] + stats["std"]).max())
        pad = 0.04 * max(high - low, 0.05)
        axes.ravel()[0].set_ylim(low - pad, high + pad)
    n = stats["n"] if len(stats) else [0]
    counts = f"{min(n)}" if min(n) == max(n) else f"{min(n)}–{max(n)}"
    caption = _settings_note(results, estimators) + (
        f"Points: mean test {metric} over {counts} resample{'' if counts == '1' else 's'} "
        "(train/test splits); bars: ± 1 sample standard deviation (ddof=1) over those "
        "resamples (none for one). Under each ratio: training series per "
        "class (n_train / n_classes). Estimators are offset slightly left/right of each ratio so "
        "that equal values stay visible."
    )
    _finish(fig, axes, title=f"Test {metric} vs training ratio", caption=caption,
            legend=bool(datasets))
    _save(fig, path)
    return fig


def _settings_note(results, estimators=None) -> str:
    """"Non-default settings: max_epochs=5: TDI, S4D-Lin." for a caption ("" with defaults)."""
    if estimators is not None and "estimator" in results.columns:
        results = results[results["estimator"].isin(list(estimators))]
    lines = settings_lines(run_settings(results))
    return f"Non-default settings: {'; '.join(lines)}. " if lines else ""


def paired_difference_table(
    results: pd.DataFrame,
    reference: str = "tdi",
    baseline: str = "s4d-lin",
    metric: str = "accuracy",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Paired difference ``reference − baseline`` in accuracy points per (dataset, ratio).

    Each resample gives one difference (same split, same training series); the table holds
    their mean, sample std (``ddof=1``), count ``n`` and a Student-t interval
    ``mean ± t_{(1+confidence)/2, n-1} · std / sqrt(n)`` (NaN for n = 1). Every ratio is kept
    (duplicated training sets included) and ``same_as`` names the smaller ratio whose training
    set a row repeats in every resample (NaN otherwise).

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.figures import paired_difference_table
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> row = paired_difference_table(results).loc[("D", 0.1)]
    >>> [round(float(row[c]), 1) for c in ("mean_pts", "low_pts", "high_pts")]
    [2.5, -92.8, 97.8]
    """
    columns = ["mean_pts", "std_pts", "n", "half_width_pts", "low_pts", "high_pts", "same_as"]
    table = paired(results, metric, merge_duplicates=False)
    if reference not in table or baseline not in table:
        index = pd.MultiIndex.from_arrays([[], []], names=["dataset", "ratio"])
        return pd.DataFrame({c: [] for c in columns}, index=index)
    diff = 100 * (table[reference] - table[baseline]).dropna()
    grouped = diff.groupby(level=["dataset", "ratio"])
    out = pd.DataFrame({"mean_pts": grouped.mean(), "std_pts": grouped.std(ddof=1),
                        "n": grouped.count()})
    t = stats.t.ppf((1 + confidence) / 2, np.maximum(out["n"] - 1, 1))
    out["half_width_pts"] = np.where(out["n"] > 1, t * out["std_pts"] / np.sqrt(out["n"]), np.nan)
    out["low_pts"] = out["mean_pts"] - out["half_width_pts"]
    out["high_pts"] = out["mean_pts"] + out["half_width_pts"]
    out["same_as"] = np.nan
    duplicates = duplicate_training_sets(results)
    for (dataset, ratio), group in duplicates.groupby(["dataset", "ratio"]):
        sources = set(group["same_as"])
        n_splits = len(ok_rows(results).query("dataset == @dataset and ratio == @ratio")
                       [["mode", "resample"]].drop_duplicates())
        if len(sources) == 1 and len(group) == n_splits and (dataset, ratio) in out.index:
            out.loc[(dataset, ratio), "same_as"] = sources.pop()
    return out[columns]


def _difference_limits(values, lows, highs, min_span: float = 1.0):
    """y limits for the paired differences: the data (single resamples, means, 0) and the
    intervals, but an interval reaches at most one data span beyond the data, so a huge one
    (few resamples) cannot squash the bars and dots into a line."""
    values = np.asarray([v for v in values if np.isfinite(v)] + [0.0])
    low_data, high_data = float(values.min()), float(values.max())
    span = max(high_data - low_data, min_span)
    lows = np.asarray([v for v in lows if np.isfinite(v)] + [low_data])
    highs = np.asarray([v for v in highs if np.isfinite(v)] + [high_data])
    low = max(float(lows.min()), low_data - span)
    high = min(float(highs.max()), high_data + span)
    if high - low < min_span:  # every difference 0 and no interval: a span about 0 still
        low, high = (low + high - min_span) / 2, (low + high + min_span) / 2
    pad = 0.06 * (high - low)
    return low - pad, high + pad


def plot_paired_difference(
    results: pd.DataFrame,
    path: str | Path | None = None,
    reference: str = "tdi",
    baseline: str = "s4d-lin",
    metric: str = "accuracy",
    confidence: float = 0.95,
):
    """The paired difference ``reference − baseline`` in accuracy points per training ratio, one
    panel per dataset: bars at the mean over resamples, whiskers the Student-t
    ``confidence`` interval of that mean (:func:`paired_difference_table`),
    dots the individual resamples, a line at zero; panels share the y range. Bars are green when
    the interval lies above 0, red when below, grey otherwise. Saved to ``path`` (PNG) when
    given.

    A whisker needs :data:`MIN_INTERVAL_RESAMPLES` resamples: from 2 the t-interval spans about
    nine sample stds and says nothing the two dots do not, so none is drawn (the caption
    says so). The y range follows the data (dots, bars, 0); an interval reaching more than one
    data span beyond them is cut at the axis edge, marked with an arrow (▲/▼) and labelled with
    its end. Non-default run settings of the two estimators go in the caption.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok"})
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark import plot_paired_difference
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "difference.png"
    >>> fig = plot_paired_difference(results, path)
    >>> path.exists()
    True
    >>> round(float(fig.axes[0].patches[0].get_height()), 2)
    2.5
    >>> [round(float(y), 1) for y in fig.axes[0].get_ylim()]  # the dots, not a ±95-point interval
    [-5.9, 10.9]
    """
    table = paired_difference_table(results, reference, baseline, metric, confidence)
    datasets = [d for d in _datasets(results) if d in set(table.index.get_level_values(0))]
    fig, axes = _grid(max(1, len(datasets)), path, extra_height=0.9)
    pairs = paired(results, metric, merge_duplicates=False)
    ref, base = estimator_label(reference), estimator_label(baseline)
    if not datasets:
        axes[0, 0].text(0.5, 0.5, f"no paired {ref} / {base} cells", ha="center",
                        va="center", transform=axes[0, 0].transAxes)
    shown = table["n"] >= MIN_INTERVAL_RESAMPLES
    table = table.assign(
        half_width_pts=table["half_width_pts"].where(shown),
        low_pts=table["low_pts"].where(shown),
        high_pts=table["high_pts"].where(shown),
    )
    if datasets:
        diffs = 100 * (pairs[reference] - pairs[baseline]).dropna()
        diffs = diffs[diffs.index.get_level_values("dataset").isin(datasets)]
        drawn = table[table.index.get_level_values("dataset").isin(datasets)]
        ylim = _difference_limits(
            [*diffs.to_numpy(), *drawn["mean_pts"]], drawn["low_pts"], drawn["high_pts"]
        )
    clipped = False
    same_series = level = False  # whether a tick says "(= r)"; a cell's differences all 0
    for ax, dataset in zip(axes.ravel(), datasets):
        rows = table.xs(dataset, level="dataset").sort_index()
        x = np.arange(len(rows))
        colors = [
            "tab:green" if lo > 0 else "tab:red" if hi < 0 else "0.6"
            for lo, hi in zip(rows["low_pts"].fillna(0), rows["high_pts"].fillna(0))
        ]
        ax.bar(x, rows["mean_pts"], width=0.6, color=colors, alpha=0.75, zorder=2)
        mean = rows["mean_pts"].to_numpy()
        low = np.maximum(rows["low_pts"].to_numpy(), ylim[0])
        high = np.minimum(rows["high_pts"].to_numpy(), ylim[1])
        ax.errorbar(x, mean, yerr=np.vstack([mean - low, high - mean]), fmt="none",
                    ecolor="0.15", capsize=4, lw=1.2, zorder=3)
        # interval ends cut at the axis edge: an arrow there, and the end written beside it
        for ends, off, edge, marker, va in (
            (rows["high_pts"].to_numpy(), rows["high_pts"].to_numpy() > ylim[1], ylim[1], "^",
             "top"),
            (rows["low_pts"].to_numpy(), rows["low_pts"].to_numpy() < ylim[0], ylim[0], "v",
             "bottom"),
        ):
            for where in np.flatnonzero(off):
                clipped = True
                ax.plot(where, edge, marker=marker, ms=7, color="0.15", zorder=5, clip_on=False)
                ax.text(where + 0.1, edge, f"{ends[where]:+.0f}", fontsize=7, ha="left", va=va,
                        color="0.15", zorder=5)
        dataset_diffs = diffs[diffs.index.get_level_values("dataset") == dataset]
        for i, ratio in enumerate(rows.index):
            values = dataset_diffs[dataset_diffs.index.get_level_values("ratio") == ratio]
            values = values.to_numpy()
            level |= bool(len(values)) and bool((values == 0).all())
            jitter = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else [0.0]
            ax.plot(i + np.asarray(jitter), values, "o", ms=3, color="black", alpha=0.6,
                    zorder=4)
        ax.axhline(0, color="black", lw=0.9, zorder=1)
        labels = _ratio_tick_labels(results, dataset, list(rows.index))
        same = rows["same_as"].astype(float).to_numpy()
        same_series |= bool(np.isfinite(same).any())
        labels = [
            label + (f"\n(= {r:g})" if np.isfinite(r) else "") for label, r in zip(labels, same)
        ]
        ax.set_xticks(x, labels, fontsize=8)
        ax.set(title=dataset, xlabel="training ratio (series per class)")
        ax.grid(axis="y", alpha=0.3, zorder=0)
    if datasets:
        axes[0, 0].set_ylim(*ylim)  # shared by every panel
    axes[0, 0].set_ylabel(f"{ref} − {base} (accuracy points)")
    n = table["n"] if len(table) else [0]
    counts = f"{int(min(n))}" if min(n) == max(n) else f"{int(min(n))}–{int(max(n))}"
    few = f" No whisker with fewer than {MIN_INTERVAL_RESAMPLES} resamples" + (
        " (with 2, t has one degree of freedom and the interval is about ±9 times their sample std"
        "; the dots show them)." if int(max(n)) >= 2 and int(min(n)) < MIN_INTERVAL_RESAMPLES
        else "."
    )
    caption = (
        _settings_note(results, (reference, baseline))
        + f"Bars: mean over {counts} resamples of the paired difference {ref} − {base} in test "
        f"{metric} (same split and training series for both); whiskers: {100 * confidence:g}% "
        "Student-t interval of that mean (mean ± t·s/√n, s the sample std); dots: single "
        f"resamples.{few}"
        + (" ▲/▼: the interval runs off the axis, to the end written beside it." if clipped
           else "")
        + f" Above 0: {ref} is better. Green/red: interval entirely above/below 0."
        + (" \"(= r)\": same training series as ratio r." if same_series else "")
        + (
            f" A difference of 0 in every resample: the two models were the same, as when "
            f"{ref}'s statistic was too unreliable to act on and it kept {base}'s modes."
            if level else ""
        )
    )
    _finish(fig, axes, title=f"Does {ref} beat {base}? Paired difference in test {metric}",
            caption=caption, legend=False)
    _save(fig, path)
    return fig
