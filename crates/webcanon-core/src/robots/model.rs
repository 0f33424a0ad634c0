//! The parsed file and the values read from it.

use std::ops::Range;

use super::content_usage::ContentUsageRule;
use super::diagnostic::Diagnostic;
use super::pattern::matches;
use super::url_path::{matchable_path, merged_slashes};

/// A span of the text arena of a [`Robots`].
pub(crate) type Span = Range<u32>;

/// A parsed robots.txt file.
///
/// Parsing never fails: whatever the body holds, the result is a value plus
/// [`diagnostics`](Robots::diagnostics). A body that is not a robots.txt at
/// all (an HTML page, binary data) is reported by
/// [`not_robots`](Robots::not_robots).
#[derive(Debug, Clone)]
pub struct Robots {
    /// Raw text of patterns, user-agent values and record values.
    pub(crate) text: String,
    /// Normalised patterns (see `normalize`), referenced by `RuleEntry::normalized`.
    pub(crate) patterns: Vec<u8>,
    pub(crate) groups: Vec<GroupEntry>,
    pub(crate) agents: Vec<AgentEntry>,
    pub(crate) rules: Vec<RuleEntry>,
    pub(crate) records: Vec<RecordEntry>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) lines: u32,
    pub(crate) size: usize,
    pub(crate) truncated: bool,
    pub(crate) not_robots: Option<NotRobots>,
}

#[derive(Debug, Clone)]
pub(crate) struct GroupEntry {
    pub agents: Range<u32>,
    pub rules: Range<u32>,
}

#[derive(Debug, Clone)]
pub(crate) struct AgentEntry {
    pub line: u32,
    pub value: Span,
    pub token: Span,
    pub global: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct RuleEntry {
    pub directive: Directive,
    pub line: u32,
    /// The pattern as written.
    pub raw: Span,
    /// The normalised pattern in `Robots::patterns`.
    pub normalized: Span,
    pub anchored: bool,
    pub priority: u32,
    /// Whether the pattern can match a path at all (it starts with `/` or `*`).
    pub matchable: bool,
    /// Added by the parser: `Allow: /dir/index.html` also allows `/dir/`.
    pub synthetic: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct RecordEntry {
    pub line: u32,
    pub kind: RecordKind,
    pub key: Span,
    pub value: Span,
    /// The group the record appeared in, if any.
    pub group: Option<u32>,
}

/// Why a body is not a robots.txt file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum NotRobots {
    /// The body is an HTML page (often a soft 404 or an error page).
    Html,
    /// The body is binary data (NUL or control bytes, a compressed stream).
    Binary,
}

/// The two RFC 9309 rule directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum Directive {
    /// `Allow:`
    Allow,
    /// `Disallow:`
    Disallow,
}

impl Directive {
    /// The directive as JSON and the CLI spell it: `allow` or `disallow`.
    pub fn as_str(self) -> &'static str {
        match self {
            Directive::Allow => "allow",
            Directive::Disallow => "disallow",
        }
    }
}

impl std::fmt::Display for Directive {
    /// The directive as a robots.txt key: `Allow` or `Disallow`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Directive::Allow => "Allow",
            Directive::Disallow => "Disallow",
        })
    }
}

/// The outcome of matching a URL against the rules for an agent.
///
/// These are the three verdicts the rules alone can give; the retrieval
/// layer adds the ones that come from fetching robots.txt (unreachable,
/// parse error, skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum MatchVerdict {
    /// An `Allow` rule was the best match.
    AllowedExplicit,
    /// No rule matched (or the URL is `/robots.txt`).
    AllowedImplicit,
    /// A `Disallow` rule was the best match.
    DisallowedExplicit,
}

impl MatchVerdict {
    /// The verdict in snake case, as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchVerdict::AllowedExplicit => "allowed_explicit",
            MatchVerdict::AllowedImplicit => "allowed_implicit",
            MatchVerdict::DisallowedExplicit => "disallowed_explicit",
        }
    }

    /// Whether the URL may be fetched.
    pub fn is_allowed(self) -> bool {
        self != MatchVerdict::DisallowedExplicit
    }
}

