"""Compatibility of old files: their parameters across sktdi's eras, brought to today's.

Files written by an older sktdi name parameters of their era; this module maps them, and
keeps the record that a saved model's parameters still describe its fit."""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
from sklearn.base import BaseEstimator

from ..utils.options import PARAMETERS_AT_FIT

# which defaults an option group saved as None stands for: 1, TDIOptions' until issue 35
# (coverage "tiled", spread 0.25; files without the key); 2, until coverage "auto" (coverage
# "base" for every model); 3, today's (TDIOptions._defaults_of_era holds the earlier ones)
OPTION_DEFAULTS = 3


def remember_fit_parameters(estimator) -> None:
    """Record ``estimator``'s parameters as its ``fit`` uses them, for the check at save that
    they still describe the fitted model (``set_params`` after ``fit`` changes the
    parameters, not the fitted filter bank or ridge head, and a file saved with the new ones
    would name a model it does not hold: ``n_filters=64`` beside a bank of 128 filters).

    Parameters named in the class's ``_free_after_fit`` may change after ``fit`` and are not
    recorded: ``batch_size``, a memory setting no fitted value depends on, and
    ``random_state``, which only drew the fitted values (nothing reads it after ``fit``,
    and a ``RandomState`` one, which no file can hold, is set to an int before saving, as
    the deep models allow too).
    Parameter objects (``tdi``'s TaskSpectrum, array ``alphas``) are kept as they are and
    compared by value at save (:func:`_same_value`): by identity, a loaded model, whose
    parameter and record decode to two equal objects, could not be saved again. An option
    group (``tdi``) is recorded as a copy: ``set_params(tdi__spread=...)`` changes the
    estimator's own in place.
    """
    free = getattr(type(estimator), "_free_after_fit", ())
    setattr(estimator, PARAMETERS_AT_FIT, {
        name: copy.copy(value) if isinstance(value, BaseEstimator) else value
        for name, value in estimator.get_params(deep=False).items()
        if name not in free
    })


def current_params(cls: type, params: dict, option_defaults: int = OPTION_DEFAULTS) -> dict:
    """A file's parameters (decoded) as ``cls`` takes them now, by the class's tables (see
    :class:`SaveMixin`): a parameter added since the file was written takes the value the
    file's model had (``_value_before_parameter_existed``); parameters that moved into an
    option group (``_parameters_moved``, ``"tdi_spread": "tdi__spread"``) become the group,
    or None where each is the group's default; removed ones (``_parameters_removed``), whose
    effect the fitted state carries, are dropped. A group saved as None by a file of earlier
    defaults (``option_defaults`` below :data:`OPTION_DEFAULTS`) becomes the group with the
    defaults it was fitted with (its ``_defaults_of_era``).

    Examples
    --------
    >>> from sktdi import SSMClassifier
    >>> old = {"tdi_spread": 0.75, "tdi_max_peaks": 8, "augment": "none", "prenorm": False}
    >>> params = current_params(SSMClassifier, old)
    >>> params["tdi"], params["training"], params["network"], "prenorm" in params
    (TDIOptions(coverage='tiled', spread=0.75), None, 's4d', False)
    """
    params = dict(params)
    for name, value in cls._value_before_parameter_existed.items():
        params.setdefault(name, value)
    moved: dict[str, dict] = {}
    for old, new in cls._parameters_moved.items():
        if old in params:
            group, field = new.split("__", 1)
            moved.setdefault(group, {})[field] = params.pop(old)
    for group, fields in moved.items():
        if params.get(group) is not None:
            raise ValueError(
                f"the parameters hold both {group} and the parameters it replaced "
                f"({', '.join(sorted(fields))})"
            )
        options = cls._option_groups[group]
        defaults = options().get_params(deep=False)
        # a field the file's parameters lacked took that era's default (only the ridge models
        # had fewer tdi_* parameters than fields), not today's
        fields = {**_defaults_of_era(options, 1), **fields}
        changed = {
            field: value for field, value in fields.items()
            if not _same_value(value, defaults[field])
        }
        params[group] = options(**changed) if changed else None
    if option_defaults < OPTION_DEFAULTS:
        for group, options in getattr(cls, "_option_groups", {}).items():
            before = _defaults_of_era(options, option_defaults)
            if group in params and params[group] is None and before:
                params[group] = options(**before)
    for name in cls._parameters_removed:
        params.pop(name, None)
    return params


def _defaults_of_era(options: type, era: int) -> dict:
    """The fields of option group ``options`` whose defaults a file of ``era`` (its
    ``option_defaults``) was fitted with and today's differ from ({} for today's era)."""
    return dict(getattr(options, "_defaults_of_era", {}).get(era, {}))


def changed_since_fit_error(
    owner, changed, now: dict, fitted: dict, what: str, why: str
) -> ValueError:
    """The refusal to save ``owner`` whose parameters ``changed`` (in ``now``, their values now;
    ``fitted``, at fit where known) no longer describe ``what`` was fitted: the deep models'
    and the filter bank models' one message."""
    described = "; ".join(
        f"{name}={now[name]!r} now, {fitted[name]!r} at fit"
        if name in fitted
        else f"{name}={now[name]!r}"
        for name in changed
    )
    back = ", ".join(f"{name}={fitted[name]!r}" for name in changed if name in fitted)
    advice = f"refit, or set them back (set_params({back}))" if back else "refit"
    return ValueError(
        f"the parameters of {type(owner).__name__} no longer match {what} (changed since "
        f"fit: {described}), and {why}; {advice}, before saving"
    )


def _check_parameters_as_fitted(obj, params: dict) -> None:
    """Refuse to save a filter bank model (the transformer, the ridge models) whose
    parameters changed since ``fit`` (:func:`remember_fit_parameters`): the file would
    describe another model than the one it holds (``rocket='minirocket'`` beside no
    MiniRocket). A model without the record (the deep models, which check their network
    instead; a file written before the record existed) is not checked."""
    fitted = vars(obj).get(PARAMETERS_AT_FIT)
    if not isinstance(fitted, dict):
        return
    changed = sorted(
        name for name, value in fitted.items()
        if name in params and not _same_value(params[name], value)
    )
    if changed:
        raise changed_since_fit_error(
            obj,
            changed,
            {name: params[name] for name in changed},
            fitted,
            "its fitted model",
            "a file saved with them would describe another model than the one it holds",
        )


def _same_value(a, b) -> bool:
    """Whether two parameter values are equal, all the way down: numpy arrays by dtype, shape
    and values (NaN equal to NaN), dataclasses (a TaskSpectrum) field by field, option groups
    (a TDIOptions) parameter by parameter, containers item by item; ``==`` would be ambiguous
    for arrays."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if type(a) is not type(b):
        numbers = (int, float, np.integer, np.floating)
        both_numbers = all(
            isinstance(v, numbers) and not isinstance(v, (bool, np.bool_)) for v in (a, b)
        )
        return both_numbers and bool(a == b)
    if dataclasses.is_dataclass(a):
        return all(
            _same_value(getattr(a, field.name), getattr(b, field.name))
            for field in dataclasses.fields(a)
        )
    if isinstance(a, BaseEstimator):
        return _same_value(a.get_params(deep=False), b.get_params(deep=False))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
