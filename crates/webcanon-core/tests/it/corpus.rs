//! The robots core against the real files of `shared/corpus`.
//!
//! CI checks `shared/` out beside the repository, hence the path. Every file
//! parses and lints; the compiled matcher agrees with `Robots::decide` on
//! URLs built from each file's own patterns; a few real files have their
//! verdicts asserted; the HTML pages served as robots.txt are recognised.

use std::fs;
use std::path::{Path, PathBuf};

use webcanon_core::robots::{LintCode, MatchVerdict, NotRobots, Robots};

const ROBOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/robots");
const NOT_ROBOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/robots-not-robots");

/// An agent named by no file (only `*` groups apply to it), then common crawlers.
const AGENTS: [&str; 7] =
    ["WebcanonCorpusBot", "Googlebot", "GPTBot", "bingbot", "CCBot", "ClaudeBot", "Googlebot-Image"];

const FIXED_URLS: [&str; 10] = [
    "/",
    "/robots.txt",
    "/index.html",
    "/search?q=robots",
    "/a/b/c.php?x=1",
    "/wp-admin/admin-ajax.php",
    "/%E3%83%84",
    "/ü/ß",
    "https://example.com",
    "https://example.com/private/?utm_source=x#frag",
];

/// At most this many pattern-derived URLs per file, to keep debug runs fast.
const MAX_PATTERN_URLS: usize = 100;

fn files(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {dir}: {e} (shared/ must be checked out beside the repository)"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "index.tsv"))
        .collect();
    out.sort();
    out
}

