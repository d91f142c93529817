"""The codec: the writer that encodes values by type, and the reader that decodes and checks them.

Values go into the archive's JSON and safetensors members by type (the writer), and come back
decoded and checked against their declared state (the reader)."""

from __future__ import annotations

import dataclasses
import math
import re
import warnings

import numpy as np
import torch

from ..utils.options import PARAMETERS_AT_FIT
from .allow_list import (
    ENUM_CLASSES,
    NESTED_OBJECT_CLASSES,
    RECORD_CLASSES,
    VALUE_CLASSES,
    _registered_class,
    _registered_name,
)
from .archive import (
    DECODED_FLOOR_BYTES,
)
from .compat import OPTION_DEFAULTS
from .declared import check_declared, declaration_of, unfitted, value_problem

TYPE_KEY = "__sktdi_type__"
_ATTRIBUTE_NAME = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*\Z")


_NUMERIC_KINDS = "biuf"  # numpy kinds safetensors stores: bool, int, unsigned, float


def _float_name(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


class _Unsupported(Exception):
    """A value with no encoding, at ``location`` (a path inside a parameter or attribute)."""

    def __init__(self, value, location: str):
        super().__init__(location)
        self.value = value
        self.location = location


class _Writer:
    """Encodes values as JSON; numeric arrays and tensors go to ``arrays`` and ``tensors``
    under unique keys that the JSON refers to. The hooks of :class:`SaveMixin` and the
    ``_saved_value`` of ``VALUE_CLASSES`` use ``encode``, ``encode_attributes``,
    ``store_tensor`` and ``unsupported``."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.tensors: dict[str, torch.Tensor] = {}

    def _key(self, store: dict, key: str) -> str:
        unique, n = key, 1
        while unique in store:  # a dict key holding "/" could repeat a path
            unique, n = f"{key}#{n}", n + 1
        return unique

    def store_tensor(self, key: str, tensor: torch.Tensor) -> str:
        """Store ``tensor`` (a CPU copy) under a unique key derived from ``key``; return it."""
        key = self._key(self.tensors, key)
        # a copy: safetensors refuses tensors that share memory, and CUDA tensors go to the CPU
        self.tensors[key] = tensor.detach().to("cpu", copy=True).contiguous()
        return key

    def unsupported(self, value, key: str) -> Exception:
        """The exception to raise for a ``value`` at ``key`` that the format cannot store;
        ``save`` turns it into an error naming the parameter or attribute."""
        return _Unsupported(value, key)

    def encode_attributes(self, attributes: dict, key: str) -> dict:
        """Each attribute encoded at ``{key}/attributes/{name}``."""
        return {
            name: self.encode(value, f"{key}/attributes/{name}")
            for name, value in attributes.items()
        }

    def encode_object(self, obj, key: str) -> dict:
        """An estimator-like object: its class name, ``get_params()`` and fitted state."""
        cls = type(obj)
        name = _registered_name(NESTED_OBJECT_CLASSES, cls)
        if name is None:
            raise _Unsupported(obj, key)
        params = obj.get_params(deep=False)
        record = {"class": name, "params": {}, "attributes": {}}
        # in name order, not in the order the attributes were set (fit's order, load's order
        # differs: the network last), so that the same model always saves to the same bytes,
        # a loaded and saved again model included. The values keep their own order: a dict
        # attribute (init_report_) loads back in the order it had.
        for param, value in sorted(params.items(), key=_by_name):
            try:
                record["params"][param] = self.encode(value, f"{key}/params/{param}")
            except _Unsupported as exc:
                raise ValueError(_unsupported_message("parameter", param, cls, exc)) from None
        # after the parameters: a value no file can hold is named first, whatever its history
        saved_state = getattr(obj, "_saved_state", None)
        try:
            if saved_state is None:  # a library's object: every fitted attribute, as a value
                state = self.encode_attributes(
                    {n: v for n, v in vars(obj).items() if n not in params}, key
                )
            else:
                obj._check_describes_fit(params)
                state = saved_state(self, key)
        except _Unsupported as exc:
            attribute = exc.location.removeprefix(f"{key}/attributes/").split("/")[0]
            raise ValueError(_unsupported_message("attribute", attribute, cls, exc)) from None
        record["attributes"] = dict(sorted(state.items(), key=_by_name))
        _check_declared_at_save(obj, name)
        return record

    def encode(self, value, key: str):
        """``value`` as JSON; numeric arrays and tensors are stored aside under ``key``."""
        # exact types: subclasses (np.float64 is a float, an IntEnum an int) are encoded as
        # what they are, or refused, not silently turned into their base type
        if value is None or type(value) in (bool, int, str):
            return value
        if isinstance(value, np.generic):
            return self._encode_numpy_scalar(value, key)
        if type(value) is float:
            # JSON has no NaN or infinity; finite floats round-trip exactly (shortest repr)
            if math.isfinite(value):
                return value
            return {TYPE_KEY: "float", "value": _float_name(value)}
        if type(value) is list:
            return [self.encode(item, f"{key}/{i}") for i, item in enumerate(value)]
        if type(value) is tuple:
            return {TYPE_KEY: "tuple", "items": self.encode(list(value), key)}
        if type(value) is dict:
            return self._encode_dict(value, key)
        if type(value) is np.ndarray:
            return self._encode_array(value, key)
        record_name = _registered_name(RECORD_CLASSES, type(value))
        if record_name is not None:
            _check_declared_at_save(value, record_name)
            fields = {
                field.name: self.encode(getattr(value, field.name), f"{key}/{field.name}")
                for field in dataclasses.fields(value)
            }
            return {TYPE_KEY: "record", "class": record_name, "fields": fields}
        enum_name = _registered_name(ENUM_CLASSES, type(value))
        if enum_name is not None:
            return {TYPE_KEY: "enum", "class": enum_name, "name": value.name}
        value_kind = _registered_name(VALUE_CLASSES, type(value))
        if value_kind is not None:
            return {TYPE_KEY: value_kind, **value._saved_value(self, key)}
        if _registered_name(NESTED_OBJECT_CLASSES, type(value)) is not None:
            return {TYPE_KEY: "object", **self.encode_object(value, key)}
        raise _Unsupported(value, key)

    def _encode_numpy_scalar(self, value: np.generic, key: str) -> dict:
        if value.dtype.kind not in _NUMERIC_KINDS + "U":
            raise _Unsupported(value, key)
        item = self.encode(value.item(), key)
        return {TYPE_KEY: "numpy_scalar", "dtype": value.dtype.str, "value": item}

    def _encode_dict(self, value: dict, key: str):
        if all(type(k) is str for k in value) and TYPE_KEY not in value:
            return {k: self.encode(v, f"{key}/{k}") for k, v in value.items()}
        items = [
            [self.encode(k, f"{key}/{i}/key"), self.encode(v, f"{key}/{k}")]
            for i, (k, v) in enumerate(value.items())
        ]
        return {TYPE_KEY: "dict", "items": items}

    def _encode_array(self, array: np.ndarray, key: str) -> dict:
        kind = array.dtype.kind
        shape = list(array.shape)
        if kind in _NUMERIC_KINDS:
            # safetensors stores little-endian native arrays: a big-endian array is converted
            native = array.astype(array.dtype.newbyteorder("="), copy=False)
            store_key = self._key(self.arrays, key)
            self.arrays[store_key] = np.ascontiguousarray(native)
            return {TYPE_KEY: "ndarray", "dtype": native.dtype.str, "shape": shape,
                    "key": store_key}
        if kind in "UO":  # labels, feature names: in the JSON, with the exact dtype
            if kind == "U":
                values = [str(item) for item in array.ravel()]
            else:
                values = [self.encode(item, f"{key}/{i}") for i, item in enumerate(array.ravel())]
            return {TYPE_KEY: "ndarray", "dtype": array.dtype.str, "shape": shape,
                    "values": values}
        raise _Unsupported(array, key)


def _by_name(item: tuple):
    return item[0]


def _check_declared_at_save(obj, name: str) -> None:
    """Refuse to save an object whose class declares no fitted state (loading could not
    check it), or whose state differs from its declaration (the file would be refused)."""
    declaration = declaration_of(type(obj), name)
    if declaration is None:
        raise TypeError(
            f"{type(obj).__name__} cannot be saved in the sktdi format: its class does not "
            f"declare its fitted state (_declared_state), which loading checks a file against"
        )
    problem = check_declared(obj, declaration, _Reader.declared_type, saving=True)
    if problem is not None:
        raise ValueError(f"cannot save {type(obj).__name__}: {problem}")


def _unsupported_message(what: str, name: str, cls: type, exc: _Unsupported) -> str:
    inner = exc.location.split(f"/{name}", 1)[-1].strip("/")
    where = f" (at {inner})" if inner else ""
    # a parameter is the user's choice, and can be set to a storable value; a fitted
    # attribute is what fit made of it, so the only way out is another format
    remedy = "use pickle/joblib, which store any Python object (and run code when loaded)"
    if what == "parameter":
        example = " (an int random_state)" if _is_random_state(exc.value) else ""
        remedy = f"set it to such a value{example}, or {remedy}"
    return (
        f"{what} {name!r} of {cls.__name__} holds a {type(exc.value).__name__}{where}, which "
        f"the sktdi format cannot store (it stores None, booleans, numbers, strings, lists, "
        f"tuples, dicts, numpy arrays, sktdi's TDI records, and the fitted objects of a "
        f"fixed list: sktdi's, a few of scikit-learn's, sktime's MiniRocket transforms): "
        f"{remedy}"
    )


def _is_random_state(value) -> bool:
    return isinstance(value, (np.random.RandomState, np.random.Generator))


class _Reader:
    """Decodes what :class:`_Writer` encoded, taking each stored array and tensor once. The
    hooks of :class:`SaveMixin` and the ``_from_saved_value`` of ``VALUE_CLASSES`` use
    ``decode``, ``restore``, ``take_tensor``, ``load_module_state``, ``available_device`` and
    ``altered``."""

    def __init__(
        self,
        arrays: dict,
        tensors: dict,
        source: str,
        file_size: int = 0,
        option_defaults: int = OPTION_DEFAULTS,
    ):
        self.option_defaults = option_defaults  # what a group saved as None stands for
        self.arrays = dict(arrays)
        self.tensors = dict(tensors)
        self.source = source
        self.device_warned = False
        self.budget = DECODED_FLOOR_BYTES + 4 * file_size  # see charge

    def altered(self, problem: str) -> ValueError:
        """The error to raise for a file whose contents cannot be what sktdi wrote."""
        return ValueError(f"{self.source}: {problem}; the file was altered")

    def _take(self, store: dict, key, what: str):
        if not isinstance(key, str) or key not in store:
            raise ValueError(
                f"{self.source}: the {what} {key!r} that the metadata refers to is missing "
                f"from the tensor files; the file was altered"
            )
        return store.pop(key)

    def take_tensor(self, key):
        """The stored tensor under ``key``, once."""
        return self._take(self.tensors, key, "tensor")

    def check_everything_used(self) -> None:
        left = sorted(self.arrays) + sorted(self.tensors)
        if left:
            raise ValueError(
                f"{self.source}: the tensor files hold entries the metadata does not refer to "
                f"({', '.join(left[:5])}); the file was altered"
            )

    def decode_object(self, record: dict, registry: dict):
        cls = _registered_class(registry, record["class"], "class")
        params = {name: self.decode(value) for name, value in record["params"].items()}
        attributes = record["attributes"]
        for name in attributes:
            if not isinstance(name, str) or not _ATTRIBUTE_NAME.match(name) or name in params:
                raise ValueError(f"{self.source}: invalid attribute name {name!r}")
        from_saved_state = getattr(cls, "_from_saved_state", None)
        if from_saved_state is None:  # a library's object
            obj = self.restore(cls, params, attributes)
        else:
            params = cls._current_params(params, self.option_defaults)
            if isinstance(params.get("device"), str):
                params["device"] = self.available_device(params["device"])
            obj = from_saved_state(self, params, attributes)
        self.check(obj, record["class"])
        return obj

    def restore(self, cls: type, params: dict, attributes: dict):
        """``cls(**params)`` given the decoded ``attributes``: what
        :meth:`SaveMixin._from_saved_state` does by default (:meth:`decode_object` then
        checks the result against the class's declaration and its ``_loaded_problem``)."""
        obj = cls(**params)
        for name, value in attributes.items():
            obj.__dict__[name] = self.decode(value)
        fitted = vars(obj).get(PARAMETERS_AT_FIT)
        if isinstance(fitted, dict) and hasattr(cls, "_current_params"):
            # the record of the fit's parameters, as the parameters themselves are mapped
            obj.__dict__[PARAMETERS_AT_FIT] = cls._current_params(fitted, self.option_defaults)
        return obj

    def check(self, obj, name: str) -> None:
        """Refuse ``obj`` (registered as ``name``) unless its parameters are valid and its
        fitted state fits its class's declaration, then its class's own ``_loaded_problem``:
        before anything reads the state (the compiled scans index with it unchecked)."""
        validate = getattr(obj, "_validate_params", None)
        if validate is not None and hasattr(obj, "_parameter_constraints"):
            try:
                validate()
            except ValueError as exc:  # scikit-learn's InvalidParameterError is one
                raise self.altered(f"invalid parameters of {type(obj).__name__} ({exc})") from None
        declaration = declaration_of(type(obj), name)
        if declaration is None:  # never: save refuses such a class
            raise self.altered(f"{name} declares no fitted state")
        problem = check_declared(obj, declaration, self.declared_type)
        if problem is None and hasattr(obj, "_loaded_problem") and not unfitted(obj):
            problem = obj._loaded_problem()
        if problem is not None:
            raise self.altered(problem)

    @staticmethod
    def declared_type(name: str) -> type:
        """The class a declaration names (a name of the allow-list)."""
        for registry in (NESTED_OBJECT_CLASSES, RECORD_CLASSES, VALUE_CLASSES):
            if name in registry:
                return _registered_class(registry, name, "class")
        raise ValueError(f"a declaration names {name!r}, which is not in the allow-list")

    def charge(self, n_bytes: int, what: str) -> None:
        """Count ``n_bytes`` that decoding ``what`` allocates beyond the file's own bytes
        against the file's budget: a few bytes of JSON may not declare gigabytes."""
        self.budget -= n_bytes
        if self.budget < 0:
            raise self.altered(
                f"{what} would take {n_bytes} bytes, far more than the file's size allows"
            )

    def decode(self, value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [self.decode(item) for item in value]
        if not isinstance(value, dict):
            raise TypeError(f"unexpected JSON value {value!r}")
        kind = value.get(TYPE_KEY)
        if kind is None:
            return {name: self.decode(item) for name, item in value.items()}
        if kind in VALUE_CLASSES:
            # its sizes against its saved tensors, before it allocates anything
            problem = value_problem(kind, value, self.tensors)
            if problem is not None:
                raise self.altered(problem)
            return _registered_class(VALUE_CLASSES, kind, "value type")._from_saved_value(
                self, value
            )
        decoder = {
            "float": self._decode_float,
            "tuple": lambda v: tuple(self.decode(v["items"])),
            "dict": lambda v: {self.decode(k): self.decode(item) for k, item in v["items"]},
            "numpy_scalar": self._decode_numpy_scalar,
            "ndarray": self._decode_array,
            "record": self._decode_record,
            "enum": lambda v: _registered_class(ENUM_CLASSES, v["class"], "enum")[v["name"]],
            "object": lambda v: self.decode_object(v, NESTED_OBJECT_CLASSES),
        }.get(kind)
        if decoder is None:
            raise ValueError(f"{self.source}: unknown value type {kind!r} in the metadata")
        return decoder(value)

    def _decode_float(self, value: dict) -> float:
        name = value["value"]
        if name not in ("nan", "inf", "-inf"):
            raise ValueError(f"{self.source}: invalid float {name!r}")
        return float(name)

    def _decode_numpy_scalar(self, value: dict):
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in _NUMERIC_KINDS + "U":
            raise ValueError(f"{self.source}: a numpy scalar of dtype {dtype} is not allowed")
        return dtype.type(self.decode(value["value"]))

    def _decode_array(self, value: dict) -> np.ndarray:
        dtype = np.dtype(value["dtype"])
        shape = tuple(int(n) for n in value["shape"])
        if dtype.kind in _NUMERIC_KINDS:
            array = self._take(self.arrays, value["key"], "array")
            if array.dtype != dtype or array.shape != shape:
                raise ValueError(
                    f"{self.source}: the array {value['key']!r} is {array.dtype} {array.shape}, "
                    f"the metadata says {dtype} {shape}; the file was altered"
                )
            return array
        if dtype.kind in "UO":
            values = value["values"]
            if not isinstance(values, list) or math.prod(shape) != len(values):
                raise self.altered(f"a {dtype} array of shape {shape} holds {len(values)} items")
            # its dtype declares a width per item: count it before numpy allocates it
            self.charge(dtype.itemsize * len(values), f"a string array of dtype {dtype}")
        if dtype.kind == "U":
            if not all(type(item) is str for item in values):
                raise ValueError(f"{self.source}: a string array holds non-strings")
            return np.array(values, dtype=dtype).reshape(shape)
        if dtype.kind == "O":
            items = [self.decode(item) for item in values]
            array = np.empty(len(items), dtype=object)
            for i, item in enumerate(items):  # one by one: lists would be broadcast
                array[i] = item
            return array.reshape(shape)
        raise ValueError(f"{self.source}: an array of dtype {dtype} is not allowed")

    def _decode_record(self, value: dict):
        cls = _registered_class(RECORD_CLASSES, value["class"], "record class")
        record = cls(**{name: self.decode(item) for name, item in value["fields"].items()})
        self.check(record, value["class"])
        return record

    def load_module_state(self, module, keys: dict) -> None:
        """Give ``module`` the saved tensors (``keys``: state name -> tensor key), checking
        that they are exactly its parameters and buffers, with its shapes and dtypes
        (load_state_dict would cast a float64 tensor into a float32 parameter silently)."""
        expected = module.state_dict()
        if set(keys) != set(expected):
            missing = sorted(set(expected) - set(keys))
            unexpected = sorted(set(keys) - set(expected))
            raise ValueError(
                f"{self.source}: the saved tensors do not fit the network (missing "
                f"{missing[:5]}, unexpected {unexpected[:5]}); the file was altered"
            )
        state = {}
        for name, key in keys.items():
            tensor = self.take_tensor(key)
            reference = expected[name]
            if tensor.shape != reference.shape or tensor.dtype != reference.dtype:
                raise ValueError(
                    f"{self.source}: the saved tensor {name!r} is {tensor.dtype} "
                    f"{tuple(tensor.shape)}, the network's is {reference.dtype} "
                    f"{tuple(reference.shape)}; the file was altered"
                )
            state[name] = tensor
        module.load_state_dict(state, strict=True)

    def available_device(self, device: str) -> str:
        """``device`` if this machine has it, else "cpu" (with one warning per load)."""
        if device == "auto":
            return device  # resolved on this machine at each use
        from ..utils.devices import resolve_device

        try:
            resolved = resolve_device(device)
            if resolved.startswith("cuda:"):
                index = int(resolved.split(":", 1)[1])
                if index >= torch.cuda.device_count():
                    raise ValueError(f"no CUDA device {index} here")
        except ValueError:
            if not self.device_warned:
                warnings.warn(
                    f"{self.source} was saved with device={device!r}, which is not available "
                    f"here; it is loaded with device='cpu' (set_params(device=...) to change)",
                    UserWarning,
                    stacklevel=5,
                )
                self.device_warned = True
            return "cpu"
        return device
