"""UCR/UEA data: the datasets shipped with sktime, a local archive folder, and the resampling
and subsampling used to evaluate on them.

``load_ucr`` never downloads: a name that sktime does not ship needs ``data_dir`` pointing at a
local copy of the archive (UCR 2018 ``.tsv`` files or UEA/UCR ``.ts`` files).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

from .utils.inputs import pad_sequences  # noqa: F401 - public here (its documented home)
from .utils.sampling import subsample_indices

SPLITS = ("train", "test")


def shipped_data_dir() -> Path:
    """The folder of UCR/UEA datasets inside the installed sktime."""
    import sktime.datasets

    return Path(sktime.datasets.__file__).parent / "data"


def shipped_datasets() -> list[str]:
    """Names of the datasets sktime ships as ``<name>_TRAIN.ts`` / ``<name>_TEST.ts``.

    Examples
    --------
    >>> from sktdi.datasets import shipped_datasets
    >>> "GunPoint" in shipped_datasets()
    True
    """
    root = shipped_data_dir()
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}_TRAIN.ts").exists())


# where a local archive keeps a split, in the order load_ucr looks: a folder per dataset (as
# the UCR/UEA downloads unpack) or all files side by side
ARCHIVE_LAYOUTS = (
    "{name}/{name}_{tag}.ts",
    "{name}/{name}_{tag}.tsv",
    "{name}_{tag}.ts",
    "{name}_{tag}.tsv",
)


def archive_datasets(data_dir: str | Path) -> list[str]:
    """Names of the datasets with a training split in a local archive folder, in any of the
    layouts :func:`load_ucr` reads (:data:`ARCHIVE_LAYOUTS`).

    Examples
    --------
    >>> from sktdi.datasets import archive_datasets, shipped_data_dir
    >>> "GunPoint" in archive_datasets(shipped_data_dir())
    True
    """
    root = Path(data_dir)
    found = (
        path
        for layout in ARCHIVE_LAYOUTS
        for path in root.glob(layout.format(name="*", tag="TRAIN"))
    )
    return sorted({path.name.rsplit("_TRAIN.", 1)[0] for path in found})


def _find(name: str, split: str, data_dir: Path) -> Path:
    tag = split.upper()
    if not data_dir.is_dir():  # a mistyped data_dir, not a missing dataset: say which
        raise FileNotFoundError(
            f"no {name}_{tag}.ts or .tsv: data_dir {data_dir} does not exist or is not a folder"
        )
    for layout in ARCHIVE_LAYOUTS:
        candidate = data_dir / layout.format(name=name, tag=tag)
        if candidate.exists():
            return candidate
    raise FileNotFoundError(
        f"no {name}_{tag}.ts or .tsv under {data_dir} (looked in {data_dir / name} and {data_dir})"
    )


def _read_ts(path: Path):
    """A UEA/UCR ``.ts`` file through sktime's reader; any failure there (sktime raises
    OSError, UnicodeDecodeError, IndexError... with no file name) becomes a ValueError that
    names the file."""
    from sktime.datasets import load_from_tsfile

    _check_text_file(path)
    header = path.read_text(errors="replace")[:20000].lower()
    y_dtype = "float" if "@targetlabel true" in header else "str"
    try:
        X, y = load_from_tsfile(str(path), return_data_type="nested_univ", y_dtype=y_dtype)
        series = [
            np.stack([np.asarray(X.iloc[i, c], dtype=np.float64) for c in range(X.shape[1])])
            for i in range(len(X))
        ]
    except Exception as exc:  # sktime's reader raises many types, none naming the file
        raise ValueError(f"{path} is not a readable .ts file: {type(exc).__name__}: {exc}") from exc
    if not series:
        raise ValueError(f"{path} holds no series after its @data line")
    return series, np.asarray(y)


def _check_text_file(path: Path) -> str:
    """The file's text, or a ValueError naming the file when it is empty or not UTF-8 text
    (a binary file would otherwise surface as a UnicodeDecodeError without a file name)."""
    data = path.read_bytes()
    if not data.strip():
        raise ValueError(f"{path} is empty")
    if b"\x00" in data:
        raise ValueError(f"{path} is not a text file (it contains NUL bytes); is it binary?")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); is it binary?"
        ) from exc


def _read_tsv(path: Path):
    """UCR 2018 format: one series per line, the label, then the values, tab-separated;
    shorter series are padded with NaN (or empty fields) to the width of the file.

    Parsed line by line so that a problem names the file and the line: numpy's readers
    report neither for ragged rows and turn a missing or non-numeric field into NaN.
    """
    text = _check_text_file(path)
    labels, rows, width, width_line = [], [], None, None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        where = f"{path}, line {number}"
        label = fields[0].strip()
        if not label or label.lower() == "nan":
            raise ValueError(
                f"{where}: the label (first column) is missing; every line must start with "
                f"the series' label"
            )
        if len(fields) < 2:
            hint = (
                " (the file looks comma-separated; UCR .tsv is tab-separated)"
                if ("," in line)
                else ""
            )
            raise ValueError(f"{where}: a label and no values{hint}")
        if width is None:
            width, width_line = len(fields), number
        elif len(fields) != width:
            raise ValueError(
                f"{where} has {len(fields)} tab-separated fields, but line {width_line} has "
                f"{width}; a UCR .tsv pads shorter series with NaN to one width"
            )
        values = [field.strip() or "nan" for field in fields[1:]]  # empty field = padding
        try:
            rows.append(np.array(values, dtype=np.float64))
        except ValueError:
            column, bad = next((i, v) for i, v in enumerate(values, start=2) if not _is_number(v))
            hint = " (a header line? UCR .tsv files have none)" if number == 1 else ""
            raise ValueError(f"{where}, column {column}: {bad!r} is not a number{hint}") from None
        labels.append(label)
    if not rows:
        raise ValueError(f"{path} is empty")
    table = np.array(rows)
    if all(_is_number(label) for label in labels):
        numeric = np.array(labels, dtype=np.float64)
        y = numeric.astype(int).astype(str) if np.all(numeric == np.round(numeric)) else numeric
    else:  # class names written as text
        y = np.array(labels)
    series = []
    for number, row in enumerate(table):
        valid = np.flatnonzero(~np.isnan(row))
        end = valid[-1] + 1 if valid.size else 0
        if end == 0:
            raise ValueError(f"{path}: series {number + 1} (a label and only NaN) has no values")
        series.append(row[np.newaxis, :end])
    return series, y


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _as_panel(series: list[np.ndarray]):
    lengths = {s.shape[-1] for s in series}
    if len(lengths) == 1:
        return np.stack(series)  # (n, C, L)
    return series


def load_ucr(name: str, split: str | None = None, data_dir: str | Path | None = None):
    """Load a UCR/UEA dataset without any download.

    Parameters
    ----------
    name : str
        Dataset name, e.g. "GunPoint".
    split : {"train", "test"} or None
        One split, or both concatenated (train first).
    data_dir : path, optional
        A local archive: ``<data_dir>/<name>/<name>_TRAIN.tsv`` (UCR 2018) or ``.ts``
        (UEA/UCR), or the same files directly in ``data_dir``. Default: the datasets shipped
        with sktime (:func:`shipped_datasets`).

    Raises
    ------
    FileNotFoundError
        ``data_dir`` or the split's file does not exist.
    ValueError
        An unknown ``split``, a name sktime does not ship (no ``data_dir``), or a file that
        cannot be read: empty, binary, ragged, a missing label or a non-numeric value. The
        message names the file and, where it can, the line.

    Returns
    -------
    X : ndarray (n, n_channels, length), or a list of (n_channels, length_i) arrays when the
        series differ in length (see :func:`pad_sequences`).
    y : ndarray (n,) of str labels (classification) or float targets (regression).

    Examples
    --------
    >>> from sktdi.datasets import load_ucr
    >>> X, y = load_ucr("GunPoint", split="train")
    >>> X.shape, sorted(set(y.tolist()))
    ((50, 1, 150), ['1', '2'])
    """
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be 'train', 'test' or None, got {split!r}")
    if data_dir is None:
        root = shipped_data_dir()
        if not (root / name / f"{name}_TRAIN.ts").exists():
            raise ValueError(
                f"{name!r} is not shipped with sktime (shipped: {', '.join(shipped_datasets())});"
                f" download the archive yourself and pass data_dir"
            )
    else:
        root = Path(data_dir)
    parts, paths = [], []
    for part in SPLITS if split is None else (split,):
        path = _find(name, part, root)
        parts.append(_read_ts(path) if path.suffix == ".ts" else _read_tsv(path))
        paths.append(path)
    channels = [{s.shape[0] for s in part[0]} for part in parts]
    if len(set().union(*channels)) > 1:
        # np.stack would fail with a shape message naming neither file nor split
        found = ", ".join(f"{p} ({sorted(c)})" for p, c in zip(paths, channels))
        raise ValueError(f"{name}: the series differ in their number of channels: {found}")
    series = [s for part in parts for s in part[0]]
    y = np.concatenate([part[1] for part in parts])
    return _as_panel(series), y


def load_ucr_split(name: str, data_dir: str | Path | None = None):
    """(X_train, y_train, X_test, y_test) of the official split.

    Examples
    --------
    >>> from sktdi.datasets import load_ucr_split
    >>> X_train, y_train, X_test, y_test = load_ucr_split("ItalyPowerDemand")
    >>> X_train.shape, X_test.shape
    ((67, 1, 24), (1029, 1, 24))
    """
    X_train, y_train = load_ucr(name, "train", data_dir)
    X_test, y_test = load_ucr(name, "test", data_dir)
    return X_train, y_train, X_test, y_test


def planted_frequency_task(
    n_per_class: int,
    *,
    length: int = 128,
    freqs=(0.3, 0.37, 0.45),
    amplitude: float = 0.5,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic classification with purely spectral structure: class 0 is white noise, class
    k adds a random-phase sinusoid of ``amplitude`` at ``freqs[k-1]`` cycles/sample — high
    frequencies, where S4D-Lin's default bias responds weakly. X (n, 1, length), y str.

    Examples
    --------
    >>> from sktdi.datasets import planted_frequency_task
    >>> X, y = planted_frequency_task(5, length=32, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((20, 1, 32), ['0', '1', '2', '3'])
    """
    rng = np.random.default_rng(random_state)
    t = np.arange(length)
    y = np.repeat(np.arange(len(freqs) + 1), n_per_class)
    X = rng.normal(size=(len(y), 1, length))
    for k, f in enumerate(freqs, start=1):
        phase = rng.uniform(0, 2 * np.pi, size=(n_per_class, 1))
        X[y == k, 0] += amplitude * np.sin(2 * np.pi * f * t + phase)
    return X, y.astype(str)


