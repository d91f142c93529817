"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

from __future__ import annotations

from .utils.lazy import alias_modules, lazy_attributes
from .utils.version import __version__

# The estimators import torch, skorch and scikit-learn (seconds). They load on first access
# (PEP 562) so that ``sktdi --help``, argument errors and light submodules such as
# ``sktdi.datasets`` do not pay for them; ``from sktdi import SSMClassifier`` is unchanged.
_LAZY = {
    "SSMClassifier": ".deep_model.estimators",
    "SSMRegressor": ".deep_model.estimators",
    "SpectralAlignmentTransformer": ".fast_path.transformers",
    "load": ".persistence",
    "SpectralRidgeClassifier": ".fast_path.ridge",
    "SpectralRidgeRegressor": ".fast_path.ridge",
    "PaddedSeriesWarning": ".utils.inputs",
    "PredictionStream": ".deep_model.streaming",
    "TDIOptions": ".tdi.options",
    "TrainingOptions": ".deep_model.training",
    "TrainingDivergedError": ".deep_model.training",
}

__all__ = [
    "SSMClassifier",
    "SSMRegressor",
    "SpectralAlignmentTransformer",
    "SpectralRidgeClassifier",
    "SpectralRidgeRegressor",
    "PaddedSeriesWarning",
    "PredictionStream",
    "TDIOptions",
    "TrainingOptions",
    "TrainingDivergedError",
    "load",
    "__version__",
]


_lazy_getattr, __dir__ = lazy_attributes(__name__, _LAZY, globals())

# The layout: ``deep_model/`` (the SSM estimators: training, saving the net, inference,
# streaming, early classification), ``fast_path/`` (the untrained filter bank, its ridge
# models and compiled scan), ``persistence/`` (the safe archive and the declared fitted
# state), ``ssm/`` (the S4D core, plain torch), ``tdi/`` (Task-Dependent Initialization) and
# ``utils/`` (validation, inputs, options, seeding, threads, memory) below them all
# (docs/architecture.md). The modules of the flat layout before it still import, as the
# modules that hold their code now: the public ones for code written against them, the
# private ones for pickles of fitted models, which name the classes' modules.
_MOVED = {
    "estimators": "deep_model.estimators",
    "augmentation": "deep_model.augmentation",
    "_training": "deep_model.training",
    "_saved_net": "deep_model.saved_net",
    "_inference": "deep_model.inference",
    "_streaming": "deep_model.streaming",
    "_stream_kernels": "deep_model.stream_kernels",
    "_early": "deep_model.early",
    "ridge": "fast_path.ridge",
    "transformers": "fast_path.transformers",
    "experiments": "fast_path.experiments",
    "_scan": "fast_path.scan",
    "_scan_kernels": "fast_path.scan_kernels",
    "_declared": "persistence.declared",
    "_validation": "utils.validation",
    "_inputs": "utils.inputs",
    "_options": "utils.options",
    "_threads": "utils.threads",
    "_memory": "utils.memory",
    "_seeding": "utils.seeding",
    "_sampling": "utils.sampling",
    "_lazy": "utils.lazy",
}
alias_modules({f"sktdi.{old}": f"sktdi.{new}" for old, new in _MOVED.items()})


def __getattr__(name: str):
    if name in _MOVED:  # ``sktdi.ridge`` as an attribute, as the flat layout had it
        import importlib

        return importlib.import_module(f"sktdi.{_MOVED[name]}")
    return _lazy_getattr(name)
