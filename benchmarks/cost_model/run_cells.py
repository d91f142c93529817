"""Time benchmark cells on real UCR archive datasets: the data the cost model is fitted to.

Each cell runs as ``sktdi benchmark`` runs it (:func:`sktdi.benchmark.run_cell`: data loading,
warm-up, fit, predict) in this process, one thread, one cell at a time; its wall time and the
dataset's size go to ``results/cells_<name>.csv`` as it finishes (resumable: a cell already
there is skipped): ``results/cells_light.csv`` for MiniRocket and the fast path,
``results/cells_deep.csv`` for the one model (with its epochs, read from the fitted model).

Usage: python benchmarks/cost_model/run_cells.py NAME DATA_DIR ARMS DATASET [DATASET ...]
(ARMS comma-separated, e.g. minirocket-ridge,tdi+ridge+minirocket)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).parent / "results"


# what the network's fit did, read from the fitted model as the cell reports TDI's action
_FIT: dict = {}


def _watch_fits() -> None:
    """Keep each fitted model's epochs, mean epoch seconds and held-out share (the runner
    reads the model once, for TDI's action; the results file keeps neither)."""
    from sktdi.benchmark import runner

    report_action = runner.tdi_action

    def tdi_action(model):
        _FIT.clear()
        history = getattr(getattr(model, "net_", None), "history", None)
        if history is not None:
            report = getattr(model, "fast_path_report_", None) or {}
            _FIT.update(
                epochs=int(getattr(model, "n_epochs_", len(history))),
                epoch_seconds=float(np.mean([row.get("dur", np.nan) for row in history]))
                if len(history) else np.nan,
                validation_fraction=report.get("validation_fraction", np.nan),
                best_epoch=report.get("best_epoch", np.nan),
            )
        return report_action(model)

    runner.tdi_action = tdi_action


def main(name: str, data_dir: str, arms: str, datasets: list[str]) -> None:
    from sktdi.benchmark import Cell, run_cell
    from sktdi.datasets import load_dataset_split

    _watch_fits()

    path = RESULTS / f"cells_{name}.csv"
    done = set()
    if path.exists():
        old = pd.read_csv(path)
        done = set(zip(old["dataset"], old["estimator"]))
    for dataset in datasets:
        X_train, y_train, X_test, _ = load_dataset_split(dataset, data_dir)
        length = float(np.mean([np.shape(x)[-1] for x in X_train]))
        for arm in arms.split(","):
            if (dataset, arm) in done:
                continue
            start = time.perf_counter()
            row = run_cell(Cell(dataset, 1.0, 0, arm, data_dir=data_dir, threads=1))
            wall = time.perf_counter() - start
            out = {
                "dataset": dataset, "estimator": arm, "n_train": len(y_train),
                "n_test": len(X_test), "length": length, "n_classes": len(np.unique(y_train)),
                "wall_seconds": wall, "fit_seconds": row.get("fit_seconds"),
                "predict_seconds": row.get("predict_seconds"), "accuracy": row.get("accuracy"),
                "status": row["status"], "error": row.get("error", ""),
                **{k: _FIT.get(k, np.nan) for k in
                   ("epochs", "epoch_seconds", "validation_fraction", "best_epoch")},
            }
            pd.DataFrame([out]).to_csv(path, mode="a", header=not path.exists(), index=False)
            print(f"{dataset} {arm}: {wall:.1f} s ({row['status']})", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
