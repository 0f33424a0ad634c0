//! robots.txt files built to be expensive: parsing, deciding and linting
//! each stay linear in the file's size. The bounds are loose (debug builds
//! on a loaded machine); the quadratic behaviour they guard against took
//! minutes on these inputs.

use std::time::{Duration, Instant};

use webcanon_core::robots::{MAX_PARSE_BYTES, Robots};

/// A body of `line` repeated up to the 500 KiB parse limit.
fn filled(head: &str, line: impl Fn(usize) -> String) -> String {
    let mut body = head.to_string();
    let mut i = 0;
    while body.len() < MAX_PARSE_BYTES - 64 {
        body.push_str(&line(i));
        i += 1;
    }
    body
}

fn hostile_files() -> Vec<(&'static str, String)> {
    vec![
        ("equal wildcard rules", filled("User-agent: *\n", |_| "Disallow:*z\n".into())),
        ("wildcard rules sharing an anchor", filled("User-agent: *\n", |i| format!("Disallow:*zz*q{i}$\n"))),
        (
            "alternating allow and disallow",
            filled("User-agent: *\n", |i| {
                if i % 2 == 0 { format!("Allow: /a*{i}\n") } else { format!("Disallow: /a*{i}*\n") }
            }),
        ),
        ("many agents", filled("", |i| format!("User-agent: Agent{}\nDisallow: /x\n", "q".repeat(i % 40)))),
        ("legacy agents", filled("", |_| "User-agent: anthropic-ai\n".into())),
        ("long unknown agents", filled("", |_| format!("User-agent: {}\nDisallow: /\n", "a".repeat(16_000)))),
        ("delay-only groups", filled("", |i| format!("User-agent: A{}\nCrawl-delay: 1\n", "b".repeat(i % 30)))),
    ]
}

#[test]
fn lint_is_linear_on_hostile_files() {
    for (what, body) in hostile_files() {
        let started = Instant::now();
        let robots = Robots::parse(body.as_bytes());
        let diagnostics = robots.lint();
        let took = started.elapsed();
        eprintln!("{what}: {} diagnostics in {took:?}", diagnostics.len());
        assert!(took < Duration::from_secs(20), "{what}: parse and lint took {took:?}");
    }
}

#[test]
fn decisions_stay_cheap_on_hostile_files() {
    let urls: Vec<String> = (0..50).map(|i| format!("/azz{i}zzq{i}/{}", "z".repeat(i))).collect();
    for (what, body) in hostile_files() {
        let robots = Robots::parse(body.as_bytes());
        let rules = robots.rules_for("Agent");
        let started = Instant::now();
        for url in &urls {
            let compiled = rules.decide(url).is_allowed();
            assert_eq!(compiled, robots.decide("Agent", url).is_allowed(), "{what}: {url}");
        }
        let took = started.elapsed();
        eprintln!("{what}: 50 decisions in {took:?}");
        assert!(took < Duration::from_secs(20), "{what}: 50 decisions took {took:?}");
    }
}

/// `text` in UTF-16 with its byte order mark, little- or big-endian.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mark: [u8; 2] = if little_endian { [0xFF, 0xFE] } else { [0xFE, 0xFF] };
    let units = text.encode_utf16().flat_map(|u| if little_endian { u.to_le_bytes() } else { u.to_be_bytes() });
    mark.into_iter().chain(units).collect()
}

/// Issue 30, defect 10: a UTF-16 robots.txt was binary data to the parser,
/// so `unknown_parse_error` and its `Disallow` went unheeded. Decoded, it is
/// obeyed in both byte orders; a UTF-16 HTML page is still not a robots.txt;
/// and a huge UTF-16 file is cut at the same 500 KiB of text as any other.
#[test]
fn utf16_files_are_decoded_and_obeyed() {
    use webcanon_core::robots::{MatchVerdict, NotRobots, sniff};
    let cases: &[(&str, Option<NotRobots>, &str, MatchVerdict)] = &[
        ("User-agent: *\r\nDisallow: /private\r\n", None, "/private/x", MatchVerdict::DisallowedExplicit),
        ("User-agent: *\nDisallow: /ツ\nAllow: /ツ/open\n", None, "/%E3%83%84/x", MatchVerdict::DisallowedExplicit),
        ("User-agent: *\nDisallow: /ツ\nAllow: /ツ/open\n", None, "/ツ/open", MatchVerdict::AllowedExplicit),
        (
            "<!doctype html><html><body>404</body></html>",
            Some(NotRobots::Html),
            "/private",
            MatchVerdict::AllowedImplicit,
        ),
    ];
    for little_endian in [true, false] {
        for (text, not_robots, url, verdict) in cases {
            let body = utf16(text, little_endian);
            let robots = Robots::parse(&body);
            assert_eq!(robots.not_robots(), *not_robots, "{text:?}");
            assert_eq!(sniff(&body), *not_robots, "{text:?}");
            assert_eq!(robots.decide("AnyBot", url).verdict, *verdict, "{text:?} {url}");
            assert_eq!(robots.rules_for("AnyBot").decide(url).verdict, *verdict, "{text:?} {url}");
        }
    }
    let huge = filled("User-agent: *\nDisallow: /private\n", |i| format!("Disallow: /p{i}\n")).repeat(3);
    let started = Instant::now();
    let robots = Robots::parse(&utf16(&huge, true));
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    assert!(robots.is_truncated());
    assert_eq!(robots.decide("AnyBot", "/private").verdict, MatchVerdict::DisallowedExplicit);
    assert!(robots.line_count() < huge.lines().count() as u32 / 2);
}
