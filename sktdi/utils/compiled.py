"""numba's compiled loops, cached on disk where numba can cache them.

numba caches a compiled function next to its source file, or in the user's cache folder
(``NUMBA_CACHE_DIR`` first, where set). Where none of these can be written (a read-only
install run by an account without a writable home), ``njit(cache=True)`` raises at import,
and the package would not import. :func:`compiled` then compiles the function without a
cache instead: each process compiles it again on first use, a fixed cost of a second or so,
and nothing else changes.
"""

from __future__ import annotations


def compiled(**options):
    """``numba.njit(cache=True, **options)``, or without the cache where numba has nowhere to
    write it.

    Examples
    --------
    >>> from sktdi.utils.compiled import compiled
    >>> @compiled(nogil=True)
    ... def twice(x):
    ...     return 2 * x
    >>> twice(3)
    6
    """
    import numba

    def decorate(function):
        try:
            return numba.njit(cache=True, **options)(function)
        except RuntimeError as error:  # numba's "cannot cache function ...: no locator"
            if "cannot cache" not in str(error):
                raise
            return numba.njit(cache=False, **options)(function)

    return decorate
