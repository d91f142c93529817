"""The generated regions of ``docs/fast_path.md``, from the committed results they cite."""

from __future__ import annotations

from ..shared.regions import _csv, region, results_dir
from .page import _bench_runs, _kernel_dataset_seconds

RESULTS = results_dir("kernel_regime")  # this study's committed results


BENCH_PADDING = RESULTS / "bench_padding.csv"


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
        f"`rocket=\"minirocket\"` (mean over the {n} datasets of [Study: SpectralRidgeClassifier against MiniRocket](kernel_regime.md) of "
        "the per-dataset ratios, "
        f"where MiniRocket took {seconds['minirocket-ridge'].mean():.2f} s per fit and "
        f"prediction); its peak memory was {peak['tdi+ridge'].median():.0f} MiB above the "
        f"process's (median over datasets; MiniRocket's {peak['minirocket-ridge'].median():.0f})."
        "\n"
    )


@region("fast-path-padding")
def fast_path_padding() -> str:
    """Padded series without their lengths against the list (benchmarks/kernel_regime/bench_padding.py)."""
    runs = _csv(BENCH_PADDING).set_index(["n_train", "form"])
    parts = []
    for n in sorted(set(runs.index.get_level_values(0))):
        whole, padded = runs.loc[(n, "list")], runs.loc[(n, "padded, no lengths")]
        parts.append(
            f"{n} training series: fit {padded['fit_s'] / whole['fit_s']:.1f}×, predict "
            f"{padded['predict_s'] / whole['predict_s']:.1f}× the list's time, with "
            f"{padded['steps'] / whole['steps']:.1f}× its steps; accuracy "
            f"{padded['accuracy']:.3f} against {whole['accuracy']:.3f}"
        )
    return (
        "On PLAID (`benchmarks/kernel_regime/bench_padding.py`, the test split padded to the training "
        "split's length), zero-padded series given without `lengths=` against the same "
        "series as a list: " + "; ".join(parts) + ".\n"
    )
