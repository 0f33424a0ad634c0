//! Property tests for the robots core: parsing never panics, the compiled
//! matcher agrees with `Robots::decide`, equivalent URL encodings get one
//! verdict, unrelated groups change nothing, and wildcards stay linear.

use proptest::prelude::*;
use webcanon_core::robots::{Decision, MatchVerdict, Robots};

/// Agents the tests ask about; the files name some of them.
const AGENTS: [&str; 6] = ["FooBot", "foobot", "Bar", "baz-bot", "Other", "Googlebot-News"];

/// Pieces of patterns and paths: literals, wildcards, escapes of unreserved,
/// reserved and special characters, non-ASCII raw and encoded.
const PIECES: [&str; 22] = [
    "/",
    "/",
    "a",
    "b",
    "ab",
    "-",
    ".",
    "~",
    "?",
    "=",
    ";",
    "*",
    "$",
    "%2A",
    "%24",
    "%41",
    "%2F",
    "%2f",
    "ü",
    "%C3%BC",
    "%c3%bc",
    "index.html",
];

fn fragment(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(&PIECES[..]), 0..max).prop_map(|p| p.concat())
}

const FILE_AGENTS: [&str; 9] = ["*", "FooBot", "foobot/2.1", "Bar", "baz-bot", "* x", "Googlebot", "9bot", ""];
const KEYS: [&str; 6] = ["Allow", "Disallow", "allow", "DISALLOW", "Dissallow", "Allowed"];
const STARTS: [&str; 4] = ["/", "*", "", "x"];
const EOLS: [&str; 3] = ["\n", "\r\n", "\r"];
const PATH_CHARS: [char; 19] =
    ['a', 'b', 'Z', '0', '-', '.', '_', '~', '/', '/', '?', '=', '&', ':', '*', '$', 'ü', 'ツ', '日'];

/// One robots.txt line, good or bad.
fn line() -> impl Strategy<Value = String> {
    let agent = || prop::sample::select(&FILE_AGENTS[..]);
    let key = prop::sample::select(&KEYS[..]);
    prop_oneof![
        3 => agent().prop_map(|a| format!("User-agent: {a}")),
        1 => agent().prop_map(|a| format!("useragent {a}")),
        8 => (key, prop::sample::select(&STARTS[..]), fragment(6))
            .prop_map(|(k, start, rest)| format!("{k}: {start}{rest}")),
        1 => fragment(4).prop_map(|f| format!("Disallow /{f}")),
        1 => Just("Sitemap: https://example.com/s.xml".to_string()),
        1 => Just("Crawl-delay: 2".to_string()),
        1 => Just(String::new()),
        1 => fragment(4).prop_map(|f| format!("# {f}")),
        1 => fragment(4).prop_map(|f| format!("junk {f} more")),
    ]
}

/// A robots.txt body made of such lines, with one kind of line end.
fn robots_text() -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..24), prop::sample::select(&EOLS[..]))
        .prop_map(|(lines, eol)| lines.iter().map(|l| format!("{l}{eol}")).collect())
}

fn path() -> impl Strategy<Value = String> {
    fragment(8).prop_map(|f| format!("/{f}"))
}

fn same(a: &Decision<'_>, b: &Decision<'_>) -> bool {
    a.verdict == b.verdict && a.rule.map(|r| (r.directive, r.pattern)) == b.rule.map(|r| (r.directive, r.pattern))
}

/// A path written with characters only (no `%`): the raw form.
fn raw_path() -> impl Strategy<Value = Vec<char>> {
    prop::collection::vec(prop::sample::select(&PATH_CHARS[..]), 0..12).prop_map(|mut c| {
        c.insert(0, '/');
        c
    })
}

