"""The package's layout: subpackages that say what they are, imports that point one way.

The structure drawing of ``docs/architecture.md`` is made from the same import graph
(``benchmarks/guide/page_architecture.py``); here its counts are held at 0, for the package
and for the studies beside it (``benchmarks/``).
"""

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(ROOT))
from benchmarks.guide import page_architecture as structure  # noqa: E402


def test_no_module_outside_a_subpackage_but_the_entry_points():
    assert structure.loose_modules() == []


def test_every_part_has_a_layer():
    for part in structure.part_graph():
        structure.layer_of(part)  # KeyError names a part nobody placed


def test_imports_point_down_only():
    graph = structure.part_graph()
    assert structure.arrows_up(graph) == []
    assert structure.circles(graph) == []


def test_the_checks_can_fail():
    """The same functions find an arrow up and a circle where there are."""
    graph = {"utils": {"tdi"}, "tdi": {"utils", "ssm"}, "ssm": set()}
    assert structure.arrows_up(graph) == [("utils", "tdi")]
    assert structure.circles(graph) == [["tdi", "utils"]]


def test_relative_imports_resolve_to_their_module(tmp_path):
    imports = structure.imports(ROOT / "sktdi" / "fast_path" / "ridge.py")
    assert {"sktdi.persistence", "sktdi.utils.options", "sktdi.fast_path.transformers"} <= imports


@pytest.mark.parametrize(
    "old, new",
    [
        ("sktdi.estimators", "sktdi.deep_model.estimators"),
        ("sktdi.ridge", "sktdi.fast_path.ridge"),
        ("sktdi.transformers", "sktdi.fast_path.transformers"),
        ("sktdi.augmentation", "sktdi.deep_model.augmentation"),
        ("sktdi.experiments", "sktdi.fast_path.experiments"),
    ],
)
def test_the_flat_layout_public_modules_still_import(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


def test_public_names_and_documented_paths_unchanged():
    from sktdi.transformers import multirocket_pooling  # noqa: F401

    import sktdi
    from sktdi.datasets import pad_sequences
    from sktdi.persistence import SaveMixin, save_estimator  # noqa: F401

    for name in sktdi.__all__:
        assert getattr(sktdi, name) is not None
    assert pad_sequences.__module__ == "sktdi.utils.inputs"


def test_studies_import_the_shared_machinery_and_the_library_never_imports_them():
    """The studies' half of the architecture page's drawing (its "studies" region)."""
    assert structure.study_folders(), "no study found: the drawing would be empty"
    borrowed = structure.foreign_runner_imports()
    assert borrowed == [], (
        "a study imports another study's runner (move what both need to benchmarks/shared/): "
        f"{borrowed}"
    )
    assert structure.library_imports_of_studies() == [], "sktdi must not import benchmarks/"


def test_the_studies_check_finds_a_borrowed_runner(tmp_path, monkeypatch):
    study = tmp_path / "benchmarks" / "borrower"
    study.mkdir(parents=True)
    (study / "run.py").write_text(
        "from benchmarks.shared.splits import load_train\n"
        "from benchmarks.other.page import table\n"
        "from benchmarks.other.run import cells\n"
        "from ..other.run_more import more\n"
        "from benchmarks.other import runner\n"
        "from ..other import page_x\n"
    )
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    found = structure.foreign_runner_imports([study])
    assert [name for _, name in found] == [
        "benchmarks.other.run", "benchmarks.other.run_more", "benchmarks.other.runner"
    ]


#: the longest a file may grow before it is split by responsibility (issue 59)
MAX_LINES = {"sktdi": 800, "benchmarks": 800, "sktdi/persistence": 600}


@pytest.mark.parametrize("folder", sorted(MAX_LINES))
def test_no_file_outgrows_its_folders_bound(folder):
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / folder).rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES[folder]
    }
    assert not long, f"over {MAX_LINES[folder]} lines: {long}"


def test_each_persistence_module_opens_with_a_one_line_summary():
    for path in sorted((ROOT / "sktdi" / "persistence").glob("*.py")):
        first = path.read_text().splitlines()[0]
        assert first.startswith('"""') and first.rstrip('"').endswith("."), (
            f"{path.name}: its docstring's first line is not a sentence of its own: {first!r}"
        )
