//! `--cache redis://HOST:PORT` end to end: processes share robots.txt
//! through a real `redis-server`, a server that does not answer degrades to
//! the local cache with a warning and the right verdict, `--cache-dir` is
//! the local fallback, and a bad URL is a usage error naming the option.
//!
//! Without `redis-server` the Redis cases print a note and pass, unless
//! `WEBCANON_REQUIRE_REDIS` is set (as `scripts/test.sh` does).

mod support;

use std::net::TcpListener;

use support::{fetch_args, run, temp_dir, webcanon};
use webcanon_test::{RedisServer, Route, TestServer};

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/page", Route::text(200, "A page."));
    server.route("/private", Route::text(200, "Not for agents."));
    server
}

/// A loopback URL where nothing listens.
fn dead_redis_url() -> String {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("redis://127.0.0.1:{port}")
}

#[test]
fn bad_cache_urls_are_usage_errors_naming_the_option() {
    let table = [
        ("foo://x", "not a Redis URL"),
        ("127.0.0.1:6379", "not a Redis URL"),
        ("rediss://h:6380", "TLS"),
        ("redis://h:notaport", "not a usable Redis URL"),
    ];
    for (url, says) in table {
        let r = webcanon(&["fetch", "--cache", url, "http://127.0.0.1:1/"]);
        assert_eq!(r.code, 2, "{url}: {}", r.stderr);
        assert!(r.stderr.contains(&format!("--cache `{url}`")) && r.stderr.contains(says), "{url}: {}", r.stderr);
    }
    let r = webcanon(&["fetch", "--cache", "redis://127.0.0.1:6379", "--no-cache", "http://127.0.0.1:1/"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--no-cache"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn processes_share_robots_txt_through_redis() {
    let Some(redis) = RedisServer::start_or_skip("processes_share_robots_txt_through_redis") else { return };
    let server = site().await;
    let cache = redis.url();
    let first = run(fetch_args(&["--cache", &cache, "--json", &server.url("/page")])).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(fetch_args(&["--cache", &cache, "--json", &server.url("/page")])).await;
    assert_eq!(second.code, 0, "{}", second.stderr);
    let v: serde_json::Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(v["robots"]["from_cache"], true);
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{}", v["warnings"]);
    let refused = run(fetch_args(&["--cache", &cache, &server.url("/private")])).await;
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert_eq!(server.hits("/robots.txt"), 1, "later processes used the first one's robots.txt");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_does_not_answer_degrades_with_a_warning() {
    let server = site().await;
    let dead = dead_redis_url();
    let r = run(fetch_args(&["--cache", &dead, "--json", &server.url("/page")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let warning = v["warnings"].as_array().unwrap().iter().find(|w| w["code"] == "shared_cache_unavailable");
    let warning = warning.expect("the outage is a warning on the result");
    assert!(warning["detail"].as_str().unwrap().contains(&dead), "{warning}");
    // A lost server never reads as "no robots.txt": the site is asked.
    let refused = run(fetch_args(&["--cache", &dead, &server.url("/private")])).await;
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert_eq!(server.hits("/private"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_cache_dir_the_sqlite_file_is_the_local_fallback() {
    let server = site().await;
    let dir = temp_dir("redis-fallback");
    let local = dir.to_str().unwrap();
    let dead = dead_redis_url();
    for _ in 0..2 {
        let r = run(fetch_args(&["--cache", &dead, "--cache-dir", local, "--json", &server.url("/page")])).await;
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert_eq!(server.hits("/robots.txt"), 1, "the second process read the first one's copy from the SQLite file");
    assert!(dir.join("robots.sqlite3").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn min_interval_spaces_requests_to_a_host() {
    let server = site().await;
    server.route("/old", Route::redirect(301, "/page"));
    let started = std::time::Instant::now();
    let r = run(fetch_args(&["--no-cache", "--no-alternatives", "--min-interval", "0.3", &server.url("/old")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let requests = server.requests_with_times();
    let paths: Vec<&str> = requests.iter().map(|(_, r)| r.path_and_query.as_str()).collect();
    // With --no-cache robots.txt is read again for the hop's admission.
    assert_eq!(paths, ["/robots.txt", "/old", "/robots.txt", "/page"]);
    let times: Vec<_> = requests.iter().map(|(at, _)| *at).collect();
    // robots.txt is not paced; the redirect hop and the page are.
    assert!(times[1] - times[0] < std::time::Duration::from_millis(200), "{:?}", times[1] - times[0]);
    assert!(times[3] - times[1] >= std::time::Duration::from_millis(280), "{:?}", times[3] - times[1]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let r = webcanon(&["fetch", "--min-interval=-1", "http://127.0.0.1:1/"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--min-interval"), "{}", r.stderr);
}
