"""The results file on disk: one row appended per finished cell, read back whole after a stop.

A run may stop at any moment: Ctrl-C, a kill, a lost machine. What it leaves must read back:

- each row is appended with one ``write`` of its already-formatted CSV text (header included
  for the first), then synced, so a stop leaves at worst the last row cut short;
- a reader drops a cut-short last row with a warning (its cell counts as not finished), and a
  resumed run removes it from the file before appending (:func:`repair_results`);
- a file that is rewritten whole (the results file without the rows of cells about to rerun,
  a tsml-eval results file, ``settings.json``, ``run.json``) is written beside its target and
  renamed over it (:func:`write_atomic`), so a stop leaves the old file or the new one.
"""

from __future__ import annotations

import csv
import io
import os
import re
import threading
import warnings
from pathlib import Path

# the results file's columns, in order (KEY's first: sktdi.benchmark.cells); "traceback" is
# empty for ok rows; "config" holds the cell's settings (sktdi.benchmark.settings): a resumed
# run reuses a row only when they match
COLUMNS = [
    "dataset", "mode", "ratio", "resample", "estimator", "n_train", "n_test", "n_classes",
    "accuracy", "balanced_accuracy", "nll", "brier", "ece", "fit_seconds", "predict_seconds",
    "status", "error", "traceback", "config", "finished_at", "tdi_aligned", "tdi_action",
    "warnings",
]


class TruncatedResultsWarning(UserWarning):
    """A results file ends in a row cut short (a run stopped while writing it)."""


def complete_part(data: bytes) -> tuple[bytes, bytes]:
    """``data`` (a CSV file's bytes) split into its complete records and a cut-short last one.

    A record ends at a newline outside quotes (pandas quotes a field holding newlines, such as
    a traceback); a file cut inside a row ends without that newline, or inside an open quote.
    UTF-8 never puts a quote or a newline byte inside another character, so bytes can be
    scanned as they are.

    Examples
    --------
    >>> from sktdi.benchmark.results_file import complete_part
    >>> complete_part(b'a,b\\n1,"x\\ny"\\n')
    (b'a,b\\n1,"x\\ny"\\n', b'')
    >>> complete_part(b'a,b\\n1,2\\n3,"x\\n')
    (b'a,b\\n1,2\\n', b'3,"x\\n')
    """
    # the common case, a whole file, in C: it ends a record outside every quote
    if data.endswith(b"\n") and data.count(b'"') % 2 == 0:
        return data, b""
    quoted, end = False, 0
    for match in re.finditer(rb'["\n]', data):
        if match.group() == b'"':
            quoted = not quoted  # an escaped quote ("") toggles twice
        elif not quoted:
            end = match.end()
    return data[:end], data[end:]


def _cut_message(path: Path, tail: bytes, action: str) -> str:
    return (
        f"{path} ends in a row cut short ({len(tail)} bytes: a run stopped while writing it); "
        f"{action}"
    )


def read_results(path: str | Path, **read_csv):
    """The results table in ``path``, without a cut-short last row (a warning says so).

    A missing or empty file, or one holding no whole row, gives an empty table of
    :data:`COLUMNS`. The floats are read exactly as written (pandas' round-trip parser).

    Examples
    --------
    >>> import tempfile, pathlib, warnings
    >>> from sktdi.benchmark.results_file import read_results
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> _ = path.write_text("dataset,accuracy\\nGunPoint,0.9\\nArrowHe")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table = read_results(path)
    >>> list(table["dataset"]), "cut short" in str(caught[0].message)
    (['GunPoint'], True)
    """
    import pandas as pd

    path = Path(path)
    data = path.read_bytes() if path.is_file() else b""
    whole, tail = complete_part(data)
    if tail:
        warnings.warn(_cut_message(path, tail, "it is left out: its cell counts as not finished"), TruncatedResultsWarning,
                      stacklevel=2)
    if not whole.strip():
        return pd.DataFrame(columns=COLUMNS)
    read_csv.setdefault("float_precision", "round_trip")
    return pd.read_csv(io.BytesIO(whole), **read_csv)


def repair_results(path: str | Path) -> int:
    """Cut a cut-short last row off the results file, so that the next row appended starts a
    line of its own; return the bytes removed (0: the file was whole, or is missing).

    Examples
    --------
    >>> import tempfile, pathlib, warnings
    >>> from sktdi.benchmark.results_file import repair_results
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> _ = path.write_text("dataset\\nGunPoint\\nArr")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     repair_results(path), path.read_text()
    (3, 'dataset\\nGunPoint\\n')
    """
    path = Path(path)
    if not path.is_file():
        return 0
    whole, tail = complete_part(path.read_bytes())
    if tail:
        warnings.warn(_cut_message(path, tail, "it is removed: its cell is computed again"),
                      TruncatedResultsWarning, stacklevel=2)
        os.truncate(path, len(whole))
    return len(tail)


def header_columns(path: str | Path) -> list[str] | None:
    """The column names on the results file's first line; None when there is no whole line
    (an empty file, or a first row cut short)."""
    with open(path, "rb") as file:
        first = file.readline()
    if not first.endswith(b"\n"):
        return None
    return next(csv.reader([first.decode("utf-8", errors="replace")]), [])


def append_row(path: str | Path, row: dict) -> None:
    """Append one cell's row to the results file (with the header when the file is empty),
    in one ``write`` of its formatted text, synced to disk before returning."""
    import numpy as np
    import pandas as pd

    path = Path(path)
    header = not (path.is_file() and path.stat().st_size > 0)
    # to_csv quotes fields holding newlines (tracebacks), so the reader gets them back whole
    frame = pd.DataFrame([{c: row.get(c, np.nan) for c in COLUMNS}])
    data = frame.to_csv(index=False, header=header, lineterminator="\n").encode("utf-8")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        written = os.write(descriptor, data)
        while written < len(data):  # a regular file takes it whole but for a full disk
            written += os.write(descriptor, data[written:])
        # a lost machine would otherwise lose rows it reported as finished
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, renamed over it: a
    reader (or a run stopped meanwhile) sees the old file or the new one, never half of one.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark.results_file import write_atomic
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a" / "run.json"
    >>> write_atomic(path, "{}\\n")
    >>> path.read_text(), [p.name for p in path.parent.iterdir()]
    ('{}\\n', ['run.json'])
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a name of this process and thread alone; open() gives it the mode any new file gets
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
