//! The rules for one agent, compiled for fast repeated decisions.
//!
//! Compiling copies the agent's rules out of the file, in file order, into
//! two buffers (patterns as written and normalised). A set of a few rules,
//! and the first few decisions on any set, are decided by a scan of those
//! rules, as [`Robots::decide`] does: for one origin and one URL, building
//! an index would cost more than it saves. After that an index is built
//! once, on first need, and shared by every later decision:
//!
//! - Every pattern is split at its first `*` into a literal head and the rest.
//! - Patterns with no `*` (after dropping trailing `*`s, which change
//!   nothing but the precedence length) are keyed by their head in a sorted
//!   array. Each key links to its longest proper prefix among the keys, so
//!   one binary search for the path finds the longest key that is a prefix
//!   of it, and the parent links then visit exactly the keys that are
//!   prefixes of the path. Each key keeps only its best prefix rule and its
//!   best `$`-anchored rule.
//! - Patterns with a `*` inside keep their longest literal piece after the
//!   `*` as an anchor; one Aho–Corasick pass over the path finds the anchors
//!   present, and only their patterns are tried, best first, while they
//!   could still win.
//!
//! So an indexed decision costs the path length and a logarithm of the rule
//! count, never a scan of the rules.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use super::anchors::Anchors;
use super::content_usage::{ContentUsageMatch, ContentUsageRule, content_usage_for};
use super::model::{
    ContentSignal, Decision, Directive, MatchVerdict, Robots, RuleEntry, RuleRef, content_signals_in,
    content_usage_rules_in, crawl_delay_in, stricter,
};
use super::normalize::WILDCARD;
use super::pattern::matches;
use super::url_path::{matchable_path, merged_slashes};

const NONE: u32 = u32::MAX;

/// Rule sets this small are always decided by a scan: a scan of sixteen
/// short patterns costs about what one indexed lookup does.
const SCAN_RULES: usize = 16;

/// Decisions made by a scan before a larger rule set is indexed: a fetcher
/// that asks about one or two URLs of an origin never pays for the index.
const SCAN_DECISIONS: u32 = 4;

/// One compiled rule: what is needed to match it, rank it and report it.
#[derive(Debug, Clone)]
struct Rule {
    directive: Directive,
    line: u32,
    priority: u32,
    /// Whether the pattern can match a path at all (it starts with `/` or `*`).
    matchable: bool,
    /// Whether the pattern ends with the `$` anchor.
    anchored: bool,
    /// The normalised pattern: a range of `AgentRules::normalized`.
    normalized: (u32, u32),
    /// The pattern as written: a range of `AgentRules::pattern_text`.
    pattern: (u32, u32),
}

/// A distinct literal head.
#[derive(Debug, Clone)]
struct Key {
    /// The head: a range of `AgentRules::normalized`.
    bytes: (u32, u32),
    /// The longest other key that is a proper prefix of this one.
    parent: u32,
    prefix: u32,
    exact: u32,
    first_prefix: u32,
    first_exact: u32,
}

/// A pattern with a `*` inside.
#[derive(Debug, Clone)]
struct Wild {
    rule: u32,
    /// The pattern without trailing wildcards: a range of `AgentRules::normalized`.
    pattern: (u32, u32),
    anchored: bool,
}

/// The index over a rule set, built once on first need.
#[derive(Debug, Clone)]
struct Index {
    keys: Vec<Key>,
    /// Wildcard patterns grouped by anchor, best first within a group.
    wild: Vec<Wild>,
    /// Per anchor id: its range in `wild`.
    anchor_groups: Vec<(u32, u32)>,
    anchors: Anchors,
}

/// The rules that apply to one agent, indexed for fast decisions.
///
/// Made by [`Robots::rules_for`]. It owns its data, so it can be cached and
/// shared between threads independently of the [`Robots`] it came from.
#[derive(Debug)]
pub struct AgentRules {
    /// The rules in file order (a rule's position is its order).
    rules: Vec<Rule>,
    /// Every rule's pattern as written, one after the other (one
    /// allocation, not one per rule).
    pattern_text: String,
    /// Every rule's normalised pattern, one after the other.
    normalized: Vec<u8>,
    /// The octets of the wildcard patterns' anchor pieces, which bound the
    /// size of the index's automaton.
    anchor_bytes: usize,
    index: OnceLock<Index>,
    /// Decisions made by a scan so far (counts up to `SCAN_DECISIONS`).
    scans: AtomicU32,
    crawl_delay: Option<f64>,
    content_signals: Vec<ContentSignal>,
    content_usage: Vec<ContentUsageRule>,
}

