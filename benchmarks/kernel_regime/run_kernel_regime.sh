#!/usr/bin/env bash
# The kernel-regime comparison (issue 15): the untrained TDI bank with a ridge head against
# MiniRocket, side by side in one run; the S4D-Lin bank with the same features shows what the
# alignment adds. Resumable (finished cells are skipped on a rerun); about 40 minutes on
# 2 CPU cores.
#
# "minirocket-ridge" is MiniRocket's transform and ridge head; "minirocket" is sktime's
# RocketClassifier, the same algorithm behind a wrapper whose input conversions cost seconds
# per cell. It predicts identically, so it runs on the official splits only (resample 0), as
# the clock users of sktime see and as a check that the two agree.
# The harness runs in runs/kernel_regime (a rerun resumes there); its results table is then
# copied to benchmarks/kernel_regime/results/results.csv (its summary and figures stay in
# runs/).
set -euo pipefail
cd "$(dirname "$0")/../.."
run=runs/kernel_regime
DATASETS="planted ItalyPowerDemand GunPoint ArrowHead digits OSULeaf ACSF1 BasicMotions
          JapaneseVowels"
sktdi benchmark --datasets $DATASETS --ratios 0.04 0.08 0.16 0.32 1.0 --resamples 5 \
  --estimators tdi+ridge s4d-lin+ridge tdi+ridge+minirocket s4d-lin+ridge+minirocket \
               minirocket-ridge \
  --out "$run" "$@"
sktdi benchmark --datasets $DATASETS --ratios 0.04 0.08 0.16 0.32 1.0 --resamples 1 \
  --estimators minirocket --out "$run" "$@"
cp "$run/results.csv" benchmarks/kernel_regime/results/results.csv
