"""The generated regions of ``docs/choosing_init.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import region
from ..shared.tables import _md_table, _pts
from .page import _default_init_gaps

#: a measured gap this many standard errors below zero makes S4D-Lin the advice
ADVICE_STANDARD_ERRORS = 2.0


def init_advice() -> pd.DataFrame:
    """Per training budget on real series (the default TDI against S4D-Lin, every real
    dataset of docs/tdi_real.md): the gap, its standard error over paired draws, and the
    `init` to advise: S4D-Lin only where TDI is measurably behind."""
    gaps = _default_init_gaps()
    rows = []
    for budget, subset in gaps.groupby("budget"):
        se = subset["gap"].std(ddof=1) / len(subset) ** 0.5
        behind = subset["gap"].mean() + ADVICE_STANDARD_ERRORS * se < 0
        rows.append(
            {
                "epochs": int(budget),
                "gap": subset["gap"].mean(),
                "se": se,
                "draws": len(subset),
                "datasets": subset["dataset"].nunique(),
                "advice": "s4d-lin" if behind else "tdi",
            }
        )
    return pd.DataFrame(rows)


@region("init-by-budget")
def init_by_budget() -> str:
    advice = init_advice()
    table = pd.DataFrame(
        {
            "epochs (`max_epochs`)": advice["epochs"],
            "TDI − S4D-Lin (points)": [
                f"{_pts(g)} ± {s:.1f} ({n})"
                for g, s, n in zip(advice["gap"], advice["se"], advice["draws"])
            ],
            "datasets": advice["datasets"],
            "use": [f'`"{a}"`' for a in advice["advice"]],
        }
    )
    return (
        _md_table(table, ["r", "r", "r", "l"])
        + "\nReal series ([TDI on real series](tdi_real.md)): the 784-step digits with one S4D layer, and the "
        "64-step digits and the UCR/UEA sets at 4 series per class with the default network; "
        "mean ± standard error over paired draws (their number in brackets), training and test "
        "splits together. The advice is S4D-Lin only where TDI is behind by more than "
        f"{ADVICE_STANDARD_ERRORS:g} standard errors.\n"
    )
