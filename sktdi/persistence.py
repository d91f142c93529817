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
``arrays.safetensors``, string and object ones in the JSON with their dtype), sktdi's TDI
records (:class:`~sktdi.tdi.TaskSpectrum`, :class:`~sktdi.tdi.TDIReport`,
:class:`~sktdi.tdi.SpectralPeak`) and a few library objects (a LabelEncoder, the ridge models'
scaler, ridge head and sktime MiniRocket transformer, sktime's dtype kinds, an S4D filter bank,
a skorch network, a nested sktdi estimator) tagged by the key ``"__sktdi_type__"``. Any other
value cannot be saved: ``save`` names it, and pickle remains the way to store arbitrary Python
objects. A skorch network is rebuilt on load the way ``fit`` builds it, from the estimator's
parameters, and given the saved weights, optimizer state and history. The saved parameters
must describe the fitted model: a parameter changed by ``set_params`` since ``fit`` is refused
(for the deep models, those their network is rebuilt from; for the filter bank models, every
parameter but the memory setting ``batch_size`` and the seed). The record of each object's
parameters and attributes is written in name order, so that the same model always saves to
the same bytes, a loaded one saved again included.

The sktime adapters write the archive inside sktime's own layout (a zip of ``_metadata``, the
class pickled by reference, and ``_obj``, here the archive), so that ``sktime.base.load``
reads their files too; :func:`load` reads only ``_obj``. A file of sktime's own pickle formats
(``save(path, serialization_format="pickle")``) is refused, naming ``sktime.base.load``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import io
import json
import math
import os
import re
import sys
import tempfile
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import torch
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

FORMAT_NAME = "sktdi-estimator"
FORMAT_VERSION = 1  # raise on any change that an older sktdi could not read

METADATA_MEMBER = "metadata.json"
ARRAYS_MEMBER = "arrays.safetensors"
TENSORS_MEMBER = "tensors.safetensors"
DATA_MEMBERS = (ARRAYS_MEMBER, TENSORS_MEMBER)
MAX_METADATA_BYTES = 256 * 2**20  # refuse a metadata member that would exhaust memory

TYPE_KEY = "__sktdi_type__"

# Every class a file may name, and the one module each is imported from: the file chooses
# among these names and never supplies a module path, so loading cannot import or run code
# the file asks for. The top-level estimator must be one of ESTIMATOR_CLASSES.
ESTIMATOR_CLASSES = {
    "sktdi.SSMClassifier": ("sktdi.estimators", "SSMClassifier"),
    "sktdi.SSMRegressor": ("sktdi.estimators", "SSMRegressor"),
    "sktdi.SpectralAlignmentTransformer": ("sktdi.transformers", "SpectralAlignmentTransformer"),
    "sktdi.sktime.SktimeSSMClassifier": ("sktdi.sktime", "SktimeSSMClassifier"),
    "sktdi.sktime.SktimeSSMRegressor": ("sktdi.sktime", "SktimeSSMRegressor"),
    "sktdi.sktime.SktimeSpectralRidgeClassifier": ("sktdi.sktime", "SktimeSpectralRidgeClassifier"),
    "sktdi.sktime.SktimeSpectralRidgeRegressor": ("sktdi.sktime", "SktimeSpectralRidgeRegressor"),
    "sktdi.SpectralRidgeClassifier": ("sktdi.ridge", "SpectralRidgeClassifier"),
    "sktdi.SpectralRidgeRegressor": ("sktdi.ridge", "SpectralRidgeRegressor"),
}
# objects inside a fitted estimator, rebuilt like an estimator: class(**params), attributes
NESTED_OBJECT_CLASSES = {
    **ESTIMATOR_CLASSES,
    "sklearn.preprocessing.LabelEncoder": ("sklearn.preprocessing", "LabelEncoder"),
    # the ridge models' scaler and head
    "sklearn.preprocessing.StandardScaler": ("sklearn.preprocessing", "StandardScaler"),
    "sklearn.preprocessing.LabelBinarizer": ("sklearn.preprocessing", "LabelBinarizer"),
    "sklearn.linear_model.RidgeClassifierCV": ("sklearn.linear_model", "RidgeClassifierCV"),
    "sklearn.linear_model.RidgeCV": ("sklearn.linear_model", "RidgeCV"),
    # the ridge models' rocket_: its fitted state is five arrays (see _minirocket_problem)
    "sktime.MiniRocketMultivariate": ("sktime.transformations.rocket", "MiniRocketMultivariate"),
    "sktime.MiniRocket": ("sktime.transformations.rocket", "MiniRocket"),
}
# dataclasses rebuilt from their fields
RECORD_CLASSES = {
    "sktdi.tdi.TaskSpectrum": ("sktdi.tdi", "TaskSpectrum"),
    "sktdi.tdi.TDIReport": ("sktdi.tdi", "TDIReport"),
    "sktdi.tdi.SpectralPeak": ("sktdi.tdi", "SpectralPeak"),
}
# enums rebuilt from their member's name (sktime's fit records its input's dtype kinds)
ENUM_CLASSES = {
    "sktime.DtypeKind": ("sktime.datatypes._dtypekind", "DtypeKind"),
}
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
# caches rebuilt on demand, not state: the float64 inference copies of the network
TRANSIENT_ATTRIBUTES = frozenset({"_inference_modules"})
# the fitted attribute in which the filter bank models (the transformer, the ridge models)
# record the parameters of their fit (remember_fit_parameters), saved with the model and
# compared with its parameters at each save (_check_parameters_as_fitted)
PARAMETERS_AT_FIT = "_params_at_fit"
# torch dtypes a saved filter bank may ask for
LAYER_DTYPES = {"float32": torch.float32, "float64": torch.float64}

