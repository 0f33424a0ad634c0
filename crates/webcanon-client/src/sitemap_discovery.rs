//! Sitemap discovery: a site's URLs from its sitemaps, fetched the way the
//! site owner asked.
//!
//! [`Client::discover_sitemaps`] starts from the `Sitemap:` lines of the
//! origin's robots.txt and the conventional `/sitemap.xml`, follows sitemap
//! indexes, and hands every finding to a callback as a [`DiscoveryEvent`]
//! while it goes. [`Client::read_sitemaps`] does the same from sitemap URLs
//! the caller already knows.
//!
//! Every sitemap is fetched through [`Client::get`]: the SSRF guard vets it,
//! robots.txt of its own origin admits it (under
//! [`RobotsMode::Respect`](webcanon_core::policy::RobotsMode::Respect) a
//! disallowed sitemap is skipped and never requested), redirects are
//! followed by the client's own loop. Bodies are read up to one byte past
//! [`sitemap::MAX_BYTES`], so the parser's own size limit reports an
//! oversized file; gzip works both as `Content-Encoding` and as a `.xml.gz`
//! file (recognised by its magic bytes).
//!
//! Fetches are sequential, one sitemap at a time, and each body is parsed
//! on the blocking pool once it has arrived. Indexes are followed depth
//! first, in the order they list their children; no sitemap is requested
//! twice in a run. A run's work is bounded by the bytes it parses after
//! decompression ([`DiscoveryConfig::max_bytes`], 256 MiB by default), not
//! only by the number of sitemaps: a small gzip body can inflate to 50 MB. A sitemap grants no permission: the URLs found
//! are reported, not fetched, and robots.txt still decides each of them.
//!
//! ```no_run
//! # async fn demo() -> Result<(), webcanon_client::error::Error> {
//! use std::ops::ControlFlow;
//!
//! use webcanon_client::Client;
//! use webcanon_client::sitemap_discovery::{DiscoveryConfig, DiscoveryEvent};
//!
//! let client = Client::builder().agent("MyBot").build().expect("default settings build");
//! let config = DiscoveryConfig::default().max_urls(100);
//! let summary = client
//!     .discover_sitemaps("https://example.com/", &config, |event| {
//!         if let DiscoveryEvent::UrlFound(found) = event {
//!             println!("{}", found.url);
//!         }
//!         ControlFlow::Continue(())
//!     })
//!     .await?;
//! eprintln!("{} URLs from {} sitemaps", summary.urls, summary.sitemaps_read);
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::fmt;
use std::ops::ControlFlow;

use url::Url;
use webcanon_core::policy::PolicyError;
use webcanon_core::sitemap::{self, DateTime, Diagnostic, SitemapKind};

use crate::client::{Client, RawResponse};
use crate::error::Error;
use crate::robots_fetch::robots_url;
use crate::ssrf::SsrfError;

/// How many levels of sitemaps below the roots are fetched by default.
pub const DEFAULT_MAX_DEPTH: usize = 3;
/// How many sitemaps are requested in one run by default.
pub const DEFAULT_MAX_SITEMAPS: usize = 1_000;
/// How many bytes of sitemap text (after decompression) one run parses by
/// default: a few seconds of CPU at most, whatever the files hold.
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;

/// The `Accept` header of sitemap requests.
const ACCEPT: &str = "application/xml, text/xml;q=0.9, text/plain;q=0.5, */*;q=0.1";
/// One byte past the parser's limit, so that it reports an oversized file.
const BODY_LIMIT: usize = sitemap::MAX_BYTES + 1;

/// The limits of one discovery run.
///
/// ```
/// use webcanon_client::sitemap_discovery::DiscoveryConfig;
///
/// let config = DiscoveryConfig::default().max_depth(1).max_sitemaps(50).max_urls(10_000);
/// assert_eq!(config.max_urls, Some(10_000));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoveryConfig {
    /// How many levels below the roots are fetched: the roots are at depth
    /// 0, what they list at depth 1, and so on. A sitemap deeper than this
    /// is skipped with [`SitemapSkipReason::DepthLimit`]. 0 reads the roots only.
    pub max_depth: usize,
    /// How many sitemaps are requested in the run; the rest are skipped
    /// with [`SitemapSkipReason::CountLimit`].
    pub max_sitemaps: usize,
    /// How many URLs are reported; the run ends once this many were found
    /// ([`DiscoveryEnd::UrlLimit`]). `None`: no limit.
    pub max_urls: Option<usize>,
    /// How many bytes of sitemap text (after decompression) are parsed in
    /// the run: the work a run may cost, however small the compressed
    /// files. Once reached, the remaining sitemaps are skipped with
    /// [`SitemapSkipReason::ByteLimit`].
    pub max_bytes: usize,
}

