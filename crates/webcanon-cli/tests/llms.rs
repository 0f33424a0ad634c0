//! `webcanon llms check | full` end to end: local files and standard input,
//! and real loopback servers in this process with the binary as a child
//! process; exit codes, text and JSON shapes as documented.

mod support;

use support::{Run, run, temp_dir, webcanon, webcanon_with_stdin};
use webcanon_test::{Route, TestServer};

/// `webcanon llms SUB` with the loopback client options, then `extra`.
fn args(sub: &str, extra: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = ["llms", sub, "--allow-private", "127.0.0.0/8", "--timeout", "5", "--no-cache"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    all.extend(extra.iter().map(|s| s.to_string()));
    all
}

const MARKDOWN: &str = "text/markdown; charset=utf-8";

// ---------------------------------------------------------------------------
// check: local files

/// Line numbers matter: the tests assert them.
const BAD_FILE: &str = "\
> Acme does analytics.

## Docs

- [Start](https://acme.example/start.md): Begin here.
- [Guide](guide.md): A relative link.
- [Start again](https://acme.example/start.md): The same URL.
- [Mail](mailto:team@acme.example): Write to us.

## Empty
";

const CLEAN_FILE: &str = "\
# Acme

> Acme does analytics.

## Docs

- [Start](https://acme.example/start.md): Begin here.
- [Reference](https://acme.example/reference.md): Every event property.

## Optional

- [Changelog](https://acme.example/changelog.md): What changed.
";

/// Writes `contents` to `llms.txt` in a fresh temporary directory named
/// after `name` and runs `webcanon llms check` on it; returns the run and the
/// file's path.
fn check_file(name: &str, contents: &str) -> (Run, String) {
    let path = temp_dir(name).join("llms.txt");
    std::fs::write(&path, contents).unwrap();
    let path = path.to_str().unwrap().to_string();
    (webcanon(&["llms", "check", &path]), path)
}

#[test]
fn check_file_reports_codes_with_lines_and_exits_1() {
    let (r, path) = check_file("bad", BAD_FILE);
    let path = path.as_str();
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let expect = [
        "error[L001]: the file has no `# Title` line\n  --> {path}\n".to_string(),
        "warning[L003]: content before the H1 title\n  --> {path}:1\n".into(),
        "warning[L009]: a relative URL; the proposal uses full URLs\n  --> {path}:6\n  |\n6 | - [Guide](guide.md): A relative link.\n".into(),
        "warning[L013]: this URL is already listed on line 5\n  --> {path}:7\n".into(),
        "warning[L024]: a mailto: link; agents fetch only http and https\n  --> {path}:8\n".into(),
        "warning[L010]: section \"Empty\" has no links\n  --> {path}:10\n".into(),
    ];
    for e in expect {
        let e = e.replace("{path}", path);
        assert!(r.stdout.contains(&e), "missing\n{e}\nin\n{}", r.stdout);
    }
    assert!(
        r.stdout
            .ends_with(&format!("{path}: no title, 2 section(s), 4 link(s); 1 error(s), 5 warning(s), 0 note(s)\n")),
        "{}",
        r.stdout
    );
    // A local file's links are listed, never requested: no link lines.
    assert!(!r.stdout.contains(": ok:") && !r.stdout.contains(": broken:"), "{}", r.stdout);
}

#[test]
fn check_clean_file_exits_0() {
    let (r, path) = check_file("clean", CLEAN_FILE);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, format!("{path}: \"Acme\", 2 section(s), 3 link(s); 0 error(s), 0 warning(s), 0 note(s)\n"));
}

#[test]
fn check_reads_standard_input() {
    let r = webcanon_with_stdin(&["llms", "check", "-"], BAD_FILE);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("  --> <stdin>:6\n"), "{}", r.stdout);
    assert!(r.stdout.contains("<stdin>: no title, 2 section(s), 4 link(s); 1 error(s)"), "{}", r.stdout);

    let r = webcanon_with_stdin(&["llms", "check", "-", "--json"], CLEAN_FILE);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["source"], "<stdin>");
    assert_eq!(v["title"], "Acme");
    assert_eq!(v["summary"], "Acme does analytics.");
    assert_eq!(v["links"].as_array().unwrap().len(), 3);
    assert!(v["links"][0]["outcome"].is_null(), "links of a file are not checked: {v}");
    assert_eq!(v["links"][2]["optional"], true);
    assert_eq!(v["totals"]["checked"], 0);
}

#[test]
fn check_html_body_is_an_error() {
    let r = webcanon_with_stdin(&["llms", "check", "-"], "<!DOCTYPE html>\n<html><body>Not found</body></html>\n");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("error[L004]: the body is an HTML page"), "{}", r.stdout);
    assert!(r.stdout.contains("  --> <stdin>:1\n"), "{}", r.stdout);
}

#[test]
fn check_unreadable_file_exits_2_with_a_hint() {
    let r = webcanon(&["llms", "check", "acme.example"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("error: cannot read llms.txt file `acme.example`"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: to check a site, give its URL: https://acme.example/"), "{}", r.stderr);

    let r = webcanon(&["llms", "check", "/nonexistent/dir/llms.txt"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot read file `/nonexistent/dir/llms.txt`"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// check: a site

/// An llms.txt at the root whose links cover every outcome; line numbers
/// are those the tests assert.
fn site_llms(base: &str) -> String {
    format!(
        "# Acme\n\
         \n\
         > Acme does analytics.\n\
         \n\
         ## Docs\n\
         \n\
         - [Start]({base}/docs/start.md): Begin here.\n\
         - [Gone]({base}/docs/gone.md): A removed page.\n\
         - [Page]({base}/docs/page.md): HTML served as the Markdown copy.\n\
         - [Moved]({base}/docs/old.md): Moved elsewhere.\n\
         - [Plan]({base}/private/plan.md): Disallowed by robots.txt.\n\
         - [Guide](docs/guide.md): A relative link.\n\
         - [Start again]({base}/docs/start.md): The same URL again.\n\
         - [Intranet](http://10.0.0.1/x.md): A private address.\n\
         \n\
         ## Optional\n\
         \n\
         - [Changelog]({base}/changelog.txt): An HTML page sent as text/plain.\n"
    )
}

async fn link_site() -> TestServer {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private/\n"));
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, site_llms(&base).into_bytes()));
    server.route("/docs/start.md", Route::bytes(200, MARKDOWN, b"# Start\n\nRun `acme init`.\n".to_vec()));
    server.route("/docs/page.md", Route::html(200, "<!doctype html><html><body><p>Docs</p></body></html>"));
    server.route("/docs/old.md", Route::redirect(301, "/docs/new.md"));
    server.route("/docs/new.md", Route::bytes(200, MARKDOWN, b"# New\n".to_vec()));
    server.route("/private/plan.md", Route::bytes(200, MARKDOWN, b"# Plan\n".to_vec()));
    server.route("/docs/guide.md", Route::text(200, "# Guide\n"));
    server.route("/changelog.txt", Route::text(200, "<!DOCTYPE html><html><body>soft 404</body></html>"));
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn check_url_judges_every_link() {
    let server = link_site().await;
    let base = server.url("");
    let src = server.url("/llms.txt");
    let r = run(args("check", &[&server.url("/")])).await;
    assert_eq!(r.code, 1, "a broken link fails the check\n{}\n{}", r.stdout, r.stderr);
    let expect = [
        format!("{src}:8: broken: {base}/docs/gone.md (HTTP 404)\n"),
        format!("{src}:9: not_markdown: {base}/docs/page.md (an HTML page, not Markdown)\n"),
        format!("{src}:10: ok: {base}/docs/old.md (redirected to {base}/docs/new.md)\n"),
        format!(
            "{src}:11: refused_robots: {base}/private/plan.md (disallowed_explicit by line 2: `Disallow: /private/` in {base}/robots.txt)\n"
        ),
        format!("{src}:14: refused_ssrf: http://10.0.0.1/x.md ("),
        format!("{src}:18: not_markdown: {base}/changelog.txt (an HTML page served as text/plain)\n"),
        format!(
            "{src}: \"Acme\", 2 section(s), 9 link(s); 0 error(s), 2 warning(s), 0 note(s); links: 4 ok, 1 broken, 2 not Markdown, 2 refused, 0 unreachable\n"
        ),
    ];
    for e in &expect {
        assert!(r.stdout.contains(e.as_str()), "missing\n{e}\nin\n{}", r.stdout);
    }
    // Plain ok links are not listed.
    assert!(!r.stdout.contains(&format!("{src}:7:")), "{}", r.stdout);
    assert!(!r.stdout.contains(&format!("{src}:12:")), "{}", r.stdout);
    // Robots.txt refused the link before any request; the duplicate was requested once;
    // the relative link resolved against the llms.txt URL.
    assert_eq!(server.hits("/private/plan.md"), 0);
    assert_eq!(server.hits("/docs/start.md"), 1);
    assert_eq!(server.hits("/docs/guide.md"), 1);
    assert_eq!(server.hits("/docs/new.md"), 1);
    assert_eq!(server.hits("/llms.txt"), 1);
    let start = server.requests().into_iter().find(|r| r.path_and_query == "/docs/start.md").unwrap();
    assert!(start.accept.as_deref().unwrap_or("").starts_with("text/markdown"), "{:?}", start.accept);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_link_is_reported_but_does_not_fail_the_check() {
    // The client's one link classification (the audit's too): no answer is
    // `unreachable`, reported, not counted as broken.
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let llms = format!("# Acme\n\n> Analytics.\n\n## Docs\n\n- [Loop]({base}/loop.md): Redirects to itself.\n");
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, llms.into_bytes()));
    server.route("/loop.md", Route::redirect(302, "/loop.md"));
    let r = run(args("check", &["--json", &server.url("/llms.txt")])).await;
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["links"][0]["outcome"], "unreachable", "{v}");
    assert_eq!(v["totals"]["unreachable"], 1, "{v}");
    assert_eq!(v["totals"]["broken"], 0, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn check_url_json_has_the_documented_shape() {
    let server = link_site().await;
    let base = server.url("");
    let r = run(args("check", &["--json", &server.url("")])).await;
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let keys = [
        "source",
        "max_links",
        "content_type",
        "title",
        "summary",
        "not_llms",
        "sections",
        "diagnostics",
        "links",
        "totals",
    ];
    for key in keys {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["source"], server.url("/llms.txt"));
    assert_eq!(v["content_type"], MARKDOWN);
    assert_eq!(v["title"], "Acme");
    assert_eq!(v["summary"], "Acme does analytics.");
    assert!(v["not_llms"].is_null());
    assert_eq!(v["sections"][0], serde_json::json!({"name": "Docs", "line": 5, "optional": false, "links": 8}));
    assert_eq!(v["sections"][1], serde_json::json!({"name": "Optional", "line": 16, "optional": true, "links": 1}));
    let diag = v["diagnostics"].as_array().unwrap();
    let l013 = diag.iter().find(|d| d["code"] == "L013").expect("duplicate reported");
    assert_eq!(l013["line"], 13);
    assert_eq!(l013["severity"], "warning");
    assert_eq!(l013["name"], "duplicate-link");

    let links = v["links"].as_array().unwrap();
    assert_eq!(links.len(), 9);
    let at = |line: u64| links.iter().find(|l| l["line"] == line).unwrap_or_else(|| panic!("line {line}: {v}"));
    let keys = [
        "url",
        "resolved_url",
        "title",
        "section",
        "optional",
        "line",
        "outcome",
        "status",
        "final_url",
        "redirected",
        "content_type",
        "message",
        "rule",
        "robots_url",
    ];
    for key in keys {
        assert!(links[0].get(key).is_some(), "link misses {key}: {}", links[0]);
    }

    let start = at(7);
    assert_eq!(start["outcome"], "ok");
    assert_eq!(start["status"], 200);
    assert_eq!(start["title"], "Start");
    assert_eq!(start["section"], "Docs");
    assert_eq!(start["redirected"], false);
    assert_eq!(start["content_type"], MARKDOWN);
    assert!(start["message"].is_null());

    assert_eq!(at(8)["outcome"], "broken");
    assert_eq!(at(8)["status"], 404);
    assert_eq!(at(9)["outcome"], "not_markdown");

    let moved = at(10);
    assert_eq!(moved["outcome"], "ok");
    assert_eq!(moved["redirected"], true);
    assert_eq!(moved["final_url"], format!("{base}/docs/new.md"));

    let plan = at(11);
    assert_eq!(plan["outcome"], "refused_robots");
    assert_eq!(plan["rule"], serde_json::json!({"line": 2, "directive": "disallow", "pattern": "/private/"}));
    assert_eq!(plan["robots_url"], format!("{base}/robots.txt"));
    assert!(plan["status"].is_null());

    let guide = at(12);
    assert_eq!(guide["url"], "docs/guide.md");
    assert_eq!(guide["resolved_url"], format!("{base}/docs/guide.md"));
    assert_eq!(guide["outcome"], "ok");

    assert_eq!(at(13)["outcome"], "ok");
    assert_eq!(at(13)["resolved_url"], start["resolved_url"]);

    let intranet = at(14);
    assert_eq!(intranet["outcome"], "refused_ssrf");
    assert!(intranet["message"].as_str().unwrap().contains("10.0.0.1"), "{intranet}");

    let changelog = at(18);
    assert_eq!(changelog["outcome"], "not_markdown");
    assert_eq!(changelog["optional"], true);
    assert_eq!(changelog["section"], "Optional");

    assert_eq!(
        v["totals"],
        serde_json::json!({
            "errors": 0, "warnings": 2, "infos": 0, "links": 9, "checked": 8, "ok": 4, "broken": 1,
            "not_markdown": 2, "refused": 2, "unreachable": 0, "invalid": 0, "redirected": 1, "left_out": 0
        })
    );
    assert_eq!(v["max_links"], 1000);
}

#[tokio::test(flavor = "multi_thread")]
async fn check_no_links_requests_only_the_file() {
    let server = link_site().await;
    let r = run(args("check", &["--no-links", "--json", &server.url("/llms.txt")])).await;
    assert_eq!(r.code, 0, "no link checked, no file error\n{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["links"].as_array().unwrap().iter().all(|l| l["outcome"].is_null()), "{v}");
    assert_eq!(v["totals"]["checked"], 0);
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path_and_query).collect();
    assert!(paths.iter().all(|p| p == "/robots.txt" || p == "/llms.txt"), "{paths:?}");
    assert_eq!(server.hits("/llms.txt"), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_url_means_the_llms_txt_every_face_reads_for_it() {
    // The client's one rule, the same as the MCP `llms_txt` tool's: a file
    // as named, a directory's own llms.txt, the site's for a page.
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/llms.txt", Route::text(200, CLEAN_FILE).header("content-type", MARKDOWN));
    server.route("/docs/llms.txt", Route::text(200, CLEAN_FILE).header("content-type", MARKDOWN));
    for (given, read) in [("/docs/", "/docs/llms.txt"), ("/docs/page.html?x=1", "/llms.txt"), ("/", "/llms.txt")] {
        let r = run(args("check", &["--no-links", "--json", &server.url(given)])).await;
        assert_eq!(r.code, 0, "{given}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["source"], server.url(read), "{given}: {v}");
    }
    assert_eq!(server.hits("/docs/"), 0);
    assert_eq!(server.hits("/docs/page.html"), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn check_a_missing_llms_txt_exits_5_with_a_hint() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let r = run(args("check", &[&server.url("/")])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("error: {} answered HTTP 404", server.url("/llms.txt"))), "{}", r.stderr);
    assert!(r.stderr.contains("hint: there is no llms.txt at this address"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);

    let r = run(args("check", &["--json", &server.url("/")])).await;
    assert_eq!(r.code, 5);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "fetch");
    assert_eq!(v["error"]["status"], 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn check_an_llms_txt_that_robots_disallows_exits_3_unrequested() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /llms.txt\n"));
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, CLEAN_FILE.as_bytes().to_vec()));
    let r = run(args("check", &[&server.url("/llms.txt")])).await;
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("robots policy refuses"), "{}", r.stderr);
    assert_eq!(server.hits("/llms.txt"), 0);
}

// ---------------------------------------------------------------------------
// full

const ARTICLE: &str = "<!doctype html><html><head><title>Concepts</title></head><body><nav>Home | Docs</nav>\
<main><h1>Concepts</h1><p>Events are the unit of analytics in Acme. This paragraph is long enough to be the main \
content of the page, which the converter keeps while it drops the navigation.</p>\
<p>See the <a href=\"/docs/start.md\">start page</a>.</p></main></body></html>";

const START: &str = "# Start\n\nRun `acme init`, then read the [reference](https://acme.example/reference.md).\n\n## Next\n\nSend events.\n";

fn full_llms(base: &str) -> String {
    format!(
        "# Acme\n\n> Acme does analytics.\n\nBuilt for self-serve SaaS.\n\n## Docs\n\n\
         - [Start]({base}/docs/start.md): Begin here.\n\
         - [Concepts]({base}/docs/concepts): An HTML page.\n\
         - [Gone]({base}/docs/gone.md): A removed page.\n\
         - [Start again]({base}/docs/start.md): The same page.\n\n\
         ## Optional\n\n\
         - [Changelog]({base}/changelog.md): What changed.\n"
    )
}

async fn full_site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, full_llms(&server.url("")).into_bytes()));
    server.route("/docs/start.md", Route::bytes(200, MARKDOWN, START.as_bytes().to_vec()));
    server.route("/docs/concepts", Route::html(200, ARTICLE));
    server.route(
        "/changelog.md",
        Route::bytes(200, MARKDOWN, b"---\ntitle: Changelog\n---\n# Changelog\n\n- 1.0: first release\n".to_vec()),
    );
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn full_concatenates_pages_in_order_with_their_sources() {
    let server = full_site().await;
    let base = server.url("");
    let r = run(args("full", &[&server.url("/")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = &r.stdout;
    assert!(out.starts_with("# Acme\n\n> Acme does analytics.\n\nBuilt for self-serve SaaS.\n\n---\n\n"), "{out}");
    let start_block = format!("---\n\nSource: {base}/docs/start.md\n\n{START}");
    let at_start = out.find(&start_block).unwrap_or_else(|| panic!("start page with its source\n{out}"));
    let at_concepts = out
        .find(&format!("---\n\nSource: {base}/docs/concepts\n\n"))
        .unwrap_or_else(|| panic!("concepts page with its source\n{out}"));
    assert!(at_start < at_concepts, "llms.txt order\n{out}");
    // HTML became Markdown, the navigation dropped, the relative link made absolute.
    let concepts = &out[at_concepts..];
    assert!(concepts.contains("Events are the unit of analytics"), "{out}");
    assert!(concepts.contains(&format!("({base}/docs/start.md)")), "{out}");
    assert!(!concepts.contains("Home | Docs"), "{out}");
    // The page's own headings kept as they are.
    assert!(out.contains("\n## Next\n"), "{out}");
    // The duplicate included once and fetched once; Optional left out and not requested.
    assert_eq!(out.matches(&format!("Source: {base}/docs/start.md\n")).count(), 1, "{out}");
    assert_eq!(server.hits("/docs/start.md"), 1);
    assert!(!out.contains("Changelog"), "{out}");
    assert_eq!(server.hits("/changelog.md"), 0);
    // The failing page skipped with a warning.
    assert!(!out.contains("gone.md"), "{out}");
    assert!(
        r.stderr.contains(&format!("warning: skipped {base}/docs/gone.md: {base}/docs/gone.md answered HTTP 404")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("note: left out 1 link(s) in `## Optional`"), "{}", r.stderr);
    assert!(r.stderr.contains("llms-full: 2 of 3 page(s)"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn full_optional_includes_the_optional_section_last() {
    let server = full_site().await;
    let base = server.url("");
    let r = run(args("full", &["--optional", &server.url("/llms.txt")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let changelog = format!("---\n\nSource: {base}/changelog.md\n\n# Changelog\n\n- 1.0: first release\n");
    // Its YAML front matter dropped: concatenated, it would read as a rule and a heading.
    assert!(r.stdout.ends_with(&changelog), "{}", r.stdout);
    assert!(!r.stdout.contains("title: Changelog"), "{}", r.stdout);
    assert!(r.stdout.find(&format!("Source: {base}/docs/concepts")).unwrap() < r.stdout.find(&changelog).unwrap());
    assert_eq!(server.hits("/changelog.md"), 1);
    assert!(!r.stderr.contains("left out"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn full_output_file_and_json() {
    let server = full_site().await;
    let base = server.url("");
    let dir = temp_dir("full");
    let path = dir.join("llms-full.txt");
    let path_str = path.to_str().unwrap();
    let r = run(args("full", &["-o", path_str, &server.url("/")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty(), "the content goes to the file: {}", r.stdout);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("# Acme\n\n> Acme does analytics.\n"), "{written}");
    assert!(written.contains(&format!("Source: {base}/docs/start.md\n\n# Start\n")), "{written}");
    assert!(r.stderr.contains(&format!("wrote {path_str} (2 of 3 page(s)")), "{}", r.stderr);
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");

    let r = run(args("full", &["--json", &server.url("/")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["source"], server.url("/llms.txt"));
    assert_eq!(v["included"], 2);
    assert_eq!(v["skipped_optional"], 1);
    assert!(v["output"].is_null());
    assert_eq!(v["content"].as_str().unwrap(), written, "the same llms-full.txt");
    let pages = v["pages"].as_array().unwrap();
    let urls: Vec<&str> = pages.iter().map(|p| p["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        [format!("{base}/docs/start.md"), format!("{base}/docs/concepts"), format!("{base}/docs/gone.md")],
        "each URL once, in llms.txt order"
    );
    for key in ["url", "title", "section", "optional", "fetched_url", "status", "ok", "error", "error_kind", "bytes"] {
        assert!(pages[0].get(key).is_some(), "page misses {key}: {}", pages[0]);
    }
    assert_eq!(pages[0]["ok"], true);
    assert_eq!(pages[0]["title"], "Start");
    assert_eq!(pages[0]["section"], "Docs");
    assert_eq!(pages[0]["bytes"], START.len());
    assert_eq!(pages[0]["fetched_url"], format!("{base}/docs/start.md"));
    assert!(pages[0]["error"].is_null());
    assert_eq!(pages[2]["ok"], false);
    assert_eq!(pages[2]["status"], 404);
    assert_eq!(pages[2]["error_kind"], "fetch");
    assert!(pages[2]["error"].as_str().unwrap().contains("HTTP 404"), "{}", pages[2]);

    let r = run(args("full", &["--json", "-o", path_str, &server.url("/")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["output"], path_str);
    assert!(v["content"].is_null(), "the content is in the file: {v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn full_exits_5_when_no_page_is_included() {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private/\n"));
    let llms = format!(
        "# Acme\n\n> Analytics.\n\n## Docs\n\n- [Gone]({base}/gone.md): 404.\n- [Plan]({base}/private/plan.md): Disallowed.\n"
    );
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, llms.into_bytes()));
    server.route("/private/plan.md", Route::bytes(200, MARKDOWN, b"# Plan\n".to_vec()));
    let dir = temp_dir("none");
    let path = dir.join("llms-full.txt");
    let r = run(args("full", &["-o", path.to_str().unwrap(), &server.url("/")])).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains(&format!("warning: skipped {base}/gone.md")), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("warning: skipped {base}/private/plan.md: robots policy refuses")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("error: no page listed in"), "{}", r.stderr);
    assert!(!path.exists(), "no file written when nothing was included");
    assert_eq!(server.hits("/private/plan.md"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16: `llms check` and `llms full` said nothing while the llms.txt
/// was being read (robots.txt first, then the file). With stderr on a
/// terminal a spinner names what is read.
#[tokio::test(flavor = "multi_thread")]
async fn reading_llms_txt_shows_progress_on_a_terminal() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/llms.txt", Route::text(200, "# Site\n\n> A site.\n").delay(std::time::Duration::from_millis(600)));
    for sub in ["check", "full"] {
        let argv = args(sub, &[&server.url("/")]);
        let Some(terminal) = tokio::task::spawn_blocking(move || support::webcanon_on_terminal(&argv)).await.unwrap()
        else {
            eprintln!("skipped: no `script` to give llms a terminal");
            return;
        };
        assert!(terminal.contains(&format!("reading {}", server.url("/llms.txt"))), "{sub}: {terminal}");
    }
}

// ---------------------------------------------------------------------------
// the cap on links requested

/// A server whose llms.txt lists `links` distinct pages `/p/N.md`, the
/// first `served` of them served as Markdown, the rest 404.
async fn many_links_site(links: usize, served: usize) -> TestServer {
    let server = TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let mut llms = String::from("# Many\n\n> A long list.\n\n## Docs\n\n");
    for i in 0..links {
        llms.push_str(&format!("- [Page {i}]({base}/p/{i}.md): Page {i}.\n"));
    }
    server.route("/llms.txt", Route::bytes(200, MARKDOWN, llms.into_bytes()));
    for i in 0..served {
        server.route(&format!("/p/{i}.md"), Route::bytes(200, MARKDOWN, format!("# Page {i}\n").into_bytes()));
    }
    server
}

/// The requests the server saw for linked pages.
fn page_requests(server: &TestServer) -> Vec<String> {
    server.requests().into_iter().map(|r| r.path_and_query).filter(|p| p.starts_with("/p/")).collect()
}

/// Issue 30, defect 15: `llms check` on an llms.txt of very many links
/// requested every one of them. It requests the first `--max-links`
/// (default 1,000) and says how many it left out.
#[tokio::test(flavor = "multi_thread")]
async fn check_requests_at_most_the_link_cap() {
    for (links, cap, flag) in [(1_200, 1_000, None), (90, 30, Some("30"))] {
        let server = many_links_site(links, links).await;
        let mut extra = vec!["--json"];
        if let Some(flag) = flag {
            extra.extend(["--max-links", flag]);
        }
        let target = server.url("/llms.txt");
        extra.push(&target);
        let r = run(args("check", &extra)).await;
        assert_eq!(r.code, 0, "{}", r.stderr);
        let requested = page_requests(&server);
        assert_eq!(requested.len(), cap, "{links} links");
        let expected: Vec<String> = (0..cap).map(|i| format!("/p/{i}.md")).collect();
        let mut sorted = requested.clone();
        sorted.sort_by_key(|p| p[3..p.len() - 3].parse::<usize>().unwrap());
        assert_eq!(sorted, expected, "the first links in the file's order");
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["max_links"], cap, "{links}");
        assert_eq!(v["totals"]["checked"], cap);
        assert_eq!(v["totals"]["ok"], cap);
        assert_eq!(v["totals"]["left_out"], links - cap);
        assert_eq!(v["links"][cap]["outcome"], serde_json::Value::Null);
        assert!(v["links"][cap]["message"].as_str().unwrap().contains("--max-links"));
        let note = format!("requested the first {cap} of {links} distinct links; {} left out", links - cap);
        assert!(r.stderr.contains(&note), "{}", r.stderr);
    }
    // The text summary says it too.
    let server = many_links_site(12, 12).await;
    let r = run(args("check", &["--max-links", "5", &server.url("/llms.txt")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("links: 5 ok, 0 broken, 0 not Markdown, 0 refused, 0 unreachable, 7 left out"),
        "{}",
        r.stdout
    );
    assert_eq!(page_requests(&server).len(), 5);
}

/// Issue 30, defect 15: `llms full` fetched every page an llms.txt listed.
/// It fetches the first `--max-links` and says how many it left out.
#[tokio::test(flavor = "multi_thread")]
async fn full_fetches_at_most_the_link_cap() {
    let server = many_links_site(60, 60).await;
    let r = run(args("full", &["--json", "--max-links", "25", &server.url("/llms.txt")])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut requested = page_requests(&server);
    requested.sort();
    requested.dedup();
    assert_eq!(requested.len(), 25, "{requested:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v["included"].clone(), v["max_links"].clone(), v["left_out"].clone()),
        (25.into(), 25.into(), 35.into())
    );
    assert_eq!(v["pages"].as_array().unwrap().len(), 25);
    assert!(v["content"].as_str().unwrap().contains("# Page 24"));
    assert!(!v["content"].as_str().unwrap().contains("# Page 25"));
    assert!(r.stderr.contains("requested the first 25 of 60 distinct pages; 35 left out"), "{}", r.stderr);
}
