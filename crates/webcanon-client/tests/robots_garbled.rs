//! A robots.txt that is not clean text, fetched from a real loopback server:
//! a body from which a group with rules parses is obeyed whatever garbage it
//! also holds (a NUL byte, control bytes, an HTML comment; a UTF-16 file is
//! decoded first), and only a body
//! from which no group parses is `unknown_parse_error`. The refused page is
//! checked on the server side: it is never requested.

use std::time::Duration;

use webcanon_client::error::Error;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_core::policy::{RobotsMode, Verdict};
use webcanon_test::{Route, TestServer};

const PAGE: &str =
    "<!doctype html><html><head><title>Secret</title></head><body><main><p>secret</p></main></body></html>";

fn client(mode: RobotsMode) -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::None)
        .mode(mode)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

async fn site(robots: Vec<u8>) -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::bytes(200, "text/plain", robots));
    server.route("/private/secret", Route::html(200, PAGE));
    server.route("/public", Route::html(200, PAGE));
    server
}

/// Bodies whose readable lines close `/private`: each must be obeyed.
const GARBLED: &[(&str, &[u8])] = &[
    ("one NUL byte", b"User-agent: *\nDisallow: /private\n\0"),
    ("a NUL inside the rule", b"User-agent: *\nDisallow: /private\0junk\n"),
    ("five control bytes", b"User-agent: *\nDisallow: /private\n\x01\x01\x01\x01\x01"),
    ("an HTML comment first", b"<!-- a comment with <head> in it -->\nUser-agent: *\nDisallow: /private\n"),
    ("a gzip magic number first", b"\x1f\x8b\nUser-agent: *\nDisallow: /private\n"),
    ("an Allow cut by a control byte", b"User-agent: *\nDisallow: /private\nAllow: /private/secret\x01x\n"),
    // Issue 30, defect 10: UTF-16 with its byte order mark was binary data.
    ("UTF-16LE with its byte order mark", b"\xff\xfeU\0s\0e\0r\0-\0a\0g\0e\0n\0t\0:\0 \0*\0\n\0D\0i\0s\0a\0l\0l\0o\0w\0:\0 \0/\0p\0r\0i\0v\0a\0t\0e\0\n\0"),
    ("UTF-16BE with its byte order mark", b"\xfe\xff\0U\0s\0e\0r\0-\0a\0g\0e\0n\0t\0:\0 \0*\0\n\0D\0i\0s\0a\0l\0l\0o\0w\0:\0 \0/\0p\0r\0i\0v\0a\0t\0e\0\n"),
];

#[tokio::test]
async fn a_garbled_robots_txt_is_obeyed_in_respect_mode() {
    for (what, body) in GARBLED {
        let server = site(body.to_vec()).await;
        let err = client(RobotsMode::Respect).fetch(&server.url("/private/secret")).await.unwrap_err();
        let Error::Policy(refusal) = err else { panic!("{what}: expected a robots refusal, got {err:?}") };
        assert_eq!(refusal.evidence.verdict, Verdict::DisallowedExplicit, "{what}");
        assert_eq!(server.hits("/private/secret"), 0, "{what}: the disallowed page was requested");

        let allowed = client(RobotsMode::Respect).fetch(&server.url("/public")).await.unwrap();
        assert_eq!(allowed.robots.verdict, Verdict::AllowedImplicit, "{what}");
        assert!(
            allowed.warnings.iter().all(|w| w.code.as_str() != "robots_parse_error"),
            "{what}: a parsed file must not be reported as unparsed: {:?}",
            allowed.warnings
        );
    }
}

#[tokio::test]
async fn a_garbled_robots_txt_is_reported_as_disallowed_in_report_only_mode() {
    let server = site(b"User-agent: *\nDisallow: /private\n\0".to_vec()).await;
    let result = client(RobotsMode::ReportOnly).fetch(&server.url("/private/secret")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::DisallowedExplicit);
}

/// Bodies with no robots records at all stay `unknown_parse_error`.
#[tokio::test]
async fn a_body_without_groups_is_not_a_robots_txt() {
    let bodies: &[(&str, &[u8])] = &[
        ("an HTML page", b"<!doctype html><html><head><title>Not found</title></head><body>404</body></html>"),
        ("binary data", b"\x00\x01\x02\x03\x04\x05garbage\x00\x00"),
        ("an HTML page quoting rules", b"<html><body><pre>Disallow: /private</pre></body></html>"),
    ];
    for (what, body) in bodies {
        let server = site(body.to_vec()).await;
        let result = client(RobotsMode::Respect).fetch(&server.url("/private/secret")).await.unwrap();
        assert_eq!(result.robots.verdict, Verdict::UnknownParseError, "{what}");
    }
}
