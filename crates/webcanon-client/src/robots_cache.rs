//! The robots.txt cache: parsed files in memory over a [`RobotsStore`],
//! one fetch per origin at a time, failures kept briefly, and the last good
//! copy kept apart for when the site is unreachable.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use webcanon_core::policy::{RobotsAvailability, RobotsEvidence, RobotsMode, RuleEvidence};
use webcanon_core::robots::{AgentRules, ContentSignal, ContentUsageRule, Robots};

use crate::clock::Clock;
use crate::error::FetchError;
use crate::single_flight::KeyedLocks;
use crate::store::{FetchLock, OffWorker, RobotsRecord, RobotsStore, StoreError, StoreHealth};
use crate::warning::{Warning, WarningCode, WarningSource};

/// RFC 9309 §2.4: a cached robots.txt is not used for more than 24 hours.
pub const MAX_CACHE_SECONDS: u64 = 24 * 60 * 60;
/// How long the last good copy may stand in for an unreachable robots.txt.
pub const LAST_GOOD_MAX_AGE: u64 = 30 * 24 * 60 * 60;
/// The default time a fleet fetch lock is held at most.
pub const DEFAULT_FLEET_LOCK_TTL: Duration = Duration::from_secs(60);

/// The first and the longest pause between two looks at a shared store
/// while another process fetches robots.txt.
const FLEET_POLL_FIRST: Duration = Duration::from_millis(10);
const FLEET_POLL_MAX: Duration = Duration::from_millis(200);

/// How robots.txt outcomes are cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RobotsCacheConfig {
    /// How long a fetched robots.txt is used; at most 24 hours (the ceiling
    /// is enforced: a larger value is cut to 24 hours).
    pub max_cache_seconds: u64,
    /// The first retry delay after robots.txt was unreachable; doubled for
    /// each further failure.
    pub failure_backoff: Duration,
    /// The longest retry delay after repeated failures.
    pub failure_backoff_max: Duration,
    /// How old the last good copy may be and still be used.
    pub last_good_max_age: Duration,
    /// With a store shared by several processes: how long the fetch lock of
    /// an origin is held at most, so that a holder that crashed delays the
    /// others by this much, no more. It should cover a whole robots.txt
    /// fetch (the client makes it at least its request timeout times six:
    /// the first request and five redirects); a fetch that takes longer
    /// only lets a second process fetch too.
    pub fleet_lock_ttl: Duration,
    /// About how many bytes of parsed robots.txt files are kept in memory
    /// (bodies and rules, weighed roughly); the least recently used are
    /// dropped past it and read again from the store, so a long-lived
    /// service or a million-origin batch stays in bounded memory.
    pub memory_bytes: u64,
    /// Whether outcomes stored before this cache was made are read again:
    /// each origin's robots.txt is fetched the first time it is needed,
    /// then cached as usual (for someone who has just edited a robots.txt
    /// and would otherwise see the stored verdict for up to a day).
    pub refresh_stored: bool,
}

/// The default of [`RobotsCacheConfig::memory_bytes`]: 64 MiB.
pub const DEFAULT_MEMORY_BYTES: u64 = 64 << 20;

impl Default for RobotsCacheConfig {
    fn default() -> Self {
        RobotsCacheConfig {
            max_cache_seconds: MAX_CACHE_SECONDS,
            failure_backoff: Duration::from_secs(60),
            failure_backoff_max: Duration::from_secs(30 * 60),
            last_good_max_age: Duration::from_secs(LAST_GOOD_MAX_AGE),
            fleet_lock_ttl: DEFAULT_FLEET_LOCK_TTL,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            refresh_stored: false,
        }
    }
}

impl RobotsCacheConfig {
    /// The freshness of a successful outcome: the configured time, lowered
    /// by the server's `Cache-Control: max-age`, never above 24 hours.
    fn ttl(&self, server_max_age: Option<u64>) -> u64 {
        let ceiling = self.max_cache_seconds.min(MAX_CACHE_SECONDS);
        server_max_age.map_or(ceiling, |age| age.min(ceiling))
    }

    /// The freshness of the `failures`-th consecutive unreachable outcome.
    fn backoff(&self, failures: u32) -> u64 {
        let base = self.failure_backoff.as_secs().max(1);
        let factor = 1u64 << failures.saturating_sub(1).min(16);
        base.saturating_mul(factor).min(self.failure_backoff_max.as_secs().max(base))
    }
}

/// What one robots.txt fetch produced, before caching.
#[derive(Debug, Clone)]
pub struct FetchedRobots {
    /// The robots.txt URL asked for.
    pub robots_url: String,
    /// The final HTTP status, if an answer came.
    pub status: Option<u16>,
    /// How the fetch ended (`Parsed` is refined to `NotRobots` by the cache
    /// after looking at the body).
    pub availability: RobotsAvailability,
    /// The body, at most the parse limit.
    pub body: Option<Vec<u8>>,
    /// The server's `Cache-Control: max-age`, if any.
    pub max_age: Option<u64>,
    /// What went wrong, for unreachable outcomes.
    pub error: Option<String>,
    /// Redirects followed on the way, as (URL, status).
    pub redirects: Vec<(String, u16)>,
    /// Where the last request went, when it differs from `robots_url`.
    pub final_url: Option<String>,
    /// When this machine, not the site, failed the fetch (out of
    /// descriptors, buffers, ports): why. Such an outcome is neither stored
    /// nor kept, and callers report it as an error, never as the site's.
    pub local_failure: Option<String>,
}

