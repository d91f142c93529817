"""Saving fitted estimators as one safe archive, and loading them back: not a pickle.

A pickle (or joblib) file can run any code when it is loaded, so it is only safe from a
trusted source. ``est.save(path)`` writes a zip archive (suffix ``.sktdi`` recommended) that
holds data only, and :func:`load` reads it back without running code from the file:

- ``metadata.json``: the format name and version, the sktdi, torch and numpy versions that
  wrote it, the estimator's class (a name from a fixed list of sktdi classes), its
  ``get_params()`` and its fitted attributes as JSON, a SHA-256 and size of the other members;
- ``arrays.safetensors``: the numeric numpy arrays of the parameters and fitted attributes;
- ``tensors.safetensors``: the torch tensors (the network's weights and optimizer state, or a
  filter bank's parameters), saved from the CPU.

Values are encoded by type, from a closed list: JSON scalars, lists and dicts as they are;
tuples, non-string dict keys, non-finite floats, numpy scalars, numpy arrays (numeric ones in
``arrays.safetensors``, string and object ones in the JSON with their dtype), and the classes
of a fixed allow-list (``SAVED_CLASSES``) tagged by the key ``"__sktdi_type__"``: sktdi's
estimators and option groups, its TDI records (:class:`~sktdi.tdi.TaskSpectrum`,
:class:`~sktdi.tdi.TDIReport`, :class:`~sktdi.tdi.SpectralPeak`), an S4D filter bank, and the
library objects a fitted model holds (a LabelEncoder, the ridge models' scaler, ridge head and
sktime MiniRocket transformer, sktime's dtype kinds). Any other value cannot be saved:
``save`` names it, and pickle remains the way to store arbitrary Python objects. The record of
each object's parameters and attributes is written in name order, so that the same model
always saves to the same bytes, a loaded one saved again included.

This module is the container: the zip, the checksums, the versions, the value encoding and the
allow-list, whose classes are named as ``"module:Class"`` strings and imported only when a file
holds one (so importing it imports no estimator). Each sktdi class owns its saved state through
the hooks of :class:`SaveMixin` (an S4D layer through ``_saved_value``/``_from_saved_value``):
what its fitted state is in the file, how it is rebuilt, what makes a file of it inconsistent,
and how the parameters of a file written by an older sktdi map to its parameters now. Each
class also declares its fitted attributes' dtypes and shapes (``_declared_state``, checked by
:mod:`sktdi.persistence.declared`): every object rebuilt from a file is checked against its
declaration before anything uses it, since compiled code indexes its arrays unchecked. Reading is
bounded by the file's size: the data members must be stored uncompressed, and the metadata is
inflated against a cap derived from the file's size (:func:`metadata_cap`). A deep model's network,
for one, is rebuilt on load the way ``fit`` builds it, from the estimator's parameters, and given
the saved weights, optimizer state and history (:mod:`sktdi.deep_model.saved_net`). The saved
parameters must describe the fitted model: a parameter changed by ``set_params`` since ``fit`` is
refused (for the deep models, those their network is built from; for the filter bank models, every
parameter but the memory setting
``batch_size`` and the seed).

The sktime adapters write the archive inside sktime's own layout (a zip of ``_metadata``, the
class pickled by reference, and ``_obj``, here the archive), so that ``sktime.base.load``
reads their files too; :func:`load` reads only ``_obj``. A file of sktime's own pickle formats
(``save(path, serialization_format="pickle")``) is refused, naming ``sktime.base.load``.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import importlib
import io
import json
import math
import os
import re
import struct
import sys
import tempfile
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..utils.options import PARAMETERS_AT_FIT
from .declared import check_declared, declaration_of, unfitted, value_problem

FORMAT_NAME = "sktdi-estimator"
FORMAT_VERSION = 1  # raise on any change that an older sktdi could not read
# which defaults an option group saved as None stands for: 1, TDIOptions' until issue 35
# (coverage "tiled", spread 0.25; files without the key); 2, until coverage "auto" (coverage
# "base" for every model); 3, today's (TDIOptions._defaults_of_era holds the earlier ones)
OPTION_DEFAULTS = 3

METADATA_MEMBER = "metadata.json"
ARRAYS_MEMBER = "arrays.safetensors"
TENSORS_MEMBER = "tensors.safetensors"
DATA_MEMBERS = (ARRAYS_MEMBER, TENSORS_MEMBER)
# Bounded reading: the data members are stored uncompressed (so reading one takes at most the
# file's own bytes), and the metadata, the one compressed member, is inflated against a cap
# derived from the file's size (JSON compresses about tenfold; a deflate bomb a thousandfold),
# within an absolute one: so a small file never allocates far beyond its size
MAX_METADATA_BYTES = 64 * 2**20
METADATA_FLOOR_BYTES = 2**20  # what any file's metadata may inflate to
METADATA_PER_FILE_BYTE = 16  # and beyond that, this many bytes per byte of the file
# what a file's JSON may decode into beyond its own size: string and object arrays (whose
# dtype declares a width per item) count against it
DECODED_FLOOR_BYTES = 16 * 2**20

TYPE_KEY = "__sktdi_type__"

# The allow-list: every class a file may name, as "module:Class", imported only when a file
# names it (never when this module is imported: the estimators import it). The file chooses
# among these names and never supplies a module path, so loading cannot import or run code
# the file asks for. The top-level estimator must be one of ESTIMATOR_CLASSES.
ESTIMATOR_CLASSES = {
    "sktdi.SSMClassifier": "sktdi.deep_model.estimators:SSMClassifier",
    "sktdi.SSMRegressor": "sktdi.deep_model.estimators:SSMRegressor",
    "sktdi.SpectralAlignmentTransformer": (
        "sktdi.fast_path.transformers:SpectralAlignmentTransformer"
    ),
    "sktdi.sktime.SktimeSSMClassifier": "sktdi.sktime:SktimeSSMClassifier",
    "sktdi.sktime.SktimeSSMRegressor": "sktdi.sktime:SktimeSSMRegressor",
    "sktdi.sktime.SktimeSpectralRidgeClassifier": "sktdi.sktime:SktimeSpectralRidgeClassifier",
    "sktdi.sktime.SktimeSpectralRidgeRegressor": "sktdi.sktime:SktimeSpectralRidgeRegressor",
    "sktdi.sktime.SktimeSSMEarlyClassifier": "sktdi.sktime:SktimeSSMEarlyClassifier",
    "sktdi.SpectralRidgeClassifier": "sktdi.fast_path.ridge:SpectralRidgeClassifier",
    "sktdi.SpectralRidgeRegressor": "sktdi.fast_path.ridge:SpectralRidgeRegressor",
}
# objects inside a fitted estimator or among its parameters: ``get_params()`` and fitted
# attributes, rebuilt by the class's _from_saved_state hook, else as class(**params) given the
# attributes
NESTED_OBJECT_CLASSES = {
    **ESTIMATOR_CLASSES,
    "sktdi.tdi.TDIOptions": "sktdi.tdi.options:TDIOptions",
    "sktdi.TrainingOptions": "sktdi.deep_model.training:TrainingOptions",
    "sklearn.preprocessing.LabelEncoder": "sklearn.preprocessing:LabelEncoder",
    # the ridge models' scaler and head
    "sklearn.preprocessing.StandardScaler": "sklearn.preprocessing:StandardScaler",
    "sklearn.preprocessing.LabelBinarizer": "sklearn.preprocessing:LabelBinarizer",
    "sklearn.linear_model.RidgeClassifierCV": "sklearn.linear_model:RidgeClassifierCV",
    "sklearn.linear_model.RidgeCV": "sklearn.linear_model:RidgeCV",
    # the ridge models' rocket_ (checked by the ridge model's _loaded_problem)
    "sktime.MiniRocketMultivariate": "sktime.transformations.rocket:MiniRocketMultivariate",
    "sktime.MiniRocket": "sktime.transformations.rocket:MiniRocket",
    "sktime.MiniRocketMultivariateVariable": (
        "sktime.transformations.rocket:MiniRocketMultivariateVariable"
    ),
}
# dataclasses rebuilt from their fields
RECORD_CLASSES = {
    "sktdi.tdi.TaskSpectrum": "sktdi.tdi:TaskSpectrum",
    "sktdi.tdi.TDIReport": "sktdi.tdi:TDIReport",
    "sktdi.tdi.SpectralPeak": "sktdi.tdi:SpectralPeak",
}
# enums rebuilt from their member's name (sktime's fit records its input's dtype kinds)
ENUM_CLASSES = {
    "sktime.DtypeKind": "sktime.datatypes._dtypekind:DtypeKind",
}
# classes that encode themselves as a value of their own type (``_saved_value``) and are
# rebuilt by ``_from_saved_value``: the type tag -> the class
VALUE_CLASSES = {
    "s4d_layer": "sktdi.ssm.layers:S4D",
}
SAVED_CLASSES = {
    **NESTED_OBJECT_CLASSES, **RECORD_CLASSES, **ENUM_CLASSES, **VALUE_CLASSES
}  # the whole allow-list
# sktime's file layout (``BaseObject.save``): a zip of the pickled class, which
# sktime.base.load unpickles to find the class's load_from_path, and the object, here the
# sktdi archive. sktdi.load reads only the object; the class member must be the exact bytes
# save writes (a fixed protocol), so it names a class and holds nothing else to run.
SKTIME_CLASS_MEMBER = "_metadata"
SKTIME_OBJECT_MEMBER = "_obj"
SKTIME_PICKLE_PROTOCOL = 4
# the first byte of a pickle of protocol 2 or later (its PROTO opcode): what sktime's own
# save writes in _obj with serialization_format "pickle" or "cloudpickle"
PICKLE_PROTOCOL_OPCODE = b"\x80"

_ATTRIBUTE_NAME = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*\Z")
_NUMERIC_KINDS = "biuf"  # numpy kinds safetensors stores: bool, int, unsigned, float


# ---- the public functions ---------------------------------------------------------------


class SaveMixin:
    """Give an sktdi estimator ``save(path)``, the safe counterpart of pickling it.

    The file is read back by :func:`sktdi.load`; the user guide's "Saving and sharing
    models" describes what it holds, and when to prefer it to pickle.

    The hooks below are how a class owns its saved state; the defaults store every fitted
    attribute (``vars`` but the parameters) as a value and rebuild the estimator as
    ``cls(**params)`` given them back. A class of ``ESTIMATOR_CLASSES`` overrides what its
    state needs.
    """

    # the parameters of a file written by an older sktdi (see _current_params): a parameter
    # added since, with the value the file's model had; old name -> "group__field" for a
    # parameter that moved into an option group (``_option_groups``); removed parameters
    # whose effect the saved fitted state carries
    _value_before_parameter_existed: ClassVar[dict] = {}
    _parameters_moved: ClassVar[dict] = {}
    _parameters_removed: ClassVar[tuple] = ()

    def save(self, path):
        """Save the fitted estimator to one file that loads without running code.

        Parameters
        ----------
        path : str, os.PathLike or binary file object
            Where to write; the suffix ``.sktdi`` is recommended. An existing file is
            replaced (written to a temporary file first, so a failed save leaves it intact).
            An open binary file (``open(path, "wb")``, ``io.BytesIO``) is written to as it
            is.

        Raises
        ------
        FileNotFoundError
            If the folder of ``path`` does not exist (it is not created); the message names it.
        IsADirectoryError
            If ``path`` is a folder (or ends with "/"): give a file name in it.
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            If a parameter or fitted attribute holds a value the format cannot store (a
            callable, an estimator object, a ``RandomState``, ...); the message names it.
            Or if a parameter changed since ``fit`` (``set_params``) no longer describes the
            fitted model; the message names it and its value at fit.

        See Also
        --------
        sktdi.load : Read the file back.

        Examples
        --------
        >>> import numpy as np, sktdi, tempfile, os
        >>> X = np.random.default_rng(0).normal(size=(20, 16))
        >>> bank = sktdi.SpectralAlignmentTransformer(n_filters=4, init="s4d-lin").fit(X)
        >>> path = os.path.join(tempfile.mkdtemp(), "bank.sktdi")
        >>> bank.save(path)
        >>> np.array_equal(sktdi.load(path).transform(X), bank.transform(X))
        True
        """
        save_estimator(self, path)

    # ---- hooks: the class's saved state ---------------------------------------------------
    def _check_describes_fit(self, params: dict) -> None:
        """Hook: refuse to save (a ValueError) when the parameters ``params`` no longer
        describe the fitted state; by default, the record of :func:`remember_fit_parameters`
        where the class keeps one."""
        _check_parameters_as_fitted(self, params)

    def _fitted_attributes(self) -> dict:
        """The instance's attributes but its parameters (``vars``: a fresh dict)."""
        params = self.get_params(deep=False)
        return {name: value for name, value in vars(self).items() if name not in params}

    def _saved_state(self, writer, key: str) -> dict:
        """Hook: the fitted state as the file records it, attribute name -> encoded value
        (``writer.encode(value, f"{key}/attributes/{name}")``)."""
        return writer.encode_attributes(self._fitted_attributes(), key)

    @classmethod
    def _current_params(cls, params: dict, option_defaults: int = OPTION_DEFAULTS) -> dict:
        """Hook: a file's decoded parameters as this class takes them now (those of a file
        written by an older sktdi mapped by the class's tables; see :func:`current_params`)."""
        return current_params(cls, params, option_defaults)

    @classmethod
    def _from_saved_state(cls, reader, params: dict, attributes: dict):
        """Hook: the estimator of the file's ``params`` (decoded, current) and ``attributes``
        (still encoded: ``reader.decode`` them); by default ``cls(**params)`` given the
        decoded attributes, then checked by :meth:`_loaded_problem`."""
        return reader.restore(cls, params, attributes)

    def _loaded_problem(self) -> str | None:
        """Hook: why the loaded state cannot be one that ``fit`` made (the file was
        altered), or None; checked after each value's own type and shape."""
        return None


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


