//! The crawl: breadth first from the seeds, every request through
//! [`Client::fetch_with`], one record per URL streamed to a sink, the
//! frontier's transaction after each page.
//!
//! A page and the Markdown copy of it that an llms.txt lists are one
//! document, requested once (DESIGN.md, "Crawl: a page and its llms.txt
//! copy are requested once"): before a page is requested its copy is
//! looked up, and the page is fetched through its copy (the copy's own
//! URL then recorded `duplicate`, without a request), unless the crawl
//! fetched the copy already as a page of its own (then the page is the
//! one recorded `duplicate`).

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::stream::{self, StreamExt};
use tokio::task::JoinSet;
use url::Url;
use webcanon_client::error::Error;
use webcanon_client::{
    Alternative, Client, ContentHash, FetchOptions, FetchResult, NotFetchedReason, PacingConfig, PageRecord, SkipReason,
};

use crate::frontier::{Batch, Frontier, FrontierError, Lease, NewUrl, UrlState};
use crate::limits::CrawlLimits;
use crate::links::links_of;
use crate::normalize::NormalizedUrl;
use crate::scope::{OutOfScope, ScopeConfig, SiteScope};
use crate::seeds::{Seed, SeedSources, seeds_of};
use crate::sink::RecordSink;
use crate::soft_404;

/// What a crawl does, besides the fetch options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlConfig {
    /// Which URLs it may reach.
    pub scope: ScopeConfig,
    /// Where it starts.
    pub seeds: SeedSources,
    /// When it stops.
    pub limits: CrawlLimits,
    /// How many hosts are fetched from at once (one request at a time per
    /// host).
    pub concurrency: usize,
    /// The pacing the client was built with: the crawl schedules a host
    /// again only once its interval has passed, so that its next request
    /// does not hold a concurrency slot while the client waits.
    pub pacing: PacingConfig,
    /// Whether each host is asked for a random path once, to learn its
    /// soft-404 page (see DESIGN.md, "Crawl: soft 404s").
    pub probe_soft_404: bool,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            scope: ScopeConfig::default(),
            seeds: SeedSources::default(),
            limits: CrawlLimits::default(),
            concurrency: 8,
            pacing: PacingConfig::default(),
            probe_soft_404: true,
        }
    }
}

/// A crawl that could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CrawlError {
    /// The frontier's file failed.
    #[error(transparent)]
    Frontier(#[from] FrontierError),
    /// The output could not be written.
    #[error("crawl output: {0}")]
    Output(#[from] std::io::Error),
    /// A start URL is not an http(s) URL.
    #[error("start URL {url}: {reason}")]
    StartUrl {
        /// The URL as given.
        url: String,
        /// Why it cannot start a crawl.
        reason: String,
    },
}

/// The totals of a crawl, resumed runs included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrawlSummary {
    /// Records written.
    pub records: u64,
    /// Pages requested.
    pub requested: u64,
    /// Records with content.
    pub fetched: u64,
    /// Body bytes received.
    pub bytes: u64,
    /// Records without content, by reason.
    pub not_fetched: BTreeMap<String, u64>,
}

/// Watches a crawl: called with each record as it is written.
pub trait CrawlObserver: Send {
    /// A record was written; `summary` is the totals so far.
    fn record(&mut self, record: &PageRecord, summary: &CrawlSummary);
}

impl CrawlObserver for () {
    fn record(&mut self, _: &PageRecord, _: &CrawlSummary) {}
}

/// One crawl: a client, its fetch options and the crawl's settings.
#[derive(Debug)]
pub struct Crawler {
    client: Client,
    options: FetchOptions,
    config: CrawlConfig,
}

/// What a fetch task hands back.
enum Done {
    /// The page was requested (or its request failed).
    Fetched(Box<Fetched>),
    /// An llms.txt lists a Markdown copy of the page, and nothing is
    /// requested yet: the frontier decides whether the page is.
    CopyListed(CopyListed),
}

