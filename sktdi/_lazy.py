"""Module attributes loaded on first access (PEP 562), for packages whose names live in
submodules with heavy imports (torch, scikit-learn, pandas)."""

from __future__ import annotations

import importlib


def lazy_attributes(package: str, names: dict[str, str], namespace: dict):
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps an attribute to the
    submodule (relative, e.g. ".estimators") it is imported from on first access; the value
    is then stored in ``namespace`` (the package's globals) so later lookups skip this.

    Examples
    --------
    >>> from sktdi._lazy import lazy_attributes
    >>> namespace = {}
    >>> getattr_, dir_ = lazy_attributes("sktdi", {"load_ucr": ".datasets"}, namespace)
    >>> getattr_("load_ucr").__name__, "load_ucr" in namespace
    ('load_ucr', True)
    """

    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(names[name], package), name)
            namespace[name] = value  # later lookups skip __getattr__
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __getattr__, __dir__
