"""The generated regions of ``docs/long_series.md`` and the long-series lines of the user guide
(``docs/which_model.md``), from ``benchmarks/long_series/long_series.py``'s results."""

from __future__ import annotations

import math

import pandas as pd

from ..shared.regions import ROOT, _csv, region, results_dir
from ..shared.tables import _f, _md_table, _mean_se, _pts
from .page_memory import (
    GIB,
    LONG_MEMORY,
    LONG_MEMORY_RELEASE,
    LONG_MEMORY_RELEASE_40,
    _memory,
)

RESULTS = results_dir("long_series")  # this study's committed results

LONG_SERIES = RESULTS / "long_series.csv"
# two more seeds of the study's cells at 1,000 and 4,000 steps (a cell's two seeds differed
# by up to 32 points): the deep model, the fast path and MiniRocket, not InceptionTime.
# Declared before the run: accuracy reads every seed; InceptionTime is compared on the seeds
# it ran; cost reads the study's run alone (the extra seeds ran on another day)
LONG_SERIES_SEEDS = RESULTS / "long_series_seeds.csv"
# the deep model's default TDI, S4D-Lin and TDI's placebo on the study's tasks, one run
LONG_SERIES_INIT = RESULTS / "long_series_init.csv"
LONG_SCALING = RESULTS / "long_series_scaling.csv"
# issue 36's cheaper network (three blocks, `n_layers=3`) on the study's accuracy cells, in a
# run of its own on today's code: the rule declared in benchmarks/long_series/run_depth_default.sh reads it
LONG_SERIES_3BLOCKS = RESULTS / "long_series_3blocks.csv"
THREE_BLOCKS_RULE_LENGTHS = (1000, 4000)  # the fits the declared rule reads
N_CLASSES = 5  # every task of the study (benchmarks/long_series/long_series.py)
DRAW = ["length", "task", "seed"]  # one draw of a task: the cells runs pair on
# the other arms on the study's draws, 20 series per class, and PLAID through the
# harness (benchmarks/long_series/run_long_arms.sh, declared before they ran)
LONG_SERIES_ARMS = RESULTS / "long_series_arms.csv"
LONG_SERIES_MANY = RESULTS / "long_series_many.csv"
LONG_SERIES_PLAID = RESULTS / "long_series_plaid.csv"
# issue 58's rerun of the fast arms and MiniRocket on PLAID (run_long_arms.sh plaid-fast):
# they replace the first run's cells of the same arms
LONG_SERIES_PLAID_FAST = RESULTS / "long_series_plaid_fast.csv"
ARM_NAMES = {
    "ssm": "SSMClassifier",
    "s4d": '`SSMClassifier(network="s4d")`',
    "s4d-network": "the S4D network at its tested settings",
    "fast-path": "SpectralRidgeClassifier",
    "fast-path-minirocket": '`SpectralRidgeClassifier(rocket="minirocket")`',
    "minirocket": "MiniRocket",
}
MODELS = {
    "ssm": "SSMClassifier",
    "fast-path": "SpectralRidgeClassifier",
    "minirocket": "MiniRocket",
    "inceptiontime": "InceptionTime",
}


def _long() -> pd.DataFrame:
    """The study's run: every model of a cell side by side (the cost figures' source)."""
    return _csv(LONG_SERIES)


def _long_accuracy_runs() -> pd.DataFrame:
    """The study's run and its extra seeds: the accuracy figures' source."""
    return pd.concat([_long(), _csv(LONG_SERIES_SEEDS)], ignore_index=True)


