"""Type stubs of the extension module ``webcanon._webcanon``."""

from __future__ import annotations

import os
from typing import Any, Awaitable, Generic, Literal, Optional, Sequence, TypedDict, TypeVar, Union, final

import pyarrow
from typing_extensions import Unpack, disjoint_base

from webcanon import MapRecord, PageRecord

__all__ = [
    "Client",
    "DEFAULT_AGENT",
    "Decision",
    "Diagnostic",
    "FetchFailed",
    "InvalidUrlError",
    "PaymentRequired",
    "PolicyRefused",
    "Records",
    "Robots",
    "Rule",
    "Snapshot",
    "SnapshotError",
    "SsrfRefused",
    "VerdictPass",
    "WebcanonError",
    "__version__",
    "lint",
    "run_pdf_worker",
    "verdicts",
]

__version__: str
DEFAULT_AGENT: str

@final
class Rule:
    """A rule as written in robots.txt: the evidence behind a verdict."""

    @property
    def line(self) -> int:
        """The 1-based line number."""
    @property
    def directive(self) -> str:
        """``allow`` or ``disallow``."""
    @property
    def pattern(self) -> str:
        """The pattern as written."""

@final
class Decision:
    """The answer for one URL and agent."""

    @property
    def verdict(self) -> str:
        """``allowed_explicit``, ``allowed_implicit`` or ``disallowed_explicit``."""
    @property
    def allowed(self) -> bool:
        """Whether the URL may be fetched."""
    @property
    def recommendation(self) -> str:
        """``recommended`` or ``not_recommended``."""
    @property
    def rule(self) -> Optional[Rule]:
        """The rule that decided; ``None`` when no rule matched."""
    def __bool__(self) -> bool: ...

@final
class Diagnostic:
    """A lint finding with its stable code."""

    @property
    def code(self) -> str:
        """The stable code (``R001``...)."""
    @property
    def name(self) -> str:
        """The code's kebab-case name."""
    @property
    def severity(self) -> str:
        """``info``, ``warning`` or ``error``."""
    @property
    def line(self) -> Optional[int]:
        """The 1-based line; ``None`` for the whole file."""
    @property
    def message(self) -> str:
        """What is wrong."""

@final
class Robots:
    """A parsed robots.txt (RFC 9309). Parsing never fails."""

    def __new__(cls, body: Union[str, bytes]) -> Robots: ...
    def decide(self, agent: str, url: str) -> Decision:
        """The verdict for ``url`` and the product token ``agent``, with the rule that decided it."""
    def is_allowed(self, agent: str, url: str) -> bool:
        """Whether ``agent`` may fetch ``url``."""
    def crawl_delay(self, agent: str) -> Optional[float]:
        """The ``Crawl-delay`` of the group that applies to ``agent``, in seconds."""
    @property
    def sitemaps(self) -> list[str]:
        """The ``Sitemap:`` URLs, in file order."""
    @property
    def agents(self) -> list[str]:
        """The product tokens named by ``User-agent`` lines, each once."""
    def has_group_for(self, agent: str) -> bool:
        """Whether ``agent`` has a group of its own."""
    @property
    def is_robots(self) -> bool:
        """False when the body is not a robots.txt at all (HTML, binary)."""
    @property
    def truncated(self) -> bool:
        """Whether the body was longer than the parse limit and cut there."""
    @property
    def size(self) -> int:
        """The body's size in bytes."""
    def lint(self) -> list[Diagnostic]:
        """The lint findings."""

def lint(body: Union[str, bytes]) -> list[Diagnostic]:
    """The lint findings of a robots.txt body."""

def run_pdf_worker() -> int:
    """Runs this process as the worker a ``Client`` reads a PDF in (one
    request on standard input, the pages on standard output): the exit
    status. ``python -m webcanon._pdf_worker`` calls it."""

