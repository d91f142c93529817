"""The generated regions of ``docs/budgets.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table, _mean_se, _pts

RESULTS = results_dir("budgets")  # this study's committed results


TRAINING_STEP = RESULTS / "training_step.json"


def _training_step() -> dict:
    import json

    return json.loads(TRAINING_STEP.read_text())


LEARNING_CONV_S4D = RESULTS / "learning_curves_conv_s4d.csv"

# --------------------------------------------------------------------------------------
# TDI's safety net (docs/budgets.md, "The task zoo"): benchmarks/budgets/tdi_zoo.py's results

ZOO_RESULTS = RESULTS / "tdi_zoo.csv"
ZOO_DIAGNOSIS = RESULTS / "tdi_zoo_diagnosis.csv"
CONV_S4D_CHOICE = RESULTS / "learning_curves_conv_s4d_choice.csv"
CONV_S4D_STUDY = RESULTS / "learning_curves_conv_s4d_study.csv"
ZOO_INFORMATIVE = ["broadband-64", "one-band-256", "multi-band-128", "one-band-32", "multi-band-40"]
ZOO_DIAGNOSIS_ARMS = {
    "tdi": "TDI (default: tiled coverage, band decays)",
    "tdi-control": "its control",
    "auto": 'init="auto" (TDI only when reliability ≥ 0.5)',
    "tdi-base": "base coverage, spread 0.5",
    "tdi-gain": "gain coverage",
    "tdi-bd": "base decays",
    "control-bd": "control, base decays",
}


def _paired_gaps(results: pd.DataFrame, arm: str, reference: str) -> pd.Series:
    """Per (task, budget, seed): 100 × (arm − reference), where both ran."""
    table = results.pivot_table(
        index=["task", "budget", "seed"], columns="arm", values="accuracy", aggfunc="mean"
    )
    if arm not in table or reference not in table:
        return pd.Series(dtype=float)
    return (100 * (table[arm] - table[reference])).dropna()


@region("zoo-tasks")
def zoo_tasks() -> str:
    from sktdi.datasets import ZOO_TASKS

    rows = [
        {
            "task": name,
            "family": spec["family"],
            "length": spec["length"],
            "classes": spec["n_classes"],
            "training series / class": spec["n_per_class"],
            "noise": spec.get("noise", "white"),
            "strength": f"{spec.get('strength', 1.0):g}",
        }
        for name, spec in ZOO_TASKS.items()
    ]
    return _md_table(pd.DataFrame(rows), align=["l", "l", "r", "r", "r", "l", "r"])


@region("zoo-diagnosis")
def zoo_diagnosis() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    # seeds 100-199: the diagnosis proper (200 and up: the few-step cell's own table)
    results = results[results["task"].isin(ZOO_INFORMATIVE) & (results["seed"] < 200)]
    rows = []
    for network, prefix in (("conv-s4d (default)", ""), ("S4D, issue 13's recipe", "old-")):
        for arm, label in ZOO_DIAGNOSIS_ARMS.items():
            gaps = _paired_gaps(results, prefix + arm, prefix + "s4d-lin")
            if gaps.empty:
                continue
            cells = gaps.groupby(level=["task", "budget"]).mean()
            worst = cells.idxmin()
            rows.append(
                {
                    "network": network,
                    "arm": label,
                    "− S4D-Lin, 5 epochs": _mean_se(gaps.xs(5, level="budget")),
                    "− S4D-Lin, 20 epochs": _mean_se(gaps.xs(20, level="budget")),
                    "worst cell (its mean)": f"{worst[0]}, {worst[1]} ep: {_pts(cells.min())}",
                    "worst draw": _pts(gaps.min()),
                }
            )
    table = pd.DataFrame(rows)
    return (
        _md_table(table, align=["l", "l", "r", "r", "l", "r"])
        + "\nPoints of accuracy against S4D-Lin on the same draw (same training series, same "
        "seed): mean ± standard error (number of draws) over the five zoo tasks where the "
        "statistic has significant bins, other draws than the report's (seeds 100–108). "
        "A cell is one task at one budget; a draw, one seed of one cell.\n"
    )


@region("zoo-targets")
def zoo_targets() -> str:
    cells = _zoo_cells().dropna(subset=["draws"])
    worst = cells["lin_mean"].idxmin()
    w = cells.loc[worst]
    rows = [
        [
            "zoo: TDI − S4D-Lin ≥ −0.5 pts in every cell (task × budget)",
            (
                f"worst {worst[0]} at {int(worst[1])} epochs: {_pts(w['lin_mean'])} ± "
                f"{w['lin_se']:.1f} ({int(w['draws'])} draws); "
                f"{int((cells['lin_mean'] < -0.5).sum())} of {len(cells)} cells below −0.5"
            ),
            "met" if w["lin_mean"] >= -0.5 else "**missed**",
        ]
    ]
    results = _csv(ZOO_RESULTS)
    by_budget = {
        int(budget): _paired_gaps(subset, "tdi", "tdi-control").mean()
        for budget, subset in results.groupby("budget")
    }
    rows.append(
        [
            "zoo: TDI ≥ its control on the mean, at every budget",
            ", ".join(f"{_pts(v)} at {b}" for b, v in by_budget.items()),
            "met" if min(by_budget.values()) >= 0 else "**missed**",
        ]
    )
    pixel = _csv(LEARNING_CONV_S4D).rename(columns={"resample": "seed", "dataset": "task"})
    gaps = _paired_gaps(pixel, "tdi", "s4d-lin").groupby(level="budget")
    means, counts = gaps.mean(), gaps.count()
    rows.append(
        [
            "pixel-digits (test split): TDI − S4D-Lin ≥ −0.5 pts at every budget run",
            ", ".join(f"{_pts(v)} at {int(b)} ({counts[b]})" for b, v in means.items()),
            "met" if means.min() >= -0.5 else "**missed**",
        ]
    )
    rows.append(
        [
            "pixel-digits (test split): TDI − S4D-Lin ≥ +5 pts at 5 epochs",
            _pts(means.get(5, float("nan"))),
            "met" if means.get(5, float("nan")) >= 5 else "**missed**",
        ]
    )
    control = _paired_gaps(pixel, "tdi", "tdi-control").groupby(level="budget").mean()
    rows.append(
        [
            "pixel-digits (test split): TDI ≥ its control",
            ", ".join(f"{_pts(v)} at {int(b)}" for b, v in control.items()),
            "met" if control.min() >= 0 else "**missed**",
        ]
    )
    study = _csv(CONV_S4D_STUDY).rename(columns={"resample": "seed", "dataset": "task"})
    cells = _paired_gaps(study, "tdi", "s4d-lin").groupby(level=["task", "budget"]).mean()
    worst = cells.idxmin()
    rows.append(
        [
            (
                "study datasets where TDI aligns (test split): TDI − S4D-Lin ≥ −0.5 pts at "
                "every budget run"
            ),
            f"worst {worst[0]} at {int(worst[1])} epochs: {_pts(cells.min())}; mean "
            + ", ".join(
                f"{_pts(v)} at {int(b)}" for b, v in cells.groupby(level="budget").mean().items()
            ),
            "met" if cells.min() >= -0.5 else "**missed**",
        ]
    )
    table = pd.DataFrame(rows, columns=["target", "measured", "status"])
    return _md_table(table, align=["l", "l", "l"])


@region("zoo-study")
def zoo_study() -> str:
    study = _csv(CONV_S4D_STUDY)
    cells = _zoo_cells(study.rename(columns={"resample": "seed", "dataset": "task"}))
    n_fit = study.groupby("dataset")["n_fit"].first()
    return (
        _md_table(_cell_rows(cells, "dataset", "resamples"), align=["l"] + ["r"] * 7)
        + "\nMean test accuracy over resamples (resample 0: the official split) and the paired "
        "differences in points, mean ± standard error over the resamples; a stratified "
        "16% of the training split fitted ("
        + ", ".join(f"{d}: {n} series" for d, n in n_fit.items())
        + "), the default conv-s4d network.\n"
    )


ZOO_CAUSE_ARMS = {
    "tdi": "TDI (default)",
    "tdi-control": "its control",
    "tdi-norel": "no reliability shrinkage",
    "auto": 'init="auto"',
    "tdi-base": "base coverage, spread 0.5",
    "control-base": "control, base coverage",
    "tdi-gain": "gain coverage",
    "tdi-bd": "base decays",
    "tdi-2peaks": "at most 2 peaks",
    "tdi-all-layers": "every layer aligned",
}


@region("zoo-cause-length40")
def zoo_cause_length40() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    results = results[(results["task"] == "multi-band-40") & (results["budget"] == 20)]
    results = results[results["seed"].isin(sorted(results["seed"].unique())[:4])]
    rows = []
    for arm, label in ZOO_CAUSE_ARMS.items():
        row = {"arm": label}
        for network, prefix in (("conv-s4d (default)", ""), ("S4D, issue 13's recipe", "old-")):
            gaps = _paired_gaps(results, prefix + arm, prefix + "s4d-lin")
            row[network] = _mean_se(gaps) if len(gaps) else ""
        rows.append(row)
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r", "r"])
        + "\nmulti-band-40 at 20 epochs, points against S4D-Lin on the same draw: mean ± "
        "standard error (draws), seeds 100–103.\n"
    )


@region("zoo-fewsteps")
def zoo_fewsteps() -> str:
    results = _csv(ZOO_DIAGNOSIS)
    results = results[
        (results["task"] == "multi-band-128") & (results["budget"] == 5) & (results["seed"] >= 200)
    ]
    labels = {
        "tdi": "TDI (default)",
        "tdi-control": "its control",
        "tdi-norel": "no reliability shrinkage",
        "tdi-base": "base coverage, spread 0.5",
        "tdi-gain": "gain coverage",
        "tdi-bd": "base decays",
        "control-bd": "control, base decays",
    }
    rows = []
    for arm, label in labels.items():
        gaps = _paired_gaps(results, arm, "s4d-lin")
        rows.append(
            {
                "arm": label,
                "− S4D-Lin": _mean_se(gaps),
                "draw SD": f"{gaps.std(ddof=1):.1f}",
                "worst draw": _pts(gaps.min()),
                "best draw": _pts(gaps.max()),
            }
        )
    lin = results[results["arm"] == "s4d-lin"]["accuracy"].mean()
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r", "r", "r", "r"])
        + f"\nmulti-band-128 at 5 epochs (16 training series, batch 16: five optimizer steps), "
        f"seeds 200 and up; points against S4D-Lin on the same draw (S4D-Lin: {_f(lin)}).\n"
    )


@region("zoo-pixel-choice")
def zoo_pixel_choice() -> str:
    results = _csv(CONV_S4D_CHOICE).rename(columns={"resample": "seed", "dataset": "task"})
    labels = {
        "tdi": "TDI (default)",
        "tdi-control": "its control",
        "base": "base coverage, spread 0.5",
        "base-control": "control, base coverage",
        "gain": "gain coverage",
        "gain-control": "control, gain coverage",
        "tiled-bd": "base decays",
        "tiled-bd-control": "control, base decays",
    }
    rows = []
    for arm, label in labels.items():
        gaps = _paired_gaps(results, arm, "s4d-lin")
        if gaps.empty:
            continue
        rows.append({"arm": label, "− S4D-Lin at 5 epochs": _mean_se(gaps)})
    lin = results[results["arm"] == "s4d-lin"]["accuracy"].mean()
    return (
        _md_table(pd.DataFrame(rows), align=["l", "r"])
        + f"\npixel-digits, 144 training series (16%), 300 other series of the training split "
        f"scored, the default conv-s4d network at 5 epochs (S4D-Lin: {_f(lin)}); mean ± "
        "standard error over resamples (their number).\n"
    )


def _zoo_cells(results: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (task, budget): mean TDI − S4D-Lin and TDI − control, with standard errors, and
    each arm's mean accuracy (``results``: the zoo's, or a learning-curve file renamed to
    task/seed)."""
    results = _csv(ZOO_RESULTS) if results is None else results
    out = {}
    for name, reference in (("lin", "s4d-lin"), ("control", "tdi-control")):
        gaps = _paired_gaps(results, "tdi", reference)
        grouped = gaps.groupby(level=["task", "budget"])
        out[f"{name}_mean"] = grouped.mean()
        out[f"{name}_se"] = grouped.std(ddof=1) / grouped.count() ** 0.5
        out["draws"] = grouped.count()
    means = results.pivot_table(
        index=["task", "budget"], columns="arm", values="accuracy", aggfunc="mean"
    )
    return pd.DataFrame(out).join(means)


