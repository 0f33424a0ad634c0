//! `webcanon audit` end to end on the bundled example site (a folder, read
//! offline): snapshots of the terminal and JSON reports, the HTML file,
//! `--fail-under`, and usage errors.

mod support;

use std::path::Path;

use support::{Run, webcanon_in};

/// Runs the binary from the workspace root, so the target reads `examples/site`.
fn webcanon(args: &[&str]) -> Run {
    webcanon_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."), args)
}

#[test]
fn terminal_report_of_the_example_site() {
    let r = webcanon(&["audit", "examples/site"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!("example_site_terminal", r.stdout);
}

#[test]
fn json_report_of_the_example_site() {
    let r = webcanon(&["audit", "examples/site", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for key in ["target", "target_kind", "agent", "score", "status", "checks", "access_matrix", "resources_read"] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    for check in report["checks"].as_array().unwrap() {
        for key in ["id", "version", "status", "score", "steps", "findings"] {
            assert!(check.get(key).is_some(), "check missing {key}: {check}");
        }
        for step in check["steps"].as_array().unwrap() {
            for key in ["id", "weight", "status", "evidence"] {
                assert!(step.get(key).is_some(), "step missing {key}: {step}");
            }
        }
    }
    insta::assert_snapshot!("example_site_json", r.stdout);
}

#[test]
fn html_report_is_written() {
    let path = std::env::temp_dir().join(format!("webcanon-audit-cli-{}.html", std::process::id()));
    let r = webcanon(&["audit", "examples/site", "--html", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("webcanon audit: examples/site"));
    assert!(html.contains(r#"id="access""#));
    assert!(!html.contains("<script"), "no scripts");
    assert!(!html.contains("<link rel=\"stylesheet\""), "no external assets");
    let _ = std::fs::remove_file(path);
}

#[test]
fn fail_under_sets_the_exit_status() {
    let json = webcanon(&["audit", "examples/site", "--json"]);
    let score = serde_json::from_str::<serde_json::Value>(&json.stdout).unwrap()["score"].as_u64().unwrap();
    let above = (score + 1).to_string();
    let r = webcanon(&["audit", "examples/site", "--fail-under", &above]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains(&format!("score {score} is under --fail-under {above}")), "{}", r.stderr);
    let r = webcanon(&["audit", "examples/site", "--fail-under", &score.to_string()]);
    assert_eq!(r.code, 0);
}

#[test]
fn usage_errors_exit_2() {
    let r = webcanon(&["audit", "no/such/folder"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not a folder"), "{}", r.stderr);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    let r = webcanon(&["audit", "examples/site", "--fail-under", "101"]);
    assert_eq!(r.code, 2);
}

/// A folder's files are read only when they are regular files: a FIFO named
/// robots.txt would block the audit for ever, an llms.txt linked to
/// /dev/zero would never end. Both are reported as unreadable, at once.
#[test]
fn a_folder_of_fifos_and_devices_is_audited_at_once() {
    let dir = support::temp_dir("special-files");
    let fifo = std::process::Command::new("mkfifo").arg(dir.join("robots.txt")).status().expect("mkfifo runs");
    assert!(fifo.success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("llms.txt")).unwrap();
    std::os::unix::fs::symlink("/dev/urandom", dir.join("sitemap.xml")).unwrap();
    std::fs::write(dir.join("index.html"), "<html><head><title>Home</title></head><body><p>hi</p></body></html>")
        .unwrap();
    let started = std::time::Instant::now();
    let r = webcanon(&["audit", dir.to_str().unwrap(), "--json"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "took {:?}", started.elapsed());
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    assert!(r.stdout.contains("not a regular file"), "the report says why: {}", r.stdout);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["target_kind"], "folder");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16: an origin that cannot be reached was scored ("6/100 FAIL",
/// exit 0, with fixes for a site that does not exist). It is an error:
/// exit status 5, the reason said, nothing scored.
#[test]
fn an_origin_that_does_not_answer_is_an_error_not_a_score() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let origin = format!("http://127.0.0.1:{port}");
    let r = webcanon(&["audit", &origin, "--allow-private", "127.0.0.1"]);
    assert_eq!(r.code, 5, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "no report: {}", r.stdout);
    assert!(r.stderr.contains(&format!("error: cannot audit {origin}: it does not answer")), "{}", r.stderr);
    assert!(r.stderr.contains("cannot connect"), "the reason is said: {}", r.stderr);
    let r = webcanon(&["audit", &origin, "--allow-private", "127.0.0.1", "--json"]);
    assert_eq!(r.code, 5);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!((v["error"]["kind"].as_str(), v["error"]["code"].as_u64()), (Some("fetch"), Some(5)), "{v}");
}

/// Issue 16: an origin the SSRF guard refuses scored 8/100; it is exit 4.
#[tokio::test(flavor = "multi_thread")]
async fn an_origin_refused_by_the_ssrf_guard_is_an_error_not_a_score() {
    let server = webcanon_test::TestServer::start().await;
    let origin = server.url("");
    let r = support::run(vec!["audit".into(), origin.clone(), "--json".into()]).await;
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "ssrf", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("127.0.0.1 is loopback"), "{v}");
    // `localhost` is refused by name: the hint says `--allow-private` does
    // not open it and what does.
    let localhost = format!("http://localhost:{}/", server.port());
    let r = support::run(vec!["audit".into(), localhost, "--allow-private".into(), "127.0.0.1".into()]).await;
    assert_eq!(r.code, 4, "{}\n{}", r.stdout, r.stderr);
    let hint = r.stderr.lines().find(|l| l.starts_with("hint:")).unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(hint.contains("stay refused: use the address"), "{hint}");
    assert!(server.requests().is_empty());
}

/// Issue 16: a live audit ran in silence. With stderr on a terminal, a
/// spinner counts the resources read.
#[tokio::test(flavor = "multi_thread")]
async fn a_live_audit_shows_progress_on_a_terminal() {
    let server = webcanon_test::TestServer::start().await;
    server.route("/robots.txt", webcanon_test::Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", webcanon_test::Route::html(200, "<p>home</p>").delay(std::time::Duration::from_millis(600)));
    let args: Vec<String> = ["audit", &server.url(""), "--allow-private", "127.0.0.1", "--no-cache"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let Some(terminal) = tokio::task::spawn_blocking(move || support::webcanon_on_terminal(&args)).await.unwrap()
    else {
        eprintln!("skipped: no `script` to give the audit a terminal");
        return;
    };
    assert!(terminal.contains(&format!("auditing {}", server.url("").trim_end_matches('/'))), "{terminal}");
    assert!(terminal.contains("resources read"), "{terminal}");
}

/// A folder holding `files`, under the system's temporary directory.
fn site_folder(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = support::temp_dir(name);
    for (path, body) in files {
        std::fs::write(dir.join(path), body).unwrap();
    }
    dir
}

/// The audit's findings that start with a diagnostic code (`L007 …`), as
/// (code, severity).
fn coded_findings(report: &serde_json::Value) -> Vec<(String, String)> {
    let findings = report["checks"].as_array().unwrap().iter().flat_map(|c| c["findings"].as_array().unwrap());
    findings
        .filter_map(|f| {
            let code = f["message"].as_str()?.split(' ').next()?;
            let coded = code.len() == 4 && code[1..].bytes().all(|b| b.is_ascii_digit());
            coded.then(|| (code.to_string(), f["severity"].as_str().unwrap().to_string()))
        })
        .collect()
}

/// Issue 31: one rule, one severity. L007 (a link without a description)
/// was a note in `llms check` and a warning in the audit, and R001 (a rule
/// before any group) an error in `robots lint` and a warning in the audit.
/// Every code the audit reports now has the severity the linter gives it.
#[test]
fn a_code_has_the_same_severity_in_the_linters_and_the_audit() {
    let llms = "# Site\n\n> Summary.\n\n## Docs\n\n- [Page](/page.md)\n- [Other](/other.md): described\n\n## Empty\n";
    let robots = "Disallow: /tmp\nUser-agent: *\nDisallow: /private\n";
    let dir = site_folder(
        "severity",
        &[("llms.txt", llms), ("robots.txt", robots), ("page.md", "# P\n"), ("other.md", "# O\n")],
    );
    let folder = dir.to_str().unwrap();
    let r = webcanon(&["audit", folder, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
    let audited = coded_findings(&report);

    let mut linted: Vec<(String, String)> = Vec::new();
    for args in [&["llms", "check", "--json", "--no-links"][..], &["robots", "lint", "--json"]] {
        let file = dir.join(if args[0] == "llms" { "llms.txt" } else { "robots.txt" });
        let mut args = args.to_vec();
        args.push(file.to_str().unwrap());
        let r = webcanon(&args);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
        for d in v["diagnostics"].as_array().unwrap() {
            let severity = match d["severity"].as_str().unwrap() {
                "error" => "fail",
                "warning" => "warn",
                _ => "info",
            };
            linted.push((d["code"].as_str().unwrap().to_string(), severity.to_string()));
        }
    }
    for code in ["L007", "L010", "R001"] {
        assert!(audited.iter().any(|(c, _)| c == code), "the audit reports {code}: {audited:?}");
    }
    for (code, severity) in &audited {
        let linter = linted.iter().find(|(c, _)| c == code).map(|(_, s)| s.as_str());
        assert_eq!(linter, Some(severity.as_str()), "{code}: the audit says {severity}, the linter {linter:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 31: an offline folder audit said a link "is broken: HTTP 404"
/// where no HTTP request was made. It says the file is missing from the
/// folder; no finding speaks of HTTP.
#[test]
fn a_folder_audit_says_a_file_is_missing_not_that_it_answered_404() {
    let llms = "# Site\n\n> Summary.\n\n## Docs\n\n- [Gone](/gone.md): a page that is not there\n";
    let dir = site_folder("missing", &[("llms.txt", llms), ("robots.txt", "User-agent: *\nAllow: /\n")]);
    let r = webcanon(&["audit", dir.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
    let messages: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["findings"].as_array().unwrap())
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(messages.contains(&"the link [Gone](/gone.md) is broken: missing from the folder"), "{messages:#?}");
    assert!(messages.iter().any(|m| m.starts_with("/llms-full.txt is missing from the folder")), "{messages:#?}");
    assert!(messages.iter().all(|m| !m.contains("HTTP")), "{messages:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
