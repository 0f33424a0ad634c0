//! A finding's code, severity and message: what the parser and the lint
//! checks both report.
//!
//! Codes never change meaning once published; new checks get new codes.

use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Crawlers may read the file differently from what its author meant.
    Warning,
    /// Part of the file has no effect, or the file is not a robots.txt.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

crate::codes::diagnostic_codes! {
    /// A stable robots.txt lint code (`R001`…).
    LintCode, "R001";
    OrphanRule = "R001", "orphan-rule", Error,
        "An Allow or Disallow rule before the first User-agent line: RFC 9309 parsers ignore it.";
    UnknownRecord = "R002", "unknown-record", Info,
        "A record that no crawler documents; it is kept as evidence and has no effect.";
    LegacyRecord = "R003", "legacy-record", Warning,
        "An unsupported legacy record such as Noindex; use meta robots or X-Robots-Tag instead.";
    MisspelledDirective = "R004", "misspelled-directive", Warning,
        "A key accepted only by lenient parsers (Dissallow, User-agents, Site-map).";
    MissingColon = "R005", "missing-colon", Warning,
        "A record without its colon, accepted only by lenient parsers.";
    InvalidProductToken = "R006", "invalid-product-token", Warning,
        "A User-agent value that is not a bare product token ([A-Za-z_-]+).";
    FileTooLarge = "R007", "file-too-large", Warning,
        "The file is over 500 KiB; crawlers may ignore everything after that.";
    HtmlBody = "R008", "html-body", Error,
        "The body is an HTML page, not a robots.txt.";
    BinaryBody = "R009", "binary-body", Error,
        "The body is binary data, not a robots.txt.";
    EmptyGroup = "R010", "empty-group", Warning,
        "A User-agent group without rules: those agents may fetch everything and ignore the * group.";
    MatchOrderConflict = "R011", "match-order-conflict", Warning,
        "Longest-match (RFC 9309) and first-match crawlers reach different verdicts for some URLs.";
    InvalidLine = "R012", "invalid-line", Warning,
        "A line that is not a `key: value` record.";
    LineTooLong = "R013", "line-too-long", Warning,
        "A line longer than 16,663 bytes; the rest of it is ignored.";
    PatternNeverMatches = "R014", "pattern-never-matches", Warning,
        "A pattern that starts with neither / nor *, so it matches no URL.";
    InvalidExtensionValue = "R015", "invalid-extension-value", Warning,
        "An extension record whose value does not have the expected form.";
    NoGroups = "R016", "no-groups", Warning,
        "The file has no User-agent group, so it restricts nothing.";
    UnknownAgent = "R017", "unknown-agent", Info,
        "A User-agent token that is not in the known-agents registry (often fine: a niche crawler).";
    MisspelledAgent = "R018", "misspelled-agent", Warning,
        "A User-agent token one or two letters away from a known agent: probably a typo.";
    LegacyAgent = "R019", "legacy-agent", Warning,
        "A legacy token (anthropic-ai) without the token that replaced it (ClaudeBot).";
    GarbledBody = "R020", "garbled-body", Warning,
        "NUL or control bytes, or HTML, in a file whose groups still parse: the groups are obeyed, a Disallow cut at the \
         first control byte and an Allow holding one dropped, so garbage never opens what readable lines close.";
    DelayOnlyGroup = "R021", "delay-only-group", Warning,
        "A group with Crawl-delay (or other records) but no rules: RFC 9309 merges its User-agent lines into the next \
         group, whose rules then apply to those agents too.";
    Utf16Body = "R022", "utf16-body", Warning,
        "A file in UTF-16 (it starts with a UTF-16 byte order mark): it is decoded and obeyed, but RFC 9309 asks for \
         UTF-8 and crawlers that read it as bytes find no rules in it.";
}

impl fmt::Display for LintCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LintCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// One finding: code, severity, line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code.
    pub code: LintCode,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line it points at; `None` for the whole file.
    pub line: Option<u32>,
    /// What is wrong and, where it helps, what crawlers do with it.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(code: LintCode, line: Option<u32>, message: String) -> Diagnostic {
        Diagnostic { code, severity: code.severity(), line, message }
    }
}
