"""Every example script runs to completion (they are documentation that must not rot)."""

import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted(pathlib.Path(__file__).parent.parent.joinpath("examples").glob("*.py"))
# .ci/run sets it: the documentation build that follows the tests executes every example and
# fails on any error (docs/conf.py: filename_pattern matches them all, abort_on_example_error),
# so running them here too would only double CI's longest part
DOCS_RUN_THEM = os.environ.get("SKTDI_DOCS_BUILD_RUNS_EXAMPLES") == "1"


@pytest.mark.slow  # every gallery script end to end (the docs build runs them too)
@pytest.mark.skipif(DOCS_RUN_THEM, reason="the documentation build of this run executes them")
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_documentation_build_runs_every_example_and_fails_on_an_error():
    """What lets CI skip the test above: its docs build executes every example (the gallery's
    filename_pattern matches each one's path) and stops on the first error; .ci/run says so
    before pytest and builds the docs after it."""
    import re
    import runpy

    root = pathlib.Path(__file__).parent.parent
    gallery = runpy.run_path(str(root / "docs" / "conf.py"))["sphinx_gallery_conf"]
    assert gallery["abort_on_example_error"] is True
    assert all(re.search(gallery["filename_pattern"], str(path)) for path in EXAMPLES)
    script = (root / ".ci" / "run").read_text()
    tests, docs = script.index("\npython -m pytest"), script.index("\npython -m sphinx")
    assert script.index("SKTDI_DOCS_BUILD_RUNS_EXAMPLES=1") < tests < docs
