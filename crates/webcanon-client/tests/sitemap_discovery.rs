//! Sitemap discovery against real servers on loopback: robots.txt
//! `Sitemap:` lines and `/sitemap.xml`, indexes, gzip both ways, cycles,
//! limits, robots and SSRF refusals, error statuses, hostile files. Every
//! refusal is checked on the server side too: a skipped sitemap is never
//! requested.

use std::ops::ControlFlow;
use std::time::Duration;

use webcanon_client::error::Error;
use webcanon_client::sitemap_discovery::{
    DiscoveryConfig, DiscoveryEnd, DiscoveryEvent, DiscoverySummary, SitemapOrigin, SitemapRead, SitemapSkipReason,
};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_core::sitemap::SitemapCode;
use webcanon_test::{Route, TestServer, gzip};

/// A client with its own in-memory robots cache, so each origin's
/// robots.txt is requested once per test.
fn client(policy: SsrfPolicy) -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(10))
        .cache(CacheSetting::Memory)
        .ssrf_policy(policy)
        .build()
        .unwrap()
}

fn loopback_client() -> Client {
    client(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
}

/// Everything one run reported, in order, and its totals.
struct Run {
    events: Vec<DiscoveryEvent>,
    summary: DiscoverySummary,
}

impl Run {
    /// `(url, lastmod, sitemap)` of every URL found, in order.
    fn urls(&self) -> Vec<(String, Option<String>, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                DiscoveryEvent::UrlFound(f) => {
                    Some((f.url.clone(), f.lastmod.map(|d| d.to_string()), f.sitemap.clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn url_count_from(&self, sitemap: &str) -> usize {
        self.urls().iter().filter(|(_, _, from)| from == sitemap).count()
    }

    /// `(sitemap URL, reason code)` of every skipped sitemap, in order.
    fn skips(&self) -> Vec<(String, &'static str)> {
        self.skip_reasons().into_iter().map(|(url, reason)| (url, reason.code())).collect()
    }

    fn skip_reasons(&self) -> Vec<(String, SitemapSkipReason)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                DiscoveryEvent::SitemapSkipped(s) => Some((s.sitemap.url.clone(), s.reason.clone())),
                _ => None,
            })
            .collect()
    }

    /// The sitemaps read, in order.
    fn finished(&self) -> Vec<&SitemapRead> {
        self.events
            .iter()
            .filter_map(|e| match e {
                DiscoveryEvent::SitemapFinished(read) => Some(read),
                _ => None,
            })
            .collect()
    }

    fn finished_for(&self, url: &str) -> &SitemapRead {
        self.finished().into_iter().find(|r| r.sitemap.url == url).unwrap_or_else(|| panic!("{url} was not read"))
    }

    fn started(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e {
                DiscoveryEvent::SitemapStarted(s) => Some(s.url.clone()),
                _ => None,
            })
            .collect()
    }
}

async fn discover(client: &Client, site: &str, config: &DiscoveryConfig) -> Run {
    let mut events = Vec::new();
    let summary = client
        .discover_sitemaps(site, config, |event| {
            events.push(event);
            ControlFlow::Continue(())
        })
        .await
        .unwrap();
    Run { events, summary }
}

async fn discover_default(server: &TestServer) -> Run {
    discover(&loopback_client(), &server.url("/"), &DiscoveryConfig::default()).await
}

fn urlset(urls: &[(&str, Option<&str>)]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (loc, lastmod) in urls {
        xml.push_str(&format!("  <url><loc>{loc}</loc>"));
        if let Some(lastmod) = lastmod {
            xml.push_str(&format!("<lastmod>{lastmod}</lastmod>"));
        }
        xml.push_str("</url>\n");
    }
    xml.push_str("</urlset>\n");
    xml
}

fn index(children: &[String]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for loc in children {
        xml.push_str(&format!("  <sitemap><loc>{loc}</loc></sitemap>\n"));
    }
    xml.push_str("</sitemapindex>\n");
    xml
}

fn xml(body: &str) -> Route {
    Route::bytes(200, "application/xml", body.as_bytes().to_vec())
}

/// A server whose robots.txt allows everything and names `sitemaps` (paths).
async fn site_naming(sitemaps: &[&str]) -> TestServer {
    let server = TestServer::start().await;
    let mut robots = String::from("User-agent: *\nDisallow:\n");
    for path in sitemaps {
        robots.push_str(&format!("Sitemap: {}\n", server.url(path)));
    }
    server.route("/robots.txt", Route::text(200, &robots));
    server
}

fn page(server: &TestServer, path: &str) -> String {
    server.url(path)
}

#[tokio::test]
async fn robots_sitemap_index_leads_to_gzip_children_with_lastmods() {
    let server = site_naming(&["/sitemap_index.xml"]).await;
    let (a, b) = (server.url("/a.xml.gz"), server.url("/b.xml"));
    server.route("/sitemap_index.xml", xml(&index(&[a.clone(), b.clone()])));
    let a_body = urlset(&[(&page(&server, "/a1"), Some("2024-05-01")), (&page(&server, "/a2"), None)]);
    server.route("/a.xml.gz", Route::bytes(200, "application/gzip", gzip(a_body.as_bytes())));
    let b_body = urlset(&[(&page(&server, "/b1"), Some("2024-06-02T10:30:00+02:00"))]);
    server.route("/b.xml", Route::gzip(200, "application/xml", b_body.as_bytes()));

    let run = discover_default(&server).await;

    assert_eq!(
        run.urls(),
        vec![
            (page(&server, "/a1"), Some("2024-05-01".into()), a.clone()),
            (page(&server, "/a2"), None, a.clone()),
            (page(&server, "/b1"), Some("2024-06-02T10:30:00+02:00".into()), b.clone()),
        ]
    );
    let root = run.finished_for(&server.url("/sitemap_index.xml"));
    assert!(root.kind.is_index());
    assert_eq!((root.entries, root.sitemap.depth, &root.sitemap.origin), (2, 0, &SitemapOrigin::RobotsTxt));
    let child = run.finished_for(&a);
    assert_eq!(child.sitemap.origin, SitemapOrigin::Index { parent: server.url("/sitemap_index.xml") });
    assert_eq!((child.sitemap.depth, child.entries), (1, 2));
    assert!(child.diagnostics.is_empty(), "{:?}", child.diagnostics);
    // /sitemap.xml was probed, answered 404, and is not worth a report
    // because robots.txt named a sitemap.
    assert_eq!(server.hits("/sitemap.xml"), 1);
    assert!(run.skips().is_empty(), "{:?}", run.skips());
    assert!(!run.started().contains(&server.url("/sitemap.xml")));
    let summary = &run.summary;
    assert_eq!((summary.sitemaps_fetched, summary.sitemaps_read, summary.urls), (4, 3, 3));
    assert_eq!((summary.skipped, summary.diagnostics, summary.end), (0, 0, DiscoveryEnd::Complete));
}

#[tokio::test]
async fn default_location_is_read_when_robots_names_no_sitemap() {
    let server = TestServer::start().await;
    server.route("/sitemap.xml", xml(&urlset(&[(&page(&server, "/home"), None)])));

    let run = discover_default(&server).await;

    assert_eq!(run.urls(), vec![(page(&server, "/home"), None, server.url("/sitemap.xml"))]);
    assert_eq!(run.finished_for(&server.url("/sitemap.xml")).sitemap.origin, SitemapOrigin::DefaultLocation);
    assert_eq!(server.hits("/robots.txt"), 1);
}

#[tokio::test]
async fn no_robots_sitemap_and_missing_default_location_is_reported_as_not_found() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /admin\n"));

    let run = discover_default(&server).await;

    assert_eq!(run.skip_reasons(), vec![(server.url("/sitemap.xml"), SitemapSkipReason::NotFound(404))]);
    assert_eq!((run.summary.sitemaps_read, run.summary.urls, run.summary.skipped), (0, 0, 1));
}