fn read(dir: &str, name: &str) -> Robots {
    let path = Path::new(dir).join(name);
    Robots::parse(&fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// URLs that hit the file's own rules: each pattern with its wildcards
/// filled and its anchor dropped, and the same with a suffix.
fn pattern_urls(robots: &Robots) -> Vec<String> {
    let patterns: Vec<&str> = robots.groups().flat_map(|g| g.rules().map(|r| r.pattern).collect::<Vec<_>>()).collect();
    let step = (patterns.len() * 2).div_ceil(MAX_PATTERN_URLS).max(1);
    let mut urls = Vec::new();
    for pattern in patterns.iter().step_by(step) {
        let filled = pattern.strip_suffix('$').unwrap_or(pattern).replace('*', "x");
        let path = if filled.starts_with('/') { filled } else { format!("/{filled}") };
        urls.push(format!("{path}z/1"));
        urls.push(path);
    }
    urls
}

#[test]
fn every_corpus_file_parses_lints_and_matches_consistently() {
    let files = files(ROBOTS);
    assert!(files.len() >= 800, "expected the 874 corpus files, found {}", files.len());
    let mut decisions = 0usize;
    let mut explicit = 0usize;
    for path in &files {
        let body = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let robots = Robots::parse(&body);
        let lint = robots.lint();
        assert!(
            lint.iter().all(|d| d.line.is_none_or(|l| l >= 1 && l <= robots.line_count())),
            "{}: a diagnostic points outside the file",
            path.display()
        );
        let mut urls = pattern_urls(&robots);
        urls.extend(FIXED_URLS.iter().map(|u| u.to_string()));
        for agent in AGENTS {
            // The same rules decided by a scan (a fresh compile's first
            // decisions) and through the index.
            let indexed = robots.rules_for(agent);
            let promised = indexed.heap_bytes();
            indexed.build_index();
            // A set large enough to be indexed on its own counts its index
            // before it is built, at no less than it takes once built.
            if indexed.len() > 16 {
                assert!(
                    indexed.heap_bytes() <= promised,
                    "{}: agent {agent}: {} bytes once indexed, {promised} counted before",
                    path.display(),
                    indexed.heap_bytes()
                );
            }
            for (i, url) in urls.iter().enumerate() {
                let direct = robots.decide(agent, url);
                // A fresh compile per URL (bounded for the largest files).
                if i < 16 || indexed.len() <= 500 {
                    let fresh = robots.rules_for(agent);
                    let scanned = fresh.decide(url);
                    assert_eq!(direct, scanned, "{}: agent {agent}, url {url:?}, scanned", path.display());
                }
                let fast = indexed.decide(url);
                assert_eq!(direct, fast, "{}: agent {agent}, url {url:?}, indexed", path.display());
                assert_eq!(direct.rule.is_none(), direct.verdict == MatchVerdict::AllowedImplicit);
                decisions += 1;
                explicit += usize::from(direct.rule.is_some());
            }
            let robots_txt = robots.decide(agent, "/robots.txt");
            assert_eq!(robots_txt.verdict, MatchVerdict::AllowedImplicit, "{}", path.display());
        }
    }
    // The URLs come from the files' own rules, so most decisions must be
    // explicit; if they were not, the comparison above would prove little.
    assert!(explicit * 2 > decisions, "only {explicit} of {decisions} decisions were explicit");
}

/// Asserted verdicts on real files: `(file, agent, url, verdict, line)`.
#[test]
fn real_files_give_the_expected_verdicts() {
    use MatchVerdict::{AllowedExplicit as AE, AllowedImplicit as AI, DisallowedExplicit as DE};
    let cases: &[(&str, &str, &str, MatchVerdict, Option<u32>)] = &[
        // wikimedia/operations-mediawiki-config robots.txt: BOM, 236 rules,
        // reserved `:` written both raw and as `%3A`, non-ASCII both ways.
        ("003.txt", "WebcanonCorpusBot", "/wiki/Special:Random", DE, Some(156)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/Special%3ARandom", DE, Some(159)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/Special%3aRandom", DE, Some(159)),
        ("003.txt", "WebcanonCorpusBot", "/w/load.php?modules=site", AE, Some(150)),
        ("003.txt", "WebcanonCorpusBot", "/w/index.php?title=X", DE, Some(153)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/\u{62e}\u{627}\u{635}:Search", DE, Some(164)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/Wikipedia:L%C3%B6schkandidaten/Foo", DE, Some(170)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/Wikipedia:L\u{f6}schkandidaten/Foo", DE, Some(170)),
        ("003.txt", "WebcanonCorpusBot", "/wiki/Main_Page", AI, None),
        // ai-robots-txt/ai.robots.txt: 166 User-agent lines, one rule.
        ("004.txt", "GPTBot", "/any/page", DE, Some(167)),
        ("004.txt", "gptbot", "/", DE, Some(167)),
        ("004.txt", "Brightbot", "/", DE, Some(167)),
        ("004.txt", "Googlebot", "/any/page", AI, None),
        // rust-lang/docs.rs: `*/^`, `*/%5E` (reserved, kept) and `*/~` (unreserved).
        ("006.txt", "WebcanonCorpusBot", "/serde/^1.0", DE, Some(6)),
        ("006.txt", "WebcanonCorpusBot", "/serde/%5E1.0", DE, Some(9)),
        ("006.txt", "WebcanonCorpusBot", "/serde/%7E1.0", DE, Some(10)),
        ("006.txt", "WebcanonCorpusBot", "/serde/latest/serde/", AI, None),
        // quora: 1,575 rules; `Allow: /$` against `Disallow: /`.
        ("017.txt", "WebcanonCorpusBot", "/", AE, Some(1589)),
        ("017.txt", "WebcanonCorpusBot", "/about", AE, Some(1590)),
        ("017.txt", "WebcanonCorpusBot", "/What-is-robots-txt", DE, Some(1596)),
        // crawler-commons crawl-delay-group-merging (CRLF): groups merge
        // across the file and Crawl-delay does not split them.
        ("022.txt", "mybot", "/private/x", DE, Some(20)),
        ("022.txt", "yourbot", "/private/x", DE, Some(20)),
        ("022.txt", "yourbot", "/login/x", DE, Some(26)),
        ("022.txt", "mybot", "/login/x", AI, None),
        ("022.txt", "otherbot", "/private/x", AE, Some(23)),
        // crawler-commons robots-with-utf8-bom: the BOM does not hide line 1.
        ("036.txt", "WebcanonCorpusBot", "/profile", DE, Some(4)),
        ("036.txt", "WebcanonCorpusBot", "/profile/me", DE, Some(4)),
        ("036.txt", "WebcanonCorpusBot", "/about", AI, None),
        ("036.txt", "Googlebot", "/a/output/print", DE, Some(9)),
        ("036.txt", "Googlebot", "/login.aspx?next=/", DE, Some(10)),
    ];
    for &(file, agent, url, verdict, line) in cases {
        let robots = read(ROBOTS, file);
        let direct = robots.decide(agent, url);
        assert_eq!(direct, robots.rules_for(agent).decide(url), "{file} {agent} {url}");
        assert_eq!((direct.verdict, direct.rule.map(|r| r.line)), (verdict, line), "{file} {agent} {url}");
    }
    let merging = read(ROBOTS, "022.txt");
    assert_eq!(merging.crawl_delay("mybot"), Some(10.0));
    assert_eq!(merging.crawl_delay("otherbot"), Some(30.0));
    assert_eq!(merging.rules_for("mybot").crawl_delay(), Some(10.0));
}

#[test]
fn html_pages_served_as_robots_txt_are_recognised() {
    let files = files(NOT_ROBOTS);
    assert!(!files.is_empty(), "no files in {NOT_ROBOTS}");
    for path in files {
        let robots = Robots::parse(&fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
        assert_eq!(robots.not_robots(), Some(NotRobots::Html), "{}", path.display());
        assert!(robots.lint().iter().any(|d| d.code == LintCode::HtmlBody), "{}: no R008", path.display());
    }
}
