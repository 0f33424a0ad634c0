//! ai.txt: Spawning's training opt-out file (<https://site.spawning.ai/spawning-ai-txt>).
//!
//! The format is robots.txt's grammar ([RFC 9309](https://www.rfc-editor.org/rfc/rfc9309.html))
//! over file paths and extension globs: `User-Agent: *`, `Disallow: *.jpg`,
//! `Allow: /docs/`. Where robots.txt says whether a URL may be fetched,
//! ai.txt says whether a fetched file may be used to train a model.
//!
//! Other, unrelated files are also published as `/ai.txt` (free-form
//! permission lists such as `Training: yes`), and HTML pages are served
//! there by catch-all routes. [`AiTxt::parse`] classifies what was found
//! ([`AiTxtKind`]) and reads rules only from the Spawning form. Like every
//! page signal, the result is a usage warning, never a fetch block.
//!
//! ```
//! use webcanon_core::ai_txt::{AiTxt, AiTxtKind, TrainingVerdict};
//!
//! let file = AiTxt::parse("User-Agent: *\nDisallow: *.jpg\nAllow: /docs/\n");
//! assert_eq!(file.kind, AiTxtKind::Spawning);
//! assert_eq!(file.decide("ExampleBot", "/images/cat.JPG").verdict, TrainingVerdict::Disallowed);
//! assert_eq!(file.decide("ExampleBot", "https://example.com/docs/a.html").verdict, TrainingVerdict::Allowed);
//! assert_eq!(file.decide("ExampleBot", "/notes.txt").verdict, TrainingVerdict::NoRule);
//! ```

use crate::robots::Directive;
pub use crate::robots::Severity;

/// What was found at `/ai.txt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum AiTxtKind {
    /// Spawning's format: `User-Agent` groups with `Allow`/`Disallow` rules.
    Spawning,
    /// Some other text published as ai.txt (key/value permissions, prose);
    /// its records are kept in [`AiTxt::records`] as evidence.
    Other,
    /// An HTML page.
    Html,
    /// Nothing but whitespace and comments.
    Empty,
}

/// A stable ai.txt diagnostic code (`A001`…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum AiTxtCode {
    /// `A001`: the body is an HTML page.
    HtmlBody,
    /// `A002`: the file is not in Spawning's format; no rule was read.
    NotSpawning,
    /// `A003`: a rule before any `User-Agent` line; it applies to no one.
    OrphanRule,
    /// `A004`: a line that is not a `key: value` record.
    InvalidLine,
    /// `A005`: a key Spawning's format does not define; kept, no effect.
    UnknownKey,
    /// `A006`: the file holds no record.
    Empty,
}

impl AiTxtCode {
    /// The code, e.g. `A001`.
    pub fn code(self) -> &'static str {
        match self {
            AiTxtCode::HtmlBody => "A001",
            AiTxtCode::NotSpawning => "A002",
            AiTxtCode::OrphanRule => "A003",
            AiTxtCode::InvalidLine => "A004",
            AiTxtCode::UnknownKey => "A005",
            AiTxtCode::Empty => "A006",
        }
    }

    /// The severity findings of this code have.
    pub fn severity(self) -> Severity {
        match self {
            AiTxtCode::HtmlBody | AiTxtCode::OrphanRule => Severity::Error,
            AiTxtCode::NotSpawning | AiTxtCode::InvalidLine | AiTxtCode::Empty => Severity::Warning,
            AiTxtCode::UnknownKey => Severity::Info,
        }
    }
}

/// One finding: code, severity, line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code.
    pub code: AiTxtCode,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line; `None` for the whole file.
    pub line: Option<u32>,
    /// What is wrong.
    pub message: String,
}

/// One `Allow` or `Disallow` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rule {
    /// The 1-based line.
    pub line: u32,
    /// Allow or Disallow.
    #[cfg_attr(feature = "serde", serde(serialize_with = "directive_str"))]
    pub directive: Directive,
    /// The pattern as written (`*.jpg`, `/docs/`).
    pub pattern: String,
}

#[cfg(feature = "serde")]
fn directive_str<S: serde::Serializer>(d: &Directive, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.as_str())
}

/// A group: its user agents and rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Group {
    /// The `User-Agent` values as written.
    pub agents: Vec<String>,
    /// The rules in file order.
    pub rules: Vec<Rule>,
}

/// Any other `key: value` line, kept as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Record {
    /// The 1-based line.
    pub line: u32,
    /// The key as written.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
}

