//! `webcanon fetch` end to end: a real loopback server in this process, the
//! binary as a child process, exit codes and JSON shapes as documented.

mod support;

use std::process::Command;
use std::time::Duration;

use support::{fetch_args, run, temp_dir, webcanon};
use webcanon_test::pdf::PdfSpec;
use webcanon_test::{Route, TestServer};

const ARTICLE: &str = "<!doctype html><html><head><title>Robots and agents</title>\
<link rel=\"canonical\" href=\"/canonical-article\"></head><body><nav>Home | Docs</nav><main><h1>Robots and agents</h1>\
<p>Agents read robots.txt before they fetch a page. This paragraph is long enough to count as the main content of \
the article, which a Readability-style extractor should keep while it drops the navigation.</p>\
<p>A second paragraph with a <a href=\"/docs/next\">relative link</a> that must come out absolute.</p></main></body></html>";

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/article", Route::html(200, ARTICLE).header("x-robots-tag", "noai"));
    server.route("/private", Route::html(200, ARTICLE));
    server.route("/report.pdf", Route::bytes(200, "application/pdf", report_pdf()).header("x-robots-tag", "noai"));
    server.route("/latest.pdf", Route::redirect(302, "/report.pdf"));
    server.route("/private/report.pdf", Route::bytes(200, "application/pdf", report_pdf()));
    server.route("/locked.pdf", Route::bytes(200, "application/pdf", PdfSpec::text(&[&["x"]]).encrypted().build()));
    server
}

