"""Typed code against the package's public API, checked by mypy --strict in test_typing.py."""

from __future__ import annotations

import pyarrow as pa

import webcanon


def verdict_of(body: bytes, agent: str, url: str) -> tuple[str, int | None]:
    decision: webcanon.Decision = webcanon.Robots(body).decide(agent, url)
    return decision.verdict, decision.rule.line if decision.rule else None


def allowed_urls(snapshot: webcanon.Snapshot, urls: list[str]) -> list[str]:
    batch: pa.RecordBatch = webcanon.VerdictPass(snapshot, "GPTBot").decide(urls)
    return [str(row["url"]) for row in batch.to_pylist() if row["allowed"]]


async def content(url: str) -> str:
    try:
        result = await webcanon.Client("GPTBot").fetch(url)
    except webcanon.PolicyRefused as refused:
        return f"refused by line {refused.rule['line'] if refused.rule else '?'}"
    return str(result["content"])


def crawled_titles(client: webcanon.Client, start: str) -> dict[str, str | None]:
    titles: dict[str, str | None] = {}
    for record in client.crawl([start], scope="prefix", max_pages=10, format="text"):
        page: webcanon.PageRecord = record
        titles[page["requested_url"]] = page["title"]
    return titles


def allowed_in_map(client: webcanon.Client, site: str) -> list[str]:
    return [record["url"] for record in client.map(site, sources=["sitemap"]) if record["allowed"]]
