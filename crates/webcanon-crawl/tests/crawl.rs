//! Crawls of loopback sites: policy, records, traps.

use std::time::Duration;

use url::Url;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client, PageRecord};
use webcanon_crawl::frontier::Frontier;
use webcanon_crawl::{CrawlConfig, CrawlLimits, Crawler, JsonLines, ScopeConfig, SeedSources};
use webcanon_test::{Route, TestServer};

fn client() -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

fn page(title: &str, body: &str) -> Route {
    Route::html(
        200,
        &format!(
            "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{title}: a page with enough words of its own to be a page, not a teaser.</p>{body}</main></body></html>"
        ),
    )
}

async fn crawl(server: &TestServer, config: CrawlConfig) -> Vec<PageRecord> {
    crawl_with(client(), server, config).await
}

/// A client that keeps robots.txt and llms.txt in memory, as `webcanon
/// crawl` does by default.
fn caching_client() -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

async fn crawl_with(client: Client, server: &TestServer, config: CrawlConfig) -> Vec<PageRecord> {
    let mut frontier = Frontier::in_memory().unwrap();
    let mut out = Vec::new();
    let options = *client.fetch_options();
    let crawler = Crawler::new(client, options, config);
    let start = Url::parse(&server.url("/")).unwrap();
    crawler.run(&[start], &mut frontier, &mut JsonLines::new(&mut out), &mut ()).await.unwrap();
    String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn config() -> CrawlConfig {
    CrawlConfig {
        seeds: SeedSources { start: true, sitemap: false, llms: false },
        probe_soft_404: false,
        ..CrawlConfig::default()
    }
}

fn reason_of<'a>(records: &'a [PageRecord], url_end: &str) -> Option<&'a str> {
    let record = records
        .iter()
        .find(|r| r.requested_url.ends_with(url_end))
        .unwrap_or_else(|| panic!("no record of {url_end}: {records:#?}"));
    record.not_fetched.map(|r| r.as_str())
}