/// A robots.txt outcome ready for decisions.
#[derive(Debug)]
pub struct CachedRobots {
    record: RobotsRecord,
    redirects: Vec<(String, u16)>,
    final_url: Option<String>,
    robots: Option<Robots>,
    /// When the rules come from the last good copy because the latest fetch
    /// failed: that copy's fetch time.
    stale_since: Option<u64>,
    /// The last good copy's body, when it stands in.
    last_good_body: Option<Vec<u8>>,
    compiled: Mutex<Compiled>,
    local_failure: Option<String>,
}

/// Files up to this size are parsed where they arrive (well under a
/// millisecond); larger ones on the blocking pool.
const PARSE_INLINE_BYTES: usize = 64 * 1024;

/// Compiled rules, shared by every agent that selects the same groups (all
/// agents no group names share the `*` rules), within a byte allowance.
#[derive(Debug, Default)]
struct Compiled {
    by_groups: HashMap<Vec<u32>, Arc<AgentRules>>,
    bytes: usize,
}

impl CachedRobots {
    /// What this may hold in memory, counted against the cache's budget when
    /// it is stored: the bodies, the parsed file as it stands, the allowance
    /// for compiled rules, and a fixed part.
    fn approx_bytes(&self) -> usize {
        let body = self.record.body.as_ref().map_or(0, Vec::len);
        let last_good = self.last_good_body.as_ref().map_or(0, Vec::len);
        let parsed = self.robots.as_ref().map_or(0, Robots::heap_bytes);
        body + last_good + parsed + self.compiled_allowance() + 512
    }

    /// The most compiled rules kept for this file: six times the body whose
    /// rules are in force (an index of a file's rules takes two to five
    /// times its text), and 16 KiB. Past it, rules are compiled for each
    /// decision and not kept, so no number of agent names can grow memory.
    fn compiled_allowance(&self) -> usize {
        6 * self.rules_body().map_or(0, <[u8]>::len) + (16 << 10)
    }

    fn new(record: RobotsRecord, last_good: Option<RobotsRecord>) -> CachedRobots {
        let (robots, stale_since, last_good_body) = match (&record.body, record.availability, last_good) {
            (Some(body), RobotsAvailability::Parsed, _) => (Some(Robots::parse(body)), None, None),
            (_, RobotsAvailability::Unreachable, Some(good)) => {
                (good.body.as_deref().map(Robots::parse), Some(good.fetched_at), good.body)
            }
            _ => (None, None, None),
        };
        CachedRobots {
            record,
            redirects: Vec::new(),
            final_url: None,
            robots,
            stale_since,
            last_good_body,
            compiled: Mutex::new(Compiled::default()),
            local_failure: None,
        }
    }

    /// [`CachedRobots::new`], with a large file parsed on the blocking pool
    /// so that the async workers keep answering other requests.
    async fn parsed(record: RobotsRecord, last_good: Option<RobotsRecord>) -> CachedRobots {
        let size = record.body.as_ref().map_or(0, Vec::len)
            + last_good.as_ref().and_then(|g| g.body.as_ref()).map_or(0, Vec::len);
        if size <= PARSE_INLINE_BYTES {
            return CachedRobots::new(record, last_good);
        }
        match tokio::task::spawn_blocking(move || CachedRobots::new(record, last_good)).await {
            Ok(cached) => cached,
            Err(err) => std::panic::resume_unwind(err.into_panic()),
        }
    }

    /// When this machine failed the fetch (see
    /// [`FetchedRobots::local_failure`]): the error to report instead of a
    /// verdict. The outcome says nothing about the site and is not kept.
    pub fn local_failure(&self) -> Option<FetchError> {
        let message = self.local_failure.as_ref()?;
        Some(FetchError::Local { url: self.record.robots_url.clone(), message: message.clone() })
    }

    /// When the rules in force come from the last good copy because the
    /// latest fetch failed: that copy's fetch time (unix seconds).
    pub fn stale_since(&self) -> Option<u64> {
        self.stale_since
    }

    /// The body whose rules are in force: the latest file when it parsed,
    /// the last good copy when that stands in for an unreachable file.
    pub fn rules_body(&self) -> Option<&[u8]> {
        if self.stale_since.is_some() {
            self.last_good_body.as_deref()
        } else if self.record.availability == RobotsAvailability::Parsed {
            self.record.body.as_deref()
        } else {
            None
        }
    }

    /// The latest outcome.
    pub fn record(&self) -> &RobotsRecord {
        &self.record
    }

    /// The redirects followed when this outcome was fetched, as (URL,
    /// status); empty when it came from a store.
    pub fn redirects(&self) -> &[(String, u16)] {
        &self.redirects
    }

