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


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())

# The layout: ``deep_model/`` (the SSM estimators: training, saving the net, inference,
# streaming, early classification), ``fast_path/`` (the untrained filter bank, its ridge
# models and compiled scan), ``persistence/`` (the safe archive and the declared fitted
# state), ``ssm/`` (the S4D core, plain torch), ``tdi/`` (Task-Dependent Initialization) and
# ``utils/`` (validation, inputs, options, seeding, threads, memory) below them all
# (docs/architecture.md). The public modules of the flat layout before it still import.
alias_modules({
    "sktdi.estimators": "sktdi.deep_model.estimators",
    "sktdi.augmentation": "sktdi.deep_model.augmentation",
    "sktdi.ridge": "sktdi.fast_path.ridge",
    "sktdi.transformers": "sktdi.fast_path.transformers",
    "sktdi.experiments": "sktdi.fast_path.experiments",
})
