//! The verdict pass against the live client: for a table of robots
//! outcomes, under every mode, the batch (fetch pass → snapshot → Parquet →
//! verdict pass) says what `Client::check` says.

use std::sync::Arc;
use std::time::Duration;

use webcanon_batch::fetch::fetch_origin;
use webcanon_batch::snapshot::Snapshot;
use webcanon_batch::verdict::VerdictPass;
use webcanon_client::Client;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_core::policy::RobotsMode;
use webcanon_test::{Route, TestServer};

const RULES: &str = "User-agent: *\nDisallow: /private\nAllow: /private/open\n\nUser-agent: TestBot\nDisallow: /bot-only\nAllow: /bot-only/open\n";

async fn server() -> TestServer {
    let server = TestServer::start().await;
    let hops = (0..7).map(|i| (format!("/hop{i}"), format!("/hop{}", i + 1)));
    server
        .route_host("rules.test", "/robots.txt", Route::text(200, RULES))
        .route_host("empty.test", "/robots.txt", Route::text(200, ""))
        .route_host("missing.test", "/robots.txt", Route::text(404, "no"))
        .route_host("forbidden.test", "/robots.txt", Route::text(403, "no"))
        .route_host("error.test", "/robots.txt", Route::text(500, "oops"))
        .route_host("busy.test", "/robots.txt", Route::text(429, "slow down"))
        .route_host("html.test", "/robots.txt", Route::html(200, "<!DOCTYPE html><html><body>home</body></html>"))
        .route_host("moved.test", "/robots.txt", Route::redirect(301, "/real-robots.txt"))
        .route_host("moved.test", "/real-robots.txt", Route::text(200, "User-agent: *\nDisallow: /\n"))
        .route_host("loop.test", "/robots.txt", Route::redirect(302, "/hop0"))
        .route_host(
            "slow.test",
            "/robots.txt",
            Route::text(200, "User-agent: *\nDisallow: /\n").delay(Duration::from_secs(2)),
        );
    for (from, to) in hops {
        server.route_host("loop.test", &from, Route::redirect(302, &to));
    }
    server
}

