"""What every page's generator shares: the paths of the committed results, the region
registry (:func:`region`, :data:`GENERATORS`) and the Markdown helpers for tables and numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pandas as pd


ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DATA = DOCS / "data"
STUDY = DOCS / "study"
GENERATORS: dict[str, Callable[[], str]] = {}


def region(name: str):
    """Register the function that writes the region ``name``."""

    def register(func):
        GENERATORS[name] = func
        return func

    return register


@lru_cache(maxsize=None)
def _csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


def _md_table(frame: pd.DataFrame, align: list[str] | None = None) -> str:
    """A pipe table; ``align`` per column: 'l' or 'r' (default: r for numbers)."""
    columns = list(frame.columns)
    if align is None:
        align = ["r" if pd.api.types.is_numeric_dtype(frame[c]) else "l" for c in columns]
    lines = [
        "| " + " | ".join(str(c) for c in columns) + " |",
        "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |",
    ]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _f(value: float, digits: int = 3) -> str:
    return "" if pd.isna(value) else f"{value:.{digits}f}"


def _pts(value: float) -> str:
    """Accuracy difference in points, signed, one decimal (minus sign as on the pages)."""
    return f"{value:+.1f}".replace("-", "−")


# --------------------------------------------------------------------------------------
# SSMClassifier's defaults (benchmarks/choose_defaults.py; docs/estimators.md, docs/study.md)

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
DATASET_SHORT = {"ItalyPowerDemand": "ItalyPower"}


def _cv_round(
    path_or_results,
    *,
    value: str = "accuracy",
    labels: dict = DEFAULTS_LABELS,
    sort_by: str = "avg rank",
) -> pd.DataFrame:
    """A CV study's table (choose_defaults.py, choose_recipe.py): mean ``value`` per config ×
    dataset, mean, average rank, fit s; best first by ``sort_by`` ("avg rank" or "mean")."""
    results = _csv(path_or_results) if isinstance(path_or_results, Path) else path_or_results
    acc = results.pivot_table(index="config", columns="dataset", values=value, aggfunc="mean")
    out = pd.DataFrame(index=acc.index)
    for dataset in acc.columns:
        out[DATASET_SHORT.get(dataset, dataset)] = acc[dataset].map(_f)
    mean = acc.mean(axis=1)
    out["mean"] = mean.map(_f)
    rank = acc.rank(ascending=False).mean(axis=1)
    out["avg rank"] = rank.map(lambda v: _f(v, 2))
    out["fit s"] = results.groupby("config")["fit_seconds"].mean().map(lambda v: _f(v, 1))
    key = rank if sort_by == "avg rank" else -mean  # ascending: best first
    out = out.loc[key.sort_values(kind="stable").index]
    out.insert(0, "config", [labels.get(c, c) for c in out.index])
    return out.reset_index(drop=True)


def _study_rows(results: pd.DataFrame, labels: dict, name_column: str):
    """(config, row) per configuration of a training-split study: mean accuracy per protocol,
    per dataset (over protocols) and overall, and the mean fit time."""
    acc = results.pivot_table(
        index="config", columns=["protocol", "dataset"], values="accuracy", aggfunc="mean"
    )
    by_protocol = acc.T.groupby(level="protocol").mean().T
    by_dataset = acc.T.groupby(level="dataset").mean().T
    for config in results["config"].unique():
        row = {name_column: labels.get(config, config)}
        for protocol in ["cv", "ratio 0.08", "ratio 0.16"]:
            row[protocol.replace("ratio ", "")] = _f(by_protocol.loc[config, protocol])
        for dataset in sorted(by_dataset.columns):
            row[DATASET_SHORT.get(dataset, dataset)] = _f(by_dataset.loc[config, dataset])
        row["mean"] = _f(by_dataset.loc[config].mean())
        row["fit s"] = _f(results[results["config"] == config]["fit_seconds"].mean(), 2)
        yield config, row


DEEP_FIELD = DATA / "deep_field_results.csv"


def _deep_ok() -> pd.DataFrame:
    results = _csv(DEEP_FIELD)
    return results[results["status"] == "ok"]


def _deep_means() -> pd.DataFrame:
    """Mean accuracy over resamples, dataset × estimator (datasets every estimator ran)."""
    ok = _deep_ok()
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


DEEP_TIMING = DATA / "deep_timing_results.csv"


def _timing_ratio() -> pd.Series:
    """Default SSMClassifier's fit seconds ÷ InceptionTime's per dataset, idle-machine run."""
    ok = _csv(DEEP_TIMING)
    seconds = ok[ok["status"] == "ok"].pivot_table(
        index="dataset", columns="estimator", values="fit_seconds"
    )
    return seconds["tdi"] / seconds["inceptiontime"]


DEEP_FEWSHOT = DATA / "deep_fewshot_results.csv"


def _fewshot_means() -> pd.DataFrame:
    ok = _csv(DEEP_FEWSHOT)
    ok = ok[ok["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="estimator", values="accuracy").dropna()


LEARNING_CONV_S4D = DATA / "learning_curves_conv_s4d.csv"


def _mean_se(gaps: pd.Series) -> str:
    """'+1.2 ± 0.4 (n)': mean, standard error over draws, number of draws."""
    n = len(gaps)
    se = gaps.std(ddof=1) / n**0.5 if n > 1 else float("nan")
    return f"{_pts(gaps.mean())} ± {se:.1f} ({n})"


def _default_init_gaps() -> pd.DataFrame:
    """Every paired gap (points) of the default TDI (``beside``) against S4D-Lin on real
    series, deep model: the choice set's training-split cells and the test splits' cells."""
    return _deep_real_gaps("beside").rename("gap").reset_index()


# --------------------------------------------------------------------------------------
# TDI on real series (docs/tdi_real.md, issue 35): benchmarks/tdi_real.py's results

TDI_REAL_CHOICE = DATA / "tdi_real_choice.csv"
TDI_REAL_CONFIRM = DATA / "tdi_real_confirm.csv"
TDI_REAL_GROUP = ["dataset", "mode", "preset", "per_class", "budget"]
# eight paired draws of the default network's cells at 5 and 20 epochs, all arms in one run;
# declared before it ran: where it measured a cell, its draws replace the earlier runs' there
TDI_REAL_DRAWS = DATA / "tdi_real_draws.csv"


def _real_pairs(results: pd.DataFrame, arm: str, reference: str = "s4d-lin") -> pd.Series:
    """100 × (arm − reference) per paired cell (same draw, network and budget)."""
    index = TDI_REAL_GROUP + ["resample"]
    wide = results.pivot_table(index=index, columns="arm", values="accuracy")
    if arm not in wide or reference not in wide:
        return pd.Series(dtype=float)
    return (100 * (wide[arm] - wide[reference])).dropna()


def _real_test_gaps(arm: str, reference: str = "s4d-lin") -> pd.Series:
    """Every paired gap (points) of the real datasets' test splits, deep model, both sets."""
    confirm = _csv(TDI_REAL_CONFIRM)
    return _real_pairs(confirm[confirm["preset"] != "bank"], arm, reference)


