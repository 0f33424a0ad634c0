"""webcanon: robots.txt decisions, policy-correct fetching and dataset-scale
robots verdicts for AI agents and crawlers.

- ``Robots(body).decide(agent, url)``: the RFC 9309 verdict and the rule
  that decided it; ``lint(body)``: findings with stable codes.
- ``Snapshot`` and ``VerdictPass``: the verdict pass of ``webcanon batch``
  over pyarrow data, for Spark and Ray pipelines.
- ``Client`` and ``fetch``: the fetch of ``webcanon fetch`` for asyncio,
  robots.txt evaluated first, the SSRF guard always on.
- ``Client.map`` and ``Client.crawl``: the site map and the crawl of
  ``webcanon map`` and ``webcanon crawl`` as iterators of ``MapRecord`` and
  ``PageRecord`` dicts; ``Client.crawl_pass`` crawls into a resumable
  JSON lines or Parquet file (``webcanon.ray_crawl`` runs it on Ray).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence, TypedDict, Union

from . import _webcanon
from ._webcanon import (
    DEFAULT_AGENT,
    Decision,
    Diagnostic,
    FetchFailed,
    InvalidUrlError,
    PaymentRequired,
    PolicyRefused,
    Records,
    Robots,
    Rule,
    Snapshot,
    SnapshotError,
    SsrfRefused,
    VerdictPass,
    WebcanonError,
    __version__,
    lint,
    verdicts,
)

if TYPE_CHECKING:
    # The page options' values, as the stub names them (annotations only).
    from ._webcanon import _Comments, _Format, _Images, _Links, _Purpose, _Render

__all__ = [
    "DEFAULT_AGENT",
    "Client",
    "Decision",
    "Diagnostic",
    "FetchFailed",
    "InvalidUrlError",
    "MapRecord",
    "Metadata",
    "PageRecord",
    "PaymentRequired",
    "PolicyRefused",
    "Records",
    "Robots",
    "RobotsRule",
    "Rule",
    "Snapshot",
    "SnapshotError",
    "SsrfRefused",
    "UsageWarning",
    "VerdictPass",
    "WebcanonError",
    "__version__",
    "fetch",
    "lint",
    "verdicts",
]


class Metadata(TypedDict):
    """The ``metadata`` of a fetch result: what the page says about itself.

    Dates are ISO 8601 (``2024-03-05``, ``2024-03-05T10:20:00+01:00``);
    URLs are absolute; a field the page does not state is ``None`` (an
    empty list for ``authors`` and ``keywords``). A PDF gives ``headline``
    (its title) and ``authors``; a Markdown or text answer gives nothing.
    """

    headline: Optional[str]
    authors: list[str]
    published: Optional[str]
    modified: Optional[str]
    language: Optional[str]
    site_name: Optional[str]
    description: Optional[str]
    canonical_url: Optional[str]
    page_type: Optional[str]
    image: Optional[str]
    keywords: list[str]
    section: Optional[str]


class RobotsRule(TypedDict):
    """The robots.txt rule that decided a verdict: its 1-based line, ``allow`` or ``disallow``, its pattern."""

    line: int
    directive: str
    pattern: str


class UsageWarning(TypedDict):
    """A usage signal of a page: its stable ``code`` (``noai``, ``body_truncated``, …), where it was
    found (``source``: ``x_robots_tag``, ``meta_robots``, ``fetch``, …) and ``detail`` in words."""

    code: str
    source: str
    detail: str


class MapRecord(TypedDict):
    """One URL of ``Client.map``: where it was found and what robots.txt says of it for the agent."""

    url: str
    allowed: bool
    verdict: str
    recommendation: str
    rule: Optional[RobotsRule]
    lastmod: Optional[str]
    sources: list[str]


class _PageRecordFields(TypedDict):
    requested_url: str
    final_url: Optional[str]
    canonical_url: Optional[str]
    status: Optional[int]
    content_type: Optional[str]
    verdict: Optional[str]
    recommendation: Optional[str]
    rule: Optional[RobotsRule]
    warnings: list[UsageWarning]
    title: Optional[str]
    metadata: Optional[Metadata]
    content: Optional[str]
    content_hash: Optional[str]
    fetched_at: Optional[str]
    bytes: Optional[int]
    not_fetched: Optional[str]
    error: Optional[str]


class PageRecord(_PageRecordFields, total=False):
    """One URL of ``Client.crawl``, as ``webcanon crawl`` writes it: a fetched page (its answer,
    verdict and rule, usage warnings, metadata, content, fetch time in RFC 3339) or a URL without
    content and why (``not_fetched``: ``disallowed``, ``out_of_scope``, ``duplicate``, ``limit``,
    ``nofollow``, ``http_status``, …). ``depth`` is its link distance from a start URL, ``parent``
    the page that linked it (absent for a start URL)."""

    depth: int
    parent: str


class Client(_webcanon.Client):
    """The policy-correct fetch of ``webcanon fetch``, for asyncio.

    robots.txt is loaded before every request (llms.txt candidates and
    redirects included), private addresses are refused unless allowed, and
    robots.txt outcomes are cached. Keep one client for many fetches: it
    holds the connections, the robots cache and the per-host pacing. The
    options are those of ``webcanon fetch`` (see ``_webcanon.Client``).
    """

    __slots__ = ()

    async def fetch(
        self,
        url: str,
        *,
        render: Union[bool, _Render, None] = None,
        format: Optional[_Format] = None,
        links: Optional[_Links] = None,
        images: Optional[_Images] = None,
        max_bytes: Optional[int] = None,
        alternatives: Optional[bool] = None,
        purpose: Optional[_Purpose] = None,
        comments: Optional[_Comments] = None,
    ) -> dict[str, Any]:
        """Fetches ``url`` the way the site owner asked: the result of ``webcanon fetch --json``,
        the page's author, dates, language and site under ``metadata`` (a ``Metadata``).

        The keywords override the client's options for this call, as the HTTP API's fields do
        (``None`` keeps the client's): ``render`` (``True``, ``False``, ``"auto"``) renders the page
        in headless Chromium first, every request it makes going through the SSRF guard and
        robots.txt; ``format``, ``links`` and ``images`` shape the content; ``max_bytes`` limits
        the body (at most 10 MiB); ``alternatives`` looks for a Markdown copy; ``purpose`` (an
        RSL use, ``"ai-train"``) reads the site's RSL license for that use into warnings;
        ``comments`` (``"auto"``, ``"include"``, ``"exclude"``) says whether comments and a
        thread's replies are content.

        Raises ``PolicyRefused``, ``SsrfRefused``, ``FetchFailed`` (``PaymentRequired`` for a 402)
        or ``InvalidUrlError``.
        """
        return await super().fetch(
            url,
            render=render,
            format=format,
            links=links,
            images=images,
            max_bytes=max_bytes,
            alternatives=alternatives,
            purpose=purpose,
            comments=comments,
        )

    async def check(self, url: str) -> dict[str, Any]:
        """The robots verdict for ``url`` without fetching the page: ``{"url", "robots", "warnings"}``."""
        return await super().check(url)

    async def snapshot(self, urls: Sequence[str], concurrency: int = 64) -> Snapshot:
        """The robots snapshot of the origins of ``urls``: the fetch pass of ``webcanon batch``."""
        return await super().snapshot(urls, concurrency)


async def fetch(url: str, agent: str = DEFAULT_AGENT, **options: Any) -> dict[str, Any]:
    """Fetches ``url`` once with a new ``Client(agent, **options)``.

    For more than one fetch, keep a ``Client``: it holds the connections,
    the robots cache and the per-host pacing.
    """
    return await Client(agent, **options).fetch(url)
