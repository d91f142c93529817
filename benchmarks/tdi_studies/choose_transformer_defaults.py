"""How SpectralAlignmentTransformer's feature defaults were chosen (training splits only).

The pipeline is the benchmark's ``tdi+ridge``: transformer → StandardScaler →
RidgeClassifierCV. Each configuration is scored three ways on every dataset's *training split*:
3-fold stratified CV ("cv") and, for each ratio, a stratified share of the training split
against the rest of it (3 resamples), as ``shared/splits.py``'s ``cell_split`` draws them.
Test splits are never touched.

    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs 32f-0b 32f-4b 64f-4b \
        128f-4b 128f-8b 128f-4b-lin        # round 1, ~5 min on 2 cores (without --configs:
        # every configuration of rounds 1 to 4)
    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs 128f-8b 128f-8b-rel \
        128f-8b-spread0.5 128f-8b-lin --out benchmarks/tdi_studies/results/transformer_defaults_round2.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs 128f-8b-rel rel-dstate32 \
        rel-dstate64 rel-dtmax0.5 --out benchmarks/tdi_studies/results/transformer_defaults_round3.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs rel rel-lin rel-diff rel-mr \
        rel-mr-diff rel-mr-diff-lin --out benchmarks/tdi_studies/results/transformer_defaults_round4.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs ridge ridge-lin ridge-scales \
        ridge-local minirocket ridge+minirocket ridge-lin+minirocket filtered-minirocket \
        --out benchmarks/tdi_studies/results/transformer_defaults_round5.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --configs ridge-local local-lin wide \
        minirocket local+minirocket local-lin+minirocket wide+minirocket ridge+minirocket \
        --out benchmarks/tdi_studies/results/transformer_defaults_round6.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --round7 \
        --out benchmarks/tdi_studies/results/transformer_defaults_round7.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --round8 \
        --out benchmarks/tdi_studies/results/transformer_defaults_round8.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --round9 \
        --out benchmarks/tdi_studies/results/transformer_defaults_round9.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --round10 \
        --out benchmarks/tdi_studies/results/transformer_defaults_round10.csv
    python benchmarks/tdi_studies/choose_transformer_defaults.py --round11 \
        --out benchmarks/tdi_studies/results/transformer_defaults_round11.csv

Writes benchmarks/tdi_studies/results/transformer_defaults.csv and prints mean accuracy per configuration and
protocol, and the average rank over (dataset, protocol) cells.

The configurations are relative to the transformer's defaults *at the time of each round*.
Each configuration is a dict of ``set_params`` keys (``tdi__<field>`` reaches ``TDIOptions``).
Rounds 1 and 2 ran when the reliability default (now ``tdi__reliability``) was False; it is
True now, so a rerun of a round-1/2 configuration that does not set it measures shrinkage
too. The bias sample and the random streams have also changed since (see the changelog):
reruns will not reproduce the recorded CSVs exactly.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the package ``benchmarks``
from benchmarks.shared.splits import cell_split, load_train  # noqa: E402

CONFIGS = {
    "32f-0b": {"n_filters": 32, "n_biases": 0},
    "32f-4b": {"n_filters": 32, "n_biases": 4},
    "64f-4b": {"n_filters": 64, "n_biases": 4},
    "128f-4b": {"n_filters": 128, "n_biases": 4},
    "128f-8b": {"n_filters": 128, "n_biases": 8},
    "128f-4b-lin": {"n_filters": 128, "n_biases": 4, "init": "s4d-lin"},
    # round 2, around the round-1 winner: TDI hurt the shape datasets, so shrink or spread
    "128f-8b-rel": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True},
    "128f-8b-spread0.5": {"n_filters": 128, "n_biases": 8, "tdi__spread": 0.5},
    "128f-8b-lin": {"n_filters": 128, "n_biases": 8, "init": "s4d-lin"},
    # round 3, around the round-2 winner: with d_state 16 and dt ≤ 0.1 the S4D-Lin filters
    # that shrinkage keeps reach at most ~0.35 cycles/sample, so let them see the whole band
    "rel-dstate32": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True, "d_state": 32},
    "rel-dstate64": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True, "d_state": 64},
    "rel-dtmax0.5": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True, "dt_max": 0.5},
    # round 4 (issue 15): MultiRocket's poolings and the first difference, each with the
    # S4D-Lin bank beside it so the table shows what the alignment adds
    "rel": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True},
    "rel-lin": {"n_filters": 128, "n_biases": 8, "init": "s4d-lin"},
    "rel-diff": {"n_filters": 128, "n_biases": 8, "tdi__reliability": True, "difference": True},
    "rel-mr": {
        "n_filters": 128, "n_biases": 8, "tdi__reliability": True, "features": "multirocket",
    },
    "rel-mr-diff": {
        "n_filters": 128, "n_biases": 8, "tdi__reliability": True, "features": "multirocket",
        "difference": True,
    },
    "rel-mr-diff-lin": {
        "n_filters": 128, "n_biases": 8, "init": "s4d-lin", "features": "multirocket",
        "difference": True,
    },
}
# round 5 (issue 15): whole models rather than transformer settings — SpectralRidgeClassifier
# (the defaults after round 4), banks at other time scales, and composition with sktime's
# MiniRocket, which is also scored alone on the same cells
MODELS = {
    "ridge": lambda seed: _ridge(random_state=seed),
    "ridge-lin": lambda seed: _ridge(init="s4d-lin", random_state=seed),
    # two banks of 64: S4D-Lin's time scales, and fast-decaying local filters (dt up to 1
    # puts poles all over the band, |z| down to e^-0.5) — the same feature count as "ridge"
    "ridge-scales": lambda seed: _banks([(1e-3, 1e-1), (1e-1, 1.0)], seed),
    "ridge-local": lambda seed: _banks([(1e-2, 1.0)], seed, n_filters=128),
    "minirocket": lambda seed: _minirocket(seed),
    "ridge+minirocket": lambda seed: _ridge(rocket="minirocket", random_state=seed),
    "ridge-lin+minirocket": lambda seed: _ridge(
        init="s4d-lin", rocket="minirocket", random_state=seed
    ),
    # MiniRocket's kernels on the series and on 8 TDI-filtered copies of it: the alignment
    # picks the bands, the dilated kernels see the shapes there
    "filtered-minirocket": lambda seed: _filtered_minirocket(seed),
    # round 6, around round 5's findings: the local bank (dt up to 1) won OSULeaf and GunPoint
    # and lost ArrowHead; MiniRocket beside the bank won on average
    "local-lin": lambda seed: _ridge(init="s4d-lin", dt_min=1e-2, dt_max=1.0, random_state=seed),
    "wide": lambda seed: _ridge(dt_min=1e-3, dt_max=1.0, random_state=seed),
    "local+minirocket": lambda seed: _ridge(
        dt_min=1e-2, dt_max=1.0, rocket="minirocket", random_state=seed
    ),
    "local-lin+minirocket": lambda seed: _ridge(
        init="s4d-lin", dt_min=1e-2, dt_max=1.0, rocket="minirocket", random_state=seed
    ),
    "wide+minirocket": lambda seed: _ridge(
        dt_min=1e-3, dt_max=1.0, rocket="minirocket", random_state=seed
    ),
    # round 7 (issue 25): the one-line model against bare MiniRocket on all nine harness
    # datasets — the compiled bank, MultiRocket's poolings in it, and a longer ridge path
    # (standardized features outnumber the series a hundredfold: the best penalty can lie
    # above RocketClassifier's 1e3)
    "minirocket-ridge": lambda seed: _bare_minirocket(seed),
    "ridge-long-path": lambda seed: _ridge(alphas=LONG_PATH, random_state=seed),
    "ridge-mr+minirocket": lambda seed: _ridge(
        features="multirocket", rocket="minirocket", random_state=seed
    ),
    "ridge+minirocket-long-path": lambda seed: _ridge(
        rocket="minirocket", alphas=LONG_PATH, random_state=seed
    ),
}
LONG_PATH = np.logspace(-3, 5, 17)
# round 8 (issue 25): the bank's block weighted against MiniRocket's in the ridge penalty.
# Standardized, each of MiniRocket's ~10,000 features counts as much as each of the bank's
# ~3,000: the weight w multiplies the bank's scaled features (w = 1 is round 7's model;
# w = sqrt(F_rocket / F_bank) gives the two blocks equal total variance)
for _weight in ("0.5", "1.8", "3"):
    MODELS[f"ridge+minirocket-w{_weight}"] = (
        lambda seed, w=float(_weight): _weighted_blocks(w, seed)
    )
# round 9 (issue 25): MultiRocket's features (sktime's MultiRocketMultivariate, its kernel
# count cut so that its time stays near MiniRocket's) and MiniRocket of the first difference
# (MultiRocket's other half), beside the bank or alone
MODELS["multirocket-625"] = lambda seed: _rocket_blocks(seed, bank=False, multirocket=625)
MODELS["multirocket-1250"] = lambda seed: _rocket_blocks(seed, bank=False, multirocket=1250)
MODELS["ridge+multirocket-625"] = lambda seed: _rocket_blocks(seed, bank=True, multirocket=625)
MODELS["ridge+minirocket+diff"] = lambda seed: _rocket_blocks(seed, bank=True, difference=True)
ROUND9 = ("multirocket-625", "multirocket-1250", "ridge+multirocket-625", "ridge+minirocket+diff",
          "ridge+minirocket", "minirocket-ridge")
# round 10 (issue 25): the classifier's features, scaling and ridge head in float32 (the
# default since this round, as MiniRocket's own ridge) against float64, alone and with
# MiniRocket (of the series and its difference: rocket="minirocket" since round 9)
MODELS["ridge-float64"] = lambda seed: _float64(_ridge(random_state=seed))
MODELS["ridge+minirocket-float64"] = lambda seed: _float64(
    _ridge(rocket="minirocket", random_state=seed)
)
ROUND10 = ("ridge", "ridge-float64", "ridge+minirocket", "ridge+minirocket-float64",
           "minirocket-ridge")
# round 11 (issue 25): MiniRocket's feature budget beside the bank (sktdi.fast_path.ridge's
# ROCKET_FEATURES, split between the series and its difference): 20,000 (two full sets,
# round 10's model), 10,000 (MiniRocket's own count), 6,000
for _budget in (20_000, 10_000, 6_000):
    MODELS[f"ridge+minirocket-{_budget // 1000}k"] = (
        lambda seed, budget=_budget: _rocket_budget(budget, seed)
    )
ROUND11 = ("ridge+minirocket-20k", "ridge+minirocket-10k", "ridge+minirocket-6k",
           "minirocket-ridge")
ROUND8 = ("ridge+minirocket", "ridge+minirocket-w0.5", "ridge+minirocket-w1.8",
          "ridge+minirocket-w3", "minirocket-ridge")
ROUND7 = (
    "ridge", "ridge-lin", "minirocket-ridge", "ridge+minirocket", "ridge-long-path",
    "ridge-mr+minirocket", "ridge+minirocket-long-path",
)
ROUND7_DATASETS = (
    "planted", "ItalyPowerDemand", "GunPoint", "ArrowHead", "digits", "OSULeaf", "ACSF1",
    "BasicMotions", "JapaneseVowels",
)


def _ridge(**params):
    from sktdi import SpectralRidgeClassifier

    return SpectralRidgeClassifier(**params)


def _head():
    from sklearn.linear_model import RidgeClassifierCV

    return RidgeClassifierCV(alphas=np.logspace(-3, 3, 10))


def _banks(dt_ranges, seed, n_filters=64):
    from sklearn.pipeline import make_pipeline, make_union
    from sklearn.preprocessing import StandardScaler

    from sktdi import SpectralAlignmentTransformer

    banks = [
        SpectralAlignmentTransformer(
            n_filters=n_filters, dt_min=lo, dt_max=hi, random_state=seed + 1000 * k
        )
        for k, (lo, hi) in enumerate(dt_ranges)
    ]
    return make_pipeline(make_union(*banks), StandardScaler(), _head())


def _weighted_blocks(weight: float, seed: int):
    from sklearn.base import BaseEstimator, ClassifierMixin

    class WeightedBlocks(ClassifierMixin, BaseEstimator):
        """SpectralRidgeClassifier(rocket="minirocket") with the bank's block times w."""

        def fit(self, X, y):
            self.model_ = _ridge(rocket="minirocket", random_state=seed).fit(X, y)
            features = self.model_._features(X, None)  # (n, F_bank + F_rocket), scaled
            self.n_bank_ = self.model_.transformer_._n_features_out
            features[:, : self.n_bank_] *= weight
            self.ridge_ = _head().fit(features, y)
            return self

        def predict(self, X):
            features = self.model_._features(X, None)
            features[:, : self.n_bank_] *= weight
            return self.ridge_.predict(features)

    return WeightedBlocks()


