"""The compiled loops of :mod:`sktdi.fast_path.scan`, in their own module so that numba is imported
only when a bank first pools, and so that numba can cache them on disk (it caches
module-level functions, not closures): a process pays the compilation once per install.
The kernels are serial and release the GIL; the scans run them on threads of their own
(:func:`sktdi.fast_path.scan._in_threads`).
"""

import numpy as np

from ..utils.compiled import compiled

# how often a state is checked for values near the subnormals (flush_tiny): a check costs
# about what a step costs, and a mode decays at most by |Ā|**FLUSH_EVERY between checks
FLUSH_EVERY = 16
# a state is set to 0 once it falls below this share of its input's largest magnitude
# (flush_floor): 2**-60, far below what float32 outputs of that input resolve (2**-24)
FLUSH_SHARE = 2.0**-60


@compiled(inline="always", nogil=True)
def advance(u, ar, ai, cr, ci, s_re, s_im, y):
    # one time step of every mode, and each filter's output y (H,). Arrays are mode-major,
    # (N, H): every inner loop runs over the H filters, independent lanes the compiler
    # vectorizes, and the sum over modes needs no reordering
    N, H = s_re.shape
    y[:] = 0
    for m in range(N):
        for h in range(H):
            re = ar[m, h] * s_re[m, h] - ai[m, h] * s_im[m, h] + u
            im = ar[m, h] * s_im[m, h] + ai[m, h] * s_re[m, h]
            s_re[m, h] = re
            s_im[m, h] = im
            y[h] += cr[m, h] * re - ci[m, h] * im
    for h in range(H):
        y[h] *= 2

@compiled(inline="always", nogil=True)
def flush_tiny(t, s_re, s_im, floor):
    # every FLUSH_EVERY steps, a state below ``floor`` becomes exactly 0. A mode fed zeros
    # (zero padding, a flat stretch of a differenced series) decays into subnormal floats,
    # which the CPU computes tens of times slower than normal ones: a zero-padded series
    # took 25-55x the time of its unpadded self. A state that small adds less than 2**-60
    # of the input's scale to an output: nothing a float32 output resolves
    if t % FLUSH_EVERY == 0:
        N, H = s_re.shape
        for m in range(N):
            for h in range(H):
                if abs(s_re[m, h]) < floor:
                    s_re[m, h] = 0
                if abs(s_im[m, h]) < floor:
                    s_im[m, h] = 0

@compiled(inline="always", nogil=True)
def series_value(X, i, c, t, difference):
    if difference:
        return X[i, c, t + 1] - X[i, c, t]
    return X[i, c, t]

@compiled(inline="always", nogil=True)
def flush_floor(X, X64, i, c, steps, difference, centre, cell):
    # FLUSH_SHARE of the largest input the recurrence gets from series i, channel c: a
    # floor that scales with the data, so that a recording in tiny units loses nothing
    reach = 0.0
    for t in range(steps):
        if centre == 0.0:
            reach = max(reach, abs(series_value(X, i, c, t, difference)))
        else:
            reach = max(reach, abs(centred_value(X64, i, c, t, difference, centre, cell)))
    return reach * FLUSH_SHARE

@compiled(inline="always", nogil=True)
def centred_value(X64, i, c, t, difference, centre, cell):
    # a series far from zero, from float64 (X64): its first difference, which the offset
    # leaves alone, or its value less the centre; rounded to the state's type through the
    # one-element ``cell`` of that type (a float64 input would turn the recurrence float64)
    if difference:
        cell[0] = X64[i, c, t + 1] - X64[i, c, t]
    else:
        cell[0] = X64[i, c, t] - centre
    return cell[0]

