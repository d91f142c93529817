"""Plots for frequency responses, task spectra, alignment and benchmarks.

Each function draws on ``ax`` (a new figure when None) and returns the matplotlib Axes.
matplotlib is imported when a function is called, never by ``import sktdi``.
"""

from __future__ import annotations

import numpy as np

ESTIMATOR_LABELS = {
    "tdi": "TDI",
    "s4d-lin": "S4D-Lin",
    "s4d-inv": "S4D-Inv",
    "auto": "Auto (TDI or S4D-Lin)",
    "tdi-control": "TDI control",
    "s4d-network": "TDI, S4D network (previous default)",
    "tdi+ridge": "TDI + ridge",
    "s4d-lin+ridge": "S4D-Lin + ridge",
    "tdi+ridge+minirocket": "TDI + MiniRocket + ridge",
    "s4d-lin+ridge+minirocket": "S4D-Lin + MiniRocket + ridge",
    "minirocket": "MiniRocket",
    "minirocket-ridge": "MiniRocket (transform + ridge)",
    "inceptiontime": "InceptionTime",
    "resnet": "ResNet",
    "1nn-euclidean": "1-NN (Euclidean)",
    "1nn-dtw": "1-NN (DTW)",
}


def estimator_label(name: str) -> str:
    """Readable name of a benchmark estimator (the name itself when unknown).

    Examples
    --------
    >>> from sktdi.plotting import estimator_label
    >>> estimator_label("s4d-lin"), estimator_label("1nn-euclidean"), estimator_label("mine")
    ('S4D-Lin', '1-NN (Euclidean)', 'mine')
    """
    return ESTIMATOR_LABELS.get(name, name)


