//! `map` against loopback sites: every source, verdicts with their rules,
//! de-duplication, scope, the limits, and a sitemap of 100,000 URLs in
//! bounded time and memory.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_client::Client;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_crawl::map::{MapConfig, MapError, MapRecord, MapSource, MapSources, MapSummary, map_site};
use webcanon_test::{Route, TestServer};

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(5))
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

async fn map(server: &TestServer, config: &MapConfig) -> (Vec<MapRecord>, MapSummary) {
    let mut records = Vec::new();
    let start = Url::parse(&server.url("/")).unwrap();
    let summary = map_site(&client(), &start, config, |record| {
        records.push(record);
        ControlFlow::Continue(())
    })
    .await
    .unwrap();
    (records, summary)
}

async fn small_site() -> TestServer {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route(
        "/robots.txt",
        Route::text(200, "User-agent: *\nDisallow: /private\nAllow: /private/open\n\nSitemap: /sitemap_index.xml\n"),
    );
    server.route(
        "/sitemap_index.xml",
        Route::bytes(
            200,
            "application/xml",
            format!(
                r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{base}/pages.xml.gz</loc></sitemap></sitemapindex>"#
            )
            .into_bytes(),
        ),
    );
    let entries = [
        format!("<url><loc>{base}/a</loc><lastmod>2026-01-02</lastmod></url>"),
        format!("<url><loc>{base}/b?utm_source=feed</loc></url>"),
        format!("<url><loc>{base}/b</loc></url>"),
        format!("<url><loc>{base}/private/x</loc></url>"),
        format!("<url><loc>{base}/private/open/y</loc></url>"),
        "<url><loc>https://other.example/elsewhere</loc></url>".to_string(),
    ];
    server.route(
        "/pages.xml.gz",
        Route::bytes(200, "application/gzip", webcanon_test::gzip(webcanon_test::urlset(entries).as_bytes())),
    );
    server.route(
        "/llms.txt",
        Route::text(200, "# Site\n\n> A site.\n\n## Docs\n\n- [A](/a): page a\n- [Docs](/docs): the docs\n"),
    );
    server.route(
        "/",
        Route::html(
            200,
            r#"<html><body><a href="/b">b</a> <a href="/c#part">c</a> <a rel="nofollow" href="/d">d</a> <a href="https://other.example/x">x</a></body></html>"#,
        ),
    );
    server
}

#[tokio::test]
async fn a_site_maps_from_every_source_once_each_with_its_verdict_and_rule() {
    let server = small_site().await;
    let (records, summary) = map(&server, &MapConfig::default()).await;
    let base = server.url("");
    let row = |path: &str| {
        records.iter().find(|r| r.url == format!("{base}{path}")).unwrap_or_else(|| panic!("{path}: {records:#?}"))
    };
    let sources = |path: &str| row(path).sources.clone();
    assert_eq!(sources("/a"), [MapSource::Sitemap, MapSource::LlmsTxt]);
    assert_eq!(sources("/b"), [MapSource::Sitemap, MapSource::Link]);
    assert_eq!(sources("/docs"), [MapSource::LlmsTxt]);
    assert_eq!(sources("/c"), [MapSource::Link]);
    assert_eq!(row("/a").lastmod.as_deref(), Some("2026-01-02"));
    assert!(row("/a").allowed);
    let private = row("/private/x");
    assert!(!private.allowed);
    assert_eq!(private.rule.as_ref().unwrap().pattern, "/private");
    let open = row("/private/open/y");
    assert!(open.allowed, "the longer Allow wins over the shorter Disallow");
    assert_eq!(open.rule.as_ref().unwrap().pattern, "/private/open");
    assert!(records.iter().all(|r| !r.url.ends_with("/d")), "a nofollow link is not mapped");
    assert!(records.iter().all(|r| !r.url.contains("other.example")), "other sites are out of scope");
    assert_eq!(records.len(), 6, "{records:#?}");
    assert_eq!((summary.urls, summary.allowed), (6, 5));
    assert_eq!(summary.out_of_scope, 2);
    assert_eq!(summary.duplicates, 3, "{summary:?}");
    assert!(summary.llms_txt);
    assert_eq!(summary.sitemaps_read, 2);
}

#[tokio::test]
async fn sources_can_be_chosen_and_the_scope_narrowed() {
    let server = small_site().await;
    let config = MapConfig {
        sources: MapSources { sitemaps: true, llms_txt: false, links: false },
        scope: webcanon_crawl::ScopeConfig { exclude: vec!["/private/open".into()], ..Default::default() },
        ..MapConfig::default()
    };
    let (records, summary) = map(&server, &config).await;
    let paths: Vec<&str> = records.iter().map(|r| r.url.trim_start_matches(&server.url(""))).collect();
    assert_eq!(paths, ["/a", "/b", "/private/x"]);
    assert!(records.iter().all(|r| r.sources == [MapSource::Sitemap]));
    assert_eq!(server.hits("/llms.txt"), 0);
    assert_eq!(server.hits("/"), 0);
    assert_eq!(summary.out_of_scope, 2);
}

