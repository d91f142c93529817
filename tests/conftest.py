"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest


@pytest.fixture
def network_ground(monkeypatch):
    """The network's ground extended to the short series of the tests that train it on top
    of the fast path: by default, series shorter than ``LONG_SERIES`` steps leave the model
    its fast path and train no epoch (tests/test_one_model.py tests that gate itself)."""
    from sktdi.deep_model import on_fast_path

    monkeypatch.setattr(on_fast_path, "LONG_SERIES", 1)
