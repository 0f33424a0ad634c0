"""webcanon.ray_crawl: a crawl of many sites on a local Ray cluster of two workers sharing a real
Redis store, against one loopback server playing the sites; one worker is killed in the middle of
its shard, Ray's retry resumes it, and the dataset holds exactly the records of an uninterrupted
crawl."""

from __future__ import annotations

import collections
import pathlib
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import webcanon
from webcanon import ray_crawl

from loopback import Answer, LoopbackServer, Request

SITES = 6
PAGES = 16
OPTIONS = {"seed": ["start"], "probe_soft_404": False, "alternatives": False, "concurrency": 4}


class Sites(LoopbackServer):
    """Every host a site of PAGES pages under /p/N, each linking the next two and a private page,
    every page `delay` seconds late; counts the requests per host and path."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.hits_per_page: collections.Counter[tuple[str, str]] = collections.Counter()

    def answer(self, request: Request) -> Answer:
        if request.path == "/robots.txt":
            return Answer(200, {"content-type": "text/plain"}, b"User-agent: *\nDisallow: /private\n")
        self.hits_per_page[(request.host, request.path)] += 1
        time.sleep(self.delay)
        n = int(request.path[3:]) if request.path.startswith("/p/") else -1
        if not 0 <= n < PAGES:
            return Answer(404, {"content-type": "text/plain"}, b"not found")
        body = (f"<h1>{request.host} page {n}</h1><p>Page {n} of {request.host}, with words enough to be a page.</p>"
                f"<a href=/p/{n + 1}>next</a> <a href=/p/{n + 2}>after</a> <a href=/private/{n}>private</a>")
        html = f"<html><head><title>{request.host} {n}</title></head><body><main>{body}</main></body></html>"
        return Answer(200, {"content-type": "text/html"}, html.encode())


def journaled(out: pathlib.Path, index: int) -> int:
    """Records shard `index` has written so far (its open journal)."""
    journal = out / f".part-{index:05d}-of-00002.frontier.parts" / "journal-000000.jsonl"
    return journal.read_bytes().count(b"\n") if journal.is_file() else 0


def rows(table: pa.Table) -> list[tuple]:
    """The table's rows without their fetch times, sorted: what two crawls of one site share."""
    table = table.drop_columns(["fetched_at"])
    return sorted(tuple(sorted((k, repr(v)) for k, v in row.items())) for row in table.to_pylist())


def test_a_crawl_on_ray_survives_a_killed_worker_with_the_records_of_an_uninterrupted_one(
    tmp_path, redis_url, kill_ray_worker
):
    ray = pytest.importorskip("ray")
    sites = Sites(delay=0.1)
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# the sites\n" + "".join(f"http://s{i}.test:{sites.port}/p/0\n" for i in range(SITES)))
    client = {"cache": redis_url, "allow_private": ["127.0.0.0/8"], "resolve": [f"*.test:{sites.port}:127.0.0.1"],
              "timeout": 5.0}

    # The uninterrupted crawl, in this process.
    whole = webcanon.Client("TestBot", **client).crawl_pass([], tmp_path / "whole.parquet", seeds_file=seeds,
                                                            **OPTIONS)
    expected = pq.read_table(tmp_path / "whole.parquet")
    assert whole["records"] == expected.num_rows == SITES * (PAGES + PAGES + 2)
    sites.hits_per_page.clear()

    out = tmp_path / "dataset"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}})
    try:
        result: dict = {}
        runner = threading.Thread(target=lambda: result.update(ray_crawl.crawl(
            out, seeds_file=seeds, workers=2, agent="TestBot", client=client, **OPTIONS)))
        runner.start()
        # Kill one of the two workers once both shards have written records: in the middle of
        # its shard, whichever shard it runs.
        killed = kill_ray_worker("webcanon_crawl_shard", runner, lambda: all(journaled(out, i) >= 3 for i in range(2)),
                                 result)
        runner.join(timeout=300)
        assert not runner.is_alive(), "the crawl did not end"
    finally:
        ray.shutdown()
        sites.close()

    # One dataset, a file per shard, the state hidden from readers.
    files = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert files == ["part-00000-of-00002.parquet", "part-00001-of-00002.parquet"], files
    dataset = pq.read_table(out)
    assert rows(dataset) == rows(expected), "a record lost, repeated or different"
    assert result["records"] == dataset.num_rows and result["seeds"] == SITES
    # Each site crawled by one shard: the stable origin hash.
    for shard in result["per_shard"]:
        hosts = {url.split("/")[2] for url in pq.read_table(ray_crawl.part_file(out, shard["shard"], 2))
                 .column("requested_url").to_pylist()}
        other = {url.split("/")[2] for url in pq.read_table(ray_crawl.part_file(out, 1 - shard["shard"], 2))
                 .column("requested_url").to_pylist()}
        assert not hosts & other
    # The killed shard was retried by another process and resumed from its frontier: pages
    # finished before the kill were not requested again, only those in flight (one per host).
    assert killed not in {s["pid"] for s in result["per_shard"]}
    again = [page for page, n in sites.hits_per_page.items() if n > 1]
    assert len(again) <= OPTIONS["concurrency"], again
    assert not any(path.startswith("/private/") for _, path in sites.hits_per_page)


def test_a_bad_worker_count_is_refused(tmp_path):
    with pytest.raises(ValueError, match="workers must be at least 1"):
        ray_crawl.crawl(tmp_path / "out", seeds=["https://a.example/"], workers=0)