def save_estimator(estimator, path, *, sktime_layout: bool = False) -> None:
    """Write a fitted sktdi estimator to ``path`` (what ``estimator.save(path)`` does).

    Parameters
    ----------
    estimator : SSMClassifier, SSMRegressor, SpectralAlignmentTransformer, \
SpectralRidgeClassifier, SpectralRidgeRegressor or one of the sktime adapters
        A fitted estimator of one of sktdi's own classes (not a subclass).
    path : str, os.PathLike or binary file object
        The file to write (the suffix ``.sktdi`` is recommended), or an open binary file.
    sktime_layout : bool, default=False
        Wrap the archive in sktime's file layout (what the sktime adapters' ``save`` writes),
        so that ``sktime.base.load`` reads the file as well as :func:`load` does.

    Raises
    ------
    TypeError
        If ``estimator`` is not of one of the classes above.
    FileNotFoundError
        If the folder of ``path`` does not exist; the message names it.
    IsADirectoryError
        If ``path`` is a folder (or ends with "/"); the message names it.
    sklearn.exceptions.NotFittedError
        If it is not fitted.
    ValueError
        If a parameter or fitted attribute cannot be stored, or a parameter changed since
        fit no longer describes the fitted model; the message names it.
    """
    if _is_file_object(path, "write"):  # a binary file opened for writing, a BytesIO
        data = dumps(estimator)
        data = _in_sktime_layout(type(estimator), data) if sktime_layout else data
        try:
            path.write(data)
        except (TypeError, io.UnsupportedOperation) as error:  # a text file, one opened to read
            raise TypeError(
                f"save writes bytes: open the file with 'wb' ({error})"
            ) from None
        return
    raw = _fspath(path, "save")
    path = Path(raw)
    _check_folder(path, raw)
    data = dumps(estimator)
    if sktime_layout:
        data = _in_sktime_layout(type(estimator), data)
    # a temporary file beside the target, then an atomic rename: never a half-written file
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _is_file_object(target, method: str) -> bool:
    """Whether ``target`` is an open file-like object with ``method`` (write or read), not a
    path: ``save`` and ``load`` take either."""
    return not isinstance(target, (str, bytes, os.PathLike)) and callable(
        getattr(target, method, None)
    )


