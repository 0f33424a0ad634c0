"""webcanon.ray_batch: the fetch pass on a local Ray cluster of two workers,
sharing a real Redis store, against one loopback server playing many hosts;
one worker is killed in the middle of its shard and Ray's retry resumes it."""

from __future__ import annotations

import collections
import pathlib
import threading
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import webcanon
from webcanon import ray_batch

from loopback import Answer, LoopbackServer, Request

HOSTS = 240
RULES = b"User-agent: *\nDisallow: /private\n"


class Hosts(LoopbackServer):
    """Answers /robots.txt for every host name, slowly, counting requests per host."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.robots_per_host: collections.Counter[str] = collections.Counter()

    def answer(self, request: Request) -> Answer:
        if request.path == "/robots.txt":
            self.robots_per_host[request.host] += 1
            time.sleep(self.delay)
        body = RULES if request.path == "/robots.txt" else b"page"
        return Answer(200, {"content-type": "text/plain"}, body)


def journaled(state: pathlib.Path) -> int:
    """Bytes journaled by a shard's run so far (its journals and finished parts)."""
    parts = state / "parts"
    return sum(p.stat().st_size for p in parts.glob("*")) if parts.is_dir() else 0


def test_the_fetch_pass_on_ray_survives_a_killed_worker_and_feeds_the_verdict_pass(
    tmp_path, redis_url, kill_ray_worker
):
    ray = pytest.importorskip("ray")
    hosts = Hosts(delay=0.05)
    urls = [f"http://h{i}.test:{hosts.port}/{'private/x' if i % 2 else 'public'}" for i in range(HOSTS)]
    pq.write_table(pa.table({"url": urls + ["not a url"]}), tmp_path / "urls.parquet")
    out = tmp_path / "snapshot"
    client = {"cache": redis_url, "allow_private": ["127.0.0.0/8"], "resolve": [f"*.test:{hosts.port}:127.0.0.1"],
              "timeout": 5.0}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}})
    try:
        result: dict = {}
        runner = threading.Thread(target=lambda: result.update(ray_batch.fetch_snapshot(
            tmp_path / "urls.parquet", out, shards=2, agent="TestBot", client=client, concurrency=3,
            partition_bytes=2048)))
        runner.start()
        # Kill one of the two workers once both shards have journaled
        # entries: in the middle of its shard, whichever shard it runs.
        states = [pathlib.Path(str(ray_batch.shard_file(out, i, 2)) + ".batch") for i in range(2)]
        killed = kill_ray_worker("webcanon_fetch_shard", runner, lambda: all(journaled(s) > 0 for s in states), result)
        runner.join(timeout=300)
        assert not runner.is_alive(), "the pass did not end"

        # One dataset, one file per shard, every origin once.
        files = sorted(p.name for p in out.iterdir())
        assert files == ["shard-00000-of-00002.parquet", "shard-00001-of-00002.parquet"], files
        table = pq.read_table(out)
        origins = table.column("origin").to_pylist()
        assert sorted(origins) == sorted(f"http://h{i}.test:{hosts.port}" for i in range(HOSTS))
        assert set(table.column("status").to_pylist()) == {"parsed"}
        assert result["origins"] == HOSTS and len(result["per_shard"]) == 2
        for index, shard in enumerate(result["per_shard"]):
            assert shard["shard"] == index
            assert shard["origins"] == sum(webcanon_shard(o, 2) == index for o in origins)
        # The killed shard was retried by another process and resumed from its journal.
        assert killed not in {s["pid"] for s in result["per_shard"]}
        assert result["already_fetched"] > 0, result
        # No robots.txt fetched twice but the few in flight at the kill.
        twice = [h for h, n in hosts.robots_per_host.items() if n > 1]
        assert all(n <= 2 for n in hosts.robots_per_host.values()), hosts.robots_per_host
        assert len(twice) <= 3, twice
        assert len(hosts.robots_per_host) == HOSTS

        # The dataset feeds the verdict pass.
        dataset = ray_batch.decide(ray.data.from_arrow(pa.table({"url": urls})), out, agent="TestBot")
        decided = pa.Table.from_pylist(dataset.take_all())
        assert decided.num_rows == HOSTS
        assert pc.sum(decided.column("allowed")).as_py() == HOSTS // 2
        assert set(decided.column("robots_status").to_pylist()) == {"200"}
    finally:
        ray.shutdown()
        hosts.close()


def webcanon_shard(origin: str, count: int) -> int:
    """The shard of an origin: FNV-1a 64 modulo the count, as ``--shard`` documents it."""
    h = 0xCBF29CE484222325
    for b in origin.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % count


def test_a_bad_shard_count_is_refused(tmp_path):
    with pytest.raises(ValueError, match="shards must be at least 1"):
        ray_batch.fetch_snapshot(tmp_path / "urls.txt", tmp_path / "out", shards=0)


def test_fetch_pass_refuses_bad_input_clearly(tmp_path):
    client = webcanon.Client("TestBot")
    with pytest.raises(webcanon.WebcanonError, match="no such file"):
        client.fetch_pass(tmp_path / "missing.txt", tmp_path / "snap.parquet")
    (tmp_path / "urls.txt").write_text("https://a.example/\n")
    with pytest.raises(webcanon.SnapshotError, match="shard index must be below the count"):
        client.fetch_pass(tmp_path / "urls.txt", tmp_path / "snap.parquet", shard=(2, 2))
