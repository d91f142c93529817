"""Freed memory kept for reuse while training on CPU (glibc's malloc thresholds).

A training step allocates and frees the same few large buffers (spectra and activations of
several MiB) at every step. glibc's malloc serves blocks that large with fresh ``mmap``
pages and returns them to the system when they are freed, so every step pays the page
faults of touching new memory again: on the reference 2-core machine, about a third of an
S4D layer's forward+backward at (batch 16, d_model 64, length 1024) went to them (the
``copy_``, ``fill_`` and ``mul`` that topped its profile ran at a fifth of their speed;
``benchmarks/budgets/bench_training_step.py``). Raising the mmap threshold and the trim threshold
keeps freed blocks in the heap for the next step, as PyTorch's CUDA allocator keeps GPU
memory: the process holds on to its peak training memory instead of faulting it in anew.

Applied once per process — at the first CPU fit or prediction of an estimator — on Linux
with glibc only (elsewhere nothing happens). It is process-wide: the process may keep up to
the trim threshold (1 GiB) of freed memory for reuse. ``SKTDI_KEEP_FREED_MEMORY=0`` in the
environment turns it off.

What is kept can fragment: a long prediction's batches, each a few hundred MiB of blocks just
under the mmap threshold, left the heap holding 0.4 to 2.5 GiB of free, unusable pieces
after 100 batches (more with other threads allocating). :func:`release_freed_memory`
returns the free pages to the system (``malloc_trim``); prediction calls it every few
batches, so its resident memory stays bounded by one stretch of batches. A training epoch on
series so long that the network recomputes its block outputs calls it at its end
(:class:`sktdi.deep_model.training.ReleaseFreedMemory`).
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading

# mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# blocks up to this size come from the heap (glibc's own dynamic ceiling is 32 MiB)
MMAP_THRESHOLD_BYTES = 64 * 2**20
# free memory at the top of the heap above this size is returned to the system
TRIM_THRESHOLD_BYTES = 1024 * 2**20

_lock = threading.Lock()
_state: dict[str, bool] = {}


def keep_freed_memory() -> bool:
    """Set glibc's thresholds once for this process; True when they are (or were) set.

    Examples
    --------
    >>> from sktdi.utils.memory import keep_freed_memory
    >>> isinstance(keep_freed_memory(), bool)
    True
    """
    with _lock:
        if "applied" not in _state:
            _state["applied"] = _apply()
        return _state["applied"]


def _apply() -> bool:
    if os.environ.get("SKTDI_KEEP_FREED_MEMORY", "1").strip().lower() in ("0", "false", "no"):
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # glibc only: musl and others have other mallocs
    except Exception:  # no C library to load, or not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # each on its own: a glibc that refuses one threshold still gets the other
    mmap_set = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    trim_set = mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    return bool(mmap_set or trim_set)


def release_freed_memory() -> bool:
    """Return the pages of malloc's free memory to the system (glibc's ``malloc_trim(0)``,
    which since glibc 2.8 also releases whole free pages inside the heap, not only at its
    top); True where it ran. The next allocations fault their pages in again.

    Examples
    --------
    >>> from sktdi.utils.memory import release_freed_memory
    >>> isinstance(release_freed_memory(), bool)
    True
    """
    trim = _libc_function("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


def _libc_function(name: str):
    """A glibc function by name, taking a size_t and returning an int; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only
        function = getattr(libc, name)
    except Exception:  # no C library to load, not glibc, or no such function
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function
