"""The generated region of ``docs/archive.md`` on the fast path's features (issue 77): the
field's transforms added to the fast path's features, on the choice datasets
(``results/choice.csv``), and the adopted one, as the package builds it, on the confirmation
datasets (``results/confirm.csv``)."""

from __future__ import annotations

import pandas as pd

from ..shared.paired import paired
from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _interval, _md_table

HERE = results_dir("fast_path_features")
FAST, MINIROCKET, PACKAGE = "fast-path", "minirocket-ridge", "sktdi-minirocket+quant"
LABELS = {
    "fast-path": "the fast path (bank + MiniRocket)",
    "fast-path+hydra": "+ Hydra",
    "fast-path+hydra16": "+ Hydra, a quarter of its groups (16)",
    "fast-path+multirocket": "+ MultiRocket",
    "fast-path+quant": "+ QUANT",
    PACKAGE: "+ QUANT, as sktdi builds it (`rocket='minirocket+quant'`)",
    "minirocket-ridge": "MiniRocket (transform + ridge)",
    "multirocket-hydra": "MultiRocket-Hydra (aeon's classifier)",
}
CANDIDATES = ("fast-path+hydra", "fast-path+multirocket", "fast-path+quant")
# the declared rule (candidates.py): the gain's 95% interval above zero, the median fit at most
# this many times MiniRocket's algorithm's
MAX_COST = 5.0