    /// Where the fetch ended after redirects (the robots.txt URL itself when
    /// it did not redirect, or when the outcome came from a store).
    pub fn final_url(&self) -> &str {
        self.final_url.as_deref().unwrap_or(&self.record.robots_url)
    }

    /// The parsed rules in force: the latest file, or the last good copy.
    pub fn robots(&self) -> Option<&Robots> {
        self.robots.as_ref()
    }

    /// The compiled rules for `agent`, built once and shared with every
    /// agent that selects the same groups, while they fit this file's
    /// allowance.
    pub fn rules_for(&self, agent: &str) -> Option<Arc<AgentRules>> {
        let robots = self.robots.as_ref()?;
        let key = robots.group_selection(agent);
        let mut compiled = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(rules) = compiled.by_groups.get(&key) {
            return Some(rules.clone());
        }
        let rules = Arc::new(robots.rules_for(agent));
        let bytes = rules.heap_bytes() + key.len() * 4 + 64;
        if compiled.bytes + bytes <= self.compiled_allowance() {
            compiled.bytes += bytes;
            compiled.by_groups.insert(key, rules.clone());
        }
        Some(rules)
    }

    /// The bytes of compiled rules kept (at most the file's allowance).
    pub fn compiled_bytes(&self) -> usize {
        self.compiled.lock().unwrap_or_else(|p| p.into_inner()).bytes
    }

    /// Decides `url` for `agent` and says why, with the warnings the robots
    /// outcome carries. `from_cache` and `now` fill the evidence.
    pub fn evaluate(&self, agent: &str, url: &str, from_cache: bool, now: u64) -> (RobotsEvidence, Vec<Warning>) {
        let mut warnings = Vec::new();
        let availability =
            if self.stale_since.is_some() { RobotsAvailability::Parsed } else { self.record.availability };
        let rules = self.rules_for(agent);
        let (verdict, rule) = webcanon_core::policy::decide(availability, rules.as_deref(), url);
        let rule = rule.map(RuleEvidence::from);
        if let Some(since) = self.stale_since {
            warnings.push(Warning::new(
                WarningCode::StaleRobotsCache,
                WarningSource::RobotsTxt,
                format!(
                    "robots.txt is unreachable ({}); using the last good copy from {} seconds ago",
                    self.record.error.as_deref().unwrap_or("no answer"),
                    now.saturating_sub(since)
                ),
            ));
        }
        match self.record.availability {
            RobotsAvailability::NotRobots => warnings.push(Warning::new(
                WarningCode::RobotsParseError,
                WarningSource::RobotsTxt,
                "robots.txt answered with a body that is not a robots.txt (an HTML page or binary data)".into(),
            )),
            RobotsAvailability::Unavailable if matches!(self.record.status, Some(401 | 403)) => {
                warnings.push(Warning::new(
                    WarningCode::RobotsAccessDenied,
                    WarningSource::RobotsTxt,
                    format!(
                        "robots.txt answered {}; RFC 9309 reads that as no restrictions",
                        self.record.status.unwrap_or_default()
                    ),
                ))
            }
            RobotsAvailability::Unreachable if self.stale_since.is_none() => warnings.push(Warning::new(
                WarningCode::RobotsUnreachable,
                WarningSource::RobotsTxt,
                format!("robots.txt is unreachable: {}", self.record.error.as_deref().unwrap_or("no answer")),
            )),
            _ => {}
        }
        if let Some(rules) = &rules {
            // A preference scoped to a path (`Content-Usage: /news/ train-ai=n`)
            // applies only under that path.
            let path = url::Url::parse(url).map(|u| u.path().to_string()).unwrap_or_default();
            let applies = |s: &&ContentSignal| s.path.as_deref().is_none_or(|p| path.starts_with(p));
            for signal in rules.content_signals().iter().filter(applies).filter(|s| s.is_no()) {
                warnings.push(content_signal_warning(signal));
            }
            // `Content-Usage` (draft-ietf-aipref-attach-05 §3): the rules of
            // the longest matching path decide, their statements combined.
            if let Some(usage) = rules.content_usage(url) {
                warnings.extend(usage.rules.iter().flat_map(|rule| content_usage_rule_warnings(rule)));
            }
        }
        let age_source = if self.stale_since.is_some() { self.stale_since } else { Some(self.record.fetched_at) };
        let evidence = RobotsEvidence {
            verdict,
            recommendation: verdict.recommendation(),
            robots_url: Some(self.record.robots_url.clone()),
            status: self.record.status,
            availability: Some(self.record.availability),
            from_cache: from_cache || self.stale_since.is_some(),
            cache_age_seconds: if from_cache || self.stale_since.is_some() {
                age_source.map(|t| now.saturating_sub(t))
            } else {
                None
            },
            rule,
            error: (self.record.availability == RobotsAvailability::Unreachable)
                .then(|| self.record.error.clone())
                .flatten(),
        };
        (evidence, warnings)
    }
}

