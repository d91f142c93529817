"""Threads: how many CPU threads torch uses during a fit or a prediction.

torch runs each operation on its intra-op thread pool, by default as many threads as the
machine has cores. Two fits at once (``GridSearchCV(n_jobs=2)``, two processes) then ask for
twice the cores, and oversubscription makes each several times slower than with one thread.

joblib's process backend (loky, scikit-learn's default) already starts its workers with
``OMP_NUM_THREADS`` (and MKL's, OpenBLAS's, ...) set to ``cpu_count() // n_jobs``, which torch
reads when it is imported; its thread backend and the ``multiprocessing`` backend set nothing,
so there every fit asks for every core. :func:`resolve_n_threads` gives a fit inside any
joblib worker the worker's share, and :func:`torch_threads` applies a count for one block and
restores the previous one.

numba (sktime's MiniRocket) changes torch's count behind its back. Its OpenMP threading layer,
started by the first parallel numba call in a process (or ``numba.get_num_threads()``), calls
``omp_set_num_threads(NUMBA_NUM_THREADS)`` on the calling thread, and ``NUMBA_NUM_THREADS``
defaults to the number of CPUs, whatever ``OMP_NUM_THREADS`` says. torch's CPU wheels use the
same ``libgomp.so.1`` (numba's layer links the soname torch has already loaded) and
``torch.get_num_threads()`` is that thread's OpenMP count, so after one MiniRocket transform
torch ran on every core: ``OMP_NUM_THREADS=1`` and ``torch.set_num_threads(1)`` were lost, and
the next fit, side by side with others, ran up to 40 times slower. The layer starts once per
process; later numba calls pass their thread count to each parallel region and leave the
OpenMP setting alone. :func:`keep_torch_threads` wraps any call that may start it and gives
torch its count back.

numba also caps the count a parallel call may ask for: ``numba.set_num_threads(n)`` (which
MiniRocket calls with its ``n_jobs``) refuses any ``n`` above ``NUMBA_NUM_THREADS``, the
threads it launches in the process. loky sets that variable in each worker to
``cpu_count() // n_jobs``, as it sets ``OMP_NUM_THREADS``, but passes on a variable the user
has set: with ``OMP_NUM_THREADS=2`` (as clusters set it) and ``GridSearchCV(n_jobs=2)`` on two
cores, torch runs a worker's fit on 2 threads while numba there allows 1, and handing torch's
count to MiniRocket failed every fit ("The number of threads must be between 1 and 1").
:func:`numba_thread_count` is the count for numba: torch's, at most numba's cap.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading

# torch.set_num_threads is process-wide; the lock and the count of open blocks let fits in
# several threads of one process (joblib's thread backend) set it without one fit's
# restoration undoing another's setting, and the last one out restores the caller's count
_lock = threading.Lock()
_open_blocks = 0
_saved_count: int | None = None


def in_joblib_worker() -> bool:
    """Whether this code runs as a task of a ``joblib.Parallel`` call (any backend).

    joblib runs each task under its backend's *nested* backend, whose nesting level is one
    more than the caller's; outside any Parallel call the level is 0.
    """
    try:
        from joblib.parallel import get_active_backend

        backend, _ = get_active_backend()
    except Exception:  # pragma: no cover - a joblib without this helper: assume not a worker
        return False
    return (getattr(backend, "nesting_level", 0) or 0) >= 1


def omp_num_threads(environ=None) -> int | None:
    """``OMP_NUM_THREADS`` (in ``environ``, default ``os.environ``) when it is a positive int:
    the count loky gave this worker, or the user's own limit. torch is imported only where it
    is used, so that the CLI can read this before it loads torch."""
    value = (os.environ if environ is None else environ).get("OMP_NUM_THREADS", "")
    try:
        count = int(str(value).strip())
    except ValueError:
        return None
    return count if count >= 1 else None


def resolve_n_threads(n_threads: int | None) -> int | None:
    """The torch thread count for an estimator's ``n_threads``.

    - an int: exactly that many;
    - None outside a joblib worker: 1. A team of threads over cores that other processes
      keep busy stalls at every barrier, several times slower than one thread; one thread
      never does, and trains the same model whatever the machine's load and core count
      (the count a reduction is split over changes its last bits, which training can grow).
      On an idle machine more threads are faster on long series: set ``n_threads``
      (``benchmarks/threads`` measures both);
    - None inside a joblib worker process: ``OMP_NUM_THREADS`` when set (loky sets it to
      ``cpu_count() // n_jobs``, or passes on the value the user set for the parent), else 1;
    - None in a joblib worker thread: 1 (the thread backend does not tell a task how many
      run beside it; the workers themselves already spread the work over the cores).
    """
    if n_threads is not None:
        return int(n_threads)
    if not in_joblib_worker():
        return 1
    if threading.current_thread() is not threading.main_thread():
        # a thread worker: its siblings share this process's cores, and OMP_NUM_THREADS here
        # is the caller's setting for the whole process, not a share
        return 1
    share = omp_num_threads()
    return 1 if share is None else share


def default_threads(method):
    """Run an estimator ``method`` that has no ``n_threads`` (the fast path's) at the thread
    count ``n_threads=None`` resolves to (:func:`resolve_n_threads`), as the deep model's
    default does."""

    @functools.wraps(method)
    def wrapped(*args, **kwargs):
        with torch_threads(resolve_n_threads(None)):
            return method(*args, **kwargs)

    return wrapped


@contextlib.contextmanager
def torch_threads(n_threads: int | None):
    """Run a block with ``torch.set_num_threads(n_threads)`` (None: unchanged) and restore
    the count the process had before, even when the block raises."""
    global _open_blocks, _saved_count
    if n_threads is None:
        yield
        return
    import torch

    with _lock:
        if _open_blocks == 0:
            _saved_count = torch.get_num_threads()
        _open_blocks += 1
        torch.set_num_threads(n_threads)
    try:
        yield
    finally:
        with _lock:
            _open_blocks -= 1
            if _open_blocks == 0:
                torch.set_num_threads(_saved_count)


@contextlib.contextmanager
def keep_torch_threads():
    """Run a block that may change torch's thread count behind its back (numba starting its
    OpenMP threading layer: sktime's MiniRocket) and restore the count it had before.

    Examples
    --------
    >>> import torch
    >>> from sktdi.utils.threads import keep_torch_threads
    >>> before = torch.get_num_threads()
    >>> with keep_torch_threads():
    ...     torch.set_num_threads(before + 1)  # what numba's first parallel call does
    >>> torch.get_num_threads() == before
    True
    """
    import torch

    count = torch.get_num_threads()
    try:
        yield
    finally:
        if torch.get_num_threads() != count:
            torch.set_num_threads(count)


def torch_thread_count() -> int:
    """torch's intra-op thread count (the setting :func:`torch_threads` applies), for the
    compiled code that runs beside torch's on the same share of the cores."""
    import torch

    return torch.get_num_threads()


def numba_thread_count(n_threads: int | None = None) -> int:
    """The thread count to hand numba's parallel code (sktime's MiniRocket's ``n_jobs``, which
    it passes to ``numba.set_num_threads``): ``n_threads``, by default torch's count
    (:func:`torch_thread_count`: the compiled code runs on the same share of the cores as
    torch's), at most ``numba.config.NUMBA_NUM_THREADS``, the most numba accepts in this
    process (a loky worker's share when the user's ``OMP_NUM_THREADS`` gives torch more;
    see the module's notes), and at least 1.

    Examples
    --------
    >>> import numba
    >>> from sktdi.utils.threads import numba_thread_count
    >>> numba_thread_count(10**6) == numba.config.NUMBA_NUM_THREADS, numba_thread_count(1)
    (True, 1)
    """
    import numba

    wanted = torch_thread_count() if n_threads is None else int(n_threads)
    # read at each call: the cap is numba's current setting, which set_num_threads checks
    return max(1, min(wanted, int(numba.config.NUMBA_NUM_THREADS)))


@contextlib.contextmanager
def blas_threads(n_threads: int | None):
    """Run a block with the BLAS libraries numpy calls limited to ``n_threads`` (None:
    unchanged), as :func:`torch_threads` does for torch."""
    if n_threads is None:
        yield
        return
    with _lock:
        if "blas" not in _controllers:
            # finding the loaded libraries takes a third of a millisecond; a controller made
            # once (after numpy's import, which loads its BLAS) limits them in microseconds
            from threadpoolctl import ThreadpoolController

            _controllers["blas"] = ThreadpoolController().select(user_api="blas")
    with _controllers["blas"].limit(limits=int(n_threads)):
        yield


_controllers: dict = {}


# how many flushed_denormals blocks each thread is inside: the CPU's flush-to-zero mode is a
# setting of the thread that computes (x86's MXCSR), so nesting is counted per thread
_flushing = threading.local()


@contextlib.contextmanager
def flushed_denormals():
    """Run a block (a network's training) with subnormal floats flushed to zero on the CPU.

    Training an S4D network makes subnormal numbers (below 1.2e-38 in float32): the kernels of
    strongly damped modes and their gradients decay through them. An x86 CPU computes on them
    tens of times slower, so an epoch took from 0.8 s to 16 s on the same series, at random
    (CBF: 30 series of 128 steps; benchmarks/cost_model/README.md), and no budget could be
    planned. Flushed, they are 0, as a GPU's kernels already take them. torch keeps the mode
    per thread and has no getter: the outermost block turns it on and, on leaving, off again,
    the default.

    Examples
    --------
    >>> import torch
    >>> from sktdi.utils.threads import flushed_denormals
    >>> tiny = torch.tensor([1e-39], dtype=torch.float32)  # subnormal
    >>> with flushed_denormals():
    ...     float(tiny * 1.0)
    0.0
    >>> float(tiny * 1.0) > 0
    True
    """
    import torch

    depth = getattr(_flushing, "depth", 0)
    if depth == 0:
        torch.set_flush_denormal(True)
    _flushing.depth = depth + 1
    try:
        yield
    finally:
        _flushing.depth -= 1
        if _flushing.depth == 0:
            torch.set_flush_denormal(False)
