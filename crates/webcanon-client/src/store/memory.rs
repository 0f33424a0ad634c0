//! The in-process store: the default, lost when the process ends, and
//! bounded: past its budget the least recently used outcomes are dropped
//! (and fetched again when next needed).

use super::{RobotsRecord, RobotsStore, StoreError};

/// The default budget of a [`MemoryStore`], for each of its two maps
/// (latest outcomes, last good copies): 64 MiB.
pub const DEFAULT_MEMORY_STORE_BYTES: u64 = 64 << 20;

/// Keeps robots.txt outcomes in memory, within a budget of bytes.
#[derive(Debug)]
pub struct MemoryStore {
    latest: moka::sync::Cache<String, RobotsRecord>,
    last_good: moka::sync::Cache<String, RobotsRecord>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_budget(DEFAULT_MEMORY_STORE_BYTES)
    }
}

impl MemoryStore {
    /// An empty store with the default budget.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// An empty store keeping about `bytes` of latest outcomes and as much
    /// of last good copies (bodies and a fixed part per record).
    pub fn with_budget(bytes: u64) -> MemoryStore {
        let map = || {
            moka::sync::Cache::builder()
                .max_capacity(bytes)
                .weigher(|origin: &String, record: &RobotsRecord| {
                    let body = record.body.as_ref().map_or(0, Vec::len);
                    u32::try_from(origin.len() + body + 256).unwrap_or(u32::MAX)
                })
                .build()
        };
        MemoryStore { latest: map(), last_good: map() }
    }
}

impl RobotsStore for MemoryStore {
    fn blocks(&self) -> bool {
        false
    }

    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        Ok(self.latest.get(origin))
    }

    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        self.latest.insert(record.origin.clone(), record.clone());
        Ok(())
    }

    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        Ok(self.last_good.get(origin))
    }

    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        self.last_good.insert(record.origin.clone(), record.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use webcanon_core::policy::RobotsAvailability;

    use super::*;

    #[test]
    fn the_store_stays_within_its_budget() {
        let store = MemoryStore::with_budget(64 << 10);
        for i in 0..1000 {
            let record = RobotsRecord {
                origin: format!("https://site{i}.example"),
                robots_url: format!("https://site{i}.example/robots.txt"),
                fetched_at: 1_700_000_000,
                expires_at: 1_700_003_600,
                status: Some(200),
                availability: RobotsAvailability::Parsed,
                body: Some(vec![b'#'; 1024]),
                failures: 0,
                error: None,
            };
            store.save(&record).unwrap();
            store.save_last_good(&record).unwrap();
        }
        for map in [&store.latest, &store.last_good] {
            map.run_pending_tasks();
            assert!(map.weighted_size() <= 64 << 10, "{} bytes", map.weighted_size());
            assert!((1..=64).contains(&map.entry_count()), "{} records of 1 KiB kept in 64 KiB", map.entry_count());
        }
    }
}
