//! The rules for one agent, compiled for fast repeated decisions.
//!
//! Every pattern is split at its first `*` into a literal head and the rest.
//! Heads go into a byte trie, so walking the path down the trie visits
//! exactly the heads that are prefixes of the path, in time proportional to
//! the path length, however many rules there are:
//!
//! - a pattern with no `*` (after dropping trailing `*`s, which change
//!   nothing but its precedence length) is decided at its trie node: each
//!   node keeps only its best prefix rule and its best `$`-anchored rule;
//! - a pattern with a `*` inside hangs at the node of its head, sorted by
//!   precedence, and is tried only when the walk reaches that node and only
//!   while it could still beat the best match so far. A 256-bit set of the
//!   octets the pattern needs lets most of them be rejected without a scan.

use super::model::{
    ContentSignal, Decision, Directive, MatchVerdict, Robots, RuleEntry, RuleRef, content_signals_in, crawl_delay_in,
};
use super::normalize::WILDCARD;
use super::pattern::matches;
use super::url_path::matchable_path;

const NONE: u32 = u32::MAX;

/// One compiled rule: what is needed to rank it and to report it.
#[derive(Debug, Clone)]
struct Rule {
    directive: Directive,
    line: u32,
    priority: u32,
    /// Position in the agent's rules in file order (for first-match lint).
    order: u32,
    pattern: Box<str>,
}

#[derive(Debug, Clone, Default)]
struct Node {
    edges: (u32, u32),
    prefix: u32,
    exact: u32,
    first_prefix: u32,
    first_exact: u32,
    hanging: (u32, u32),
}

#[derive(Debug, Clone)]
struct Hanging {
    rule: u32,
    pattern: (u32, u32),
    anchored: bool,
    needs: [u64; 4],
}

/// The rules that apply to one agent, indexed for fast decisions.
///
/// Made by [`Robots::rules_for`]. It owns its data, so it can be cached and
/// shared between threads independently of the [`Robots`] it came from.
#[derive(Debug, Clone)]
pub struct AgentRules {
    rules: Vec<Rule>,
    nodes: Vec<Node>,
    edge_bytes: Vec<u8>,
    edge_targets: Vec<u32>,
    hanging: Vec<Hanging>,
    hanging_bytes: Vec<u8>,
    crawl_delay: Option<f64>,
    content_signals: Vec<ContentSignal>,
}

#[derive(Default)]
struct BuildNode {
    children: Vec<(u8, u32)>,
    prefix: u32,
    exact: u32,
    first_prefix: u32,
    first_exact: u32,
    hanging: Vec<Hanging>,
}

fn byte_set(bytes: &[u8]) -> [u64; 4] {
    let mut set = [0u64; 4];
    for &b in bytes {
        if b != WILDCARD {
            set[usize::from(b >> 6)] |= 1 << (b & 63);
        }
    }
    set
}

