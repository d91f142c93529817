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

The package is the container, one module per responsibility: ``save``/``load`` and whole
archives here; the members, their bounds and the zip's checks (:mod:`.archive`); the value
encoding, writer and reader (:mod:`.codec`); the allow-list, whose classes are named as
``"module:Class"`` strings and imported only when a file holds one, so importing the package
imports no estimator (:mod:`.allow_list`); the parameters of files of every era
(:mod:`.compat`); sktime's layout (:mod:`.sktime_layout`). Each sktdi class owns its saved state through
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

import hashlib
import io
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..utils.options import PARAMETERS_AT_FIT
from .allow_list import (
    ESTIMATOR_CLASSES,
    NESTED_OBJECT_CLASSES,
    RECORD_CLASSES,
    SAVED_CLASSES,
    _registered_class,
    _registered_name,
)
from .archive import (
    _DAMAGED_ZIP,
    ARRAYS_MEMBER,
    FORMAT_NAME,
    FORMAT_VERSION,
    METADATA_MEMBER,
    TENSORS_MEMBER,
    _check_zip,
    _raise_damaged,
    _read_data_members,
    _read_metadata,
    _warn_on_version_mismatch,
    _write_member,
    metadata_cap,
)
from .codec import _Reader, _Writer
from .compat import (
    OPTION_DEFAULTS,
    _check_parameters_as_fitted,
    changed_since_fit_error,
    current_params,
    remember_fit_parameters,
)
from .sktime_layout import (
    SKTIME_CLASS_MEMBER,
    SKTIME_OBJECT_MEMBER,
    _class_reference,
    _in_sktime_layout,
    _sktime_layout_members,
)

# what the package's modules and the estimators import from it (the archive, the codec, the
# allow-list, the compatibility of old files and the sktime layout each have a module)
__all__ = [
    "ESTIMATOR_CLASSES", "FORMAT_NAME", "FORMAT_VERSION", "NESTED_OBJECT_CLASSES",
    "OPTION_DEFAULTS", "PARAMETERS_AT_FIT", "RECORD_CLASSES", "SAVED_CLASSES",
    "SKTIME_OBJECT_MEMBER", "SaveMixin", "_registered_class", "changed_since_fit_error",
    "current_params", "dumps", "load", "loads", "metadata_cap", "remember_fit_parameters",
    "save_estimator",
]


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
        # mkstemp's file is its owner's alone (0600): give it the mode open() would, so
        # that a model saved to share is as readable as any file written beside it
        os.chmod(temporary, _mode_open_gives(path))
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_open_gives(path: Path) -> int:
    """The permission bits ``open(path, "wb")`` leaves: an existing file keeps its own, a new
    one gets 0o666 less the process's umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        pass
    umask = os.umask(0o022)  # the only way to read it is to set it: put it back at once
    os.umask(umask)
    return 0o666 & ~umask


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