/// A rule as written in the file: the evidence behind a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RuleRef<'a> {
    /// The 1-based line number of the rule.
    pub line: u32,
    /// `allow` or `disallow`.
    pub directive: Directive,
    /// The pattern as written in the file (comments and spaces trimmed).
    pub pattern: &'a str,
}

/// The answer for one URL: the verdict and the rule that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Decision<'a> {
    /// What the rules say.
    pub verdict: MatchVerdict,
    /// The matched rule; `None` when no rule matched.
    pub rule: Option<RuleRef<'a>>,
}

impl Decision<'_> {
    /// Whether the URL may be fetched.
    pub fn is_allowed(&self) -> bool {
        self.verdict.is_allowed()
    }

    pub(crate) const IMPLICIT: Decision<'static> = Decision { verdict: MatchVerdict::AllowedImplicit, rule: None };
}

/// A `User-agent` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserAgent<'a> {
    /// The 1-based line number.
    pub line: u32,
    /// The value as written (`FooBot/2.1 (+https://…)`).
    pub value: &'a str,
    /// The product token the value names (`FooBot`); empty when the value
    /// starts with no token character, in which case it matches no crawler.
    pub token: &'a str,
    /// Whether this is the `*` line that every crawler falls back to.
    pub global: bool,
}

/// One group: its `User-agent` lines and its rules.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    robots: &'a Robots,
    entry: &'a GroupEntry,
}

impl<'a> Group<'a> {
    /// The group's `User-agent` lines.
    pub fn user_agents(&self) -> impl ExactSizeIterator<Item = UserAgent<'a>> + use<'a> {
        let robots = self.robots;
        robots.agents[self.entry.agents.start as usize..self.entry.agents.end as usize]
            .iter()
            .map(move |a| robots.user_agent(a))
    }

    /// The group's `Allow` and `Disallow` rules in file order.
    pub fn rules(&self) -> impl Iterator<Item = RuleRef<'a>> + use<'a> {
        let robots = self.robots;
        robots.rules[self.entry.rules.start as usize..self.entry.rules.end as usize]
            .iter()
            .filter(|r| !r.synthetic)
            .map(move |r| robots.rule_ref(r))
    }

    /// The line of the group's first `User-agent` record.
    pub fn line(&self) -> u32 {
        self.robots.agents[self.entry.agents.start as usize].line
    }
}

/// The kind of a record that is not a `User-agent`, `Allow` or `Disallow` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum RecordKind {
    /// `Sitemap:`, a sitemap URL (global, not part of a group).
    Sitemap,
    /// `Crawl-delay:`, seconds between requests (nonstandard).
    CrawlDelay,
    /// `Request-rate:`, e.g. `1/5` (legacy extended proposal).
    RequestRate,
    /// `Visit-time:`, e.g. `0600-0845` (legacy extended proposal).
    VisitTime,
    /// `Host:`, a preferred host (Yandex-style).
    Host,
    /// `Clean-param:` (Yandex-style URL parameter clean-up).
    CleanParam,
    /// `Content-Signal:`, AI-era usage preferences (`ai-train=no, search=yes`).
    ContentSignal,
    /// `Content-Usage:`, IETF AIPREF usage preferences (`train-ai=n`).
    ContentUsage,
    /// `IndexNow-Key:`, IndexNow key-location discovery.
    IndexNowKey,
    /// `License:`, the URL of an RSL license document (global, not part of
    /// a group; RSL 1.0 §4.1).
    License,
    /// `Noindex:`, an unsupported legacy record.
    Noindex,
    /// Any other record.
    Unknown,
}

/// How a record relates to the standard: RFC 9309 defines only
/// `User-agent`, `Allow` and `Disallow` (and mentions `Sitemap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RecordClass {
    /// A known nonstandard extension (Sitemap, Crawl-delay, Content-Signal, ...).
    KnownExtension,
    /// An unsupported legacy record (Noindex).
    UnsupportedLegacy,
    /// A record nobody documents.
    Unknown,
}