/// Whether training on a file is permitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TrainingVerdict {
    /// An `Allow` rule was the best match.
    Allowed,
    /// A `Disallow` rule was the best match: the owner opts out.
    Disallowed,
    /// No rule matched (or the file is not Spawning's format): ai.txt says nothing.
    NoRule,
}

/// The answer for one file, with the rule that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrainingDecision<'a> {
    /// What the rules say.
    pub verdict: TrainingVerdict,
    /// The deciding rule.
    pub rule: Option<&'a Rule>,
}

/// A parsed ai.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AiTxt {
    /// What the file is.
    pub kind: AiTxtKind,
    /// The groups (only for [`AiTxtKind::Spawning`]).
    pub groups: Vec<Group>,
    /// Records with other keys.
    pub records: Vec<Record>,
    /// Findings in line order.
    pub diagnostics: Vec<Diagnostic>,
}

impl AiTxt {
    /// Parses an ai.txt body (`&str` or bytes; a BOM is skipped, invalid
    /// UTF-8 replaced). Never fails.
    pub fn parse(input: impl AsRef<[u8]>) -> AiTxt {
        let bytes = input.as_ref();
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = String::from_utf8_lossy(bytes);
        let mut file =
            AiTxt { kind: AiTxtKind::Empty, groups: Vec::new(), records: Vec::new(), diagnostics: Vec::new() };
        let diag = |code: AiTxtCode, line: Option<u32>, message: String| Diagnostic {
            code,
            severity: code.severity(),
            line,
            message,
        };
        let first = text.trim_start();
        if first.starts_with('<') {
            let head: String = first.chars().take(512).flat_map(char::to_lowercase).collect();
            if head.contains("<html")
                || head.starts_with("<!doctype")
                || head.contains("<body")
                || head.contains("<head")
            {
                file.kind = AiTxtKind::Html;
                file.diagnostics.push(diag(
                    AiTxtCode::HtmlBody,
                    None,
                    "the body is an HTML page, not an ai.txt".into(),
                ));
                return file;
            }
        }
        let mut rule_count = 0;
        let mut in_rules = false;
        for (index, raw) in text.lines().enumerate() {
            let line = index as u32 + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let Some((key, value)) = content.split_once(':') else {
                file.diagnostics.push(diag(AiTxtCode::InvalidLine, Some(line), "not a `key: value` record".into()));
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            let directive = if key.eq_ignore_ascii_case("allow") {
                Some(Directive::Allow)
            } else if key.eq_ignore_ascii_case("disallow") {
                Some(Directive::Disallow)
            } else {
                None
            };
            if key.eq_ignore_ascii_case("user-agent") {
                if in_rules || file.groups.is_empty() {
                    file.groups.push(Group::default());
                }
                in_rules = false;
                if let Some(group) = file.groups.last_mut() {
                    group.agents.push(value.to_string());
                }
            } else if let Some(directive) = directive {
                rule_count += 1;
                in_rules = true;
                match file.groups.last_mut() {
                    Some(group) => group.rules.push(Rule { line, directive, pattern: value.to_string() }),
                    None => file.diagnostics.push(diag(
                        AiTxtCode::OrphanRule,
                        Some(line),
                        "a rule before the first User-Agent line".into(),
                    )),
                }
            } else {
                let message = format!("{key:?} is not an ai.txt key; kept without effect");
                file.diagnostics.push(diag(AiTxtCode::UnknownKey, Some(line), message));
                file.records.push(Record { line, key: key.to_string(), value: value.to_string() });
            }
        }
        file.kind = if rule_count > 0 && rule_count >= file.records.len() {
            AiTxtKind::Spawning
        } else if rule_count == 0 && file.records.is_empty() && file.groups.is_empty() {
            file.diagnostics.push(diag(AiTxtCode::Empty, None, "the file holds no record".into()));
            AiTxtKind::Empty
        } else {
            let message = "not Spawning's ai.txt format (User-Agent with Allow/Disallow rules); no rule applies".into();
            file.diagnostics.push(diag(AiTxtCode::NotSpawning, None, message));
            AiTxtKind::Other
        };
        if file.kind != AiTxtKind::Spawning {
            file.groups.clear();
        }
        file.diagnostics.sort_by_key(|d| d.line);
        file
    }

    /// Whether `agent` may train on the file at `path` (a path, a full URL or
    /// a bare file name).
    ///
    /// Group selection and precedence are robots.txt's (RFC 9309 §2.2): the
    /// agent's groups, else `*`; the longest matching pattern wins, Allow on a
    /// tie. An extension glob (`*.jpg`, no `/`) matches the end of the file
    /// name case-insensitively, since it names a file type; other patterns
    /// match the path as robots.txt patterns do (`*`, `$`).
    pub fn decide(&self, agent: &str, path: &str) -> TrainingDecision<'_> {
        let path = file_path(path);
        let token = agent.split('/').next().unwrap_or(agent).trim();
        let named: Vec<&Group> = self
            .groups
            .iter()
            .filter(|g| g.agents.iter().any(|a| !token.is_empty() && product_token(a).eq_ignore_ascii_case(token)))
            .collect();
        let groups = if named.is_empty() {
            self.groups.iter().filter(|g| g.agents.iter().any(|a| a.starts_with('*'))).collect()
        } else {
            named
        };
        let mut best: Option<&Rule> = None;
        for rule in groups.iter().flat_map(|g| &g.rules) {
            if rule.pattern.is_empty() || !pattern_matches(&rule.pattern, &path) {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    rule.pattern.len() > b.pattern.len()
                        || (rule.pattern.len() == b.pattern.len()
                            && rule.directive == Directive::Allow
                            && b.directive == Directive::Disallow)
                }
            };
            if better {
                best = Some(rule);
            }
        }
        let verdict = match best.map(|r| r.directive) {
            Some(Directive::Allow) => TrainingVerdict::Allowed,
            Some(Directive::Disallow) => TrainingVerdict::Disallowed,
            None => TrainingVerdict::NoRule,
        };
        TrainingDecision { verdict, rule: best }
    }

    /// Whether `agent` may train on files with this extension (`jpg`, `.png`).
    pub fn decide_extension(&self, agent: &str, extension: &str) -> TrainingDecision<'_> {
        self.decide(agent, &format!("/file.{}", extension.trim_start_matches('.')))
    }
}

