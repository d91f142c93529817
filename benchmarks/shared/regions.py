"""The generated regions' registry and where every study's committed results lie.

Each study is a folder of ``benchmarks/`` (``benchmarks/<study>/``) holding its runner, its
page modules (``page*.py``, whose functions :func:`region` registers under the name of the
region they write) and its committed results (``results/``); :func:`results_dir` names that
folder, so a page reads ``results_dir("long_series") / "long_series.csv"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
STUDIES = ROOT / "benchmarks"
GENERATORS: dict[str, Callable[[], str]] = {}
#: the functions that redraw a page's figures (docs/images) from committed results
FIGURES: list[Callable[[], None]] = []
#: a generated region of a page: its start marker, its text, its end marker
REGION = re.compile(
    r"(?P<start><!-- generated: (?P<name>[\w.-]+) -->\n)"
    r"(?P<body>.*?)(?P<end><!-- end generated -->)",
    re.DOTALL,
)
#: folders of benchmarks/ that are not studies
NOT_STUDIES = ("shared", "archive", "__pycache__")


def regions_in(text: str) -> list[tuple[str, str]]:
    """(name, body) of every generated region of a text: a page, or an archived study's
    ``regions.md``."""
    return [(m["name"], m["body"]) for m in REGION.finditer(text)]


def study_folders(archived: bool = False) -> list[Path]:
    """The live studies' folders, or with ``archived`` the retired ones'."""
    base = STUDIES / "archive" if archived else STUDIES
    return sorted(p for p in base.iterdir() if p.is_dir() and p.name not in NOT_STUDIES)


def results_dir(study: str) -> Path:
    """The folder of a study's committed results: ``benchmarks/<study>/results``."""
    return STUDIES / study / "results"


def region(name: str):
    """Register the function that writes the region ``name``."""

    def register(func):
        if name in GENERATORS:  # a region has one home: two would write one page twice
            raise ValueError(
                f"region {name!r} is registered twice: by {GENERATORS[name].__module__} "
                f"and by {func.__module__} (rename one; an archived study's names are taken too)"
            )
        GENERATORS[name] = func
        return func

    return register


@lru_cache(maxsize=None)
def _csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


def figure(draw: Callable[[], None]) -> Callable[[], None]:
    """Register a function that redraws figures in ``docs/images`` (``doc_figures --figures``)."""
    FIGURES.append(draw)
    return draw
