//! Where robots.txt outcomes are kept between requests and processes.
//!
//! The client keeps parsed robots.txt files in memory; a [`RobotsStore`]
//! sits behind that cache and holds the raw outcomes, so that another
//! process (the CLI run after this one, a service beside it) can use them.
//! Stores keep two things per origin: the latest outcome (which may be a
//! failure, kept only minutes) and, apart from it, the last good copy (a
//! parsed robots.txt, kept up to 30 days for when the site is unreachable).

mod memory;
mod sqlite;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use memory::MemoryStore;
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

/// A place to keep robots.txt outcomes: memory, a SQLite file, or a shared
/// store for a fleet.
///
/// Methods are synchronous and short (one key read or write); the client
/// calls them from its own tasks. Implementations must be safe to share
/// between threads and, for persistent stores, between processes.
pub trait RobotsStore: Send + Sync + std::fmt::Debug {
    /// The latest outcome for `origin`, fresh or not.
    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError>;
    /// Replaces the latest outcome for `record.origin`.
    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError>;
    /// The last good copy (a `Parsed` outcome) for `origin`, however old.
    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError>;
    /// Replaces the last good copy for `record.origin`.
    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError>;
}
