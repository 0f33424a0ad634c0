"""Fixtures shared by the Python-side tests (tests/python and crates/webcanon-py/tests):
the binary, a loopback HTTP server (`loopback.LoopbackServer`), a wheel client for it, a
redis-server of a test's own (`redis_url`), and the kill of a Ray worker in the middle of
its task (`kill_ray_worker`)."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import threading
import time
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


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A redis-server of this test's own on a free loopback port: its URL. Skipped without
    redis-server, unless WEBCANON_REQUIRE_REDIS is set."""
    program = os.environ.get("WEBCANON_REDIS_SERVER") or shutil.which("redis-server") or "/usr/bin/redis-server"
    if not pathlib.Path(program).is_file():
        if os.environ.get("WEBCANON_REQUIRE_REDIS"):
            pytest.fail(f"no redis-server at {program} (WEBCANON_REQUIRE_REDIS is set)")
        pytest.skip("no redis-server: set WEBCANON_REDIS_SERVER")
    port = free_port()
    server = subprocess.Popen([program, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
                              stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        assert time.monotonic() < deadline, "redis-server did not start"
        time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}"
    server.kill()
    server.wait()


def ray_task_pids(task: str) -> list[int]:
    """The processes running the Ray task named `task` now (Ray names a worker process after
    the task it runs: `ray::<task>`)."""
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "cmdline").read_bytes().startswith(f"ray::{task}".encode()):
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


@pytest.fixture
def kill_ray_worker() -> Callable[[str, threading.Thread, Callable[[], bool], dict[str, Any]], int]:
    """`kill_ray_worker(task, runner, ready, result)`: once two processes run the Ray task
    named `task` and `ready()` holds (both are in the middle of their shards), kills one of
    them with SIGKILL and returns its pid. Fails when `runner`, the thread running the job
    (which fills `result`), ends first, or when that moment has not come within 120 s."""
    def kill(task: str, runner: threading.Thread, ready: Callable[[], bool], result: dict[str, Any]) -> int:
        deadline = time.monotonic() + 120
        while True:
            assert runner.is_alive(), f"the run ended before a worker could be killed: {result}"
            assert time.monotonic() < deadline, "the shard tasks did not start"
            workers = ray_task_pids(task)
            if len(workers) == 2 and ready():
                os.kill(workers[0], signal.SIGKILL)
                return workers[0]
            time.sleep(0.02)

    return kill
