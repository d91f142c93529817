"""Streams at each input scaling (issue 64's target: the default's samples per second within
10% of the previous default's, for one stream and for 1,000): a fitted SSMClassifier per
scaling (one epoch on GunPoint, whose series the streams replay), then

- one stream fed one sample at a time (the compiled step), over ``--steps`` samples;
- 1,000 streams fed 3 chunks of 100 samples each (the convolution mode);

samples per second, each the best of ``--repeats`` runs, on one thread, the scalings
interleaved in one process so that they share the machine's state.

    OMP_NUM_THREADS=1 python benchmarks/raw_data/stream_rate.py

writes benchmarks/raw_data/results/stream_rate.csv.
"""

from __future__ import annotations

import argparse
import csv
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "stream_rate.csv"
SCALINGS = ("channel", "running", "running+scale")


def rates(model, X: np.ndarray, steps: int) -> dict:
    """Samples per second: one stream a sample at a time, 1,000 streams by chunks of 100."""
    series = np.tile(X, (1, 1, steps // X.shape[-1] + 1))[..., :steps]  # (n, C, steps)
    one = model.stream(1)
    one.update(series[:1, :, :5])  # compiled and warm
    one = model.stream(1)
    start = time.perf_counter()
    for k in range(steps):
        one.update(series[:1, :, k])
    single = steps / (time.perf_counter() - start)
    chunk_steps = 300  # 1,000 streams × 300 samples: 3 chunks of 100
    many = np.tile(series, (1000 // len(series) + 1, 1, 1))[:1000, :, :chunk_steps]
    streams = model.stream(1000)
    streams.update(many[:, :, :100])
    streams = model.stream(1000)
    start = time.perf_counter()
    for k in range(0, chunk_steps, 100):
        streams.update(many[:, :, k : k + 100])
    chunked = 1000 * chunk_steps / (time.perf_counter() - start)
    return {"one_stream": single, "streams_1000": chunked}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    from sktdi import SSMClassifier
    from sktdi.datasets import load_ucr

    X, y = load_ucr("GunPoint", "train")
    models = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scaling in SCALINGS:
            models[scaling] = SSMClassifier(
                input_scaling=scaling, max_epochs=1, fast_path=False, random_state=0, n_threads=1
            ).fit(X, y)
    best: dict = {s: {"one_stream": 0.0, "streams_1000": 0.0} for s in SCALINGS}
    for _ in range(args.repeats):
        for scaling in SCALINGS:
            for key, value in rates(models[scaling], X, args.steps).items():
                best[scaling][key] = max(best[scaling][key], value)
    with RESULTS.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["scaling", "one_stream", "streams_1000"])
        writer.writeheader()
        for scaling, row in best.items():
            writer.writerow({"scaling": scaling, **{k: round(v) for k, v in row.items()}})
            print(scaling, row, flush=True)


if __name__ == "__main__":
    main()