def _cell_rows(cells: pd.DataFrame, name: str, draws: str) -> pd.DataFrame:
    """The per-cell table: arms' mean accuracies and the paired gaps ± their errors."""
    rows = [
        {
            name: task,
            "epochs": int(budget),
            draws: int(cell["draws"]),
            "S4D-Lin": _f(cell["s4d-lin"]),
            "TDI": _f(cell["tdi"]),
            "control": _f(cell["tdi-control"]),
            "TDI − S4D-Lin": f"{_pts(cell['lin_mean'])} ± {cell['lin_se']:.1f}",
            "TDI − control": f"{_pts(cell['control_mean'])} ± {cell['control_se']:.1f}",
        }
        for (task, budget), cell in cells.dropna(subset=["draws"]).iterrows()
    ]
    return pd.DataFrame(rows)


@region("zoo-results")
def zoo_results() -> str:
    return (
        _md_table(_cell_rows(_zoo_cells(), "task", "draws"), align=["l"] + ["r"] * 7)
        + "\nMean test accuracy over draws (seeds 0 and up; each draw a fresh task, its "
        "training series and 64 test series per class), and the paired differences in points, "
        "mean ± standard error over the draws.\n"
    )


@region("zoo-budgets")
def zoo_budgets() -> str:
    results = _csv(ZOO_RESULTS)
    rows = []
    for budget, subset in results.groupby("budget"):
        lin = _paired_gaps(subset, "tdi", "s4d-lin")
        control = _paired_gaps(subset, "tdi", "tdi-control")
        cells = lin.groupby(level="task").mean()
        rows.append(
            {
                "epochs": int(budget),
                "tasks": cells.size,
                "TDI − S4D-Lin": _mean_se(lin),
                "worst task": f"{cells.idxmin()}: {_pts(cells.min())}",
                "TDI − control": _mean_se(control),
            }
        )
    return (
        _md_table(pd.DataFrame(rows), align=["r", "r", "r", "l", "r"])
        + "\nPoints of accuracy, paired on the draw: mean ± standard error over every draw of "
        "every task run at that budget (their number: tasks × draws; seeds 0 and up). The "
        "worst task is the lowest mean over its draws.\n"
    )


