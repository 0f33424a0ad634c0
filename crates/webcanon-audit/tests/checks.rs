//! `llms-txt`, `llms-full-txt`, `sitemap`, `ai-txt` and `page-signals`
//! against folders and real loopback servers: pass, warn and fail fixtures,
//! HTTP status classes, redirects, and every resource read once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use webcanon_audit::checks::{Context, sitemap};
use webcanon_audit::{CheckResult, Report, Severity, Site, Status, audit};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

// --- Helpers -------------------------------------------------------------------

/// A site folder holding `files`, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str, files: &[(&str, &str)]) -> Folder {
        let dir = std::env::temp_dir().join(format!("webcanon-checks-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (path, body) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, body).unwrap();
        }
        Folder(dir)
    }

    async fn audit(&self) -> Report {
        audit(Site::folder(&self.0), "TestBot").await.expect("a folder is always audited")
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn audit_folder(name: &str, files: &[(&str, &str)]) -> Report {
    Folder::new(name, files).audit().await
}

fn client() -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::Memory)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

fn site_of(server: &TestServer) -> Site {
    Site::origin(server.url("/").parse().unwrap(), client())
}

async fn audit_server(server: &TestServer) -> Report {
    audit(site_of(server), "TestBot").await.expect("the server answers")
}

fn check<'a>(report: &'a Report, id: &str) -> &'a CheckResult {
    report.check(id).unwrap_or_else(|| panic!("no check {id}"))
}

fn step(check: &CheckResult, id: &str) -> Status {
    check.steps.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no step {id}")).status
}

fn evidence<'a>(check: &'a CheckResult, id: &str) -> &'a Value {
    &check.steps.iter().find(|s| s.id == id).unwrap().evidence
}

fn has_finding(check: &CheckResult, severity: Severity, text: &str) -> bool {
    check.findings.iter().any(|f| f.severity == severity && f.message.contains(text))
}

/// Every finding has a fix.
fn all_fixed(check: &CheckResult) {
    for f in &check.findings {
        assert!(f.fix.as_deref().is_some_and(|fix| !fix.is_empty()), "{}: finding without a fix: {f:?}", check.id);
    }
}

/// No path was requested more than once.
fn each_read_once(server: &TestServer) {
    let mut hits: HashMap<String, usize> = HashMap::new();
    for request in server.requests() {
        *hits.entry(request.path_and_query).or_default() += 1;
    }
    let repeated: Vec<_> = hits.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "requested more than once: {repeated:?}");
}

/// robots.txt naming the public origin, so absolute links to it are read
/// from the folder.
const ROBOTS: &str = "User-agent: *\nAllow: /\nSitemap: https://site.test/sitemap.xml\n";

// --- llms-txt ------------------------------------------------------------------

const LLMS_GOOD: &str = "# Acme\n\n> Acme makes analytics.\n\n## Docs\n\n\
- [Start](https://site.test/docs/start.md): Five-minute setup.\n\
- [Reference](https://site.test/docs/reference.md): Every event.\n";

fn docs() -> Vec<(&'static str, &'static str)> {
    vec![
        ("robots.txt", ROBOTS),
        ("docs/start.md", "# Start\n\nSet up Acme."),
        ("docs/reference.md", "# Reference\n\nEvents."),
        ("docs/page.html", "<!doctype html><html><head><title>Page</title></head><body>Page</body></html>"),
    ]
}

fn with(
    mut files: Vec<(&'static str, &'static str)>,
    more: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    files.extend_from_slice(more);
    files
}

#[tokio::test]
async fn llms_txt_folder_pass() {
    let report = audit_folder("llms-pass", &with(docs(), &[("llms.txt", LLMS_GOOD)])).await;
    let c = check(&report, "llms-txt");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    assert_eq!(c.version, "1.0.0");
    let links = evidence(c, "links");
    assert_eq!(
        (links["listed"].as_u64(), links["ok"].as_u64(), links["checked"].as_u64()),
        (Some(2), Some(2), Some(2))
    );
    assert_eq!(evidence(c, "present")["media_type"], "text/plain");
    assert_eq!(evidence(c, "valid")["title"], "Acme");
}

#[tokio::test]
async fn llms_txt_folder_warns_for_html_targets_and_missing_descriptions() {
    let llms = "# Acme\n\n> Analytics.\n\n## Docs\n\n- [Start](https://site.test/docs/start.md)\n\
- [Page](https://site.test/docs/page.html): The HTML page.\n";
    let report = audit_folder("llms-warn", &with(docs(), &[("llms.txt", llms)])).await;
    let c = check(&report, "llms-txt");
    assert_eq!((step(c, "valid"), step(c, "links")), (Status::Pass, Status::Warn), "{c:#?}");
    assert_eq!((c.status, c.score), (Status::Warn, Some(80)));
    let links = evidence(c, "links");
    assert_eq!(links["html"][0]["url"], "https://site.test/docs/page.html");
    assert_eq!(links["without_description"][0]["line"], 7);
    // Issue 31: L007 has its table severity (info), as in `llms check`.
    assert!(has_finding(c, Severity::Info, "L007 1 link(s) have no description (line 7)"));
    assert!(has_finding(c, Severity::Warn, "serve HTML rather than Markdown"));
    assert!(has_finding(c, Severity::Info, "L008"), "non-Markdown targets are reported by the validator");
    all_fixed(c);
}

#[tokio::test]
async fn llms_txt_folder_fails_for_broken_links() {
    let llms = "# Acme\n\n> Analytics.\n\n## Docs\n\n- [Start](https://site.test/docs/start.md): Setup.\n\
- [Gone](https://site.test/docs/gone.md): Removed.\n";
    let report = audit_folder("llms-broken", &with(docs(), &[("llms.txt", llms)])).await;
    let c = check(&report, "llms-txt");
    assert_eq!((step(c, "links"), c.status, c.score), (Status::Fail, Status::Fail, Some(60)));
    let broken = &evidence(c, "links")["broken"][0];
    assert_eq!((broken["line"].as_u64(), broken["outcome"].as_str()), (Some(8), Some("missing from the folder")));
    let finding = c.findings.iter().find(|f| f.severity == Severity::Fail).unwrap();
    assert_eq!(finding.location.as_deref(), Some("/llms.txt:8"));
    assert!(finding.message.contains("[Gone](https://site.test/docs/gone.md) is broken"));
}