# datasets that are not UCR files: name -> (X_train, y_train, X_test, y_test) builder
def _digits_split():
    """scikit-learn's 8×8 digits as length-64 sequences (rows read left to right); the
    "official" split is a stratified half/half with seed 0."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X = X[:, np.newaxis, :].astype(np.float64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y.astype(str), test_size=0.5, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def pixel_digits(size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8×8 digits upsampled (bilinear) to ``size``×``size`` and read row by
    row: (1797, 1, size²) sequences, string labels. The long-sequence task: at the default
    size, length 1024, where a class is told by structure 32 samples (a row) apart and more.

    Examples
    --------
    >>> from sktdi.datasets import pixel_digits
    >>> X, y = pixel_digits()
    >>> X.shape, y[:3].tolist()
    ((1797, 1, 1024), ['0', '1', '2'])
    """
    from scipy.ndimage import zoom
    from sklearn.datasets import load_digits

    if size < 8:
        raise ValueError(f"size must be at least 8 (the images are 8×8), got {size}")
    images, y = load_digits(return_X_y=True)
    images = images.reshape(-1, 8, 8)
    # order=1: bilinear, no overshoot; grid_mode maps the pixel areas, not the centers
    big = zoom(images, (1, size / 8, size / 8), order=1, grid_mode=True, mode="nearest")
    return big.reshape(len(y), 1, size * size).astype(np.float64), y.astype(str)


