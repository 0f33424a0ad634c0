//! `ai-agents-policy`, `apex-www` and `robots-txt` against folders and real
//! loopback servers: pass, warn and fail fixtures, every robots.txt status
//! class, redirect chains.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use webcanon_audit::{AuditError, CheckResult, Report, Site, Status, audit};
use webcanon_client::ssrf::{SsrfPolicy, StaticLookup};
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webcanon-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, body) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, body).unwrap();
    }
    dir
}

async fn audit_robots(name: &str, robots: &str) -> Report {
    let dir = folder(name, &[("robots.txt", robots)]);
    let report = audit(Site::folder(&dir), "TestBot").await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    report
}

fn check<'a>(report: &'a Report, id: &str) -> &'a CheckResult {
    report.check(id).unwrap_or_else(|| panic!("no check {id}"))
}

fn step_status(check: &CheckResult, step: &str) -> Status {
    check.steps.iter().find(|s| s.id == step).unwrap_or_else(|| panic!("no step {step}")).status
}

fn evidence<'a>(check: &'a CheckResult, step: &str) -> &'a Value {
    &check.steps.iter().find(|s| s.id == step).unwrap().evidence
}

fn client(policy: SsrfPolicy) -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::Memory)
        .ssrf_policy(policy)
        .build()
        .unwrap()
}

fn loopback() -> SsrfPolicy {
    SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap())
}

// --- ai-agents-policy ----------------------------------------------------

const SPLIT: &str = "User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /\n\n\
User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nUser-agent: Claude-User\nAllow: /\n";

const SAME_BLOCK: &str =
    "User-agent: GPTBot\nUser-agent: ChatGPT-User\nUser-agent: OAI-SearchBot\nDisallow: /private/\n";

const BACKWARDS: &str = "User-agent: GPTBot\nAllow: /\n\nUser-agent: ChatGPT-User\nDisallow: /\n";

/// (fixture, robots.txt, step, expected step status, expected check status)
const POLICY_TABLE: &[(&str, &str, &str, Status, Status)] = &[
    ("split", SPLIT, "training-vs-retrieval", Status::Pass, Status::Pass),
    ("split", SPLIT, "no-accidental-blocks", Status::Pass, Status::Pass),
    ("same-block", SAME_BLOCK, "training-vs-retrieval", Status::Warn, Status::Warn),
    ("no-ai", "User-agent: *\nDisallow: /admin/\n", "training-vs-retrieval", Status::Warn, Status::Warn),
    ("backwards", BACKWARDS, "no-accidental-blocks", Status::Fail, Status::Fail),
    ("legacy", "User-agent: anthropic-ai\nDisallow: /\n", "up-to-date", Status::Warn, Status::Warn),
    (
        "legacy-with-successor",
        "User-agent: anthropic-ai\nUser-agent: ClaudeBot\nDisallow: /\n",
        "up-to-date",
        Status::Pass,
        Status::Pass,
    ),
    ("misspelled", "User-agent: GTPBot\nDisallow: /\n", "up-to-date", Status::Warn, Status::Warn),
];

#[tokio::test]
async fn ai_agents_policy_table() {
    for (name, robots, step, want_step, want_check) in POLICY_TABLE {
        let report = audit_robots(name, robots).await;
        let check = check(&report, "ai-agents-policy");
        assert_eq!(step_status(check, step), *want_step, "{name}: {step} {:#?}", check);
        assert_eq!(check.status, *want_check, "{name}: {:#?}", check.findings);
    }
}

#[tokio::test]
async fn backwards_block_names_operator_agents_and_path() {
    let report = audit_robots("backwards-evidence", BACKWARDS).await;
    let check = check(&report, "ai-agents-policy");
    let conflicts = evidence(check, "no-accidental-blocks")["conflicts"].as_array().unwrap();
    assert!(
        conflicts.iter().any(|c| c["retrieval"] == "ChatGPT-User" && c["training"] == "GPTBot" && c["path"] == "/")
    );
    assert!(check.findings[0].message.contains("ChatGPT-User"));
    assert!(check.findings[0].fix.as_deref().unwrap().contains("block the trainer"));
    assert!(check.score.unwrap() < 70);
}

#[tokio::test]
async fn misspelling_suggests_the_known_token() {
    let report = audit_robots("misspelled-evidence", "User-agent: GTPBot\nDisallow: /\n").await;
    let misspelled = &evidence(check(&report, "ai-agents-policy"), "up-to-date")["misspelled"][0];
    assert_eq!(misspelled["token"], "GTPBot");
    assert_eq!(misspelled["suggestion"], "GPTBot");
    assert_eq!(misspelled["line"], 1);
}

