"""Snapshots and the verdict pass over pyarrow data, and their interplay with `webcanon batch`."""

from __future__ import annotations

import json
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import webcanon

RULES = "User-agent: *\nDisallow: /private\nAllow: /private/ok\n\nUser-agent: TestBot\nDisallow: /\n"


@pytest.fixture
def snapshot() -> webcanon.Snapshot:
    return webcanon.Snapshot.from_bodies({"https://a.example": RULES, "https://b.example": b"User-agent: *\nAllow: /\n"},
                                         fetched_at=1_700_000_000)


# (agent, url, allowed, verdict, rule_line, robots_status)
ROWS = [
    ("GPTBot", "https://a.example/private/x", False, "disallowed_explicit", 2, "200"),
    ("GPTBot", "https://a.example/private/ok/1", True, "allowed_explicit", 3, "200"),
    ("GPTBot", "https://a.example/public", True, "allowed_implicit", None, "200"),
    ("TestBot", "https://a.example/public", False, "disallowed_explicit", 6, "200"),
    ("GPTBot", "https://b.example/anything", True, "allowed_explicit", 2, "200"),
    # An origin absent from the snapshot: unknown, so not fetched under respect.
    ("GPTBot", "https://c.example/", False, "unknown_unreachable", None, "missing"),
    ("GPTBot", "not a url", False, "invalid_url", None, None),
]


@pytest.mark.parametrize("agent,url,allowed,verdict,line,status", ROWS)
def test_decide_one(snapshot, agent, url, allowed, verdict, line, status):
    row = webcanon.VerdictPass(snapshot, agent).decide_one(url)
    assert (row["allowed"], row["verdict"], row["rule_line"], row["robots_status"]) == (allowed, verdict, line, status)
    if verdict == "invalid_url":
        assert row["origin"] is None and row["error"]


def test_decide_returns_one_row_per_url_in_order(snapshot):
    urls = [url for agent, url, *_ in ROWS if agent == "GPTBot"]
    assert len(urls) == 6
    batch = webcanon.verdicts(snapshot, pa.array(urls), "GPTBot")
    assert isinstance(batch, pa.RecordBatch)
    assert batch.schema == webcanon.VerdictPass.schema()
    assert batch.column("url").to_pylist() == urls
    expected = webcanon.VerdictPass(snapshot, "GPTBot")
    assert batch.to_pylist() == [expected.decide_one(u) for u in urls]


@pytest.mark.parametrize("array", [
    pa.array(["https://a.example/private/x", None], type=pa.string()),
    pa.array(["https://a.example/private/x", None], type=pa.large_string()),
    pa.array(["https://a.example/private/x", None]).dictionary_encode(),
    ["https://a.example/private/x", None],
], ids=["string", "large_string", "dictionary", "list"])
def test_every_string_type_is_accepted(snapshot, array):
    batch = webcanon.VerdictPass(snapshot, "GPTBot").decide(array)
    assert batch.column("verdict").to_pylist() == ["disallowed_explicit", "invalid_url"]
    assert batch.column("allowed").to_pylist() == [False, False]


def test_urls_that_are_not_strings_are_a_type_error(snapshot):
    with pytest.raises(TypeError, match="URLs must be strings, not Int64"):
        webcanon.VerdictPass(snapshot, "GPTBot").decide(pa.array([1, 2]))
    with pytest.raises(TypeError, match="list of str"):
        webcanon.VerdictPass(snapshot, "GPTBot").decide(42)
    # A dictionary column is read as strings only when its values are strings.
    with pytest.raises(TypeError, match="URLs must be strings"):
        webcanon.VerdictPass(snapshot, "GPTBot").decide(pa.array([1, 2]).dictionary_encode())
    with pytest.raises(TypeError, match="column `url`: URLs must be strings"):
        webcanon.VerdictPass(snapshot, "GPTBot").annotate(pa.table({"url": [1, 2]}))


