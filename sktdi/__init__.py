"""sktdi: scikit-learn estimators for diagonal state space models (S4D) with Task-Dependent
Initialization."""

from __future__ import annotations

import importlib

__version__ = "0.1.0.dev0"

# The estimators import torch, skorch and scikit-learn (seconds). They load on first access
# (PEP 562) so that ``sktdi --help``, argument errors and light submodules such as
# ``sktdi.datasets`` do not pay for them; ``from sktdi import SSMClassifier`` is unchanged.
_LAZY = {
    "SSMClassifier": ".estimators",
    "SSMRegressor": ".estimators",
    "SpectralAlignmentTransformer": ".transformers",
}

__all__ = ["SSMClassifier", "SSMRegressor", "SpectralAlignmentTransformer", "__version__"]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
