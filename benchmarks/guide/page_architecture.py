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

from ..shared.regions import region

PACKAGE = Path(__file__).resolve().parents[2] / "sktdi"
# the only modules allowed outside a subpackage: the public entry points
ENTRY_POINTS = ("__init__", "cli", "datasets", "sktime", "plotting")
# bottom to top: a part may import only parts of lower layers (never its own layer's others)
LAYERS = (
    ("utils",),
    ("ssm",),
    ("tdi",),
    ("persistence",),
    ("deep_model", "fast_path"),
    ("datasets", "plotting"),
    ("benchmark", "sktime"),
    ("cli", "__init__"),
)
ROLES = {
    "utils": "validation, inputs, option groups, seeds, threads, memory, devices",
    "ssm": "the S4D core: torch, and numba loops for a CPU's training step",
    "tdi": "Task-Dependent Initialization",
    "persistence": "the safe archive, declared fitted state",
    "deep_model": "SSMClassifier / SSMRegressor, training, streaming",
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


def imports(path: Path) -> set[str]:
    """The sktdi modules (or packages) ``path`` imports, relative imports resolved."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "sktdi"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "sktdi":
                found.add(target)
    return found


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
    raise KeyError(f"{part!r} is in no layer of pages/architecture.py's LAYERS")


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
