//! The process's budget of outbound sockets.
//!
//! Every descriptor comes out of one per-process limit (`RLIMIT_NOFILE`).
//! A fetcher that opens one connection per origin and keeps it idle in its
//! pool reaches that limit after a thousand origins, and then every connect
//! fails with "too many open files": an error of this machine that must
//! never be written down as a site's answer. So sockets are budgeted:
//!
//! - a request holds a permit while its exchange runs; with none free it
//!   waits (back-pressure), it does not fail;
//! - after the exchange, the permit stays with the host while its
//!   connection may sit idle in the pool (at most one per host, for at most
//!   [`IDLE_TIMEOUT`] plus the pool's sweep), and the next request to that
//!   host takes it over;
//! - when a quarter of the budget or less is free, requests ask the server
//!   to close the connection (`Connection: close`), so no new idle sockets
//!   are kept while the budget is tight.
//!
//! The budget is half the open-file limit less a reserve for files, the
//! cache, DNS and (in a server) the listener; the other half is for the
//! connections a server accepts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// How long an idle pooled connection is kept.
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a parked permit is held for an idle connection: the pool drops
/// idle connections on a sweep that runs every [`IDLE_TIMEOUT`], so one
/// may live up to twice as long.
const PARKED_FOR: Duration = Duration::from_secs(11);

/// Descriptors left out of the budget for everything but outbound sockets.
const RESERVE: u64 = 24;

/// The budget when the open-file limit cannot be read.
const FALLBACK_SOCKETS: usize = 256;

/// A budget of sockets; see the module documentation.
#[derive(Debug)]
pub(crate) struct SocketBudget {
    permits: Arc<Semaphore>,
    total: usize,
    parked: Mutex<HashMap<String, Parked>>,
}

/// A permit kept for a host whose connection may be idle in the pool.
#[derive(Debug)]
struct Parked {
    since: Instant,
    _permit: OwnedSemaphorePermit,
}

/// A permit for one exchange with `host`.
#[derive(Debug)]
pub(crate) struct SocketLease {
    host: String,
    permit: OwnedSemaphorePermit,
    /// Whether the connection may be kept for the next request.
    pub keep_alive: bool,
}

impl SocketBudget {
    /// A budget of `total` sockets (at least 2).
    pub fn new(total: usize) -> SocketBudget {
        let total = total.max(2);
        SocketBudget { permits: Arc::new(Semaphore::new(total)), total, parked: Mutex::new(HashMap::new()) }
    }

    /// The budget every client of this process shares, sized from the
    /// open-file limit.
    pub fn process() -> &'static SocketBudget {
        static BUDGET: OnceLock<SocketBudget> = OnceLock::new();
        BUDGET.get_or_init(|| SocketBudget::new(process_sockets(crate::os_limits::open_file_limit())))
    }

    /// Waits for a socket to `host` (`scheme://authority`): the one kept
    /// for its idle connection if there is one, else a free one.
    pub async fn acquire(&self, host: &str) -> SocketLease {
        if let Some(parked) = self.lock().remove(host) {
            return self.lease(host, parked._permit);
        }
        loop {
            self.release_expired();
            if let Ok(permit) = self.permits.clone().try_acquire_owned() {
                return self.lease(host, permit);
            }
            // Parked permits come back as their idle time runs out.
            let wait = self.permits.clone().acquire_owned();
            if let Ok(Ok(permit)) = tokio::time::timeout(Duration::from_millis(250), wait).await {
                return self.lease(host, permit);
            }
        }
    }

    fn lease(&self, host: &str, permit: OwnedSemaphorePermit) -> SocketLease {
        let keep_alive = self.permits.available_permits() * 4 > self.total;
        SocketLease { host: host.to_owned(), permit, keep_alive }
    }

    /// Ends an exchange: when its connection may have gone back to the pool
    /// (`reusable`), the permit stays with the host while it may sit idle.
    pub fn release(&self, lease: SocketLease, reusable: bool) {
        if lease.keep_alive && reusable {
            self.lock().insert(lease.host, Parked { since: Instant::now(), _permit: lease.permit });
        }
    }

    /// Sockets neither in use nor kept for an idle connection.
    #[cfg(test)]
    fn free(&self) -> usize {
        self.release_expired();
        self.permits.available_permits()
    }

    /// Gives back the permits of idle connections the pool has dropped.
    fn release_expired(&self) {
        let now = Instant::now();
        self.lock().retain(|_, parked| now.duration_since(parked.since) < PARKED_FOR);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Parked>> {
        self.parked.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The outbound sockets of a process whose open-file limit is `limit`.
fn process_sockets(limit: Option<u64>) -> usize {
    match limit {
        Some(limit) => usize::try_from((limit / 2).saturating_sub(RESERVE)).unwrap_or(usize::MAX).clamp(4, 32_768),
        None => FALLBACK_SOCKETS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_table() {
        assert_eq!(process_sockets(Some(256)), 104);
        assert_eq!(process_sockets(Some(1024)), 488);
        assert_eq!(process_sockets(Some(40)), 4);
        assert_eq!(process_sockets(Some(1 << 40)), 32_768);
        assert_eq!(process_sockets(None), FALLBACK_SOCKETS);
    }

    #[tokio::test]
    async fn idle_connections_keep_their_socket_and_a_tight_budget_keeps_none() {
        let budget = SocketBudget::new(8);
        let a = budget.acquire("https://a.test").await;
        assert!(a.keep_alive);
        budget.release(a, true);
        assert_eq!(budget.free(), 7, "a's idle connection keeps its socket");
        let again = budget.acquire("https://a.test").await;
        assert_eq!(budget.free(), 7, "the next request to a takes it over");
        budget.release(again, false);
        assert_eq!(budget.free(), 8, "a connection that was not pooled frees it");
        // Six hosts in flight: two of eight left, so no keep-alive.
        let held: Vec<_> = futures_lite(6, &budget).await;
        let tight = budget.acquire("https://tight.test").await;
        assert!(!tight.keep_alive, "with a quarter or less free, the connection is closed after use");
        budget.release(tight, true);
        assert_eq!(budget.free(), 2);
        drop(held);
    }

    async fn futures_lite(n: usize, budget: &SocketBudget) -> Vec<SocketLease> {
        let mut out = Vec::new();
        for i in 0..n {
            out.push(budget.acquire(&format!("https://h{i}.test")).await);
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_budget_waits_for_a_socket_rather_than_failing() {
        let budget = Arc::new(SocketBudget::new(2));
        let first = budget.acquire("https://a.test").await;
        budget.release(first, true);
        let second = budget.acquire("https://b.test").await;
        let waiting = {
            let budget = budget.clone();
            tokio::spawn(async move { budget.acquire("https://c.test").await.keep_alive })
        };
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished(), "c waits while a's idle socket and b's exchange hold the budget");
        tokio::time::sleep(PARKED_FOR).await;
        assert!(waiting.await.is_ok(), "a's idle time ran out and c got its socket");
        drop(second);
    }
}