impl RecordKind {
    /// The record's name as usually written.
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Sitemap => "Sitemap",
            RecordKind::CrawlDelay => "Crawl-delay",
            RecordKind::RequestRate => "Request-rate",
            RecordKind::VisitTime => "Visit-time",
            RecordKind::Host => "Host",
            RecordKind::CleanParam => "Clean-param",
            RecordKind::ContentSignal => "Content-Signal",
            RecordKind::ContentUsage => "Content-Usage",
            RecordKind::IndexNowKey => "IndexNow-Key",
            RecordKind::License => "License",
            RecordKind::Noindex => "Noindex",
            RecordKind::Unknown => "unknown",
        }
    }

    /// Known extension, unsupported legacy record, or unknown.
    pub fn class(self) -> RecordClass {
        match self {
            RecordKind::Noindex => RecordClass::UnsupportedLegacy,
            RecordKind::Unknown => RecordClass::Unknown,
            _ => RecordClass::KnownExtension,
        }
    }
}

/// A record that is not a core rule: `Sitemap`, an extension, or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// The 1-based line number.
    pub line: u32,
    /// What the record is.
    pub kind: RecordKind,
    /// The key as written (`Crawl-Delay`).
    pub key: &'a str,
    /// The value, trimmed.
    pub value: &'a str,
    /// The 0-based index of the group the record appeared in, if any.
    pub group: Option<usize>,
}

/// One `key=value` pair of a `Content-Signal` record (Cloudflare's
/// vocabulary, read leniently; `Content-Usage` records are read strictly
/// as [`ContentUsageRule`](super::ContentUsageRule)s).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContentSignal {
    /// The line the pair came from.
    pub line: u32,
    /// The record it came from (`Content-Signal`).
    pub record: RecordKind,
    /// The path the preference is scoped to (`Content-Usage: /news/ train-ai=n`), if any.
    pub path: Option<String>,
    /// The key, lower-cased (`ai-train`, `search`, `train-ai`).
    pub key: String,
    /// The value, lower-cased (`yes`, `no`, `y`, `n`).
    pub value: String,
}

impl ContentSignal {
    /// Whether the value says no (`no` or `n`).
    pub fn is_no(&self) -> bool {
        matches!(self.value.as_str(), "no" | "n")
    }
}

impl Robots {
    pub(crate) fn str(&self, span: &Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }

    pub(crate) fn normalized(&self, rule: &RuleEntry) -> &[u8] {
        &self.patterns[rule.normalized.start as usize..rule.normalized.end as usize]
    }

