//! The cache of the small files a site publishes as hints (llms.txt, RSL
//! license documents): kept in memory within a byte budget over the
//! client's robots store, fresh for the robots.txt cache time (failures
//! for minutes), and loaded once per URL at a time.
//!
//! What each kind of file is (its store key, how its body is read) is the
//! kind's to say, through [`HintKind`]; how it is cached is said here once.

use std::future::Future;
use std::sync::Arc;

use url::Url;
use webcanon_core::policy::RobotsAvailability;

use crate::clock::Clock;
use crate::single_flight::KeyedLocks;
use crate::store::{OffWorker, RobotsRecord, RobotsStore};

/// How long a failed load (timeout, 5xx) is kept before the file is asked
/// for again (never longer than the cache time).
pub(crate) const FAILURE_TTL: u64 = 5 * 60;

/// A kind of hint file: where its outcomes are stored and how its body
/// is read.
pub(crate) trait HintKind: std::fmt::Debug + Send + Sync + 'static {
    /// What a load of the file gives: the parsed file, or why there is none.
    type Document: std::fmt::Debug + Send + Sync + 'static;

    /// The word before the URL in the store key (`"<word> <url>"`): outcomes
    /// are kept beside the robots.txt ones, keyed by origin, which never
    /// contains a space. Stored outcomes are read back under it.
    const STORE_KEY: &'static str;

    /// The file as the log names it (`"llms.txt"`).
    const NAME: &'static str;

    /// The document a load gave: `Ok(body)` for a 2xx answer, otherwise
    /// `Err(why)` naming the failure or refusal.
    fn read(found: Result<&[u8], &str>) -> Self::Document;
}

/// How one load of a hint file ended.
#[derive(Debug, Clone)]
pub(crate) enum HintFetched {
    /// A 2xx answer with this body (at most the kind's byte limit).
    Found(Vec<u8>),
    /// No file: a 4xx answer, a redirect elsewhere that failed, or a
    /// location the robots policy or the SSRF guard refuses.
    Absent(String),
    /// The server did not answer usefully (timeout, 5xx): retried sooner.
    Failed(String),
}

/// A hint file's location and what is there.
#[derive(Debug)]
pub(crate) struct LoadedHint<K: HintKind> {
    /// Where it was looked for.
    pub url: Url,
    /// The file as its kind reads it.
    pub document: K::Document,
    expires_at: u64,
    /// The body's size, from which what this holds in memory is reckoned.
    body_bytes: usize,
}

impl<K: HintKind> LoadedHint<K> {
    fn from_record(url: Url, record: &RobotsRecord) -> LoadedHint<K> {
        let found = match (&record.body, record.availability) {
            (Some(body), RobotsAvailability::Parsed) => Ok(body.as_slice()),
            _ => Err(record.error.as_deref().unwrap_or("no document")),
        };
        let body_bytes = record.body.as_ref().map_or(0, Vec::len);
        LoadedHint { url, document: K::read(found), expires_at: record.expires_at, body_bytes }
    }

    /// Roughly what this holds in memory: the parsed file keeps its text
    /// (about the body again, twice to be safe) and a fixed part.
    fn approx_bytes(&self) -> u32 {
        u32::try_from(2 * self.body_bytes + self.url.as_str().len() + 256).unwrap_or(u32::MAX)
    }
}

/// Loaded hint files of one kind, in memory over the client's store, one
/// load per URL at a time.
#[derive(Debug)]
pub(crate) struct HintCache<K: HintKind> {
    /// Called off the async workers when it can block.
    store: OffWorker,
    /// What "now" is for freshness.
    clock: Clock,
    ttl: u64,
    /// Parsed files within a byte budget, least recently used dropped
    /// (and read again from the store).
    loaded: moka::sync::Cache<String, Arc<LoadedHint<K>>>,
    inflight: KeyedLocks,
}