fn product_token(value: &str) -> &str {
    let end = value.find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-')).unwrap_or(value.len());
    &value[..end]
}

/// The path of a URL, path or file name: scheme and authority, query and
/// fragment removed; a leading `/` added.
fn file_path(input: &str) -> String {
    let mut s = input.trim();
    if let Some(i) = s.find("://") {
        let rest = &s[i + 3..];
        s = rest.find('/').map_or("/", |j| &rest[j..]);
    }
    let s = s.split(['?', '#']).next().unwrap_or(s);
    if s.starts_with('/') { s.to_string() } else { format!("/{s}") }
}

fn pattern_matches(pattern: &str, path: &str) -> bool {
    if let Some(ext) = pattern.strip_prefix("*.")
        && !ext.contains(['/', '*', '$'])
    {
        let name = path.rsplit('/').next().unwrap_or(path);
        return name.len() > ext.len()
            && name.is_char_boundary(name.len() - ext.len() - 1)
            && name[name.len() - ext.len() - 1..].eq_ignore_ascii_case(&format!(".{ext}"));
    }
    if !pattern.starts_with(['/', '*']) {
        return false;
    }
    glob(pattern.as_bytes(), path.as_bytes())
}

/// robots.txt matching: `*` any run, `$` at the end anchors, else a prefix match.
fn glob(pattern: &[u8], path: &[u8]) -> bool {
    // Positions in `path` the pattern prefix can end at; a set, kept small by dedup.
    let mut positions = vec![0usize];
    for (i, &c) in pattern.iter().enumerate() {
        if c == b'$' && i == pattern.len() - 1 {
            return positions.contains(&path.len());
        }
        if c == b'*' {
            let first = positions.iter().copied().min().unwrap_or(path.len());
            positions = (first..=path.len()).collect();
            continue;
        }
        positions = positions.into_iter().filter(|&p| path.get(p) == Some(&c)).map(|p| p + 1).collect();
        if positions.is_empty() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob(b"/docs/", b"/docs/a"));
        assert!(!glob(b"/docs/", b"/doc"));
        assert!(glob(b"/*.php$", b"/a/b.php"));
        assert!(!glob(b"/*.php$", b"/a/b.php5"));
        assert!(glob(b"*", b"/"));
        assert!(pattern_matches("*.JPG", "/a/b.jpg"));
        assert!(!pattern_matches("*.jpg", "/a/b.jpg.html"));
        assert!(!pattern_matches("*.jpg", "/a/.jpgx"));
        assert!(!pattern_matches("docs", "/docs"));
    }

    #[test]
    fn paths() {
        assert_eq!(file_path("https://ex.com/a/b.png?x#y"), "/a/b.png");
        assert_eq!(file_path("https://ex.com"), "/");
        assert_eq!(file_path("b.png"), "/b.png");
    }
}
