"""Check that every published figure the run's summary sets beside it is the published file's.

Sets the run's results beside the published results as ``sktdi benchmark --published`` does
(:func:`sktdi.benchmark.summary.summarize`), then reads each published file again on its own
(the csv module: aeon's tables' resample 0, the means table's accuracy) and compares every
(dataset, classifier) figure. Writes ``results/light_beside_published.csv`` (the table of the
summary) and ``results/light_published_check.csv`` (per classifier: figures, equal, largest
difference).

Usage: python benchmarks/ucr_archive_run/check_published.py RUN_DIR MINIROCKET_MEANS_CSV
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent / "results"


def _file_figures(path: Path, means: bool) -> dict[str, float]:
    """dataset -> the figure a run of resample 0 pairs with, read with the csv module."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if means:  # dataset,accuracy,...
        column = rows[0].index("accuracy")
        return {r[0]: float(r[column]) for r in rows[1:] if r[column]}
    column = rows[0].index("0")  # "Resamples:,0,1,..."
    return {r[0]: float(r[column]) for r in rows[1:] if r[column]}


def main(run_dir: str, minirocket: str) -> None:
    from sktdi.benchmark.published import aeon_reference_folder, column_name, read_all_published
    from sktdi.benchmark.results_file import read_results
    from sktdi.benchmark.summary import summarize

    results = read_results(Path(run_dir) / "results.csv")
    published = read_all_published(["aeon", f"MiniRocket={minirocket}"])
    beside = summarize(results, published=published)["published"]
    table = beside["table"]
    table.to_csv(HERE / "light_beside_published.csv")
    sources = {name: (aeon_reference_folder() / f"{name}_accuracy.csv", False)
               for name in ("HC2", "InceptionTime", "FreshPRINCE", "WEASEL-2.0")}
    sources["MiniRocket"] = (Path(minirocket), True)
    rows = []
    for name, (path, means) in sources.items():
        truth = _file_figures(path, means)
        got = table[column_name(name)].dropna()
        expected = np.array([truth[d] for d in got.index])
        rows.append({"classifier": name, "figures": len(got),
                     "equal": int((got.to_numpy() == expected).sum()),
                     "largest_difference": float(np.abs(got.to_numpy() - expected).max()),
                     "datasets_lacking": int(table[column_name(name)].isna().sum())})
    check = pd.DataFrame(rows)
    check.to_csv(HERE / "light_published_check.csv", index=False)
    print(check.to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