/// The warning of one robots.txt `Content-Usage` rule: the categories it
/// disallows, or that it is unreadable.
fn content_usage_rule_warnings(rule: &ContentUsageRule) -> Vec<Warning> {
    let scope = rule.path.as_deref().map(|p| format!(" for {p}")).unwrap_or_default();
    let line = rule.line;
    match &rule.statement {
        Ok(statement) => {
            let refused: Vec<String> = statement.disallowed().map(|c| format!("{c}=n")).collect();
            if refused.is_empty() {
                return Vec::new();
            }
            let detail = format!("robots.txt line {line}: Content-Usage {}{scope}", refused.join(", "));
            vec![Warning::new(WarningCode::ContentUsage, WarningSource::RobotsTxt, detail)]
        }
        Err(unreadable) => vec![Warning::new(
            WarningCode::ContentUsageUnreadable,
            WarningSource::RobotsTxt,
            format!("robots.txt line {line}: Content-Usage{scope}: {unreadable}; nothing is refused"),
        )],
    }
}

fn content_signal_warning(signal: &ContentSignal) -> Warning {
    let scope = signal.path.as_deref().map(|p| format!(" for {p}")).unwrap_or_default();
    Warning::new(
        WarningCode::ContentSignal,
        WarningSource::RobotsTxt,
        format!("robots.txt line {}: {} {}={}{scope}", signal.line, signal.record.name(), signal.key, signal.value),
    )
}

/// The cache itself. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct RobotsCache {
    config: RobotsCacheConfig,
    /// Called off the async workers when it can block.
    store: OffWorker,
    /// What "now" is for freshness and ages.
    clock: Clock,
    parsed: moka::sync::Cache<String, Arc<CachedRobots>>,
    inflight: KeyedLocks,
    stats: Arc<Mutex<CacheStats>>,
    /// With `refresh_stored`, the second the cache started: stored
    /// outcomes fetched in it or before are not used (the clock counts
    /// whole seconds, so one fetched in that second may be older).
    refreshed_from: Option<u64>,
}

/// Counters for metrics and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Answers served from memory or the store.
    pub hits: u64,
    /// Answers that needed a fetch.
    pub misses: u64,
    /// robots.txt fetches made.
    pub fetches: u64,
    /// Store operations that failed (the cache went on without the store),
    /// and, for a shared store, operations its server did not serve (the
    /// local layer did).
    pub store_errors: u64,
}

/// Where a fetch of robots.txt stands with the rest of the fleet.
enum Turn<'a> {
    /// Another process saved a fresh outcome meanwhile: use it.
    Stored(RobotsRecord),
    /// Fetch, holding the fleet lock (`None`: no lock, the store is not
    /// shared or not answering).
    Fetch(Option<FleetLock<'a>>),
}

/// A held fleet fetch lock. Released when dropped, so a fetch whose future
/// is dropped half way (a request timeout, a cancelled tool call) frees the
/// origin at once instead of making the fleet wait for the lock to expire.
struct FleetLock<'a> {
    cache: &'a RobotsCache,
    origin: &'a str,
    token: String,
}

impl Drop for FleetLock<'_> {
    /// Releases the lock without waiting for the store (a drop cannot
    /// wait); a failure is counted like any other store error.
    fn drop(&mut self) {
        let (origin, token) = (self.origin.to_string(), std::mem::take(&mut self.token));
        let stats = self.cache.stats.clone();
        self.cache.store.run_detached(move |store| {
            if let Err(err) = store.release_fetch_lock(&origin, &token) {
                stats.lock().unwrap_or_else(|p| p.into_inner()).store_errors += 1;
                tracing::warn!("{err}; the fleet lock expires on its own");
            }
        });
    }
}

impl RobotsCache {
    /// A cache over `store`, on the system clock.
    #[cfg(test)]
    pub fn new(store: Arc<dyn RobotsStore>, config: RobotsCacheConfig) -> RobotsCache {
        RobotsCache::with_clock(store, config, Clock::system())
    }

    /// A cache over `store` whose freshness is counted on `clock`.
    pub fn with_clock(store: Arc<dyn RobotsStore>, config: RobotsCacheConfig, clock: Clock) -> RobotsCache {
        let refreshed_from = config.refresh_stored.then(|| clock.now());
        RobotsCache {
            refreshed_from,
            config,
            clock,
            store: OffWorker::new(store),
            parsed: moka::sync::Cache::builder()
                .max_capacity(config.memory_bytes)
                .weigher(|origin: &String, cached: &Arc<CachedRobots>| {
                    u32::try_from(origin.len() + cached.approx_bytes()).unwrap_or(u32::MAX)
                })
                .build(),
            inflight: KeyedLocks::default(),
            stats: Arc::new(Mutex::new(CacheStats::default())),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        let mut stats = *self.stats.lock().unwrap_or_else(|p| p.into_inner());
        stats.store_errors += self.store.store().health().errors;
        stats
    }

    /// How the store is doing (a shared store that lost its server says so).
    pub fn store_health(&self) -> StoreHealth {
        self.store.store().health()
    }

    /// The `Crawl-delay` (seconds) that the robots.txt of `origin` held in
    /// memory gives `agent`, fresh or not; `None` when there is none or the
    /// file is not loaded.
    pub fn crawl_delay(&self, origin: &str, agent: &str) -> Option<f64> {
        let cached = self.parsed.get(origin)?;
        cached.rules_for(agent)?.crawl_delay()
    }

    fn count(&self, f: impl FnOnce(&mut CacheStats)) {
        f(&mut self.stats.lock().unwrap_or_else(|p| p.into_inner()));
    }

    fn store_result<T>(&self, result: Result<T, StoreError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(err) => {
                self.count(|s| s.store_errors += 1);
                tracing::warn!("{err}; continuing without the store");
                None
            }
        }
    }

