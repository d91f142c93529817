"""The generated regions of ``docs/streaming.md``, from the committed results they cite."""

from __future__ import annotations

import json

import pandas as pd

from ..shared.regions import region
from ..shared.tables import DATASET_SHORT, _f, _md_table
from .page import STREAM_BENCH, _early, _early_table

EARLY_MODELS = {
    "ssm-early": "sktdi early classifier",
    "teaser": "TEASER (WEASEL/MUSE)",
    "threshold-cif": "probability threshold, CIF",
    "threshold-tsf": "probability threshold, TSF",
}


def _early_datasets(frame: pd.DataFrame) -> list[str]:
    order = ["GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "BasicMotions", "pixel-digits"]
    return [d for d in order if d in set(frame["dataset"])]


@region("early-results")
def early_results() -> str:
    """Per dataset: harmonic mean (accuracy, earliness) of each model; then fit seconds."""
    frame = _early()
    hm, acc, early = (_early_table(frame, v) for v in ("hm", "accuracy", "earliness"))
    rows = []
    for dataset in _early_datasets(frame):
        row = {"dataset": DATASET_SHORT.get(dataset, dataset)}
        for model, label in EARLY_MODELS.items():
            if model in hm.columns and pd.notna(hm[model].get(dataset, float("nan"))):
                row[label] = (f"{_f(hm.at[dataset, model])} ({_f(acc.at[dataset, model], 2)} / "
                              f"{_f(early.at[dataset, model], 2)})")
            else:
                status = frame.loc[(frame.dataset == dataset) & (frame.model == model), "status"]
                row[label] = {"error": "failed", "timeout": "over time"}.get(
                    status.iloc[0] if len(status) else "", "not run"
                )
        rows.append(row)
    mean = {"dataset": "**mean**"}
    for model, label in EARLY_MODELS.items():
        values = hm[model].dropna() if model in hm.columns else pd.Series(dtype=float)
        n = len(values)
        mean[label] = f"{_f(values.mean())} ({n} datasets)" if n else "—"
    rows.append(mean)
    table = _md_table(pd.DataFrame(rows), ["l"] + ["r"] * len(EARLY_MODELS))
    seconds = _early_table(frame, "fit_seconds")
    fit_rows = []
    for dataset in _early_datasets(frame):
        row = {"dataset": DATASET_SHORT.get(dataset, dataset)}
        for model, label in EARLY_MODELS.items():
            value = seconds.get(model, pd.Series(dtype=float)).get(dataset, float("nan"))
            row[label] = "—" if pd.isna(value) else f"{value:.1f}"
        fit_rows.append(row)
    fit_table = _md_table(pd.DataFrame(fit_rows), ["l"] + ["r"] * len(EARLY_MODELS))
    full = _early_table(frame, "full_accuracy")
    both = full[["ssm-early", "ssm-whole"]].dropna()
    lin = hm[["ssm-early", "ssm-early-lin"]].dropna()
    lin_early = early[["ssm-early", "ssm-early-lin"]].dropna()
    config = frame.loc[frame["model"] == "ssm-early", ["dataset", "config"]]
    budgets = [f"{DATASET_SHORT.get(d, d)} {json.loads(c)['max_epochs']} epochs"
               for d, c in config.itertuples(index=False) if isinstance(c, str) and "max_epochs" in c]
    return (
        "Harmonic mean of accuracy and 1 − earliness on each official test split, with "
        "(accuracy / earliness); higher is better, and earliness is the share of the series "
        "read before deciding. One run, on a 2-core CPU, two models at a time with one "
        "thread each:\n\n" + table + "\n\nFit seconds (one thread):\n\n" + fit_table
        + "\n\n"
        f"Training for prefixes cost full-length accuracy: {_f(both['ssm-early'].mean())} with "
        f"`prefix_weight`, {_f(both['ssm-whole'].mean())} without (mean over "
        f"{len(both)} datasets, every series read to its end). With TDI's initialization the "
        f"early classifier decided after {_f(lin_early['ssm-early'].mean(), 2)} of the series "
        f"on average, with S4D-Lin's after {_f(lin_early['ssm-early-lin'].mean(), 2)} "
        f"(harmonic mean {_f(lin['ssm-early'].mean())} against "
        f"{_f(lin['ssm-early-lin'].mean())}, {len(lin)} datasets)."
        + (f" Shorter budgets where 100 epochs did not fit the run: {', '.join(budgets)}."
           if budgets else "")
        + "\n"
    )


@region("stream-speed")
def stream_speed() -> str:
    """bench_stream.py: a stream's samples per second against the alternatives."""
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    rows = []
    mode = runs["mode"] if "mode" in runs else pd.Series("convolution", index=runs.index)
    for network, label in (("conv-s4d", 'the classifier\'s default (`network="conv-s4d"`)'),
                           ("s4d", '`network="s4d"`, the classifier\'s 6 layers'),
                           ("conv-s4d float32",
                            '`network="conv-s4d"`, `inference_dtype="float32"`'),
                           ("s4d float32", '`network="s4d"`, `inference_dtype="float32"`')):
        mine = runs[runs["model"] == network]
        if not len(mine):
            continue
        one = mine[(mine["n_streams"] == 1) & (mine["chunk"] == 1)]["samples_per_s"].iloc[0]
        many = mine[(mine["n_streams"] == 1000) & (mode[mine.index] != "step")]
        stepped = mine[(mine["n_streams"] == 1000) & (mode[mine.index] == "step")]

        def measured(column):
            values = mine[column].dropna() if column in mine else pd.Series(dtype=float)
            return f"{values.iloc[0]:,.0f}" if len(values) else "—"

        rows.append({
            "network": label,
            "one stream, sample by sample": f"{one:,.0f}",
            "the same through torch's step": measured("torch_step_samples_per_s"),
            "1000 streams, chunks of 100": f"{many['samples_per_s'].iloc[0]:,.0f}",
            "the same through the step": (
                f"{stepped['samples_per_s'].iloc[0]:,.0f}" if len(stepped) else "—"
            ),
            "one pass over whole series": measured("over_time_samples_per_s"),
            "re-run on every prefix": measured("every_prefix_samples_per_s"),
        })
    rocket = runs[runs["model"] == "minirocket"]["every_prefix_samples_per_s"].iloc[0]
    rows.append({"network": "MiniRocket", "one stream, sample by sample": "—",
                 "the same through torch's step": "—",
                 "1000 streams, chunks of 100": "—", "the same through the step": "—",
                 "one pass over whole series": "—",
                 "re-run on every prefix": f"{rocket:,.0f}"})
    table = _md_table(pd.DataFrame(rows), ["l", "r", "r", "r", "r", "r", "r"])
    default = runs[runs["model"] == "conv-s4d"]
    weights = int(default["weights_per_sample"].dropna().iloc[0])
    long = runs[runs["model"] == "s4d-small"]
    memory = long["rss_mib_each_tenth"].iloc[0]
    return (
        "Samples per second on one CPU thread (`benchmarks/early_study/bench_stream.py`). A stream runs "
        "the compiled step on single samples and the convolution mode, with its state "
        "carried, on chunks; \"the same through the step\" feeds the chunks sample by sample "
        "through the compiled step, as chunks ran before. \"Through torch's step\" is the "
        "network's own `step`, one call per sample. \"One pass over whole series\" is "
        "`predict_proba_over_time` on 1000 series of 200 steps: every step's prediction "
        "from torch's convolution mode. \"Re-run on every prefix\" is what a model without a "
        "recurrent mode must do for a prediction after every sample of a 200-step series. "
        "The default precision is float64 (a series' prediction does not depend on the "
        "others in its batch); float32 rounds in the last bits and halves the bytes each "
        "product moves, except in one stream of the default network, whose float64 step "
        "already reads its float32-valued weights as float32: there the two precisions "
        "step at about the same rate.\n\n" + table + "\n\n"
        f"The default network multiplies about {weights:,} weights per sample, which bounds "
        "its throughput on one thread whatever the mode. A stream's memory does not grow: "
        f"over {int(long['steps_per_stream'].iloc[0]):,} samples of one stream, resident memory "
        f"went from {memory[0]:.1f} to {memory[-1]:.1f} MiB.\n"
    )
