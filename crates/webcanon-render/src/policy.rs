//! The agent policy: a TOML file read into a checked [`Policy`].
//!
//! The file is read with serde and `deny_unknown_fields`, so a misspelled key
//! is an error, and every value keeps its byte span so that an error names the
//! line it comes from. Checks that serde cannot express (exactly one kind of
//! access per agent, paths starting with `/` or `*`, no line breaks in values
//! that end up in the rendered file) are made here, once; the rest of the
//! crate works on the checked model.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;
use webcanon_core::agents::Category;

/// A checked agent policy: what to render as robots.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// What the policy is for (`acme.com`), named in the rendered header.
    pub source: String,
    /// The sitemap URL for the `Sitemap:` line.
    pub sitemap_url: Option<String>,
    /// The llms.txt URL for the pointer comment.
    pub llms_txt_url: Option<String>,
    /// The RSL license document for the `License:` line (RSL 1.0 §4:
    /// global, read by every crawler whatever its group).
    pub license_url: Option<String>,
    /// The access of every agent the policy does not list (the `*` record).
    /// Allow all when the file has no `[default_policy]`.
    pub default_policy: Access,
    /// The listed agents, in file order.
    pub agents: Vec<AgentPolicy>,
}

/// One `[[agents]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentPolicy {
    /// The product tokens the entry applies to (`token` or `tokens`), in
    /// file order.
    pub tokens: Vec<String>,
    /// Who runs the agents, for the reader of the rendered file.
    pub vendor: Option<String>,
    /// What the agents do, as the policy author sees it.
    pub role: Option<Category>,
    /// A note rendered as a comment above the record.
    pub notes: Option<String>,
    /// What the agents may fetch.
    pub access: Access,
    /// The 1-based line of the entry's `token` or `tokens` key.
    pub line: u32,
}

/// What an agent may fetch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Access {
    /// Everything (`allow_all = true`).
    AllowAll,
    /// Nothing but `/robots.txt` (`deny_all = true`).
    DenyAll,
    /// Path patterns, decided by the longest match with Allow winning a tie
    /// (RFC 9309 §2.2.2). Both lists are sorted and free of duplicates: their
    /// order in the file means nothing.
    Paths {
        /// `allow = [...]`
        allow: Vec<String>,
        /// `disallow = [...]`
        disallow: Vec<String>,
    },
}

impl Access {
    /// Every pattern the access names (none for allow all and deny all).
    pub fn patterns(&self) -> impl Iterator<Item = &str> {
        let (allow, disallow): (&[String], &[String]) = match self {
            Access::Paths { allow, disallow } => (allow, disallow),
            _ => (&[], &[]),
        };
        allow.iter().chain(disallow).map(String::as_str)
    }

    /// A short description for messages: `allow_all`, `deny_all` or the
    /// path lists.
    pub fn describe(&self) -> String {
        match self {
            Access::AllowAll => "allow_all".into(),
            Access::DenyAll => "deny_all".into(),
            Access::Paths { allow, disallow } => format!("allow {allow:?}, disallow {disallow:?}"),
        }
    }
}

/// A policy file that cannot be used: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The 1-based line; `None` when the problem is not tied to one place.
    pub line: Option<u32>,
    /// The key at fault (`deny_all`, `agents[2].allow`), when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for PolicyError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    source: Spanned<String>,
    sitemap_url: Option<Spanned<String>>,
    llms_txt_url: Option<Spanned<String>>,
    license_url: Option<Spanned<String>>,
    default_policy: Option<Spanned<RawAccess>>,
    #[serde(default)]
    agents: Vec<Spanned<RawAgent>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccess {
    allow_all: Option<Spanned<bool>>,
    deny_all: Option<Spanned<bool>>,
    allow: Option<Spanned<Vec<Spanned<String>>>>,
    disallow: Option<Spanned<Vec<Spanned<String>>>>,
}

// The access keys are repeated rather than flattened: serde's `flatten`
// does not work with `deny_unknown_fields`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    token: Option<Spanned<String>>,
    tokens: Option<Spanned<Vec<Spanned<String>>>>,
    vendor: Option<Spanned<String>>,
    role: Option<Spanned<String>>,
    notes: Option<Spanned<String>>,
    allow_all: Option<Spanned<bool>>,
    deny_all: Option<Spanned<bool>>,
    allow: Option<Spanned<Vec<Spanned<String>>>>,
    disallow: Option<Spanned<Vec<Spanned<String>>>>,
}

