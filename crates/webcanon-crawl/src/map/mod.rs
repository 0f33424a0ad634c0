//! `webcanon map`: the URLs of a site an agent may fetch, without
//! fetching them.
//!
//! The URLs come from three sources: the site's sitemaps (robots.txt
//! `Sitemap:` lines and `/sitemap.xml`, indexes and gzip followed by the
//! client's [sitemap discovery](webcanon_client::sitemap_discovery)), its
//! llms.txt, and the links of the start page (bounded by
//! [`MapConfig::max_links`]). Each is normalised as a crawl's seen set
//! does ([`NormalizedUrl`]), kept to the [`ScopeConfig`] a crawl would
//! use, reported once ([`MapRecord::sources`] lists every source that
//! gave it), and decided against its origin's robots.txt for the client's
//! agent, with the rule that matched.
//!
//! Memory stays bounded whatever the sitemaps list: records go to the
//! caller as they are decided; the seen set holds 8 bytes a URL reported
//! (at most [`MapConfig::max_urls`]); the small sources are bounded; the
//! sitemap reader holds one sitemap (at most 50,000 URLs) at a time, and is
//! held back while 10,000 of its URLs wait to be decided.

mod backlog;
mod found;
mod record;
mod stream;
mod verdicts;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use url::Url;
use webcanon_client::Client;
use webcanon_client::error::Error;
use webcanon_client::sitemap_discovery::{DiscoveryConfig, DiscoveryEvent, FoundUrl};
use webcanon_core::llms::LlmsTxt;

pub use record::{MapRecord, MapSource, MapSummary, Sources};
pub use stream::map_stream;

use crate::scope::ScopeError;
use crate::{NormalizedUrl, ScopeConfig, SiteScope, links_of};
use found::{Found, Taken};
use verdicts::Verdicts;

/// The depth every mapped URL is checked at: one step from the start URL,
/// wherever it was found (sitemap, llms.txt, link), so `include` patterns
/// apply to it as they do to a crawl's links (only a start URL itself is
/// exempt from them).
const FOUND_DEPTH: u32 = 1;

/// The default most URLs a map reports.
pub const DEFAULT_MAX_URLS: usize = 1_000_000;
/// The default most links of the start page read.
pub const DEFAULT_MAX_LINKS: usize = 1_000;
/// The most links of an llms.txt read.
pub const MAX_LLMS_LINKS: usize = 10_000;
/// The most links of the start page a service's request (the HTTP API,
/// MCP) may have a map read.
pub const MAX_REQUEST_LINKS: usize = 10_000;

/// Which sources a map reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapSources {
    /// The site's sitemaps.
    pub sitemaps: bool,
    /// The site's llms.txt.
    pub llms_txt: bool,
    /// The start page's links.
    pub links: bool,
}

impl Default for MapSources {
    fn default() -> Self {
        MapSources { sitemaps: true, llms_txt: true, links: true }
    }
}

/// What a map reads and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapConfig {
    /// The URLs kept (shared with `crawl`; depth is not used: every URL of
    /// a map is at depth 0, a link of the start page at 1).
    pub scope: ScopeConfig,
    /// The sources read.
    pub sources: MapSources,
    /// The most URLs reported; the run stops there.
    pub max_urls: usize,
    /// The most links of the start page read.
    pub max_links: usize,
    /// The limits of the sitemap reading (depth of indexes, sitemaps,
    /// bytes parsed).
    pub sitemaps: DiscoveryConfig,
}

impl Default for MapConfig {
    fn default() -> Self {
        MapConfig {
            scope: ScopeConfig::default(),
            sources: MapSources::default(),
            max_urls: DEFAULT_MAX_URLS,
            max_links: DEFAULT_MAX_LINKS,
            sitemaps: DiscoveryConfig::default(),
        }
    }
}

/// Why a map could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// The start URL is not a web URL, or its site is refused (the SSRF
    /// guard), or this machine could not read its robots.txt.
    #[error(transparent)]
    Client(#[from] Error),
    /// The scope cannot work (a pattern that matches nothing).
    #[error(transparent)]
    Scope(#[from] ScopeError),
}

/// Maps the site of `start`: each URL found goes to `report` as it is
/// decided (returning [`ControlFlow::Break`] ends the run); the totals
/// come back at the end.
///
/// Fails only before anything is reported: when `start` is refused or its
/// robots.txt cannot be read here, or the scope is invalid. Every source
/// that cannot be read (no sitemap, no llms.txt, a start page refused by
/// robots.txt) just gives no URLs, and the summary says so.
pub async fn map_site<F>(
    client: &Client,
    start: &Url,
    config: &MapConfig,
    mut report: F,
) -> Result<MapSummary, MapError>
where
    F: FnMut(MapRecord) -> ControlFlow<()>,
{
    config.scope.validate()?;
    let robots = client.robots_txt(start.as_str()).await?;
    let start_url = NormalizedUrl::new(start).map(|n| n.url().clone()).unwrap_or_else(|_| start.clone());
    let mut scope = SiteScope::new(config.scope.clone());
    scope.add_start(&start_url);
    let mut run = Run {
        client,
        scope,
        verdicts: Verdicts::new(client),
        found: Found::default(),
        summary: MapSummary::default(),
        max_urls: config.max_urls as u64,
    };
    run.verdicts.hold(start, robots);
    if config.sources.llms_txt {
        run.hold_llms_txt(start).await;
    }
    if config.sources.links {
        run.hold_links(start, config.max_links).await;
    }
    let mut ended = ControlFlow::Continue(());
    if config.sources.sitemaps {
        ended = run.read_sitemaps(start, &config.sitemaps, &mut report).await;
    }
    if ended.is_continue() {
        for (url, sources) in run.found.unreported() {
            if run.report(&url, sources, None, &mut report).await.is_break() {
                break;
            }
        }
    }
    Ok(run.summary)
}

/// One map run's state.
struct Run<'c> {
    client: &'c Client,
    scope: SiteScope,
    verdicts: Verdicts<'c>,
    found: Found,
    summary: MapSummary,
    max_urls: u64,
}