def _fspath(path, verb: str):
    """``os.fspath(path)`` as a str, or a TypeError that says what ``verb`` (save, load)
    takes."""
    mode = "wb" if verb == "save" else "rb"
    try:
        raw = os.fspath(path)
    except TypeError:
        raw = None
    if not isinstance(raw, str):  # bytes paths too: pathlib refuses them
        raise TypeError(
            f"{verb} takes a file path (str or os.PathLike) or a binary file object "
            f"(open(..., {mode!r}), io.BytesIO); got {type(path).__name__}"
        )
    return raw


def _check_folder(path: Path, raw=None) -> None:
    """Refuse a target that is a folder (``raw``, the path as given: ``Path`` drops a trailing
    "/") or whose folder is missing, naming the folder: the write goes through a temporary
    file beside the target, and the OS error would name that file instead."""
    raw = os.fspath(path) if raw is None else raw
    separators = tuple(sep for sep in (os.sep, os.altsep, "/") if sep)
    ends_as_folder = isinstance(raw, str) and raw.endswith(separators)
    if path.is_dir() or ends_as_folder:
        # Path("x/") is Path("x"): the name "model.sktdi" goes inside the folder as given
        example = os.path.join(raw, "model.sktdi") if isinstance(raw, str) else path / "model.sktdi"
        what = "is a folder" if path.is_dir() else "names a folder (it ends with a separator)"
        raise IsADirectoryError(
            f"cannot save to {raw}: it {what}; give a file name in it, e.g. "
            f"save({str(example)!r})"
        )
    folder = path.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise NotADirectoryError(f"cannot save to {path}: {folder} is not a folder")
    raise FileNotFoundError(
        f"cannot save to {path}: the folder {folder} does not exist; create it first "
        f"(os.makedirs({str(folder)!r}, exist_ok=True))"
    )


