//! The robots.txt `Content-Usage` rule of draft-ietf-aipref-attach-05 §3:
//! `Content-Usage: [path] statement`, in a group, scoped to a path.
//!
//! - The value is the rest of the line (the parser already cut it at `#`
//!   and trimmed it); a value that starts with `/` has a path, which ends
//!   at the first SP or HTAB; the statement is what follows that white
//!   space (the ABNF's `1*WS`), else the whole value (§3.2).
//! - The statement is read as the vocabulary says ([`UsageStatement`]),
//!   as bytes; one that is not a Dictionary is kept as unreadable.
//! - A URL's preferences are those of the rules whose path matches it with
//!   the longest match, as for Allow and Disallow (§3.1): the same
//!   normalisation and `*`/`$` patterns, the length counted in octets; a
//!   rule without a path matches everything with length 0. Rules of equal
//!   length (identical paths) combine, the most restrictive winning (§3.1,
//!   vocab §5.1).

use super::normalize::{WILDCARD, normalize_pattern_into};
use super::pattern;
use super::url_path::{matchable_path, merged_slashes};
use crate::signals::{UnreadableStatement, UsageStatement};

/// One `Content-Usage` line of the groups that apply to an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentUsageRule {
    /// The 1-based line number.
    pub line: u32,
    /// The path the rule is scoped to, as written; `None` for every path.
    pub path: Option<String>,
    /// The statement as written.
    pub text: String,
    /// The statement read, or why it cannot be.
    pub statement: Result<UsageStatement, UnreadableStatement>,
    /// The path, normalised like a rule pattern ([`WILDCARD`] for `*`).
    normalized: Vec<u8>,
    anchored: bool,
    /// The precedence length: octets of the normalised path, 0 without one.
    priority: u32,
}

impl ContentUsageRule {
    /// Reads one `Content-Usage` value (`/news/ train-ai=n`).
    pub(crate) fn parse(line: u32, value: &str) -> ContentUsageRule {
        let (path, text) = match value.strip_prefix('/') {
            Some(_) => {
                let end = value.find([' ', '\t']).unwrap_or(value.len());
                (Some(&value[..end]), value[end..].trim_start_matches([' ', '\t']))
            }
            None => (None, value),
        };
        let mut normalized = Vec::new();
        let (anchored, priority) = match path {
            Some(path) => {
                let shape = normalize_pattern_into(path.as_bytes(), &mut normalized);
                (shape.anchored, shape.priority)
            }
            None => (false, 0),
        };
        ContentUsageRule {
            line,
            path: path.map(str::to_string),
            text: text.to_string(),
            statement: UsageStatement::parse(text.as_bytes()),
            normalized,
            anchored,
            priority,
        }
    }

    /// The bytes the rule holds on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.path.as_ref().map_or(0, String::capacity)
            + self.text.capacity()
            + self.normalized.capacity()
            + self.statement.as_ref().err().map_or(0, |e| e.reason.capacity())
    }

    fn matches(&self, path: &[u8]) -> bool {
        self.path.is_none()
            || (matches!(self.normalized.first(), Some(&b'/' | &WILDCARD))
                && pattern::matches(&self.normalized, self.anchored, path))
    }
}

/// The `Content-Usage` rules that decide one URL: those of the longest
/// matching path, and their statements combined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentUsageMatch<'a> {
    /// The rules of the longest matching path (several when their paths are
    /// equally long), in file order.
    pub rules: Vec<&'a ContentUsageRule>,
    /// Their readable statements combined, the most restrictive winning.
    pub statement: UsageStatement,
}

