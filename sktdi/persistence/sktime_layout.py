"""sktime's zip around the archive: written for the sktime adapters, read without unpickling.

``BaseObject.save``'s zip of the class reference and the object: written for the sktime
adapters, and read without unpickling."""

from __future__ import annotations

import io
import zipfile

from .archive import _DAMAGED_ZIP, _raise_damaged, _write_member

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