_ATTRIBUTE_NAME = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*\Z")
_NUMERIC_KINDS = "biuf"  # numpy kinds safetensors stores: bool, int, unsigned, float


# ---- the public functions ---------------------------------------------------------------


class SaveMixin:
    """Give an sktdi estimator ``save(path)``, the safe counterpart of pickling it.

    The file is read back by :func:`sktdi.load`; the user guide's "Saving and sharing
    models" describes what it holds, and when to prefer it to pickle.
    """

    def save(self, path):
        """Save the fitted estimator to one file that loads without running code.

        Parameters
        ----------
        path : str or os.PathLike
            Where to write; the suffix ``.sktdi`` is recommended. An existing file is
            replaced (written to a temporary file first, so a failed save leaves it intact).

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
    Parameter objects (``tdi_spectrum``, array ``alphas``) are kept as they are and compared
    by value at save (:func:`_same_value`): by identity, a loaded model, whose parameter and
    record decode to two equal objects, could not be saved again.
    """
    free = getattr(type(estimator), "_free_after_fit", ())
    setattr(estimator, PARAMETERS_AT_FIT, {
        name: value for name, value in estimator.get_params(deep=False).items()
        if name not in free
    })


def save_estimator(estimator, path, *, sktime_layout: bool = False) -> None:
    """Write a fitted sktdi estimator to ``path`` (what ``estimator.save(path)`` does).

    Parameters
    ----------
    estimator : SSMClassifier, SSMRegressor, SpectralAlignmentTransformer, \
SpectralRidgeClassifier, SpectralRidgeRegressor or one of the sktime adapters
        A fitted estimator of one of sktdi's own classes (not a subclass).
    path : str or os.PathLike
        The file to write; the suffix ``.sktdi`` is recommended.
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
    raw = os.fspath(path)
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
    path : str or os.PathLike
        A file written by ``save`` (suffix ``.sktdi`` recommended).

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
    path = Path(os.fspath(path))
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

    from . import __version__

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


def _check_zip(data: bytes, source: str) -> None:
    if not zipfile.is_zipfile(io.BytesIO(data)):
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
                # save stores both uncompressed: a larger member would be a decompression bomb
                if archive.getinfo(name).file_size > len(data):
                    raise ValueError(f"{source}: its {name} member is implausibly large")
            return archive.read(SKTIME_CLASS_MEMBER), archive.read(SKTIME_OBJECT_MEMBER)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ValueError(f"{source} is a damaged or truncated archive: {exc}") from exc


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
            metadata = _read_metadata(archive, source)
            members = _read_data_members(archive, metadata, source)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ValueError(f"{source} is a damaged or truncated archive: {exc}") from exc
    _warn_on_version_mismatch(metadata, source)
    from safetensors import SafetensorError
    from safetensors.numpy import load as arrays_from_bytes
    from safetensors.torch import load as tensors_from_bytes

    try:
        arrays = arrays_from_bytes(members[ARRAYS_MEMBER])
        tensors = tensors_from_bytes(members[TENSORS_MEMBER])  # always onto the CPU
    except SafetensorError as exc:
        raise ValueError(f"{source} holds an unreadable tensor file: {exc}") from exc
    reader = _Reader(arrays, tensors, source)
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


def _read_metadata(archive: zipfile.ZipFile, source: str) -> dict:
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
    if info.file_size > MAX_METADATA_BYTES:
        raise ValueError(f"{source}: {METADATA_MEMBER} is implausibly large ({info.file_size})")
    try:
        metadata = json.loads(archive.read(info).decode("utf-8"), parse_constant=_no_constant)
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


def _read_data_members(archive: zipfile.ZipFile, metadata: dict, source: str) -> dict:
    """The data members' bytes, each checked against its recorded size and SHA-256."""
    recorded = metadata.get("members")
    if not isinstance(recorded, dict) or set(recorded) != set(DATA_MEMBERS):
        raise ValueError(f"{source}: {METADATA_MEMBER} does not list the members {DATA_MEMBERS}")
    members = {}
    for name in DATA_MEMBERS:
        entry = recorded[name] if isinstance(recorded[name], dict) else {}
        size, digest = entry.get("size"), entry.get("sha256")
        # the size first: a member that is not what the metadata says is never decompressed
        if archive.getinfo(name).file_size != size:
            raise ValueError(
                f"{source}: {name} has {archive.getinfo(name).file_size} bytes, the metadata "
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
    from . import __version__

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


# ---- registries ---------------------------------------------------------------------------


def _registered_name(registry: dict, cls: type) -> str | None:
    """The registry's name for exactly ``cls`` (not a subclass), or None. Only modules that
    are already imported are looked at: an instance's class is always imported."""
    for name, (module_name, attribute) in registry.items():
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, attribute, None) is cls:
            return name
    return None


