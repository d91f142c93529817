"""The benchmark grid's definitions: a cell, its key, and the grid of cells.

The runner runs cells and the progress bar prices them; both import them from here, so that
neither imports the other for them. This module imports no pandas, torch or scikit-learn (only
:mod:`.settings` and the light :mod:`.estimators`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .estimators import DEFAULT_RATIOS
from .settings import cell_settings, normalize_config

# the columns that name a cell in the results file, in the order of Cell.key()
KEY = ["dataset", "mode", "ratio", "resample", "estimator"]


@dataclass(frozen=True)
class Cell:
    """One fit/evaluate: a dataset, a training ratio, a resample (or fold), an estimator.

    ``mode="resample"``: resample 0 is the official train/test split, r > 0 a stratified
    reshuffle. ``mode="cv"``: ``resample`` is the fold of a stratified ``n_folds``-fold
    cross-validation over the pooled data; ``mode="train-cv"``: the same inside the official
    training split alone (the test split is never read: for choosing defaults). The training
    ratio subsamples the training part, stratified, keeping at least ``min_per_class`` series
    per class.

    The key names the experiment; :meth:`config` holds the settings that, besides the key,
    change its result (model overrides the estimator reads, ``min_per_class``, the fold count,
    ``data_dir``; see :mod:`sktdi.benchmark.settings`). A finished cell is reused only when both
    match.

    Examples
    --------
    >>> from sktdi.benchmark import Cell
    >>> Cell("GunPoint", 0.08, 0, "tdi").key()
    ('GunPoint', 'resample', 0.08, 0, 'tdi')
    >>> Cell("GunPoint", 0.08, 0, "tdi", params={"max_epochs": 5}).config()
    '{"max_epochs": 5}'
    """

    dataset: str
    ratio: float
    resample: int
    estimator: str
    mode: str = "resample"
    n_folds: int = 0
    min_per_class: int = 1
    data_dir: str | None = None
    params: dict = field(default_factory=dict)
    threads: int = 1

    def key(self) -> tuple:
        return (self.dataset, self.mode, float(self.ratio), int(self.resample), self.estimator)

    def settings(self) -> dict:
        """What changes this cell's result besides its key (defaults left out)."""
        return cell_settings(
            self.estimator, self.params, mode=self.mode, n_folds=self.n_folds,
            min_per_class=self.min_per_class, data_dir=self.data_dir,
        )

    def config(self) -> str:
        """:meth:`settings` as the results file's "config" column holds them (sorted JSON)."""
        return normalize_config(self.estimator, self.settings())


def make_cells(
    datasets: Iterable[str],
    ratios: Iterable[float] = DEFAULT_RATIOS,
    resamples: int = 3,
    estimators: Iterable[str] = ("tdi", "s4d-lin"),
    *,
    cv: int | None = None,
    **cell_kwargs,
) -> list[Cell]:
    """The full grid. With ``cv=K`` the resamples are the K folds.

    Examples
    --------
    >>> from sktdi.benchmark import make_cells
    >>> len(make_cells(["GunPoint", "ArrowHead"], [0.1, 1.0], 3, ["tdi", "s4d-lin"]))
    24
    """
    mode, n = ("cv", cv) if cv else ("resample", resamples)
    return [
        Cell(d, float(r), i, e, mode=mode, n_folds=cv or 0, **cell_kwargs)
        for d in datasets
        for r in ratios
        for i in range(n)
        for e in estimators
    ]


def cell_keys(table) -> list[tuple]:
    """The :meth:`Cell.key` of each row of a results table (a pandas DataFrame with the
    :data:`KEY` columns), in its order.

    Examples
    --------
    >>> import pandas as pd
    >>> from sktdi.benchmark.cells import cell_keys
    >>> table = pd.DataFrame({"dataset": ["GunPoint"], "mode": ["resample"], "ratio": [1],
    ...                       "resample": [2.0], "estimator": ["tdi"]})
    >>> cell_keys(table)
    [('GunPoint', 'resample', 1.0, 2, 'tdi')]
    """
    return [
        (r.dataset, r.mode, float(r.ratio), int(r.resample), r.estimator)
        for r in table.itertuples()
    ]


def recorded_grid(settings: dict, fold_counts: Iterable[int] = ()) -> list[tuple]:
    """The keys of the grid's cells that ``settings`` (a run's ``settings.json``) records.

    With ``--cv`` the fold count is the grid's "cv_folds"; a file written before it was
    recorded takes it from ``fold_counts`` (the "n_folds" in the configs of its finished
    rows). Raises ValueError when the settings hold no grid, or no fold count can be found.

    Examples
    --------
    >>> from sktdi.benchmark.cells import recorded_grid
    >>> settings = {"grid": {"datasets": ["GunPoint"], "ratios": [0.5, 1.0], "resamples": 2,
    ...                      "cv": False}, "estimators": {"tdi": {}, "s4d-lin": {}}}
    >>> keys = recorded_grid(settings)
    >>> len(keys), keys[0]
    (8, ('GunPoint', 'resample', 0.5, 0, 'tdi'))
    """
    try:
        grid, estimators = settings["grid"], list(settings["estimators"])
        datasets, ratios, resamples = grid["datasets"], grid["ratios"], int(grid["resamples"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"no grid of datasets, ratios, resamples and estimators ({exc!r})")
    folds = None
    if grid.get("cv"):
        folds = grid.get("cv_folds") or max(fold_counts, default=0)
        if not folds:
            raise ValueError(
                "its grid is a cross-validation whose fold count is not recorded, and no "
                "finished cell gives it"
            )
    cells = make_cells(datasets, ratios, resamples, estimators, cv=folds)
    return [cell.key() for cell in cells]