#[tokio::test]
async fn roots_named_twice_or_at_the_default_location_are_fetched_once() {
    let server = TestServer::start().await;
    let port = server.port();
    let robots = format!(
        "User-agent: *\nDisallow:\nSitemap: http://127.0.0.1:{port}/sitemap.xml\n\
         Sitemap: HTTP://127.0.0.1:{port}/sitemap.xml#again\nSitemap: /sitemap.xml\n"
    );
    server.route("/robots.txt", Route::text(200, &robots));
    server.route("/sitemap.xml", xml(&urlset(&[(&page(&server, "/only"), None)])));

    let run = discover_default(&server).await;

    assert_eq!(server.hits("/sitemap.xml"), 1);
    assert_eq!(run.urls().len(), 1);
    assert!(run.skips().is_empty(), "roots are deduplicated silently: {:?}", run.skips());
}

#[tokio::test]
async fn cycles_end_and_every_sitemap_is_requested_once() {
    let server = TestServer::start().await;
    // A relative `Sitemap:` value is resolved against robots.txt.
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow:\nSitemap: /index.xml\n"));
    let (root, child, leaf) = (server.url("/index.xml"), server.url("/child-index.xml"), server.url("/leaf.xml"));
    server.route("/index.xml", xml(&index(&[root.clone(), child.clone(), leaf.clone()])));
    server.route("/child-index.xml", xml(&index(&[root.clone(), leaf.clone()])));
    server.route("/leaf.xml", xml(&urlset(&[(&page(&server, "/leaf-page"), None)])));

    let run = discover_default(&server).await;

    for path in ["/index.xml", "/child-index.xml", "/leaf.xml"] {
        assert_eq!(server.hits(path), 1, "{path}");
    }
    assert_eq!(run.urls(), vec![(page(&server, "/leaf-page"), None, leaf.clone())]);
    // The index listing itself is reported once, though the child lists it
    // again; the leaf listed by both is read under the first and reported
    // when the root lists it after.
    assert_eq!(run.skips(), vec![(root, "cycle"), (leaf, "cycle")]);
}

