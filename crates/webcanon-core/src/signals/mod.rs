//! Page-level usage signals: they warn, they never block a fetch.
//!
//! robots.txt decides whether a URL may be fetched; these say what may be
//! done with the content once it is: index it, snippet it, train on it.
//! This module parses the values (a meta tag's `content`, a header's
//! value); finding them in HTML or HTTP is the client's job.
//!
//! - meta robots and `X-Robots-Tag` (Google's vocabulary plus `noai` and
//!   `noimageai`), generic or for one agent (`googlebot: noindex`);
//! - TDMRep `tdm-reservation` (`1` reserves text and data mining rights);
//! - IETF AIPREF `Content-Usage` (`train-ai=n`), read strictly as the
//!   vocabulary draft says ([`UsageStatement`]): the Token `n` of a known
//!   label is a refusal, anything else is unknown, and a statement that is
//!   not a Structured Fields Dictionary is unreadable (and said to be);
//! - Cloudflare `Content-Signal` (`ai-train=no`), its own signal, read
//!   leniently: any `n`/`no` is reported, a missing key neither grants nor
//!   restricts.

mod aipref;
mod warning;

pub use self::aipref::{Preference, UnreadableStatement, UsageCategory, UsageStatement, parse_content_usage_header};
pub use self::warning::{UsageWarning, WarningCode, WarningSource};

/// One directive of a meta robots tag or `X-Robots-Tag` value, lower-cased
/// (`noindex`, `max-snippet:50`), with the agent it is for, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsDirective {
    /// The agent named (`googlebot`), lower-cased; `None` for every agent.
    pub agent: Option<String>,
    /// The directive, lower-cased, with its value (`max-snippet:50`).
    pub directive: String,
}

impl RobotsDirective {
    /// The directive's name without its value (`max-snippet`).
    pub fn name(&self) -> &str {
        self.directive.split(':').next().unwrap_or("").trim()
    }
}

/// Whether a token is a known directive name (so `googlebot: noindex` is
/// an agent prefix while `max-snippet: 20` is a directive with a value).
fn is_directive_name(name: &str) -> bool {
    matches!(
        name,
        "all"
            | "noindex"
            | "index"
            | "nofollow"
            | "follow"
            | "none"
            | "noarchive"
            | "nocache"
            | "nosnippet"
            | "indexifembedded"
            | "max-snippet"
            | "max-image-preview"
            | "max-video-preview"
            | "notranslate"
            | "noimageindex"
            | "unavailable_after"
            | "noai"
            | "noimageai"
            | "noodp"
            | "noydir"
    )
}

/// Parses an `X-Robots-Tag` value, which may start with `agent:`.
///
/// `unavailable_after` dates contain commas (RFC 850), so a part that does
/// not start with a directive name is joined to the one before it.
pub fn parse_x_robots_tag(value: &str) -> Vec<RobotsDirective> {
    let value = value.trim();
    let (agent, rest) = match value.split_once(':') {
        Some((head, tail)) if !head.contains(',') && !is_directive_name(&head.trim().to_ascii_lowercase()) => {
            (Some(head.trim().to_ascii_lowercase()), tail)
        }
        _ => (None, value),
    };
    parse_directives(rest, agent)
}

/// Parses the `content` of `<meta name="NAME">`: `name` is `robots` for
/// every agent, or an agent's token (`googlebot`).
pub fn parse_meta_robots(name: &str, content: &str) -> Vec<RobotsDirective> {
    let name = name.trim().to_ascii_lowercase();
    let agent = (name != "robots").then_some(name);
    parse_directives(content, agent)
}

