"""A run's progress: the cost model of its cells and the bar that counts them.

The bar counts cells (its percentage is of the same cells) and shows the time elapsed and
left, ticking every second on a terminal so that it moves during a long cell (written to a
log, it updates at most every half minute). The time left starts from a
cost model of the grid (:func:`expected_seconds`), before any cell has finished, and follows
the measured pace as cells finish.
"""

from __future__ import annotations

import os
import sys
import time
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the runner imports this module; a cell only needs its key and fields
    from .runner import Cell


# The cost model of the progress bar's first time left, in seconds of one cell on one thread of
# this project's 2-core machine. A network's cell costs a second of set-up, its predictions
# (proportional to the test series' steps), and its training, which grows with the square root
# of the training work: more series stop earlier (early stopping holds out a fifth of them).
# Every other model's cell takes a fraction of a second. Fitted by hand to the default run's
# deep cells before the positive control joined it, and to planted's cells timed alone.
DEEP_CELL_SECONDS = (2.0, 0.10)  # training: a + b * sqrt((n_train + 5) * max(length, 64))
DEEP_CELL_FIXED_SECONDS = 1.0
PREDICT_SECONDS_PER_STEP = 2.5e-5  # per test series and time step (at least 64 steps)
LIGHT_CELL_SECONDS = 0.3
# a run's fixed cost: worker start-up and imports, the warm-up fits (_warm_up) of the numba
# kernels and of each deep model's first epoch, and the last cell finishing alone (the
# default run before the positive control: 233 s of wall time for 190 s of cells per worker)
RUN_START_SECONDS = 40.0


@cache
def _dataset_size(name: str, data_dir: str | None) -> tuple[int, float, int, int]:
    """(n_train, mean length, n_classes, n_test) of a dataset; one that cannot be read counts
    as one series of 64 steps (its cells fail at once). Kept for the process: the command's
    estimate and its progress bar read the same sets, and reading an archive's sets twice
    would double the wait before the first cell."""
    from ..datasets import load_dataset_split

    try:
        X_train, y_train, X_test, _ = load_dataset_split(name, data_dir)
    except (OSError, ValueError):
        return 1, 64.0, 1, 1
    length = float(np.mean([np.shape(x)[-1] for x in X_train]))
    return len(X_train), length, len(np.unique(y_train)), len(X_test)


def _workers(n_cells: int, n_jobs: int) -> int:
    """Cells that run at once: ``n_jobs`` (-1: one per core), never more than the cells."""
    return max(1, min(n_cells, (os.cpu_count() or 1) if n_jobs == -1 else n_jobs))


def cell_seconds(cells: list[Cell]) -> list[float]:
    """Each cell's expected seconds on one thread (:data:`DEEP_CELL_SECONDS`): the progress
    bar's first estimate of the time left, before any cell has finished. A deep cell with
    ``max_epochs`` set scales with its share of the default epochs."""
    from .estimators import trains_network

    default_epochs = None
    seconds = []
    for cell in cells:
        if not trains_network(cell.estimator):
            seconds.append(LIGHT_CELL_SECONDS)
            continue
        n, length, classes, n_test = _dataset_size(cell.dataset, cell.data_dir)
        n_train = max(cell.ratio * n, cell.min_per_class * classes)
        steps = max(length, 64)
        a, b = DEEP_CELL_SECONDS
        training = a + b * np.sqrt((n_train + 5) * steps)
        if "max_epochs" in cell.params:
            if default_epochs is None:
                from ..deep_model.estimators import SSMClassifier

                default_epochs = SSMClassifier().max_epochs
            training *= min(1.0, (cell.params["max_epochs"] + 1) / (default_epochs + 1))
        predicting = PREDICT_SECONDS_PER_STEP * n_test * steps
        seconds.append(float(DEEP_CELL_FIXED_SECONDS + predicting + training))
    return seconds


def expected_seconds(cells: list[Cell], n_jobs: int, seconds: list[float] | None = None) -> float:
    """A run's expected wall time before it starts: its fixed cost plus its cells' seconds
    (``seconds``, default :func:`cell_seconds`) shared out over the workers (the progress
    bar's first time left)."""
    if not cells:
        return 0.0
    seconds = cell_seconds(cells) if seconds is None else seconds
    return RUN_START_SECONDS + sum(seconds) / _workers(len(cells), n_jobs)


class RunProgress:
    """The progress bar of a run: cells done of cells to do (the count and its percentage in
    one unit), and the time elapsed and left, ticking every second while a long cell runs.

    The time left starts from the cost model (:func:`expected_seconds`) and follows the
    measured pace as cells finish: the expected seconds of the cells finished so far are set
    against the time they took, weighed with the prior as a quarter of the run.
    """

    TICK_SECONDS = 1.0
    # written to a file or a pipe (a log), the bar's updates are carriage returns on one line
    # that grows without end: there it updates at most this often
    LOG_SECONDS = 30.0

    def __init__(self, cells: list[Cell], n_jobs: int, *, enabled: bool = True):
        self.enabled = enabled and bool(cells)
        if not self.enabled:
            return
        self.workers = _workers(len(cells), n_jobs)
        seconds = cell_seconds(cells)
        self.seconds = dict(zip((c.key() for c in cells), seconds))
        self.fixed = RUN_START_SECONDS
        self.expected = expected_seconds(cells, n_jobs, seconds)
        self.done_expected = 0.0
        self.n_total, self.n_done = len(cells), 0

    def time_left(self, elapsed: float) -> float:
        """Seconds left: the expected total at the measured pace, less the time elapsed."""
        if self.n_done >= self.n_total:
            return 0.0
        if self.n_done == 0:
            pace = 1.0
        else:
            prior = 0.25 * self.expected
            pace = (elapsed + prior) / (self.fixed + self.done_expected + prior)
        return max(0.0, self.expected * pace - elapsed)

    def __enter__(self):
        if not self.enabled:
            return self
        import threading

        from tqdm.auto import tqdm

        self.start = time.perf_counter()
        terminal = self._terminal = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
        self.bar = tqdm(
            total=self.n_total, unit="cell", file=sys.stderr,
            # the clock goes in the description: tqdm puts ", " before a postfix
            bar_format="{n_fmt}/{total_fmt} cells {percentage:3.0f}%|{bar}| {desc}",
            mininterval=0.1 if terminal else self.LOG_SECONDS,
        )
        self._stop = threading.Event()
        self._tick()
        self._ticker = None
        if terminal:  # the clock ticks on a terminal only
            self._ticker = threading.Thread(target=self._run_ticker, daemon=True)
            self._ticker.start()
        return self

    def _tick(self) -> None:
        elapsed = time.perf_counter() - self.start
        self.bar.set_description_str(
            f"{_clock(elapsed)} elapsed, about {_clock(self.time_left(elapsed))} left",
            refresh=self._terminal,  # in a log, the bar's own updates say it, rarely
        )

    def _run_ticker(self) -> None:
        while not self._stop.wait(self.TICK_SECONDS):
            self._tick()

    def finished(self, key: tuple) -> None:
        if not self.enabled:
            return
        self.n_done += 1
        self.done_expected += self.seconds.get(key, 0.0) / self.workers
        self.bar.update(1)
        self._tick()

    def __exit__(self, *exc):
        if self.enabled:
            self._stop.set()
            if self._ticker is not None:
                self._ticker.join()
            self._tick()
            self.bar.close()
        return False


def _clock(seconds: float) -> str:
    """"1:05" for 65 seconds, "1:02:03" past an hour."""
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