impl Clone for AgentRules {
    fn clone(&self) -> AgentRules {
        AgentRules {
            rules: self.rules.clone(),
            pattern_text: self.pattern_text.clone(),
            normalized: self.normalized.clone(),
            anchor_bytes: self.anchor_bytes,
            index: self.index.clone(),
            scans: AtomicU32::new(self.scans.load(Ordering::Relaxed)),
            crawl_delay: self.crawl_delay,
            content_signals: self.content_signals.clone(),
            content_usage: self.content_usage.clone(),
        }
    }
}

/// Longest-match precedence, as `model::outranks`: longer wins, Allow wins a
/// tie, and between equals the earlier rule in file order. Candidates are
/// met by index structure, not file order, so the last clause must be
/// explicit for the reported rule to be the one `Robots::decide` reports.
fn better(rules: &[Rule], candidate: u32, best: u32) -> bool {
    if best == NONE {
        return true;
    }
    let (c, b) = (&rules[candidate as usize], &rules[best as usize]);
    c.priority > b.priority
        || (c.priority == b.priority
            && ((c.directive == Directive::Allow && b.directive == Directive::Disallow)
                || (c.directive == b.directive && candidate < best)))
}

fn earlier(candidate: u32, first: u32) -> bool {
    first == NONE || candidate < first
}

/// The best and the earliest matching rule found so far.
struct Found {
    best: u32,
    first: u32,
}

impl Found {
    fn offer(&mut self, rules: &[Rule], rule: u32, first_match: bool) {
        if rule == NONE {
            return;
        }
        if better(rules, rule, self.best) {
            self.best = rule;
        }
        if first_match && earlier(rule, self.first) {
            self.first = rule;
        }
    }
}

/// The anchor of a wildcard pattern: the longest literal piece of what
/// follows its first `*`.
fn anchor_of(after_first_wildcard: &[u8]) -> &[u8] {
    after_first_wildcard.split(|&b| b == WILDCARD).max_by_key(|piece| piece.len()).unwrap_or_default()
}

fn slice(bytes: &[u8], range: (u32, u32)) -> &[u8] {
    &bytes[range.0 as usize..range.1 as usize]
}

impl Robots {
    /// Compiles the rules that apply to `agent` into an index for fast,
    /// repeated decisions.
    pub fn rules_for(&self, agent: &str) -> AgentRules {
        let groups: Vec<usize> = self.selected_groups(agent).collect();
        AgentRules::compile(self, &groups)
    }
}

impl AgentRules {
    fn compile(robots: &Robots, groups: &[usize]) -> AgentRules {
        let selected = groups.iter().flat_map(|&g| {
            let range = &robots.groups[g].rules;
            &robots.rules[range.start as usize..range.end as usize]
        });
        Self::from_entries(robots, selected, groups)
    }

