//! The Redis store against a real `redis-server` (started here on a free
//! loopback port, killed on drop): the store contract of
//! `store_contract`, key layout and expiry, the fleet fetch lock,
//! shared pacing slots, and degradation to the local store when the server
//! is killed, then recovery when it is back.
//!
//! Without `redis-server` the Redis cases print a note and pass, unless
//! `WEBCANON_REQUIRE_REDIS` is set (as `scripts/test.sh` does).

use std::sync::Arc;
use std::time::{Duration, Instant};

mod store_contract;

use store_contract::record;
use webcanon_client::store::{FetchLock, MemoryStore, RedisOptions, RedisStore, RobotsStore, unix_now};
use webcanon_client::{CacheSetting, Client};
use webcanon_core::policy::{RobotsAvailability, Verdict};
use webcanon_test::{RedisServer, Route, TestServer};

fn open_redis(server: &RedisServer) -> RedisStore {
    RedisStore::open(&server.url(), Arc::new(MemoryStore::new()), RedisOptions::default()).unwrap()
}

/// A raw connection to look at keys behind the store's back.
fn raw(server: &RedisServer) -> ::redis::Connection {
    ::redis::Client::open(server.url()).unwrap().get_connection().unwrap()
}

// ---------------------------------------------------------------------------
// The store contract (`store_contract`), here for Redis; `store_sqlite.rs`
// runs it for the memory and SQLite stores.

mod redis_store {
    use super::*;

    fn make() -> Option<(RedisStore, RedisServer)> {
        RedisServer::start_or_skip("store contract").map(|server| (open_redis(&server), server))
    }

    #[test]
    fn round_trip() {
        let Some((store, _server)) = make() else { return };
        store_contract::round_trip(&store);
    }

    #[test]
    fn bodies() {
        let Some((store, _server)) = make() else { return };
        store_contract::bodies(&store);
    }

    #[test]
    fn expiry() {
        let Some((store, _server)) = make() else { return };
        store_contract::expiry(&store);
    }
}

// ---------------------------------------------------------------------------
// Redis only.

#[test]
fn keys_and_expiry_on_the_server() {
    let Some(server) = RedisServer::start_or_skip("keys_and_expiry_on_the_server") else { return };
    let store = open_redis(&server);
    let mut raw = raw(&server);
    let now = unix_now();
    let latest = record("https://k.example", RobotsAvailability::Parsed, now, 600);
    store.save(&latest).unwrap();
    store.save_last_good(&latest).unwrap();
    let pttl = |raw: &mut ::redis::Connection, key: &str| -> i64 { ::redis::cmd("PTTL").arg(key).query(raw).unwrap() };
    // The latest outcome lives an hour past its freshness.
    let ttl = pttl(&mut raw, "webcanon:robots:https://k.example");
    assert!(((600 + 3600 - 2) * 1000..=(600 + 3600) * 1000).contains(&ttl), "{ttl}");
    // The last good copy 30 days from its fetch.
    let ttl = pttl(&mut raw, "webcanon:robots-good:https://k.example");
    assert!(((30 * 86_400 - 2) * 1000..=30 * 86_400 * 1000).contains(&ttl), "{ttl}");
    // A value is a JSON line, then the body as it came.
    let value: Vec<u8> = ::redis::cmd("GET").arg("webcanon:robots:https://k.example").query(&mut raw).unwrap();
    let (header, body) = value.split_at(value.iter().position(|b| *b == b'\n').unwrap());
    let header: serde_json::Value = serde_json::from_slice(header).unwrap();
    assert_eq!(header["origin"], "https://k.example");
    assert_eq!(&body[1..], latest.body.as_deref().unwrap());
    // llms.txt entries have their own namespace.
    store.save(&record("llms.txt https://k.example/llms.txt", RobotsAvailability::Parsed, now, 600)).unwrap();
    let exists: i64 = ::redis::cmd("EXISTS").arg("webcanon:llms:https://k.example/llms.txt").query(&mut raw).unwrap();
    assert_eq!(exists, 1);
    // A copy older than 30 days is not kept at all.
    let old = record("https://old.example", RobotsAvailability::Parsed, now - 31 * 86_400, 600);
    store.save_last_good(&old).unwrap();
    let exists: i64 = ::redis::cmd("EXISTS").arg("webcanon:robots-good:https://old.example").query(&mut raw).unwrap();
    assert_eq!(exists, 0);
}

