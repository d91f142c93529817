"""Task spectral statistics: where in frequency does the information about the target lie?

- classification: Fisher ratio of log-power between classes, per frequency bin;
- regression: for scalar targets, the larger of the linear coherence ``|corr(U(f), y)|²`` and the
  power correlation ``corr(log|U(f)|², y)²`` (targets driven by band power have random phase, so the
  linear term alone is blind to them); for sequence targets, the magnitude-squared coherence.

All spectra come from one short-time Fourier transform (scipy.signal.stft) with Welch's
segmentation, so power, phase and the frequency grid agree between statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import signal, stats

from ..utils.sampling import subsample_indices
from ..utils.validation import as_labels, as_sequences, as_targets, check_lengths

# Welch's method for sequences longer than this, a single-segment periodogram below
PERIODOGRAM_MAX_LENGTH = 256
DEFAULT_NPERSEG = 256


@dataclass(frozen=True)
class TaskSpectrum:
    """A task statistic on a frequency grid.

    Attributes
    ----------
    freqs : ndarray (F,)
        Frequencies in cycles/sample, from 0 to at most 0.5.
    values : ndarray (F,)
        The statistic pooled over channels (mean), >= 0. Larger = more task information.
    channel_values : ndarray (n_channels, F)
        The statistic per input channel.
    kind : str
        "fisher-log-power", "cross-spectrum" or "coherence".
    estimator : dict
        How the spectra were estimated: method, window, nperseg, noverlap, n_segments.
    n_samples, length : int
        Size of the data the statistic was estimated from.
    components : dict of str -> ndarray (F,)
        Pooled parts that make up ``values`` where there are several (regression).
    threshold : float
        The value a single bin must exceed to be significant at level ``alpha`` under the
        null of no task information (Bonferroni over the bins; ``inf`` when the data cannot
        support any test, e.g. one series per class; 0 when no test applies).

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import fisher_log_power
    >>> spectrum = fisher_log_power(X, y)
    >>> spectrum.freqs.shape, spectrum.channel_values.shape, spectrum.kind
    ((65,), (1, 65), 'fisher-log-power')
    """

    freqs: np.ndarray
    values: np.ndarray
    channel_values: np.ndarray
    kind: str
    estimator: dict
    n_samples: int
    length: int
    components: dict = field(default_factory=dict)
    threshold: float = 0.0

    @property
    def n_channels(self) -> int:
        return self.channel_values.shape[0]

    def __repr__(self) -> str:
        # short: an estimator's repr and get_params show it (its arrays run to kilobytes)
        return (
            f"TaskSpectrum(kind={self.kind!r}, {len(self.freqs)} frequencies, "
            f"{self.n_channels} channel{'s' if self.n_channels != 1 else ''}, "
            f"n_samples={self.n_samples}, length={self.length})"
        )

    def __eq__(self, other) -> bool:
        # by value (the dataclass's own comparison would ask numpy for one truth value);
        # a saved and loaded spectrum equals the one saved
        if type(other) is not type(self):
            return NotImplemented
        arrays = ("freqs", "values", "channel_values")
        if not all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays):
            return False
        if sorted(self.components) != sorted(other.components):
            return False
        return all(
            np.array_equal(self.components[k], other.components[k]) for k in self.components
        ) and (self.kind, self.estimator, self.n_samples, self.length, self.threshold) == (
            other.kind, other.estimator, other.n_samples, other.length, other.threshold
        )

    __hash__ = object.__hash__  # identity: the arrays are not hashable

    def significant(self) -> np.ndarray:
        """Boolean mask of the bins whose value exceeds ``threshold``."""
        return self.values > self.threshold

    def dominant_frequency(self) -> float:
        """Frequency (cycles/sample) of the largest value."""
        return float(self.freqs[int(np.argmax(self.values))])

    @classmethod
    def from_frequencies(
        cls,
        freqs,
        *,
        weights=None,
        width: float = 0.01,
        n_bins: int = 257,
    ) -> TaskSpectrum:
        """A statistic from what is known about the task rather than estimated from data:
        Gaussian bumps of standard deviation ``width`` (cycles/sample) at ``freqs``, heights
        ``weights`` (default equal), on ``n_bins`` frequencies from 0 to 0.5.

        For domain knowledge ("the information is in the 8–12 Hz band": at a 100 Hz sampling
        rate, a bump at 0.1 cycles/sample, width 0.01) and for a spectrum carried over from a
        larger, related dataset; pass it as ``TDIOptions(spectrum=...)``.

        Examples
        --------
        >>> from sktdi.tdi import TaskSpectrum
        >>> spectrum = TaskSpectrum.from_frequencies([0.1, 0.3], weights=[1, 2])
        >>> round(spectrum.dominant_frequency(), 2)
        0.3
        """
        centres = np.atleast_1d(np.asarray(freqs, dtype=np.float64))  # (P,)
        heights = np.ones_like(centres) if weights is None else np.asarray(weights, float)
        if centres.size == 0 or centres.ndim != 1:
            raise ValueError("freqs must be a non-empty 1-D list of frequencies")
        if np.any(centres < 0) or np.any(centres > 0.5):
            raise ValueError(
                f"freqs must lie in [0, 0.5] cycles/sample (0.5 = Nyquist), got {centres.tolist()}"
            )
        if heights.shape != centres.shape or np.any(heights <= 0):
            raise ValueError("weights must be positive, one per frequency")
        if not width > 0:
            raise ValueError(f"width must be positive, got {width}")
        grid = np.linspace(0.0, 0.5, int(n_bins))  # (F,)
        bumps = heights[:, None] * np.exp(-0.5 * ((grid - centres[:, None]) / width) ** 2)
        values = bumps.sum(axis=0)  # (F,)
        return cls(
            freqs=grid,
            values=values,
            channel_values=values[np.newaxis].copy(),
            kind="given",
            estimator={"method": "given", "width": float(width)},
            n_samples=0,
            length=2 * (int(n_bins) - 1),
        )


def _segments(x: np.ndarray, seg: int, window: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Welch's segmentation of x (..., L) as an STFT: segments of ``seg`` samples, 50% overlap
    when more than one fits, no padding. Returns (freqs, Z (..., F, T), overlap)."""
    overlap = seg // 2 if seg < x.shape[-1] else 0
    freqs, _, Z = signal.stft(
        x,
        window=window,
        nperseg=seg,
        noverlap=overlap,
        detrend=False,
        return_onesided=True,
        boundary=None,
        padded=False,
        axis=-1,
    )
    return freqs, Z, overlap


