//! The clock that cache freshness is counted on: the system's, or a manual
//! one that moves only when told (deterministic tests and simulations, with
//! no sleeping and no second boundaries to race).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Seconds since the Unix epoch, from the system or set by hand. Cheap to
/// clone; clones of a manual clock share its time.
///
/// ```
/// use webcanon_client::Clock;
///
/// let clock = Clock::manual(1_700_000_000);
/// let shared = clock.clone();
/// clock.advance(90);
/// assert_eq!(shared.now(), 1_700_000_090);
/// assert!(Clock::system().now() > 1_700_000_000);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Clock {
    manual: Option<Arc<AtomicU64>>,
}

impl Clock {
    /// The system clock (the default).
    pub fn system() -> Clock {
        Clock { manual: None }
    }

    /// A clock that reads `start` until [`Clock::advance`] moves it.
    pub fn manual(start: u64) -> Clock {
        Clock { manual: Some(Arc::new(AtomicU64::new(start))) }
    }

    /// Seconds since the Unix epoch.
    pub fn now(&self) -> u64 {
        match &self.manual {
            Some(time) => time.load(Ordering::Relaxed),
            None => crate::store::unix_now(),
        }
    }

    /// Moves a manual clock forward by `seconds`; the system clock cannot
    /// be moved, and is left as it is.
    pub fn advance(&self, seconds: u64) {
        if let Some(time) = &self.manual {
            time.fetch_add(seconds, Ordering::Relaxed);
        }
    }
}
