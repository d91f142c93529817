"""The deep model on top of the fast path: the network learns a residual on the fast path's
outputs (issue 70).

A fitted :class:`~sktdi.SSMClassifier` (or regressor) with its fast path predicts
``fast path's outputs + network's outputs``. The network's last layer starts at zero, so the
fit starts where the fast path ends, and training only adds what a held-out fold shows it
earns. The fast path is a ridge head over more features than series: it fits its own training
series exactly, so a residual trained against its fitted outputs would see no error to learn.
The network is trained against the ridge's leave-one-out outputs instead (stacking), and
predicts with the full ridge's. This module holds the math, each piece a pure function:

- :func:`ridge_loo_outputs`: a ridge's exact leave-one-out predictions, from one
  eigendecomposition of the series' Gram matrix;
- :func:`ridge_logits`: a ridge classifier's scores as the network's logits;
- :func:`fit_temperature`: the one scale that makes those logits calibrated probabilities,
  by their leave-one-out cross-entropy on smoothed targets.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import null_space
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax


def ridge_loo_outputs(features: np.ndarray, targets: np.ndarray, alpha: float) -> np.ndarray:
    """Leave-one-out predictions of a ridge regression with an unpenalized intercept.

    ``features`` (n, F), ``targets`` (n,) or (n, T), penalty ``alpha`` (as scikit-learn's
    ``Ridge(alpha, fit_intercept=True)``). For such a linear smoother the prediction for
    series i with series i left out is exactly ``y_i − (y_i − ŷ_i) / (1 − h_ii)``, where ŷ
    is the full fit's prediction and h the hat matrix ``11ᵀ/n + G (G + αI)⁻¹`` of the
    centred Gram matrix G: one (n, n) eigendecomposition, whatever F.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> rng = np.random.default_rng(0)
    >>> F, y = rng.normal(size=(12, 30)), rng.normal(size=12)
    >>> held_out = [Ridge(alpha=2.0).fit(np.delete(F, i, 0), np.delete(y, i)).predict(F[i:i + 1])[0]
    ...             for i in range(12)]
    >>> bool(np.allclose(ridge_loo_outputs(F, y, 2.0), held_out))
    True
    """
    features = np.asarray(features, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64)
    Y = targets.reshape(len(targets), -1)  # (n, T)
    n = len(features)
    centred = features - features.mean(axis=0)  # (n, F)
    # The residual maker I - H is α (G + αI)⁻¹ on the directions orthogonal to the constant
    # series (the intercept's) and zero along it. With a small α, 1 - h_ii is tiny: it is
    # summed here from positive terms α / (λ + α) over a basis of that complement, never
    # as 1 minus a number near 1, which would cancel most of its digits.
    basis = null_space(np.ones((1, n)))  # (n, n-1): orthonormal, orthogonal to the constant
    projected = basis.T @ centred  # (n-1, F)
    eigenvalues, eigenvectors = np.linalg.eigh(projected @ projected.T)  # (n-1,), (n-1, n-1)
    eigenvalues = np.clip(eigenvalues, 0.0, None)  # rounding: a Gram matrix has none below 0
    keep = alpha / (eigenvalues + alpha)  # (n-1,): I - H's eigenvalues
    directions = basis @ eigenvectors  # (n, n-1)
    residuals = directions @ (keep[:, None] * (directions.T @ Y))  # (n, T): Y - fitted
    unexplained = (directions**2) @ keep  # (n,): 1 - h_ii
    loo = Y - residuals / unexplained[:, None]  # (n, T)
    return loo.reshape(targets.shape)


def ridge_outputs(features: np.ndarray, head) -> np.ndarray:
    """A fitted scikit-learn ridge ``head``'s outputs for ``features`` (n, F), computed in
    float64: (n,) for a head of one row (a classifier of two classes, one target), else
    (n, n_rows). The fast path's classifier computes in float32, whose products round
    differently in a batch than alone; in float64 a series' output does not depend on the
    rest of its batch (to 1e-12), as the network's does not."""
    coef = np.asarray(head.coef_, dtype=np.float64)  # (F,) or (rows, F)
    outputs = np.asarray(features, dtype=np.float64) @ coef.T + np.asarray(
        head.intercept_, dtype=np.float64
    )  # (n,) or (n, rows)
    return outputs[:, 0] if outputs.ndim == 2 and outputs.shape[1] == 1 else outputs


def ridge_logits(scores: np.ndarray) -> np.ndarray:
    """A ridge classifier's scores as logits (n, n_classes): its columns for three classes or
    more; for two, its one score d as ``[-d, d]`` (the ridge codes the classes −1 and +1)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        return np.stack([-scores, scores], axis=1)  # (n, 2)
    return scores  # (n, n_classes)


def fit_temperature(logits: np.ndarray, codes: np.ndarray) -> float:
    """The scale t > 0 that minimizes the cross-entropy of ``softmax(t · logits)`` on the
    class ``codes`` (n,), smoothed: ridge scores are in the units of the ±1 codes, not
    log-odds.

    The targets are Platt's: the true class ``1 − ε`` and the others ``ε`` shared, with
    ``ε = 1 / (n + 2)``. On scores that separate the classes (a small set's leave-one-out
    scores often do), the plain cross-entropy falls as t grows without end, and a scale fitted
    on it sat at whatever bound it was given, making every later mistake with near-certainty;
    with ε the loss has a finite minimum, and the most a fit on n series can claim is about
    ``1 − 1 / (n + 2)`` (issue 76).

    Examples
    --------
    >>> logits = np.array([[1.0, -1.0], [-1.0, 1.0], [0.5, -0.5], [-0.2, 0.2]])
    >>> t = fit_temperature(logits, np.array([0, 1, 0, 0]))
    >>> 0 < t < 1e3
    True
    >>> separable = fit_temperature(logits, np.array([0, 1, 0, 1]))  # a finite scale
    >>> p = np.exp(separable * logits[0]) / np.exp(separable * logits[0]).sum()
    >>> bool(0.75 < p[0] < 0.95)  # four series: about 1 - 1/6 at most
    True
    """
    logits = np.asarray(logits, dtype=np.float64)
    n, n_classes = logits.shape
    epsilon = 1.0 / (n + 2)
    targets = np.full((n, n_classes), epsilon / max(n_classes - 1, 1))  # (n, K)
    targets[np.arange(n), codes] = 1.0 - epsilon

    def loss(log_t: float) -> float:
        return float(-(targets * log_softmax(np.exp(log_t) * logits, axis=1)).sum(axis=1).mean())

    # the smoothed loss has a finite minimum; the bounds only keep the search in floats
    result = minimize_scalar(loss, bounds=(np.log(1e-3), np.log(1e4)), method="bounded")
    return float(np.exp(result.x))
