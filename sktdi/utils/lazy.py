"""Module attributes loaded on first access (PEP 562), for packages whose names live in
submodules with heavy imports (torch, scikit-learn, pandas); and module names kept for code
written against an earlier layout."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys


def lazy_attributes(package: str, names: dict[str, str], namespace: dict):
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps an attribute to the
    submodule (relative, e.g. ".estimators") it is imported from on first access; the value
    is then stored in ``namespace`` (the package's globals) so later lookups skip this.

    Examples
    --------
    >>> from sktdi.utils.lazy import lazy_attributes
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


class _ModuleAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as the module that now holds its code (the same object:
    ``sktdi.ridge.SpectralRidgeClassifier is sktdi.fast_path.ridge.SpectralRidgeClassifier``)."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self._specs = {}  # old name -> the target's own spec, put back after the import

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.aliases:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(self.aliases[spec.name])
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # the target ran when it was imported; the import system has just set the alias's
        # spec on it, which would make its relative imports (and a reload) resolve from the
        # old name's package: it keeps its own
        module.__spec__ = self._specs[module.__spec__.name]


def alias_modules(aliases: dict[str, str]) -> None:
    """Let ``import old`` (and ``from old import name``) give the module ``new`` for each
    ``old: new`` of ``aliases``; the target is imported only when an old name is.

    Examples
    --------
    >>> import sktdi.ridge, sktdi.fast_path.ridge
    >>> sktdi.ridge is sktdi.fast_path.ridge, sktdi.ridge.__spec__.name
    (True, 'sktdi.fast_path.ridge')
    """
    if not any(isinstance(f, _ModuleAliases) and f.aliases == aliases for f in sys.meta_path):
        sys.meta_path.insert(0, _ModuleAliases(aliases))  # before a stale file of the old name