def test_modes_decide_allowed(tmp_path):
    snapshot = webcanon.Snapshot.from_arrow(pa.table({
        "origin": ["https://down.example"], "status": ["unreachable"], "http_status": pa.array([503], pa.int32()),
        "body": pa.array([None], pa.binary()), "fetched_at": [1_700_000_000],
    }))
    url = ["https://down.example/page"]
    respect = webcanon.verdicts(snapshot, url, "GPTBot", "respect").to_pylist()[0]
    report = webcanon.verdicts(snapshot, url, "GPTBot", "report_only").to_pylist()[0]
    assert respect["verdict"] == report["verdict"] == "unknown_unreachable"
    assert (respect["allowed"], report["allowed"]) == (False, True)
    assert respect["robots_status"] == "503"
    with pytest.raises(webcanon.WebcanonError, match="unknown robots mode `polite`") as raised:
        webcanon.VerdictPass(snapshot, "GPTBot", "polite")
    assert raised.value.kind == "usage" and raised.value.code == 2


def test_annotate_appends_the_verdict_columns(snapshot):
    table = pa.table({"id": [1, 2, 3], "link": ["https://a.example/private/x", "https://a.example/", "ftp://x"]})
    annotated = webcanon.VerdictPass(snapshot, "GPTBot").annotate(table, column="link")
    assert annotated.column_names == ["id", "link", "origin", "allowed", "verdict", "recommendation", "rule_line",
                                      "rule_pattern", "robots_status", "error"]
    assert annotated.column("id").to_pylist() == [1, 2, 3]
    assert annotated.column("allowed").to_pylist() == [False, True, False]
    assert annotated.column("rule_pattern").to_pylist() == ["/private", None, None]
    # Many record batches in, as many out, rows kept in order.
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=1))
    assert webcanon.VerdictPass(snapshot, "GPTBot").annotate(chunked, "link").to_pylist() == annotated.to_pylist()


def test_annotate_names_a_missing_or_clashing_column(snapshot):
    pass_ = webcanon.VerdictPass(snapshot, "GPTBot")
    with pytest.raises(ValueError, match="no column `url`; the table has link"):
        pass_.annotate(pa.table({"link": ["https://a.example/"]}))
    with pytest.raises(ValueError, match="already has a column `verdict`"):
        pass_.annotate(pa.table({"url": ["https://a.example/"], "verdict": ["x"]}))


def test_snapshot_round_trips_through_parquet_and_arrow(snapshot, tmp_path):
    path = tmp_path / "snapshot.parquet"
    snapshot.write_parquet(path)
    again = webcanon.Snapshot.read_parquet(path)
    assert again.origins == snapshot.origins == ["https://a.example", "https://b.example"]
    assert len(again) == 2 and "https://a.example" in again and "https://c.example" not in again
    assert again.get("https://a.example") == snapshot.get("https://a.example")
    entry = again.get("https://a.example")
    assert entry["status"] == "parsed" and entry["http_status"] == 200 and entry["body"] == RULES.encode()
    assert again.get("https://nowhere.example") is None
    table = snapshot.to_arrow()
    assert table.column("origin").to_pylist() == snapshot.origins
    assert webcanon.Snapshot.from_arrow(table).to_arrow() == table


def test_bad_snapshots_raise_snapshot_errors(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"this is not parquet")
    with pytest.raises(webcanon.SnapshotError, match="junk.parquet") as raised:
        webcanon.Snapshot.read_parquet(junk)
    assert raised.value.kind == "usage" and raised.value.code == 2
    assert raised.value.error["error"]["kind"] == "usage", "the CLI's kind for the same error"
    with pytest.raises(webcanon.SnapshotError, match="status"):
        webcanon.Snapshot.from_arrow(pa.table({"origin": ["https://a.example"], "status": ["sleeping"],
                                               "fetched_at": [1]}))
    with pytest.raises(webcanon.WebcanonError, match="not an origin"):
        webcanon.Snapshot.from_bodies({"https://a.example/path": "User-agent: *"})