    /// The latest outcome stored for `origin`; `None` also when the store fails.
    async fn stored(&self, origin: &str) -> Option<RobotsRecord> {
        let origin = origin.to_string();
        self.store_result(self.store.run(move |s| s.load(&origin)).await).flatten()
    }

    /// The last good copy stored for `origin`; `None` also when the store fails.
    async fn stored_last_good(&self, origin: &str) -> Option<RobotsRecord> {
        let origin = origin.to_string();
        self.store_result(self.store.run(move |s| s.load_last_good(&origin)).await).flatten()
    }

    /// Whether a stored outcome may be used at `now`: fresh, and not from
    /// before the cache started when stored outcomes are to be refreshed.
    fn usable(&self, record: &RobotsRecord, now: u64) -> bool {
        record.is_fresh(now) && self.refreshed_from.is_none_or(|start| record.fetched_at > start)
    }

    fn fresh_in_memory(&self, origin: &str, now: u64) -> Option<Arc<CachedRobots>> {
        self.parsed.get(origin).filter(|c| c.record.is_fresh(now))
    }

    /// The robots.txt outcome for `origin`, from memory, the store, or
    /// `fetch`, which is called at most once at a time per origin: callers
    /// that arrive while a fetch is under way wait for its result. Returns
    /// the outcome and whether it came from a cache.
    pub async fn get<F, Fut>(&self, origin: &str, fetch: F) -> (Arc<CachedRobots>, bool)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = FetchedRobots>,
    {
        let now = self.clock.now();
        if let Some(hit) = self.fresh_in_memory(origin, now) {
            self.count(|s| s.hits += 1);
            return (hit, true);
        }
        let _guard = self.inflight.lock(origin).await;
        let now = self.clock.now();
        if let Some(hit) = self.fresh_in_memory(origin, now) {
            self.count(|s| s.hits += 1);
            return (hit, true);
        }
        let mut previous = self.stored(origin).await;
        if let Some(record) = previous.as_ref().filter(|r| self.usable(r, now)) {
            return (self.use_stored(origin, record.clone(), now).await, true);
        }
        let lock = match self.fleet_turn(origin).await {
            Turn::Stored(record) => return (self.use_stored(origin, record, self.clock.now()).await, true),
            Turn::Fetch(lock) => {
                if lock.is_some() {
                    // The outcome the last holder left, for the failure count.
                    previous = self.stored(origin).await.or(previous);
                }
                lock
            }
        };
        self.count(|s| {
            s.misses += 1;
            s.fetches += 1;
        });
        let mut fetched = fetch().await;
        if let Some(message) = fetched.local_failure.take() {
            // Nothing about the site: not stored, not kept, not counted as
            // one of its failures.
            drop(lock);
            let record = RobotsRecord {
                origin: origin.to_string(),
                robots_url: fetched.robots_url.clone(),
                status: None,
                availability: RobotsAvailability::Unreachable,
                body: None,
                fetched_at: self.clock.now(),
                expires_at: 0,
                failures: 0,
                error: Some(message.clone()),
            };
            let mut cached = CachedRobots::new(record, None);
            cached.local_failure = Some(message);
            return (Arc::new(cached), false);
        }
        let redirects = std::mem::take(&mut fetched.redirects);
        let final_url = fetched.final_url.take();
        let record = self.record_from(origin, fetched, previous.as_ref(), self.clock.now());
        // The latest outcome last: it is what the processes waiting on the
        // lock look for, and its last good copy must be there by then.
        let saved = record.clone();
        self.store_result(
            self.store
                .run(move |s| {
                    let good = match saved.availability {
                        RobotsAvailability::Parsed => s.save_last_good(&saved),
                        _ => Ok(()),
                    };
                    good.and(s.save(&saved))
                })
                .await,
        );
        drop(lock);
        let last_good = self.last_good_for(&record, record.fetched_at).await;
        let mut cached = CachedRobots::parsed(record, last_good).await;
        cached.redirects = redirects;
        cached.final_url = final_url;
        let cached = Arc::new(cached);
        self.remember(origin, &cached);
        (cached, false)
    }

    /// An outcome found in the store, remembered and counted as a hit.
    async fn use_stored(&self, origin: &str, record: RobotsRecord, now: u64) -> Arc<CachedRobots> {
        let last_good = self.last_good_for(&record, now).await;
        let cached = Arc::new(CachedRobots::parsed(record, last_good).await);
        self.remember(origin, &cached);
        self.count(|s| s.hits += 1);
        cached
    }