/// A leased page whose llms.txt lists a Markdown copy of it.
struct CopyListed {
    lease: Lease,
    /// What the soft-404 probe found, when it was asked.
    probe: Option<Option<ContentHash>>,
    copy: NormalizedUrl,
}

/// A requested page.
struct Fetched {
    lease: Lease,
    probe: Option<Option<ContentHash>>,
    outcome: Result<FetchResult, Error>,
    crawl_delay: Option<f64>,
    /// The llms.txt copy the page was fetched through, if it has one.
    copy: Option<NormalizedUrl>,
}

const COUNT_RECORDS: &str = "records";
const COUNT_REQUESTED: &str = "requested";
const COUNT_FETCHED: &str = "fetched";
const COUNT_BYTES: &str = "bytes";
const SEEDED: &str = "seeded";
/// How many start sites have their seeds queued.
const SEEDED_SITES: &str = "seeded_sites";
/// The start sites read for seeds at once (at most the crawl's
/// concurrency): each holds the URLs its sitemaps list, at most
/// [`CrawlLimits::max_sitemap_urls`], until its turn to be queued, so
/// seeding holds at most this many sites' lists whatever the number of
/// sites.
const SEED_SITES_AT_ONCE: usize = 4;
/// The URLs turned into `limit` records per transaction once the crawl
/// stops.
const DRAIN_BATCH: usize = 1_000;

impl Crawler {
    /// A crawler fetching with `client` under `options`.
    pub fn new(client: Client, options: FetchOptions, config: CrawlConfig) -> Crawler {
        Crawler { client, options, config }
    }

    /// Crawls from `starts` (the same list when resuming), writing every
    /// record to `sink`. A frontier that holds a crawl already resumes it:
    /// the sink is cut back to its last finished page and the crawl goes
    /// on from there.
    pub async fn run(
        &self,
        starts: &[Url],
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
    ) -> Result<CrawlSummary, CrawlError> {
        sink.resume_at(frontier.output_bytes()?)?;
        let mut scope = SiteScope::new(self.config.scope.clone());
        let mut normalized = Vec::new();
        for start in starts {
            let url = NormalizedUrl::new(start)
                .map_err(|e| CrawlError::StartUrl { url: start.to_string(), reason: e.to_string() })?;
            scope.add_start(url.url());
            normalized.push(url);
        }
        let mut summary = load_summary(frontier)?;
        if frontier.counter(SEEDED)? == 0 {
            self.seed(&normalized, &scope, frontier, sink, observer, &mut summary).await?;
        }
        let concurrency = self.config.concurrency.max(1);
        let mut tasks: JoinSet<Done> = JoinSet::new();
        let mut stopping = false;
        loop {
            while !stopping && tasks.len() < concurrency {
                if self.over_budget(&summary, tasks.len() as u64) {
                    stopping = true;
                    break;
                }
                let Some(lease) = frontier.lease(now_ms())? else { break };
                if self.config.limits.max_pages_per_host.is_some_and(|max| lease.host_fetched >= max) {
                    let record = PageRecord::not_fetched(&lease.url, NotFetchedReason::Limit);
                    self.commit(frontier, sink, observer, &mut summary, vec![position(record, &lease)], |b| {
                        b.finish(&lease, 0, false).map(|()| Vec::new())
                    })?;
                    continue;
                }
                let probe = self.config.probe_soft_404 && frontier.probe_of(&lease.host)?.is_none();
                tasks.spawn(fetch(self.client.clone(), self.options, lease, probe));
            }
            if tasks.is_empty() {
                if stopping || !frontier.has_work()? {
                    break;
                }
                let wait = frontier.next_ready_at()?.map_or(100, |at| (at - now_ms()).clamp(1, 60_000));
                tokio::time::sleep(Duration::from_millis(wait as u64)).await;
                continue;
            }
            let ready_in = frontier.next_ready_at()?.map(|at| (at - now_ms()).max(1) as u64);
            let joined = match ready_in {
                Some(wait) if !stopping && tasks.len() < concurrency => {
                    tokio::select! {
                        joined = tasks.join_next() => joined,
                        _ = tokio::time::sleep(Duration::from_millis(wait)) => continue,
                    }
                }
                _ => tasks.join_next().await,
            };
            if let Some(joined) = joined {
                match joined.map_err(|e| std::io::Error::other(format!("a fetch task failed: {e}")))? {
                    Done::Fetched(fetched) => {
                        self.finish_page(*fetched, &scope, frontier, sink, observer, &mut summary)?;
                    }
                    Done::CopyListed(listed) => match frontier.state_of(&listed.copy)? {
                        UrlState::Taken => self.finish_as_copy(listed, frontier, sink, observer, &mut summary)?,
                        UrlState::New | UrlState::Queued { .. } => {
                            let CopyListed { lease, probe, copy } = listed;
                            let request = request(self.client.clone(), self.options, lease, probe, Some(copy));
                            tasks.spawn(async move { Done::Fetched(Box::new(request.await)) });
                        }
                    },
                }
            }
        }
        self.drain(frontier, sink, observer, &mut summary)?;
        Ok(summary)
    }

