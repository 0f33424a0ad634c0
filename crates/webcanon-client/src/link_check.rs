//! What a link listed in an llms.txt gave when requested: one classification
//! for every face that checks links (`webcanon llms check`, the audit's
//! llms.txt links step).
//!
//! Only [`LinkOutcome::Broken`] (the server answered, but not with 2xx)
//! counts against the file. A refusal is the site's wish, an unreachable
//! link may be passing: both are reported, neither fails a check.

use crate::error::Error;

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
