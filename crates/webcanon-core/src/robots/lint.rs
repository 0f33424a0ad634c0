//! Findings for site owners, each with a stable code.
//!
//! Codes never change meaning once published; new checks get new codes.
//! Run `webcanon robots lint --explain` for the table, or see
//! [`LintCode::summary`].

use std::collections::{HashMap, HashSet};

use super::compiled::AgentRules;
use super::diagnostic::{Diagnostic, LintCode};
use super::model::{NotRobots, RecordClass, RecordKind, Robots};
use super::normalize::WILDCARD;

impl Robots {
    /// All findings for a site owner, sorted by line.
    pub fn lint(&self) -> Vec<Diagnostic> {
        lint(self)
    }
}

fn lint(robots: &Robots) -> Vec<Diagnostic> {
    // A page that is not a robots.txt gets one finding, not one per line.
    let mut out = match robots.not_robots {
        Some(_) => robots.diagnostics.iter().filter(|d| d.code == LintCode::FileTooLarge).cloned().collect(),
        None => robots.diagnostics.clone(),
    };
    match robots.not_robots {
        Some(NotRobots::Html) => out.push(Diagnostic::new(
            LintCode::HtmlBody,
            None,
            "the body is an HTML page, not a robots.txt; crawlers cannot read rules from it".into(),
        )),
        Some(NotRobots::Binary) => {
            out.push(Diagnostic::new(LintCode::BinaryBody, None, "the body is binary data, not a robots.txt".into()))
        }
        None => {}
    }
    if robots.not_robots.is_none() {
        if robots.groups.is_empty() {
            out.push(Diagnostic::new(
                LintCode::NoGroups,
                None,
                "no `User-agent` group: the file restricts nothing".into(),
            ));
        }
        records(robots, &mut out);
        groups(robots, &mut out);
        agents(robots, &mut out);
    }
    out.sort_by_key(|d| (d.line.unwrap_or(0), d.code.code()));
    out
}

/// Checks each `User-agent` token against the known-agents registry.
fn agents(robots: &Robots, out: &mut Vec<Diagnostic>) {
    let registry = crate::agents::registry();
    let named: HashSet<String> =
        robots.groups().flat_map(|g| g.user_agents()).map(|a| a.token.to_ascii_lowercase()).collect();
    // Suggestions cost an edit distance per known agent: one per token.
    let mut suggestions: HashMap<String, Option<&crate::agents::Agent>> = HashMap::new();
    for agent in robots.groups().flat_map(|g| g.user_agents()) {
        if agent.global || agent.token.is_empty() {
            continue;
        }
        match registry.get(agent.token) {
            Some(known) => {
                if let Some(successor) = known.successor
                    && !named.contains(&successor.to_ascii_lowercase())
                {
                    out.push(Diagnostic::new(
                        LintCode::LegacyAgent,
                        Some(agent.line),
                        format!(
                            "`{}` is a legacy token; {} now uses `{successor}`, which this file does not name",
                            agent.token, known.operator
                        ),
                    ));
                }
            }
            None => match *suggestions
                .entry(agent.token.to_ascii_lowercase())
                .or_insert_with(|| registry.suggest(agent.token))
            {
                Some(meant) => out.push(Diagnostic::new(
                    LintCode::MisspelledAgent,
                    Some(agent.line),
                    format!(
                        "`{}` is not a known agent; did you mean `{}` ({})?",
                        agent.token, meant.token, meant.operator
                    ),
                )),
                None => out.push(Diagnostic::new(
                    LintCode::UnknownAgent,
                    Some(agent.line),
                    format!("`{}` is not in the known-agents registry", agent.token),
                )),
            },
        }
    }
}

fn records(robots: &Robots, out: &mut Vec<Diagnostic>) {
    for r in robots.records() {
        match r.kind.class() {
            RecordClass::Unknown => out.push(Diagnostic::new(
                LintCode::UnknownRecord,
                Some(r.line),
                format!("unknown record `{}`; crawlers ignore it", r.key),
            )),
            RecordClass::UnsupportedLegacy => out.push(Diagnostic::new(
                LintCode::LegacyRecord,
                Some(r.line),
                format!(
                    "`{}` is not supported by major crawlers; use `<meta name=\"robots\" content=\"noindex\">` or `X-Robots-Tag: noindex`",
                    r.key
                ),
            )),
            RecordClass::KnownExtension => {
                if let Some(problem) = extension_problem(r.kind, r.value) {
                    out.push(Diagnostic::new(
                        LintCode::InvalidExtensionValue,
                        Some(r.line),
                        format!("`{}: {}`: {problem}", r.key, r.value),
                    ));
                }
            }
        }
    }
}