    /// Whether a page limit or the byte budget is reached, counting the
    /// requests in flight as pages.
    fn over_budget(&self, summary: &CrawlSummary, in_flight: u64) -> bool {
        let limits = &self.config.limits;
        limits.max_pages.is_some_and(|max| summary.requested + in_flight >= max)
            || limits.max_bytes.is_some_and(|max| summary.bytes >= max)
    }

    /// Puts the start URLs and the sites' sitemap and llms.txt URLs in the
    /// frontier, one transaction a site, in the order of the starts. A
    /// resumed crawl goes on from the first site not queued.
    async fn seed(
        &self,
        starts: &[NormalizedUrl],
        scope: &SiteScope,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
    ) -> Result<(), CrawlError> {
        let (sources, max_listed) = (self.config.seeds, self.config.limits.max_sitemap_urls);
        let queued = usize::try_from(frontier.counter(SEEDED_SITES)?).unwrap_or(usize::MAX);
        // Owned URLs: a stream over borrowed ones is not `Send` for every
        // lifetime, which a spawned crawl needs.
        let pending: Vec<Url> = starts.iter().skip(queued).map(|start| start.url().clone()).collect();
        let client = &self.client;
        let mut sites = stream::iter(pending)
            .map(|start| async move { seeds_of(client, &start, sources, max_listed).await })
            .buffered(SEED_SITES_AT_ONCE.min(self.config.concurrency.max(1)));
        while let Some(seeds) = sites.next().await {
            self.queue_seeds(seeds, scope, frontier, sink, observer, summary)?;
        }
        self.commit(frontier, sink, observer, summary, Vec::new(), |batch| {
            batch.add_to_counter(SEEDED, 1)?;
            Ok(Vec::new())
        })
    }

    /// Queues the seeds of one site, in one transaction.
    fn queue_seeds(
        &self,
        seeds: Vec<Seed>,
        scope: &SiteScope,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
    ) -> Result<(), CrawlError> {
        let mut records = Vec::new();
        let mut pushes = Vec::new();
        for Seed { url, depth, listed_in } in seeds {
            match NormalizedUrl::parse(&url) {
                Ok(normalized) => pushes.push((normalized, depth, listed_in)),
                Err(e) => records.push(invalid(&url, depth, listed_in, &e.to_string())),
            }
        }
        self.commit(frontier, sink, observer, summary, records, |batch| {
            let mut out = Vec::new();
            for (url, depth, parent) in &pushes {
                // A start URL is in scope by definition (its site is the scope).
                let verdict = if *depth == 0 { Ok(()) } else { scope.check(url.url(), *depth) };
                out.extend(admit(batch, url, *depth, parent.as_deref(), verdict)?);
            }
            batch.add_to_counter(SEEDED_SITES, 1)?;
            Ok(out)
        })
    }

