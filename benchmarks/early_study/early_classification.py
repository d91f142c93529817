"""Early classification, side by side on the official splits: sktdi's early classifier
against sktime's TEASER and ProbabilityThresholdEarlyClassifier, in one run.

Per dataset and model, one row: fit seconds, and on the test split the harmonic mean of
accuracy and 1 - earliness, accuracy, earliness (sktime's ``score``), plus, for the sktdi
networks, the full-length accuracy (every series read to its end). The sktdi rows:

- ``ssm-early``: ``SktimeSSMEarlyClassifier()`` as shipped (TDI, trained on prefixes);
- ``ssm-early-lin``: the same with ``init="s4d-lin"`` (does TDI decide earlier?);
- ``ssm-whole``: the default ``SSMClassifier`` trained on whole series only, read with the
  same decision rule (what prefix training buys, and what it costs at full length).

The peers are configured as they run with the installed sktime (see ``PEERS``); each fits one
classifier per prefix length, at sktime's default classification points (the length over 1
to 20, without repeats or the shortest).

    OMP_NUM_THREADS=1 python benchmarks/early_study/early_classification.py --out benchmarks/early_study/results/early_classification.csv
"""

from __future__ import annotations

import argparse
import json
import time
import traceback
from pathlib import Path

import numpy as np
import pandas as pd

DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "BasicMotions", "pixel-digits")
SSM_MODELS = ("ssm-early", "ssm-early-lin", "ssm-whole")
# the budget where the default 100 epochs do not fit a 2-core run: pixel-digits' 898 series
# of 1024 steps take about a minute an epoch on one thread
EPOCHS = {"pixel-digits": 10}
# runs left out of the default run, for time: each would take longer than the rest of a
# dataset's runs together on this 2-core machine (the early classifier itself runs everywhere)
NOT_RUN = {
    ("pixel-digits", "ssm-early-lin"), ("pixel-digits", "ssm-whole"),
    ("pixel-digits", "teaser"), ("pixel-digits", "threshold-cif"), ("OSULeaf", "threshold-cif"),
}
# the longest runs first, so that the two workers finish together
FIRST = ("OSULeaf", "pixel-digits")


class SklearnTagged:
    """An sktime classifier as a scikit-learn estimator. TEASER cross-validates its base
    classifier with scikit-learn's ``cross_val_predict``, which in scikit-learn 1.9 reads
    ``__sklearn_tags__``; no sktime classifier has them, so ``TEASER()`` fails as shipped."""

    def __init__(self, estimator):
        self.estimator = estimator

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator, ClassifierMixin

        class _Tagged(ClassifierMixin, BaseEstimator):
            pass

        return _Tagged().__sklearn_tags__()

    def get_params(self, deep=True):
        return {"estimator": self.estimator}

    def set_params(self, **params):
        self.estimator = params.get("estimator", self.estimator)
        return self

    def fit(self, X, y):
        from sklearn.base import clone

        self.estimator_ = clone(self.estimator).fit(X, y)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        return self.estimator_.predict(X)


def _default_points(length: int, shortest: int) -> list[int]:
    """sktime's default classification points: the length over 1..20, at least ``shortest``."""
    return sorted({round(length / i) for i in range(1, 21)} - set(range(shortest)))


def _peer_teaser(seed: int, X):
    """TEASER with its default base classifier (WEASEL, MUSE for several channels) and its
    default points (those under 8 steps dropped, as TEASER does for its default)."""
    from sktime.classification.dictionary_based import MUSE, WEASEL
    from sktime.classification.early_classification import TEASER

    base = (MUSE if X.shape[1] > 1 else WEASEL)(support_probabilities=True, alphabet_size=4)
    return TEASER(
        estimator=SklearnTagged(base),
        classification_points=_default_points(X.shape[-1], 8),
        random_state=seed,
    )


def _peer_threshold_cif(seed: int, X):
    """ProbabilityThresholdEarlyClassifier with its documented default base classifier,
    given explicitly (with ``estimator=None`` it fails its own predict_proba check)."""
    from sktime.classification.early_classification import ProbabilityThresholdEarlyClassifier
    from sktime.classification.interval_based import CanonicalIntervalForest

    return ProbabilityThresholdEarlyClassifier(
        estimator=CanonicalIntervalForest(random_state=seed), random_state=seed
    )


def _peer_threshold_tsf(seed: int, X):
    """ProbabilityThresholdEarlyClassifier with a time series forest: the fastest base that
    scored best in our trials."""
    from sktime.classification.early_classification import ProbabilityThresholdEarlyClassifier
    from sktime.classification.interval_based import TimeSeriesForestClassifier

    return ProbabilityThresholdEarlyClassifier(
        estimator=TimeSeriesForestClassifier(random_state=seed), random_state=seed
    )


PEERS = {
    "teaser": _peer_teaser,
    "threshold-cif": _peer_threshold_cif,
    "threshold-tsf": _peer_threshold_tsf,
}


