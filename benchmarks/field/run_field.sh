#!/usr/bin/env bash
# Issue 13's field run: the default SSMClassifier and MiniRocket side by side on every
# classification dataset shipped with sktime plus digits, full training sets and 8%/16% of
# them, official split + 4 resamples; S4D-Lin and the TDI control arm at the small ratios
# and the official full split. One results table (the second and third commands add to it;
# every command resumes). Then the regression datasets. About 1 hour on 2 CPU cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-runs/field}
datasets=(GunPoint ItalyPowerDemand ArrowHead OSULeaf ACSF1 BasicMotions JapaneseVowels digits)
sktdi benchmark --datasets "${datasets[@]}" --ratios 0.08 0.16 1.0 --resamples 5 \
  --estimators tdi minirocket --out "$out" --no-plot
sktdi benchmark --datasets "${datasets[@]}" --ratios 0.08 0.16 --resamples 5 \
  --estimators s4d-lin tdi-control --out "$out" --no-plot
sktdi benchmark --datasets "${datasets[@]}" --ratios 1.0 --resamples 1 \
  --estimators s4d-lin tdi-control --out "$out" --no-plot
python benchmarks/kernel_regime/field_regression.py --out "$out/regression_results.csv"
