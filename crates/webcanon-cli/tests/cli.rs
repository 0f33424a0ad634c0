//! End-to-end tests of the `webcanon` binary: exit status, stdout, stderr.

mod support;

use std::path::PathBuf;

use support::{webcanon, webcanon_with_stdin};

const ROBOTS: &str = "\
User-agent: *
Disallow: /private
Allow: /private/open

User-agent: GPTBot
Disallow: /
Allow: /blog/
";

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("webcanon-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, contents: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn check_prints_verdict_rule_and_line() {
    let dir = TempDir::new("check");
    let robots = dir.file("robots.txt", ROBOTS);
    let run = webcanon(&[
        "robots",
        "check",
        "--robots",
        &robots,
        "--agent",
        "gptbot",
        "https://example.com/blog/a",
        "/other",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "agent gptbot: rules from the group at line 5 (User-agent: GPTBot)\n\
         allow    https://example.com/blog/a\n\
         \x20        allowed_explicit by line 7: Allow: /blog/\n\
         disallow /other\n\
         \x20        disallowed_explicit by line 6: Disallow: /\n"
    );
}

#[test]
fn check_json_has_the_documented_shape() {
    let dir = TempDir::new("check-json");
    let robots = dir.file("robots.txt", ROBOTS);
    let run = webcanon(&["robots", "check", "--json", "--robots", &robots, "--agent", "Other", "/private/a", "/x"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "{\"url\":\"/private/a\",\"allowed\":false,\"verdict\":\"disallowed_explicit\",\"rule\":{\"line\":2,\"directive\":\"disallow\",\"pattern\":\"/private\"}}\n\
         {\"url\":\"/x\",\"allowed\":true,\"verdict\":\"allowed_implicit\",\"rule\":null}\n"
    );
}

#[test]
fn check_rejects_an_invalid_url_argument() {
    let dir = TempDir::new("check-bad");
    let robots = dir.file("robots.txt", ROBOTS);
    let run = webcanon(&["robots", "check", "--robots", &robots, "--agent", "x", "/ok", "ftp://x/"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("invalid URL `ftp://x/` (argument 2)"), "{}", run.stderr);
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn unreadable_robots_file_is_named() {
    let run = webcanon(&["robots", "check", "--robots", "/nonexistent/robots.txt", "--agent", "x", "/"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: cannot read robots file `/nonexistent/robots.txt`"), "{}", run.stderr);
}

#[test]
fn eval_reads_stdin_and_keeps_output_aligned_with_bad_lines() {
    let dir = TempDir::new("eval");
    let robots = dir.file("robots.txt", ROBOTS);
    let input = "/private/a\nnot a url\nhttps://example.com/private/open/b\n\n/public\n";
    let run = webcanon_with_stdin(&["robots", "eval", "--robots", &robots, "--agent", "SomeBot"], input);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "disallow\t/private/a\nerror\tnot a url\nallow\thttps://example.com/private/open/b\nerror\t\nallow\t/public\n"
    );
    assert!(run.stderr.contains("<stdin>:2: contains spaces or control characters"), "{}", run.stderr);
    assert!(run.stderr.contains("<stdin>:4: empty line"), "{}", run.stderr);
    assert!(run.stderr.contains("2 of 5 lines"), "{}", run.stderr);
}

#[test]
fn eval_json_reads_a_file_and_reports_bad_lines_as_objects() {
    let dir = TempDir::new("eval-json");
    let robots = dir.file("robots.txt", ROBOTS);
    let urls = dir.file("urls.txt", "/blog/x\r\nmailto:a@b\r\n");
    let run = webcanon(&["robots", "eval", "--json", "--robots", &robots, "--agent", "GPTBot", &urls]);
    assert_eq!(run.code, 0);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["verdict"], "allowed_explicit");
    assert_eq!(lines[0]["allowed"], true);
    assert_eq!(lines[0]["rule"]["line"], 7);
    assert_eq!(lines[0]["rule"]["directive"], "allow");
    assert_eq!(lines[0]["rule"]["pattern"], "/blog/");
    assert_eq!(lines[1]["url"], "mailto:a@b");
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().unwrap().contains("absolute URL"));
    assert!(run.stderr.contains(&format!("{urls}:2")), "{}", run.stderr);
}

#[test]
fn eval_jsonl_decides_each_line_with_its_own_robots() {
    let input = [
        r#"{"robots": "User-agent: *\nDisallow: /a", "agent": "x", "url": "/a/b"}"#,
        r#"{"robots": "User-agent: x\nAllow: /a\nDisallow: /", "agent": "X", "url": "https://h/a"}"#,
        r#"{"robots": 5}"#,
        r#"{"robots": "", "agent": "x", "url": "/anything"}"#,
        r#"{"robots": "User-agent: *\nDisallow: /", "agent": "x", "url": "not a url"}"#,
        r#"{"robots": "User-agent: *\nDisallow: /", "agent": 7, "url": "https://h/b"}"#,
    ]
    .join("\n");
    let run = webcanon_with_stdin(&["robots", "eval", "--jsonl", "-"], &input);
    assert_eq!(run.code, 0);
    let lines: Vec<serde_json::Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["verdict"], "disallowed_explicit");
    assert_eq!(lines[1]["verdict"], "allowed_explicit");
    assert_eq!(lines[1]["rule"]["line"], 2);
    // An error names the URL it could read (never the whole line, which
    // holds a robots.txt), or null, and the line number.
    assert!(lines[2]["error"].as_str().unwrap().starts_with("not a {\"robots\""), "{}", lines[2]);
    assert_eq!((&lines[2]["url"], &lines[2]["line"]), (&serde_json::Value::Null, &serde_json::json!(3)));
    assert_eq!(lines[3]["verdict"], "allowed_implicit");
    assert_eq!((lines[4]["url"].as_str(), &lines[4]["line"]), (Some("not a url"), &serde_json::json!(5)));
    assert!(lines[4]["error"].as_str().unwrap().starts_with("`url`"), "{}", lines[4]);
    assert_eq!((lines[5]["url"].as_str(), &lines[5]["line"]), (Some("https://h/b"), &serde_json::json!(6)));
    assert!(!run.stderr.contains("Disallow"), "stderr quotes a robots body: {}", run.stderr);
}

#[test]
fn eval_requires_robots_and_agent_without_jsonl() {
    let run = webcanon_with_stdin(&["robots", "eval"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--robots"), "{}", run.stderr);
}

#[test]
fn lint_points_at_lines_and_fails_on_errors() {
    let dir = TempDir::new("lint");
    let path = dir.file("robots.txt", "Disallow: /orphan\nUser-agent: *\nDissallow: /tmp\nNoindex: /x\n");
    let run = webcanon(&["robots", "lint", &path]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("error[R001]"), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("--> {path}:1")), "{}", run.stdout);
    assert!(run.stdout.contains("3 | Dissallow: /tmp"), "{}", run.stdout);
    assert!(run.stdout.contains("warning[R004]"), "{}", run.stdout);
    assert!(run.stdout.contains("warning[R003]"), "{}", run.stdout);
    assert!(run.stdout.ends_with("1 error(s), 2 warning(s), 0 note(s)\n"), "{}", run.stdout);
}

#[test]
fn lint_json_and_clean_file_exit_zero() {
    // Seed 004 §6.1's robots.txt: clean. (The example site's keeps a legacy
    // `Noindex` record on purpose, for the audit to find.)
    let clean = "User-agent: Googlebot\nUser-agent: Bingbot\nAllow: /\n\n\
User-agent: GPTBot\nUser-agent: ClaudeBot\nAllow: /docs/\nAllow: /blog/\nDisallow: /\n\n\
User-agent: OAI-SearchBot\nUser-agent: ChatGPT-User\nAllow: /\n\n\
User-agent: Google-Extended\nDisallow: /\n\nSitemap: https://acme.com/sitemap.xml\n";
    let run = webcanon_with_stdin(&["robots", "lint", "--json", "-"], clean);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["errors"], 0);
    assert_eq!(report["warnings"], 0, "{}", run.stdout);
}

#[test]
fn lint_recognises_an_html_page() {
    let run = webcanon_with_stdin(&["robots", "lint", "-"], "<!DOCTYPE html>\n<html><body>Not found</body></html>\n");
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("error[R008]: the body is an HTML page"), "{}", run.stdout);
    assert!(run.stdout.ends_with("1 error(s), 0 warning(s), 0 note(s)\n"), "{}", run.stdout);
}

#[test]
fn lint_explain_lists_every_code() {
    let run = webcanon(&["robots", "lint", "--explain"]);
    assert_eq!(run.code, 0);
    for code in ["R001", "R008", "R011", "R016"] {
        assert!(run.stdout.contains(code), "{code} missing: {}", run.stdout);
    }
}

/// Under `--json`, an error that ends a command before it has a result (a
/// cache file that is not a database, a locked one) is still a JSON object
/// on stdout, with the exit status; without `--json` it is a message on
/// stderr.
#[test]
fn an_unusable_cache_file_is_a_json_error_under_json() {
    let dir = support::temp_dir("corrupt-cache");
    std::fs::write(dir.join("robots.sqlite3"), vec![0x5a; 20_000]).unwrap();
    let cache = dir.to_str().unwrap();
    for args in [
        &["fetch", "https://example.invalid/", "--cache-dir", cache, "--json"][..],
        &["audit", "https://example.invalid/", "--cache-dir", cache, "--json"][..],
        &["llms", "check", "https://example.invalid/", "--cache-dir", cache, "--json"][..],
    ] {
        let run = webcanon(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        let answer: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {:?}", run.stdout));
        assert_eq!(answer["error"]["kind"], "usage", "{answer}");
        assert_eq!(answer["error"]["code"], 2, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("not a usable SQLite database"), "{message}");
        assert!(run.stderr.contains(message), "and on stderr for people: {}", run.stderr);
    }
    let plain = webcanon(&["fetch", "https://example.invalid/", "--cache-dir", cache]);
    assert_eq!(plain.code, 2);
    assert_eq!(plain.stdout, "");
    assert!(plain.stderr.contains("not a usable SQLite database"), "{}", plain.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16: `--agent GPTBot/1.0` silently fell back to the `*` group
/// (allow) where `GPTBot` disallows. An agent that is not a product token
/// is a usage error, as on every other face.
#[test]
fn robots_commands_reject_an_agent_that_is_not_a_product_token() {
    let dir = TempDir::new("agent-token");
    let robots = dir.file("robots.txt", ROBOTS);
    let r = webcanon(&["robots", "check", "--robots", &robots, "--agent", "GPTBot", "/private/x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("disallow /private/x"), "{}", r.stdout);
    for agent in ["GPTBot/1.0", "GPT Bot", "bigsur.ai", ""] {
        let r = webcanon(&["robots", "check", "--robots", &robots, "--agent", agent, "/private/x"]);
        assert_eq!(r.code, 2, "{agent}: {}", r.stdout);
        assert!(r.stdout.is_empty(), "{agent}: no verdict: {}", r.stdout);
        assert!(r.stderr.contains("is not a product token"), "{agent}: {}", r.stderr);
        let r = webcanon_with_stdin(&["robots", "eval", "--robots", &robots, "--agent", agent], "/blog/\n");
        assert_eq!(r.code, 2, "{agent}: {}", r.stdout);
        assert!(r.stdout.is_empty(), "{agent}: no verdict: {}", r.stdout);
        assert!(r.stderr.contains("is not a product token"), "{agent}: {}", r.stderr);
    }
    let cases = "{\"robots\": \"User-agent: GPTBot\\nDisallow: /\\n\", \"agent\": \"GPTBot/1.0\", \"url\": \"/x\"}\n\
                 {\"robots\": \"User-agent: GPTBot\\nDisallow: /\\n\", \"agent\": \"GPTBot\", \"url\": \"/x\"}\n";
    let r = webcanon_with_stdin(&["robots", "eval", "--jsonl"], cases);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<serde_json::Value> = r.lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0]["error"].as_str().unwrap().contains("`agent`: agent `GPTBot/1.0` is not a product token"));
    assert_eq!(lines[1]["verdict"], "disallowed_explicit");
}

/// Issue 16: `robots lint --help` showed `[FILE]` as optional, though it is
/// required unless `--explain` is given.
#[test]
fn robots_lint_help_shows_the_file_as_required() {
    let r = webcanon(&["robots", "lint", "--help"]);
    assert_eq!(r.code, 0);
    let usage = r.stdout.lines().find(|l| l.starts_with("Usage:")).unwrap();
    assert!(usage.contains("<FILE>") && !usage.contains("[FILE]"), "{usage}");
    assert!(r.stdout.contains("webcanon robots lint --explain"), "{}", r.stdout);
    let r = webcanon(&["robots", "lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// Issue 31: `robots check --robots FILE` but `robots lint FILE`: the
/// same file spelled two ways in one command group. Every `robots`
/// command takes `--robots FILE`; `lint FILE`, documented before, still
/// works and says the same.
#[test]
fn every_robots_command_takes_the_file_as_robots() {
    let dir = TempDir::new("lint-robots");
    let robots = dir.file("robots.txt", "Disallow: /orphan\nUser-agent: *\nDisallow: /x\n");
    for command in ["check", "eval", "lint"] {
        let help = webcanon(&["robots", command, "--help"]);
        assert!(help.stdout.contains("--robots <FILE>"), "robots {command}: {}", help.stdout);
    }
    let flag = webcanon(&["robots", "lint", "--robots", &robots]);
    assert_eq!(flag.code, 1, "R001 is an error: {}", flag.stderr);
    assert!(flag.stdout.contains("R001"), "{}", flag.stdout);
    let bare = webcanon(&["robots", "lint", &robots]);
    assert_eq!((bare.code, &bare.stdout), (flag.code, &flag.stdout));
    let both = webcanon(&["robots", "lint", "--robots", &robots, &robots]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

/// Issue 16: `batch --help` said a resume that does not fit exits 2 (it
/// exits 3) and left out exit status 1.
#[test]
fn batch_help_gives_the_exit_statuses_it_uses() {
    let r = webcanon(&["batch", "--help"]);
    assert_eq!(r.code, 0);
    let text = r.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("1 the run failed"), "{text}");
    assert!(text.contains("3 an interrupted run's state does not fit the command"), "{text}");
    assert!(!text.contains("or a resume that does not fit"), "{text}");
}

/// `webcanon keys` and `verify-request`: the private key never reaches the
/// terminal, files are never overwritten, and every bad input is a usage
/// error that names what is wrong (the signatures themselves are verified
/// by an independent implementation in tests/python/test_web_bot_auth.py).
#[test]
fn keys_and_verify_request_refuse_bad_input_with_a_reason() {
    let dir = TempDir::new("keys");
    let key = dir.0.join("agent.pem");
    let key = key.to_str().unwrap();
    let made = webcanon(&["keys", "generate", "--out", key]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert_eq!(made.stdout.trim().len(), 43, "only the key id (a base64url SHA-256) is printed: {}", made.stdout);
    assert!(!made.stdout.contains("PRIVATE") && !made.stderr.contains("PRIVATE"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(key).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let again = webcanon(&["keys", "generate", "--out", key]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("exists"), "{}", again.stderr);

    let listed = webcanon(&["keys", "directory", "--key", key]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let directory = dir.file("directory.json", &listed.stdout);
    let not_key = dir.file("not-a-key.pem", "hello");
    let big = dir.0.join("big.txt");
    std::fs::write(&big, vec![b'a'; 16 * 1024 * 1024 + 1]).unwrap();
    let big = big.to_str().unwrap();
    let empty = dir.file("empty.txt", "\n\n");
    let jwks_without_keys = dir.file("nokeys.json", r#"{"keys":[]}"#);
    let fetch_with = |key: &str, agent: &str| {
        vec!["fetch", "--sign-key", key, "--signature-agent", agent, "http://127.0.0.1:9/"]
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let bad_key_fetch = fetch_with(&not_key, "https://bot.example");
    let bad_agent_fetch = fetch_with(key, "bot.example");
    let rows: Vec<(Vec<&str>, &str)> = vec![
        (vec!["keys", "directory", "--key", &not_key], "holds no Ed25519 private key"),
        (vec!["verify-request", "--directory", &not_key, &empty], "is not a JWKS"),
        (vec!["verify-request", "--directory", &jwks_without_keys, &empty], "has no Ed25519 (OKP) public key"),
        (vec!["verify-request", "--directory", &directory, big], "larger than 16777216 bytes"),
        (vec!["verify-request", "--directory", &directory, &empty], "no request in the input"),
        (bad_key_fetch.iter().map(String::as_str).collect(), "cannot sign requests: key file"),
        (bad_agent_fetch.iter().map(String::as_str).collect(), "must be an https (or http) URL"),
        (vec!["fetch", "--sign-key", key, "http://127.0.0.1:9/"], "--signature-agent"),
        // The same options on the long-running faces, checked before they start.
        (
            vec![
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--sign-key",
                &not_key,
                "--signature-agent",
                "https://bot.example",
            ],
            "cannot sign requests: key file",
        ),
        (vec!["mcp", "--sign-key", &not_key, "--signature-agent", "https://bot.example"], "cannot sign requests"),
    ];
    for (args, expected) in rows {
        let run = webcanon(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{args:?}: expected {expected:?} in {}", run.stderr);
    }
}

/// Issue 30, defect 14: a `--sign-key` file others can read is used with a
/// warning naming its mode and the fix, said once; `keys generate` into a
/// directory that does not exist says so, not that keys are never
/// overwritten.
#[cfg(unix)]
#[test]
fn an_exposed_sign_key_is_warned_about_and_a_missing_directory_named() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("key-modes");
    let key = dir.0.join("agent.pem");
    let key = key.to_str().unwrap();
    assert_eq!(webcanon(&["keys", "generate", "--out", key]).code, 0);
    // A closed port: the request fails, the warning comes before it.
    let fetch = ["fetch", "-q", "--sign-key", key, "--signature-agent", "https://bot.example", "http://127.0.0.1:9/"];
    for (mode, expected) in
        [(0o600, None), (0o640, Some("by its group (mode 0640)")), (0o644, Some("by other users (mode 0644)"))]
    {
        std::fs::set_permissions(key, std::fs::Permissions::from_mode(mode)).unwrap();
        let run = webcanon(&fetch);
        match expected {
            None => assert!(!run.stderr.contains("warning: key file"), "{mode:o}: {}", run.stderr),
            Some(expected) => {
                assert_eq!(run.stderr.matches("warning: key file").count(), 1, "{mode:o}: {}", run.stderr);
                assert!(run.stderr.contains(expected), "{mode:o}: {}", run.stderr);
                assert!(run.stderr.contains(&format!("chmod 600 {key}")), "{mode:o}: {}", run.stderr);
            }
        }
    }
    let nowhere = dir.0.join("no-such-dir").join("k.pem");
    let made = webcanon(&["keys", "generate", "--out", nowhere.to_str().unwrap()]);
    assert_eq!(made.code, 2, "{}", made.stderr);
    assert!(made.stderr.contains("does not exist"), "{}", made.stderr);
    assert!(made.stderr.contains(dir.0.join("no-such-dir").to_str().unwrap()), "{}", made.stderr);
    assert!(!made.stderr.contains("never overwritten"), "{}", made.stderr);
}

/// `verify-request` reads both forms of `Signature-Agent` and says which it
/// saw: the protocol draft's own vectors (draft-ietf-webbotauth-httpsig-protocol
/// Appendix E.2.1, dictionary, and E.2.2, legacy string), verified as of
/// their `created`, with the key of RFC 9421 Appendix B.1.4.
#[test]
fn verify_request_names_the_signature_agent_form() {
    let dir = TempDir::new("verify-forms");
    let directory = dir.file(
        "keys.json",
        r#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]}"#,
    );
    let vectors = "GET /foo HTTP/1.1\nHost: example.com\nSignature-Agent: sig2=\"https://signature-agent.test\"\n\
Signature-Input: sig2=(\"@authority\" \"signature-agent\";key=\"sig2\");created=1735689600;keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";expires=4889289600;nonce=\"n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==\";tag=\"web-bot-auth\"\n\
Signature: sig2=:CGokAoY/FrPpyuzTe1Fb2kLTAH9Idw6qSFd1+D77r1firsMRCxeuLu5e6O+ek3zQgDMAzjiXtLVfqE00xnABCQ==:\n\n\
GET /foo HTTP/1.1\nHost: example.com\nSignature-Agent: \"https://signature-agent.test\"\n\
Signature-Input: sig2=(\"@authority\" \"signature-agent\");created=1735689600;keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";expires=1735693200;nonce=\"e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==\";tag=\"web-bot-auth\"\n\
Signature: sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:\n";
    let requests = dir.file("requests.txt", vectors);
    let text = webcanon(&["verify-request", "--directory", &directory, "--at", "1735689600", &requests]);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(text.stdout.contains("request 1: valid: signed by https://signature-agent.test with key poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U (Signature-Agent: dictionary form)"), "{}", text.stdout);
    assert!(text.stdout.contains("request 2: valid: signed by https://signature-agent.test with key poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U (Signature-Agent: legacy form)"), "{}", text.stdout);
    let json = webcanon(&["verify-request", "--json", "--directory", &directory, "--at", "1735689600", &requests]);
    let lines: Vec<serde_json::Value> = json.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["signature_agent_form"], "dictionary");
    assert_eq!(lines[1]["signature_agent_form"], "legacy");
    assert_eq!((lines[0]["valid"].as_bool(), lines[1]["valid"].as_bool()), (Some(true), Some(true)));
}

/// `keys card` writes the Signature Agent Card of
/// draft-meunier-webbotauth-registry-03 §3; https is required of its URLs.
#[test]
fn keys_card_writes_the_registry_drafts_card() {
    let dir = TempDir::new("card");
    let key = dir.0.join("agent.pem");
    let key = key.to_str().unwrap();
    assert_eq!(webcanon(&["keys", "generate", "--out", key]).code, 0);
    let card = webcanon(&[
        "keys",
        "card",
        "--client-id",
        "https://bot.example/card.json",
        "--product-token",
        "ExampleBot",
        "--name",
        "Example Bot",
        "--contact",
        "mailto:ops@bot.example",
        "--trigger",
        "crawler",
        "--purpose",
        "search",
    ]);
    assert_eq!(card.code, 0, "{}", card.stderr);
    let json: serde_json::Value = serde_json::from_str(&card.stdout).unwrap();
    assert_eq!(json["client_id"], "https://bot.example/card.json");
    assert_eq!(json["jwks_uri"], "https://bot.example/.well-known/http-message-signatures-directory");
    assert_eq!(json["contacts"], serde_json::json!(["mailto:ops@bot.example"]));
    assert_eq!(json["web_bot_auth"]["rfc9309-product-token"], "ExampleBot");
    assert_eq!(json["web_bot_auth"]["trigger"], "crawler");
    assert!(card.stderr.contains("answering 200 itself: clients follow no redirect"), "{}", card.stderr);
    let inline =
        webcanon(&["keys", "card", "--client-id", "https://bot.example/c", "--product-token", "B", "--key", key]);
    assert_eq!(inline.code, 0, "{}", inline.stderr);
    let json: serde_json::Value = serde_json::from_str(&inline.stdout).unwrap();
    assert!(json["jwks"]["keys"][0]["kid"].is_string() && json.get("jwks_uri").is_none(), "{json}");
    let http = webcanon(&["keys", "card", "--client-id", "http://bot.example/c", "--product-token", "B"]);
    assert_eq!(http.code, 2);
    assert!(http.stderr.contains("client_id `http://bot.example/c` must be an https URL"), "{}", http.stderr);
}
