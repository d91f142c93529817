"""The generated regions of ``docs/gpu.md``, from the committed results they cite."""

from __future__ import annotations

import json

import pandas as pd

from ..shared.regions import region, results_dir
from ..shared.tables import _md_table

RESULTS = results_dir("gpu")  # this study's committed results


PREDICT_MEMORY = RESULTS / "predict_memory.json"


@region("predict-memory")
def predict_memory() -> str:
    """docs/gpu.md: ``predict``'s peak memory and throughput on long inputs (CPU), from
    benchmarks/gpu/bench_predict_memory.py's results."""

    result = json.loads(PREDICT_MEMORY.read_text())
    runs = result["runs"]
    rows = [
        [
            f"{r['n_series']:,}",
            f"{r['input_mib']:.0f} MiB",
            f"{r['peak_increase_mib']:.0f} MiB",
            f"{r['predict_s']:.0f} s",
            f"{r['series_per_s']:.0f}",
            f"{r['load_average_after']:.1f}",
        ]
        for r in runs
    ]
    table = pd.DataFrame(
        rows,
        columns=[
            f"series of length {runs[0]['length']}",
            f"X ({runs[0]['input_dtype']})",
            "peak memory of `predict` (above the process before the call)",
            "time",
            "series/s",
            "machine load",
        ],
    )
    model = result["model"]
    return (
        _md_table(table, align=["r"] * 6)
        + f"\n`predict` of an {model['estimator']}, {runs[0]['inference_dtype']} inference, "
        f"batches of {runs[0]['predict_batch_size']} series, {runs[0]['torch_threads']} CPU "
        f"threads of a {result['machine']['cpu_count']}-core machine, each size in a fresh "
        "process; peak: the kernel's resident high-water mark; machine load: the 1-minute load "
        "average at the end, other work included (above 2, the series/s are shared with it). "
        "`benchmarks/gpu/bench_predict_memory.py`.\n"
    )
