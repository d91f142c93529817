"""How good a model's test probabilities are, beside its accuracy: log-loss, the Brier score
and the expected calibration error, from probabilities (n, K) and the true classes' indices
(n,). Pure functions: the runner's rows and the studies that compare models read them."""

from __future__ import annotations

import numpy as np

# the expected calibration error's bins: 15 of equal width, as Guo et al. (2017) report it
ECE_BINS = 15


def log_loss(proba: np.ndarray, codes: np.ndarray) -> float:
    """Mean negative log-probability of the true class (probabilities clipped at 1e-15, as
    scikit-learn's ``log_loss``).

    Examples
    --------
    >>> round(log_loss(np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([0, 0])), 4)
    0.3993
    """
    proba = np.asarray(proba, dtype=np.float64)
    return float(-np.log(np.clip(proba[np.arange(len(codes)), codes], 1e-15, None)).mean()) + 0.0


def brier(proba: np.ndarray, codes: np.ndarray) -> float:
    """The multiclass Brier score: the mean over series of the squared distance between the
    probabilities and the true class's one-hot vector (0 is perfect, 2 the worst).

    Examples
    --------
    >>> round(brier(np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([0, 0])), 4)
    0.26
    """
    proba = np.asarray(proba, dtype=np.float64)
    onehot = np.eye(proba.shape[1])[codes]  # (n, K)
    return float(((proba - onehot) ** 2).sum(axis=1).mean())


def expected_calibration_error(proba: np.ndarray, codes: np.ndarray, bins: int = ECE_BINS) -> float:
    """The top-class expected calibration error: the series binned by their top
    probability (``bins`` of equal width on [0, 1]), the mean over bins of |accuracy −
    confidence| weighted by each bin's share of the series.

    Examples
    --------
    >>> proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    >>> round(expected_calibration_error(proba, np.array([0, 1, 0, 1])), 4)
    0.35
    """
    proba = np.asarray(proba, dtype=np.float64)
    confidence = proba.max(axis=1)  # (n,)
    correct = proba.argmax(axis=1) == codes  # (n,)
    which = np.minimum((confidence * bins).astype(int), bins - 1)  # (n,): the bin of each
    total = 0.0
    for b in np.unique(which):
        members = which == b
        total += members.mean() * abs(correct[members].mean() - confidence[members].mean())
    return float(total)
