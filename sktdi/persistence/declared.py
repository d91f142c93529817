"""Declared fitted state: each saved class's fitted attributes, and a loaded object's check.

What each saved class's fitted attributes are, and the check of a loaded object against it
(:mod:`sktdi.persistence` runs it on every object it rebuilds).

A loaded file is untrusted: its arrays go to compiled code (the filter bank's numba scans,
MiniRocket's transform) that indexes them without bounds checks, so an array of the wrong
shape reads or writes outside memory instead of raising. Each class therefore declares its
fitted attributes, with dtypes and shapes in terms of its parameters and of each other, as a
class attribute ``_declared_state`` next to the class (library classes, which sktdi cannot
annotate, are declared in :data:`LIBRARY_DECLARATIONS` below); a class with no declaration
cannot be saved, and a loaded object whose state differs from its declaration is refused
before anything uses it.

A declaration maps each attribute name to a spec, a small language read by :func:`parse`:

- ``"int"``, ``"float"``, ``"bool"``, ``"str"``: a scalar of that kind (numpy scalars
  included; an ``int`` is ≥ 0, and its value names a dimension other specs can use);
- ``"data"``: any value the codec decodes (dicts, lists, records: typed by the codec, and
  never indexed by compiled code);
- ``"float64[n_channels_, n_filters, n_biases]"``: an array of that dtype (``float`` is any
  float type, ``labels`` any 1-D label dtype) and shape; a dimension is an integer, ``*``
  (any), or a name: a parameter, an ``int`` attribute, a dimension the class derives
  (``_declared_dims``), or, at its first use, bound to the size found there (so that later
  uses must agree);
- ``"sklearn.preprocessing.StandardScaler(n_features_in_=n_features)"``: an object of that
  registered class (itself checked against its own declaration when it was decoded), whose
  named int attributes equal the dimensions given; ``"net"``: a skorch network, checked by
  :mod:`sktdi.deep_model.saved_net` against the network the parameters build;
- ``"None"``, and alternatives joined by ``|``; a trailing ``?`` marks an attribute that
  may be absent.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from numbers import Integral, Real

import numpy as np

# dtype names of array specs -> accepted numpy dtypes (None: any of the kinds)
_ARRAY_DTYPES = {
    "float64": ("f", 8), "float32": ("f", 4), "int64": ("i", 8), "int32": ("i", 4),
    "float": ("f", None), "labels": ("biufUO", None), "str": ("U", None),
}
_SCALARS = ("int", "float", "bool", "str", "data", "None", "net")
_ALTERNATIVE = re.compile(
    r"\s*(?P<name>[A-Za-z_][A-Za-z0-9_.]*)\s*"
    r"(?:\[(?P<dims>[^\]]*)\]|\((?P<attrs>[^)]*)\))?\s*\Z"
)


class Spec:
    """A parsed spec: its alternatives, each (kind, name, dims or attribute constraints)."""

    def __init__(self, text: str):
        self.text = text
        self.optional = text.rstrip().endswith("?")
        body = text.rstrip().removesuffix("?")
        self.alternatives = []
        for part in body.split("|"):
            match = _ALTERNATIVE.match(part)
            if match is None:
                raise ValueError(f"invalid declared spec {text!r}")
            name, dims, attrs = match.group("name", "dims", "attrs")
            if dims is not None:
                if name not in _ARRAY_DTYPES:
                    raise ValueError(f"unknown array dtype {name!r} in spec {text!r}")
                self.alternatives.append(("array", name, [d.strip() for d in dims.split(",")]))
            elif name in _SCALARS:
                self.alternatives.append(("scalar", name, None))
            else:
                constraints = {}
                for item in filter(None, (a.strip() for a in (attrs or "").split(","))):
                    attribute, dim = (s.strip() for s in item.split("="))
                    constraints[attribute] = dim
                self.alternatives.append(("object", name, constraints))

    @property
    def scalar_only(self) -> bool:
        return all(kind == "scalar" for kind, _, _ in self.alternatives)


@functools.lru_cache(maxsize=None)
def parse(text: str) -> Spec:
    """The spec of ``text`` (parsed once per distinct text)."""
    return Spec(text)


class _Problem(Exception):
    """A value that does not fit its declaration: the message says how."""


def _is_int(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _scalar_fits(name: str, value) -> bool:
    if name == "None":
        return value is None
    if name == "int":
        return _is_int(value) and value >= 0
    if name == "float":
        return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))
    if name == "bool":
        return isinstance(value, (bool, np.bool_))
    if name == "str":
        return isinstance(value, str)
    if name == "net":
        return hasattr(value, "module_")  # a skorch net; its tensors are checked on load
    return True  # "data": typed by the codec


def _bind(dims: dict, name: str, size: int, where: str) -> None:
    """Unify the dimension ``name`` with ``size``: bind it at first use, else compare."""
    if name == "*":
        return
    if re.fullmatch(r"\d+", name):
        expected = int(name)
    elif name in dims:
        expected = dims[name]
    else:
        dims[name] = size
        return
    if expected != size:
        raise _Problem(f"{where} has {size} where {name} is {expected}")


def _array_fits(dtype_name: str, dims: list, value, env: dict, where: str) -> bool:
    if type(value) is not np.ndarray:
        return False
    kinds, itemsize = _ARRAY_DTYPES[dtype_name]
    if value.dtype.kind not in kinds or (itemsize is not None and value.dtype.itemsize != itemsize):
        return False
    if value.ndim != len(dims):
        return False
    trial = dict(env)  # bind on a copy: a failed alternative must bind nothing
    for axis, (name, size) in enumerate(zip(dims, value.shape)):
        _bind(trial, name, size, f"{where} (axis {axis} of shape {value.shape})")
    env.update(trial)
    return True


def _describe(value) -> str:
    if type(value) is np.ndarray:
        return f"a {value.dtype} array of shape {value.shape}"
    return f"a {type(value).__name__}"


def declaration_of(cls: type, registry_name: str | None = None) -> dict | None:
    """The declared fitted state of ``cls`` (its ``_declared_state``, or the library table's
    entry under ``registry_name``), or None when it has none."""
    own = cls.__dict__.get("_declared_state")
    if own is None:
        for base in cls.__mro__[1:]:  # declared on a shared base (the SSM models)
            own = base.__dict__.get("_declared_state")
            if own is not None:
                break
    if own is not None:
        extra = {}
        for base in reversed(cls.__mro__):  # a subclass adds its own attributes
            extra.update(base.__dict__.get("_declared_state_extra", {}))
        return {**own, **extra}
    return LIBRARY_DECLARATIONS.get(registry_name)


def unfitted(obj) -> bool:
    """Whether ``obj`` is an estimator-like object with no fitted attribute (an estimator
    given as a parameter), which has no state to check."""
    if not hasattr(obj, "get_params"):
        return False
    params = obj.get_params(deep=False)
    return not any(name not in params for name in vars(obj))


def check_declared(obj, declaration: dict, type_of, *, saving: bool = False) -> str | None:
    """Why ``obj``'s fitted state does not fit ``declaration``, or None.

    Parameters
    ----------
    obj : object
        An estimator-like object (``get_params``) or a record (a dataclass), decoded.
    declaration : dict
        Attribute name -> spec (see the module's docstring).
    type_of : callable
        ``type_of(registry_name) -> type``: the class an object spec names.
    saving : bool, default=False
        Leave out the attributes the class does not save (``_not_saved``: caches); in a
        loaded file they are undeclared like any other.

    Notes
    -----
    An estimator-like object with no fitted attribute at all is an unfitted one (an
    estimator given as a parameter) and fits any declaration.
    """
    if hasattr(obj, "get_params"):
        params = obj.get_params(deep=False)
        skipped = getattr(type(obj), "_not_saved", ()) if saving else ()
        state = {
            name: value for name, value in vars(obj).items()
            if name not in params and name not in skipped
        }
        if not state:
            return None
        env = {name: int(v) for name, v in params.items() if _is_int(v) and v >= 0}
    else:  # a record (a dataclass): its fields, which its constructor checked by name
        state = {field.name: getattr(obj, field.name) for field in dataclasses.fields(obj)}
        # a field the declaration leaves out is data, typed by the codec: the records are
        # TDI's reports, which their module extends, and only their arrays need shapes
        declaration = {**{name: "data?" for name in state}, **declaration}
        env = {}
    undeclared = sorted(set(state) - set(declaration))
    if undeclared:
        return f"{type(obj).__name__} holds undeclared attributes {undeclared[:5]}"
    specs = {name: parse(text) for name, text in declaration.items()}
    missing = sorted(
        name for name, spec in specs.items() if name not in state and not spec.optional
    )
    if missing:
        return f"{type(obj).__name__} lacks its fitted attributes {missing[:5]}"
    try:
        # scalars first (their ints are dimensions), then the objects' types, then what the
        # class derives from them, then the arrays and the objects' dimensions
        for name, spec in specs.items():
            if name in state and spec.scalar_only:
                value = state[name]
                if not any(_scalar_fits(n, value) for _, n, _ in spec.alternatives):
                    raise _Problem(f"{name} is {_describe(value)}, declared {spec.text}")
                if _is_int(value) and value >= 0:
                    _bind(env, name, int(value), name)
        for name, spec in specs.items():
            if name in state and not spec.scalar_only:
                _check_types(name, spec, state[name], type_of)
        derive = getattr(obj, "_declared_dims", None)
        if derive is not None:
            try:
                derived = derive()
            except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
                raise _Problem(f"its fitted state does not fit together ({exc})") from None
            for dim, size in derived.items():
                _bind(env, dim, int(size), f"{type(obj).__name__}'s {dim}")
        for name, spec in specs.items():
            if name in state and not spec.scalar_only:
                _check_value(name, spec, state[name], env, type_of)
    except _Problem as problem:
        return f"{type(obj).__name__}'s {problem}"
    return None


def _check_types(name: str, spec: Spec, value, type_of) -> None:
    for kind, alt, _ in spec.alternatives:
        if kind == "scalar" and _scalar_fits(alt, value):
            return
        if kind == "array" and type(value) is np.ndarray:
            return
        if kind == "object" and type(value) is type_of(alt):
            return
    raise _Problem(f"{name} is {_describe(value)}, declared {spec.text}")


def _check_value(name: str, spec: Spec, value, env: dict, type_of) -> None:
    reasons = []
    for kind, alt, detail in spec.alternatives:
        try:
            if kind == "scalar" and _scalar_fits(alt, value):
                return
            if kind == "array" and _array_fits(alt, detail, value, env, name):
                return
            if kind == "object" and type(value) is type_of(alt):
                if unfitted(value):  # a fitted attribute is fitted (a parameter need not be)
                    raise _Problem(f"{name} is an unfitted {type(value).__name__}")
                trial = dict(env)
                for attribute, dim in detail.items():
                    size = vars(value).get(attribute)
                    if not _is_int(size):
                        raise _Problem(f"{name}.{attribute} is {_describe(size)}, not an int")
                    _bind(trial, dim, int(size), f"{name}.{attribute}")
                env.update(trial)
                return
        except _Problem as problem:
            reasons.append(str(problem))
    detail = f" ({reasons[0]})" if reasons else ""
    raise _Problem(f"{name} is {_describe(value)}, declared {spec.text}{detail}")


# The library classes a fitted sktdi model holds, declared here since sktdi cannot annotate
# them: scikit-learn's encoder, scaler and ridge heads, sktime's MiniRocket (whose
# ``parameters`` the ridge models check further: sktdi.fast_path.rocket._minirocket_problem),
# and the TDI records, keyed by their names in sktdi.persistence's allow-list.
_SKTIME_BASE_STATE = {
    "_is_fitted": "bool", "_is_vectorized": "bool", "_tags_dynamic": "data",
    "_config_dynamic": "data", "_converter_store_X": "data?",
}
LIBRARY_DECLARATIONS = {
    "sklearn.preprocessing.LabelEncoder": {"classes_": "labels[n_classes]"},
    "sklearn.preprocessing.LabelBinarizer": {
        "classes_": "labels[n_classes]", "y_type_": "str", "sparse_input_": "bool",
    },
    "sklearn.preprocessing.StandardScaler": {
        "n_features_in_": "int",
        "n_samples_seen_": "int | float | int64[n_features_in_]",
        "mean_": "float64[n_features_in_] | None",
        "var_": "float64[n_features_in_] | None",
        "scale_": "float64[n_features_in_] | None",
    },
    "sklearn.linear_model.RidgeClassifierCV": {
        "n_features_in_": "int",
        "_label_binarizer": "sklearn.preprocessing.LabelBinarizer",
        # set by its __init__ beside its parameters (fit reads them, predict does not)
        "gcv_mode": "str | None?", "alpha_per_target": "bool?",
        "classes_": "labels[n_classes]",
        "coef_": "float[n_features_in_] | float[*, n_features_in_]",
        "intercept_": "float[*] | float",
        "alpha_": "float | float[*]",
        "best_score_": "float | float[*]",
    },
    "sklearn.linear_model.RidgeCV": {
        "n_features_in_": "int",
        "coef_": "float[n_features_in_] | float[*, n_features_in_]",
        "intercept_": "float[*] | float",
        "alpha_": "float | float[*]",
        "best_score_": "float | float[*]",
    },
    "sktime.MiniRocketMultivariate": {
        **_SKTIME_BASE_STATE, "num_kernels_": "int", "random_state_": "int | None?",
        "parameters": "data",
    },
    "sktime.MiniRocket": {
        **_SKTIME_BASE_STATE, "num_kernels_": "int", "random_state_": "int | None?",
        "parameters": "data",
    },
    # for series of unequal length: also the length its dilations were fitted for
    "sktime.MiniRocketMultivariateVariable": {
        **_SKTIME_BASE_STATE, "num_kernels_": "int", "random_state_": "int | None?",
        "parameters": "data", "_fitted_reference_length": "int", "_reference_modes": "data",
    },
    "sktdi.tdi.TaskSpectrum": {
        "freqs": "float64[n_freqs]", "values": "float64[n_freqs]",
        "channel_values": "float64[*, n_freqs] | None",
    },
    # TDI's reports: scalars, lists and dicts only (a record's undeclared fields are data)
    "sktdi.tdi.TDIReport": {},
    "sktdi.tdi.SpectralPeak": {},
    # option groups: parameters only, no fitted state
    "sktdi.tdi.TDIOptions": {},
    "sktdi.TrainingOptions": {},
}


def saved_numel(keys, tensors: dict) -> int:
    """The elements of the saved tensors ``keys`` (state name -> tensor key) refers to."""
    if not isinstance(keys, dict):
        return 0
    return sum(
        tensors[key].numel() for key in keys.values() if isinstance(key, str) and key in tensors
    )


def _s4d_layer_problem(record: dict, tensors: dict) -> str | None:
    """An S4D layer's record: its sizes must be ints that its saved tensors could hold (B
    alone has d_model × d_state elements), before the layer is built from them."""
    sizes = {name: record.get(name) for name in ("d_model", "d_state")}
    for name, size in sizes.items():
        if not _is_int(size) or size < 1:
            return f"the filter bank's {name} is {size!r}, not a positive int"
    numel = saved_numel(record.get("state"), tensors)
    if sizes["d_model"] * sizes["d_state"] > 2 * numel:
        return (
            f"the filter bank's d_model={sizes['d_model']} and d_state={sizes['d_state']} do "
            f"not fit its {numel} saved values"
        )
    return None


# the records of VALUE_CLASSES checked before they are built (sizes they allocate)
_VALUE_CHECKS = {"s4d_layer": _s4d_layer_problem}


def value_problem(kind: str, record: dict, tensors: dict) -> str | None:
    """Why the record of a value class (``kind``, a tag of the allow-list's VALUE_CLASSES)
    cannot be built within the file's size, or None; ``tensors`` are the file's, unused."""
    return _VALUE_CHECKS[kind](record, tensors)


def network_size_problem(sizes: dict, saved_numel: int) -> str | None:
    """Why a network of these ``sizes`` (its parameters and module arguments, as a file gives
    them) cannot be the one whose ``saved_numel`` weights the file holds, or None: checked
    before the network is built, which allocates by them. Every layer holds at least its
    filters' d_model/4 × d_state values of B and C, every member every layer, and the head
    d_model × n_outputs, so a genuine network's sizes are bounded by its saved values."""
    for name, size in sizes.items():
        if not _is_int(size) or size < 1:
            return f"the network's {name} is {size!r}, not a positive int"
    bound = 4 * saved_numel + 1024
    products = {
        "d_model × d_state × n_layers × n_estimators": (
            sizes["d_model"] * sizes["d_state"] * sizes["n_layers"] * sizes["n_estimators"]
        ),
        "d_model × n_channels": sizes["d_model"] * sizes["n_channels"],
        "d_model × n_outputs": sizes["d_model"] * sizes["n_outputs"],
    }
    for what, size in products.items():
        if size > bound:
            named = ", ".join(f"{n}={v}" for n, v in sizes.items())
            return (
                f"the network's sizes ({named}) do not fit its {saved_numel} saved weights "
                f"({what})"
            )
    return None


def input_dims(estimator) -> dict:
    """The sizes of a sequence estimator's input record (sktdi.utils.validation): fitted on 2-D
    X (one channel), ``n_features_in_`` is the series' length; on 3-D X, its channel count."""
    ndim = estimator._input_ndim
    if ndim not in (2, 3):
        raise ValueError(f"_input_ndim is {ndim!r}, not 2 or 3")
    if ndim == 2:
        return {"n_channels_": 1, "n_features_in_": estimator.n_timepoints_}
    return {"n_features_in_": estimator.n_channels_}
