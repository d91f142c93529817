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

from ..shared.regions import region, regions_in

ARCHIVE = Path(__file__).resolve().parent

# a name an archived study shares with another region fails here, in region(): one home each
for _tables in sorted(ARCHIVE.glob("*/regions.md")):
    for _name, _body in regions_in(_tables.read_text()):
        region(_name)(lambda body=_body: body)
