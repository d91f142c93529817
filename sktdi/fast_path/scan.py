"""The filter bank's features in one compiled pass: recurrence and pooling fused.

A bank filter is a diagonal SSM, y_t = 2·Re Σ_n CB̄_n s_{n,t} with s_{n,t} = Ā_n s_{n,t-1} + u_t
(N complex modes). Run as this recurrence, every filter of every series is one pass over the
series' own time steps, and the pooled statistics are updated as the outputs come: nothing of
size (series × filters × length) is ever held, so memory is the features' own, and a padded
series simply stops at its length. numba compiles the loop, and slices of the series run on
threads of their own (:func:`_in_threads`); the state runs in float32, whose error on these
features is far below the features' own spread (``benchmarks/kernel_regime/bench_fast_path.py`` measures
both the time and the agreement with the float64 FFT path), while sums are accumulated in
float64.

Why a recurrence rather than an FFT: per output sample it costs about 10 flops per mode
(80 for N = 8), against the FFT's ~30 plus a full memory pass per pooled statistic; fused with
the pooling it reads each series once and writes only the features. The FFT path stays for
``features="sequence"``, which returns every output anyway.

A series far from zero would lose its signal in float32 (amplitude 0.01 at an offset of
1000 is below float32's resolution there): each (series, channel) whose mean is farther
from zero than any of its values from that mean is run centred (:func:`series_centres`),
the centre subtracted in float64 before the float32 recurrence, and the centre's own
response, a step response computed once in float64 (:func:`step_response`), added back in
float64 to each output; its first difference is taken in float64. A series near zero runs
as it is, in the state's type. In both, a state that falls below 2**-60 of its series' largest
input is set to 0 (:func:`sktdi.fast_path.scan_kernels.flush_tiny`): a stretch of zeros would
otherwise decay it into subnormal floats, which the CPU computes many times slower.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import math

import numpy as np

from ..utils.threads import keep_torch_threads, torch_thread_count

# features="stats": mean, std, max, min, then one PPV per bias; "multirocket": per bias,
# PPV, MPV, MIPV, LSPV (see sktdi.fast_path.transformers.multirocket_pooling)
N_STATS = 4
N_MULTIROCKET = 4
# the recurrence's float type; float64 gives the same features to round-off and the same
# accuracy, at ~1.5x the time (benchmarks/kernel_regime/bench_fast_path.py measures both)
STATE_DTYPE = np.float32
# the most float64 values one pooling kernel call writes (scan_features): 32 MB
POOL_BLOCK_VALUES = 2**22
# a step response is computed until every mode has decayed below 2**-60 of its start, and
# taken as constant after: float64's own resolution of the response's final value
RESPONSE_DECAY = 2.0**-60


@contextlib.contextmanager
def _scan_threads():
    """The compiled kernels and the thread count the scans run on: torch's (the estimators'
    default_threads: one, or a joblib worker's share), as every other step of a fit. The
    count goes to Python threads that run serial kernels (:func:`_in_threads`), never to
    numba's own thread pool, so numba's per-process cap (NUMBA_NUM_THREADS, which
    :func:`~sktdi.utils.threads.numba_thread_count` keeps MiniRocket within) does not apply."""
    with keep_torch_threads():  # numba's first import, should it come here
        from . import scan_kernels as kernels

        yield kernels, torch_thread_count()


def _in_threads(call, n: int, threads: int) -> None:
    """``call(rows)`` over slices of range(n) that together cover it, on ``threads`` Python
    threads. The kernels release the GIL (``nogil``), so the threads run at once; four
    slices a thread even out series of unequal length. Threads of our own rather than
    numba's ``parallel=True``, whose compiling took two thirds of a first fit's time (15 of
    20 s on a cold cache), and whose fallback threading layer aborts the process when two
    threads launch at once."""
    bounds = np.unique(np.linspace(0, n, min(n, 4 * threads) + 1).astype(np.int64))
    slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
    if threads <= 1 or len(slices) <= 1:
        for rows in slices:
            call(rows)
        return
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(call, rows) for rows in slices]:
            done.result()  # raises what the slice raised


def _modes(A_bar: np.ndarray, CB_bar: np.ndarray, dtype) -> tuple[np.ndarray, ...]:
    """(Re Ā, Im Ā, Re CB̄, Im CB̄), each (N, H), mode-major as the scans read them."""
    return tuple(
        np.ascontiguousarray(part.T, dtype=dtype)
        for part in (A_bar.real, A_bar.imag, CB_bar.real, CB_bar.imag)
    )


def _steps(X: np.ndarray, lengths: np.ndarray | None) -> np.ndarray:
    """Each series' own length (n,) int64: ``lengths``, or X's whole length."""
    if lengths is None:
        return np.full(len(X), X.shape[-1], dtype=np.int64)
    return lengths.astype(np.int64)


def series_centres(X: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """The centre each (series, channel) of X (n, C, L) is filtered around, (n, C) float64:
    its mean over its own steps where the series is far from zero, 0 elsewhere.

    Far from zero: the mean is farther from zero than any of the series' values is from the
    mean, so that every value is on the mean's side of zero and float32 would spend its
    resolution on the offset. A series that crosses zero (most: standardized data, signals
    around a baseline of 0) keeps 0 and is filtered exactly as it always was; its values are
    within twice their own spread of zero, where float32 rounds them no worse than it
    rounds the state.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.fast_path.scan import series_centres
    >>> X = np.array([[[1000.0, 1000.02, 999.98]], [[-1.0, 0.5, 0.7]]])  # (2, 1, 3)
    >>> series_centres(X).round(6).tolist()
    [[1000.0], [0.0]]
    """
    from . import scan_kernels as kernels  # compiled, not parallel: no thread setting

    out = np.empty(X.shape[:2])  # (n, C)
    kernels.centres(np.ascontiguousarray(X), _steps(X, lengths), out)  # sums in float64
    return out


def step_response(A_bar: np.ndarray, CB_bar: np.ndarray, length: int) -> np.ndarray:
    """Each filter's output on a constant input of 1 from rest, (H, T) float64, for the
    bank (Ā, CB̄), complex (H, N): steps 0 to T - 1, T at most ``length``, and constant after
    T (every mode has decayed below :data:`RESPONSE_DECAY` of its start by then).

    What a centred scan adds back: a filter's output on ``x`` is its output on
    ``x - centre`` plus ``centre`` times this response (the filters are linear and start at
    rest).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.fast_path.scan import step_response
    >>> A_bar, CB_bar = np.array([[0.5 + 0j]]), np.array([[0.5 + 0j]])  # y = Σ 0.5^k
    >>> step_response(A_bar, CB_bar, 4).tolist()
    [[1.0, 1.5, 1.75, 1.875]]
    """
    from . import scan_kernels as kernels

    slowest = float(np.abs(A_bar).max(initial=0.0))
    steps = length
    if 0.0 < slowest < 1.0:  # stable modes: the response settles
        steps = min(length, math.ceil(math.log(RESPONSE_DECAY) / math.log(slowest)) + 1)
    out = np.empty((A_bar.shape[0], max(int(steps), 1)))  # (H, T)
    kernels.step_response(*_modes(A_bar, CB_bar, np.float64), out)
    return out


def _centring(X: np.ndarray, lengths: np.ndarray, A_bar, CB_bar):
    """What the kernels take for series far from zero: the centres (n, C), X in float64 (no
    copy when it is already) and the step response (H, T); when no series is far from
    zero, placeholders the kernels never read (no float64 copy of float32 X): an (n, 1, 1)
    X64, sliced by series as the real one is."""
    centres = series_centres(X, lengths)  # (n, C)
    if not centres.any():
        return np.zeros((len(X), 1, 1)), centres, np.zeros((A_bar.shape[0], 1))
    X64 = np.ascontiguousarray(X, dtype=np.float64)  # (n, C, L)
    return X64, centres, step_response(A_bar, CB_bar, X.shape[-1])


def _check_scan_shapes(X, lengths, A_bar, CB_bar, biases=(), difference=False) -> None:
    """Refuse arrays that do not fit each other before a compiled scan runs on them: the
    kernels index without bounds checks, so a bias array or length that does not fit the
    bank would read or write outside memory rather than raise. Once per call, in Python:
    the second line of defence behind the loaded files' declared shapes
    (sktdi.persistence.declared)."""
    n, n_channels, length = X.shape
    if A_bar.ndim != 2 or CB_bar.shape != A_bar.shape:
        raise ValueError(f"the bank's modes are {A_bar.shape} and {CB_bar.shape}, not (H, N) both")
    H = A_bar.shape[0]
    for b in biases:
        if b.ndim != 3 or b.shape[:2] != (n_channels, H):
            raise ValueError(
                f"the biases are {b.shape}, not ({n_channels}, {H}, Q) for {n_channels} "
                f"channels of a bank of {H} filters"
            )
    if len({b.shape[-1] for b in biases}) > 1:
        raise ValueError(f"the biases of the representations differ: {[b.shape for b in biases]}")
    if lengths is not None and (
        lengths.shape != (n,)
        or (len(lengths) and (lengths.min() < 1 + difference or lengths.max() > length))
    ):
        raise ValueError(f"the lengths are not {n} lengths within 1..{length} steps")


def sample_outputs(
    X: np.ndarray,
    lengths: np.ndarray | None,
    A_bar: np.ndarray,
    CB_bar: np.ndarray,
    *,
    at_most: int,
    difference: bool = False,
    dtype=None,
) -> np.ndarray:
    """The bank's outputs (C, H, m) float64 on series X (n, C, L), laid end to end over each
    series' own steps (or its first difference's) and kept at every k-th position, k the
    smallest that keeps m ≤ ``at_most``. A series far from zero is filtered centred
    (:func:`series_centres`); the outputs of the others are the state's float type's."""
    dtype = STATE_DTYPE if dtype is None else dtype
    n_channels = X.shape[1]
    _check_scan_shapes(X, lengths, A_bar, CB_bar, difference=difference)
    lengths = _steps(X, lengths)  # (n,)
    steps = lengths - int(difference)  # (n,) the outputs of each series
    total = int(steps.sum())
    every = -(-total // at_most)
    offsets = np.concatenate([[0], np.cumsum(steps)[:-1]]).astype(np.int64)  # (n,)
    out = np.empty((n_channels, A_bar.shape[0], -(-total // every)))  # (C, H, m)
    X_state = np.ascontiguousarray(X, dtype=dtype)  # (n, C, L)
    modes = _modes(A_bar, CB_bar, dtype)
    with _scan_threads() as (kernels, threads):
        X64, centres, response = _centring(X, lengths, A_bar, CB_bar)

        def run(rows: slice) -> None:  # the series' positions do not overlap: one out
            kernels.sample(
                X_state[rows], X64[rows], lengths[rows],
                int(difference), centres[rows], *modes, response, offsets[rows], every, out,
            )

        _in_threads(run, len(X), threads)
    return out


def quantiles(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(values, levels, axis=-1)`` ("linear"), moved to the last axis: (..., Q).
    One sort per row, which numpy vectorizes; ``np.quantile`` partitions the whole array once
    per level, several times slower on the bank's (C·H rows) × (samples) array."""
    ordered = np.sort(values, axis=-1)  # (..., m)
    position = np.asarray(levels, dtype=np.float64) * (values.shape[-1] - 1)  # (Q,)
    below = np.floor(position).astype(np.int64)  # (Q,)
    above = np.minimum(below + 1, values.shape[-1] - 1)  # (Q,)
    low, high = ordered[..., below].astype(np.float64), ordered[..., above].astype(np.float64)
    return low + (position - below) * (high - low)  # (..., Q)