    /// Takes the fleet fetch lock of `origin`, or waits for the process
    /// holding it to save its outcome. A holder that never saves (it
    /// crashed) loses the lock when it expires, and one of the waiters
    /// takes it. A store that is not shared, or not answering, answers at
    /// once: fetch without a lock.
    async fn fleet_turn<'a>(&'a self, origin: &'a str) -> Turn<'a> {
        let ttl = self.config.fleet_lock_ttl;
        // Past the lock time plus a margin something is wrong with the
        // store's clock or locks: fetch rather than wait for ever.
        let deadline = Instant::now() + ttl + ttl / 2 + Duration::from_secs(1);
        let mut pause = FLEET_POLL_FIRST;
        loop {
            let key = origin.to_string();
            match self.store_result(self.store.run(move |s| s.try_fetch_lock(&key, ttl)).await) {
                None | Some(FetchLock::Local) => return Turn::Fetch(None),
                Some(FetchLock::Acquired(token)) => {
                    let lock = FleetLock { cache: self, origin, token };
                    // The holder before may have saved its outcome just now.
                    let stored = self.stored(origin).await;
                    if let Some(record) = stored.filter(|r| self.usable(r, self.clock.now())) {
                        return Turn::Stored(record);
                    }
                    return Turn::Fetch(Some(lock));
                }
                Some(FetchLock::Busy) => {}
            }
            if Instant::now() >= deadline {
                return Turn::Fetch(None);
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(FLEET_POLL_MAX);
            let stored = self.stored(origin).await;
            if let Some(record) = stored.filter(|r| self.usable(r, self.clock.now())) {
                return Turn::Stored(record);
            }
        }
    }

    fn remember(&self, origin: &str, cached: &Arc<CachedRobots>) {
        self.parsed.insert(origin.to_string(), cached.clone());
    }

    async fn last_good_for(&self, record: &RobotsRecord, now: u64) -> Option<RobotsRecord> {
        if record.availability != RobotsAvailability::Unreachable {
            return None;
        }
        let good = self.stored_last_good(&record.origin).await?;
        (good.age(now) <= self.config.last_good_max_age.as_secs()).then_some(good)
    }

    fn record_from(
        &self,
        origin: &str,
        fetched: FetchedRobots,
        previous: Option<&RobotsRecord>,
        now: u64,
    ) -> RobotsRecord {
        let mut availability = fetched.availability;
        if availability == RobotsAvailability::Parsed
            && fetched.body.as_deref().is_some_and(|b| webcanon_core::robots::sniff(b).is_some())
        {
            availability = RobotsAvailability::NotRobots;
        }
        let (ttl, failures) = if availability == RobotsAvailability::Unreachable {
            let failures = previous
                .filter(|p| p.availability == RobotsAvailability::Unreachable)
                .map_or(1, |p| p.failures.saturating_add(1));
            (self.config.backoff(failures), failures)
        } else {
            (self.config.ttl(fetched.max_age), 0)
        };
        RobotsRecord {
            origin: origin.to_string(),
            robots_url: fetched.robots_url,
            fetched_at: now,
            expires_at: now.saturating_add(ttl),
            status: fetched.status,
            availability,
            body: fetched.body,
            failures,
            error: fetched.error,
        }
    }

    /// Decides `url` for `agent` under `mode`, loading robots.txt for
    /// `origin` through `fetch` when needed. Under [`RobotsMode::Ignore`]
    /// nothing is loaded. `Err` is this machine failing the fetch
    /// ([`CachedRobots::local_failure`]): no verdict can be given.
    pub async fn evaluate<F, Fut>(
        &self,
        origin: &str,
        agent: &str,
        url: &str,
        mode: RobotsMode,
        fetch: F,
    ) -> Result<(RobotsEvidence, Vec<Warning>), FetchError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = FetchedRobots>,
    {
        if mode == RobotsMode::Ignore {
            return Ok((RobotsEvidence::skipped(), Vec::new()));
        }
        let (cached, from_cache) = self.get(origin, fetch).await;
        if let Some(err) = cached.local_failure() {
            return Err(err);
        }
        Ok(cached.evaluate(agent, url, from_cache, self.clock.now()))
    }
}

#[cfg(test)]
mod tests {
    use webcanon_core::policy::Verdict;

    use super::*;
    use crate::store::MemoryStore;
    use crate::store::unix_now;

    fn fetched(status: u16, availability: RobotsAvailability, body: &str) -> FetchedRobots {
        FetchedRobots {
            robots_url: "https://example.com/robots.txt".into(),
            status: Some(status),
            availability,
            body: Some(body.as_bytes().to_vec()),
            max_age: None,
            error: None,
            redirects: Vec::new(),
            final_url: None,
            local_failure: None,
        }
    }

    fn cache(config: RobotsCacheConfig) -> RobotsCache {
        RobotsCache::new(Arc::new(MemoryStore::new()), config)
    }

