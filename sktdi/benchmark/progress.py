"""A run's progress: the cost model of its cells, the bar that counts them, the dry run's plan.

On a terminal the bar counts cells (its percentage is of the same cells) and shows the time
elapsed and left, ticking every second so that it moves during a long cell. Written to a log (a
file or a pipe, where a bar's carriage returns pile up on one line) the progress is plain
lines instead: the cells to compute and the expected time at once, before any cell has
finished; then a line when a cell finishes, at most every half minute; and one at the end.
The time left starts from a cost model of the grid (:func:`expected_seconds`) and follows the
measured pace as cells finish. :func:`plan_report` is ``sktdi benchmark --dry-run``'s account
of the same cost model, per dataset and per arm.
"""

from __future__ import annotations

import heapq
import os
import sys
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

from .cells import Cell
from .formatting import format_seconds

# The cost model of a run's first time left (and of the dry run), in seconds of one cell on
# one thread of this project's 2-core machine, two cells at a time as ``--n-jobs 2`` runs them.
# Fitted in benchmarks/cost_model/ (fit_cost_model.py, its README) to cells timed on 23 real
# UCR archive datasets, the other 36 of the archive folder kept to check it. A cell's seconds:
# - MiniRocket's and the fast path's: their transform over every training and test step
#   (:data:`TRANSFORM_SECONDS_PER_STEP`), and the ridge's Gram matrix over about 10,000
#   features (:data:`RIDGE_GRAM_SECONDS`, per n_train²) and its eigendecomposition
#   (:data:`RIDGE_EIGEN_SECONDS`, per n_train³), which rule on sets of thousands of series;
# - the SSM models' (the network on the fast path): the fast path's, then the network's epochs
#   (:data:`NETWORK_EPOCH_SECONDS`: a fixed part, one per series, one per step) and its
#   predictions (:data:`NETWORK_PREDICT_SECONDS_PER_STEP`, float64). Where ``validation_fraction
#   ="auto"`` holds a fifth out (2 series per class or more), early stopping ended the fits
#   after :data:`EARLY_STOPPED_EPOCHS` epochs on the mean; elsewhere they train for
#   ``max_epochs``;
# - 1-NN's: a distance per training and test pair (a step each, or a step squared for DTW).
TRANSFORM_SECONDS_PER_STEP = {"minirocket": 3.2e-6, "fast path": 5.8e-6}
RIDGE_GRAM_SECONDS = {"minirocket": 1.57e-6, "fast path": 2.0e-6}  # per n_train² (10,000 features)
RIDGE_EIGEN_SECONDS = {"minirocket": 4.1e-11, "fast path": 0.0}  # per n_train³
CELL_FIXED_SECONDS = {"minirocket": 0.07, "fast path": 0.13, "1nn": 0.01}
# per epoch: a + b * training series + c * training series * max(length, 64)
NETWORK_EPOCH_SECONDS = (0.0014, 3.4e-3, 5.7e-5)
NETWORK_PREDICT_SECONDS_PER_STEP = 5.3e-5  # per test series and step (at least 64)
EARLY_STOPPED_EPOCHS = 13
NN_SECONDS_PER_STEP = 1.0e-9  # per (training, test) pair and step; DTW: per step squared
# sktime's deep peers (InceptionTime, ResNet) were not timed there: their cells keep the
# earlier model of a deep cell, a + b * sqrt((n_train + 5) * max(length, 64)) for training and
# the test steps for predicting, fitted by hand to the default run's deep cells
PEER_CELL_SECONDS = (3.0, 0.10)
PEER_PREDICT_SECONDS_PER_STEP = 2.5e-5
# a run's own start: worker processes and their imports, before the first cell (each worker's
# first cell of an arm also fits a warm-up clone: :func:`expected_seconds` counts it there)
RUN_START_SECONDS = 10.0


