//! Failures of a tool call as the model sees them: refusals by robots.txt or
//! the SSRF guard, failed fetches and invalid arguments.
//!
//! A failure is a tool result with `isError: true` (the MCP specification
//! reports tool failures that way, not as JSON-RPC errors): a text that says
//! what happened and why, and the same facts as the JSON error object in a
//! second text item. A
//! robots.txt refusal quotes only the matched rule, never the file: the
//! file's text is the site's, and a model must not be fed it as
//! instructions.

use std::fmt::Write;

use webcanon_client::error::{Error, ErrorBody, ErrorJson, FetchError, code};
use webcanon_core::policy::{PolicyError, RobotsAvailability, Verdict};

use crate::text::{robots_source, rule_line};

/// A tool call that did not produce its result.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// What the model reads.
    pub text: String,
    /// What a program reads: the CLI's JSON error object, same kinds and codes.
    pub body: Box<ErrorBody>,
}

impl Failure {
    /// An invalid argument: the message says which and what is expected.
    pub fn usage(message: impl Into<String>, url: Option<&str>) -> Failure {
        let message = message.into();
        let mut body = Box::new(ErrorBody::new("usage", code::USAGE, message.clone()));
        body.url = url.map(str::to_string);
        Failure { text: format!("Invalid argument: {message}"), body }
    }

    /// A failure of another `kind` (`fetch`, `not_found`: the CLI's exit
    /// status 5) with its message.
    pub fn other(kind: &'static str, text: String, url: &str) -> Failure {
        let mut body = Box::new(ErrorBody::new(kind, code::FETCH, text.clone()));
        body.url = Some(url.to_string());
        Failure { body, text }
    }

    /// A call the server cannot take now (too many jobs) or could not
    /// complete on its side (its disk): kind `overloaded` or `fetch`, the
    /// CLI's exit status 5, with no URL.
    pub fn server(kind: &'static str, text: String) -> Failure {
        Failure { body: Box::new(ErrorBody::new(kind, code::FETCH, text.clone())), text }
    }

    /// A failure of the retrieval layer for `url`, requested as `agent`.
    pub fn from_client(err: &Error, url: &str, agent: &str) -> Failure {
        match err {
            Error::Policy(policy) => Failure::policy(err, policy, url, agent),
            Error::Ssrf(ssrf) => {
                let what = ssrf.to_string();
                let what = what.strip_prefix("refused ").unwrap_or(&what);
                let text = format!(
                    "Refused by the SSRF guard: {what} (reason: {}).\n\
                     Addresses that are not public (loopback, private, link-local, cloud metadata) are never \
                     requested unless the server's operator allows their network.\nNothing was requested.",
                    ssrf.reason()
                );
                Failure { text, body: Box::new(ErrorBody::from_error(err, url)) }
            }
            Error::Fetch(FetchError::PaymentRequired { url: asking, price }) => {
                let price =
                    price.as_ref().map(|p| format!(" {p}")).unwrap_or_else(|| " a price it does not state".into());
                let text = format!(
                    "Payment required: {asking} asks{price} for access (HTTP 402, pay per crawl; reason: \
                     payment_required).\nNothing was paid and the page was not read; webcanon never pays."
                );
                Failure { text, body: Box::new(ErrorBody::from_error(err, url)) }
            }
            Error::Fetch(_) => {
                Failure { text: format!("Fetch failed: {err}."), body: Box::new(ErrorBody::from_error(err, url)) }
            }
            Error::InvalidUrl { .. } => Failure::usage(err.to_string(), Some(url)),
            other => Failure::other("fetch", format!("Fetch failed: {other}."), url),
        }
    }

