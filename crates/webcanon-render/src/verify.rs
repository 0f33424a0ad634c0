//! Self-verification: does a robots.txt give every agent the access the
//! policy intends?
//!
//! The intended access is computed from the policy alone: `allow_all`
//! allows everything, `deny_all` everything but `/robots.txt` (which RFC
//! 9309 §2.2.2 always allows), and path lists are decided by the longest
//! matching pattern, Allow winning a tie. Whether one pattern matches one
//! path is asked of the core's matcher (through a one-rule file), so that
//! percent-encoding, `*` and `$` mean the same thing on both sides.
//!
//! The file is read twice per probe: with the core's longest-match decision
//! ([`Robots::rules_for`]) and with a first-match reading (the first rule in
//! file order whose pattern matches), the interpretation some crawlers still
//! use. Both must agree with the policy.
//!
//! Probes: every listed token, plus one token no record names (it reads the
//! `*` record), against every path the policy names and paths around each:
//! the path itself, with `x` appended, with `/sub` appended, its parent, `/`
//! and `/robots.txt`.

use std::collections::BTreeSet;

use webcanon_core::robots::{Directive, Robots, merged_slashes, pattern_matches};

use crate::RenderError;
use crate::order::precedence;
use crate::policy::{Access, Policy, product_token};

/// The origin probes are resolved against; `.invalid` never resolves.
const ORIGIN: &str = "http://site.invalid";

/// How a file is read when a probe is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reading {
    /// RFC 9309: the longest matching pattern wins, Allow wins a tie.
    LongestMatch,
    /// The first rule in file order whose pattern matches wins.
    FirstMatch,
}

impl Reading {
    /// `longest-match` or `first-match`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reading::LongestMatch => "longest-match",
            Reading::FirstMatch => "first-match",
        }
    }
}

/// One agent the verification and the comparison probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeAgent {
    /// How reports name it: the token, or `*` for the default record.
    pub label: String,
    /// The product token sent to the matcher.
    pub token: String,
    /// What the policy intends for it.
    pub access: Access,
}

/// The agents to probe: every listed token in policy order, then `*`
/// (probed with a token that no entry names).
pub fn probe_agents(policy: &Policy) -> Vec<ProbeAgent> {
    let mut agents: Vec<ProbeAgent> = policy
        .agents
        .iter()
        .flat_map(|a| {
            a.tokens.iter().map(|t| ProbeAgent {
                label: t.clone(),
                token: product_token(t).to_owned(),
                access: a.access.clone(),
            })
        })
        .collect();
    let mut other = String::from("SomeOtherBot");
    while agents.iter().any(|a| a.token.eq_ignore_ascii_case(&other)) {
        other.push('x');
    }
    agents.push(ProbeAgent { label: "*".into(), token: other, access: policy.default_policy.clone() });
    agents
}

/// The paths to probe, sorted: `/`, `/robots.txt`, and for every pattern in
/// the policy the path it names (`*` dropped, or replaced by `x`; a final
/// `$` dropped), that path with `x` and with `/sub` appended, and its parent.
pub fn probe_paths(policy: &Policy) -> Vec<String> {
    let accesses = std::iter::once(&policy.default_policy).chain(policy.agents.iter().map(|a| &a.access));
    paths_around(accesses.flat_map(Access::patterns))
}

/// `/`, `/robots.txt` and the probes around each pattern, sorted.
fn paths_around<'a>(patterns: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut paths: BTreeSet<String> = ["/".to_owned(), "/robots.txt".to_owned()].into();
    for pattern in patterns {
        let body = pattern.strip_suffix('$').unwrap_or(pattern);
        for filler in ["", "x"] {
            let mut base = body.replace('*', filler);
            if !base.starts_with('/') {
                base.insert(0, '/');
            }
            paths.insert(format!("{base}x"));
            paths.insert(format!("{}/sub", base.trim_end_matches('/')));
            paths.insert(parent(&base).to_owned());
            paths.insert(base);
        }
    }
    paths.into_iter().collect()
}

/// `/a/b/` → `/a/`, `/a/b` → `/a/`, `/a` → `/`.
fn parent(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    }
}

/// One pattern, matched on the path as given with the core's matcher.
struct Pattern {
    precedence: usize,
    allow: bool,
    pattern: String,
}

impl Pattern {
    fn new(pattern: &str, allow: bool) -> Pattern {
        Pattern { precedence: precedence(pattern), allow, pattern: pattern.to_owned() }
    }

    fn matches(&self, url: &str) -> bool {
        pattern_matches(&self.pattern, url)
    }
}

/// The access a policy intends, ready to decide paths.
pub struct Intent {
    access: Access,
    patterns: Vec<Pattern>,
}

impl Intent {
    /// Prepares `access` for decisions.
    pub fn new(access: &Access) -> Intent {
        let patterns = match access {
            Access::Paths { allow, disallow } => allow
                .iter()
                .map(|p| Pattern::new(p, true))
                .chain(disallow.iter().map(|p| Pattern::new(p, false)))
                .collect(),
            _ => Vec::new(),
        };
        Intent { access: access.clone(), patterns }
    }

    /// Whether the policy lets the agent fetch `path` (a path starting with
    /// `/`). Like every decision, it is made on the path as given and with
    /// repeated slashes merged, and the stricter verdict wins.
    pub fn allows(&self, path: &str) -> bool {
        self.allows_as_given(path) && merged_slashes(path).is_none_or(|merged| self.allows_as_given(&merged))
    }

