"""The generated region of ``docs/estimators.md`` on threads: the threads study
(benchmarks/threads/threads.py, benchmarks/threads/results/threads.csv)."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _md_table

RESULTS = results_dir("threads") / "threads.csv"
WORKLOADS = {
    "deep-fit": "SSMClassifier fit, GunPoint, 3 epochs",
    "deep-fit-long": "SSMClassifier fit, 40 series of 4,000 steps, 1 epoch",
    "deep-predict": "SSMClassifier predict, GunPoint's 150 test series, 5 times",
    "stream": "100 streams, 150 samples one at a time",
    "fast-fit": "SpectralRidgeClassifier fit and predict, GunPoint, 10 times",
    "fast-fit-minirocket": "SpectralRidgeClassifier(rocket=\"minirocket\") fit and predict, "
    "10 times",
}
LOADS = {"idle": "idle", "one-busy": "one core busy", "all-busy": "every core busy"}


def medians() -> pd.DataFrame:
    """Median seconds per (workload, load) and thread setting."""
    runs = _csv(RESULTS)
    return runs.pivot_table(
        index=["workload", "load"], columns="setting", values="seconds", aggfunc="median"
    )


def _setting(s: str) -> str:
    if s == "auto":
        return "idle cores (not adopted)"
    if s == "1":
        return "1 thread (the default)"
    return f"{s} threads"


def _seconds(value: float) -> str:
    from .threads import TIMEOUT

    return f"> {TIMEOUT}" if value >= TIMEOUT else f"{value:.2f}"


@region("threads-default")
def threads_default() -> str:
    table = medians()
    cores = int(_csv(RESULTS)["cores"].iloc[0])
    table.columns = table.columns.astype(str)
    settings = [str(k) for k in range(1, cores + 1) if str(k) in table]
    settings += ["auto"] if "auto" in table else []
    every = str(cores)
    rows = []
    for (workload, load), r in table.iterrows():
        rows.append({
            "workload": WORKLOADS.get(workload, workload),
            "machine": LOADS.get(load, load),
            **{_setting(s): _seconds(r[s]) for s in settings},
            f"{every} ÷ 1": f"{r[every] / r['1']:.2f}",
            **({"idle cores ÷ 1": f"{r['auto'] / r['1']:.2f}"} if "auto" in settings else {}),
        })
    order = {w: i for i, w in enumerate(WORKLOADS.values())}
    frame = pd.DataFrame(rows)
    frame = frame.sort_values("workload", key=lambda c: c.map(order), kind="stable")
    runs = _csv(RESULTS).groupby("workload")["repeat"].nunique()
    counts = " and ".join(
        f"{n} for {', '.join(sorted(runs.index[runs == n]))}" for n in sorted(runs.unique())
    )
    return (
        _md_table(frame)
        + f"\nSeconds, the median of each workload's runs ({counts}), each run in a fresh "
        f"process, on {cores} cores; a busy core is another process spinning on it "
        "(`python benchmarks/threads/threads.py`).\n"
    )