#[tokio::test]
async fn ai_agents_policy_is_skipped_without_robots_txt() {
    let dir = folder("no-robots", &[("index.html", "<h1>Hi</h1>")]);
    let report = audit(Site::folder(&dir), "TestBot").await.unwrap();
    assert_eq!(check(&report, "ai-agents-policy").status, Status::Skip);
    assert_eq!(check(&report, "ai-agents-policy").score, None);
    assert_eq!(check(&report, "robots-txt").status, Status::Fail);
    let _ = std::fs::remove_dir_all(&dir);
}

// --- robots-txt ------------------------------------------------------------

#[tokio::test]
async fn robots_txt_folder_fixtures() {
    let pass = audit_robots("rt-pass", "User-agent: *\nAllow: /\nSitemap: https://a.test/sitemap.xml\n").await;
    let c = check(&pass, "robots-txt");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)));
    assert_eq!(evidence(c, "extensions")["sitemaps"][0], "https://a.test/sitemap.xml");

    let legacy = audit_robots("rt-legacy", "User-agent: *\nDisallow: /x\nNoindex: /y\n").await;
    let c = check(&legacy, "robots-txt");
    assert_eq!((step_status(c, "extensions"), c.status, c.score), (Status::Warn, Status::Warn, Some(88)));

    let orphan = audit_robots("rt-orphan", "Disallow: /early\nUser-agent: *\nDisallow: /x\n").await;
    // Issue 31: R001 is an error in the code table, as `robots lint` says.
    assert_eq!(step_status(check(&orphan, "robots-txt"), "core-syntax"), Status::Fail);

    let no_group = audit_robots("rt-nogroup", "Sitemap: https://a.test/s.xml\n").await;
    let c = check(&no_group, "robots-txt");
    assert_eq!((step_status(c, "core-syntax"), step_status(c, "extensions")), (Status::Fail, Status::Skip));
    // fetch 1 ×0.3 and core-syntax 0 ×0.45 over the 0.75 that ran.
    assert_eq!(c.score, Some(40));

    let html = audit_robots("rt-html", "<!doctype html><html><body>Not found</body></html>").await;
    assert_eq!(step_status(check(&html, "robots-txt"), "core-syntax"), Status::Fail);

    let agents = audit_robots("rt-agents", "User-agent: GPTBot\nUser-agent: MadeUpBot\nDisallow: /\n").await;
    let ext = evidence(check(&agents, "robots-txt"), "extensions");
    assert_eq!(ext["known_agents"][0]["token"], "GPTBot");
    assert_eq!(ext["known_agents"][0]["category"], "ai-training");
    assert_eq!(ext["unknown_agents"][0]["token"], "MadeUpBot");
}

#[tokio::test]
async fn robots_txt_every_status_class_over_http() {
    // (route, expected fetch status class, check status)
    let cases: Vec<(Route, &str)> = vec![
        (Route::text(200, "User-agent: *\nDisallow: /private\n"), "2xx"),
        (Route::text(404, "missing"), "4xx"),
        (Route::text(403, "forbidden"), "4xx"),
        (Route::text(500, "oops"), "5xx"),
        (Route::text(503, "busy"), "5xx"),
    ];
    for (route, class) in cases {
        let server = TestServer::start().await;
        server.route("/robots.txt", route);
        let site = Site::origin(server.url("/").parse().unwrap(), client(loopback()));
        let report = audit(site, "TestBot").await.unwrap();
        let c = check(&report, "robots-txt");
        assert_eq!(evidence(c, "fetch")["status_class"], class);
        let want = if class == "2xx" { Status::Pass } else { Status::Fail };
        assert_eq!(c.status, want, "{class}");
        assert_eq!(server.hits("/robots.txt"), 1, "{class}: read once for every check");
    }
}

#[tokio::test]
async fn robots_txt_redirect_chains() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::redirect(301, "/a"));
    server.route("/a", Route::redirect(302, "/b"));
    server.route("/b", Route::text(200, "User-agent: *\nDisallow: /x\n"));
    let report = audit(Site::origin(server.url("/").parse().unwrap(), client(loopback())), "TestBot").await.unwrap();
    let c = check(&report, "robots-txt");
    assert_eq!(c.status, Status::Pass);
    assert_eq!(evidence(c, "fetch")["redirects"].as_array().unwrap().len(), 2);
    assert!(c.findings.iter().any(|f| f.message.contains("redirects")));

    let looping = TestServer::start().await;
    looping.route("/robots.txt", Route::redirect(302, "/robots.txt"));
    let report = audit(Site::origin(looping.url("/").parse().unwrap(), client(loopback())), "TestBot").await.unwrap();
    assert_eq!(check(&report, "robots-txt").status, Status::Fail);
}

