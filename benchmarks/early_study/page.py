"""The generated regions of ``docs/early_study.md``, from the committed results they cite."""

from __future__ import annotations

import json

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import DATASET_SHORT, _f, _md_table, _pts

RESULTS = results_dir("early_study")  # this study's committed results


# ---- streaming and early classification (docs/streaming.md, docs/early_study.md) -------
EARLY_RESULTS = RESULTS / "early_classification.csv"
STREAM_BENCH = RESULTS / "stream_bench.json"


def _early() -> pd.DataFrame:
    return _csv(EARLY_RESULTS)


def _early_table(frame: pd.DataFrame, value: str) -> pd.DataFrame:
    """dataset × model of ``value``, NaN where a model failed or did not run."""
    ok = frame[frame["status"] == "ok"]
    return ok.pivot_table(index="dataset", columns="model", values=value)

EARLY_DEFAULTS = RESULTS / "early_defaults.csv"


# sktime's two early classifiers with their default base classifiers: the target's bar
EARLY_DEFAULT_PEERS = ("teaser", "threshold-cif")


@region("early-targets")
def early_targets() -> str:
    frame = _early()
    hm = _early_table(frame, "hm")
    seconds = _early_table(frame, "fit_seconds")
    full = _early_table(frame, "full_accuracy")
    lines = []
    peers = [m for m in EARLY_DEFAULT_PEERS if m in hm.columns]
    better = hm[peers].max(axis=1).dropna()  # per dataset, the better of those that ran
    if len(better):
        ours = hm.loc[better.index, "ssm-early"]
        verdict = "met" if ours.mean() >= better.mean() else "missed"
        lines.append(
            f"- Harmonic mean ≥ the better of sktime's TEASER and probability-threshold "
            f"classifier with their default base classifiers (per dataset, the better of those "
            f"that ran), on the mean over the {len(better)} datasets where one ran: "
            f"{_f(ours.mean())} against {_f(better.mean())}: **{verdict}**."
        )
    tsf = hm[["ssm-early", "threshold-tsf"]].dropna() if "threshold-tsf" in hm.columns else None
    if tsf is not None and len(tsf):
        lines.append(
            f"- Against the strongest configuration found, the probability threshold with a "
            f"time series forest ({len(tsf)} datasets): {_f(tsf['ssm-early'].mean())} against "
            f"{_f(tsf['threshold-tsf'].mean())}."
        )
    both = full[["ssm-early", "ssm-whole"]].dropna()
    cost = both["ssm-early"].mean() - both["ssm-whole"].mean()
    lines.append(
        f"- Full-length accuracy with prefix training ≥ without it − 1 point, on the mean: "
        f"{f'{100 * cost:+.2f}'.replace('-', '−')} points ({len(both)} datasets): **{'met' if cost >= -0.01 else 'missed'}**."
    )
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    default = runs[runs["model"] == "conv-s4d"]
    one = default[(default["n_streams"] == 1) & (default["chunk"] == 1)]["samples_per_s"].iloc[0]
    many = default[default["n_streams"] == 1000]["samples_per_s"].iloc[0]
    lines.append(
        f"- Stream throughput, default network, one thread: one stream {one:,.0f} samples/s "
        f"(target 10,000: **{'met' if one >= 1e4 else 'missed'}**); 1000 streams in chunks of "
        f"100, {many:,.0f} samples/s in aggregate (target 1,000,000: "
        f"**{'met' if many >= 1e6 else 'missed'}**)."
    )
    long = runs[runs["model"] == "s4d-small"]
    if len(long):
        memory = long["rss_mib_each_tenth"].iloc[0]
        lines.append(
            f"- Memory constant in the stream's length, at {int(long['steps_per_stream'].iloc[0]):,} "
            f"steps: resident memory {memory[0]:.1f} MiB after the first tenth, "
            f"{memory[-1]:.1f} MiB at the end (a small network; the state is the same few "
            f"tensors whatever the width): **{'met' if memory[-1] - memory[0] < 1 else 'missed'}**."
        )
    fit_peers = [m for m in EARLY_DEFAULT_PEERS if m in seconds.columns]
    fits = seconds[["ssm-early", *fit_peers]].dropna(subset=["ssm-early"])
    faster = fits[fit_peers].min(axis=1)
    met = (fits["ssm-early"] <= faster).sum()
    each = [
        f"{DATASET_SHORT.get(d, d)} {fits.at[d, 'ssm-early']:.0f} s against {faster[d]:.0f} s"
        for d in faster.dropna().index
    ]
    lines.append(
        f"- Fit time ≤ the faster of the two sktime early classifiers (where either ran): "
        f"met on {met} of {faster.notna().sum()} datasets ({'; '.join(each)})."
    )
    return "\n".join(lines) + "\n"


