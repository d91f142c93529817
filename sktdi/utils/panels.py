"""sktime's panel formats read as sktdi's series, so that data loaded by sktime fits as it comes.

sktdi's estimators take an array (n, L) or (n, C, L), or a list of series each (L_i,) or
(C, L_i). sktime holds unequal-length panels in pandas: a nested frame ("nested_univ", what
its loaders return by default: one row per series, one column per channel, each cell a
series), a list of frames ("df-list", each (L_i, C)), or a frame indexed by (series, time)
("pd-multiindex", one column per channel). Each is read here as a list of (C, L_i) arrays,
which every estimator takes with its lengths; any other X passes through unchanged, for the
validation that follows to accept or name its problem. The sktime adapters
(:mod:`sktdi.sktime`) take every sktime format through sktime's own conversions.
"""

from __future__ import annotations

import warnings

import numpy as np


def _is_frame(X) -> bool:
    return hasattr(X, "to_numpy") and hasattr(X, "columns") and hasattr(X, "index")


def _nested_cells(frame) -> bool:
    """Whether ``frame``'s cells are series (sktime's nested frame), not numbers."""
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        return False
    first = frame.iloc[0, 0]
    return hasattr(first, "__len__") and not isinstance(first, (str, bytes))


def _nested_frame_series(frame) -> list[np.ndarray]:
    """A nested frame's rows, each (C, L_i): its cells stacked channel by channel."""
    series = []
    for i, row in enumerate(frame.to_numpy()):  # (n, C) cells, each a series
        cells = [np.asarray(cell, dtype=np.float64) for cell in row]
        lengths = {cell.shape for cell in cells}
        if len(lengths) > 1:
            raise ValueError(
                f"row {i} of X (a nested frame, sktime's 'nested_univ') holds channels of "
                f"different lengths ({sorted(len(cell) for cell in cells)}); every channel of a "
                f"series needs the series' length"
            )
        series.append(np.stack(cells))  # (C, L_i)
    return series


def _multiindex_series(frame) -> list[np.ndarray]:
    """A frame indexed by (series, time), sktime's 'pd-multiindex': one (C, L_i) array per
    series, in the order the series first appear."""
    keys = frame.index.get_level_values(0)
    return [
        np.asarray(group, dtype=np.float64).T  # (C, L_i)
        for _, group in frame.groupby(keys, sort=False)
    ]


def read_sktime_panel(X, warn: bool = True):
    """X as sktdi takes it: sktime's nested frame, list of frames or multi-indexed frame as a
    list of (C, L_i) float64 arrays; anything else unchanged.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sktdi.utils.panels import read_sktime_panel
    >>> nested = pd.DataFrame({"dim_0": [pd.Series([1.0, 2.0, 3.0]), pd.Series([4.0, 5.0])]})
    >>> [x.shape for x in read_sktime_panel(nested)]
    [(1, 3), (1, 2)]
    >>> frames = [pd.DataFrame(np.ones((4, 2))), pd.DataFrame(np.ones((6, 2)))]  # (L_i, C)
    >>> [x.shape for x in read_sktime_panel(frames)]
    [(2, 4), (2, 6)]
    >>> read_sktime_panel(np.ones((2, 3))).shape  # not one of sktime's frames: as it is
    (2, 3)
    """
    if _is_frame(X):
        if getattr(X.index, "nlevels", 1) == 2:
            return warn_if_time_column(_multiindex_series(X), X.columns, "pd-multiindex", warn)
        if _nested_cells(X):
            return warn_if_time_column(_nested_frame_series(X), X.columns, "nested_univ", warn)
        return X  # a frame of numbers: (n, L), one series a row
    if isinstance(X, (list, tuple)) and len(X) and all(_is_frame(x) for x in X):
        # sktime's df-list: each frame (L_i, C), time down the rows
        series = [np.asarray(x, dtype=np.float64).T for x in X]  # (C, L_i) each
        return warn_if_time_column(series, X[0].columns, "df-list", warn)
    return X


def warn_if_time_column(
    series: list[np.ndarray], columns, form: str, warn: bool = True
) -> list[np.ndarray]:
    """``series`` (each (C, L_i)), after a warning (with ``warn``) naming each column of the
    frames that increases at every step of every series: most often the time stamps of a table read from
    a file, which every model would take as a channel of signal.

    >>> import warnings, numpy as np
    >>> t = np.arange(5.0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = warn_if_time_column([np.stack([t, np.sin(t)])] * 2, ["time", "x"], "df-list")
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    column 'time' of X (sktime's df-list) increases at every step of every series: ...
    """
    if not warn or len(series) < 2 or min(x.shape[-1] for x in series) < 3:
        return series  # too few steps to tell a clock from a signal
    rising = np.ones(series[0].shape[0], dtype=bool)  # (C,)
    for x in series:
        rising &= (np.diff(x, axis=-1) > 0).all(axis=-1)
    from .inputs import _caller_stacklevel  # here: inputs imports this module

    for c in np.flatnonzero(rising):
        name = columns[c] if len(columns) == len(rising) else c
        warnings.warn(
            f"column {name!r} of X (sktime's {form}) increases at every step of every series: "
            f"if it is the time (or an index), it is read as a channel of signal here; drop "
            f"it before fitting (sktdi takes evenly sampled series, in order). If it is a "
            f"measurement that only grows (a counter, an odometer), ignore this warning",
            UserWarning,
            stacklevel=_caller_stacklevel(),
        )
    return series


# the remedy both of the hints below name
TRANSPOSE = (
    "if each is (length, n_channels), time first as pandas and sktime hold it, transpose each "
    "series: [x.T for x in X]"
)


def transposed_hint(shapes: list[tuple]) -> str:
    """A hint for a list of 2-D series whose first axis varies and second does not: most
    likely (L_i, C), time first as pandas and sktime hold it, where sktdi reads (C, L_i)."""
    if len(shapes) < 2 or any(len(shape) != 2 for shape in shapes):
        return ""
    if len({shape[1] for shape in shapes}) == 1 and len({shape[0] for shape in shapes}) > 1:
        return (
            f"; every series has {shapes[0][1]} columns: {TRANSPOSE} (sktdi reads a series as "
            f"(n_channels, length))"
        )
    return ""


def warn_if_transposed(shapes: list[tuple]) -> None:
    """Warn when every series of a list is 2-D with more than twice as many rows as columns:
    read as (n_channels, length), that is many channels of a few steps each, and most often
    series given time first, (length, n_channels), as pandas and sktime hold them. Series of
    one length give no error to catch it (unequal ones do: :func:`transposed_hint`)."""
    if shapes and all(len(shape) == 2 and shape[0] > 2 * shape[1] for shape in shapes):
        channels, steps = shapes[0]
        warnings.warn(
            f"X's series are read as {channels} channels of {steps} time steps each "
            f"(sktdi reads a series as (n_channels, length)); {TRANSPOSE}",
            UserWarning,
            stacklevel=3,
        )
