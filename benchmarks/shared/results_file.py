"""The results-file convention of the studies' runners: one row per cell, the columns that
name a cell (its ``key``: dataset, arm or estimator, resample, budget, ...) followed by what
was measured; the file is rewritten as each cell finishes, so an interrupted run loses one cell
and a rerun skips the cells the file already holds."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed


def finished_rows(out: Path, key: list[str]) -> tuple[list[dict], set[tuple]]:
    """The rows a results file already holds, and their ``key`` tuples (a rerun skips them)."""
    if not out.exists():
        return [], set()
    rows = pd.read_csv(out).to_dict("records")
    return rows, {tuple(r[k] for k in key) for r in rows}


def run_cells(run, cells: list[tuple], rows: list[dict], out: Path, key: list[str], n_jobs: int):
    """``run(*cell)`` for every cell, ``n_jobs`` at a time; each row is appended to ``rows``
    and the whole file rewritten as it finishes, so that an interrupted run loses one cell."""
    out.parent.mkdir(parents=True, exist_ok=True)
    for row in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(run)(*cell) for cell in cells
    ):
        rows.append(row)
        pd.DataFrame(rows).sort_values(key).to_csv(out, index=False)
        print(f"{len(rows)} {row}", flush=True)
    return rows
