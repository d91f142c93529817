"""Every measured figure in the docs, generated from the committed results files.

A page keeps each measured figure inside a marked region::

    <!-- generated: default-benchmark-summary -->
    ...Markdown written by the function registered under that name...
    <!-- end generated -->

Each region name maps to one function that reads a study's committed results
(``benchmarks/<study>/results/``) and returns the region's Markdown. A study's functions live
in its folder's page modules (``benchmarks/<study>/page*.py``; the registry and the shared
helpers in ``benchmarks/shared/``; the retired studies' last text in ``benchmarks/archive/``);
this script imports every page module, finds the regions, runs them and writes the pages.

    python benchmarks/doc_figures.py             # rewrite every region in place
    python benchmarks/doc_figures.py --check     # exit 1 and list the regions that differ
    python benchmarks/doc_figures.py --figures   # also redraw the studies' figures (docs/images)

Each study's README says how to rerun it (``bash benchmarks/default_benchmark/run.sh`` for the
default benchmark: the run, the copy of its results into the study, then this script).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package ``benchmarks``

from benchmarks.shared.regions import (  # noqa: E402
    DOCS,
    FIGURES,
    GENERATORS,
    REGION,
    ROOT,
    STUDIES,
    regions_in,
)

#: every study's page modules (``benchmarks/<study>/page*.py``); importing one registers its
#: regions in GENERATORS
PAGE_MODULES = sorted(STUDIES.glob("*/page*.py"))
for _module in PAGE_MODULES:
    importlib.import_module(f"benchmarks.{_module.parent.name}.{_module.stem}")

#: the pages that may hold generated regions
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]

def regions(path: Path) -> list[tuple[str, str]]:
    """(name, body) of every generated region in a page."""
    return regions_in(path.read_text())


def render(path: Path) -> str:
    """The page with every region regenerated."""

    def replace(match):
        name = match["name"]
        if name not in GENERATORS:
            raise KeyError(f"{path.name}: no generator for region {name!r}")
        return match["start"] + GENERATORS[name]() + match["end"]

    return REGION.sub(replace, path.read_text())


def stale(pages=None) -> list[str]:
    """'page: region' for every region whose text differs from what its generator writes."""
    out = []
    for page in pages or PAGES:
        current = regions(page)
        if not current:
            continue
        fresh = regions_in(render(page))
        for (name, body), (_, new) in zip(current, fresh):
            if new != body:
                out.append(f"{page.relative_to(ROOT)}: {name}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list stale regions, exit 1 if any")
    parser.add_argument(
        "--figures",
        action="store_true",
        help="also redraw the default benchmark's figures in docs/images from its results file",
    )
    args = parser.parse_args(argv)
    if args.figures:
        for draw in FIGURES:
            draw()
    if args.check:
        bad = stale()
        for line in bad:
            print(f"stale generated region: {line}")
        return 1 if bad else 0
    for page in PAGES:
        if regions(page):
            new = render(page)
            if new != page.read_text():
                page.write_text(new)
                print(f"updated {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
