//! A small cache of recent results: entries live a fixed time, and at most
//! a number of entries and a total weight are kept, the oldest dropped
//! first. The MCP tools keep fetched pages and sitemap findings in it, so
//! that paging through them costs the site one request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Entry<K, V> {
    key: K,
    at: Instant,
    weight: usize,
    value: Arc<V>,
}

/// The cache; see the module documentation.
pub(crate) struct TtlCache<K, V> {
    entries: Mutex<VecDeque<Entry<K, V>>>,
    ttl: Duration,
    max_entries: usize,
    max_weight: usize,
}

impl<K, V> std::fmt::Debug for TtlCache<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self.entries.lock().map(|e| e.len()).unwrap_or(0);
        f.debug_struct("TtlCache").field("entries", &len).field("ttl", &self.ttl).finish()
    }
}

impl<K: PartialEq, V> TtlCache<K, V> {
    /// An empty cache whose entries live `ttl`, at most `max_entries` of
    /// them weighing at most `max_weight` together.
    pub fn new(ttl: Duration, max_entries: usize, max_weight: usize) -> TtlCache<K, V> {
        TtlCache { entries: Mutex::new(VecDeque::new()), ttl, max_entries, max_weight }
    }

    /// The value for `key` and its age, if it is still fresh.
    pub fn get(&self, key: &K) -> Option<(Arc<V>, Duration)> {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        entries.retain(|e| now.duration_since(e.at) < self.ttl);
        entries.iter().find(|e| &e.key == key).map(|e| (e.value.clone(), now.duration_since(e.at)))
    }

    /// Keeps `value` (of `weight`) for `key`, replacing an older one; drops
    /// the oldest past the limits. A value heavier than the whole budget is
    /// not kept.
    pub fn put(&self, key: K, value: Arc<V>, weight: usize) {
        if weight > self.max_weight {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        entries.retain(|e| e.key != key);
        entries.push_back(Entry { key, at: Instant::now(), weight, value });
        let mut total: usize = entries.iter().map(|e| e.weight).sum();
        while entries.len() > self.max_entries || total > self.max_weight {
            let Some(oldest) = entries.pop_front() else { break };
            total -= oldest.weight;
        }
    }

    /// The total weight kept (stale entries included until the next read).
    #[cfg(test)]
    pub fn weight(&self) -> usize {
        self.entries.lock().map(|e| e.iter().map(|e| e.weight).sum()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_go_first_past_either_limit_and_stale_ones_are_not_served() {
        let cache = TtlCache::new(Duration::from_secs(60), 3, 100);
        for i in 0..4 {
            cache.put(i, Arc::new(i), 10);
        }
        assert!(cache.get(&0).is_none(), "past the entry limit");
        assert_eq!(*cache.get(&3).unwrap().0, 3);
        cache.put(9, Arc::new(9), 90);
        assert!(cache.get(&1).is_none() && cache.get(&2).is_none(), "past the weight limit");
        assert!(cache.weight() <= 100);
        cache.put(10, Arc::new(10), 101);
        assert!(cache.get(&10).is_none(), "heavier than the budget: not kept");
        let stale = TtlCache::new(Duration::ZERO, 3, 100);
        stale.put(1, Arc::new(1), 1);
        assert!(stale.get(&1).is_none());
    }
}