    pub(crate) fn rule_ref(&self, rule: &RuleEntry) -> RuleRef<'_> {
        RuleRef { line: rule.line, directive: rule.directive, pattern: self.str(&rule.raw) }
    }

    fn user_agent(&self, a: &AgentEntry) -> UserAgent<'_> {
        UserAgent { line: a.line, value: self.str(&a.value), token: self.str(&a.token), global: a.global }
    }

    /// The groups in file order.
    pub fn groups(&self) -> impl ExactSizeIterator<Item = Group<'_>> {
        self.groups.iter().map(move |entry| Group { robots: self, entry })
    }

    /// All records other than `User-agent`, `Allow` and `Disallow`, in file order.
    pub fn records(&self) -> impl Iterator<Item = Record<'_>> {
        self.records.iter().map(move |r| Record {
            line: r.line,
            kind: r.kind,
            key: self.str(&r.key),
            value: self.str(&r.value),
            group: r.group.map(|g| g as usize),
        })
    }

    /// The `Sitemap:` URLs in file order.
    pub fn sitemaps(&self) -> impl Iterator<Item = &str> {
        self.records().filter(|r| r.kind == RecordKind::Sitemap).map(|r| r.value)
    }

    /// The `License:` URLs (RSL documents) in file order.
    pub fn licenses(&self) -> impl Iterator<Item = &str> {
        self.records().filter(|r| r.kind == RecordKind::License).map(|r| r.value)
    }

    /// What the parser noticed while reading: lenient spellings, orphan
    /// rules, invalid lines, size. [`Robots::lint`] adds the checks that
    /// need the whole file.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Whether the body is not a robots.txt at all, and why.
    pub fn not_robots(&self) -> Option<NotRobots> {
        self.not_robots
    }

    /// Whether the body was longer than [`MAX_PARSE_BYTES`](super::MAX_PARSE_BYTES)
    /// and its tail was ignored.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// The size of the body in octets, as given to [`Robots::parse`].
    pub fn size(&self) -> usize {
        self.size
    }

    /// Roughly the bytes this parse holds on the heap (its text, patterns,
    /// groups, rules, records and diagnostics), for caches that count what
    /// they keep.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        std::mem::size_of::<Robots>()
            + self.text.capacity()
            + self.patterns.capacity()
            + self.groups.capacity() * size_of::<GroupEntry>()
            + self.agents.capacity() * size_of::<AgentEntry>()
            + self.rules.capacity() * size_of::<RuleEntry>()
            + self.records.capacity() * size_of::<RecordEntry>()
            + self.diagnostics.iter().map(|d| size_of::<Diagnostic>() + d.message.capacity()).sum::<usize>()
    }

    /// The number of lines read.
    pub fn line_count(&self) -> u32 {
        self.lines
    }

    /// The indexes of the groups that apply to `agent` (RFC 9309 §2.2.1):
    /// every group naming the agent's product token, or, when there is none,
    /// every `*` group.
    pub(crate) fn selected_groups<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = usize> + 'a {
        let names = |g: &GroupEntry, global: bool| {
            self.agents[g.agents.start as usize..g.agents.end as usize].iter().any(|a| {
                if global {
                    a.global
                } else {
                    !a.global && !a.token.is_empty() && self.str(&a.token).eq_ignore_ascii_case(agent)
                }
            })
        };
        let specific = self.groups.iter().any(|g| names(g, false));
        self.groups.iter().enumerate().filter(move |(_, g)| names(g, !specific)).map(|(i, _)| i)
    }

    /// The groups that apply to `agent`, in file order (RFC 9309 §2.2.1).
    pub fn groups_for<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = Group<'a>> + 'a {
        self.selected_groups(agent).map(move |i| Group { robots: self, entry: &self.groups[i] })
    }

    /// Whether any group names `agent` itself (not only `*`).
    pub fn has_group_for(&self, agent: &str) -> bool {
        self.agents.iter().any(|a| !a.global && !a.token.is_empty() && self.str(&a.token).eq_ignore_ascii_case(agent))
    }

    /// Decides one URL for one agent.
    ///
    /// `url` may be absolute (`https://example.com/a?b`) or a path (`/a?b`);
    /// its fragment is dropped and an empty path is `/`. To decide many URLs
    /// for one agent, compile the rules once with [`Robots::rules_for`].
    pub fn decide(&self, agent: &str, url: &str) -> Decision<'_> {
        let Some(path) = matchable_path(url.as_bytes()) else {
            return Decision::IMPLICIT;
        };
        let as_given = self.decide_path(agent, &path);
        match merged_slashes(&path) {
            Some(merged) => stricter(as_given, self.decide_path(agent, &merged)),
            None => as_given,
        }
    }

    fn decide_path(&self, agent: &str, path: &[u8]) -> Decision<'_> {
        let mut best: Option<&RuleEntry> = None;
        for group in self.selected_groups(agent) {
            let range = &self.groups[group].rules;
            for rule in &self.rules[range.start as usize..range.end as usize] {
                if !rule.matchable || best.is_some_and(|b| !outranks(rule, b)) {
                    continue;
                }
                if matches(self.normalized(rule), rule.anchored, path) {
                    best = Some(rule);
                }
            }
        }
        match best {
            None => Decision::IMPLICIT,
            Some(rule) => Decision {
                verdict: match rule.directive {
                    Directive::Allow => MatchVerdict::AllowedExplicit,
                    Directive::Disallow => MatchVerdict::DisallowedExplicit,
                },
                rule: Some(self.rule_ref(rule)),
            },
        }
    }

    /// The groups that apply to `agent`, as indexes in file order. Agents
    /// with equal selections have equal rules (every agent that no group
    /// names gets the `*` groups), so this is the key to share one
    /// [`AgentRules`](super::AgentRules) between them.
    pub fn group_selection(&self, agent: &str) -> Vec<u32> {
        self.selected_groups(agent).map(|g| g as u32).collect()
    }

    /// The first `Crawl-delay` in the groups that apply to `agent`, in seconds.
    pub fn crawl_delay(&self, agent: &str) -> Option<f64> {
        let groups: Vec<usize> = self.selected_groups(agent).collect();
        crawl_delay_in(self, &groups)
    }

    /// The `Content-Signal` preferences in the groups that apply to
    /// `agent`, plus those written outside any group.
    pub fn content_signals(&self, agent: &str) -> Vec<ContentSignal> {
        let groups: Vec<usize> = self.selected_groups(agent).collect();
        content_signals_in(self, &groups)
    }

    /// The `Content-Usage` rules in the groups that apply to `agent`
    /// (draft-ietf-aipref-attach-05 §3: a rule of a group, so one outside
    /// every group applies to no one), in file order.
    pub fn content_usage_rules(&self, agent: &str) -> Vec<ContentUsageRule> {
        let groups: Vec<usize> = self.selected_groups(agent).collect();
        content_usage_rules_in(self, &groups)
    }
}