    /// Copies `entries` (in file order) out of `robots`. Also used by lint,
    /// one group at a time.
    pub(crate) fn from_entries<'r>(
        robots: &'r Robots,
        entries: impl Iterator<Item = &'r RuleEntry> + Clone,
        groups: &[usize],
    ) -> AgentRules {
        let (count, raw_bytes, normalized_bytes) = entries.clone().fold((0, 0, 0), |(n, raw, norm), e| {
            (n + 1, raw + (e.raw.end - e.raw.start) as usize, norm + (e.normalized.end - e.normalized.start) as usize)
        });
        let mut rules = Vec::with_capacity(count);
        let mut pattern_text = String::with_capacity(raw_bytes);
        let mut normalized = Vec::with_capacity(normalized_bytes);
        let mut anchor_bytes = 0;
        for entry in entries {
            let push = |buffer: &mut Vec<u8>, bytes: &[u8]| {
                let start = buffer.len() as u32;
                buffer.extend_from_slice(bytes);
                (start, buffer.len() as u32)
            };
            let pattern = {
                let start = pattern_text.len() as u32;
                pattern_text.push_str(robots.str(&entry.raw));
                (start, pattern_text.len() as u32)
            };
            let normalized_pattern = robots.normalized(entry);
            if let Some(first) = memchr::memchr(WILDCARD, normalized_pattern) {
                anchor_bytes += anchor_of(&normalized_pattern[first + 1..]).len();
            }
            rules.push(Rule {
                directive: entry.directive,
                line: entry.line,
                priority: entry.priority,
                matchable: entry.matchable,
                anchored: entry.anchored,
                normalized: push(&mut normalized, normalized_pattern),
                pattern,
            });
        }
        AgentRules {
            rules,
            pattern_text,
            normalized,
            anchor_bytes,
            index: OnceLock::new(),
            scans: AtomicU32::new(0),
            crawl_delay: crawl_delay_in(robots, groups),
            content_signals: content_signals_in(robots, groups),
            content_usage: content_usage_rules_in(robots, groups),
        }
    }

    /// The index, built on first call.
    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(&self.rules, &self.normalized))
    }

    /// Whether the next decision should scan the rules rather than use (and
    /// perhaps build) the index.
    fn scan_next(&self) -> bool {
        if self.index.get().is_some() {
            return false;
        }
        if self.rules.len() <= SCAN_RULES {
            return true;
        }
        self.scans.fetch_add(1, Ordering::Relaxed) < SCAN_DECISIONS
    }

    /// Builds the index now, so that every later decision uses it.
    ///
    /// Not needed for correctness or speed in general: a large rule set is
    /// indexed on its own after a few decisions, and a small one is decided
    /// faster by a scan. Useful to pay the cost up front (before sharing the
    /// rules with many threads) and to compare the two ways of deciding.
    pub fn build_index(&self) {
        self.index();
    }

    /// The best rule for `path` by a scan in file order, as
    /// [`Robots::decide`] finds it.
    fn scan(&self, path: &[u8]) -> u32 {
        let mut best = NONE;
        for (i, rule) in self.rules.iter().enumerate() {
            let i = i as u32;
            if !rule.matchable || !better(&self.rules, i, best) {
                continue;
            }
            if matches(slice(&self.normalized, rule.normalized), rule.anchored, path) {
                best = i;
            }
        }
        best
    }
}

impl Index {
    fn build(rules: &[Rule], normalized: &[u8]) -> Index {
        /// A range of `normalized`.
        type Range = (u32, u32);
        // (head, rule, anchored) for literal patterns.
        let mut literals: Vec<(Range, u32, bool)> = Vec::new();
        // (pattern, anchor, rule, anchored) for wildcard patterns.
        let mut wilds: Vec<(Range, &[u8], u32, bool)> = Vec::new();
        for (id, rule) in rules.iter().enumerate() {
            if !rule.matchable {
                continue;
            }
            let (start, mut end) = rule.normalized;
            let mut anchored = rule.anchored;
            // Trailing wildcards only lengthen the pattern: `/a*` and `/a*$`
            // match exactly what `/a` matches.
            while end > start && normalized[end as usize - 1] == WILDCARD {
                end -= 1;
                anchored = false;
            }
            let pattern = &normalized[start as usize..end as usize];
            match memchr::memchr(WILDCARD, pattern) {
                None => literals.push(((start, end), id as u32, anchored)),
                Some(first) => wilds.push(((start, end), anchor_of(&pattern[first + 1..]), id as u32, anchored)),
            }
        }

        // Literal keys: sort, dedupe, link each to its longest prefix key.
        literals.sort_unstable_by(|a, b| slice(normalized, a.0).cmp(slice(normalized, b.0)).then(a.1.cmp(&b.1)));
        let mut keys: Vec<Key> = Vec::with_capacity(literals.len());
        let mut stack: Vec<u32> = Vec::new();
        for (head_range, id, anchored) in literals {
            let head = slice(normalized, head_range);
            let same = keys.last().is_some_and(|k: &Key| slice(normalized, k.bytes) == head);
            if !same {
                while let Some(&top) = stack.last() {
                    if head.starts_with(slice(normalized, keys[top as usize].bytes)) {
                        break;
                    }
                    stack.pop();
                }
                keys.push(Key {
                    bytes: head_range,
                    parent: stack.last().copied().unwrap_or(NONE),
                    prefix: NONE,
                    exact: NONE,
                    first_prefix: NONE,
                    first_exact: NONE,
                });
                stack.push(keys.len() as u32 - 1);
            }
            let key = keys.last_mut().expect("a key was just pushed");
            let (best, first) = if anchored {
                (&mut key.exact, &mut key.first_exact)
            } else {
                (&mut key.prefix, &mut key.first_prefix)
            };
            if better(rules, id, *best) {
                *best = id;
            }
            if earlier(id, *first) {
                *first = id;
            }
        }

        // Wildcard patterns: group by anchor, best first within a group.
        wilds.sort_by(|a, b| {
            let (ra, rb) = (&rules[a.2 as usize], &rules[b.2 as usize]);
            a.1.cmp(b.1)
                .then(rb.priority.cmp(&ra.priority))
                .then((ra.directive == Directive::Disallow).cmp(&(rb.directive == Directive::Disallow)))
                .then(a.2.cmp(&b.2))
        });
        let mut wild = Vec::with_capacity(wilds.len());
        let mut anchor_list: Vec<&[u8]> = Vec::new();
        let mut anchor_groups: Vec<(u32, u32)> = Vec::with_capacity(wilds.len());
        for &(pattern, anchor, rule, anchored) in &wilds {
            if anchor_list.last() != Some(&anchor) {
                anchor_list.push(anchor);
                anchor_groups.push((wild.len() as u32, wild.len() as u32));
            }
            wild.push(Wild { rule, pattern, anchored });
            if let Some(group) = anchor_groups.last_mut() {
                group.1 = wild.len() as u32;
            }
        }
        Index { keys, wild, anchors: Anchors::new(&anchor_list), anchor_groups }
    }