def load(path):
    """Load an estimator saved with ``est.save(path)``.

    Reading runs no code from the file (no pickle; classes come from a fixed list of
    sktdi's), so a file from an untrusted source is safe to load. The sktime adapters' files,
    in sktime's layout, are read too: only their sktdi archive, never their pickled class
    reference (which must be the exact one ``save`` writes). Tensors are read onto the
    CPU, so no GPU is needed whatever device trained the model: a model saved with a
    ``device`` that is not available here (``"cuda"`` on a CPU-only machine) is loaded with
    ``device="cpu"``, with a warning; ``device="auto"`` stays as it is.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        A file written by ``save`` (suffix ``.sktdi`` recommended), or an open binary file
        (``open(path, "rb")``, ``io.BytesIO``) holding one.

    Returns
    -------
    estimator : object
        The fitted estimator, predicting exactly as the saved one did.

    Raises
    ------
    ValueError
        If the file is not an sktdi model file (a pickle, a text file, another zip), is
        truncated or corrupted (a member's SHA-256 differs from the recorded one), was
        altered (an unknown class, tensors that do not fit the network), or was written by
        a newer sktdi in a format version this one cannot read.

    Warns
    -----
    UserWarning
        If the file was written by another sktdi or torch version (it still loads), or with
        a device that is not available here.

    See Also
    --------
    sktdi.persistence.SaveMixin.save : Write the file.

    Examples
    --------
    >>> import numpy as np, sktdi, tempfile, os
    >>> X = np.random.default_rng(0).normal(size=(20, 16))
    >>> bank = sktdi.SpectralAlignmentTransformer(n_filters=4, init="s4d-lin").fit(X)
    >>> path = os.path.join(tempfile.mkdtemp(), "bank.sktdi")
    >>> bank.save(path)
    >>> type(sktdi.load(path)).__name__
    'SpectralAlignmentTransformer'
    """
    if isinstance(path, (bytes, bytearray, memoryview)):
        raise TypeError(
            "load takes a file path or a binary file object, not the file's bytes: "
            "load(io.BytesIO(data)), or sktdi.persistence.loads(data)"
        )
    if _is_file_object(path, "read"):  # a binary file opened for reading, a BytesIO
        try:
            data = path.read()
        except (UnicodeDecodeError, io.UnsupportedOperation) as error:  # text, or write-only
            raise TypeError(f"load reads bytes: open the file with 'rb' ({error})") from None
        if isinstance(data, str):
            raise TypeError("load reads a binary file: open it with 'rb', not 'r'")
        if not data and callable(getattr(path, "seek", None)):
            raise ValueError(
                "load read nothing from the file object: it is at its end (a buffer just "
                "written to is; seek(0) first) or empty"
            )
        return loads(bytes(data), source=getattr(path, "name", "the file object"))
    path = Path(_fspath(path, "load"))
    return loads(path.read_bytes(), source=str(path))


