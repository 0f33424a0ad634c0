"""examples/ray_robots_filter.py run with Ray in local mode over a snapshot made by the wheel."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

import webcanon

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "ray_robots_filter.py"


def test_ray_example_keeps_exactly_the_allowed_urls(tmp_path):
    snapshot = webcanon.Snapshot.from_bodies({
        "https://a.example": "User-agent: *\nDisallow: /private/\n",
        "https://b.example": "User-agent: GPTBot\nDisallow: /\n",
    })
    snapshot.write_parquet(tmp_path / "snapshot.parquet")
    urls = [f"https://a.example/{kind}/{i}" for i in range(300) for kind in ("public", "private")]
    urls += [f"https://b.example/page/{i}" for i in range(100)] + ["https://c.example/unknown", "not a url"]
    ids = list(range(len(urls)))
    # Several row groups, so that Ray splits the work into many batches.
    pq.write_table(pa.table({"id": ids, "url": urls}), tmp_path / "urls.parquet", row_group_size=97)

    env = dict(os.environ, RAY_ADDRESS="", RAY_DISABLE_USAGE_STATS="1", RAY_ENABLE_UV_RUN_RUNTIME_ENV="0")
    run = subprocess.run(
        [sys.executable, EXAMPLE, tmp_path / "urls.parquet", tmp_path / "snapshot.parquet", tmp_path / "out",
         "--agent", "GPTBot", "--workers", "2"],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary == {"urls": 702, "written": 300, "allowed": 300, "origins_in_snapshot": 2,
                       "agent": "GPTBot", "mode": "respect"}

    kept = pq.read_table(tmp_path / "out").sort_by("id")
    expected = [url for url in urls if url.startswith("https://a.example/public/")]
    assert kept.column("url").to_pylist() == expected
    assert set(kept.column("verdict").to_pylist()) == {"allowed_implicit"}
    assert kept.column_names[:2] == ["id", "url"] and "rule_pattern" in kept.column_names


def test_ray_example_refuses_a_bad_snapshot_with_webcanons_message(tmp_path):
    (tmp_path / "snapshot.parquet").write_bytes(b"not parquet")
    pq.write_table(pa.table({"url": ["https://a.example/"]}), tmp_path / "urls.parquet")
    run = subprocess.run([sys.executable, EXAMPLE, tmp_path / "urls.parquet", tmp_path / "snapshot.parquet",
                          tmp_path / "out", "--agent", "GPTBot"], capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "SnapshotError" in run.stderr and "snapshot.parquet" in run.stderr