    fn policy(err: &Error, policy: &PolicyError, requested: &str, agent: &str) -> Failure {
        let evidence = &policy.evidence;
        let robots = evidence;
        let mut text = String::new();
        let refused = &policy.url;
        let via = if refused.as_str() != requested { format!(" (on the way to {requested})") } else { String::new() };
        match evidence.verdict {
            Verdict::UnknownUnreachable => {
                let _ = writeln!(
                    text,
                    "Refused by robots.txt policy: the site's robots.txt could not be read, so whether agent \
                     `{agent}` may fetch {refused}{via} is unknown, and nothing is fetched by default."
                );
            }
            _ => {
                let _ =
                    writeln!(text, "Refused by robots.txt: the site asks agent `{agent}` not to fetch {refused}{via}.");
            }
        }
        let _ = writeln!(text, "Verdict: {} (recommendation: {})", robots.verdict, robots.recommendation);
        match (&robots.rule, evidence.availability) {
            (Some(rule), _) => {
                let _ = writeln!(text, "Matched rule: {}", rule_line(rule));
            }
            (None, Some(RobotsAvailability::AuthDisallowAll)) => {
                let _ = writeln!(text, "Matched rule: none (robots.txt answered 401 or 403, read as disallow all)");
            }
            (None, _) => {
                let _ = writeln!(text, "Matched rule: none");
            }
        }
        if let Some(source) = robots_source(robots) {
            let _ = writeln!(text, "robots.txt: {source}");
        }
        text.push_str("Nothing was requested from this URL.");
        // The URL of the error is the one refused, which may be a redirect hop.
        Failure { text, body: Box::new(ErrorBody::from_error(err, refused)) }
    }

    /// The JSON error object of the error result.
    pub fn structured(&self) -> serde_json::Value {
        serde_json::to_value(ErrorJson { error: (*self.body).clone() }).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use webcanon_core::policy::{FetchRecommendation, RobotsEvidence, RuleEvidence};
    use webcanon_core::robots::Directive;

    use super::*;

    fn evidence(verdict: Verdict, rule: Option<RuleEvidence>, availability: RobotsAvailability) -> RobotsEvidence {
        RobotsEvidence {
            verdict,
            recommendation: verdict.recommendation(),
            robots_url: Some("https://example.com/robots.txt".into()),
            status: Some(200),
            availability: Some(availability),
            from_cache: false,
            cache_age_seconds: None,
            rule,
            error: None,
        }
    }

    #[test]
    fn a_disallow_names_the_verdict_and_quotes_only_the_rule() {
        let rule = RuleEvidence { line: 2, directive: Directive::Disallow, pattern: "/private".into() };
        let err = Error::from(PolicyError {
            url: "https://example.com/private/x".into(),
            evidence: evidence(Verdict::DisallowedExplicit, Some(rule), RobotsAvailability::Parsed),
        });
        let failure = Failure::from_client(&err, "https://example.com/private/x", "webcanon");
        let lines: Vec<&str> = failure.text.lines().collect();
        assert_eq!(
            lines,
            [
                "Refused by robots.txt: the site asks agent `webcanon` not to fetch https://example.com/private/x.",
                "Verdict: disallowed_explicit (recommendation: not_recommended)",
                "Matched rule: robots.txt line 2: Disallow: /private",
                "robots.txt: https://example.com/robots.txt (HTTP 200)",
                "Nothing was requested from this URL.",
            ]
        );
        let json = failure.structured();
        assert_eq!(json["error"]["kind"], "policy");
        assert_eq!(json["error"]["verdict"], "disallowed_explicit");
        assert_eq!(json["error"]["recommendation"], FetchRecommendation::NotRecommended.as_str());
        assert_eq!(json["error"]["rule"]["line"], 2);
        assert_eq!(json["error"]["rule"]["pattern"], "/private");
        assert_eq!(json["error"]["code"], 3, "the CLI's exit status for a policy refusal");
    }

    #[test]
    fn an_unreachable_robots_txt_and_a_redirect_hop_say_so() {
        let mut e = evidence(Verdict::UnknownUnreachable, None, RobotsAvailability::Unreachable);
        e.status = Some(503);
        let err = Error::from(PolicyError { url: "https://other.example/x".into(), evidence: e });
        let failure = Failure::from_client(&err, "https://example.com/start", "GPTBot");
        assert!(failure.text.starts_with(
            "Refused by robots.txt policy: the site's robots.txt could not be read, so whether agent `GPTBot` \
             may fetch https://other.example/x (on the way to https://example.com/start) is unknown"
        ));
        assert!(
            failure.text.contains("Verdict: unknown_unreachable (recommendation: unknown_do_not_fetch_by_default)")
        );
        assert!(failure.text.contains("Matched rule: none\n"));
        assert!(failure.text.contains("(HTTP 503)"));
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        let err = Error::InvalidUrl { url: "ftp://x".into(), reason: "scheme `ftp` is not http or https".into() };
        let failure = Failure::from_client(&err, "ftp://x", "webcanon");
        assert_eq!(failure.text, "Invalid argument: invalid URL `ftp://x`: scheme `ftp` is not http or https");
        assert_eq!(failure.structured()["error"]["kind"], "usage");
        assert_eq!(failure.structured()["error"]["code"], 2);
    }
}