    fn allows_as_given(&self, path: &str) -> bool {
        if path.split(['?', '#']).next() == Some("/robots.txt") {
            return true;
        }
        match self.access {
            Access::AllowAll => true,
            Access::DenyAll => false,
            Access::Paths { .. } => {
                let url = format!("{ORIGIN}{path}");
                let best = self
                    .patterns
                    .iter()
                    .filter(|p| p.matches(&url))
                    .max_by(|a, b| a.precedence.cmp(&b.precedence).then(a.allow.cmp(&b.allow)));
                best.is_none_or(|p| p.allow)
            }
        }
    }
}

/// The first-match reading of `robots` for one agent: the first rule, in
/// file order across the groups that apply, whose pattern matches; made on
/// the path as given and with repeated slashes merged, the stricter wins.
fn first_match(robots: &Robots, token: &str, path: &str) -> bool {
    first_match_as_given(robots, token, path)
        && merged_slashes(path).is_none_or(|merged| first_match_as_given(robots, token, &merged))
}

fn first_match_as_given(robots: &Robots, token: &str, path: &str) -> bool {
    if path.split(['?', '#']).next() == Some("/robots.txt") {
        return true;
    }
    let url = format!("{ORIGIN}{path}");
    for group in robots.groups_for(token) {
        for rule in group.rules() {
            if !rule.pattern.is_empty() && Pattern::new(rule.pattern, true).matches(&url) {
                return rule.directive == Directive::Allow;
            }
        }
    }
    true
}

/// Checks that `robots_txt` gives every probed agent the policy's access on
/// every probed path, under both the longest-match and the first-match
/// reading. The first mismatch is returned as [`RenderError::Verification`].
pub fn verify(policy: &Policy, robots_txt: &str) -> Result<(), RenderError> {
    let robots = Robots::parse(robots_txt.as_bytes());
    let licenses: Vec<String> = robots.licenses().map(str::to_string).collect();
    if licenses != policy.license_url.iter().cloned().collect::<Vec<_>>() {
        return Err(RenderError::LicenseRecord { expected: policy.license_url.clone(), got: licenses });
    }
    let paths = probe_paths(policy);
    for agent in probe_agents(policy) {
        let intent = Intent::new(&agent.access);
        let rules = robots.rules_for(&agent.token);
        for path in &paths {
            let expected = intent.allows(path);
            let longest = rules.is_allowed(&format!("{ORIGIN}{path}"));
            let first = first_match(&robots, &agent.token, path);
            for (reading, got) in [(Reading::LongestMatch, longest), (Reading::FirstMatch, first)] {
                if got != expected {
                    return Err(RenderError::Verification {
                        agent: agent.label.clone(),
                        path: path.clone(),
                        expected,
                        got,
                        reading,
                    });
                }
            }
        }
    }
    Ok(())
}

/// The rule of an existing file that decided a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecidingRule {
    /// Its 1-based line.
    pub line: u32,
    /// Allow or Disallow.
    pub directive: Directive,
    /// The pattern as written.
    pub pattern: String,
}

/// One probe on which an existing robots.txt and the policy disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The agent (`GPTBot`, or `*` for agents the policy does not list).
    pub agent: String,
    /// The probed path.
    pub path: String,
    /// Whether the policy allows it.
    pub policy_allows: bool,
    /// Whether the existing file allows it (RFC 9309 longest match).
    pub existing_allows: bool,
    /// The existing file's rule that decided it; `None` when no rule matched.
    pub rule: Option<DecidingRule>,
}

/// How `existing` differs in effect from `policy`: every probe on which the
/// existing file's RFC 9309 decision is not the policy's, in probe order.
/// Probes are the agents and paths of [`verify`] plus the agents and rule
/// patterns the existing file names. Empty when they agree.
pub fn compare(policy: &Policy, existing: &Robots) -> Vec<Difference> {
    // Probe what either file names: the policy's patterns and agents, and
    // the existing file's rule patterns and agents (which the policy leaves
    // to its default record).
    let accesses = std::iter::once(&policy.default_policy).chain(policy.agents.iter().map(|a| &a.access));
    let existing_patterns: Vec<&str> = existing.groups().flat_map(|g| g.rules().map(|r| r.pattern)).collect();
    let paths = paths_around(accesses.flat_map(Access::patterns).chain(existing_patterns.iter().copied()));
    let mut agents = probe_agents(policy);
    for group in existing.groups() {
        for ua in group.user_agents().filter(|u| !u.global && !u.token.is_empty()) {
            if !agents.iter().any(|a| a.token.eq_ignore_ascii_case(ua.token)) {
                let access = policy.default_policy.clone();
                agents.push(ProbeAgent { label: ua.token.to_owned(), token: ua.token.to_owned(), access });
            }
        }
    }
    let mut out = Vec::new();
    for agent in agents {
        let intent = Intent::new(&agent.access);
        let rules = existing.rules_for(&agent.token);
        for path in &paths {
            let policy_allows = intent.allows(path);
            let decision = rules.decide(&format!("{ORIGIN}{path}"));
            if decision.is_allowed() != policy_allows {
                out.push(Difference {
                    agent: agent.label.clone(),
                    path: path.clone(),
                    policy_allows,
                    existing_allows: decision.is_allowed(),
                    rule: decision.rule.map(|r| DecidingRule {
                        line: r.line,
                        directive: r.directive,
                        pattern: r.pattern.to_owned(),
                    }),
                });
            }
        }
    }
    out
}
