"""Prediction memory: ``predict`` on 100,000 series of length 1,000 in bounded memory on CPU.

A small :class:`~sktdi.SSMClassifier` (the default architecture, a few epochs on a short
planted-frequency task of length 1000) is fitted once and pickled; each ``--n-series`` size
is then predicted in a fresh subprocess, so that no size inherits the heap another one
grew. In each subprocess the float32 input (n, 1, 1000) is filled in chunks (never a
float64 copy of the whole set), and ``predict`` is measured for

- its peak resident memory above the resident memory just before the call: the kernel's
  high-water mark ``VmHWM``, reset through ``/proc/self/clear_refs`` (no sampling thread:
  another thread allocating beside the prediction changes how malloc's heap fragments);
- its throughput, series per second, at the process's torch thread count;
- its accuracy on the (labelled) synthetic series, a check that it predicted something.

Memory bounded in n means the peak increase is the same at 10,000 and at 100,000 series:
the batches (``sktdi.deep_model.inference.prediction_batch_size``: 65 series of length 1000 on the
CPU) are standardized and forwarded one at a time, and malloc's free memory is returned to the
system every ``RELEASE_EVERY`` batches.

    OMP_NUM_THREADS=2 python benchmarks/gpu/bench_predict_memory.py --out benchmarks/gpu/results/predict_memory.json
    python benchmarks/gpu/bench_predict_memory.py --n-series 2000 5000   # a quick check
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.measure import _reset_peak, _status_kib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FREQS = (0.05, 0.12, 0.3)  # the planted task's classes: noise, then one sine per frequency
STATUS = Path("/proc/self/status")


def planted_chunk(n: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n series (n, 1, length) float32 of the planted-frequency task and their labels (n,):
    class 0 is white noise, class k adds a unit sine at ``FREQS[k - 1]`` with a random phase."""
    y = rng.integers(0, len(FREQS) + 1, size=n)
    X = rng.standard_normal((n, 1, length), dtype=np.float32)
    t = np.arange(length, dtype=np.float32)
    for k, freq in enumerate(FREQS, start=1):
        rows = np.flatnonzero(y == k)
        phase = rng.uniform(0, 2 * np.pi, size=(len(rows), 1)).astype(np.float32)
        X[rows, 0] += np.sin(np.float32(2 * np.pi * freq) * t + phase)
    return X, y


def planted_set(
    n: int, length: int, seed: int, chunk: int = 10_000
) -> tuple[np.ndarray, np.ndarray]:
    """The planted task's n series, written chunk by chunk into one preallocated float32
    array: the whole set never exists twice, nor in float64."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, 1, length), dtype=np.float32)
    y = np.empty(n, dtype=np.int64)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        X[start:stop], y[start:stop] = planted_chunk(stop - start, length, rng)
    return X, y


def fit_model(length: int, n_train: int, epochs: int, threads: int, seed: int = 0):
    """The small classifier whose predictions are measured (estimator defaults otherwise)."""
    from sktdi import SSMClassifier

    X, y = planted_set(n_train, length, seed)
    return SSMClassifier(
        max_epochs=epochs, device="cpu", n_threads=threads, random_state=seed
    ).fit(X, y)


def measure_predict(model_path: str, n_series: int, length: int, seed: int) -> dict:
    """Peak memory, time and accuracy of ``predict`` on n_series fresh series (run in a fresh
    process: the peak of one size must not start from the heap another size left)."""
    import torch

    from sktdi.deep_model.inference import RELEASE_EVERY, prediction_batch_size

    with open(model_path, "rb") as f:
        model = pickle.load(f)
    X, y = planted_set(n_series, length, seed)
    classes = model.classes_
    before_kib = _status_kib("VmRSS")
    hwm_reset = _reset_peak()
    start = time.perf_counter()
    predicted = model.predict(X)
    seconds = time.perf_counter() - start
    # without a resettable high-water mark, the process's lifetime peak (an upper bound: it
    # includes making the input, which holds less than the prediction)
    peak_kib = (
        _status_kib("VmHWM") if hwm_reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    )
    mib = 1 / 1024
    return {
        "n_series": n_series,
        "length": length,
        "input_dtype": str(X.dtype),
        "input_mib": X.nbytes / 2**20,
        "predict_batch_size": prediction_batch_size(length, "cpu"),
        "release_every_batches": RELEASE_EVERY,
        "inference_dtype": model.inference_dtype,
        "torch_threads": torch.get_num_threads(),
        "rss_before_mib": before_kib * mib if before_kib else None,
        "peak_source": "VmHWM" if hwm_reset else "ru_maxrss",
        "peak_increase_mib": (peak_kib - before_kib) * mib if before_kib else None,
        "rss_after_mib": (_status_kib("VmRSS") or 0) * mib,
        "predict_s": seconds,
        "series_per_s": n_series / seconds,
        "accuracy": float(np.mean(predicted == classes[y])),
        # other processes on the machine slow the throughput: their load, over the last minute
        "load_average_after": os.getloadavg()[0],
    }


def _run_child(model_path: str, n_series: int, length: int, seed: int) -> dict:
    code = (
        "import json, sys; sys.path.insert(0, %r); import bench_predict_memory as b; "
        "print(json.dumps(b.measure_predict(%r, %d, %d, %d)))"
        % (str(ROOT / "benchmarks" / "gpu"), model_path, n_series, length, seed)
    )
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise RuntimeError(f"the measuring process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def markdown(rows: list[dict]) -> str:
    """One markdown table of the measured sizes."""
    lines = [
        "| series | input (MiB) | peak RSS increase (MiB) | RSS after (MiB) | predict (s) "
        "| series/s | threads | accuracy |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        peak = "n/a" if r["peak_increase_mib"] is None else f"{r['peak_increase_mib']:.0f}"
        lines.append(
            f"| {r['n_series']:,} | {r['input_mib']:.0f} | {peak} "
            f"| {r['rss_after_mib']:.0f} | {r['predict_s']:.1f} "
            f"| {r['series_per_s']:.0f} | {r['torch_threads']} | {r['accuracy']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-series", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--length", type=int, default=1000)
    parser.add_argument("--n-train", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="default: torch's own")
    parser.add_argument("--out", default=None, help="JSON results (default: none)")
    args = parser.parse_args(argv)

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    fit_start = time.perf_counter()
    model = fit_model(args.length, args.n_train, args.epochs, threads)
    fit_s = time.perf_counter() - fit_start
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model_path = str(Path(tmp) / "model.pkl")
        with open(model_path, "wb") as f:
            pickle.dump(model, f)
        for seed, n in enumerate(args.n_series, start=1):
            rows.append(_run_child(model_path, n, args.length, seed))
            print(markdown(rows[-1:]).splitlines()[-1], flush=True)
    results = {
        "started": started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
        "model": {
            "estimator": f"SSMClassifier (network {model.network!r}, otherwise defaults)",
            "n_train": args.n_train,
            "epochs": args.epochs,
            "fit_s": fit_s,
        },
        "runs": rows,
    }
    print(markdown(rows))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
