"""The generated regions of ``docs/tdi.md``, from the committed results they cite."""

from __future__ import annotations

import pandas as pd

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _f, _md_table

RESULTS = results_dir("tdi_real")  # this study's committed results


@region("given-spectrum")
def given_spectrum() -> str:
    results = _csv(RESULTS / "given_spectrum.csv")
    acc = results.pivot_table(
        index=["dataset", "per_class"], columns="arm", values="accuracy", aggfunc="mean"
    )
    order = ["planted", "ItalyPowerDemand", "digits", "GunPoint"]
    acc = acc.reindex(sorted(acc.index, key=lambda i: (order.index(i[0]), i[1])))
    table = pd.DataFrame(
        {
            "dataset": [i[0] for i in acc.index],
            "series per class": [i[1] for i in acc.index],
            "S4D-Lin": acc["s4d-lin"].map(_f).values,
            "TDI (estimated)": acc["tdi"].map(_f).values,
            "TDI (transferred)": acc["tdi-transfer"].map(_f).values,
            "TDI (known)": acc["tdi-known"].map(_f).values,
        }
    )
    return _md_table(table, ["l", "r", "r", "r", "r", "r"])
