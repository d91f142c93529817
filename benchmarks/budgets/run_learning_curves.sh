#!/usr/bin/env bash
# Issue 14's runs, in the order they were made (docs/budgets.md). Two cells at a time, one
# torch thread each; rows are appended as cells finish and a rerun skips finished cells.
set -euo pipefail
cd "$(dirname "$0")"
STUDY="GunPoint ItalyPowerDemand ArrowHead OSULeaf BasicMotions JapaneseVowels digits"

# choosing the initialization family: training splits only
python learning_curves.py --mode train --arms lin tiled base gain --datasets pixel-digits \
    --ratios 0.16 --budgets 2 5 10 20 50 --resamples 3 --out results/learning_curves_choice.csv
python learning_curves.py --mode train --arms tiled-control base-control gain-control \
    --datasets pixel-digits --ratios 0.16 --budgets 2 5 10 20 --resamples 3 \
    --out results/learning_curves_choice.csv
python learning_curves.py --mode train --arms lin tiled base gain --datasets $STUDY \
    --ratios 0.16 --resamples 3 --out results/learning_curves_choice_study.csv
# round 2 (base25, half) was stopped after its first cell each, round 3 (tiled-bd) after
# two resamples at 50 epochs: see the page
python learning_curves.py --mode train --arms base25 half --datasets pixel-digits \
    --ratios 0.16 --budgets 2 5 10 20 50 --resamples 3 --out results/learning_curves_choice.csv
python learning_curves.py --mode train --arms tiled-bd --datasets pixel-digits \
    --ratios 0.16 --budgets 2 5 10 20 50 --resamples 3 --out results/learning_curves_choice.csv

# the learning curves on the test splits
python learning_curves.py --mode test --arms tdi s4d-lin s4d-inv tdi-control \
    --datasets pixel-digits --ratios 0.16 0.04 --resamples 3 --out results/learning_curves.csv
python learning_curves.py --mode test --arms tdi s4d-lin s4d-inv tdi-control --datasets $STUDY \
    --ratios 0.16 --resamples 3 --out results/learning_curves_study.csv

# training-step costs (an idle machine)
python bench_training_step.py --baseline 0f80f9c --rounds 5 --steps 20 --epochs 4 \
    --out results/training_step.json
python ../doc_figures.py --figures
