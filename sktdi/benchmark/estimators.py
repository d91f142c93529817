"""The estimators a benchmark can compare, by name.

Each entry builds a fresh estimator for a seed. SSM models and the fast path receive padded
series with their lengths (where they differ); the other baselines receive the padded
numpy3D panel.

This module imports nothing heavy at module level (no numpy, torch, scikit-learn or sktime):
the ``sktdi benchmark`` parser reads :data:`ESTIMATORS` and :data:`DEFAULT_RATIOS` from it, and
``sktdi --help`` and argument errors must stay instant.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable


def _ssm(**params) -> Callable:
    def build(seed: int, overrides: dict):
        from ..deep_model.estimators import SSMClassifier

        return SSMClassifier(random_state=seed, **{**params, **overrides})

    build.trains_network = True
    return build


def _spectral_ridge_params() -> tuple[str, ...]:
    """SpectralRidgeClassifier's keyword arguments: the overrides a ridge arm reads."""
    import inspect

    from ..fast_path.ridge import SpectralRidgeClassifier

    return tuple(inspect.signature(SpectralRidgeClassifier).parameters)


def _spectral_ridge(**params) -> Callable:
    """SpectralRidgeClassifier built with ``params`` (the same features for every bank, so
    the tdi/s4d-lin arms differ by the bank alone).

    Overrides it has no parameter for (``max_epochs``: a ridge trains no epochs) are not its
    settings and are left out, rather than failing every ridge cell of a ``--max-epochs`` run.
    """

    def build(seed: int, overrides: dict):
        from ..fast_path.ridge import SpectralRidgeClassifier

        known = set(_spectral_ridge_params())
        overrides = {k: v for k, v in overrides.items() if k in known}
        return SpectralRidgeClassifier(random_state=seed, **{**params, **overrides})

    build.params_used = _spectral_ridge_params
    return build


def _minirocket(seed: int, overrides: dict):
    from sktime.classification.kernel_based import RocketClassifier

    return RocketClassifier(rocket_transform="minirocket", random_state=seed)


def _minirocket_ridge(seed: int, overrides: dict):
    """MiniRocket's algorithm without sktime's classifier wrapper, whose input conversions
    cost seconds (a pandas dtype check per feature column) where the transform costs tens of
    milliseconds: the fair clock for the algorithm itself."""
    from ._minirocket_ridge import MiniRocketRidge

    return MiniRocketRidge(random_state=seed)


def _deep_peer(name: str, **params) -> Callable:
    """sktime's torch ``name`` classifier, trained for the SSM arms' epochs.

    ``num_epochs`` follows ``--max-epochs`` (``max_epochs`` in the overrides) and otherwise
    SSMClassifier's own default, so that the deep peers and the SSM arms of one run always
    train for the same number of epochs. Everything else is sktime's default but what
    ``params`` sets.
    """

    def build(seed: int, overrides: dict):
        import importlib

        from ..deep_model.estimators import SSMClassifier

        module = importlib.import_module("sktime.classification.deep_learning")
        epochs = overrides.get("max_epochs", SSMClassifier().max_epochs)
        return getattr(module, name)(num_epochs=epochs, random_state=seed, **params)

    build.params_used = ("max_epochs",)
    build.trains_network = True
    return build


def _nn_euclidean(seed: int, overrides: dict):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=1)


def _nn_dtw(seed: int, overrides: dict):
    from sktime.classification.distance_based import KNeighborsTimeSeriesClassifier

    return KNeighborsTimeSeriesClassifier(n_neighbors=1, distance="dtw")


# builders that read no override: --max-epochs and friends are not their settings
# (sktdi.benchmark.settings.used_params)
for _build in (_minirocket, _minirocket_ridge, _nn_euclidean, _nn_dtw):
    _build.params_used = ()
del _build