impl Default for DiscoveryConfig {
    fn default() -> Self {
        DiscoveryConfig {
            max_depth: DEFAULT_MAX_DEPTH,
            max_sitemaps: DEFAULT_MAX_SITEMAPS,
            max_urls: None,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl DiscoveryConfig {
    /// Sets [`DiscoveryConfig::max_depth`].
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Sets [`DiscoveryConfig::max_sitemaps`].
    pub fn max_sitemaps(mut self, count: usize) -> Self {
        self.max_sitemaps = count;
        self
    }

    /// Sets [`DiscoveryConfig::max_urls`].
    pub fn max_urls(mut self, limit: usize) -> Self {
        self.max_urls = Some(limit);
        self
    }

    /// Sets [`DiscoveryConfig::max_bytes`].
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }
}

/// Where a sitemap URL came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SitemapOrigin {
    /// A `Sitemap:` line of the site's robots.txt.
    RobotsTxt,
    /// The conventional location, `/sitemap.xml` at the site's origin.
    DefaultLocation,
    /// Given by the caller of [`Client::read_sitemaps`].
    Caller,
    /// Listed by a sitemap index.
    Index {
        /// The index's URL.
        parent: String,
    },
}

/// A sitemap the run met: its URL, depth and origin.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SitemapRef {
    /// The URL, normalised (host lower-cased, default port and fragment
    /// dropped) when it parses; as written otherwise.
    pub url: String,
    /// 0 for the roots, 1 for what they list, and so on.
    pub depth: usize,
    /// Where it came from.
    pub origin: SitemapOrigin,
}

impl SitemapRef {
    fn new(url: String, depth: usize, origin: SitemapOrigin) -> SitemapRef {
        let url = normalise(&url).unwrap_or(url);
        SitemapRef { url, depth, origin }
    }
}

/// A page URL listed by a sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FoundUrl {
    /// The URL, as the sitemap wrote it.
    pub url: String,
    /// Its `lastmod` (RSS `pubDate`, Atom `updated`), when valid.
    pub lastmod: Option<DateTime>,
    /// The URL of the sitemap that listed it.
    pub sitemap: String,
}

/// A sitemap that answered and was parsed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SitemapRead {
    /// The sitemap.
    pub sitemap: SitemapRef,
    /// Where it ended after redirects.
    pub final_url: String,
    /// What the body turned out to be.
    pub kind: SitemapKind,
    /// Entries kept: page URLs, or child sitemaps for an index.
    pub entries: usize,
    /// Entries dropped past [`sitemap::MAX_ENTRIES`].
    pub dropped: usize,
    /// The parser's findings, in the order met.
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a sitemap was not read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SitemapSkipReason {
    /// robots.txt refuses it (or a redirect hop); it was not requested.
    Robots(Box<PolicyError>),
    /// The SSRF guard refuses it (or a redirect hop, or its address).
    Ssrf(SsrfError),
    /// It answered with this non-2xx status.
    HttpStatus(u16),
    /// The default location answered 404 or 410 (this status) and
    /// robots.txt names no sitemap: the site has none to find. When
    /// robots.txt names sitemaps, a missing `/sitemap.xml` is not reported.
    NotFound(u16),
    /// The request failed: timeout, connection, protocol, redirects.
    FetchError(String),
    /// The URL is not an absolute http(s) URL.
    InvalidUrl(String),
    /// Already requested in this run: listed twice, or listing one of its
    /// ancestors. Reported once per URL.
    Cycle,
    /// Deeper than [`DiscoveryConfig::max_depth`].
    DepthLimit,
    /// Past [`DiscoveryConfig::max_sitemaps`].
    CountLimit,
    /// Past [`DiscoveryConfig::max_bytes`] of sitemap text parsed.
    ByteLimit,
}

