"""Build a local archive folder as a researcher's UCR/UEA download looks, with 24 datasets.

The folder mixes the layouts ``sktdi benchmark --datasets all --data-dir`` must read: a folder
per dataset holding ``<name>_TRAIN.tsv``/``_TEST.tsv`` (the UCR 2018 archive's format: the label,
then the values, tab-separated, shorter series padded with NaN) or ``.ts`` files (the UEA
format, multivariate and unequal-length sets included). Nothing is downloaded:

- the 11 sets sktime ships, univariate ones rewritten as ``.tsv``, the multivariate and
  unequal-length ones copied as ``.ts`` (two are regression sets: the run must skip them);
- 13 generated sets: the planted-band task at three bands, TDI's zoo families (one-band,
  multi-band, broadband, phase), scikit-learn's digits read as 64-step series, two
  unequal-length ``.tsv`` sets (NaN-padded, as the 2018 archive pads them), two multivariate
  ``.ts`` sets, and one set with missing values inside its series (to be skipped).

    python benchmarks/archive_run/build_archive.py runs/archive/data
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np


def write_tsv(folder: Path, name: str, split: str, series, y) -> None:
    """UCR 2018 ``.tsv``: label then values; shorter series NaN-padded to the longest."""
    width = max(np.shape(s)[-1] for s in series)
    lines = []
    for s, label in zip(series, y):
        values = np.full(width, np.nan)
        values[: np.shape(s)[-1]] = np.asarray(s).reshape(-1)
        lines.append("\t".join([str(label), *("NaN" if np.isnan(v) else f"{v:.6g}" for v in values)]))
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / f"{name}_{split}.tsv").write_text("\n".join(lines) + "\n")


def write_ts(folder: Path, name: str, split: str, series, y) -> None:
    """UEA ``.ts``: a header, then one line a series, channels ':'-separated."""
    channels = np.shape(series[0])[0]
    equal = len({np.shape(s)[-1] for s in series}) == 1
    labels = " ".join(sorted(set(map(str, y))))
    header = [
        f"@problemName {name}", "@timeStamps false", "@missing false",
        f"@univariate {'true' if channels == 1 else 'false'}",
        *([] if channels == 1 else [f"@dimensions {channels}"]),
        f"@equalLength {'true' if equal else 'false'}",
        *([f"@seriesLength {np.shape(series[0])[-1]}"] if equal else []),
        f"@classLabel true {labels}", "@data",
    ]
    rows = [
        ":".join(",".join(f"{v:.6g}" for v in channel) for channel in np.asarray(s)) + f":{label}"
        for s, label in zip(series, y)
    ]
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / f"{name}_{split}.ts").write_text("\n".join(header + rows) + "\n")


def _halves(X, y, rng):
    """A stratified half/half train/test split of a generated task."""
    train = np.zeros(len(y), dtype=bool)
    for label in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == label))
        train[members[: len(members) // 2]] = True
    return X[train], y[train], X[~train], y[~train]


def build(folder: Path) -> list[str]:
    from sklearn.datasets import load_digits

    from sktdi.datasets import (
        load_dataset_split,
        planted_frequency_task,
        shipped_data_dir,
        shipped_datasets,
        zoo_task,
    )

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    names = []
    for name in shipped_datasets():
        X_train, y_train, X_test, y_test = load_dataset_split(name)
        univariate_equal = isinstance(X_train, np.ndarray) and X_train.shape[1] == 1
        if univariate_equal and y_train.dtype.kind != "f":
            write_tsv(folder, name, "TRAIN", X_train[:, 0], y_train)
            write_tsv(folder, name, "TEST", X_test[:, 0], y_test)
        else:  # multivariate, unequal-length or regression: the UEA files as shipped
            shutil.copytree(shipped_data_dir() / name, folder / name, dirs_exist_ok=True)
        names.append(name)

    def add(name, X, y, writer=write_tsv):
        X_train, y_train, X_test, y_test = _halves(X, y, rng)
        for split, Xs, ys in (("TRAIN", X_train, y_train), ("TEST", X_test, y_test)):
            if writer is write_tsv:
                writer(folder, name, split, [np.asarray(s)[0] for s in Xs], ys)
            else:
                writer(folder, name, split, list(Xs), ys)
        names.append(name)

    for label, freqs in (("Low", (0.02, 0.04, 0.06)), ("Mid", (0.15, 0.2, 0.25)),
                         ("High", (0.3, 0.37, 0.45))):
        X, y = planted_frequency_task(30, freqs=freqs, random_state=len(names))
        add(f"Planted{label}", X, y)
    for family in ("one-band", "multi-band", "broadband", "phase"):
        X, y = zoo_task(family, n_per_class=20, random_state=len(names))
        add("Zoo" + family.title().replace("-", ""), X, y)
    digits = load_digits()
    add("Digits64", digits.data[:600, None, :] / 16.0, digits.target[:600].astype(str))
    for k, name in enumerate(("UnequalChirps", "UnequalBursts")):
        X, y = planted_frequency_task(25, length=160, random_state=100 + k)
        lengths = rng.integers(90, 161, size=len(y))
        series = np.empty(len(y), dtype=object)
        for i, n in enumerate(lengths):
            series[i] = X[i][:, :n]
        add(name, series, y)
    for k, name in enumerate(("MultiPlanted", "MultiZoo")):
        if k == 0:
            a, y = planted_frequency_task(25, length=96, random_state=200)
            b, _ = planted_frequency_task(25, length=96, random_state=201)
        else:
            a, y = zoo_task("multi-band", n_per_class=20, length=96, random_state=202)
            b, _ = zoo_task("broadband", n_per_class=20, length=96, random_state=203)
        add(name, np.concatenate([a, b], axis=1), y, writer=write_ts)
    X, y = planted_frequency_task(20, length=64, random_state=300)
    X[rng.choice(len(y), 5, replace=False), 0, 30] = np.nan  # gaps inside series
    add("WithGaps", X, y)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    names = build(parser.parse_args().folder)
    print(f"{len(names)} datasets: {', '.join(names)}")


if __name__ == "__main__":
    main()