# ---- whole archives -----------------------------------------------------------------------


def dumps(estimator) -> bytes:
    """The archive of a fitted estimator, as bytes (what ``save`` writes)."""
    name = _registered_name(ESTIMATOR_CLASSES, type(estimator))
    if name is None:
        raise TypeError(
            f"{type(estimator).__name__} cannot be saved in the sktdi format: it stores "
            f"sktdi's own estimators ({', '.join(sorted(ESTIMATOR_CLASSES))}), not subclasses "
            f"or other classes; use pickle or joblib for those"
        )
    _check_fitted(estimator)
    from safetensors.numpy import save as arrays_to_bytes
    from safetensors.torch import save as tensors_to_bytes

    from ..utils.version import __version__

    writer = _Writer()
    record = writer.encode_object(estimator, "estimator")
    members = {
        ARRAYS_MEMBER: arrays_to_bytes(writer.arrays),
        TENSORS_MEMBER: tensors_to_bytes(writer.tensors),
    }
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "sktdi_version": __version__,
        "option_defaults": OPTION_DEFAULTS,
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "members": {
            member: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for member, data in members.items()
        },
        "estimator": record,
    }
    # strict JSON (allow_nan=False): non-finite floats were tagged by the encoder
    text = json.dumps(metadata, allow_nan=False, indent=1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _write_member(archive, METADATA_MEMBER, text.encode("utf-8"), compress=True)
        for member, data in members.items():
            _write_member(archive, member, data, compress=False)  # floats do not compress
    return buffer.getvalue()


def loads(data: bytes, *, source: str = "the data"):
    """The estimator in an archive's bytes (what :func:`load` reads), alone or in sktime's
    layout; ``source`` names the file in error messages."""
    _check_zip(data, source)
    wrapped = _sktime_layout_members(data, source)
    if wrapped is None:
        return _loads_archive(data, source)
    class_reference, data = wrapped
    source = f"{source} (its {SKTIME_OBJECT_MEMBER} member)"
    _check_zip(data, source)
    estimator = _loads_archive(data, source)  # an sktime layout inside is refused there
    if class_reference != _class_reference(type(estimator)):
        raise ValueError(
            f"{source}: the {SKTIME_CLASS_MEMBER} member beside it is not the reference to "
            f"{type(estimator).__name__} that sktdi's save writes (sktime.base.load would "
            f"unpickle it); the file was altered"
        )
    return estimator


# what zipfile raises on a damaged archive: its own error, and (for headers whose offsets,
# flags or methods were altered) a negative seek's ValueError, an unsupported feature's
# NotImplementedError, a short read's EOFError or struct.error, a bad stream's zlib.error
_DAMAGED_ZIP = (
    zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, OSError,
    struct.error, OverflowError,
)


def _raise_damaged(exc: BaseException, source: str):
    """Refuse a damaged archive, naming ``source``; a ValueError of ours says it already."""
    if isinstance(exc, ValueError) and str(exc).startswith(source):
        raise exc
    raise ValueError(f"{source} is a damaged or truncated archive: {exc}") from exc


def _check_zip(data: bytes, source: str) -> None:
    try:
        is_zip = zipfile.is_zipfile(io.BytesIO(data))
    except _DAMAGED_ZIP as exc:
        _raise_damaged(exc, source)
    if not is_zip:
        raise ValueError(
            f"{source} is not an sktdi model file: no zip archive found (another kind of file, "
            f"or a truncated one). Pickle and joblib files are read with pickle/joblib, which "
            f"run code: only from a trusted source"
        )


def _class_reference(cls: type) -> bytes:
    """``cls`` pickled by reference (its module and name), as sktime's loader reads it."""
    import pickle  # to write only: sktdi never unpickles

    return pickle.dumps(cls, protocol=SKTIME_PICKLE_PROTOCOL)


def _in_sktime_layout(cls: type, archive: bytes) -> bytes:
    """The sktdi ``archive`` of a ``cls`` in the zip that ``sktime.base.load`` reads."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as layout:
        _write_member(layout, SKTIME_CLASS_MEMBER, _class_reference(cls), compress=False)
        # stored: the archive is compressed already, and a stored member cannot be a zip bomb
        _write_member(layout, SKTIME_OBJECT_MEMBER, archive, compress=False)
    return buffer.getvalue()


def _sktime_layout_members(data: bytes, source: str) -> tuple[bytes, bytes] | None:
    """The class reference and sktdi archive of a file in sktime's layout; None for any
    other zip, which is read as an sktdi archive."""
    members = (SKTIME_CLASS_MEMBER, SKTIME_OBJECT_MEMBER)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if sorted(archive.namelist()) != sorted(members):
                return None
            with archive.open(SKTIME_OBJECT_MEMBER) as member:  # streamed: one byte only
                opening = member.read(1)
            if opening == PICKLE_PROTOCOL_OPCODE:
                raise ValueError(_sktime_pickle_message(source))
            for name in members:
                # save stores both uncompressed: anything else could be a decompression bomb
                info = archive.getinfo(name)
                if info.compress_type != zipfile.ZIP_STORED or info.file_size > len(data):
                    raise ValueError(
                        f"{source}: its {name} member is not stored uncompressed within the "
                        f"file; the file was altered"
                    )
            return archive.read(SKTIME_CLASS_MEMBER), archive.read(SKTIME_OBJECT_MEMBER)
    except _DAMAGED_ZIP as exc:
        _raise_damaged(exc, source)


def _sktime_pickle_message(source: str) -> str:
    """The refusal of a file that sktime's own ``save`` wrote in a pickle format."""
    return (
        f"{source} is in sktime's pickle format (save(..., serialization_format='pickle' or "
        f"'cloudpickle')): its {SKTIME_OBJECT_MEMBER} member is a pickle, which sktdi.load "
        f"never reads, since unpickling can run code. Read it with sktime.base.load, which "
        f"unpickles it (only for a file from a trusted source), or save the model with the "
        f"default format, save(path), which sktdi.load reads"
    )


def _loads_archive(data: bytes, source: str):
    """The estimator in an sktdi archive's bytes (a zip)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            metadata = _read_metadata(archive, source, len(data))
            members = _read_data_members(archive, metadata, source, len(data))
    except _DAMAGED_ZIP as exc:
        _raise_damaged(exc, source)
    _warn_on_version_mismatch(metadata, source)
    from safetensors import SafetensorError
    from safetensors.numpy import load as arrays_from_bytes
    from safetensors.torch import load as tensors_from_bytes

    try:
        arrays = arrays_from_bytes(members[ARRAYS_MEMBER])
        tensors = tensors_from_bytes(members[TENSORS_MEMBER])  # always onto the CPU
    except SafetensorError as exc:
        raise ValueError(f"{source} holds an unreadable tensor file: {exc}") from exc
    option_defaults = metadata.get("option_defaults", 1)
    if type(option_defaults) is not int or not 1 <= option_defaults <= OPTION_DEFAULTS:
        raise ValueError(
            f"{source}: invalid option_defaults {option_defaults!r}; the file was altered, or "
            f"written by a newer sktdi"
        )
    reader = _Reader(arrays, tensors, source, len(data), option_defaults)
    try:
        estimator = reader.decode_object(metadata["estimator"], ESTIMATOR_CLASSES)
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError, ValueError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith(source):
            raise  # already says what is wrong with the file
        raise ValueError(
            f"{source} has malformed metadata ({type(exc).__name__}: {exc}); it was not "
            f"written by sktdi's save, or was altered"
        ) from exc
    reader.check_everything_used()
    return estimator


def _check_fitted(estimator) -> None:
    is_fitted = getattr(estimator, "__sklearn_is_fitted__", None)
    if is_fitted is None:
        check_is_fitted(estimator)
    # sktime's objects say it themselves; check_is_fitted would need scikit-learn's tags
    elif not is_fitted():
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet: call 'fit' before "
            f"saving it"
        )


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes, *, compress: bool) -> None:
    # a fixed timestamp: the same fitted model always gives the same bytes
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def metadata_cap(file_size: int) -> int:
    """The most bytes the metadata of a file of ``file_size`` bytes may inflate to."""
    return min(MAX_METADATA_BYTES, max(METADATA_FLOOR_BYTES, METADATA_PER_FILE_BYTE * file_size))


def _read_metadata(archive: zipfile.ZipFile, source: str, file_size: int) -> dict:
    names = archive.namelist()
    if METADATA_MEMBER not in names:
        raise ValueError(
            f"{source} is not an sktdi model file: the archive has no {METADATA_MEMBER}"
        )
    expected = {METADATA_MEMBER, *DATA_MEMBERS}
    if len(names) != len(set(names)) or set(names) != expected:
        raise ValueError(
            f"{source} is not an sktdi model file: its archive holds {sorted(names)}, "
            f"expected exactly {sorted(expected)}"
        )
    info = archive.getinfo(METADATA_MEMBER)
    cap = metadata_cap(file_size)
    if info.file_size > cap:
        raise ValueError(
            f"{source}: {METADATA_MEMBER} declares {info.file_size} bytes, more than a file of "
            f"{file_size} bytes may hold ({cap}); the file was altered"
        )
    # inflated in bounded steps: the declared size is the file's word, not a guarantee
    with archive.open(info) as member:
        text = member.read(cap + 1)
    if len(text) > cap:
        raise ValueError(
            f"{source}: {METADATA_MEMBER} inflates past {cap} bytes; the file was altered"
        )
    try:
        metadata = json.loads(text.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{source}: {METADATA_MEMBER} is not valid JSON ({exc})") from exc
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ValueError(
            f"{source} is not an sktdi model file: {METADATA_MEMBER} does not declare the "
            f"format {FORMAT_NAME!r}"
        )
    version = metadata.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"{source}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{source} was written in sktdi format version {version} by sktdi "
            f"{metadata.get('sktdi_version')!r}; this sktdi reads up to version "
            f"{FORMAT_VERSION}: upgrade sktdi to load it"
        )
    record = metadata.get("estimator")
    name = record.get("class") if isinstance(record, dict) else None
    if name not in ESTIMATOR_CLASSES:
        raise ValueError(
            f"{source} names the class {name!r}, which is not one sktdi loads (one of "
            f"{', '.join(sorted(ESTIMATOR_CLASSES))})"
        )
    return metadata


def _no_constant(name: str):
    raise ValueError(f"non-standard JSON constant {name}")


def _read_data_members(
    archive: zipfile.ZipFile, metadata: dict, source: str, file_size: int
) -> dict:
    """The data members' bytes, each checked against its recorded size and SHA-256; each
    must be stored uncompressed, within the file (save writes them so), so that reading one
    takes no more memory than the file's own bytes."""
    recorded = metadata.get("members")
    if not isinstance(recorded, dict) or set(recorded) != set(DATA_MEMBERS):
        raise ValueError(f"{source}: {METADATA_MEMBER} does not list the members {DATA_MEMBERS}")
    members = {}
    for name in DATA_MEMBERS:
        entry = recorded[name] if isinstance(recorded[name], dict) else {}
        size, digest = entry.get("size"), entry.get("sha256")
        info = archive.getinfo(name)
        if info.compress_type != zipfile.ZIP_STORED or not (
            info.compress_size == info.file_size <= file_size
        ):
            raise ValueError(
                f"{source}: {name} is not stored uncompressed within the file (it declares "
                f"{info.file_size} bytes, compressed as {info.compress_size}, in a file of "
                f"{file_size}): sktdi's save stores it so; the file was altered"
            )
        # the size first: a member that is not what the metadata says is never read
        if info.file_size != size:
            raise ValueError(
                f"{source}: {name} has {info.file_size} bytes, the metadata "
                f"records {size!r}: the file is truncated or was altered"
            )
        data = archive.read(name)
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(
                f"{source}: the SHA-256 checksum of {name} does not match the one recorded "
                f"in {METADATA_MEMBER}: the file is corrupted or was altered"
            )
        members[name] = data
    return members


def _warn_on_version_mismatch(metadata: dict, source: str) -> None:
    from ..utils.version import __version__

    saved_sktdi = metadata.get("sktdi_version")
    if saved_sktdi != __version__:
        warnings.warn(
            f"{source} was saved by sktdi {saved_sktdi!r}; this is sktdi {__version__!r}. "
            f"It loads, but check its predictions (or refit) before relying on them",
            UserWarning,
            stacklevel=4,
        )
    saved_torch = str(metadata.get("torch_version"))
    # the build tag (+cpu, +cu121) does not change the saved weights' meaning
    if saved_torch.split("+")[0] != torch.__version__.split("+")[0]:
        warnings.warn(
            f"{source} was saved with torch {saved_torch!r}; this is torch "
            f"{torch.__version__!r}. It loads, but predictions may differ in the last bits",
            UserWarning,
            stacklevel=4,
        )


# ---- the allow-list ---------------------------------------------------------------------


def _registered_name(registry: dict, cls: type) -> str | None:
    """The registry's name for exactly ``cls`` (not a subclass), or None. Only modules that
    are already imported are looked at: an instance's class is always imported."""
    for name, target in registry.items():
        module_name, attribute = target.split(":")
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, attribute, None) is cls:
            return name
    return None


def _registered_class(registry: dict, name, what: str) -> type:
    if not isinstance(name, str) or name not in registry:
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}")
    module_name, attribute = registry[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # an optional dependency: sktime, for MiniRocket
        package = module_name.split(".")[0]
        raise ImportError(
            f"the file holds a {name}, which needs {package}; install it (for sktime: pip "
            f"install 'sktdi[sktime]') to load the file"
        ) from exc
    return getattr(module, attribute)


def _float_name(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


# ---- encoding -----------------------------------------------------------------------------


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
        f"fixed list: sktdi's, a few of scikit-learn's, sktime's MiniRocket and MiniRocketMultivariate): "
        f"{remedy}"
    )


def _is_random_state(value) -> bool:
    return isinstance(value, (np.random.RandomState, np.random.Generator))


# ---- decoding -----------------------------------------------------------------------------


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


# ---- parameters of files written by an older sktdi ----------------------------------------


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


# ---- parameters changed since fit ---------------------------------------------------------


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
