"""Fixtures shared by the Python-side tests (tests/python and crates/webcanon-py/tests):
the binary, a loopback HTTP server (`loopback.LoopbackServer`) and a wheel client for it."""

from __future__ import annotations

import os
import pathlib
from typing import Any, Callable, Iterator

import pytest

from loopback import LoopbackServer


@pytest.fixture(scope="session")
def webcanon_bin() -> pathlib.Path:
    """Path of the `webcanon` binary built by `cargo test` (set by scripts/test.sh)."""
    path = pathlib.Path(os.environ.get("WEBCANON_BIN", "target/debug/webcanon"))
    if not path.is_file():
        pytest.fail(f"webcanon binary not found at {path}; run scripts/test.sh")
    return path


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    """A loopback HTTP server with no routes yet, closed after the test."""
    server = LoopbackServer()
    yield server
    server.close()


@pytest.fixture
def client() -> Callable[..., Any]:
    """`client(**options)`: a `webcanon.Client` for loopback servers. Agent
    `TestBot`, private addresses allowed on 127.0.0.0/8, no cache, a 5 s
    timeout; `options` override these or add to them."""
    import webcanon  # the wheel: only the tests that ask for a client need it

    def make(**options: Any) -> webcanon.Client:
        settings = {"agent": "TestBot", "allow_private": ["127.0.0.0/8"], "cache": "none", "timeout": 5}
        return webcanon.Client(**{**settings, **options})

    return make