impl SitemapSkipReason {
    /// A stable snake_case code: `robots`, `ssrf`, `http_status`,
    /// `not_found`, `fetch_error`, `invalid_url`, `cycle`, `depth_limit`,
    /// `count_limit`, `byte_limit`.
    pub fn code(&self) -> &'static str {
        match self {
            SitemapSkipReason::Robots(_) => "robots",
            SitemapSkipReason::Ssrf(_) => "ssrf",
            SitemapSkipReason::HttpStatus(_) => "http_status",
            SitemapSkipReason::NotFound(_) => "not_found",
            SitemapSkipReason::FetchError(_) => "fetch_error",
            SitemapSkipReason::InvalidUrl(_) => "invalid_url",
            SitemapSkipReason::Cycle => "cycle",
            SitemapSkipReason::DepthLimit => "depth_limit",
            SitemapSkipReason::CountLimit => "count_limit",
            SitemapSkipReason::ByteLimit => "byte_limit",
        }
    }

    fn from_error(err: Error) -> SitemapSkipReason {
        match err {
            Error::Policy(policy) => SitemapSkipReason::Robots(policy),
            Error::Ssrf(ssrf) => SitemapSkipReason::Ssrf(ssrf),
            Error::Fetch(fetch) => SitemapSkipReason::FetchError(fetch.to_string()),
            Error::InvalidUrl { reason, .. } => SitemapSkipReason::InvalidUrl(reason),
        }
    }
}

impl fmt::Display for SitemapSkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SitemapSkipReason::Robots(policy) => write!(f, "{policy}"),
            SitemapSkipReason::Ssrf(ssrf) => write!(f, "{ssrf}"),
            SitemapSkipReason::HttpStatus(status) => write!(f, "answered HTTP {status}"),
            SitemapSkipReason::NotFound(status) => {
                write!(f, "no sitemap found: robots.txt names none and the default location answered HTTP {status}")
            }
            SitemapSkipReason::FetchError(message) => f.write_str(message),
            SitemapSkipReason::InvalidUrl(reason) => write!(f, "not a valid sitemap URL: {reason}"),
            SitemapSkipReason::Cycle => {
                f.write_str("already requested in this run (listed twice, or listing an ancestor)")
            }
            SitemapSkipReason::DepthLimit => f.write_str("deeper than the depth limit"),
            SitemapSkipReason::CountLimit => f.write_str("past the limit on sitemaps per run"),
            SitemapSkipReason::ByteLimit => f.write_str("past the limit on sitemap bytes parsed per run"),
        }
    }
}

/// A sitemap that was not read, and why.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkippedSitemap {
    /// The sitemap.
    pub sitemap: SitemapRef,
    /// Why it was not read.
    pub reason: SitemapSkipReason,
}

/// What a discovery run reports, in order, while it goes.
///
/// A sitemap that is requested is announced by [`SitemapStarted`] and ends
/// with one [`SitemapFinished`] or [`SitemapSkipped`]; sitemaps refused
/// before any request (cycle, limits, invalid URL) get only the
/// [`SitemapSkipped`]. A sitemap's URLs come between its start and its
/// finish, after its body has been parsed; an index's children come after
/// its finish. One exception: `/sitemap.xml`, probed beside sitemaps that
/// robots.txt names, is announced only once it has answered, and a 404 or
/// 410 there is not reported at all.
///
/// [`SitemapStarted`]: DiscoveryEvent::SitemapStarted
/// [`SitemapFinished`]: DiscoveryEvent::SitemapFinished
/// [`SitemapSkipped`]: DiscoveryEvent::SitemapSkipped
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DiscoveryEvent {
    /// A sitemap is being fetched.
    SitemapStarted(SitemapRef),
    /// A page URL listed by the sitemap being read.
    UrlFound(FoundUrl),
    /// A sitemap was read: its kind, entry count and diagnostics.
    SitemapFinished(SitemapRead),
    /// A sitemap was not read.
    SitemapSkipped(SkippedSitemap),
}

/// How a discovery run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiscoveryEnd {
    /// Every sitemap found was read or skipped.
    #[default]
    Complete,
    /// [`DiscoveryConfig::max_urls`] URLs were found; the rest was not read.
    UrlLimit,
    /// The callback returned [`ControlFlow::Break`].
    Stopped,
}