def _rocket_blocks(seed: int, bank: bool, multirocket: int = 0, difference: bool = False):
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.preprocessing import StandardScaler
    from sktime.transformations.rocket import (
        MiniRocket,
        MiniRocketMultivariate,
        MultiRocket,
        MultiRocketMultivariate,
    )

    class RocketBlocks(ClassifierMixin, BaseEstimator):
        """[bank] + MultiRocket, or bank + MiniRocket of the series and of its difference."""

        def _rockets(self, n_channels):
            if multirocket:
                kind = MultiRocket if n_channels == 1 else MultiRocketMultivariate
                return [(kind(num_kernels=multirocket, random_state=seed), False)]
            kind = MiniRocket if n_channels == 1 else MiniRocketMultivariate
            return [(kind(random_state=seed), False), (kind(random_state=seed + 1), difference)]

        def _features(self, X, fit):
            blocks = [self.bank_._transform(X, None)] if bank else []
            for rocket, diff in self.rockets_:
                series = np.diff(X, axis=-1) if diff else X
                if fit:
                    rocket.fit(series)
                blocks.append(np.asarray(rocket.transform(series), dtype=np.float64))
            return np.hstack(blocks)

        def fit(self, X, y):
            from sktdi import SpectralAlignmentTransformer

            if bank:
                self.bank_ = SpectralAlignmentTransformer(random_state=seed).fit(X, y)
            self.rockets_ = self._rockets(X.shape[1])
            if not difference and not multirocket:
                self.rockets_ = self.rockets_[:1]
            self.scaler_ = StandardScaler(copy=False)
            features = self.scaler_.fit_transform(self._features(X, fit=True))
            self.ridge_ = _head().fit(features, y)
            return self

        def predict(self, X):
            return self.ridge_.predict(self.scaler_.transform(self._features(X, fit=False)))

    return RocketBlocks()