/// The rules of the longest matching path for `url` (absolute, or a path
/// starting with `/`), or `None` when no rule matches it.
pub(crate) fn content_usage_for<'a>(rules: &'a [ContentUsageRule], url: &str) -> Option<ContentUsageMatch<'a>> {
    if rules.is_empty() {
        return None;
    }
    let path = matchable_path(url.as_bytes())?;
    let merged = merged_slashes(&path);
    let matching = |rule: &&ContentUsageRule| rule.matches(&path) || merged.as_deref().is_some_and(|m| rule.matches(m));
    let longest = rules.iter().filter(matching).map(|r| r.priority).max()?;
    let rules: Vec<&ContentUsageRule> = rules.iter().filter(|r| r.priority == longest).filter(matching).collect();
    let statement = rules
        .iter()
        .filter_map(|r| r.statement.as_ref().ok())
        .fold(UsageStatement::default(), |acc, s| acc.combine(*s));
    Some(ContentUsageMatch { rules, statement })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::Robots;
    use crate::signals::Preference::{Allowed, Disallowed, Unknown};

    /// draft-ietf-aipref-attach-05 §3.4, Figure 2 and Table 1, verbatim:
    /// "A crawler that identifies as "ExampleBot" uses the second group ...
    /// All other crawlers use the first group. ... those under "/ai-ok/"
    /// have an associated usage preference of "train-ai=y" and all other
    /// resources have a usage preference of "train-ai=n"."
    #[test]
    fn the_attachment_drafts_example() {
        let body = "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n\
                    Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n";
        let robots = Robots::parse(body.as_bytes());
        let other = robots.rules_for("OtherBot");
        let train =
            |rules: &crate::robots::AgentRules, path: &str| rules.content_usage(path).unwrap().statement.train_ai;
        // Table 1: /test -> train-ai=n; /ai-ok/test -> train-ai=y.
        assert_eq!(train(&other, "/test"), Disallowed);
        assert_eq!(train(&other, "/ai-ok/test"), Allowed);
        // /never/test: not crawlable; the preference does not matter then,
        // and the rules still name one (the crawler is refused first).
        assert!(!other.decide("/never/test").is_allowed());
        let example = robots.rules_for("ExampleBot");
        assert_eq!(train(&example, "/test"), Allowed);
        assert_eq!(train(&example, "/ai-ok/test"), Allowed);
    }

    #[test]
    fn the_longest_path_wins_and_identical_paths_combine() {
        let body = "User-agent: *\nContent-Usage: /a/ train-ai=y, search=y\nContent-Usage: /a/b train-ai=n\n\
                    Content-Usage: /a/ search=n\nContent-Usage: /p*q$ search=n\nContent-Usage: /x%2Fy train-ai=n\n";
        let rules = Robots::parse(body.as_bytes()).rules_for("bot");
        let statement = |url: &str| rules.content_usage(url).map(|m| (m.statement.train_ai, m.statement.search));
        assert_eq!(statement("/a/x"), Some((Allowed, Disallowed)), "identical paths: most restrictive");
        assert_eq!(statement("https://example.com/a/b/c"), Some((Disallowed, Unknown)), "longest path");
        assert_eq!(statement("/pzzq"), Some((Unknown, Disallowed)), "patterns as for Allow/Disallow");
        assert_eq!(statement("/pzzq/r"), None, "`$` anchors the end");
        assert_eq!(statement("/x%2fy"), Some((Disallowed, Unknown)), "percent-escapes normalised");
        assert_eq!(statement("/other"), None);
        assert_eq!(statement("https://example.com//a//b"), Some((Disallowed, Unknown)), "merged slashes too");
    }

    #[test]
    fn values_are_split_as_the_draft_says() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            ("train-ai=n", None, "train-ai=n"),
            ("/news/ train-ai=n", Some("/news/"), "train-ai=n"),
            ("/news/\t \ttrain-ai=n", Some("/news/"), "train-ai=n"),
            ("/news/", Some("/news/"), ""),
            ("search=n, train-ai=y", None, "search=n, train-ai=y"),
        ];
        for (value, path, text) in rows {
            let rule = ContentUsageRule::parse(1, value);
            assert_eq!((rule.path.as_deref(), rule.text.as_str()), (*path, *text), "{value:?}");
        }
        let unreadable = ContentUsageRule::parse(3, "/x Train-AI=n");
        assert!(unreadable.statement.is_err());
        let body = "User-agent: *\nContent-Usage: /x Train-AI=n\n";
        let rules = Robots::parse(body.as_bytes()).rules_for("bot");
        let found = rules.content_usage("/x/1").unwrap();
        assert!(found.statement.is_unknown(), "an unreadable statement refuses nothing");
        assert!(found.rules[0].statement.is_err());
    }

    /// A `Content-Usage` line of 100,000 members (about 900 KB) is past
    /// the 500 KiB parse limit, which drops the line it cuts; one of 2,000
    /// members (20 KB) is cut at the line limit (16,663 bytes) and what is
    /// left is read. Both in time linear in the body.
    #[test]
    fn a_line_of_100000_members_is_bounded() {
        let line = |n: usize| {
            let members: Vec<String> = (0..n).map(|i| format!("k{i}=n")).collect();
            format!("User-agent: *\nContent-Usage: /a/ train-ai=n, {}\n", members.join(", "))
        };
        let started = std::time::Instant::now();
        let huge = Robots::parse(line(100_000).as_bytes()).rules_for("bot");
        assert!(huge.content_usage("/a/b").is_none(), "the line the parse limit cuts is dropped");
        let long = Robots::parse(line(2_000).as_bytes()).rules_for("bot");
        let found = long.content_usage("/a/b").expect("the rule, cut at the line limit");
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(found.rules[0].text.len() < 16_663);
        // The cut falls inside a member or after a comma: either way
        // nothing is read past what the text says.
        match &found.rules[0].statement {
            Ok(statement) => assert_eq!(statement.train_ai, Disallowed),
            Err(unreadable) => assert!(!unreadable.reason.is_empty()),
        }
    }
}
