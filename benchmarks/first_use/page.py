"""The README's first-use region: each model's first fit after installing, from
``benchmarks/first_use/first_use.py``'s results."""

from __future__ import annotations

from ..shared.regions import _csv, region, results_dir
from ..shared.tables import _md_table

RESULTS = results_dir("first_use")  # this study's committed results


FIRST_USE = RESULTS / "first_use.csv"


def _shown(model: str) -> str:
    """A results file's model name as code, with what it ran on in words."""
    name, _, detail = model.partition(", ")
    if detail == "unequal lengths":
        return f"`{name}` on JapaneseVowels (unequal lengths)"
    return f"`{name}`" + (f", {detail} one at a time" if detail else "")


@region("first-use")
def first_use() -> str:
    """Each model's first fit on a cold numba cache beside a later process's and a second
    fit in the same process."""
    runs = _csv(FIRST_USE)
    cold = runs[runs["cache"] == "cold"].set_index("model")
    warm = runs[runs["cache"] == "warm"].set_index("model")
    table = cold[["first_s"]].rename(columns={"first_s": "first fit after installing (s)"})
    table["first fit of a later process (s)"] = warm["first_s"]
    table["a second fit (s)"] = cold["second_s"]
    table = table.reset_index().rename(columns={"model": "fit and predict (GunPoint unless said)"})
    table.iloc[:, 0] = [_shown(model) for model in table.iloc[:, 0]]
    cpus = int(runs["cpu_count"].iloc[0])
    imports = runs["import_s"]
    return (
        f"The first fit after installing waits for numba to compile the loops it runs "
        f"(sktdi's, and sktime's for MiniRocket's features); numba caches them, and later "
        f"processes load them. Measured on {cpus} cores (`benchmarks/first_use/first_use.py`: each model "
        f"in a fresh process over an empty numba cache, then a second process; importing "
        f"sktdi and loading the data, {imports.min():.1f} to {imports.max():.1f} s a process, "
        f"not counted):\n\n"
        + _md_table(table.round(1))
    )