def _stft(
    X: np.ndarray, method: str, nperseg: int | None, window: str
) -> tuple[np.ndarray, np.ndarray, dict]:
    """X (n, C, L) -> (freqs (F,), Z (n, C, F, T) complex, estimator settings)."""
    length = X.shape[-1]
    if method == "auto":
        method = "periodogram" if length <= PERIODOGRAM_MAX_LENGTH else "welch"
    if method == "periodogram":
        seg = length
    elif method == "welch":
        seg = min(length, nperseg or DEFAULT_NPERSEG)
    else:
        raise ValueError(f"method must be 'auto', 'welch' or 'periodogram', got {method!r}")
    freqs, Z, overlap = _segments(X, seg, window)
    settings = {
        "method": method,
        "window": window,
        "nperseg": seg,
        "noverlap": overlap,
        "n_segments": Z.shape[-1],
    }
    return freqs, Z, settings


def _ragged_stft(
    X: np.ndarray, lengths: np.ndarray, nperseg: int | None, window: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Welch per series for right-padded X (n, C, L) of true lengths ``lengths``.

    One segment length for all (at most the shortest series), so all share a frequency grid;
    each series averages its own segments. Returns (freqs, Z of each series' first segment
    (n, C, F, 1), power (n, C, F), settings).
    """
    seg = int(min(lengths.min(), nperseg or DEFAULT_NPERSEG))
    first = power = None
    for length in np.unique(lengths):  # the series of one length in one call
        rows = np.flatnonzero(lengths == length)
        freqs, Z, _ = _segments(X[rows, :, :length], seg, window)  # (m, C, F, T_length)
        if first is None:
            first = np.empty((len(X), *Z.shape[1:3], 1), dtype=Z.dtype)  # (n, C, F, 1)
            power = np.empty((len(X), *Z.shape[1:3]))  # (n, C, F)
        first[rows] = Z[..., :1]
        power[rows] = np.mean(np.abs(Z) ** 2, axis=-1)
    settings = {"method": "welch-ragged", "window": window, "nperseg": seg, "noverlap": seg // 2}
    return freqs, first, power, settings


def _spectra(
    X: np.ndarray, lengths, method: str, nperseg: int | None, window: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """(freqs, complex segments Z (n, C, F, T), Welch power (n, C, F), settings)."""
    if lengths is None:
        freqs, Z, settings = _stft(X, method, nperseg, window)
        return freqs, Z, np.mean(np.abs(Z) ** 2, axis=-1), settings
    return _ragged_stft(X, lengths.astype(int), nperseg, window)


def _log_power(power: np.ndarray) -> np.ndarray:
    """Welch power (n, C, F) -> log power (n, C, F).

    The offset is relative to each channel's mean power so that the log is scale-free and a
    constant series (zero power off DC) gives a finite value instead of log(0).
    """
    scale = power.mean(axis=(0, 2), keepdims=True)  # (1, C, 1)
    return np.log(power + 1e-8 * scale + np.finfo(np.float64).tiny)


def _bonferroni_level(alpha: float, n_bins: int) -> float:
    return 1.0 - alpha / max(n_bins, 1)


def fisher_threshold(n_samples: int, n_classes: int, n_bins: int, alpha: float) -> float:
    """Null quantile of SSB/SSW = F·(K−1)/(n−K), F ~ F(K−1, n−K) (log-power ≈ Gaussian)."""
    dof_within = n_samples - n_classes
    if dof_within <= 0:
        return float("inf")
    quantile = stats.f.ppf(_bonferroni_level(alpha, n_bins), n_classes - 1, dof_within)
    return float(quantile * (n_classes - 1) / dof_within)


def correlation_threshold(n_samples: int, n_bins: int, alpha: float) -> float:
    """Null quantile of a squared correlation over n samples: real r² ~ Beta(1/2, (n−2)/2),
    complex ``|r|²`` ~ Beta(1, n−2); the larger (the complex one is the stricter at small n)."""
    if n_samples <= 2:
        return float("inf")
    level = _bonferroni_level(alpha, n_bins)
    real = stats.beta.ppf(level, 0.5, (n_samples - 2) / 2)
    complex_ = stats.beta.ppf(level, 1.0, n_samples - 2)
    return float(max(real, complex_))


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape))
    np.divide(num, den, out=out, where=den > 0)
    return out


def fisher_log_power(
    X,
    y,
    *,
    method: str = "auto",
    nperseg: int | None = None,
    window: str = "hann",
    alpha: float = 0.05,
    lengths=None,
) -> TaskSpectrum:
    """Fisher ratio of log-power between classes at each frequency.

    For every series i, channel c and frequency f, P_i(f) = log(Welch power + ε). Then
    F(f) = between-class variance of P / (within-class variance of P + δ), where δ is 0.1% of
    the median total variance: a floor that keeps bins where every sample is alike (constant
    series, a single series per class) from dividing by zero.

    Parameters
    ----------
    X : array-like (n_samples, length) or (n_samples, n_channels, length)
    y : array-like (n_samples,)
        Class labels, any hashable type; at least 2 classes.
    method : {"auto", "welch", "periodogram"}
        "auto": a periodogram up to length 256, Welch with ``nperseg`` (default 256) above.
    nperseg : int, optional
        Welch segment length.
    window : str
        scipy.signal window name.
    alpha : float
        Significance level of ``threshold`` (Bonferroni over the frequency bins).
    lengths : array-like (n_samples,), optional
        True lengths of right-padded series of unequal length: each series then gets its own
        Welch average with a segment length of at most the shortest series.

    Returns
    -------
    TaskSpectrum
        ``kind="fisher-log-power"``; ``values`` is the mean of the per-channel ratios.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.tdi import fisher_log_power
    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(128)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 128)) + y[:, None] * np.sin(2 * np.pi * 0.2 * t)
    >>> spectrum = fisher_log_power(X, y)
    >>> round(spectrum.dominant_frequency(), 3)
    0.203
    """
    X = as_sequences(X)
    _, codes = as_labels(y, X.shape[0])
    lengths = check_lengths(lengths, X)
    return _fisher_log_power(
        X, codes, method=method, nperseg=nperseg, window=window, alpha=alpha, lengths=lengths
    )


def _longest(X: np.ndarray, lengths: np.ndarray | None) -> int:
    """The longest series' steps: X's length, or the longest of ``lengths`` when X is padded
    (padding past every series must not change what TDI reads of the task)."""
    return int(X.shape[-1] if lengths is None else min(int(np.max(lengths)), X.shape[-1]))


def _fisher_log_power(
    X: np.ndarray,
    codes: np.ndarray,
    *,
    method: str = "auto",
    nperseg: int | None = None,
    window: str = "hann",
    alpha: float = 0.05,
    lengths: np.ndarray | None = None,
) -> TaskSpectrum:
    """:func:`fisher_log_power` on validated data: X float64 (n, C, L), codes int (n,) with
    at least 2 distinct values."""
    freqs, _, power, settings = _spectra(X, lengths, method, nperseg, window)
    P = _log_power(power)  # (n, C, F)
    n = P.shape[0]
    _, codes = np.unique(codes, return_inverse=True)  # contiguous 0..K-1 after a subsample
    onehot = np.eye(codes.max() + 1)[codes]  # (n, K)
    counts = onehot.sum(axis=0)  # (K,)
    class_means = np.einsum("nk,ncf->kcf", onehot, P) / counts[:, None, None]  # (K, C, F)
    grand = P.mean(axis=0)  # (C, F)
    between = np.einsum("k,kcf->cf", counts / n, (class_means - grand) ** 2)  # (C, F)
    within = np.mean((P - class_means[codes]) ** 2, axis=0)  # (C, F)
    total = P.var(axis=0)  # (C, F)
    floor = 1e-3 * np.median(total, axis=-1, keepdims=True) + 1e-12  # (C, 1)
    channel_values = between / (within + floor)  # (C, F)
    return TaskSpectrum(
        freqs=freqs,
        values=channel_values.mean(axis=0),
        channel_values=channel_values,
        kind="fisher-log-power",
        estimator=settings,
        n_samples=n,
        length=_longest(X, lengths),
        threshold=fisher_threshold(n, len(counts), len(freqs), alpha),
    )


def _scalar_target_statistics(
    Z: np.ndarray, power: np.ndarray, Y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Z (n, C, F, T), power (n, C, F), Y (n, M) -> linear coherence and power correlation²,
    each (C, F)."""
    Yc = Y - Y.mean(axis=0)  # (n, M)
    y_ss = np.sum(Yc**2, axis=0)  # (M,)
    Zc = Z - Z.mean(axis=0)  # (n, C, F, T)
    cross = np.einsum("ncft,nm->cftm", Zc, Yc)  # (C, F, T, M)
    z_ss = np.sum(np.abs(Zc) ** 2, axis=0)[..., None]  # (C, F, T, 1)
    linear = _safe_ratio(np.abs(cross) ** 2, z_ss * y_ss).mean(axis=(2, 3))  # (C, F)
    P = _log_power(power)  # (n, C, F)
    Pc = P - P.mean(axis=0)  # (n, C, F)
    p_cross = np.einsum("ncf,nm->cfm", Pc, Yc)  # (C, F, M)
    p_ss = np.sum(Pc**2, axis=0)[..., None]  # (C, F, 1)
    power = _safe_ratio(p_cross**2, p_ss * y_ss).mean(axis=-1)  # (C, F)
    return linear, power


