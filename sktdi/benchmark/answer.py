"""The summary's answer to "does TDI help?": statistics over datasets, the controls, what TDI
did per cell, ranks with critical-difference cliques, and the warnings of the run's cells.

The numbers come from :mod:`sktdi.benchmark.statistics`; this module gathers them for
:func:`~sktdi.benchmark.summarize` (:func:`dataset_statistics`, :func:`warning_table`) and
writes their sections of :func:`~sktdi.benchmark.format_summary`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..plotting import estimator_label, estimator_order
from .formatting import format_points, format_ratio, p_text, section
from .published import PUBLISHED_RATIO, beside_run
from .statistics import (
    CD_ALPHA,
    CONTROL_DATASETS,
    MIN_UNTIED,
    complete_cells,
    dataset_means,
    difference_over_datasets,
    ok_rows,
    pairwise_over_datasets,
    ranks_over_datasets,
    real_datasets,
    scopes_over_datasets,
    tie_split,
)

# the placebo arm TDI is set against: modes moved as far as TDI moves them, to random places
PLACEBO = "tdi-control"
# TDI against S4D-Lin in the fast path, where a run has those arms (the same features on an
# aligned bank and on S4D-Lin's: what the alignment adds there)
FAST_PATH_PAIRS = (
    ("tdi+ridge", "s4d-lin+ridge"), ("tdi+ridge+minirocket", "s4d-lin+ridge+minirocket"),
    ("tdi+ridge+minirocket", "tdi-control+ridge+minirocket"),
)


def dataset_statistics(
    results: pd.DataFrame, reference: str = "tdi", baseline: str = "s4d-lin"
) -> dict[str, object]:
    """The over-datasets part of :func:`summarize` (:mod:`sktdi.benchmark.statistics`).

    "ranks" ({ratio: average ranks over the real datasets}, "all" over every (dataset, ratio)),
    "pairwise" (the same keys: aeon's tests behind the critical-difference cliques),
    "tdi_help" (one row per comparison and ratio: ``reference`` − ``baseline``,
    ``reference`` − placebo and, where the run has them, the fast path's TDI − S4D-Lin
    (:data:`FAST_PATH_PAIRS`), datasets as units), "controls" (the same on each control
    dataset, its resamples as units), and "tie_split" ({(TDI arm, other arm):
    :func:`~.statistics.tie_split`}).
    """
    ok = ok_rows(results)
    out: dict[str, object] = {"ranks": {}, "pairwise": {}, "tdi_help": pd.DataFrame(),
                              "controls": pd.DataFrame(), "tie_split": {}}
    if ok.empty:
        return out
    scopes = scopes_over_datasets(ok)
    pairs = [(reference, baseline), (reference, PLACEBO), *FAST_PATH_PAIRS]
    rows = []
    for scope, table in scopes:
        out["ranks"][scope] = ranks_over_datasets(table)
        out["pairwise"][scope] = pairwise_over_datasets(table)
        for a, b in pairs:
            if a in table and b in table:
                rows.append({"scope": scope, **difference_over_datasets(table, a, b)})
    out["tdi_help"] = pd.DataFrame(rows)
    rows = []
    controls = ok[ok["dataset"].isin(CONTROL_DATASETS)]
    for (dataset, ratio), part in controls.groupby(["dataset", "ratio"]):
        cells = part.pivot_table(index="resample", columns="estimator", values="accuracy")
        for a, b in pairs:
            if a in cells and b in cells:
                rows.append({"dataset": dataset, "scope": ratio,
                             **difference_over_datasets(cells[[a, b]].dropna(), a, b)})
    out["controls"] = pd.DataFrame(rows)
    # the deep model's pairs where the run has them (the fast path's ties read the same way,
    # and four tables of them would bury the answer), else the fast path's
    has_reference = reference in set(ok["estimator"])
    for a, b in pairs:
        if has_reference and a != reference:
            continue
        split = tie_split(ok, a, b)
        if len(split):
            out["tie_split"][a, b] = split
    return out


def warning_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct warning of the run's cells: the warning, how many cells raised it,
    and those cells ("dataset ratio r resample i arm"), from the results' "warnings" column."""
    if "warnings" not in results.columns:
        return pd.DataFrame(columns=["warning", "cells", "where"])
    found: dict[str, list[str]] = {}
    for row in results.itertuples():
        text = row.warnings
        if not isinstance(text, str) or not text.strip():
            continue
        where = f"{row.dataset} ratio {format_ratio(row.ratio)} resample {int(row.resample)} {row.estimator}"
        for line in text.splitlines():
            if line.strip():
                found.setdefault(line.strip(), []).append(where)
    rows = [{"warning": w, "cells": len(c), "where": c} for w, c in found.items()]
    return pd.DataFrame(rows, columns=["warning", "cells", "where"])


def _interval(row) -> str:
    if int(row["untied"]) == 0:
        return "all tied"  # no spread to take an interval of: not a precise zero
    if not np.isfinite(row["low"]):
        return "n/a"
    return f"[{100 * row['low']:+.1f}, {100 * row['high']:+.1f}]"


def _test_note(row, unit: str) -> str:
    """The Wilcoxon p, or why there is none worth reading."""
    untied = int(row["untied"])
    if untied == 0:
        return f"every {unit} tied: no test"
    p = p_text(row["p"])
    if row["too_few"]:
        return (f"{p}, but {untied} untied {unit}{'s' if untied > 1 else ''} cannot reach "
                f"p < 0.05 (needs {MIN_UNTIED})")
    return p


def _difference_table(frame: pd.DataFrame, unit: str, index: list) -> str:
    table = pd.DataFrame({
        f"{unit}s": frame["n"].astype(int).to_numpy(),
        "mean": [format_points(v) for v in frame["mean"]],
        "95% interval": [_interval(r) for _, r in frame.iterrows()],
        "detectable": [
            "—" if int(u) == 0 else "n/a" if not np.isfinite(v) else f"±{100 * v:.1f}"
            for v, u in zip(frame["detectable"], frame["untied"])
        ],
        "ahead/behind": [f"{int(w)}/{int(l)}" for w, l in zip(frame["wins"], frame["losses"])],
        "Wilcoxon": [_test_note(r, unit) for _, r in frame.iterrows()],
    }, index=index)
    return table.to_string()


def _versus(reference: str, other: str) -> str:
    name = "placebo" if other == PLACEBO else estimator_label(other)
    return f"{estimator_label(reference)} − {name}"


def tdi_help_sections(summary: dict) -> list[str]:
    """The answer to "does TDI help?": differences over datasets, the controls, the ties."""
    parts = []
    help_ = summary.get("tdi_help")
    if help_ is not None and len(help_):
        index = [
            f"{_versus(r['a'], r['b'])}, ratio "
            + ("all" if r["scope"] == "all" else format_ratio(r["scope"]))
            for _, r in help_.iterrows()
        ]
        body = _difference_table(help_, "dataset", index)
        body += (
            "\npoints of accuracy; each dataset counts once, as the mean over its resamples; "
            "interval: 95% t-interval over datasets; detectable: the smallest true difference "
            "this run would find (paired t, α = 0.05, 80% power); ahead/behind: datasets"
            + ("; placebo: the arm tdi-control ('TDI control' in the tables), TDI's modes "
               "moved as far, to random places" if (help_["b"] == PLACEBO).any() else "")
            + ("; 'all' pools each (dataset, ratio) as one unit (not independent: the same "
               "datasets at several ratios)" if (help_["scope"] == "all").any() else "")
        )
        parts.append(section(
            "does TDI help? differences over datasets (controls apart)", body))
    controls = summary.get("controls")
    if controls is not None and len(controls):
        index = [
            f"{r['dataset']}: {_versus(r['a'], r['b'])}, ratio {format_ratio(r['scope'])}"
            for _, r in controls.iterrows()
        ]
        body = _difference_table(controls, "resample", index)
        described = "; ".join(
            f"{name}: {text}" for name, text in CONTROL_DATASETS.items()
            if name in set(controls["dataset"])
        )
        body += (
            f"\n{described}. TDI ahead of S4D-Lin here shows the run can see an effect where "
            "one exists; TDI ahead of the placebo shows it comes from the spectrum, not from "
            "moving modes anywhere"
        )
        body += "\n" + _control_verdict(controls)
        parts.append(section("positive control: a generated task with a known band "
                              "(resamples as units)", body))
    splits = summary.get("tie_split") or {}
    for (arm, other), split in splits.items():
        report = split.copy()
        report["channels"] = [
            "—" if not np.isfinite(v) else f"{v:.0f}" for v in report["channels"]
        ]
        report.index = [f"{d} {format_ratio(r)}" for d, r in report.index]
        report.index.name = "dataset ratio"
        report.columns = [
            "cells", "TDI stood down", "same accuracy", f"{estimator_label(arm)} ahead",
            f"{estimator_label(arm)} behind", "channels aligned",
        ]
        body = report.to_string() + (
            "\nTDI stood down: it aligned no channel (its statistic was too unreliable or "
            "had no significant band), so its model was the base's and tied by construction; "
            "same accuracy: TDI aligned channels and the test accuracy came out equal; "
            "channels aligned: the model's own channels (its filters, not the data's), mean "
            "over the cells where it acted, network and fast path together; each cell's "
            "reasons are in the results' tdi_action column"
        )
        parts.append(section(
            f"what {estimator_label(arm)} did, per paired cell, against "
            f"{'the placebo' if other == PLACEBO else estimator_label(other)}", body))
    return parts


def _control_verdict(controls: pd.DataFrame) -> str:
    """One line: at which ratios the positive control showed TDI's effect, and the spectrum's
    part in it (the placebo), each ratio named, favourable or not."""
    deep = controls[controls["a"] == "tdi"]
    lin, placebo = deep[deep["b"] == "s4d-lin"], deep[deep["b"] == PLACEBO]
    if lin.empty:
        return "verdict: no TDI and S4D-Lin cells on the control"

    def where(frame: pd.DataFrame, above: bool) -> str:
        chosen = frame[(frame["low"] > 0) == above]
        return ", ".join(format_ratio(r) for r in chosen["scope"])

    seen, missed = where(lin, True), where(lin, False)
    if seen:
        verdict = (f"verdict: the run saw the control's effect: TDI − S4D-Lin above zero with "
                   f"95% confidence at ratio {seen}"
                   + (f", not at ratio {missed} (its interval includes zero)" if missed else ""))
    else:
        verdict = ("verdict: not shown: no interval of TDI − S4D-Lin lies above zero; with so "
                   "few resamples this run could miss an effect of this size (more resamples "
                   "narrow it)")
    if len(placebo):
        above, not_above = where(placebo, True), where(placebo, False)
        verdict += (
            f"; TDI − placebo above zero at ratio {above}"
            + (f", not at ratio {not_above}" if not_above else "")
            if above else "; TDI − placebo not above zero at any ratio: the spectrum's part is "
            "not separated from moving modes anywhere"
        )
    return verdict


def _rank_lines(ranks: pd.Series, tests: dict, where: str, units: str) -> list[str]:
    """The average ranks of one scope, and aeon's cliques among them."""
    lines = [f"{where} ({units}): " + ", ".join(
        f"{estimator_label(name)} {rank:.2f}" for name, rank in ranks.items())]
    if not tests:
        return lines + ["  no critical-difference test (needs aeon and 2 or more datasets)"]
    if not np.isfinite(tests["friedman_p"]):  # two arms: their one test
        a, b, p = tests["pairs"][0]
        return lines + [(f"  two arms: Wilcoxon {p_text(p)} (one-sided, as aeon tests it: "
                         f"that {estimator_label(a)} is ahead of {estimator_label(b)})")]
    if tests["friedman_p"] >= CD_ALPHA:
        return lines + [(f"  Friedman {p_text(tests['friedman_p'])}: no difference among "
                         f"the arms at α = {CD_ALPHA:g}; one clique")]
    differ = [(a, b, p) for a, b, p in tests["pairs"] if p < tests["threshold"]]
    if differ:
        return lines + [f"  differ (Wilcoxon, Holm, α = {CD_ALPHA:g}): " + "; ".join(
            f"{estimator_label(a)} > {estimator_label(b)} ({p_text(p)})" for a, b, p in differ)]
    return lines + [(f"  Friedman {p_text(tests['friedman_p'])}, but no pair differs "
                     f"(Wilcoxon, Holm, α = {CD_ALPHA:g})")]


def rank_sections(summary: dict) -> list[str]:
    """Average ranks over datasets at each ratio, with the critical-difference cliques."""
    ranks = summary.get("ranks") or {}
    pairwise = summary.get("pairwise") or {}
    lines = []
    for scope, table in ranks.items():
        if not len(table):
            continue
        n = table.attrs.get("n_datasets", "?")
        where, units = (
            ("all ratios", f"{n} (dataset, ratio) units") if scope == "all"
            else (f"ratio {format_ratio(scope)}", f"{n} dataset{'' if n == 1 else 's'}")
        )
        lines += _rank_lines(table, pairwise.get(scope) or {}, where, units)
    if not lines:
        return []
    lines.append("1 = best; each dataset's mean over its resamples, the controls apart; "
                 f"cliques at α = {CD_ALPHA:g}, tsml-eval's and aeon's default for these "
                 "diagrams (the differences above use 95% intervals); sktdi benchmark draws "
                 "aeon's critical-difference diagrams as critical_difference_*.png beside this "
                 "summary, where there are 2 datasets and 3 arms or more")
    return [section("average rank over datasets, and critical-difference cliques",
                    "\n".join(lines))]


def published_statistics(results: pd.DataFrame, published: pd.DataFrame) -> dict:
    """The run beside published results (:mod:`.published`): the run's ratio-1 cells of the
    official split and its resamples, real datasets only, each dataset's mean over the
    resamples every arm finished.

    Returns {} without such cells, else "table" (datasets × the run's arms and the published
    classifiers), "pairing" and "missing" (:func:`~.published.beside_run`), "complete" (the
    datasets with every figure), "ranks" and "pairwise" over them (with the critical-difference
    cliques), and "differences" (each arm − each published classifier, datasets as units, over
    the datasets both have).
    """
    ok = real_datasets(ok_rows(results))
    ok = ok[(ok["mode"] == "resample") & np.isclose(ok["ratio"].astype(float), PUBLISHED_RATIO)]
    if ok.empty or published is None or published.empty:
        return {}
    cells = complete_cells(ok)
    if cells.empty:
        return {}
    # each dataset's mean as every other section takes it; one ratio is left, so its level goes
    means = dataset_means(ok).droplevel("ratio")
    resamples = {d: sorted(int(r) for r in part.index.get_level_values("resample"))
                 for d, part in cells.groupby(level="dataset")}
    beside = beside_run(means, resamples, published)
    table = beside["table"]
    arms = list(means.columns)
    others = [c for c in table.columns if c not in arms]
    complete = table.dropna()
    rows = [difference_over_datasets(table[[a, b]].dropna(), a, b)
            for a in arms for b in others]
    return {**beside, "arms": arms, "complete": complete,
            "ranks": ranks_over_datasets(complete), "pairwise": pairwise_over_datasets(complete),
            "differences": pd.DataFrame(rows)}


def published_sections(summary: dict) -> list[str]:
    """The run beside published results: per dataset, pairing and gaps, ranks with cliques,
    and each arm − each published classifier with 95% intervals over datasets."""
    beside = summary.get("published") or {}
    if not beside:
        note = summary.get("published_note")
        return [section("beside published results", note)] if note else []
    table, arms = beside["table"], beside["arms"]
    order = estimator_order(arms) + [c for c in table.columns if c not in arms]
    complete = beside["complete"]
    shown = table[order].copy()
    # the mean row over the datasets with every figure: the one set all columns share
    shown.loc[f"mean over the {len(complete)} with every figure"] = complete[order].mean()
    body = shown.rename(columns=estimator_label).to_string(
        float_format="{:.3f}".format, na_rep="—")
    lines = [body, "", ("the run: ratio 1 (the whole training split), each dataset's mean "
                        "over the resamples every arm finished; the published figures beside "
                        "it:")]
    lines += [f"  {name}: {how}" for name, how in beside["pairing"].items()]
    if beside["missing"]:
        gaps: dict[str, list[str]] = {}
        for classifier, dataset, what in beside["missing"]:
            gaps.setdefault(classifier, []).append(dataset + ("" if what == "dataset" else
                                                              f" ({what})"))
        lines.append("— the table has no such figure (never filled in):")
        lines += [f"  {name}: {len(d)} dataset{'s' if len(d) > 1 else ''}: {', '.join(d)}"
                  for name, d in gaps.items()]
    parts = [section(f"beside published results: {len(table)} datasets at ratio 1",
                     "\n".join(lines))]
    if len(beside["ranks"]):
        n = len(complete)
        rank_lines = _rank_lines(beside["ranks"], beside["pairwise"],
                                 "with the published", f"{n} dataset{'' if n == 1 else 's'}")
        rank_lines.append("1 = best, over the datasets with every figure; sktdi benchmark draws "
                          "the diagram as critical_difference_published.png (not with "
                          "--no-plot)")
        parts.append(section("average rank beside published results, and critical-difference "
                             "cliques", "\n".join(rank_lines)))
    differences = beside["differences"]
    if len(differences):
        index = [f"{estimator_label(r['a'])} − {r['b']}" for _, r in differences.iterrows()]
        body = _difference_table(differences, "dataset", index) + (
            "\npoints of accuracy over the datasets both have; interval: 95% t-interval over "
            "datasets; detectable: the smallest true difference this comparison would find "
            "(paired t, α = 0.05, 80% power)")
        parts.append(section("each arm − each published classifier", body))
    return parts


# warnings listed per distinct message, and cells named per warning
MAX_WARNING_CELLS = 5


def warning_sections(summary: dict) -> list[str]:
    table = summary.get("warnings")
    if table is None or not len(table):
        return []
    lines = []
    for row in table.sort_values("cells", ascending=False).itertuples():
        shown = "; ".join(row.where[:MAX_WARNING_CELLS])
        more = (f"; and {row.cells - MAX_WARNING_CELLS} more"
                if row.cells > MAX_WARNING_CELLS else "")
        lines.append(f"{row.warning}\n  {row.cells} cell{'s' if row.cells > 1 else ''}: "
                     f"{shown}{more}")
    lines.append("each cell's warnings are in the results' warnings column; an option a warning "
                 "names can be passed to an arm with --params FILE (a JSON object: arm -> "
                 "parameters)")
    return [section(f"warnings: {len(table)} distinct", "\n".join(lines))]
