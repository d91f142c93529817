"""The SSM's own ground: long series with few examples, against the field in one run.

Issue 38's long-series study. Three synthetic audio-like tasks (below), 5 classes, 4 training
series per class and 10 test series per class drawn from the same task, at lengths from 1,000
to 16,000 steps; on each, in one run and with the same seed:

- the deep model: default ``SSMClassifier`` (its ``max_epochs`` set by ``--epochs``),
- the fast path: default ``SpectralRidgeClassifier``,
- MiniRocket (sktime's ``RocketClassifier(rocket_transform="minirocket")``),
- sktime's ``InceptionTimeClassifierTorch`` at the same epochs (its own batch of 64), up to
  ``--inception-max-length`` steps (on one CPU core an InceptionTime fit at 16k steps costs
  about as much as the rest of the study),

and, named in ``--models`` only: ``s4d``, ``SSMClassifier(network="s4d")``; ``s4d-network``,
the S4D network at its tested settings (the classifier's previous default); ``fast-path-
minirocket``, ``SpectralRidgeClassifier(rocket="minirocket")``; the deep model from another
initialization (``ssm-tdi``, ``ssm-s4d-lin``, ``ssm-tdi-control``); ``ssm-network``, the
network alone (``SSMClassifier(fast_path=False)``: the default deep model before issue 70,
since which ``ssm`` also holds the fast path). ``--per-class`` sets the
training series per class (the study's 4; the test series stay 10 per class),

each fit in a fresh process with one torch thread, so that its peak resident memory
(``ru_maxrss``: the interpreter and torch included) is the fit's own.

The scaling part (``--scaling``) fits the deep model and InceptionTime on 20 series of each
length in 1k, 2k, 4k, 8k, 16k, for each of ``--scaling-epochs`` (2 and 6), and records the fit
seconds and peak memory: how the fit's cost grows with the length, at the default batch size.
An epoch's cost is the slope between the two budgets, without what a fit pays once (TDI,
building the network, compiling), which a 2-epoch fit of 20 short series is mostly made of.

The memory part (``--memory``) fits the deep model on ``--memory-per-class`` series per class
(the study's 4, 20 series) of 16,000 steps for ``--memory-epochs`` epochs, once per arm in one
run (the fits side by side, one thread each; ``--memory-length`` another length):
``shipped`` as shipped (the heap's freed memory returned at the end of every epoch on series
this long, ``sktdi.deep_model.training.ReleaseFreedMemory``), ``every epoch`` with it returned
so at any length, ``kept`` with it never returned during a fit (as shipped before
``ReleaseFreedMemory``; in the earlier results files, which have no ``shipped`` arm, ``kept``
is what was shipped), ``released`` with it returned once it grows past what the first
epoch's batches left freed, and ``every batch`` with it returned after any batch that left
more than the limit freed (the form first shipped, then dropped:
``benchmarks/long_series/results/long_series_memory_every_batch.csv`` is its run beside ``kept``), and
``torch ops`` as shipped but with the residual shortcut's join, the 1×1 convolutions and the
max-pool's gradient in torch's own ops (as before ``sktdi.ssm.conv_ops.residual_join``),
``outputs kept`` as shipped but with every block's output kept for the backward pass and the
S4D branch's spectra computed for the whole batch at once (as before
``sktdi.ssm.conv_ops.RecomputedActivations``), and records each epoch's seconds and the
process's running peak resident memory: whether a long fit's memory stays flat, what keeping
it flat costs, and what the join's saving is worth.

The tasks (a sample is one step; frequencies in cycles per step, at most 0.5):

- ``"formants"`` (vowel-like): a glottal pulse train at a random pitch, with jitter, through
  two resonators whose centre frequencies are the class's (drawn once per task); voiced for a
  random 40 to 80% of the series at a random onset, in noise. Spectral envelope information.
- ``"chirps"`` (call-like): one tone event lasting 15% of the series at a random onset, whose
  frequency track is the class's shape (rising, falling, flat, up-down, vibrato) over a band
  whose start (0.05 to 0.08) and span (0.10 to 0.14) are drawn per series, in noise. Time-frequency shape in a short event of a long series.
- ``"rhythms"`` (pulse trains): bursts of a tone at a random carrier frequency, repeated with
  the class's period (150 to 440 steps, 5% jitter) at a random phase, in noise. Information in
  a periodicity hundreds of steps long; the carrier carries none.

    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series.csv
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_arms.csv \\
        --lengths 1000 4000 --models fast-path-minirocket --seeds 1 2 3 4
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_arms.csv \\
        --lengths 1000 --models s4d s4d-network --seeds 1 2
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_many.csv \\
        --lengths 1000 --per-class 20 --models ssm fast-path minirocket --seeds 1 2
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --scaling --seeds 0 \\
        --out benchmarks/long_series/results/long_series_scaling.csv
    # the one-model study's long recordings (benchmarks/one_model): one seed per process
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/one_model/results/long_seed1.csv \\
        --lengths 1000 4000 --models ssm ssm-network minirocket --seeds 1
    # issue 76's check of the network (benchmarks/checked_network), one seed per process; at
    # commit 04984f5 into long_lower_loss_seed1.csv (and seed 2) instead of long_seed1.csv
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/checked_network/results/long_seed1.csv \\
        --lengths 1000 4000 --models ssm ssm-network minirocket --seeds 1
    # the one model on the network's ground (issues 76, 77: the network alone where nothing can
    # be held out), one seed per process
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/checked_network/results/long_ground_seed1.csv \
        --lengths 1000 4000 --models ssm --seeds 1
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --out benchmarks/checked_network/results/long_ground_seed2.csv \
        --lengths 1000 4000 --models ssm --seeds 2
    python benchmarks/long_series/long_series.py --memory --out benchmarks/long_series/results/long_series_memory.csv
    python benchmarks/long_series/long_series.py --memory --memory-per-class 8 --memory-epochs 6 \\
        --out benchmarks/long_series/results/long_series_memory_40.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "every batch" kept \\
        --out benchmarks/long_series/results/long_series_memory_every_batch.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "torch ops" kept \\
        --out benchmarks/long_series/results/long_series_memory_join.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "torch ops" kept \\
        --memory-per-class 8 --memory-epochs 6 --out benchmarks/long_series/results/long_series_memory_join_40.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "outputs kept" kept \\
        --out benchmarks/long_series/results/long_series_memory_recompute.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "outputs kept" kept \\
        --memory-per-class 8 --memory-epochs 6 --out benchmarks/long_series/results/long_series_memory_recompute_40.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms shipped kept --memory-per-class 8 \\
        --out benchmarks/long_series/results/long_series_memory_release_40.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms shipped kept \\
        --out benchmarks/long_series/results/long_series_memory_release.csv
    python benchmarks/long_series/long_series.py --memory --memory-arms "every epoch" shipped \\
        --memory-length 8000 --memory-epochs 8 --out benchmarks/long_series/results/long_series_memory_release_8k.csv
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py \\
        --out benchmarks/long_series/results/long_series_seeds.csv \\
        --lengths 1000 4000 --models ssm fast-path minirocket --seeds 3 4
    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py \\
        --out benchmarks/long_series/results/long_series_init.csv \\
        --lengths 1000 --models ssm-tdi ssm-s4d-lin ssm-tdi-control --seeds 1 2 3 4
    # (reconstructed) 12 epochs of 40 series, "kept" alone, the code then shipped:
    python benchmarks/long_series/long_series.py --memory --memory-arms kept \\
        --memory-per-class 8 \\
        --out benchmarks/long_series/results/long_series_memory_recompute_40_long.csv

Seed 0 set the tasks' signal-to-noise ratios (``SNR_DB``; MiniRocket and the deep model on
its draws), so that no task sits at chance or at the ceiling; the study runs on other seeds,
fresh draws of every task. Results are appended cell by cell (a rerun skips finished cells).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.shared.long_tasks import (  # noqa: E402
    N_TRAIN,
    TASKS,
    audio_like_task,
    split,
)

LENGTHS = (1000, 4000, 16000)
SCALING_LENGTHS = (1000, 2000, 4000, 8000, 16000)
MODELS = ("ssm", "fast-path", "minirocket", "inceptiontime")
# the deep model with another initialization than its default TDI: what TDI does on long
# spectral series (not in the default --models)
INIT_MODELS = {"ssm-tdi": "tdi", "ssm-s4d-lin": "s4d-lin", "ssm-tdi-control": "tdi-control"}
# the other arms, not in the default --models: the S4D network as a user selects it
# (SSMClassifier(network="s4d"), the classifier's width and depth), the S4D network at its
# tested settings (the classifier's previous default, the harness's "s4d-network"), and the
# fast path with MiniRocket's features beside its own; and the network alone, without the fast
# path it adds to by default (issue 70: the deep model as it was before)
OTHER_MODELS = ("s4d", "s4d-network", "fast-path-minirocket", "ssm-network")


def build(model: str, seed: int, epochs: int):
    if model == "ssm":
        from sktdi import SSMClassifier

        return SSMClassifier(max_epochs=epochs, random_state=seed)
    if model == "ssm-network":
        from sktdi import SSMClassifier

        return SSMClassifier(max_epochs=epochs, random_state=seed, fast_path=False)
    if model in INIT_MODELS:
        from sktdi import SSMClassifier

        return SSMClassifier(max_epochs=epochs, random_state=seed, init=INIT_MODELS[model])
    if model == "s4d":
        from sktdi import SSMClassifier

        return SSMClassifier(network="s4d", max_epochs=epochs, random_state=seed)
    if model == "s4d-network":  # the harness's arm of that name: one home for its settings
        from sktdi.benchmark.estimators import ESTIMATORS

        return ESTIMATORS["s4d-network"][0](seed, {"max_epochs": epochs})
    if model == "fast-path":
        from sktdi import SpectralRidgeClassifier

        return SpectralRidgeClassifier(random_state=seed)
    if model == "fast-path-minirocket":
        from sktdi import SpectralRidgeClassifier

        return SpectralRidgeClassifier(rocket="minirocket", random_state=seed)
    if model == "minirocket":
        from sktime.classification.kernel_based import RocketClassifier

        return RocketClassifier(rocket_transform="minirocket", random_state=seed)
    if model == "inceptiontime":
        from sktime.classification.deep_learning import InceptionTimeClassifierTorch

        return InceptionTimeClassifierTorch(num_epochs=epochs, random_state=seed)
    raise ValueError(model)


def run_cell(task: str, length: int, model: str, seed: int, epochs: int, scaling: bool,
             n_train: int = N_TRAIN) -> dict:
    """One fit and score, in this process (the driver runs each in a fresh one)."""
    import torch

    torch.set_num_threads(1)
    if scaling:  # 20 training series of the "formants" task, timed; no test
        X, y = audio_like_task("formants", length, N_TRAIN, random_state=seed)
        X_test = y_test = None
    else:
        X, y, X_test, y_test = split(task, length, seed, n_train)
    estimator = build(model, seed, epochs)
    start = time.perf_counter()
    estimator.fit(X, y)
    fit_seconds = time.perf_counter() - start
    row = {"task": task, "length": length, "model": model, "seed": seed, "epochs": epochs,
           "n_train": len(y), "fit_seconds": round(fit_seconds, 2)}
    if X_test is not None:
        start = time.perf_counter()
        row["accuracy"] = float(np.mean(estimator.predict(X_test) == y_test))
        row["predict_seconds"] = round(time.perf_counter() - start, 2)
    row["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if model in INIT_MODELS:  # what TDI (or its placebo) did: aligned channels, reliability
        report = estimator.init_report_
        row.update(applied=report["applied"], n_aligned_channels=report["n_aligned_channels"],
                   reliability=report["reliability"])
    return row


# as shipped: freed memory returned at the end of an epoch whose resident memory outgrew the
# first epoch's (sktdi.deep_model.training.ReleaseFreedMemory); never returned (as shipped
# before it); returned past the first epoch's freed memory; returned after every batch that
# left more than FREED_LIMIT_BYTES freed; as shipped but with the block's join, 1×1
# convolutions and max-pool gradient as before sktdi.ssm.conv_ops.residual_join; as shipped
# but with every block's output kept for the backward pass and the S4D branch's spectra of
# the whole batch at once, as before sktdi.ssm.conv_ops.RecomputedActivations. In the runs
# before ReleaseFreedMemory (the results files without a "shipped" arm) there was nothing to
# turn off: "kept" was shipped, and "torch ops" and "outputs kept" kept their freed memory.
# "every epoch": as shipped, but the release at every epoch's end whatever the length
MEMORY_ARMS = ("shipped", "kept", "released", "every batch", "torch ops", "outputs kept",
               "every epoch")
MEMORY_LENGTH = 16000


# freed heap memory a released arm lets a fit keep (past its first epoch's, for "released")
FREED_LIMIT_BYTES = 512 * 2**20


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (malloc.h, glibc 2.33 and later): sizes in bytes."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
    )]


def _freed_heap_bytes() -> int:
    """Bytes of freed memory malloc's heap keeps (all arenas); glibc 2.33 or later."""
    mallinfo2 = ctypes.CDLL(None).mallinfo2
    mallinfo2.restype = _MallInfo2
    return int(mallinfo2().fordblks)