@cache
def _dataset_size(name: str, data_dir: str | None) -> tuple[int, float, int, int]:
    """(n_train, length, n_classes, n_test) of a dataset, its length the longest series of
    either split, as the cells pad them (sktdi.benchmark.runner); one that cannot be read
    counts as one series of 64 steps (its cells fail at once). Kept for the process: the
    command's estimate and its progress bar read the same sets, and reading an archive's sets
    twice would double the wait before the first cell."""
    from ..datasets import load_dataset_split

    try:
        X_train, y_train, X_test, _ = load_dataset_split(name, data_dir)
    except (OSError, ValueError):
        return 1, 64.0, 1, 1
    length = float(max(np.shape(x)[-1] for split in (X_train, X_test) for x in split))
    return len(X_train), length, len(np.unique(y_train)), len(X_test)


def _workers(n_cells: int, n_jobs: int) -> int:
    """Cells that run at once: ``n_jobs`` (-1: one per core), never more than the cells."""
    return max(1, min(n_cells, (os.cpu_count() or 1) if n_jobs == -1 else n_jobs))


def _family(estimator: str) -> str:
    """Which part of the cost model an arm's cells follow."""
    from .estimators import ESTIMATORS, trains_network

    if trains_network(estimator):
        return "ssm" if ESTIMATORS[estimator][1] == "ssm" else "peer"
    if "+ridge" in estimator:
        return "fast path"
    if estimator.startswith("1nn"):
        return "1nn-dtw" if estimator == "1nn-dtw" else "1nn"
    return "minirocket"


def _light_seconds(family: str, n_train: float, n_test: int, length: float) -> float:
    """MiniRocket's or the fast path's cell: transform, ridge (Gram and eigendecomposition)."""
    steps = (n_train + n_test) * max(length, 9)  # MiniRocket reads at least 9 steps
    return (CELL_FIXED_SECONDS[family] + TRANSFORM_SECONDS_PER_STEP[family] * steps
            + RIDGE_GRAM_SECONDS[family] * n_train**2 + RIDGE_EIGEN_SECONDS[family] * n_train**3)


def _held_out(n_train: float, n_classes: int) -> int:
    """The series ``validation_fraction="auto"`` holds out on the fast path: a fifth, where
    that is 2 per class or more (sktdi.deep_model.on_fast_path), else none."""
    from ..deep_model.on_fast_path import FAST_PATH_VALIDATION

    held = int(np.ceil(FAST_PATH_VALIDATION * n_train))
    return held if held >= 2 * n_classes else 0


def _on_network_ground(cell: Cell, n_train: float, length: float, classes: int) -> bool:
    """Whether an SSM arm's cell trains its network: without the fast path always, on top
    of it only on the network's ground (sktdi.deep_model.on_fast_path: long series, few per
    class)."""
    from ..deep_model.on_fast_path import off_network_ground

    if cell.params.get("fast_path", "auto") is False:
        return True
    return off_network_ground(length, n_train / max(classes, 1)) is None


@cache
def _default_epochs() -> int:
    from ..deep_model.estimators import SSMClassifier

    return SSMClassifier().max_epochs


def cell_parts(cell: Cell) -> dict[str, float]:
    """A cell's expected seconds on one thread, by part: "fit" (the fast path's or
    MiniRocket's, with the test series' transform), "epochs" (the network's training),
    "predict" (the network's predictions), and "warm_up" (what a worker's first cell of the
    arm adds: a clone fitted once, with one epoch for a network, so that the cell's own fit
    is timed warm). ``max_epochs`` in the cell's params caps the epochs."""
    n, length, classes, n_test = _dataset_size(cell.dataset, cell.data_dir)
    n_train = max(cell.ratio * n, cell.min_per_class * classes)
    steps = max(length, 64)
    family = _family(cell.estimator)
    if family in ("1nn", "1nn-dtw"):
        pair = length**2 if family == "1nn-dtw" else length
        fit = CELL_FIXED_SECONDS["1nn"] + NN_SECONDS_PER_STEP * n_train * n_test * pair
        return {"fit": fit, "epochs": 0.0, "predict": 0.0, "warm_up": fit}
    if family == "peer":
        a, b = PEER_CELL_SECONDS
        training = a + b * np.sqrt((n_train + 5) * steps)
        if "max_epochs" in cell.params:
            epochs = _default_epochs()
            training *= min(1.0, (cell.params["max_epochs"] + 1) / (epochs + 1))
        return {"fit": 0.0, "epochs": float(training), "warm_up": 0.0,
                "predict": PEER_PREDICT_SECONDS_PER_STEP * n_test * steps}
    if family != "ssm":
        fit = _light_seconds(family, n_train, n_test, length)
        return {"fit": fit, "epochs": 0.0, "predict": 0.0, "warm_up": fit}
    fit = _light_seconds("fast path", n_train, n_test, length)
    if not _on_network_ground(cell, n_train, length, classes):
        # the model is its fast path: no epoch, and predictions without the network
        return {"fit": fit, "epochs": 0.0, "predict": 0.0, "warm_up": fit}
    max_epochs = cell.params.get("max_epochs", _default_epochs())
    held = _held_out(n_train, classes)
    epochs = min(EARLY_STOPPED_EPOCHS, max_epochs) if held else max_epochs
    a, b, c = NETWORK_EPOCH_SECONDS
    epoch = a + b * (n_train - held) + c * (n_train - held) * steps
    return {"fit": fit, "epochs": epochs * epoch, "warm_up": fit + epoch,
            "predict": NETWORK_PREDICT_SECONDS_PER_STEP * n_test * steps}


