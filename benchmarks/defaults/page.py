"""The generated regions of ``docs/defaults.md``, from the committed results they cite."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _cv_round, _f, _md_table, _pts

RESULTS = results_dir("defaults")  # this study's committed results


# --------------------------------------------------------------------------------------
# SSMClassifier's defaults (benchmarks/defaults/choose_defaults.py; docs/estimators.md, docs/study.md)

DEFAULTS_LABELS = {
    "lin": "S4D-Lin",
    "tdi-first-layer": "TDI, first layer only",
    "lr1e-2": "lr 1e-2",
    "base": "initial defaults",
    "spread0.5": "tdi.spread 0.5",
    "wide-1-layer": "1 layer, d_model 128",
    "epochs50": "50 epochs",
    "dropout0.2": "dropout 0.2",
    "first-epochs200": "TDI first layer, 200 epochs",
    "lin-lr1e-2": "S4D-Lin, lr 1e-2",
    "first-lr1e-2": "**TDI first layer, lr 1e-2** (chosen)",
    "first-spread0.5": "TDI first layer, spread 0.5",
    "first-batch32": "TDI first layer, batch 32",
    "small-steps300": "at least 300 optimizer steps",
    "small-wd0.1": "weight decay 0.1",
    "small-dropout0.3": "dropout 0.3",
    "small-base": "**current defaults**",
    "small-dropout0": "dropout 0",
    "small-1-layer": "1 layer",
    "small-lin": "S4D-Lin",
    "small-norel": "TDI without reliability shrinkage",
    "small-lr3e-3": "lr 3e-3",
}

def _mean_acc(path: Path, config: str) -> float:
    results = _csv(path)
    return results[results["config"] == config].groupby("dataset")["accuracy"].mean().mean()


@region("defaults-round1")
def defaults_round1() -> str:
    table = _cv_round(RESULTS / "defaults_study_round1.csv", labels=DEFAULTS_LABELS)
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1))


@region("defaults-round2")
def defaults_round2() -> str:
    table = _cv_round(RESULTS / "defaults_study_round2.csv", labels=DEFAULTS_LABELS)
    r1, r2 = RESULTS / "defaults_study_round1.csv", RESULTS / "defaults_study_round2.csv"
    tdi_gain = 100 * (_mean_acc(r2, "first-lr1e-2") - _mean_acc(r2, "tdi-first-layer"))
    lin_gain = 100 * (_mean_acc(r2, "lin-lr1e-2") - _mean_acc(r1, "lin"))
    return _md_table(table, ["l"] + ["r"] * (table.shape[1] - 1)) + (
        f"\nlr 1e-2 against lr 3e-3, mean CV accuracy: TDI on the first layer {_pts(tdi_gain)} "
        f"points, S4D-Lin {_pts(lin_gain)} points (S4D-Lin at lr 3e-3 from round 1). "
        f"Chosen TDI {_f(_mean_acc(r2, 'first-lr1e-2'))} vs S4D-Lin at lr 1e-2 "
        f"{_f(_mean_acc(r2, 'lin-lr1e-2'))}.\n"
    )


def _small_round() -> tuple[pd.DataFrame, pd.DataFrame]:
    results = _csv(RESULTS / "defaults_study_round3.csv")
    acc = results.pivot_table(
        index="config", columns=["dataset", "ratio"], values="accuracy", aggfunc="mean"
    )
    by_ratio = acc.T.groupby(level="ratio").mean().T  # mean over datasets per ratio
    return acc, by_ratio


@region("defaults-round3")
def defaults_round3() -> str:
    results = _csv(RESULTS / "defaults_study_round3.csv")
    acc, by_ratio = _small_round()
    rank = acc.rank(ascending=False).mean(axis=1)
    out = pd.DataFrame(index=acc.index)
    for ratio in by_ratio.columns:
        out[f"{ratio:g}"] = by_ratio[ratio].map(_f)
    out["avg rank"] = rank.map(lambda v: _f(v, 2))
    out["fit s"] = results.groupby("config")["fit_seconds"].mean().map(lambda v: _f(v, 1))
    out = out.loc[rank.sort_values(kind="stable").index]
    out.insert(0, "config", [DEFAULTS_LABELS.get(c, c) for c in out.index])
    return _md_table(out.reset_index(drop=True), ["l"] + ["r"] * (out.shape[1] - 1))


@region("defaults-round3-reading")
def defaults_round3_reading() -> str:
    acc, by_ratio = _small_round()
    ratios = list(by_ratio.columns)

    def diff(config, ref="small-base", frame=by_ratio):
        return " / ".join(_pts(100 * (frame.loc[config, r] - frame.loc[ref, r])) for r in ratios)

    planted = acc.xs("planted", axis=1, level="dataset")
    return (
        f"Against the current defaults, at ratios {' / '.join(f'{r:g}' for r in ratios)}: "
        f"aligning every channel (no reliability shrinkage) {diff('small-norel')} points; "
        f"S4D-Lin {diff('small-lin')} points on average over the six datasets, "
        f"{diff('small-lin', frame=planted)} on the planted task.\n"
    )
