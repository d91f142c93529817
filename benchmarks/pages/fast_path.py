"""The generated regions of ``docs/fast_path.md``, from the committed results they cite."""

from __future__ import annotations

from .common import _bench_runs, _kernel_dataset_seconds, region


@region("fast-path-speed")
def fast_path_speed() -> str:
    """The guide's one paragraph on cost, from the kernel-regime run and the memory bench."""
    seconds = _kernel_dataset_seconds()
    ratio = seconds.div(seconds["minirocket-ridge"], axis=0).mean()
    runs = _bench_runs()
    peak = runs.pivot_table(index="dataset", columns="model", values="peak_increase_mib")
    n = len(seconds)
    return (
        f"Fitting and predicting takes {ratio['tdi+ridge']:.1f}× the time of MiniRocket's own "
        f"transform and ridge head, and {ratio['tdi+ridge+minirocket']:.1f}× with "
        f"`rocket=\"minirocket\"` (mean over the {n} datasets of {{doc}}`kernel_regime` of "
        "the per-dataset ratios, "
        f"where MiniRocket took {seconds['minirocket-ridge'].mean():.2f} s per fit and "
        f"prediction); its peak memory was {peak['tdi+ridge'].median():.0f} MiB above the "
        f"process's (median over datasets; MiniRocket's {peak['minirocket-ridge'].median():.0f})."
        "\n"
    )