fn extension_problem(kind: RecordKind, value: &str) -> Option<&'static str> {
    match kind {
        RecordKind::Sitemap if !(value.starts_with("http://") || value.starts_with("https://")) => {
            Some("a sitemap must be an absolute http(s) URL")
        }
        RecordKind::License if !(value.starts_with("http://") || value.starts_with("https://")) => {
            Some("an RSL license must be an absolute http(s) URL")
        }
        RecordKind::CrawlDelay if value.parse::<f64>().map_or(true, |d| !d.is_finite() || d < 0.0) => {
            Some("the delay must be a non-negative number of seconds")
        }
        RecordKind::ContentSignal | RecordKind::ContentUsage => {
            let prefs = if value.starts_with('/') {
                value.split_once(char::is_whitespace).map_or("", |(_, rest)| rest)
            } else {
                value
            };
            let valid = prefs
                .split(',')
                .all(|p| p.split_once('=').is_some_and(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty()));
            (!valid || prefs.trim().is_empty()).then_some("expected comma-separated `key=value` pairs")
        }
        _ => None,
    }
}

/// How many wildcard patterns the match-order check may try in one file,
/// all probes together. Real files need a small fraction of it; a file
/// built to make every probe try every pattern stops here, so lint stays
/// linear in the file's size.
const MATCH_ORDER_BUDGET: u64 = 250_000;

fn groups(robots: &Robots, out: &mut Vec<Diagnostic>) {
    let mut budget = MATCH_ORDER_BUDGET;
    // Records inside a group, by group: a record between two of a group's
    // `User-agent` lines means a group without rules was merged into it.
    let mut first_record_line: Vec<Option<u32>> = vec![None; robots.groups.len()];
    for record in &robots.records {
        if let Some(g) = record.group
            && let Some(slot) = first_record_line.get_mut(g as usize)
        {
            slot.get_or_insert(record.line);
        }
    }
    for (index, group) in robots.groups().enumerate() {
        let entry = &robots.groups[index];
        delay_only_group(robots, index, first_record_line[index], out);
        if entry.rules.is_empty() {
            let agents: Vec<&str> = group.user_agents().map(|a| a.value).collect();
            out.push(Diagnostic::new(
                LintCode::EmptyGroup,
                Some(group.line()),
                format!(
                    "the group for `{}` has no Allow or Disallow rules: these agents may fetch everything{}",
                    agents.join("`, `"),
                    if group.user_agents().any(|a| a.global) { "" } else { " and ignore the `*` group" }
                ),
            ));
            continue;
        }
        match_order_conflicts(robots, entry.rules.start as usize..entry.rules.end as usize, &mut budget, out);
    }
}

/// RFC 9309 ends a group only at a `User-agent` line that follows rules, so
/// `User-agent: CCBot` / `Crawl-delay: 10` / `User-agent: *` / `Disallow: /`
/// is one group: CCBot gets `Disallow: /`. Seen in real files, and rarely
/// what their authors meant.
fn delay_only_group(robots: &Robots, index: usize, first_record: Option<u32>, out: &mut Vec<Diagnostic>) {
    let Some(record_line) = first_record else { return };
    let entry = &robots.groups[index];
    let agents = &robots.agents[entry.agents.start as usize..entry.agents.end as usize];
    let (before, after): (Vec<_>, Vec<_>) = agents.iter().partition(|a| a.line < record_line);
    let (Some(first), Some(joined)) = (before.first(), after.first()) else { return };
    let names = |list: &[&super::model::AgentEntry]| {
        list.iter().map(|a| robots.str(&a.value).to_string()).collect::<Vec<_>>().join("`, `")
    };
    out.push(Diagnostic::new(
        LintCode::DelayOnlyGroup,
        Some(first.line),
        format!(
            "the group for `{}` has records but no rules before `User-agent: {}` (line {}); RFC 9309 merges them, so `{}` \
             also get that group's rules; add the rules meant for them, or an empty `Disallow:`, before line {}",
            names(&before),
            robots.str(&joined.value),
            joined.line,
            names(&before),
            joined.line,
        ),
    ));
}

