"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
