"""The regions of retired studies: each archived study keeps, beside its results, the text its
page generator last wrote (``archive/<study>/regions.md``), and its page shows that text.

A study is retired when it measured code the package no longer ships (a previous default
network, the estimators' defaults of that time): rerunning its runner would measure today's
code, not the study's. Its runner and page generator leave the tree (``git show`` at the
commit its README names brings them back); its results and its tables stay. ``doc_figures
--check`` still holds each page's region to the archived text, so neither can drift alone.
"""

from __future__ import annotations

from pathlib import Path

from ..shared.regions import GENERATORS, region

ARCHIVE = Path(__file__).resolve().parent
REGION = r"<!-- generated: (?P<name>[\w.-]+) -->\n(?P<body>.*?)<!-- end generated -->"


def archived_regions() -> dict[str, tuple[Path, str]]:
    """Region name -> (the archived study's folder, the region's text) for every retired study."""
    import re

    found = {}
    for tables in sorted(ARCHIVE.glob("*/regions.md")):
        for match in re.finditer(REGION, tables.read_text(), re.DOTALL):
            name = match["name"]
            if name in found or name in GENERATORS:
                raise ValueError(f"{tables}: region {name!r} has another home")
            found[name] = (tables.parent, match["body"])
    return found


for _name, (_, _body) in archived_regions().items():
    region(_name)(lambda body=_body: body)
