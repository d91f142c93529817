"""Published results beside a run: the field's per-dataset accuracies, read from its files.

A researcher sets a run beside the published results of the field (HIVE-COTE 2,
InceptionTime, MiniRocket, ...). They come in two layouts, both read here:

- a **results table** as aeon ships them and tsml's reference results are published: one CSV
  per classifier, one row per dataset, one column per resample (resample 0 the official
  split), e.g. ``HC2_accuracy.csv`` with the header ``Resamples:,0,1,...,29``; or a table of
  means, with ``dataset`` and ``accuracy`` columns (one mean per dataset, e.g. MiniRocket's
  paper's means over 30 resamples);
- a **tsml-eval results folder**: ``{root}/{classifier}/Predictions/{dataset}/
  testResample{i}.csv``, whose third line starts with the accuracy (:mod:`.tsml_results`).

:func:`read_published` reads either into one long table (classifier, dataset, resample,
accuracy; resample is -1 for a table of means). :func:`beside_run` sets it beside a run's
datasets and says how each figure pairs with the run's:

- published results train on the whole official training set, so they sit beside the run's
  ratio-1 cells of the official split and its resamples (not ``--cv`` folds);
- a run of resample 0 alone pairs with each table's resample 0, the very same split;
- a run of several resamples sets its mean beside the published mean over all the table's
  resamples: sktdi's resamples r > 0 are not tsml's draws (both pool train and test and keep
  the class counts, with other random streams), so only resample 0 pairs draw for draw;
- a table of means is a mean whatever the run did, and is said to be one;
- a dataset, or resample 0, that a table lacks is listed as missing, never filled in.

Nothing here downloads: ``"aeon"`` names the reference files aeon ships inside its package.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

# the resample of a row of a table of means (one figure per dataset, over the table's resamples)
MEAN = -1
# what the run's ratio must be for published results to sit beside it: they train on all of
# the official training set
PUBLISHED_RATIO = 1.0
# the column of a published classifier in the tables beside a run (never an arm's name)
SUFFIX = " (published)"
# a results table's file name ends with its measure: HC2_accuracy.csv is HC2's accuracy
_MEASURE_SUFFIX = "_accuracy"
_RESAMPLE_FILE = re.compile(r"testResample(\d+)\.csv$")


def aeon_reference_folder() -> Path:
    """The folder of classification accuracy tables that aeon ships (HIVE-COTE 2,
    InceptionTime, FreshPRINCE, WEASEL-2.0 on 112 UCR datasets, 30 resamples each)."""
    try:
        import aeon
    except ImportError as exc:
        raise ValueError(
            "'aeon' names the reference results aeon ships, but aeon is not installed: "
            "pip install aeon (the benchmark extra installs it)") from exc
    folder = (Path(aeon.__file__).parent / "testing" / "example_results_files"
              / "classification" / "accuracy")
    if not folder.is_dir():
        raise ValueError(f"aeon {aeon.__version__} ships no accuracy tables at {folder}")
    return folder


def column_name(classifier: str) -> str:
    """A published classifier's column beside the run's arms: "HC2 (published)"."""
    return f"{classifier}{SUFFIX}"


def split_spec(spec: str) -> tuple[str, str]:
    """``NAME=PATH`` as (NAME, PATH), anything else as ("", spec): a path that exists keeps an
    ``=`` of its own.

    Examples
    --------
    >>> from sktdi.benchmark.published import split_spec
    >>> split_spec("HIVE-COTE 2=results/HC2.csv"), split_spec("aeon")
    (('HIVE-COTE 2', 'results/HC2.csv'), ('', 'aeon'))
    """
    if "=" in spec and not Path(spec).expanduser().exists():
        name, _, location = spec.partition("=")
        if not name.strip():
            raise ValueError(f"{spec}: NAME=PATH needs a name before the '='")
        return name, location
    return "", spec


def read_published(spec: str) -> pd.DataFrame:
    """Read published results: ``spec`` is a results table (CSV), a folder of them, a
    tsml-eval results folder, ``"aeon"`` (aeon's shipped tables), or ``NAME=PATH`` to name the
    classifier of one table (a table's name is otherwise its file name without
    ``_accuracy``; a tsml-eval folder's, its folder).

    Returns a long table: classifier, dataset, resample (:data:`MEAN` for a table of means),
    accuracy (a fraction) and source (the file or folder it came from). Raises ValueError,
    naming the file and the problem, for anything that is not such results.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sktdi.benchmark.published import read_published
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "HC2_accuracy.csv"
    >>> _ = path.write_text("Resamples:,0,1\\nGunPoint,1.0,0.99\\nBeef,0.8,0.9\\n")
    >>> read_published(str(path))[["classifier", "dataset", "resample", "accuracy"]]
      classifier   dataset  resample  accuracy
    0        HC2  GunPoint         0      1.00
    1        HC2  GunPoint         1      0.99
    2        HC2      Beef         0      0.80
    3        HC2      Beef         1      0.90
    """
    name, location = split_spec(spec)
    if location == "aeon":
        path = aeon_reference_folder()
    else:
        path = Path(location).expanduser()
    if not path.exists():
        raise ValueError(f"{location}: no such file or folder")
    if path.is_file():
        tables = [_read_table(path, name or _table_name(path))]
    else:
        tables = _read_folder(path)
        if name:
            if len({t["classifier"].iloc[0] for t in tables if len(t)}) > 1:
                raise ValueError(f"{spec}: NAME= names one classifier, but {path} holds several")
            tables = [t.assign(classifier=name) for t in tables]
    table = pd.concat(tables, ignore_index=True)
    if table.empty:
        raise ValueError(f"{location}: holds no results")
    return table


def _table_name(path: Path) -> str:
    stem = path.stem
    return stem.removesuffix(_MEASURE_SUFFIX)


def _read_table(path: Path, name: str) -> pd.DataFrame:
    """One results table: datasets × resamples, or dataset and accuracy (means)."""
    try:
        # round_trip: pandas' default parser may misread a float's last digit (a figure beside
        # the run must be its file's own)
        raw = pd.read_csv(path, float_precision="round_trip")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read it as a CSV table ({exc})") from exc
    lower = {str(c).strip().lower(): c for c in raw.columns}
    if "dataset" in lower and "accuracy" in lower:  # a table of means
        long = pd.DataFrame({"dataset": raw[lower["dataset"]].astype(str),
                             "resample": MEAN, "accuracy": raw[lower["accuracy"]]})
    else:
        resamples = []
        for column in raw.columns[1:]:
            try:
                resamples.append(int(str(column).strip()))
            except ValueError:
                raise ValueError(
                    f"{path}: column {column!r} is not a resample number; a results table "
                    "has one row per dataset and one column per resample (aeon's layout: "
                    "'Resamples:,0,1,...'), or 'dataset' and 'accuracy' columns") from None
        if not resamples:
            raise ValueError(f"{path}: no resample columns (aeon's layout: 'Resamples:,0,1,...')")
        wide = raw.set_index(raw.columns[0])
        wide.columns = resamples
        wide.index = wide.index.astype(str)
        long = wide.stack(future_stack=True).rename("accuracy").reset_index()
        long.columns = ["dataset", "resample", "accuracy"]
    long["accuracy"] = pd.to_numeric(long["accuracy"], errors="coerce")
    long = long.dropna(subset=["accuracy"])  # a resample the table has not: missing, said later
    _check_fractions(long["accuracy"], path)
    return long.assign(classifier=name, source=str(path))[
        ["classifier", "dataset", "resample", "accuracy", "source"]].astype({"resample": int})


def _check_fractions(accuracy: pd.Series, where) -> None:
    outside = accuracy[(accuracy < 0) | (accuracy > 1)]
    if len(outside):
        hint = " (percentages? give fractions)" if outside.max() <= 100 else ""
        raise ValueError(f"{where}: accuracies must be fractions in [0, 1], found "
                         f"{outside.iloc[0]:g}{hint}")


def _read_folder(folder: Path) -> list[pd.DataFrame]:
    """A tsml-eval results folder (one classifier's or a root of several), or a folder of
    results tables."""
    if (folder / "Predictions").is_dir():
        return [_read_tsml(folder / "Predictions", folder.name)]
    roots = sorted(p for p in folder.iterdir() if (p / "Predictions").is_dir())
    if roots:
        return [_read_tsml(p / "Predictions", p.name) for p in roots]
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ValueError(f"{folder}: neither a tsml-eval results folder ("
                         "{classifier}/Predictions/{dataset}/testResample{i}.csv) nor a "
                         "folder of results tables (*.csv)")
    return [_read_table(path, _table_name(path)) for path in files]


def _read_tsml(predictions: Path, name: str) -> pd.DataFrame:
    """The test accuracies of one classifier's tsml-eval files: line 3 starts with it."""
    rows = []
    for path in sorted(predictions.glob("*/testResample*.csv")):
        match = _RESAMPLE_FILE.search(path.name)
        try:
            with open(path) as handle:
                lines = [handle.readline() for _ in range(3)]
            accuracy = float(lines[2].split(",", 1)[0])
        except (OSError, UnicodeDecodeError, ValueError, IndexError) as exc:
            raise ValueError(f"{path}: not a tsml-eval results file (its third line must "
                             f"start with the accuracy: {exc})") from exc
        rows.append({"dataset": path.parent.name, "resample": int(match.group(1)),
                     "accuracy": accuracy})
    table = pd.DataFrame(rows, columns=["dataset", "resample", "accuracy"])
    _check_fractions(table["accuracy"], predictions.parent)
    return table.assign(classifier=name, source=str(predictions.parent))[
        ["classifier", "dataset", "resample", "accuracy", "source"]]


def read_all_published(specs: list[str]) -> pd.DataFrame:
    """:func:`read_published` of each spec, into one table; a classifier named twice (by two
    files, or by a file and a folder) raises ValueError naming both sources."""
    tables = [read_published(spec) for spec in specs]
    names_of: dict[str, set] = {}
    for table in tables:
        for source, part in table.groupby("source", sort=False):
            names_of.setdefault(source, set()).update(part["classifier"])
    for source, names in names_of.items():
        if len(names) > 1:  # one file read twice, under two names: it would rank against itself
            raise ValueError(f"{source} is given twice, as {' and '.join(sorted(names))}")
    seen: dict[str, str] = {}
    for table in tables:
        for classifier, part in table.groupby("classifier", sort=False):
            source = part["source"].iloc[0]
            if classifier in seen and seen[classifier] != source:
                raise ValueError(f"published classifier {classifier!r} is in both {seen[classifier]}"
                                 f" and {source}: name one of them with NAME=PATH")
            seen[classifier] = source
    return pd.concat(tables, ignore_index=True).drop_duplicates(
        ["classifier", "dataset", "resample"])


def beside_run(means: pd.DataFrame, resamples: dict[str, list[int]],
               published: pd.DataFrame) -> dict:
    """Published results beside a run's datasets.

    ``means`` is the run's ratio-1 table (rows: datasets, columns: arms; each a mean over the
    resamples every arm finished); ``resamples`` {dataset: those resamples}; ``published``
    :func:`read_published`'s table.

    Returns ``{"table": ..., "pairing": ..., "missing": ...}``: the run's arms and one column
    per published classifier (:func:`column_name`) on the run's datasets (NaN where a table
    lacks the figure); per classifier how its figures pair with the run's ("resample 0",
    "mean of N resamples" or "table of means"); and the (classifier, dataset, what) a table
    lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.published import beside_run
    >>> means = pd.DataFrame({"tdi": [0.9, 0.7]}, index=pd.Index(["A", "B"], name="dataset"))
    >>> published = pd.DataFrame({"classifier": "HC2", "dataset": ["A", "A"],
    ...                           "resample": [0, 1], "accuracy": [0.95, 0.85]})
    >>> out = beside_run(means, {"A": [0], "B": [0]}, published)
    >>> out["table"].to_dict()
    {'tdi': {'A': 0.9, 'B': 0.7}, 'HC2 (published)': {'A': 0.95, 'B': nan}}
    >>> out["pairing"], out["missing"]
    ({'HC2': 'resample 0 (the official split, paired)'}, [('HC2', 'B', 'dataset')])
    """
    table = means.copy()
    pairing, missing = {}, []
    for classifier, rows in published.groupby("classifier", sort=False):
        by_dataset = {d: part.set_index("resample")["accuracy"]
                      for d, part in rows.groupby("dataset")}
        column, kinds = [], set()
        for dataset in means.index:
            values = by_dataset.get(dataset)
            run = resamples.get(dataset, [0])
            if values is None:
                missing.append((classifier, dataset, "dataset"))
                column.append(np.nan)
            elif MEAN in values.index:
                kinds.add("means")
                column.append(float(values[MEAN]))
            elif list(run) == [0]:
                if 0 in values.index:
                    kinds.add("paired")
                    column.append(float(values[0]))
                else:
                    missing.append((classifier, dataset, "resample 0"))
                    column.append(np.nan)
            else:
                kinds.add(f"mean of {len(values)}")
                # numpy's mean in resample order, as tsml-eval takes a dataset's mean
                column.append(float(np.mean(values.sort_index().to_numpy())))
        table[column_name(classifier)] = column
        pairing[classifier] = _pairing_text(kinds)
    return {"table": table, "pairing": pairing, "missing": missing}


def _pairing_text(kinds: set[str]) -> str:
    words = []
    if "paired" in kinds:
        words.append("resample 0 (the official split, paired)")
    counts = sorted(k for k in kinds if k.startswith("mean of "))
    if counts:
        words.append("the mean of its resamples (" + ", ".join(k[8:] for k in counts)
                     + "), beside the run's mean: sktdi's resamples after 0 are not tsml's draws")
    if "means" in kinds:
        words.append("a table of means (not paired with any split of the run)")
    return "; ".join(words) or "no dataset of the run"