def cell_seconds(cells: list[Cell]) -> list[float]:
    """Each cell's expected seconds on one thread (:func:`cell_parts`, warm-up apart): the
    progress bar's first estimate of the time left, before any cell has finished."""
    return [float(p["fit"] + p["epochs"] + p["predict"]) for p in map(cell_parts, cells)]


def expected_seconds(cells: list[Cell], n_jobs: int, seconds: list[float] | None = None) -> float:
    """A run's expected wall time before it starts: :data:`RUN_START_SECONDS`, then the cells
    (``seconds``, default :func:`cell_seconds`) handed out in order to the first worker free,
    as joblib and Dask hand them out, each worker's first cell of an arm with its warm-up
    (:func:`cell_parts`); the run ends with its last cell (the progress bar's first time
    left, and the dry run's)."""
    if not cells:
        return 0.0
    seconds = cell_seconds(cells) if seconds is None else list(seconds)
    workers = _workers(len(cells), n_jobs)
    # the first cells of each arm land on workers that have not fitted it yet: one warm-up each
    warmed: dict[str, int] = {}
    for i, cell in enumerate(cells):
        if warmed.get(cell.estimator, 0) < workers:
            warmed[cell.estimator] = warmed.get(cell.estimator, 0) + 1
            seconds[i] += cell_parts(cell)["warm_up"]
    free = [0.0] * workers  # a heap of when each worker is next free
    for cost in seconds:
        heapq.heapreplace(free, free[0] + cost)  # the next cell goes to the first one free
    return RUN_START_SECONDS + max(free)


# the heartbeat's thread and the run's own write a log's lines, one at a time
_SAY_LOCK = threading.Lock()


