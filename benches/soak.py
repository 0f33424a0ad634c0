#!/usr/bin/env python3
"""Soak test: hostile sites and hostile clients against `webcanon serve` and
`webcanon mcp --http` at once, with normal traffic alongside.

Everything runs on 127.0.0.1 and stops by itself after the given duration.
Started by benches/soak.sh, which builds the binary; run alone as

    python3 benches/soak.py --bin target/release/webcanon --seconds 60

What it does, for the whole duration:
- three loopback origins: `hostile` (a 500 KiB robots.txt of wildcard lines
  that is slow to lint, HTML pages built to be slow or large to convert,
  500 directories with a 1 MiB llms.txt each, a gzip sitemap index tree),
  `garbled` (a robots.txt whose `Disallow: /private` is followed by NUL and
  control bytes) and `normal` (a small robots.txt and plain pages);
- hostile clients: thousands of agent tokens, hostile pages fetched and
  audited, llms.txt directories walked, half-sent requests (slowloris), a
  foreign Host header, MCP `initialize` floods and `check_url` calls with
  ever new agents, `sitemap_urls` on the sitemap tree;
- normal clients: `/v1/robots/check` on the normal origin with known
  answers, and a health probe (`/healthz` on serve, `ping` on an MCP
  session) every 50 ms whose latency is what the report's p99 is about.

It prints one report: peak and final RSS of both servers, probe latency
percentiles, and counts of requests and errors per kind. Exit status 1 when
a server died, a normal request got a wrong answer, the garbled robots.txt
let `/private` through, or a foreign Host was served.
"""

import argparse
import gzip
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# --- the hostile site -------------------------------------------------------

KIB = 1024
MIB = 1024 * 1024


def hostile_bodies():
    """The hostile origin's fixed bodies: path -> (content type, bytes)."""
    bodies = {}
    lines, size = [], 0
    i = 0
    while size < 500 * KIB:
        line = f"Disallow:*z{i % 97}\n" if i % 2 else "Disallow:*z\n"
        lines.append(line)
        size += len(line)
        i += 1
    bodies["/robots.txt"] = ("text/plain", ("User-agent: *\n" + "".join(lines)).encode())
    html = lambda body: ("text/html; charset=utf-8", body)
    bodies["/self-closed-divs"] = html(b"<html><body>" + b"<div/>" * 49_000 + b"text</body></html>")
    bodies["/stray-end-tags"] = html(b"<html><body>" + b"<div></b>" * 40_000 + b"text</body></html>")
    bodies["/amp-title"] = html(b"<html><head><title>" + b"&" * 500_000 + b"</title></head><body>x</body></html>")
    bodies["/amp-page"] = html(b"<html><body><p>" + b"&" * 1_000_000 + b"</p></body></html>")
    bodies["/nul"] = html(b"\0" * (10 * MIB))
    bodies["/lt"] = html(b"<" * (10 * MIB))
    attrs = b" ".join(b"a%d=x" % n for n in range(200_000))
    bodies["/attributes"] = html(b"<html><body><div " + attrs + b">text</div></body></html>")
    bodies["/deep-inline"] = html(b"<html><body>" + b"<b><i>" * 30_000 + b"text</body></html>")
    # A sitemap index of 1,000 gzip sitemaps, each one gzip body of many entries.
    entries = b"".join(b"<url><loc>http://x/%d</loc></url>" % (n % 10) for n in range(200_000))
    child = gzip.compress(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + entries + b"</urlset>", 9)
    bodies["/child.xml.gz"] = ("application/gzip", child)
    return bodies


