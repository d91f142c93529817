"""Issue 70's short choice and confirmation sets, their draws and how a draw is split
(benchmarks/one_model's protocol), shared by the studies that fit on them
(``benchmarks/one_model/one_model.py``, ``benchmarks/checked_network/short_cells.py``)."""

from __future__ import annotations

import numpy as np

CHOICE = ("ItalyPowerDemand", "GunPoint", "ArrowHead", "BasicMotions", "OSULeaf")
CONFIRMATION = ("JapaneseVowels", "ACSF1", "digits", "PLAID-subset")
DRAWS = 10
RESAMPLES = {"OSULeaf": 3, "ACSF1": 3, "digits": 3}  # others: DRAWS


def draws(dataset: str) -> range:
    """The draws of ``dataset`` (resample 0 the official split)."""
    return range(RESAMPLES.get(dataset, DRAWS))


def stage_of(dataset: str) -> str:
    """Whether ``dataset`` is a choice set or a confirmation set."""
    return "choice" if dataset in CHOICE else "confirm"


def split_of(dataset: str, perturbation: str, resample: int, stratify: bool = True):
    """(X, y, X_test, y_test) of a draw (``resample_split``), the raw-data study's
    ``perturbation`` applied (seed 0 to the training split, 1 to the test split)."""
    from sktdi.datasets import load_dataset_split, resample_split

    if dataset == "PLAID-subset":
        from .raw_inputs import plaid_subset

        split = plaid_subset()
    else:
        split = load_dataset_split(dataset)
    X, y, Xt, yt = resample_split(*split, resample, stratify=stratify)
    if perturbation != "clean":
        from .raw_inputs import perturb

        X, Xt = perturb(np.asarray(X), perturbation, 0), perturb(np.asarray(Xt), perturbation, 1)
    return X, y, Xt, yt
