#!/usr/bin/env bash
# Issue 77: SSMClassifier() at its defaults on the real UCR archive folder (59 datasets, official
# splits), through the main job as a researcher runs it, beside the field's published results:
#   1. ratio 1, resample 0 (the official split): the one model on TDI's filters (`tdi`, the
#      default), on S4D-Lin's and on the placebo's; their fast paths as the one model fits
#      them (the bank and MiniRocket's features: `*+ridge+minirocket`); MiniRocket's
#      algorithm (`minirocket-ridge`), with aeon's published HIVE-COTE 2, InceptionTime,
#      FreshPRINCE and WEASEL-2.0 and MiniRocket's paper's means beside (--published);
#   2. ratio 0.1, resample 0: the three fast paths, for TDI − S4D-Lin and TDI − placebo where
#      the training series are fewest.
# Resumable: the main job keeps every finished cell (rerun the same command after a stop).
# On an otherwise idle 2-core machine, stderr to log files, as a batch job writes them.
#
#   bash benchmarks/archive_study/run.sh [WORK]   (WORK default: runs/archive_study)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-runs/archive_study}"
here=benchmarks/archive_study/results
data="$work/data"
[ -d "$data" ] || bash ../shared/data/ucr_archive.sh "$data"
mkdir -p "$work"
published=(aeon "MiniRocket=../shared/data/published/minirocket_ucr109_mean.csv")
fast=(tdi+ridge+minirocket s4d-lin+ridge+minirocket tdi-control+ridge+minirocket)
sktdi benchmark --data-dir "$data" --datasets all --ratios 1 --resamples 1 --n-jobs 2 \
    --estimators tdi s4d-lin tdi-control "${fast[@]}" minirocket-ridge \
    --published "${published[@]}" \
    --out "$work/full" > "$work/full_stdout.txt" 2>> "$work/full_log.txt"
sktdi benchmark --data-dir "$data" --datasets all --ratios 0.1 --resamples 1 --n-jobs 2 \
    --estimators "${fast[@]}" \
    --out "$work/tenth" > "$work/tenth_stdout.txt" 2>> "$work/tenth_log.txt"
# into results/: full_results.csv, full_run.json, full_summary.txt, full_skipped.csv,
# full_log.txt, and tenth_results.csv, tenth_run.json, tenth_summary.txt, tenth_skipped.csv,
# tenth_log.txt
for run in full tenth; do
    cp "$work/$run/results.csv" "$here/${run}_results.csv"
    cp "$work/$run/run.json" "$here/${run}_run.json"
    cp "$work/$run/summary.txt" "$here/${run}_summary.txt"
    cp "$work/$run/skipped.csv" "$here/${run}_skipped.csv"
    cp "$work/${run}_log.txt" "$here/${run}_log.txt"
done
