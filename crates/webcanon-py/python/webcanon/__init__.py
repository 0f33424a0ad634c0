"""webcanon: robots.txt decisions, policy-correct fetching and dataset-scale
robots verdicts for AI agents and crawlers.

- ``Robots(body).decide(agent, url)``: the RFC 9309 verdict and the rule
  that decided it; ``lint(body)``: findings with stable codes.
- ``Snapshot`` and ``VerdictPass``: the verdict pass of ``webcanon batch``
  over pyarrow data, for Spark and Ray pipelines.
- ``Client`` and ``fetch``: the fetch of ``webcanon fetch`` for asyncio,
  robots.txt evaluated first, the SSRF guard always on.
"""

from __future__ import annotations

from typing import Any

from ._webcanon import (
    DEFAULT_AGENT,
    Client,
    Decision,
    Diagnostic,
    FetchFailed,
    InvalidUrlError,
    PolicyRefused,
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

__all__ = [
    "DEFAULT_AGENT",
    "Client",
    "Decision",
    "Diagnostic",
    "FetchFailed",
    "InvalidUrlError",
    "PolicyRefused",
    "Robots",
    "Rule",
    "Snapshot",
    "SnapshotError",
    "SsrfRefused",
    "VerdictPass",
    "WebcanonError",
    "__version__",
    "fetch",
    "lint",
    "verdicts",
]


async def fetch(url: str, agent: str = DEFAULT_AGENT, **options: Any) -> dict[str, Any]:
    """Fetches ``url`` once with a new ``Client(agent, **options)``.

    For more than one fetch, keep a ``Client``: it holds the connections,
    the robots cache and the per-host pacing.
    """
    return await Client(agent, **options).fetch(url)