#[test]
fn entries_are_shared_between_stores() {
    let Some(server) = RedisServer::start_or_skip("entries_are_shared_between_stores") else { return };
    let (one, two) = (open_redis(&server), open_redis(&server));
    let r = record("https://shared.example", RobotsAvailability::Parsed, unix_now(), 600);
    one.save(&r).unwrap();
    one.save_last_good(&r).unwrap();
    assert_eq!(two.load("https://shared.example").unwrap(), Some(r.clone()));
    assert_eq!(two.load_last_good("https://shared.example").unwrap(), Some(r));
    assert_eq!(one.health().errors + two.health().errors, 0);
}

#[test]
fn an_undecodable_entry_is_an_error_not_an_absence() {
    let Some(server) = RedisServer::start_or_skip("an_undecodable_entry_is_an_error_not_an_absence") else { return };
    let store = open_redis(&server);
    let _: () =
        ::redis::cmd("SET").arg("webcanon:robots:https://bad.example").arg("garbage").query(&mut raw(&server)).unwrap();
    let err = store.load("https://bad.example").unwrap_err().to_string();
    assert!(err.contains("webcanon:robots:https://bad.example"), "{err}");
}

#[test]
fn fetch_lock_is_exclusive_released_by_its_holder_only_and_expires() {
    let Some(server) = RedisServer::start_or_skip("fetch_lock") else { return };
    let (one, two) = (open_redis(&server), open_redis(&server));
    let origin = "https://lock.example";
    let FetchLock::Acquired(token) = one.try_fetch_lock(origin, Duration::from_secs(5)).unwrap() else {
        panic!("the first caller takes the lock")
    };
    assert_eq!(two.try_fetch_lock(origin, Duration::from_secs(5)).unwrap(), FetchLock::Busy);
    // Another token does not release it.
    two.release_fetch_lock(origin, "not-the-token").unwrap();
    assert_eq!(two.try_fetch_lock(origin, Duration::from_secs(5)).unwrap(), FetchLock::Busy);
    one.release_fetch_lock(origin, &token).unwrap();
    let FetchLock::Acquired(_) = two.try_fetch_lock(origin, Duration::from_millis(150)).unwrap() else {
        panic!("released: the next caller takes it")
    };
    assert_eq!(one.try_fetch_lock(origin, Duration::from_secs(5)).unwrap(), FetchLock::Busy);
    std::thread::sleep(Duration::from_millis(250));
    assert!(matches!(one.try_fetch_lock(origin, Duration::from_secs(5)).unwrap(), FetchLock::Acquired(_)), "expired");
}

#[test]
fn pacing_slots_are_shared_between_stores() {
    let Some(server) = RedisServer::start_or_skip("pacing_slots_are_shared_between_stores") else { return };
    let (one, two) = (open_redis(&server), open_redis(&server));
    let interval = Duration::from_millis(100);
    let waits: Vec<Duration> = (0..6)
        .map(|i| if i % 2 == 0 { &one } else { &two }.reserve_slot("pace.example", interval).unwrap().unwrap())
        .collect();
    // Reserved back to back: each slot one interval after the one before.
    for (i, wait) in waits.iter().enumerate() {
        let expected = interval * i as u32;
        let slack = Duration::from_millis(30);
        assert!(*wait + slack >= expected && *wait <= expected, "slot {i}: {wait:?}, expected {expected:?}");
    }
    // Another host has its own slots.
    assert!(one.reserve_slot("other.example", interval).unwrap().unwrap() < Duration::from_millis(5));
}

