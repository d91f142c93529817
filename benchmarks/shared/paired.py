"""The paired test every study that decides a default reads: the mean of paired differences
(candidate − incumbent, one per cell) with its 95% t-interval, the Wilcoxon signed-rank p, and
the smallest difference the cells can detect."""

from __future__ import annotations

import numpy as np
import pandas as pd

MDD_SE = 2.8  # standard errors: the smallest difference a test at 5% detects with 80% power


def paired(gaps: pd.Series) -> dict:
    """``n``, ``mean``, the 95% t-interval's ``half`` width and ends (``low``, ``high``),
    Wilcoxon's ``p`` (zero differences split) and ``mdd`` (:data:`MDD_SE` standard errors)
    of the paired differences ``gaps``; NaN where fewer than two cells."""
    from scipy import stats

    gaps = gaps.dropna()
    n = len(gaps)
    mean = gaps.mean() if n else np.nan
    if n < 2:
        return {"n": n, "mean": mean, "half": np.nan, "low": np.nan, "high": np.nan,
                "p": np.nan, "mdd": np.nan}
    se = gaps.std(ddof=1) / np.sqrt(n)
    half = stats.t.ppf(0.975, n - 1) * se
    p = stats.wilcoxon(gaps, zero_method="zsplit").pvalue if gaps.abs().sum() else 1.0
    return {"n": n, "mean": mean, "half": half, "low": mean - half, "high": mean + half,
            "p": p, "mdd": MDD_SE * se}