def _release_heap_during_training(every_batch: bool) -> None:
    """Make this process's CPU fits return malloc's freed pages after a training batch:
    ``every_batch``, after any batch that left more than FREED_LIMIT_BYTES freed (the form
    first shipped); otherwise once the freed memory grows FREED_LIMIT_BYTES past the most a
    batch of the first epoch left (what a batch frees is the next one's working set)."""
    from skorch.callbacks import Callback

    from sktdi.deep_model import base
    from sktdi.utils.memory import release_freed_memory

    class Release(Callback):
        def on_train_begin(self, net, **kwargs):
            self.first_epoch_freed_ = 0 if not every_batch else None

        def on_batch_end(self, net, batch=None, training=None, **kwargs):
            if not training:
                return
            freed = _freed_heap_bytes()
            if every_batch:
                limit = FREED_LIMIT_BYTES
            elif len(net.history) <= 1:  # the first epoch: what a batch normally leaves freed
                self.first_epoch_freed_ = max(self.first_epoch_freed_, freed)
                return
            else:
                limit = self.first_epoch_freed_ + FREED_LIMIT_BYTES
            if freed > limit:
                release_freed_memory()

    build = base.build_net

    def build_with_release(*args, **kwargs):
        net = build(*args, **kwargs)  # not yet initialized: its callbacks can still change
        net.callbacks = [*net.callbacks, ("release_memory", Release())]
        return net

    base.build_net = build_with_release  # where fit looks it up