    /// Records a page whose llms.txt copy the crawl fetched already as a
    /// page of its own: a `duplicate` naming the copy, without a request.
    fn finish_as_copy(
        &self,
        listed: CopyListed,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
    ) -> Result<(), CrawlError> {
        let CopyListed { lease, probe, copy } = listed;
        let mut record = PageRecord::not_fetched(&lease.url, NotFetchedReason::Duplicate);
        record.error =
            Some(format!("its Markdown copy {}, which llms.txt lists, was fetched as a page", copy.as_str()));
        let record = position(record, &lease);
        self.commit(frontier, sink, observer, summary, vec![record], |batch| {
            batch.finish(&lease, now_ms(), false)?;
            if let Some(hash) = probe {
                batch.set_probe(&lease.host, hash)?;
            }
            Ok(Vec::new())
        })
    }

    /// Records a fetched page (or its failure), and queues its links.
    fn finish_page(
        &self,
        fetched: Fetched,
        scope: &SiteScope,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
    ) -> Result<(), CrawlError> {
        let Fetched { lease, probe, outcome, crawl_delay, copy } = fetched;
        let ready_at = now_ms() + self.config.pacing.interval(crawl_delay).as_millis() as i64;
        let soft_404 = match probe {
            Some(hash) => hash,
            None => frontier.probe_of(&lease.host)?.flatten(),
        };
        let (record, links, copy_outcome) = match outcome {
            Ok(page) => {
                let links = links_of(&page);
                let copy_outcome = copy.and_then(|copy| copy_record(&page.alternatives, copy, &lease.url));
                (PageRecord::from_result(page), links, copy_outcome)
            }
            Err(error) => (PageRecord::from_error(&lease.url, &error), Vec::new(), None),
        };
        let bytes = record.bytes.unwrap_or(0);
        let mut record = position(record, &lease);
        let depth = lease.depth + 1;
        let url = lease.url.clone();
        self.commit(frontier, sink, observer, summary, Vec::new(), |batch| {
            batch.finish(&lease, ready_at, true)?;
            batch.add_to_counter(COUNT_REQUESTED, 1)?;
            batch.add_to_counter(COUNT_BYTES, bytes)?;
            if let Some(hash) = probe {
                batch.set_probe(&lease.host, hash)?;
            }
            let mut out = Vec::new();
            if let Some(hash) = record.content_hash {
                if soft_404 == Some(hash) {
                    soft_404::mark(&mut record);
                } else if let Some(earlier) = batch.content_seen(hash.0, &url)? {
                    mark_duplicate(&mut record, &earlier);
                }
            }
            if record.is_fetched() {
                for link in &links {
                    let normalized = match NormalizedUrl::new(&link.url) {
                        Ok(normalized) => normalized,
                        Err(e) => {
                            out.push(invalid(link.url.as_str(), depth, Some(url.clone()), &e.to_string()));
                            continue;
                        }
                    };
                    let verdict = scope.check(normalized.url(), depth);
                    if link.nofollow && verdict.is_ok() {
                        batch.note_nofollow(&NewUrl { url: &normalized, depth, parent: Some(&url) })?;
                        continue;
                    }
                    out.extend(admit(batch, &normalized, depth, Some(&url), verdict)?);
                }
            }
            if let Some((copy, copy_record)) = copy_outcome {
                out.extend(settle_copy(batch, &copy, copy_record, depth, &url)?);
            }
            out.insert(0, record);
            Ok(out)
        })
    }

    /// Once the crawl stops: every URL still queued gets a `limit` record,
    /// and every URL only ever linked with `nofollow` a `nofollow` one.
    fn drain(
        &self,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
    ) -> Result<(), CrawlError> {
        while frontier.has_work()? {
            self.commit(frontier, sink, observer, summary, Vec::new(), |batch| {
                let mut out = Vec::new();
                for _ in 0..DRAIN_BATCH {
                    let Some(lease) = batch.lease_any()? else { break };
                    out.push(position(PageRecord::not_fetched(&lease.url, NotFetchedReason::Limit), &lease));
                    batch.finish(&lease, 0, false)?;
                }
                Ok(out)
            })?;
        }
        let unfollowed: Vec<PageRecord> = frontier
            .nofollow_only()?
            .into_iter()
            .map(|(url, depth, parent)| {
                PageRecord::not_fetched(url, NotFetchedReason::Nofollow).with_crawl_position(depth, parent)
            })
            .collect();
        self.commit(frontier, sink, observer, summary, unfollowed, |batch| {
            batch.clear_nofollow()?;
            Ok(Vec::new())
        })
    }

