//! Where robots.txt outcomes are kept between requests and processes.
//!
//! The client keeps parsed robots.txt files in memory; a [`RobotsStore`]
//! sits behind that cache and holds the raw outcomes, so that another
//! process (the CLI run after this one, a service beside it) can use them.
//! Stores keep two things per origin: the latest outcome (which may be a
//! failure, kept only minutes) and, apart from it, the last good copy (a
//! parsed robots.txt, kept up to 30 days for when the site is unreachable).
//!
//! A store shared by several processes (Redis/Valkey, the `redis` feature)
//! also coordinates them: a fetch lock per origin, so that one process of
//! the fleet fetches a robots.txt while the others wait for its record, and
//! a pacing slot per host, so that the fleet together keeps the interval
//! between requests. Stores used by one process answer
//! [`FetchLock::Local`] and no slot: the client's own single flight and
//! pacing suffice.

mod memory;
#[cfg(feature = "redis")]
mod redis;
mod sqlite;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use memory::{DEFAULT_MEMORY_STORE_BYTES, MemoryStore};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use redis::{RedisOptions, RedisStore};
pub use sqlite::SqliteStore;
use webcanon_core::policy::RobotsAvailability;

/// One robots.txt fetch outcome for an origin.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RobotsRecord {
    /// The origin, as `scheme://host[:port]` (default ports omitted).
    pub origin: String,
    /// The robots.txt URL that was asked for (before redirects).
    pub robots_url: String,
    /// When the fetch finished, in seconds since the Unix epoch.
    pub fetched_at: u64,
    /// When the outcome stops being fresh, in seconds since the Unix epoch.
    pub expires_at: u64,
    /// The final HTTP status, when an answer came.
    pub status: Option<u16>,
    /// How the fetch ended.
    pub availability: RobotsAvailability,
    /// The body (at most the parse limit), for `Parsed` and `NotRobots`.
    pub body: Option<Vec<u8>>,
    /// Consecutive unreachable outcomes before and including this one; sets
    /// the back-off of the next attempt.
    pub failures: u32,
    /// What went wrong, for unreachable outcomes.
    pub error: Option<String>,
}

impl RobotsRecord {
    /// Whether the outcome is still fresh at `now` (seconds since the epoch).
    pub fn is_fresh(&self, now: u64) -> bool {
        now < self.expires_at
    }

    /// Age in seconds at `now`.
    pub fn age(&self, now: u64) -> u64 {
        now.saturating_sub(self.fetched_at)
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}

/// An error from a store (a locked or corrupt database, a lost connection).
#[derive(Debug, thiserror::Error)]
#[error("robots store {store}: {message}")]
pub struct StoreError {
    /// Which store failed (`sqlite /path/robots.db`).
    pub store: String,
    /// What failed.
    pub message: String,
}

/// The answer to [`RobotsStore::try_fetch_lock`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchLock {
    /// The store is not shared with other processes (or cannot coordinate
    /// them right now): the client's own single flight is all there is, so
    /// fetch.
    Local,
    /// This caller holds the lock until it releases it with this token, or
    /// until the lock expires.
    Acquired(String),
    /// Another holder is fetching: wait for its record, then try again.
    Busy,
}

/// How a store is doing: a shared store that lost its server keeps working
/// on its local layer and says so here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreHealth {
    /// Why the store is running on its local fallback, while it is.
    pub degraded: Option<String>,
    /// Operations since the store was made that its shared server did not
    /// serve (failed, or skipped during an outage).
    pub errors: u64,
}

/// A place to keep robots.txt outcomes: memory, a SQLite file, or a shared
/// store for a fleet.
///
/// Methods are synchronous and short (one key read or write, bounded by the
/// store's own timeouts); the client calls them from its own tasks.
/// Implementations must be safe to share between threads and, for
/// persistent stores, between processes. The coordination methods have
/// defaults for stores used by one process.
pub trait RobotsStore: Send + Sync + std::fmt::Debug {
    /// The latest outcome for `origin`, fresh or not.
    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError>;
    /// Replaces the latest outcome for `record.origin`.
    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError>;
    /// The last good copy (a `Parsed` outcome) for `origin`, however old.
    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError>;
    /// Replaces the last good copy for `record.origin`.
    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError>;

