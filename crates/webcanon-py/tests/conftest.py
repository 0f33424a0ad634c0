"""Fixtures for the wheel's tests: the corpus.

`webcanon_bin`, `site` (a loopback HTTP server) and `client` (a wheel client
for it) come from the repository's conftest.py."""

from __future__ import annotations

import pathlib

import pytest


@pytest.fixture(scope="session")
def corpus() -> pathlib.Path:
    """The corpus of real files beside the repository."""
    root = pathlib.Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
    if not (root / "robots").is_dir():
        pytest.fail(f"corpus not found at {root}")
    return root.resolve()
