"""The long-series study's audio-like tasks (benchmarks/long_series, issue 38): long series
with few examples, the S4D network's own ground, shared by the studies that fit on them
(``benchmarks/long_series/long_series.py``, ``benchmarks/checked_network/first_beat.py``)."""

from __future__ import annotations

import numpy as np

TASKS = ("formants", "chirps", "rhythms")
N_CLASSES, N_TRAIN, N_TEST = 5, 4, 10  # per class
# the event's power against the noise's where it sounds, dB: per task, so that no task sits
# at the ceiling or at chance for every model (set on the training series of seed 0)
SNR_DB = {"formants": -6.0, "chirps": 6.0, "rhythms": 0.0}


def _resonator(signal: np.ndarray, freq: float, radius: float = 0.97) -> np.ndarray:
    """``signal`` (n, L) through a two-pole resonator at ``freq`` cycles/step."""
    from scipy.signal import lfilter

    a = [1.0, -2.0 * radius * np.cos(2 * np.pi * freq), radius**2]
    return lfilter([1.0 - radius], a, signal, axis=-1)  # (n, L)


def _in_noise(rng, event: np.ndarray, mask: np.ndarray, snr_db: float) -> np.ndarray:
    """``event`` (n, L), sounding where ``mask`` (n, L) is set, scaled to ``SNR_DB`` against
    unit white noise there (``snr_db``), plus the noise; each series scaled to unit variance."""
    power = (event**2 * mask).sum(-1, keepdims=True) / mask.sum(-1, keepdims=True)  # (n, 1)
    event = event / np.sqrt(power + 1e-12) * 10 ** (snr_db / 20)
    x = event * mask + rng.normal(size=event.shape)  # (n, L)
    return x / x.std(axis=-1, keepdims=True)


def audio_like_task(task: str, length: int, n_per_class: int, random_state) -> tuple:
    """``n_per_class`` series per class of ``task`` at ``length`` steps: X (n, 1, L), y str.

    One seed draws the task (the classes' formants) and the series; a study draws training and
    test series in one call and splits them, so both come from the same task.
    """
    rng = np.random.default_rng(random_state)
    y = np.repeat(np.arange(N_CLASSES), n_per_class)  # (n,)
    n = len(y)
    t = np.arange(length)  # (L,)
    mask = np.zeros((n, length))  # (n, L): where the event sounds
    if task == "formants":
        f1 = rng.uniform(0.02, 0.12, size=N_CLASSES)  # (K,) first formant per class
        f2 = rng.uniform(0.15, 0.40, size=N_CLASSES)  # (K,)
        pulses = np.zeros((n, length))
        for i in range(n):
            period = rng.uniform(40, 120)  # steps: a pitch of 0.008 to 0.025 cycles/step
            beats = np.cumsum(period * rng.uniform(0.95, 1.05, size=length // 30 + 2))
            pulses[i, beats[beats < length].astype(int)] = 1.0
            voiced = int(length * rng.uniform(0.4, 0.8))
            onset = rng.integers(0, length - voiced + 1)
            mask[i, onset : onset + voiced] = 1.0
        event = np.empty_like(pulses)
        for k in range(N_CLASSES):
            members = y == k
            event[members] = _resonator(pulses[members], f1[k]) + 0.7 * _resonator(
                pulses[members], f2[k]
            )
    elif task == "chirps":
        u = np.linspace(0.0, 1.0, max(int(0.15 * length), 8))  # the event's own time
        shapes = np.stack([
            u,  # rising
            1.0 - u,  # falling
            np.full_like(u, 0.5),  # flat
            1.0 - np.abs(2.0 * u - 1.0),  # up, then down
            0.5 + 0.3 * np.sin(2 * np.pi * 3 * u),  # vibrato
        ])  # (K, M) in [0, 1]
        event = np.zeros((n, length))
        for i in range(n):
            lo = rng.uniform(0.05, 0.08)
            span = rng.uniform(0.1, 0.14)
            track = lo + span * shapes[y[i]]  # (M,) cycles/step
            tone = np.sin(2 * np.pi * np.cumsum(track) + rng.uniform(0, 2 * np.pi))
            onset = rng.integers(0, length - len(u) + 1)
            event[i, onset : onset + len(u)] = tone * np.hanning(len(u))
            mask[i, onset : onset + len(u)] = 1.0
    elif task == "rhythms":
        periods = np.array([150, 200, 260, 340, 440])  # (K,) steps between bursts
        burst = 30
        event = np.zeros((n, length))
        mask[:] = 1.0  # the pattern fills the series
        for i in range(n):
            carrier = np.sin(2 * np.pi * rng.uniform(0.05, 0.3) * t)  # (L,)
            starts = np.cumsum(periods[y[i]] * rng.uniform(0.95, 1.05, size=length // 100 + 2))
            starts = (starts - rng.uniform(0, periods[y[i]])).astype(int)
            for s in starts[(starts > -burst) & (starts < length)]:
                lo, hi = max(s, 0), min(s + burst, length)
                event[i, lo:hi] = carrier[lo:hi] * np.hanning(burst)[lo - s : hi - s]
    else:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    X = _in_noise(rng, event, mask, SNR_DB[task])
    return X[:, np.newaxis, :].astype(np.float32), y.astype(str)


def split(task: str, length: int, seed: int, n_train: int = N_TRAIN):
    """Training (``n_train`` per class) and test (N_TEST per class) series of one task draw
    (the study's draws at ``n_train=N_TRAIN``)."""
    X, y = audio_like_task(task, length, n_train + N_TEST, random_state=(seed, length))
    per_class = n_train + N_TEST
    train = np.concatenate(
        [np.arange(k * per_class, k * per_class + n_train) for k in range(N_CLASSES)]
    )
    test = np.setdiff1d(np.arange(len(y)), train)
    return X[train], y[train], X[test], y[test]