def _axes(ax, figsize=(6, 3.5)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_frequency_response(freqs, magnitude, *, ax=None, aggregate: str = "power", **line_kwargs):
    """Frequency response of an S4D layer.

    Parameters
    ----------
    freqs : array-like (F,)
        Frequencies in cycles/sample.
    magnitude : array-like (d_model, F)
        ``|H|`` per channel, e.g. from ``est.frequency_response()``.
    ax : matplotlib Axes, optional
    aggregate : {"power", "channels"}
        "power": ``Σ_h |H_h|²`` (the SSM kernel's eigenvalue profile), normalized to peak 1;
        "channels": every channel's ``|H|`` as a thin line.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.ssm import S4D
    >>> from sktdi.plotting import plot_frequency_response
    >>> freqs, magnitude = S4D(8, 16).frequency_response(256)
    >>> ax = plot_frequency_response(freqs.numpy(), magnitude.numpy())
    >>> ax.get_xlabel()
    'frequency (cycles/sample)'
    """
    ax = _axes(ax)
    freqs, magnitude = np.asarray(freqs), np.asarray(magnitude)
    if aggregate == "power":
        power = (magnitude**2).sum(axis=0)
        ax.plot(freqs, power / power.max(), **line_kwargs)
        ax.set_ylabel("Σ|H|² (normalized)")
    elif aggregate == "channels":
        ax.plot(freqs, magnitude.T, lw=0.6, alpha=0.6, **line_kwargs)
        ax.set_ylabel("|H| per channel")
    else:
        raise ValueError(f"aggregate must be 'power' or 'channels', got {aggregate!r}")
    ax.set_xlabel("frequency (cycles/sample)")
    ax.set_xlim(0, 0.5)
    return ax


def plot_task_spectrum(spectrum, *, ax=None, show_threshold: bool = True, show_peaks: bool = True):
    """A :class:`~sktdi.tdi.TaskSpectrum` with its significance threshold and the peaks TDI uses.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.datasets import planted_frequency_task
    >>> from sktdi.tdi import fisher_log_power
    >>> from sktdi.plotting import plot_task_spectrum
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> ax = plot_task_spectrum(fisher_log_power(X, y))
    >>> ax.get_title()
    'fisher-log-power statistic'
    """
    from .tdi import find_spectral_peaks

    ax = _axes(ax)
    ax.plot(spectrum.freqs, spectrum.values, color="0.2", lw=1.2, label=spectrum.kind)
    if show_threshold and np.isfinite(spectrum.threshold) and spectrum.threshold > 0:
        ax.axhline(spectrum.threshold, color="tab:red", ls="--", lw=0.8, label="significance")
    if show_peaks:
        for peak in find_spectral_peaks(spectrum):
            ax.axvspan(peak.left_freq, peak.right_freq, color="tab:orange", alpha=0.25)
    ax.set(xlabel="frequency (cycles/sample)", ylabel="statistic", xlim=(0, 0.5))
    ax.set_title(f"{spectrum.kind} statistic")
    return ax


def plot_alignment(spectrum, responses: dict, *, ax=None):
    """The task statistic against the power responses of several initializations.

    Parameters
    ----------
    spectrum : TaskSpectrum
    responses : dict of str -> (freqs, magnitude (d_model, F))
        e.g. ``{"s4d-lin": lin.frequency_response(), "tdi": tdi.frequency_response()}``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import fisher_log_power
    >>> from sktdi.plotting import plot_alignment
    >>> freqs, magnitude = S4D(8, 16).frequency_response(129)
    >>> ax = plot_alignment(fisher_log_power(X, y), {"s4d-lin": (freqs.numpy(), magnitude.numpy())})
    >>> ax.get_ylabel()
    'normalized'
    """
    ax = _axes(ax)
    excess = np.clip(spectrum.values - np.median(spectrum.values), 0, None)
    scale = excess.max() if excess.max() > 0 else 1.0
    ax.fill_between(spectrum.freqs, excess / scale, color="0.85", label="task statistic (excess)")
    for name, (freqs, magnitude) in responses.items():
        plot_frequency_response(freqs, magnitude, ax=ax, label=name)
    ax.set_ylabel("normalized")
    ax.legend(fontsize=8)
    return ax


def plot_error_curves(sizes, errors: dict, *, ax=None, ylabel: str = "test MSE / Var(y)"):
    """Error against training size, one line (mean ± std over repeats) per method.

    ``errors`` maps a name to an array (len(sizes), n_repeats), as returned by
    :func:`sktdi.experiments.kernel_regression_curve`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sktdi.plotting import plot_error_curves
    >>> ax = plot_error_curves([10, 100], {"tdi": np.array([[0.5, 0.6], [0.1, 0.1]])})
    >>> ax.get_xscale()
    'log'
    """
    ax = _axes(ax)
    for name, err in errors.items():
        err = np.asarray(err)
        ax.errorbar(sizes, err.mean(axis=1), yerr=err.std(axis=1), marker="o", capsize=3, label=name)
    ax.set(xscale="log", yscale="log", xlabel="training samples n", ylabel=ylabel)
    ax.legend()
    return ax


def plot_learning_curves(
    results,
    *,
    x: str = "budget",
    by: str = "arm",
    metric: str = "accuracy",
    ax=None,
    labels: dict | None = None,
):
    """Accuracy against the training budget, one line (mean ± 1 sample std over resamples)
    per initialization — what each budget's own fit reaches.

    ``results``: a DataFrame with one row per fit, columns ``by`` (the line), ``budget``
    (epochs), ``metric`` and ``train_seconds`` (as ``benchmarks/learning_curves.py`` writes).
    ``x="budget"`` puts the epochs on a log axis; ``x="seconds"`` places each budget at its
    mean training time, so the lines compare wall-clock cost as well. ``labels`` renames
    lines (default :func:`estimator_label`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from sktdi.plotting import plot_learning_curves
    >>> results = pd.DataFrame({
    ...     "arm": ["tdi", "tdi", "s4d-lin", "s4d-lin"], "budget": [2, 10, 2, 10],
    ...     "accuracy": [0.5, 0.9, 0.3, 0.9], "train_seconds": [1.0, 5.0, 1.0, 5.0]})
    >>> ax = plot_learning_curves(results)
    >>> [text.get_text() for text in ax.get_legend().get_texts()], ax.get_xscale()
    (['TDI', 'S4D-Lin'], 'log')
    """
    if x not in ("budget", "seconds"):
        raise ValueError(f"x must be 'budget' or 'seconds', got {x!r}")
    missing = {by, "budget", metric, "train_seconds"} - set(results.columns)
    if missing:
        raise ValueError(f"results lack the column(s) {sorted(missing)}")
    ax = _axes(ax, figsize=(5, 3.5))
    names = list(dict.fromkeys(results[by]))
    for name in estimator_order(names):
        rows = results[results[by] == name]
        grouped = rows.groupby("budget")
        mean, std = grouped[metric].mean(), grouped[metric].std(ddof=1).fillna(0.0)
        where = mean.index if x == "budget" else grouped["train_seconds"].mean()
        label = (labels or {}).get(name, estimator_label(name))
        color = f"C{_color_index(name)}" if name in _COLORS else None
        ax.errorbar(
            where, mean, yerr=std, marker="o", ms=4, lw=1.3, capsize=2, elinewidth=0.9,
            label=label, color=color,
        )
    xlabel = "training budget (epochs, one fit each)" if x == "budget" else "training time (s)"
    ax.set(xscale="log", xlabel=xlabel, ylabel=metric)
    ax.grid(alpha=0.3)
    ax.legend()
    return ax


def _ratio_tick_labels(results, dataset: str, ratios) -> list[str]:
    """"0.04\n1/class" per ratio: the ratio and the training series per class behind it."""
    from .benchmark.summary import per_class_label, training_size

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


def estimator_order(names, first=("tdi", "s4d-lin")) -> list[str]:
    """``names`` without repeats: ``first`` (those present), then the known estimators in
    :data:`ESTIMATOR_LABELS` order, then the rest as given.

    Examples
    --------
    >>> from sktdi.plotting import estimator_order
    >>> estimator_order(["1nn-euclidean", "mine", "minirocket", "s4d-lin", "tdi"])
    ['tdi', 's4d-lin', 'minirocket', '1nn-euclidean', 'mine']
    """
    names = list(dict.fromkeys(names))
    known = list(dict.fromkeys([*first, *_COLORS]))
    head = [n for n in known if n in names]
    return head + [n for n in names if n not in head]


def plot_accuracy_vs_ratio(
    results,
    dataset: str,
    *,
    ax=None,
    metric: str = "accuracy",
    estimators=None,
    dodge: float = 0.03,
):
    """Benchmark results for one dataset: mean ``metric`` (± 1 sample std over resamples)
    against the training ratio, one line per estimator.

    Mean and std are those of :func:`sktdi.benchmark.summary.resample_mean_std` (sample std,
    0 for a single resample), so the error bars match the summary table. Every ratio is an x
    tick, labelled with the training series per class under it (``n_train / n_classes``);
    the estimators are offset by ``dodge`` decades from each other so that equal values do not
    hide a line. Lines are labelled with :func:`estimator_label`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "dataset": "D", "mode": "resample", "ratio": 0.1, "resample": [0, 0, 1, 1],
    ...     "estimator": ["tdi", "s4d-lin"] * 2, "accuracy": [0.9, 0.8, 0.7, 0.75],
    ...     "status": "ok", "fit_seconds": 1.0})
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.plotting import plot_accuracy_vs_ratio
    >>> ax = plot_accuracy_vs_ratio(results, "D")
    >>> ax.get_title(), [t.get_text() for t in ax.get_xticklabels()]
    ('D', ['0.1'])
    """
    # imported here: pandas (and the benchmark package) must not load with sktdi.plotting
    from .benchmark.summary import resample_mean_std

    ax = _axes(ax, figsize=(4.5, 3.4))
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
            color=f"C{_color_index(estimator)}",
        )
    ratios = sorted(stats.index.get_level_values("ratio").unique())
    _log_ratio_axis(ax, results, dataset, ratios)
    ax.set(title=dataset, xlabel="training ratio (series per class)", ylabel=f"test {metric}")
    ax.grid(alpha=0.3)
    return ax


