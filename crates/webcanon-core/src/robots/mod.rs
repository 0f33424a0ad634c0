//! The Robots Exclusion Protocol, [RFC 9309](https://www.rfc-editor.org/rfc/rfc9309.html).
//!
//! [`Robots::parse`] reads a robots.txt body once, leniently (like Google's
//! reference parser), and keeps every record with its line number. Then:
//!
//! - [`Robots::decide`] answers one `(agent, URL)` question by scanning the
//!   rules that apply to the agent;
//! - [`Robots::rules_for`] compiles the agent's rules into an [`AgentRules`]
//!   index, which decides URLs in time proportional to the path length, not
//!   to the number of rules: use it to check many URLs for one agent;
//! - [`Robots::lint`] reports what a site owner should fix, each finding with
//!   a stable code ([`LintCode`]).
//!
//! Group selection, precedence and normalisation follow RFC 9309 (§2.2.1
//! to §2.2.3), where it leaves room as Google's reference parser reads it:
//! the agent's product token is compared for equality
//! (case-insensitively) with each group's token; all matching groups merge;
//! `*` applies only when no group names the agent; the longest matching
//! pattern wins and Allow wins a tie; `/robots.txt` is always allowed.

mod anchors;
mod compiled;
mod content_usage;
mod diagnostic;
mod limits;
mod lint;
mod model;
mod normalize;
mod parse;
mod pattern;
mod url_path;
mod utf16;

pub use compiled::AgentRules;
pub use content_usage::{ContentUsageMatch, ContentUsageRule};
pub use diagnostic::{Diagnostic, LintCode, Severity};
pub use limits::{MAX_LINE_BYTES, MAX_PARSE_BYTES};
pub use model::{
    ContentSignal, Decision, Directive, Group, MatchVerdict, NotRobots, Record, RecordClass, RecordKind, Robots,
    RuleRef, UserAgent,
};
pub use parse::sniff;

/// Whether one rule pattern matches `url`'s path as given (RFC 9309 §2.2.2:
/// percent-escapes normalised, `*` any run, a final `$` the end), without
/// the merged-slash form or the `/robots.txt` exception a full decision
/// adds. A pattern that starts with neither `/` nor `*` matches nothing.
///
/// ```
/// use webcanon_core::robots::pattern_matches;
/// assert!(pattern_matches("/a*b$", "https://example.com/axxb"));
/// assert!(!pattern_matches("/private", "//private/x"));
/// ```
pub fn pattern_matches(pattern: &str, url: &str) -> bool {
    let mut normalized = Vec::with_capacity(pattern.len());
    let shape = normalize::normalize_pattern_into(pattern.as_bytes(), &mut normalized);
    if !matches!(normalized.first(), Some(&b'/' | &normalize::WILDCARD)) {
        return false;
    }
    let path = url_path::path_of(url.as_bytes());
    let mut path_normalized = Vec::with_capacity(path.len());
    normalize::normalize_path_into(&path, &mut path_normalized);
    pattern::matches(&normalized, shape.anchored, &path_normalized)
}

/// A URL's path normalised once, to be matched against many patterns
/// that are not robots.txt rules (RSL `content` patterns) by the same
/// rules: [`pattern_matches`] without normalising the path each time.
pub(crate) struct MatchablePath(Vec<u8>);

impl MatchablePath {
    /// The normalised path (with query) of `url`.
    pub(crate) fn of(url: &str) -> MatchablePath {
        let path = url_path::path_of(url.as_bytes());
        let mut normalized = Vec::with_capacity(path.len());
        normalize::normalize_path_into(&path, &mut normalized);
        MatchablePath(normalized)
    }

    /// Whether `pattern` matches, and if so its precedence length: octets
    /// after normalisation, `*` and `$` included (RFC 9309 §2.2.2: the
    /// most specific match wins).
    pub(crate) fn matched_by(&self, pattern: &str) -> Option<usize> {
        let mut normalized = Vec::with_capacity(pattern.len());
        let shape = normalize::normalize_pattern_into(pattern.as_bytes(), &mut normalized);
        let rooted = matches!(normalized.first(), Some(&b'/' | &normalize::WILDCARD));
        (rooted && pattern::matches(&normalized, shape.anchored, &self.0)).then_some(shape.priority as usize)
    }
}

/// `path` (a URL path, query allowed) with each run of slashes in its path
/// part merged into one, or `None` when it has none to merge: the second
/// form every decision is made on. `Disallow: /private` also closes
/// `//private/x`, because most servers serve it as `/private/x`; the
/// stricter of the two verdicts wins ([`Robots::decide`]).
///
/// ```
/// use webcanon_core::robots::merged_slashes;
/// assert_eq!(merged_slashes("//private//x?a=//b").as_deref(), Some("/private/x?a=//b"));
/// assert_eq!(merged_slashes("/private/x"), None);
/// ```
pub fn merged_slashes(path: &str) -> Option<String> {
    // Only '/' bytes are removed, so the result is still UTF-8.
    url_path::merged_slashes(path.as_bytes()).map(|b| String::from_utf8(b).unwrap_or_default())
}