# name -> (builder, input kind, required module or None)
#   input kind: "ssm" (padded + lengths where they differ), "panel" (numpy3D), "flat" (n, C·L)
ESTIMATORS: dict[str, tuple[Callable, str, str | None]] = {
    "tdi": (_ssm(init="tdi"), "ssm", None),
    "s4d-lin": (_ssm(init="s4d-lin"), "ssm", None),
    "s4d-inv": (_ssm(init="s4d-inv"), "ssm", None),
    "auto": (_ssm(init="auto"), "ssm", None),
    "tdi-control": (_ssm(init="tdi-control"), "ssm", None),
    # the classifier's previous default: the S4D network of issue 13's recipe (docs/deep_model.md)
    "s4d-network": (
        _ssm(network="s4d", d_model=64, n_layers=2, pooling="mean-max", dropout=0.1, dt_max=1.0),
        "ssm",
        None,
    ),
    # "numba": the filter bank's compiled scan, warmed up once per process as MiniRocket is
    # (numba is a dependency of sktdi, so these arms are always available)
    # (they take series of unequal length as the SSM models do: padded, with their lengths)
    "tdi+ridge": (_spectral_ridge(), "ssm", "numba"),
    "s4d-lin+ridge": (_spectral_ridge(init="s4d-lin"), "ssm", "numba"),
    "tdi+ridge+minirocket": (_spectral_ridge(rocket="minirocket"), "ssm", "numba"),
    "s4d-lin+ridge+minirocket": (
        _spectral_ridge(init="s4d-lin", rocket="minirocket"),
        "ssm",
        "numba",
    ),
    # the fast path on the placebo's filters: TDI − placebo in the fast path (issue 77)
    "tdi-control+ridge+minirocket": (
        _spectral_ridge(init="tdi-control", rocket="minirocket"), "ssm", "numba",
    ),
    "minirocket": (_minirocket, "panel", "numba"),
    "minirocket-ridge": (_minirocket_ridge, "panel", "numba"),
    # sktime's ResNet defaults to batch_size=1 (200 optimizer steps an epoch on OSULeaf, hours
    # on a CPU); 16 is the batch of the original ResNet recipe (min(n/10, 16)) and SSMClassifier's
    "inceptiontime": (_deep_peer("InceptionTimeClassifierTorch"), "panel", "sktime"),
    "resnet": (_deep_peer("ResNetClassifierTorch", batch_size=16), "panel", "sktime"),
    "1nn-euclidean": (_nn_euclidean, "flat", None),
    "1nn-dtw": (_nn_dtw, "panel", "numba"),
}
# ``sktdi benchmark``'s default comparison: the package's recommended models (the deep model
# with TDI, with S4D-Lin and with TDI's placebo, tdi-control: the negative control; the fast
# path with and without MiniRocket's features, each on a TDI bank and on S4D-Lin's, so that
# what TDI adds there is measured too) beside
# MiniRocket and 1-NN, on a grid that finishes in minutes on 2 cores (docs/default_benchmark.md).
# MiniRocket is its transform and ridge head, timed as itself: sktime's RocketClassifier
# ("minirocket") computes the same, behind input conversions that cost it 50 times the fast
# path's time on these sets
DEFAULT_ESTIMATORS = (
    "tdi", "s4d-lin", "tdi-control", "tdi+ridge", "s4d-lin+ridge", "tdi+ridge+minirocket",
    "s4d-lin+ridge+minirocket", "minirocket-ridge", "1nn-euclidean",
)
# estimators whose predict_proba is a 0/1 vote, not a probability: 1-NN (one neighbour) and
# sktime's RocketClassifier (a ridge head; its predict_proba is one-hot). Their log loss would
# only restate the error rate (about 34.5 nats per miss at the 1e-15 clip), so the harness
# records no NLL for them and the summary shows none. The ridge arms have no predict_proba.
HARD_LABEL = frozenset({"1nn-euclidean", "1nn-dtw", "minirocket"})
# the default training ratios of the grid (here rather than in .runner, which imports pandas)
DEFAULT_RATIOS = (0.1, 0.5)


def gives_probabilities(name: str) -> bool:
    """Whether ``name``'s ``predict_proba`` (if it has one) gives probabilities, so that its
    test NLL means something (see :data:`HARD_LABEL`).

    Examples
    --------
    >>> from sktdi.benchmark.estimators import gives_probabilities
    >>> gives_probabilities("tdi"), gives_probabilities("1nn-euclidean")
    (True, False)
    """
    return name not in HARD_LABEL


def trains_network(name: str) -> bool:
    """Whether ``name`` trains a network for epochs (the deep arms): the cells that take a
    run's time, seconds to minutes each where the others take a fraction of a second.

    Examples
    --------
    >>> from sktdi.benchmark.estimators import trains_network
    >>> trains_network("tdi"), trains_network("tdi+ridge")
    (True, False)
    """
    return getattr(ESTIMATORS[name][0], "trains_network", False)


def available(name: str) -> bool:
    """Whether ``name`` is known and its optional packages are installed.

    Examples
    --------
    >>> from sktdi.benchmark import available
    >>> available("1nn-euclidean"), available("no-such-estimator")
    (True, False)
    """
    if name not in ESTIMATORS:
        return False
    module = ESTIMATORS[name][2]
    return module is None or importlib.util.find_spec(module) is not None
