"""The generated regions of ``docs/long_series.md`` on a long fit's memory: the peak by epoch,
the residual join, the recomputed block outputs and the release of freed memory, from
``benchmarks/long_series/long_series.py --memory``'s results (``long_series.py`` holds the accuracy and
cost regions)."""

from __future__ import annotations

import json

import pandas as pd

from sktdi.utils.memory import MMAP_THRESHOLD_BYTES

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _md_table

RESULTS = results_dir("long_series")  # this study's committed results


LONG_MEMORY = RESULTS / "long_series_memory.csv"
GIB = 1024  # MiB
MMAP_MIB = MMAP_THRESHOLD_BYTES // 2**20  # block outputs from this size on are recomputed
LONG_MEMORY_EVERY_BATCH = RESULTS / "long_series_memory_every_batch.csv"
LONG_MEMORY_40 = RESULTS / "long_series_memory_40.csv"
# the residual join's runs: "kept" was the code then, "torch ops" the block's ops as before
LONG_MEMORY_JOIN = RESULTS / "long_series_memory_join.csv"
LONG_MEMORY_JOIN_40 = RESULTS / "long_series_memory_join_40.csv"
# the recomputed block outputs' runs: "kept" was the code then, "outputs kept" as before
LONG_MEMORY_RECOMPUTE = RESULTS / "long_series_memory_recompute.csv"
LONG_MEMORY_RECOMPUTE_40 = RESULTS / "long_series_memory_recompute_40.csv"
LONG_MEMORY_RECOMPUTE_40_LONG = RESULTS / "long_series_memory_recompute_40_long.csv"  # kept only
RECOMPUTE_COST = RESULTS / "recompute_cost.json"  # benchmarks/long_series/bench_recompute.py
# the epoch-end release's runs: "shipped" is today's code, "kept" its freed memory never
# returned, as shipped before sktdi.deep_model.training.ReleaseFreedMemory
LONG_MEMORY_RELEASE = RESULTS / "long_series_memory_release.csv"
LONG_MEMORY_RELEASE_40 = RESULTS / "long_series_memory_release_40.csv"
# at 8,000 steps: "every epoch" releases whatever the length, "shipped" keeps (outputs kept)
LONG_MEMORY_RELEASE_8K = RESULTS / "long_series_memory_release_8k.csv"
FREED_LIMIT_BYTES = 512 * 2**20  # long_series.py's, for its released arms


def _memory(path=LONG_MEMORY) -> pd.DataFrame:
    """A long fit's running peak memory by epoch × arm (``long_series.py --memory``)."""
    return _csv(path).pivot_table(index="epoch", columns="arm", values="peak_rss_mib")


def _epoch_seconds(path) -> pd.Series:
    """Median seconds per epoch by arm of a memory run (a loaded machine slowed an epoch or
    two of some runs several-fold)."""
    return _csv(path).groupby("arm")["epoch_seconds"].median()


@region("long-series-memory")
def long_series_memory() -> str:
    runs = _csv(LONG_MEMORY)
    memory, earlier = _memory(), _memory(LONG_MEMORY_EVERY_BATCH)
    rows = [{
        "epoch": int(epoch),
        "kept": f"{memory.loc[epoch, 'kept'] / GIB:.2f} GiB",
        "released": f"{memory.loc[epoch, 'released'] / GIB:.2f} GiB",
        "every batch (earlier run)": f"{earlier.loc[epoch, 'every batch'] / GIB:.2f} GiB",
        "kept (earlier run)": f"{earlier.loc[epoch, 'kept'] / GIB:.2f} GiB",
    } for epoch in memory.index]
    length, n_train = int(runs["length"].iloc[0]), int(runs["n_train"].iloc[0])
    last = memory.index.max()
    first = last // 2  # the first epochs still grow the heap to its working set
    growth = memory.loc[last] - memory.loc[first]  # MiB, by arm
    earlier_growth = earlier.loc[last] - earlier.loc[first]
    now, then = _epoch_seconds(LONG_MEMORY), _epoch_seconds(LONG_MEMORY_EVERY_BATCH)
    limit = FREED_LIMIT_BYTES // 2**20
    return (
        f"A longer fit: {last} epochs of the default network on {n_train} series of "
        f"{length:,} steps (the formants task, batch 16), the process's running peak memory "
        "after each epoch. A batch frees its activations for the next one to reuse; beyond "
        "that the heap's freed memory can fragment and grow. These runs predate the residual "
        "join below; as shipped then (\"kept\"), a CPU fit kept its freed heap pages "
        "for the next batch (at this length it now hands them back at every epoch's end: "
        "the last section below). Two ways of handing them back were "
        f"measured: \"released\", once they exceed by {limit} MiB the most a batch of the "
        "first epoch left freed, and \"every batch\" (the form first shipped), after any "
        f"batch that left more than {limit} MiB freed, which at this length is every batch. "
        "Each run's arms ran at "
        "once, one thread each; the earlier run is a separate one:\n\n"
        + _md_table(pd.DataFrame(rows), ["r"] * 5)
        + f"\n\nFrom epoch {first} to {last} the peak grew by {growth['kept']:.0f} MiB kept "
        f"and by {abs(growth['released']):.0f} MiB released (in the earlier run: "
        f"{earlier_growth['every batch']:.0f} MiB every batch, {earlier_growth['kept']:.0f} "
        f"MiB kept). Seconds per epoch, median: {now['released']:.1f} released against "
        f"{now['kept']:.1f} kept ({now['released'] / now['kept']:.2f}×); "
        f"{then['every batch']:.1f} every batch against {then['kept']:.1f} kept "
        f"({then['every batch'] / then['kept']:.2f}×): each release makes the next batch "
        "fault its pages in again."
        + _memory_40_sentence()
        + "\n"
    )


