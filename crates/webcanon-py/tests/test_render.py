"""Rendering from Python: ``Client(render=...)`` and ``fetch(url, render=...)`` against an application
shell on loopback whose text arrives only through a script-loaded JSON; a bogus ``chromium`` fails
rendering alone.

Chromium is ``$WEBCANON_CHROMIUM``, else ``/usr/bin/chromium``; without either the rendering test is
skipped, unless ``WEBCANON_REQUIRE_CHROMIUM`` is set (as ``scripts/test.sh`` does)."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

import webcanon

TEXT = "Library opening hours for the river branch"
SHELL = '<!doctype html><html><head><title>Hours</title></head><body><div id="app"></div><script src="/app.js"></script></body></html>'
SCRIPT = (
    "fetch('/data.json').then(r => r.json()).then(d => { document.getElementById('app').innerHTML ="
    " '<article>' + d.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>'; });"
)


def chromium() -> str:
    given = os.environ.get("WEBCANON_CHROMIUM")
    if given:
        assert pathlib.Path(given).is_file(), f"WEBCANON_CHROMIUM={given} does not exist"
        return given
    if pathlib.Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    if os.environ.get("WEBCANON_REQUIRE_CHROMIUM"):
        pytest.fail("WEBCANON_REQUIRE_CHROMIUM is set but no Chromium was found")
    pytest.skip("Chromium is absent (/usr/bin/chromium, WEBCANON_CHROMIUM)")


def shell(site) -> None:
    paragraphs = [f"{TEXT}, day {i}: the doors open at nine and close when the last reader leaves." for i in range(5)]
    site.route("/robots.txt", 200, "User-agent: *\nAllow: /\n")
    site.route("/", 200, SHELL, "text/html; charset=utf-8")
    site.route("/app.js", 200, SCRIPT, "text/javascript")
    site.route("/data.json", 200, json.dumps({"paragraphs": paragraphs}), "application/json")


@pytest.mark.asyncio
async def test_render_gives_the_text_scripts_load(site, client):
    path = chromium()
    shell(site)
    plain = await client(chromium=path).fetch(site.url("/"))
    assert TEXT not in plain["content"] and plain["rendered"] is False and plain["render"] is None
    for render in (True, "auto", "on"):
        result = await client(chromium=path).fetch(site.url("/"), render=render)
        assert TEXT in result["content"], render
        assert result["rendered"] is True and result["render"]["requests_made"] == 2, result["render"]
    rendering = client(chromium=path, render=True)
    assert TEXT in (await rendering.fetch(site.url("/")))["content"]
    assert TEXT not in (await rendering.fetch(site.url("/"), render=False))["content"]


@pytest.mark.asyncio
async def test_a_bogus_chromium_fails_rendering_only(site, client):
    shell(site)
    bogus = client(chromium="/nonexistent/chromium")
    with pytest.raises(webcanon.FetchFailed) as raised:
        await bogus.fetch(site.url("/"), render=True)
    assert "rendering needs Chromium" in str(raised.value)
    assert raised.value.error["error"]["reason"] == "render_unavailable"
    assert "Loading" not in (await bogus.fetch(site.url("/")))["content"]
    with pytest.raises(webcanon.WebcanonError) as raised:
        await bogus.fetch(site.url("/"), render="sometimes")
    assert raised.value.kind == "usage" and "unknown render mode `sometimes`" in str(raised.value)
