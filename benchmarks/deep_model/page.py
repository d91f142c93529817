"""The generated regions of ``docs/deep_model.md``, from the committed results they cite."""

from __future__ import annotations

import json

import pandas as pd

from ..budgets.page import LEARNING_CONV_S4D
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _pts

RESULTS = results_dir("deep_model")  # this study's committed results


DEEP_FIELD = RESULTS / "deep_field_results.csv"


def _deep_ok() -> pd.DataFrame:
    results = _csv(DEEP_FIELD)
    return results[results["status"] == "ok"]


def _deep_means() -> pd.DataFrame:
    """Mean accuracy over resamples, dataset × estimator (datasets every estimator ran)."""
    ok = _deep_ok()
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


DEEP_TIMING = RESULTS / "deep_timing_results.csv"


def _timing_ratio() -> pd.Series:
    """Default SSMClassifier's fit seconds ÷ InceptionTime's per dataset, idle-machine run."""
    ok = _csv(DEEP_TIMING)
    seconds = ok[ok["status"] == "ok"].pivot_table(
        index="dataset", columns="estimator", values="fit_seconds"
    )
    return seconds["tdi"] / seconds["inceptiontime"]


DEEP_FEWSHOT = RESULTS / "deep_fewshot_results.csv"


def _fewshot_means() -> pd.DataFrame:
    ok = _csv(DEEP_FEWSHOT)
    ok = ok[ok["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


# --------------------------------------------------------------------------------------
# the deep model (docs/deep_model.md): the bridge study and the side-by-side run (issue 22)

BRIDGE = RESULTS / "bridge_study.csv"
BRIDGE_NAMES = {
    "inceptiontime": "InceptionTime, sktime's recipe",
    "inception": "InceptionTime's network, sktdi's recipe",
    "inception-causal": "… causal padding (sktdi's convolutions)",
    "inception-s4d": "… widest convolution → S4D (**conv-s4d**)",
    "conv-s4d-recipe": "conv-s4d, InceptionTime's recipe",
    "conv-s4d-narrow": "conv-s4d, half width (d_model 64)",
    "s4d": "S4D network (the previous default)",
    "s4d-local": "S4D network, fast modes only (dt ≥ 0.05)",
    "s4d-deep": "S4D network, 4 blocks",
}
DEEP_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-lin": "SSMClassifier, S4D-Lin",
    "s4d-network": "previous default (S4D network)",
    "inceptiontime": "InceptionTime",
    "resnet": "ResNet",
    "minirocket": "MiniRocket",
}


@region("bridge-study")
def bridge_study() -> str:
    results = _csv(BRIDGE)
    means = results.pivot_table(index="arm", columns="dataset", values="cv_accuracy")
    folds = results.pivot_table(index="arm", columns="dataset", values="fold", aggfunc="count")
    arms = [a for a in BRIDGE_NAMES if a in means.index]
    datasets = sorted(means.columns, key=lambda d: (d != "OSULeaf", d))
    out = pd.DataFrame({"step": [BRIDGE_NAMES[a] for a in arms]})
    for d in datasets:
        out[f"{d} ({int(folds[d].max())} folds)"] = [_f(means.loc[a, d]) for a in arms]
    # the sets every step of the bridge itself ran (the five arms from InceptionTime to S4D)
    chain = [a for a, _, _ in BRIDGE_STEPS[:4]] + ["s4d"]
    core = means.columns[means.loc[[a for a in chain if a in means.index]].notna().all()]
    out[f"mean over {', '.join(core)}"] = [
        _f(means.loc[a, core].mean()) if means.loc[a, core].notna().all() else "" for a in arms
    ]
    train = results.groupby("arm")["train_accuracy"].mean()
    out["training accuracy"] = [_f(train[a]) for a in arms]
    seconds = results.pivot_table(index="arm", columns="dataset", values="fit_seconds")
    ratio = (seconds.div(seconds.loc["inceptiontime"], axis=1)).mean(axis=1)
    out["fit time ÷ InceptionTime's"] = [f"{ratio[a]:.2f}×" for a in arms]
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


#: the bridge, one step at a time: (from, to, what the step changes)
BRIDGE_STEPS = (
    ("inceptiontime", "inception", "the recipe: sktime's → sktdi's training loop"),
    ("inception", "inception-causal", "causal (left) padding, sktdi's convolutions"),
    ("inception-causal", "inception-s4d", "widest convolution → S4D layer (conv-s4d)"),
    ("inception-s4d", "s4d", "conv-s4d → the S4D network"),
    ("inception-s4d", "conv-s4d-recipe", "conv-s4d, sktdi's recipe → InceptionTime's"),
    ("inception-s4d", "conv-s4d-narrow", "conv-s4d, half width"),
)


@region("bridge-steps")
def bridge_steps() -> str:
    means = _csv(BRIDGE).pivot_table(index="arm", columns="dataset", values="cv_accuracy")
    rows = []
    for a, b, what in BRIDGE_STEPS:
        if a not in means.index or b not in means.index:
            continue
        gap = (100 * (means.loc[b] - means.loc[a])).dropna()
        per = ", ".join(f"{d} {_pts(v)}" for d, v in gap.items())
        rows.append(
            {
                "step": what,
                "change in CV accuracy (pts, mean over sets)": _pts(gap.mean()),
                "per dataset": per,
            }
        )
    return _md_table(pd.DataFrame(rows), ["l", "r", "l"])


@region("bridge-cells")
def bridge_cells() -> str:
    results = _csv(BRIDGE)
    return (
        f"{len(results)} fits: {results['dataset'].nunique()} datasets, "
        f"{results['arm'].nunique()} steps, {int(results['epochs'].iloc[0])} epochs each, "
        "one torch thread per fit, beside other runs on the shared 2-core machine.\n"
    )


BRIDGE_REGRESSION = RESULTS / "bridge_study_regression.csv"


@region("bridge-regression")
def bridge_regression() -> str:
    results = _csv(BRIDGE_REGRESSION)
    names = {
        "regressor-s4d": "S4D network (the regressor's default)",
        "regressor-conv-s4d": "conv-s4d network (the classifier's)",
    }
    r2 = results.pivot_table(index="arm", columns="dataset", values="cv_r2")
    train = results.groupby("arm")["train_r2"].mean()
    seconds = results.groupby("arm")["fit_seconds"].mean()
    arms = [a for a in names if a in r2.index]
    out = pd.DataFrame({"network": [names[a] for a in arms]})
    for d in r2.columns:
        out[f"{d} CV R²"] = [_f(r2.loc[a, d]) for a in arms]
    out["training R²"] = [_f(train[a]) for a in arms]
    out["mean fit seconds"] = [f"{seconds[a]:.0f}" for a in arms]
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


@region("deep-field-cells")
def deep_field_cells() -> str:
    results = _csv(DEEP_FIELD)
    ok = _deep_ok()
    resamples = ok.groupby("dataset")["resample"].nunique()
    per = ", ".join(f"{d} {n}" for d, n in resamples.items())
    return (
        f"One `sktdi benchmark` run at the full training sets: {len(results)} cells "
        f"({len(ok)} `ok`), estimators {', '.join(sorted(results['estimator'].unique()))}, "
        f"every deep model at {_deep_epochs()} epochs; splits per dataset (resample 0 is "
        f"the official split): {per}.\n"
    )


def _deep_epochs() -> int:

    # only the trained models read max_epochs (MiniRocket and 1-NN record none); 100 is the
    # default, which a run's config leaves out
    results = _csv(DEEP_FIELD)
    trained = results[~results["estimator"].isin(["minirocket", "1nn-euclidean", "1nn-dtw"])]
    return max(json.loads(c).get("max_epochs", 100) for c in trained["config"])


@region("deep-field")
def deep_field() -> str:
    means = _deep_means()
    ok = _deep_ok()
    std = ok.pivot_table(index="dataset", columns="estimator", values="accuracy", aggfunc="std")
    names = [e for e in DEEP_NAMES if e in means.columns]
    out = pd.DataFrame(index=means.index)
    for e in names:
        cell = means[e].map(_f)
        if e in std.columns and std[e].notna().any():
            cell = cell + std[e].reindex(means.index).map(
                lambda v: "" if pd.isna(v) else f" ± {v:.3f}"
            )
        out[DEEP_NAMES[e]] = cell
    out["default − InceptionTime (pts)"] = (100 * (means["tdi"] - means["inceptiontime"])).map(_pts)
    out["default − MiniRocket (pts)"] = (100 * (means["tdi"] - means["minirocket"])).map(_pts)
    out.loc["**mean**"] = {
        **{DEEP_NAMES[e]: _f(means[e].mean()) for e in names},
        "default − InceptionTime (pts)": _pts(100 * (means["tdi"] - means["inceptiontime"]).mean()),
        "default − MiniRocket (pts)": _pts(100 * (means["tdi"] - means["minirocket"]).mean()),
    }
    out = out.reset_index().rename(columns={"index": "dataset"})
    return _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))


