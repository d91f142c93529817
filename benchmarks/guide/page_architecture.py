"""The package's structure drawing (``docs/architecture.md``), drawn from the imports
themselves: which part of ``sktdi/`` imports which, layer by layer, with the count of arrows
that point back up and of circles (``tests/test_architecture.py`` asserts both are 0).

A part is a subpackage (``deep_model``, ``fast_path``, ``persistence``, ``ssm``, ``tdi``,
``utils``, ``benchmark``) or one of the public entry modules at the top (:data:`ENTRY_POINTS`).
Every import counts, those inside functions too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ..shared.regions import GENERATORS, ROOT, STUDIES, region, regions_in, study_folders
from ..shared.results_file import results_files

PACKAGE = ROOT / "sktdi"
# the only modules allowed outside a subpackage: the public entry points
ENTRY_POINTS = ("__init__", "cli", "datasets", "sktime", "plotting")
# bottom to top: a part may import only parts of lower layers (never its own layer's others)
LAYERS = (
    ("utils",),
    ("ssm",),
    ("tdi",),
    ("persistence",),
    ("fast_path",),
    ("deep_model",),
    ("datasets", "plotting"),
    ("benchmark", "sktime"),
    ("cli", "__init__"),
)
ROLES = {
    "utils": "validation, inputs, option groups, seeds, threads, memory, devices",
    "ssm": "the S4D core: torch, and numba loops for a CPU's training step",
    "tdi": "Task-Dependent Initialization",
    "persistence": "the safe archive, declared fitted state",
    "deep_model": "SSMClassifier / SSMRegressor: the network on the fast path, training, streaming",
    "fast_path": "the filter bank, its ridge models, the compiled scan",
    "datasets": "data (entry point)",
    "plotting": "figures (entry point)",
    "benchmark": "the UCR harness",
    "sktime": "sktime adapters (entry point)",
    "cli": "`sktdi benchmark` (entry point)",
    "__init__": "`from sktdi import ...` (entry point)",
}
def module_name(path: Path) -> str:
    parts = ["sktdi", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    """The part a module belongs to: "sktdi.deep_model.training" -> "deep_model"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_imports(path: Path) -> set[str]:
    """The absolute names a module of the repository imports, relative imports resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1]).split(".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            # `from benchmarks.other import runner` imports the module benchmarks.other.runner
            found |= {f"{module}.{a.name}" for a in node.names if module.count(".") == 1}
    return found


def imports(path: Path) -> set[str]:
    """The sktdi modules (or packages) a module of ``sktdi/`` imports."""
    return {name for name in module_imports(path) if name.split(".")[0] == "sktdi"}


def part_graph() -> dict[str, set[str]]:
    """part -> the other parts it imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = part_of(module_name(path))
        targets = {part_of(t) for t in imports(path)} - {source}
        graph.setdefault(source, set()).update(targets)
    return graph


def loose_modules() -> list[str]:
    """Modules directly in ``sktdi/`` that are not entry points."""
    return sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in ENTRY_POINTS)


def layer_of(part: str) -> int:
    for level, parts in enumerate(LAYERS):
        if part in parts:
            return level
    raise KeyError(f"{part!r} is in no layer of benchmarks/guide/page_architecture.py's LAYERS")


