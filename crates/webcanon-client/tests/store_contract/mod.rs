//! The contract every robots store keeps (memory, SQLite, Redis), shared by
//! `store_sqlite.rs` and `store_redis.rs`.

#![allow(dead_code)] // each test binary uses the part it needs

use webcanon_client::store::{RobotsRecord, RobotsStore, unix_now};
use webcanon_core::policy::RobotsAvailability;

/// A parsed-looking record for `origin`, fresh for `ttl` seconds from `fetched_at`.
pub fn record(origin: &str, availability: RobotsAvailability, fetched_at: u64, ttl: u64) -> RobotsRecord {
    RobotsRecord {
        origin: origin.into(),
        robots_url: format!("{origin}/robots.txt"),
        fetched_at,
        expires_at: fetched_at + ttl,
        status: Some(200),
        availability,
        body: Some(b"User-agent: *\nDisallow: /x\n".to_vec()),
        failures: 0,
        error: None,
    }
}

/// The latest outcome and the last good copy are kept apart, replaced by
/// later saves, and absent origins are `None`.
pub fn round_trip(store: &dyn RobotsStore) {
    let now = unix_now();
    let good = record("https://a.example", RobotsAvailability::Parsed, now, 3600);
    let mut failed = record("https://a.example", RobotsAvailability::Unreachable, now + 5, 60);
    failed.status = Some(503);
    failed.body = None;
    failed.failures = 3;
    failed.error = Some("HTTP 503".into());
    store.save(&good).unwrap();
    store.save_last_good(&good).unwrap();
    store.save(&failed).unwrap();
    assert_eq!(store.load("https://a.example").unwrap(), Some(failed));
    assert_eq!(store.load_last_good("https://a.example").unwrap(), Some(good));
    assert_eq!(store.load("https://b.example").unwrap(), None);
    assert_eq!(store.load_last_good("https://b.example").unwrap(), None);
}

/// Bodies come back byte for byte (binary, empty, CRLF, a trailing newline).
pub fn bodies(store: &dyn RobotsStore) {
    let now = unix_now();
    let bodies: [&[u8]; 4] =
        [b"", b"User-agent: *\r\nDisallow: /a\r\n\r\n", &[0xef, 0xbb, 0xbf, b'#', 0x00, 0xff, b'\n'], b"\n\n\n"];
    for (i, body) in bodies.iter().enumerate() {
        let mut r = record(&format!("https://body{i}.example"), RobotsAvailability::Parsed, now, 600);
        r.body = Some(body.to_vec());
        store.save(&r).unwrap();
        assert_eq!(store.load(&r.origin).unwrap().unwrap().body.as_deref(), Some(*body), "body {i}");
    }
}

/// An outcome past its freshness still loads (its failure count sets the
/// next back-off), marked stale; llms.txt entries share the store.
pub fn expiry(store: &dyn RobotsStore) {
    let now = unix_now();
    let mut stale = record("https://stale.example", RobotsAvailability::Unreachable, now - 120, 60);
    stale.failures = 2;
    store.save(&stale).unwrap();
    let loaded = store.load("https://stale.example").unwrap().expect("a stale outcome is kept");
    assert!(!loaded.is_fresh(now));
    assert_eq!(loaded.failures, 2);
    let fresh = record("https://fresh.example", RobotsAvailability::Parsed, now, 600);
    store.save(&fresh).unwrap();
    assert!(store.load("https://fresh.example").unwrap().unwrap().is_fresh(now));
    let llms = record("llms.txt https://a.example/llms.txt", RobotsAvailability::Parsed, now, 600);
    store.save(&llms).unwrap();
    assert_eq!(store.load("llms.txt https://a.example/llms.txt").unwrap(), Some(llms));
}
