"""Client.map, Client.crawl and Client.crawl_pass over loopback servers: records stream as the
run goes, a reader that stops stops the run, errors are the package's exceptions."""

from __future__ import annotations

import time

import pyarrow.parquet as pq
import pytest

import webcanon
from loopback import Answer, LoopbackServer, Request

CRAWL = {"seed": ["start"], "probe_soft_404": False, "alternatives": False}


class Site(LoopbackServer):
    """`pages` pages under /p/N, each linking the next two, every answer `delay` seconds late."""

    def __init__(self, pages: int, delay: float) -> None:
        super().__init__()
        self.pages = pages
        self.delay = delay

    def answer(self, request: Request) -> Answer:
        if request.path == "/robots.txt":
            return Answer(200, {"content-type": "text/plain"}, b"User-agent: *\nDisallow: /private\n")
        time.sleep(self.delay)
        if request.path == "/":
            body = "<h1>Home</h1><p>The home page, with words enough to be a page.</p><a href=/p/0>first</a>"
        elif request.path.startswith("/p/") and int(request.path[3:]) < self.pages:
            n = int(request.path[3:])
            body = (f"<h1>Page {n}</h1><p>Page {n}, with words enough of its own to be a page.</p>"
                    f"<a href=/p/{n + 1}>next</a> <a href=/p/{n + 2}>after</a> <a href=/private/{n}>private</a>")
        else:
            return Answer(404, {"content-type": "text/plain"}, b"not found")
        html = f"<html><head><title>{request.path}</title></head><body><main>{body}</main></body></html>"
        return Answer(200, {"content-type": "text/html"}, html.encode())


@pytest.fixture
def slow_site():
    sites: list[Site] = []

    def make(pages: int, delay: float) -> Site:
        sites.append(Site(pages, delay))
        return sites[-1]

    yield make
    for site in sites:
        site.close()


def test_crawl_yields_page_records_as_the_crawl_goes(slow_site, client):
    site = slow_site(pages=12, delay=0.1)
    started = time.monotonic()
    records = client(format="text").crawl([site.url("/")], **CRAWL)
    first = next(records)
    first_after = time.monotonic() - started
    rest = list(records)
    total = time.monotonic() - started
    assert first["requested_url"] == site.url("/") and first["depth"] == 0 and "parent" not in first
    assert "The home page" in (first["content"] or "") and "#" not in (first["content"] or "")
    # One request at a time per host: 13 pages of 0.1 s; the first came long before the end.
    assert total > 1.2 and first_after < total / 3, (first_after, total)
    by_url = {r["requested_url"]: r for r in [first, *rest]}
    assert len(by_url) == 1 + 1 + 12 + 12 + 1, sorted(by_url)
    assert by_url[site.url("/p/3")]["parent"] == site.url("/p/1") and by_url[site.url("/p/3")]["depth"] == 3
    assert by_url[site.url("/private/0")]["not_fetched"] == "disallowed"
    assert by_url[site.url("/p/13")]["not_fetched"] == "http_status"
    assert site.hits("/private/0") == 0


def test_breaking_out_of_the_loop_stops_the_crawl(slow_site, client):
    site = slow_site(pages=200, delay=0.02)
    for n, _ in enumerate(client().crawl([site.url("/")], **CRAWL)):
        if n == 2:
            break
    time.sleep(0.5)
    requested = len(site.log)
    time.sleep(1.0)
    assert len(site.log) == requested, "the crawl went on after the reader stopped"
    assert requested < 40, requested


def test_map_yields_map_records(site, client):
    site.route("/robots.txt", 200, f"User-agent: *\nDisallow: /private\nSitemap: {site.url('/sitemap.xml')}\n")
    urls = "".join(f"<url><loc>{site.url(p)}</loc></url>" for p in ["/a", "/private/b", "/c"])
    site.route("/sitemap.xml", 200, f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
               content_type="application/xml")
    records = list(client().map(site.url("/"), sources=["sitemap"]))
    assert {r["url"]: r["allowed"] for r in records} == {
        site.url("/a"): True, site.url("/private/b"): False, site.url("/c"): True}
    private = next(r for r in records if not r["allowed"])
    assert private["rule"] == {"line": 2, "directive": "disallow", "pattern": "/private"}
    assert private["sources"] == ["sitemap"]
    assert len(list(client().map(site.url("/"), sources=["sitemap"], limit=2))) == 2


def test_errors_are_the_package_exceptions(site, client, tmp_path):
    with pytest.raises(webcanon.InvalidUrlError):
        client().crawl(["not a url"])
    with pytest.raises(webcanon.InvalidUrlError):
        client().map("ftp://example.com/")
    with pytest.raises(webcanon.WebcanonError, match="scope"):
        client().crawl([site.url("/")], scope="planet")
    with pytest.raises(webcanon.WebcanonError, match="unknown field `colour`"):
        client().crawl([site.url("/")], colour="blue")
    with pytest.raises(webcanon.WebcanonError, match="unknown variant `pdf`"):
        client().crawl([site.url("/")], format="pdf")
    with pytest.raises(webcanon.WebcanonError, match="unknown source"):
        client().map(site.url("/"), sources=["rumour"])
    # The SSRF guard refuses loopback to a client that does not allow it: raised by the iterator.
    with pytest.raises(webcanon.SsrfRefused):
        next(webcanon.Client("TestBot", cache="none").map(site.url("/")))
    huge = tmp_path / "seeds.txt"
    with open(huge, "wb") as f:
        f.truncate(1 << 30)
    started = time.monotonic()
    with pytest.raises(webcanon.WebcanonError, match="larger than 256 MiB"):
        client().crawl([], seeds_file=huge)
    (tmp_path / "binary.txt").write_bytes(b"\x00\xff\xfe garbage\n" * 1000)
    with pytest.raises(webcanon.WebcanonError, match="line 1 is not text"):
        client().crawl_pass([], tmp_path / "out.parquet", seeds_file=tmp_path / "binary.txt")
    assert time.monotonic() - started < 5


def test_crawl_pass_writes_the_records_of_the_crawl(slow_site, client, tmp_path):
    site = slow_site(pages=6, delay=0)
    streamed = sorted(r["requested_url"] for r in client().crawl([site.url("/")], **CRAWL))
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"# the site\n{site.url('/')}\n")
    summary = client().crawl_pass([], tmp_path / "site.parquet", seeds_file=seeds, **CRAWL)
    assert summary["records"] == len(streamed) and summary["seeds"] == 1
    assert summary["not_fetched"] == {"disallowed": 6, "http_status": 2}
    table = pq.read_table(tmp_path / "site.parquet")
    assert sorted(table.column("requested_url").to_pylist()) == streamed
    # Another shard of the same seeds has none of them: an empty file of the same schema.
    other = 1 - webcanon_shard(site.origin, 2)
    summary = client().crawl_pass([site.url("/")], tmp_path / "other.parquet", shard=(other, 2), **CRAWL)
    assert (summary["seeds"], summary["records"]) == (0, 0)
    assert pq.read_table(tmp_path / "other.parquet").schema == table.schema
    with pytest.raises(webcanon.WebcanonError, match="FILE.jsonl or FILE.parquet"):
        client().crawl_pass([site.url("/")], tmp_path / "site.csv")


def webcanon_shard(origin: str, count: int) -> int:
    """The shard of an origin: FNV-1a 64 modulo the count, as ``--shard`` documents it."""
    h = 0xCBF29CE484222325
    for b in origin.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % count
