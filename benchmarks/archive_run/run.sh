#!/usr/bin/env bash
# The main job over a whole archive folder, as a researcher with the UCR archive on disk runs it:
# `sktdi benchmark --datasets all --data-dir FOLDER`, here over a 24-dataset folder built from
# sktime's shipped sets and generated ones (build_archive.py). The fast arms (TDI and S4D-Lin in
# the fast path, MiniRocket, 1-NN) at the full training sets, 3 resamples: minutes on 2 cores.
# Then tsml-eval's own evaluation of the run's results files (check_tsml.py), and the same grid
# again through a Dask LocalCluster of 2 workers, for the throughput of each backend.
#
#   bash benchmarks/archive_run/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-runs/archive}"
here=benchmarks/archive_run/results
rm -rf "$work"
python benchmarks/archive_run/build_archive.py "$work/data"
arms=(tdi+ridge s4d-lin+ridge minirocket-ridge 1nn-euclidean)
grid=(--datasets all --data-dir "$work/data" --estimators "${arms[@]}" --ratios 1 --resamples 3)
sktdi benchmark "${grid[@]}" --out "$work/loky" 2> "$work/loky_stderr.txt"
sktdi benchmark "${grid[@]}" --backend dask --quiet --out "$work/dask" > /dev/null 2> /dev/null
python benchmarks/archive_run/check_tsml.py "$work/loky" "$here/archive_tsml_check.csv"
cp "$work/loky/results.csv" "$here/archive_results.csv"
cp "$work/loky/skipped.csv" "$here/archive_skipped.csv"
python - "$work" "$here/archive_throughput.csv" <<'EOF'
import json, sys
from pathlib import Path
import pandas as pd
work, save = Path(sys.argv[1]), sys.argv[2]
rows = []
for backend in ("loky", "dask"):
    run = json.loads((work / backend / "run.json").read_text())
    rows.append({"backend": backend, "n_jobs": run["n_jobs"], "cells": run["cells_computed"],
                 "wall_seconds": run["wall_seconds"], "expected_seconds": run["expected_seconds"],
                 "cells_per_minute": round(60 * run["cells_computed"] / run["wall_seconds"], 1)})
pd.DataFrame(rows).to_csv(save, index=False)
print(pd.DataFrame(rows).to_string(index=False))
EOF