@region("deep-timing")
def deep_timing() -> str:
    results = _csv(DEEP_TIMING)
    ok = results[results["status"] == "ok"]
    seconds = ok.pivot_table(index="dataset", columns="estimator", values="fit_seconds")
    names = [e for e in DEEP_NAMES if e in seconds.columns]
    out = pd.DataFrame({DEEP_NAMES[e]: seconds[e].map(lambda v: f"{v:.1f}") for e in names})
    ratio = _timing_ratio()
    out["default ÷ InceptionTime"] = ratio.map(lambda v: f"{v:.2f}×")
    accuracy = ok.pivot_table(index="dataset", columns="estimator", values="accuracy")
    for e in names:
        out[f"{DEEP_NAMES[e]} accuracy"] = accuracy[e].map(_f)
    out.loc["**mean of ratios**"] = {"default ÷ InceptionTime": f"{ratio.mean():.2f}×"}
    out = out.fillna("").reset_index().rename(columns={"index": "dataset"})

    epochs = {json.loads(c).get("max_epochs") for c in results["config"]} - {None}
    return (
        f"Fit seconds (and test accuracy, official split) at "
        f"{', '.join(str(e) for e in sorted(epochs))} epochs, cells one after another on the "
        "idle 2-core machine, each with both cores, each model's first fit in the process "
        "after a one-epoch fit of its own (what a process pays once, its imports and "
        "compiled kernels, untimed as MiniRocket's compilation is):\n\n"
        + _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))
    )


