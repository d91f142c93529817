"""What TDI did to one layer, as a record (``tdi_reports_``) and in words."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .peaks import SpectralPeak


@dataclass
class TDIReport:
    """What TDI did to one layer: peaks found, modes per peak, alignment before/after.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.ssm import S4D
    >>> from sktdi.tdi import align_layer, fisher_log_power
    >>> report = align_layer(S4D(16, 32), fisher_log_power(X, y))
    >>> print(str(report).splitlines()[0])
    TDI from a fisher-log-power statistic (tiled): 3 peak(s); per channel 12 aligned + 4 spread of 16 modes
    """

    kind: str
    peaks: list[SpectralPeak]
    modes_per_channel: int
    n_aligned_modes: int
    n_spread_modes: int
    gain_reference: str | None
    l_spec_init: float = float("nan")
    l_spec_final: float = float("nan")
    l_spec_reference: float = float("nan")
    refine_steps: int = 0
    refine_seconds: float = 0.0
    n_aligned_channels: int | None = None
    notes: list[str] = field(default_factory=list)
    coverage: str = "tiled"
    n_channels: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """What an aligned channel holds, in words (every estimator's
        ``init_report_["summary"]`` ends with it).

        Examples
        --------
        >>> from sktdi.datasets import planted_frequency_task
        >>> X, y = planted_frequency_task(20, random_state=0)
        >>> from sktdi.ssm import S4D
        >>> from sktdi.tdi import align_layer, fisher_log_power
        >>> report = align_layer(S4D(4, 16), fisher_log_power(X, y), coverage="base", spread=0.5)
        >>> print(report.describe())
        4 of 8 modes are the base's own (its lowest frequencies, kept as built) and 4 sit on the statistic's 3 peaks (f = 0.305, 0.367, 0.445 cycles/sample, strongest first); the layer keeps the base's kernel energy.
        """
        where = ", ".join(f"{p.freq:.3f}" for p in self.peaks[:4])
        many = len(self.peaks) > 1
        peaks = (
            f"the statistic's {len(self.peaks)} peak" + ("s" if many else "")
            + f" (f = {where}{', ...' if len(self.peaks) > 4 else ''} cycles/sample"
            + (", strongest first" if many else "")
            # f = 0 is a peak like any other, where the classes differ in level or slow trend
            + ("; f = 0 is the series' level and slow trends)"
               if any(p.freq == 0 for p in self.peaks[:4]) else ")")
        )
        n, aligned, spread = self.modes_per_channel, self.n_aligned_modes, self.n_spread_modes

        def modes(k: int) -> str:
            return f"{k} of {n} modes" if k < n else f"all {n} modes"

        def sit(k: int) -> str:
            return "sits" if k == 1 else "sit"

        if self.coverage == "alias":
            text = (
                f"its aliased modes (about {aligned} of {n}) sit on {peaks}; every other mode "
                "keeps its pole as built"
                if aligned
                else f"all {n} modes keep their poles as built (no aliased mode to move)"
            )
        elif self.coverage == "gain":
            text = (
                f"all {n} modes keep the base's poles, and their gains follow {peaks}"
                if self.peaks
                else f"all {n} modes keep the base's poles and gains"
            )
        elif not aligned and self.coverage == "base":
            text = f"all {n} modes are the base's own, kept as built (spread=1)"
        elif not aligned:
            text = f"the {n} modes tile the whole band (the statistic has no clear peak)"
        elif self.coverage == "base" and spread:
            text = (
                f"{modes(spread)} are the base's own (its lowest frequencies, kept as built) and "
                f"{aligned} {sit(aligned)} on {peaks}"
            )
        elif spread:
            text = (
                f"{modes(aligned)} {sit(aligned)} on {peaks} and {spread} tile the whole band"
            )
        else:
            text = f"{modes(aligned)} {sit(aligned)} on {peaks}"
        if self.gain_reference:
            text += "; the layer keeps the base's kernel energy"
        return text + "."

    def __str__(self) -> str:
        if self.coverage == "alias":
            per_channel = (
                f"per changed channel {self.n_aligned_modes} moved + {self.n_spread_modes} kept "
                f"of {self.modes_per_channel} modes (means)"
            )
        else:
            per_channel = (
                f"per channel {self.n_aligned_modes} aligned + {self.n_spread_modes} spread of "
                f"{self.modes_per_channel} modes"
            )
        lines = [
            f"TDI from a {self.kind} statistic ({self.coverage}): {len(self.peaks)} peak(s); "
            + per_channel,
        ]
        for p in self.peaks:
            lines.append(
                f"  peak at f={p.freq:.4f} (band {p.left_freq:.4f}-{p.right_freq:.4f}), "
                f"height {p.height:.3g}, mass {p.mass:.3g}: {p.n_modes} mode(s)"
            )
        lines.append(
            f"  spectral mismatch (1 - cosine of the layer's power response with the target): "
            f"reference init {self.l_spec_reference:.3f}, peak init "
            f"{self.l_spec_init:.3f}, after {self.refine_steps} refinement step(s) "
            f"{self.l_spec_final:.3f}"
        )
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)
