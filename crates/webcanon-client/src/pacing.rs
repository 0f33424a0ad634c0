//! Per-host pacing: a minimum interval between requests to one host, and
//! the robots.txt `Crawl-delay` of the agent's group honoured up to a cap.
//!
//! Every request the client sends but robots.txt (pages, the llms.txt
//! files looked for on a page's path, Markdown alternatives, RSL files,
//! redirect hops, what `Client::get` is asked for) first reserves a slot
//! for its host: at least its interval after the slot reserved before it
//! and after the end of the request before it, so a server's log shows no
//! two requests closer than its `Crawl-delay`.
//! robots.txt alone is not paced: it carries the delay, is read before the
//! delay is known and at most once per cache period, and the delay governs
//! the requests it admits, not the file itself. The interval of a
//! request is the larger of [`PacingConfig::min_interval`] and the
//! `Crawl-delay` that its origin's robots.txt gives the client's agent (cut
//! to [`PacingConfig::max_crawl_delay`]); a robots.txt not loaded yet, or
//! ignored (mode `ignore`), gives none.
//!
//! Slots are kept in memory, shared by every clone of a client and every
//! [`Client::with_agent`](crate::Client::with_agent) client made from it.
//! With a shared store (Redis) they are reserved on the server by one
//! atomic script, so all the processes of a fleet together keep the
//! interval; the local slots are still recorded, and take over when the
//! server does not answer.
//!
//! Hosts are paced by name (`a.test`), whatever the scheme and port: the
//! same name is almost always the same server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock: the same as the system's, and paused in tests that step it.
use tokio::time::Instant;

use crate::store::{OffWorker, RobotsStore};

/// The default minimum interval between two requests to one host: none.
/// The client fetches for agents acting on a request, mostly a few pages a
/// site; sites that want spacing say so with `Crawl-delay`, and crawlers set
/// an interval of their own.
pub const DEFAULT_MIN_INTERVAL: Duration = Duration::ZERO;

/// The default longest `Crawl-delay` honoured; a larger one is cut to it
/// (with a `crawl_delay_capped` warning on results).
pub const DEFAULT_MAX_CRAWL_DELAY: Duration = Duration::from_secs(10);

/// Local slots older than this are forgotten when the table grows.
const LOCAL_KEEP: Duration = Duration::from_secs(60);
/// The table size from which old slots are forgotten.
const LOCAL_PRUNE_AT: usize = 4096;

/// The pacing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacingConfig {
    /// The least time between two requests to one host.
    pub min_interval: Duration,
    /// The longest `Crawl-delay` honoured.
    pub max_crawl_delay: Duration,
}

impl Default for PacingConfig {
    fn default() -> Self {
        PacingConfig { min_interval: DEFAULT_MIN_INTERVAL, max_crawl_delay: DEFAULT_MAX_CRAWL_DELAY }
    }
}

impl PacingConfig {
    /// The interval of a request to an origin whose robots.txt gives
    /// `crawl_delay` seconds (`None`: no `Crawl-delay`, or not known).
    pub fn interval(&self, crawl_delay: Option<f64>) -> Duration {
        let cap = self.max_crawl_delay.as_secs_f64();
        let delay = crawl_delay.filter(|d| *d > 0.0).map_or(0.0, |d| d.min(cap));
        self.min_interval.max(Duration::from_secs_f64(delay))
    }

    /// Whether `crawl_delay` is more than the cap (and so cut to it).
    pub fn is_capped(&self, crawl_delay: Option<f64>) -> bool {
        crawl_delay.is_some_and(|d| d > self.max_crawl_delay.as_secs_f64())
    }
}

/// Reserves request slots per host. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Pacer {
    config: PacingConfig,
    /// Called off the async workers when it can block.
    store: OffWorker,
    /// The last slot reserved per host, by this process.
    local: Mutex<HashMap<String, Instant>>,
}

impl Pacer {
    /// A pacer with `config`, reserving slots on `store` when it paces (a
    /// shared store) and in memory otherwise.
    pub fn new(config: PacingConfig, store: Arc<dyn RobotsStore>) -> Pacer {
        Pacer { config, store: OffWorker::new(store), local: Mutex::new(HashMap::new()) }
    }

    /// The settings.
    pub fn config(&self) -> PacingConfig {
        self.config
    }

