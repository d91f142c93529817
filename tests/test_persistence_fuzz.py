"""A short seeded run of the loader's fuzzer (benchmarks/fuzz_loader/fuzz_loader.py, which runs it at
length): truncated, bit-flipped, swapped, inflated and reshaped files of every saved estimator
type are each loaded in a worker process, and each either loads and predicts exactly as the
original or is refused with a ValueError naming the file; never a hang, a crash, another
exception, or a peak allocation beyond 4 × the file's size + 64 MiB."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

FUZZER = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_loader"
N_FILES = 40  # about 20 s on one slow core, with the fits and the worker's start


@pytest.fixture
def fuzzer(monkeypatch):
    # imported by name, so that the worker process (spawned) imports it too
    monkeypatch.syspath_prepend(str(FUZZER))
    return importlib.import_module("fuzz_loader")


def test_mutated_files_load_exactly_or_are_refused_by_name(fuzzer):
    # MiniRocket's compiled transform is left to the long run: its first compile alone is
    # longer than this test may take
    summary = fuzzer.run(N_FILES, seed=0, timeout=60, minirocket=False)
    assert summary["files"] == N_FILES
    assert summary["failures"] == [], summary["failures"]
    assert summary["hangs"] == summary["crashes"] == summary["other_exceptions"] == 0
    assert summary["over_memory_bound"] == 0, summary["peak_memory"]
    # every type was fuzzed, and most files were refused (the rest load unchanged)
    assert len(summary["per_type"]) == len(fuzzer.estimators(minirocket=False))
    assert summary["outcomes"]["refused"] > N_FILES // 2


def test_the_mutations_change_the_files(fuzzer):
    import numpy as np

    data = (Path(__file__).parent / "data" / "legacy_v1" / "transformer.sktdi").read_bytes()
    rng = np.random.default_rng(0)
    for kind in fuzzer.KINDS:
        mutated, what = fuzzer.mutate(data, rng, kind)
        assert mutated != data, (kind, what)
