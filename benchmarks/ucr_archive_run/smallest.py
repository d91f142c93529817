"""The N datasets of an archive folder with the fewest training steps (series × length) that
the cost model was not fitted on (benchmarks/cost_model/fit_cost_model.py's CHOICE), one a line.

Usage: python benchmarks/ucr_archive_run/smallest.py DATA_DIR N
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``


def main(data_dir: str, n: int) -> None:
    import numpy as np

    from benchmarks.shared.ucr_archive import CHOICE
    from sktdi.datasets import archive_datasets, load_dataset_split

    sizes = {}
    for name in archive_datasets(data_dir):
        if name in CHOICE:
            continue
        X_train, *_ = load_dataset_split(name, data_dir)
        sizes[name] = len(X_train) * float(np.mean([np.shape(x)[-1] for x in X_train]))
    for name in sorted(sizes, key=sizes.get)[:n]:
        print(name)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