@compiled(inline="always", nogil=True)
def restore(y, centre, response, t, difference, wide):
    # the filters' outputs on a series far from zero, float64 (H,) in ``wide``: the
    # difference's as they are, the series' with the centre's response added back (a
    # constant input's: the step response, float64 (H, T), constant after T)
    if difference:
        for h in range(y.shape[0]):
            wide[h] = y[h]
    else:
        k = min(t, response.shape[1] - 1)
        for h in range(y.shape[0]):
            wide[h] = y[h] + centre * response[h, k]

@compiled(inline="always", nogil=True)
def accumulate(
    y, biases, c, t, multirocket, total, square, high, low, count, positive_sum, index_sum,
    run, longest,
):
    # the pooled statistics after output y (H,) at step t, against channel c's biases
    # (C, Q, H) of y's float type
    Q, H = count.shape
    for h in range(H):
        total[h] += y[h]
        square[h] += np.float64(y[h]) * y[h]
        high[h] = max(high[h], y[h])
        low[h] = min(low[h], y[h])
    if multirocket:
        for q in range(Q):
            for h in range(H):
                z = y[h] - biases[c, q, h]
                if z > 0:
                    count[q, h] += 1
                    positive_sum[q, h] += z
                    index_sum[q, h] += t
                    run[q, h] += 1
                    longest[q, h] = max(longest[q, h], run[q, h])
                else:
                    run[q, h] = 0
    else:
        for q in range(Q):
            for h in range(H):
                count[q, h] += np.int32(y[h] > biases[c, q, h])

@compiled(nogil=True)
def pool(
    X, X64, lengths, difference, centres, ar, ai, cr, ci, biases, biases64, response,
    multirocket, out,
):
    # X (n, C, L) in the state's float type, X64 the same series in float64; lengths (n,)
    # int64; centres (n, C) float64, 0 for a series near zero (run on X as it is, compared
    # with biases, (C, Q, H) of the state's type), else the series' mean (run centred,
    # compared with biases64); ar, ai, cr, ci (N, H) of the state's type; response (H, T)
    # float64, a constant input's output; out (n, C, H, P) float64, C-contiguous (one
    # compiled kernel), P = 4 + Q (stats) or 4·Q (multirocket)
    n, n_channels, _ = X.shape
    N, H = ar.shape
    Q = biases.shape[1]
    for job in range(n * n_channels):
        i = job // n_channels
        c = job % n_channels
        steps = lengths[i] - difference  # the first difference is one step shorter
        centre = centres[i, c]
        s_re = np.zeros((N, H), dtype=ar.dtype)  # (N, H) the state
        s_im = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        y = np.empty(H, dtype=ar.dtype)  # (H,) the filters' outputs at step t
        wide = np.empty(H)  # (H,) float64 outputs of a series far from zero
        cell = np.empty(1, dtype=ar.dtype)  # its input, in the state's type
        total = np.zeros(H)  # (H,) float64 running sums
        square = np.zeros(H)  # (H,)
        high = np.full(H, -np.inf)  # (H,)
        low = np.full(H, np.inf)  # (H,)
        count = np.zeros((Q, H), dtype=np.int32)  # (Q, H) positives per bias
        positive_sum = np.zeros((Q, H))  # (Q, H) multirocket: Σ (y - b) over positives
        index_sum = np.zeros((Q, H))  # (Q, H) multirocket: Σ t over positives
        run = np.zeros((Q, H), dtype=np.int32)  # (Q, H) the current run of positives
        longest = np.zeros((Q, H), dtype=np.int32)  # (Q, H)
        floor = flush_floor(X, X64, i, c, steps, difference, centre, cell)
        if centre == 0.0:  # near zero: the series as it is, in the state's type
            for t in range(steps):
                flush_tiny(t, s_re, s_im, floor)
                advance(series_value(X, i, c, t, difference), ar, ai, cr, ci, s_re, s_im, y)
                accumulate(
                    y, biases, c, t, multirocket, total, square, high, low, count,
                    positive_sum, index_sum, run, longest,
                )
        else:
            for t in range(steps):
                flush_tiny(t, s_re, s_im, floor)
                u = centred_value(X64, i, c, t, difference, centre, cell)
                advance(u, ar, ai, cr, ci, s_re, s_im, y)
                restore(y, centre, response, t, difference, wide)
                accumulate(
                    wide, biases64, c, t, multirocket, total, square, high, low, count,
                    positive_sum, index_sum, run, longest,
                )
        for h in range(H):
            if multirocket:
                for q in range(Q):
                    k = count[q, h]
                    out[i, c, h, 4 * q] = k / steps
                    out[i, c, h, 4 * q + 1] = positive_sum[q, h] / max(k, 1)
                    out[i, c, h, 4 * q + 2] = (
                        index_sum[q, h] / k / max(steps - 1, 1) if k > 0 else -1.0
                    )
                    out[i, c, h, 4 * q + 3] = longest[q, h] / steps
            else:
                mean = total[h] / steps
                out[i, c, h, 0] = mean
                out[i, c, h, 1] = np.sqrt(max(square[h] / steps - mean * mean, 0.0))
                out[i, c, h, 2] = high[h]
                out[i, c, h, 3] = low[h]
                for q in range(Q):
                    out[i, c, h, 4 + q] = count[q, h] / steps

