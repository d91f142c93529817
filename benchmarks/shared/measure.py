"""What the speed and memory benchmarks read of their own process: the kernel's memory
fields (/proc/self/status) and a reset of its resident high-water mark."""

from __future__ import annotations

import re
from pathlib import Path

STATUS = Path("/proc/self/status")


def _status_kib(field: str) -> int | None:
    """A memory field of /proc/self/status in KiB (None where there is no /proc)."""
    try:
        match = re.search(rf"^{field}:\s+(\d+) kB", STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _reset_peak() -> bool:
    """Reset the kernel's resident high-water mark (VmHWM) to the current RSS (Linux ≥ 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True
