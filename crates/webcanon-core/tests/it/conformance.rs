//! Data-driven conformance tests for the robots.txt core.
//!
//! Every check in `tests/data/conformance.txt` (format described at its top)
//! is run through both `Robots::decide` and `Robots::rules_for(agent).decide`:
//! the two must agree exactly, and the verdict and rule line must be the
//! expected ones. Checks whose expectation is a reading DESIGN.md departs
//! from are listed in `tests/data/known_divergences.txt`; a listed check that
//! starts passing fails the run, so the list cannot go stale.

use std::collections::{BTreeMap, BTreeSet};

use webcanon_core::robots::{Decision, MatchVerdict, Robots};

const CASES: &str = include_str!("../data/conformance.txt");
const DIVERGENCES: &str = include_str!("../data/known_divergences.txt");

/// One robots body and the checks run against it.
struct Block {
    id: String,
    category: String,
    body: Vec<u8>,
    checks: Vec<Check>,
}

struct Check {
    /// `<block id> <agent> <url>`, fields as written in the data file.
    name: String,
    agent: String,
    url: String,
    verdict: MatchVerdict,
    line: Option<u32>,
}

/// Expands the escapes of the data file: `\r \n \t \\ \s \e \xHH` and
/// `{{N*TEXT}}`.
fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("{{") {
            let end = after.find("}}").unwrap_or_else(|| panic!("unterminated {{{{ in {text:?}"));
            let (count, item) = after[..end].split_once('*').unwrap_or_else(|| panic!("bad repeat in {text:?}"));
            let count: usize = count.parse().unwrap_or_else(|_| panic!("bad repeat count in {text:?}"));
            let item = unescape(item);
            for _ in 0..count {
                out.extend_from_slice(&item);
            }
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('\\') {
            let mut chars = after.chars();
            let consumed = match chars.next() {
                Some('r') => {
                    out.push(b'\r');
                    1
                }
                Some('n') => {
                    out.push(b'\n');
                    1
                }
                Some('t') => {
                    out.push(b'\t');
                    1
                }
                Some('s') => {
                    out.push(b' ');
                    1
                }
                Some('e') => 1,
                Some('\\') => {
                    out.push(b'\\');
                    1
                }
                Some('x') => {
                    let hex = after.get(1..3).unwrap_or_else(|| panic!("short \\x escape in {text:?}"));
                    out.push(u8::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("bad \\x escape in {text:?}")));
                    3
                }
                other => panic!("unknown escape \\{other:?} in {text:?}"),
            };
            rest = &after[consumed..];
        } else {
            let next = rest.find(['\\', '{']).map_or(rest.len(), |i| if i == 0 { 1 } else { i });
            out.extend_from_slice(&rest.as_bytes()[..next]);
            rest = &rest[next..];
        }
    }
    out
}

fn unescape_str(text: &str) -> String {
    String::from_utf8(unescape(text)).unwrap_or_else(|_| panic!("check field {text:?} is not UTF-8"))
}

fn parse_verdict(text: &str) -> MatchVerdict {
    match text {
        "allowed_explicit" => MatchVerdict::AllowedExplicit,
        "allowed_implicit" => MatchVerdict::AllowedImplicit,
        "disallowed_explicit" => MatchVerdict::DisallowedExplicit,
        other => panic!("unknown verdict {other:?}"),
    }
}

fn parse_blocks(data: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = data.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let header = line.strip_prefix("=== ").unwrap_or_else(|| panic!("line {}: expected `=== `", n + 1));
        let mut fields = header.split_whitespace();
        let id = fields.next().expect("block id").to_string();
        let category = fields.next().unwrap_or_else(|| panic!("block {id}: no category")).to_string();
        let (mut eol, mut final_eol) = (&b"\n"[..], true);
        for option in fields {
            match option {
                "eol=lf" => eol = b"\n",
                "eol=cr" => eol = b"\r",
                "eol=crlf" => eol = b"\r\n",
                "final-eol=no" => final_eol = false,
                other => panic!("block {id}: unknown option {other:?}"),
            }
        }
        let mut body_lines = Vec::new();
        loop {
            let (_, line) = lines.next().unwrap_or_else(|| panic!("block {id}: no `---`"));
            if line == "---" {
                break;
            }
            body_lines.push(unescape(line));
        }
        let mut body = body_lines.join(eol);
        if final_eol && !body_lines.is_empty() {
            body.extend_from_slice(eol);
        }
        let mut checks = Vec::new();
        while let Some((_, line)) = lines.next_if(|(_, l)| !l.starts_with("=== ")) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (agent, url, verdict, rule_line) = match fields[..] {
                [agent, url, verdict] => (agent, url, verdict, None),
                [agent, url, verdict, rule_line] => {
                    (agent, url, verdict, Some(rule_line.parse().unwrap_or_else(|_| panic!("bad line in {line:?}"))))
                }
                _ => panic!("block {id}: bad check {line:?}"),
            };
            checks.push(Check {
                name: format!("{id} {agent} {url}"),
                agent: unescape_str(agent),
                url: unescape_str(url),
                verdict: parse_verdict(verdict),
                line: rule_line,
            });
        }
        assert!(!checks.is_empty(), "block {id} has no checks");
        blocks.push(Block { id, category, body, checks });
    }
    blocks
}