def scan_features(
    X: np.ndarray,
    lengths: np.ndarray | None,
    A_bar: np.ndarray,
    CB_bar: np.ndarray,
    representations: list[tuple[np.ndarray, bool]],
    *,
    multirocket: bool = False,
    dtype=None,
    out_dtype=np.float64,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Pooled features (n, R·C·H·P) of the bank (Ā, CB̄), complex (H, N), on series X (n, C, L).

    Each of the R ``representations`` is (biases (C, H, Q), difference): the thresholds of
    each channel's filters, and whether the series' first difference is filtered instead of
    the series. Each series is filtered over its own ``lengths[i]`` steps (all L when None);
    P is 4 + Q (mean, std, max, min, then a PPV per bias) or, with ``multirocket``, 4·Q
    (:func:`sktdi.fast_path.transformers.multirocket_pooling`'s four poolings per bias). The
    features are written in place, representation after representation: no copy of the (n, F) array;
    the sums behind them run in float64 whatever ``out_dtype`` they are stored in. With
    ``out`` (n, R·C·H·P), a column block of a larger array, they are written there. A
    series far from zero is filtered centred, its outputs restored and compared with the
    biases in float64 (:func:`series_centres`).
    """
    dtype = STATE_DTYPE if dtype is None else dtype
    n, n_channels, _ = X.shape
    _check_scan_shapes(
        X, lengths, A_bar, CB_bar, [b for b, _ in representations],
        difference=any(d for _, d in representations),
    )
    H, _ = A_bar.shape
    Q = representations[0][0].shape[-1]
    per_filter = N_MULTIROCKET * Q if multirocket else N_STATS + Q
    shape = (n, len(representations), n_channels, H, per_filter)
    given = out
    if given is None:
        out = np.empty(shape, out_dtype)  # (n, R, C, H, P)
    else:  # the caller's (n, F) array, or a column block of one: written through a view
        out = given.view()
        out.shape = shape  # raises rather than copy, where the block cannot be viewed so
    X_state = np.ascontiguousarray(X, dtype=dtype)  # (n, C, L)
    steps = _steps(X, lengths)  # (n,)
    modes = _modes(A_bar, CB_bar, dtype)
    # the kernel writes float64 blocks of at most POOL_BLOCK_VALUES values, copied into out:
    # one compiled kernel whatever out's type and layout (each is a numba specialization,
    # ten seconds of compiling on first use), and memory bounded by the block
    chunk = max(1, POOL_BLOCK_VALUES // (n_channels * H * per_filter))
    with _scan_threads() as (kernels, threads):
        X64, centres, response = _centring(X, steps, A_bar, CB_bar)
        for r, (biases, difference) in enumerate(representations):
            biases = np.swapaxes(biases, 1, 2)  # (C, Q, H)
            # a series near zero is compared with the biases in the state's type, a centred
            # one with them in float64
            rounded = np.ascontiguousarray(biases, dtype=dtype)
            exact = np.ascontiguousarray(biases, dtype=np.float64)

            def run(rows: slice) -> None:
                for start in range(rows.start, rows.stop, chunk):
                    part = slice(start, min(start + chunk, rows.stop))
                    block = np.empty((part.stop - start,) + shape[2:])  # (chunk, C, H, P)
                    kernels.pool(
                        X_state[part], X64[part], steps[part],
                        int(difference), centres[part], *modes, rounded, exact, response,
                        bool(multirocket), block,
                    )
                    out[part, r] = block

            _in_threads(run, n, threads)
    return out.reshape(n, -1) if given is None else given  # (n, R·C·H·P)