#[test]
fn a_killed_server_degrades_to_the_local_store_and_recovers() {
    let Some(mut server) = RedisServer::start_or_skip("degrade_and_recover") else { return };
    let options = RedisOptions { retry_interval: Duration::from_millis(200), ..RedisOptions::default() };
    let store = RedisStore::open(&server.url(), Arc::new(MemoryStore::new()), options).unwrap();
    let before = record("https://before.example", RobotsAvailability::Parsed, unix_now(), 600);
    store.save(&before).unwrap();
    assert_eq!(store.health().degraded, None);

    server.kill();
    let started = Instant::now();
    // What this process wrote is still there, from the local copy.
    assert_eq!(store.load("https://before.example").unwrap(), Some(before.clone()));
    let during = record("https://during.example", RobotsAvailability::Parsed, unix_now(), 600);
    store.save(&during).unwrap();
    assert_eq!(store.load("https://during.example").unwrap(), Some(during.clone()));
    assert_eq!(store.try_fetch_lock("https://during.example", Duration::from_secs(5)).unwrap(), FetchLock::Local);
    assert_eq!(store.reserve_slot("during.example", Duration::from_millis(50)).unwrap(), None);
    // Refused connections answer at once; the bound only has to tell that
    // from a client that sleeps between reconnection attempts (seconds
    // each), with room for a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(3), "a dead server fails fast: {:?}", started.elapsed());
    let health = store.health();
    assert!(health.degraded.as_deref().is_some_and(|d| d.contains(&server.url())), "{health:?}");
    assert!(health.errors >= 4, "{health:?}");

    server.restart();
    std::thread::sleep(Duration::from_millis(250));
    // The first call after the retry interval reconnects.
    assert!(matches!(
        store.try_fetch_lock("https://after.example", Duration::from_secs(5)).unwrap(),
        FetchLock::Acquired(_)
    ));
    assert_eq!(store.health().degraded, None);
    // The restarted server is empty; the local copy still answers.
    assert_eq!(store.load("https://during.example").unwrap(), Some(during));
    let after = record("https://after.example", RobotsAvailability::Parsed, unix_now(), 600);
    store.save(&after).unwrap();
    assert_eq!(open_redis(&server).load("https://after.example").unwrap(), Some(after));
}

// ---------------------------------------------------------------------------
// The fleet lock through the client.