def llms_body(directory):
    head = f"# Directory {directory}\n\n> A large llms.txt.\n\n## Docs\n\n".encode()
    link = f"- [Page](/d{directory}/page.md): a page\n".encode()
    return head + link * ((1 * MIB - len(head)) // len(link))


class Site(BaseHTTPRequestHandler):
    """One origin: fixed bodies, generated llms.txt files and sitemaps."""

    protocol_version = "HTTP/1.1"
    bodies = {}
    requested = None  # Counter of paths, shared per origin class

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        self.requested[path] += 1
        found = self.bodies.get(path)
        if found is None and path.startswith("/d") and path.endswith("/llms.txt"):
            found = ("text/markdown", llms_body(path[2:].split("/", 1)[0]))
        if found is None and path == "/sitemap.xml":
            base = f"http://{self.headers.get('Host')}"
            index = "".join(f"<sitemap><loc>{base}/child.xml.gz?n={n}</loc></sitemap>" for n in range(1000))
            found = ("application/xml", f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>'.encode())
        if found is None and (path.startswith("/d") or path.startswith("/page") or path.startswith("/private")):
            found = ("text/html", b"<html><head><title>Page</title></head><body><main><p>" + b"Plain text. " * 100 + b"</p></main></body></html>")
        if found is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        content_type, body = found
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def start_site(bodies):
    requested = Counter()
    handler = type("Origin", (Site,), {"bodies": bodies, "requested": requested})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", requested, server


# --- the servers under test -------------------------------------------------


def start_server(argv, log_path):
    log = open(log_path, "w")
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log_path) as f:
            for line in f:
                if line.startswith("listening on http://"):
                    address = line.split("http://", 1)[1].strip()
                    return proc, address.split("/", 1)[0]
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit(f"error: {' '.join(argv)} did not start; its log:\n{open(log_path).read()}")


def rss_kib(pid, key="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        return None
    return None


# --- clients ----------------------------------------------------------------


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = Counter()
        self.latency = {}

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def timing(self, key, seconds):
        with self.lock:
            self.latency.setdefault(key, []).append(seconds)


def request(address, method, path, body=None, headers=None, timeout=30):
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"Content-Type": "application/json"} if data else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def loop(stop, stats, name, step):
    """Runs `step` until `stop`, counting outcomes under `name`."""
    while not stop.is_set():
        try:
            outcome = step()
            stats.count(f"{name}: {outcome}")
        except Exception as e:  # a failed request is a count, not a crash
            stats.count(f"{name}: exception {type(e).__name__}")
            time.sleep(0.05)


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def mcp_post(address, message, session=None, timeout=30):
    headers = dict(MCP_HEADERS)
    if session:
        headers["Mcp-Session-Id"] = session
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
        response = conn.getresponse()
        body = response.read()
        return response.status, response.getheader("Mcp-Session-Id"), body
    finally:
        conn.close()


def mcp_session(address):
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}},
    }
    status, session, _ = mcp_post(address, init)
    if status != 200 or not session:
        return None
    mcp_post(address, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


def mcp_result(body):
    """The JSON-RPC message of a JSON or SSE answer."""
    text = body.decode("utf-8", "replace")
    candidates = [line[5:] for line in text.splitlines() if line.startswith("data:")] or [text]
    for candidate in candidates:
        try:
            message = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(message, dict) and ("result" in message or "error" in message):
            return message
    return {"result": {"isError": True}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="webcanon-soak-")
    print("building hostile fixtures...", file=sys.stderr)
    hostile, hostile_requests, _ = start_site(hostile_bodies())
    garbled_robots = b"User-agent: *\nDisallow: /private\n\0\x01\x01\x01\x01\x01\n"
    garbled, garbled_requests, _ = start_site({"/robots.txt": ("text/plain", garbled_robots)})
    normal_robots = b"User-agent: *\nDisallow: /private\nAllow: /private/press\n\nUser-agent: GPTBot\nDisallow: /\n"
    normal, normal_requests, _ = start_site({"/robots.txt": ("text/plain", normal_robots)})

    common = ["--allow-private", "127.0.0.0/8", "--cache-dir", os.path.join(work, "cache"), "--timeout", "10"]
    serve, serve_addr = start_server(
        [args.bin, "serve", "--listen", "127.0.0.1:0", "--request-timeout", "20", *common], os.path.join(work, "serve.log")
    )
    mcp, mcp_addr = start_server(
        [args.bin, "mcp", "--http", "127.0.0.1:0", "--allow-private", "127.0.0.0/8", "--timeout", "10"],
        os.path.join(work, "mcp.log"),
    )
    stats = Stats()
    stop = threading.Event()
    peaks = {"serve": 0, "mcp": 0}
    starts = {"serve": rss_kib(serve.pid), "mcp": rss_kib(mcp.pid)}

    def sample():
        while not stop.is_set():
            for name, proc in (("serve", serve), ("mcp", mcp)):
                rss = rss_kib(proc.pid)
                if rss:
                    peaks[name] = max(peaks[name], rss)
            time.sleep(0.25)

    # Normal traffic: known answers.
    expected = {"/page": "allowed_implicit", "/private/x": "disallowed_explicit", "/private/press/1": "allowed_explicit"}

    def normal_check():
        path = random.choice(list(expected))
        status, _, body = request(serve_addr, "POST", "/v1/robots/check", {"url": normal + path, "agent": "webcanon"})
        if status != 200:
            return f"status {status}"
        verdict = json.loads(body)["robots"]["verdict"]
        return "ok" if verdict == expected[path] else f"WRONG {verdict} for {path}"

    def probe_serve():
        started = time.monotonic()
        status, _, _ = request(serve_addr, "GET", "/healthz", timeout=30)
        stats.timing("serve /healthz", time.monotonic() - started)
        time.sleep(0.05)
        return "ok" if status == 200 else f"status {status}"

    probe_state = {"session": None}

    def probe_mcp():
        if probe_state["session"] is None:
            probe_state["session"] = mcp_session(mcp_addr)
            if probe_state["session"] is None:
                time.sleep(0.05)
                return "no session"
        started = time.monotonic()
        status, _, _ = mcp_post(mcp_addr, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, probe_state["session"])
        stats.timing("mcp ping", time.monotonic() - started)
        time.sleep(0.05)
        if status == 404:
            probe_state["session"] = None  # the session was dropped: open another
        return "ok" if status == 200 else f"status {status}"

    # Hostile clients.
    counter = {"agent": 0, "dir": 0, "mcp_agent": 0}

    def agent_flood():
        counter["agent"] += 1
        agent = f"Agent{counter['agent']}"
        status, _, _ = request(serve_addr, "POST", "/v1/robots/eval", {"agent": agent, "urls": [hostile + "/az", hostile + "/b"]})
        return f"status {status}"

    hostile_pages = ["/self-closed-divs", "/stray-end-tags", "/amp-title", "/amp-page", "/nul", "/lt", "/attributes", "/deep-inline"]

    def hostile_fetch():
        page = random.choice(hostile_pages)
        started = time.monotonic()
        status, _, _ = request(serve_addr, "POST", "/v1/fetch", {"url": hostile + page, "agent": "webcanon"}, timeout=60)
        stats.timing("hostile /v1/fetch", time.monotonic() - started)
        return f"status {status}"

    def hostile_audit():
        status, _, _ = request(serve_addr, "POST", "/v1/audit", {"url": hostile + "/", "agent": "webcanon"}, timeout=120)
        return f"status {status}"

    def llms_walk():
        counter["dir"] = (counter["dir"] + 1) % 500
        status, _, _ = request(serve_addr, "POST", "/v1/fetch", {"url": f"{hostile}/d{counter['dir']}/page", "agent": "webcanon"})
        return f"status {status}"

    def garbled_fetch():
        status, _, body = request(serve_addr, "POST", "/v1/fetch", {"url": garbled + "/private/secret", "agent": "webcanon"})
        if status == 200:
            return "BYPASS: /private/secret fetched"
        return f"refused {status}"

    def foreign_host():
        status, _, _ = request(serve_addr, "POST", "/v1/robots/check", {"url": normal + "/page"}, headers={"Host": "rebind.example"})
        time.sleep(0.2)
        return "refused" if status in (400, 403, 421) else f"SERVED {status}"

    def slowloris():
        host, port = serve_addr.rsplit(":", 1)
        held = []
        for _ in range(200):
            if stop.is_set():
                break
            try:
                s = socket.create_connection((host, int(port)), timeout=5)
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                held.append(s)
            except OSError:
                stats.count("slowloris: connect refused or failed")
                break
        # Past the server's 10 s header timeout: each must have been cut.
        time.sleep(12)
        closed = 0
        for s in held:
            try:
                s.settimeout(0.01)
                if s.recv(1) == b"":
                    closed += 1
            except socket.timeout:
                pass
            except OSError:
                closed += 1
            s.close()
        stats.count("slowloris: half-sent connections closed by the server", closed)
        return "round"

    def mcp_initialize_flood():
        status, _, _ = mcp_post(mcp_addr, {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}},
        })
        return f"status {status}"

    tool_state = {}
    first_errors = {}

    def mcp_tool(name, arguments):
        # One session per worker thread, and ids unique in it: requests in
        # flight on one session must not share an id (JSON-RPC).
        worker = threading.current_thread().name
        state = tool_state.setdefault(worker, {"session": None, "id": 10})
        if state["session"] is None:
            state["session"] = mcp_session(mcp_addr)
            if state["session"] is None:
                time.sleep(0.1)
                return "no session"
        state["id"] += 1
        message = {"jsonrpc": "2.0", "id": state["id"], "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        status, _, body = mcp_post(mcp_addr, message, state["session"], timeout=120)
        if status == 404:
            state["session"] = None
        if status != 200:
            return f"status {status}"
        result = mcp_result(body).get("result", {})
        if result.get("isError"):
            text = " ".join(c.get("text", "") for c in result.get("content", []))
            first_errors.setdefault(name, text[:300])
            return "tool error"
        return "ok"

    def mcp_agents():
        counter["mcp_agent"] += 1
        return mcp_tool("check_url", {"url": hostile + "/az", "agent": f"Agent{counter['mcp_agent']}"})

    def mcp_sitemap():
        return mcp_tool("sitemap_urls", {"url": hostile + "/"})

    workers = [
        ("normal check", normal_check), ("serve probe", probe_serve), ("mcp probe", probe_mcp),
        ("agent flood", agent_flood), ("agent flood", agent_flood),
        ("hostile fetch", hostile_fetch), ("hostile fetch", hostile_fetch), ("hostile fetch", hostile_fetch),
        ("hostile audit", hostile_audit), ("llms walk", llms_walk), ("garbled robots", garbled_fetch),
        ("foreign host", foreign_host), ("slowloris", slowloris), ("mcp initialize flood", mcp_initialize_flood),
        ("mcp check_url agents", mcp_agents), ("mcp sitemap_urls", mcp_sitemap),
    ]
    print(f"soak: serve {serve_addr}, mcp {mcp_addr}, {args.seconds:.0f} s", file=sys.stderr)
    threads = [threading.Thread(target=sample, daemon=True, name="sample")]
    threads += [
        threading.Thread(target=loop, args=(stop, stats, name, step), daemon=True, name=name) for name, step in workers
    ]
    for t in threads:
        t.start()
    time.sleep(args.seconds)
    stop.set()
    # Requests in flight get 40 s to end; a worker still waiting after that
    # is reported (its request hangs), not waited for.
    deadline = time.monotonic() + 40
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    hanging = sorted({t.name for t in threads if t.is_alive()})

    alive = {"serve": serve.poll() is None, "mcp": mcp.poll() is None}
    finals = {"serve": rss_kib(serve.pid), "mcp": rss_kib(mcp.pid)}
    hwm = {"serve": rss_kib(serve.pid, "VmHWM"), "mcp": rss_kib(mcp.pid, "VmHWM")}
    for proc in (serve, mcp):
        proc.terminate()
    for proc in (serve, mcp):
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()

    def percentile(values, p):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")

    print(f"machine: {os.cpu_count()} cores; {args.seconds:.0f} s of hostile and normal traffic together")
    for name in ("serve", "mcp"):
        mib = lambda kib: f"{kib / 1024:.0f} MiB" if kib else "gone"
        print(f"{name}: alive={alive[name]} RSS start {mib(starts[name])}, peak {mib(max(peaks[name], hwm[name] or 0))}, end {mib(finals[name])}")
    for key, values in sorted(stats.latency.items()):
        print(f"{key}: n={len(values)} p50={percentile(values, 0.5) * 1000:.1f} ms "
              f"p99={percentile(values, 0.99) * 1000:.1f} ms max={max(values) * 1000:.1f} ms")
    for key, n in sorted(stats.counts.items()):
        print(f"  {key}: {n}")
    bypass = garbled_requests.get("/private/secret", 0)
    for tool, text in first_errors.items():
        print(f"  first {tool} error: {text}")
    print(f"garbled origin: /private/secret requested {bypass} times (must be 0)")
    if hanging:
        print(f"still waiting 40 s after the end: {', '.join(hanging)}")

    bad = [k for k in stats.counts if "WRONG" in k or "BYPASS" in k or "SERVED" in k]
    if not all(alive.values()) or bad or bypass:
        print(f"FAILED: servers alive {alive}, bad outcomes {bad}, bypass requests {bypass}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