def _memory_40_sentence() -> str:
    runs = _csv(LONG_MEMORY_40)
    peak, seconds = _memory(LONG_MEMORY_40).max(), _epoch_seconds(LONG_MEMORY_40)
    return (
        f" With {int(runs['n_train'].iloc[0])} series ({int(runs['epoch'].max())} epochs, "
        f"another run): peak {peak['released'] / GIB:.2f} GiB released against "
        f"{peak['kept'] / GIB:.2f} GiB kept, {seconds['released']:.1f} s against "
        f"{seconds['kept']:.1f} s per epoch. In these runs the two differed by less than "
        "runs of one arm do: neither release saved memory and both cost time, so neither "
        "shipped; the release that ships, at the end of an epoch, is the last section's."
    )


@region("long-series-join")
def long_series_join() -> str:
    memory, wide = _memory(LONG_MEMORY_JOIN), _memory(LONG_MEMORY_JOIN_40)
    n, wide_n = int(_csv(LONG_MEMORY_JOIN)["n_train"].iloc[0]), int(
        _csv(LONG_MEMORY_JOIN_40)["n_train"].iloc[0])
    rows = [{
        "epoch": int(epoch),
        f"{n} series, shipped": f"{memory.loc[epoch, 'kept'] / GIB:.2f} GiB",
        f"{n} series, torch's ops": f"{memory.loc[epoch, 'torch ops'] / GIB:.2f} GiB",
        f"{wide_n} series, shipped": (
            f"{wide.loc[epoch, 'kept'] / GIB:.2f} GiB" if epoch in wide.index else "—"),
        f"{wide_n} series, torch's ops": (
            f"{wide.loc[epoch, 'torch ops'] / GIB:.2f} GiB" if epoch in wide.index else "—"),
    } for epoch in memory.index]
    peak, wide_peak = memory.max(), wide.max()
    seconds, wide_seconds = _epoch_seconds(LONG_MEMORY_JOIN), _epoch_seconds(LONG_MEMORY_JOIN_40)
    saved = (peak["torch ops"] - peak["kept"], wide_peak["torch ops"] - wide_peak["kept"])
    return (
        "Each group of three blocks meets its residual shortcut (a 1×1 convolution and a "
        "BatchNorm of the group's input) in relu(block + shortcut). Torch's own ops keep "
        "three (B, C, L) float arrays of that join for the backward pass: the block's ReLU "
        "output, the shortcut's BatchNorm input and the join's output. On a CPU the network "
        "now joins in one step (`sktdi.ssm.conv_ops.residual_join`) that keeps two bool masks "
        "and the group's input, which its first block keeps anyway, and redoes the 1×1 "
        "convolution in the backward pass. Its 1×1 convolutions are one matrix product per "
        "series (torch's convolution copied its input first), and the max-pool branch's "
        "backward pass covers a few series at a time. Values and gradients are unchanged "
        "(tested against torch's in float64). The same fits as above, the shipped network "
        "against the same network with these in torch's own ops as before "
        "(`long_series.py --memory --memory-arms \"torch ops\" kept`), the two arms of a "
        "run at once, one thread each, running peak memory after each epoch:\n\n"
        + _md_table(pd.DataFrame(rows), ["r"] * 5)
        + f"\n\nPeak: {peak['kept'] / GIB:.2f} GiB shipped against "
        f"{peak['torch ops'] / GIB:.2f} GiB with torch's ops ({saved[0]:.0f} MiB less); "
        f"with {wide_n} series {wide_peak['kept'] / GIB:.2f} against "
        f"{wide_peak['torch ops'] / GIB:.2f} GiB ({saved[1]:.0f} MiB less). Seconds per "
        f"epoch, median: {seconds['kept']:.1f} shipped against {seconds['torch ops']:.1f} "
        f"({seconds['kept'] / seconds['torch ops']:.2f}×); with {wide_n} series "
        f"{wide_seconds['kept']:.1f} against {wide_seconds['torch ops']:.1f} "
        f"({wide_seconds['kept'] / wide_seconds['torch ops']:.2f}×).\n"
    )