def _pixel_digits_split():
    """The pixel-sequence digits with the same stratified half/half split as "digits"."""
    from sklearn.model_selection import train_test_split

    X, y = pixel_digits()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def _digits_784_split():
    """The digits upsampled to 28×28 (784 steps, MNIST's size) and read row by row, split
    2:1 (stratified, seed 0): 1198 training series, so that 600 and 1198 are the 1% and 2%
    of sequential MNIST's 60,000 that the S4D/TDI papers train on."""
    from sklearn.model_selection import train_test_split

    X, y = pixel_digits(28)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=1 / 3, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def _planted_split():
    X_train, y_train = planted_frequency_task(100, random_state=0)
    X_test, y_test = planted_frequency_task(100, random_state=1)
    return X_train, y_train, X_test, y_test


EXTRA_DATASETS = {
    "digits": _digits_split,
    "pixel-digits": _pixel_digits_split,
    "digits-784": _digits_784_split,
    "planted": _planted_split,
}


def load_dataset_split(name: str, data_dir: str | Path | None = None):
    """(X_train, y_train, X_test, y_test) for a UCR/UEA name, or one of the extra datasets:
    "digits" (scikit-learn's load_digits as length-64 sequences), "pixel-digits" (the same
    images upsampled to 32×32 and read as length-1024 sequences, :func:`pixel_digits`),
    "digits-784" (upsampled to 28×28: 784 steps, split 2:1) and
    "planted" (the synthetic planted-frequency task, 100 series per class in each split).

    Examples
    --------
    >>> from sktdi.datasets import load_dataset_split
    >>> X_train, y_train, X_test, y_test = load_dataset_split("digits")
    >>> X_train.shape
    (898, 1, 64)
    """
    if name in EXTRA_DATASETS:
        return EXTRA_DATASETS[name]()
    if data_dir is None and name not in shipped_datasets():
        raise ValueError(
            f"{name!r} is neither one of sktdi's own datasets ({', '.join(EXTRA_DATASETS)}) nor "
            f"shipped with sktime ({', '.join(shipped_datasets())}); for another UCR/UEA "
            "dataset, download the archive yourself and pass data_dir"
        )
    return load_ucr_split(name, data_dir)