/// Turns byte offsets into 1-based line numbers.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    fn line(&self, span: Range<usize>) -> u32 {
        let end = span.start.min(self.0.len());
        let n = self.0.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1;
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    fn error<T>(
        &self,
        span: Range<usize>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, PolicyError> {
        Err(PolicyError { line: Some(self.line(span)), key: Some(key.into()), message: message.into() })
    }
}

impl Policy {
    /// Reads and checks a policy file.
    ///
    /// Unknown keys, values of the wrong type, an agent with no access or
    /// with two kinds of access, paths that do not start with `/` or `*`,
    /// empty or repeated tokens, an unknown `role` and line breaks in values
    /// are errors naming the key and the line.
    pub fn from_toml(text: &str) -> Result<Policy, PolicyError> {
        let lines = Lines(text);
        let raw: RawPolicy = toml::from_str(text).map_err(|err| PolicyError {
            line: err.span().map(|s| lines.line(s)),
            key: None,
            message: err.message().trim_end().to_owned(),
        })?;
        let source = text_value(&lines, "source", raw.source)?;
        if source.trim().is_empty() {
            return Err(PolicyError { line: Some(1), key: Some("source".into()), message: "must not be empty".into() });
        }
        let sitemap_url = raw.sitemap_url.map(|u| url_value(&lines, "sitemap_url", u)).transpose()?;
        let llms_txt_url = raw.llms_txt_url.map(|u| url_value(&lines, "llms_txt_url", u)).transpose()?;
        let license_url = raw.license_url.map(|u| url_value(&lines, "license_url", u)).transpose()?;
        let default_policy = match raw.default_policy {
            None => Access::AllowAll,
            Some(d) => {
                let span = d.span();
                let d = d.into_inner();
                access(&lines, "default_policy", span, d.allow_all, d.deny_all, d.allow, d.disallow)?
            }
        };
        let mut agents = Vec::with_capacity(raw.agents.len());
        let mut seen: Vec<(String, u32)> = Vec::new();
        for (i, entry) in raw.agents.into_iter().enumerate() {
            let span = entry.span();
            let a = entry.into_inner();
            let at = |key: &str| format!("agents[{i}].{key}");
            let (tokens, line, key) = match (a.token, a.tokens) {
                (Some(_), Some(t)) => return lines.error(t.span(), at("tokens"), "give `token` or `tokens`, not both"),
                (None, None) => return lines.error(span, format!("agents[{i}]"), "missing `token` (or `tokens`)"),
                (Some(t), None) => {
                    let line = lines.line(t.span());
                    (vec![t], line, at("token"))
                }
                (None, Some(t)) => {
                    let line = lines.line(t.span());
                    if t.get_ref().is_empty() {
                        return lines.error(t.span(), at("tokens"), "must name at least one token");
                    }
                    (t.into_inner(), line, at("tokens"))
                }
            };
            let mut checked = Vec::with_capacity(tokens.len());
            for t in tokens {
                let token = token_value(&lines, &key, t)?;
                let product = product_token(&token).to_ascii_lowercase();
                if let Some((_, first)) = seen.iter().find(|(p, _)| *p == product) {
                    return lines.error(
                        span.clone(),
                        key.clone(),
                        format!("token `{token}` is already listed on line {first}; give each agent one entry"),
                    );
                }
                seen.push((product, line));
                checked.push(token);
            }
            let role = match a.role {
                None => None,
                Some(r) => match r.get_ref().parse::<Category>() {
                    Ok(c) => Some(c),
                    Err(message) => return lines.error(r.span(), at("role"), message),
                },
            };
            let vendor = a.vendor.map(|v| text_value(&lines, &at("vendor"), v)).transpose()?;
            let notes = a.notes.map(|v| text_value(&lines, &at("notes"), v)).transpose()?;
            let access = access(&lines, &format!("agents[{i}]"), span, a.allow_all, a.deny_all, a.allow, a.disallow)?;
            agents.push(AgentPolicy { tokens: checked, vendor, role, notes, access, line });
        }
        Ok(Policy { source, sitemap_url, llms_txt_url, license_url, default_policy, agents })
    }
}

/// The product token of a `User-agent` value, as the core reads it: the
/// leading run of letters, `-` and `_`.
pub(crate) fn product_token(value: &str) -> &str {
    let end = value.find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_')).unwrap_or(value.len());
    &value[..end]
}