#[tokio::test]
async fn a_site_is_crawled_once_per_url_within_policy() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route(
        "/",
        page(
            "Home",
            r#"<a href="/a">A</a> <a href="/a?utm_source=x#top">A again</a> <a href="/private/x">P</a>
               <a rel="nofollow" href="/login">Log in</a> <a href="https://elsewhere.example/">Off</a> <a href="/copy">Copy</a>"#,
        ),
    );
    server.route("/a", page("A", r#"<a href="/">Home</a> <a href="/b">B</a>"#));
    server.route("/b", page("B", ""));
    server.route("/copy", page("A", r#"<a href="/">Home</a> <a href="/b">B</a>"#));
    server.route("/login", page("Login", ""));
    let records = crawl(&server, config()).await;
    assert_eq!(reason_of(&records, "/"), None);
    assert_eq!(reason_of(&records, "/a"), None);
    assert_eq!(reason_of(&records, "/b"), None);
    assert_eq!(reason_of(&records, "/private/x"), Some("disallowed"));
    assert_eq!(reason_of(&records, "/login"), Some("nofollow"));
    assert_eq!(reason_of(&records, "elsewhere.example/"), Some("out_of_scope"));
    assert_eq!(reason_of(&records, "/copy"), Some("duplicate"));
    assert_eq!(records.len(), 7, "{records:#?}");
    let b = records.iter().find(|r| r.requested_url.ends_with("/b")).unwrap();
    assert_eq!((b.depth, b.parent.as_deref()), (Some(2), Some(server.url("/a").as_str())));
    // Robots.txt before every request: the disallowed page was never asked for.
    assert_eq!(server.hits("/private/x"), 0);
    assert_eq!(server.hits("/login"), 0);
    for path in ["/", "/a", "/b", "/copy"] {
        assert_eq!(server.hits(path), 1, "{path}");
    }
}

#[tokio::test]
async fn limits_end_the_crawl_and_record_what_is_left() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let links: String = (0..20).map(|n| format!("<a href=/p{n}>p{n}</a> ")).collect();
    server.route("/", page("Home", &links));
    for n in 0..20 {
        server.route(&format!("/p{n}"), page(&format!("Page {n}"), ""));
    }
    let limits = CrawlLimits { max_pages: Some(5), ..CrawlLimits::default() };
    let records = crawl(&server, CrawlConfig { limits, ..config() }).await;
    assert_eq!(records.iter().filter(|r| r.is_fetched()).count(), 5);
    assert_eq!(records.iter().filter(|r| r.not_fetched.is_some_and(|n| n.as_str() == "limit")).count(), 16);
    // Pages only: the client also reads robots.txt and looks for llms.txt.
    let pages =
        server.requests().iter().filter(|r| r.path_and_query == "/" || r.path_and_query.starts_with("/p")).count();
    assert_eq!(pages, 5, "{:?}", server.requests());
}

#[tokio::test]
async fn an_infinite_calendar_stops_at_the_depth_limit() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", page("Home", "<a href=/cal?day=1>calendar</a>"));
    for day in 1..100 {
        server.route(
            &format!("/cal?day={day}"),
            page(&format!("Day {day}"), &format!("<a href=/cal?day={}>next</a>", day + 1)),
        );
    }
    let scope = ScopeConfig { max_depth: Some(10), ..ScopeConfig::default() };
    let records = crawl(&server, CrawlConfig { scope, ..config() }).await;
    assert_eq!(records.iter().filter(|r| r.is_fetched()).count(), 11);
    assert_eq!(reason_of(&records, "/cal?day=11"), Some("limit"));
    assert_eq!(records.len(), 12);
}

#[tokio::test]
async fn session_ids_and_ever_deeper_paths_are_bounded() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let sessions: String =
        (0..50).map(|n| format!("<a href=\"/s;jsessionid={n:04}\">s</a> <a href=\"/s?PHPSESSID={n}\">s</a>")).collect();
    server.route("/", page("Home", &format!("{sessions}<a href=/d/>deep</a>")));
    server.route("/s", page("Session page", ""));
    let mut path = String::from("/d/");
    for depth in 0..40 {
        server.route(&path, page(&format!("Deep {depth}"), "<a href=d/>deeper</a>"));
        path.push_str("d/");
    }
    let limits = CrawlLimits { max_pages_per_host: Some(12), ..CrawlLimits::default() };
    let records = crawl(&server, CrawlConfig { limits, ..config() }).await;
    // Every session-id form is one URL, fetched once.
    assert_eq!(server.hits("/s"), 1);
    // The ever-deeper path ends at the host's budget.
    let fetched = records.iter().filter(|r| r.is_fetched()).count();
    assert_eq!(fetched, 12, "{records:#?}");
    assert!(records.iter().any(|r| r.not_fetched.is_some_and(|n| n.as_str() == "limit")));
}

#[tokio::test]
async fn a_page_of_a_million_links_keeps_the_per_page_cap() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /\nAllow: /$\n"));
    let links: String = (0..1_000_000).map(|n| format!("<a href=/p{n}>.</a>")).collect();
    server.route("/", Route::html(200, &format!("<html><body>{links}</body></html>")));
    let started = std::time::Instant::now();
    let limits = CrawlLimits { max_pages: Some(1), ..CrawlLimits::default() };
    let records = crawl(&server, CrawlConfig { limits, ..config() }).await;
    // One page, and at most the per-page cap of its links (each a `limit` record).
    assert_eq!(records.iter().filter(|r| r.is_fetched()).count(), 1);
    assert_eq!(records.len(), 1 + 5_000);
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
}