def _accuracy(results: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy over seeds per (length, task) × model."""
    return results.pivot_table(
        index=["length", "task"], columns="model", values="accuracy", aggfunc="mean"
    )


def _accuracy_where(results: pd.DataFrame, model: str) -> pd.DataFrame:
    """:func:`_accuracy` on the seeds ``model`` ran, for a comparison on the same draws."""
    ran = results.loc[results["model"] == model, DRAW].drop_duplicates()
    return _accuracy(results.merge(ran, on=DRAW))


def _fit_seconds() -> pd.DataFrame:
    """Mean fit seconds over tasks and seeds per length × model."""
    return _long().pivot_table(index="length", columns="model", values="fit_seconds",
                               aggfunc="mean")


def _gaps(table: pd.DataFrame, other: str) -> pd.Series:
    """100 × (deep − other) per (length, task) where both ran."""
    return (100 * (table["ssm"] - table[other])).dropna()


@region("long-series-accuracy")
def long_series_accuracy() -> str:
    results = _long_accuracy_runs()
    table = _accuracy(results)
    rows = []
    for length, part in table.groupby(level="length"):
        for (_, task), row in part.iterrows():
            rows.append({"length": f"{length:,}", "task": task,
                         **{label: _f(row[m]) if pd.notna(row.get(m)) else "—"
                            for m, label in MODELS.items()}})
        rows.append({"length": f"{length:,}", "task": "**mean**",
                     **{label: f"**{_f(part[m].mean())}**" if part[m].notna().all() else "—"
                        for m, label in MODELS.items()}})
    seeds = results.groupby("length")["seed"].unique()
    drawn = "; ".join(
        f"{length:,} steps: seed{'s' if len(s) > 1 else ''} {', '.join(map(str, sorted(s)))}"
        for length, s in seeds.items()
    )
    it_seeds = sorted(results.loc[results["model"] == "inceptiontime", "seed"].unique())
    if len(it_seeds) < results["seed"].nunique():
        drawn += f"; InceptionTime seed{'s' if len(it_seeds) > 1 else ''} " + ", ".join(
            map(str, it_seeds))
    text = _md_table(pd.DataFrame(rows), ["r", "l", "r", "r", "r", "r"])
    return (
        f"Test accuracy (5 classes, 4 training series per class, 10 test series per class; "
        f"{drawn}, mean over seeds; deep models {int(results['epochs'].iloc[0])} epochs; "
        f"InceptionTime up to "
        f"{int(results.loc[results['model'] == 'inceptiontime', 'length'].max()):,} steps):\n\n"
        + text + "\n"
    )


def _summary() -> dict:
    results = _long_accuracy_runs()
    table = _accuracy(results)
    mr, fp = _gaps(table, "minirocket"), _gaps(table, "fast-path")
    it = _gaps(_accuracy_where(results, "inceptiontime"), "inceptiontime")  # its own seeds
    return {"mr": mr, "it": it, "fp": fp, "table": table}


def three_blocks_gap() -> pd.DataFrame:
    """Three blocks and the default (six) per fit of the same task, length and seed: their
    accuracies and fit seconds, and the gap in points (three − six)."""
    three = _csv(LONG_SERIES_3BLOCKS)
    three = three[three["length"].isin(THREE_BLOCKS_RULE_LENGTHS)]
    six = _long_accuracy_runs()
    six = six.loc[six["model"] == "ssm", DRAW + ["accuracy", "fit_seconds"]]
    both = three[DRAW + ["accuracy", "fit_seconds"]].merge(six, on=DRAW,
                                                           suffixes=("_three", "_six"))
    both["gap"] = 100 * (both["accuracy_three"] - both["accuracy_six"])
    return both


def _reverts(gap: pd.Series) -> bool:
    """The declared rule on the paired gaps (points): True where three blocks trail six by
    more than two standard errors of the paired differences (the adoption reverted)."""
    return bool(gap.mean() < -2 * gap.sem())


def three_blocks_rule() -> tuple[pd.Series, bool]:
    """The paired gaps (points) and the declared rule's outcome (:func:`_reverts`)."""
    gap = three_blocks_gap()["gap"]
    return gap, _reverts(gap)


def _six_blocks_in_two_runs() -> pd.DataFrame:
    """The default's fits in the TDI study (``ssm-tdi``) beside the study's (``ssm``) on the
    same draws: ``accuracy_tdi_study``, ``accuracy_study`` per (length, task, seed)."""
    tdi_study = _csv(LONG_SERIES_INIT)
    tdi_study = tdi_study[tdi_study["model"] == "ssm-tdi"]
    study = _long_accuracy_runs()
    study = study[study["model"] == "ssm"]
    return tdi_study[DRAW + ["accuracy"]].merge(
        study[DRAW + ["accuracy"]], on=DRAW, suffixes=("_tdi_study", "_study"))


def _three_against_tdi_study(six: pd.DataFrame) -> pd.Series:
    """Three − six blocks in points per fit, the six-block fits those of the TDI study (a
    later run than the study's; ``six``: :func:`_six_blocks_in_two_runs`)."""
    both = _csv(LONG_SERIES_3BLOCKS).merge(six, on=DRAW)
    return 100 * (both["accuracy"] - both["accuracy_tdi_study"])


@region("long-series-depth")
def long_series_depth() -> str:
    both = three_blocks_gap()
    gap = both["gap"]
    reverted = _reverts(gap)
    table = both.groupby(["length", "task"]).agg(
        three=("accuracy_three", "mean"), six=("accuracy_six", "mean"),
        gap=("gap", "mean"), sem=("gap", "sem"), seeds=("gap", "size"))
    rows = [{"length": f"{length:,}", "task": task, "three blocks": _f(r["three"]),
             "six blocks (the default)": _f(r["six"]),
             "three − six": f"{_pts(r['gap'])} ± {r['sem']:.1f} ({int(r['seeds'])})"}
            for (length, task), r in table.iterrows()]
    rows.append({"length": "", "task": "**all fits**", "three blocks": "",
                 "six blocks (the default)": "",
                 "three − six": f"{_pts(gap.mean())} ± {gap.sem():.1f} ({len(gap)})"})
    outcome = ("more than two standard errors behind: the rule reverted the adoption, and the "
               "default keeps six blocks" if reverted else
               "within two standard errors: the rule kept the adoption")
    runs = _six_blocks_in_two_runs()
    same = _three_against_tdi_study(runs)
    moved = 100 * (runs["accuracy_tdi_study"] - runs["accuracy_study"]).abs()
    return (
        f"Test accuracy, {int(_csv(LONG_SERIES_3BLOCKS)['epochs'].iloc[0])} epochs, seeds "
        f"{', '.join(map(str, sorted(both['seed'].unique())))}; six blocks: the study's "
        "cells (its run and its extra seeds); the gap in points, mean ± standard error over "
        "the seeds (their number in brackets):\n\n"
        + _md_table(pd.DataFrame(rows), ["r", "l", "r", "r", "r"])
        + f"\nOver the {len(gap)} paired fits three blocks are {_pts(gap.mean())} ± "
        f"{gap.sem():.1f} points from six, {outcome}. The six-block fits are earlier runs', "
        "and a fit on so few series moves between runs on other code: the default's fits in "
        f"the TDI study above differ from the study's on the same draws by up to "
        f"{moved.max():.0f} points ({len(moved)} fits). Against those later fits (at "
        f"{', '.join(f'{n:,}' for n in sorted(runs['length'].unique()))} steps) three blocks "
        f"are {_pts(same.mean())} ± {same.sem():.1f} points ({len(same)} fits).\n"
    )


def _not_run(path) -> str:
    """A region's text before its results file exists."""
    return f"Not run yet (`{path.relative_to(ROOT)}`).\n"


def _by_cell(results: pd.DataFrame, names: dict) -> str:
    """Mean accuracy over seeds per (length, task) and model, a mean row per length, as a
    table with ``names``' columns in their order."""
    table = _accuracy(results)
    cols = [m for m in names if m in table.columns]
    rows = []
    for length, part in table.groupby(level="length"):
        for (_, task), row in part.iterrows():
            rows.append({"length": f"{length:,}", "task": task,
                         **{names[m]: _f(row[m]) if pd.notna(row[m]) else "—" for m in cols}})
        rows.append({"length": f"{length:,}", "task": "**mean**",
                     **{names[m]: f"**{_f(part[m].mean())}**" if part[m].notna().all()
                        else "—" for m in cols}})
    return _md_table(pd.DataFrame(rows), ["r", "l"] + ["r"] * len(cols))


@region("long-series-arms")
def long_series_arms() -> str:
    if not LONG_SERIES_ARMS.exists():
        return _not_run(LONG_SERIES_ARMS)
    arms = _csv(LONG_SERIES_ARMS)

    def beside_study(models: tuple[str, ...]) -> pd.DataFrame:
        """The arms' cells of ``models`` and the study's cells of the same draws."""
        mine = arms[arms["model"].isin(models)]
        study = _long_accuracy_runs().merge(mine[DRAW].drop_duplicates(), on=DRAW)
        return pd.concat([study, mine], ignore_index=True)

    if not {"fast-path-minirocket", "s4d", "s4d-network"} <= set(arms["model"]):
        return "Not finished (`long_series_arms.csv` lacks an arm).\n"
    fast = beside_study(("fast-path-minirocket",))
    deep = beside_study(("s4d", "s4d-network"))
    fast_gap = _gaps(_accuracy(fast), "fast-path-minirocket")
    seeds = {name: ", ".join(map(str, sorted(table["seed"].unique())))
             for name, table in (("fast", fast), ("deep", deep))}
    s4d = arms[arms["model"].isin(("s4d", "s4d-network"))]
    fit = s4d.groupby("model")["fit_seconds"].mean()
    s4d_names = {m: ARM_NAMES[m] for m in ("ssm", "s4d", "s4d-network")}
    return (
        f"Test accuracy, mean over seeds {seeds['fast']}; the fast path with MiniRocket's "
        "features in a run of its own on the study's draws, the others the study's cells:\n\n"
        + _by_cell(fast, {m: ARM_NAMES[m] for m in ("ssm", "fast-path",
                                                    "fast-path-minirocket", "minirocket")})
        + f"\nThe default deep model against the fast path with MiniRocket: "
        f"{_pts(fast_gap.mean())} points on the mean of the {len(fast_gap)} cells (worst "
        f"{_pts(fast_gap.min())}).\n\nThe S4D network, as a user selects it and at its "
        f"tested settings (`d_model=64, n_layers=2, pooling=\"mean-max\", dropout=0.1, "
        f"dt_max=1.0`), {int(s4d['epochs'].iloc[0])} epochs, seeds {seeds['deep']}, beside "
        "the default's cells of the study:\n\n" + _by_cell(deep, s4d_names)
        + "\nMean fit seconds of the two in their run, one thread, each fit beside another: "
        + ", ".join(f"{name} {fit[m]:.0f} s" for m, name in s4d_names.items() if m in fit)
        + ".\n"
    )


@region("long-series-many")
def long_series_many() -> str:
    if not LONG_SERIES_MANY.exists():
        return _not_run(LONG_SERIES_MANY)
    many = _csv(LONG_SERIES_MANY)
    if not {"ssm", "fast-path", "minirocket"} <= set(many["model"]):
        return "Not finished (`long_series_many.csv` lacks a model).\n"
    table = _accuracy(many)
    gaps = {m: (100 * (table["ssm"] - table[m])).dropna() for m in ("minirocket", "fast-path")}
    per_class = int(many["n_train"].iloc[0]) // N_CLASSES
    fit = many.groupby("model")["fit_seconds"].mean()
    return (
        f"Test accuracy with {per_class} training series per class (10 test series per "
        f"class), seeds {', '.join(map(str, sorted(many['seed'].unique())))}, mean over seeds, "
        f"deep model {int(many.loc[many['model'] == 'ssm', 'epochs'].iloc[0])} epochs, one "
        "run:\n\n" + _by_cell(many, {m: ARM_NAMES[m] for m in ("ssm", "fast-path", "minirocket")})
        + f"\nThe deep model against MiniRocket: {_pts(gaps['minirocket'].mean())} points on "
        f"the mean (worst {_pts(gaps['minirocket'].min())}); against the fast path "
        f"{_pts(gaps['fast-path'].mean())}. Mean fit seconds: "
        + ", ".join(f"{ARM_NAMES[m]} {fit[m]:.0f} s" for m in ARM_NAMES if m in fit) + ".\n"
    )


PLAID_NAMES = {
    "tdi": "SSMClassifier (default)",
    "s4d-network": "S4D network",
    "tdi+ridge": "SpectralRidgeClassifier",
    "tdi+ridge+minirocket": 'SpectralRidgeClassifier, `rocket="minirocket"`',
    "minirocket-ridge": "MiniRocket (its transform and ridge head)",
    "minirocket": "MiniRocket (sktime's RocketClassifier)",
}


def _seconds(value: float) -> str:
    """Seconds to a tenth below 10 s, whole above."""
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _plaid_cells() -> tuple[pd.DataFrame, pd.DataFrame]:
    """PLAID's finished cells by estimator, the rerun's in place of the first run's, and all
    rows (for the failures)."""
    results = _csv(LONG_SERIES_PLAID)
    if LONG_SERIES_PLAID_FAST.exists():
        rerun = _csv(LONG_SERIES_PLAID_FAST)
        results = pd.concat(
            [results[~results["estimator"].isin(rerun["estimator"])], rerun], ignore_index=True
        )
    return results[results["status"] == "ok"].set_index("estimator"), results


@region("long-series-plaid")
def long_series_plaid() -> str:
    if not LONG_SERIES_PLAID.exists():
        return _not_run(LONG_SERIES_PLAID)
    ok, results = _plaid_cells()
    if ok.empty:
        return "No cell finished (`long_series_plaid.csv`).\n"
    rows = [{"": name, "accuracy": _f(ok.loc[e, "accuracy"]),
             "fit seconds": _seconds(ok.loc[e, "fit_seconds"]),
             "predict seconds": f"{ok.loc[e, 'predict_seconds']:.1f}"}
            for e, name in PLAID_NAMES.items() if e in ok.index]
    first = ok.iloc[0]
    failed = sorted(set(results["estimator"]) - set(ok.index))
    rerun = (
        sorted(set(_csv(LONG_SERIES_PLAID_FAST)["estimator"]) & set(ok.index))
        if LONG_SERIES_PLAID_FAST.exists() else []
    )
    return (
        f"PLAID, official split ({int(first['n_train'])} training and {int(first['n_test'])} "
        f"test series, {int(first['n_classes'])} classes), `sktdi benchmark`, one thread per "
        "fit"
        + ("; the deep models from the first run, beside the other queue, the fast path and "
           "MiniRocket rerun alone (`run_long_arms.sh plaid-fast`), the fast path given each "
           "series' length:\n\n" if rerun else ", beside the other queue:\n\n")
        + _md_table(pd.DataFrame(rows), ["l", "r", "r", "r"])
        + (f"\nFailed: {', '.join(failed)} (the results file holds the errors).\n"
           if failed else "")
    )


@region("long-series-summary")
def long_series_summary() -> str:
    s = _summary()
    mr, it, fp = s["mr"], s["it"], s["fp"]
    worst_mr, worst_it = mr.idxmin(), it.idxmin()
    return (
        f"Over the {len(mr)} task × length cells, the deep model (default `SSMClassifier`) is "
        f"{_pts(mr.mean())} points from MiniRocket on the mean (worst: {_pts(mr.min())} on "
        f"{worst_mr[1]} at {worst_mr[0]:,} steps; best {_pts(mr.max())}), {_pts(fp.mean())} "
        f"from the fast path, and {_pts(it.mean())} from InceptionTime over the {len(it)} "
        f"cells where InceptionTime ran, on its seeds (worst {_pts(it.min())} on "
        f"{worst_it[1]} at {worst_it[0]:,} steps).\n"
    )


def _scaling() -> pd.DataFrame:
    return _csv(LONG_SCALING)


def _scaling_epochs() -> list[int]:
    """The budgets of the scaling run (one in the runs before the slope)."""
    return sorted(_scaling()["epochs"].unique())


def _scaling_per_epoch() -> pd.DataFrame:
    """Seconds per epoch of the scaling run, length × model: the slope of the fit's
    seconds between the run's fewest and most epochs (what one more epoch costs, without
    what a fit pays once), or the seconds over the epochs where the run had one budget."""
    seconds = _scaling().pivot_table(index=["length", "model"], columns="epochs",
                                     values="fit_seconds")
    low, high = seconds.columns.min(), seconds.columns.max()
    if high == low:
        per_epoch = seconds[low] / low
    else:
        per_epoch = (seconds[high] - seconds[low]) / (high - low)
    return per_epoch.unstack("model")


def _scaling_once() -> pd.Series | None:
    """What a fit pays once (seconds, by model, at the shortest length, mean over seeds):
    the fewest-epoch fit less its epochs at the slope's cost; None where the run had one
    budget."""
    epochs = _scaling_epochs()
    if len(epochs) < 2:
        return None
    scaling = _scaling()
    length = scaling["length"].min()
    first = scaling[(scaling["length"] == length) & (scaling["epochs"] == epochs[0])]
    per_epoch = _scaling_per_epoch().loc[length]
    return first.groupby("model")["fit_seconds"].mean() - epochs[0] * per_epoch


@region("long-series-cost")
def long_series_cost() -> str:
    results = _long()
    seconds = _fit_seconds()
    memory = results.pivot_table(index="length", columns="model", values="peak_rss_mib",
                                 aggfunc="max")
    rows = []
    for length in seconds.index:
        row = {"length": f"{length:,}"}
        for m, label in MODELS.items():
            row[f"{label} fit s"] = f"{seconds.loc[length, m]:.0f}" if pd.notna(
                seconds.loc[length].get(m)) else "—"
        ratio = seconds.loc[length, "ssm"] / seconds.loc[length].get("inceptiontime", math.nan)
        row["deep / InceptionTime"] = f"{ratio:.2f}×" if pd.notna(ratio) else "—"
        row["deep peak memory"] = f"{memory.loc[length, 'ssm'] / GIB:.1f} GiB"
        rows.append(row)
    scaling = _scaling()
    per_epoch = _scaling_per_epoch()
    peak = scaling.pivot_table(index="length", columns="model", values="peak_rss_mib",
                               aggfunc="max")
    base = per_epoch.index.min()
    srows = []
    for length in per_epoch.index:
        nlogn = length * math.log(length) / (base * math.log(base))
        deep = per_epoch.loc[length].get("ssm", math.nan)
        it = per_epoch.loc[length].get("inceptiontime", math.nan)
        srows.append({
            "length": f"{length:,}",
            "deep s/epoch": f"{deep:.2f}" if pd.notna(deep) else "—",
            "InceptionTime s/epoch": f"{it:.2f}" if pd.notna(it) else "—",
            "deep / InceptionTime": f"{deep / it:.2f}×" if pd.notna(deep / it) else "—",
            f"deep, × its {base:,}-step time": (
                f"{deep / per_epoch.loc[base, 'ssm']:.1f}" if pd.notna(deep) else "—"),
            f"L log L, × {base:,}": f"{nlogn:.1f}",
            "deep peak memory": (f"{peak.loc[length, 'ssm'] / GIB:.2f} GiB"
                                 if pd.notna(peak.loc[length].get("ssm")) else "—"),
            "InceptionTime peak memory": (f"{peak.loc[length, 'inceptiontime'] / GIB:.2f} GiB"
                                          if pd.notna(peak.loc[length].get("inceptiontime"))
                                          else "—"),
        })
    n_train = int(scaling["n_train"].iloc[0])
    epochs = _scaling_epochs()
    once = _scaling_once()
    if once is None:
        how = (f"{epochs[0]} epochs on {n_train} series of the formants task at the default "
               "batch size (16; InceptionTime's own, 64), one thread, time per epoch and the "
               "process's peak memory:")
        after = ""
    else:
        how = (f"fits of {epochs[0]} and of {epochs[-1]} epochs on {n_train} series of the "
               "formants task at the default batch size (16; InceptionTime's own, 64), one "
               "thread, each in a process of its own; an epoch's seconds are the slope "
               "between the two budgets, and the peak memory the higher of the two fits':")
        after = (
            f"\nWhat a fit pays once, whatever its epochs (TDI, building the network, "
            f"compiling; the {epochs[0]}-epoch fit at {int(scaling['length'].min()):,} steps "
            f"less its epochs): {once['ssm']:.1f} s for the deep model, "
            f"{once['inceptiontime']:.1f} s for InceptionTime.\n"
        )
    return (
        "Fit seconds of the study's cells (one thread each; mean over tasks and seeds) and the "
        "deep model's peak resident memory (the whole process, interpreter and torch "
        "included), on the code of the study's run: before the recomputed block outputs and "
        "the release of freed memory below, which the scaling run and the memory runs "
        "measure:\n\n"
        + _md_table(pd.DataFrame(rows), ["r"] + ["r"] * (len(rows[0]) - 1))
        + f"\n\nHow a fit's cost grows with the length: {how}\n\n"
        + _md_table(pd.DataFrame(srows), ["r"] * len(srows[0]))
        + "\n" + after
    )


def _shipped_long_fit() -> tuple[float, int]:
    """The longest fits measured on today's code, the release runs' shipped arm: the highest
    peak of the runs (MiB) and the epochs of the longest fit."""
    runs = (LONG_MEMORY_RELEASE, LONG_MEMORY_RELEASE_40)
    peak = max(_memory(path)["shipped"].max() for path in runs)
    return float(peak), int(max(_memory(path).index.max() for path in runs))


def _fit_time_measured(study_ratio: float, epoch_ratio: pd.Series) -> str:
    """The fit-time target's measured cell: the study's fits, and the scaling run's epochs
    (deep / InceptionTime by length, ``epoch_ratio``) and, where it ran two budgets, its
    longest fits."""
    epochs = _scaling_epochs()
    scaling_ratio = epoch_ratio.max()
    study = f"at most {study_ratio:.2f}× in the study (lengths both ran; earlier code)"
    if len(epochs) < 2:
        return (f"{study}; at most {scaling_ratio:.2f}× in the scaling run ({epochs[0]} "
                "epochs, before the recomputed block outputs and grouped transforms, whose cost "
                "per step `benchmarks/long_series/bench_recompute.py` measures)")
    fits = _scaling().pivot_table(index=["length", "epochs"], columns="model",
                                  values="fit_seconds")
    longest = fits.xs(epochs[-1], level="epochs")
    fit_ratio = longest["ssm"] / longest["inceptiontime"]
    worst = fit_ratio.idxmax()
    return (f"{study}; today's code, the scaling run: an epoch at most {scaling_ratio:.2f}× "
            f"(at {epoch_ratio.idxmax():,} steps), "
            f"{epochs[-1]}-epoch fits at most {fit_ratio.max():.2f}× (at {worst:,} steps)")


@region("long-series-targets")
def long_series_targets() -> str:
    s = _summary()
    mr, it = s["mr"], s["it"]
    seconds = _fit_seconds()
    both = seconds[["ssm", "inceptiontime"]].dropna()
    ratio = (both["ssm"] / both["inceptiontime"]).max()
    per_epoch = _scaling_per_epoch()
    deep = per_epoch["ssm"]
    epoch_ratio = deep / per_epoch["inceptiontime"]  # by length
    scaling_ratio = epoch_ratio.max()
    lo, hi = deep.index.min(), deep.index.max()
    growth = deep[hi] / deep[lo]
    nlogn = hi * math.log(hi) / (lo * math.log(lo))
    long_peak, long_epochs = _shipped_long_fit()
    memory_length = int(_csv(LONG_MEMORY)["length"].iloc[0])

    def status(ok: bool) -> str:
        return "met" if ok else "**missed**"

    rows = [
        ("deep ≥ MiniRocket + 10 points on the mean of the tasks", f"{_pts(mr.mean())}",
         status(mr.mean() >= 10)),
        ("never behind MiniRocket on one task × length", f"worst {_pts(mr.min())}",
         status(mr.min() >= 0)),
        ("deep ≥ InceptionTime (same epochs) on the mean", f"{_pts(it.mean())}",
         status(it.mean() >= 0)),
        ("never behind InceptionTime on one", f"worst {_pts(it.min())}", status(it.min() >= 0)),
        ("fit time ≤ 0.5× InceptionTime's", _fit_time_measured(ratio, epoch_ratio),
         status(max(ratio, scaling_ratio) <= 0.5)),
        (f"fit time grows no faster than L log L ({lo:,} to {hi:,} steps)",
         f"×{growth:.1f} against L log L's ×{nlogn:.1f}", status(growth <= nlogn)),
        (f"peak memory at {memory_length:,} steps < 4 GiB at the default batch size",
         f"{long_peak / GIB:.2f} GiB, the highest of {long_epochs}-epoch fits of "
         f"{int(_csv(LONG_MEMORY_RELEASE)['n_train'].iloc[0])} and "
         f"{int(_csv(LONG_MEMORY_RELEASE_40)['n_train'].iloc[0])} series (the study's own "
         "fits ran on earlier code)",
         status(long_peak < 4 * GIB)),
    ]
    table = pd.DataFrame(rows, columns=["target", "measured", "status"])
    return _md_table(table, ["l", "r", "l"]) + "\n"


def _many_clause() -> str:
    """The decision row's words on 20 series per class ('' before that run)."""
    if not LONG_SERIES_MANY.exists():
        return ""
    many = _csv(LONG_SERIES_MANY)
    means = _accuracy(many).mean()
    if not {"ssm", "minirocket"} <= set(means.index):
        return ""
    return (f"with {int(many['n_train'].iloc[0]) // N_CLASSES} series per class at "
            f"{int(many['length'].iloc[0]):,} steps SSMClassifier {_f(means['ssm'])}, "
            f"MiniRocket {_f(means['minirocket'])}; ")


def _plaid_clause() -> str:
    """The decision row's words on PLAID, the shipped set of unequal lengths ('' before that
    run)."""
    if not LONG_SERIES_PLAID.exists():
        return ""
    ok = _plaid_cells()[0]["accuracy"]
    if not {"tdi", "minirocket", "tdi+ridge"} <= set(ok.index):
        return ""
    return (f"but on PLAID (raw recordings of unequal lengths up to about a thousand steps) "
            f"SSMClassifier {_f(ok['tdi'])} against MiniRocket's {_f(ok['minirocket'])} and "
            f"the fast path's {_f(ok['tdi+ridge'])}: use the fast path or MiniRocket there, or "
            "`input_scaling=\"series\"` (the raw-data row below); ")


@region("long-series-length")
def long_series_length() -> str:
    s = _summary()
    lengths = s["table"].index.get_level_values("length")
    return (
        f"On long audio-like series ({lengths.min():,} to {lengths.max():,} steps, 4 "
        f"series per class; [Study: long series](long_series.md)) the deep model is {_pts(s['mr'].mean())} "
        f"points from MiniRocket and {_pts(s['fp'].mean())} from the fast path on the mean "
        f"(worst task and length {_pts(s['mr'].min())} from MiniRocket): its S4D layers carry "
        "the long range at a cost that grows as L log L, while MiniRocket's and the fast path's "
        "pooled features summarize the whole series at once.\n"
    )


@region("long-series-init")
def long_series_init() -> str:
    """TDI against S4D-Lin and its placebo on the long tasks: paired seeds, one run, with
    what TDI did in each draw."""
    results = _csv(LONG_SERIES_INIT)
    wide = results.pivot_table(index=["length", "task", "seed"], columns="model",
                               values="accuracy")
    tdi = results[results["model"] == "ssm-tdi"].set_index(["length", "task", "seed"])
    gaps = {"TDI − S4D-Lin": 100 * (wide["ssm-tdi"] - wide["ssm-s4d-lin"]),
            "placebo − S4D-Lin": 100 * (wide["ssm-tdi-control"] - wide["ssm-s4d-lin"])}
    rows = []
    for (length, task), cell in wide.groupby(level=["length", "task"]):
        done = tdi.loc[cell.index]
        aligned = done["n_aligned_channels"]
        row = {"length": f"{length:,}", "task": task,
               "TDI (the default)": _f(cell["ssm-tdi"].mean()),
               "S4D-Lin": _f(cell["ssm-s4d-lin"].mean())}
        for name, gap in gaps.items():
            row[name] = _mean_se(gap.loc[cell.index])
        row["draws TDI aligned in"] = f"{int((aligned > 0).sum())} of {len(done)}"
        row["channels aligned, most"] = str(int(aligned.max()))
        row["reliability, median"] = f"{done['reliability'].median():.2f}"
        rows.append(row)
    aligned = tdi.loc[wide.index, "n_aligned_channels"]
    rows.append({"length": "", "task": "**mean**", "TDI (the default)": "", "S4D-Lin": "",
                 **{name: _mean_se(gap) for name, gap in gaps.items()},
                 "draws TDI aligned in": f"{int((aligned > 0).sum())} of {len(aligned)}",
                 "channels aligned, most": "", "reliability, median": ""})
    epochs = int(results["epochs"].iloc[0])
    seeds = ", ".join(map(str, sorted(results["seed"].unique())))
    return (
        f"Test accuracy, {epochs} epochs, seeds {seeds} (every arm of a seed in this run); gaps "
        "in points, mean ± standard error over the seeds (their number in brackets); what TDI "
        "did: the draws in which it aligned any channel of the first block's S4D layer, the "
        "most it aligned, and the statistic's split-half reliability, which sets the share:"
        "\n\n"
        + _md_table(pd.DataFrame(rows), ["r", "l", "r", "r", "r", "r", "r", "r", "r"]) + "\n"
    )
