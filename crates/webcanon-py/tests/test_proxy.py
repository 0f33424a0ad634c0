"""`webcanon.Client(proxy=...)`: requests go through a real forward proxy on
loopback, which writes down what it is asked for; a private target is
refused before anything reaches it; `HTTP_PROXY` is never read."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Iterator

import pytest

import webcanon

from loopback import Answer, LoopbackServer, Request

PAGE = "<html><head><title>Proxied</title></head><body><main><p>Through the proxy, written down.</p></main></body></html>"


class Proxy(LoopbackServer):
    """A forward HTTP proxy on loopback: it logs each absolute-form request
    URL and forwards it to one upstream server, whatever host it names."""

    def __init__(self, upstream: str) -> None:
        super().__init__()
        self.upstream = upstream
        self.direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def answer(self, request: Request) -> Answer:
        target = request.path.split("://", 1)[1]
        path = "/" + target.split("/", 1)[1] if "/" in target else "/"
        forwarded = urllib.request.Request(self.upstream + path, headers={"Host": target.split("/", 1)[0]})
        try:
            with self.direct.open(forwarded, timeout=5) as answer:
                status, body, content_type = answer.status, answer.read(), answer.headers.get("content-type")
        except urllib.error.HTTPError as error:
            status, body, content_type = error.code, error.read(), error.headers.get("content-type")
        return Answer(status, {"content-type": content_type or "text/plain"}, body)

    @property
    def url(self) -> str:
        return self.origin


@pytest.fixture
def proxy(site) -> Iterator[Proxy]:
    server = Proxy(site.origin)
    yield server
    server.close()


def public_client(site, proxy: Proxy) -> webcanon.Client:
    """`public.test` on the site's port resolves to a public address: no private network is allowed."""
    return webcanon.Client(
        "TestBot",
        proxy=proxy.url,
        resolve=[f"public.test:{site.port}:93.184.216.34"],
        cache="none",
        timeout=5,
        alternatives=False,
    )


@pytest.mark.asyncio
async def test_a_fetch_goes_through_the_proxy(site, proxy):
    site.route("/robots.txt", 200, "User-agent: *\nDisallow: /private\n")
    site.route("/page", 200, PAGE, "text/html; charset=utf-8")
    result = await public_client(site, proxy).fetch(f"http://public.test:{site.port}/page")
    assert result["status"] == 200 and "Through the proxy, written down." in result["content"]
    origin = f"http://public.test:{site.port}"
    assert proxy.requests == [origin + "/robots.txt", origin + "/page"]
    assert site.requests == ["/robots.txt", "/page"]


@pytest.mark.asyncio
async def test_a_private_target_is_refused_before_the_proxy_sees_it(site, proxy):
    client = webcanon.Client("TestBot", proxy=proxy.url, resolve=["private.test:80:10.1.2.3"], cache="none", timeout=5)
    for url in ["http://private.test/page", site.url("/page"), "http://169.254.169.254/latest/meta-data/"]:
        with pytest.raises(webcanon.SsrfRefused):
            await client.fetch(url)
    assert proxy.requests == [] and site.requests == []


@pytest.mark.asyncio
async def test_http_proxy_in_the_environment_is_ignored(site, proxy, monkeypatch):
    for name in ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]:
        monkeypatch.setenv(name, proxy.url)
    site.route("/robots.txt", 404, "none")
    site.route("/page", 200, PAGE, "text/html; charset=utf-8")
    client = webcanon.Client(
        "TestBot",
        allow_private=["127.0.0.0/8"],
        resolve=[f"direct.test:{site.port}:127.0.0.1"],
        cache="none",
        timeout=5,
        alternatives=False,
    )
    result = await client.fetch(f"http://direct.test:{site.port}/page")
    assert result["status"] == 200
    assert proxy.requests == [], "the environment's proxy was used"
    assert site.requests == ["/robots.txt", "/page"]


def test_a_proxy_that_is_not_http_is_a_usage_error():
    with pytest.raises(webcanon.WebcanonError) as raised:
        webcanon.Client("TestBot", proxy="socks5://user:secret@127.0.0.1:1080")
    assert "scheme `socks5` is not supported" in str(raised.value)
    assert "secret" not in str(raised.value)