def cross_spectrum(
    X,
    y,
    *,
    sequence_target: bool = False,
    method: str = "auto",
    nperseg: int | None = None,
    window: str = "hann",
    alpha: float = 0.05,
    lengths=None,
) -> TaskSpectrum:
    """Input–output spectral statistic for regression.

    Scalar targets (``y`` of shape (n,) or (n, n_outputs)): per frequency, the larger of the
    linear coherence ``|corr_i(U_i(f), y_i)|²`` (phase-locked, averaged over Welch segments) and
    the power correlation ``corr_i(log|U_i(f)|², y_i)²``; both lie in [0, 1]; outputs are averaged.

    Sequence targets (``sequence_target=True``, ``y`` of shape (n, length) or
    (n, n_outputs, length)): the magnitude-squared coherence ``|Σ U* Y|² / (Σ|U|² Σ|Y|²)``,
    pooled over series and segments.

    ``lengths`` (scalar targets only) gives the true lengths of right-padded series, as in
    :func:`fisher_log_power`; the linear term then uses each series' first segment.
    ``alpha`` sets ``threshold`` for scalar targets (null quantile of a squared correlation,
    Bonferroni over bins); sequence targets get no threshold (0).

    Returns
    -------
    TaskSpectrum
        ``kind="cross-spectrum"`` (scalar targets; ``components`` holds "linear" and "power")
        or ``kind="coherence"`` (sequence targets).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.tdi import cross_spectrum
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 64))
    >>> g = np.cos(2 * np.pi * 0.3 * np.arange(64))   # y reads the 0.3 cycles/sample component
    >>> spectrum = cross_spectrum(X, X @ g)
    >>> round(spectrum.dominant_frequency(), 2)
    0.3
    """
    X = as_sequences(X)
    n = X.shape[0]
    if sequence_target:
        if lengths is not None:
            raise ValueError("sequence targets of unequal length are not supported")
        Y = as_sequences(y, name="y")
        if Y.shape[0] != n or Y.shape[-1] != X.shape[-1]:
            raise ValueError(
                f"sequence targets must have shape (n_samples, [n_outputs,] length) = "
                f"({n}, ..., {X.shape[-1]}); got {np.shape(y)}"
            )
    else:
        Y = as_targets(y, n)
    lengths = check_lengths(lengths, X)
    return _cross_spectrum(
        X,
        Y,
        sequence_target=sequence_target,
        method=method,
        nperseg=nperseg,
        window=window,
        alpha=alpha,
        lengths=lengths,
    )