fn report_pdf() -> Vec<u8> {
    PdfSpec::text(&[&["The report's first page."], &["The report's second page."]])
        .title("Annual Report")
        .author("Ada Lovelace")
        .build()
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_prints_markdown_and_a_summary() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", &server.url("/article")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Robots and agents"), "{}", r.stdout);
    assert!(r.stdout.contains(&server.url("/docs/next")), "relative link made absolute: {}", r.stdout);
    assert!(r.stderr.contains("robots: allowed_implicit (recommended)"), "{}", r.stderr);
    assert!(r.stderr.contains("warning[noai]"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_json_has_the_documented_fields() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/article")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for key in [
        "requested_url",
        "fetched_url",
        "final_url",
        "status",
        "content_type",
        "title",
        "canonical_url",
        "content",
        "robots",
        "alternative",
        "warnings",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["requested_url"], server.url("/article"));
    assert_eq!(v["status"], 200);
    assert_eq!(v["title"], "Robots and agents");
    assert_eq!(v["canonical_url"], server.url("/canonical-article"));
    assert_eq!(v["robots"]["verdict"], "allowed_implicit");
    assert_eq!(v["robots"]["recommendation"], "recommended");
    assert_eq!(v["robots"]["robots_url"], server.url("/robots.txt"));
    assert_eq!(v["robots"]["status"], 200);
    assert_eq!(v["robots"]["from_cache"], false);
    assert!(v["robots"]["rule"].is_null());
    assert!(v["alternative"].is_null());
    let codes: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"noai"), "{codes:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn policy_refusal_exits_3_with_an_error_object() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/private")])).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "policy");
    assert_eq!(v["error"]["verdict"], "disallowed_explicit");
    assert_eq!(v["error"]["recommendation"], "not_recommended");
    assert_eq!(v["error"]["robots_url"], server.url("/robots.txt"));
    assert_eq!(v["error"]["rule"]["line"], 2);
    assert_eq!(server.hits("/private"), 0);

    let r = run(fetch_args(&["--no-cache", &server.url("/private")])).await;
    assert_eq!(r.code, 3);
    assert!(r.stderr.contains("Disallow: /private"), "{}", r.stderr);
    assert!(!r.stderr.contains("User-agent"), "the robots.txt body is never quoted: {}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn ssrf_refusal_exits_4() {
    let server = site().await;
    let url = server.url("/article");
    let r = tokio::task::spawn_blocking(move || webcanon(&["fetch", "--no-cache", "--json", &url])).await.unwrap();
    assert_eq!(r.code, 4, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "ssrf");
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_fetch_exits_5_and_bad_usage_exits_2() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/missing")])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "fetch");
    assert_eq!(v["error"]["status"], 404);
    assert_eq!(v["error"]["reason"], "status");

    let r = run(fetch_args(&["--no-cache", "not-a-url"])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(fetch_args(&["--no-cache", "--mode", "sometimes", &server.url("/")])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    // The agent is a product token on every face (the MCP tools and the
    // HTTP API check it with the same rule).
    let before = server.requests().len();
    let r = run(fetch_args(&["--no-cache", "--agent", "GPTBot/1.0", &server.url("/")])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("agent `GPTBot/1.0` is not a product token"), "{}", r.stderr);
    assert_eq!(server.requests().len(), before, "nothing requested");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_share_the_sqlite_robots_cache() {
    let server = site().await;
    let dir = temp_dir("shared-cache");
    let cache = dir.to_str().unwrap();
    let first = run(fetch_args(&["--cache-dir", cache, "--json", &server.url("/article")])).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(fetch_args(&["--cache-dir", cache, "--json", &server.url("/article")])).await;
    assert_eq!(second.code, 0, "{}", second.stderr);
    let v: serde_json::Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(v["robots"]["from_cache"], true);
    assert_eq!(server.hits("/robots.txt"), 1, "the second process used the first one's robots.txt");
    let refused = run(fetch_args(&["--cache-dir", cache, &server.url("/private")])).await;
    assert_eq!(refused.code, 3);
    assert_eq!(server.hits("/robots.txt"), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn resolve_override_reaches_a_named_host() {
    let server = site().await;
    let resolve = format!("docs.example.test:{}:127.0.0.1", server.port());
    let url = format!("http://docs.example.test:{}/article", server.port());
    let r = run(fetch_args(&["--no-cache", "--resolve", &resolve, "--json", &url])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let requests = server.requests();
    assert!(requests.iter().any(|r| r.host.as_deref() == Some(&format!("docs.example.test:{}", server.port()))));
}

#[tokio::test(flavor = "multi_thread")]
async fn proxy_environment_variables_are_ignored() {
    // A proxy would make the resolver see the proxy's name instead of the
    // target's and route around the guard: a loopback sink must see nothing.
    let sink = TestServer::start().await;
    sink.route("/", Route::text(200, "proxied"));
    let site = site().await;
    let proxy = sink.url("");
    let url = site.url("/article");
    let r = tokio::task::spawn_blocking(move || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_webcanon"));
        command.args(["fetch", "--no-cache", "--allow-private", "127.0.0.1/32", "--json", &url]);
        for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"] {
            command.env(name, &proxy);
        }
        command.env_remove("NO_PROXY").env_remove("no_proxy");
        command.output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(sink.requests().is_empty(), "the proxy sink saw {:?}", sink.requests());
    assert_eq!(site.hits("/article"), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_uses_the_markdown_copy_listed_in_llms_txt() {
    let server = site().await;
    server.route("/llms.txt", Route::text(200, "# Site\n\n## Docs\n\n- [Article](/article.md): the article\n"));
    server
        .route("/article.md", Route::bytes(200, "text/markdown", b"# Robots and agents\n\nMarkdown copy.\n".to_vec()));
    let r = run(fetch_args(&["--no-cache", &server.url("/article")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "# Robots and agents\n\nMarkdown copy.\n");
    assert!(
        r.stderr.contains(&format!("alternative: used {} (from llms_txt)", server.url("/article.md"))),
        "{}",
        r.stderr
    );
    assert_eq!(server.hits("/article"), 0);

    let r = run(fetch_args(&["--no-cache", "--json", "--no-alternatives", &server.url("/article")])).await;
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["alternative"].is_null());
    assert_eq!(v["alternatives"], serde_json::json!([]));
    assert_eq!(server.hits("/article"), 1);
    assert_eq!(server.hits("/llms.txt"), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_reports_a_skipped_alternative() {
    let server = site().await;
    server.route("/llms.txt", Route::text(200, "# Site\n\n## Docs\n\n- [Private](/private.md): no\n"));
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private.md\n"));
    server.route("/private", Route::html(200, ARTICLE));
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/private")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["alternative"]["url"], server.url("/private.md"));
    assert_eq!(v["alternative"]["source"], "llms_txt");
    assert_eq!(v["alternative"]["used"], false);
    assert_eq!(v["alternative"]["skipped_reason"], "robots");
    assert_eq!(server.hits("/private.md"), 0);
}

/// A page with a link cited twice and an image, for the content shapes.
const LINKED: &str = "<!doctype html><html><head><title>Shapes</title></head><body><main><h1>Shapes</h1>\
<p>Agents read <a href=\"/docs/robots\">the robots guide</a> first, a paragraph long enough to be the main content \
of the page for the extractor, with <strong>bold</strong> words in it.</p><p><img src=\"/chart.png\" alt=\"A chart\"></p>\
<p>Then they read <a href=\"/docs/robots\">the guide</a> again, in a second paragraph of the same page.</p></main></body></html>";

#[tokio::test(flavor = "multi_thread")]
async fn content_shapes_from_the_flags() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/page", Route::html(200, LINKED));
    let guide = server.url("/docs/robots");
    let chart = server.url("/chart.png");
    // (flags, present, absent)
    let rows: Vec<(Vec<&str>, Vec<String>, Vec<String>)> = vec![
        (
            vec![],
            vec!["[the robots guide][1]".into(), "[the guide][1]".into(), format!("[1]: {guide}")],
            vec!["chart".into(), format!("]({guide})")],
        ),
        (
            vec!["--links", "inline", "--images", "keep"],
            vec![format!("[the robots guide]({guide})"), format!("![A chart]({chart})")],
            vec!["[1]".into()],
        ),
        (vec!["--links", "drop"], vec!["read the robots guide first".into()], vec![guide.clone()]),
        (
            vec!["--format", "text"],
            vec!["Shapes".into(), "the robots guide [1]".into(), "with bold words".into(), format!("[1] {guide}")],
            vec!["**".into(), "# ".into()],
        ),
    ];
    for (flags, present, absent) in rows {
        let mut args = vec!["--no-cache"];
        args.extend(flags.iter().copied());
        let url = server.url("/page");
        args.push(&url);
        let r = run(fetch_args(&args)).await;
        assert_eq!(r.code, 0, "{flags:?}: {}", r.stderr);
        for text in &present {
            assert!(r.stdout.contains(text.as_str()), "{flags:?}: `{text}` missing from {}", r.stdout);
        }
        for text in &absent {
            assert!(!r.stdout.contains(text.as_str()), "{flags:?}: `{text}` in {}", r.stdout);
        }
        // The printed page starts with its title once.
        assert_eq!(r.stdout.matches("Shapes").count(), 1, "{flags:?}: {}", r.stdout);
    }
    // The JSON keeps the title in its own field, not in the content.
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/page")])).await;
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["title"], "Shapes");
    assert!(!v["content"].as_str().unwrap().contains("Shapes"), "{v}");
    let r = run(fetch_args(&["--links", "footnotes", &server.url("/page")])).await;
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("expected one of `inline`, `references`, `drop`"), "{}", r.stderr);
}

/// Issue 16: a timeout said "timed out after 0.0 s" when reqwest raised it
/// (the duration was lost); it says how long the request ran.
#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_says_how_long_it_waited() {
    let server = TestServer::start().await;
    server.route("/slow", Route::html(200, "<p>late</p>").delay(Duration::from_secs(5)));
    let r = run(vec![
        "fetch".into(),
        "--allow-private".into(),
        "127.0.0.1".into(),
        "--timeout".into(),
        "1".into(),
        "--mode".into(),
        "ignore".into(),
        "--no-cache".into(),
        server.url("/slow"),
    ])
    .await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let after = r.stderr.split("timed out after ").nth(1).unwrap_or_else(|| panic!("{}", r.stderr));
    let seconds: f64 = after.split(' ').next().unwrap().parse().unwrap();
    assert!((0.9..3.0).contains(&seconds), "{}", r.stderr);
}

/// Issue 16: `--allow-private 127.0.0.1` failed with "invalid IP address
/// syntax"; one address is its own /32 (or /128) network.
#[tokio::test(flavor = "multi_thread")]
async fn allow_private_takes_a_single_address() {
    let server = site().await;
    let r = run(vec![
        "fetch".into(),
        "--allow-private".into(),
        "127.0.0.1".into(),
        "--no-cache".into(),
        server.url("/article"),
    ])
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(vec![
        "fetch".into(),
        "--allow-private".into(),
        "127.0.0.2".into(),
        "--no-cache".into(),
        server.url("/article"),
    ])
    .await;
    assert_eq!(r.code, 4, "127.0.0.2/32 does not hold 127.0.0.1: {}", r.stderr);
    let r = run(vec!["fetch".into(), "--allow-private".into(), "intranet".into(), server.url("/article")]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("neither an IP address nor a CIDR network"), "{}", r.stderr);
}

/// Issue 16: refusing `http://localhost:…` suggested `--allow-private`,
/// which cannot help for a name; the hint names what does.
#[tokio::test(flavor = "multi_thread")]
async fn refusing_localhost_says_to_use_the_address() {
    let server = site().await;
    let url = format!("http://localhost:{}/article", server.port());
    let r = run(vec!["fetch".into(), "--allow-private".into(), "127.0.0.0/8".into(), url]).await;
    assert_eq!(r.code, 4, "{}", r.stderr);
    let hint = r.stderr.lines().find(|l| l.starts_with("hint:")).unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(hint.contains(&format!("http://127.0.0.1:{}/", server.port())), "{hint}");
    assert!(hint.contains("`--allow-private` does not change that"), "{hint}");
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_reads_a_pdf_behind_a_redirect_with_its_metadata_and_signals() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", &server.url("/latest.pdf")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "# Annual Report\n\nThe report's first page.\n\n--- page 2 ---\n\nThe report's second page.\n"
    );
    assert!(r.stderr.contains("pdf: 2 pages, 2 read, author Ada Lovelace"), "{}", r.stderr);
    assert!(r.stderr.contains("warning[noai]"), "{}", r.stderr);

    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/latest.pdf")])).await;
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["pdf"],
        serde_json::json!({"title": "Annual Report", "author": "Ada Lovelace", "pages": 2, "pages_read": 2})
    );
    assert_eq!(v["title"], "Annual Report");
    assert_eq!(v["final_url"], server.url("/report.pdf"));
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_refuses_a_disallowed_pdf_unrequested_and_names_an_encrypted_one() {
    let server = site().await;
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/private/report.pdf")])).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(server.hits("/private/report.pdf"), 0);

    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/locked.pdf")])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["reason"], "pdf_error", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("encrypted"), "{v}");
}

/// Issue 31: a refused connection's message carried reqwest's whole chain
/// (`error sending request for url (…): client error (Connect): tcp connect
/// error: Connection refused (os error 111)`). It says what happened in one
/// line, in the text and the JSON error alike; `-v` logs the chain.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_is_said_in_one_line() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/page");
    let r = run(fetch_args(&["--no-cache", "--mode", "ignore", &url])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let error = r.stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_else(|| panic!("{}", r.stderr));
    assert_eq!(error, format!("error: cannot connect to {url}: connection refused"));
    let r = run(fetch_args(&["--no-cache", "--mode", "ignore", "--json", &url])).await;
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["message"], format!("cannot connect to {url}: connection refused"), "{v}");
    // Under `respect`, the robots.txt refusal quotes the same short reason.
    let r = run(fetch_args(&["--no-cache", &url])).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("connection refused"), "{}", r.stderr);
    for noise in ["error sending request", "client error (Connect)", "os error"] {
        assert!(!r.stderr.contains(noise), "{noise}: {}", r.stderr);
    }
    let r = run(fetch_args(&["--no-cache", "--mode", "ignore", "-v", &url])).await;
    assert!(r.stderr.contains("tcp connect error"), "-v logs the whole chain: {}", r.stderr);
}

/// Issue 31: robots.txt outcomes persist by default (the user cache
/// directory), so an edited robots.txt kept its old verdict for hours.
/// `--refresh-robots` reads it again, and caches what it read.
#[tokio::test(flavor = "multi_thread")]
async fn refresh_robots_reads_an_edited_robots_txt_again() {
    let server = site().await;
    let dir = temp_dir("refresh-robots");
    let cache = dir.to_str().unwrap();
    let first = run(fetch_args(&["--cache-dir", cache, &server.url("/article")])).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /article\n"));
    let stale = run(fetch_args(&["--cache-dir", cache, &server.url("/article")])).await;
    assert_eq!(stale.code, 0, "the cached outcome is used: {}", stale.stderr);
    assert_eq!(server.hits("/robots.txt"), 1);
    let fresh = run(fetch_args(&["--cache-dir", cache, "--refresh-robots", &server.url("/article")])).await;
    assert_eq!(fresh.code, 3, "the edited robots.txt is read: {}", fresh.stderr);
    assert_eq!(server.hits("/robots.txt"), 2);
    let cached = run(fetch_args(&["--cache-dir", cache, &server.url("/article")])).await;
    assert_eq!(cached.code, 3, "what was read again is cached: {}", cached.stderr);
    assert_eq!(server.hits("/robots.txt"), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 30: the PDFs that attack the reader itself, each with the
/// outcome `webcanon fetch` must give (an exit status and what the JSON
/// names), in seconds. Before PDFs were read in a worker and the page
/// tree and fonts were bounded, the first three aborted the process
/// (stack overflow), the fonts took gigabytes, and the `bfrange` lines and
/// the page graph ran for minutes past the 10 s limit.
#[tokio::test(flavor = "multi_thread")]
async fn issue_30_pdf_bombs_are_outcomes_not_crashes() {
    use webcanon_test::pdf::bombs;
    let skipped = "page 1 has more than 64 MiB of decoded content; its text is left out";
    let cases: [(&str, Vec<u8>, i32, &str); 7] = [
        ("nested-resources", bombs::nested_resources(4_000), 0, "Bombed."),
        ("nested-info", bombs::nested_info(4_000), 0, "Bombed."),
        ("deep-page-tree", bombs::nested_page_tree(100_000), 5, "its page tree is nested deeper than 64"),
        ("eight-fonts", bombs::shared_to_unicode(8, 255), 0, skipped),
        ("two-hundred-fonts", bombs::shared_to_unicode(200, 255), 0, skipped),
        ("bfrange", bombs::bfrange_expansion(13_000), 0, skipped),
        ("page-graph", bombs::page_graph(30), 5, "its page tree lists object 5 more than once"),
    ];
    let server = TestServer::start().await;
    for (name, pdf, _, _) in &cases {
        server.route(&format!("/{name}.pdf"), Route::bytes(200, "application/pdf", pdf.clone()));
    }
    for (name, _, code, expected) in &cases {
        let started = std::time::Instant::now();
        let r = run(fetch_args(&["--no-cache", "--json", &server.url(&format!("/{name}.pdf"))])).await;
        let took = started.elapsed();
        assert_eq!(r.code, *code, "{name}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(expected), "{name}: {}", r.stdout);
        assert!(took < Duration::from_secs(8), "{name} took {took:?}");
    }
}

/// A page that asks for payment (HTTP 402, pay per crawl) is exit 5 with
/// reason `payment_required` and the price asked; it is requested once.
#[tokio::test(flavor = "multi_thread")]
async fn payment_asked_is_reported_with_its_price() {
    let server = site().await;
    server.route("/paid", Route::html(402, "<p>pay</p>").header("crawler-price", "USD 0.01"));
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/paid")])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "fetch");
    assert_eq!(v["error"]["reason"], "payment_required");
    assert_eq!(v["error"]["status"], 402);
    assert_eq!(v["error"]["price"], serde_json::json!({"currency": "USD", "amount": "0.01"}));
    assert_eq!(server.hits("/paid"), 1, "never retried");

    let r = run(fetch_args(&["--no-cache", &server.url("/paid")])).await;
    assert_eq!(r.code, 5);
    assert!(r.stderr.contains("asks for payment (HTTP 402, crawler-price USD 0.01); nothing was paid"), "{}", r.stderr);
}

#[tokio::test]
async fn fetch_purpose_reads_the_rsl_license_into_warnings() {
    let server = TestServer::start().await;
    let license = r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">search</permits>
<payment type="crawl"><amount currency="EUR">0.01</amount></payment></license></content></rsl>"#;
    server.route("/robots.txt", Route::text(200, &format!("License: {}\n", server.url("/license.xml"))));
    server.route("/license.xml", Route::bytes(200, "application/rsl+xml", license.as_bytes().to_vec()));
    server.route("/article", Route::html(200, ARTICLE));
    let codes = |stdout: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
        v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap().to_string()).collect()
    };
    let r = run(fetch_args(&["--no-cache", "--json", "--purpose", "ai-input", &server.url("/article")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(codes(&r.stdout), ["rsl_prohibited"], "{}", r.stdout);
    let r = run(fetch_args(&["--no-cache", "--json", "--purpose", "search", &server.url("/article")])).await;
    assert_eq!(codes(&r.stdout), ["rsl_payment_required"], "{}", r.stdout);
    let r = run(fetch_args(&["--no-cache", "--json", &server.url("/article")])).await;
    assert!(codes(&r.stdout).is_empty(), "no purpose, and the default agent has no registry use: {}", r.stdout);
    let r = run(fetch_args(&["--no-cache", "--purpose", "train-ai", &server.url("/article")])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("unknown RSL usage `train-ai`"), "{}", r.stderr);
}

/// An article followed by two comments.
const COMMENTED_ARTICLE: &str = "<html><head><title>Pumps</title></head><body><article><h1>Pumps in spring</h1>\
<p>After a winter outside, a garden pump often needs its foot valve checked and its priming plug replaced before \
it will draw water again; this article walks through both, one step at a time.</p></article>\
<ol class=comment-list><li class=comment><p>The foot valve was it: thank you, my pump draws again.</p></li>\
<li class=comment><p>A cracked plug here too, fixed with thread tape.</p></li></ol></body></html>";

#[tokio::test]
async fn fetch_comments_choose_whether_an_article_s_comments_follow_it() {
    let server = TestServer::start().await;
    server.route("/pumps", Route::html(200, COMMENTED_ARTICLE));
    let r = run(fetch_args(&["--no-cache", "--comments", "include", &server.url("/pumps")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("## Comments") && r.stdout.contains("The foot valve was it"), "{}", r.stdout);
    let r = run(fetch_args(&["--no-cache", &server.url("/pumps")])).await;
    assert!(r.stdout.contains("foot valve checked") && !r.stdout.contains("The foot valve was it"), "{}", r.stdout);
    let r = run(fetch_args(&["--no-cache", "--comments", "all", &server.url("/pumps")])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
}