@region("long-series-recompute")
def long_series_recompute() -> str:
    memory, wide = _memory(LONG_MEMORY_RECOMPUTE), _memory(LONG_MEMORY_RECOMPUTE_40)
    n = int(_csv(LONG_MEMORY_RECOMPUTE)["n_train"].iloc[0])
    wide_n = int(_csv(LONG_MEMORY_RECOMPUTE_40)["n_train"].iloc[0])

    def cell(table, epoch, arm):
        return f"{table.loc[epoch, arm] / GIB:.2f} GiB" if epoch in table.index else "—"

    rows = [{
        "epoch": int(epoch),
        f"{n} series, shipped": cell(memory, epoch, "kept"),
        f"{n} series, outputs kept": cell(memory, epoch, "outputs kept"),
        f"{wide_n} series, shipped": cell(wide, epoch, "kept"),
        f"{wide_n} series, outputs kept": cell(wide, epoch, "outputs kept"),
    } for epoch in memory.index]
    peak, wide_peak = memory.max(), wide.max()
    first = memory.iloc[0]
    seconds = _epoch_seconds(LONG_MEMORY_RECOMPUTE)
    wide_seconds = _epoch_seconds(LONG_MEMORY_RECOMPUTE_40)
    long_fit = _memory(LONG_MEMORY_RECOMPUTE_40_LONG)["kept"]
    long_n = int(_csv(LONG_MEMORY_RECOMPUTE_40_LONG)["n_train"].iloc[0])
    long_epochs = int(long_fit.index.max())
    return (
        "A block without a shortcut outputs relu(BatchNorm(c)) of its branches c. That "
        "output is kept for the backward pass by the next block's 1×1 convolution and "
        "max-pool and by the ReLU, while BatchNorm keeps c itself. On a CPU in training, "
        f"where such an output is at least {MMAP_MIB} MiB (the size above which the heap "
        "hands memory back and faults it in anew at every step; 16,000 steps at batch 16 "
        "give 125 MiB), the network now keeps it as c and recomputes it where the backward "
        "pass reads it (`sktdi.ssm.conv_ops.RecomputedActivations`): one elementwise pass "
        "per block, and one such array alive at a time instead of one per block. Its memory "
        "is let go as soon as the next block has read it, within the forward pass too. "
        "Smaller outputs are kept: there recomputing cost about 5% of a step, for memory the "
        "heap serves again anyway. The S4D "
        "branch's transforms go a few series at a time (at most "
        "`sktdi.ssm.kernel.SPECTRUM_GROUP_BYTES` of spectra at once; short series in one "
        "group), and the residual join adds relu(block) to the shortcut a few series at a "
        "time. Losses, gradients and running statistics are those of the network that keeps "
        "its outputs (tested in float64). The same fits as above, shipped against the same "
        "network with the outputs kept and the batch's spectra at once, as before "
        "(`long_series.py --memory --memory-arms \"outputs kept\" kept`), the two arms of a "
        "run at once, one thread each, running peak memory after each epoch:\n\n"
        + _md_table(pd.DataFrame(rows), ["r"] * 5)
        + f"\n\nPeak: {peak['kept'] / GIB:.2f} GiB shipped against "
        f"{peak['outputs kept'] / GIB:.2f} GiB with the outputs kept "
        f"({peak['outputs kept'] - peak['kept']:.0f} MiB less; after the first epoch "
        f"{first['outputs kept'] - first['kept']:.0f} MiB less); with {wide_n} series "
        f"{wide_peak['kept'] / GIB:.2f} against {wide_peak['outputs kept'] / GIB:.2f} GiB "
        f"({wide_peak['outputs kept'] - wide_peak['kept']:.0f} MiB less). Seconds per epoch, "
        f"median: {seconds['kept']:.1f} shipped against {seconds['outputs kept']:.1f} "
        f"({seconds['kept'] / seconds['outputs kept']:.2f}×); with {wide_n} series "
        f"{wide_seconds['kept']:.1f} against {wide_seconds['outputs kept']:.1f} "
        f"({wide_seconds['kept'] / wide_seconds['outputs kept']:.2f}×). What the heap's "
        "freed memory fragments into still grew over the epochs "
        f"(by {peak['kept'] - first['kept']:.0f} MiB from the first epoch to the last of the "
        f"{n}-series fit; the next section hands it back). That network alone, before the "
        f"next section's release, {long_n} series for {long_epochs} "
        f"epochs (another run): {long_fit.iloc[0] / GIB:.2f} GiB after the first epoch, "
        f"{long_fit.max() / GIB:.2f} GiB at the most, still growing at epoch "
        f"{int(long_fit.idxmax())}.\n"
        + _recompute_cost_sentence()
    )


