"""``run.json``: how a run's folder was computed, one session per command that computed cells.

A run may take several commands: one stopped (Ctrl-C, a time limit), then resumed. Each adds a
session to ``run.json``: its command, when it started and finished, its wall time, the cost
model's expected seconds for its cells, the cells it computed, whether it was interrupted,
and where it ran (``--n-jobs``, the CPU count, the processor, the libraries' versions).

The top level keeps the fields a single run had, so readers of one run's record read a
resumed run's totals: ``wall_seconds`` and ``cells_computed`` are summed over the sessions;
``started`` and ``expected_seconds`` are the first session's (its estimate covered the whole
grid it set out to compute, and a resumed session's estimate covers the same cells again: a
sum would count them twice); every other field is the latest session's. A ``run.json`` written before sessions (one dict, written when its run finished)
reads as one session that was not interrupted.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path

from ..utils.version import __version__
from .results_file import write_atomic

# the session fields summed into the record's top level
TOTALS = ("wall_seconds", "cells_computed")
# the session fields whose record value is the first session's
FIRSTS = ("started", "expected_seconds")


def read_sessions(path: str | Path) -> list[dict]:
    """The sessions recorded in ``run.json`` (none when it is missing).

    An unreadable file is moved aside to ``run.json.unreadable``, with a line on stderr, so
    that a new record does not silently replace it.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> from sktdi.benchmark.sessions import read_sessions
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.json"
    >>> _ = path.write_text(json.dumps({"command": "sktdi benchmark", "wall_seconds": 9.5}))
    >>> read_sessions(path)  # an older run.json: one finished run
    [{'command': 'sktdi benchmark', 'wall_seconds': 9.5, 'interrupted': False}]
    """
    path = Path(path)
    if not path.is_file():
        return []
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        record, problem = None, str(exc)
    else:
        problem = "not a JSON object"
    if isinstance(record, dict) and isinstance(record.get("sessions"), list):
        return [dict(s) for s in record["sessions"] if isinstance(s, dict)]
    if isinstance(record, dict):
        # written only once its run had finished: that run was not interrupted
        return [{**record, "interrupted": bool(record.get("interrupted", False))}]
    aside = path.with_name(path.name + ".unreadable")
    os.replace(path, aside)
    print(f"cannot read {path} ({problem}); moved it to {aside} and started a new record",
          file=sys.stderr)
    return []


def combined_record(sessions: list[dict]) -> dict:
    """``run.json``'s content for ``sessions``: the latest session's fields, the totals over
    all of them (:data:`TOTALS`), the first one's start and estimate (:data:`FIRSTS`), and
    the sessions themselves.

    Examples
    --------
    >>> from sktdi.benchmark.sessions import combined_record
    >>> first = {"command": "a", "started": "t0", "wall_seconds": 10.0, "cells_computed": 3,
    ...          "expected_seconds": 12.0, "interrupted": True}
    >>> again = {"command": "a", "started": "t1", "wall_seconds": 5.0, "cells_computed": 1,
    ...          "expected_seconds": 4.0, "interrupted": False}
    >>> record = combined_record([first, again])
    >>> record["wall_seconds"], record["cells_computed"], record["started"], record["interrupted"]
    (15.0, 4, 't0', False)
    >>> len(record["sessions"]), record["n_sessions"]
    (2, 2)
    """
    record = {key: value for key, value in sessions[-1].items()}
    for key in TOTALS:
        values = [s[key] for s in sessions if isinstance(s.get(key), (int, float))]
        if values:
            total = sum(values)
            record[key] = round(total, 1) if isinstance(total, float) else total
    for key in FIRSTS:
        firsts = [s[key] for s in sessions if s.get(key) is not None]
        if firsts:
            record[key] = firsts[0]
    record["n_sessions"] = len(sessions)
    record["sessions"] = sessions
    return record


def add_session(path: str | Path, session: dict) -> dict:
    """Append ``session`` to the record in ``path`` (``run.json``) and write it whole,
    atomically; return the new record."""
    record = combined_record([*read_sessions(path), session])
    write_atomic(path, json.dumps(record, indent=1) + "\n")
    return record


def library_versions() -> dict:
    """The versions of what computed a run: sktdi and the libraries its results depend on."""
    from importlib.metadata import PackageNotFoundError, version

    found = {"sktdi": __version__}
    for name in ("torch", "numpy", "scikit-learn", "skorch", "numba", "sktime", "aeon"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def processor() -> dict:
    """The processor a run's numbers came from: its model and the instruction set torch's CPU
    kernels dispatch to. A deep model trained with the same seed on another processor is
    another draw (torch and numba sum in another order there; docs/tdi_real.md)."""
    import platform

    import torch

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                model,
            )
    except OSError:  # not Linux
        pass
    return {"model": model, "torch_capability": torch.backends.cpu.get_cpu_capability()}


class StopSignals:
    """A block in which SIGTERM and SIGHUP stop a run as Ctrl-C does: KeyboardInterrupt.

    A batch scheduler's time limit sends SIGTERM, a closed terminal SIGHUP; by default either
    ends the process at once, and its session goes unrecorded. Inside the block the run stops
    as on Ctrl-C instead: its workers stopped, its session recorded, a line saying how to
    summarize what finished. A signal whose handler is not the default (``nohup``'s ignored
    SIGHUP, a caller's own) is left alone, and so is every signal outside the main thread,
    where Python cannot set handlers. :attr:`exit_status` is the shell's status of the signal
    received (130 for Ctrl-C, 143 for SIGTERM).

    Examples
    --------
    >>> import os, signal
    >>> from sktdi.benchmark.sessions import StopSignals
    >>> try:
    ...     with StopSignals() as stop:
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ... except KeyboardInterrupt:
    ...     print("stopped", stop.exit_status)
    stopped 143
    >>> signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    True
    """

    NAMES = ("SIGTERM", "SIGHUP")

    def __init__(self):
        self.received = signal.SIGINT  # KeyboardInterrupt without a handler of ours: Ctrl-C
        self._previous: dict = {}

    @property
    def exit_status(self) -> int:
        return 128 + int(self.received)

    def _stop(self, number, frame):
        self.received = number
        raise KeyboardInterrupt

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        for name in self.NAMES:
            number = getattr(signal, name, None)  # Windows has no SIGHUP
            if number is not None and signal.getsignal(number) is signal.SIG_DFL:
                self._previous[number] = signal.signal(number, self._stop)
        return self

    def __exit__(self, *exc):
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()
        return False