def _registered_class(registry: dict, name, what: str) -> type:
    if not isinstance(name, str) or name not in registry:
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}")
    module_name, attribute = registry[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # an optional dependency: sktime, for MiniRocket
        package = module_name.split(".")[0]
        raise ImportError(
            f"the file holds a {name}, which needs {package}; install it (for sktime: pip "
            f"install 'sktdi[sktime]') to load the file"
        ) from exc
    return getattr(module, attribute)


def _is_skorch_net(value) -> bool:
    skorch = sys.modules.get("skorch")
    return skorch is not None and isinstance(value, skorch.NeuralNet)


def _is_s4d_layer(value) -> bool:
    layers = sys.modules.get("sktdi.ssm.layers")
    return layers is not None and type(value) is layers.S4D


def _cpu_copy(tensor: torch.Tensor) -> torch.Tensor:
    # a copy: safetensors refuses tensors that share memory, and CUDA tensors go to the CPU
    return tensor.detach().to("cpu", copy=True).contiguous()


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
    under unique keys that the JSON refers to."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.tensors: dict[str, torch.Tensor] = {}

    def _key(self, store: dict, key: str) -> str:
        unique, n = key, 1
        while unique in store:  # a dict key holding "/" could repeat a path
            unique, n = f"{key}#{n}", n + 1
        return unique

    def _store_tensor(self, key: str, tensor: torch.Tensor) -> str:
        key = self._key(self.tensors, key)
        self.tensors[key] = _cpu_copy(tensor)
        return key

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
        _check_parameters_as_fitted(obj, params)
        for attribute, value in sorted(vars(obj).items(), key=_by_name):
            if attribute in params or attribute in TRANSIENT_ATTRIBUTES:
                continue
            location = f"{key}/attributes/{attribute}"
            try:
                if _is_skorch_net(value):
                    record["attributes"][attribute] = self.encode_net(obj, value, location)
                else:
                    record["attributes"][attribute] = self.encode(value, location)
            except _Unsupported as exc:
                raise ValueError(_unsupported_message("attribute", attribute, cls, exc)) from None
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
            fields = {
                field.name: self.encode(getattr(value, field.name), f"{key}/{field.name}")
                for field in dataclasses.fields(value)
            }
            return {TYPE_KEY: "record", "class": record_name, "fields": fields}
        enum_name = _registered_name(ENUM_CLASSES, type(value))
        if enum_name is not None:
            return {TYPE_KEY: "enum", "class": enum_name, "name": value.name}
        if _is_s4d_layer(value):
            return self._encode_s4d_layer(value, key)
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

    def _encode_s4d_layer(self, layer, key: str) -> dict:
        state = layer.state_dict()
        dtype = next(iter(state.values())).dtype
        dtype_name = str(dtype).removeprefix("torch.")
        if dtype_name not in LAYER_DTYPES:
            raise _Unsupported(layer, key)
        keys = {}
        for name, tensor in state.items():
            keys[name] = self._store_tensor(f"{key}/{name}", tensor)
        return {
            TYPE_KEY: "s4d_layer",
            "d_model": layer.d_model,
            "d_state": layer.d_state,
            "discretization": layer.discretization,
            "bidirectional": layer.bidirectional,
            "dtype": dtype_name,
            "requires_grad": any(p.requires_grad for p in layer.parameters()),
            "training": layer.training,
            "state": keys,
        }

    def encode_net(self, owner, net, key: str) -> dict:
        """A skorch network: what rebuilding it from ``owner``'s parameters needs (its module's
        settings, the validation split's seed), then its weights, optimizer state, history."""
        _check_rebuilds_as_saved(owner, net)
        module_state = {
            name: self._store_tensor(f"{key}/module/{name}", tensor)
            for name, tensor in net.module_.state_dict().items()
        }
        optimizer = net.optimizer_.state_dict()
        optimizer_state = {}  # parameter index -> {"exp_avg": tensor key, ...}
        for index, entries in optimizer["state"].items():
            optimizer_state[str(index)] = {}
            for name, value in entries.items():
                location = f"{key}/optimizer/{index}/{name}"
                if not torch.is_tensor(value):
                    raise _Unsupported(value, location)
                optimizer_state[str(index)][name] = self._store_tensor(location, value)
        record = {
            TYPE_KEY: "skorch_net",
            "class": type(net).__name__,
            "module_class": type(net.module_).__name__,
            "module_kwargs": self.encode(_module_kwargs(net), f"{key}/module_kwargs"),
            "split_seed": _split_seed(net),
            "device": str(net.device),  # for information: load follows the device parameter
            "module_state": module_state,
            "module_training": net.module_.training,
            "optimizer_param_groups": self.encode(optimizer["param_groups"], f"{key}/groups"),
            "optimizer_state": optimizer_state,
            "history": self.encode(net.history.to_list(), f"{key}/history"),
        }
        if hasattr(net, "classes_inferred_"):
            record["classes_inferred_"] = self.encode(net.classes_inferred_, f"{key}/classes")
        return record


def _by_name(item: tuple):
    return item[0]


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


def _module_kwargs(net) -> dict:
    prefix = "module__"
    return {
        name[len(prefix):]: value
        for name, value in net.get_params(deep=False).items()
        if name.startswith(prefix)
    }


def _split_seed(net) -> int | None:
    split = net.train_split
    return None if split is None else int(split.random_state)


def _rebuild_net(owner, module_kwargs: dict, split_seed):
    """The (uninitialized) skorch network ``fit`` would build for ``owner``'s parameters."""
    from ._training import build_net

    return build_net(owner, module_kwargs["n_channels"], module_kwargs["n_outputs"], split_seed)


def _check_rebuilds_as_saved(owner, net) -> None:
    """Loading rebuilds the network from the estimator's parameters, so they must still be
    the ones it was built with: a parameter changed by set_params after fit would give a
    different network (or none that takes the saved weights). The error names the changed
    parameters as the estimator has them (``d_model``, ``n_layers``, ...), not the
    network's own keyword arguments."""
    from ._training import network_parameters

    saved_kwargs = _module_kwargs(net)
    rebuilt = _rebuild_net(owner, saved_kwargs, _split_seed(net))
    rebuilt_kwargs = _module_kwargs(rebuilt)
    if rebuilt.module is type(net.module_) and rebuilt_kwargs == saved_kwargs:
        return
    fitted = network_parameters(type(net.module_), saved_kwargs)
    now = network_parameters(rebuilt.module, rebuilt_kwargs)
    # a parameter of one network only (prenorm, when network changed) follows the others
    changed = sorted(
        name for name in fitted.keys() & now.keys() if fitted[name] != now[name]
    ) or sorted(fitted.keys() ^ now.keys())
    if "init" in changed:  # the layers hold the base init; the fit's own init is reported
        requested = getattr(owner, "init_report_", {}).get("requested")
        if requested is not None:
            fitted["init"] = requested
    raise _changed_since_fit_error(
        owner,
        changed,
        {name: getattr(owner, name, now.get(name)) for name in changed},
        fitted,
        "its fitted network",
        "loading rebuilds the network from them",
    )


def _changed_since_fit_error(
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
        raise _changed_since_fit_error(
            obj,
            changed,
            {name: params[name] for name in changed},
            fitted,
            "its fitted model",
            "a file saved with them would describe another model than the one it holds",
        )


def _same_value(a, b) -> bool:
    """Whether two parameter values are equal, all the way down: numpy arrays by dtype, shape
    and values (NaN equal to NaN), dataclasses (a TaskSpectrum) field by field, containers
    item by item; ``==`` would be ambiguous for arrays."""
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


# ---- consistency of decoded objects -------------------------------------------------------

# MiniRocket's numba transform hardcodes its 84 kernels (the 3-of-9 weight patterns)
MINIROCKET_KERNELS = 84


def _minirocket_problem(parameters, n_channels: int) -> str | None:
    """Why ``parameters`` (MiniRocketMultivariate's fitted ``parameters``) cannot come from
    a fit on ``n_channels`` channels, or None.

    Notes
    -----
    ``_fit_multi`` returns (channels per combination, channel indices, dilations, features per
    dilation, biases): one combination per kernel and dilation, each taking its slice of the
    channel indices and one bias per feature. The numba transform indexes the input and the
    biases with these counts without bounds checks, so counts that do not fit each other would
    read outside the arrays instead of raising.
    """
    univariate = n_channels == 1 and type(parameters) is tuple and len(parameters) == 3
    dtypes = (np.int32, np.int32, np.float32) if univariate else (
        np.int32, np.int32, np.int32, np.int32, np.float32
    )
    if type(parameters) is not tuple or len(parameters) != len(dtypes) or not all(
        type(a) is np.ndarray and a.ndim == 1 and a.dtype == dtype
        for a, dtype in zip(parameters, dtypes)
    ):
        return (
            "MiniRocket's parameters are not its five 1-D arrays (4 of int32, 1 of float32), "
            "or for one channel its three (2 of int32, 1 of float32)"
        )
    if univariate:  # the univariate transform: no channel combinations
        dilations, per_dilation, biases = parameters
        per_combination = np.ones(MINIROCKET_KERNELS * len(dilations), dtype=np.int32)
        channels = np.zeros(len(per_combination), dtype=np.int32)
    else:
        per_combination, channels, dilations, per_dilation, biases = parameters
    n_features = MINIROCKET_KERNELS * int(per_dilation.sum(dtype=np.int64))
    if len(per_dilation) != len(dilations) or (dilations < 1).any() or (per_dilation < 0).any():
        return "MiniRocket's dilations and their feature counts do not match"
    if len(per_combination) != MINIROCKET_KERNELS * len(dilations) or (per_combination < 1).any():
        return "MiniRocket's channel combinations are not one per kernel and dilation"
    if int(per_combination.sum(dtype=np.int64)) != len(channels) or (
        channels.size and (channels.min() < 0 or channels.max() >= n_channels)
    ):
        return f"MiniRocket's channel indices are not {len(channels)} channels of {n_channels}"
    if len(biases) != n_features:
        return f"MiniRocket has {len(biases)} biases for {n_features} features"
    return None


def _spectral_ridge_problem(model) -> str | None:
    """Why a ridge model's MiniRockets (``rocket_``, ``difference_rocket_``) cannot be the ones
    its fit made, or None."""
    for name in ("rocket_", "difference_rocket_"):
        rocket = vars(model).get(name)
        if rocket is None:
            continue
        n_channels = vars(model).get("n_channels_")
        if type(n_channels) is not int or n_channels < 1:
            return f"n_channels_ is {n_channels!r}, not a channel count"
        # the fit's choice (sktdi.ridge._rocket_transformer): univariate for one channel
        expected = "sktime.MiniRocket" if n_channels == 1 else "sktime.MiniRocketMultivariate"
        if _registered_name(NESTED_OBJECT_CLASSES, type(rocket)) != expected:
            return f"{name} is a {type(rocket).__name__}, not sktime's {expected[7:]}"
        problem = _minirocket_problem(vars(rocket).get("parameters"), n_channels)
        if problem is not None:
            return problem
    return None


# checks of a decoded object, by its registered name, beyond each value's type and shape
OBJECT_CHECKS = {
    "sktdi.SpectralRidgeClassifier": _spectral_ridge_problem,
    "sktdi.SpectralRidgeRegressor": _spectral_ridge_problem,
}


# ---- decoding -----------------------------------------------------------------------------


class _Reader:
    """Decodes what :class:`_Writer` encoded, taking each stored array and tensor once."""

    def __init__(self, arrays: dict, tensors: dict, source: str):
        self.arrays = dict(arrays)
        self.tensors = dict(tensors)
        self.source = source
        self.device_warned = False

    def _take(self, store: dict, key, what: str):
        if not isinstance(key, str) or key not in store:
            raise ValueError(
                f"{self.source}: the {what} {key!r} that the metadata refers to is missing "
                f"from the tensor files; the file was altered"
            )
        return store.pop(key)

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
        # a parameter added after the file was written takes the value the file's model had
        for name, value in getattr(cls, "_value_before_parameter_existed", {}).items():
            params.setdefault(name, value)
        if isinstance(params.get("device"), str):
            params["device"] = self._available_device(params["device"])
        obj = cls(**params)
        networks = {}
        for name, value in record["attributes"].items():
            if not isinstance(name, str) or not _ATTRIBUTE_NAME.match(name) or name in params:
                raise ValueError(f"{self.source}: invalid attribute name {name!r}")
            if isinstance(value, dict) and value.get(TYPE_KEY) == "skorch_net":
                networks[name] = value  # built last: it needs the other attributes
            else:
                obj.__dict__[name] = self.decode(value)
        for name, value in networks.items():
            obj.__dict__[name] = self._decode_net(obj, value)
        check = OBJECT_CHECKS.get(record["class"])
        problem = None if check is None else check(obj)
        if problem is not None:
            raise ValueError(f"{self.source}: {problem}; the file was altered")
        return obj

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
        decoder = {
            "float": self._decode_float,
            "tuple": lambda v: tuple(self.decode(v["items"])),
            "dict": lambda v: {self.decode(k): self.decode(item) for k, item in v["items"]},
            "numpy_scalar": self._decode_numpy_scalar,
            "ndarray": self._decode_array,
            "record": self._decode_record,
            "enum": lambda v: _registered_class(ENUM_CLASSES, v["class"], "enum")[v["name"]],
            "s4d_layer": self._decode_s4d_layer,
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
        if dtype.kind == "U":
            if not all(type(item) is str for item in value["values"]):
                raise ValueError(f"{self.source}: a string array holds non-strings")
            return np.array(value["values"], dtype=dtype).reshape(shape)
        if dtype.kind == "O":
            items = [self.decode(item) for item in value["values"]]
            array = np.empty(len(items), dtype=object)
            for i, item in enumerate(items):  # one by one: lists would be broadcast
                array[i] = item
            return array.reshape(shape)
        raise ValueError(f"{self.source}: an array of dtype {dtype} is not allowed")

    def _decode_record(self, value: dict):
        cls = _registered_class(RECORD_CLASSES, value["class"], "record class")
        return cls(**{name: self.decode(item) for name, item in value["fields"].items()})

    def _decode_s4d_layer(self, value: dict):
        from .ssm import S4D

        dtype = LAYER_DTYPES.get(value["dtype"])
        if dtype is None:
            raise ValueError(f"{self.source}: invalid filter bank dtype {value['dtype']!r}")
        layer = S4D(
            int(value["d_model"]),
            int(value["d_state"]),
            discretization=value["discretization"],
            # any initialization: the saved parameters replace it (a seeded generator, so the
            # caller's torch RNG is left alone)
            generator=torch.Generator().manual_seed(0),
            bidirectional=bool(value["bidirectional"]),
            dtype=dtype,
        )
        self._load_module_state(layer, value["state"])
        layer.requires_grad_(bool(value["requires_grad"]))
        layer.train(bool(value["training"]))
        return layer

    def _load_module_state(self, module, keys: dict) -> None:
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
            tensor = self._take(self.tensors, key, "tensor")
            reference = expected[name]
            if tensor.shape != reference.shape or tensor.dtype != reference.dtype:
                raise ValueError(
                    f"{self.source}: the saved tensor {name!r} is {tensor.dtype} "
                    f"{tuple(tensor.shape)}, the network's is {reference.dtype} "
                    f"{tuple(reference.shape)}; the file was altered"
                )
            state[name] = tensor
        module.load_state_dict(state, strict=True)

    def _available_device(self, device: str) -> str:
        """``device`` if this machine has it, else "cpu" (with one warning per load)."""
        if device == "auto":
            return device  # resolved on this machine at each use
        from ._training import resolve_device

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

    def _decode_net(self, owner, record: dict):
        from skorch.history import History

        from ._seeding import seeded

        module_kwargs = self.decode(record["module_kwargs"])
        net = _rebuild_net(owner, module_kwargs, record["split_seed"])
        if (
            type(net).__name__ != record["class"]
            or net.module.__name__ != record["module_class"]
            or _module_kwargs(net) != module_kwargs
        ):
            raise ValueError(
                f"{self.source}: the saved network ({record['class']} of "
                f"{record['module_class']}) does not match the one the saved parameters "
                f"build; the file was altered"
            )
        # initialize draws the base initialization from torch's RNG, which the saved weights
        # then replace: a fixed, forked seed leaves the caller's RNG as it was
        with seeded(0):
            net.initialize()
        self._load_module_state(net.module_, record["module_state"])
        net.module_.train(bool(record["module_training"]))
        self._load_optimizer_state(net, record)
        net.history_ = History(self.decode(record["history"]))
        if "classes_inferred_" in record:
            net.classes_inferred_ = self.decode(record["classes_inferred_"])
        return net

    def _load_optimizer_state(self, net, record: dict) -> None:
        groups = self.decode(record["optimizer_param_groups"])
        saved_ids = [index for group in groups for index in group["params"]]
        parameters = [p for group in net.optimizer_.param_groups for p in group["params"]]
        if len(saved_ids) != len(parameters):
            raise ValueError(
                f"{self.source}: the saved optimizer state covers {len(saved_ids)} parameters, "
                f"the network has {len(parameters)}; the file was altered"
            )
        parameter_of = dict(zip(saved_ids, parameters))
        state = {}
        for index, keys in record["optimizer_state"].items():
            parameter = parameter_of[int(index)]
            entries = {}
            for name, key in keys.items():
                tensor = self._take(self.tensors, key, "tensor")
                if tensor.dim() and tensor.shape != parameter.shape:  # "step" is a scalar
                    raise ValueError(
                        f"{self.source}: the optimizer's {name!r} for a parameter of shape "
                        f"{tuple(parameter.shape)} is {tuple(tensor.shape)}; the file was "
                        f"altered"
                    )
                entries[name] = tensor
            state[int(index)] = entries
        try:
            net.optimizer_.load_state_dict({"state": state, "param_groups": groups})
        except (ValueError, RuntimeError) as exc:
            raise ValueError(f"{self.source}: invalid optimizer state ({exc})") from exc
