//! The policy model: from a robots.txt outcome to a fetch recommendation.
//!
//! A boolean "allowed" is too coarse for agents: a site whose robots.txt is
//! unreachable is not the same as one that says yes. [`Verdict`] names the
//! situation, [`FetchRecommendation`] what a well-behaved agent should do,
//! and [`RobotsMode`] whether the verdict blocks the fetch. RFC 9309
//! §2.3.1 sets what each way of obtaining robots.txt means:
//!
//! | situation | verdict | recommendation |
//! |---|---|---|
//! | explicit Allow matched | `allowed_explicit` | `recommended` |
//! | no rule matched | `allowed_implicit` | `recommended` |
//! | explicit Disallow matched | `disallowed_explicit` | `not_recommended` |
//! | robots.txt 4xx (not 429), or more than 5 redirects | `allowed_implicit` | `recommended` |
//! | robots.txt 429, 5xx, network error, timeout | `unknown_unreachable` | `unknown_do_not_fetch_by_default` |
//! | body is not a robots.txt (HTML page, binary) | `unknown_parse_error` | `allowed_but_warn` |
//! | mode `ignore` | `skipped_by_user_policy` | `recommended` |

use std::fmt;
use std::str::FromStr;

use crate::robots::{AgentRules, MatchVerdict, RuleRef};

/// What robots.txt says about one URL for one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum Verdict {
    /// An `Allow` rule matched.
    AllowedExplicit,
    /// No rule matched, or robots.txt is unavailable (4xx, too many redirects).
    AllowedImplicit,
    /// A `Disallow` rule matched.
    DisallowedExplicit,
    /// robots.txt could not be fetched (429, 5xx, network error, timeout).
    UnknownUnreachable,
    /// robots.txt was fetched but is not a robots.txt (an HTML page, binary).
    UnknownParseError,
    /// robots.txt was not consulted: the caller chose [`RobotsMode::Ignore`].
    SkippedByUserPolicy,
}

impl Verdict {
    /// The verdict in snake case.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::AllowedExplicit => "allowed_explicit",
            Verdict::AllowedImplicit => "allowed_implicit",
            Verdict::DisallowedExplicit => "disallowed_explicit",
            Verdict::UnknownUnreachable => "unknown_unreachable",
            Verdict::UnknownParseError => "unknown_parse_error",
            Verdict::SkippedByUserPolicy => "skipped_by_user_policy",
        }
    }

    /// The recommendation this verdict carries (the table above).
    pub fn recommendation(self) -> FetchRecommendation {
        match self {
            Verdict::AllowedExplicit | Verdict::AllowedImplicit | Verdict::SkippedByUserPolicy => {
                FetchRecommendation::Recommended
            }
            Verdict::DisallowedExplicit => FetchRecommendation::NotRecommended,
            Verdict::UnknownUnreachable => FetchRecommendation::UnknownDoNotFetchByDefault,
            Verdict::UnknownParseError => FetchRecommendation::AllowedButWarn,
        }
    }
}

