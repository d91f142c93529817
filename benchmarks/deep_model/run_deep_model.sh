#!/usr/bin/env bash
# Issue 22's runs, in the order they were made (docs/deep_model.md). Rows are appended as
# cells finish and a rerun skips finished cells. The bridge and side-by-side runs shared the
# 2-core machine; the timing run had it to itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
SETS="ItalyPowerDemand GunPoint ArrowHead BasicMotions JapaneseVowels OSULeaf"

# TDI against S4D-Lin on the new network at small budgets (issue 14's check)
python benchmarks/budgets/learning_curves.py --mode test --arms tdi s4d-lin \
    --datasets pixel-digits --ratios 0.16 --budgets 5 20 --resamples 2 --n-jobs 1 \
    --out benchmarks/budgets/results/learning_curves_conv_s4d.csv

# the bridge study: CV inside the training splits (OSULeaf: the first of 3 folds)
python benchmarks/deep_model/bridge_study.py --datasets ArrowHead GunPoint --arms inceptiontime inception \
    inception-causal inception-s4d s4d s4d-local s4d-deep --out benchmarks/deep_model/results/bridge_study.csv
python benchmarks/deep_model/bridge_study.py --datasets OSULeaf --max-folds 1 \
    --arms inception-s4d s4d inceptiontime inception inception-causal conv-s4d-recipe \
    conv-s4d-narrow s4d-local s4d-deep --out benchmarks/deep_model/results/bridge_study.csv
python benchmarks/deep_model/bridge_study.py --datasets ArrowHead GunPoint --arms conv-s4d-recipe \
    --out benchmarks/deep_model/results/bridge_study.csv
python benchmarks/deep_model/bridge_study.py --datasets ItalyPowerDemand BasicMotions \
    --arms inception-s4d s4d inceptiontime inception inception-causal --n-jobs 1 \
    --out benchmarks/deep_model/results/bridge_study.csv
python benchmarks/deep_model/bridge_study.py --task regression --n-jobs 1 \
    --out benchmarks/deep_model/results/bridge_study_regression.csv

# side by side at the full training sets, official split, 100 epochs for every deep model
# (digits and the s4d-lin arm were started, then dropped for time: see the page)
sktdi benchmark --datasets $SETS --ratios 1.0 --resamples 1 --n-jobs 1 --no-plot \
    --estimators minirocket inceptiontime resnet tdi s4d-network --out runs/deep_field
cp runs/deep_field/results.csv benchmarks/deep_model/results/deep_field_results.csv

# two training series per class
sktdi benchmark --datasets $SETS digits pixel-digits --ratios 0.01 --min-per-class 2 --resamples 3 \
    --n-jobs 1 --no-plot --estimators tdi tdi+ridge s4d-network --out runs/deep_fewshot
cp runs/deep_fewshot/results.csv benchmarks/deep_model/results/deep_fewshot_results.csv

# issue 36's long few-shot target: ACSF1 (1460 steps) at two training series per class, the
# default against the previous default (the S4D network), MiniRocket and the fast path beside
# them (the fast path's cells were added to the same results file after the others)
sktdi benchmark --datasets ACSF1 --ratios 0.01 --min-per-class 2 --resamples 3 --n-jobs 1 \
    --no-plot --estimators tdi s4d-network minirocket tdi+ridge --out runs/deep_fewshot_long
cp runs/deep_fewshot_long/results.csv benchmarks/deep_model/results/deep_fewshot_long.csv

# fit time at equal epochs, on the idle machine
sktdi benchmark --datasets ArrowHead GunPoint OSULeaf --ratios 1.0 --resamples 1 --n-jobs 1 \
    --no-plot --max-epochs 10 --estimators tdi inceptiontime resnet --out runs/deep_timing
cp runs/deep_timing/results.csv benchmarks/deep_model/results/deep_timing_results.csv

python benchmarks/doc_figures.py