/// The totals of a discovery run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoverySummary {
    /// Sitemaps requested: answered with any status, or failed in transit.
    /// Those refused by robots.txt or the SSRF guard are not counted.
    pub sitemaps_fetched: usize,
    /// Sitemaps that answered 2xx and were parsed.
    pub sitemaps_read: usize,
    /// Page URLs reported.
    pub urls: usize,
    /// Sitemaps skipped (each reported by a [`DiscoveryEvent::SitemapSkipped`]).
    pub skipped: usize,
    /// Parser diagnostics over all sitemaps read.
    pub diagnostics: usize,
    /// Bytes of sitemap text parsed, after decompression.
    pub bytes_parsed: usize,
    /// How the run ended.
    pub end: DiscoveryEnd,
}

impl Client {
    /// Finds a site's sitemaps and reports what they list.
    ///
    /// The roots are the `Sitemap:` lines of the robots.txt of `site`'s
    /// origin (read in every robots mode; relative values resolved against
    /// robots.txt) and `/sitemap.xml` at that origin, without duplicates.
    /// Indexes are followed within `config`'s limits. Each finding goes to
    /// `on_event` as it happens; returning [`ControlFlow::Break`] ends the
    /// run.
    ///
    /// Fails only when `site` is not an http(s) URL or the SSRF guard
    /// refuses it; everything that goes wrong with a sitemap is reported as
    /// an event and the run goes on.
    pub async fn discover_sitemaps<F>(
        &self,
        site: &str,
        config: &DiscoveryConfig,
        on_event: F,
    ) -> Result<DiscoverySummary, Error>
    where
        F: FnMut(DiscoveryEvent) -> ControlFlow<()>,
    {
        let (roots, robots_named_sitemaps) = self.sitemap_roots(site).await?;
        let walk = Walk::new(self, config, on_event, robots_named_sitemaps);
        Ok(walk.run(roots).await)
    }

    /// Reads the sitemaps at `urls` (and what their indexes list) like
    /// [`Client::discover_sitemaps`], without looking at robots.txt for
    /// more. Invalid URLs are reported as skipped.
    pub async fn read_sitemaps<I, F>(&self, urls: I, config: &DiscoveryConfig, on_event: F) -> DiscoverySummary
    where
        I: IntoIterator,
        I::Item: Into<String>,
        F: FnMut(DiscoveryEvent) -> ControlFlow<()>,
    {
        let roots = dedup(urls.into_iter().map(|url| SitemapRef::new(url.into(), 0, SitemapOrigin::Caller)));
        Walk::new(self, config, on_event, false).run(roots).await
    }

    /// The roots of `site` and whether robots.txt named any sitemap.
    async fn sitemap_roots(&self, site: &str) -> Result<(Vec<SitemapRef>, bool), Error> {
        let robots = self.robots_txt(site).await?;
        let site_url = Url::parse(site).map_err(|e| Error::InvalidUrl { url: site.into(), reason: e.to_string() })?;
        let robots_at = robots_url(&site_url);
        let named: Vec<SitemapRef> = robots
            .robots()
            .into_iter()
            .flat_map(|rules| rules.sitemaps())
            .map(|value| {
                let url = robots_at.join(value.trim()).map_or_else(|_| value.to_string(), String::from);
                SitemapRef::new(url, 0, SitemapOrigin::RobotsTxt)
            })
            .collect();
        let robots_named_sitemaps = !named.is_empty();
        let mut default_location = robots_at;
        default_location.set_path("/sitemap.xml");
        let probe = SitemapRef::new(default_location.into(), 0, SitemapOrigin::DefaultLocation);
        Ok((dedup(named.into_iter().chain([probe])), robots_named_sitemaps))
    }
}

/// `url` parsed and printed again, fragment dropped; `None` if it is not an
/// absolute http(s) URL with a host.
fn normalise(url: &str) -> Option<String> {
    let mut parsed = Url::parse(url).ok()?;
    if !crate::web_url::is_web_url(&parsed) {
        return None;
    }
    parsed.set_fragment(None);
    Some(parsed.into())
}

/// The sitemaps in order, each URL once.
fn dedup(sitemaps: impl IntoIterator<Item = SitemapRef>) -> Vec<SitemapRef> {
    let mut seen = HashSet::new();
    sitemaps.into_iter().filter(|s| seen.insert(s.url.clone())).collect()
}

