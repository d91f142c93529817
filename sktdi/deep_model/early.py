"""Early classification's decision rule: a class probability held above a threshold.

The rule of sktime's ``ProbabilityThresholdEarlyClassifier``, applied at every step a model
has a prediction for: a series is decided once its most probable class has stayed the same,
with probability at least ``threshold``, for ``consecutive`` steps in a row, or when it
reaches its full length. Pure numpy, so that the early classifier, its defaults study and
the benchmark's probability-threshold peer decide the same way.
"""

from __future__ import annotations

import numpy as np

# the columns of a decision state, one row per series
STEPS, RUN, CLASS, DECIDED_AT = range(4)


def initial_decisions(n_series: int) -> np.ndarray:
    """The state before any step: (n_series, 4) int, columns :data:`STEPS` (steps seen,
    decided or not),
    :data:`RUN` (consecutive confident steps of the same class), :data:`CLASS` (that class's
    index) and :data:`DECIDED_AT` (the step of the decision, 0 while undecided)."""
    state = np.zeros((n_series, 4), dtype=np.int64)
    state[:, CLASS] = -1
    return state


def advance_decisions(
    state: np.ndarray,
    probabilities: np.ndarray,
    threshold: float,
    consecutive: int,
    final_step: int,
    steps: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply the rule to the next k predictions of every series.

    Parameters
    ----------
    state : (n, 4) int array
        From :func:`initial_decisions` or the previous call; not modified.
    probabilities : (n, k, n_classes) array
        Each series' class probabilities at its next k decision points.
    threshold : float
        Probability the most probable class must reach.
    consecutive : int
        Decision points in a row that the same class must hold it (1: the first).
    final_step : int
        The full length: a series still undecided there is decided with what it predicts.
    steps : (k,) int array, optional
        The length of the prefix at each of the k points (an early classifier's fixed
        classification points); by default the next k steps after ``state``'s.

    Returns
    -------
    state : (n, 4) int array
        The new state.
    decided : (n, n_classes) array
        The probabilities at each series' decision in this call; NaN for a series not
        decided in it (still undecided, or decided in an earlier call).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.deep_model.early import DECIDED_AT, advance_decisions, initial_decisions
    >>> p = np.array([[[0.6, 0.4], [0.9, 0.1], [0.95, 0.05]]])  # one series, three steps
    >>> state, decided = advance_decisions(initial_decisions(1), p, 0.85, 2, final_step=10)
    >>> int(state[0, DECIDED_AT]), decided[0].tolist()
    (3, [0.95, 0.05])
    """
    state = state.copy()
    n, k, n_classes = probabilities.shape
    if steps is None:
        steps = state[0, STEPS] + np.arange(1, k + 1) if n else np.arange(1, k + 1)
    decided = np.full((n, n_classes), np.nan)
    done = state[:, DECIDED_AT] > 0  # (n,)
    for j in range(k):
        p = probabilities[:, j]  # (n, C)
        predicted = p.argmax(axis=1)  # (n,)
        confident = p[np.arange(n), predicted] >= threshold  # (n,)
        same = predicted == state[:, CLASS]
        run = np.where(confident, np.where(same, state[:, RUN] + 1, 1), 0)  # (n,)
        open_ = ~done
        state[open_, RUN] = run[open_]
        state[open_, CLASS] = predicted[open_]
        state[:, STEPS] = steps[j]
        now = open_ & ((state[:, RUN] >= max(consecutive, 1)) | (steps[j] >= final_step))
        state[now, DECIDED_AT] = steps[j]
        decided[now] = p[now]
        done |= now
    return state, decided


def harmonic_mean_score(
    decided_at: np.ndarray, correct: np.ndarray, full_length: int
) -> tuple[float, float, float]:
    """(harmonic mean of accuracy and 1 - earliness, accuracy, earliness), as sktime's
    early classifiers score: earliness is the mean of each series' decision step over the
    full length."""
    accuracy = float(np.mean(correct))
    earliness = float(np.mean(decided_at / full_length))
    timeliness = 1 - earliness
    if accuracy + timeliness == 0:
        return 0.0, accuracy, earliness
    return 2 * accuracy * timeliness / (accuracy + timeliness), accuracy, earliness


def rule_score(
    probabilities: np.ndarray,
    y_index: np.ndarray,
    threshold: float,
    consecutive: int,
    full_length: int,
    steps: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """The rule applied to whole series' probabilities (n, k, n_classes) at k decision points
    (every step, or ``steps``), scored against the true class indices ``y_index``:
    (harmonic mean, accuracy, earliness). A series still undecided after the last point
    (probabilities that stop before ``full_length``) counts as wrong, read to that point,
    as the early classifier's ``score`` counts it."""
    state, decided = advance_decisions(
        initial_decisions(len(probabilities)), probabilities, threshold, consecutive,
        final_step=full_length, steps=steps,
    )
    done = state[:, DECIDED_AT] > 0  # (n,)
    # an undecided series' row is NaN, whose argmax would read as class 0
    correct = done & (np.where(done[:, None], decided, 0).argmax(axis=1) == y_index)
    read = np.where(done, state[:, DECIDED_AT], state[:, STEPS])  # (n,)
    return harmonic_mean_score(read, correct, full_length)