/// Issue 16: an origin the SSRF guard refuses is an error saying so, not
/// a report scoring its unreadable resources (it used to score 8/100).
#[tokio::test]
async fn an_origin_at_a_private_address_is_refused_not_scored() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let err = audit(Site::origin(server.url("/").parse().unwrap(), client(SsrfPolicy::default())), "TestBot")
        .await
        .expect_err("refused");
    assert!(matches!(err, AuditError::Refused { .. }), "{err:?}");
    assert_eq!(err.kind(), "ssrf");
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
    assert!(server.requests().is_empty());
}

// --- apex-www ----------------------------------------------------------------

/// A client that resolves `example.test` and `www.example.test` to `server`.
fn two_hosts(server: &TestServer) -> Client {
    let apex = format!("example.test:{}:127.0.0.1", server.port()).parse().unwrap();
    let www = format!("www.example.test:{}:127.0.0.1", server.port()).parse().unwrap();
    client(loopback().resolve(apex).resolve(www))
}

/// Audits `host` on a server answering robots.txt per host.
async fn apex_www(apex_robots: Option<Route>, www_robots: Option<Route>, host: &str) -> (Report, TestServer) {
    let server = TestServer::start().await;
    if let Some(route) = apex_robots {
        server.route_host("example.test", "/robots.txt", route);
    }
    if let Some(route) = www_robots {
        server.route_host("www.example.test", "/robots.txt", route);
    }
    let site_url = format!("http://{host}:{}/", server.port()).parse().unwrap();
    let report = audit(Site::origin(site_url, two_hosts(&server)), "TestBot").await.unwrap();
    (report, server)
}

#[tokio::test]
async fn apex_www_needs_an_origin_with_a_domain() {
    let report = audit_robots("apex-folder", "User-agent: *\n").await;
    assert_eq!(check(&report, "apex-www").status, Status::Skip);
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let report = audit(Site::origin(server.url("/").parse().unwrap(), client(loopback())), "TestBot").await.unwrap();
    assert_eq!(check(&report, "apex-www").status, Status::Skip, "an IP address has no www host");
}

#[tokio::test]
async fn apex_www_same_file_passes_and_is_read_once_per_host() {
    let robots = "User-agent: *\nDisallow: /private\n";
    let (report, server) =
        apex_www(Some(Route::text(200, robots)), Some(Route::text(200, robots)), "example.test").await;
    let c = check(&report, "apex-www");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{:#?}", c);
    let hosts: Vec<String> = server.requests().iter().filter_map(|r| r.host.clone()).collect();
    assert_eq!(server.hits("/robots.txt"), 2, "{hosts:?}");
    assert!(hosts.iter().any(|h| h.starts_with("www.example.test")));
    assert!(hosts.iter().any(|h| h.starts_with("example.test")));
}

#[tokio::test]
async fn apex_www_same_rules_with_other_comments_pass() {
    let (report, _server) = apex_www(
        Some(Route::text(200, "# apex\nUser-agent: *\nDisallow: /x\n")),
        Some(Route::text(200, "user-agent: *\r\ndisallow: /x # www copy\r\n")),
        "www.example.test",
    )
    .await;
    let c = check(&report, "apex-www");
    assert_eq!(c.status, Status::Pass, "{:#?}", c);
    assert_eq!(evidence(c, "equal")["same_rules"], true);
}

#[tokio::test]
async fn apex_www_different_rules_warn() {
    let (report, _server) = apex_www(
        Some(Route::text(200, "User-agent: *\nDisallow: /\n")),
        Some(Route::text(200, "User-agent: *\nAllow: /\n")),
        "www.example.test",
    )
    .await;
    let c = check(&report, "apex-www");
    assert_eq!((step_status(c, "served"), step_status(c, "equal")), (Status::Pass, Status::Warn));
    assert_eq!(c.score, Some(75));
    assert!(c.findings[0].message.contains("different robots.txt rules"));
}

#[tokio::test]
async fn apex_www_missing_on_the_apex_fails() {
    let (report, _server) = apex_www(None, Some(Route::text(200, "User-agent: *\n")), "www.example.test").await;
    let c = check(&report, "apex-www");
    assert_eq!(c.status, Status::Fail);
    assert_eq!(evidence(c, "served")["hosts"][0]["status"], 404);
    assert!(c.findings[0].message.contains("apex example.test"));
    assert!(c.findings[0].fix.as_deref().unwrap().contains("assume no restrictions"));
}

#[tokio::test]
async fn apex_www_missing_on_www_warns() {
    let (report, _server) = apex_www(Some(Route::text(200, "User-agent: *\n")), None, "example.test").await;
    let c = check(&report, "apex-www");
    assert_eq!((step_status(c, "served"), c.status), (Status::Warn, Status::Warn));
}

#[tokio::test]
async fn apex_www_redirect_to_the_other_host_passes() {
    let server = TestServer::start().await;
    let target = format!("http://www.example.test:{}/robots.txt", server.port());
    server.route_host("example.test", "/robots.txt", Route::redirect(301, &target));
    server.route_host("www.example.test", "/robots.txt", Route::text(200, "User-agent: *\nDisallow: /x\n"));
    let site_url = format!("http://example.test:{}/", server.port()).parse().unwrap();
    let report = audit(Site::origin(site_url, two_hosts(&server)), "TestBot").await.unwrap();
    let c = check(&report, "apex-www");
    assert_eq!(c.status, Status::Pass, "{:#?}", c);
    assert_eq!(evidence(c, "equal")["same_final_url"], true);
}

/// Issue 16: an origin that does not answer (a port nothing listens on)
/// is an error naming the cause, not a report.
#[tokio::test]
async fn an_origin_that_refuses_connections_is_unreachable_not_scored() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let site_url = format!("http://127.0.0.1:{port}/").parse().unwrap();
    let err = audit(Site::origin(site_url, client(loopback())), "TestBot").await.expect_err("unreachable");
    assert!(matches!(err, AuditError::Unreachable { .. }), "{err:?}");
    assert_eq!(err.kind(), "fetch");
    assert!(err.to_string().contains("cannot connect"), "{err}");
    assert_eq!(err.origin(), format!("http://127.0.0.1:{port}"));
}

