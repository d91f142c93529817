#!/usr/bin/env bash
# The main job on the real UCR archive folder (59 datasets, official splits), as a researcher
# with the archive on disk runs it, beside the field's published results:
#   1. every dataset (--datasets all), MiniRocket's algorithm and the fast path, resample 0,
#      with aeon's published HIVE-COTE 2, InceptionTime, FreshPRINCE and WEASEL-2.0 and
#      MiniRocket's paper's means beside it (--published);
#   2. the one model (SSMClassifier at its defaults, arm `tdi`) on the 24 smallest datasets the
#      cost model was not fitted on (benchmarks/cost_model/), for its first estimate against
#      its wall time.
# Each run's log is stderr redirected to a file, as a batch job writes it. On an otherwise idle
# 2-core machine; about an hour in all.
#
#   bash benchmarks/ucr_archive_run/run.sh [WORK]   (WORK default: runs/ucr)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-runs/ucr}"
here=benchmarks/ucr_archive_run/results
data="$work/data"
bash ../shared/data/ucr_archive.sh "$data"
published=(aeon "MiniRocket=../shared/data/published/minirocket_ucr109_mean.csv")

rm -rf "$work/light" "$work/one_model"
sktdi benchmark --data-dir "$data" --datasets all --ratios 1 --resamples 1 --n-jobs 2 \
    --estimators minirocket-ridge tdi+ridge+minirocket --published "${published[@]}" \
    --out "$work/light" > "$work/light_stdout.txt" 2> "$work/light_log.txt"
python benchmarks/ucr_archive_run/smallest.py "$data" 24 > "$work/smallest.txt"
sktdi benchmark --data-dir "$data" --datasets "@$work/smallest.txt" --ratios 1 --resamples 1 \
    --n-jobs 2 --estimators tdi --published "${published[@]}" \
    --out "$work/one_model" > "$work/one_model_stdout.txt" 2> "$work/one_model_log.txt"

cp "$work/light/results.csv" "$here/light_results.csv"
cp "$work/light/run.json" "$here/light_run.json"
cp "$work/light/summary.txt" "$here/light_summary.txt"
cp "$work/light_log.txt" "$here/light_log.txt"
cp "$work/one_model/results.csv" "$here/one_model_results.csv"
cp "$work/one_model/run.json" "$here/one_model_run.json"
cp "$work/one_model/summary.txt" "$here/one_model_summary.txt"
cp "$work/one_model_log.txt" "$here/one_model_log.txt"
cp "$work/light/skipped.csv" "$here/light_skipped.csv"
python benchmarks/ucr_archive_run/check_published.py "$work/light" "${published[1]#MiniRocket=}"