def _rocket_budget(budget: int, seed: int):
    from sklearn.base import BaseEstimator, ClassifierMixin

    from sktdi.fast_path import ridge

    class RocketBudget(ClassifierMixin, BaseEstimator):
        """SpectralRidgeClassifier(rocket="minirocket") fitted with ROCKET_FEATURES=budget."""

        def fit(self, X, y):
            saved, ridge.ROCKET_FEATURES = ridge.ROCKET_FEATURES, budget
            try:
                self.model_ = _ridge(rocket="minirocket", random_state=seed).fit(X, y)
            finally:
                ridge.ROCKET_FEATURES = saved
            return self

        def predict(self, X):
            return self.model_.predict(X)

    return RocketBudget()


def _float64(model):
    model._feature_dtype = np.float64  # an instance attribute: the class's stays float32
    return model


def _bare_minirocket(seed):
    from sktdi.benchmark._minirocket_ridge import MiniRocketRidge

    return MiniRocketRidge(random_state=seed)


def _minirocket(seed):
    from sktime.classification.kernel_based import RocketClassifier

    return RocketClassifier(rocket_transform="minirocket", random_state=seed)


def _filtered_minirocket(seed, n_filters=8):
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.preprocessing import StandardScaler
    from sktime.transformations.rocket import MiniRocketMultivariate

    from sktdi import SpectralAlignmentTransformer

    # by hand rather than a sklearn Pipeline, whose callback context rejects sktime steps
    class SeriesAndFilteredMiniRocket(ClassifierMixin, BaseEstimator):
        """MiniRocket on (n, C + C·n_filters, L): the series, then its TDI-filtered copies."""

        def fit(self, X, y):
            self.bank_ = SpectralAlignmentTransformer(
                n_filters=n_filters, features="sequence", random_state=seed
            ).fit(X, y)
            self.rocket_ = MiniRocketMultivariate(random_state=seed).fit(self._panel(X))
            self.scaler_ = StandardScaler(with_mean=False)
            features = self.scaler_.fit_transform(self.rocket_.transform(self._panel(X)))
            self.ridge_ = _head().fit(features, y)
            return self

        def _panel(self, X):
            n, channels, length = X.shape
            filtered = self.bank_.transform(X).reshape(n, channels * n_filters, length)
            return np.concatenate([X, filtered * np.sqrt(length)], axis=1)  # undo 1/√L

        def predict(self, X):
            features = self.rocket_.transform(self._panel(X))
            return self.ridge_.predict(self.scaler_.transform(features))

    return SeriesAndFilteredMiniRocket()


