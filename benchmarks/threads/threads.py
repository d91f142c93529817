"""The threads study (issue 65): how many threads should a fit use by default, on a machine
that is idle and on one where other processes keep cores busy?

Each workload runs in a fresh process (so that no thread pool, numba's or torch's, carries
over) at each thread count from 1 to the machine's cores (the last: what torch takes by
itself, the default before this study), under three loads: idle, one core busy and every core busy
(busy: a process spinning in a Python loop per core). The deep model's settings are its
``n_threads``; the fast path has none, so its settings are torch's thread count around the
call (the count its filter bank's scan and MiniRocket's transform take). Seconds are the
median of ``--repeats`` runs (a run over TIMEOUT seconds is stopped and recorded as TIMEOUT:
a lower bound); every run of a load happens while that load runs. "auto" is a candidate that
was measured and not adopted: the cores no other process keeps busy when the call starts
(``idle_cores`` below; sktdi ran it as its default while these rows were measured, and its
fast path's compiled code on one thread, as now outside joblib). It met every target, but two fits of one
model in one process then took different thread counts and trained different models (in
their last bits, grown by training), so the default became one thread (the "1" rows).

    python benchmarks/threads/threads.py [--repeats 1]
    python benchmarks/threads/threads.py --append --repeats 3 --settings 1 2 \
        --workloads fast-fit fast-fit-minirocket

(the second: the fast path's rows at fixed counts, rerun with ten fits a run and three runs,
the first command's fast-path rows, one fit a run, dropped; the fast path's "auto" rows were
dropped too: while they ran its compiled code already took one thread, so they measured
neither the candidate nor today's default, the "1" rows)

writes benchmarks/threads/results/threads.csv (one row per workload, setting, load and
repeat); ``python benchmarks/doc_figures.py`` builds the page's table from it. Run it on a
machine with nothing else running (the busy loads are its own).
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "threads.csv"
FIELDS = ["workload", "setting", "load", "repeat", "seconds", "cores"]
WORKLOADS = ("deep-fit", "deep-fit-long", "deep-predict", "stream", "fast-fit",
             "fast-fit-minirocket")
LOADS = ("idle", "one-busy", "all-busy")

# one workload in a fresh process: prints {"seconds": ...}
WORKER = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
workload, setting = sys.argv[1], sys.argv[2]
def idle_cores():
    # the candidate "auto": the cores no other process runs on now (Linux's runnable count,
    # less this process's own runnable threads), at least one
    import os
    cores = len(os.sched_getaffinity(0))
    runnable = int(open("/proc/loadavg").read().split()[3].split("/")[0])
    own = sum(
        open(f"/proc/self/task/{t}/stat").read().rsplit(")", 1)[1].split()[0] == "R"
        for t in os.listdir("/proc/self/task")
    )
    return max(1, min(cores, cores - max(0, runnable - max(own, 1))))
n_threads = idle_cores() if setting == "auto" else int(setting)
from sktdi import SpectralRidgeClassifier, SSMClassifier
from sktdi.datasets import load_ucr
from sktdi.utils.threads import torch_threads
X, y = load_ucr("GunPoint", "train")
Xt, yt = load_ucr("GunPoint", "test")
if workload == "deep-fit-long":  # long recordings: 40 series of 4,000 steps
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    t = np.arange(4000)
    tone = np.sin(2 * np.pi * np.outer(0.05 + 0.02 * y, t))  # (40, 4000): a class's tone
    X = rng.normal(size=(40, 1, 4000)) + 0.5 * tone[:, None, :]
def deep(epochs):
    # the network alone, as this study measured it (and as streams need it)
    return SSMClassifier(max_epochs=epochs, fast_path=False, random_state=0, n_threads=n_threads)
# warm: compile numba's kernels and load torch's before the clock starts
if workload.startswith("fast"):
    rocket = "minirocket" if workload.endswith("minirocket") else None
    SpectralRidgeClassifier(rocket=rocket, random_state=0).fit(X[:10], y[:10]).predict(Xt[:5])
    start = time.perf_counter()
    with torch_threads(n_threads):
        for _ in range(10):  # ten fits: a second or more, where one is a tenth
            SpectralRidgeClassifier(rocket=rocket, random_state=0).fit(X, y).predict(Xt)
elif workload == "deep-predict":
    model = deep(1).fit(X, y)
    model.predict(Xt)
    start = time.perf_counter()
    for _ in range(2):
        model.predict(Xt)
elif workload == "stream":
    model = deep(1).fit(X, y)
    stream = model.stream(n_streams=100)
    stream.update(Xt[:100, :, :2])
    stream = model.stream(n_streams=100)
    start = time.perf_counter()
    for k in range(150):
        stream.update(Xt[:100, :, k])
    stream.predict()
else:
    deep(1).fit(X[::4], y[::4])  # both classes
    start = time.perf_counter()
    deep(3 if workload == "deep-fit" else 1).fit(X, y)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""

SPIN = "while True: pass"


TIMEOUT = 120  # seconds: a run stalled longer is recorded as that (a lower bound)


def run_once(workload: str, setting: str) -> float:
    try:
        out = subprocess.run(
            [sys.executable, "-c", WORKER, workload, setting], capture_output=True, text=True,
            check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"}, timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return float(TIMEOUT)
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--settings", nargs="*", default=None,
        help="thread settings: counts, or 'auto' (n_threads=None, the default since this "
        "study); default: 1 to the machine's cores, and 'auto'",
    )
    parser.add_argument("--append", action="store_true", help="add rows to the results")
    parser.add_argument("--workloads", nargs="*", default=list(WORKLOADS), choices=WORKLOADS)
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        multiprocessing.cpu_count()
    )
    # the last count is torch's own, every core (the default before this study)
    settings = args.settings or [*[str(k) for k in range(1, cores + 1)], "auto"]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a" if args.append else "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if not args.append:
            writer.writeheader()
        for load in LOADS:
            n_busy = {"idle": 0, "one-busy": 1, "all-busy": cores}[load]
            spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(n_busy)]
            try:
                time.sleep(1.0 if n_busy else 0.0)
                for repeat in range(args.repeats):
                    for workload in args.workloads:
                        for setting in settings:
                            seconds = run_once(workload, setting)
                            row = dict(zip(FIELDS, (workload, setting, load, repeat,
                                                    round(seconds, 4), cores)))
                            print(row, flush=True)
                            writer.writerow(row)
                            f.flush()
            finally:
                for p in spinners:
                    p.kill()


if __name__ == "__main__":
    main()