def arrows_up(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports from a part to one of its own layer or above."""
    return sorted(
        (a, b) for a, targets in graph.items() for b in targets if layer_of(b) >= layer_of(a)
    )


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles between parts (each once, from its smallest name)."""
    found = set()

    def walk(node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == path[0]:
                cycle = path[path.index(min(path)):] + path[: path.index(min(path))]
                found.add(tuple(cycle))
            elif nxt not in path and nxt > path[0]:
                walk(nxt, path + [nxt])

    for start in sorted(graph):
        walk(start, [start])
    return [list(c) for c in sorted(found)]


@region("structure")
def structure() -> str:
    graph = part_graph()
    lines = ["```text"]
    for level in reversed(range(len(LAYERS))):
        for part in LAYERS[level]:
            targets = ", ".join(sorted(graph.get(part, ()), key=lambda p: (-layer_of(p), p)))
            lines.append(f"{part:<12} {ROLES[part]}")
            lines.append(f"{'':<12}   -> {targets or '(nothing of sktdi)'}")
        if level:
            lines.append("")
    lines.append("```")
    loose = loose_modules()
    lines += [
        "",
        f"Layers from the top: each part imports only parts below it. Arrows back up: "
        f"{len(arrows_up(graph))}; circles: {len(circles(graph))}; modules outside a "
        f"subpackage other than the entry points: {len(loose)}. Drawn from the import "
        f"statements (those inside functions too) by `benchmarks/guide/page_architecture.py`; "
        f"`tests/test_architecture.py` keeps all three at 0. Names imported by string are "
        f"not arrows: the classes loading may rebuild (`persistence`'s allow-list of "
        f"`\"module:Class\"`), the root's names loaded on first use.",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# the studies (benchmarks/): one folder each, the shared machinery beside them


def foreign_runner_imports(folders: list[Path] | None = None) -> list[tuple[str, str]]:
    """(module, import) where a study imports another study's runner rather than the shared
    machinery or a page module: a study that borrows another's runner is a copy waiting."""
    found = []
    for study in folders if folders is not None else study_folders():
        for module in sorted(study.glob("*.py")):
            for name in sorted(module_imports(module)):
                parts = name.split(".")
                if parts[0] != "benchmarks" or len(parts) < 3:
                    continue
                if parts[1] not in ("shared", study.name) and not parts[2].startswith("page"):
                    found.append((str(module.relative_to(ROOT)), name))
    return found


def library_imports_of_studies() -> list[str]:
    """Modules of sktdi that import the studies (the library never does)."""
    return sorted(
        str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
        if any(n.split(".")[0] == "benchmarks" for n in module_imports(p))
    )


def _pages_of(study: Path, on_page: dict[str, set[str]]) -> list[str]:
    """The pages holding the regions a study writes (a retired study: its regions.md's);
    ``on_page``: page name -> the regions it holds."""
    if (study / "regions.md").exists():
        names = {name for name, _ in regions_in((study / "regions.md").read_text())}
    else:
        prefix = ".".join(study.relative_to(ROOT).parts) + "."
        names = {n for n, f in GENERATORS.items() if f.__module__.startswith(prefix)}
    return [page for page, held in on_page.items() if names & held]


def _study_line(study: Path, on_page: dict[str, set[str]]) -> str:
    scripts = sorted(p.name for p in study.glob("*") if p.suffix in (".py", ".sh")
                     and not p.stem.startswith(("page", "__")))
    n_results = len(results_files(study))
    pages = ", ".join(_pages_of(study, on_page)) or "no page"
    retired = (study / "regions.md").exists()
    scripts = ", ".join(scripts) or ("none (retired)" if retired else "none")
    return (f"{study.name + '/':<22} results files: {n_results:<3} pages: {pages}\n"
            f"{'':<22} scripts: {scripts}")


@region("studies")
def studies() -> str:
    live, archived = study_folders(), study_folders(archived=True)
    on_page = {  # every page read once
        p.name: {name for name, _ in regions_in(p.read_text())}
        for p in sorted(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]
    }
    shared = sorted(p.stem for p in (STUDIES / "shared").glob("*.py") if p.stem != "__init__")
    lines = ["```text", "benchmarks/", "  shared/              " + ", ".join(shared)]
    lines += ["  " + line for study in live for line in _study_line(study, on_page).splitlines()]
    lines += ["  archive/"]
    lines += [
        "    " + line for study in archived for line in _study_line(study, on_page).splitlines()
    ]
    lines.append("```")
    foreign, library = foreign_runner_imports(), library_imports_of_studies()
    lines += [
        "",
        f"{len(live)} studies and {len(archived)} retired ones; each folder holds its runners, "
        "its page modules (`page*.py`, the regions of the pages named) and its `results/`, "
        "listed with their writers in its README. Imports of another study's runner: "
        f"{len(foreign)}; modules of `sktdi` that import the studies: {len(library)}. Drawn "
        "from the folders and their imports by `benchmarks/guide/page_architecture.py`; "
        "`tests/test_architecture.py` keeps both at 0, `tests/test_studies.py` holds every "
        "results file to a study's manifest.",
    ]
    return "\n".join(lines) + "\n"
