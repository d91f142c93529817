"""A cell's test predictions as a tsml-eval results file, the field's format for published results.

tsml-eval (and the published results of MiniRocket, InceptionTime, HIVE-COTE 2 on the UCR
archive) keep one file per estimator, dataset and resample, at
``{root}/{estimator}/Predictions/{dataset}/testResample{resample}.csv``:

- line 1: ``dataset,estimator,TEST,resample,MILLISECONDS,comment``
- line 2: the estimator's parameters (free text)
- line 3: ``accuracy,fit time,predict time,benchmark time,memory,n_classes,estimate method,
  estimate time,fit and estimate time`` (-1 where not measured)
- then one line per test case: ``true class,predicted class,,p(class 0),...,p(class k-1)``

Classes are written as indices into the sorted class labels (as tsml-eval's experiments write
them); line 1's comment lists the labels in that order. Models without probabilities (1-NN, a
ridge head) get their predicted class's probability 1, as tsml-eval writes such models.

A benchmark run writes one root per training ratio (and per fold count in CV mode, where the
resample is the fold), so that each root is one standard tsml-eval evaluation: ``ratio1``
holds the full training sets, comparable with published results. This module only writes;
reading is tsml-eval's own ``load_classifier_results`` and ``evaluate_classifiers_by_problem``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .results_file import write_atomic


def results_root(out: str | Path, mode: str, ratio: float, n_folds: int = 0) -> Path:
    """The tsml-eval results folder of one training ratio of a run in ``out``.

    Examples
    --------
    >>> from sktdi.benchmark.tsml_results import results_root
    >>> results_root("run", "resample", 0.1).as_posix(), results_root("run", "cv", 1.0, 5).as_posix()
    ('run/tsml/ratio0.1', 'run/tsml/cv5-ratio1')
    """
    name = f"ratio{float(ratio):g}"
    if mode != "resample":
        name = f"{mode}{int(n_folds)}-{name}"
    return Path(out) / "tsml" / name


def results_path(root: str | Path, estimator: str, dataset: str, resample: int) -> Path:
    """``{root}/{estimator}/Predictions/{dataset}/testResample{resample}.csv``."""
    return Path(root) / estimator / "Predictions" / dataset / f"testResample{int(resample)}.csv"


def _milliseconds(seconds: float) -> int:
    return -1 if seconds is None or not math.isfinite(seconds) else round(seconds * 1000)


def write_classifier_results(
    path: str | Path,
    *,
    dataset: str,
    estimator: str,
    resample: int,
    y_true,
    y_pred,
    classes,
    proba=None,
    proba_classes=None,
    fit_seconds: float = float("nan"),
    predict_seconds: float = float("nan"),
    parameters: str = "No Parameter Info",
) -> float:
    """Write one test results file; return the accuracy written on its third line.

    ``classes`` are every label of the task (sorted; the file's class indices refer to them).
    ``proba`` (n, len(proba_classes)) holds the model's probabilities over ``proba_classes``
    (its ``classes_``); None writes the predicted class with probability 1.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark.tsml_results import write_classifier_results
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "testResample0.csv"
    >>> write_classifier_results(path, dataset="D", estimator="e", resample=0,
    ...     y_true=["a", "b"], y_pred=["a", "a"], classes=["a", "b"])
    0.5
    >>> print(path.read_text())
    D,e,TEST,0,MILLISECONDS,classes a b
    No Parameter Info
    0.5,-1,-1,-1,-1,2,,-1,-1
    0,0,,1.0,0.0
    1,0,,1.0,0.0
    <BLANKLINE>
    """
    classes = [str(c) for c in classes]
    index = {c: i for i, c in enumerate(classes)}
    true = np.array([index[str(c)] for c in y_true])  # (n,)
    pred = np.array([index[str(c)] for c in y_pred])  # (n,)
    table = np.zeros((len(true), len(classes)))  # (n, k) over every class of the task
    if proba is None:
        table[np.arange(len(pred)), pred] = 1.0
    else:
        proba = np.asarray(proba, dtype=np.float64)  # (n, k_model)
        columns = [index[str(c)] for c in proba_classes]
        table[:, columns] = proba / proba.sum(axis=1, keepdims=True)
    # the accuracy as tsml-eval recomputes it from the class indices (its loader checks that
    # the two are equal, exactly)
    from sklearn.metrics import accuracy_score

    accuracy = float(accuracy_score(true, pred))
    comment = "classes " + " ".join(c.replace(",", ";").replace(" ", "_") for c in classes)
    third = [
        repr(accuracy), _milliseconds(fit_seconds), _milliseconds(predict_seconds), -1, -1,
        len(classes), "", -1, -1,
    ]
    lines = [
        f"{dataset},{estimator},TEST,{int(resample)},MILLISECONDS,{comment}",
        parameters.replace("\n", " ") or "No Parameter Info",
        ",".join(str(v) for v in third),
    ]
    lines += [
        f"{t},{p},," + ",".join(repr(float(v)) for v in row)
        for t, p, row in zip(true, pred, table)
    ]
    # through a temporary file: a run stopped while writing leaves no half file, which
    # tsml-eval's loader would reject (or, cut at a line's end, read as fewer test cases)
    write_atomic(path, "\n".join(lines) + "\n")
    return accuracy