FEWSHOT_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-network": "previous default (S4D network)",
    "tdi+ridge": "SpectralRidgeClassifier",
}


@region("deep-fewshot")
def deep_fewshot() -> str:
    results = _csv(DEEP_FEWSHOT)
    means = _fewshot_means()
    names = [e for e in FEWSHOT_NAMES if e in means.columns]
    out = pd.DataFrame({FEWSHOT_NAMES[e]: means[e].map(_f) for e in names})
    gap = 100 * (means["tdi"] - means["tdi+ridge"])
    out["default − SpectralRidge (pts)"] = gap.map(_pts)
    out.loc["**mean**"] = {
        **{FEWSHOT_NAMES[e]: _f(means[e].mean()) for e in names},
        "default − SpectralRidge (pts)": _pts(gap.mean()),
    }
    out = out.reset_index().rename(columns={"index": "dataset"})
    n_train = results.groupby("dataset")["n_train"].first()
    classes = results.groupby("dataset")["n_classes"].first()
    resamples = results.groupby("dataset")["resample"].nunique()
    per_class = ", ".join(
        f"{d} {int(n_train[d])}/{int(classes[d])} ({resamples[d]} resamples)" for d in means.index
    )
    return (
        f"Two training series per class (`--ratios 0.01 --min-per-class 2`), the whole test "
        f"split scored; training series / classes (splits): {per_class}.\n\n"
        + _md_table(out, ["l"] + ["r"] * (out.shape[1] - 1))
    )


