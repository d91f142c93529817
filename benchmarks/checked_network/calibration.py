"""Each cell's probabilities scored from a run's tsml-eval results files: accuracy, log-loss,
the Brier score and the expected calibration error (15 bins), a row per estimator and
dataset, as CSV on stdout.

    python benchmarks/checked_network/calibration.py RUN_FOLDER > results/calibration.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sktdi.benchmark.probabilities import brier, expected_calibration_error, log_loss


def read_predictions(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A tsml-eval test results file's true class indices (n,) and probabilities (n, K)."""
    lines = path.read_text().splitlines()[3:]
    codes, proba = [], []
    for line in lines:
        fields = line.split(",")
        codes.append(int(fields[0]))
        proba.append([float(v) for v in fields[3:] if v != ""])
    return np.asarray(codes), np.asarray(proba)


def scores(run: Path) -> pd.DataFrame:
    rows = []
    root = run / "tsml" / "ratio1"
    for path in sorted(root.glob("*/Predictions/*/testResample0.csv")):
        estimator, dataset = path.parts[-4], path.parts[-2]
        codes, proba = read_predictions(path)
        rows.append({
            "dataset": dataset, "estimator": estimator,
            "accuracy": float(np.mean(proba.argmax(axis=1) == codes)),
            "log_loss": log_loss(proba, codes), "brier": brier(proba, codes),
            "ece": expected_calibration_error(proba, codes),
        })
    return pd.DataFrame(rows)


if __name__ == "__main__":
    scores(Path(sys.argv[1])).to_csv(sys.stdout, index=False, float_format="%.6g")