@region("training-step")
def training_step() -> str:
    step = _training_step()
    layer, epoch = step["layer"], step["epoch"]
    shape = layer["shape"]
    rows = []
    for part, what in (
        ("layer", "S4D layer"),
        ("block", "S4D block (layer, GELU, GLU mixing, LayerNorm)"),
    ):
        m = layer[part]
        rows.append(
            [
                what,
                f"{m['baseline_ms']:.1f} ms",
                f"{m['code_only_ms']:.1f} ms ({m['code_only_ratio']:.2f}×)",
                f"{m['current_ms']:.1f} ms (**{m['ratio']:.2f}×**)",
            ]
        )
    table = pd.DataFrame(
        rows,
        columns=[
            f"forward + backward, batch {shape['batch']}, d_model {shape['d_model']}, "
            f"d_state {shape['d_state']}, length {shape['length']}",
            f"before ({layer['baseline']})",
            "now, code alone",
            "now, as a fit trains it",
        ],
    )
    return (
        _md_table(table, align=["l", "r", "r", "r"])
        + f"\nMedian over {layer['rounds']} alternating rounds, {layer['threads']} threads; "
        '"code alone" runs the new code in a process left at glibc\'s malloc defaults (as the '
        'baseline ran), "as a fit trains it" with freed memory kept (below).\n\n'
        + f"One epoch of `SSMClassifier.fit` ({epoch['series']} pixel-digits series, "
        f"{epoch['steps_per_epoch']} steps of 16, one layer, d_model 64): "
        f"**{epoch['estimator_epoch_s']:.2f} s**, against {epoch['plain_loop_epoch_s']:.2f} s "
        f"for a plain torch loop doing the same work: **{epoch['ratio']:.3f}×** (median of "
        f"{epoch['epochs_timed']} epochs, {epoch['threads']} threads, both in one process).\n"
    )
