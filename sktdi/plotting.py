"""Plots for frequency responses, task spectra, alignment and benchmarks.

Each function draws on ``ax`` (a new figure when None) and returns the matplotlib Axes.
matplotlib is imported when a function is called, never by ``import sktdi``.
"""

from __future__ import annotations

import numpy as np


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


def plot_accuracy_vs_ratio(results, dataset: str, *, ax=None, metric: str = "accuracy"):
    """Benchmark results for one dataset: mean ``metric`` (± std over resamples) against the
    training ratio, one line per estimator.

    Mean and std are those of :func:`sktdi.benchmark.summary.resample_mean_std` (sample std,
    0 for a single resample), so the error bars match the summary table.

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
    >>> plot_accuracy_vs_ratio(results, "D").get_title()
    'D'
    """
    # imported here: pandas (and the benchmark package) must not load with sktdi.plotting
    from .benchmark.summary import resample_mean_std

    ax = _axes(ax, figsize=(4.5, 3.4))
    stats = resample_mean_std(results[results["dataset"] == dataset], metric)
    for estimator, curve in stats.groupby(level="estimator"):
        curve = curve.droplevel(["dataset", "estimator"])
        ax.errorbar(
            curve.index, curve["mean"], yerr=curve["std"], marker="o", capsize=2, label=estimator
        )
    ax.set(xscale="log", title=dataset, xlabel="training ratio", ylabel=metric)
    ax.grid(alpha=0.3)
    return ax