def take(X, idx: np.ndarray):
    """Index an ndarray or a list of series."""
    if isinstance(X, np.ndarray):
        return X[idx]
    return [X[i] for i in idx]


def concat(a, b):
    """Concatenate two panels (ndarray or list); a list if the lengths differ."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape[1:] == b.shape[1:]:
        return np.concatenate([a, b])
    return _as_panel(list(a) + list(b))


def resample_split(X_train, y_train, X_test, y_test, resample: int, *, stratify: bool = True):
    """The field's resampling: resample 0 is the official split; resample r > 0 pools train and
    test and draws a new train set with the same number of series per class (seed r).

    ``stratify=False`` (regression targets, which have no classes): a random permutation of
    the pooled series (numpy ``default_rng(r)``) whose first ``len(y_train)`` train, in that
    order, and the rest test.

    Examples
    --------
    >>> from sktdi.datasets import load_ucr_split, resample_split
    >>> X_train, y_train, X_test, y_test = resample_split(*load_ucr_split("GunPoint"), resample=1)
    >>> X_train.shape, X_test.shape
    ((50, 1, 150), (150, 1, 150))
    """
    if resample == 0:
        return X_train, y_train, X_test, y_test
    X = concat(X_train, X_test)
    y = np.concatenate([y_train, y_test])
    if not stratify:
        order = np.random.default_rng(resample).permutation(len(y))
        train, test = order[: len(y_train)], order[len(y_train) :]
        return take(X, train), y[train], take(X, test), y[test]
    rng = np.random.RandomState(resample)
    train = []
    for label in np.unique(y_train):
        members = np.flatnonzero(y == label)
        train.append(rng.choice(members, size=int(np.sum(y_train == label)), replace=False))
    train = np.sort(np.concatenate(train))
    test = np.setdiff1d(np.arange(len(y)), train)
    return take(X, train), y[train], take(X, test), y[test]


def training_subsample(y, ratio: float, *, min_per_class: int = 1, random_state=None) -> np.ndarray:
    """Indices of a stratified share ``ratio`` of a training set, at least ``min_per_class``
    series per class (a class with fewer keeps all), deterministic given ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.datasets import training_subsample
    >>> y = np.repeat(["a", "b"], [40, 10])
    >>> idx = training_subsample(y, 0.04, random_state=0)
    >>> sorted(y[idx].tolist())
    ['a', 'a', 'b']
    """
    if not 0 < ratio <= 1:
        raise ValueError(f"ratio must be in (0, 1], got {ratio}")
    # a ratio is a fraction even when written as 1: never a count of series
    return subsample_indices(
        y, float(ratio), min_per_class=min_per_class, random_state=random_state
    )


def stratified_folds(y, n_splits: int, *, random_state=0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Standard stratified k-fold (shuffled, seeded) over pooled data: (train, test) indices.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.datasets import stratified_folds
    >>> [len(test) for _, test in stratified_folds(np.repeat([0, 1], 6), 3)]
    [4, 4, 4]
    """
    splitter = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    return list(splitter.split(np.zeros(len(y)), y))


