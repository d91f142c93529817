"""Option groups: parameters an estimator holds as one nested object (``tdi=TDIOptions(...)``).

A group is a small scikit-learn estimator-like object (its ``__init__`` keyword arguments are
its fields), so that scikit-learn's ``get_params(deep=True)``, ``set_params`` and ``clone``
route ``tdi__spread`` to it the way skorch routes ``module__``. The estimator's default is
None, the group's defaults (scikit-learn's conventions forbid an object as a default value);
:class:`HasOptionGroups` makes ``set_params(tdi__spread=0.5)`` work from that None too, as
``GridSearchCV`` needs.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator

from ._validation import renamed_parameter_hint


class OptionGroup(BaseEstimator):
    """Base of an option group: keyword-only fields, checked by ``_parameter_constraints``,
    equal when their fields are equal."""

    def validated(self):
        """Self, once the fields pass their constraints (a clear error names the field)."""
        self._validate_params()
        return self

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return all(_same_field(mine[name], theirs[name]) for name in mine)

    __hash__ = None  # mutable (set_params), so not hashable


def _same_field(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)  # plain values, and a TaskSpectrum by value
    except (TypeError, ValueError):  # an array: no single truth value
        return False


def resolve_options(value, group: type[OptionGroup]) -> OptionGroup:
    """The options an estimator's parameter holds, validated: the group's defaults for None."""
    return (group() if value is None else value).validated()


class HasOptionGroups:
    """Mixin for estimators with option-group parameters (``_option_groups``: name → class).

    ``set_params(tdi__spread=0.5)`` on an estimator whose ``tdi`` is None starts from the
    group's defaults rather than failing on None; everything else is the base class's.
    """

    _option_groups: dict = {}

    def set_params(self, **params):
        for key in params:
            hint = renamed_parameter_hint(type(self), key)
            if hint is not None:
                raise ValueError(f"Invalid parameter {key!r} for {type(self).__name__}: {hint}")
        for name, group in self._option_groups.items():
            routed = any(key.startswith(f"{name}__") for key in params)
            if routed and name not in params and getattr(self, name, None) is None:
                setattr(self, name, group())
        return super().set_params(**params)
