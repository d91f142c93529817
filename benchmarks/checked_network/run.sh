#!/usr/bin/env bash
# Issue 76: the one model with its network checked against its fast path.
#   1. real archive sets: the one model (SSMClassifier at its defaults, arm `tdi`), its fast
#      path (`tdi+ridge+minirocket`) and MiniRocket's algorithm (`minirocket-ridge`) in one
#      run of the main job, on the official splits of the 21 real UCR datasets of issue 75's
#      one-model run, so each sits beside the one model before this issue
#      (benchmarks/ucr_archive_run/results/one_model_results.csv); then the fast path's
#      temperature-scaled probabilities (the one model with no epoch, max_epochs=0);
#      calibration.py scores every cell's probabilities from the runs' tsml-eval files;
#   2. the long-series study's tasks at 1,000 and 4,000 steps, 4 series per class, seeds 1
#      and 2 (one per process): the one model, the network alone and MiniRocket.
# On an otherwise idle 2-core machine, stderr to log files.
#
#   bash benchmarks/checked_network/run.sh [WORK]   (WORK default: runs/checked_network)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-runs/checked_network}"
here=benchmarks/checked_network/results
before=benchmarks/ucr_archive_run/results/one_model_results.csv
data="$work/data"
[ -d "$data" ] || bash ../shared/data/ucr_archive.sh "$data"
mkdir -p "$work"
export OMP_NUM_THREADS=1
# the datasets of issue 75's one-model run, and the second run's parameters
python -c "import pandas as pd; print('\n'.join(pd.read_csv('$before')['dataset']))" \
    > "$work/datasets.txt"
echo '{"tdi": {"max_epochs": 0}}' > "$work/no_epoch.json"
sktdi benchmark --data-dir "$data" --datasets "@$work/datasets.txt" \
    --ratios 1 --resamples 1 --n-jobs 2 \
    --estimators tdi tdi+ridge+minirocket minirocket-ridge \
    --out "$work/run" > "$work/stdout.txt" 2> "$work/log.txt"
sktdi benchmark --data-dir "$data" --datasets "@$work/datasets.txt" \
    --ratios 1 --resamples 1 --n-jobs 2 --estimators tdi --params "$work/no_epoch.json" \
    --out "$work/no_epoch" > "$work/no_epoch_stdout.txt" 2> "$work/no_epoch_log.txt"
cp "$work/run/results.csv" "$here/results.csv"
cp "$work/run/summary.txt" "$here/summary.txt"
cp "$work/log.txt" "$here/log.txt"
cp "$work/no_epoch/results.csv" "$here/results_fast_path.csv"
python benchmarks/checked_network/calibration.py "$work/run" > "$here/calibration.csv"
python benchmarks/checked_network/calibration.py "$work/no_epoch" > "$here/calibration_fast_path.csv"
for seed in 1 2; do
    python benchmarks/long_series/long_series.py --out "$here/long_seed$seed.csv" \
        --lengths 1000 4000 --models ssm ssm-network minirocket --seeds "$seed" &
done
wait
