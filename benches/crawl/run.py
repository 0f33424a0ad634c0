#!/usr/bin/env python3
"""The crawl benchmark: webcanon and its peers crawl the same synthetic web
on loopback, one after another in one run, each against a fresh server
whose request log is then scored.

For each crawler: pages (distinct pages answered 200, from the log), pages
per second (over the crawler's wall time), CPU per page (user + system of
its process tree), peak RSS (of its process tree, sampled every 0.2 s, and
the kernel's high-water mark of its largest process), and from the log the
requests RFC 9309 disallows for the agent, Crawl-delay violations,
duplicate fetches and trap pages.

    benches/crawl/run.py [--sites 20] [--pages 500] [--peers webcanon,scrapy,spider,trafilatura]

Builds what it needs first (see benches/README.md, "Crawling"). Writes
target/crawl-bench/<crawler>.{log,rss.tsv,out} and results.json, and
prints a Markdown table.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
AGENT = "benchbot"
ALL_PEERS = ["webcanon", "scrapy", "spider", "trafilatura"]


def tree_memory_kib(pid):
    """Resident memory of a process and all its descendants, and the sum of
    their high-water marks, in KiB."""
    rss, high_water, stack = 0, 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1])
                    elif line.startswith("VmHWM:"):
                        high_water += int(line.split()[1])
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    stack.extend(int(child) for child in children.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return rss, high_water


def measure(command, stdout_path, rss_path):
    """Run command; its wall time, exit status and peak RSS in MiB: the
    larger of the tree's sampled RSS and its processes' high-water marks
    at the last sample (the crawlers here run in one process)."""
    started = time.monotonic()
    with open(stdout_path, "w") as stdout:
        process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.STDOUT, cwd=ROOT)
    peak_kib = 0
    with open(rss_path, "w") as samples:
        while process.poll() is None:
            rss, high_water = tree_memory_kib(process.pid)
            peak_kib = max(peak_kib, rss, high_water)
            samples.write(f"{time.monotonic() - started:.1f}\t{rss // 1024}\n")
            time.sleep(0.2)
    return time.monotonic() - started, process.returncode, peak_kib / 1024


def wait_for(address, port, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"error: the synthetic web did not start on {address}:{port}")


def crawler_command(name, args, seeds, out):
    python = str(TARGET / "bench-venv" / "bin" / "python")
    peers = ROOT / "benches" / "crawl" / "peers"
    concurrency, depth, pages = str(args.concurrency), str(args.max_depth), str(args.pages)
    if name == "webcanon":
        # A frontier left by an earlier run would resume that run.
        for stale in out.glob("webcanon.jsonl*"):
            stale.unlink()
        return [
            str(args.webcanon), "crawl", "--seeds", str(seeds), "--agent", AGENT,
            "--allow-private", "127.0.0.0/8", "--concurrency", concurrency, "--max-depth", depth,
            "-o", str(out / "webcanon.jsonl"),
        ]
    if name == "scrapy":
        return [python, str(peers / "scrapy_peer.py"), str(seeds), AGENT, concurrency, depth]
    if name == "spider":
        return [str(args.spider), str(seeds), AGENT, concurrency, depth, str(10 * args.pages)]
    if name == "trafilatura":
        return [python, str(peers / "trafilatura_peer.py"), str(seeds), AGENT, concurrency, pages]
    sys.exit(f"error: unknown crawler {name}")


def run_one(name, args, web_args, seeds, out):
    log = out / f"{name}.log"
    server = subprocess.Popen([str(args.synthweb), "serve", *web_args, "--log", str(log)], cwd=ROOT)
    try:
        wait_for("127.1.0.1", args.port)
        # The previous server is reaped, this one is not: the difference of
        # the children's times is the crawler's process tree alone.
        before = os.times()
        wall, status, peak_tree = measure(crawler_command(name, args, seeds, out), out / f"{name}.out", out / f"{name}.rss.tsv")
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    measured = {"crawler": name, "exit_status": status, "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "peak_rss_mib": round(peak_tree, 1)}
    return scored(measured, args, web_args, out)


def scored(measured, args, web_args, out):
    """The measured figures with the scorer's reading of the crawler's log."""
    log = out / f"{measured['crawler']}.log"
    score = json.loads(subprocess.check_output([str(args.synthweb), "score", *web_args, "--log", str(log)]))
    pages, wall, cpu = score["pages"], measured["wall_seconds"], measured["cpu_seconds"]
    return {
        **measured,
        "pages_per_second": round(pages / wall, 1) if wall else 0,
        "cpu_ms_per_page": round(1000 * cpu / pages, 2) if pages else None,
        **score,
    }


def table(results, total_pages):
    scrapy = next((r for r in results if r["crawler"] == "scrapy"), None)
    lines = [
        f"| crawler | pages (of {total_pages:,}) | of which allowed | pages/s | vs Scrapy | CPU ms/page | peak RSS MiB "
        "| disallowed requests | Crawl-delay violations | duplicate fetches | trap pages | requests |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        ratio = f"{r['pages_per_second'] / scrapy['pages_per_second']:.2f}x" if scrapy and scrapy["pages_per_second"] else "—"
        lines.append(
            f"| {r['crawler']} | {r['pages']:,} | {r['allowed_pages']:,} | {r['pages_per_second']:,} | {ratio} | {r['cpu_ms_per_page']} "
            f"| {r['peak_rss_mib']} | {r['disallowed']:,} | {r['delay_violations']:,} | {r['duplicates']:,} "
            f"| {r['trap_pages']:,} | {r['requests']:,} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sites", type=int, default=20)
    parser.add_argument("--pages", type=int, default=500, help="pages of an ordinary site")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=80)
    parser.add_argument("--concurrency", type=int, default=16, help="requests at once across sites (one per site)")
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--peers", default=",".join(ALL_PEERS))
    parser.add_argument("--out", type=Path, default=TARGET / "crawl-bench")
    parser.add_argument("--webcanon", type=Path, default=TARGET / "release" / "webcanon")
    parser.add_argument("--synthweb", type=Path, default=TARGET / "release" / "synthweb")
    parser.add_argument("--spider", type=Path, default=TARGET / "crawl-peers" / "release" / "spider-peer")
    parser.add_argument("--rescore", action="store_true", help="score the logs of OUT/results.json again, crawling nothing")
    args = parser.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    web_args = ["--seed", str(args.seed), "--sites", str(args.sites), "--pages", str(args.pages), "--port", str(args.port)]
    seeds = args.out / "seeds.txt"
    seeds.write_text(subprocess.check_output([str(args.synthweb), "seeds", *web_args], text=True))
    if args.rescore:
        measured = json.loads((args.out / "results.json").read_text())
        results = [scored(result, args, web_args, args.out) for result in measured]
        (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        print(table(results, results[0]["web_pages"] if results else 0))
        return
    results = []
    for name in args.peers.split(","):
        print(f"crawling with {name} ...", file=sys.stderr)
        result = run_one(name, args, web_args, seeds, args.out)
        print(json.dumps(result), file=sys.stderr)
        results.append(result)
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results, results[0]["web_pages"] if results else 0))


if __name__ == "__main__":
    main()
