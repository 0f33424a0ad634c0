//! What a link listed in an llms.txt gave when requested: one classification
//! for every face that checks links (`webcanon llms check`, the audit's
//! llms.txt links step), and the one checker that requests them
//! ([`Client::check_links`]).
//!
//! Only [`LinkOutcome::Broken`] (the server answered, but not with 2xx)
//! counts against the file. A refusal is the site's wish, an unreachable
//! link may be passing: both are reported, neither fails a check.

use url::Url;
use webcanon_core::policy::{PolicyError, RuleEvidence};

use crate::error::Error;
use crate::polite::{MAX_IN_FLIGHT, run_polite};
use crate::{Client, RawResponse};

/// `Accept` of a link check: Markdown preferred, plain text next.
pub const LINK_ACCEPT: &str = "text/markdown, text/plain;q=0.9, text/html;q=0.2, */*;q=0.1";

/// How much of a linked page is read: enough to judge what it is.
pub const LINK_MAX_BYTES: usize = 256 * 1024;

/// The most distinct links of one llms.txt a command requests unless told
/// otherwise (`webcanon llms check` and `full`, `--max-links`): an llms.txt
/// is the site's text, and one of a million links must not turn a check into
/// a million requests. The links past the cap are listed as left out.
pub const DEFAULT_MAX_LINKS: usize = 1_000;

/// What requesting a link gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkOutcome {
    /// 2xx with Markdown or plain text.
    Ok,
    /// 2xx, but HTML, binary data or another media type.
    NotMarkdown,
    /// The server answered with a status that is not 2xx.
    Broken,
    /// robots.txt of the link's origin (or of a redirect target) refuses it.
    RefusedRobots,
    /// The SSRF guard refuses the address.
    RefusedSsrf,
    /// No answer: a timeout, a connection failure, a bad redirect or too many.
    Unreachable,
    /// Not an http(s) URL once resolved.
    Invalid,
}

impl LinkOutcome {
    /// The outcome as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkOutcome::Ok => "ok",
            LinkOutcome::NotMarkdown => "not_markdown",
            LinkOutcome::Broken => "broken",
            LinkOutcome::RefusedRobots => "refused_robots",
            LinkOutcome::RefusedSsrf => "refused_ssrf",
            LinkOutcome::Unreachable => "unreachable",
            LinkOutcome::Invalid => "invalid",
        }
    }

    /// Whether the outcome counts against the llms.txt (a failed check, a
    /// non-zero exit status): only a broken link does.
    pub fn fails(self) -> bool {
        self == LinkOutcome::Broken
    }

    /// The outcome of a request that got no usable answer.
    pub fn of_error(error: &Error) -> LinkOutcome {
        match error {
            Error::Policy(_) => LinkOutcome::RefusedRobots,
            Error::Ssrf(_) => LinkOutcome::RefusedSsrf,
            Error::Fetch(_) => LinkOutcome::Unreachable,
            _ => LinkOutcome::Invalid,
        }
    }
}