def _release_every_epoch() -> None:
    """Make this process's CPU fits release the heap's free memory at the end of every
    epoch, whatever the length (``ReleaseFreedMemory`` does so on long series only)."""
    from sktdi.deep_model import training

    def on_epoch_end(self, net, **kwargs):
        from sktdi.utils.memory import release_freed_memory

        release_freed_memory()

    training.ReleaseFreedMemory.on_epoch_end = on_epoch_end


def _epochs_keep_freed_memory() -> None:
    """Make this process's CPU fits keep the heap's freed memory at the end of every epoch,
    as before ``sktdi.deep_model.training.ReleaseFreedMemory``."""
    from sktdi.deep_model import training

    training.ReleaseFreedMemory.on_epoch_end = lambda self, net, **kwargs: None


def _block_ops_as_before() -> None:
    """Make this process's networks run the residual join, the 1×1 convolutions and the
    max-pool's gradient in torch's own ops, as before ``sktdi.ssm.conv_ops.residual_join``:
    the join keeps relu(a), the shortcut's BatchNorm input and its output for the backward
    pass, a 1×1 convolution copies its input, and the max-pool's gradient covers the whole
    batch at once."""
    import torch
    import torch.nn.functional as F

    from sktdi.ssm import conv_ops, hybrid

    def torch_join(a, r, shortcut):
        return F.relu(F.relu(a) + shortcut(r))  # (B, C, L)

    hybrid.residual_join = torch_join  # where the network looks them up
    hybrid.pointwise_conv = F.conv1d
    conv_ops._pointwise = F.conv1d
    conv_ops._sum_of_products = (
        lambda grad, x: torch.einsum("bot,bit->oi", grad, x).unsqueeze(-1)  # (C_out, C_in, 1)
    )
    conv_ops.PART_VALUES = 2**62  # the whole batch in one part


