//! The in-process store: the default, lost when the process ends.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{RobotsRecord, RobotsStore, StoreError};

/// Keeps robots.txt outcomes in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    latest: Mutex<HashMap<String, RobotsRecord>>,
    last_good: Mutex<HashMap<String, RobotsRecord>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

fn get(map: &Mutex<HashMap<String, RobotsRecord>>, origin: &str) -> Option<RobotsRecord> {
    map.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(origin).cloned()
}

fn put(map: &Mutex<HashMap<String, RobotsRecord>>, record: &RobotsRecord) {
    map.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(record.origin.clone(), record.clone());
}

impl RobotsStore for MemoryStore {
    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        Ok(get(&self.latest, origin))
    }

    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        put(&self.latest, record);
        Ok(())
    }

    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        Ok(get(&self.last_good, origin))
    }

    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        put(&self.last_good, record);
        Ok(())
    }
}