/// `<case id> <agent> <url>` -> reason.
fn parse_divergences(data: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in data.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (name, reason) = line.split_once(" -- ").unwrap_or_else(|| panic!("divergence without reason: {line:?}"));
        assert!(out.insert(name.trim().to_string(), reason.to_string()).is_none(), "listed twice: {name}");
    }
    out
}

fn describe(decision: &Decision<'_>) -> String {
    match decision.rule {
        None => decision.verdict.as_str().to_string(),
        Some(rule) => format!(
            "{} (line {}: {} {:?})",
            decision.verdict.as_str(),
            rule.line,
            rule.directive.as_str(),
            rule.pattern
        ),
    }
}

/// Runs one check; `Err` says how it failed.
fn run(robots: &Robots, check: &Check) -> Result<(), String> {
    let direct = robots.decide(&check.agent, &check.url);
    let rules = robots.rules_for(&check.agent);
    let compiled = rules.decide(&check.url);
    if direct != compiled {
        return Err(format!("decide gave {} but rules_for().decide gave {}", describe(&direct), describe(&compiled)));
    }
    rules.build_index();
    let indexed = rules.decide(&check.url);
    if direct != indexed {
        return Err(format!("decide gave {} but the indexed rules gave {}", describe(&direct), describe(&indexed)));
    }
    if direct.verdict != check.verdict {
        return Err(format!("expected {}, got {}", check.verdict.as_str(), describe(&direct)));
    }
    match (direct.verdict, direct.rule) {
        (MatchVerdict::AllowedImplicit, Some(_)) => Err(format!("implicit verdict with a rule: {}", describe(&direct))),
        (MatchVerdict::AllowedImplicit, None) => Ok(()),
        (_, None) => Err(format!("explicit verdict without a rule: {}", describe(&direct))),
        (_, Some(rule)) => match check.line {
            Some(line) if line != rule.line => Err(format!("expected line {line}, got {}", describe(&direct))),
            _ => Ok(()),
        },
    }
}

#[test]
fn conformance() {
    let blocks = parse_blocks(CASES);
    let divergences = parse_divergences(DIVERGENCES);
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut per_category: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for block in &blocks {
        assert!(ids.insert(block.id.as_str()), "block id {} used twice", block.id);
        let robots = Robots::parse(&block.body);
        for check in &block.checks {
            assert!(names.insert(check.name.as_str()), "check {} written twice", check.name);
            *per_category.entry(block.category.as_str()).or_default() += 1;
            let listed = divergences.contains_key(&check.name);
            match (run(&robots, check), listed) {
                (Ok(()), false) | (Err(_), true) => {}
                (Err(why), false) => failures.push(format!("{} [{}]: {why}", check.name, block.category)),
                (Ok(()), true) => stale.push(check.name.clone()),
            }
        }
    }
    let unknown: Vec<&String> = divergences.keys().filter(|name| !names.contains(name.as_str())).collect();
    let total: usize = per_category.values().sum();
    assert!(total >= 150, "only {total} conformance checks");
    assert!(failures.is_empty(), "{} of {total} checks failed:\n{}", failures.len(), failures.join("\n"));
    assert!(
        stale.is_empty(),
        "listed as known divergences but now pass (remove them from the list):\n{}",
        stale.join("\n")
    );
    assert!(unknown.is_empty(), "known divergences that name no check: {unknown:?}");
}

/// Every divergent reading is filed under a divergence category, and every
/// check there is listed: the list documents exactly those departures.
#[test]
fn divergence_categories_match_the_list() {
    let blocks = parse_blocks(CASES);
    let divergences = parse_divergences(DIVERGENCES);
    for block in &blocks {
        let divergent_category = matches!(block.category.as_str(), "rfc9309-literal" | "seed001-departure");
        for check in &block.checks {
            assert_eq!(
                divergences.contains_key(&check.name),
                divergent_category,
                "{} (category {}): listed in known_divergences.txt iff its category is a divergence category",
                check.name,
                block.category
            );
        }
    }
}

#[test]
fn escapes_expand() {
    assert_eq!(unescape(r"a\r\n\t\s\e\\\x41{{3*ab}}b"), b"a\r\n\t \\Aabababb".to_vec());
    assert_eq!(unescape("{{2*\\x00}}"), vec![0, 0]);
    assert_eq!(unescape("{{2**a}}x"), b"*a*ax".to_vec());
    assert_eq!(unescape("ツ"), "ツ".as_bytes().to_vec());
}