impl From<MatchVerdict> for Verdict {
    fn from(v: MatchVerdict) -> Verdict {
        match v {
            MatchVerdict::AllowedExplicit => Verdict::AllowedExplicit,
            MatchVerdict::AllowedImplicit => Verdict::AllowedImplicit,
            MatchVerdict::DisallowedExplicit => Verdict::DisallowedExplicit,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a well-behaved agent should do with the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum FetchRecommendation {
    /// Fetch it.
    Recommended,
    /// The site owner asked agents not to fetch it.
    NotRecommended,
    /// The policy is unknown; do not fetch unless the caller decides otherwise.
    UnknownDoNotFetchByDefault,
    /// Fetching is allowed, but robots.txt could not be read: say so.
    AllowedButWarn,
}

impl FetchRecommendation {
    /// The recommendation in snake case.
    pub fn as_str(self) -> &'static str {
        match self {
            FetchRecommendation::Recommended => "recommended",
            FetchRecommendation::NotRecommended => "not_recommended",
            FetchRecommendation::UnknownDoNotFetchByDefault => "unknown_do_not_fetch_by_default",
            FetchRecommendation::AllowedButWarn => "allowed_but_warn",
        }
    }
}

impl fmt::Display for FetchRecommendation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the verdict is applied to a fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum RobotsMode {
    /// `disallowed_explicit` and `unknown_unreachable` refuse the fetch.
    #[default]
    Respect,
    /// The verdict is computed and recorded but never blocks.
    ReportOnly,
    /// robots.txt is not fetched; the verdict is `skipped_by_user_policy`.
    Ignore,
}

impl RobotsMode {
    /// The mode in snake case.
    pub fn as_str(self) -> &'static str {
        match self {
            RobotsMode::Respect => "respect",
            RobotsMode::ReportOnly => "report_only",
            RobotsMode::Ignore => "ignore",
        }
    }

    /// Whether `verdict` refuses the fetch under this mode.
    pub fn blocks(self, verdict: Verdict) -> bool {
        self == RobotsMode::Respect && matches!(verdict, Verdict::DisallowedExplicit | Verdict::UnknownUnreachable)
    }
}

impl FromStr for RobotsMode {
    type Err = String;

    fn from_str(s: &str) -> Result<RobotsMode, String> {
        match s {
            "respect" => Ok(RobotsMode::Respect),
            "report_only" | "report-only" => Ok(RobotsMode::ReportOnly),
            "ignore" => Ok(RobotsMode::Ignore),
            other => Err(format!("unknown robots mode `{other}`; expected respect, report_only or ignore")),
        }
    }
}

impl fmt::Display for RobotsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The matched rule, owned, for evidence that outlives the parsed file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RuleEvidence {
    /// The 1-based line number in robots.txt.
    pub line: u32,
    /// `allow` or `disallow`.
    pub directive: crate::robots::Directive,
    /// The pattern as written.
    pub pattern: String,
}

impl From<RuleRef<'_>> for RuleEvidence {
    fn from(r: RuleRef<'_>) -> RuleEvidence {
        RuleEvidence { line: r.line, directive: r.directive, pattern: r.pattern.to_string() }
    }
}

/// How robots.txt for an origin was obtained (RFC 9309 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum RobotsAvailability {
    /// A 2xx answer with a robots.txt body: its rules apply.
    Parsed,
    /// A 2xx answer whose body is not a robots.txt (HTML, binary).
    NotRobots,
    /// A 4xx answer other than 429, or more than five redirects: no restrictions.
    Unavailable,
    /// 401 or 403 read as "disallow everything" (an opt-in setting).
    AuthDisallowAll,
    /// 429, 5xx, a network error or a timeout: complete disallow by default.
    Unreachable,
}

impl RobotsAvailability {
    /// Classifies a final HTTP status (after redirects) of a robots.txt fetch.
    ///
    /// `auth_disallows` turns 401 and 403 into [`RobotsAvailability::AuthDisallowAll`];
    /// by default they are 4xx like any other (RFC 9309 §2.3.1.3).
    pub fn from_status(status: u16, auth_disallows: bool) -> RobotsAvailability {
        match status {
            200..=299 => RobotsAvailability::Parsed,
            401 | 403 if auth_disallows => RobotsAvailability::AuthDisallowAll,
            429 => RobotsAvailability::Unreachable,
            400..=499 => RobotsAvailability::Unavailable,
            // 1xx and unfollowed 3xx answers carry no robots.txt; 5xx are
            // server errors. Both leave the policy unknown.
            _ => RobotsAvailability::Unreachable,
        }
    }

    /// The verdict for any URL when there are no rules to match, or `None`
    /// when the rules must be matched ([`RobotsAvailability::Parsed`]).
    pub fn fixed_verdict(self) -> Option<Verdict> {
        match self {
            RobotsAvailability::Parsed => None,
            RobotsAvailability::NotRobots => Some(Verdict::UnknownParseError),
            RobotsAvailability::Unavailable => Some(Verdict::AllowedImplicit),
            RobotsAvailability::AuthDisallowAll => Some(Verdict::DisallowedExplicit),
            RobotsAvailability::Unreachable => Some(Verdict::UnknownUnreachable),
        }
    }
}

