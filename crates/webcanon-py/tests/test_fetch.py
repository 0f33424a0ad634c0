"""The async fetch against a real HTTP server on loopback: results as dicts, refusals as exceptions."""

from __future__ import annotations

import asyncio
import json
import pathlib
import re

import pytest

import webcanon
from webcanon import _webcanon

LOOPBACK = ["127.0.0.0/8"]
ROBOTS = "User-agent: *\nDisallow: /private/\n# a comment the refusal must not quote\n"
PAGE = "<html><head><title>Hello</title></head><body><main><h1>Hello</h1><p>Some text for readers.</p></main></body></html>"


@pytest.mark.asyncio
async def test_fetch_returns_markdown_with_the_robots_evidence(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/page", 200, PAGE, "text/html; charset=utf-8")
    result = await client().fetch(site.url("/page"))
    assert result["status"] == 200
    assert result["final_url"] == site.url("/page")
    assert result["title"] == "Hello"
    # The title is its own field; the content does not add it (the page's
    # own heading may stay, once).
    assert result["content"].count("Hello") <= 1 and "Some text for readers." in result["content"]
    assert result["robots"]["verdict"] == "allowed_implicit"
    assert result["robots"]["recommendation"] == "recommended"
    assert result["robots"]["robots_url"] == site.url("/robots.txt")
    assert isinstance(result["warnings"], list) and isinstance(result["timings"]["total_ms"], int)
    assert site.requests[0] == "/robots.txt", "robots.txt is read before the page"


STORY = (
    '<html lang="en"><head><title>Story</title><meta name="author" content="Ada Lovelace">'
    '<meta property="article:published_time" content="2024-03-05T10:20:00+01:00"></head>'
    "<body><main><h1>Story</h1><p>Some text for readers.</p></main></body></html>"
)


@pytest.mark.asyncio
async def test_fetch_gives_the_page_metadata(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/story", 200, STORY, "text/html; charset=utf-8")
    metadata: webcanon.Metadata = (await client().fetch(site.url("/story")))["metadata"]
    assert metadata["authors"] == ["Ada Lovelace"]
    assert metadata["published"] == "2024-03-05T10:20:00+01:00"
    assert metadata["language"] == "en"
    assert metadata["modified"] is None and metadata["keywords"] == []


@pytest.mark.asyncio
async def test_a_disallowed_url_raises_policy_refused_quoting_the_rule_only(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/private/x", 200, PAGE, "text/html")
    with pytest.raises(webcanon.PolicyRefused) as raised:
        await client().fetch(site.url("/private/x"))
    error = raised.value
    assert isinstance(error, webcanon.WebcanonError)
    assert (error.kind, error.code, error.url) == ("policy", 3, site.url("/private/x"))
    assert error.verdict == "disallowed_explicit" and error.recommendation == "not_recommended"
    assert error.rule == {"line": 2, "directive": "disallow", "pattern": "/private/"}
    assert error.error["error"]["rule"] == error.rule
    assert "comment the refusal" not in str(error) and "comment the refusal" not in repr(error.error)
    assert site.hits("/private/x") == 0, "the page is never requested"


@pytest.mark.asyncio
async def test_an_unreachable_robots_txt_refuses_under_respect_only(site, client):
    site.route("/robots.txt", 503, "later")
    site.route("/page", 200, "plain text", "text/plain")
    with pytest.raises(webcanon.PolicyRefused) as raised:
        await client().fetch(site.url("/page"))
    assert raised.value.verdict == "unknown_unreachable"
    result = await client(mode="report_only").fetch(site.url("/page"))
    assert result["robots"]["verdict"] == "unknown_unreachable" and result["content"].strip() == "plain text"


@pytest.mark.asyncio
async def test_private_addresses_raise_ssrf_refused(site):
    site.route("/robots.txt", 200, ROBOTS)
    guarded = webcanon.Client("TestBot", cache="none", timeout=5)
    with pytest.raises(webcanon.SsrfRefused) as raised:
        await guarded.fetch(site.url("/page"))
    assert (raised.value.kind, raised.value.code) == ("ssrf", 4)
    assert raised.value.reason
    with pytest.raises(webcanon.SsrfRefused):
        await guarded.fetch("http://169.254.169.254/latest/meta-data/")
    assert site.requests == [], "nothing reaches the server"


@pytest.mark.asyncio
async def test_failures_raise_fetch_failed_and_invalid_urls_invalid_url_error(site, client):
    site.route("/robots.txt", 404, "none")
    site.route("/broken", 500, "oops")
    with pytest.raises(webcanon.FetchFailed) as raised:
        await client().fetch(site.url("/broken"))
    assert (raised.value.kind, raised.value.code, raised.value.status) == ("fetch", 5, 500)
    with pytest.raises(webcanon.InvalidUrlError) as invalid:
        await client().fetch("ftp://example.com/file")
    assert invalid.value.kind == "usage" and invalid.value.code == 2


@pytest.mark.asyncio
async def test_a_page_asking_for_payment_raises_payment_required_with_the_price(site, client):
    site.route("/robots.txt", 404, "none")
    site.route("/paid", 402, "pay", "text/html", headers={"crawler-price": "USD 0.01"})
    with pytest.raises(webcanon.PaymentRequired) as raised:
        await client().fetch(site.url("/paid"))
    error = raised.value
    assert isinstance(error, webcanon.FetchFailed)
    assert (error.kind, error.code, error.status, error.reason) == ("fetch", 5, 402, "payment_required")
    assert error.price == {"currency": "USD", "amount": "0.01"}
    assert error.error["error"]["price"] == error.price
    assert "nothing was paid" in str(error)
    assert site.hits("/paid") == 1, "never retried"


@pytest.mark.asyncio
async def test_check_answers_without_fetching_the_page(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    answer = await client().check(site.url("/private/y"))
    assert answer["url"] == site.url("/private/y")
    assert answer["robots"]["verdict"] == "disallowed_explicit"
    assert answer["robots"]["rule"]["line"] == 2
    assert site.requests == ["/robots.txt"]


@pytest.mark.asyncio
async def test_one_client_reads_robots_txt_once_for_concurrent_fetches(site):
    site.route("/robots.txt", 200, ROBOTS)
    for i in range(8):
        site.route(f"/p{i}", 200, f"page {i}", "text/plain")
    shared = webcanon.Client("TestBot", allow_private=LOOPBACK, timeout=5)
    results = await asyncio.gather(*(shared.fetch(site.url(f"/p{i}")) for i in range(8)))
    assert [r["content"].strip() for r in results] == [f"page {i}" for i in range(8)]
    assert site.hits("/robots.txt") == 1


@pytest.mark.asyncio
async def test_module_level_fetch_takes_client_options(site):
    site.route("/robots.txt", 404, "none")
    site.route("/doc.md", 200, "# Doc\n", "text/markdown")
    result = await webcanon.fetch(site.url("/doc.md"), "TestBot", allow_private=LOOPBACK, cache="none")
    assert result["content"] == "# Doc\n"


@pytest.mark.parametrize("options,message", [
    ({"timeout": 0}, "timeout must be a number of seconds above 0"),
    ({"timeout": 1e20}, "up to 86400"),
    ({"cache": "none", "cache_dir": "/tmp"}, "cache_dir has no use"),
    ({"mode": "polite"}, "unknown robots mode"),
    ({"allow_private": ["not-a-net"]}, "allow_private `not-a-net`"),
    ({"resolve": ["nonsense"]}, "resolve `nonsense`"),
    ({"cache": "disk"}, "expected \"memory\", \"none\" or a redis:// URL"),
    ({"min_interval": -1.0}, "min_interval must be"),
    ({"links": "footnotes"}, "links: unknown value `footnotes`, expected one of"),
    ({"format": "html"}, "format: unknown value `html`"),
    ({"images": "blur"}, "images: unknown value `blur`"),
])
def test_bad_options_are_usage_errors(options, message):
    with pytest.raises(webcanon.WebcanonError, match=message) as raised:
        webcanon.Client(**options)
    assert raised.value.kind == "usage" and raised.value.code == 2


def test_a_bad_redis_url_is_reported_without_its_password():
    with pytest.raises(webcanon.WebcanonError, match="cache `") as raised:
        webcanon.Client(cache="http://user:s3cret@localhost:1/")
    assert "s3cret" not in str(raised.value) and "***" in str(raised.value)


def test_methods_are_coroutines_that_asyncio_run_accepts(site, client):
    site.route("/robots.txt", 404, "none")
    site.route("/t.txt", 200, "text", "text/plain")
    coroutine = client().fetch(site.url("/t.txt"))
    assert asyncio.iscoroutine(coroutine)
    assert asyncio.run(coroutine)["content"].strip() == "text"
    assert isinstance(client(), webcanon.Client) and repr(client()).startswith("<Client agent=TestBot")


LINKED = (
    "<html><head><title>Shapes</title></head><body><main><p>Read <a href='/guide'>the guide</a> before the rest, "
    "in a paragraph long enough to be the page's main content for the extractor.</p>"
    "<p><img src='/chart.png' alt='A chart'></p></main></body></html>"
)


@pytest.mark.asyncio
async def test_content_shapes_are_client_options(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/page", 200, LINKED, "text/html")
    guide = site.url("/guide")
    shaped = (await client().fetch(site.url("/page")))["content"]
    assert "[the guide][1]" in shaped and f"[1]: {guide}" in shaped and "chart" not in shaped
    inline = (await client(links="inline", images="keep").fetch(site.url("/page")))["content"]
    assert f"[the guide]({guide})" in inline and "![A chart](" in inline
    text = (await client(format="text", links="drop").fetch(site.url("/page")))["content"]
    assert "Read the guide before the rest" in text and guide not in text


def pdf(pages: list[str], title: str) -> bytes:
    """A small PDF: one line of Helvetica text per page and a Title."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for text in pages:
        kids.append(f"{len(objects) + 1} 0 R")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {len(objects) + 2} 0 R >>".encode()
        )
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    objects.append(f"<< /Title ({title}) >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        len(objects),
        xref,
    )
    return bytes(out)


@pytest.mark.asyncio
async def test_a_pdf_behind_a_redirect_comes_back_as_text_with_its_metadata(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.routes[(None, "/report.pdf")] = (
        200,
        {"content-type": "application/pdf", "x-robots-tag": "noai"},
        pdf(["First page.", "Second page."], "The Report"),
    )
    site.routes[(None, "/latest.pdf")] = (302, {"location": "/report.pdf"}, b"")
    result = await client(format="text").fetch(site.url("/latest.pdf"))
    assert result["final_url"] == site.url("/report.pdf")
    assert result["content"] == "First page.\n\n--- page 2 ---\n\nSecond page."
    assert result["title"] == "The Report"
    assert result["pdf"] == {"title": "The Report", "author": None, "pages": 2, "pages_read": 2}
    assert result["metadata"]["headline"] == "The Report" and result["metadata"]["authors"] == []
    assert [w["code"] for w in result["warnings"]] == ["noai"]


@pytest.mark.asyncio
async def test_a_disallowed_pdf_is_never_requested_and_a_broken_one_raises_pdf_error(site, client):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/private/report.pdf", 200, pdf(["Secret."], "Secret"), "application/pdf")
    site.route("/broken.pdf", 200, b"%PDF-1.7\nnothing else", "application/pdf")
    with pytest.raises(webcanon.PolicyRefused):
        await client().fetch(site.url("/private/report.pdf"))
    assert site.hits("/private/report.pdf") == 0
    with pytest.raises(webcanon.FetchFailed) as raised:
        await client().fetch(site.url("/broken.pdf"))
    assert raised.value.error["error"]["reason"] == "pdf_error"


LICENSE = (
    '<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>'
    '<prohibits type="usage">ai-train</prohibits></license></content></rsl>'
)


@pytest.mark.asyncio
async def test_purpose_reads_the_rsl_license_into_warnings(site, client):
    site.route("/robots.txt", 200, f"License: {site.url('/license.xml')}\n")
    site.route("/license.xml", 200, LICENSE, "application/rsl+xml")
    site.route("/page", 200, PAGE, "text/html; charset=utf-8")
    codes = lambda result: [w["code"] for w in result["warnings"] if w["source"] == "rsl"]  # noqa: E731
    assert codes(await client(purpose="ai-train").fetch(site.url("/page"))) == ["rsl_prohibited"]
    assert codes(await client().fetch(site.url("/page"), purpose="ai-train")) == ["rsl_prohibited"]
    assert codes(await client(purpose="ai-train").fetch(site.url("/page"), purpose="search")) == []
    with pytest.raises(webcanon.WebcanonError) as raised:
        client(purpose="train-ai")
    assert raised.value.kind == "usage" and "train-ai" in str(raised.value)


OVERRIDES_TABLE = pathlib.Path(__file__).parents[2] / "webcanon-test" / "data" / "fetch_overrides.json"


@pytest.mark.asyncio
async def test_fetch_applies_the_shared_table_of_overrides(site, client):
    """The override table every face shares (the HTTP API and the MCP tool read it too)."""
    table = json.loads(OVERRIDES_TABLE.read_text())
    site.route("/robots.txt", 200, "User-agent: *\nAllow: /\n")
    site.route(table["path"], 200, table["page"], "text/html; charset=utf-8")
    shared = client()
    for row in table["rows"]:
        overrides = row["overrides"]
        if "error" in row:
            with pytest.raises(webcanon.WebcanonError, match=re.escape(row["error"])) as refused:
                await shared.fetch(site.url(table["path"]), **overrides)
            assert refused.value.kind == "usage", overrides
            continue
        content = (await shared.fetch(site.url(table["path"]), **overrides))["content"]
        for expected in row["contains"]:
            assert expected in content, (overrides, expected, content)
        for unexpected in row["absent"]:
            assert unexpected not in content, (overrides, unexpected, content)


@pytest.mark.asyncio
async def test_an_unknown_override_is_refused(site, client):
    with pytest.raises(webcanon.WebcanonError, match="unknown field `foramt`"):
        await _webcanon.Client.fetch(client(), site.url("/page"), foramt="text")