    /// Waits for the next slot of `host` at least `interval` after the one
    /// before it, and returns how long it waited.
    pub async fn wait(&self, host: &str, interval: Duration) -> Duration {
        // A store error reads as "not shared": pace locally.
        let shared = if self.store.store().paces() {
            let key = host.to_string();
            self.store.run(move |s| s.reserve_slot(&key, interval)).await.ok().flatten()
        } else {
            None
        };
        let wait = self.reserve(host, interval, shared);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        wait
    }

    /// Notes that a paced request to `host` ended now: the next one's
    /// interval counts from its end rather than from its slot. A request
    /// slow to go out (a new connection, a busy machine) then cannot
    /// arrive less than the interval before the next one, as a server's
    /// log would show. Local slots only: a fleet's shared slots count from
    /// their reservation.
    pub fn finished(&self, host: &str) {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(last) = local.get_mut(host) {
            *last = (*last).max(now);
        }
    }

    /// Reserves the local slot (after the shared one, when the store gave
    /// one) and returns the wait until it.
    fn reserve(&self, host: &str, interval: Duration, shared: Option<Duration>) -> Duration {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        if local.len() >= LOCAL_PRUNE_AT {
            local.retain(|_, slot| now.saturating_duration_since(*slot) < LOCAL_KEEP);
        }
        let slot = match shared {
            Some(wait) => now + wait,
            None => local.get(host).map_or(now, |last| (*last + interval).max(now)),
        };
        let entry = local.entry(host.to_string()).or_insert(slot);
        *entry = (*entry).max(slot);
        slot - now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn config(min_ms: u64, cap_ms: u64) -> PacingConfig {
        PacingConfig { min_interval: Duration::from_millis(min_ms), max_crawl_delay: Duration::from_millis(cap_ms) }
    }

    #[test]
    fn interval_is_the_larger_of_minimum_and_capped_crawl_delay() {
        let table: [(PacingConfig, Option<f64>, u64, bool); 8] = [
            (config(0, 10_000), None, 0, false),
            (config(0, 10_000), Some(2.5), 2_500, false),
            (config(100, 10_000), Some(0.05), 100, false),
            (config(0, 10_000), Some(30.0), 10_000, true),
            (config(0, 10_000), Some(10.0), 10_000, false),
            (config(0, 10_000), Some(f64::INFINITY), 10_000, true),
            (config(0, 10_000), Some(f64::NAN), 0, false),
            (config(20, 10_000), Some(-1.0), 20, false),
        ];
        for (config, delay, millis, capped) in table {
            assert_eq!(config.interval(delay), Duration::from_millis(millis), "{config:?} {delay:?}");
            assert_eq!(config.is_capped(delay), capped, "{config:?} {delay:?}");
        }
    }

    // On tokio's paused clock: the waits are the reservations exactly, and
    // no wake-up jitter of a loaded machine can change them.
    #[tokio::test(start_paused = true)]
    async fn requests_to_one_host_are_spaced_and_other_hosts_are_not_held_up() {
        let pacer = Arc::new(Pacer::new(config(0, 10_000), Arc::new(MemoryStore::new())));
        let interval = Duration::from_millis(40);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..5 {
            let pacer = pacer.clone();
            tasks.push(tokio::spawn(async move {
                pacer.wait("a.test", interval).await;
                Instant::now()
            }));
        }
        let other = pacer.wait("b.test", interval).await;
        assert_eq!(other, Duration::ZERO);
        let mut times = Vec::new();
        for task in tasks {
            times.push(task.await.unwrap() - started);
        }
        times.sort();
        let expected: Vec<Duration> = (0..5).map(|i| interval * i).collect();
        assert_eq!(times, expected);
    }

    #[tokio::test(start_paused = true)]
    async fn the_interval_counts_from_the_end_of_the_request_before() {
        let pacer = Pacer::new(config(0, 10_000), Arc::new(MemoryStore::new()));
        let interval = Duration::from_millis(60);
        assert_eq!(pacer.wait("a.test", interval).await, Duration::ZERO);
        // The request takes 30 ms to go out and be answered.
        tokio::time::advance(Duration::from_millis(30)).await;
        pacer.finished("a.test");
        assert_eq!(pacer.wait("a.test", interval).await, interval);
        // A host never paced has nothing to count from.
        pacer.finished("b.test");
        assert_eq!(pacer.wait("b.test", interval).await, Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_waits_its_own_interval_after_the_one_before() {
        let pacer = Pacer::new(config(0, 10_000), Arc::new(MemoryStore::new()));
        assert_eq!(pacer.wait("a.test", Duration::ZERO).await, Duration::ZERO);
        let waited = pacer.wait("a.test", Duration::from_millis(60)).await;
        assert_eq!(waited, Duration::from_millis(60));
    }
}