def ssm_row(model: str, dataset: str, X, y, X_test, y_test, seed: int) -> dict:
    from sktdi import SSMClassifier
    from sktdi.deep_model.early import rule_score
    from sktdi.sktime import EARLY_PREFIX_WEIGHT, SktimeSSMEarlyClassifier

    epochs = {"max_epochs": EPOCHS[dataset]} if dataset in EPOCHS else {}
    start = time.perf_counter()
    if model == "ssm-whole":
        # the network alone: its predictions over time (the fast path needs whole series)
        network = SSMClassifier(
            random_state=seed, n_threads=1, fast_path=False, **epochs
        ).fit(X, y)
        fit_seconds = time.perf_counter() - start
        early = SktimeSSMEarlyClassifier()
        proba = network.predict_proba_over_time(X_test)  # (n, L, K)
        hm, accuracy, earliness = rule_score(
            proba, np.searchsorted(network.classes_, y_test), early.probability_threshold,
            early.consecutive_predictions, full_length=X.shape[-1],
        )
    else:
        init = {"init": "s4d-lin"} if model == "ssm-early-lin" else {}
        network = SSMClassifier(prefix_weight=EARLY_PREFIX_WEIGHT, n_threads=1, **init, **epochs)
        early = SktimeSSMEarlyClassifier(network, random_state=seed).fit(X, y)
        fit_seconds = time.perf_counter() - start
        hm, accuracy, earliness = early.score(X_test, y_test)
        network = early.estimator_
    return {
        "fit_seconds": fit_seconds, "hm": hm, "accuracy": accuracy, "earliness": earliness,
        "full_accuracy": float(np.mean(network.predict(X_test) == y_test)),
        "config": json.dumps(epochs),
    }


def peer_row(model: str, X, y, X_test, y_test, seed: int) -> dict:
    from sktdi.deep_model.early import rule_score

    peer = PEERS[model](seed, X)
    start = time.perf_counter()
    peer.fit(X, y)
    fit_seconds = time.perf_counter() - start
    if hasattr(peer, "update_predict"):  # an sktime early classifier: its own score
        hm, accuracy, earliness = peer.score(X_test, y_test)
    else:  # ProbabilityThresholdEarlyClassifier: its rule at each of its prefix lengths
        points = np.asarray(peer._classification_points)
        proba = np.stack(
            [peer.predict_proba(X_test[:, :, :point]) for point in points], axis=1
        )  # (n, points, K)
        hm, accuracy, earliness = rule_score(
            proba, np.searchsorted(np.asarray(peer.classes_), y_test),
            peer.probability_threshold, peer.consecutive_predictions,
            full_length=X.shape[-1], steps=points,
        )
    return {"fit_seconds": fit_seconds, "hm": hm, "accuracy": accuracy, "earliness": earliness,
            "config": repr(peer)}


class _OverTime(Exception):
    pass


def _over_time(signum, frame):
    raise _OverTime


def run_one(dataset: str, model: str, seed: int = 0, timeout: int = 0) -> dict:
    import signal

    import torch

    from sktdi.datasets import load_dataset_split

    torch.set_num_threads(1)
    if timeout:  # a run that would not finish in the run's time is stopped and reported
        signal.signal(signal.SIGALRM, _over_time)
        signal.alarm(timeout)
    X, y, X_test, y_test = load_dataset_split(dataset)
    row = {"dataset": dataset, "model": model, "n_train": len(y), "n_test": len(y_test),
           "length": X.shape[-1]}
    try:
        if model in SSM_MODELS:
            row.update(ssm_row(model, dataset, X, y, X_test, y_test, seed), status="ok")
        else:
            row.update(peer_row(model, X, y, X_test, y_test, seed), status="ok")
    except _OverTime:
        row.update(status="timeout", error=f"did not finish within {timeout} s")
    except Exception as exc:  # noqa: BLE001 - a peer that fails is reported, not hidden
        row.update(status="error", error=f"{type(exc).__name__}: {exc}"[:500],
                   traceback=traceback.format_exc()[-2000:])
    finally:
        if timeout:
            signal.alarm(0)
    return row


def main() -> None:
    from joblib import Parallel, delayed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--models", nargs="+", default=[*SSM_MODELS, *PEERS])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=900, help="seconds per run; 0: none")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    done = pd.read_csv(out) if out.exists() else pd.DataFrame(columns=["dataset", "model"])
    tasks = [
        (dataset, model) for dataset in args.datasets for model in args.models
        if not ((done.dataset == dataset) & (done.model == model)).any()
        and (dataset, model) not in NOT_RUN
    ]
    tasks.sort(key=lambda task: (task[0] not in FIRST, task[1] not in SSM_MODELS))
    for row in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_one)(*task, timeout=args.timeout) for task in tasks
    ):
        done = pd.concat([done, pd.DataFrame([row])], ignore_index=True)
        done.to_csv(out, index=False)
        print({k: row.get(k) for k in ("dataset", "model", "status", "hm", "accuracy",
                                        "earliness", "fit_seconds")}, flush=True)


if __name__ == "__main__":
    main()
