"""Peak memory and seconds of ``SSMClassifier()`` at its defaults on the archive's largest
datasets (issue 77): each fit and prediction of the official split in a process of its own,
one thread, its peak resident memory read from the kernel (VmHWM) after loading the data and
after fitting and predicting.

    OMP_NUM_THREADS=1 python benchmarks/archive_study/memory.py DATA_DIR \\
        --out benchmarks/archive_study/results/memory.csv
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# the largest by training series and by series length: those issue 77 names
LARGEST = ("ElectricDevices", "Crop", "FordA", "FordB", "HandOutlines", "EthanolLevel")
FIELDS = ("dataset", "n_train", "n_test", "length", "accuracy", "fit_seconds",
          "predict_seconds", "data_mib", "peak_mib", "model")

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from benchmarks.shared.measure import _status_kib
from sktdi import SSMClassifier
from sktdi.datasets import load_ucr_split
X, y, Xt, yt = load_ucr_split({name!r}, {data_dir!r})
data = _status_kib("VmHWM")
start = time.perf_counter()
model = SSMClassifier(random_state=0).fit(X, y)
fitted = time.perf_counter()
accuracy = float((model.predict(Xt) == yt).mean())
print(json.dumps({{"n_train": len(y), "n_test": len(yt), "length": X.shape[-1],
    "accuracy": accuracy, "fit_seconds": fitted - start,
    "predict_seconds": time.perf_counter() - fitted, "data_mib": data / 1024,
    "peak_mib": _status_kib("VmHWM") / 1024, "model": model.fast_path_report_["model"]}}))
"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir")
    parser.add_argument("--datasets", nargs="+", default=list(LARGEST))
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    out = Path(args.out)
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        writer.writeheader()
        for name in args.datasets:
            code = CHILD.format(root=str(ROOT), name=name, data_dir=args.data_dir)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True)
            row = {"dataset": name, **json.loads(done.stdout.strip().splitlines()[-1])}
            writer.writerow({k: round(v, 3) if isinstance(v, float) else v
                             for k, v in row.items()})
            handle.flush()
            print(row, flush=True)


if __name__ == "__main__":
    main()