/// Longest-match precedence, as `model::outranks`: longer wins, Allow wins a
/// tie, and between equals the earlier rule in file order. The walk meets
/// rules by trie depth, not file order, so the last clause must be explicit
/// for the reported rule to be the one `Robots::decide` reports.
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
        let mut nodes =
            vec![BuildNode { prefix: NONE, exact: NONE, first_prefix: NONE, first_exact: NONE, ..Default::default() }];
        let mut hanging_bytes = Vec::new();
        for (order, entry) in entries.iter().enumerate() {
            let id = rules.len() as u32;
            rules.push(Rule {
                directive: entry.directive,
                line: entry.line,
                priority: entry.priority,
                order: order as u32,
                pattern: robots.str(&entry.raw).into(),
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
            let wild = pattern.iter().position(|&b| b == WILDCARD);
            let head = &pattern[..wild.unwrap_or(pattern.len())];
            let mut node = 0usize;
            for &b in head {
                node = match nodes[node].children.iter().find(|(c, _)| *c == b) {
                    Some(&(_, next)) => next as usize,
                    None => {
                        let next = nodes.len();
                        nodes.push(BuildNode {
                            prefix: NONE,
                            exact: NONE,
                            first_prefix: NONE,
                            first_exact: NONE,
                            ..Default::default()
                        });
                        nodes[node].children.push((b, next as u32));
                        next
                    }
                };
            }
            let n = &mut nodes[node];
            if wild.is_some() {
                let start = hanging_bytes.len() as u32;
                hanging_bytes.extend_from_slice(pattern);
                n.hanging.push(Hanging {
                    rule: id,
                    pattern: (start, hanging_bytes.len() as u32),
                    anchored,
                    needs: byte_set(&pattern[head.len()..]),
                });
            } else if anchored {
                if better(&rules, id, n.exact) {
                    n.exact = id;
                }
                if earlier(&rules, id, n.first_exact) {
                    n.first_exact = id;
                }
            } else {
                if better(&rules, id, n.prefix) {
                    n.prefix = id;
                }
                if earlier(&rules, id, n.first_prefix) {
                    n.first_prefix = id;
                }
            }
        }
        // Freeze into flat arrays; hanging patterns best-first, so the scan
        // can stop at the first one that could no longer win.
        let mut out = AgentRules {
            rules: Vec::new(),
            nodes: Vec::with_capacity(nodes.len()),
            edge_bytes: Vec::new(),
            edge_targets: Vec::new(),
            hanging: Vec::new(),
            hanging_bytes,
            crawl_delay: crawl_delay_in(robots, groups),
            content_signals: content_signals_in(robots, groups),
        };
        for mut n in nodes {
            n.children.sort_unstable_by_key(|&(b, _)| b);
            let edges = (out.edge_bytes.len() as u32, n.children.len() as u32);
            out.edge_bytes.extend(n.children.iter().map(|&(b, _)| b));
            out.edge_targets.extend(n.children.iter().map(|&(_, t)| t));
            n.hanging.sort_by(|a, b| {
                let (ra, rb) = (&rules[a.rule as usize], &rules[b.rule as usize]);
                rb.priority
                    .cmp(&ra.priority)
                    .then((ra.directive == Directive::Disallow).cmp(&(rb.directive == Directive::Disallow)))
                    .then(ra.order.cmp(&rb.order))
            });
            let hanging = (out.hanging.len() as u32, n.hanging.len() as u32);
            out.hanging.append(&mut n.hanging);
            out.nodes.push(Node {
                edges,
                prefix: n.prefix,
                exact: n.exact,
                first_prefix: n.first_prefix,
                first_exact: n.first_exact,
                hanging,
            });
        }
        out.rules = rules;
        out
    }

    #[inline]
    fn child(&self, node: &Node, b: u8) -> Option<&Node> {
        let (start, len) = (node.edges.0 as usize, node.edges.1 as usize);
        let bytes = &self.edge_bytes[start..start + len];
        let i = if len <= 8 { bytes.iter().position(|&c| c == b)? } else { bytes.binary_search(&b).ok()? };
        Some(&self.nodes[self.edge_targets[start + i] as usize])
    }

    /// Walks `path` and returns the best rule by longest match and, when
    /// `first_match` is set, the earliest matching rule in file order.
    fn walk(&self, path: &[u8], first_match: bool) -> (u32, u32) {
        let mut best = NONE;
        let mut first = NONE;
        let mut path_set: Option<[u64; 4]> = None;
        let mut node = &self.nodes[0];
        let mut depth = 0;
        loop {
            if node.prefix != NONE && better(&self.rules, node.prefix, best) {
                best = node.prefix;
            }
            if first_match && node.first_prefix != NONE && earlier(&self.rules, node.first_prefix, first) {
                first = node.first_prefix;
            }
            if depth == path.len() {
                if node.exact != NONE && better(&self.rules, node.exact, best) {
                    best = node.exact;
                }
                if first_match && node.first_exact != NONE && earlier(&self.rules, node.first_exact, first) {
                    first = node.first_exact;
                }
            }
            let (start, len) = (node.hanging.0 as usize, node.hanging.1 as usize);
            for h in &self.hanging[start..start + len] {
                if !first_match && !better(&self.rules, h.rule, best) {
                    break;
                }
                if first_match && !better(&self.rules, h.rule, best) && !earlier(&self.rules, h.rule, first) {
                    continue;
                }
                let set = path_set.get_or_insert_with(|| byte_set(path));
                if (0..4).any(|i| h.needs[i] & !set[i] != 0) {
                    continue;
                }
                let pattern = &self.hanging_bytes[h.pattern.0 as usize..h.pattern.1 as usize];
                if matches(pattern, h.anchored, path) {
                    if better(&self.rules, h.rule, best) {
                        best = h.rule;
                    }
                    if first_match && earlier(&self.rules, h.rule, first) {
                        first = h.rule;
                    }
                }
            }
            if depth == path.len() {
                break;
            }
            match self.child(node, path[depth]) {
                Some(next) => node = next,
                None => break,
            }
            depth += 1;
        }
        (best, first)
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
            rule: Some(RuleRef { line: r.line, directive: r.directive, pattern: &r.pattern }),
        }
    }

    /// Decides one URL (absolute, or a path starting with `/`).
    #[inline]
    pub fn decide(&self, url: &str) -> Decision<'_> {
        match matchable_path(url.as_bytes()) {
            None => Decision::IMPLICIT,
            Some(path) => self.decision(self.walk(&path, false).0),
        }
    }

    /// The longest-match decision and the first-match decision for a
    /// normalised path: lint compares them.
    pub(crate) fn decide_both(&self, path: &[u8]) -> (Decision<'_>, Decision<'_>) {
        let (best, first) = self.walk(path, true);
        (self.decision(best), self.decision(first))
    }

    /// Whether the agent may fetch `url`.
    pub fn is_allowed(&self, url: &str) -> bool {
        self.decide(url).is_allowed()
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