impl std::fmt::Display for LinkOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of an answer and, when it is not `ok`, why: `HTTP 404`,
/// `an HTML page served as text/plain`, ….
///
/// The first bytes win over the media type for HTML, since servers often
/// send their HTML pages as `text/plain`; a body with no media type is text
/// unless it holds a NUL byte.
///
/// ```
/// use webcanon_client::link_check::{LinkOutcome, judge_answer};
///
/// assert_eq!(judge_answer(200, Some("text/markdown"), b"# Doc\n").0, LinkOutcome::Ok);
/// assert_eq!(judge_answer(404, Some("text/html"), b"").0, LinkOutcome::Broken);
/// let (outcome, why) = judge_answer(200, Some("text/plain"), b"<!doctype html><html>");
/// assert_eq!((outcome, why.as_deref()), (LinkOutcome::NotMarkdown, Some("an HTML page served as text/plain")));
/// ```
pub fn judge_answer(status: u16, media_type: Option<&str>, body: &[u8]) -> (LinkOutcome, Option<String>) {
    if !(200..300).contains(&status) {
        return (LinkOutcome::Broken, Some(format!("HTTP {status}")));
    }
    let is_html_type = |t: &str| matches!(t, "text/html" | "application/xhtml+xml");
    if webcanon_core::sniff::looks_like_html(body) {
        let why = match media_type {
            Some(t) if !is_html_type(t) && !t.is_empty() => format!("an HTML page served as {t}"),
            _ => "an HTML page, not Markdown".into(),
        };
        return (LinkOutcome::NotMarkdown, Some(why));
    }
    match media_type {
        Some(t) if crate::markdown::is_markdown_media_type(t) => (LinkOutcome::Ok, None),
        Some(t) if is_html_type(t) => (LinkOutcome::NotMarkdown, Some("an HTML page, not Markdown".into())),
        None | Some("") if body[..body.len().min(1024)].contains(&0) => {
            (LinkOutcome::NotMarkdown, Some("binary content without a content type".into()))
        }
        None | Some("") => (LinkOutcome::Ok, None),
        Some(other) => (LinkOutcome::NotMarkdown, Some(format!("served as {other}, not Markdown or plain text"))),
    }
}

/// What requesting one link gave, with the evidence behind the outcome.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LinkCheck {
    /// The outcome.
    pub outcome: LinkOutcome,
    /// The final HTTP status, when the server answered (a refused redirect
    /// target or a non-2xx answer included).
    pub status: Option<u16>,
    /// Where the redirects ended, when there was an answer.
    pub final_url: Option<String>,
    /// Whether the answer came after one or more redirects.
    pub redirected: bool,
    /// The answer's `Content-Type` as sent.
    pub content_type: Option<String>,
    /// Why the outcome is not `ok`, or where a redirect led.
    pub message: Option<String>,
    /// The robots.txt rule that refused the link.
    pub rule: Option<RuleEvidence>,
    /// The robots.txt that refused the link.
    pub robots_url: Option<String>,
}

impl LinkCheck {
    fn without_answer(outcome: LinkOutcome, message: String) -> LinkCheck {
        LinkCheck {
            outcome,
            status: None,
            final_url: None,
            redirected: false,
            content_type: None,
            message: Some(message),
            rule: None,
            robots_url: None,
        }
    }

    /// The check of an answer, by [`judge_answer`].
    pub fn of_answer(response: &RawResponse) -> LinkCheck {
        let redirected = !response.redirects.is_empty();
        let (outcome, mut message) = judge_answer(response.status, response.media_type().as_deref(), &response.body);
        if redirected {
            let to = format!("redirected to {}", response.final_url);
            message = Some(match message.take() {
                Some(message) => format!("{message}; {to}"),
                None => to,
            });
        }
        LinkCheck {
            outcome,
            status: Some(response.status),
            final_url: Some(response.final_url.clone()),
            redirected,
            content_type: response.header("content-type").map(str::to_string),
            message,
            rule: None,
            robots_url: None,
        }
    }

    /// The check of a refusal or a failure to get an answer for `requested`.
    pub fn of_error(error: &Error, requested: &Url) -> LinkCheck {
        let outcome = LinkOutcome::of_error(error);
        match error {
            Error::Policy(policy) => {
                let mut check = LinkCheck::without_answer(outcome, policy_message(policy, requested));
                check.rule = policy.evidence.rule.clone();
                check.robots_url = policy.evidence.robots_url.clone();
                check
            }
            Error::Fetch(fetch) => {
                let mut check = LinkCheck::without_answer(outcome, fetch.to_string());
                check.status = fetch.status();
                check
            }
            other => LinkCheck::without_answer(outcome, other.to_string()),
        }
    }
}