    #[tokio::test]
    async fn memory_stays_within_its_budget_and_evicted_files_come_back_from_the_store() {
        let budget = 256 << 10;
        let cache = RobotsCache::new(
            Arc::new(MemoryStore::new()),
            RobotsCacheConfig { memory_bytes: budget, ..Default::default() },
        );
        let body = format!("User-agent: *\nDisallow: /private\n# {}\n", "x".repeat(2000));
        let origins: Vec<String> = (0..1000).map(|i| format!("https://site{i}.example")).collect();
        for origin in &origins {
            let (_, hit) = cache.get(origin, || async { fetched(200, RobotsAvailability::Parsed, &body) }).await;
            assert!(!hit, "{origin}");
        }
        cache.parsed.run_pending_tasks();
        let held = cache.parsed.weighted_size();
        assert!(held <= budget, "{held} bytes held, budget {budget}");
        assert!(cache.parsed.entry_count() < 1000, "some files were dropped from memory");
        // Every file is still answered without a fetch: from memory or the store.
        for origin in &origins {
            let (cached, hit) = cache.get(origin, || async { panic!("{origin} fetched again") }).await;
            assert!(hit);
            assert_eq!(cached.evaluate("bot", "/private/a", hit, unix_now()).0.verdict, Verdict::DisallowedExplicit);
        }
        assert_eq!(cache.stats().fetches, 1000);
    }

    #[tokio::test]
    async fn compiled_rules_stay_within_the_file_allowance_whatever_agents_ask() {
        // A 500 KiB file: one `*` group, and a group naming many agents.
        let mut body = String::from("User-agent: *\n");
        while body.len() < 250 << 10 {
            body.push_str(&format!("Disallow: /p{}/*x\n", body.len()));
        }
        body.push('\n');
        for i in 0..2000 {
            body.push_str(&format!("User-agent: Named{}\n", "n".repeat(i % 50)));
        }
        body.push_str("Disallow: /q/\n");
        while body.len() < 500 << 10 {
            body.push_str(&format!("Disallow: /q{}\n", body.len()));
        }
        let cache = cache(RobotsCacheConfig::default());
        let (cached, _) =
            cache.get("https://example.com", || async { fetched(200, RobotsAvailability::Parsed, &body) }).await;
        let allowance = cached.compiled_allowance();
        for i in 0..3000 {
            let agent = if i % 2 == 0 { format!("Agent{i}") } else { format!("Named{}", "n".repeat(i % 50)) };
            let url = if i % 2 == 0 { "/p14/a/x" } else { "/q/a" };
            let (evidence, _) = cached.evaluate(&agent, url, true, unix_now());
            assert_eq!(evidence.verdict, Verdict::DisallowedExplicit, "{agent}");
            assert!(
                cached.compiled_bytes() <= allowance,
                "{} bytes kept, allowance {allowance}",
                cached.compiled_bytes()
            );
        }
        // Agents that select the same groups share one compiled set: the `*`
        // rules and the named group's, at most.
        assert_eq!(cached.compiled.lock().unwrap().by_groups.len(), 2);
        assert!(cached.approx_bytes() >= allowance, "the allowance is counted in the cache's budget");
    }

    #[test]
    fn ttl_is_capped_at_24_hours() {
        let config = RobotsCacheConfig { max_cache_seconds: 7 * 24 * 3600, ..Default::default() };
        assert_eq!(config.ttl(None), MAX_CACHE_SECONDS);
        assert_eq!(config.ttl(Some(600)), 600);
        assert_eq!(config.ttl(Some(10 * 24 * 3600)), MAX_CACHE_SECONDS);
        let short = RobotsCacheConfig { max_cache_seconds: 30, ..Default::default() };
        assert_eq!(short.ttl(Some(600)), 30);
    }

    #[test]
    fn failure_backoff_doubles_up_to_the_maximum() {
        let config = RobotsCacheConfig::default();
        let delays: Vec<u64> = (1..=8).map(|n| config.backoff(n)).collect();
        assert_eq!(delays, [60, 120, 240, 480, 960, 1800, 1800, 1800]);
    }

    #[tokio::test]
    async fn one_fetch_serves_later_requests() {
        let cache = cache(RobotsCacheConfig::default());
        let body = "User-agent: *\nDisallow: /private\n";
        let (first, hit) =
            cache.get("https://example.com", || async { fetched(200, RobotsAvailability::Parsed, body) }).await;
        assert!(!hit);
        let (second, hit) = cache.get("https://example.com", || async { panic!("must not fetch again") }).await;
        assert!(hit);
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(cache.stats().fetches, 1);
        let (evidence, _) = second.evaluate("bot", "https://example.com/private/x", true, unix_now());
        assert_eq!(evidence.verdict, Verdict::DisallowedExplicit);
        assert_eq!(evidence.rule.unwrap().line, 2);
        assert!(evidence.from_cache);
    }

    #[tokio::test]
    async fn html_body_is_a_parse_error() {
        let cache = cache(RobotsCacheConfig::default());
        let (cached, _) = cache
            .get("https://example.com", || async {
                fetched(200, RobotsAvailability::Parsed, "<!doctype html><html><body>Not here</body></html>")
            })
            .await;
        let (evidence, warnings) = cached.evaluate("bot", "/", false, unix_now());
        assert_eq!(evidence.verdict, Verdict::UnknownParseError);
        assert_eq!(warnings[0].code, WarningCode::RobotsParseError);
    }

