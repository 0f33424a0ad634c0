//! Per-host pacing in one process, against a real loopback server: the
//! minimum interval, the agent's `Crawl-delay` honoured up to the cap (and a
//! warning past it), one pacer shared by clones and `with_agent` clients,
//! and other hosts not held up.

use std::time::{Duration, Instant};

use webcanon_client::ssrf::{ResolveOverride, SsrfPolicy};
use webcanon_client::{CacheSetting, Client, ClientBuilder};
use webcanon_test::{Route, TestServer};

fn builder(server: &TestServer) -> ClientBuilder {
    let mut policy = SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap());
    for host in ["a.test", "b.test"] {
        policy =
            policy.resolve(ResolveOverride { host: host.into(), port: server.port(), addr: [127, 0, 0, 1].into() });
    }
    Client::builder().agent("bot").alternatives(false).cache(CacheSetting::Memory).ssrf_policy(policy)
}

fn url(server: &TestServer, host: &str, path: &str) -> String {
    format!("http://{host}:{}{path}", server.port())
}

/// The gaps between consecutive requests to `host`, in order.
fn gaps(server: &TestServer, host: &str) -> Vec<Duration> {
    let times: Vec<Instant> = server
        .requests_with_times()
        .into_iter()
        .filter(|(_, r)| r.host.as_deref().is_some_and(|h| h.starts_with(host)))
        .map(|(at, _)| at)
        .collect();
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_delay_spaces_requests_and_a_larger_one_is_capped_with_a_warning() {
    // (robots.txt, cap, expected spacing of the pages, capped?). The
    // delays are long beside a loaded machine's scheduling jitter, and each
    // bound below is half a delay away from what it tells apart.
    let table = [
        ("User-agent: bot\nCrawl-delay: 0.6\nAllow: /\n", 10.0, 600, false),
        ("User-agent: *\nCrawl-delay: 30\n", 0.7, 700, true),
        // Another agent's delay (its group has a rule, so `*` starts a new one).
        ("User-agent: other\nCrawl-delay: 30\nDisallow: /x\n\nUser-agent: *\nAllow: /\n", 0.7, 0, false),
    ];
    for (robots, cap, spacing_ms, capped) in table {
        let server = TestServer::start().await;
        server.route("/robots.txt", Route::text(200, robots));
        server.route("/page", Route::text(200, "A page."));
        let client = builder(&server).max_crawl_delay(Duration::from_secs_f64(cap)).build().unwrap();
        let mut warned = Vec::new();
        for _ in 0..3 {
            let result = client.fetch(&url(&server, "a.test", "/page")).await.unwrap();
            warned.push(result.warnings.iter().any(|w| w.code.as_str() == "crawl_delay_capped"));
        }
        assert_eq!(warned, [capped; 3], "{robots:?}");
        // robots.txt is not paced: the first page does not wait its delay.
        let all = gaps(&server, "a.test");
        assert!(all[0] < Duration::from_millis(300), "{robots:?}: the first page waited {:?}", all[0]);
        let spacing = Duration::from_millis(spacing_ms);
        let page_gaps = &gaps(&server, "a.test")[1..];
        assert_eq!(page_gaps.len(), 2);
        for gap in page_gaps {
            assert!(*gap + Duration::from_millis(10) >= spacing, "{robots:?}: {gap:?} under {spacing:?}");
            assert!(*gap < spacing + Duration::from_millis(300), "{robots:?}: {gap:?} far over {spacing:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clones_and_other_agents_share_the_pacer_and_other_hosts_are_not_held_up() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(404, "none"));
    server.route("/page", Route::text(200, "A page."));
    // Long beside scheduling jitter: "not held up" is under half of it.
    let interval = Duration::from_millis(600);
    let client = builder(&server).min_interval(interval).build().unwrap();
    let other = client.with_agent(&"OtherBot".parse().unwrap(), None).unwrap();
    let clone = client.clone();
    // A first host: its first request goes out at once (and the server and
    // the connection pool are warm for what is measured next).
    let before = Instant::now();
    client.fetch(&url(&server, "b.test", "/page")).await.unwrap();
    let (first, _) = server.requests_with_times()[0].clone();
    assert!(first - before < interval / 2, "b.test waited {:?}", first - before);
    // Another host is not held up by the first one's slots.
    let page = url(&server, "a.test", "/page");
    let started = Instant::now();
    let (a, b, c) = tokio::join!(client.fetch(&page), other.fetch(&page), clone.fetch(&page));
    for result in [a, b, c] {
        result.unwrap();
    }
    let requests = server.requests_with_times();
    let (first, _) = requests.iter().find(|(_, r)| r.host.as_deref().is_some_and(|h| h.starts_with("a.test"))).unwrap();
    assert!(*first - started < interval / 2, "a.test waited {:?}", *first - started);
    // robots.txt once (not paced: the first page follows it at once), then
    // three pages, each an interval after the last.
    let a_gaps = gaps(&server, "a.test");
    assert_eq!(a_gaps.len(), 3);
    assert!(a_gaps[0] < interval / 2, "the first page waited for robots.txt's slot: {a_gaps:?}");
    for gap in &a_gaps[1..] {
        assert!(*gap + Duration::from_millis(10) >= interval, "{a_gaps:?}");
    }
    assert!(started.elapsed() >= interval * 2);
}