/// `disallowed_explicit by line 2: \`Disallow: /private\` in …/robots.txt`,
/// naming the redirect target when that is what was refused.
fn policy_message(policy: &PolicyError, requested: &Url) -> String {
    let e = &policy.evidence;
    let mut text = String::new();
    if policy.url != requested.as_str() {
        text.push_str(&format!("redirects to {}, which robots.txt refuses: ", policy.url));
    }
    text.push_str(e.verdict.as_str());
    if let Some(rule) = &e.rule {
        text.push_str(&format!(" by line {}: `{}: {}`", rule.line, rule.directive, rule.pattern));
    }
    if let Some(robots_url) = &e.robots_url {
        text.push_str(&format!(" in {robots_url}"));
        if let Some(status) = e.status.filter(|s| !(200..300).contains(s)) {
            text.push_str(&format!(" (HTTP {status})"));
        }
    }
    text
}

impl Client {
    /// Requests one link as a link check does: `Accept` [`LINK_ACCEPT`], at
    /// most [`LINK_MAX_BYTES`] read, through the SSRF guard, robots.txt
    /// admission (redirect targets included) and pacing of a fetch.
    pub async fn check_link(&self, url: &Url) -> LinkCheck {
        match self.get(url, LINK_ACCEPT, LINK_MAX_BYTES).await {
            Ok(response) => LinkCheck::of_answer(&response),
            Err(err) => LinkCheck::of_error(&err, url),
        }
    }

    /// Checks every URL with [`Client::check_link`], politely: at most
    /// [`MAX_IN_FLIGHT`] requests at once and one at a time per host.
    /// Returns the checks in the order of `urls`; `on_done` is called once
    /// per URL as its check ends.
    pub async fn check_links(&self, urls: &[Url], on_done: impl Fn() + Send + Sync + 'static) -> Vec<LinkCheck> {
        let client = self.clone();
        run_polite(urls, MAX_IN_FLIGHT, on_done, move |url| {
            let client = client.clone();
            async move { client.check_link(&url).await }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_judged_by_status_then_body_then_media_type() {
        let rows: &[(u16, Option<&str>, &[u8], LinkOutcome)] = &[
            (200, Some("text/markdown"), b"# Doc", LinkOutcome::Ok),
            (200, Some("text/x-markdown"), b"# Doc", LinkOutcome::Ok),
            (200, Some("text/plain"), b"plain", LinkOutcome::Ok),
            (200, None, b"plain", LinkOutcome::Ok),
            (204, Some(""), b"", LinkOutcome::Ok),
            (200, Some("text/html"), b"<p>x</p>", LinkOutcome::NotMarkdown),
            (200, Some("text/markdown"), b"<!DOCTYPE html><html>", LinkOutcome::NotMarkdown),
            (200, None, b"\x89PNG\r\n\x1a\n\0\0", LinkOutcome::NotMarkdown),
            (200, Some("application/pdf"), b"%PDF-1.7", LinkOutcome::NotMarkdown),
            (301, Some("text/html"), b"", LinkOutcome::Broken),
            (404, Some("text/markdown"), b"# Not found", LinkOutcome::Broken),
            (503, None, b"", LinkOutcome::Broken),
        ];
        for (status, media_type, body, expected) in rows {
            assert_eq!(judge_answer(*status, *media_type, body).0, *expected, "{status} {media_type:?}");
        }
    }

    #[test]
    fn only_broken_links_fail() {
        let failing: Vec<LinkOutcome> = [
            LinkOutcome::Ok,
            LinkOutcome::NotMarkdown,
            LinkOutcome::Broken,
            LinkOutcome::RefusedRobots,
            LinkOutcome::RefusedSsrf,
            LinkOutcome::Unreachable,
            LinkOutcome::Invalid,
        ]
        .into_iter()
        .filter(|o| o.fails())
        .collect();
        assert_eq!(failing, [LinkOutcome::Broken]);
    }
}
