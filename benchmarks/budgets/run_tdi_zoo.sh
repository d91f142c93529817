#!/usr/bin/env bash
# Issue 23's runs, in the order they were made (docs/budgets.md, "The task zoo"). Two cells at
# a time, one torch thread each; rows are appended as cells finish and a rerun skips them.
set -euo pipefail
cd "$(dirname "$0")"
INFORMATIVE="broadband-64 one-band-256 multi-band-128 one-band-32 multi-band-40"

# the diagnosis: other draws of every task (seed offset 100), never the report's
python tdi_zoo.py --arms tdi s4d-lin tdi-control old-tdi old-s4d-lin old-tdi-control \
    --budgets 5 20 --seeds 3 --seed-offset 100 --out results/tdi_zoo_diagnosis.csv
python tdi_zoo.py --tasks $INFORMATIVE \
    --arms auto tdi-base tdi-gain tdi-bd old-auto old-tdi-base old-tdi-gain old-tdi-bd \
    --budgets 5 20 --seeds 3 --seed-offset 100 --out results/tdi_zoo_diagnosis.csv
python tdi_zoo.py --tasks multi-band-40 --budgets 20 --seeds 4 --seed-offset 100 \
    --arms tdi s4d-lin tdi-control tdi-norel tdi-base control-base tdi-gain tdi-bd tdi-2peaks \
    tdi-all-layers old-tdi old-s4d-lin old-tdi-control old-tdi-norel old-tdi-base \
    old-control-base old-tdi-gain old-tdi-bd old-tdi-2peaks old-tdi-all-layers \
    --out results/tdi_zoo_diagnosis.csv
python tdi_zoo.py --tasks $INFORMATIVE --arms s4d-lin tdi tdi-bd control-bd \
    --budgets 5 20 --seeds 6 --seed-offset 103 --out results/tdi_zoo_diagnosis.csv
# the fewest optimizer steps in the zoo (16 series, batch 16: one step per epoch), many draws
python tdi_zoo.py --tasks multi-band-128 --budgets 5 --seeds 20 --seed-offset 200 \
    --arms s4d-lin tdi tdi-control tdi-norel tdi-bd control-bd tdi-gain tdi-base \
    --out results/tdi_zoo_diagnosis.csv
python learning_curves.py --mode train --arms s4d-lin tdi tdi-control base base-control gain \
    gain-control tiled-bd tiled-bd-control --datasets pixel-digits --ratios 0.16 --budgets 5 \
    --resamples 3 --out results/learning_curves_conv_s4d_choice.csv
python learning_curves.py --mode train --arms s4d-lin tdi tiled-bd --datasets pixel-digits \
    --ratios 0.16 --budgets 5 --resamples 6 --out results/learning_curves_conv_s4d_choice.csv

# the report: the default init against S4D-Lin and its control, fresh draws (seeds 0..)
python tdi_zoo.py --budgets 5 10 20 --seeds 6 --out results/tdi_zoo.csv
# the long budgets on the tasks where TDI aligns (on the others it stands down: no bin of the
# statistic is significant, so every arm is S4D-Lin bit for bit, whatever the budget)
python tdi_zoo.py --tasks $INFORMATIVE --budgets 50 100 --seeds 2 --out results/tdi_zoo.csv
# pixel-digits and the study datasets on the default network, test splits
python learning_curves.py --mode test --arms tdi s4d-lin tdi-control --datasets pixel-digits \
    --ratios 0.16 --budgets 5 10 --resamples 3 --out results/learning_curves_conv_s4d.csv
# the study datasets where TDI aligns at this ratio (on the others no bin is significant)
python learning_curves.py --mode test --arms tdi s4d-lin tdi-control \
    --datasets digits JapaneseVowels --ratios 0.16 --budgets 5 10 20 --resamples 3 \
    --out results/learning_curves_conv_s4d_study.csv
python ../doc_figures.py
