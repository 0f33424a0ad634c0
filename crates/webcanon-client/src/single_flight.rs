//! One loader at a time per key: callers that arrive while a load is under
//! way wait for it and then find its result in the cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// A lock per key, created on first use.
#[derive(Debug, Default)]
pub(crate) struct KeyedLocks {
    locks: Mutex<HashMap<String, Arc<AsyncMutex<()>>>>,
}

impl KeyedLocks {
    /// Waits for and holds the lock of `key` until the guard is dropped.
    pub(crate) async fn lock(&self, key: &str) -> OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
            // Drop locks nobody holds or waits for, so the map stays as
            // small as the set of keys being loaded right now.
            if locks.len() > 1024 {
                locks.retain(|_, l| Arc::strong_count(l) > 1);
            }
            locks.entry(key.to_string()).or_default().clone()
        };
        lock.lock_owned().await
    }
}