fn parse_directives(list: &str, agent: Option<String>) -> Vec<RobotsDirective> {
    let mut out: Vec<RobotsDirective> = Vec::new();
    for part in list.split(',') {
        let part = part.trim().to_ascii_lowercase();
        if part.is_empty() {
            continue;
        }
        let name = part.split(':').next().unwrap_or("").trim().to_string();
        if !is_directive_name(&name) && !out.is_empty() {
            // The tail of an `unavailable_after` date.
            if let Some(last) = out.last_mut() {
                last.directive.push_str(", ");
                last.directive.push_str(&part);
            }
            continue;
        }
        out.push(RobotsDirective { agent: agent.clone(), directive: part });
    }
    out
}

/// Whether `directive` applies to the crawler with product token `agent`.
pub fn applies_to(directive: &RobotsDirective, agent: &str) -> bool {
    directive.agent.as_deref().is_none_or(|a| a.eq_ignore_ascii_case(agent))
}

/// Warnings for the robots directives that apply to `agent`, one per
/// directive name, from `source` (`meta_robots` or `x_robots_tag`).
pub fn robots_warnings(directives: &[RobotsDirective], agent: &str, source: WarningSource) -> Vec<UsageWarning> {
    let mut out: Vec<UsageWarning> = Vec::new();
    for d in directives.iter().filter(|d| applies_to(d, agent)) {
        let name = d.name();
        let Some(code) = WarningCode::of_robots_directive(name) else { continue };
        if out.iter().any(|w| w.code == code) {
            continue;
        }
        let whom = d.agent.as_deref().map(|a| format!(" for {a}")).unwrap_or_default();
        let meaning = match name {
            "noindex" => "do not index this page",
            "nofollow" => "do not follow its links",
            "none" => "do not index this page or follow its links",
            "noarchive" | "nocache" => "do not keep a cached copy",
            "nosnippet" => "do not show snippets or quotes of it",
            "noai" => "do not use this page to train AI",
            "noimageai" => "do not use its images to train AI",
            "noimageindex" => "do not index its images",
            _ => "",
        };
        out.push(UsageWarning::new(code, source, format!("{source} says `{}`{whom}: {meaning}", d.directive)));
    }
    out
}

/// TDMRep `tdm-reservation`: `Some(true)` for `1`, `Some(false)` for `0`,
/// `None` for anything else (which the protocol treats as unset).
pub fn parse_tdm_reservation(value: &str) -> Option<bool> {
    match value.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// One `key=value` preference of a `Content-Usage` or `Content-Signal` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsagePreference {
    /// The key, lower-cased (`train-ai`, `ai-train`, `search`).
    pub key: String,
    /// The value, lower-cased (`y`, `n`, `yes`, `no`).
    pub value: String,
}

impl UsagePreference {
    /// Whether the preference says no.
    pub fn is_no(&self) -> bool {
        matches!(self.value.as_str(), "n" | "no" | "?0")
    }
}

/// Parses a comma-separated `key=value` list (`Content-Usage: train-ai=n`,
/// `Content-Signal: search=yes, ai-train=no`). Parameters after `;` are
/// ignored; entries without `=` are skipped.
pub fn parse_preferences(value: &str) -> Vec<UsagePreference> {
    value
        .split(',')
        .filter_map(|item| {
            let item = item.split(';').next()?.trim();
            let (key, value) = item.split_once('=')?;
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"').to_ascii_lowercase();
            (!key.is_empty() && !value.is_empty()).then_some(UsagePreference { key, value })
        })
        .collect()
}

/// The warning of a statement of AI preferences from `source` (`Content-Usage`
/// header lines, or a robots.txt line, `scope` naming it): one
/// [`WarningCode::ContentUsage`] naming every category it disallows
/// (`train-ai=n, search=n`), or one [`WarningCode::ContentUsageUnreadable`]
/// when it is not a Dictionary; none when it disallows nothing.
pub fn content_usage_warnings(
    statement: &Result<UsageStatement, UnreadableStatement>,
    source: WarningSource,
    scope: &str,
) -> Vec<UsageWarning> {
    match statement {
        Ok(statement) => {
            let refused: Vec<String> = statement.disallowed().map(|c| format!("{c}=n")).collect();
            if refused.is_empty() {
                return Vec::new();
            }
            vec![UsageWarning::new(WarningCode::ContentUsage, source, format!("{scope} says {}", refused.join(", ")))]
        }
        Err(unreadable) => vec![UsageWarning::new(
            WarningCode::ContentUsageUnreadable,
            source,
            format!("{scope}: {unreadable}; nothing is refused"),
        )],
    }
}