@region("stream-targets")
def stream_targets() -> str:
    """bench_stream.py against the compiled step's targets (issue 38)."""
    runs = pd.DataFrame(json.loads(STREAM_BENCH.read_text())["runs"])
    rows = []
    for network, key, goal, what in (
        ("conv-s4d", (1, 1), 8000, "one stream of the default network"),
        ("s4d", (1, 1), 30000, 'one stream of `network="s4d"` (the classifier\'s 6 layers)'),
        ("conv-s4d", (1000, 100), 50000, "1000 streams of the default network in chunks of 100"),
    ):
        def rate(model):
            shipped = runs["mode"].fillna("convolution") != "step" if "mode" in runs else True
            chosen = runs[(runs["model"] == model) & (runs["n_streams"] == key[0])
                          & (runs["chunk"] == key[1]) & shipped]["samples_per_s"]
            return chosen.iloc[0] if len(chosen) else None

        mine, single = rate(network), rate(f"{network} float32")
        bound = (runs[runs["model"] == network]["read_bound_samples_per_s"].dropna()
                 if "read_bound_samples_per_s" in runs else pd.Series(dtype=float))
        rows.append({"target (samples per second, one thread)": f"{what} ≥ {goal:,}",
                     "measured": f"{mine:,.0f}",
                     "with `inference_dtype=\"float32\"`": (
                         "—" if single is None else f"{single:,.0f}"
                     ),
                     "reading the step's arrays once per sample, nothing computed": (
                         f"{bound.iloc[0]:,.0f}" if key == (1, 1) and len(bound) else "—"
                     ),
                     "status": "met" if mine >= goal else "**missed**"})
    table = _md_table(pd.DataFrame(rows), ["l", "r", "r", "r", "l"]) + "\n"
    if "read_bound_samples_per_s" not in runs:
        return table
    reads = runs.set_index("model")["read_bound_samples_per_s"].dropna()
    sizes = runs.set_index("model")["read_bytes_per_sample"].dropna()
    return table + (
        "\nThe fourth column is what no step of one stream can pass on this machine: a "
        "compiled loop that only sums, once per sample, every array the step reads (its "
        "weights, each in the precision the step reads it, and a stream's state: "
        f"{sizes['s4d'] / 2**20:.1f} MiB for `network=\"s4d\"` in float64, "
        f"{sizes['s4d float32'] / 2**20:.1f} MiB in float32; the default network's "
        f"{sizes['conv-s4d'] / 2**20:.1f} MiB in float64, whose step reads its weights as "
        "float32 where they hold float32 values, as a model trained in float32 does, and "
        "counts the zero taps it skips; this core has 1 MiB of L2). "
        "`network=\"s4d\"`'s target is "
        f"{30000 / reads['s4d']:.0%} of that bound in float64 and "
        f"{30000 / reads['s4d float32']:.0%} of it in float32: a step that also computes "
        "cannot reach it in the default precision.\n"
    )


@region("early-defaults")
def early_defaults() -> str:
    """choose_early_defaults.py: per weighting, its best rule, and the choice."""
    from .choose_early_defaults import choose

    results = _csv(EARLY_DEFAULTS).copy()
    results["steps"] = results["steps"].fillna("uniform")
    keys = ["steps", "prefix_weight", "threshold", "consecutive"]
    mean = (
        results.groupby([*keys, "dataset"])[["hm", "accuracy", "earliness", "full_accuracy"]]
        .mean().groupby(keys).mean()
    )
    rows = []
    order = {"uniform": 0, "ramp": 1}
    weightings = sorted(
        mean.groupby(level=["steps", "prefix_weight"]),
        key=lambda item: (item[0][1] > 0, order.get(item[0][0], 2), item[0][1]),
    )
    for (steps, weight), group in weightings:
        best = group["hm"].idxmax()
        rows.append({
            "prefix loss": "none" if weight == 0 else f"{steps}, weight {weight:g}",
            "best rule": f"threshold {best[2]:g}, {best[3]} step{'s' if best[3] > 1 else ''}",
            "harmonic mean": _f(group.loc[best, "hm"]),
            "accuracy": _f(group.loc[best, "accuracy"]),
            "earliness": _f(group.loc[best, "earliness"]),
            "full-length accuracy": _f(group.loc[best, "full_accuracy"]),
        })
    table = _md_table(pd.DataFrame(rows), ["l", "l", "r", "r", "r", "r"])
    chosen = choose(results)
    base = mean.xs(("uniform", 0.0), level=["steps", "prefix_weight"])["full_accuracy"].max()
    datasets = ", ".join(sorted(results["dataset"].unique()))
    return (
        f"3-fold cross-validation inside the official training splits of {datasets}; the "
        "default `SSMClassifier` with each prefix loss, every decision rule applied to its "
        "probabilities over time on the held-out fold; means over the datasets. \"uniform\" "
        "weighs every step the same, \"ramp\" step t in proportion to t:\n\n" + table + "\n\n"
        f"Chosen: the {chosen['steps']} prefix loss with weight {chosen['prefix_weight']:g}, "
        f"threshold {chosen['threshold']:g} held for {int(chosen['consecutive'])} "
        f"step{'s' if chosen['consecutive'] > 1 else ''}: harmonic mean {_f(chosen['hm'])}, "
        f"full-length accuracy {_f(chosen['full_accuracy'])} against {_f(base)} without the "
        f"prefix loss ({_pts(100 * (chosen['full_accuracy'] - base))} points).\n"
    )
