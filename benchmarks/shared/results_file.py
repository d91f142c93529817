"""The results-file convention of the studies' runners: one row per cell, the columns that
name a cell (its ``key``: dataset, arm or estimator, resample, budget, ...) followed by what
was measured; the file is rewritten as each cell finishes, so an interrupted run loses one cell
and a rerun skips the cells the file already holds."""

from __future__ import annotations

import re
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


def run_unfinished(run, cells: list[tuple], out: Path, key: list[str], n_jobs: int) -> list[dict]:
    """``run_cells`` for the ``cells`` the results file ``out`` does not hold yet (a stopped
    run resumed); every row, those it held first."""
    rows, done = finished_rows(out, key)
    todo = [cell for cell in cells if cell not in done]
    print(f"{len(todo)} cells to run", flush=True)
    return run_cells(run, todo, rows, out, key, n_jobs)


# --------------------------------------------------------------------------------------
# a study's manifest: the "## Results" table of its README names every committed results file
# and what writes it, so no file lies in a study folder without a way to make it again

MANIFEST_HEADING = "## Results"


def manifest(study: Path) -> list[tuple[str, str]]:
    """(pattern, writer) per row of the README's results table: ``pattern`` a path relative to
    the study's folder (``results/x.csv``; ``*`` matches within a name, a trailing ``/`` a
    whole folder), ``writer`` the first code span of the row's second cell (the script in the
    folder, or ``shared/…`` for the shared machinery, that writes the file)."""
    text = (study / "README.md").read_text()
    if MANIFEST_HEADING not in text:
        return []
    table = text.split(MANIFEST_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue  # the header, its rule, prose
        pattern = cells[0].strip("`")
        writer = re.search(r"`([^`]+)`", cells[1])
        rows.append((pattern, writer.group(1) if writer else ""))
    return rows


def results_files(study: Path) -> list[Path]:
    """The files of a study's ``results/`` folder (a run's log is a by-product, not a result:
    git ignores the GPU check's)."""
    folder = study / "results"
    if not folder.exists():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".log")


def manifest_files(study: Path, pattern: str) -> list[Path]:
    """The committed files a manifest pattern names."""
    if pattern.endswith("/"):
        return sorted(p for p in (study / pattern).rglob("*") if p.is_file())
    return sorted(p for p in study.glob(pattern) if p.is_file())
