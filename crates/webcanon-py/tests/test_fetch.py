"""The async fetch against a real HTTP server on loopback: results as dicts, refusals as exceptions."""

from __future__ import annotations

import asyncio

import pytest

import webcanon

LOOPBACK = ["127.0.0.0/8"]
ROBOTS = "User-agent: *\nDisallow: /private/\n# a comment the refusal must not quote\n"
PAGE = "<html><head><title>Hello</title></head><body><main><h1>Hello</h1><p>Some text for readers.</p></main></body></html>"


def client(**options) -> webcanon.Client:
    return webcanon.Client("TestBot", allow_private=LOOPBACK, cache="none", timeout=5, **options)


@pytest.mark.asyncio
async def test_fetch_returns_markdown_with_the_robots_evidence(site):
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


@pytest.mark.asyncio
async def test_a_disallowed_url_raises_policy_refused_quoting_the_rule_only(site):
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
async def test_an_unreachable_robots_txt_refuses_under_respect_only(site):
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
async def test_failures_raise_fetch_failed_and_invalid_urls_invalid_url_error(site):
    site.route("/robots.txt", 404, "none")
    site.route("/broken", 500, "oops")
    with pytest.raises(webcanon.FetchFailed) as raised:
        await client().fetch(site.url("/broken"))
    assert (raised.value.kind, raised.value.code, raised.value.status) == ("fetch", 5, 500)
    with pytest.raises(webcanon.InvalidUrlError) as invalid:
        await client().fetch("ftp://example.com/file")
    assert invalid.value.kind == "usage" and invalid.value.code == 2


@pytest.mark.asyncio
async def test_check_answers_without_fetching_the_page(site):
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


def test_methods_are_coroutines_that_asyncio_run_accepts(site):
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
async def test_content_shapes_are_client_options(site):
    site.route("/robots.txt", 200, ROBOTS)
    site.route("/page", 200, LINKED, "text/html")
    guide = site.url("/guide")
    shaped = (await client().fetch(site.url("/page")))["content"]
    assert "[the guide][1]" in shaped and f"[1]: {guide}" in shaped and "chart" not in shaped
    inline = (await client(links="inline", images="keep").fetch(site.url("/page")))["content"]
    assert f"[the guide]({guide})" in inline and "![A chart](" in inline
    text = (await client(format="text", links="drop").fetch(site.url("/page")))["content"]
    assert "Read the guide before the rest" in text and guide not in text
