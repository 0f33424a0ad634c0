"""Fixtures shared by the Python-side tests (tests/python and crates/webcanon-py/tests)."""

import os
import pathlib

import pytest


@pytest.fixture(scope="session")
def webcanon_bin() -> pathlib.Path:
    """Path of the `webcanon` binary built by `cargo test` (set by scripts/test.sh)."""
    path = pathlib.Path(os.environ.get("WEBCANON_BIN", "target/debug/webcanon"))
    if not path.is_file():
        pytest.fail(f"webcanon binary not found at {path}; run scripts/test.sh")
    return path
