"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

__version__ = "0.1.0.dev0"

from .transformers import SpectralAlignmentTransformer

__all__ = ["SpectralAlignmentTransformer", "__version__"]