/// The verdict for one URL from how robots.txt was obtained and the
/// agent's compiled rules: the one place where the table above meets the
/// matcher, shared by the live client and the batch verdict pass.
///
/// `availability` is the class in force (a stale last good copy standing in
/// for an unreachable file counts as [`RobotsAvailability::Parsed`]);
/// `rules` are the rules in force, if any. Parsed without rules (no body)
/// allows everything. Returns the verdict and the rule that decided it.
///
/// ```
/// use webcanon_core::policy::{RobotsAvailability, Verdict, decide};
/// use webcanon_core::robots::Robots;
///
/// let rules = Robots::parse(b"User-agent: *\nDisallow: /private\n").rules_for("bot");
/// let (verdict, rule) = decide(RobotsAvailability::Parsed, Some(&rules), "https://example.com/private/a");
/// assert_eq!(verdict, Verdict::DisallowedExplicit);
/// assert_eq!(rule.unwrap().line, 2);
/// let (verdict, rule) = decide(RobotsAvailability::Unreachable, None, "https://example.com/");
/// assert_eq!((verdict, rule), (Verdict::UnknownUnreachable, None));
/// ```
#[inline]
pub fn decide<'r>(
    availability: RobotsAvailability,
    rules: Option<&'r AgentRules>,
    url: &str,
) -> (Verdict, Option<RuleRef<'r>>) {
    match (availability.fixed_verdict(), rules) {
        (Some(verdict), _) => (verdict, None),
        (None, Some(rules)) => {
            let decision = rules.decide(url);
            (Verdict::from(decision.verdict), decision.rule)
        }
        (None, None) => (Verdict::AllowedImplicit, None),
    }
}

/// The robots part of every result: the verdict and its evidence.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RobotsEvidence {
    /// What robots.txt says about the URL.
    pub verdict: Verdict,
    /// What a well-behaved agent should do.
    pub recommendation: FetchRecommendation,
    /// The robots.txt URL consulted (`None` under [`RobotsMode::Ignore`]).
    pub robots_url: Option<String>,
    /// The final HTTP status of the robots.txt fetch, if an answer came.
    pub status: Option<u16>,
    /// How robots.txt was obtained.
    pub availability: Option<RobotsAvailability>,
    /// Whether the answer came from a cache.
    pub from_cache: bool,
    /// Seconds since robots.txt was fetched, when it came from a cache.
    pub cache_age_seconds: Option<u64>,
    /// The rule that decided, if one matched.
    pub rule: Option<RuleEvidence>,
    /// Why robots.txt could not be read, when it was unreachable (the name
    /// did not resolve, the connection failed or timed out, a 5xx answer).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub error: Option<String>,
}

impl RobotsEvidence {
    /// The evidence for a fetch made under [`RobotsMode::Ignore`].
    pub fn skipped() -> RobotsEvidence {
        RobotsEvidence {
            verdict: Verdict::SkippedByUserPolicy,
            recommendation: FetchRecommendation::Recommended,
            robots_url: None,
            status: None,
            availability: None,
            from_cache: false,
            cache_age_seconds: None,
            rule: None,
            error: None,
        }
    }
}