def _recompute_cost_sentence() -> str:
    """What recomputing and grouping cost a training step by length
    (``benchmarks/long_series/bench_recompute.py``)."""
    run = json.loads(RECOMPUTE_COST.read_text())
    parts = []
    for length, cell in run["lengths"].items():
        ratio = cell["over_neither"]
        parts.append(
            f"{int(length):,} steps: recomputed and grouped {ratio['both']:.2f}×, recomputed "
            f"only {ratio['recompute only']:.2f}×, grouped only {ratio['groups only']:.2f}×"
        )
    shortest = run["lengths"][min(run["lengths"], key=int)]["over_neither"]
    return (
        "\nOne training step (batch 16, one thread, the arms alternated in one process, "
        "`benchmarks/long_series/bench_recompute.py`, recomputation forced on at every length), against "
        "the outputs kept and the whole batch transformed at once: " + "; ".join(parts)
        + ". At the shortest length the batch's transforms fit in one group, so "
        "\"recomputed and grouped\" and \"recomputed only\" run the same code there: their "
        f"gap ({abs(shortest['both'] - shortest['recompute only']):.2f}) is a measure of "
        "this run's noise (it shared the 2-core machine with another fit). The memory runs "
        "above measure the time of whole fits.\n"
    )


@region("long-series-release")
def long_series_release() -> str:
    runs = {path: _memory(path) for path in (LONG_MEMORY_RELEASE, LONG_MEMORY_RELEASE_40)}
    n = {path: int(_csv(path)["n_train"].iloc[0]) for path in runs}

    def cell(table, epoch, arm):
        return f"{table.loc[epoch, arm] / GIB:.2f} GiB" if epoch in table.index else "—"

    epochs = sorted(set().union(*(table.index for table in runs.values())))
    rows = [{"epoch": int(epoch), **{
        f"{n[path]} series, {label}": cell(table, epoch, arm)
        for path, table in runs.items()
        for label, arm in (("shipped", "shipped"), ("never released", "kept"))
    }} for epoch in epochs]
    short = _csv(LONG_MEMORY_RELEASE_8K)
    short_length, short_n = int(short["length"].iloc[0]), int(short["n_train"].iloc[0])
    short_epochs = int(short["epoch"].max())
    short_peak = _memory(LONG_MEMORY_RELEASE_8K).max()
    short_seconds = _epoch_seconds(LONG_MEMORY_RELEASE_8K)
    parts = []
    for path, table in runs.items():
        peak, seconds = table.max(), _epoch_seconds(path)
        parts.append(
            f"{n[path]} series: peak {peak['shipped'] / GIB:.2f} GiB shipped against "
            f"{peak['kept'] / GIB:.2f} GiB never released "
            f"({peak['kept'] - peak['shipped']:.0f} MiB less), {seconds['shipped']:.1f} "
            f"against {seconds['kept']:.1f} s per epoch, median "
            f"({seconds['shipped'] / seconds['kept']:.2f}×)"
        )
    return (
        "What the heap kept was free memory, not memory in use: at the end of each batch of "
        "a 40-series fit of 16,000 steps glibc's heap held over ten times as much free as in "
        "use, in pieces below its top, where its trim threshold does not reach. The pieces "
        "grew at the epochs' ends, whose last batch is shorter than the others and lays the "
        "heap out anew. A CPU fit on series this long, where the network recomputes its "
        "block outputs, now hands the heap's free memory back to the system at the end of "
        "every epoch (`sktdi.deep_model.training.ReleaseFreedMemory`); the next batch faults "
        f"its pages in again. At {short_length:,} steps, where the outputs are kept, "
        f"releasing at every epoch's end gave a peak of {short_peak['every epoch'] / GIB:.2f} "
        f"GiB against {short_peak['shipped'] / GIB:.2f} GiB kept over {short_epochs} epochs of "
        f"{short_n} series, at {short_seconds['every epoch']:.2f} against "
        f"{short_seconds['shipped']:.2f} s per epoch, median "
        f"({short_seconds['every epoch'] / short_seconds['shipped']:.2f}×; "
        "`--memory-arms \"every epoch\" shipped --memory-length 8000`): at shorter lengths "
        "a release costs more of an epoch for less memory, and there a fit keeps its freed "
        "memory as before. Shipped against the same fit with the freed "
        "memory never "
        "returned, as before (`long_series.py --memory --memory-arms shipped kept`), the two "
        "arms of a run at once, one thread each, running peak memory after each epoch:\n\n"
        + _md_table(pd.DataFrame(rows), ["r"] * len(rows[0]))
        + "\n\n" + "; ".join(parts) + ".\n"
    )