/// One run: the sitemaps still to read, those already requested, totals.
struct Walk<'c, F> {
    client: &'c Client,
    config: &'c DiscoveryConfig,
    on_event: F,
    /// When robots.txt named sitemaps, a missing `/sitemap.xml` is no news.
    robots_named_sitemaps: bool,
    /// Normalised URLs requested (or refused) so far, final URLs included.
    visited: HashSet<String>,
    /// URLs already reported as [`SitemapSkipReason::Cycle`].
    cycles_reported: HashSet<String>,
    /// Sitemaps still to read; the next one is last.
    pending: Vec<SitemapRef>,
    summary: DiscoverySummary,
}

impl<'c, F> Walk<'c, F>
where
    F: FnMut(DiscoveryEvent) -> ControlFlow<()>,
{
    fn new(client: &'c Client, config: &'c DiscoveryConfig, on_event: F, robots_named_sitemaps: bool) -> Self {
        Walk {
            client,
            config,
            on_event,
            robots_named_sitemaps,
            visited: HashSet::new(),
            cycles_reported: HashSet::new(),
            pending: Vec::new(),
            summary: DiscoverySummary::default(),
        }
    }

    async fn run(mut self, roots: Vec<SitemapRef>) -> DiscoverySummary {
        self.pending = roots.into_iter().rev().collect();
        while let Some(sitemap) = self.pending.pop() {
            if self.visit(sitemap).await.is_break() {
                break;
            }
        }
        self.summary
    }

    /// Reads one sitemap, or says why not.
    async fn visit(&mut self, sitemap: SitemapRef) -> ControlFlow<()> {
        match self.gate(&sitemap) {
            Gate::Open => {}
            Gate::Skip(reason) => return self.skip(sitemap, reason),
            Gate::AlreadyReported => return ControlFlow::Continue(()),
        }
        self.visited.insert(sitemap.url.clone());
        // A missing /sitemap.xml beside sitemaps named by robots.txt is not
        // reported at all, so it is announced only once it turns out to exist.
        let quiet_if_missing = sitemap.origin == SitemapOrigin::DefaultLocation && self.robots_named_sitemaps;
        if !quiet_if_missing {
            self.emit(DiscoveryEvent::SitemapStarted(sitemap.clone()))?;
        }
        let outcome = self.fetch(&sitemap.url).await;
        if quiet_if_missing {
            if matches!(&outcome, Ok(response) if is_missing(response.status)) {
                return ControlFlow::Continue(());
            }
            self.emit(DiscoveryEvent::SitemapStarted(sitemap.clone()))?;
        }
        match outcome.and_then(|response| self.successful(&sitemap, response)) {
            Ok(response) => self.read(sitemap, response).await,
            Err(reason) => self.skip(sitemap, reason),
        }
    }

    /// Whether `sitemap` may be requested, checked before any I/O.
    fn gate(&mut self, sitemap: &SitemapRef) -> Gate {
        if normalise(&sitemap.url).is_none() {
            return Gate::Skip(SitemapSkipReason::InvalidUrl("not an absolute http(s) URL".into()));
        }
        if self.visited.contains(&sitemap.url) {
            let first_report = self.cycles_reported.insert(sitemap.url.clone());
            return if first_report { Gate::Skip(SitemapSkipReason::Cycle) } else { Gate::AlreadyReported };
        }
        if sitemap.depth > self.config.max_depth {
            return Gate::Skip(SitemapSkipReason::DepthLimit);
        }
        if self.summary.sitemaps_fetched >= self.config.max_sitemaps {
            return Gate::Skip(SitemapSkipReason::CountLimit);
        }
        if self.summary.bytes_parsed >= self.config.max_bytes {
            return Gate::Skip(SitemapSkipReason::ByteLimit);
        }
        Gate::Open
    }

    /// One guarded GET, counted when a request went out.
    async fn fetch(&mut self, url: &str) -> Result<RawResponse, SitemapSkipReason> {
        let result = self.client.get(url, ACCEPT, BODY_LIMIT).await;
        if !matches!(result, Err(Error::Policy(_) | Error::Ssrf(_) | Error::InvalidUrl { .. })) {
            self.summary.sitemaps_fetched += 1;
        }
        let response = result.map_err(SitemapSkipReason::from_error)?;
        if let Some(final_url) = normalise(&response.final_url) {
            self.visited.insert(final_url);
        }
        Ok(response)
    }

    /// The response if it is a 2xx; the reason to skip it otherwise.
    fn successful(&self, sitemap: &SitemapRef, response: RawResponse) -> Result<RawResponse, SitemapSkipReason> {
        if response.is_success() {
            Ok(response)
        } else if sitemap.origin == SitemapOrigin::DefaultLocation && is_missing(response.status) {
            Err(SitemapSkipReason::NotFound(response.status))
        } else {
            Err(SitemapSkipReason::HttpStatus(response.status))
        }
    }

    /// Parses a body on the blocking pool (up to 50 MB of text: CPU work
    /// the async workers must not carry): an index's children are queued,
    /// other entries are reported as URLs; then the sitemap is reported as
    /// read.
    async fn read(&mut self, sitemap: SitemapRef, response: RawResponse) -> ControlFlow<()> {
        let body = response.body;
        let parsing = tokio::task::spawn_blocking(move || {
            let mut entries = Vec::new();
            let parsed = sitemap::parse_with(&body, |entry| entries.push((entry.loc, entry.lastmod)));
            (entries, parsed)
        });
        let (entries, parsed) = match parsing.await {
            Ok(done) => done,
            Err(err) => std::panic::resume_unwind(err.into_panic()),
        };
        self.summary.sitemaps_read += 1;
        self.summary.diagnostics += parsed.diagnostics.len();
        self.summary.bytes_parsed += parsed.bytes;
        let mut url_limit_reached = false;
        if parsed.kind.is_index() {
            self.queue_children(&sitemap, entries.into_iter().map(|(loc, _)| loc));
        } else {
            url_limit_reached = self.report_urls(&sitemap.url, entries)?;
        }
        self.emit(DiscoveryEvent::SitemapFinished(SitemapRead {
            final_url: response.final_url,
            kind: parsed.kind,
            entries: parsed.entries,
            dropped: parsed.dropped,
            diagnostics: parsed.diagnostics,
            sitemap,
        }))?;
        if url_limit_reached {
            self.summary.end = DiscoveryEnd::UrlLimit;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Queues an index's children so that the first listed is read next.
    fn queue_children(&mut self, parent: &SitemapRef, children: impl DoubleEndedIterator<Item = String>) {
        let depth = parent.depth + 1;
        let origin = SitemapOrigin::Index { parent: parent.url.clone() };
        self.pending.extend(children.rev().map(|url| SitemapRef::new(url, depth, origin.clone())));
    }

    /// Reports page URLs up to the URL limit; `Continue(true)` when the
    /// limit was reached.
    fn report_urls(&mut self, sitemap: &str, entries: Vec<(String, Option<DateTime>)>) -> ControlFlow<(), bool> {
        for (url, lastmod) in entries {
            if self.config.max_urls.is_some_and(|limit| self.summary.urls >= limit) {
                return ControlFlow::Continue(true);
            }
            self.summary.urls += 1;
            self.emit(DiscoveryEvent::UrlFound(FoundUrl { url, lastmod, sitemap: sitemap.to_string() }))?;
        }
        ControlFlow::Continue(self.config.max_urls.is_some_and(|limit| self.summary.urls >= limit))
    }

    fn skip(&mut self, sitemap: SitemapRef, reason: SitemapSkipReason) -> ControlFlow<()> {
        self.summary.skipped += 1;
        self.emit(DiscoveryEvent::SitemapSkipped(SkippedSitemap { sitemap, reason }))
    }

    /// Hands an event to the caller and notes a request to stop.
    fn emit(&mut self, event: DiscoveryEvent) -> ControlFlow<()> {
        let flow = (self.on_event)(event);
        if flow.is_break() {
            self.summary.end = DiscoveryEnd::Stopped;
        }
        flow
    }
}

/// What [`Walk::gate`] decided for one sitemap.
enum Gate {
    /// Request it.
    Open,
    /// Report it as skipped.
    Skip(SitemapSkipReason),
    /// Requested before and already reported as a cycle: say nothing.
    AlreadyReported,
}

/// 404 and 410: the resource is not there.
fn is_missing(status: u16) -> bool {
    matches!(status, 404 | 410)
}
