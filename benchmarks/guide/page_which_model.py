"""The generated regions of ``docs/which_model.md``, from the committed results they cite."""

from __future__ import annotations


from ..shared.regions import _csv, region
from ..shared.tables import _pts
from ..tdi_real.page import TDI_REAL_CONFIRM, _deep_real_gaps, _default_init_gaps, _real_pairs

# --------------------------------------------------------------------------------------
# the guide's decision page (docs/which_model.md) and the advice on `init`
# (docs/choosing_init.md): what a user can expect, read from the studies' committed results


@region("tdi-real-summary")
def tdi_real_summary() -> str:
    """The decision page's sentence on TDI and real data, from docs/tdi_real.md's results."""
    gaps = _default_init_gaps()
    per_dataset = gaps.groupby("dataset")["gap"].mean()
    confirm = _csv(TDI_REAL_CONFIRM)
    digits = confirm[(confirm["dataset"] == "digits-784") & (confirm["preset"] == "s4d-1")]
    lead = _real_pairs(digits, "beside").groupby(level="budget").mean()
    tiled = _real_pairs(digits, "tiled").groupby(level="budget").mean()
    control = gaps.merge(
        _deep_real_gaps("beside-control").rename("control").reset_index()
    )
    over_control = (control["gap"] - control["control"]).mean()
    return (
        f"On real series ({per_dataset.size} datasets, [TDI on real series](tdi_real.md)), TDI − S4D-Lin is "
        f"{_pts(gaps['gap'].mean())} points on the mean of {len(gaps)} paired fits (from "
        f"{_pts(per_dataset.min())} on {per_dataset.idxmin()} to {_pts(per_dataset.max())} on "
        f"{per_dataset.idxmax()}), and {_pts(over_control)} against its placebo. On the 784-step "
        "digits at 1% with one S4D layer it is "
        + ", ".join(f"{_pts(v)} at {int(b)} epochs" for b, v in lead.items())
        + " (the TDI of earlier versions: "
        + ", ".join(f"{_pts(v)}" for v in tiled.values)
        + ").\n"
    )