    /// Tries to become the one fetcher of `origin`'s robots.txt across the
    /// processes sharing this store, for at most `ttl` (a holder that
    /// crashes does not wedge the origin). The default: [`FetchLock::Local`].
    fn try_fetch_lock(&self, origin: &str, ttl: Duration) -> Result<FetchLock, StoreError> {
        let _ = (origin, ttl);
        Ok(FetchLock::Local)
    }

    /// Releases a lock taken with [`RobotsStore::try_fetch_lock`], only if
    /// `token` still holds it (an expired lock another caller took stays).
    fn release_fetch_lock(&self, origin: &str, token: &str) -> Result<(), StoreError> {
        let _ = (origin, token);
        Ok(())
    }

    /// Reserves the next request slot for `host` across the processes
    /// sharing this store: at least `interval` after the slot reserved
    /// before it. Returns how long to wait before sending, or `None` when
    /// the store does not pace (the default, and a shared store that lost
    /// its server): the caller paces locally.
    fn reserve_slot(&self, host: &str, interval: Duration) -> Result<Option<Duration>, StoreError> {
        let _ = (host, interval);
        Ok(None)
    }

    /// Whether [`RobotsStore::reserve_slot`] reserves slots shared with
    /// other processes. When it does not (the default), the client paces in
    /// memory and never calls it.
    fn paces(&self) -> bool {
        false
    }

    /// Whether the store runs degraded, and how many operations its shared
    /// server did not serve. The default: healthy, no errors.
    fn health(&self) -> StoreHealth {
        StoreHealth::default()
    }

    /// Whether an operation can block its thread (disk, locks, network):
    /// the client then runs it on the runtime's blocking pool, never on an
    /// async worker. The default: it can; an in-memory store says no.
    fn blocks(&self) -> bool {
        true
    }
}

/// A store as the async paths call it: operations of a store that
/// [blocks](RobotsStore::blocks) run on the runtime's blocking pool, so a
/// locked SQLite file or a slow Redis server holds a pool thread, never an
/// async worker serving other requests. Outside a runtime, or for a store
/// that does not block, they run in place.
#[derive(Debug, Clone)]
pub(crate) struct OffWorker {
    store: Arc<dyn RobotsStore>,
}

impl OffWorker {
    pub(crate) fn new(store: Arc<dyn RobotsStore>) -> OffWorker {
        OffWorker { store }
    }

    /// The store itself, for the calls that never block (health).
    pub(crate) fn store(&self) -> &dyn RobotsStore {
        &*self.store
    }

    /// Runs `op` on the store, off the async workers when it can block.
    pub(crate) async fn run<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn RobotsStore) -> Result<T, StoreError> + Send + 'static,
    {
        if !self.store.blocks() {
            return op(&*self.store);
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return op(&*self.store);
        };
        let store = self.store.clone();
        runtime.spawn_blocking(move || op(&*store)).await.unwrap_or_else(|e| {
            Err(StoreError {
                store: "robots store".into(),
                message: format!("the store operation did not finish: {e}"),
            })
        })
    }

    /// Starts `op` on the store and does not wait for it: for releases
    /// made while dropping (a lock whose holder went away). Outside a
    /// runtime it runs in place.
    pub(crate) fn run_detached<F>(&self, op: F)
    where
        F: FnOnce(&dyn RobotsStore) + Send + 'static,
    {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if self.store.blocks() => {
                let store = self.store.clone();
                drop(runtime.spawn_blocking(move || op(&*store)));
            }
            _ => op(&*self.store),
        }
    }
}
