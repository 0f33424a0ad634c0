//! The rules for one agent, compiled for fast repeated decisions.
//!
//! Every pattern is split at its first `*` into a literal head and the rest.
//!
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
//! So a decision costs the path length and a logarithm of the rule count,
//! never a scan of the rules.

use super::anchors::Anchors;
use super::model::{
    ContentSignal, Decision, Directive, MatchVerdict, Robots, RuleEntry, RuleRef, content_signals_in, crawl_delay_in,
    stricter,
};
use super::normalize::WILDCARD;
use super::pattern::matches;
use super::url_path::{matchable_path, merged_slashes};

const NONE: u32 = u32::MAX;

/// One compiled rule: what is needed to rank it and to report it.
#[derive(Debug, Clone)]
struct Rule {
    directive: Directive,
    line: u32,
    priority: u32,
    /// Position in the agent's rules in file order (for first-match lint).
    order: u32,
    /// The pattern as written: a range of `AgentRules::pattern_text`.
    pattern: (u32, u32),
}

/// A distinct literal head.
#[derive(Debug, Clone)]
struct Key {
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
    pattern: (u32, u32),
    anchored: bool,
}

/// The rules that apply to one agent, indexed for fast decisions.
///
/// Made by [`Robots::rules_for`]. It owns its data, so it can be cached and
/// shared between threads independently of the [`Robots`] it came from.
#[derive(Debug, Clone)]
pub struct AgentRules {
    rules: Vec<Rule>,
    /// Every rule's pattern as written, one after the other (one
    /// allocation, not one per rule).
    pattern_text: String,
    keys: Vec<Key>,
    key_bytes: Vec<u8>,
    /// Wildcard patterns grouped by anchor, best first within a group.
    wild: Vec<Wild>,
    wild_bytes: Vec<u8>,
    /// Per anchor id: its range in `wild`.
    anchor_groups: Vec<(u32, u32)>,
    anchors: Anchors,
    crawl_delay: Option<f64>,
    content_signals: Vec<ContentSignal>,
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
                || (c.directive == b.directive && c.order < b.order)))
}

fn earlier(rules: &[Rule], candidate: u32, first: u32) -> bool {
    first == NONE || rules[candidate as usize].order < rules[first as usize].order
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
        if first_match && earlier(rules, rule, self.first) {
            self.first = rule;
        }
    }
}

impl AgentRules {
    pub(crate) fn compile(robots: &Robots, groups: &[usize]) -> AgentRules {
        let selected: Vec<&RuleEntry> = groups
            .iter()
            .flat_map(|&g| {
                let range = &robots.groups[g].rules;
                &robots.rules[range.start as usize..range.end as usize]
            })
            .collect();
        Self::from_entries(robots, &selected, groups)
    }