class RunProgress:
    """The progress of a run: cells done of cells to do, and the time elapsed and left.

    On a terminal, a tqdm bar (the count and its percentage in one unit) whose clock ticks
    every second while a long cell runs. Anywhere else (a log file, a pipe) plain lines, each
    with the clock read when it is printed: the cells to compute and their expected time when
    the block is entered, then ``"3/60 cells (5%), 2:10 elapsed, about 12:34 left"`` when a
    cell finishes, at most every :attr:`LOG_SECONDS`, the same while a long cell runs when no
    line came for :attr:`HEARTBEAT_SECONDS` (so that a log shows the run alive), and the total
    at the end (none when the block ends on an exception: its caller says why it stopped).

    The time left starts from the cost model (:func:`expected_seconds`) and follows the
    measured pace as cells finish: the expected seconds of the cells finished so far are set
    against the time they took, weighed with the prior as a quarter of the run. ``clock``
    (seconds, default :func:`time.perf_counter`) is the time source.

    Examples
    --------
    >>> import io, sys
    >>> from sktdi.benchmark import make_cells
    >>> from sktdi.benchmark.progress import RunProgress
    >>> cells = make_cells(["ItalyPowerDemand"], [1.0], 3, ["1nn-euclidean"])
    >>> times = iter([0.0, 31.0, 40.0, 50.0])  # entry, two cells (the last reads none), exit
    >>> sys.stderr, stderr = io.StringIO(), sys.stderr  # a log, not a terminal
    >>> with RunProgress(cells, 1, clock=lambda: next(times)) as progress:
    ...     for cell in cells:
    ...         progress.finished(cell.key())
    >>> log, sys.stderr = sys.stderr.getvalue(), stderr
    >>> print(log)
    3 cells to compute, about 0:10 expected (cost model)
    1/3 cells (33%), 0:31 elapsed, about 0:00 left
    3/3 cells done in 0:50 (expected about 0:10)
    <BLANKLINE>
    """

    TICK_SECONDS = 1.0
    # written to a file or a pipe (a log), a line at most this often (and at most one a cell)
    LOG_SECONDS = 30.0
    # in a log, a line at least this often while cells run (a minutes-long cell gave none)
    HEARTBEAT_SECONDS = 300.0

    def __init__(
        self, cells: list[Cell], n_jobs: int, *, enabled: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.enabled = enabled and bool(cells)
        self.clock = clock
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
        self.start = self.clock()
        # read at entry, not at import: a caller (or a test) may have replaced sys.stderr
        self._stream = sys.stderr
        self._terminal = hasattr(self._stream, "isatty") and self._stream.isatty()
        self._ticker = None
        if not self._terminal:
            # at once, before the first cell ends: a log otherwise stayed empty until then
            self._say(
                f"{self.n_total} cells to compute, about {format_clock(self.expected)} expected "
                "(cost model)", self.start
            )
            self._start_ticker(self._run_heartbeat, self.LOG_SECONDS)
            return self

        from tqdm.auto import tqdm

        self.bar = tqdm(
            total=self.n_total, unit="cell", file=self._stream,
            # the clock goes in the description: tqdm puts ", " before a postfix
            bar_format="{n_fmt}/{total_fmt} cells {percentage:3.0f}%|{bar}| {desc}",
            mininterval=0.1,
        )
        self._tick()
        self._start_ticker(self._tick, self.TICK_SECONDS)
        return self

    def _start_ticker(self, action: Callable[[], None], every: float) -> None:
        """Call ``action`` every ``every`` seconds (wall time) until the block ends."""
        self._stop = threading.Event()

        def run() -> None:
            while not self._stop.wait(every):
                action()

        self._ticker = threading.Thread(target=run, daemon=True)
        self._ticker.start()

    def _run_heartbeat(self) -> None:
        now = self.clock()
        if now - self._last_line >= self.HEARTBEAT_SECONDS:
            self._say(self.status(now), now)

    def _say(self, line: str, now: float | None = None) -> None:
        """Write a log line (flushed at once: a pipe or a file would otherwise hold it in its
        buffer); ``now``, the clock it shows, is when the last line was written."""
        with _SAY_LOCK:
            print(line, file=self._stream, flush=True)
            if now is not None:
                self._last_line = now

    def status(self, now: float) -> str:
        """``"3/60 cells (5%), 2:10 elapsed, about 12:34 left"`` at clock time ``now``."""
        elapsed = now - self.start
        return (
            f"{self.n_done}/{self.n_total} cells ({100 * self.n_done / self.n_total:.0f}%), "
            f"{format_clock(elapsed)} elapsed, about {format_clock(self.time_left(elapsed))} left"
        )

    def _tick(self, refresh: bool = True) -> None:
        elapsed = self.clock() - self.start
        self.bar.set_description_str(
            f"{format_clock(elapsed)} elapsed, about {format_clock(self.time_left(elapsed))} left",
            refresh=refresh,
        )

    def finished(self, key: tuple) -> None:
        if not self.enabled:
            return
        self.n_done += 1
        self.done_expected += self.seconds.get(key, 0.0) / self.workers
        if self._terminal:
            # the clock first, so that the bar's update shows this cell's time left
            self._tick(refresh=False)
            self.bar.update(1)
            return
        if self.n_done == self.n_total:
            return  # the last cell's line is the end's (__exit__)
        now = self.clock()
        if now - self._last_line >= self.LOG_SECONDS:
            self._say(self.status(now), now)

    def __exit__(self, exc_type, *exc):
        if not self.enabled:
            return False
        self._stop.set()
        self._ticker.join()
        if self._terminal:
            self._tick()
            self.bar.close()
        elif exc_type is None:
            elapsed = self.clock() - self.start
            self._say(
                f"{self.n_done}/{self.n_total} cells done in {format_clock(elapsed)} "
                f"(expected about {format_clock(self.expected)})"
            )
        return False


def plan_report(
    cells: list[Cell], todo: list[Cell], n_jobs: int, *, stale: int = 0,
    results_path: str | Path | None = None,
) -> str:
    """What a run of ``cells`` would do, before anything trains (``sktdi benchmark --dry-run``).

    Per dataset its sizes (training series, length, classes, test series); per arm its
    cells to compute (``todo``: those without a finished row of the same settings) of its
    cells in the grid, and their expected seconds on one thread (:func:`cell_seconds`); the
    finished cells in ``results_path`` that a resume reuses (``stale``: how many finished ones
    are recomputed for their other settings); and the expected wall time of ``todo`` with
    ``n_jobs`` (:func:`expected_seconds`).

    Examples
    --------
    >>> from sktdi.benchmark import make_cells
    >>> from sktdi.benchmark.progress import plan_report
    >>> cells = make_cells(["ItalyPowerDemand"], [0.5, 1.0], 2, ["1nn-euclidean"])
    >>> print(plan_report(cells, cells[1:], 2, results_path="out/results.csv"))
    datasets: training series, length (the longest, as padded), classes, test series
      ItalyPowerDemand: 67 train, length 24, 2 classes, 1029 test
    arms: cells to compute of the grid's, and their expected time on one thread
      1nn-euclidean: 3 of 4 cells, 34.1 ms
    finished in out/results.csv: 1 cell, which a resume reuses
    expected wall time: about 0:10 for 3 cells on 2 workers (--n-jobs 2; cost model)
    """
    lines = ["datasets: training series, length (the longest, as padded), classes, test series"]
    for name, data_dir in dict.fromkeys((c.dataset, c.data_dir) for c in cells):
        n_train, length, classes, n_test = _dataset_size(name, data_dir)
        lines.append(
            f"  {name}: {n_train} train, length {length:.4g}, {classes} classes, {n_test} test"
        )
    seconds = cell_seconds(todo)
    by_key = dict(zip((c.key() for c in todo), seconds))
    lines.append("arms: cells to compute of the grid's, and their expected time on one thread")
    for arm in dict.fromkeys(c.estimator for c in cells):
        left = [c for c in todo if c.estimator == arm]
        of = sum(c.estimator == arm for c in cells)
        cost = sum(by_key[c.key()] for c in left)
        lines.append(f"  {arm}: {len(left)} of {of} cells, {format_duration(cost)}")
    if results_path is not None:
        reused = len(cells) - len(todo)
        line = f"finished in {results_path}: {reused} cell{'' if reused == 1 else 's'}"
        line += ", which a resume reuses" if reused else ""
        if stale:
            line += (f"; {stale} finished with other settings would be recomputed (their rows "
                     "moved aside)")
        lines.append(line)
    if not todo:
        lines.append("expected wall time: none, every cell of the grid is finished")
    else:
        total = expected_seconds(todo, n_jobs, seconds)
        workers = _workers(len(todo), n_jobs)
        lines.append(
            f"expected wall time: about {format_clock(total)} for {len(todo)} cell"
            f"{'' if len(todo) == 1 else 's'} on {workers} worker{'' if workers == 1 else 's'} "
            f"(--n-jobs {n_jobs}; cost model)"
        )
    return "\n".join(lines)


def format_duration(seconds: float) -> str:
    """The summary's "34.1 ms" under a minute (:func:`~.formatting.format_seconds`), else
    :func:`format_clock`'s "1:05" (never "3.34e+04 s").

    Examples
    --------
    >>> from sktdi.benchmark.progress import format_duration
    >>> format_duration(0.0341), format_duration(33400)
    ('34.1 ms', '9:16:40')
    """
    return format_seconds(seconds) if seconds < 60 else format_clock(seconds)


def format_clock(seconds: float) -> str:
    """"1:05" for 65 seconds, "1:02:03" past an hour.

    Examples
    --------
    >>> from sktdi.benchmark.progress import format_clock
    >>> format_clock(65), format_clock(3723)
    ('1:05', '1:02:03')
    """
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
