"""Every measured figure in the docs, generated from the committed results files.

A page keeps each measured figure inside a marked region::

    <!-- generated: default-benchmark-summary -->
    ...Markdown written by the function registered under that name...
    <!-- end generated -->

Each region name maps to one function that reads committed results (``docs/data/``,
``docs/study/``) and returns the region's Markdown. The functions of a page live in its own
module, ``benchmarks/pages/<page>.py`` (``pages/common.py``: the registry, the results'
paths and the table helpers); this script finds the regions, runs them and writes the pages.

    python benchmarks/doc_figures.py           # rewrite every region in place
    python benchmarks/doc_figures.py --check   # exit 1 and list the regions that differ

After a new default benchmark run (``sktdi benchmark --out runs/default``), copy its
``results.csv``, ``settings.json`` and ``run.json`` to ``docs/data/default_benchmark_results.csv``,
``default_benchmark_settings.json`` and ``default_benchmark_run.json`` and run this script: the
benchmark page's grid, tables, ranks, wins/ties/losses and Wilcoxon tests follow.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pages/ and the study scripts

import pages  # noqa: E402
from pages.budgets import BUDGET_RESULTS  # noqa: E402
from pages.common import DOCS, GENERATORS, ROOT, _csv  # noqa: E402

# every page module registers its regions in GENERATORS when imported
for _page in pkgutil.iter_modules(pages.__path__):
    importlib.import_module(f"pages.{_page.name}")

#: the pages that may hold generated regions
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]

REGION = re.compile(
    r"(?P<start><!-- generated: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(?P<end><!-- end generated -->)",
    re.DOTALL,
)


def regions(path: Path) -> list[tuple[str, str]]:
    """(name, body) of every generated region in a page."""
    return [(m["name"], m["body"]) for m in REGION.finditer(path.read_text())]


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
        fresh = [(m["name"], m["body"]) for m in REGION.finditer(render(page))]
        for (name, body), (_, new) in zip(current, fresh):
            if new != body:
                out.append(f"{page.relative_to(ROOT)}: {name}")
    return out


def draw_learning_curves() -> None:
    """docs/images/learning_curves.png: the long-sequence task's curves against epochs and
    against training time, from the committed results (the same plotting function users
    call)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sktdi.plotting import plot_learning_curves

    results = _csv(BUDGET_RESULTS)
    ratios = sorted(results["ratio"].unique())
    fig, axes = plt.subplots(len(ratios), 2, figsize=(10, 3.6 * len(ratios)), squeeze=False)
    for row, ratio in zip(axes, ratios):
        subset = results[results["ratio"] == ratio]
        for ax, x in zip(row, ("budget", "seconds")):
            plot_learning_curves(subset, x=x, ax=ax)
            ax.set_title(f"pixel-digits, training ratio {ratio:g}")
            ax.set_ylabel("test accuracy")
    fig.tight_layout()
    fig.savefig(DOCS / "images" / "learning_curves.png", dpi=110)
    plt.close(fig)
    print("drew docs/images/learning_curves.png")


def draw_default_benchmark_figures() -> None:
    """The two figures ``sktdi benchmark`` saves, drawn from the committed default run (the
    same functions the command calls), so the page shows them as a user sees them."""
    from sktdi.benchmark import plot_accuracy_vs_ratio, plot_paired_difference

    results = _csv(ROOT / "docs" / "data" / "default_benchmark_results.csv")
    images = ROOT / "docs" / "images"
    plot_accuracy_vs_ratio(results, images / "default_benchmark.png")
    plot_paired_difference(results, images / "default_benchmark_paired.png")
    print("drew docs/images/default_benchmark.png and default_benchmark_paired.png")


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
        draw_default_benchmark_figures()
        draw_learning_curves()
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
