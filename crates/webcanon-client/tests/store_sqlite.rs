//! The SQLite robots store on real files: the store contract (with the
//! memory store; `store_contract`), round trips, persistence across
//! reopening, WAL mode, pruning, concurrent writers in two processes, and a
//! clear error for a file that is not a store.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

mod store_contract;

use webcanon_client::store::{MemoryStore, RobotsRecord, RobotsStore, SqliteStore, unix_now};
use webcanon_core::policy::RobotsAvailability;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webcanon-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn record(origin: &str, availability: RobotsAvailability, fetched_at: u64) -> RobotsRecord {
    store_contract::record(origin, availability, fetched_at, 3600)
}

#[test]
fn memory_store_keeps_the_contract() {
    let store = MemoryStore::new();
    store_contract::round_trip(&store);
    store_contract::bodies(&store);
    store_contract::expiry(&store);
}

#[test]
fn sqlite_store_keeps_the_contract() {
    let dir = temp_dir("contract");
    let store = SqliteStore::open_dir(&dir).unwrap();
    store_contract::bodies(&store);
    store_contract::expiry(&store);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sqlite_store_round_trip_and_reopen() {
    let dir = temp_dir("reopen");
    {
        let store = SqliteStore::open_dir(&dir).unwrap();
        store_contract::round_trip(&store);
    }
    let store = SqliteStore::open_dir(&dir).unwrap();
    assert_eq!(store.load("https://a.example").unwrap().unwrap().failures, 3);
    assert!(store.load_last_good("https://a.example").unwrap().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sqlite_store_uses_wal() {
    let dir = temp_dir("wal");
    let store = SqliteStore::open_dir(&dir).unwrap();
    store.save(&record("https://w.example", RobotsAvailability::Parsed, unix_now())).unwrap();
    let other = rusqlite_mode(store.path());
    assert_eq!(other, "wal");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads the journal mode through a second, independent connection.
fn rusqlite_mode(path: &Path) -> String {
    let output = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode').fetchone()[0])",
        ])
        .arg(path)
        .output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        // Without python3, the -wal file beside the database shows the mode.
        _ => {
            if path.with_extension("sqlite3-wal").exists() {
                "wal".into()
            } else {
                "unknown".into()
            }
        }
    }
}

#[test]
fn pruning_drops_old_last_good_copies() {
    let dir = temp_dir("prune");
    let store = SqliteStore::open_dir(&dir).unwrap();
    let now = unix_now();
    store.save_last_good(&record("https://old.example", RobotsAvailability::Parsed, now - 31 * 86_400)).unwrap();
    store.save_last_good(&record("https://new.example", RobotsAvailability::Parsed, now - 86_400)).unwrap();
    let removed = store.prune(now, Duration::from_secs(30 * 86_400)).unwrap();
    assert_eq!(removed, 1);
    assert!(store.load_last_good("https://old.example").unwrap().is_none());
    assert!(store.load_last_good("https://new.example").unwrap().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_that_is_not_a_store_is_named_in_the_error() {
    let dir = temp_dir("garbage");
    let path = dir.join("robots.sqlite3");
    std::fs::write(&path, b"this is not a database, just text that goes on for a while....................").unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

const CHILD_ENV: &str = "WEBCANON_STORE_CHILD";

/// Run by the parent test in two child processes at once: 200 writes each.
#[test]
fn child_writer() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let (dir, tag) = spec.split_once('|').unwrap();
    let store = SqliteStore::open_dir(Path::new(dir)).unwrap();
    for i in 0..200 {
        store.save(&record(&format!("https://{tag}-{i}.example"), RobotsAvailability::Parsed, unix_now())).unwrap();
    }
}

#[test]
fn two_processes_write_one_file_without_losing_anything() {
    let dir = temp_dir("processes");
    SqliteStore::open_dir(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["left", "right"]
        .iter()
        .map(|tag| {
            Command::new(&exe)
                .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
                .env(CHILD_ENV, format!("{}|{tag}", dir.display()))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let store = SqliteStore::open_dir(&dir).unwrap();
    for tag in ["left", "right"] {
        for i in 0..200 {
            assert!(store.load(&format!("https://{tag}-{i}.example")).unwrap().is_some(), "{tag}-{i} lost");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