#[tokio::test]
async fn a_redirected_sitemap_is_not_requested_again_under_its_final_url() {
    let server = site_naming(&["/index.xml"]).await;
    let (old, new) = (server.url("/old.xml"), server.url("/new.xml"));
    server.route("/index.xml", xml(&index(&[old.clone(), new.clone()])));
    server.route("/old.xml", Route::redirect(301, "/new.xml"));
    server.route("/new.xml", xml(&urlset(&[(&page(&server, "/moved"), None)])));

    let run = discover_default(&server).await;

    assert_eq!(server.hits("/new.xml"), 1);
    assert_eq!(run.finished_for(&old).final_url, new);
    assert_eq!(run.urls(), vec![(page(&server, "/moved"), None, old)]);
    assert_eq!(run.skips(), vec![(new, "cycle")]);
}

/// `/d0.xml` → `/d1.xml` → … → `/d{levels}.xml`, each an index of the next,
/// the last a urlset.
async fn chain(levels: usize) -> TestServer {
    let server = site_naming(&["/d0.xml"]).await;
    for level in 0..levels {
        server.route(&format!("/d{level}.xml"), xml(&index(&[server.url(&format!("/d{}.xml", level + 1))])));
    }
    server.route(&format!("/d{levels}.xml"), xml(&urlset(&[(&page(&server, "/deep"), None)])));
    server
}

#[tokio::test]
async fn default_depth_reads_three_levels_below_the_roots() {
    let server = chain(3).await;
    let run = discover_default(&server).await;
    assert_eq!(run.urls().len(), 1);
    assert_eq!(run.finished_for(&server.url("/d3.xml")).sitemap.depth, 3);

    let server = chain(4).await;
    let run = discover_default(&server).await;
    assert!(run.urls().is_empty());
    assert_eq!(run.skips(), vec![(server.url("/d4.xml"), "depth_limit")]);
    assert_eq!(server.hits("/d4.xml"), 0);
    assert_eq!(server.hits("/d3.xml"), 1);
}

#[tokio::test]
async fn depth_limit_is_configurable() {
    let server = chain(3).await;
    let config = DiscoveryConfig::default().max_depth(1);
    let run = discover(&loopback_client(), &server.url("/"), &config).await;
    assert_eq!(run.skips(), vec![(server.url("/d2.xml"), "depth_limit")]);
    assert_eq!((server.hits("/d1.xml"), server.hits("/d2.xml"), server.hits("/d3.xml")), (1, 0, 0));
}

