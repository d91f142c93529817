"""How the summary writes its numbers: p-values, differences in points, ratios, sections.

The bottom of the benchmark's text: :mod:`.answer` and :mod:`.summary` both write with these,
and this module imports nothing of the package, so the sections' modules import it, never
each other's helpers.
"""

from __future__ import annotations

import math


def format_p_value(p: float) -> str:
    """A p-value with 2 significant digits ("< 0.001" below that).

    Examples
    --------
    >>> from sktdi.benchmark.formatting import format_p_value
    >>> format_p_value(0.41234), format_p_value(0.031), format_p_value(1.0), format_p_value(1e-5)
    ('0.41', '0.031', '1.0', '< 0.001')
    """
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < 0.001:
        return "< 0.001"
    return f"{p:#.2g}".rstrip(".")


def p_text(p: float) -> str:
    """"p = 0.25", or "p < 0.001" (not "p = < 0.001").

    Examples
    --------
    >>> from sktdi.benchmark.formatting import p_text
    >>> p_text(0.25), p_text(1e-6)
    ('p = 0.25', 'p < 0.001')
    """
    text = format_p_value(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def format_seconds(seconds: float) -> str:
    """A duration with 3 significant digits and a readable unit.

    Examples
    --------
    >>> from sktdi.benchmark.formatting import format_seconds
    >>> format_seconds(4.00114), format_seconds(0.000675), format_seconds(123.4)
    ('4.00 s', '0.675 ms', '123 s')
    """
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    if seconds == 0:
        return "0 s"
    # ms down to 0.1 ms ("0.675 ms" reads better than "675 µs"), µs below
    for unit, scale, above in (("s", 1.0, 1.0), ("ms", 1e-3, 1e-4), ("µs", 1e-6, 0.0)):
        if abs(seconds) >= above:
            value = seconds / scale
            return f"{value:.0f} {unit}" if abs(value) >= 100 else f"{value:#.3g} {unit}"
    raise AssertionError  # pragma: no cover


def format_points(fraction: float) -> str:
    """A difference of accuracies (a fraction) in signed points.

    Examples
    --------
    >>> from sktdi.benchmark.formatting import format_points
    >>> format_points(0.0123), format_points(float("nan"))
    ('+1.2 pts', 'n/a')
    """
    return "n/a" if not math.isfinite(fraction) else f"{100 * fraction:+.1f} pts"


def format_ratio(ratio: float) -> str:
    """A training ratio as the report writes it: ``0.1``, ``1``."""
    return f"{ratio:g}"


def section(title: str, body: str) -> str:
    """A titled block of the text report, trailing spaces removed."""
    body = "\n".join(line.rstrip() for line in body.splitlines())
    return f"== {title} ==\n{body}"