/// Of the decisions on a path as given and with its slashes merged, the
/// stricter: a disallow wins; when both agree, the path as given decides.
pub(crate) fn stricter<'a>(as_given: Decision<'a>, merged: Decision<'a>) -> Decision<'a> {
    if as_given.is_allowed() && !merged.is_allowed() { merged } else { as_given }
}

/// Whether `candidate` beats `best` under longest-match precedence: longer
/// wins, Allow wins a tie, and between equals the earlier rule stays.
#[inline]
pub(crate) fn outranks(candidate: &RuleEntry, best: &RuleEntry) -> bool {
    candidate.priority > best.priority
        || (candidate.priority == best.priority
            && candidate.directive == Directive::Allow
            && best.directive == Directive::Disallow)
}

pub(crate) fn crawl_delay_in(robots: &Robots, groups: &[usize]) -> Option<f64> {
    robots
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::CrawlDelay && r.group.is_some_and(|g| groups.contains(&(g as usize))))
        .find_map(|r| robots.str(&r.value).parse::<f64>().ok().filter(|d| d.is_finite() && *d >= 0.0))
}

pub(crate) fn content_usage_rules_in(robots: &Robots, groups: &[usize]) -> Vec<ContentUsageRule> {
    robots
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::ContentUsage && r.group.is_some_and(|g| groups.contains(&(g as usize))))
        .map(|r| ContentUsageRule::parse(r.line, robots.str(&r.value)))
        .collect()
}

pub(crate) fn content_signals_in(robots: &Robots, groups: &[usize]) -> Vec<ContentSignal> {
    let mut out = Vec::new();
    for r in &robots.records {
        if r.kind != RecordKind::ContentSignal {
            continue;
        }
        if r.group.is_some_and(|g| !groups.contains(&(g as usize))) {
            continue;
        }
        let mut value = robots.str(&r.value).trim();
        let mut path = None;
        if value.starts_with('/') {
            let end = value.find(char::is_whitespace).unwrap_or(value.len());
            path = Some(value[..end].to_string());
            value = value[end..].trim_start();
        }
        for pair in value.split(',') {
            let Some((key, val)) = pair.split_once('=') else { continue };
            let key = key.trim().to_ascii_lowercase();
            if key.is_empty() {
                continue;
            }
            out.push(ContentSignal {
                line: r.line,
                record: r.kind,
                path: path.clone(),
                key,
                value: val.trim().to_ascii_lowercase(),
            });
        }
    }
    out
}