type PathList = Option<Spanned<Vec<Spanned<String>>>>;

fn access(
    lines: &Lines<'_>,
    table: &str,
    span: Range<usize>,
    allow_all: Option<Spanned<bool>>,
    deny_all: Option<Spanned<bool>>,
    allow: PathList,
    disallow: PathList,
) -> Result<Access, PolicyError> {
    for flag in [("allow_all", &allow_all), ("deny_all", &deny_all)] {
        if let (name, Some(v)) = flag
            && !*v.get_ref()
        {
            return lines.error(
                v.span(),
                format!("{table}.{name}"),
                format!("`{name} = false` means nothing; remove it, or give `allow`/`disallow` paths"),
            );
        }
    }
    let lists = allow.is_some() || disallow.is_some();
    match (&allow_all, &deny_all) {
        (Some(_), Some(d)) => {
            return lines.error(d.span(), format!("{table}.deny_all"), "`allow_all` and `deny_all` exclude each other");
        }
        (Some(_), None) | (None, Some(_)) if lists => {
            let flag = if allow_all.is_some() { "allow_all" } else { "deny_all" };
            let (name, at) = match &allow {
                Some(l) => ("allow", l.span()),
                None => ("disallow", disallow.as_ref().map_or(span.clone(), |l| l.span())),
            };
            return lines.error(at, format!("{table}.{name}"), format!("`{name}` cannot be combined with `{flag}`"));
        }
        (Some(_), None) => return Ok(Access::AllowAll),
        (None, Some(_)) => return Ok(Access::DenyAll),
        (None, None) if !lists => {
            return lines.error(
                span,
                table,
                "give exactly one of `allow_all = true`, `deny_all = true`, or `allow`/`disallow` path lists",
            );
        }
        (None, None) => {}
    }
    let allow = path_list(lines, &format!("{table}.allow"), allow)?;
    let disallow = path_list(lines, &format!("{table}.disallow"), disallow)?;
    if allow.is_empty() && disallow.is_empty() {
        return lines.error(span, table, "the path lists are empty; give paths, or `allow_all = true`");
    }
    Ok(Access::Paths { allow, disallow })
}

fn path_list(lines: &Lines<'_>, key: &str, list: PathList) -> Result<Vec<String>, PolicyError> {
    let mut out = Vec::new();
    for p in list.map(Spanned::into_inner).unwrap_or_default() {
        let span = p.span();
        let path = p.into_inner();
        if !(path.starts_with('/') || path.starts_with('*')) {
            return lines.error(span, key, format!("path `{path}` must start with `/` or `*`"));
        }
        if let Some(c) = path.chars().find(|c| c.is_whitespace() || c.is_control() || *c == '#') {
            return lines.error(
                span,
                key,
                format!("path `{}` contains {c:?}, which robots.txt cannot carry", path.escape_debug()),
            );
        }
        out.push(path);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A value rendered into a comment: one line, no control characters.
fn text_value(lines: &Lines<'_>, key: &str, v: Spanned<String>) -> Result<String, PolicyError> {
    if v.get_ref().chars().any(char::is_control) {
        return lines.error(v.span(), key, "must be one line without control characters");
    }
    Ok(v.into_inner())
}

fn url_value(lines: &Lines<'_>, key: &str, v: Spanned<String>) -> Result<String, PolicyError> {
    let url = v.get_ref();
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control() || c == '#') {
        return lines.error(v.span(), key, format!("`{}` is not an absolute http(s) URL", url.escape_debug()));
    }
    Ok(v.into_inner())
}

fn token_value(lines: &Lines<'_>, key: &str, v: Spanned<String>) -> Result<String, PolicyError> {
    let token = v.get_ref().trim();
    if token.is_empty() {
        return lines.error(v.span(), key, "empty agent token");
    }
    if token == "*" {
        return lines.error(v.span(), key, "`*` is the default record; write it as `[default_policy]`");
    }
    if token.chars().any(|c| c.is_control() || c == '#') {
        return lines.error(
            v.span(),
            key,
            format!("token `{}` contains a control character or `#`", token.escape_debug()),
        );
    }
    if product_token(token).is_empty() {
        return lines.error(
            v.span(),
            key,
            format!(
                "token `{token}` does not start with a product token (letters, `-`, `_`), so it would match no crawler"
            ),
        );
    }
    Ok(token.to_owned())
}
