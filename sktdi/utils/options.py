"""Option groups: parameters an estimator holds as one nested object (``tdi=TDIOptions(...)``).

A group is a small scikit-learn estimator-like object (its ``__init__`` keyword arguments are
its fields), so that scikit-learn's ``get_params(deep=True)``, ``set_params`` and ``clone``
route ``tdi__spread`` to it the way skorch routes ``module__``. The estimator's default is
None, the group's defaults (scikit-learn's conventions forbid an object as a default value);
:class:`HasOptionGroups` makes ``set_params(tdi__spread=0.5)`` work from that None too, as
``GridSearchCV`` needs.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from .validation import renamed_parameter_hint

# the fitted attribute in which the filter bank models (the transformer, the ridge models)
# record the parameters of their fit (remember_fit_parameters), saved with the model and
# compared with its parameters at each save (sktdi.persistence's _check_parameters_as_fitted)
PARAMETERS_AT_FIT = "_params_at_fit"


class OptionGroup(BaseEstimator):
    """Base of an option group: keyword-only fields, checked by ``_parameter_constraints``,
    equal when their fields are equal."""

    def validated(self):
        """Self, once the fields pass their constraints (a clear error names the field)."""
        self._validate_params()
        for name, value in self.get_params(deep=False).items():
            # scikit-learn's Real intervals take True and False as 1 and 0: a typo, not a number
            boolean = isinstance(value, (bool, np.bool_))
            if boolean and "boolean" not in self._parameter_constraints.get(name, ()):
                raise ValueError(
                    f"The {name!r} parameter of {type(self).__name__} takes a number or one "
                    f"of its named options, not a boolean: got {value!r}."
                )
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
    group's defaults rather than failing on None (so does ``set_params(tdi=None,
    tdi__spread=0.5)``); a ``set_params`` that fails leaves every parameter, and every
    group's fields, as they were. None and the group's defaults are one setting: a model
    fitted with either saves with the other (:meth:`_check_describes_fit`).
    """

    _option_groups: dict = {}

    def _validate_params(self):
        # a dict of the group's fields is the likeliest wrong value: say how it goes in
        from sklearn.utils._param_validation import InvalidParameterError

        for name, group in self._option_groups.items():
            value = getattr(self, name, None)
            if isinstance(value, dict):
                raise InvalidParameterError(
                    f"The {name!r} parameter of {type(self).__name__} must be None or an "
                    f"instance of {group.__name__}. Got {value!r} instead: a dict of its fields "
                    f"goes in as {name}={group.__name__}(**fields) (from {group.__module__}), or "
                    f"field by field with set_params({name}__<field>=...)."
                )
        super()._validate_params()

    def set_params(self, **params):
        for key in params:
            hint = renamed_parameter_hint(type(self), key)
            if hint is not None:
                raise ValueError(f"Invalid parameter {key!r} for {type(self).__name__}: {hint}")
        # scikit-learn sets the parameters one by one and routes the nested ones into the
        # group objects in place: a bad key after a good one would leave half of the call
        # done, so the parameters and the groups' fields are put back on any error
        before = self.get_params(deep=False)
        fields = {
            name: group.get_params(deep=False)
            for name, group in before.items()
            if name in self._option_groups and isinstance(group, OptionGroup)
        }
        params = dict(params)
        try:
            for name, group in self._option_groups.items():
                if not any(key.startswith(f"{name}__") for key in params):
                    continue
                if name in params:
                    if params[name] is None:  # set to None and routed into in one call
                        params[name] = group()
                elif getattr(self, name, None) is None:
                    setattr(self, name, group())
            return super().set_params(**params)
        except Exception:
            for name, value in before.items():
                setattr(self, name, value)
            for name, values in fields.items():
                before[name].set_params(**values)
            raise

    def _check_describes_fit(self, params: dict) -> None:
        """The save's check that ``params`` still describe the fit (:mod:`sktdi.persistence`),
        with an option group that is None on one side and its defaults on the other taken as
        the same: they are one setting (``set_params(tdi__spread=0.25)``, the default, after
        a fit with ``tdi=None`` changed no model)."""

        fitted = vars(self).get(PARAMETERS_AT_FIT)
        if isinstance(fitted, dict):
            params = dict(params)
            for name, group in self._option_groups.items():
                if name in params and name in fitted and (
                    _as_group(params[name], group) == _as_group(fitted[name], group)
                ):
                    params[name] = fitted[name]
        super()._check_describes_fit(params)


def _as_group(value, group: type[OptionGroup]):
    """``value`` as the options it stands for: the group's defaults for None."""
    return group() if value is None else value