    /// Compiles `entries` (in file order). Also used by lint, one group at a time.
    pub(crate) fn from_entries(robots: &Robots, entries: &[&RuleEntry], groups: &[usize]) -> AgentRules {
        let mut rules = Vec::with_capacity(entries.len());
        let mut pattern_text = String::with_capacity(entries.iter().map(|e| (e.raw.end - e.raw.start) as usize).sum());
        // (head, rule, anchored) for literal patterns.
        let mut literals: Vec<(&[u8], u32, bool)> = Vec::new();
        // (pattern, anchor, rule, anchored) for wildcard patterns.
        let mut wilds: Vec<(&[u8], &[u8], u32, bool)> = Vec::new();
        for (order, entry) in entries.iter().enumerate() {
            let id = rules.len() as u32;
            rules.push(Rule {
                directive: entry.directive,
                line: entry.line,
                priority: entry.priority,
                order: order as u32,
                pattern: {
                    let start = pattern_text.len() as u32;
                    pattern_text.push_str(robots.str(&entry.raw));
                    (start, pattern_text.len() as u32)
                },
            });
            if !entry.matchable {
                continue;
            }
            let mut pattern = robots.normalized(entry);
            let mut anchored = entry.anchored;
            // Trailing wildcards only lengthen the pattern: `/a*` and `/a*$`
            // match exactly what `/a` matches.
            while let [rest @ .., WILDCARD] = pattern {
                pattern = rest;
                anchored = false;
            }
            match memchr::memchr(WILDCARD, pattern) {
                None => literals.push((pattern, id, anchored)),
                Some(first) => {
                    let anchor = pattern[first + 1..]
                        .split(|&b| b == WILDCARD)
                        .max_by_key(|piece| piece.len())
                        .unwrap_or_default();
                    wilds.push((pattern, anchor, id, anchored));
                }
            }
        }

        // Literal keys: sort, dedupe, link each to its longest prefix key.
        literals.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut keys: Vec<Key> = Vec::new();
        let mut key_bytes = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        for (head, id, anchored) in literals {
            let same = keys.last().is_some_and(|k: &Key| &key_bytes[k.bytes.0 as usize..k.bytes.1 as usize] == head);
            if !same {
                let start = key_bytes.len() as u32;
                key_bytes.extend_from_slice(head);
                while let Some(&top) = stack.last() {
                    let k = &keys[top as usize];
                    if head.starts_with(&key_bytes[k.bytes.0 as usize..k.bytes.1 as usize]) {
                        break;
                    }
                    stack.pop();
                }
                keys.push(Key {
                    bytes: (start, key_bytes.len() as u32),
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
            if better(&rules, id, *best) {
                *best = id;
            }
            if earlier(&rules, id, *first) {
                *first = id;
            }
        }

        // Wildcard patterns: group by anchor, best first within a group.
        wilds.sort_by(|a, b| {
            let (ra, rb) = (&rules[a.2 as usize], &rules[b.2 as usize]);
            a.1.cmp(b.1)
                .then(rb.priority.cmp(&ra.priority))
                .then((ra.directive == Directive::Disallow).cmp(&(rb.directive == Directive::Disallow)))
                .then(ra.order.cmp(&rb.order))
        });
        let mut wild = Vec::with_capacity(wilds.len());
        let mut wild_bytes = Vec::new();
        let mut anchor_list: Vec<&[u8]> = Vec::new();
        let mut anchor_groups: Vec<(u32, u32)> = Vec::new();
        for (pattern, anchor, id, anchored) in &wilds {
            if anchor_list.last() != Some(anchor) {
                anchor_list.push(anchor);
                anchor_groups.push((wild.len() as u32, wild.len() as u32));
            }
            let start = wild_bytes.len() as u32;
            wild_bytes.extend_from_slice(pattern);
            wild.push(Wild { rule: *id, pattern: (start, wild_bytes.len() as u32), anchored: *anchored });
            if let Some(group) = anchor_groups.last_mut() {
                group.1 = wild.len() as u32;
            }
        }
        AgentRules {
            rules,
            pattern_text,
            keys,
            key_bytes,
            wild,
            wild_bytes,
            anchors: Anchors::new(&anchor_list),
            anchor_groups,
            crawl_delay: crawl_delay_in(robots, groups),
            content_signals: content_signals_in(robots, groups),
        }
    }

    fn key(&self, i: u32) -> &[u8] {
        let k = &self.keys[i as usize];
        &self.key_bytes[k.bytes.0 as usize..k.bytes.1 as usize]
    }

    /// Finds the best rule by longest match and, when `first_match` is set,
    /// the earliest matching rule in file order.
    /// `tries` counts down the wildcard patterns tried; the search gives up
    /// (returns `None`) when it reaches zero.
    fn search(&self, path: &[u8], first_match: bool, tries: &mut u64) -> Option<(u32, u32)> {
        let mut found = Found { best: NONE, first: NONE };
        let mut exhausted = false;
        // The greatest key not after the path; its prefix chain holds the
        // longest key that is a prefix of the path.
        let upper = self.keys.partition_point(|k| &self.key_bytes[k.bytes.0 as usize..k.bytes.1 as usize] <= path);
        if upper > 0 {
            let mut i = upper as u32 - 1;
            if self.key(i) == path {
                let k = &self.keys[i as usize];
                found.offer(&self.rules, k.exact, false);
                if first_match {
                    found.offer(&self.rules, k.first_exact, true);
                }
            }
            while i != NONE && !path.starts_with(self.key(i)) {
                i = self.keys[i as usize].parent;
            }
            while i != NONE {
                let k = &self.keys[i as usize];
                found.offer(&self.rules, k.prefix, false);
                if first_match {
                    found.offer(&self.rules, k.first_prefix, true);
                }
                i = k.parent;
            }
        }
        self.anchors.find_all(path, |anchor| {
            let (start, end) = self.anchor_groups[anchor as usize];
            for w in &self.wild[start as usize..end as usize] {
                if *tries == 0 {
                    exhausted = true;
                    return;
                }
                let wins = better(&self.rules, w.rule, found.best);
                if !wins && !first_match {
                    // Sorted best first: nothing after this can win either.
                    break;
                }
                if !wins && !earlier(&self.rules, w.rule, found.first) {
                    continue;
                }
                *tries -= 1;
                let pattern = &self.wild_bytes[w.pattern.0 as usize..w.pattern.1 as usize];
                if matches(pattern, w.anchored, path) {
                    found.offer(&self.rules, w.rule, first_match);
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
        let as_given = self.decide_path(&path);
        match merged_slashes(&path) {
            Some(merged) => stricter(as_given, self.decide_path(&merged)),
            None => as_given,
        }
    }

    fn decide_path(&self, path: &[u8]) -> Decision<'_> {
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
    /// what they keep.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<AgentRules>()
            + self.rules.capacity() * std::mem::size_of::<Rule>()
            + self.pattern_text.capacity()
            + self.keys.capacity() * std::mem::size_of::<Key>()
            + self.key_bytes.capacity()
            + self.wild.capacity() * std::mem::size_of::<Wild>()
            + self.wild_bytes.capacity()
            + self.anchor_groups.capacity() * 8
            + self.anchors.heap_bytes()
            + self.content_signals.capacity() * std::mem::size_of::<ContentSignal>()
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

    /// The `Content-Signal` and `Content-Usage` preferences for the agent.
    pub fn content_signals(&self) -> &[ContentSignal] {
        &self.content_signals
    }
}
