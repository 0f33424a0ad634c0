//! `webcanon sitemap` end to end: a real loopback server in this process,
//! the binary as a child process, output lines, warnings and exit codes as
//! documented.

mod support;

use support::{Run, run};
use webcanon_test::{Route, TestServer};

/// Runs `webcanon sitemap` with loopback allowed, no robots cache, and
/// `extra`, on a blocking thread so the server keeps answering.
async fn sitemap(extra: &[&str]) -> Run {
    let mut args: Vec<String> = ["sitemap", "--allow-private", "127.0.0.0/8", "--timeout", "5", "--no-cache"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    run(args).await
}

fn urlset(urls: &[(String, Option<&str>)]) -> Route {
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for (loc, lastmod) in urls {
        let lastmod = lastmod.map(|d| format!("<lastmod>{d}</lastmod>")).unwrap_or_default();
        xml.push_str(&format!("<url><loc>{loc}</loc>{lastmod}</url>\n"));
    }
    xml.push_str("</urlset>\n");
    Route::bytes(200, "application/xml", xml.into_bytes())
}

fn index(children: &[String]) -> Route {
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for loc in children {
        xml.push_str(&format!("<sitemap><loc>{loc}</loc></sitemap>\n"));
    }
    xml.push_str("</sitemapindex>\n");
    Route::bytes(200, "application/xml", xml.into_bytes())
}

/// robots.txt names an index of two urlsets: /a1 (with a lastmod), /a2, /b1.
async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, &format!("User-agent: *\nSitemap: {}\n", server.url("/index.xml"))));
    server.route("/index.xml", index(&[server.url("/a.xml"), server.url("/b.xml")]));
    server.route("/a.xml", urlset(&[(server.url("/a1"), Some("2024-05-01")), (server.url("/a2"), None)]));
    server.route("/b.xml", urlset(&[(server.url("/b1"), Some("2024-06-02T10:30:00Z"))]));
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn prints_one_url_per_line_and_a_summary() {
    let server = site().await;
    let r = sitemap(&[&server.url("/")]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.lines(), [server.url("/a1"), server.url("/a2"), server.url("/b1")]);
    assert!(r.stderr.contains("sitemaps: 3 read, 0 skipped; 3 URLs; 0 diagnostics"), "{}", r.stderr);
    assert!(!r.stderr.contains("warning:"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn json_lines_carry_url_lastmod_and_sitemap() {
    let server = site().await;
    let r = sitemap(&["--json", &server.url("/docs/page")]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<serde_json::Value> = r.lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let expected = [
        serde_json::json!({"url": server.url("/a1"), "lastmod": "2024-05-01", "sitemap": server.url("/a.xml")}),
        serde_json::json!({"url": server.url("/a2"), "lastmod": null, "sitemap": server.url("/a.xml")}),
        serde_json::json!({"url": server.url("/b1"), "lastmod": "2024-06-02T10:30:00Z", "sitemap": server.url("/b.xml")}),
    ];
    assert_eq!(lines, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn limit_stops_after_n_urls_and_reads_no_further() {
    let server = site().await;
    let r = sitemap(&["--limit", "2", &server.url("/")]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.lines(), [server.url("/a1"), server.url("/a2")]);
    assert_eq!(server.hits("/b.xml"), 0);
    assert!(r.stderr.contains("(stopped at --limit 2)"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn skipped_sitemaps_and_diagnostics_are_warnings_and_the_run_goes_on() {
    let server = TestServer::start().await;
    let robots = format!("User-agent: *\nDisallow: /private/\nSitemap: {}\n", server.url("/index.xml"));
    server.route("/robots.txt", Route::text(200, &robots));
    let (private, broken, good) = (server.url("/private/s.xml"), server.url("/broken.xml"), server.url("/good.xml"));
    server.route("/index.xml", index(&[private.clone(), broken.clone(), good.clone()]));
    server.route("/broken.xml", Route::text(500, "oops"));
    server.route("/good.xml", urlset(&[(server.url("/kept"), None), ("/relative".into(), None)]));

    let r = sitemap(&[&server.url("/")]).await;

    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.lines(), [server.url("/kept")]);
    assert!(r.stderr.contains(&format!("warning: sitemap {private} skipped (robots): ")), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("warning: sitemap {broken} skipped (http_status): answered HTTP 500")));
    assert!(r.stderr.contains(&format!("warning: {good}:4: loc is not an absolute URL; skipped (S003 invalid-loc)")));
    assert!(r.stderr.contains("sitemaps: 2 read, 2 skipped; 1 URLs; 1 diagnostics"), "{}", r.stderr);
    assert_eq!(server.hits("/private/s.xml"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_on_depth_and_count_are_one_warning_each() {
    let server = TestServer::start().await;
    let leaves: Vec<String> = (1..=4).map(|i| server.url(&format!("/leaf{i}.xml"))).collect();
    server.route("/robots.txt", Route::text(200, &format!("Sitemap: {}\n", server.url("/index.xml"))));
    server.route("/index.xml", index(&leaves));
    for (i, leaf) in leaves.iter().enumerate() {
        server.route(&leaf[leaf.rfind('/').unwrap()..], urlset(&[(server.url(&format!("/p{i}")), None)]));
    }

    let r = sitemap(&["--max-sitemaps", "2", &server.url("/")]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.lines(), [server.url("/p0")]);
    // leaf2 to leaf4, and /sitemap.xml, which was not probed.
    let expected = format!("warning: 4 sitemaps not read: past --max-sitemaps 2 (the first: {})", leaves[1]);
    assert!(r.stderr.contains(&expected), "{}", r.stderr);
    assert_eq!(r.stderr.matches("warning:").count(), 1, "{}", r.stderr);

    let r = sitemap(&["--max-depth", "0", &server.url("/")]).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let expected = format!("warning: 4 sitemaps not read: deeper than --max-depth 0 (the first: {})", leaves[0]);
    assert!(r.stderr.contains(&expected), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_sitemap_found_exits_5() {
    let server = TestServer::start().await;
    let r = sitemap(&[&server.url("/")]).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    let probe = server.url("/sitemap.xml");
    assert!(
        r.stderr.contains(&format!("warning: sitemap {probe} skipped (not_found): no sitemap found")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(&format!("error: no sitemap could be read for {}", server.url("/"))), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn sitemaps_listing_no_urls_exit_5() {
    let server = TestServer::start().await;
    server.route("/sitemap.xml", urlset(&[]));
    let r = sitemap(&[&server.url("/")]).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("(S018 empty)"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("error: the sitemaps of {} list no URLs", server.url("/"))), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_site_refused_by_the_ssrf_guard_exits_4_like_fetch() {
    let server = site().await;
    let args = vec!["sitemap".to_string(), "--no-cache".into(), "--json".into(), server.url("/")];
    let r = run(args).await;
    assert_eq!(r.code, 4, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "ssrf");
    assert!(server.requests().is_empty(), "{:?}", server.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_usage_exits_2() {
    let r = sitemap(&["not a url"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("invalid URL"), "{}", r.stderr);
    let r = sitemap(&["--limit", "0", "http://127.0.0.1:9/"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = sitemap(&["--max-sitemaps", "0", "http://127.0.0.1:9/"]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// Issue 16 asked for progress during a live `sitemap` run: with stderr on
/// a terminal, a spinner counts the URLs found while robots.txt and the
/// sitemaps are read.
#[tokio::test(flavor = "multi_thread")]
async fn a_sitemap_run_shows_progress_on_a_terminal() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let urls = vec![(server.url("/a"), None), (server.url("/b"), None)];
    server.route("/sitemap.xml", urlset(&urls).delay(std::time::Duration::from_millis(600)));
    let argv: Vec<String> = ["sitemap", "--allow-private", "127.0.0.1", "--no-cache", &server.url("/")]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let Some(terminal) = tokio::task::spawn_blocking(move || support::webcanon_on_terminal(&argv)).await.unwrap()
    else {
        eprintln!("skipped: no `script` to give sitemap a terminal");
        return;
    };
    assert!(terminal.contains(" URLs ("), "{terminal}");
}
