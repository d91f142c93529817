#!/usr/bin/env bash
# The data-efficiency study (issue #6): one command, resumable. About 1.5 hours on 2 CPU cores (3 resamples: 1 hour);
# rerun the same command to continue an interrupted run (finished cells are skipped).
set -euo pipefail
cd "$(dirname "$0")/../.."
sktdi benchmark \
  --datasets planted ItalyPowerDemand GunPoint ArrowHead digits OSULeaf \
  --ratios 0.04 0.08 0.16 1.0 \
  --resamples 5 \
  --estimators tdi auto s4d-lin s4d-inv tdi-control tdi+ridge minirocket \
  --out benchmarks/study/results "$@"
