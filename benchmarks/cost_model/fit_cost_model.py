"""Fit the benchmark's cost model (sktdi/benchmark/progress.py) to the timed cells.

Reads ``results/cells_light.csv`` (MiniRocket and the fast path) and ``results/cells_deep.csv``
(the one model, ``tdi``), written by ``run_cells.py`` on the choice datasets alone, and prints
the coefficients for progress.py's constants, then each cell's predicted against measured
seconds with the coefficients progress.py holds now. Writes ``results/fit.json``.

Each process's first cell of an arm is left out of the fit: its wall time holds the warm-up
fit (numba's compilation, torch's first optimizer), which the cost model counts apart.

Usage: python benchmarks/cost_model/fit_cost_model.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import nnls

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``

from benchmarks.shared.ucr_archive import CHOICE

RESULTS = Path(__file__).parent / "results"


def _warm(table: pd.DataFrame) -> pd.DataFrame:
    """The cells after each arm's first (that one's wall time holds the warm-up)."""
    return table[table.groupby("estimator").cumcount() > 0]


def _relative_nnls(A: np.ndarray, y: np.ndarray, floor: float = 0.2) -> np.ndarray:
    """Non-negative least squares on relative errors (a cell of 0.1 s and one of 100 s count
    alike), seconds below ``floor`` weighed as ``floor``."""
    w = 1.0 / np.maximum(y, floor)
    coef, _ = nnls(A * w[:, None], y * w)
    return coef


def fit_light(cells: pd.DataFrame) -> dict:
    out = {}
    for arm, family in (("minirocket-ridge", "minirocket"), ("tdi+ridge+minirocket", "fast path")):
        part = _warm(cells[cells["estimator"] == arm])
        n, m, length = part["n_train"], part["n_test"], part["length"]
        A = np.c_[np.ones(len(part)), (n + m) * np.maximum(length, 9), n**2, n**3.0]
        coef = _relative_nnls(A, part["wall_seconds"].to_numpy())
        out[family] = dict(zip(["fixed", "per_step", "gram", "eigen"], map(float, coef)))
    return out


def fit_deep(deep: pd.DataFrame, light: pd.DataFrame) -> dict:
    deep = _warm(deep).copy()
    steps = np.maximum(deep["length"], 64)
    held = np.where(deep["validation_fraction"] > 0, np.ceil(0.2 * deep["n_train"]), 0)
    n_fit = deep["n_train"] - held
    # a fixed part, a part per series (its minibatches' overhead) and one per step
    A = np.c_[np.ones(len(deep)), n_fit, n_fit * steps]
    a, c, b = _relative_nnls(A, deep["epoch_seconds"].to_numpy(), floor=0.05)
    fast = light[light["estimator"] == "tdi+ridge+minirocket"].set_index("dataset")
    network_predict = deep["predict_seconds"] - deep["dataset"].map(fast["predict_seconds"])
    per_step = network_predict / (deep["n_test"] * steps)
    early = deep.loc[deep["validation_fraction"] > 0, "epochs"]
    return {"epoch": [float(a), float(c), float(b)], "predict_per_step": float(np.nanmedian(per_step)),
            "early_stopped_epochs": float(early.mean()),
            "early_stopped_epochs_range": [int(early.min()), int(early.max())]}


def check(cells: pd.DataFrame, data_dir: str) -> pd.DataFrame:
    """Each cell's seconds as progress.py predicts them now, beside the measured.

    The one model's cells were timed when the runner made two test passes (``predict``, then
    ``predict_proba`` for the log-loss); it now takes both from one pass
    (:func:`sktdi.benchmark.runner.run_cell`), so one pass (``predict_seconds``) is taken off
    their wall time."""
    from sktdi.benchmark import Cell
    from sktdi.benchmark.progress import cell_parts

    rows = []
    for row in cells.itertuples():
        parts = cell_parts(Cell(row.dataset, 1.0, 0, row.estimator, data_dir=data_dir))
        second_pass = row.predict_seconds if row.estimator == "tdi" else 0.0
        rows.append({"dataset": row.dataset, "estimator": row.estimator,
                     "measured": row.wall_seconds - second_pass,
                     "predicted": parts["fit"] + parts["epochs"] + parts["predict"]})
    return pd.DataFrame(rows)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(Path.home() / ".cache" / "ucr2018"))
    args = parser.parse_args()
    light = pd.read_csv(RESULTS / "cells_light.csv")
    deep = pd.read_csv(RESULTS / "cells_deep.csv")
    light, deep = light[light["dataset"].isin(CHOICE)], deep[deep["dataset"].isin(CHOICE)]
    fitted = {"light": fit_light(light), "deep": fit_deep(deep, light)}
    print(json.dumps(fitted, indent=1))
    (RESULTS / "fit.json").write_text(json.dumps(fitted, indent=1) + "\n")
    table = check(_warm(pd.concat([light, deep])), args.data_dir)
    table["ratio"] = table["predicted"] / table["measured"]
    print(table.round(3).to_string(index=False))
    for arm, part in table.groupby("estimator"):
        print(f"{arm}: measured {part['measured'].sum():.0f} s, predicted "
              f"{part['predicted'].sum():.0f} s")


if __name__ == "__main__":
    main()
