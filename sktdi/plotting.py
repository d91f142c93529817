"""Plots of models: frequency responses, task spectra, alignment, error and learning curves.

Each function draws on ``ax`` (a new figure when None) and returns the matplotlib Axes.
matplotlib is imported when a function is called, never by ``import sktdi``.

The estimators' readable names, order and colours are here too: the learning curves use them,
and so do the benchmark's report and figures (:mod:`sktdi.benchmark.summary`,
:mod:`sktdi.benchmark.figures`), which import them from here; never the other way round, so
this module loads neither the benchmark nor pandas.
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
    "tdi-control+ridge+minirocket": "TDI control + MiniRocket + ridge",
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


#: the estimators with a fixed colour ("C0", "C1", ...), in this order
# one colour per known estimator, the default `sktdi benchmark` run's six first (no two of a
# figure's lines share one: matplotlib's cycle has ten colours, tab20's light half follows)
_COLORS = ["tdi", "s4d-lin", "minirocket", "1nn-euclidean", "tdi+ridge", "tdi+ridge+minirocket",
           "s4d-inv", "auto", "tdi-control", "1nn-dtw", "s4d-lin+ridge",
           "s4d-lin+ridge+minirocket", "minirocket-ridge"]


def estimator_color(estimator: str) -> str:
    """The colour of an estimator's line: the same in every figure and every process."""
    import zlib

    index = _COLORS.index(estimator) if estimator in _COLORS else 10 + zlib.crc32(
        estimator.encode()) % 10  # a stable hash: Python's str hash changes per process
    if index < 10:
        return f"C{index}"
    from matplotlib import colormaps

    return colormaps["tab20"].colors[2 * (index - 10) + 1]  # the light shade of a pair


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
    :func:`sktdi.fast_path.experiments.kernel_regression_curve`.

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
    (epochs), ``metric`` and ``train_seconds`` (as ``benchmarks/budgets/learning_curves.py`` writes).
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
        color = estimator_color(name) if name in _COLORS else None
        ax.errorbar(
            where, mean, yerr=std, marker="o", ms=4, lw=1.3, capsize=2, elinewidth=0.9,
            label=label, color=color,
        )
    xlabel = "training budget (epochs, one fit each)" if x == "budget" else "training time (s)"
    ax.set(xscale="log", xlabel=xlabel, ylabel=metric)
    ax.grid(alpha=0.3)
    ax.legend()
    return ax