#[tokio::test]
async fn redirect_chains_and_sitemaps_listing_other_hosts_are_bounded() {
    let server = TestServer::start().await;
    server.route(
        "/robots.txt",
        Route::text(200, &format!("User-agent: *\nAllow: /\nSitemap: {}\n", server.url("/sitemap.xml"))),
    );
    server.route(
        "/sitemap.xml",
        Route::bytes(
            200,
            "application/xml",
            format!(
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{}</loc></url><url><loc>https://other.example/x</loc></url></urlset>",
                server.url("/r0")
            )
            .into_bytes(),
        ),
    );
    server.route("/", page("Home", ""));
    for n in 0..30 {
        server.route(&format!("/r{n}"), Route::redirect(302, &format!("/r{}", n + 1)));
    }
    let config = CrawlConfig { seeds: SeedSources { start: true, sitemap: true, llms: false }, ..config() };
    let records = crawl(&server, config).await;
    assert_eq!(reason_of(&records, "other.example/x"), Some("out_of_scope"));
    assert_eq!(reason_of(&records, "/r0"), Some("fetch_failed"));
    // The client's redirect limit bounds the chain.
    assert!(server.hits("/r15") == 0, "{:?}", server.requests());
}

#[tokio::test]
async fn soft_404_pages_are_recorded_without_content() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", page("Home", "<a href=/real>real</a> <a href=/gone>gone</a> <a href=/also-gone>gone too</a>"));
    server.route("/real", page("Real", ""));
    // Every unknown path answers 200 with the site's "not found" page.
    server.fallback(page("Sorry", "<a href=/>back home</a> <a href=/trap>more</a>"));
    let records = crawl(&server, CrawlConfig { probe_soft_404: true, ..config() }).await;
    assert_eq!(reason_of(&records, "/real"), None);
    assert_eq!(reason_of(&records, "/gone"), Some("soft_not_found"));
    assert_eq!(reason_of(&records, "/also-gone"), Some("soft_not_found"));
    // A soft 404's links are not followed.
    assert_eq!(server.hits("/trap"), 0);
    // One probe for the host, and no record of it.
    let probes =
        server.requests().iter().filter(|r| r.path_and_query.starts_with("/webcanon-not-found-probe-")).count();
    assert_eq!(probes, 1);
    assert_eq!(records.len(), 4, "{records:#?}");
}

#[tokio::test]
async fn ssrf_refusals_are_recorded() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", page("Home", "<a href=/to-metadata>redirect</a>"));
    server.route("/to-metadata", Route::redirect(302, "http://169.254.169.254/latest/meta-data/"));
    let records = crawl(&server, config()).await;
    assert_eq!(reason_of(&records, "/to-metadata"), Some("ssrf_refused"));
}

#[tokio::test]
async fn a_page_that_says_nofollow_gives_no_link() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", page("Home", "<a href=/meta>meta</a> <a href=/header>header</a>"));
    server.route(
        "/meta",
        Route::html(200, "<html><head><meta name=robots content=nofollow><title>M</title></head><body><a href=/from-meta>x</a></body></html>"),
    );
    server.route("/header", page("Header", "<a href=/from-header>x</a>").header("X-Robots-Tag", "TestBot: nofollow"));
    server.route("/from-meta", page("From meta", ""));
    server.route("/from-header", page("From header", ""));
    let records = crawl(&server, config()).await;
    assert_eq!(reason_of(&records, "/from-meta"), Some("nofollow"));
    assert_eq!(reason_of(&records, "/from-header"), Some("nofollow"));
    assert_eq!(server.hits("/from-meta") + server.hits("/from-header"), 0);
}

/// A docs site: pages in folders (so that llms.txt is looked for in each),
/// an llms.txt listing the Markdown copies of two of them, a sitemap
/// listing one of those pages, and the home page linking the other.
async fn docs_site(robots: &str) -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, &format!("{robots}\nSitemap: {}\n", server.url("/sitemap.xml"))));
    server.route(
        "/sitemap.xml",
        Route::bytes(
            200,
            "application/xml",
            webcanon_test::urlset([format!("<url><loc>{}</loc></url>", server.url("/docs/b"))]).into_bytes(),
        ),
    );
    server.route(
        "/llms.txt",
        Route::text(200, "# Docs\n\n> The docs.\n\n## Pages\n\n- [A](/docs/a.md): page a\n- [B](/docs/b.md): page b\n"),
    );
    server.route("/", page("Home", "<a href=/docs/a>A</a> <a href=/docs/guide/c>C</a>"));
    for name in ["a", "b"] {
        server.route(&format!("/docs/{name}"), page(&format!("Page {name}"), "<a href=/>Home</a>"));
        let markdown =
            format!("# Page {name}\n\nPage {name}: a page with enough words of its own to be a page.\n\n[Home](/)\n");
        server.route(&format!("/docs/{name}.md"), Route::bytes(200, "text/markdown", markdown.into_bytes()));
    }
    server.route("/docs/guide/c", page("Page c", "<a href=/docs/a>A</a>"));
    server
}

