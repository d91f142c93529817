"""An S4D network's epochs with subnormal floats flushed to zero and not (``results/denormals.csv``).

Fits ``SSMClassifier(random_state=0, max_epochs=EPOCHS)`` on CBF's training split (30 series of
128 steps) in this process, one thread, twice: as ``fit`` trains now
(:func:`sktdi.utils.threads.flushed_denormals`), and with the CPU made to keep subnormals
(the fit's flush undone inside its training loop), and writes each epoch's seconds and
validation loss.

Usage: python benchmarks/cost_model/denormals.py DATA_DIR [EPOCHS]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

RESULTS = Path(__file__).parent / "results"


def main(data_dir: str, epochs: int = 6) -> None:
    import torch

    from sktdi import SSMClassifier
    from sktdi.datasets import load_dataset_split
    from sktdi.deep_model import base

    X, y, _, _ = load_dataset_split("CBF", data_dir)
    X = np.asarray(X, dtype=np.float64)
    rows = []
    flushed = base.flushed_denormals
    for flush in (True, False):
        if not flush:  # the fit as it trained before: subnormals kept
            import contextlib

            @contextlib.contextmanager
            def kept():
                torch.set_flush_denormal(False)
                yield

            base.flushed_denormals = kept
        model = SSMClassifier(random_state=0, max_epochs=epochs, n_threads=1).fit(X, y)
        base.flushed_denormals = flushed
        for i, row in enumerate(model.history_, start=1):
            rows.append({"flushed": flush, "epoch": i, "seconds": row["dur"],
                         "valid_loss": row.get("valid_loss", np.nan)})
    table = pd.DataFrame(rows)
    table.to_csv(RESULTS / "denormals.csv", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