#[tokio::test]
async fn llms_txt_missing_or_not_markdown_fails_present_and_skips_the_rest() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("llms-missing", None, "does not publish it"),
        ("llms-html", Some("<!doctype html><html><body>Not found</body></html>"), "an HTML page, not Markdown"),
        ("llms-json", Some("{\"name\": \"Acme\", \"links\": []}"), "JSON, not Markdown"),
    ];
    for (name, body, message) in cases {
        let mut files = vec![("robots.txt", ROBOTS)];
        if let Some(body) = body {
            files.push(("llms.txt", *body));
        }
        let report = audit_folder(name, &files).await;
        let c = check(&report, "llms-txt");
        assert_eq!(step(c, "present"), Status::Fail, "{name}");
        assert_eq!((step(c, "valid"), step(c, "links")), (Status::Skip, Status::Skip), "{name}");
        assert_eq!(c.score, Some(0), "{name}");
        assert!(has_finding(c, Severity::Fail, message), "{name}: {:#?}", c.findings);
        all_fixed(c);
    }
}

#[tokio::test]
async fn llms_txt_validator_findings_carry_code_line_and_fix() {
    // (fixture, body, valid step, code, fix fragment)
    let cases: &[(&str, &str, Status, &str, &str)] = &[
        ("llms-no-h1", "> Acme.\n\n## Docs\n\n- [Start](/docs/start.md): Setup.\n", Status::Fail, "L001", "`# Name`"),
        (
            "llms-two-h1",
            "# Acme\n\n> Acme.\n\n# Again\n\n## Docs\n\n- [Start](https://site.test/docs/start.md): Setup.\n",
            Status::Warn,
            "L002",
            "Keep one H1",
        ),
        (
            "llms-relative",
            "# Acme\n\n> Acme.\n\n## Docs\n\n- [Start](docs/start.md): Setup.\n",
            Status::Warn,
            "L009",
            "full URLs",
        ),
    ];
    for (name, body, want, code, fix) in cases {
        let report = audit_folder(name, &with(docs(), &[("llms.txt", *body)])).await;
        let c = check(&report, "llms-txt");
        assert_eq!(step(c, "valid"), *want, "{name}: {c:#?}");
        let finding =
            c.findings.iter().find(|f| f.message.starts_with(code)).unwrap_or_else(|| panic!("{name}: no {code}"));
        assert!(finding.fix.as_deref().unwrap().contains(fix), "{name}: {finding:?}");
        assert!(finding.location.as_deref().unwrap().starts_with("/llms.txt"), "{name}");
        // Relative and site-absolute links are read from the folder.
        assert_eq!(step(c, "links"), Status::Pass, "{name}: {:#?}", evidence(c, "links"));
    }
}

#[tokio::test]
async fn llms_txt_links_to_other_hosts_are_not_checkable_in_a_folder() {
    let llms = "# Acme\n\n> Acme.\n\n## Docs\n\n- [Elsewhere](https://other.test/a.md): Another host.\n";
    let report = audit_folder("llms-other-host", &[("llms.txt", llms)]).await;
    let c = check(&report, "llms-txt");
    assert_eq!(step(c, "links"), Status::Skip, "{c:#?}");
    assert_eq!(c.status, Status::Pass, "a skipped step is not a failure");
    let not_checked = &evidence(c, "links")["not_checked"][0];
    assert_eq!(not_checked["url"], "https://other.test/a.md");
    assert!(not_checked["reason"].as_str().unwrap().contains("other.test"));
    assert!(has_finding(c, Severity::Info, "not checked"));
}

#[tokio::test]
async fn llms_txt_link_checks_are_capped() {
    let mut llms = String::from("# Acme\n\n> Acme.\n\n## Docs\n\n");
    for i in 0..205 {
        llms.push_str(&format!("- [Page {i}](/p{i}.md): Page {i}.\n"));
    }
    let folder = Folder::new("llms-cap", &[("llms.txt", llms.as_str())]);
    let report = folder.audit().await;
    let c = check(&report, "llms-txt");
    let links = evidence(c, "links");
    assert_eq!((links["unique"].as_u64(), links["checked"].as_u64()), (Some(205), Some(200)));
    assert_eq!(links["skipped_over_cap"], 5);
    assert_eq!(links["broken"].as_array().unwrap().len(), 200);
    let fails = c.findings.iter().filter(|f| f.severity == Severity::Fail).count();
    assert_eq!(fails, 11, "ten broken links, then one summary");
    assert!(has_finding(c, Severity::Info, "only the first 200 of 205"));
}

#[tokio::test]
async fn llms_txt_over_http_status_classes() {
    for (route, class) in [(Route::text(404, "missing"), 404), (Route::text(500, "oops"), 500)] {
        let server = TestServer::start().await;
        server.route("/llms.txt", route);
        let report = audit_server(&server).await;
        let c = check(&report, "llms-txt");
        assert_eq!((step(c, "present"), c.score), (Status::Fail, Some(0)), "{class}");
        assert_eq!(evidence(c, "present")["status"], class);
        assert!(has_finding(c, Severity::Fail, &format!("HTTP {class}")), "{class}");
        assert_eq!(server.hits("/llms.txt"), 1, "{class}: read once although llms-full-txt reads it too");
        all_fixed(c);
    }
}

#[tokio::test]
async fn an_unreachable_llms_txt_link_is_not_a_broken_one() {
    // The client's one link classification, as `webcanon llms check` reads
    // it: no answer (here a redirect loop) is reported, not counted broken.
    let server = TestServer::start().await;
    let base = server.url("/");
    let llms = format!("# Acme\n\n> Acme.\n\n## Docs\n\n- [Loop]({base}loop.md): Redirects to itself.\n");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/llms.txt", Route::bytes(200, "text/markdown", llms.into_bytes()));
    server.route("/loop.md", Route::redirect(302, "/loop.md"));
    let report = audit_server(&server).await;
    let c = check(&report, "llms-txt");
    let links = evidence(c, "links");
    assert_eq!(links["broken"].as_array().map(Vec::len), Some(0), "{links}");
    assert!(links["not_checked"][0]["reason"].as_str().unwrap().starts_with("unreachable: "), "{links}");
    assert_ne!(step(c, "links"), Status::Fail, "{c:#?}");
}