impl<K: HintKind> HintCache<K> {
    /// A cache over `store` keeping answers `ttl` seconds and about
    /// `memory_bytes` of parsed files in memory.
    pub(crate) fn new(store: Arc<dyn RobotsStore>, ttl: u64, memory_bytes: u64, clock: Clock) -> HintCache<K> {
        let loaded = moka::sync::Cache::builder()
            .max_capacity(memory_bytes)
            .weigher(|key: &String, loaded: &Arc<LoadedHint<K>>| {
                loaded.approx_bytes().saturating_add(u32::try_from(key.len()).unwrap_or(u32::MAX))
            })
            .build();
        HintCache { store: OffWorker::new(store), clock, ttl, loaded, inflight: KeyedLocks::default() }
    }

    fn fresh(&self, key: &str, now: u64) -> Option<Arc<LoadedHint<K>>> {
        self.loaded.get(key).filter(|l| now < l.expires_at)
    }

    /// The bytes the parsed files in memory are reckoned to hold.
    #[cfg(test)]
    pub(crate) fn weighted_size(&self) -> u64 {
        self.loaded.run_pending_tasks();
        self.loaded.weighted_size()
    }

    /// The file at `url`, from memory, the store, or `fetch`.
    pub(crate) async fn get<F, Fut>(&self, url: &Url, fetch: F) -> Arc<LoadedHint<K>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = HintFetched>,
    {
        let key = format!("{} {url}", K::STORE_KEY);
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
            tracing::warn!("{err}; loading the {} without the store", K::NAME);
            None
        });
        let record = match stored.filter(|r| r.is_fresh(now)) {
            Some(record) => record,
            None => {
                let record = self.record(&key, url, fetch().await, self.clock.now());
                let saved = record.clone();
                if let Err(err) = self.store.run(move |s| s.save(&saved)).await {
                    tracing::warn!("{err}; the {} outcome is kept in memory only", K::NAME);
                }
                record
            }
        };
        let loaded = Arc::new(LoadedHint::from_record(url.clone(), &record));
        self.loaded.insert(key, loaded.clone());
        loaded
    }

    fn record(&self, key: &str, url: &Url, fetched: HintFetched, now: u64) -> RobotsRecord {
        let (availability, body, error, ttl) = match fetched {
            HintFetched::Found(body) => (RobotsAvailability::Parsed, Some(body), None, self.ttl),
            HintFetched::Absent(why) => (RobotsAvailability::Unavailable, None, Some(why), self.ttl),
            HintFetched::Failed(why) => (RobotsAvailability::Unreachable, None, Some(why), FAILURE_TTL.min(self.ttl)),
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::store::MemoryStore;

    /// A kind whose document is its body as text, or the reason there is none.
    #[derive(Debug)]
    struct TextHint;

    impl HintKind for TextHint {
        type Document = Result<String, String>;
        const STORE_KEY: &'static str = "text";
        const NAME: &'static str = "text file";

        fn read(found: Result<&[u8], &str>) -> Result<String, String> {
            found.map(|body| String::from_utf8_lossy(body).into_owned()).map_err(str::to_string)
        }
    }

    const TTL: u64 = 86_400;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn cache(store: &Arc<MemoryStore>, memory_bytes: u64, clock: &Clock) -> HintCache<TextHint> {
        HintCache::new(store.clone(), TTL, memory_bytes, clock.clone())
    }

    /// Loads `at` through `cache`, answering `fetched` and counting the
    /// fetches in `fetches`.
    async fn load(
        cache: &HintCache<TextHint>,
        at: &Url,
        fetched: HintFetched,
        fetches: &AtomicUsize,
    ) -> Arc<LoadedHint<TextHint>> {
        cache
            .get(at, || async {
                fetches.fetch_add(1, Ordering::SeqCst);
                fetched
            })
            .await
    }

    #[test]
    fn failures_are_kept_minutes_and_answers_the_cache_time() {
        let cache = HintCache::<TextHint>::new(Arc::new(MemoryStore::new()), 86_400, 1 << 20, Clock::system());
        let at = url("https://a.test/llms.txt");
        let ttl = |fetched| {
            let record = cache.record("k", &at, fetched, 1_000);
            record.expires_at - record.fetched_at
        };
        assert_eq!(ttl(HintFetched::Found(b"# A\n".to_vec())), 86_400);
        assert_eq!(ttl(HintFetched::Absent("HTTP 404".into())), 86_400);
        assert_eq!(ttl(HintFetched::Failed("HTTP 503".into())), FAILURE_TTL);
    }

    #[tokio::test]
    async fn an_outcome_is_fetched_again_only_once_it_expires() {
        let cases = [
            (HintFetched::Found(b"hello".to_vec()), TTL, Ok("hello".to_string())),
            (HintFetched::Absent("HTTP 404".into()), TTL, Err("HTTP 404".to_string())),
            (HintFetched::Failed("HTTP 503".into()), FAILURE_TTL, Err("HTTP 503".to_string())),
        ];
        for (fetched, fresh_for, document) in cases {
            let clock = Clock::manual(1_700_000_000);
            let cache = cache(&Arc::new(MemoryStore::new()), 1 << 20, &clock);
            let at = url("https://a.test/hint.txt");
            let fetches = AtomicUsize::new(0);
            assert_eq!(load(&cache, &at, fetched.clone(), &fetches).await.document, document);
            clock.advance(fresh_for - 1);
            assert_eq!(load(&cache, &at, fetched.clone(), &fetches).await.document, document);
            assert_eq!(fetches.load(Ordering::SeqCst), 1, "{fetched:?} is fresh for {fresh_for} s");
            clock.advance(1);
            load(&cache, &at, fetched.clone(), &fetches).await;
            assert_eq!(fetches.load(Ordering::SeqCst), 2, "{fetched:?} expires after {fresh_for} s");
        }
    }

    #[tokio::test]
    async fn a_fresh_stored_outcome_is_read_rather_than_fetched() {
        let clock = Clock::manual(1_700_000_000);
        let store = Arc::new(MemoryStore::new());
        let at = url("https://a.test/hint.txt");
        let fetches = AtomicUsize::new(0);
        load(&cache(&store, 1 << 20, &clock), &at, HintFetched::Absent("HTTP 404".into()), &fetches).await;
        let again = load(&cache(&store, 1 << 20, &clock), &at, HintFetched::Found(b"new".to_vec()), &fetches).await;
        assert_eq!(again.document, Err("HTTP 404".to_string()));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        assert!(store.load("text https://a.test/hint.txt").unwrap().is_some(), "kept under the kind's key");
    }

    #[tokio::test]
    async fn callers_at_the_same_time_share_one_fetch() {
        let cache = cache(&Arc::new(MemoryStore::new()), 1 << 20, &Clock::manual(1_700_000_000));
        let at = url("https://a.test/hint.txt");
        let fetches = AtomicUsize::new(0);
        let slow = || async {
            fetches.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            HintFetched::Found(b"once".to_vec())
        };
        let (a, b, c) = tokio::join!(cache.get(&at, slow), cache.get(&at, slow), cache.get(&at, slow));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        assert!(Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&b, &c));
    }

    #[tokio::test]
    async fn parsed_files_stay_within_the_memory_budget() {
        let budget = 1 << 20;
        let cache = cache(&Arc::new(MemoryStore::new()), budget, &Clock::manual(1_700_000_000));
        let body = vec![b'x'; 64 << 10];
        let fetches = AtomicUsize::new(0);
        for i in 0..64 {
            let at = url(&format!("https://a.test/{i}/hint.txt"));
            load(&cache, &at, HintFetched::Found(body.clone()), &fetches).await;
        }
        let held = cache.weighted_size();
        assert!(held <= budget, "{held} bytes held, budget {budget}");
        assert!(held > budget / 4, "the cache keeps what fits: {held}");
    }
}