impl Run<'_> {
    /// `text` normalised and in scope at `depth`, or counted as invalid or
    /// out of scope.
    fn admit(&mut self, text: &str, base: Option<&Url>, depth: u32) -> Option<NormalizedUrl> {
        let parsed = match base {
            Some(base) => base.join(text.trim()),
            None => Url::parse(text.trim()),
        };
        let Some(url) = parsed.ok().and_then(|url| NormalizedUrl::new(&url).ok()) else {
            self.summary.invalid += 1;
            return None;
        };
        if self.scope.check(url.url(), depth).is_err() {
            self.summary.out_of_scope += 1;
            return None;
        }
        Some(url)
    }

    fn hold(&mut self, url: NormalizedUrl, source: MapSource) {
        if !self.found.hold(url, source) {
            self.summary.duplicates += 1;
        }
    }

    /// The links of the site's llms.txt, held.
    async fn hold_llms_txt(&mut self, start: &Url) {
        let Ok(answer) = self.client.llms_txt(start.as_str()).await else { return };
        if answer.status != 200 {
            return;
        }
        let file = LlmsTxt::parse(&answer.body);
        if file.not_llms.is_some() {
            return;
        }
        self.summary.llms_txt = true;
        let base = Url::parse(&answer.final_url).ok();
        let links = file.intro_links.iter().chain(file.sections.iter().flat_map(|s| &s.links));
        for link in links.take(MAX_LLMS_LINKS) {
            if let Some(url) = self.admit(&link.url, base.as_ref(), FOUND_DEPTH) {
                self.hold(url, MapSource::LlmsTxt);
            }
        }
    }

    /// The links of the start page (fetched through the client's policy
    /// path), held; those the page or the link asks not to follow left out.
    async fn hold_links(&mut self, start: &Url, max_links: usize) {
        let Ok(page) = self.client.fetch_with(start.as_str(), self.client.fetch_options()).await else { return };
        let links: Vec<_> = links_of(&page).into_iter().filter(|link| !link.nofollow).take(max_links).collect();
        self.summary.links_read = links.len();
        for link in links {
            if let Some(url) = self.admit(link.url.as_str(), None, FOUND_DEPTH) {
                self.hold(url, MapSource::Link);
            }
        }
    }

    /// Reads the sitemaps and reports their URLs as they come. The reader
    /// hands over each sitemap's URLs once it is parsed; they are decided
    /// while it fetches the next one, and it fetches none while the
    /// hand-over is full ([`backlog`]).
    async fn read_sitemaps<F>(&mut self, start: &Url, config: &DiscoveryConfig, report: &mut F) -> ControlFlow<()>
    where
        F: FnMut(MapRecord) -> ControlFlow<()>,
    {
        let (sender, receiver) = backlog::handoff::<FoundUrl>();
        let gate = sender.gate();
        let stop = Arc::new(AtomicBool::new(false));
        let reader_stop = stop.clone();
        let client = self.client;
        let reader = gate.hold_back(async move {
            let summary = client
                .discover_sitemaps(start.as_str(), config, move |event| {
                    if let DiscoveryEvent::UrlFound(found) = event
                        && sender.send(found).is_err()
                    {
                        return ControlFlow::Break(());
                    }
                    if reader_stop.load(Ordering::Relaxed) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
                })
                .await;
            summary.map_or((0, 0), |s| (s.sitemaps_read, s.skipped))
        });
        let client_start = start.clone();
        let decider = async {
            // Owned here, so that a decider that stops drops its end and the
            // reader, held back or not, runs on to see it.
            let mut receiver = receiver;
            while let Some(found) = receiver.recv().await {
                let Some(url) = self.admit(&found.url, Some(&client_start), FOUND_DEPTH) else { continue };
                let sources = match self.found.take(&url, MapSource::Sitemap) {
                    Taken::Duplicate => {
                        self.summary.duplicates += 1;
                        continue;
                    }
                    Taken::New(sources) => sources,
                };
                if sources != Sources::of(MapSource::Sitemap) {
                    self.summary.duplicates += 1;
                }
                let lastmod = found.lastmod.map(|d| d.to_string());
                if self.report(&url, sources, lastmod, report).await.is_break() {
                    stop.store(true, Ordering::Relaxed);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        };
        let ((read, skipped), ended) = tokio::join!(reader, decider);
        self.summary.sitemaps_read = read;
        self.summary.sitemaps_skipped = skipped;
        ended
    }

    /// Decides `url` and reports it; breaks at `max_urls` or when the
    /// caller does.
    async fn report<F>(
        &mut self,
        url: &NormalizedUrl,
        sources: Sources,
        lastmod: Option<String>,
        report: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(MapRecord) -> ControlFlow<()>,
    {
        if self.summary.urls >= self.max_urls {
            self.summary.stopped = true;
            return ControlFlow::Break(());
        }
        let Some(robots) = self.verdicts.decide(url.url()).await else {
            self.summary.undecided += 1;
            return ControlFlow::Continue(());
        };
        let allowed = !self.client.mode().blocks(robots.verdict);
        self.summary.urls += 1;
        self.summary.allowed += u64::from(allowed);
        let record = MapRecord {
            url: url.as_str().to_string(),
            allowed,
            verdict: robots.verdict,
            recommendation: robots.recommendation,
            rule: robots.rule,
            lastmod,
            sources: sources.to_vec(),
        };
        if report(record).is_break() {
            self.summary.stopped = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}