/// Issue 16: a name that does not resolve (`nonexistent.invalid` scored
/// 6/100 with fixes such as "Allow /llms.txt in robots.txt").
#[tokio::test]
async fn an_origin_whose_name_does_not_resolve_is_unreachable_not_scored() {
    let client = Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::Memory)
        .name_lookup(std::sync::Arc::new(StaticLookup::new()))
        .build()
        .unwrap();
    let err = audit(Site::origin("https://nonexistent.invalid/".parse().unwrap(), client), "TestBot")
        .await
        .expect_err("unreachable");
    assert!(matches!(err, AuditError::Unreachable { .. }), "{err:?}");
    assert!(err.to_string().contains("cannot resolve nonexistent.invalid"), "{err}");
}

/// Issue 16: apex-www on a site whose www host does not resolve showed
/// PASS with score 50: the skipped `equal` step counted as 0. Skipped steps
/// do not count, so the status and the score agree.
#[tokio::test]
async fn apex_www_without_a_www_host_passes_with_a_full_score() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /x\n"));
    let lookup = StaticLookup::new().with("example.test", &["127.0.0.1".parse().unwrap()]);
    let client = Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::Memory)
        .ssrf_policy(loopback())
        .name_lookup(std::sync::Arc::new(lookup))
        .build()
        .unwrap();
    let site_url = format!("http://example.test:{}/", server.port()).parse().unwrap();
    let report = audit(Site::origin(site_url, client), "TestBot").await.unwrap();
    let c = check(&report, "apex-www");
    assert_eq!(step_status(c, "equal"), Status::Skip, "{c:#?}");
    assert_eq!((c.status, c.score), (Status::Pass, Some(100)), "{c:#?}");
    apex_www_pass_says_the_www_host_gives_no_answer(c);
}

/// Issue 31: the pass above was titled "Served on both hosts" while its
/// evidence said `cannot resolve www.example.test`; the title and a finding
/// now say that the www host gives no answer, and why.
fn apex_www_pass_says_the_www_host_gives_no_answer(c: &CheckResult) {
    let served = c.steps.iter().find(|s| s.id == "served").unwrap();
    assert_eq!(served.title, "Served on the apex; the www host gives no answer", "{c:#?}");
    assert!(evidence(c, "served")["hosts"][1]["error"].as_str().unwrap().contains("cannot resolve www.example.test"));
    let finding = c.findings.iter().find(|f| f.message.starts_with("www.example.test gives no HTTP answer"));
    let finding = finding.unwrap_or_else(|| panic!("no finding about the www host: {c:#?}"));
    assert_eq!(finding.severity, webcanon_audit::Severity::Info);
    assert!(finding.message.contains("(cannot resolve www.example.test"), "{}", finding.message);
    assert!(finding.message.contains("no second policy to compare"), "{}", finding.message);
}

#[tokio::test]
async fn robots_txt_too_many_redirects_is_a_3xx_failure() {
    let server = TestServer::start().await;
    for hop in 0..7 {
        let from = if hop == 0 { "/robots.txt".to_string() } else { format!("/hop{hop}") };
        server.route(&from, Route::redirect(302, &format!("/hop{}", hop + 1)));
    }
    let report = audit(Site::origin(server.url("/").parse().unwrap(), client(loopback())), "TestBot").await.unwrap();
    let c = check(&report, "robots-txt");
    assert_eq!(c.status, Status::Fail);
    assert_eq!(evidence(c, "fetch")["status_class"], "3xx");
    assert_eq!(evidence(c, "fetch")["redirects"].as_array().unwrap().len(), 6);
}