fn client(server: &TestServer, mode: RobotsMode, auth_disallows: bool, agent: &str) -> Client {
    let policy = SsrfPolicy::default()
        .allow_private("127.0.0.0/8".parse().unwrap())
        .resolve(format!("*.test:{}:127.0.0.1", server.port()).parse().unwrap())
        // A name that resolves to a private address outside the allowed network.
        .resolve("private.example:80:10.1.2.3".parse().unwrap());
    Client::builder()
        .agent(agent)
        .mode(mode)
        .timeout(Duration::from_millis(300))
        .auth_status_disallows(auth_disallows)
        .ssrf_policy(policy)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_verdicts_equal_live_verdicts() {
    let server = server().await;
    let port = server.port();
    // A port with nothing listening: unreachable.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let u = |host: &str, path: &str| format!("http://{host}:{port}{path}");
    let urls = vec![
        u("rules.test", "/private/x"),
        u("rules.test", "/private/open/y"),
        u("rules.test", "/public"),
        u("rules.test", "/bot-only/z"),
        u("rules.test", "/bot-only/open/1"),
        u("rules.test", "/robots.txt"),
        u("rules.test", "/PRIVATE/%7Ea?b#frag"),
        u("empty.test", "/anything"),
        u("missing.test", "/a"),
        u("forbidden.test", "/a"),
        u("error.test", "/a"),
        u("busy.test", "/a"),
        u("html.test", "/a"),
        u("moved.test", "/a"),
        u("loop.test", "/a"),
        u("slow.test", "/a"),
        format!("http://closed.test:{closed}/a"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for agent in ["TestBot", "OtherBot"] {
        for auth_disallows in [false, true] {
            // One fetch pass (its outcome does not depend on the mode) ...
            let fetcher = client(&server, RobotsMode::Respect, auth_disallows, agent);
            let mut entries = Vec::new();
            let mut origins: Vec<String> =
                urls.iter().map(|u| url::Url::parse(u).unwrap().origin().ascii_serialization()).collect();
            origins.dedup();
            for origin in &origins {
                entries.push(fetch_origin(&fetcher, origin).await.expect("no local failure"));
            }
            // ... through Parquet, as a real run.
            let path = dir.path().join(format!("{agent}-{auth_disallows}.parquet"));
            Snapshot::from_entries(entries).write_parquet(&path).unwrap();
            let snapshot = Arc::new(Snapshot::read_parquet(&path).unwrap());
            for mode in [RobotsMode::Respect, RobotsMode::ReportOnly, RobotsMode::Ignore] {
                let pass = VerdictPass::new(snapshot.clone(), agent.parse().unwrap(), mode);
                let live = client(&server, mode, auth_disallows, agent);
                for url in &urls {
                    let evidence = live.check(url).await.unwrap().robots;
                    let batch = pass.decide_one(url);
                    let context = format!("{url} agent={agent} auth={auth_disallows} mode={mode}");
                    assert_eq!(batch.verdict, evidence.verdict.as_str(), "{context}");
                    assert_eq!(batch.recommendation, Some(evidence.recommendation), "{context}");
                    assert_eq!(batch.allowed, !mode.blocks(evidence.verdict), "{context}");
                    assert_eq!(batch.rule_line, evidence.rule.as_ref().map(|r| r.line), "{context}");
                    assert_eq!(batch.rule_pattern, evidence.rule.as_ref().map(|r| r.pattern.clone()), "{context}");
                    if mode != RobotsMode::Ignore {
                        let status = evidence.status.map_or("unreachable".to_string(), |s| s.to_string());
                        assert_eq!(batch.robots_status.as_deref(), Some(status.as_str()), "{context}");
                    }
                }
            }
        }
    }
    // The table covers every verdict.
    let pass = {
        let fetcher = client(&server, RobotsMode::Respect, true, "TestBot");
        let mut entries = Vec::new();
        for url in &urls {
            let origin = url::Url::parse(url).unwrap().origin().ascii_serialization();
            entries.push(fetch_origin(&fetcher, &origin).await.expect("no local failure"));
        }
        VerdictPass::new(Arc::new(Snapshot::from_entries(entries)), "TestBot".parse().unwrap(), RobotsMode::Respect)
    };
    let verdicts: std::collections::BTreeSet<String> = urls.iter().map(|u| pass.decide_one(u).verdict).collect();
    assert_eq!(
        verdicts.into_iter().collect::<Vec<_>>(),
        ["allowed_explicit", "allowed_implicit", "disallowed_explicit", "unknown_parse_error", "unknown_unreachable"]
    );
}

#[tokio::test]
async fn a_refused_origin_is_never_allowed() {
    let server = server().await;
    let fetcher = client(&server, RobotsMode::Respect, false, "bot");
    let entry = fetch_origin(&fetcher, "http://private.example").await.expect("no local failure");
    assert_eq!(entry.status.as_str(), "refused");
    assert!(entry.error.as_deref().unwrap().contains("10.1.2.3"), "{:?}", entry.error);
    let live = fetcher.check("http://private.example/a").await;
    assert!(matches!(live, Err(webcanon_client::error::Error::Ssrf(_))), "the live client refuses it too");
    for mode in [RobotsMode::Respect, RobotsMode::ReportOnly, RobotsMode::Ignore] {
        let pass = VerdictPass::new(Arc::new(Snapshot::from_entries([entry.clone()])), "bot".parse().unwrap(), mode);
        let row = pass.decide_one("http://private.example/a");
        assert_eq!(
            (row.verdict.as_str(), row.allowed, row.robots_status.as_deref()),
            ("unknown_unreachable", false, Some("refused"))
        );
    }
    assert!(server.requests().is_empty());
}
