//! A realistic site on loopback for whole audits, shared by the read-once
//! test (`tests/read_once.rs`) and the benchmark (`benches/audit.rs`, which
//! includes this file by path).
//!
//! The site answers on two host names, `bench.test` and `www.bench.test`,
//! both resolved to one [`TestServer`] on `127.0.0.1`, so that the
//! `apex-www` check runs too. It has robots.txt with groups for a few AI
//! agents and a `Sitemap:` line, `/sitemap.xml` listing every page with a
//! `lastmod`, `/llms.txt` linking every fifth page's Markdown copy (which
//! exists), `/llms-full.txt` holding those copies, `/ai.txt`,
//! `/.well-known/tdmrep.json`, and the HTML pages, one in ten with a meta
//! robots tag.

use std::collections::BTreeMap;
use std::time::Duration;

use url::Url;
use webcanon_client::ssrf::{ResolveOverride, SsrfPolicy};
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Logged, Route, TestServer};

/// The apex host name of the site.
pub const HOST: &str = "bench.test";

/// The product token the audit and its client use.
pub const AGENT: &str = "webcanon";

/// A running site.
pub struct LoopbackSite {
    /// The server behind both host names.
    pub server: TestServer,
    /// `http://bench.test:PORT/`.
    pub origin: Url,
    /// Number of HTML pages.
    pub pages: usize,
    /// Number of pages linked from llms.txt (as Markdown copies).
    pub linked: usize,
}

/// The path of page `n` (1-based), as HTML or as its Markdown copy.
fn page_path(n: usize, ext: &str) -> String {
    format!("/docs/page-{n:03}.{ext}")
}

/// Whether page `n` has a Markdown copy linked from llms.txt.
fn is_linked(n: usize) -> bool {
    n.is_multiple_of(5)
}

fn markdown_page(n: usize) -> String {
    format!(
        "# Page {n}\n\nThis page explains part {n} of the product: how to install it, configure it and \
         read its reports.\n\n## Details\n\n{}",
        "A paragraph of reference text about robots.txt, llms.txt and sitemaps.\n".repeat(8)
    )
}

fn html_page(n: usize, pages: usize) -> String {
    let robots = match n % 10 {
        0 => r#"<meta name="robots" content="noai, noimageai">"#,
        5 => r#"<meta name="robots" content="index, follow">"#,
        _ => "",
    };
    let next = page_path(n % pages + 1, "html");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page {n}</title>{robots}</head>\
         <body><nav><a href=\"/\">Home</a></nav><main><h1>Page {n}</h1>{}<p><a href=\"{next}\">Next</a></p></main>\
         </body></html>",
        "<p>A paragraph of reference text about robots.txt, llms.txt and sitemaps, long enough to read.</p>".repeat(8)
    )
}

impl LoopbackSite {
    /// Starts the site with `pages` HTML pages (at least 5).
    pub async fn start(pages: usize) -> LoopbackSite {
        assert!(pages >= 5, "a site of at least 5 pages");
        let server = TestServer::start().await;
        let origin = Url::parse(&format!("http://{HOST}:{}/", server.port())).expect("origin");
        let url = |path: &str| origin.join(path).expect("a URL on the site").to_string();

        let robots = format!(
            "# The loopback site of the audit benchmark.\n\
             User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: Google-Extended\nDisallow: /\n\n\
             User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: Claude-User\nAllow: /\n\n\
             User-agent: ClaudeBot\nDisallow: /private/\n\n\
             User-agent: *\nDisallow: /private/\n\n\
             Sitemap: {}\n",
            url("/sitemap.xml")
        );
        server.route("/robots.txt", Route::text(200, &robots));

        let mut sitemap = String::from(
            r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
        );
        for n in 1..=pages {
            let lastmod = format!("2026-{:02}-{:02}", n % 12 + 1, n % 28 + 1);
            sitemap
                .push_str(&format!("<url><loc>{}</loc><lastmod>{lastmod}</lastmod></url>", url(&page_path(n, "html"))));
        }
        sitemap.push_str("</urlset>\n");
        server.route("/sitemap.xml", Route::bytes(200, "application/xml", sitemap.into_bytes()));

        let mut llms = String::from(
            "# Bench Site\n\n> Documentation of the bench product: installation, configuration and reports.\n\n## Docs\n\n",
        );
        let mut full = String::from("# Bench Site\n\n> Every documentation page in one file.\n\n");
        for n in (1..=pages).filter(|&n| is_linked(n)) {
            llms.push_str(&format!("- [Page {n}]({}): part {n} of the documentation\n", url(&page_path(n, "md"))));
            full.push_str(&markdown_page(n).replacen("# ", "## ", 1));
            full.push('\n');
        }
        let markdown = |body: String| Route::bytes(200, "text/markdown; charset=utf-8", body.into_bytes());
        server.route("/llms.txt", markdown(llms));
        server.route("/llms-full.txt", markdown(full));
        server.route(
            "/ai.txt",
            Route::text(200, "# Spawning AI\nUser-Agent: *\nDisallow: *.jpg\nDisallow: *.png\nAllow: /docs/\n"),
        );
        let tdmrep = r#"[{"location": "/docs/*", "tdm-reservation": 1, "tdm-policy": "https://bench.test/tdm-policy.json"}, {"location": "/*", "tdm-reservation": 0}]"#;
        server.route("/.well-known/tdmrep.json", Route::bytes(200, "application/json", tdmrep.as_bytes().to_vec()));

        server.route("/", Route::html(200, &html_page(1, pages).replace("Page 1", "Home")));
        for n in 1..=pages {
            server.route(&page_path(n, "html"), Route::html(200, &html_page(n, pages)));
            if is_linked(n) {
                server.route(&page_path(n, "md"), markdown(markdown_page(n)));
            }
        }
        let linked = (1..=pages).filter(|&n| is_linked(n)).count();
        LoopbackSite { server, origin, pages, linked }
    }

    /// A fresh client for one audit: the robots.txt cache in memory, both
    /// host names resolved to the server, loopback allowed by the SSRF guard.
    pub fn client(&self) -> Client {
        let port = self.server.port();
        let resolve = |host: &str| format!("{host}:{port}:127.0.0.1").parse::<ResolveOverride>().expect("override");
        let policy = SsrfPolicy::default()
            .allow_private("127.0.0.0/8".parse().expect("network"))
            .resolve(resolve(HOST))
            .resolve(resolve(&format!("www.{HOST}")));
        Client::builder()
            .agent(AGENT)
            .timeout(Duration::from_secs(10))
            .cache(CacheSetting::Memory)
            .ssrf_policy(policy)
            .build()
            .expect("client")
    }
}

/// Requests counted by `Host` header and path (query included).
pub fn count_by_resource(requests: &[Logged]) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for request in requests {
        let key = (request.host.clone().unwrap_or_default(), request.path_and_query.clone());
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// The resources requested more than once, as `N× host path` lines.
pub fn repeated(requests: &[Logged]) -> Vec<String> {
    count_by_resource(requests)
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|((host, path), n)| format!("{n}× {host} {path}"))
        .collect()
}
