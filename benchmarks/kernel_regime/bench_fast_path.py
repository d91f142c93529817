"""The fast path's clock and memory against bare MiniRocket, dataset by dataset.

For each of the kernel-regime datasets (official split, whole training set) and each model,
a fresh subprocess loads the data, fits and predicts once to warm up (numba's compiled code
loads from its cache, allocators settle), then measures

- fit + predict seconds, the median of ``--repeats`` runs, at ``--threads`` threads (torch's
  and numba's; BLAS limited alike);
- the peak resident memory above the resident memory just before the measured fit: the
  kernel's high-water mark ``VmHWM``, reset through ``/proc/self/clear_refs``
  (``bench_predict_memory.py``);
- the test accuracy, a check that the model predicted something (the accuracy comparison is
  the harness's, ``run_kernel_regime.sh``).

Models: ``tdi+ridge`` (``SpectralRidgeClassifier()``), ``tdi+ridge-float64`` (the same with
the bank's recurrence in float64, what float32 saves), ``tdi+ridge+minirocket``, and
``minirocket-ridge`` (MiniRocket's transform, scaler and ``RidgeClassifierCV``: the physical
reference). ``--profile`` prints cProfile's top functions for the fast path on one dataset.

    OMP_NUM_THREADS=2 python benchmarks/kernel_regime/bench_fast_path.py --out benchmarks/kernel_regime/results/fast_path_bench.json
    python benchmarks/kernel_regime/bench_fast_path.py --threads 1 2 --datasets OSULeaf   # thread scaling
    python benchmarks/kernel_regime/bench_fast_path.py --profile OSULeaf
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.measure import _reset_peak, _status_kib  # noqa: E402

DATASETS = (
    "planted", "ItalyPowerDemand", "GunPoint", "ArrowHead", "digits", "OSULeaf", "ACSF1",
    "BasicMotions", "JapaneseVowels",
)
MODELS = ("tdi+ridge", "tdi+ridge-float64", "tdi+ridge+minirocket", "minirocket-ridge")


def build(name: str):
    if name == "minirocket-ridge":
        from sktdi.benchmark._minirocket_ridge import MiniRocketRidge

        return MiniRocketRidge(random_state=0)
    from sktdi import SpectralRidgeClassifier

    rocket = "minirocket" if name.endswith("+minirocket") else None
    return SpectralRidgeClassifier(rocket=rocket, random_state=0)


def load(dataset: str):
    """The harness's inputs for the official split: padded panels (n, C, L)."""
    from sktdi.benchmark.runner import Cell, _inputs, _longest, _split

    X_train, y_train, X_test, y_test = _split(Cell(dataset, 1.0, 0, "tdi+ridge"))
    length = max(_longest(X_train), _longest(X_test))
    return _inputs("panel", X_train, length)[0][0], y_train, _inputs("panel", X_test, length)[0][0], y_test


def measure(dataset: str, model_name: str, threads: int, repeats: int) -> dict:
    import numpy as np
    import torch
    from threadpoolctl import threadpool_limits

    from sktdi.fast_path import scan as _scan

    torch.set_num_threads(threads)
    if model_name.endswith("-float64"):
        _scan.STATE_DTYPE = np.float64
    X_train, y_train, X_test, y_test = load(dataset)
    with threadpool_limits(limits=threads):
        build(model_name).fit(X_train, y_train).predict(X_test)  # warm-up
        rss_before = _status_kib("VmRSS")
        hwm_reset = _reset_peak()
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            model = build(model_name).fit(X_train, y_train)
            accuracy = float(np.mean(model.predict(X_test) == y_test))
            seconds.append(time.perf_counter() - start)
            if len(seconds) == 1:
                peak = _status_kib("VmHWM") if hwm_reset else None
    return {
        "dataset": dataset,
        "model": model_name,
        "threads": threads,
        "n_train": len(y_train),
        "n_test": len(y_test),
        "shape": list(X_train.shape[1:]),
        "fit_predict_s": statistics.median(seconds),
        "peak_increase_mib": None if peak is None else (peak - rss_before) / 1024,
        "accuracy": accuracy,
    }


def _run_child(dataset: str, model: str, threads: int, repeats: int) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "NUMBA_NUM_THREADS": str(threads)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", dataset, model, str(threads), str(repeats)],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def profile(dataset: str) -> None:
    import cProfile
    import pstats

    X_train, y_train, X_test, _ = load(dataset)
    build("tdi+ridge").fit(X_train, y_train).predict(X_test)  # warm-up
    profiler = cProfile.Profile()
    profiler.enable()
    build("tdi+ridge").fit(X_train, y_train).predict(X_test)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--threads", nargs="+", type=int, default=[2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", metavar="DATASET")
    parser.add_argument("--out")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        dataset, model, threads, repeats = args.child
        import warnings

        warnings.filterwarnings("ignore")
        print(json.dumps(measure(dataset, model, int(threads), int(repeats))))
        return
    if args.profile:
        profile(args.profile)
        return
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows = []
    for dataset in args.datasets:
        for threads in args.threads:
            for model in args.models:
                rows.append(_run_child(dataset, model, threads, args.repeats))
                row = rows[-1]
                print(
                    f"{dataset:16s} {model:22s} threads={threads} "
                    f"{row['fit_predict_s']:.3f}s peak+{row['peak_increase_mib']:.0f} MiB "
                    f"acc={row['accuracy']:.3f}",
                    flush=True,
                )
    if args.out:
        import torch

        report = {
            "started": started,
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": {
                "cpu": platform.machine(),
                "cpu_count": os.cpu_count(),
                "torch": torch.__version__,
                "python": platform.python_version(),
            },
            "repeats": args.repeats,
            "runs": rows,
        }
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
