//! `webcanon map` end to end: a loopback site, the binary as a child
//! process, records on stdout, the totals on stderr, exit codes.

mod support;

use serde_json::Value;
use support::{Run, run};
use webcanon_test::{Route, TestServer};

async fn map(extra: &[&str]) -> Run {
    let mut args: Vec<String> = ["map", "--allow-private", "127.0.0.0/8", "--timeout", "5", "--no-cache"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    run(args).await
}

async fn site() -> TestServer {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let urls = ["/a", "/private/b"].iter().map(|p| format!("<url><loc>{base}{p}</loc></url>"));
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", webcanon_test::urlset(urls).into_bytes()));
    server.route("/llms.txt", Route::text(200, "# Site\n\n## Docs\n\n- [A](/a): a\n- [C](/c): c\n"));
    server.route("/", Route::html(200, r#"<a href="/d">d</a>"#));
    server
}

#[tokio::test]
async fn map_prints_json_lines_with_verdicts_rules_and_sources() {
    let server = site().await;
    let out = map(&["--json", &server.url("/")]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let records: Vec<Value> = out.lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let paths: Vec<&str> =
        records.iter().map(|r| r["url"].as_str().unwrap().trim_start_matches(&server.url(""))).collect();
    assert_eq!(paths, ["/a", "/private/b", "/c", "/d"]);
    assert_eq!(records[0]["sources"], serde_json::json!(["sitemap", "llms_txt"]));
    assert_eq!(records[1]["allowed"], false);
    assert_eq!(records[1]["rule"]["pattern"], "/private");
    assert!(out.stderr.contains("4 URLs (3 allowed)"), "{}", out.stderr);
}

#[tokio::test]
async fn map_prints_a_table_and_takes_sources_and_a_limit() {
    let server = site().await;
    let out = map(&["--sources", "sitemap", "--limit", "1", &server.url("/")]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.lines(), [format!("{:<22} {:<24} {}", "allowed_implicit", "-", server.url("/a"))]);
    assert!(out.stderr.contains("(stopped at --limit)"), "{}", out.stderr);
    assert_eq!(server.hits("/llms.txt"), 0);
}

#[tokio::test]
async fn map_exits_5_when_nothing_is_in_scope_and_2_on_a_bad_pattern() {
    let server = site().await;
    let out = map(&["--exclude", "/", &server.url("/")]).await;
    assert_eq!(out.code, 5, "{}", out.stderr);
    assert!(out.stderr.contains("error: no URL of"), "{}", out.stderr);
    let out = map(&["--include", "docs", &server.url("/")]).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
}