    #[tokio::test]
    async fn unreachable_uses_the_last_good_copy_with_a_warning() {
        let store = Arc::new(MemoryStore::new());
        let now = unix_now();
        let good = RobotsRecord {
            origin: "https://example.com".into(),
            robots_url: "https://example.com/robots.txt".into(),
            fetched_at: now - 3 * 24 * 3600,
            expires_at: now - 2 * 24 * 3600,
            status: Some(200),
            availability: RobotsAvailability::Parsed,
            body: Some(b"User-agent: *\nDisallow: /old-rule\n".to_vec()),
            failures: 0,
            error: None,
        };
        store.save(&good).unwrap();
        store.save_last_good(&good).unwrap();
        let cache = RobotsCache::new(store, RobotsCacheConfig::default());
        let (cached, hit) = cache
            .get("https://example.com", || async {
                FetchedRobots {
                    robots_url: "https://example.com/robots.txt".into(),
                    status: Some(503),
                    availability: RobotsAvailability::Unreachable,
                    body: None,
                    max_age: None,
                    error: Some("HTTP 503".into()),
                    redirects: Vec::new(),
                    final_url: None,
                    local_failure: None,
                }
            })
            .await;
        assert!(!hit);
        let (evidence, warnings) = cached.evaluate("bot", "/old-rule/x", false, unix_now());
        assert_eq!(evidence.verdict, Verdict::DisallowedExplicit);
        assert!(evidence.from_cache);
        assert!(evidence.cache_age_seconds.unwrap() >= 3 * 24 * 3600);
        assert_eq!(warnings[0].code, WarningCode::StaleRobotsCache);
        let (evidence, _) = cached.evaluate("bot", "/fine", false, unix_now());
        assert_eq!(evidence.verdict, Verdict::AllowedImplicit);
    }

    #[tokio::test]
    async fn a_last_good_copy_older_than_30_days_is_not_used() {
        let store = Arc::new(MemoryStore::new());
        let now = unix_now();
        let good = RobotsRecord {
            origin: "https://example.com".into(),
            robots_url: "https://example.com/robots.txt".into(),
            fetched_at: now - 31 * 24 * 3600,
            expires_at: now - 30 * 24 * 3600,
            status: Some(200),
            availability: RobotsAvailability::Parsed,
            body: Some(b"User-agent: *\nDisallow: /\n".to_vec()),
            failures: 0,
            error: None,
        };
        store.save_last_good(&good).unwrap();
        let cache = RobotsCache::new(store, RobotsCacheConfig::default());
        let (cached, _) = cache
            .get("https://example.com", || async {
                FetchedRobots {
                    robots_url: "https://example.com/robots.txt".into(),
                    status: None,
                    availability: RobotsAvailability::Unreachable,
                    body: None,
                    max_age: None,
                    error: Some("connection refused".into()),
                    redirects: Vec::new(),
                    final_url: None,
                    local_failure: None,
                }
            })
            .await;
        let (evidence, warnings) = cached.evaluate("bot", "/x", false, unix_now());
        assert_eq!(evidence.verdict, Verdict::UnknownUnreachable);
        assert_eq!(warnings[0].code, WarningCode::RobotsUnreachable);
    }

    #[tokio::test]
    async fn concurrent_requests_share_one_fetch() {
        let cache = Arc::new(cache(RobotsCacheConfig::default()));
        let calls = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let cache = cache.clone();
            let calls = calls.clone();
            tasks.push(tokio::spawn(async move {
                cache
                    .get("https://example.com", || async move {
                        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        fetched(200, RobotsAvailability::Parsed, "User-agent: *\nDisallow: /\n")
                    })
                    .await
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn content_usage_scoped_to_a_path_applies_only_there() {
        let cache = cache(RobotsCacheConfig::default());
        let body = "User-agent: *\nAllow: /\nContent-Usage: /news/ train-ai=n\nContent-Signal: search=yes\n";
        let (cached, _) =
            cache.get("https://example.com", || async { fetched(200, RobotsAvailability::Parsed, body) }).await;
        let (_, warnings) = cached.evaluate("bot", "https://example.com/news/today", false, unix_now());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].detail.contains("Content-Usage train-ai=n for /news/"), "{}", warnings[0].detail);
        let (_, warnings) = cached.evaluate("bot", "https://example.com/blog/today", false, unix_now());
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[tokio::test]
    async fn failures_are_cached_with_backoff() {
        let cache = cache(RobotsCacheConfig::default());
        let unreachable = || async {
            FetchedRobots {
                robots_url: "https://example.com/robots.txt".into(),
                status: Some(500),
                availability: RobotsAvailability::Unreachable,
                body: None,
                max_age: None,
                error: Some("HTTP 500".into()),
                redirects: Vec::new(),
                final_url: None,
                local_failure: None,
            }
        };
        let (cached, _) = cache.get("https://example.com", unreachable).await;
        let record = cached.record();
        assert_eq!(record.failures, 1);
        assert_eq!(record.expires_at - record.fetched_at, 60);
        let (_, hit) = cache.get("https://example.com", || async { panic!("still backing off") }).await;
        assert!(hit);
    }
}
