"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

__version__ = "0.1.0.dev0"

from .estimators import SSMClassifier, SSMRegressor
from .transformers import SpectralAlignmentTransformer

__all__ = ["SSMClassifier", "SSMRegressor", "SpectralAlignmentTransformer", "__version__"]
