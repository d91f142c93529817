"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

from __future__ import annotations

from ._lazy import lazy_attributes

__version__ = "0.1.0.dev0"

# The estimators import torch, skorch and scikit-learn (seconds). They load on first access
# (PEP 562) so that ``sktdi --help``, argument errors and light submodules such as
# ``sktdi.datasets`` do not pay for them; ``from sktdi import SSMClassifier`` is unchanged.
_LAZY = {
    "SSMClassifier": ".estimators",
    "SSMRegressor": ".estimators",
    "SpectralAlignmentTransformer": ".transformers",
    "load": ".persistence",
    "SpectralRidgeClassifier": ".ridge",
    "SpectralRidgeRegressor": ".ridge",
    "PaddedSeriesWarning": "._inputs",
    "PredictionStream": "._streaming",
    "TDIOptions": ".tdi.options",
    "TrainingOptions": "._training",
    "TrainingDivergedError": "._training",
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