/// Some crawlers take the first matching rule, not the
/// longest. For each rule, a path it matches (its pattern with wildcards
/// dropped) is decided both ways; where the verdicts differ, the rule that
/// first-match crawlers would wrongly apply is reported.
fn match_order_conflicts(robots: &Robots, range: std::ops::Range<usize>, budget: &mut u64, out: &mut Vec<Diagnostic>) {
    let entries = &robots.rules[range];
    let compiled = AgentRules::from_entries(robots, entries.iter(), &[]);
    let mut seen = HashSet::new();
    // Equal patterns give equal probes: each is decided once.
    let mut probed: HashSet<Vec<u8>> = HashSet::new();
    let mut probe = Vec::new();
    for entry in entries.iter().filter(|e| e.matchable && !e.synthetic) {
        let pattern = robots.normalized(entry);
        for fill in [&b""[..], b"x"] {
            probe.clear();
            if pattern.first() == Some(&WILDCARD) {
                probe.push(b'/');
            }
            for &b in pattern {
                if b == WILDCARD { probe.extend_from_slice(fill) } else { probe.push(b) }
            }
            if *budget == 0 {
                return;
            }
            if !probed.insert(probe.clone()) {
                continue;
            }
            let Some((longest, first)) = compiled.decide_both_within(&probe, budget) else { return };
            if longest.is_allowed() == first.is_allowed() {
                continue;
            }
            let (Some(l), Some(f)) = (longest.rule, first.rule) else { continue };
            if !seen.insert((f.line, l.line)) {
                continue;
            }
            out.push(Diagnostic::new(
                LintCode::MatchOrderConflict,
                Some(f.line),
                format!(
                    "`{}: {}` comes before the longer `{}: {}` (line {}): for `{}` RFC 9309 crawlers {} but first-match crawlers {}; put the broad rule last",
                    f.directive,
                    f.pattern,
                    l.directive,
                    l.pattern,
                    l.line,
                    String::from_utf8_lossy(&probe),
                    if longest.is_allowed() { "allow" } else { "disallow" },
                    if first.is_allowed() { "allow" } else { "disallow" },
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(body: &str) -> Vec<(&'static str, Option<u32>)> {
        Robots::parse(body.as_bytes()).lint().iter().map(|d| (d.code.code(), d.line)).collect()
    }

    #[test]
    fn one_case_per_code() {
        let cases: &[(&str, &str, Option<u32>)] = &[
            ("Disallow: /a\nUser-agent: *\nDisallow: /b\n", "R001", Some(1)),
            ("User-agent: *\nDisallow: /a\nUnicorns: yes\n", "R002", Some(3)),
            ("User-agent: *\nNoindex: /a\n", "R003", Some(2)),
            ("User-agent: *\nDissallow: /a\n", "R004", Some(2)),
            ("User-agent: *\nDisallow /a\n", "R005", Some(2)),
            ("User-agent: 123bot\nDisallow: /a\n", "R006", Some(1)),
            ("<!doctype html><html><body>x</body></html>", "R008", None),
            ("\0\x01\x02\x03 not text at all", "R009", None),
            ("User-agent: *\nDisallow: /a\n\nUser-agent: GPTBot\n", "R010", Some(4)),
            ("User-agent: *\nDisallow: /\nAllow: /blog/\n", "R011", Some(2)),
            ("User-agent: *\nthis line is nonsense\n", "R012", Some(2)),
            ("User-agent: *\nDisallow: private\n", "R014", Some(2)),
            ("User-agent: *\nCrawl-delay: soon\n", "R015", Some(2)),
            ("Sitemap: https://example.com/s.xml\n", "R016", None),
            ("License: /license.xml\nUser-agent: *\nAllow: /\n", "R015", Some(1)),
            ("User-agent: MyOwnCrawler\nDisallow: /\n", "R017", Some(1)),
            ("User-agent: GTPBot\nDisallow: /\n", "R018", Some(1)),
            ("User-agent: anthropic-ai\nDisallow: /\n", "R019", Some(1)),
            ("User-agent: *\0\nDisallow: /\n", "R020", None),
            ("User-agent: CCBot\nCrawl-delay: 10\nUser-agent: *\nDisallow: /\n", "R021", Some(1)),
        ];
        for (body, code, line) in cases {
            assert!(
                codes(body).contains(&(code, *line)),
                "{code} at {line:?} expected in {:?} for {body:?}",
                codes(body)
            );
        }
    }

    #[test]
    fn a_utf16_file_is_named_and_obeyed() {
        for (mark, encode) in [
            ([0xFF, 0xFE], u16::to_le_bytes as fn(u16) -> [u8; 2]),
            ([0xFE, 0xFF], u16::to_be_bytes as fn(u16) -> [u8; 2]),
        ] {
            let text = "User-agent: *\nDisallow: /private\n";
            let body: Vec<u8> = mark.into_iter().chain(text.encode_utf16().flat_map(encode)).collect();
            let robots = Robots::parse(&body);
            let lint = robots.lint();
            assert_eq!(lint.iter().map(|d| (d.code.code(), d.line)).collect::<Vec<_>>(), [("R022", None)]);
            assert_eq!(robots.decide("AnyBot", "/private/x").rule.map(|r| r.line), Some(2));
            assert_eq!(robots.size(), body.len());
        }
    }

    #[test]
    fn clean_files_are_clean() {
        let body = "User-agent: GPTBot\nUser-agent: ClaudeBot\nAllow: /docs/\nDisallow: /\n\nUser-agent: *\nDisallow: /admin/\n\nSitemap: https://example.com/sitemap.xml\n";
        assert_eq!(codes(body), vec![]);
        let legacy_with_successor = "User-agent: anthropic-ai\nUser-agent: ClaudeBot\nDisallow: /\n";
        assert_eq!(codes(legacy_with_successor), vec![]);
    }
}