def _cross_spectrum(
    X: np.ndarray,
    Y: np.ndarray,
    *,
    sequence_target: bool = False,
    method: str = "auto",
    nperseg: int | None = None,
    window: str = "hann",
    alpha: float = 0.05,
    lengths: np.ndarray | None = None,
) -> TaskSpectrum:
    """:func:`cross_spectrum` on validated data: X float64 (n, C, L); Y float64 (n, M), or
    (n, M, L) for sequence targets."""
    n = X.shape[0]
    freqs, Z, power, settings = _spectra(X, lengths, method, nperseg, window)
    if sequence_target:
        Y = Y[:, np.newaxis] if Y.ndim == 2 else Y  # (n, M, L)
        _, ZY, _ = _stft(Y, settings["method"], settings["nperseg"], window)  # (n, M, F, T)
        cross = np.einsum("ncft,nmft->cfm", Z.conj(), ZY)  # (C, F, M)
        x_pow = np.sum(np.abs(Z) ** 2, axis=(0, 3))[..., None]  # (C, F, 1)
        y_pow = np.sum(np.abs(ZY) ** 2, axis=(0, 3)).T[None]  # (1, F, M)
        channel_values = _safe_ratio(np.abs(cross) ** 2, x_pow * y_pow).mean(axis=-1)  # (C, F)
        kind, components, threshold = "coherence", {}, 0.0
    else:
        if n < 3:
            raise ValueError(
                f"cross_spectrum needs at least 3 samples to correlate; got n_samples = {n}"
            )
        linear, power_corr = _scalar_target_statistics(Z, power, Y)
        channel_values = np.maximum(linear, power_corr)  # (C, F)
        kind = "cross-spectrum"
        components = {"linear": linear.mean(axis=0), "power": power_corr.mean(axis=0)}
        threshold = correlation_threshold(n, len(freqs), alpha)
    return TaskSpectrum(
        freqs=freqs,
        values=channel_values.mean(axis=0),
        channel_values=channel_values,
        kind=kind,
        estimator=settings,
        n_samples=n,
        length=_longest(X, lengths),
        components=components,
        threshold=threshold,
    )