#[tokio::test]
async fn llms_txt_over_http_links_redirects_and_robots() {
    let server = TestServer::start().await;
    let base = server.url("/");
    let llms = format!(
        "# Acme\n\n> Acme.\n\n## Docs\n\n\
- [A]({base}a.md): Markdown.\n\
- [Relative](b.md): Resolved against the final URL.\n\
- [Page]({base}page): HTML.\n\
- [Gone]({base}gone.md): Missing.\n\
- [Broken]({base}err.md): Server error.\n\
- [Private]({base}private.md): Disallowed.\n\
- [A again]({base}a.md): Same target.\n"
    );
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private.md\n"));
    server.route("/llms.txt", Route::redirect(301, "/files/llms.txt"));
    server.route("/files/llms.txt", Route::bytes(200, "text/markdown; charset=utf-8", llms.into_bytes()));
    server.route("/a.md", Route::bytes(200, "text/markdown", b"# A".to_vec()));
    server.route("/files/b.md", Route::bytes(200, "text/markdown", b"# B".to_vec()));
    server.route("/page", Route::html(200, "<!doctype html><title>Page</title><p>Page</p>"));
    server.route("/err.md", Route::text(500, "oops"));
    let report = audit_server(&server).await;
    let c = check(&report, "llms-txt");
    assert_eq!(step(c, "present"), Status::Pass);
    assert_eq!(evidence(c, "present")["redirects"].as_array().unwrap().len(), 1);
    assert_eq!(evidence(c, "present")["media_type"], "text/markdown");
    let links = evidence(c, "links");
    assert_eq!((links["listed"].as_u64(), links["unique"].as_u64()), (Some(7), Some(6)));
    assert_eq!(links["ok"], 3);
    let broken: Vec<&str> =
        links["broken"].as_array().unwrap().iter().map(|b| b["outcome"].as_str().unwrap()).collect();
    assert_eq!(broken, ["HTTP 404", "HTTP 500"]);
    assert_eq!(links["refused"][0]["title"], "Private");
    assert_eq!(links["html"][0]["media_type"], "text/html");
    assert_eq!((step(c, "links"), c.status), (Status::Fail, Status::Fail));
    assert!(has_finding(c, Severity::Warn, "robots.txt keeps TestBot from"));
    assert_eq!(server.hits("/a.md"), 1, "a target listed twice is read once");
    assert_eq!(server.hits("/files/b.md"), 1, "relative links resolve against the final URL");
    assert_eq!(server.hits("/private.md"), 0, "robots.txt is honoured");
    each_read_once(&server);
}

// --- llms-full-txt ---------------------------------------------------------------

const FULL_GOOD: &str = "# Acme\n\n## Start\n\nSet up Acme in five minutes.\n\n## Reference\n\nEvery event.\n";
const LLMS_WITH_OPTIONAL: &str = "# Acme\n\n> Acme.\n\n## Docs\n\n\
- [Start](https://site.test/docs/start.md): Setup.\n- [Reference](https://site.test/docs/reference.md): Events.\n\n\
## Optional\n\n- [Changelog](https://site.test/changelog.md): Releases.\n";

