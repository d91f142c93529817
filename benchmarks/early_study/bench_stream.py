"""Streams: samples per second of a fitted model's PredictionStream, against re-running the
estimator (and MiniRocket) on every prefix, on one CPU thread.

A default ``SSMClassifier`` (and one with ``network="s4d"``) is fitted for one epoch on a
short synthetic task; then, per model,

- one stream fed one sample at a time, and 1000 streams fed chunks of 100 samples:
  samples per second over ``--steps`` samples per stream (the compiled step of
  ``sktdi.deep_model.stream_kernels`` for single samples, its convolution mode for chunks,
  and the chunks again through the step, ``"mode": "step"``), and one stream through the
  network's own torch ``step``; the same with ``inference_dtype="float32"`` (model
  ``"<network> float32"``);
- resident memory after each quarter of the single stream's steps (constant in the
  stream's length if the state does not grow);
- the alternatives a convolutional model has: a prediction on every prefix of one series of
  ``--prefix-length`` steps, from scratch each time (the deep model's ``predict_proba``, and
  MiniRocket's transform and ridge head fitted on series of that length, each prefix
  zero-padded to it), as samples per second;
- the bound on any chunked stream: the same 1000 series × 200 steps through
  ``predict_proba_over_time`` (the convolution mode, every step's prediction in one pass),
  as samples per second, and the network's multiply-adds per sample (its layers' weights
  touched once per step);
- the bound on one stream's step: every array the compiled step reads per sample (weights
  and state, each in the precision the step reads it) summed once per sample by a compiled
  loop, with nothing computed, as samples per second (``"read_bound_samples_per_s"``, and
  the bytes);
- memory over ``--long-steps`` (10⁶) samples of one stream of a small ``network="s4d"``
  (d_model 8, one layer), whose steps are quick enough to run that far; the state is the
  same few tensors whatever the network.

    OMP_NUM_THREADS=1 python benchmarks/early_study/bench_stream.py --out benchmarks/early_study/results/stream_bench.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.measure import _status_kib  # noqa: E402


def _task(length: int = 128, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(len(y), 1, length)) + y[:, None, None] * np.sin(0.8 * np.arange(length))
    return X, y


def stream_rate(model, n_streams: int, chunk: int, steps: int, rng) -> dict:
    live = model.stream(n_streams)
    x = rng.normal(size=(n_streams, 1, chunk))
    live.update(x)  # warm-up
    memory = []
    start = time.perf_counter()
    for k in range(steps // chunk):
        live.update(x if chunk > 1 else x[:, :, 0])
        if chunk == 1 and (k + 1) % (steps // 4) == 0:
            memory.append(_status_kib("VmRSS") / 1024)
    seconds = time.perf_counter() - start
    return {
        "n_streams": n_streams,
        "chunk": chunk,
        "steps_per_stream": steps,
        "samples_per_s": n_streams * steps / seconds,
        "rss_mib_each_quarter": memory,
    }


@contextlib.contextmanager
def _chunks_through(mode: str):
    """Chunks through the convolution mode (as shipped) or, for the comparison, the step."""
    from sktdi.deep_model import stream_kernels

    shipped = stream_kernels.MIN_CHUNK
    if mode == "step":
        stream_kernels.MIN_CHUNK = 10**12
    try:
        yield
    finally:
        stream_kernels.MIN_CHUNK = shipped


def convolution_bound(model, rng, n_series: int = 1000, steps: int = 200) -> dict:
    """Every step's prediction for n_series × steps in one convolution-mode pass: what a
    stream fed in chunks could reach at best. And the multiply-adds per sample: every
    weight of the network is used once per step (the SSM kernels' cost aside)."""
    X = rng.normal(size=(n_series, 1, steps))
    lengths = np.full(n_series, steps)  # the series need not have the fit's length
    model.predict_proba_over_time(X[:10], lengths=lengths[:10])  # warm-up
    start = time.perf_counter()
    model.predict_proba_over_time(X, lengths=lengths)
    seconds = time.perf_counter() - start
    weights = sum(p.numel() for p in model.net_.module_.parameters())
    return {"over_time_samples_per_s": n_series * steps / seconds,
            "weights_per_sample": int(weights)}


def read_bound(model, steps: int = 2000) -> dict:
    """Samples per second if a step did nothing but read, once, every array the compiled
    step reads per sample (weights and a stream's state, each in the precision the step
    reads it, laid end to end): the memory traffic a single stream cannot avoid."""
    import numba

    from sktdi.deep_model.stream_kernels import compiled_stepper

    stepper = compiled_stepper(model._inference_module(), 1)
    # in the precision the step reads each array: weights that hold float32 values are
    # read as float32 by a float64 step
    arrays = list(stepper.step_arrays().values())
    assert all(a.dtype in (np.float32, np.float64) for a in arrays), "a step array of another type"
    wide, narrow = (
        np.concatenate([a.ravel() for a in arrays if a.dtype == dtype] or [np.zeros(0, dtype)])
        for dtype in (stepper.dtype, np.float32 if stepper.dtype == np.float64 else np.float64)
    )

    @numba.njit(fastmath=True)
    def read(wide, narrow, times):  # pragma: no cover - compiled
        total = 0.0
        for _ in range(times):
            for i in range(wide.shape[0]):
                total += wide[i]
            for i in range(narrow.shape[0]):
                total += narrow[i]
        return total

    read(wide, narrow, 1)
    start = time.perf_counter()
    read(wide, narrow, steps)
    return {"read_bound_samples_per_s": steps / (time.perf_counter() - start),
            "read_bytes_per_sample": int(wide.nbytes + narrow.nbytes)}


def torch_step_rate(model, steps: int, rng) -> float:
    """Samples per second of one stream through the network's own torch ``step`` (what a
    stream ran before the compiled step): the same scaled samples, one call per sample."""
    import torch

    module = model._inference_module()
    dtype = next(module.parameters()).dtype
    x = torch.as_tensor(rng.normal(size=(1, model.n_channels_)), dtype=dtype)  # (1, C)
    with torch.no_grad():
        state = module.initial_state(1)
        _, state = module.step(x, state)  # warm-up
        start = time.perf_counter()
        for _ in range(steps):
            _, state = module.step(x, state)
    return steps / (time.perf_counter() - start)


def long_stream(model, steps: int, rng, chunk: int = 10_000) -> dict:
    """Resident memory of one stream after each tenth of ``steps`` samples."""
    live = model.stream(1)
    x = rng.normal(size=(1, 1, chunk))
    memory, start = [], time.perf_counter()
    for k in range(steps // chunk):
        live.update(x)
        if (k + 1) % (steps // chunk // 10) == 0:
            memory.append(_status_kib("VmRSS") / 1024)
    return {"n_streams": 1, "steps_per_stream": live.n_steps_,
            "samples_per_s": live.n_steps_ / (time.perf_counter() - start),
            "rss_mib_each_tenth": memory}


def prefix_rate(predict, series: np.ndarray) -> float:
    """Samples per second when every prefix of one series is predicted from scratch."""
    start = time.perf_counter()
    for t in range(1, series.shape[-1] + 1):
        predict([series[:, :t]])
    return series.shape[-1] / (time.perf_counter() - start)


def main() -> None:
    import torch

    from sktdi import SSMClassifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4000)
    parser.add_argument("--prefix-length", type=int, default=200)
    parser.add_argument("--long-steps", type=int, default=1_000_000)
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(1)
    X, y = _task()
    series = rng.normal(size=(1, args.prefix_length))
    rows = []
    for network in ("conv-s4d", "s4d"):
        # the network alone streams (a model with its fast path needs whole series)
        model = SSMClassifier(
            network=network, max_epochs=1, fast_path=False, random_state=0
        ).fit(X, y)
        single = SSMClassifier(
            network=network, max_epochs=1, fast_path=False, random_state=0,
            inference_dtype="float32",
        ).fit(X, y)
        for name, fitted, mode in ((network, model, "convolution"), (network, model, "step"),
                                   (f"{network} float32", single, "convolution")):
            for n_streams, chunk in ((1, 1), (1000, 100)):
                if mode == "step" and chunk == 1:
                    continue  # a single sample always runs the step
                steps = args.steps if n_streams == 1 else 200
                with _chunks_through(mode):
                    rate = stream_rate(fitted, n_streams, chunk, steps, rng)
                row = {"model": name, **({"mode": mode} if chunk > 1 else {}), **rate}
                rows.append(row)
                print(row, flush=True)
        rows.append({"model": network, "torch_step_samples_per_s": torch_step_rate(
            model, args.steps // 4, rng)})
        print(rows[-1], flush=True)
        for name, fitted in ((network, model), (f"{network} float32", single)):
            rows.append({"model": name, **read_bound(fitted)})
            print(rows[-1], flush=True)
        rows.append(
            {"model": network, "every_prefix_samples_per_s": prefix_rate(model.predict_proba, series)}
        )
        print(rows[-1], flush=True)
        rows.append({"model": network, **convolution_bound(model, rng)})
        print(rows[-1], flush=True)
    try:
        from sktdi.benchmark._minirocket_ridge import MiniRocketRidge
    except ImportError:  # pragma: no cover - sktime not installed
        MiniRocketRidge = None
    if MiniRocketRidge is not None:
        # MiniRocket's dilations are fitted to one length: fitted on series of the prefix
        # length, it predicts each prefix zero-padded to it (the cost of re-running it on
        # every prefix; an early classifier fits one per prefix length instead)
        X_long, y_long = _task(args.prefix_length)
        rocket = MiniRocketRidge(random_state=0).fit(X_long, y_long)
        rocket.predict(X_long[:1])  # numba compiles
        padded = np.zeros((1, 1, args.prefix_length))
        start = time.perf_counter()
        for t in range(1, args.prefix_length + 1):
            padded[0, :, :t] = series[:, :t]
            rocket.predict(padded)
        rows.append(
            {
                "model": "minirocket",
                "every_prefix_samples_per_s": args.prefix_length / (time.perf_counter() - start),
            }
        )
        print(rows[-1], flush=True)
    small = SSMClassifier(
        network="s4d", d_model=8, d_state=8, n_layers=1, max_epochs=1, fast_path=False,
        random_state=0,
    ).fit(X, y)
    rows.append({"model": "s4d-small", **long_stream(small, args.long_steps, rng)})
    print(rows[-1], flush=True)
    if args.out:
        report = {
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": {"cpu": platform.machine(), "torch": torch.__version__, "threads": 1},
            "runs": rows,
        }
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
