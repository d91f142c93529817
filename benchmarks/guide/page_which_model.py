"""The generated regions of ``docs/which_model.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..deep_model.page import _fewshot_means
from ..deep_resampled.page import default_standing
from ..kernel_regime.page import (
    FAST_PATH_REGRESSION,
    KERNEL_REGIME,
    _kernel_dataset_seconds,
    _kernel_means,
    _kernel_ok,
    _kernel_seconds,
)
from ..long_series.page import long_series_row
from ..raw_data.page_representation import representation_row
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _pts
from ..tdi_real.page import TDI_REAL_CONFIRM, _deep_real_gaps, _default_init_gaps, _real_pairs

# --------------------------------------------------------------------------------------
# the guide's decision page (docs/which_model.md) and the advice on `init`
# (docs/choosing_init.md): what a user can expect, read from the studies' committed results


def _given(dataset: str, per_class: int) -> pd.Series:
    results = _csv(results_dir("tdi_real") / "given_spectrum.csv")
    return results[(results["dataset"] == dataset) & (results["per_class"] == per_class)].groupby(
        "arm"
    )["accuracy"].mean()


def _standing(test: dict) -> str:
    """How a paired comparison reads: ahead or behind only when the test separates them."""
    if test["p_value"] >= 0.05:
        return "level with"
    return "ahead of" if test["mean_difference"] > 0 else "behind"


@region("which-model")
def which_model() -> str:
    """One row per kind of data: the model to use and what it scored in the studies."""
    kernel = _kernel_means()
    overall = kernel.mean()
    planted = kernel.xs("planted", level="dataset").mean()
    smallest = kernel.xs(kernel.index.get_level_values("ratio").min(), level="ratio").mean()
    by_ratio = kernel.xs("planted", level="dataset")
    planted_gaps = 100 * (by_ratio["tdi+ridge+minirocket"] - by_ratio["minirocket-ridge"])
    cells = _kernel_ok()
    cells = cells[cells["dataset"] == "planted"]
    planted_sizes = (cells["n_train"] / cells["n_classes"]).groupby(cells["ratio"]).mean()
    total, _ = _kernel_seconds()
    seconds = _kernel_dataset_seconds()
    speed = seconds.div(seconds["minirocket-ridge"], axis=0).mean()
    n_kernel = kernel.index.get_level_values("dataset").nunique()
    fewshot = _fewshot_means()
    given = _given("planted", 2)
    regression = _csv(results_dir("kernel_regime") / "field_regression_results.csv")
    r2 = regression.pivot_table(
        index="dataset", columns="estimator", values="r2"
    )
    ridge_r2 = _csv(FAST_PATH_REGRESSION).pivot_table(
        index="dataset", columns="estimator", values="r2"
    )
    from sktdi.benchmark import wilcoxon_test

    kernel_test = wilcoxon_test(_csv(KERNEL_REGIME), "tdi+ridge+minirocket", "minirocket-ridge")
    rows = [
        {
            "your data": "classes that differ in shape or events (outlines, gestures, motion), "
            "not in frequency bands",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`, or sktime's MiniRocket",
            "what to expect": (
                f"{_standing(kernel_test)} MiniRocket: mean accuracy "
                f"{_f(overall['tdi+ridge+minirocket'])} against "
                f"{_f(overall['minirocket-ridge'])} over {n_kernel} datasets at five training "
                f"sizes (Wilcoxon p {kernel_test['p_value']:.2g}); "
                f"{total['tdi+ridge+minirocket']:.2f} s to fit and predict, "
                f"{speed['tdi+ridge+minirocket']:.1f}× bare MiniRocket's time (mean over "
                "datasets)"
            ),
        },
        {
            "your data": "information in frequency bands (vibration, audio, physiology, "
            "spectra), a band you cannot name, and several series per class",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`; "
            "`SpectralRidgeClassifier()` without sktime",
            "what to expect": (
                "ahead of MiniRocket where the information is spectral: "
                f"{_pts(100 * (planted['tdi+ridge+minirocket'] - planted['minirocket-ridge']))} "
                "points on the planted-frequency task (mean over training sizes; "
                f"{_pts(planted_gaps.iloc[0])} at the smallest, "
                f"{int(planted_sizes.iloc[0])} series per class); without "
                "MiniRocket's features "
                f"{_pts(100 * (overall['tdi+ridge'] - overall['minirocket-ridge']))} points "
                "against MiniRocket on average over the datasets"
            ),
        },
        {
            "your data": "you know the informative band, or have a larger related dataset",
            "use": "`SSMClassifier(tdi=TDIOptions(spectrum=...))`, or "
            "`SpectralRidgeClassifier(tdi=TDIOptions(spectrum=...))` without `rocket` (MiniRocket's features know nothing of the band); "
            "`TaskSpectrum.from_frequencies([...])`, or `task_spectrum` of the related data",
            "what to expect": (
                "the largest gain measured (SSMClassifier, planted-frequency task, two series per "
                f"class): {_f(given['s4d-lin'])} with S4D-Lin, {_f(given['tdi-known'])} with the "
                f"band given, {_f(given['tdi-transfer'])} with the spectrum of related data"
            ),
        },
        {
            "your data": "one to three series per class",
            "use": "`SpectralRidgeClassifier(rocket=\"minirocket\")`, or sktime's MiniRocket",
            "what to expect": (
                "at the smallest training size "
                f"{_pts(100 * (smallest['tdi+ridge+minirocket'] - smallest['minirocket-ridge']))} "
                "points against MiniRocket with MiniRocket's features, "
                f"{_pts(100 * (smallest['tdi+ridge'] - smallest['minirocket-ridge']))} without "
                f"them (mean of {n_kernel} datasets); the deep model trails the filter bank "
                f"alone by {_pts(100 * (fewshot['tdi'] - fewshot['tdi+ridge']).mean())[1:]} "
                f"points at two series per class ({len(fewshot)} datasets)"
            ),
        },
        long_series_row(),
        {
            "your data": "you need what only a deep model gives (a GPU, a model to fine-tune, "
            "predictions on a stream sample by sample), and have dozens of series per class",
            "use": "`SSMClassifier()`; on short series (a few hundred steps) "
            "`SSMClassifier(d_model=32, n_estimators=3, max_epochs=40)`, three narrow "
            "networks, level there at two fifths to three quarters of the fit (a quarter to a "
            "third on long series, where they were behind on the longest set measured); "
            "`SSMClassifier(n_layers=3)` for about half the fit where the classes do not differ "
            "in a period hundreds of steps long "
            "([The deep model: why the S4D network memorized, and the network that replaced it](deep_model.md))",
            "what to expect": default_standing(),
        },
        {
            "your data": "a numeric target (regression)",
            "use": "`SpectralRidgeRegressor(rocket=\"minirocket\")` or sktime's MiniRocket "
            "regressor, `RocketRegressor(rocket_transform=\"minirocket\")`, whichever "
            "cross-validates better on your data; `SSMRegressor()` when you need a deep model",
            "what to expect": "R² on the two datasets measured (mean over resamples): "
            + "; ".join(
                f"{d}: SpectralRidgeRegressor {_f(ridge_r2.loc[d, 'tdi+ridge'])}, with "
                f"MiniRocket's features {_f(ridge_r2.loc[d, 'tdi+ridge+minirocket'])}, "
                f"MiniRocket {_f(ridge_r2.loc[d, 'minirocket'])}, SSMRegressor "
                f"{_f(r2.loc[d, 'tdi'])}"
                for d in ridge_r2.index
            ),
        },
        representation_row(),
    ]
    return _md_table(pd.DataFrame(rows), ["l", "l", "l"])


@region("tdi-real-summary")
def tdi_real_summary() -> str:
    """The decision page's sentence on TDI and real data, from docs/tdi_real.md's results."""
    gaps = _default_init_gaps()
    per_dataset = gaps.groupby("dataset")["gap"].mean()
    confirm = _csv(TDI_REAL_CONFIRM)
    digits = confirm[(confirm["dataset"] == "digits-784") & (confirm["preset"] == "s4d-1")]
    lead = _real_pairs(digits, "beside").groupby(level="budget").mean()
    tiled = _real_pairs(digits, "tiled").groupby(level="budget").mean()
    control = gaps.merge(
        _deep_real_gaps("beside-control").rename("control").reset_index()
    )
    over_control = (control["gap"] - control["control"]).mean()
    return (
        f"On real series ({per_dataset.size} datasets, [TDI on real series](tdi_real.md)), TDI − S4D-Lin is "
        f"{_pts(gaps['gap'].mean())} points on the mean of {len(gaps)} paired fits (from "
        f"{_pts(per_dataset.min())} on {per_dataset.idxmin()} to {_pts(per_dataset.max())} on "
        f"{per_dataset.idxmax()}), and {_pts(over_control)} against its placebo. On the 784-step "
        "digits at 1% with one S4D layer it is "
        + ", ".join(f"{_pts(v)} at {int(b)} epochs" for b, v in lead.items())
        + " (the TDI of earlier versions: "
        + ", ".join(f"{_pts(v)}" for v in tiled.values)
        + ").\n"
    )
