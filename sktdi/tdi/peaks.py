"""The task statistic's peaks, and how many modes each gets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from .spectra import TaskSpectrum


@dataclass(frozen=True)
class SpectralPeak:
    """A peak of a task statistic; frequencies in cycles/sample.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import find_spectral_peaks, fisher_log_power
    >>> peak = find_spectral_peaks(fisher_log_power(X, y))[0]
    >>> peak.left_freq <= peak.freq <= peak.right_freq
    True
    """

    freq: float
    height: float
    prominence: float
    left_freq: float
    right_freq: float
    mass: float
    n_modes: int = 0


def find_spectral_peaks(
    spectrum: TaskSpectrum, *, max_peaks: int = 8, min_prominence: float = 0.1
) -> list[SpectralPeak]:
    """Dominant peaks of the statistic's excess over its median, largest mass first.

    A peak must rise ``min_prominence`` × (max excess) above its surroundings
    (scipy.signal.find_peaks) and exceed the spectrum's significance ``threshold``; the ends of
    the band count as candidate peaks. Its band is the
    width at half prominence (scipy.signal.peak_widths); its mass, the excess summed over it.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import find_spectral_peaks, fisher_log_power
    >>> sorted(round(p.freq, 2) for p in find_spectral_peaks(fisher_log_power(X, y)))
    [0.3, 0.37, 0.45]
    """
    values = np.asarray(spectrum.values, dtype=np.float64)
    freqs = np.asarray(spectrum.freqs, dtype=np.float64)
    excess = np.clip(values - np.median(values), 0, None)  # (F,)
    if excess.size == 0 or excess.max() <= 0:
        return []
    padded = np.concatenate([[0.0], excess, [0.0]])  # lets a maximum at f=0 or f=0.5 count
    idx, props = signal.find_peaks(padded, prominence=min_prominence * excess.max())
    if len(idx) == 0:
        return []
    _, _, left, right = signal.peak_widths(
        padded,
        idx,
        rel_height=0.5,
        prominence_data=(props["prominences"], props["left_bases"], props["right_bases"]),
    )
    grid = np.arange(len(freqs))

    def to_freq(position: np.ndarray) -> np.ndarray:
        return np.interp(position - 1, grid, freqs)

    peaks = []
    for i, k in enumerate(idx):
        lo, hi = int(np.floor(left[i])), int(np.ceil(right[i]))
        mass = float(padded[max(lo, 1) : min(hi, len(freqs)) + 1].sum())
        peaks.append(
            SpectralPeak(
                freq=float(freqs[k - 1]),
                height=float(values[k - 1]),
                prominence=float(props["prominences"][i]),
                left_freq=float(to_freq(left[i])),
                right_freq=float(to_freq(right[i])),
                mass=mass,
            )
        )
    peaks = [p for p in peaks if p.height > spectrum.threshold]
    peaks.sort(key=lambda p: -p.mass)
    return peaks[:max_peaks]


def allocate_modes(masses: list[float], n_modes: int) -> list[int]:
    """Split ``n_modes`` among peaks in proportion to mass (largest remainder, ≥ 1 each while
    modes last; the heaviest peaks are served first).

    Examples
    --------
    >>> from sktdi.tdi import allocate_modes
    >>> allocate_modes([3.0, 1.0], 8)
    [6, 2]
    """
    masses = np.asarray(masses, dtype=np.float64)
    if len(masses) == 0 or n_modes <= 0:
        return [0] * len(masses)
    exact = n_modes * masses / masses.sum()
    counts = np.floor(exact).astype(int)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: n_modes - counts.sum()]] += 1
    # every peak gets a mode if there are enough: take from the largest allocations
    for i in np.flatnonzero(counts == 0):
        donor = int(np.argmax(counts))
        if counts[donor] <= 1:
            break
        counts[donor] -= 1
        counts[i] += 1
    return counts.tolist()