def _deep_real_gaps(arm: str, reference: str = "s4d-lin") -> pd.Series:
    """Every paired gap (points) of the deep models on real series: the choice set's
    training-split cells and the test splits' cells, each cell the eight-draw run measured
    (:data:`TDI_REAL_DRAWS`) read from that run alone."""
    choice = _csv(TDI_REAL_CHOICE)
    gaps = pd.concat([
        _real_pairs(choice[choice["preset"] != "bank"], arm, reference),
        _real_test_gaps(arm, reference),
    ])
    draws = _real_pairs(_csv(TDI_REAL_DRAWS), arm, reference)
    redrawn = gaps.index.droplevel("resample").isin(draws.index.droplevel("resample"))
    return pd.concat([gaps[~redrawn], draws])


TRAINING_STEP = DATA / "training_step.json"


def _training_step() -> dict:
    import json

    return json.loads(TRAINING_STEP.read_text())


# --------------------------------------------------------------------------------------
# the kernel regime (docs/kernel_regime.md): SpectralRidgeClassifier against MiniRocket

KERNEL_REGIME = DATA / "kernel_regime" / "results.csv"


#: MiniRocket as sktime's RocketClassifier: official splits only, for its clock
KERNEL_WRAPPED = "minirocket"


def _kernel_ok(wrapped: bool = False) -> pd.DataFrame:
    """The ``ok`` cells of the run; RocketClassifier's only with ``wrapped``."""
    results = _csv(KERNEL_REGIME)
    ok = results[results["status"] == "ok"]
    return ok if wrapped else ok[ok["estimator"] != KERNEL_WRAPPED]


def _kernel_means() -> pd.DataFrame:
    """Mean accuracy over resamples: (dataset, ratio) × arm."""
    return _kernel_ok().pivot_table(
        index=["dataset", "ratio"], columns="estimator", values="accuracy", aggfunc="mean"
    )


def _kernel_seconds() -> tuple[pd.Series, pd.Series]:
    """Mean fit + predict seconds per model: over every cell, and over the official splits
    (resample 0, where RocketClassifier also ran)."""
    ok = _kernel_ok(wrapped=True).assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    official = ok[ok["resample"] == 0].groupby("estimator")["total"].mean()
    return ok.groupby("estimator")["total"].mean(), official


FAST_PATH_BENCH = DATA / "fast_path_bench.json"
FAST_PATH_REGRESSION = DATA / "fast_path_regression.csv"


def _kernel_dataset_seconds() -> pd.DataFrame:
    """Mean fit + predict seconds per dataset (rows) and arm (columns), every cell."""
    ok = _kernel_ok().assign(total=lambda f: f["fit_seconds"] + f["predict_seconds"])
    return ok.pivot_table(index="dataset", columns="estimator", values="total", aggfunc="mean")


def _bench_runs() -> pd.DataFrame:
    return pd.DataFrame(json.loads(FAST_PATH_BENCH.read_text())["runs"])


# ---- streaming and early classification (docs/streaming.md, docs/early_study.md) -------
EARLY_RESULTS = DATA / "early_classification.csv"
STREAM_BENCH = DATA / "stream_bench.json"


def _early() -> pd.DataFrame:
    return _csv(EARLY_RESULTS)


def _early_table(frame: pd.DataFrame, value: str) -> pd.DataFrame:
    """dataset × model of ``value``, NaN where a model failed or did not run."""
    ok = frame[frame["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="model", values=value)