#[tokio::test]
async fn count_limit_stops_requests() {
    let server = TestServer::start().await;
    let leaves: Vec<String> = (1..=5).map(|i| server.url(&format!("/leaf{i}.xml"))).collect();
    server.route("/index.xml", xml(&index(&leaves)));
    for i in 1..=5 {
        server.route(&format!("/leaf{i}.xml"), xml(&urlset(&[(&page(&server, &format!("/p{i}")), None)])));
    }
    let config = DiscoveryConfig::default().max_sitemaps(3);

    let mut events = Vec::new();
    let summary = loopback_client()
        .read_sitemaps([server.url("/index.xml")], &config, |event| {
            events.push(event);
            ControlFlow::Continue(())
        })
        .await;
    let run = Run { events, summary };

    assert_eq!(
        run.urls().iter().map(|(url, _, _)| url.clone()).collect::<Vec<_>>(),
        [page(&server, "/p1"), page(&server, "/p2")]
    );
    let expected: Vec<(String, &str)> = leaves[2..].iter().map(|url| (url.clone(), "count_limit")).collect();
    assert_eq!(run.skips(), expected);
    assert_eq!((server.hits("/leaf3.xml"), server.hits("/leaf4.xml"), server.hits("/leaf5.xml")), (0, 0, 0));
    assert_eq!(server.hits("/robots.txt"), 1, "robots.txt admits each sitemap, but adds none");
    assert_eq!((run.summary.sitemaps_fetched, run.summary.skipped), (3, 3));
    assert_eq!(run.finished_for(&server.url("/index.xml")).sitemap.origin, SitemapOrigin::Caller);
}

#[tokio::test]
async fn sitemap_disallowed_by_robots_is_skipped_and_never_requested() {
    let server = TestServer::start().await;
    let robots = format!("User-agent: *\nDisallow: /private/\nSitemap: {}\n", server.url("/index.xml"));
    server.route("/robots.txt", Route::text(200, &robots));
    let (private, public) = (server.url("/private/s.xml"), server.url("/public.xml"));
    server.route("/index.xml", xml(&index(&[private.clone(), public.clone()])));
    server.route("/private/s.xml", xml(&urlset(&[(&page(&server, "/secret"), None)])));
    server.route("/public.xml", xml(&urlset(&[(&page(&server, "/open"), None)])));

    let run = discover_default(&server).await;

    assert_eq!(run.skips(), vec![(private.clone(), "robots")]);
    assert_eq!(server.hits("/private/s.xml"), 0);
    assert_eq!(run.urls(), vec![(page(&server, "/open"), None, public)]);
    let SitemapSkipReason::Robots(policy) = &run.skip_reasons()[0].1 else { unreachable!() };
    assert_eq!(policy.evidence.rule.as_ref().map(|r| r.pattern.as_str()), Some("/private/"));
    assert_eq!(run.summary.sitemaps_fetched, 3, "index, public.xml and the /sitemap.xml probe");
}

#[tokio::test]
async fn sitemap_outside_the_allowed_network_is_skipped_as_ssrf() {
    let server = site_naming(&["/index.xml"]).await;
    let elsewhere = TestServer::start_on("127.0.0.2:0").await;
    elsewhere.route("/x.xml", xml(&urlset(&[(&elsewhere.url("/internal"), None)])));
    let (other_loopback, private) = (elsewhere.url("/x.xml"), "http://10.0.0.1/x.xml".to_string());
    server.route("/index.xml", xml(&index(&[other_loopback.clone(), private.clone()])));
    let only_this_server = SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap());

    let run = discover(&client(only_this_server), &server.url("/"), &DiscoveryConfig::default()).await;

    assert_eq!(run.skips(), vec![(other_loopback, "ssrf"), (private, "ssrf")]);
    assert!(elsewhere.requests().is_empty(), "{:?}", elsewhere.requests());
    assert!(run.urls().is_empty());
}

#[tokio::test]
async fn error_statuses_are_skipped_with_their_status_and_the_rest_is_read() {
    let server = site_naming(&["/index.xml"]).await;
    let (missing, broken, fine) = (server.url("/missing.xml"), server.url("/broken.xml"), server.url("/fine.xml"));
    server.route("/index.xml", xml(&index(&[missing.clone(), broken.clone(), fine.clone()])));
    server.route("/broken.xml", Route::text(500, "oops"));
    server.route("/fine.xml", xml(&urlset(&[(&page(&server, "/fine"), None)])));

    let run = discover_default(&server).await;

    assert_eq!(
        run.skip_reasons(),
        vec![(missing, SitemapSkipReason::HttpStatus(404)), (broken, SitemapSkipReason::HttpStatus(500))]
    );
    assert_eq!(run.urls(), vec![(page(&server, "/fine"), None, fine)]);
}