fn loopback_client(server: &RedisServer, agent: &str) -> Client {
    Client::builder()
        .agent(agent)
        .ssrf_policy(webcanon_client::ssrf::SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .cache(CacheSetting::Redis { url: server.url(), local_dir: None })
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_fetch_a_slow_robots_txt_once() {
    let Some(redis) = RedisServer::start_or_skip("two_clients_fetch_a_slow_robots_txt_once") else { return };
    let site = TestServer::start().await;
    site.route(
        "/robots.txt",
        Route::text(200, "User-agent: *\nDisallow: /private\n").delay(Duration::from_millis(300)),
    );
    let (one, two) = (loopback_client(&redis, "bot"), loopback_client(&redis, "bot"));
    let (private, public) = (site.url("/private/a"), site.url("/public"));
    let (a, b) = tokio::join!(one.check(&private), two.check(&public));
    assert_eq!(a.unwrap().robots.verdict, Verdict::DisallowedExplicit);
    assert_eq!(b.unwrap().robots.verdict, Verdict::AllowedImplicit);
    assert_eq!(site.hits("/robots.txt"), 1, "one fetch for both clients");
    assert_eq!(one.cache_stats().fetches + two.cache_stats().fetches, 1);
    assert_eq!(one.cache_stats().store_errors + two.cache_stats().store_errors, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lock_never_released_is_taken_over_after_it_expires() {
    let Some(redis) = RedisServer::start_or_skip("a_lock_never_released_is_taken_over_after_it_expires") else {
        return;
    };
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let origin = format!("http://{}", site.addr());
    // A holder that crashed: the lock is there, nobody will release it.
    let _: () = ::redis::cmd("SET")
        .arg(format!("webcanon:robots-lock:{origin}"))
        .arg("crashed-holder")
        .arg("PX")
        .arg(600)
        .query(&mut raw(&redis))
        .unwrap();
    let client = loopback_client(&redis, "bot");
    let started = Instant::now();
    let evidence = client.check(&site.url("/private/x")).await.unwrap().robots;
    let waited = started.elapsed();
    assert_eq!(evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(site.hits("/robots.txt"), 1);
    assert!(waited >= Duration::from_millis(550), "waited for the lock to expire: {waited:?}");
    assert!(waited < Duration::from_secs(3), "took it over soon after: {waited:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_dropped_half_way_releases_the_lock_at_once() {
    let Some(redis) = RedisServer::start_or_skip("a_fetch_dropped_half_way_releases_the_lock_at_once") else {
        return;
    };
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, "User-agent: *\n").delay(Duration::from_secs(5)));
    let key = format!("webcanon:robots-lock:http://{}", site.addr());
    let client = loopback_client(&redis, "bot");
    let url = site.url("/x");
    let check = client.check(&url);
    let held = async {
        while site.hits("/robots.txt") == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        ::redis::cmd("EXISTS").arg(&key).query::<i64>(&mut raw(&redis)).unwrap()
    };
    // The fetch is under way with the lock held; then its future is dropped
    // (as a request timeout or a cancelled tool call drops it).
    tokio::select! {
        _ = check => panic!("robots.txt answers only after 5 s"),
        exists = held => assert_eq!(exists, 1, "the lock is held during the fetch"),
    }
    // The release runs on the blocking pool (a drop cannot wait for the
    // store): it lands within moments, where the lock itself would last for
    // the fleet lock's time (a minute and more).
    let mut exists = 1;
    for _ in 0..200 {
        exists = ::redis::cmd("EXISTS").arg(&key).query(&mut raw(&redis)).unwrap();
        if exists == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(exists, 0, "the lock is released when the fetch is dropped, not when it expires");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_gives_right_verdicts_and_a_warning() {
    let Some(mut redis) = RedisServer::start_or_skip("a_dead_server_gives_right_verdicts_and_a_warning") else {
        return;
    };
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    site.route("/public", Route::text(200, "hello"));
    let client = loopback_client(&redis, "bot");
    redis.kill();
    let refused = client.fetch(&site.url("/private/x")).await.unwrap_err();
    assert!(refused.to_string().contains("robots"), "{refused}");
    let page = client.fetch(&site.url("/public")).await.unwrap();
    assert_eq!(page.robots.verdict, Verdict::AllowedImplicit);
    let warning =
        page.warnings.iter().find(|w| w.code.as_str() == "shared_cache_unavailable").expect("degradation warned");
    assert_eq!(warning.source.as_str(), "cache");
    assert!(warning.detail.contains(&redis.url()), "{}", warning.detail);
    assert_eq!(site.hits("/robots.txt"), 1, "the local cache still keeps the outcome");
    assert!(client.cache_stats().store_errors > 0);
    assert!(client.cache_health().degraded.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pacing_is_shared_by_clients_on_one_server() {
    let Some(redis) = RedisServer::start_or_skip("pacing_is_shared_by_clients_on_one_server") else { return };
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(404, "none"));
    site.route("/page", Route::text(200, "hello"));
    let interval = Duration::from_millis(80);
    let make = || {
        Client::builder()
            .agent("bot")
            .min_interval(interval)
            .alternatives(false)
            .ssrf_policy(webcanon_client::ssrf::SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
            .cache(CacheSetting::Redis { url: redis.url(), local_dir: None })
            .build()
            .unwrap()
    };
    let (one, two) = (make(), make());
    let url = site.url("/page");
    let mut fetches = tokio::task::JoinSet::new();
    for i in 0..4 {
        let client = if i % 2 == 0 { one.clone() } else { two.clone() };
        let url = url.clone();
        fetches.spawn(async move { client.fetch(&url).await.map(|_| ()) });
    }
    while let Some(outcome) = fetches.join_next().await {
        outcome.unwrap().unwrap();
    }
    let requests = site.requests_with_times();
    assert_eq!(requests.len(), 5, "robots.txt once, the page four times");
    // robots.txt is not paced (it decides whether anything may be fetched at all); the pages are.
    let times: Vec<Instant> =
        requests.into_iter().filter(|(_, logged)| logged.path_and_query == "/page").map(|(at, _)| at).collect();
    assert_eq!(times.len(), 4);
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(gap >= interval - Duration::from_millis(15), "requests {gap:?} apart, under {interval:?}");
    }
}
