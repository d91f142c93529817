"""When does the network on top of the fast path first beat it? (issue 77, point 3: a fit that
will not beat the fast path should find out in a fraction of today's epochs.)

``SSMClassifier()`` holds out a fifth of the series and counts the fast path's own validation
loss as epoch 0 (:class:`sktdi.deep_model.training.StartFromFastPath`); where no epoch beats
it, training stops ``n_iter_no_change`` epochs in and the model is its fast path. Each fit here
records its whole trajectory: the fast path's validation loss, every epoch's, the first epoch
that beats it, the best, and the seconds per epoch. A fit stopped earlier trains the same
epochs up to its stop (same seed, same batches), so one trajectory says what any earlier
stop would have decided: a stop after K epochs where none beat the fast path (measured with
K = 3 in the package for a while, and withdrawn: the page).

The sets, official splits of the real archive folder, one thread, ``random_state=0``:
- the network's own ground, where series are held out: the 5 sets of the archive run on which
  the network trained (ACSF1, CinCECGTorso, EOGHorizontalSignal, EOGVerticalSignal, Haptics);
- the sets on which the network on top of the fast path was kept in issue 76's run
  (benchmarks/checked_network's archive table; FaceFour's 24 series are too few to hold any
  out, so the network alone trains there), which are off the ground today: fitted with the
  ground's bounds lifted (``LONG_SERIES = 1``, ``FEW_PER_CLASS`` unbounded) so that the
  network trains on them as it did then; they show how soon a network that earns its place
  first beats the fast path;
- the network's home ground where series can be held out: the long-series study's three tasks
  at 1,000 steps with 20 training series per class (``benchmarks/long_series``, seed 1;
  ``--long``), where the network alone scores far above the fast path.

    OMP_NUM_THREADS=1 python benchmarks/checked_network/first_beat.py DATA_DIR \\
        --out benchmarks/checked_network/results/first_beat.csv
    OMP_NUM_THREADS=1 python benchmarks/checked_network/first_beat.py DATA_DIR --long \\
        --out benchmarks/checked_network/results/first_beat.csv

Beside it, the long tasks' three models at 20 series per class, seed 1, as the long-series
study fits them (today's one model, the network alone; the withdrawn stop's rows renamed
``ssm-stop3``), into ``results/long20_seed1.csv``:

    OMP_NUM_THREADS=1 python benchmarks/long_series/long_series.py --lengths 1000 \\
        --per-class 20 --models ssm ssm-network --seeds 1 \\
        --out benchmarks/checked_network/results/long20_seed1.csv
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "benchmarks.checked_network"

from ..shared.long_tasks import TASKS  # noqa: E402
from ..shared.results_file import run_unfinished  # noqa: E402

GROUND = ("ACSF1", "CinCECGTorso", "EOGHorizontalSignal", "EOGVerticalSignal", "Haptics")
KEPT = ("GunPointMaleVersusFemale", "GunPointOldVersusYoung", "FreezerRegularTrain")
KEY = ["dataset"]


def _split(data_dir: str, dataset: str):
    if dataset in TASKS:  # benchmarks/long_series: 1,000 steps, 20 series a class
        from ..shared.long_tasks import split

        return split(dataset, 1000, 1, n_train=20)
    from sktdi.datasets import load_ucr_split

    return load_ucr_split(dataset, data_dir)


def run(data_dir: str, dataset: str) -> dict:
    from sktdi import SSMClassifier
    from sktdi.benchmark.runner import cell_threads
    from sktdi.deep_model import on_fast_path

    X, y, Xt, yt = _split(data_dir, dataset)
    forced = dataset in KEPT
    saved = on_fast_path.LONG_SERIES, on_fast_path.FEW_PER_CLASS
    if forced:
        on_fast_path.LONG_SERIES, on_fast_path.FEW_PER_CLASS = 1, len(y)
    try:
        with cell_threads(1):
            model = SSMClassifier(random_state=0)
            start = time.perf_counter()
            model.fit(X, y)
            fit_seconds = time.perf_counter() - start
            accuracy = float(np.mean(model.predict(Xt) == yt))
    finally:
        on_fast_path.LONG_SERIES, on_fast_path.FEW_PER_CLASS = saved
    early = dict(model.net_.callbacks_).get("early_stopping")
    history = model.net_.history
    losses = [float(row["valid_loss"]) for row in history if "valid_loss" in row]
    start_loss = getattr(early, "start_loss_", None)
    beats = [i + 1 for i, loss in enumerate(losses)
             if start_loss is not None and loss < start_loss]
    return {
        "dataset": dataset, "forced_ground": int(forced), "n_train": len(y),
        "n_classes": len(np.unique(y)),
        "length": np.asarray(X).shape[-1], "model": model.fast_path_report_["model"],
        "start_loss": "" if start_loss is None else round(start_loss, 5),
        "valid_losses": ";".join(f"{loss:.5f}" for loss in losses),
        "first_beat": beats[0] if beats else "",
        "best_epoch": model.fast_path_report_["best_epoch"], "epochs": len(history),
        "epoch_seconds": round(float(np.mean([row["dur"] for row in history])), 3),
        "fit_seconds": round(fit_seconds, 2), "accuracy": round(accuracy, 4),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir")
    parser.add_argument("--datasets", nargs="+", default=list(GROUND + KEPT))
    parser.add_argument("--long", action="store_true",
                        help="the long-series study's tasks, 20 series per class")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    names = list(TASKS) if args.long else args.datasets
    run_unfinished(partial(run, args.data_dir), [(name,) for name in names], Path(args.out),
                   KEY, n_jobs=1)


if __name__ == "__main__":
    main()