class LabelledStratifiedKFold:
    """Stratified k-fold for tools that call ``cv.split(X)`` without ``y``.

    sktime's ``ClassificationBenchmark`` (through ``evaluate``) splits on the instance index
    alone, so sklearn's ``StratifiedKFold`` fails there. This splitter takes the labels at
    construction and stratifies on them whatever ``split`` receives.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.datasets import LabelledStratifiedKFold
    >>> cv = LabelledStratifiedKFold(np.array([0, 0, 0, 1, 1, 1]), n_splits=3)
    >>> [np.sort(test).tolist() for _, test in cv.split(np.arange(6))]
    [[0, 3], [1, 4], [2, 5]]
    """

    def __init__(self, y, n_splits: int = 5, shuffle: bool = False, random_state=None):
        self.y = np.asarray(y)
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def split(self, X=None, y=None, groups=None):
        splitter = StratifiedKFold(
            self.n_splits,
            shuffle=self.shuffle,
            random_state=self.random_state if self.shuffle else None,
        )
        yield from splitter.split(np.zeros(len(self.y)), self.y)

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return self.n_splits


# --- the task zoo: TDI's safety net -----------------------------------------------------------
ZOO_FAMILIES = ("one-band", "multi-band", "broadband", "phase")
NOISE_COLOURS = ("white", "pink", "brown")


def _coloured_noise(rng: np.random.Generator, shape: tuple[int, int], colour: str) -> np.ndarray:
    """Unit-variance Gaussian noise whose power falls as 1/f^0 (white), 1/f (pink) or 1/f²
    (brown), shaped in the frequency domain. (n, L)."""
    noise = rng.normal(size=shape)  # (n, L)
    if colour != "white":
        noise = _shape_power(noise, colour)
    return noise / noise.std(axis=-1, keepdims=True)


def _shape_power(white: np.ndarray, colour: str) -> np.ndarray:
    """White noise (n, L) filtered so its power falls as 1/f (pink) or 1/f² (brown)."""
    length = white.shape[-1]
    exponent = {"pink": 0.5, "brown": 1.0}[colour]  # amplitude ∝ f^-exponent
    freqs = np.fft.rfftfreq(length)  # (F,)
    scale = np.ones_like(freqs)
    scale[1:] = (freqs[1:] / freqs[1]) ** -exponent
    scale[0] = 0.0  # no DC: the mean carries no class information anywhere in the zoo
    return np.fft.irfft(np.fft.rfft(white, axis=-1) * scale, n=length, axis=-1)  # (n, L)