_WARMED = set()


def _warm_up(config: str) -> None:
    """Compile MiniRocket's numba kernels once per worker: a per-process cost, not a fit's."""
    if "rocket" not in config or config in _WARMED:
        return
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(8, 1, 32)), np.repeat([0, 1], 4)
    MODELS[config](0).fit(X, y).predict(X)
    _WARMED.add(config)


DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "OSULeaf", "digits", "planted")


def run_cell(dataset: str, config: str, fold: int, ratio) -> dict:
    import torch
    from sklearn.linear_model import RidgeClassifierCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from sktdi import SpectralAlignmentTransformer

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    X, y = load_train(dataset)
    if not isinstance(X, np.ndarray) or X.dtype == object:  # unequal lengths: as the harness
        from sktdi.datasets import pad_sequences

        X, _ = pad_sequences(X)
    if config in MODELS:
        X = X if X.ndim == 3 else X[:, np.newaxis, :]  # (n, C, L): sktime reads panels
        _warm_up(config)
        model = MODELS[config](fold)
    else:
        model = make_pipeline(
            SpectralAlignmentTransformer(random_state=fold).set_params(**CONFIGS[config]),
            StandardScaler(),
            RidgeClassifierCV(alphas=np.logspace(-3, 3, 10)),
        )
    train, valid = cell_split(y, fold, 3, ratio)
    start = time.perf_counter()
    model.fit(X[train], y[train])
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    accuracy = model.score(X[valid], y[valid])
    return {
        "dataset": dataset,
        "protocol": "cv" if ratio is None else f"ratio {ratio}",
        "config": config,
        "fold": fold,
        "accuracy": accuracy,
        "fit_seconds": fit_seconds,
        "predict_seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configs", nargs="+", default=list(CONFIGS), choices=[*CONFIGS, *MODELS]
    )
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument(
        "--round7", action="store_true", help="round 7's models on the nine harness datasets"
    )
    parser.add_argument(
        "--round8", action="store_true", help="round 8's models on the nine harness datasets"
    )
    parser.add_argument(
        "--round9", action="store_true", help="round 9's models on the nine harness datasets"
    )
    parser.add_argument(
        "--round10", action="store_true", help="round 10's models on the nine harness datasets"
    )
    parser.add_argument(
        "--round11", action="store_true", help="round 11's models on the nine harness datasets"
    )
    parser.add_argument("--ratios", nargs="+", type=float, default=[0.08, 0.16])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/tdi_studies/results/transformer_defaults.csv")
    args = parser.parse_args()
    if args.round7:
        args.configs, args.datasets = list(ROUND7), list(ROUND7_DATASETS)
    if args.round11:
        args.configs, args.datasets = list(ROUND11), list(ROUND7_DATASETS)
    if args.round10:
        args.configs, args.datasets = list(ROUND10), list(ROUND7_DATASETS)
    if args.round9:
        args.configs, args.datasets = list(ROUND9), list(ROUND7_DATASETS)
    if args.round8:
        args.configs, args.datasets = list(ROUND8), list(ROUND7_DATASETS)
    cells = [
        (d, c, f, r)
        for d in args.datasets
        for c in args.configs
        for f in range(3)
        for r in [None, *args.ratios]
    ]
    rows = Parallel(n_jobs=args.n_jobs, verbose=2)(delayed(run_cell)(*cell) for cell in cells)
    results = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    results.to_csv(args.out, index=False)
    acc = results.pivot_table(
        index="config", columns=["protocol", "dataset"], values="accuracy", aggfunc="mean"
    )
    summary = acc.T.groupby(level="protocol").mean().T.round(3)
    summary["avg_rank"] = acc.rank(ascending=False).mean(axis=1).round(2)
    summary["fit_s"] = results.groupby("config")["fit_seconds"].mean().round(2)
    if "predict_seconds" in results:
        summary["predict_s"] = results.groupby("config")["predict_seconds"].mean().round(2)
    print(summary.sort_values("avg_rank").to_string())
    print(f"cells written to {args.out}")


if __name__ == "__main__":
    main()