#[tokio::test]
async fn a_malformed_entry_does_not_lose_the_others() {
    let server = site_naming(&["/s.xml"]).await;
    let body = format!(
        "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <url><loc>{}</loc></url>\n<url><loc>/relative</loc></url>\n<url><lastmod>2024-01-01</lastmod></url>\n\
         <url><loc>{}</loc><lastmod>not a date</lastmod></url>\n</urlset>\n",
        page(&server, "/first"),
        page(&server, "/last"),
    );
    server.route("/s.xml", xml(&body));

    let run = discover_default(&server).await;

    let urls: Vec<String> = run.urls().into_iter().map(|(url, _, _)| url).collect();
    assert_eq!(urls, [page(&server, "/first"), page(&server, "/last")]);
    let codes: Vec<(SitemapCode, Option<u32>)> =
        run.finished_for(&server.url("/s.xml")).diagnostics.iter().map(|d| (d.code, d.line)).collect();
    assert_eq!(
        codes,
        [
            (SitemapCode::InvalidLoc, Some(4)),
            (SitemapCode::MissingLoc, Some(5)),
            (SitemapCode::InvalidLastmod, Some(6))
        ]
    );
    assert_eq!(run.summary.diagnostics, 3);
}

#[tokio::test]
async fn a_sitemap_of_sixty_thousand_urls_yields_the_protocol_limit() {
    let server = site_naming(&["/big.xml"]).await;
    let pages: Vec<String> = (0..60_000).map(|i| page(&server, &format!("/p/{i}"))).collect();
    let entries: Vec<(&str, Option<&str>)> = pages.iter().map(|p| (p.as_str(), None)).collect();
    server.route("/big.xml", xml(&urlset(&entries)));

    let run = discover_default(&server).await;

    assert_eq!(run.summary.urls, 50_000);
    let urls = run.urls();
    assert_eq!(
        (urls.first().unwrap().0.as_str(), urls.last().unwrap().0.as_str()),
        (pages[0].as_str(), pages[49_999].as_str())
    );
    let read = run.finished_for(&server.url("/big.xml"));
    assert_eq!((read.entries, read.dropped), (50_000, 10_000));
    assert_eq!(read.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), [SitemapCode::TooManyUrls]);
}

#[tokio::test]
async fn a_gzip_bomb_is_stopped_and_the_run_goes_on() {
    let server = site_naming(&["/index.xml"]).await;
    let (bomb, after) = (server.url("/bomb.xml.gz"), server.url("/after.xml"));
    server.route("/index.xml", xml(&index(&[bomb.clone(), after.clone()])));
    // One member with the start of a urlset, then 60 members of 1 MiB of
    // spaces each (about 1 KiB compressed): 60 MiB once inflated. Served with
    // `Content-Encoding: gzip` on top, it travels as a few KiB.
    let head = format!(
        "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <url><loc>{}</loc></url>\n",
        page(&server, "/before-the-padding")
    );
    let mut file = gzip(head.as_bytes());
    file.extend(gzip(&vec![b' '; 1 << 20]).repeat(60));
    let route = Route::gzip(200, "application/gzip", &file);
    server.route("/bomb.xml.gz", route);
    server.route("/after.xml", xml(&urlset(&[(&page(&server, "/after"), None)])));

    let run = discover_default(&server).await;

    let read = run.finished_for(&bomb);
    assert!(read.diagnostics.iter().any(|d| d.code == SitemapCode::DecompressionLimit), "{:?}", read.diagnostics);
    let urls: Vec<String> = run.urls().into_iter().map(|(url, _, _)| url).collect();
    assert_eq!(urls, [page(&server, "/before-the-padding"), page(&server, "/after")]);
    assert_eq!(run.url_count_from(&after), 1);
}