def _table(file: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accuracy and fit seconds, one row per dataset with every arm of the file."""
    rows = _csv(HERE / file)
    acc = rows.pivot_table(index="dataset", columns="arm", values="accuracy")
    fit = rows.pivot_table(index="dataset", columns="arm", values="fit_seconds").loc[acc.index]
    return acc, fit


def _rows(acc: pd.DataFrame, fit: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    rows, tests = [], {}
    for arm in [a for a in LABELS if a in acc]:
        test = paired((acc[arm] - acc[FAST]) * 100)  # the datasets where both arms ran
        tests[arm] = test
        rows.append({
            "arm": LABELS[arm],
            "datasets": int(acc[arm].notna().sum()),
            "mean accuracy": _f(acc[arm].mean(), 4),
            "− the fast path (points, 95%)": "" if arm == FAST else _interval(test),
            "fit ×MiniRocket (median)": f"{(fit[arm] / fit[MINIROCKET]).median():.1f}×",
        })
    return pd.DataFrame(rows), tests


@region("fast-path-features")
def fast_path_features() -> str:
    acc, fit = _table("choice.csv")
    table, tests = _rows(acc, fit)
    cost = {arm: (fit[arm] / fit[MINIROCKET]).median() for arm in CANDIDATES}
    passing = [arm for arm in CANDIDATES if tests[arm]["low"] > 0 and cost[arm] <= MAX_COST]
    best = max(passing, key=lambda arm: tests[arm]["mean"]) if passing else None
    verdict = (
        f"The rule adopts **{LABELS[best].lstrip('+ ')}**: its gain's 95% interval is above "
        f"zero, at {cost[best]:.1f}× MiniRocket's fit on the median dataset (the limit: "
        f"{MAX_COST:g}×)." if best else
        "No candidate passes the rule (its gain's 95% interval above zero, at most "
        f"{MAX_COST:g}× MiniRocket's median fit): the fast path keeps its features."
    )
    def why(arm: str) -> str:
        reasons = [f"interval {_interval(tests[arm])}"] if tests[arm]["low"] <= 0 else []
        reasons += [f"cost {cost[arm]:.1f}×"] if cost[arm] > MAX_COST else []
        return f"{LABELS[arm].lstrip('+ ')} ({', '.join(reasons)})"

    failed = [why(arm) for arm in CANDIDATES if arm not in passing]
    detectable = max(tests[arm]["mdd"] for arm in CANDIDATES)
    text = (
        f"On the {len(acc)} choice datasets (official splits; one thread, fit seconds with every "
        f"transform):\n\n{_md_table(table)}\n{verdict}"
        + (f" Not adopted: {'; '.join(failed)}." if failed else "")
        + f" With {len(acc)} datasets and one split each, these comparisons could detect a "
        f"difference of about {detectable:.1f} points or more (2.8 standard errors of the paired "
        f"differences: a test at 5% with 80% power); smaller gains, such as those measured, need "
        f"resamples of each dataset to be seen.\n"
    )
    if (HERE / "confirm.csv").exists():
        acc, fit = _table("confirm.csv")
        table, tests = _rows(acc, fit)
        text += (
            f"\nOn the {len(acc)} confirmation datasets, which no choice read, with the adopted "
            f"features as the package builds them (one scaler over every feature; QUANT of each "
            f"series' shape, as MiniRocket reads it):\n\n{_md_table(table)}"
        )
        if PACKAGE in tests:
            test = tests[PACKAGE]
            held = "holds" if test["mean"] > 0 else "does not hold"
            text += (
                f"\nThe gain {held} where no choice read the data: "
                f"{_interval(test)} points over {test['n']} datasets "
                f"(the smallest difference these could detect: {test['mdd']:.1f}).\n"
            )
    return text


def _resampled(file: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """Per dataset, each arm's mean accuracy over the resamples every arm finished, its
    median fit seconds over them, and how many resamples that is."""
    rows = _csv(HERE / file)
    acc = rows.pivot_table(index=["dataset", "resample"], columns="arm", values="accuracy")
    fit = rows.pivot_table(index=["dataset", "resample"], columns="arm", values="fit_seconds")
    acc = acc.dropna()
    fit = fit.loc[acc.index]
    resamples = acc.groupby(level="dataset").size()
    return (acc.groupby(level="dataset").mean(), fit.groupby(level="dataset").median(),
            resamples)


def _resampled_table(file: str) -> tuple[str, dict, int, pd.DataFrame]:
    """The resampled file's table, each arm's paired test against the fast path, the
    number of datasets, and their median fit seconds (rows) per arm (columns)."""
    acc, fit, resamples = _resampled(file)
    table, tests = _rows(acc, fit)
    table.insert(2, "resamples", f"{resamples.min()}–{resamples.max()}"
                 if resamples.min() < resamples.max() else f"{resamples.min()}")
    return _md_table(table), tests, len(acc), fit


def _resampled_choice(choice: str, confirm: str, candidate: str, name: str) -> str:
    """The resampled choice of ``candidate`` (the rule declared in candidates.py before its
    cells ran) on the choice datasets' file, then the confirmation datasets' file, if any."""
    table, tests, n, fit = _resampled_table(choice)
    test = tests[candidate]
    cost = (fit[candidate] / fit[MINIROCKET]).median()
    adopted = test["low"] > 0 and cost <= MAX_COST
    reasons = ([f"its gain's 95% interval, {_interval(test)}, reaches zero"]
               if test["low"] <= 0 else [])
    reasons += [f"its cost, {cost:.1f}×, is beyond {MAX_COST:g}×"] if cost > MAX_COST else []
    text = (
        f"Resampled (resamples 0 to 5: the official split and the field's stratified "
        f"reshuffles), on the {n} choice datasets; each dataset's accuracy the mean over its "
        f"resamples, its fit seconds the median:\n\n{table}\n"
        + (f"The rule adopts {name}: gain {_interval(test)} points, at {cost:.1f}× "
           f"MiniRocket's fit on the median dataset." if adopted else
           f"The rule does not adopt {name}: {' and '.join(reasons)}.")
        + f" With these resamples the comparison could detect a difference of about "
        f"{test['mdd']:.1f} points.\n"
    )
    if (HERE / confirm).exists():
        table, tests, n, _ = _resampled_table(confirm)
        confirmed = tests[candidate]
        text += f"\nOn the {n} confirmation datasets, at the same resamples:\n\n{table}\n"
        if adopted:
            held = confirmed["low"] > 0
            text += (
                f"The gain {'is confirmed' if held else 'is not confirmed'} where no choice "
                f"read the data: {_interval(confirmed)} points (its interval "
                f"{'above' if held else 'reaching'} zero).\n"
            )
        else:
            text += (
                f"Nothing was adopted, so this run decides nothing; it is the protocol check's "
                f"(MiniRocket's resamples: the archive's verdicts). The candidate's difference there: "
                f"{_interval(confirmed)} points.\n"
            )
    return text


@region("fast-path-resampled")
def fast_path_resampled() -> str:
    return _resampled_choice("choice_resamples.csv", "confirm_resamples.csv", PACKAGE,
                             "QUANT's features")


@region("fast-path-hydra")
def fast_path_hydra() -> str:
    if not (HERE / "choice_hydra.csv").exists():
        return "Not run yet.\n"
    return _resampled_choice("choice_hydra.csv", "confirm_hydra.csv", "fast-path+hydra16",
                             "Hydra with 16 groups")