    /// The bytes this index holds on the heap.
    fn heap_bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<Key>()
            + self.wild.capacity() * std::mem::size_of::<Wild>()
            + self.anchor_groups.capacity() * 8
            + self.anchors.heap_bytes()
    }

    /// An upper bound of [`Index::heap_bytes`] for `rules` rules whose
    /// anchor pieces take `anchor_bytes` octets, known before the index is
    /// built: per rule a key, or a wildcard entry and its anchor group, and
    /// an automaton state (with its edge) per anchor octet.
    fn heap_bound(rules: usize, anchor_bytes: usize) -> usize {
        rules * std::mem::size_of::<Key>().max(std::mem::size_of::<Wild>() + 8)
            + (anchor_bytes + 1) * Anchors::BYTES_PER_STATE
    }
}

impl AgentRules {
    /// Finds the best rule by longest match and, when `first_match` is set,
    /// the earliest matching rule in file order, through the index.
    /// `tries` counts down the wildcard patterns tried; the search gives up
    /// (returns `None`) when it reaches zero.
    fn search(&self, path: &[u8], first_match: bool, tries: &mut u64) -> Option<(u32, u32)> {
        let index = self.index();
        let (rules, normalized) = (&self.rules[..], &self.normalized[..]);
        let key = |i: u32| slice(normalized, index.keys[i as usize].bytes);
        let mut found = Found { best: NONE, first: NONE };
        let mut exhausted = false;
        // The greatest key not after the path; its prefix chain holds the
        // longest key that is a prefix of the path.
        let upper = index.keys.partition_point(|k| slice(normalized, k.bytes) <= path);
        if upper > 0 {
            let mut i = upper as u32 - 1;
            if key(i) == path {
                let k = &index.keys[i as usize];
                found.offer(rules, k.exact, false);
                if first_match {
                    found.offer(rules, k.first_exact, true);
                }
            }
            while i != NONE && !path.starts_with(key(i)) {
                i = index.keys[i as usize].parent;
            }
            while i != NONE {
                let k = &index.keys[i as usize];
                found.offer(rules, k.prefix, false);
                if first_match {
                    found.offer(rules, k.first_prefix, true);
                }
                i = k.parent;
            }
        }
        index.anchors.find_all(path, |anchor| {
            let (start, end) = index.anchor_groups[anchor as usize];
            for w in &index.wild[start as usize..end as usize] {
                if *tries == 0 {
                    exhausted = true;
                    return;
                }
                let wins = better(rules, w.rule, found.best);
                if !wins && !first_match {
                    // Sorted best first: nothing after this can win either.
                    break;
                }
                if !wins && !earlier(w.rule, found.first) {
                    continue;
                }
                *tries -= 1;
                if matches(slice(normalized, w.pattern), w.anchored, path) {
                    found.offer(rules, w.rule, first_match);
                }
            }
        });
        (!exhausted).then_some((found.best, found.first))
    }

