"""The one loopback HTTP server of the Python-side tests (tests/python and
crates/webcanon-py/tests).

`LoopbackServer` listens on 127.0.0.1 and a free port, answers each GET from
a table of routes (per path, optionally per host) and logs every request
it gets: its path and headers, in arrival order. A server that answers by
its own rule (a forward proxy, a slow server) overrides `answer`. It lives
beside the repository's conftest.py, whose directory pytest puts on the
import path, so both test directories import it as `loopback`."""

from __future__ import annotations

import http.server
import threading
from typing import NamedTuple


class Request(NamedTuple):
    """One request as the server got it: its path (with the query) and its
    headers, names lowercased. Unpacks as `(path, headers)`."""

    path: str
    headers: dict[str, str]

    @property
    def host(self) -> str:
        """The `Host` header without its port."""
        return (self.headers.get("host") or "").rsplit(":", 1)[0]


class Answer(NamedTuple):
    """What the server sends back: status, headers and body."""

    status: int
    headers: dict[str, str]
    body: bytes


NOT_FOUND = Answer(404, {"content-type": "text/plain"}, b"not found")


class LoopbackServer:
    """A threaded HTTP/1.1 server on loopback: a route table, a request log."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str | None, str], Answer] = {}
        self.log: list[Request] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                request = Request(self.path, {name.lower(): value for name, value in self.headers.items()})
                server.log.append(request)
                status, headers, body = server.answer(request)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, request: Request) -> Answer:
        """The route for the request's host and path, else for its path, else 404."""
        return self.routes.get((request.host, request.path)) or self.routes.get((None, request.path)) or NOT_FOUND

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
        self.routes[(host, path)] = Answer(status, {"content-type": content_type, **(headers or {})}, data)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:PORT`."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    @property
    def requests(self) -> list[str]:
        """The path of every request so far, in arrival order."""
        return [request.path for request in self.log]

    def hits(self, path: str) -> int:
        return self.requests.count(path)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
