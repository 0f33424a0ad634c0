//! RSL license documents (Really Simple Licensing 1.0) as the client reads
//! them: bounded in size, parsed once, cached like llms.txt (in memory over
//! the robots store, keyed `rsl <url>`; fresh for the robots.txt cache
//! time, failures for minutes).
//!
//! A document is requested like an llms.txt: through the SSRF guard and
//! only when robots.txt clearly permits it (`Client::fetch_strict`); its
//! terms become usage warnings and never block a fetch.

use std::future::Future;
use std::sync::Arc;

use url::Url;
use webcanon_core::policy::RobotsAvailability;
use webcanon_core::rsl::{self, RslDocument};

use crate::clock::Clock;
use crate::single_flight::KeyedLocks;
use crate::store::{OffWorker, RobotsRecord, RobotsStore};

/// Bytes read of an RSL document: one past the parser's limit, so that a
/// longer document is seen to be one and refused as too large.
pub(crate) const RSL_MAX_BYTES: usize = (1 << 20) + 1;

/// The `Accept` header of RSL requests.
pub(crate) const RSL_ACCEPT: &str = "application/rsl+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1";

/// How long a failure is kept before the document is asked for again.
const FAILURE_TTL: u64 = 5 * 60;

/// The memory budget of parsed documents: 8 MiB, least recently used
/// dropped first (and read again from the store).
const RSL_MEMORY_BYTES: u64 = 8 << 20;

/// How one RSL load ended.
#[derive(Debug, Clone)]
pub(crate) enum RslFetched {
    /// A 2xx answer with this body (at most [`RSL_MAX_BYTES`]).
    Found(Vec<u8>),
    /// No document: a 4xx answer, or a location robots.txt or the SSRF
    /// guard refuses.
    Absent(String),
    /// The server did not answer usefully (timeout, 5xx): retried sooner.
    Failed(String),
}

/// An RSL location and what is there.
#[derive(Debug)]
pub(crate) struct LoadedRsl {
    /// Where it was looked for.
    pub url: Url,
    /// The document, or why there is none to read.
    pub document: Result<RslDocument, String>,
    expires_at: u64,
    body_bytes: usize,
}

impl LoadedRsl {
    fn from_record(url: Url, record: &RobotsRecord) -> LoadedRsl {
        let document = match (&record.body, record.availability) {
            (Some(body), RobotsAvailability::Parsed) => rsl::parse(body).map_err(|e| e.to_string()),
            _ => Err(record.error.clone().unwrap_or_else(|| "no document".into())),
        };
        let body_bytes = record.body.as_ref().map_or(0, Vec::len);
        LoadedRsl { url, document, expires_at: record.expires_at, body_bytes }
    }

    /// Roughly what this holds in memory: the parsed entries keep their
    /// strings (about the body again, twice to be safe) and a fixed part.
    fn approx_bytes(&self) -> u32 {
        u32::try_from(2 * self.body_bytes + self.url.as_str().len() + 256).unwrap_or(u32::MAX)
    }
}

/// Loaded RSL documents, in memory over the client's store, one load per
/// URL at a time.
#[derive(Debug)]
pub(crate) struct RslCache {
    store: OffWorker,
    clock: Clock,
    ttl: u64,
    loaded: moka::sync::Cache<String, Arc<LoadedRsl>>,
    inflight: KeyedLocks,
}

impl RslCache {
    pub(crate) fn new(store: Arc<dyn RobotsStore>, ttl: u64, clock: Clock) -> RslCache {
        let loaded = moka::sync::Cache::builder()
            .max_capacity(RSL_MEMORY_BYTES)
            .weigher(|key: &String, loaded: &Arc<LoadedRsl>| {
                loaded.approx_bytes().saturating_add(u32::try_from(key.len()).unwrap_or(u32::MAX))
            })
            .build();
        RslCache { store: OffWorker::new(store), clock, ttl, loaded, inflight: KeyedLocks::default() }
    }

    fn fresh(&self, key: &str, now: u64) -> Option<Arc<LoadedRsl>> {
        self.loaded.get(key).filter(|l| now < l.expires_at)
    }

    /// The RSL document at `url`, from memory, the store, or `fetch`.
    pub(crate) async fn get<F, Fut>(&self, url: &Url, fetch: F) -> Arc<LoadedRsl>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = RslFetched>,
    {
        let key = format!("rsl {url}");
        if let Some(hit) = self.fresh(&key, self.clock.now()) {
            return hit;
        }
        let _guard = self.inflight.lock(&key).await;
        let now = self.clock.now();
        if let Some(hit) = self.fresh(&key, now) {
            return hit;
        }
        let load_key = key.clone();
        let stored = self.store.run(move |s| s.load(&load_key)).await.unwrap_or_else(|err| {
            tracing::warn!("{err}; loading the RSL document without the store");
            None
        });
        let record = match stored.filter(|r| r.is_fresh(now)) {
            Some(record) => record,
            None => {
                let record = self.record(&key, url, fetch().await, self.clock.now());
                let saved = record.clone();
                if let Err(err) = self.store.run(move |s| s.save(&saved)).await {
                    tracing::warn!("{err}; the RSL outcome is kept in memory only");
                }
                record
            }
        };
        let loaded = Arc::new(LoadedRsl::from_record(url.clone(), &record));
        self.loaded.insert(key, loaded.clone());
        loaded
    }

    fn record(&self, key: &str, url: &Url, fetched: RslFetched, now: u64) -> RobotsRecord {
        let (availability, body, error, ttl) = match fetched {
            RslFetched::Found(body) => (RobotsAvailability::Parsed, Some(body), None, self.ttl),
            RslFetched::Absent(why) => (RobotsAvailability::Unavailable, None, Some(why), self.ttl),
            RslFetched::Failed(why) => (RobotsAvailability::Unreachable, None, Some(why), FAILURE_TTL.min(self.ttl)),
        };
        RobotsRecord {
            origin: key.to_string(),
            robots_url: url.to_string(),
            fetched_at: now,
            expires_at: now.saturating_add(ttl),
            status: None,
            availability,
            body,
            failures: 0,
            error,
        }
    }
}
