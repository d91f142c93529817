"""The compiled loops of :mod:`sktdi._scan`, in their own module so that numba is imported
only when a bank first pools, and so that numba can cache them on disk (it caches
module-level functions, not closures): a process pays the compilation once per install.
"""

import numba
import numpy as np


@numba.njit(cache=True, inline="always", nogil=True)
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

@numba.njit(cache=True, inline="always", nogil=True)
def series_value(X, i, c, t, difference):
    if difference:
        return X[i, c, t + 1] - X[i, c, t]
    return X[i, c, t]

@numba.njit(cache=True, parallel=True, nogil=True)
def pool(X, lengths, difference, ar, ai, cr, ci, biases, multirocket, out):
    # X (n, C, L), lengths (n,) int64; ar, ai, cr, ci (N, H); biases (C, Q, H), all of
    # one float type, the state's; out (n, C, H, P) float64, P = 4 + Q (stats) or 4·Q (multirocket)
    n, n_channels, _ = X.shape
    N, H = ar.shape
    Q = biases.shape[1]
    for job in numba.prange(n * n_channels):
        i = job // n_channels
        c = job % n_channels
        steps = lengths[i] - difference  # the first difference is one step shorter
        s_re = np.zeros((N, H), dtype=ar.dtype)  # (N, H) the state
        s_im = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        y = np.empty(H, dtype=ar.dtype)  # (H,) the filters' outputs at step t
        total = np.zeros(H)  # (H,) float64 running sums
        square = np.zeros(H)  # (H,)
        high = np.full(H, -np.inf, dtype=ar.dtype)  # (H,)
        low = np.full(H, np.inf, dtype=ar.dtype)  # (H,)
        count = np.zeros((Q, H), dtype=np.int32)  # (Q, H) positives per bias
        positive_sum = np.zeros((Q, H))  # (Q, H) multirocket: Σ (y - b) over positives
        index_sum = np.zeros((Q, H))  # (Q, H) multirocket: Σ t over positives
        run = np.zeros((Q, H), dtype=np.int32)  # (Q, H) the current run of positives
        longest = np.zeros((Q, H), dtype=np.int32)  # (Q, H)
        for t in range(steps):
            advance(series_value(X, i, c, t, difference), ar, ai, cr, ci, s_re, s_im, y)
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

@numba.njit(cache=True, parallel=True, nogil=True)
def sample(X, lengths, difference, ar, ai, cr, ci, offsets, every, out):
    # the outputs at every ``every``-th step of the series laid end to end: series i's
    # step t is position offsets[i] + t; out (C, H, ceil(total / every))
    n, n_channels, _ = X.shape
    N, H = ar.shape
    for job in numba.prange(n * n_channels):
        i = job // n_channels
        c = job % n_channels
        s_re = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        s_im = np.zeros((N, H), dtype=ar.dtype)  # (N, H)
        y = np.empty(H, dtype=ar.dtype)  # (H,)
        for t in range(lengths[i] - difference):
            advance(series_value(X, i, c, t, difference), ar, ai, cr, ci, s_re, s_im, y)
            position = offsets[i] + t
            if position % every == 0:
                for h in range(H):
                    out[c, h, position // every] = y[h]