#[tokio::test]
async fn a_page_and_its_llms_txt_copy_are_requested_once_whichever_comes_first() {
    let server = docs_site("User-agent: *\nAllow: /").await;
    let config = CrawlConfig { seeds: SeedSources::default(), ..config() };
    let records = crawl_with(caching_client(), &server, config).await;
    let requests = server.requests();
    let mut paths: Vec<&str> = requests.iter().map(|r| r.path_and_query.as_str()).collect();
    paths.sort_unstable();
    let before = paths.len();
    paths.dedup();
    assert_eq!(paths.len(), before, "a URL was requested twice: {requests:#?}");
    // The llms.txt read for the seeds is the one the copies are found in.
    assert_eq!(server.hits("/llms.txt"), 1);
    // The copy of a, listed by llms.txt, is queued before the home page's
    // link to a: it is fetched as a page, and a is not requested.
    assert_eq!((server.hits("/docs/a.md"), server.hits("/docs/a")), (1, 0));
    assert_eq!(reason_of(&records, "/docs/a.md"), None);
    assert_eq!(reason_of(&records, "/docs/a"), Some("duplicate"));
    // b, listed by the sitemap, comes before its copy: it is fetched
    // through the copy, and the copy's own record names it.
    assert_eq!((server.hits("/docs/b"), server.hits("/docs/b.md")), (0, 1));
    let b = records.iter().find(|r| r.requested_url.ends_with("/docs/b")).unwrap();
    assert!(b.is_fetched() && b.content.as_deref().is_some_and(|c| c.contains("Page b:")), "{b:#?}");
    let copy = records.iter().find(|r| r.requested_url.ends_with("/docs/b.md")).unwrap();
    assert_eq!(copy.not_fetched.map(|r| r.as_str()), Some("duplicate"));
    assert!(copy.error.as_deref().is_some_and(|e| e.contains("/docs/b")), "{copy:#?}");
    assert_eq!(records.iter().filter(|r| r.requested_url.ends_with("/docs/b.md")).count(), 1, "{records:#?}");
}

#[tokio::test]
async fn every_request_but_robots_txt_keeps_the_crawl_delay() {
    let delay = Duration::from_millis(250);
    let server = docs_site(&format!("User-agent: *\nAllow: /\nCrawl-delay: {}", delay.as_secs_f64())).await;
    let config = CrawlConfig { seeds: SeedSources::default(), probe_soft_404: true, ..config() };
    let records = crawl_with(caching_client(), &server, config).await;
    assert!(records.iter().filter(|r| r.is_fetched()).count() >= 4, "{records:#?}");
    let times: Vec<_> =
        server.requests_with_times().into_iter().filter(|(_, r)| r.path_and_query != "/robots.txt").collect();
    // Sitemap, probe, the llms.txt files looked for in each folder, pages
    // and copies: all of them paced.
    assert!(times.len() >= 8, "{times:#?}");
    assert!(times.iter().any(|(_, r)| r.path_and_query == "/docs/guide/llms.txt"), "{times:#?}");
    // The server stamps arrivals and the client its sends: a little slack.
    let slack = Duration::from_millis(25);
    for pair in times.windows(2) {
        let gap = pair[1].0 - pair[0].0;
        assert!(gap + slack >= delay, "{} came {gap:?} after {}", pair[1].1.path_and_query, pair[0].1.path_and_query);
    }
}
