"""Raw recordings for the studies that ask whether a model holds on them (``raw_data``,
``one_model``): the perturbations that leave a task as it was, and the PLAID subset."""

from __future__ import annotations

import numpy as np


def perturb(X3: np.ndarray, kind: str, seed: int):
    """X (n, C, L) under ``kind``: a list of (C, L_i) series for "unequal", else an array.

    gain: each series times 10**U(-2, 2); offset: plus U(-10, 10) times the set's standard
    deviation; trend: plus a line from 0 to U(-3, 3) set standard deviations over the series;
    unequal: each series preceded by U(0, L/2) repeats of its first value (a recording
    started early), the information intact.
    """
    rng = np.random.default_rng(seed)
    n, _, L = X3.shape
    sd = X3.std()
    if kind == "clean":
        return X3
    if kind == "gain":
        return X3 * 10 ** rng.uniform(-2, 2, size=(n, 1, 1))
    if kind == "offset":
        return X3 + sd * rng.uniform(-10, 10, size=(n, 1, 1))
    if kind == "trend":
        return X3 + sd * rng.uniform(-3, 3, size=(n, 1, 1)) * np.linspace(0, 1, L)
    if kind == "unequal":
        lead = rng.integers(0, L // 2 + 1, size=n)
        return [
            np.concatenate([np.repeat(x[:, :1], k, axis=1), x], axis=1)
            for x, k in zip(X3, lead)
        ]
    raise ValueError(kind)


def _load(name: str):
    from sktdi.datasets import load_ucr

    return load_ucr(name, "train"), load_ucr(name, "test")


def plaid_subset():
    """4 PLAID classes, 15 training and 25 test series each, series of at most 600 steps:
    the first classes (in label order) with that many, series in file order."""
    (X, y), (Xt, yt) = _load("PLAID")

    def short(X, y, c):
        return [i for i in range(len(X)) if y[i] == c and X[i].shape[-1] <= 600]

    classes = [
        c for c in np.unique(y) if len(short(X, y, c)) >= 15 and len(short(Xt, yt, c)) >= 25
    ][:4]
    tr = [i for c in classes for i in short(X, y, c)[:15]]
    te = [i for c in classes for i in short(Xt, yt, c)[:25]]
    return [X[i] for i in tr], y[tr], [Xt[i] for i in te], yt[te]