def _band_noise(rng: np.random.Generator, n: int, length: int, lo: float, hi: float) -> np.ndarray:
    """Unit-variance random-phase noise confined to the band [lo, hi] cycles/sample (at least
    the one bin nearest its centre). (n, L)."""
    freqs = np.fft.rfftfreq(length)  # (F,)
    band = (freqs >= lo) & (freqs <= hi)
    if not band.any():
        band[np.argmin(np.abs(freqs - (lo + hi) / 2))] = True
    spectrum = np.zeros((n, len(freqs)), dtype=np.complex128)  # (n, F)
    k = int(band.sum())
    spectrum[:, band] = rng.normal(size=(n, k)) + 1j * rng.normal(size=(n, k))
    signal = np.fft.irfft(spectrum, n=length, axis=-1)  # (n, L)
    return signal / np.sqrt(np.mean(signal**2, axis=-1, keepdims=True) + 1e-12)


def zoo_task(
    family: str,
    *,
    n_classes: int = 4,
    n_per_class: int = 16,
    length: int = 128,
    noise: str = "white",
    strength: float = 1.0,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """One labelled task of TDI's safety zoo: synthetic series whose class information sits in
    a known place in frequency (or nowhere in power at all). X (n, 1, length), y str.

    The zoo is where TDI is checked for costing accuracy against its base initialization on
    tasks nobody tuned it on (``benchmarks/budgets/tdi_zoo.py``, ``docs/budgets.md``); it is not a
    tuning set. Every series is unit-variance coloured ``noise`` plus a class signal.

    Parameters
    ----------
    family : {"one-band", "multi-band", "broadband", "phase"} (``ZOO_FAMILIES``)
        Where the class information sits:

        - ``"one-band"``: every class puts band-limited power in the same narrow band (width
          0.04 cycles/sample, centre drawn per task), at a class-specific level, from none
          (class 0) to RMS ``strength`` (the last class);
        - ``"multi-band"``: class k adds band-limited power of RMS ``strength`` in its own
          band (centres drawn per task, spread over the whole band; at short lengths
          neighbouring classes' bands can fall in the same frequency bin);
        - ``"broadband"``: class k's noise passes an AR(1) filter with coefficient evenly
          spaced in [-0.6, 0.6] × ``strength``: the classes differ in spectral tilt at every
          frequency;
        - ``"phase"``: class k adds a template of RMS ``strength`` whose magnitude spectrum
          all classes share, with its own random phases, circularly shifted at random:
          identical expected power, the information is in shape only (TDI's statistic is
          flat by design).
    n_classes : int, at least 2
    n_per_class : int, at least 1
        Series per class.
    length : int, at least 8
    noise : {"white", "pink", "brown"} (``NOISE_COLOURS``)
        The background's power falls as 1, 1/f or 1/f² with frequency f.
    strength : float, at least 0 (at most 1.5 for "broadband", a stable filter)
        How loud the class signal is against the unit-variance noise (above).
    random_state : int, Generator or None
        Draws both the task (band centres, templates) and the series.

    Returns
    -------
    X : ndarray of shape (n_classes * n_per_class, 1, length)
    y : ndarray of str, shape (n_classes * n_per_class,)

    Notes
    -----
    ``ZOO_TASKS`` holds the standard grid (name -> these arguments); its ``n_per_class``
    counts training series. To score a task, draw it once with more series per class and
    split (``benchmarks/budgets/tdi_zoo.py`` adds 64 per class and keeps the grid's count for
    training): two draws with different seeds are two different tasks. Labels are the
    strings "0", "1", ... (as UCR files give them).

    Examples
    --------
    >>> from sktdi.datasets import zoo_task
    >>> X, y = zoo_task("multi-band", n_classes=3, n_per_class=4, length=32, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((12, 1, 32), ['0', '1', '2'])
    """
    from numbers import Integral, Real

    from sklearn.utils import check_scalar

    if family not in ZOO_FAMILIES:
        raise ValueError(f"family must be one of {ZOO_FAMILIES}, got {family!r}")
    if noise not in NOISE_COLOURS:
        raise ValueError(f"noise must be one of {NOISE_COLOURS}, got {noise!r}")
    for name, value, least in (
        ("n_classes", n_classes, 2),
        ("n_per_class", n_per_class, 1),
        ("length", length, 8),
    ):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise TypeError(f"{name} must be an int, got {value!r}")
        if value < least:
            raise ValueError(f"{name} must be at least {least}, got {value}")
    most = 1.5 if family == "broadband" else None  # |AR coefficient| ≤ 0.9: a stable filter
    check_scalar(strength, "strength", Real, min_val=0.0, max_val=most)
    if not np.isfinite(strength):
        raise ValueError(f"strength must be a finite number, got {strength}")
    rng = np.random.default_rng(random_state)
    y = np.repeat(np.arange(n_classes), n_per_class)  # (n,)
    n = len(y)
    X = _coloured_noise(rng, (n, length), noise)  # (n, L)
    if family == "one-band":
        centre = rng.uniform(0.06, 0.44)
        levels = strength * np.linspace(0.0, 1.0, n_classes) * np.sqrt(2.0)  # RMS per class
        X += levels[y, None] * _band_noise(rng, n, length, centre - 0.02, centre + 0.02)
    elif family == "multi-band":
        edges = np.linspace(0.02, 0.48, n_classes + 1)
        centres = rng.uniform(edges[:-1], edges[1:])  # one band per class, spread out
        rng.shuffle(centres)
        width = min(0.02, 0.23 / n_classes)
        for k in range(n_classes):
            members = y == k
            X[members] += strength * _band_noise(
                rng, int(members.sum()), length, centres[k] - width, centres[k] + width
            )
    elif family == "broadband":
        from scipy.signal import lfilter

        rho = 0.6 * strength * np.linspace(-1.0, 1.0, n_classes)
        for k in range(n_classes):
            members = y == k
            filtered = lfilter([1.0], [1.0, -rho[k]], X[members], axis=-1)
            X[members] = filtered / filtered.std(axis=-1, keepdims=True)
    else:  # phase
        freqs = np.fft.rfftfreq(length)
        magnitude = np.exp(-((freqs - rng.uniform(0.05, 0.2)) ** 2) / (2 * 0.08**2))  # (F,)
        for k in range(n_classes):
            template = np.fft.irfft(
                magnitude * np.exp(2j * np.pi * rng.uniform(size=len(freqs))), n=length
            )  # (L,)
            template *= strength / np.sqrt(np.mean(template**2))
            members = np.flatnonzero(y == k)
            shifts = rng.integers(length, size=len(members))
            X[members] += np.stack([np.roll(template, s) for s in shifts])
    return X[:, np.newaxis, :], y.astype(str)


# the zoo's standard grid (``benchmarks/budgets/tdi_zoo.py``): name -> zoo_task arguments for the
# training split (the study draws more series of the same task for testing). It spans short
# and long series, 2 to 10 classes, 2 to 32 series per class, each family and each noise
# colour, with strengths that keep the tasks off the ceiling; "multi-band-40" has the shape
# of issue 23's held-out task (length 40, 10 classes, 16 series per class).
ZOO_TASKS = {
    "multi-band-40": {
        "family": "multi-band",
        "n_classes": 10,
        "n_per_class": 16,
        "length": 40,
        "strength": 0.6,
    },
    "one-band-32": {
        "family": "one-band",
        "n_classes": 2,
        "n_per_class": 8,
        "length": 32,
        "noise": "pink",
        "strength": 0.7,
    },
    "one-band-256": {
        "family": "one-band",
        "n_classes": 4,
        "n_per_class": 8,
        "length": 256,
        "strength": 0.6,
    },
    "multi-band-128": {
        "family": "multi-band",
        "n_classes": 4,
        "n_per_class": 4,
        "length": 128,
        "noise": "brown",
        "strength": 0.5,
    },
    "broadband-64": {
        "family": "broadband",
        "n_classes": 3,
        "n_per_class": 32,
        "length": 64,
        "strength": 0.4,
    },
    "phase-128": {
        "family": "phase",
        "n_classes": 4,
        "n_per_class": 16,
        "length": 128,
        "noise": "pink",
    },
    "multi-band-2048": {
        "family": "multi-band",
        "n_classes": 4,
        "n_per_class": 2,
        "length": 2048,
        "strength": 0.25,
    },
}