def _conv_s4d_pairs() -> pd.DataFrame:
    """TDI's and S4D-Lin's learning-curve cells whose (resample, budget) both ran: paired
    only (the control arm, where it ran, is read by the zoo's targets)."""
    results = _csv(LEARNING_CONV_S4D)
    results = results[results["arm"].isin(["tdi", "s4d-lin"])]
    arms = results.groupby(["resample", "budget"])["arm"].transform("nunique")
    return results[arms == 2]


def _conv_s4d_budget_gap() -> pd.DataFrame:
    """TDI and S4D-Lin on the conv-s4d network, pixel-digits: mean accuracy per budget."""
    results = _conv_s4d_pairs()
    means = results.pivot_table(index="budget", columns="arm", values="accuracy")
    means["gap"] = 100 * (means["tdi"] - means["s4d-lin"])
    means["resamples"] = results.groupby("budget")["resample"].nunique()
    return means


@region("deep-budgets")
def deep_budgets() -> str:
    means = _conv_s4d_budget_gap()
    results = _conv_s4d_pairs()
    out = pd.DataFrame(
        {
            "epochs": means.index,
            "TDI": means["tdi"].map(_f).values,
            "S4D-Lin": means["s4d-lin"].map(_f).values,
            "TDI − S4D-Lin (pts)": means["gap"].map(_pts).values,
            "resamples": means["resamples"].values,
        }
    )
    n_fit = int(results["n_fit"].iloc[0])
    return (
        f"pixel-digits, {n_fit} training series (a stratified {results['ratio'].iloc[0]:g} of "
        "the training split), the whole test split scored, `learning_curves.py --mode test`:\n\n"
        + _md_table(out, None)
    )


@region("deep-field-targets")
def deep_field_targets() -> str:
    means = _deep_means()
    gap_it = 100 * (means["tdi"] - means["inceptiontime"])
    gap_mr = 100 * (means["tdi"] - means["minirocket"])
    time_ratio = _timing_ratio()
    worst = gap_it.idxmin()

    def met(flag: bool) -> str:
        return "met" if flag else "**missed**"

    rows = [
        ("mean ≥ InceptionTime's", f"{_pts(gap_it.mean())} pts", met(gap_it.mean() >= 0)),
        (
            "no dataset more than 2 points behind InceptionTime",
            f"worst {worst} {_pts(gap_it[worst])} pts",
            met(gap_it.min() >= -2),
        ),
    ]
    for dataset, bar in (("OSULeaf", 0.93), ("ArrowHead", 0.85)):
        if dataset in means.index:
            value = means.loc[dataset, "tdi"]
            rows.append((f"{dataset} ≥ {bar}", _f(value), met(value >= bar)))
    fewshot = _fewshot_means()
    gap_fs = 100 * (fewshot["tdi"] - fewshot["tdi+ridge"]).mean()
    rows += [
        ("mean ≥ MiniRocket − 1", f"{_pts(gap_mr.mean())} pts", met(gap_mr.mean() >= -1)),
        (
            "2 series per class: within 5 points of SpectralRidgeClassifier (mean)",
            f"{_pts(gap_fs)} pts",
            met(gap_fs >= -5),
        ),
        (
            "fit time ≤ 0.5× InceptionTime's at equal epochs",
            f"{time_ratio.mean():.2f}× (mean of ratios, idle machine)",
            met(time_ratio.mean() <= 0.5),
        ),
    ]
    budgets = _conv_s4d_budget_gap()
    worst = budgets["gap"].min()
    rows.append(
        (
            "TDI − S4D-Lin ≥ −0.5 at every budget on pixel-digits",
            f"worst {_pts(worst)} pts",
            met(worst >= -0.5),
        )
    )
    if 5 in budgets.index:
        rows.append(
            (
                "TDI − S4D-Lin ≥ +5 at 5 epochs",
                f"{_pts(budgets.loc[5, 'gap'])} pts",
                met(budgets.loc[5, "gap"] >= 5),
            )
        )
    return _md_table(pd.DataFrame(rows, columns=["target", "measured", "status"]), None)