_COLORS = ["tdi", "s4d-lin", "minirocket", "1nn-euclidean", "s4d-inv", "auto", "tdi-control",
           "tdi+ridge", "1nn-dtw", "s4d-lin+ridge", "tdi+ridge+minirocket",
           "s4d-lin+ridge+minirocket", "minirocket-ridge"]


def _color_index(estimator: str) -> int:
    return _COLORS.index(estimator) if estimator in _COLORS else hash(estimator) % 10


def _grid(n_panels: int, panel_size=(4.3, 3.3), extra_height: float = 1.1):
    import matplotlib.pyplot as plt

    n_cols = min(3, max(1, n_panels))
    n_rows = max(1, -(-n_panels // n_cols))
    fig, axes = plt.subplots(
        n_rows, n_cols, sharey=True, squeeze=False,
        figsize=(panel_size[0] * n_cols, panel_size[1] * n_rows + extra_height),
    )
    for ax in axes.ravel()[n_panels:]:
        ax.set_visible(False)
    return fig, axes


def _finish(fig, axes, *, title: str, caption: str, legend: bool):
    """Figure title and legend on top, caption at the bottom, panels in between."""
    import textwrap

    width_chars = int(fig.get_figwidth() * 14)
    lines = textwrap.wrap(caption, width_chars)
    # room for every caption line (8 pt, about 0.135 in each); a longer caption (settings, the
    # notes on intervals) makes the figure taller instead of covering the axis labels
    top_inch, bottom_inch = (0.62 if legend else 0.4), max(0.5, 0.2 + 0.135 * len(lines))
    fig.set_figheight(fig.get_figheight() + bottom_inch - 0.5)
    height = fig.get_figheight()
    if legend:
        handles, labels = axes.ravel()[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=max(1, len(labels)),
                   bbox_to_anchor=(0.5, 1 - 0.38 / height), frameon=False, fontsize=9)
    fig.suptitle(title, y=1 - 0.08 / height, fontsize=11, va="top")
    fig.text(0.5, 0.1 / height, "\n".join(lines), ha="center",
             va="bottom", fontsize=8, color="0.25")
    fig.tight_layout(rect=(0, bottom_inch / height, 1, 1 - top_inch / height))


def _datasets(results):
    ok = results[results["status"] == "ok"] if "status" in results.columns else results.iloc[0:0]
    return list(dict.fromkeys(ok["dataset"])) if len(ok) else []


def accuracy_vs_ratio_figure(results, *, metric: str = "accuracy", estimators=None):
    """Mean ``metric`` ± 1 sample std against the training ratio, one panel per dataset
    (:func:`plot_accuracy_vs_ratio`), panels sharing the y range, one legend for the figure
    and a caption saying what the bars are.

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
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.plotting import accuracy_vs_ratio_figure
    >>> fig = accuracy_vs_ratio_figure(results)
    >>> len({ax.get_ylim() for ax in fig.axes if ax.get_visible()})
    1
    """
    from .benchmark.summary import resample_mean_std

    datasets = _datasets(results)
    fig, axes = _grid(len(datasets))
    for ax, dataset in zip(axes.ravel(), datasets):
        plot_accuracy_vs_ratio(results, dataset, ax=ax, metric=metric, estimators=estimators)
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
        f"Points: mean test {metric} over {counts} resamples (train/test splits); bars: ± 1 sample "
        "standard deviation (ddof=1) over those resamples. Under each ratio: training series per "
        "class (n_train / n_classes). Estimators are offset slightly left/right of each ratio so "
        "that equal values stay visible."
    )
    _finish(fig, axes, title=f"Test {metric} vs training ratio", caption=caption,
            legend=bool(datasets))
    return fig


#: the fewest resamples a paired-difference whisker is drawn from: with 2, Student's t has one
#: degree of freedom (t = 12.7 at 95%) and the interval is about ±9 sample stds of the resamples
MIN_INTERVAL_RESAMPLES = 3


def _settings_note(results, estimators=None) -> str:
    """"Non-default settings: max_epochs=5: TDI, S4D-Lin." for a caption ("" with defaults)."""
    from .benchmark.summary import run_settings, settings_lines

    if estimators is not None and "estimator" in results.columns:
        results = results[results["estimator"].isin(list(estimators))]
    lines = settings_lines(run_settings(results))
    return f"Non-default settings: {'; '.join(lines)}. " if lines else ""


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
    pad = 0.06 * (high - low)
    return low - pad, high + pad


def paired_difference_figure(
    results,
    *,
    reference: str = "tdi",
    baseline: str = "s4d-lin",
    metric: str = "accuracy",
    confidence: float = 0.95,
):
    """The paired difference ``reference − baseline`` in accuracy points per training ratio, one
    panel per dataset: bars at the mean over resamples, whiskers the Student-t
    ``confidence`` interval of that mean (:func:`sktdi.benchmark.summary.paired_difference_table`),
    dots the individual resamples, a line at zero; panels share the y range. Bars are green when
    the interval lies above 0, red when below, grey otherwise.

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
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sktdi.plotting import paired_difference_figure
    >>> fig = paired_difference_figure(results)
    >>> round(float(fig.axes[0].patches[0].get_height()), 2)
    2.5
    >>> [round(float(y), 1) for y in fig.axes[0].get_ylim()]  # the dots, not a ±95-point interval
    [-5.9, 10.9]
    """
    from .benchmark.summary import paired, paired_difference_table

    table = paired_difference_table(results, reference, baseline, metric, confidence)
    datasets = [d for d in _datasets(results) if d in set(table.index.get_level_values(0))]
    fig, axes = _grid(max(1, len(datasets)), extra_height=0.9)
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
            jitter = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else [0.0]
            ax.plot(i + np.asarray(jitter), values, "o", ms=3, color="black", alpha=0.6,
                    zorder=4)
        ax.axhline(0, color="black", lw=0.9, zorder=1)
        labels = _ratio_tick_labels(results, dataset, list(rows.index))
        labels = [
            label + (f"\n(= {same:g})" if np.isfinite(same) else "")
            for label, same in zip(labels, rows["same_as"].astype(float))
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
        + f" Above 0: {ref} is better. Green/red: interval entirely above/below 0. "
        "\"(= r)\": same training series as ratio r."
    )
    _finish(fig, axes, title=f"Does {ref} beat {base}? Paired difference in test {metric}",
            caption=caption, legend=False)
    return fig
