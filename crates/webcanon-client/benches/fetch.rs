//! The retrieval layer's overhead, measured against a loopback server:
//! - a robots decision served from the cache (`Client::check` on a warm
//!   cache: URL parsing, the SSRF guard, the cache lookup, the match);
//! - the whole fetch path (guard, robots from the cache, GET, body, decoding)
//!   next to a bare `reqwest` GET of the same page, in one run.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nDisallow: /*?session=\nAllow: /private/open\n\nUser-agent: GPTBot\nDisallow: /\n";

fn benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = runtime.block_on(async {
        let server = TestServer::start().await;
        server.route("/robots.txt", Route::text(200, ROBOTS));
        let markdown = format!("# Notes\n\n{}", "A line of text about robots and agents.\n".repeat(50));
        server.route("/notes.md", Route::bytes(200, "text/markdown; charset=utf-8", markdown.into_bytes()));
        let html = format!(
            "<html><head><title>T</title></head><body><main><h1>T</h1>{}</main></body></html>",
            "<p>A paragraph about robots and agents, long enough to be content.</p>".repeat(20)
        );
        server.route("/page.html", Route::html(200, &html));
        server
    });
    let client = Client::builder()
        .agent("BenchBot")
        .cache(CacheSetting::Memory)
        .timeout(Duration::from_secs(5))
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()))
        .build()
        .unwrap();
    let check_url = server.url("/private/open/doc?id=3");
    runtime.block_on(client.check(&check_url)).unwrap();

    let mut group = c.benchmark_group("robots");
    group.bench_function("cache hit + decision (Client::check)", |b| {
        b.to_async(&runtime).iter(|| async { client.check(&check_url).await.unwrap() })
    });
    group.finish();

    let bare = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut group = c.benchmark_group("fetch");
    group.measurement_time(Duration::from_secs(4));
    for path in ["/notes.md", "/page.html"] {
        let url = server.url(path);
        group.bench_function(format!("bare reqwest GET {path}"), |b| {
            b.to_async(&runtime).iter(|| async { bare.get(&url).send().await.unwrap().bytes().await.unwrap() })
        });
        group.bench_function(format!("webcanon Client::fetch {path}"), |b| {
            b.to_async(&runtime).iter(|| async { client.fetch(&url).await.unwrap() })
        });
    }
    group.finish();
    drop(server);
}

criterion_group! {
    name = fetch;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2)).sample_size(20);
    targets = benches
}
criterion_main!(fetch);