@final
class Snapshot:
    """The robots.txt outcome of many origins, as ``webcanon batch`` writes it."""

    @staticmethod
    def read_parquet(path: Union[str, os.PathLike[str]]) -> Snapshot:
        """Reads a snapshot Parquet file."""
    @staticmethod
    def from_arrow(data: Any) -> Snapshot:
        """A snapshot from a pyarrow Table or RecordBatch in the snapshot schema."""
    @staticmethod
    def from_bodies(bodies: dict[str, Union[str, bytes]], fetched_at: Optional[int] = None) -> Snapshot:
        """A snapshot of robots.txt bodies fetched with HTTP 200, keyed by origin."""
    def write_parquet(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the snapshot to a Parquet file, atomically."""
    def to_arrow(self) -> pyarrow.Table:
        """The snapshot as a pyarrow Table."""
    @property
    def origins(self) -> list[str]:
        """The origins, in the order they first appeared."""
    def get(self, origin: str) -> Optional[dict[str, Any]]:
        """One origin's entry as a dict, or ``None``."""
    def __len__(self) -> int: ...
    def __contains__(self, origin: str, /) -> bool: ...

_UrlInput = Union[pyarrow.Array, Sequence[Optional[str]]]

@final
class VerdictPass:
    """Decides URLs for one agent and mode from a snapshot."""

    def __new__(cls, snapshot: Snapshot, agent: str, mode: str = "respect") -> VerdictPass: ...
    @property
    def agent(self) -> str:
        """The agent's product token."""
    @property
    def mode(self) -> str:
        """The robots mode."""
    @staticmethod
    def schema() -> pyarrow.Schema:
        """The schema of ``decide``'s record batches."""
    def decide(self, urls: _UrlInput) -> pyarrow.RecordBatch:
        """The verdict rows of ``urls``, one per URL, in order."""
    def annotate(self, table: Union[pyarrow.Table, pyarrow.RecordBatch], column: str = "url") -> pyarrow.Table:
        """``table`` with the verdict columns appended."""
    def decide_one(self, url: str) -> dict[str, Any]:
        """The verdict of one URL as a dict."""

def verdicts(snapshot: Snapshot, urls: _UrlInput, agent: str, mode: str = "respect") -> pyarrow.RecordBatch:
    """``VerdictPass(snapshot, agent, mode).decide(urls)``."""

_Record = TypeVar("_Record", MapRecord, PageRecord)

@final
class Records(Generic[_Record]):
    """The records of ``Client.map`` or ``Client.crawl`` as they come. Dropping the iterator (or
    breaking out of the loop over it) stops the run."""

    def __iter__(self) -> Records[_Record]: ...
    def __next__(self) -> _Record:
        """The next record; waits for it with the GIL released, and raises the run's error."""

_Scope = Literal["origin", "domain", "prefix"]
# The values of the page options (``_PageOptions``), named once for the
# package's own wrappers.
_Render = Literal["on", "off", "auto"]
_Format = Literal["markdown", "text"]
_Links = Literal["inline", "references", "drop"]
_Images = Literal["keep", "drop"]
_Purpose = Literal["search", "ai-input", "ai-index", "ai-train", "ai-all", "all"]
_Comments = Literal["auto", "include", "exclude"]

class _PageOptions(TypedDict, total=False):
    """The options of one page that a ``fetch`` or a crawl sets over the client's: the
    keywords of ``Client.fetch``, ``Client.crawl`` and ``Client.crawl_pass``. Each defaults to
    ``None``, which keeps the client's."""

    render: Union[bool, _Render, None]
    format: Optional[_Format]
    links: Optional[_Links]
    images: Optional[_Images]
    max_bytes: Optional[int]
    alternatives: Optional[bool]
    purpose: Optional[_Purpose]
    comments: Optional[_Comments]

class _CrawlOptions(_PageOptions, total=False):
    """The keywords of ``Client.crawl`` and ``Client.crawl_pass``: the crawl's bounds and seeds
    (``webcanon crawl``'s options) and the page options. Defaults: ``scope="origin"``,
    ``concurrency=8``, ``probe_soft_404=True``, no depth, page, byte or per-host limit, and
    ``None`` for the rest."""

    scope: _Scope
    include: Sequence[str]
    exclude: Sequence[str]
    max_depth: Optional[int]
    max_pages: Optional[int]
    max_total_bytes: Optional[int]
    max_pages_per_host: Optional[int]
    concurrency: int
    seed: Sequence[Literal["start", "sitemap", "llms"]]
    probe_soft_404: bool
    seeds_file: Optional[Union[str, os.PathLike[str]]]

@disjoint_base
class Client:
    """The policy-correct fetch of ``webcanon fetch``; its methods return
    awaitables (asyncio futures: call them with a running event loop).
    ``webcanon.Client`` wraps them in coroutines."""

    def __new__(
        cls,
        agent: str = ...,
        *,
        user_agent: Optional[str] = None,
        mode: str = "respect",
        timeout: float = 20.0,
        cache: Optional[str] = None,
        cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
        allow_private: Sequence[str] = ...,
        resolve: Sequence[str] = ...,
        max_bytes: int = ...,
        alternatives: bool = True,
        min_interval: float = 0.0,
        max_crawl_delay: float = ...,
        auth_disallows: bool = False,
        format: Literal["markdown", "text"] = "markdown",
        links: Literal["inline", "references", "drop"] = "references",
        images: Literal["keep", "drop"] = "drop",
        proxy: Optional[str] = None,
        sign_key: Optional[Union[str, os.PathLike[str]]] = None,
        signature_agent: Optional[str] = None,
        signature_agent_form: Literal["dictionary", "legacy"] = "dictionary",
        render: Union[bool, Literal["on", "off", "auto"], None] = None,
        chromium: Optional[Union[str, os.PathLike[str]]] = None,
        refresh_robots: bool = False,
        purpose: Optional[Literal["search", "ai-input", "ai-index", "ai-train", "ai-all", "all"]] = None,
        comments: Literal["auto", "include", "exclude"] = "auto",
    ) -> Client:
        """``agent`` defaults to ``DEFAULT_AGENT``, ``max_bytes`` to 10 MiB, ``max_crawl_delay`` to 10 s;
        ``format``, ``links`` and ``images`` shape the content; ``proxy`` (``http://HOST:PORT``) sends
        every request through that HTTP proxy (``HTTP_PROXY`` is never read); ``sign_key`` (an Ed25519
        key file, ``webcanon keys generate``) with ``signature_agent`` (the URL whose key directory
        lists it) signs every request (Web Bot Auth), its ``Signature-Agent`` in
        ``signature_agent_form`` (``"dictionary"``, the current draft, or ``"legacy"``); ``render`` (``True``, ``"auto"``) renders HTML
        pages in headless Chromium (``chromium``: its path); ``refresh_robots=True`` reads again the
        robots.txt outcomes cached before the client started; ``purpose`` is the use declared for
        fetched content, read against the site's RSL license into ``rsl_*`` warnings; ``comments``
        (``"include"``, ``"exclude"``) says whether comments and a thread's replies are content."""
    @property
    def agent(self) -> str:
        """The agent's product token."""
    @property
    def mode(self) -> str:
        """The robots mode."""
    def fetch(self, url: str, **overrides: Unpack[_PageOptions]) -> Awaitable[dict[str, Any]]:
        """Fetches ``url`` the way the site owner asked; the result of ``webcanon fetch --json``
        (its ``metadata`` is a ``webcanon.Metadata``)."""
    def check(self, url: str) -> Awaitable[dict[str, Any]]:
        """The robots verdict for ``url`` without fetching the page."""
    def snapshot(self, urls: Sequence[str], concurrency: int = ...) -> Awaitable[Snapshot]:
        """The robots snapshot of the origins of ``urls``: the fetch pass of ``webcanon batch``."""
    def fetch_pass(
        self,
        urls: Union[str, os.PathLike[str]],
        snapshot_out: Union[str, os.PathLike[str]],
        *,
        column: str = ...,
        shard: Optional[tuple[int, int]] = ...,
        concurrency: int = ...,
        partition_bytes: int = ...,
    ) -> dict[str, Any]:
        """The fetch pass of ``webcanon batch --fetch-only`` over a file of URLs, in bounded memory, resumable."""
    def content_pass(
        self,
        urls: Union[str, os.PathLike[str]],
        output: Union[str, os.PathLike[str]],
        *,
        column: str = ...,
        shard: Optional[tuple[int, int]] = ...,
        concurrency: int = ...,
        snapshot: Union[str, os.PathLike[str], None] = ...,
    ) -> dict[str, Any]:
        """``webcanon batch --content`` over a file of URLs: one page record per URL in ``output``, resumable."""
    def map(
        self,
        url: str,
        *,
        scope: _Scope = "origin",
        include: Sequence[str] = ...,
        exclude: Sequence[str] = ...,
        sources: Sequence[Literal["sitemap", "llms_txt", "link"]] = ...,
        limit: Optional[int] = None,
        max_links: int = ...,
    ) -> Records[MapRecord]:
        """The URLs of the site of ``url`` with their robots verdicts (``webcanon map``), as they are decided."""
    def crawl(self, urls: Sequence[str], **options: Unpack[_CrawlOptions]) -> Records[PageRecord]:
        """Crawls from ``urls`` (``webcanon crawl``): page records as each page is done; the page
        options are those of ``fetch``."""
    def crawl_pass(
        self,
        urls: Sequence[str],
        output: Union[str, os.PathLike[str]],
        *,
        shard: Optional[tuple[int, int]] = None,
        state: Optional[Union[str, os.PathLike[str]]] = None,
        **options: Unpack[_CrawlOptions],
    ) -> dict[str, Any]:
        """``webcanon crawl -o output`` (``.jsonl`` or ``.parquet``) for the seeds in ``shard``, run to
        the end, resumable from its frontier ``state``; the summary."""

class WebcanonError(Exception):
    """The base class of webcanon's errors."""

    kind: str
    code: int
    url: Optional[str]
    error: dict[str, Any]

class InvalidUrlError(WebcanonError):
    """The URL is not an absolute http(s) URL."""

class PolicyRefused(WebcanonError):
    """robots.txt refused the fetch."""

    verdict: str
    recommendation: str
    robots_url: Optional[str]
    rule: Optional[dict[str, Any]]

class SsrfRefused(WebcanonError):
    """The SSRF guard refused the URL, a redirect target or an address."""

    reason: str

class FetchFailed(WebcanonError):
    """The fetch failed."""

    status: Optional[int]
    reason: Optional[str]
    price: Optional[dict[str, str]]

class PaymentRequired(FetchFailed):
    """The page answered 402 Payment Required (pay per crawl): ``price`` is what its ``crawler-price``
    header asks (``{"currency": "USD", "amount": "0.01"}``) or None; ``reason`` is
    ``"payment_required"``. Nothing was paid, and it is not retried."""

class SnapshotError(WebcanonError):
    """A robots snapshot or a URL column could not be read, written or used."""
