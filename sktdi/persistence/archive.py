"""The file's container: its members, the bounds of reading them, and the checks of the zip."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import warnings
import zipfile
import zlib

import torch

from .allow_list import ESTIMATOR_CLASSES

FORMAT_NAME = "sktdi-estimator"
FORMAT_VERSION = 1  # raise on any change that an older sktdi could not read
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