#[tokio::test]
async fn include_patterns_narrow_every_source() {
    let server = small_site().await;
    let config = MapConfig {
        scope: webcanon_crawl::ScopeConfig { include: vec!["/private/".into()], ..Default::default() },
        ..MapConfig::default()
    };
    let (records, _) = map(&server, &config).await;
    let paths: Vec<&str> = records.iter().map(|r| r.url.trim_start_matches(&server.url(""))).collect();
    assert_eq!(
        paths,
        ["/private/x", "/private/open/y"],
        "sitemap, llms.txt and link URLs outside the pattern are left out"
    );
}

#[tokio::test]
async fn a_map_stops_at_its_url_limit_and_when_the_caller_stops() {
    let server = small_site().await;
    let (records, summary) = map(&server, &MapConfig { max_urls: 2, ..MapConfig::default() }).await;
    assert_eq!(records.len(), 2);
    assert!(summary.stopped);
    let mut seen = 0;
    let start = Url::parse(&server.url("/")).unwrap();
    let summary = map_site(&client(), &start, &MapConfig::default(), |_| {
        seen += 1;
        if seen == 3 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })
    .await
    .unwrap();
    assert_eq!((seen, summary.urls, summary.stopped), (3, 3, true));
}

#[tokio::test]
async fn a_refused_start_is_an_error_before_any_record() {
    let guarded = Client::builder().build().unwrap();
    let start = Url::parse("http://127.0.0.1:9/").unwrap();
    let outcome = map_site(&guarded, &start, &MapConfig::default(), |_| ControlFlow::Continue(())).await;
    assert!(matches!(outcome, Err(MapError::Client(ref e)) if e.is_ssrf()), "{outcome:?}");
    let bad_scope = MapConfig {
        scope: webcanon_crawl::ScopeConfig { include: vec!["docs".into()], ..Default::default() },
        ..MapConfig::default()
    };
    let outcome = map_site(&client(), &start, &bad_scope, |_| ControlFlow::Continue(())).await;
    assert!(matches!(outcome, Err(MapError::Scope(_))), "{outcome:?}");
}

/// The peak resident memory of this test process, its loopback site
/// included, while it maps 100,000 URLs.
const MEMORY_CEILING_MIB: u64 = 160;

/// A site whose index lists two gzip sitemaps of 50,000 URLs each (the
/// protocol's most), one URL in ten disallowed.
async fn large_site() -> TestServer {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /*/9$\nSitemap: /index.xml\n"));
    server.route(
        "/index.xml",
        Route::bytes(
            200,
            "application/xml",
            format!(
                r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{base}/s0.xml.gz</loc></sitemap><sitemap><loc>{base}/s1.xml.gz</loc></sitemap></sitemapindex>"#
            )
            .into_bytes(),
        ),
    );
    for part in 0..2 {
        let urls = (0..50_000).map(|n| format!("<url><loc>{base}/p{part}/{}/{}</loc></url>", n / 10, n % 10));
        server.route(
            &format!("/s{part}.xml.gz"),
            Route::bytes(200, "application/gzip", webcanon_test::gzip(webcanon_test::urlset(urls).as_bytes())),
        );
    }
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_of_100000_urls_maps_in_seconds_in_bounded_memory() {
    let server = large_site().await;
    let config =
        MapConfig { sources: MapSources { sitemaps: true, llms_txt: false, links: false }, ..MapConfig::default() };
    let start = Url::parse(&server.url("/")).unwrap();
    let client = client();
    let began = Instant::now();
    let mut allowed = 0u64;
    let mut count = 0u64;
    let summary = map_site(&client, &start, &config, |record| {
        count += 1;
        allowed += u64::from(record.allowed);
        ControlFlow::Continue(())
    })
    .await
    .unwrap();
    let took = began.elapsed();
    let peak_mib = webcanon_test::memory::peak_kib() / 1024;
    eprintln!("100,000 URLs mapped in {:.2} s; peak resident memory of the test {peak_mib} MiB", took.as_secs_f64());
    assert_eq!((count, summary.urls, allowed), (100_000, 100_000, 90_000));
    assert!(took < Duration::from_secs(30), "{took:?}");
    // The process (the test server and its sitemaps included) holds one
    // sitemap's text and URLs at a time, and 8 bytes a URL seen.
    assert!(peak_mib < MEMORY_CEILING_MIB, "peak {peak_mib} MiB");
}

#[tokio::test]
async fn the_stream_gives_the_records_of_the_run_and_ends_with_it() {
    use futures_util::StreamExt;
    let server = small_site().await;
    let start = Url::parse(&server.url("/")).unwrap();
    let streamed: Vec<_> = webcanon_crawl::map::map_stream(client(), start, MapConfig::default()).collect().await;
    let (records, _) = map(&server, &MapConfig::default()).await;
    let streamed: Vec<MapRecord> = streamed.into_iter().map(Result::unwrap).collect();
    assert_eq!(streamed, records);
    let guarded = Client::builder().build().unwrap();
    let refused: Vec<_> =
        webcanon_crawl::map::map_stream(guarded, Url::parse("http://127.0.0.1:9/").unwrap(), MapConfig::default())
            .collect()
            .await;
    assert!(matches!(refused.as_slice(), [Err(MapError::Client(_))]), "{refused:?}");
}