#[tokio::test]
async fn llms_full_txt_folder_pass() {
    let report = audit_folder("full-pass", &[("llms.txt", LLMS_WITH_OPTIONAL), ("llms-full.txt", FULL_GOOD)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    let e = evidence(c, "consistent");
    assert_eq!((e["pages"].as_u64(), e["found"].as_u64(), e["optional_ignored"].as_u64()), (Some(2), Some(2), Some(1)));
    assert_eq!(e["title_matches"], true);
}

#[tokio::test]
async fn llms_full_txt_missing_warns() {
    let report = audit_folder("full-missing", &[("llms.txt", LLMS_WITH_OPTIONAL)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((step(c, "present"), step(c, "consistent")), (Status::Warn, Status::Skip));
    // The skipped step does not count: a warning alone is 50.
    assert_eq!((c.status, c.score), (Status::Warn, Some(50)));
    assert!(c.findings[0].fix.as_deref().unwrap().contains("marketing sites can do without it"));
}

#[tokio::test]
async fn llms_full_txt_inconsistent_with_llms_txt() {
    // Title differs and one page is missing: warn.
    let partial = "# Something else\n\n## Start\n\nSetup.\n";
    let report = audit_folder("full-partial", &[("llms.txt", LLMS_WITH_OPTIONAL), ("llms-full.txt", partial)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((step(c, "consistent"), c.score), (Status::Warn, Some(75)), "{c:#?}");
    let e = evidence(c, "consistent");
    assert_eq!(e["title_matches"], false);
    assert_eq!(e["missing"][0]["title"], "Reference");
    assert!(has_finding(
        c,
        Severity::Warn,
        "1 of the 2 pages llms.txt lists do not appear in llms-full.txt: Reference"
    ));
    assert!(has_finding(c, Severity::Warn, "never names \"Acme\""));

    // A page found by its URL rather than its title counts.
    let by_url = "# Acme\n\nSee https://site.test/docs/start.md and https://site.test/docs/reference.md.\n";
    let report = audit_folder("full-by-url", &[("llms.txt", LLMS_WITH_OPTIONAL), ("llms-full.txt", by_url)]).await;
    assert_eq!(step(check(&report, "llms-full-txt"), "consistent"), Status::Pass);

    // None of the pages: fail.
    let unrelated = "# Acme\n\nNothing about the docs.\n";
    let report = audit_folder("full-none", &[("llms.txt", LLMS_WITH_OPTIONAL), ("llms-full.txt", unrelated)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((step(c, "consistent"), c.status, c.score), (Status::Fail, Status::Fail, Some(50)));
}

#[tokio::test]
async fn llms_full_txt_not_markdown_fails_and_no_llms_txt_skips() {
    let html = "<!doctype html><html><body>Docs</body></html>";
    let report = audit_folder("full-html", &[("llms.txt", LLMS_WITH_OPTIONAL), ("llms-full.txt", html)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((step(c, "present"), step(c, "consistent"), c.score), (Status::Fail, Status::Skip, Some(0)));
    assert!(has_finding(c, Severity::Fail, "an HTML page, not Markdown"));

    let report = audit_folder("full-alone", &[("llms-full.txt", FULL_GOOD)]).await;
    let c = check(&report, "llms-full-txt");
    assert_eq!((step(c, "present"), step(c, "consistent")), (Status::Pass, Status::Skip));
    assert_eq!(evidence(c, "consistent")["reason"], "no llms.txt to compare with");
}

#[tokio::test]
async fn llms_full_txt_over_http() {
    let server = TestServer::start().await;
    server.route("/llms-full.txt", Route::text(404, "missing"));
    let c = check(&audit_server(&server).await, "llms-full-txt").clone();
    assert_eq!((step(&c, "present"), c.status), (Status::Warn, Status::Warn));

    let server = TestServer::start().await;
    server.route("/llms-full.txt", Route::text(503, "busy"));
    let c = check(&audit_server(&server).await, "llms-full-txt").clone();
    assert_eq!((step(&c, "present"), c.status), (Status::Fail, Status::Fail), "a server error is not a missing file");

    let server = TestServer::start().await;
    server.route("/llms.txt", Route::bytes(200, "text/markdown", LLMS_WITH_OPTIONAL.as_bytes().to_vec()));
    server.route("/llms-full.txt", Route::redirect(302, "/full.md"));
    server.route("/full.md", Route::bytes(200, "text/markdown", FULL_GOOD.as_bytes().to_vec()));
    let c = check(&audit_server(&server).await, "llms-full-txt").clone();
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    assert_eq!(server.hits("/llms.txt"), 1);
    assert_eq!(server.hits("/full.md"), 1);
}

// --- sitemap -------------------------------------------------------------------

fn urlset(entries: &[(&str, Option<&str>)]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (loc, lastmod) in entries {
        match lastmod {
            Some(date) => xml.push_str(&format!("  <url><loc>{loc}</loc><lastmod>{date}</lastmod></url>\n")),
            None => xml.push_str(&format!("  <url><loc>{loc}</loc></url>\n")),
        }
    }
    xml.push_str("</urlset>\n");
    xml
}

fn index(children: &[String]) -> String {
    let mut xml =
        String::from("<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for child in children {
        xml.push_str(&format!("  <sitemap><loc>{child}</loc></sitemap>\n"));
    }
    xml.push_str("</sitemapindex>\n");
    xml
}

#[tokio::test]
async fn sitemap_folder_pass() {
    let xml = urlset(&[
        ("https://site.test/", Some("2026-01-01")),
        ("https://site.test/docs/", Some("2026-02-01T10:00:00+00:00")),
    ]);
    let report = audit_folder("sm-pass", &[("robots.txt", ROBOTS), ("sitemap.xml", xml.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    assert_eq!(evidence(c, "discoverable")["found"][0], "/sitemap.xml");
    assert_eq!(evidence(c, "valid")["files"][0]["kind"], "urlset");
    let lastmod = evidence(c, "lastmod");
    assert_eq!((lastmod["share"].as_f64(), lastmod["oldest"].as_str()), (Some(1.0), Some("2026-01-01")));
    assert_eq!(evidence(c, "limits")["files"][0]["host"], "site.test");
}

/// A bare `&` is not well-formed XML: the entries are still read (as
/// search engines read them), but the `valid` step warns with S001.
#[tokio::test]
async fn sitemap_with_a_bare_ampersand_warns_on_valid() {
    let xml = urlset(&[("https://site.test/search?q=a&page=2", Some("2026-01-01")), ("https://site.test/", None)]);
    let report = audit_folder("sm-amp", &[("robots.txt", ROBOTS), ("sitemap.xml", xml.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!(step(c, "valid"), Status::Warn, "{c:#?}");
    assert!(has_finding(c, Severity::Warn, "S001"), "{:#?}", c.findings);
    let finding = c.findings.iter().find(|f| f.message.contains("S001")).unwrap();
    assert!(finding.message.contains("bare `&`"), "{}", finding.message);
    assert_eq!(evidence(c, "valid")["files"][0]["entries"], 2, "{}", evidence(c, "valid"));
}

#[tokio::test]
async fn sitemap_only_at_the_well_known_path_warns() {
    let xml = urlset(&[("https://site.test/", Some("2026-01-01"))]);
    let report =
        audit_folder("sm-unlisted", &[("robots.txt", "User-agent: *\nAllow: /\n"), ("sitemap.xml", xml.as_str())])
            .await;
    let c = check(&report, "sitemap");
    assert_eq!((step(c, "discoverable"), c.status, c.score), (Status::Warn, Status::Warn, Some(85)));
    let finding = &c.findings[0];
    assert!(finding.message.contains("not named in robots.txt"));
    assert!(finding.fix.as_deref().unwrap().contains("Sitemap: https://<your-domain>/sitemap.xml"));
}

#[tokio::test]
async fn sitemap_missing_fails_and_skips_the_rest() {
    let report = audit_folder("sm-missing", &[("robots.txt", "User-agent: *\nAllow: /\n")]).await;
    let c = check(&report, "sitemap");
    assert_eq!((step(c, "discoverable"), c.score), (Status::Fail, Some(0)));
    for id in ["valid", "limits", "lastmod"] {
        assert_eq!(step(c, id), Status::Skip, "{id}");
    }
    assert!(has_finding(c, Severity::Fail, "no sitemap found"));

    // A catch-all HTML page at /sitemap.xml is no sitemap.
    let html = "<!doctype html><html><body>Home</body></html>";
    let report = audit_folder("sm-catch-all", &[("sitemap.xml", html)]).await;
    let c = check(&report, "sitemap");
    assert_eq!(step(c, "discoverable"), Status::Fail);
    assert!(has_finding(c, Severity::Fail, "not a sitemap"));
}

#[tokio::test]
async fn sitemap_lastmod_shares() {
    let some = urlset(&[("https://site.test/a", Some("2026-01-01")), ("https://site.test/b", None)]);
    let report = audit_folder("sm-some-lastmod", &[("robots.txt", ROBOTS), ("sitemap.xml", some.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!((step(c, "lastmod"), c.score), (Status::Warn, Some(90)));
    assert_eq!(evidence(c, "lastmod")["share"], 0.5);
    assert!(has_finding(c, Severity::Warn, "1 of the 2 sitemap URLs have no lastmod"));

    let text = "https://site.test/a\nhttps://site.test/b\n";
    let report = audit_folder(
        "sm-text",
        &[("robots.txt", "User-agent: *\nSitemap: https://site.test/sitemap.txt\n"), ("sitemap.txt", text)],
    )
    .await;
    let c = check(&report, "sitemap");
    assert_eq!(evidence(c, "valid")["files"][0]["kind"], "text");
    assert_eq!(step(c, "lastmod"), Status::Warn);
    assert!(c.findings.iter().any(|f| f.fix.as_deref().unwrap().contains("XML sitemap instead of a text one")));
}

#[tokio::test]
async fn sitemap_diagnostics_warn_and_fail() {
    let bad_date = urlset(&[("https://site.test/a", Some("yesterday"))]);
    let report = audit_folder("sm-bad-date", &[("robots.txt", ROBOTS), ("sitemap.xml", bad_date.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!(step(c, "valid"), Status::Warn, "{c:#?}");
    let finding = c.findings.iter().find(|f| f.message.starts_with("S004")).unwrap();
    assert_eq!(finding.location.as_deref(), Some("/sitemap.xml:3"));
    assert!(finding.fix.as_deref().unwrap().contains("W3C date"));

    let doctype = "<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [<!ENTITY a \"b\">]>\n<urlset></urlset>";
    let report = audit_folder("sm-doctype", &[("robots.txt", ROBOTS), ("sitemap.xml", doctype)]).await;
    let c = check(&report, "sitemap");
    assert_eq!((step(c, "valid"), c.status), (Status::Fail, Status::Fail), "{c:#?}");
    all_fixed(c);
}

#[tokio::test]
async fn sitemap_limits() {
    let off_host =
        urlset(&[("https://site.test/a", Some("2026-01-01")), ("https://elsewhere.test/b", Some("2026-01-01"))]);
    let report = audit_folder("sm-off-host", &[("robots.txt", ROBOTS), ("sitemap.xml", off_host.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!((step(c, "limits"), c.score), (Status::Warn, Some(90)));
    assert_eq!(evidence(c, "limits")["off_host_examples"][0], "https://elsewhere.test/b");

    let mut many = String::new();
    for i in 0..50_001 {
        many.push_str(&format!("https://site.test/p{i}\n"));
    }
    let robots = "User-agent: *\nSitemap: https://site.test/sitemap.txt\n";
    let report = audit_folder("sm-too-many", &[("robots.txt", robots), ("sitemap.txt", many.as_str())]).await;
    let c = check(&report, "sitemap");
    assert_eq!(step(c, "limits"), Status::Fail, "{:#?}", evidence(c, "limits"));
    let file = &evidence(c, "limits")["files"][0];
    assert_eq!((file["over_count"].as_bool(), file["dropped"].as_u64()), (Some(true), Some(1)));
    assert!(has_finding(c, Severity::Fail, "lists 50001 URLs, over the limit of 50000"));
}

#[tokio::test]
async fn sitemap_over_http_status_classes_and_redirect() {
    for (route, class) in [(Route::text(404, "missing"), "HTTP 404"), (Route::text(500, "oops"), "HTTP 500")] {
        let server = TestServer::start().await;
        server.route(
            "/robots.txt",
            Route::text(200, &format!("User-agent: *\nSitemap: {}\n", server.url("/sitemap.xml"))),
        );
        server.route("/sitemap.xml", route);
        let report = audit_server(&server).await;
        let c = check(&report, "sitemap");
        assert_eq!((step(c, "discoverable"), c.score), (Status::Fail, Some(0)), "{class}");
        assert_eq!(evidence(c, "discoverable")["candidates"][0]["source"], "robots_txt");
        assert!(has_finding(c, Severity::Fail, class), "{class}: {:#?}", c.findings);
        assert_eq!(server.hits("/sitemap.xml"), 1, "{class}: read once although page-signals samples it too");
    }

    let server = TestServer::start().await;
    let xml = urlset(&[(server.url("/").as_str(), Some("2026-01-01"))]);
    server.route("/robots.txt", Route::text(200, &format!("User-agent: *\nSitemap: {}\n", server.url("/old-sitemap"))));
    server.route("/old-sitemap", Route::redirect(301, "/sitemap.xml"));
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", xml.into_bytes()));
    server.route("/", Route::html(200, "<!doctype html><title>Home</title>"));
    let report = audit_server(&server).await;
    let c = check(&report, "sitemap");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    assert_eq!(evidence(c, "discoverable")["candidates"][0]["redirects"][0]["status"], 301);
    each_read_once(&server);
}

#[tokio::test]
async fn sitemap_index_children_over_http() {
    let server = TestServer::start().await;
    let children: Vec<String> = (0..25).map(|i| server.url(&format!("/sitemap-{i}.xml.gz"))).collect();
    server.route("/robots.txt", Route::text(200, &format!("User-agent: *\nSitemap: {}\n", server.url("/sitemap.xml"))));
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", index(&children).into_bytes()));
    for i in 0..25 {
        let page = server.url(&format!("/p{i}"));
        let body = webcanon_test::gzip(urlset(&[(page.as_str(), Some("2026-03-01"))]).as_bytes());
        if i != 3 {
            server.route(&format!("/sitemap-{i}.xml.gz"), Route::bytes(200, "application/gzip", body));
        }
    }
    let report = audit_server(&server).await;
    let c = check(&report, "sitemap");
    let valid = evidence(c, "valid");
    assert_eq!((valid["children_listed"].as_u64(), valid["children_read"].as_u64()), (Some(25), Some(20)));
    assert_eq!(valid["children_over_cap"], 5);
    assert_eq!(valid["files"].as_array().unwrap().len(), 20, "the index and 19 readable children");
    assert_eq!((step(c, "valid"), c.status), (Status::Fail, Status::Fail));
    assert!(has_finding(c, Severity::Fail, "sitemap-3.xml.gz, which answered HTTP 404"));
    assert_eq!(evidence(c, "lastmod")["entries"], 19);
    assert_eq!(server.hits("/sitemap-0.xml.gz"), 1);
    assert_eq!(server.hits("/sitemap-24.xml.gz"), 0, "children past the cap are not read");
    each_read_once(&server);
}

#[tokio::test]
async fn sample_pages_spreads_across_the_sitemap() {
    let entries: Vec<String> = (0..30).map(|i| format!("https://site.test/p{i}")).collect();
    let mut listed: Vec<(&str, Option<&str>)> = entries.iter().map(|e| (e.as_str(), None)).collect();
    listed.push(("https://elsewhere.test/x", None));
    let xml = urlset(&listed);
    let folder = Folder::new("sm-sample", &[("robots.txt", ROBOTS), ("sitemap.xml", xml.as_str())]);
    let ctx = Context { site: Site::folder(&folder.0), agent: "TestBot".into() };
    let pages = sitemap::sample_pages(&ctx, 10).await;
    assert_eq!(pages.len(), 10);
    assert_eq!((pages[0].as_str(), pages[1].as_str(), pages[9].as_str()), ("/p0", "/p3", "/p27"));
    assert_eq!(sitemap::sample_pages(&ctx, 100).await.len(), 30, "pages on other hosts are not the site's");
    assert_eq!(ctx.site.reads(), 2, "robots.txt and the sitemap, each read once");
}

// --- ai-txt --------------------------------------------------------------------

#[tokio::test]
async fn ai_txt_folder_pass_with_training_evidence() {
    let ai = "# Spawning ai.txt\nUser-Agent: *\nDisallow: *.jpg\nDisallow: *.jpeg\nDisallow: *.png\nDisallow: *.gif\n\
Disallow: *.webp\nDisallow: *.svg\nAllow: /docs/\n";
    let report = audit_folder("ai-pass", &[("ai.txt", ai)]).await;
    let c = check(&report, "ai-txt");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    let valid = evidence(c, "valid");
    assert_eq!(valid["kind"], "spawning");
    assert_eq!(valid["training"]["by_media"]["images"], "disallowed");
    assert_eq!(valid["training"]["by_media"]["text"], "no_rule");
    assert_eq!(valid["training"]["by_type"]["png"], "disallowed");
    assert_eq!(valid["groups"][0]["rules"][6]["pattern"], "/docs/");
}

#[tokio::test]
async fn ai_txt_missing_other_format_and_html_warn() {
    let report = audit_folder("ai-missing", &[("robots.txt", ROBOTS)]).await;
    let c = check(&report, "ai-txt");
    assert_eq!(
        (step(c, "present"), step(c, "valid"), c.status, c.score),
        (Status::Warn, Status::Skip, Status::Warn, Some(50))
    );
    assert!(c.findings[0].fix.as_deref().unwrap().contains("Spawning's format"));

    let other = "Training: no\nScraping: allowed\nContact: legal@site.test\n";
    let report = audit_folder("ai-other", &[("ai.txt", other)]).await;
    let c = check(&report, "ai-txt");
    assert_eq!((step(c, "present"), step(c, "valid"), c.score), (Status::Pass, Status::Warn, Some(75)));
    assert_eq!(evidence(c, "valid")["kind"], "other");
    assert_eq!(evidence(c, "valid")["records"][0]["key"], "Training");
    assert!(has_finding(c, Severity::Warn, "A002"));
    assert!(
        !c.findings.iter().any(|f| f.message.starts_with("A005")),
        "records of another format are not listed one by one"
    );

    let html = "<!doctype html><html><body>Home</body></html>";
    let report = audit_folder("ai-html", &[("ai.txt", html)]).await;
    let c = check(&report, "ai-txt");
    assert_eq!((step(c, "present"), step(c, "valid")), (Status::Warn, Status::Skip));
    assert_eq!(evidence(c, "present")["kind"], "html");
    all_fixed(c);
}

#[tokio::test]
async fn ai_txt_rule_outside_a_group_fails() {
    let report = audit_folder("ai-orphan", &[("ai.txt", "Disallow: *.jpg\nUser-Agent: *\nDisallow: *.png\n")]).await;
    let c = check(&report, "ai-txt");
    assert_eq!((step(c, "valid"), c.status, c.score), (Status::Fail, Status::Fail, Some(50)));
    let finding = c.findings.iter().find(|f| f.message.starts_with("A003")).unwrap();
    assert_eq!(finding.location.as_deref(), Some("/ai.txt:1"));
}

#[tokio::test]
async fn ai_txt_over_http() {
    for (route, status) in [(Route::text(404, "missing"), Status::Warn), (Route::text(500, "oops"), Status::Warn)] {
        let server = TestServer::start().await;
        server.route("/ai.txt", route);
        let report = audit_server(&server).await;
        let c = check(&report, "ai-txt");
        assert_eq!((step(c, "present"), c.status), (status, Status::Warn));
        assert_eq!(server.hits("/ai.txt"), 1, "read once although page-signals reads it too");
    }
    let server = TestServer::start().await;
    server.route("/ai.txt", Route::redirect(301, "/policies/ai.txt"));
    server.route("/policies/ai.txt", Route::text(200, "User-Agent: *\nDisallow: *.mp4\n"));
    let report = audit_server(&server).await;
    let c = check(&report, "ai-txt");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)));
    assert_eq!(evidence(c, "valid")["training"]["by_type"]["mp4"], "disallowed");
    assert_eq!(server.hits("/policies/ai.txt"), 1);
}

// --- page-signals ----------------------------------------------------------------

fn page(head: &str) -> String {
    format!("<!doctype html><html><head><title>Page</title>{head}</head><body><p>Text</p></body></html>")
}

#[tokio::test]
async fn page_signals_folder_pass() {
    let xml = urlset(&[("https://site.test/", None), ("https://site.test/account/", None)]);
    let home = page("");
    let account =
        page("<meta name=\"robots\" content=\"noai, noimageai\"><meta name=\"tdm-reservation\" content=\"1\">");
    let report = audit_folder(
        "ps-pass",
        &[
            ("robots.txt", ROBOTS),
            ("sitemap.xml", xml.as_str()),
            ("index.html", home.as_str()),
            ("account/index.html", account.as_str()),
        ],
    )
    .await;
    let c = check(&report, "page-signals");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    let sampled = evidence(c, "sampled");
    assert_eq!((sampled["source"].as_str(), sampled["read"].as_u64()), (Some("sitemap"), Some(2)));
    assert_eq!(sampled["pages"][1]["meta_robots"], serde_json::json!(["noai", "noimageai"]));
    assert_eq!(sampled["pages"][1]["tdm_reservation"]["meta"], true);
    let consistent = evidence(c, "consistent");
    assert_eq!(consistent["signals"]["noai"], 1);
    assert_eq!(consistent["mixed"]["noai"]["with"][0], "/account/");
    assert!(has_finding(c, Severity::Info, "signals differ across the 2 sampled pages"));
    let sources = evidence(c, "declared")["sources"].as_array().unwrap().clone();
    assert!(sources.contains(&"meta_robots_noai".into()) && sources.contains(&"tdmrep_meta".into()), "{sources:?}");
    all_fixed(c);
}

#[tokio::test]
async fn page_signals_folder_warns() {
    // A noindex page in the sitemap, and no usage preference anywhere.
    let xml = urlset(&[("https://site.test/", None), ("https://site.test/hidden", None)]);
    let hidden = page("<meta name=\"robots\" content=\"noindex, nofollow\">");
    let report = audit_folder(
        "ps-warn",
        &[
            ("robots.txt", ROBOTS),
            ("sitemap.xml", xml.as_str()),
            ("index.html", page("").as_str()),
            ("hidden.html", hidden.as_str()),
        ],
    )
    .await;
    let c = check(&report, "page-signals");
    assert_eq!((step(c, "consistent"), step(c, "declared")), (Status::Warn, Status::Warn), "{c:#?}");
    assert_eq!(c.score, Some(60));
    assert_eq!(evidence(c, "consistent")["noindex_in_sitemap"][0], "/hidden");
    let noindex = c.findings.iter().find(|f| f.message.contains("asks not to be indexed")).unwrap();
    assert!(noindex.fix.as_deref().unwrap().contains("does not stop agents from fetching"));
    let declared = c.findings.iter().find(|f| f.message.contains("no AI usage preference")).unwrap();
    assert!(declared.fix.as_deref().unwrap().contains("agents may still fetch"));
    assert_eq!(declared.severity, Severity::Warn, "advice, never a failure");
}

#[tokio::test]
async fn page_signals_folder_fails_when_no_page_can_be_read() {
    let xml = urlset(&[("https://site.test/a", None), ("https://site.test/b", None)]);
    let report = audit_folder("ps-fail", &[("robots.txt", ROBOTS), ("sitemap.xml", xml.as_str())]).await;
    let c = check(&report, "page-signals");
    assert_eq!(
        (step(c, "sampled"), step(c, "consistent"), step(c, "declared")),
        (Status::Fail, Status::Skip, Status::Warn)
    );
    // sampled 0 ×0.2, declared 0.5 ×0.4, over the 0.6 that ran.
    assert_eq!((c.status, c.score), (Status::Fail, Some(33)));
    assert!(has_finding(c, Severity::Warn, "/a is listed in the sitemap but is missing from the folder"));
}

#[tokio::test]
async fn page_signals_without_sitemap_reads_the_home_page() {
    let report = audit_folder(
        "ps-home",
        &[
            ("index.html", page("").as_str()),
            ("robots.txt", "User-agent: *\nContent-Signal: search=yes, ai-train=no\n"),
        ],
    )
    .await;
    let c = check(&report, "page-signals");
    assert_eq!(evidence(c, "sampled")["source"], "home");
    assert_eq!(evidence(c, "sampled")["pages"][0]["page"], "/");
    assert_eq!(evidence(c, "declared")["sources"], serde_json::json!(["robots_txt"]));
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)));
}

#[tokio::test]
async fn page_signals_over_http_headers_tdmrep_and_robots() {
    let server = TestServer::start().await;
    let xml = urlset(&[
        (server.url("/").as_str(), None),
        (server.url("/news/story").as_str(), None),
        (server.url("/private/page").as_str(), None),
        (server.url("/gone").as_str(), None),
    ]);
    server.route(
        "/robots.txt",
        Route::text(200, &format!("User-agent: *\nDisallow: /private/\nSitemap: {}\n", server.url("/sitemap.xml"))),
    );
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", xml.into_bytes()));
    server.route("/", Route::html(200, &page("")).header("content-signal", "search=yes, ai-train=no"));
    server.route(
        "/news/story",
        Route::html(200, &page("<meta name=\"tdm-reservation\" content=\"0\">"))
            .header("x-robots-tag", "noai")
            .header("x-robots-tag", "otherbot: noindex")
            .header("tdm-reservation", "1"),
    );
    server.route(
        "/.well-known/tdmrep.json",
        Route::bytes(
            200,
            "application/json",
            br#"[{"location": "/news/*", "tdm-reservation": 1, "tdm-policy": "https://x.test/p"}]"#.to_vec(),
        ),
    );
    let report = audit_server(&server).await;
    let c = check(&report, "page-signals");
    let pages = evidence(c, "sampled")["pages"].as_array().unwrap().clone();
    assert_eq!(pages.len(), 4);
    assert_eq!(pages[0]["content_signal"][0], "search=yes, ai-train=no");
    assert_eq!(pages[1]["x_robots_tag"], serde_json::json!(["noai"]), "directives for other agents do not apply");
    assert_eq!(pages[1]["tdm_reservation"], serde_json::json!({"meta": false, "header": true, "file": true}));
    assert_eq!(pages[0]["tdm_reservation"]["file"], Value::Null, "the rule covers /news/* only");
    assert_eq!(step(c, "sampled"), Status::Warn);
    assert!(has_finding(c, Severity::Warn, "robots.txt keeps TestBot from"));
    assert!(has_finding(c, Severity::Warn, "/gone is listed in the sitemap but answered HTTP 404"));
    assert_eq!(step(c, "consistent"), Status::Warn, "the page's TDMRep sources disagree");
    assert!(has_finding(c, Severity::Warn, "conflicting TDMRep reservations"));
    let declared = evidence(c, "declared");
    assert_eq!(declared["tdmrep_json"]["rules"][0]["tdm_policy"], "https://x.test/p");
    for source in ["content_signal_header", "x_robots_tag_noai", "tdmrep_json", "tdmrep_header"] {
        assert!(declared["sources"].as_array().unwrap().contains(&source.into()), "{source}: {declared}");
    }
    assert_eq!(step(c, "declared"), Status::Pass);
    assert_eq!(server.hits("/private/page"), 0, "robots.txt is honoured");
    each_read_once(&server);
}

#[tokio::test]
async fn page_signals_samples_ten_pages_and_reports_a_broken_tdmrep_file() {
    let server = TestServer::start().await;
    let locs: Vec<String> = (0..30).map(|i| server.url(&format!("/p{i}"))).collect();
    let xml = urlset(&locs.iter().map(|l| (l.as_str(), Some("2026-01-01"))).collect::<Vec<_>>());
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", xml.into_bytes()));
    for i in 0..30 {
        server.route(&format!("/p{i}"), Route::html(200, &page("<meta name=\"robots\" content=\"noai\">")));
    }
    server.route("/.well-known/tdmrep.json", Route::text(200, "not json"));
    let report = audit_server(&server).await;
    let c = check(&report, "page-signals");
    let page_hits: usize = (0..30).map(|i| server.hits(&format!("/p{i}"))).sum();
    assert_eq!(page_hits, 10);
    assert_eq!(evidence(c, "sampled")["read"], 10);
    assert_eq!(evidence(c, "consistent")["mixed"], serde_json::json!({}));
    assert_eq!(step(c, "declared"), Status::Warn);
    assert!(has_finding(c, Severity::Warn, "tdmrep.json is not valid TDMRep: the file is not JSON"));
    assert_eq!(check(&report, "sitemap").status, Status::Warn, "found only at /sitemap.xml");
    each_read_once(&server);
}

// --- the whole audit -------------------------------------------------------------

#[tokio::test]
async fn a_complete_site_reads_every_resource_once() {
    let server = TestServer::start().await;
    let base = server.url("/");
    let llms = format!("# Acme\n\n> Acme.\n\n## Docs\n\n- [Start]({base}docs/start.md): Setup.\n");
    let xml = urlset(&[(base.as_str(), Some("2026-01-01")), (server.url("/docs/start").as_str(), Some("2026-01-02"))]);
    server.route("/robots.txt", Route::text(200, &format!("User-agent: *\nAllow: /\nSitemap: {base}sitemap.xml\n")));
    server.route("/llms.txt", Route::bytes(200, "text/markdown", llms.into_bytes()));
    server.route("/llms-full.txt", Route::bytes(200, "text/markdown", b"# Acme\n\n## Start\n\nSetup.\n".to_vec()));
    server.route("/docs/start.md", Route::bytes(200, "text/markdown", b"# Start".to_vec()));
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", xml.into_bytes()));
    server.route("/ai.txt", Route::text(200, "User-Agent: *\nDisallow: *.jpg\n"));
    server.route("/", Route::html(200, &page("")));
    server.route("/docs/start", Route::html(200, &page("<meta name=\"robots\" content=\"noai\">")));
    let report = audit_server(&server).await;
    for id in ["llms-txt", "llms-full-txt", "sitemap", "ai-txt", "page-signals"] {
        let c = check(&report, id);
        assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{id}: {c:#?}");
        assert_eq!(c.version, "1.0.0");
    }
    let order: Vec<&str> = report.checks.iter().map(|c| c.id).collect();
    let position = |id: &str| order.iter().position(|c| *c == id).unwrap();
    assert!(position("robots-txt") < position("llms-txt"));
    assert!(position("llms-txt") < position("llms-full-txt") && position("llms-full-txt") < position("sitemap"));
    assert!(position("sitemap") < position("ai-txt") && position("ai-txt") < position("page-signals"));
    each_read_once(&server);
}

// --- rsl ----------------------------------------------------------------------

const RSL_PROHIBITS_TRAINING: &str = r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>
<permits type="usage">search ai-input</permits><prohibits type="usage">ai-train</prohibits></license></content></rsl>"#;

#[tokio::test]
async fn rsl_folder_pass_when_named_valid_and_consistent() {
    let robots = "User-agent: *\nAllow: /\nContent-Signal: ai-train=no\nSitemap: https://example.com/sitemap.xml\nLicense: https://example.com/license.xml\n";
    let report = audit_folder("rsl-pass", &[("robots.txt", robots), ("license.xml", RSL_PROHIBITS_TRAINING)]).await;
    let c = check(&report, "rsl");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    assert_eq!(evidence(c, "present")["licenses"][0], "https://example.com/license.xml");
    assert_eq!(evidence(c, "valid")["documents"][0]["contents"], 1);
    assert_eq!(evidence(c, "consistent")["probes"][0]["rsl"], "prohibited");
}

#[tokio::test]
async fn rsl_missing_warns_and_broken_or_foreign_documents_fail() {
    let c = check(&audit_folder("rsl-none", &[("robots.txt", "User-agent: *\nAllow: /\n")]).await, "rsl").clone();
    assert_eq!((c.status, step(&c, "present"), step(&c, "valid")), (Status::Warn, Status::Warn, Status::Skip));
    assert!(has_finding(&c, Severity::Warn, "names no RSL license"));
    let robots =
        "User-agent: *\nAllow: /\nSitemap: https://example.com/sitemap.xml\nLicense: https://example.com/license.xml\n";
    let cases = [
        ("<rsl><content url=\"/\">", "not_well_formed"),
        ("<!doctype html><html><body>404</body></html>", "html_body"),
        (r#"<rsl><content url="/"><license/></content></rsl>"#, "RSL001"),
    ];
    for (i, (body, text)) in cases.iter().enumerate() {
        let report = audit_folder(&format!("rsl-bad-{i}"), &[("robots.txt", robots), ("license.xml", body)]).await;
        let c = check(&report, "rsl");
        assert_eq!(step(c, "valid"), Status::Fail, "{body}: {c:#?}");
        assert!(has_finding(c, Severity::Fail, text), "{body}: {c:#?}");
    }
    let report = audit_folder("rsl-missing-file", &[("robots.txt", robots)]).await;
    assert_eq!(step(check(&report, "rsl"), "valid"), Status::Fail);
}

#[tokio::test]
async fn rsl_contradicting_robots_txt_warns() {
    let permits = r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">all</permits></license></content></rsl>"#;
    let head = "Sitemap: https://example.com/sitemap.xml\nLicense: https://example.com/license.xml\n";
    let cases = [
        ("User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n", permits, "content signal says no"),
        ("User-agent: *\nDisallow: /\nUser-agent: Googlebot\nAllow: /\n", permits, "every AI training crawler"),
        ("User-agent: *\nAllow: /\nContent-Signal: ai-train=yes\n", RSL_PROHIBITS_TRAINING, "content signal says yes"),
    ];
    for (i, (rules, license, text)) in cases.iter().enumerate() {
        let robots = format!("{head}{rules}");
        let report =
            audit_folder(&format!("rsl-conflict-{i}"), &[("robots.txt", &robots), ("license.xml", license)]).await;
        let c = check(&report, "rsl");
        assert_eq!(step(c, "consistent"), Status::Warn, "{rules}: {c:#?}");
        assert!(has_finding(c, Severity::Warn, text), "{rules}: {c:#?}");
    }
}