TASKS = ("classification", "regression")


def task_spectrum(
    X,
    y,
    *,
    task: str,
    subsample: int | float | None = None,
    random_state=None,
    lengths=None,
    **spectral_kwargs,
) -> TaskSpectrum:
    """The task statistic estimated on a (stratified, for classification) subsample.

    ``task="classification"`` uses :func:`fisher_log_power`, ``"regression"``
    :func:`cross_spectrum`. ``subsample``: a count, a fraction in (0, 1] or None (all). A
    stratified subsample keeps at least 2 series of every class that has 2 (a within-class
    variance needs two).

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(20, random_state=0)
    >>> from sktdi.tdi import task_spectrum
    >>> task_spectrum(X, y, task="classification", subsample=0.5, random_state=0).n_samples
    40
    """
    X = as_sequences(X)
    target = _task_target(y, X.shape[0], task)
    lengths = check_lengths(lengths, X)
    idx = subsample_indices(
        target,
        subsample,
        stratify=task == "classification",
        min_per_class=2,
        random_state=random_state,
    )
    return _task_spectrum(
        X[idx], target[idx], task=task, lengths=None if lengths is None else lengths[idx],
        **spectral_kwargs,
    )


def _task_target(y, n_samples: int, task: str) -> np.ndarray:
    """Validated target for a task: integer class codes (n,), or float64 targets (n, M)."""
    if task == "classification":
        return as_labels(y, n_samples)[1]
    if task == "regression":
        return as_targets(y, n_samples)
    raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def _task_spectrum(
    X: np.ndarray, target: np.ndarray, *, task: str, lengths=None, **spectral_kwargs
) -> TaskSpectrum:
    """:func:`task_spectrum` on validated data and without subsampling (see
    :func:`_task_target` for the target)."""
    if task == "classification":
        return _fisher_log_power(X, target, lengths=lengths, **spectral_kwargs)
    return _cross_spectrum(X, target, lengths=lengths, **spectral_kwargs)
