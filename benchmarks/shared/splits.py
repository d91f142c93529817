"""The draws every training-split study makes: a dataset's training split alone (its test
split unread), and inside it a cross-validation fold or a stratified subsample scored on the
rest. A study that chooses a default draws its cells here, so no two studies split alike by
accident."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold


def load_train(name: str):
    from sktdi.datasets import load_dataset_split

    X_train, y_train, _, _ = load_dataset_split(name)  # the test split is dropped unseen
    return X_train, y_train


def cell_split(y, fold: int, n_folds: int, ratio: float | None):
    """(train, valid) indices inside the training split: a CV fold, or with ``ratio`` a
    stratified subsample (resample ``fold``) against the rest of the training split."""
    if ratio is None:
        splits = StratifiedKFold(n_folds, shuffle=True, random_state=0).split(np.zeros(len(y)), y)
        return list(splits)[fold]
    from sktdi.datasets import training_subsample

    train = training_subsample(y, ratio, random_state=fold)
    return train, np.setdiff1d(np.arange(len(y)), train)