/// A fetch refused because of the robots policy ([`RobotsMode::Respect`]).
///
/// The message quotes only the matched rule, never the robots.txt body: its
/// text is the site's, and an LLM must not be fed it as instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyError {
    /// The URL that was refused.
    pub url: String,
    /// The verdict and its evidence.
    pub evidence: RobotsEvidence,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.evidence;
        write!(f, "robots policy refuses {}: {} ({})", self.url, e.verdict, e.recommendation)?;
        if let Some(rule) = &e.rule {
            write!(f, "; matched line {}: `{}: {}`", rule.line, rule.directive, rule.pattern)?;
        }
        if let Some(robots_url) = &e.robots_url {
            write!(f, " in {robots_url}")?;
            if let Some(status) = e.status {
                write!(f, " (HTTP {status})")?;
            }
        }
        if let Some(error) = &e.error {
            write!(f, "; robots.txt could not be read: {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PolicyError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_table() {
        let rows = [
            (Verdict::AllowedExplicit, FetchRecommendation::Recommended),
            (Verdict::AllowedImplicit, FetchRecommendation::Recommended),
            (Verdict::DisallowedExplicit, FetchRecommendation::NotRecommended),
            (Verdict::UnknownUnreachable, FetchRecommendation::UnknownDoNotFetchByDefault),
            (Verdict::UnknownParseError, FetchRecommendation::AllowedButWarn),
            (Verdict::SkippedByUserPolicy, FetchRecommendation::Recommended),
        ];
        for (verdict, recommendation) in rows {
            assert_eq!(verdict.recommendation(), recommendation, "{verdict}");
        }
    }

    #[test]
    fn modes_block_only_under_respect() {
        let blocking = [Verdict::DisallowedExplicit, Verdict::UnknownUnreachable];
        for verdict in [
            Verdict::AllowedExplicit,
            Verdict::AllowedImplicit,
            Verdict::DisallowedExplicit,
            Verdict::UnknownUnreachable,
            Verdict::UnknownParseError,
            Verdict::SkippedByUserPolicy,
        ] {
            assert_eq!(RobotsMode::Respect.blocks(verdict), blocking.contains(&verdict), "{verdict}");
            assert!(!RobotsMode::ReportOnly.blocks(verdict));
            assert!(!RobotsMode::Ignore.blocks(verdict));
        }
    }

    #[test]
    fn status_classes() {
        let rows = [
            (200, false, RobotsAvailability::Parsed),
            (204, false, RobotsAvailability::Parsed),
            (404, false, RobotsAvailability::Unavailable),
            (410, false, RobotsAvailability::Unavailable),
            (401, false, RobotsAvailability::Unavailable),
            (403, false, RobotsAvailability::Unavailable),
            (401, true, RobotsAvailability::AuthDisallowAll),
            (403, true, RobotsAvailability::AuthDisallowAll),
            (404, true, RobotsAvailability::Unavailable),
            (429, false, RobotsAvailability::Unreachable),
            (500, false, RobotsAvailability::Unreachable),
            (503, false, RobotsAvailability::Unreachable),
            (304, false, RobotsAvailability::Unreachable),
        ];
        for (status, auth, expected) in rows {
            assert_eq!(RobotsAvailability::from_status(status, auth), expected, "{status} {auth}");
        }
    }

    #[test]
    fn policy_error_quotes_only_the_rule() {
        let err = PolicyError {
            url: "https://example.com/private/a".into(),
            evidence: RobotsEvidence {
                verdict: Verdict::DisallowedExplicit,
                recommendation: FetchRecommendation::NotRecommended,
                robots_url: Some("https://example.com/robots.txt".into()),
                status: Some(200),
                availability: Some(RobotsAvailability::Parsed),
                from_cache: false,
                cache_age_seconds: None,
                rule: Some(RuleEvidence {
                    line: 2,
                    directive: crate::robots::Directive::Disallow,
                    pattern: "/private".into(),
                }),
                error: None,
            },
        };
        assert_eq!(
            err.to_string(),
            "robots policy refuses https://example.com/private/a: disallowed_explicit (not_recommended); \
             matched line 2: `Disallow: /private` in https://example.com/robots.txt (HTTP 200)"
        );
    }

    #[test]
    fn modes_parse() {
        assert_eq!("report_only".parse::<RobotsMode>(), Ok(RobotsMode::ReportOnly));
        assert!("nope".parse::<RobotsMode>().unwrap_err().contains("nope"));
    }
}