/// Writes `path` with each character either raw or percent-encoded, as
/// `choices` say; only encodings that RFC 9309 and DESIGN.md make
/// equivalent: non-ASCII (either hex case), unreserved, `*` and `$`.
fn encode(path: &[char], choices: &[(bool, bool)]) -> String {
    let mut out = String::new();
    for (i, &c) in path.iter().enumerate() {
        let (encode, lower) = choices.get(i).copied().unwrap_or((false, false));
        let may = !c.is_ascii() || c.is_ascii_alphanumeric() || "-._~*$".contains(c);
        // A raw non-ASCII character is always equivalent to its escape, so
        // it is written encoded half the time regardless of the rest.
        if encode && may && (i > 0) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&if lower { format!("%{b:02x}") } else { format!("%{b:02X}") });
            }
        } else {
            out.push(c);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parse_and_lint_never_panic_on_bytes(body in prop::collection::vec(any::<u8>(), 0..2048)) {
        let robots = Robots::parse(&body);
        let _ = robots.lint();
        for agent in AGENTS {
            let _ = robots.decide(agent, "/a");
            let _ = robots.rules_for(agent).decide("/a");
        }
    }

    #[test]
    fn parse_and_lint_never_panic_on_robots_text(text in robots_text(), noise in prop::collection::vec(any::<u8>(), 0..16), at in any::<usize>()) {
        let mut body = text.into_bytes();
        let at = at % (body.len() + 1);
        body.splice(at..at, noise);
        let robots = Robots::parse(&body);
        let lint = robots.lint();
        prop_assert!(lint.iter().all(|d| d.line.is_none_or(|l| l >= 1 && l <= robots.line_count())));
    }

    #[test]
    fn compiled_rules_decide_like_decide(text in robots_text(), paths in prop::collection::vec(path(), 1..8)) {
        let robots = Robots::parse(text.as_bytes());
        for agent in AGENTS {
            let scanned = robots.rules_for(agent);
            let indexed = robots.rules_for(agent);
            indexed.build_index();
            for p in &paths {
                let direct = robots.decide(agent, p);
                prop_assert_eq!(direct, scanned.decide(p), "scanned, agent {} path {:?}", agent, p);
                prop_assert_eq!(direct, indexed.decide(p), "indexed, agent {} path {:?}", agent, p);
                prop_assert_eq!(direct.rule.is_none(), direct.verdict == MatchVerdict::AllowedImplicit);
            }
        }
    }

    #[test]
    fn verdict_ignores_equivalent_encodings(
        text in robots_text(),
        path in raw_path(),
        choices in prop::collection::vec((any::<bool>(), any::<bool>()), 12),
    ) {
        let robots = Robots::parse(text.as_bytes());
        let raw: String = path.iter().collect();
        let encoded = encode(&path, &choices);
        for agent in AGENTS {
            let expected = robots.decide(agent, &raw);
            let got = robots.decide(agent, &encoded);
            prop_assert!(same(&expected, &got), "agent {} {:?} gave {:?} but {:?} gave {:?}", agent, raw, expected, encoded, got);
            prop_assert!(same(&expected, &robots.rules_for(agent).decide(&encoded)), "compiled, agent {} {:?}", agent, encoded);
            let indexed = robots.rules_for(agent);
            indexed.build_index();
            prop_assert!(same(&expected, &indexed.decide(&encoded)), "indexed, agent {} {:?}", agent, encoded);
        }
    }

    #[test]
    fn an_unrelated_group_changes_nothing(text in robots_text(), paths in prop::collection::vec(path(), 1..6)) {
        let robots = Robots::parse(text.as_bytes());
        let widened = format!("User-agent: UnrelatedZzBot\nDisallow: /\nAllow: /a\nDisallow: /*$\n{text}");
        let other = Robots::parse(widened.as_bytes());
        for agent in AGENTS {
            for p in &paths {
                let before = robots.decide(agent, p);
                let after = other.decide(agent, p);
                prop_assert!(same(&before, &after), "agent {} path {:?}: {:?} then {:?}", agent, p, before, after);
                // The new group shifts every line by four.
                prop_assert_eq!(before.rule.map(|r| r.line + 4), after.rule.map(|r| r.line));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Many wildcards against a long path: matching takes one substring
    /// search per piece, so this finishes quickly however it is shaped.
    #[test]
    fn many_wildcards_against_long_paths_finish(stars in 1usize..600, len in 1usize..30_000, piece in "[ab]{1,3}") {
        let body = format!("User-agent: *\nDisallow: /{}c$\nAllow: /*{}*\n", format!("*{piece}").repeat(stars), piece);
        let robots = Robots::parse(body.as_bytes());
        let url = format!("/{}", "ab".repeat(len / 2 + 1));
        let started = std::time::Instant::now();
        let direct = robots.decide("Bot", &url);
        let rules = robots.rules_for("Bot");
        let compiled = rules.decide(&url);
        prop_assert_eq!(direct, compiled);
        prop_assert_ne!(direct.verdict, MatchVerdict::DisallowedExplicit);
        // Backtracking would take minutes on these; linear matching takes
        // microseconds, so the bound holds on any loaded machine.
        prop_assert!(started.elapsed().as_secs() < 10, "took {:?}", started.elapsed());
    }
}

/// Keys a cut line can start with: every kind of record the parser keeps a
/// span of, and a line without a colon.
const CUT_KEYS: [&str; 9] = [
    "Disallow: /",
    "Allow: /",
    "User-agent: ",
    "User-agent: Foo",
    "Sitemap: https://example.com/",
    "Crawl-delay: ",
    "Content-Signal: ai-train=",
    "Unicorns: ",
    "Disallow /",
];

/// Characters of every UTF-8 length, so that one straddles the cut.
const WIDE_CHARS: [char; 4] = ['a', 'é', 'ツ', '😀'];

/// A line whose character at `offset` from the cut (from a few bytes before
/// it to just after it) is `wide`, so lines of every length around the cut,
/// and characters split by it, all occur.
fn line_around_the_cut() -> impl Strategy<Value = String> {
    use webcanon_core::robots::MAX_LINE_BYTES;
    (prop::sample::select(&CUT_KEYS[..]), -4isize..=2, prop::sample::select(&WIDE_CHARS[..]), "[ab/ツ]{0,3}").prop_map(
        |(key, offset, wide, tail)| {
            let filler = (MAX_LINE_BYTES as isize + offset - key.len() as isize).max(0) as usize;
            format!("{key}{}{wide}{tail}", "a".repeat(filler))
        },
    )
}

/// Calls every public entry point of the robots core on `body`: parse,
/// sniff, lint, the records, and the direct and compiled decisions for
/// agents the file names and agents it does not.
fn every_entry_point(body: &[u8]) {
    let robots = Robots::parse(body);
    let _ = webcanon_core::robots::sniff(body);
    let _ = robots.lint();
    let _ = robots.records().map(|r| r.key.len() + r.value.len()).sum::<usize>();
    let _ = robots.sitemaps().count();
    let mut agents: Vec<String> = AGENTS.iter().map(|a| a.to_string()).collect();
    for group in robots.groups() {
        agents.extend(group.user_agents().map(|a| a.token.to_string()));
        let _ = group.rules().map(|r| r.pattern.len()).sum::<usize>();
    }
    for agent in &agents {
        let _ = robots.crawl_delay(agent);
        let _ = robots.content_signals(agent);
        let _ = robots.group_selection(agent);
        let compiled = robots.rules_for(agent);
        for url in ["/", "/a", "/aaaa", "/a%E3%83%84b", "https://example.com/b?q#f"] {
            assert_eq!(robots.decide(agent, url), compiled.decide(url), "agent {agent:?} url {url:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// Issue 30, defect 0: a line cut at 16,663 bytes inside a multi-byte
    /// character made every decision for its group panic. Bodies of short
    /// lines and lines of every length around the cut, with a character of
    /// every width straddling it, pass every entry point.
    #[test]
    fn lines_around_the_cut_never_panic(
        lines in prop::collection::vec(prop_oneof![1 => line(), 1 => line_around_the_cut()], 1..6),
        eol in prop::sample::select(&EOLS[..]),
    ) {
        let body: String = lines.iter().map(|l| format!("{l}{eol}")).collect();
        every_entry_point(body.as_bytes());
    }

    /// Any valid UTF-8 text passes every entry point.
    #[test]
    fn any_text_never_panics(text in any::<String>()) {
        every_entry_point(text.as_bytes());
    }
}

/// The cut stays at 16,663 bytes for matching, as Google's reference cuts
/// it; a character split by it is dropped from the text shown as evidence,
/// and its bytes before the cut still take part in the match.
#[test]
fn a_character_split_by_the_cut_is_matched_on_its_bytes_and_shown_whole() {
    use webcanon_core::robots::MAX_LINE_BYTES;
    let prefix = "Disallow: /";
    let filler = "a".repeat(MAX_LINE_BYTES - prefix.len() - 2);
    let body = format!("User-agent: *\n{prefix}{filler}ツb\n");
    let robots = Robots::parse(body.as_bytes());
    let decision = robots.decide("AnyBot", &format!("/{filler}ツ"));
    assert_eq!(decision.verdict, MatchVerdict::DisallowedExplicit);
    assert_eq!(decision.rule.map(|r| r.pattern.to_string()), Some(format!("/{filler}")));
    // The two bytes of `ツ` before the cut are part of the pattern: a path
    // with another character there is not matched.
    assert_eq!(robots.decide("AnyBot", &format!("/{filler}b")).verdict, MatchVerdict::AllowedImplicit);
    assert_eq!(robots.decide("AnyBot", "/elsewhere").verdict, MatchVerdict::AllowedImplicit);
}
