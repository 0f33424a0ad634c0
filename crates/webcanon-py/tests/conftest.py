"""Fixtures for the wheel's tests: a real HTTP server on loopback, the corpus.

`webcanon_bin` comes from the repository's conftest.py."""

from __future__ import annotations

import http.server
import pathlib
import threading
from typing import Iterator

import pytest


class Site:
    """A loopback HTTP server answering from a table of routes; it records every request path."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str | None, str], tuple[int, dict[str, str], bytes]] = {}
        self.requests: list[str] = []
        site = self

        class RequestHandler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                site.requests.append(self.path)
                host = (self.headers.get("host") or "").rsplit(":", 1)[0]
                answer = site.routes.get((host, self.path)) or site.routes.get((None, self.path))
                status, headers, body = answer or (404, {"content-type": "text/plain"}, b"not found")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RequestHandler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.origin + path

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def route(
        self,
        path: str,
        status: int,
        body: str | bytes,
        content_type: str = "text/plain",
        host: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answers `path` (on `host` only, when given) with this status, body and extra headers."""
        data = body.encode() if isinstance(body, str) else body
        self.routes[(host, path)] = (status, {"content-type": content_type, **(headers or {})}, data)

    def hits(self, path: str) -> int:
        return self.requests.count(path)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site()
    yield server
    server.close()


@pytest.fixture(scope="session")
def corpus() -> pathlib.Path:
    """The corpus of real files beside the repository."""
    root = pathlib.Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
    if not (root / "robots").is_dir():
        pytest.fail(f"corpus not found at {root}")
    return root.resolve()