    /// Writes `records` and those `work` returns, then commits `work`'s
    /// changes with the counters and the sink's new position, in one
    /// transaction.
    fn commit(
        &self,
        frontier: &mut Frontier,
        sink: &mut dyn RecordSink,
        observer: &mut dyn CrawlObserver,
        summary: &mut CrawlSummary,
        mut records: Vec<PageRecord>,
        work: impl FnOnce(&mut Batch<'_>) -> Result<Vec<PageRecord>, FrontierError>,
    ) -> Result<(), CrawlError> {
        // The records reach the output before the transaction commits: a
        // kill between the two leaves records past the committed position,
        // which a resume cuts off.
        let mut batch = frontier.begin()?;
        records.extend(work(&mut batch)?);
        for record in &records {
            sink.write(record)?;
            batch.add_to_counter(COUNT_RECORDS, 1)?;
            match record.not_fetched {
                None => batch.add_to_counter(COUNT_FETCHED, 1)?,
                Some(reason) => batch.add_to_counter(&reason_counter(reason), 1)?,
            }
        }
        batch.set_output_bytes(sink.commit()?)?;
        batch.commit()?;
        *summary = load_summary(frontier)?;
        for record in &records {
            observer.record(record, summary);
        }
        Ok(())
    }
}

/// Takes one leased URL: the host's soft-404 probe when asked, then the
/// Markdown copy an llms.txt lists for it (when the options look for
/// alternatives), handed back for the frontier to decide on; failing
/// that, the page itself.
async fn fetch(client: Client, options: FetchOptions, lease: Lease, probe: bool) -> Done {
    let probe = match probe {
        true => Some(soft_404::probe(&client, &options, &lease.url).await),
        false => None,
    };
    if options.alternatives
        && let Ok(page) = Url::parse(&lease.url)
        && let Some(copy) = client.llms_markdown_copy(&page).await
        && let Ok(copy) = NormalizedUrl::new(&copy)
    {
        return Done::CopyListed(CopyListed { lease, probe, copy });
    }
    Done::Fetched(Box::new(request(client, options, lease, probe, None).await))
}

/// Requests one leased URL (through `copy`, its llms.txt copy, when it
/// has one: the client tries it first), and reads the `Crawl-delay` its
/// robots.txt gives the agent.
async fn request(
    client: Client,
    options: FetchOptions,
    lease: Lease,
    probe: Option<Option<ContentHash>>,
    copy: Option<NormalizedUrl>,
) -> Fetched {
    let outcome = client.fetch_with(lease.url.as_str(), &options).await;
    let crawl_delay = match client.robots_txt(lease.url.as_str()).await {
        Ok(robots) => robots.rules_for(client.agent()).and_then(|rules| rules.crawl_delay()),
        Err(_) => None,
    };
    Fetched { lease, probe, outcome, crawl_delay, copy }
}

/// The record of `copy` once `page` was fetched through it: a `duplicate`
/// naming the page when its content is the page's, the failure when it
/// was requested and failed; `None` when it was not requested (robots.txt
/// or the SSRF guard refused it), so that it keeps its own turn.
fn copy_record(alternatives: &[Alternative], copy: NormalizedUrl, page: &str) -> Option<(NormalizedUrl, PageRecord)> {
    let tried = alternatives.iter().find(|a| NormalizedUrl::parse(&a.url).is_ok_and(|url| url.key() == copy.key()))?;
    let (reason, error) = match tried.skipped_reason {
        None => (NotFetchedReason::Duplicate, format!("fetched as the Markdown copy of {page}")),
        Some(SkipReason::Robots | SkipReason::Ssrf) => return None,
        Some(SkipReason::HttpStatus) => (NotFetchedReason::HttpStatus, describe(tried, page)),
        Some(SkipReason::NotMarkdown) => (NotFetchedReason::UnsupportedContent, describe(tried, page)),
        Some(_) => (NotFetchedReason::FetchFailed, describe(tried, page)),
    };
    let mut record = PageRecord::not_fetched(copy.as_str(), reason);
    record.error = Some(error);
    Some((copy, record))
}

fn describe(tried: &Alternative, page: &str) -> String {
    let detail = tried.detail.as_deref().unwrap_or("no detail");
    format!("requested as the Markdown copy of {page}: {detail}")
}

/// Takes `copy`, requested as the Markdown copy of `page`, out of the
/// crawl's way with its `record`: at its own place when it was queued,
/// one level below the page when it was new; nothing when it has a
/// record already.
fn settle_copy(
    batch: &mut Batch<'_>,
    copy: &NormalizedUrl,
    record: PageRecord,
    depth: u32,
    page: &str,
) -> Result<Option<PageRecord>, FrontierError> {
    Ok(match batch.settle(copy)? {
        UrlState::New => Some(record.with_crawl_position(depth, Some(page.to_string()))),
        UrlState::Queued { depth, parent } => Some(record.with_crawl_position(depth, parent)),
        UrlState::Taken => None,
    })
}

/// The record of a URL met at `depth` from `parent`: queued when new and
/// in scope (no record yet), recorded once as out of scope or over the
/// depth limit otherwise; nothing when it was seen before.
fn admit(
    batch: &mut Batch<'_>,
    url: &NormalizedUrl,
    depth: u32,
    parent: Option<&str>,
    verdict: Result<(), OutOfScope>,
) -> Result<Option<PageRecord>, FrontierError> {
    match verdict {
        Ok(()) => {
            batch.push(&NewUrl { url, depth, parent })?;
            Ok(None)
        }
        Err(reason) => {
            if !batch.see(url)? {
                return Ok(None);
            }
            let code = if matches!(reason, OutOfScope::TooDeep(_)) {
                NotFetchedReason::Limit
            } else {
                NotFetchedReason::OutOfScope
            };
            let mut record =
                PageRecord::not_fetched(url.as_str(), code).with_crawl_position(depth, parent.map(String::from));
            record.error = Some(reason.to_string());
            Ok(Some(record))
        }
    }
}

fn invalid(url: &str, depth: u32, parent: Option<String>, reason: &str) -> PageRecord {
    let mut record = PageRecord::not_fetched(url, NotFetchedReason::InvalidUrl).with_crawl_position(depth, parent);
    record.error = Some(reason.to_string());
    record
}

fn position(record: PageRecord, lease: &Lease) -> PageRecord {
    record.with_crawl_position(lease.depth, lease.parent.clone())
}

/// A fetched page whose text an earlier page had: kept as a record of
/// the URL, without the content.
fn mark_duplicate(record: &mut PageRecord, earlier: &str) {
    record.not_fetched = Some(NotFetchedReason::Duplicate);
    record.content = None;
    record.error = Some(format!("same text as {earlier}"));
}

fn reason_counter(reason: NotFetchedReason) -> String {
    format!("not_fetched:{}", reason.as_str())
}

fn load_summary(frontier: &Frontier) -> Result<CrawlSummary, FrontierError> {
    let mut not_fetched = BTreeMap::new();
    for reason in NotFetchedReason::ALL {
        let count = frontier.counter(&reason_counter(*reason))?;
        if count > 0 {
            not_fetched.insert(reason.as_str().to_string(), count);
        }
    }
    Ok(CrawlSummary {
        records: frontier.counter(COUNT_RECORDS)?,
        requested: frontier.counter(COUNT_REQUESTED)?,
        fetched: frontier.counter(COUNT_FETCHED)?,
        bytes: frontier.counter(COUNT_BYTES)?,
        not_fetched,
    })
}

/// Milliseconds since the Unix epoch: host readiness survives a resume.
fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