@compiled(nogil=True)
def sample(X, X64, lengths, difference, centres, ar, ai, cr, ci, response, offsets, every, out):
    # the outputs at every ``every``-th step of the series laid end to end: series i's
    # step t is position offsets[i] + t; out (C, H, ceil(total / every)) float64. X, X64,
    # centres, response: as for pool
    n, n_channels, _ = X.shape
    N, H = ar.shape
    for job in range(n * n_channels):
        i = job // n_channels
        c = job % n_channels
        centre = centres[i, c]
        s_re = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        s_im = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        y = np.empty(H, dtype=ar.dtype)  # (H,)
        wide = np.empty(H)  # (H,) float64
        cell = np.empty(1, dtype=ar.dtype)
        steps = lengths[i] - difference
        floor = flush_floor(X, X64, i, c, steps, difference, centre, cell)
        for t in range(steps):
            position = offsets[i] + t
            flush_tiny(t, s_re, s_im, floor)
            if centre == 0.0:
                advance(series_value(X, i, c, t, difference), ar, ai, cr, ci, s_re, s_im, y)
                if position % every == 0:
                    for h in range(H):
                        out[c, h, position // every] = y[h]
            else:
                u = centred_value(X64, i, c, t, difference, centre, cell)
                advance(u, ar, ai, cr, ci, s_re, s_im, y)
                if position % every == 0:
                    restore(y, centre, response, t, difference, wide)
                    for h in range(H):
                        out[c, h, position // every] = wide[h]

@compiled(nogil=True)
def centres(X, lengths, out):
    # out (n, C) float64: each series' mean over its own steps where the series is far from
    # zero, its mean farther from zero than any of its values from the mean; else 0. X of
    # any float type, summed in float64
    n, n_channels, _ = X.shape
    for i in range(n):
        for c in range(n_channels):
            mean = 0.0
            for t in range(lengths[i]):
                mean += X[i, c, t]
            mean /= max(lengths[i], 1)
            reach = 0.0
            for t in range(lengths[i]):
                reach = max(reach, abs(X[i, c, t] - mean))
            out[i, c] = mean if abs(mean) > reach else 0.0

@compiled(nogil=True)
def step_response(ar, ai, cr, ci, out):
    # out (H, T) float64: every filter's output on a constant input of 1, from rest; the
    # modes (N, H) float64
    N, H = ar.shape
    s_re = np.zeros((N, H))  # (N, H)
    s_im = np.zeros((N, H))  # (N, H)
    y = np.empty(H)  # (H,)
    for t in range(out.shape[1]):
        advance(1.0, ar, ai, cr, ci, s_re, s_im, y)
        for h in range(H):
            out[h, t] = y[h]
