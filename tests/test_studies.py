"""Every study is one folder of ``benchmarks/`` that holds its results and says what wrote them.

A study folder (``benchmarks/<study>/``, or ``benchmarks/archive/<study>/`` once retired) has a
README whose "## Results" table lists each committed results file and its writer. Here:

(a) no results file lies in the docs: a page's figures come from a study folder;
(b) every file in a study's ``results/`` is in its manifest, and every manifest row names files
    that exist; a live study's writer is a script of its folder (or of ``shared/``) that names
    the file it writes, so the file can be made again;
(c) every results file the generated regions read, and every results path a page names, is in
    a study folder's manifest;

The imports between studies and the library are held in ``tests/test_architecture.py``.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.shared.regions import study_folders  # noqa: E402
from benchmarks.shared.results_file import manifest, manifest_files, results_files  # noqa: E402

BENCHMARKS = ROOT / "benchmarks"
ARCHIVE = BENCHMARKS / "archive"
LIVE = study_folders()
ARCHIVED = study_folders(archived=True)
STUDIES = LIVE + ARCHIVED
#: what a results file looks like (a table, a record, an array, a run's summary)
RESULT_SUFFIXES = {".csv", ".tsv", ".json", ".parquet", ".feather", ".txt", ".npz", ".npy", ".pkl"}
IDS = [str(p.relative_to(BENCHMARKS)) for p in STUDIES]


def _manifested() -> dict[Path, tuple[Path, str]]:
    """Every committed results file -> (its study's folder, its writer)."""
    found = {}
    for study in STUDIES:
        for pattern, writer in manifest(study):
            for path in manifest_files(study, pattern):
                found[path.resolve()] = (study, writer)
    return found


#: what the docs build writes into docs/ (none of it committed)
BUILT = {"_build", "generated", "auto_examples"}


def test_the_studies_index_lists_every_study():
    index = (BENCHMARKS / "README.md").read_text() + (ARCHIVE / "README.md").read_text()
    unlisted = [p.name for p in STUDIES if f"({p.name}/README.md)" not in index]
    assert not unlisted, f"benchmarks/README.md or archive/README.md lists no {unlisted}"


def test_no_results_file_lies_in_the_docs():
    stray = [
        p.relative_to(ROOT)
        for p in (ROOT / "docs").rglob("*")
        if p.suffix in RESULT_SUFFIXES and not BUILT & set(p.parts)
    ]
    assert not stray, f"results files outside a study folder: {stray}"


@pytest.mark.parametrize("study", STUDIES, ids=IDS)
def test_the_study_says_what_it_asks_and_how_it_reruns(study):
    readme = study / "README.md"
    assert readme.exists(), f"{study.relative_to(ROOT)} has no README"
    text = readme.read_text()
    for section in ("**Question.**", "**Found.**"):
        assert section in text, f"{readme.relative_to(ROOT)}: no {section}"
    if study.parent == ARCHIVE:
        assert re.search(r"git show [0-9a-f]{7,}:", text), "an archived study names its commit"
    else:
        assert "**Rerun.**" in text, f"{readme.relative_to(ROOT)}: no **Rerun.**"


@pytest.mark.parametrize("study", STUDIES, ids=IDS)
def test_results_lie_in_the_results_folder(study):
    stray = [
        str(p.relative_to(study)) for p in study.rglob("*")
        if p.suffix in RESULT_SUFFIXES and "results" not in p.relative_to(study).parts
    ]
    assert not stray, f"{study.name}: results outside its results/ folder: {stray}"


@pytest.mark.parametrize("study", STUDIES, ids=IDS)
def test_every_results_file_is_in_the_manifest_and_every_row_exists(study):
    rows = manifest(study)
    listed = set()
    for pattern, writer in rows:
        files = manifest_files(study, pattern)
        assert files, f"{study.name}: {pattern} names no committed file"
        listed |= set(files)
    on_disk = set(results_files(study))
    missing = sorted(str(p.relative_to(study)) for p in on_disk - listed)
    assert not missing, f"{study.name}: results with no manifest row: {missing}"


def _names_the_file(text: str, path: Path) -> bool:
    """The writer's text names the file, the fixed part of a numbered name, or the folder
    under ``results/`` it writes whole (``--out .../transfer/augment``)."""
    stem = re.sub(r"\d+$", "", path.stem)  # transformer_defaults_round7 -> ..._round
    folder = path.parent.name != "results" and f"/{path.parent.name}" in text
    return path.name in text or stem in text or folder


def _script_of(writer: str, study: Path) -> Path | None:
    """The script a writer's command runs: its first ``.py`` or ``.sh`` word, from the
    repository's root (``benchmarks/raw_data/raw_data.py``) or from the study's folder."""
    for word in writer.split():
        if word.endswith((".py", ".sh")):
            return ROOT / word if word.startswith("benchmarks/") else study / word
    return None


@pytest.mark.parametrize("study", LIVE, ids=[p.name for p in LIVE])
def test_a_live_studys_writer_is_a_script_that_names_what_it_writes(study):
    for pattern, writer in manifest(study):
        script = _script_of(writer, study)
        assert script is not None and script.is_file(), (
            f"{study.name}: {pattern}'s writer {writer!r} names no script of the repository"
        )
        text = script.read_text()
        for path in manifest_files(study, pattern):
            assert _names_the_file(text, path), f"{writer} does not name {path.name}"


def test_every_results_file_a_region_reads_is_a_studys(monkeypatch):
    """Render every region while recording the files they open."""
    import pandas as pd

    from benchmarks import doc_figures
    from benchmarks.shared import regions

    read = set()
    real_csv, real_text = pd.read_csv, Path.read_text

    def read_csv(path, *args, **kwargs):
        read.add(Path(path).resolve())
        return real_csv(path, *args, **kwargs)

    def read_text(self, *args, **kwargs):
        read.add(self.resolve())
        return real_text(self, *args, **kwargs)

    monkeypatch.setattr(pd, "read_csv", read_csv)
    monkeypatch.setattr(Path, "read_text", read_text)
    regions._csv.cache_clear()
    try:
        doc_figures.stale()
    finally:
        regions._csv.cache_clear()
    data = {p for p in read if p.suffix in RESULT_SUFFIXES}
    assert data, "the regions read no results: the recorder missed them"
    known = _manifested()
    unlisted = sorted(str(p.relative_to(ROOT)) for p in data if p not in known)
    assert not unlisted, f"regions read results no study lists: {unlisted}"


def test_every_results_path_a_page_names_is_a_studys():
    pages = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    known = {str(p.relative_to(ROOT)) for p in _manifested()}
    named = re.compile(r"benchmarks/[\w/]+/results/[\w.*/-]*")
    unknown = []
    for page in pages:
        if page.name == "changelog.md":  # the history names paths as they were
            continue
        for path in named.findall(page.read_text()):
            path = path.rstrip(".")
            folder = path.endswith("/") or "." not in path.rsplit("/", 1)[-1]
            pattern = path.rstrip("/") + "/*" if folder else path
            if not any(fnmatch.fnmatch(k, pattern) for k in known):
                unknown.append(f"{page.name}: {path}")
    assert not unknown, "pages name results no study lists:\n" + "\n".join(unknown)


def test_the_manifest_reader_reads_a_table(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "a.csv").write_text("x\n1\n")
    (tmp_path / "README.md").write_text(
        "# t\n\n## Results\n\n| file | written by |\n|---|---|\n"
        "| `results/a.csv` | `run.py --out results/a.csv` |\n| `results/b*.csv` | `run.py` |\n"
        "\n## After\n| `results/c.csv` | `x.py` |\n"
    )
    assert manifest(tmp_path) == [("results/a.csv", "run.py --out results/a.csv"),
                                  ("results/b*.csv", "run.py")]
    assert manifest_files(tmp_path, "results/a.csv") == [tmp_path / "results" / "a.csv"]
    assert manifest_files(tmp_path, "results/b*.csv") == []