/// Warnings for every "no" in a preference list, under `code` from `source`.
pub fn preference_warnings(prefs: &[UsagePreference], code: WarningCode, source: WarningSource) -> Vec<UsageWarning> {
    prefs
        .iter()
        .filter(|p| p.is_no())
        .map(|p| UsageWarning::new(code, source, format!("{source} says {}={}", p.key, p.value)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(ds: &[RobotsDirective]) -> Vec<(Option<&str>, &str)> {
        ds.iter().map(|d| (d.agent.as_deref(), d.directive.as_str())).collect()
    }

    #[test]
    fn x_robots_tag_values() {
        type Expected<'a> = &'a [(Option<&'a str>, &'a str)];
        let cases: &[(&str, Expected)] = &[
            ("noindex", &[(None, "noindex")]),
            ("NoIndex, NOFOLLOW", &[(None, "noindex"), (None, "nofollow")]),
            ("noai, noimageai", &[(None, "noai"), (None, "noimageai")]),
            ("googlebot: noindex, nofollow", &[(Some("googlebot"), "noindex"), (Some("googlebot"), "nofollow")]),
            ("max-snippet: 20", &[(None, "max-snippet: 20")]),
            (
                "unavailable_after: Sunday, 01-Sep-30 10:00:00 GMT, noarchive",
                &[(None, "unavailable_after: sunday, 01-sep-30 10:00:00 gmt"), (None, "noarchive")],
            ),
            ("  none ", &[(None, "none")]),
            ("", &[]),
        ];
        for (value, expected) in cases {
            assert_eq!(names(&parse_x_robots_tag(value)), expected.to_vec(), "{value:?}");
        }
    }

    #[test]
    fn meta_names_select_agents() {
        let generic = parse_meta_robots("robots", "noai, noimageai");
        assert_eq!(robots_warnings(&generic, "GPTBot", WarningSource::MetaRobots).len(), 2);
        let google = parse_meta_robots("Googlebot", "noindex");
        assert_eq!(robots_warnings(&google, "googlebot", WarningSource::MetaRobots)[0].code, WarningCode::Noindex);
        assert!(robots_warnings(&google, "GPTBot", WarningSource::MetaRobots).is_empty());
    }

    #[test]
    fn warnings_are_one_per_directive() {
        let mut ds = parse_x_robots_tag("noindex");
        ds.extend(parse_meta_robots("robots", "noindex, follow, max-snippet:10"));
        let w = robots_warnings(&ds, "bot", WarningSource::XRobotsTag);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, WarningCode::Noindex);
    }

    #[test]
    fn tdm_reservation_values() {
        assert_eq!(parse_tdm_reservation("1"), Some(true));
        assert_eq!(parse_tdm_reservation(" 0 "), Some(false));
        assert_eq!(parse_tdm_reservation("yes"), None);
    }

    #[test]
    fn preferences() {
        let prefs = parse_preferences("train-ai=n, search=y;exp=1, bogus, ai-use=\"N\"");
        assert_eq!(prefs.len(), 3);
        let w = preference_warnings(&prefs, WarningCode::ContentUsage, WarningSource::ContentUsageHeader);
        let details: Vec<&str> = w.iter().map(|w| w.detail.as_str()).collect();
        assert_eq!(details, ["content_usage_header says train-ai=n", "content_usage_header says ai-use=n"]);
        let signal = parse_preferences("search=yes, ai-input=yes, ai-train=no");
        assert_eq!(
            preference_warnings(&signal, WarningCode::ContentSignal, WarningSource::ContentSignalHeader).len(),
            1
        );
    }
}
