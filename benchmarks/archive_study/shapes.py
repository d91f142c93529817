"""Each archive dataset's shape, for the page's cost exponents: training and test series, the
median length of the training series, and the classes.

    python benchmarks/archive_study/shapes.py DATA_DIR > benchmarks/archive_study/results/shapes.csv
"""

from __future__ import annotations

import sys


def main(data_dir: str) -> None:
    import numpy as np
    import pandas as pd

    from sktdi.datasets import archive_datasets, load_ucr_split

    rows = []
    for name in archive_datasets(data_dir):
        X_train, y_train, X_test, _ = load_ucr_split(name, data_dir)
        lengths = [np.asarray(x).shape[-1] for x in X_train]
        rows.append({"dataset": name, "n_train": len(y_train), "n_test": len(X_test),
                     "length": int(np.median(lengths)), "n_classes": len(set(y_train))})
    pd.DataFrame(rows).to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main(sys.argv[1])