    fn decision(&self, rule: u32) -> Decision<'_> {
        if rule == NONE {
            return Decision::IMPLICIT;
        }
        let r = &self.rules[rule as usize];
        Decision {
            verdict: match r.directive {
                Directive::Allow => MatchVerdict::AllowedExplicit,
                Directive::Disallow => MatchVerdict::DisallowedExplicit,
            },
            rule: Some(RuleRef {
                line: r.line,
                directive: r.directive,
                pattern: &self.pattern_text[r.pattern.0 as usize..r.pattern.1 as usize],
            }),
        }
    }

    /// Decides one URL (absolute, or a path starting with `/`).
    #[inline]
    pub fn decide(&self, url: &str) -> Decision<'_> {
        let Some(path) = matchable_path(url.as_bytes()) else {
            return Decision::IMPLICIT;
        };
        let scan = self.scan_next();
        let as_given = self.decide_path(&path, scan);
        match merged_slashes(&path) {
            Some(merged) => stricter(as_given, self.decide_path(&merged, scan)),
            None => as_given,
        }
    }

    fn decide_path(&self, path: &[u8], scan: bool) -> Decision<'_> {
        if scan {
            return self.decision(self.scan(path));
        }
        let mut unlimited = u64::MAX;
        let best = self.search(path, false, &mut unlimited).map_or(NONE, |(best, _)| best);
        self.decision(best)
    }

    /// The longest-match decision and the first-match decision for a
    /// normalised path, lint's comparison; `None` once `tries` wildcard
    /// patterns have been tried (`tries` counts down across calls).
    pub(crate) fn decide_both_within(&self, path: &[u8], tries: &mut u64) -> Option<(Decision<'_>, Decision<'_>)> {
        let (best, first) = self.search(path, true, tries)?;
        Some((self.decision(best), self.decision(first)))
    }

    /// Whether the agent may fetch `url`.
    pub fn is_allowed(&self, url: &str) -> bool {
        self.decide(url).is_allowed()
    }

    /// Roughly the bytes these rules hold on the heap, for caches that count
    /// what they keep. The index counts before it is built, at its upper
    /// bound, so a cached value never grows past its weight.
    pub fn heap_bytes(&self) -> usize {
        let index = match self.index.get() {
            Some(index) => index.heap_bytes(),
            None if self.rules.len() <= SCAN_RULES => 0,
            None => Index::heap_bound(self.rules.len(), self.anchor_bytes),
        };
        std::mem::size_of::<AgentRules>()
            + self.rules.capacity() * std::mem::size_of::<Rule>()
            + self.pattern_text.capacity()
            + self.normalized.capacity()
            + index
            + self.content_signals.capacity() * std::mem::size_of::<ContentSignal>()
            + self.content_usage.capacity() * std::mem::size_of::<ContentUsageRule>()
            + self.content_usage.iter().map(|r| r.heap_bytes()).sum::<usize>()
    }

    /// The number of rules (Allow and Disallow) that apply to the agent.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether no rule applies to the agent (everything is allowed).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The agent's `Crawl-delay` in seconds, if its groups set one.
    pub fn crawl_delay(&self) -> Option<f64> {
        self.crawl_delay
    }

    /// The `Content-Signal` preferences for the agent.
    pub fn content_signals(&self) -> &[ContentSignal] {
        &self.content_signals
    }

    /// The agent's `Content-Usage` rules, in file order.
    pub fn content_usage_rules(&self) -> &[ContentUsageRule] {
        &self.content_usage
    }

    /// The `Content-Usage` rules that decide `url` (absolute, or a path
    /// starting with `/`): those of the longest matching path, with their
    /// statements combined (draft-ietf-aipref-attach-05 §3.1); `None` when
    /// none matches, or for `/robots.txt`.
    pub fn content_usage(&self, url: &str) -> Option<ContentUsageMatch<'_>> {
        content_usage_for(&self.content_usage, url)
    }
}