/// An index of a thousand copies of one small gzip body that inflates to
/// 8 MiB: the run's work is bounded by the bytes parsed, not by how few
/// bytes travel. Past `max_bytes` the rest are skipped, never requested.
#[tokio::test]
async fn the_bytes_parsed_per_run_are_bounded() {
    let server = site_naming(&["/index.xml"]).await;
    let children: Vec<String> = (0..1000).map(|i| server.url(&format!("/part{i}.xml.gz"))).collect();
    server.route("/index.xml", xml(&index(&children)));
    let mut body = urlset(&[(&page(&server, "/only"), None)]).into_bytes();
    body.splice(body.len() - "</urlset>\n".len().., vec![b' '; 8 << 20]);
    body.extend_from_slice(b"</urlset>\n");
    let packed = gzip(&body);
    assert!(packed.len() < 64 << 10, "{} bytes on the wire", packed.len());
    for child in 0..1000 {
        server.route(&format!("/part{child}.xml.gz"), Route::bytes(200, "application/gzip", packed.clone()));
    }
    let config = DiscoveryConfig::default().max_bytes(20 << 20);
    assert_eq!(DiscoveryConfig::default().max_bytes, 256 << 20);

    let run = discover(&loopback_client(), &server.url("/"), &config).await;

    // The index, then three 8 MiB children take the run past 20 MiB.
    assert_eq!(run.summary.sitemaps_read, 4, "{:?}", run.summary);
    assert!(run.summary.bytes_parsed >= 20 << 20 && run.summary.bytes_parsed < 30 << 20, "{:?}", run.summary);
    // The 997 other children and the default location, all for the budget.
    let skipped = run.skips();
    assert_eq!(skipped.len(), 998);
    assert!(skipped.iter().all(|(_, code)| *code == "byte_limit"), "{:?}", &skipped[..3]);
    assert!(skipped.iter().any(|(url, _)| url.ends_with("/sitemap.xml")));
    assert_eq!(server.hits("/part3.xml.gz"), 0, "skipped sitemaps are never requested");
    assert_eq!(run.urls().len(), 3);
}

#[tokio::test]
async fn url_limit_ends_the_run_before_further_sitemaps() {
    let server = site_naming(&["/one.xml", "/two.xml", "/three.xml"]).await;
    for (path, pages) in [("/one.xml", ["/1a", "/1b"]), ("/two.xml", ["/2a", "/2b"]), ("/three.xml", ["/3a", "/3b"])] {
        let entries: Vec<String> = pages.iter().map(|p| page(&server, p)).collect();
        server.route(path, xml(&urlset(&[(&entries[0], None), (&entries[1], None)])));
    }
    let config = DiscoveryConfig::default().max_urls(3);

    let run = discover(&loopback_client(), &server.url("/"), &config).await;

    let urls: Vec<String> = run.urls().into_iter().map(|(url, _, _)| url).collect();
    assert_eq!(urls, [page(&server, "/1a"), page(&server, "/1b"), page(&server, "/2a")]);
    assert_eq!(run.summary.end, DiscoveryEnd::UrlLimit);
    assert_eq!(run.finished().len(), 2, "the sitemap cut short is still reported as read");
    assert_eq!((server.hits("/three.xml"), server.hits("/sitemap.xml")), (0, 0));
}

#[tokio::test]
async fn the_callback_can_stop_the_run() {
    let server = site_naming(&["/one.xml", "/two.xml"]).await;
    server.route("/one.xml", xml(&urlset(&[(&page(&server, "/a"), None), (&page(&server, "/b"), None)])));
    server.route("/two.xml", xml(&urlset(&[(&page(&server, "/c"), None)])));

    let mut seen = Vec::new();
    let summary = loopback_client()
        .discover_sitemaps(&server.url("/"), &DiscoveryConfig::default(), |event| {
            if let DiscoveryEvent::UrlFound(found) = event {
                seen.push(found.url);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        })
        .await
        .unwrap();

    assert_eq!(seen, [page(&server, "/a")]);
    assert_eq!(summary.end, DiscoveryEnd::Stopped);
    assert_eq!(server.hits("/two.xml"), 0);
}

#[tokio::test]
async fn an_invalid_or_refused_site_is_an_error_before_any_request() {
    let config = DiscoveryConfig::default();
    let outcome =
        loopback_client().discover_sitemaps("ftp://example.com/", &config, |_| ControlFlow::Continue(())).await;
    assert!(matches!(outcome, Err(Error::InvalidUrl { .. })), "{outcome:?}");

    let elsewhere = TestServer::start_on("127.0.0.2:0").await;
    elsewhere.route("/sitemap.xml", xml(&urlset(&[(&elsewhere.url("/internal"), None)])));
    let only_127_0_0_1 = client(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()));
    let outcome = only_127_0_0_1.discover_sitemaps(&elsewhere.url("/"), &config, |_| ControlFlow::Continue(())).await;
    assert!(matches!(outcome, Err(Error::Ssrf(_))), "{outcome:?}");
    assert!(elsewhere.requests().is_empty(), "{:?}", elsewhere.requests());
}
