#!/usr/bin/env bash
# Issue 36: half the blocks (n_layers=3) passed the transfer protocol's cost rule and was made
# the classifier's default (then reverted: the Outcome below). These runs were to measure it
# where the six-block network was measured before, declared before they ran:
#
# - the field's tools beside it in the depth run's confirmation (the issue's targets against
#   MiniRocket and InceptionTime read that run);
# - the shipped sets' official splits, as the side-by-side run of issue 22 (its MiniRocket and
#   InceptionTime cells are that run's: accuracy compares, fit seconds do not);
# - ACSF1 at two training series per class (the long few-shot target);
# - the long-series study's tasks and lengths, and its scaling run, InceptionTime's scaling
#   cells again beside the new default's.
#
# Issue 36 also asks for no loss on the long-series study's tasks, which the protocol does not
# read. Declared once the first three long-series cells were in (two behind the six-block
# network's, one ahead): if the new default's mean over the long-series fits is behind the
# six-block network's by more than two standard errors of the paired differences (same task,
# length and seed), the adoption is reverted.
#
# Outcome: over the 24 paired long-series fits (1,000 and 4,000 steps, seeds 1-4) three blocks
# were behind six by more than two standard errors (docs/long_series.md, "Three blocks on long
# series"), so the adoption was reverted and the default keeps six blocks. Of the queues
# below, the depth run's peers and the long-series cells at 1,000 and 4,000 steps ran; the
# rest measure a default that was not kept and did not run.
#
# Two queues, one per core, one torch thread per fit.
set -euo pipefail
cd "$(dirname "$0")/../.."
SETS="ItalyPowerDemand GunPoint ArrowHead BasicMotions JapaneseVowels OSULeaf"

queue_one() {
    python benchmarks/shared/transfer_protocol.py --stage confirm --arms layers3 --peers \
        --datasets JapaneseVowels ACSF1 --n-jobs 1 --out benchmarks/deep_model/results/transfer/depth
    sktdi benchmark --datasets ACSF1 --ratios 0.01 --min-per-class 2 --resamples 3 --n-jobs 1 \
        --no-plot --estimators tdi --out runs/deep_fewshot_long_3blocks
    cp runs/deep_fewshot_long_3blocks/results.csv benchmarks/deep_model/results/deep_fewshot_long_3blocks.csv
    sktdi benchmark --datasets $SETS --ratios 1.0 --resamples 1 --n-jobs 1 --no-plot \
        --estimators tdi --out runs/deep_field_3blocks
    cp runs/deep_field_3blocks/results.csv benchmarks/deep_model/results/deep_field_results_3blocks.csv
    python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_3blocks.csv --lengths 16000 \
        --models ssm --seeds 1
}

queue_two() {
    python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_3blocks.csv --lengths 1000 \
        4000 --models ssm --seeds 1 2 3 4
    python benchmarks/long_series/long_series.py --out benchmarks/long_series/results/long_series_scaling_3blocks.csv --scaling \
        --seeds 0
}

queue_one > runs/depth_default_one.log 2>&1 &
queue_two > runs/depth_default_two.log 2>&1
wait

# then, with the machine to itself: the timing run at 10 epochs (InceptionTime and ResNet again
# beside the new default), two series per class on the small sets (ArrowHead at the one
# resample the six-block run had), and the streams' speed
sktdi benchmark --datasets ArrowHead GunPoint OSULeaf --ratios 1.0 --resamples 1 --n-jobs 1 \
    --no-plot --max-epochs 10 --estimators tdi inceptiontime resnet --out runs/deep_timing_3blocks
cp runs/deep_timing_3blocks/results.csv benchmarks/deep_model/results/deep_timing_results_3blocks.csv
sktdi benchmark --datasets ArrowHead --ratios 0.01 --min-per-class 2 --resamples 1 --n-jobs 1 \
    --no-plot --estimators tdi --out runs/deep_fewshot_3blocks
sktdi benchmark --datasets GunPoint ItalyPowerDemand --ratios 0.01 --min-per-class 2 \
    --resamples 3 --n-jobs 1 --no-plot --estimators tdi --out runs/deep_fewshot_3blocks
cp runs/deep_fewshot_3blocks/results.csv benchmarks/deep_model/results/deep_fewshot_results_3blocks.csv
OMP_NUM_THREADS=1 python benchmarks/early_study/bench_stream.py --out benchmarks/early_study/results/stream_bench.json