def _block_outputs_kept() -> None:
    """Make this process's networks keep every block's output for the backward pass and
    transform the S4D branch's whole batch at once, as before
    ``sktdi.ssm.conv_ops.RecomputedActivations`` and ``SPECTRUM_GROUP_BYTES``."""
    from sktdi.ssm import hybrid, kernel

    hybrid.recompute_block_outputs = lambda x, channels: False  # where the network looks
    kernel.SPECTRUM_GROUP_BYTES = 2**62  # the whole batch in one group


def run_memory_cell(arm: str, epochs: int, seed: int, per_class: int = N_TRAIN,
                    length: int = MEMORY_LENGTH) -> list[dict]:
    """One long fit of the deep model, in this process: per epoch, its seconds and the running
    peak resident memory (sampled every 20 ms, and ``ru_maxrss`` at the end)."""
    import threading

    import torch

    from sktdi import SSMClassifier

    torch.set_num_threads(1)
    if arm == "torch ops":
        _block_ops_as_before()
    elif arm == "outputs kept":
        _block_outputs_kept()
    elif arm == "every epoch":
        _release_every_epoch()
    elif arm != "shipped":
        _epochs_keep_freed_memory()
        if arm != "kept":
            _release_heap_during_training(every_batch=arm == "every batch")
    X, y = audio_like_task("formants", length, per_class, random_state=seed)
    samples, done = [], threading.Event()

    def sample() -> None:
        while not done.is_set():
            with open("/proc/self/statm") as f:
                samples.append((time.perf_counter(), int(f.read().split()[1]) * 4096 / 2**20))
            done.wait(0.02)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    estimator = SSMClassifier(max_epochs=epochs, random_state=seed).fit(X, y)
    end = time.perf_counter()
    done.set()
    thread.join()
    times, rss = np.array(samples).T  # (n_samples,) each
    durations = np.array(estimator.net_.history[:, "dur"])  # (epochs,) s
    # the epochs are the fit's last stretch: each ends where the later ones' time begins
    epoch_ends = end - np.concatenate([np.cumsum(durations[::-1])[::-1][1:], [0.0]])
    rows = []
    for epoch, (stop, seconds) in enumerate(zip(epoch_ends, durations), start=1):
        peak = rss[times <= stop].max() if np.any(times <= stop) else np.nan
        rows.append({"arm": arm, "length": length, "n_train": len(y), "seed": seed,
                     "epoch": epoch, "epoch_seconds": round(float(seconds), 2),
                     "peak_rss_mib": round(float(peak), 1)})
    rows[-1]["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return rows


def run_memory(out: Path, epochs: int, seed: int, arms: list[str], per_class: int,
               length: int = MEMORY_LENGTH) -> None:
    """The arms side by side, each in a fresh process with one thread; rows to ``out``."""
    import pandas as pd

    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    procs = [subprocess.Popen(
        [sys.executable, __file__, "--out", str(out), "--memory-cell",
         json.dumps([arm, epochs, seed, per_class, length])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    ) for arm in arms]
    rows = []
    for arm, proc in zip(arms, procs):
        stdout, stderr = proc.communicate()
        lines = [x for x in stdout.splitlines() if x.startswith("CELL ")]
        if proc.returncode or not lines:
            raise SystemExit(f"{arm}: failed\n{stderr[-2000:]}")
        rows += json.loads(lines[-1][5:])
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    table.to_csv(out, index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--lengths", nargs="+", type=int, default=None)
    parser.add_argument("--models", nargs="+", default=list(MODELS),
                        choices=MODELS + OTHER_MODELS + tuple(INIT_MODELS))
    parser.add_argument("--per-class", type=int, default=N_TRAIN,
                        help="training series per class of the accuracy cells")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--inception-max-length", type=int, default=4000)
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--scaling-epochs", nargs="+", type=int, default=[2, 6])
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-epochs", type=int, default=12)
    parser.add_argument("--memory-per-class", type=int, default=N_TRAIN)
    parser.add_argument("--memory-length", type=int, default=MEMORY_LENGTH)
    parser.add_argument("--memory-arms", nargs="+", default=["released", "kept"],
                        choices=MEMORY_ARMS)
    parser.add_argument("--cell", help=argparse.SUPPRESS)  # internal: one cell, JSON out
    parser.add_argument("--memory-cell", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_cell:
        print("CELL " + json.dumps(run_memory_cell(*json.loads(args.memory_cell))))
        return
    if args.memory:
        run_memory(args.out, args.memory_epochs, args.seeds[0], args.memory_arms,
                   args.memory_per_class, args.memory_length)
        return
    if args.cell:
        print("CELL " + json.dumps(run_cell(*json.loads(args.cell))))
        return

    import pandas as pd

    if args.scaling:
        lengths = args.lengths or SCALING_LENGTHS
        grid = [("formants", L, m, s, e, True) for s in args.seeds for L in lengths
                for e in args.scaling_epochs for m in ("ssm", "inceptiontime")]
    else:
        lengths = args.lengths or LENGTHS
        grid = [(t, L, m, s, args.epochs, False, args.per_class)
                for s in args.seeds for L in lengths for t in args.tasks for m in args.models
                if not (m == "inceptiontime" and L > args.inception_max_length)]
    done = set()
    if args.out.exists():
        old = pd.read_csv(args.out)
        done = set(zip(old["task"], old["length"], old["model"], old["seed"], old["epochs"]))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    for cell in grid:
        if tuple(cell[:5]) in done:
            continue
        proc = subprocess.run(
            [sys.executable, __file__, "--out", str(args.out), "--cell", json.dumps(cell)],
            capture_output=True, text=True, env=env,
        )
        lines = [x for x in proc.stdout.splitlines() if x.startswith("CELL ")]
        if proc.returncode or not lines:
            print(f"{cell}: failed\n{proc.stderr[-2000:]}", flush=True)
            continue
        row = json.loads(lines[-1][5:])
        print(row, flush=True)
        table = pd.DataFrame([row])
        table.to_csv(args.out, mode="a", header=not args.out.exists(), index=False)


if __name__ == "__main__":
    main()