def test_the_wheel_decides_like_webcanon_batch_from_its_snapshot(site, webcanon_bin, tmp_path):
    """`webcanon batch` fetches the snapshot; the wheel's verdict pass over it gives the CLI's rows."""
    resolve = f"*.test:{site.port}:127.0.0.1"
    site.route("/robots.txt", 200, RULES, host="rules.test")
    site.route("/robots.txt", 404, "none", host="missing.test")
    site.route("/robots.txt", 503, "later", host="broken.test")
    urls = [f"http://{host}.test:{site.port}{path}" for host in ("rules", "missing", "broken")
            for path in ("/", "/private/a", "/private/ok/b")] + ["mailto:someone@example.com"]
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(urls) + "\n")
    out, snap = tmp_path / "out.parquet", tmp_path / "snapshot.parquet"
    subprocess.run([webcanon_bin, "batch", listing, "--agent", "GPTBot", "-o", out, "--snapshot-out", snap,
                    "--resolve", resolve, "--allow-private", "127.0.0.0/8", "--no-cache", "--timeout", "5"],
                   check=True, capture_output=True)
    cli_rows = pq.read_table(out).to_pylist()
    assert len(cli_rows) == len(urls)

    ours = webcanon.verdicts(webcanon.Snapshot.read_parquet(snap), pa.array(urls), "GPTBot").to_pylist()
    assert ours == [{k: row[k] for k in ours[0]} for row in cli_rows]
    assert [r["verdict"] for r in ours[:3]] == ["allowed_implicit", "disallowed_explicit", "allowed_explicit"]
    assert {r["verdict"] for r in ours[6:9]} == {"unknown_unreachable"}


@pytest.mark.asyncio
async def test_client_snapshot_is_the_fetch_pass(site, client):
    resolve = f"*.test:{site.port}:127.0.0.1"
    site.route("/robots.txt", 200, RULES, host="rules.test")
    site.route("/robots.txt", 404, "none", host="missing.test")
    client = client(agent="GPTBot", resolve=[resolve])
    urls = [f"http://rules.test:{site.port}/a", f"http://rules.test:{site.port}/b",
            f"http://missing.test:{site.port}/", "not a url"]
    snapshot = await client.snapshot(urls, concurrency=4)
    assert sorted(snapshot.origins) == [f"http://missing.test:{site.port}", f"http://rules.test:{site.port}"]
    assert snapshot.get(f"http://rules.test:{site.port}")["status"] == "parsed"
    assert snapshot.get(f"http://missing.test:{site.port}")["status"] == "unavailable"
    assert site.hits("/robots.txt") == 2, "one robots.txt fetch per origin"
    rows = webcanon.verdicts(snapshot, urls[:3], "GPTBot").column("allowed").to_pylist()
    assert rows == [True, True, True]


@pytest.mark.parametrize("agent", ["bigsur.ai", "GPTBot/1.0", "", "GPT Bot"])
def test_an_agent_that_is_not_a_product_token_is_refused(snapshot, agent):
    # The one rule of every face: the verdict pass and the client alike.
    with pytest.raises(webcanon.WebcanonError, match="not a product token"):
        webcanon.VerdictPass(snapshot, agent)
    with pytest.raises(webcanon.WebcanonError, match="not a product token"):
        webcanon.Client(agent=agent)


def test_client_content_pass_writes_one_page_record_per_url(site, client, tmp_path):
    resolve = f"*.test:{site.port}:127.0.0.1"
    site.route("/robots.txt", 200, "User-agent: *\nDisallow: /private\n", host="rules.test")
    site.route("/page", 200, "<html><head><title>Page</title></head><body><p>Hello from the page.</p></body></html>",
               content_type="text/html", host="rules.test", headers={"X-Robots-Tag": "noai"})
    site.route("/private/a", 200, "<html><body>secret</body></html>", content_type="text/html", host="rules.test")
    urls = [f"http://rules.test:{site.port}/page", f"http://rules.test:{site.port}/private/a", "not a url"]
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(urls) + "\n")
    out = tmp_path / "pages.jsonl"
    summary = client(resolve=[resolve], format="text").content_pass(listing, out, concurrency=2)
    assert (summary["rows"], summary["allowed"], summary["pages"], summary["invalid"]) == (3, 1, 1, 1)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["requested_url"] for r in records] == urls
    assert [r["not_fetched"] for r in records] == [None, "disallowed", "invalid_url"]
    assert "Hello from the page." in records[0]["content"] and "#" not in records[0]["content"]
    assert {"code": "noai", "source": "x_robots_tag"} in [
        {k: w[k] for k in ("code", "source")} for w in records[0]["warnings"]]
    assert records[1]["rule"] == {"line": 2, "directive": "disallow", "pattern": "/private"}
    assert site.hits("/private/a") == 0, "a disallowed URL is never requested"
    with pytest.raises(webcanon.WebcanonError, match="`.jsonl` or `.parquet`"):
        client().content_pass(listing, tmp_path / "pages.csv")
