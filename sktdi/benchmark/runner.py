"""Running the benchmark grid: one cell, many (joblib or Dask), resuming a stopped run.

The grid itself (:class:`Cell`, :func:`make_cells`) is defined in :mod:`.cells`, and the results
file's reading and writing in :mod:`.results_file`; both are re-exported here.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ..utils.threads import omp_num_threads

# the grid's definitions live in .cells (the progress bar reads them too); they are
# re-exported here, where they were first defined: sktdi.benchmark.runner.Cell still works
from .cells import KEY, Cell, cell_keys, make_cells  # noqa: F401 (make_cells: re-exported)
from .estimators import ESTIMATORS, gives_probabilities, trains_network
from .progress import RunProgress
from .probabilities import brier, expected_calibration_error
from .results_file import (
    COLUMNS,
    append_row,
    read_results,
    repair_results,
    write_atomic,
)
from .settings import describe_settings, normalize_config, parse_config

# the key of a row that holds the cell's test predictions on their way from the worker to the
# tsml-eval results file (run_benchmark writes and drops it; the CSV never holds it)
PREDICTIONS = "_predictions"


def _split(cell: Cell):
    from ..datasets import (
        concat,
        load_dataset_split,
        resample_split,
        stratified_folds,
        take,
    )

    X_train, y_train, X_test, y_test = load_dataset_split(cell.dataset, cell.data_dir)
    if cell.mode == "train-cv":  # the test split is never read
        train, test = stratified_folds(y_train, cell.n_folds, random_state=0)[cell.resample]
        return take(X_train, train), y_train[train], take(X_train, test), y_train[test]
    if cell.mode == "cv":
        X, y = concat(X_train, X_test), np.concatenate([y_train, y_test])
        train, test = stratified_folds(y, cell.n_folds, random_state=0)[cell.resample]
        return take(X, train), y[train], take(X, test), y[test]
    return resample_split(X_train, y_train, X_test, y_test, cell.resample)


def _inputs(kind: str, X, length: int):
    """(args, kwargs) for fit/predict: SSM models get lengths, baselines a padded array.

    Both splits are padded to the same ``length``: a model fitted on one length (the
    transformer's features, a flattened 1-NN) cannot read another.
    """
    from ..datasets import pad_sequences

    padded, lengths = pad_sequences(X, length)
    if kind == "ssm":
        equal = np.all(lengths == padded.shape[-1])
        return (padded,), ({} if equal else {"lengths": lengths})
    if kind == "flat":
        return (padded.reshape(len(padded), -1),), {}
    return (padded,), {}


def _longest(X) -> int:
    """The most time steps of any series in a panel (ndarray or list of series)."""
    if isinstance(X, np.ndarray) and X.dtype != object:
        return X.shape[-1]
    return max(np.shape(s)[-1] for s in X)


def worker_threads(n_jobs: int, environ=None) -> int:
    """Threads each cell may use when ``n_jobs`` cells run at once: the cores, shared out,
    within the user's ``OMP_NUM_THREADS``.

    ``n_jobs=-1`` means one worker per core, so each gets one thread; ``n_jobs=1`` runs the
    cells one after another in this process, each with every core, or with
    ``OMP_NUM_THREADS`` threads when the environment (``environ``, default ``os.environ``)
    sets it: a user who limits the threads on a shared machine gets that limit, not every
    core (oversubscribed, a cell ran 10-15 times slower, and its inflated ``fit_seconds``
    went into the summary). With several jobs ``OMP_NUM_THREADS`` caps each cell's share.

    Examples
    --------
    >>> import os
    >>> from sktdi.benchmark.runner import worker_threads
    >>> worker_threads(1, environ={}) == (os.cpu_count() or 1), worker_threads(-1)
    (True, 1)
    >>> worker_threads(1, environ={"OMP_NUM_THREADS": "1"})
    1
    """
    cores = os.cpu_count() or 1
    workers = cores if n_jobs == -1 else max(1, n_jobs)
    share = max(1, cores // workers)
    limit = omp_num_threads(environ)
    if limit is None:
        return share
    return limit if workers == 1 else min(share, limit)


@contextmanager
def cell_threads(threads: int):
    """Limit torch and the native thread pools (BLAS, OpenMP) to ``threads`` inside the block.

    ``torch.set_num_threads`` alone leaves numpy's BLAS at its own default, which in a worker
    is one thread per core: with several workers that oversubscribes the cores. loky workers
    get OMP_NUM_THREADS and friends from joblib, but Dask workers and the in-process
    ``n_jobs=1`` path do not, so threadpoolctl sets the limit here for every backend. Both
    settings are restored on exit, so running a cell in this process leaves it as it was.

    Examples
    --------
    >>> import torch
    >>> from sktdi.benchmark.runner import cell_threads
    >>> before = torch.get_num_threads()
    >>> with cell_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    from threadpoolctl import threadpool_limits

    from ..utils.threads import torch_threads

    threads = max(1, int(threads))
    with torch_threads(threads), threadpool_limits(limits=threads):
        yield


def run_cell(cell: Cell) -> dict:
    """Fit and evaluate one cell; any failure becomes a row with status "error".

    Examples
    --------
    >>> from sktdi.benchmark import Cell, run_cell
    >>> row = run_cell(Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean"))
    >>> row["status"], row["n_train"], round(row["accuracy"], 3)
    ('ok', 67, 0.955)
    """
    with cell_threads(cell.threads):
        return _run_cell(cell)


def _run_cell(cell: Cell) -> dict:
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, log_loss

    from ..datasets import take, training_subsample

    row = {**dict(zip(KEY, cell.key())), "config": cell.config()}
    # every warning of the cell is kept in its row, with the cell that raised it, and none is
    # printed: from a worker it would land mid-bar, naming no dataset or arm
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            X_train, y_train, X_test, y_test = _split(cell)
            idx = training_subsample(
                y_train, cell.ratio, min_per_class=cell.min_per_class, random_state=cell.resample
            )
            X_train, y_train = take(X_train, idx), y_train[idx]
            build, kind, _ = ESTIMATORS[cell.estimator]
            model = build(cell.resample, cell.params)
            length = max(_longest(X_train), _longest(X_test))
            (train_args, train_kwargs), (test_args, test_kwargs) = (
                _inputs(kind, X_train, length),
                _inputs(kind, X_test, length),
            )
            _warm_up(cell.estimator, model, train_args, y_train, train_kwargs)
            start = time.perf_counter()
            model.fit(*train_args, y_train, **train_kwargs)
            fit_seconds = time.perf_counter() - start
            # no NLL (Brier, ECE) for hard-label models: it restates the errors
            nll = brier_score = ece = np.nan
            proba = None
            start = time.perf_counter()
            if trains_network(cell.estimator) and kind == "ssm":
                # SSMClassifier.predict is the argmax of predict_proba: one forward pass, not
                # two (the network's float64 pass was most of a long test set's cell)
                proba = model.predict_proba(*test_args, **test_kwargs)
                y_pred = model.classes_[np.argmax(proba, axis=1)]
            else:
                y_pred = model.predict(*test_args, **test_kwargs)
            predict_seconds = time.perf_counter() - start
            if proba is None and gives_probabilities(cell.estimator) and hasattr(
                model, "predict_proba"
            ):
                proba = model.predict_proba(*test_args, **test_kwargs)
            if proba is not None:
                nll = log_loss(y_test, np.clip(proba, 1e-15, 1), labels=model.classes_)
                if np.isin(y_test, model.classes_).all():
                    codes = np.searchsorted(model.classes_, y_test)  # (n_test,)
                    brier_score = brier(proba, codes)
                    ece = expected_calibration_error(proba, codes)
            aligned, action = tdi_action(model)
            row.update(
                n_train=len(y_train),
                n_test=len(y_test),
                n_classes=len(np.unique(np.concatenate([y_train, y_test]))),
                accuracy=accuracy_score(y_test, y_pred),
                balanced_accuracy=balanced_accuracy_score(y_test, y_pred),
                nll=nll,
                brier=brier_score,
                ece=ece,
                fit_seconds=fit_seconds,
                predict_seconds=predict_seconds,
                status="ok",
                error="",
                traceback="",
                tdi_aligned=aligned,
                tdi_action=action,
            )
            row[PREDICTIONS] = {
                "y_true": np.asarray(y_test).astype(str),
                "y_pred": np.asarray(y_pred).astype(str),
                "classes": np.unique(np.concatenate([y_train, y_test]).astype(str)),
                "proba": proba,
                "proba_classes": None if proba is None else np.asarray(model.classes_).astype(str),
            }
        except Exception as exc:  # a failing cell must not stop the grid
            row.update(status="error", error=f"{type(exc).__name__}: {exc}"[:2000])
            row["traceback"] = traceback.format_exc()[-4000:]
    row["warnings"] = _warning_lines(caught)
    row["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return row


# the model's inits that TDI acts in: the cells whose row says what it did
TDI_INITS = ("tdi", "tdi-control", "auto")


def tdi_action(model) -> tuple[float, str]:
    """What TDI did in a fitted model: the channels it aligned, and its reasons in words.

    Reads ``init_report_`` of the model and of its fast path (``fast_path_``, where the model
    holds one): ``(channels aligned in all, "network: <reason>; fast path: <reason>")``, and
    what a one model ended as (``fast_path_report_["model"]``: "; ended as: fast path"). A model
    whose init is not TDI's (S4D-Lin, MiniRocket, 1-NN) gives ``(nan, "")``. Zero channels
    aligned means TDI stood down everywhere: the model is its base's, the same fit as the
    S4D-Lin arm's of the same cell.
    """
    parts = [("network", getattr(model, "init_report_", None))]
    fast = getattr(model, "fast_path_", None)
    if fast is not None:
        parts.append(("fast path", getattr(fast, "init_report_", None)))
    parts = [
        (name, report) for name, report in parts
        if isinstance(report, dict) and report.get("requested") in TDI_INITS
    ]
    if not parts:
        return np.nan, ""
    if len(parts) == 1 and fast is None:
        parts = [("model", parts[0][1])]
    aligned = sum(int(report.get("n_aligned_channels") or 0) for _, report in parts)
    action = "; ".join(f"{name}: {report.get('reason', '')}" for name, report in parts)
    chosen = getattr(model, "fast_path_report_", None)
    if isinstance(chosen, dict) and chosen.get("model"):
        # what the one model ended as: its fast path, the network on top, or the network alone
        action += f"; ended as: {chosen['model']}"
    return float(aligned), action


def _warning_lines(caught) -> str:
    """The distinct warnings of a cell, one "Category: message" per line, in order."""
    lines = dict.fromkeys(
        f"{w.category.__name__}: {' '.join(str(w.message).split())}" for w in caught
    )
    return "\n".join(lines)


# (estimator, input signature) pairs this process has warmed up already (_warm_up)
_WARMED: set[tuple] = set()


# the epochs parameter of each deep model's builder: SSMClassifier's, then sktime's deep peers'
EPOCH_PARAMETERS = ("max_epochs", "num_epochs")


def _warm_up(name: str, model, train_args, y_train, train_kwargs) -> None:
    """Fit a throwaway clone once per process and input signature, so that ``fit_seconds``
    times a warm fit for every estimator.

    MiniRocket and DTW compile their numba kernels on the first call in a process (seconds,
    more than a whole warm fit on these datasets). A deep model's first fit in a process
    pays once for what every later one finds loaded: torch imports its compiler stack when
    the first optimizer is built (about a second and a half on this project's machine, for
    whichever torch model fits first), and each package its own modules and compiled
    kernels. None of that is a cost of fitting, so the deep models' clone trains one epoch.
    """
    # a model without scikit-learn's get_params (a test's stand-in) has no epochs to set
    params = model.get_params(deep=False) if hasattr(model, "get_params") else {}
    deep = any(p in params for p in EPOCH_PARAMETERS)
    if ESTIMATORS[name][2] != "numba" and not deep:
        return
    X = train_args[0]
    signature = (name, type(X).__name__, getattr(X, "ndim", None), getattr(X, "shape", (0, 0))[1])
    if signature in _WARMED:
        return
    from sklearn.base import clone

    warm = clone(model)
    if deep:  # one epoch (none for a model that trains none)
        warm.set_params(**{p: min(1, params[p]) for p in EPOCH_PARAMETERS if p in params})
    with warnings.catch_warnings(record=True):
        # a one-epoch fit learns little, and what it warns of is about a fit nobody asked for
        # (the cell's own fit says whatever applies to it)
        warnings.simplefilter("ignore")
        warm.fit(*train_args, y_train, **train_kwargs)
    _WARMED.add(signature)


def finished_keys(path: Path) -> set[tuple]:
    """Keys of the cells already finished without error in the results file (any settings)."""
    return set(finished_configs(path))


def finished_configs(path: Path) -> dict[tuple, str]:
    """Key -> settings (normalized "config", :mod:`sktdi.benchmark.settings`) of the cells
    finished without error in the results file."""
    done = read_results(path)
    done = done[done["status"] == "ok"]
    configs = done["config"] if "config" in done.columns else [None] * len(done)
    return {
        key: normalize_config(key[-1], config) for key, config in zip(cell_keys(done), configs)
    }


def resume_plan(cells: list[Cell], path: str | Path) -> tuple[list[Cell], list[tuple[Cell, str]]]:
    """The cells to compute, and among them those finished with other settings.

    Returns ``(todo, stale)``: ``todo`` every cell without an "ok" row of the same settings in
    ``path``; ``stale`` the (cell, stored config) pairs of the cells whose "ok" row has other
    settings (a ``--max-epochs 5`` run over a folder of 20-epoch cells), which are recomputed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark import Cell, run_benchmark
    >>> from sktdi.benchmark.runner import resume_plan
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> cell = Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean")
    >>> _ = run_benchmark([cell], out, progress=False)
    >>> resume_plan([cell], out)
    ([], [])
    >>> todo, stale = resume_plan([Cell("ItalyPowerDemand", 1.0, 0, "1nn-euclidean",
    ...                                 min_per_class=2)], out)
    >>> len(todo), stale[0][1]
    (1, '{}')
    """
    done = finished_configs(Path(path))
    todo, stale = [], []
    for cell in cells:
        stored = done.get(cell.key())
        if stored == cell.config():
            continue
        todo.append(cell)
        if stored is not None:
            stale.append((cell, stored))
    return todo, stale


def replaced_path(path: str | Path) -> Path:
    """Where a results file's rows of other settings go when their cells are recomputed:
    ``results.csv`` -> ``results_replaced.csv`` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}_replaced{path.suffix}")


def _counted(configs: list[str]) -> str:
    """"max_epochs=20" when every config is that one, else each with its count of cells."""
    counts: dict[str, int] = {}
    for config in configs:
        counts[config] = counts.get(config, 0) + 1
    if len(counts) == 1:
        return describe_settings(next(iter(counts)))
    return "; ".join(
        f"{describe_settings(c)}: {n} cell{'s' if n != 1 else ''}" for c, n in counts.items()
    )


def stale_message(stale: list[tuple[Cell, str]], path: str | Path) -> str:
    """One line saying which finished cells are recomputed because their settings differ.

    Examples
    --------
    >>> from sktdi.benchmark import Cell
    >>> from sktdi.benchmark.runner import stale_message
    >>> cell = Cell("GunPoint", 1.0, 0, "tdi", params={"max_epochs": 5})
    >>> message = stale_message([(cell, '{"max_epochs": 20}')], "runs/a/results.csv")
    >>> message.split("; ")  # doctest: +NORMALIZE_WHITESPACE
    ['1 cell in runs/a was computed with other settings (max_epochs=20) and will be recomputed
      with max_epochs=5', 'its old row moves to runs/a/results_replaced.csv']
    """
    path = Path(path)
    n = len(stale)
    old = _counted([stored for _, stored in stale])
    new = _counted([cell.config() for cell, _ in stale])
    cells, were, rows = (
        ("cell", "was", "its old row moves") if n == 1 else ("cells", "were", "their old rows move")
    )
    return (
        f"{n} {cells} in {path.parent} {were} computed with other settings ({old}) and will be "
        f"recomputed with {new}; {rows} to {replaced_path(path)}"
    )


def _nonempty(path: Path) -> bool:
    # an empty file has no header either, and pd.read_csv refuses it
    return path.exists() and path.stat().st_size > 0


def _current_columns(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with :data:`COLUMNS` first, in order (missing ones empty), then any others.

    Appended rows carry exactly :data:`COLUMNS`; a file written by an older version (no
    "traceback" column, say) would otherwise get rows with more fields than its header, which
    pd.read_csv rejects. Extra columns go last, so the shorter appended rows leave them empty.
    """
    extra = [c for c in table.columns if c not in COLUMNS]
    return table.reindex(columns=[*COLUMNS, *extra])


def _forget_reruns(path: Path, todo: list[Cell], stale: list[tuple[Cell, str]] = ()) -> None:
    """Rewrite the results file without the rows of cells about to run, in current columns.

    The "ok" rows of ``stale`` cells (finished with other settings) are appended to
    :func:`replaced_path` first: the results file keeps one row per cell, all of one run's
    settings, and the replaced results are not lost.
    """
    table = read_results(path)
    keys = cell_keys(table)
    replaced = {c.key() for c, _ in stale}
    if replaced:
        stale_ok = np.array([k in replaced for k in keys]) & (table["status"] == "ok").to_numpy()
        moved = table[stale_ok]
        aside = replaced_path(path)
        if _nonempty(aside):
            moved = pd.concat([read_results(aside), moved], ignore_index=True)
        # rewritten whole: through a temporary file, so a stop now leaves the old file
        write_atomic(aside, _current_columns(moved).to_csv(index=False, lineterminator="\n"))
    rerun = {c.key() for c in todo}
    # failed rows and rows of other settings that will be rerun go, one row per cell
    keep = [k not in rerun for k in keys]
    write_atomic(path, _current_columns(table[keep]).to_csv(index=False, lineterminator="\n"))


# loky (joblib's process pool) takes a worker's RSS after its first task as a reference and,
# once RSS has grown by more than 300 MB over it, retires the worker as "leaking" and starts a
# new one, warning "A worker stopped while some jobs were given to the executor. This can be
# caused by a too short worker timeout or by a memory leak." Benchmark cells grow a worker's
# RSS by about that much without leaking: the first minirocket cell JIT-compiles numba code,
# the first SSM cell imports skorch and fills torch's allocator caches, and RSS then stays flat
# (measured in one process: +0, +132, +257, +258, +258, +293 MiB after 1nn-euclidean,
# minirocket, tdi, s4d-lin on ItalyPowerDemand, then 1nn-euclidean and minirocket on
# GunPoint). Each restart redoes those imports and compilations, so our workers tolerate more
# growth; a real leak beyond this still gets its worker replaced.
LOKY_MEMORY_GROWTH_LIMIT = 2 * 1024**3


def _in_loky_worker(func: Callable, cell: Cell):
    """Run ``func(cell)`` in a loky worker that tolerates :data:`LOKY_MEMORY_GROWTH_LIMIT`."""
    from joblib.externals.loky import process_executor

    # the worker loop reads this module global at each check, after the task returns
    limit = getattr(process_executor, "_MAX_MEMORY_LEAK_SIZE", 0)
    process_executor._MAX_MEMORY_LEAK_SIZE = max(limit, LOKY_MEMORY_GROWTH_LIMIT)
    return func(cell)


def _joblib_results(
    cells: list[Cell], n_jobs: int, func: Callable[[Cell], dict] = run_cell
) -> Iterator[dict]:
    """``func`` of each cell in loky worker processes, in the order they finish."""
    from joblib import Parallel, delayed

    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(_in_loky_worker)(func, cell) for cell in cells
    )


def _dask_results(cells: list[Cell], n_jobs: int, scheduler: str | None) -> Iterator[dict]:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        n_workers = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True)
    client = Client(scheduler or cluster)
    try:
        futures = client.map(run_cell, cells, pure=False)
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_benchmark(
    cells: list[Cell],
    results_path: str | Path,
    *,
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool = True,
    tsml_out: str | Path | None = None,
) -> pd.DataFrame:
    """Run every unfinished cell and append its row to ``results_path`` (CSV) as it finishes.

    Resumable: cells already in the file with status "ok" and the same settings (the "config"
    column, :meth:`Cell.config`) are skipped; error rows are retried. A cell finished with
    other settings is recomputed: one line on stderr says how many and which settings, and
    its old row moves to :func:`replaced_path` (``results_replaced.csv``), so that the results
    file never mixes two settings of one cell. A failing cell's row holds its error and, in
    the "traceback" column, its traceback; a file from a version without that column gains it
    when resumed.
    ``backend="loky"`` runs cells in joblib worker processes; ``backend="dask"`` on a
    dask.distributed cluster (``scheduler`` address, or a LocalCluster of ``n_jobs`` workers).
    With ``tsml_out`` (a folder), each computed cell's test predictions are also written as
    a tsml-eval results file under ``tsml_out/tsml/`` (:mod:`sktdi.benchmark.tsml_results`).
    Each cell's warnings go into its row ("warnings"), never to the terminal, and a TDI
    arm's row says what TDI did ("tdi_aligned", "tdi_action"; :func:`tdi_action`).
    Each row is appended in one write, and a row a stopped run left cut short is removed
    first (:mod:`.results_file`); on Ctrl-C (KeyboardInterrupt) the workers are stopped and
    the interrupt goes on to the caller, with every finished cell's row in the file.
    Returns the whole results table.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark import make_cells, run_benchmark
    >>> cells = make_cells(["ItalyPowerDemand"], [0.5, 1.0], 2, ["1nn-euclidean"])
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> table = run_benchmark(cells, out, progress=False)
    >>> len(table), set(table["status"])
    (4, {'ok'})
    """
    path = Path(results_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a run stopped mid-write left its last row cut short: the next row must start a line
    repair_results(path)
    todo, stale = resume_plan(cells, path)
    if stale:
        print(stale_message(stale, path), file=sys.stderr)
    if _nonempty(path) and todo:
        _forget_reruns(path, todo, stale)
    if todo:
        if backend == "dask":
            results = _dask_results(todo, n_jobs, scheduler)
        elif backend == "loky":
            results = _joblib_results(todo, n_jobs) if n_jobs != 1 else map(run_cell, todo)
        else:
            raise ValueError(f"backend must be 'loky' or 'dask', got {backend!r}")
        try:
            with RunProgress(todo, n_jobs, enabled=progress) as bar:
                for row in results:
                    predictions = row.pop(PREDICTIONS, None)
                    if tsml_out is not None and predictions is not None:
                        _write_tsml(tsml_out, row, predictions)
                    append_row(path, row)
                    bar.finished(tuple(row[k] for k in KEY))
        finally:
            _stop(results)
    # read round-trip (read_results' default): pandas' default parser may misread a float's
    # last digit, and tsml-eval's evaluation of the results files must match these accuracies
    return read_results(path)


def _stop(results) -> None:
    """Stop the workers of an unfinished run (Ctrl-C, an error in this process).

    Closing joblib's generator aborts its Parallel, which kills the loky workers; closing
    the Dask generator closes its client and the LocalCluster it started. Either would
    otherwise keep computing cells nobody reads. joblib warns that tasks were cancelled: that
    is what was asked, so the warning is not shown.
    """
    close = getattr(results, "close", None)  # map(run_cell, ...) has nothing running apart
    if close is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close()


def _write_tsml(out: Path, row: dict, predictions: dict) -> None:
    """The cell's test predictions as a tsml-eval results file (:mod:`.tsml_results`)."""
    from .tsml_results import results_path, results_root, write_classifier_results

    config = parse_config(row.get("config"))
    root = results_root(out, row["mode"], row["ratio"], config.get("n_folds", 0))
    write_classifier_results(
        results_path(root, row["estimator"], row["dataset"], row["resample"]),
        dataset=row["dataset"], estimator=row["estimator"], resample=row["resample"],
        fit_seconds=row["fit_seconds"], predict_seconds=row["predict_seconds"],
        parameters=f"sktdi benchmark cell; settings: {describe_settings(config)}",
        **predictions,
    )

