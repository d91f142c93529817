#!/usr/bin/env bash
# The default benchmark as a user runs it (`sktdi benchmark`, every default), its results,
# settings and wall time copied into this study, then the pages and figures regenerated.
# About 5 minutes on 2 cores; needs the benchmark extra (pip install -e ".[benchmark]").
#
#   bash benchmarks/default_benchmark/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
run="${1:-runs/default}"
sktdi benchmark --out "$run"
here=benchmarks/default_benchmark/results
cp "$run/results.csv" "$here/default_benchmark_results.csv"
cp "$run/settings.json" "$here/default_benchmark_settings.json"
cp "$run/run.json" "$here/default_benchmark_run.json"
python benchmarks/doc_figures.py --figures
