"""The docs' measured figures come from committed results files.

(a) every generated region (``<!-- generated: name -->`` … ``<!-- end generated -->``) holds
    exactly what ``benchmarks/doc_figures.py`` writes from the committed results;
(b) no page states a measured-looking number outside a generated region.

A stale region is fixed by ``python benchmarks/doc_figures.py``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_doc_figures():
    spec = importlib.util.spec_from_file_location(
        "doc_figures", ROOT / "benchmarks" / "doc_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


doc_figures = _load_doc_figures()
PAGES = doc_figures.PAGES

#: what looks like a measurement: a decimal with 2+ decimals (0.920), a p-value, a percentage
#: with a decimal (12.5%), a win/tie/loss triple (14/5/26) or "N wins"
MEASURED = re.compile(
    r"(?<![\w.])\d*\.\d{2,}(?!\d|\.\d)"  # 0.920, .05 — but not 2.13.0 (versions)
    r"|\bp\s*[=<>≈]\s*\d"
    r"|\d+\.\d+\s*%"
    r"|\b\d+\s*/\s*\d+\s*/\s*\d+\b"
    r"|\b\d+\s+wins\b"
)
VERSION = re.compile(r"\b\d+\.\d+\.\d+\b")
#: the training-ratio grid of the benchmark, the study and the defaults study: design
#: parameters, not measurements, on every page
GRID = re.compile(r"(?<![\w.])0\.(?:04|08|16|32)(?!\d)")

#: per page, the numbers that are not measurements (defaults, task definitions, constants),
#: as exact substrings of the line that holds them
ALLOWED = {
    "README.md": ["0.3, 0.37 and 0.45 cycles/sample"],
    "getting_started.md": ["Python ≥ 3.10"],
    "study.md": ["0.3, 0.37 or 0.45 cycles/sample"],
    "tdi.md": [
        "(default 0.05, Bonferroni",
        "0.08–0.12 cycles/sample",
        "δ = 0.1% of",
        "(α = 0.01)",
        "cosine at 0.35 cycles/sample",
    ],
}


def _prose_lines(text: str):
    """(line number, line) outside fenced code blocks and generated regions, inline code removed."""
    in_fence = in_region = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if stripped.startswith("<!-- generated:"):
            in_region = True
            continue
        if stripped == "<!-- end generated -->":
            in_region = False
            continue
        if in_fence or in_region:
            continue
        yield number, re.sub(r"`[^`]*`", "``", line)


def measured_outside_regions(page: Path) -> list[str]:
    allowed = ALLOWED.get(page.name, [])
    found = []
    for number, line in _prose_lines(page.read_text()):
        for phrase in allowed:
            line = line.replace(phrase, "")
        line = GRID.sub("", VERSION.sub("", line))
        for match in MEASURED.finditer(line):
            found.append(f"{page.name}:{number}: {match.group(0)!r} in {line.strip()!r}")
    return found


def test_generated_regions_match_committed_results():
    stale = doc_figures.stale()
    assert not stale, (
        "generated regions differ from the committed results; "
        "run `python benchmarks/doc_figures.py`:\n" + "\n".join(stale)
    )


def test_every_generator_has_its_region_on_a_page():
    on_pages = {name for page in PAGES for name, _ in doc_figures.regions(page)}
    orphans = sorted(set(doc_figures.GENERATORS) - on_pages)
    assert not orphans, f"regions written by a study but shown on no page: {orphans}"


def test_every_region_has_a_generator():
    for page in PAGES:
        for name, _ in doc_figures.regions(page):
            assert name in doc_figures.GENERATORS, f"{page.name}: unknown region {name!r}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_measured_number_outside_generated_regions(page):
    found = measured_outside_regions(page)
    assert not found, "measured-looking numbers outside generated regions:\n" + "\n".join(found)


STUDY_READMES = sorted((ROOT / "benchmarks").rglob("README.md"))


@pytest.mark.parametrize(
    "readme", STUDY_READMES, ids=[str(p.relative_to(ROOT / "benchmarks")) for p in STUDY_READMES]
)
def test_no_measured_number_in_a_studys_readme(readme):
    """A study's README says what it found in words; its numbers live in its page's regions."""
    found = measured_outside_regions(readme)
    assert not found, "measured-looking numbers in a study's README:\n" + "\n".join(found)


def test_detector_flags_measurements(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "GunPoint TDI 0.920.\n14/5/26 against S4D-Lin, p = 0.009, 12.5% better.\n"
        "```python\nx = 0.123\n```\n`lr=0.001` is fine, so is torch 2.13.0.\n"
        "<!-- generated: x -->\n0.555\n<!-- end generated -->\n"
    )
    found = measured_outside_regions(page)
    assert len(found) == 4, found
    assert all(":1:" in f or ":2:" in f for f in found)


def test_readme_says_what_ci_run_runs():
    # the README said `.ci/run` "does exactly this" (install, then pytest), but it also builds
    # the documentation site: a reader would not expect a Sphinx failure from it
    script = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    paragraph = next(p for p in readme.split("\n\n") if "`bash .ci/run`" in p)
    assert "pytest" in script
    if "sphinx" in script:
        assert "documentation" in paragraph, paragraph
    # CI runs every test, slow ones included; the README says so and shows the command
    assert '-m "slow or not slow"' in script
    assert '-m "slow or not slow"' in readme and "slow ones included" in paragraph


@pytest.mark.parametrize("page", ["estimators.md", "getting_started.md"])
def test_the_parameter_pages_say_what_verbose_prints(page):
    # verbose was documented only in the docstring; a new user looks for progress output here
    lines = [line for line in (ROOT / "docs" / page).read_text().splitlines() if "verbose" in line]
    assert any("per" in line and "epoch" in line for line in lines), lines


def test_the_default_init_is_the_advice_at_the_default_budget():
    # the default was init="tdi" while docs/choosing_init.md advised S4D-Lin for long training,
    # a finding of the previous network; the advice comes from measurements on real series
    # (docs/tdi_real.md), the default must be what it advises at the default max_epochs, and
    # where the measurements advise S4D-Lin at another budget the page's table says so
    from benchmarks.tdi_real.page_choosing_init import init_advice  # doc_figures: on sys.path
    from sktdi import SSMClassifier

    advice = init_advice()
    assert len(advice) >= 3 and advice["draws"].min() >= 2
    default = advice[advice["epochs"] == SSMClassifier().max_epochs]
    assert list(default["advice"]) == [SSMClassifier().init], advice
    page = (ROOT / "docs" / "choosing_init.md").read_text()
    assert "<!-- generated: init-by-budget -->" in page
    # no hand-written row recommends an init for a training budget: the generated table does
    written = doc_figures.REGION.sub("", page)
    rows = [
        line
        for line in written.splitlines()
        if line.startswith("|") and re.search(r"(?i)epoch|budget|long training", line)
    ]
    assert all('"tdi"' in row and "table below" in row for row in rows), rows


def test_the_user_guide_opens_with_the_decision_page():
    # a new user found nothing saying which model to use: the decision page comes first in
    # the guide, the README's opening links it, and it names every model
    guide = (ROOT / "docs" / "user_guide.md").read_text()
    lines = guide.split("{toctree}")[1].split("```")[0].splitlines()
    entries = [line.strip() for line in lines if line.strip() and not line.startswith(":")]
    assert entries[0] == "which_model", entries
    readme = (ROOT / "README.md").read_text()
    assert "docs/which_model.md" in readme.split("\n## ")[0]
    page = (ROOT / "docs" / "which_model.md").read_text()
    for name in ("SSMClassifier", "SSMRegressor", "SpectralRidgeClassifier",
                 "SpectralRidgeRegressor", 'rocket="minirocket"', "TDIOptions(spectrum=", "MiniRocket"):
        assert name in page, name


@pytest.mark.parametrize(
    "page", ["which_model.md", "fast_path.md", "estimators.md", "streaming.md", "choosing_init.md", "tdi.md",
             "ssm.md", "persistence.md", "gpu.md", "benchmark.md", "getting_started.md"]
)
def test_user_guide_pages_are_not_lab_notebooks(page):
    # the study rounds, targets and issue history live in the appendix (docs/studies.md)
    text = (ROOT / "docs" / page).read_text()
    notebook = r"(?i)\bround [0-9A-Z]\b|\bmissed\b|\bthe targets\b|\bissue \d+|\bset while\b"
    for phrase in re.findall(notebook, text):
        pytest.fail(f"{page}: {phrase!r} belongs to a study page")


@pytest.mark.parametrize(
    "name",
    ["SSMClassifier", "SSMRegressor", "SpectralRidgeClassifier", "SpectralRidgeRegressor",
     "SpectralAlignmentTransformer", "TDIOptions", "TrainingOptions",
     "sktime.SktimeSSMEarlyClassifier"],
)
def test_parameter_docstrings_say_what_and_when_briefly(name):
    # a parameter's entry says what it does and when to change it; the history of how its
    # default was chosen goes stale in the API reference and belongs to the studies pages
    import importlib

    numpydoc = pytest.importorskip("numpydoc.docscrape")
    module, _, cls = f"sktdi.{name}".rpartition(".")
    parameters = numpydoc.ClassDoc(getattr(importlib.import_module(module), cls))["Parameters"]
    assert parameters or name == "SpectralRidgeRegressor", name  # it points to the classifier's
    for parameter in parameters:
        text = " ".join(parameter.desc)
        assert len(parameter.desc) <= 5, (parameter.name, len(parameter.desc))
        assert not re.search(r"(?i)\bround \d|\bissue \d+", text), (parameter.name, text)


def test_the_committed_default_run_is_what_the_code_runs_by_default():
    """docs/default_benchmark.md shows the run `sktdi benchmark` makes today: the grid and
    every estimator's parameters the committed run recorded (its settings.json) are those the
    code builds with no arguments. A changed default fails here until the run is redone."""
    import json

    from sktdi.benchmark import available
    from sktdi.benchmark.estimators import DEFAULT_ESTIMATORS, DEFAULT_RATIOS
    from sktdi.benchmark.settings import run_record
    from sktdi.cli import DEFAULT_DATASETS, DEFAULT_RESAMPLES

    RESULTS = ROOT / "benchmarks" / "default_benchmark" / "results"
    from sktdi.benchmark.estimators import ESTIMATORS

    committed = json.loads((RESULTS / "default_benchmark_settings.json").read_text())
    estimators = [e for e in DEFAULT_ESTIMATORS if available(e)]
    fresh = run_record(DEFAULT_DATASETS, DEFAULT_RATIOS, DEFAULT_RESAMPLES, estimators, {})
    # a parameter added since the run, at the value that does what the code did before it
    # existed (the class's _value_before_parameter_existed, as saved files read it), is the
    # same run
    for name in estimators:
        before = getattr(type(ESTIMATORS[name][0](0, {})), "_value_before_parameter_existed", {})
        for key, value in before.items():
            if key not in committed["estimators"].get(name, {}):
                if fresh["estimators"][name].get(key) == value:
                    fresh["estimators"][name].pop(key)
    assert committed == fresh
    results = pd.read_csv(RESULTS / "default_benchmark_results.csv")
    assert set(results["estimator"]) == set(estimators)
    assert set(results["dataset"]) == set(DEFAULT_DATASETS)
    assert sorted(results["ratio"].unique()) == sorted(DEFAULT_RATIOS)
    assert results["resample"].nunique() == DEFAULT_RESAMPLES
