//! `apex-www` 1.0.0: robots.txt is served, and the same, on the apex and
//! the `www.` host (many sites serve it from `www.` only, and crawlers
//! checking the apex see a 404 and, under RFC 9309 §2.3.1.3, assume no
//! restrictions).
//!
//! Steps: `served` (0.5) — `/robots.txt` answers 2xx on both hosts (after
//! redirects: a host that redirects to the other is fine); an apex that
//! does not answer fails the step. A `www.` host that gives no HTTP answer
//! at all (its name does not resolve, nothing listens) serves nothing, so
//! no crawler can read a second policy there: the step passes under the
//! title "Served on the apex; the www host gives no answer", with an info
//! finding quoting why; `equal` (0.5) — both hosts end at the same
//! robots.txt, or at bodies with the same rules; skipped unless both serve
//! it. Folders have no hosts: the check is skipped.
//!
//! Evidence: `served` {hosts: [{host, url, final_url, status, error}]};
//! `equal` {same_final_url, same_rules, bytes: [n, n]}.

use serde_json::json;
use url::Url;

use super::Context;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{Resource, Target};

/// The check id.
pub const ID: &str = "apex-www";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "robots.txt is the same on the apex and www hosts";
const SERVED_TITLE: &str = "Served on both hosts";
const APEX_ONLY_TITLE: &str = "Served on the apex; the www host gives no answer";

/// The apex and `www.` robots.txt URLs of an origin, apex first; `None` for
/// an IP address or a single-label host.
pub fn host_pair(origin: &Url) -> Option<(Url, Url)> {
    let host = origin.host_str()?;
    if origin.host().is_some_and(|h| !matches!(h, url::Host::Domain(_))) || !host.contains('.') {
        return None;
    }
    let apex = host.strip_prefix("www.").unwrap_or(host);
    let with_host = |h: &str| {
        let mut url = origin.clone();
        url.set_host(Some(h)).ok()?;
        url.set_path("/robots.txt");
        url.set_query(None);
        url.set_fragment(None);
        Some(url)
    };
    Some((with_host(apex)?, with_host(&format!("www.{apex}"))?))
}

/// The rule-bearing lines of a robots.txt, normalised: comments and blank
/// lines dropped, whitespace trimmed, keys lower-cased.
fn rules_of(body: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(body)
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once(':') {
            Some((k, v)) => format!("{}:{}", k.trim().to_ascii_lowercase(), v.trim()),
            None => l.to_string(),
        })
        .collect()
}

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let Target::Origin(origin) = ctx.site.target() else {
        return CheckResult::skipped(
            ID,
            VERSION,
            TITLE,
            "a folder has no apex or www host; audit the live origin for this check",
        );
    };
    let Some((apex_url, www_url)) = host_pair(origin) else {
        return CheckResult::skipped(ID, VERSION, TITLE, "the origin is an IP address or a single-label host");
    };
    let apex = ctx.site.get_url(apex_url.as_str()).await;
    let www = ctx.site.get_url(www_url.as_str()).await;
    let mut findings = Vec::new();
    let host_evidence = |host: &str, r: &Resource| json!({"host": host, "url": r.url, "final_url": r.final_url, "status": r.status, "error": r.error.as_ref().map(|e| e.message())});
    let apex_host = apex_url.host_str().unwrap_or_default().to_string();
    let www_host = www_url.host_str().unwrap_or_default().to_string();
    let served_evidence = json!({"hosts": [host_evidence(&apex_host, &apex), host_evidence(&www_host, &www)]});
    let www_exists = www.status.is_some();
    let mut served_title = SERVED_TITLE;
    let served = if !apex.is_success() {
        findings.push(
            Finding::new(Severity::Fail, format!("robots.txt on the apex {apex_host} is not served ({})", apex.outcome()))
                .fix(format!("Serve /robots.txt on {apex_host} too, or redirect the apex to {www_host}; crawlers that ask the apex otherwise assume no restrictions."))
                .at(apex.url.clone()),
        );
        Status::Fail
    } else if www_exists && !www.is_success() {
        findings.push(
            Finding::new(Severity::Warn, format!("robots.txt on {www_host} is not served ({})", www.outcome()))
                .fix(format!("Serve the same robots.txt on {www_host}, or redirect {www_host} to {apex_host}."))
                .at(www.url.clone()),
        );
        Status::Warn
    } else if !www_exists {
        served_title = APEX_ONLY_TITLE;
        findings.push(
            Finding::new(
                Severity::Info,
                format!(
                    "{www_host} gives no HTTP answer ({}): only {apex_host} serves robots.txt, so there is no second policy to compare",
                    www.outcome()
                ),
            )
            .fix(format!("Nothing to change; if {www_host} should serve the site, serve the same robots.txt there or redirect it to {apex_host}."))
            .at(www.url.clone()),
        );
        Status::Pass
    } else {
        Status::Pass
    };
    let served_step = StepResult::new("served", served_title, 0.5, served).evidence(served_evidence);
    let equal_step = if apex.is_success() && www.is_success() {
        let same_final = apex.final_url == www.final_url;
        let same_rules = rules_of(&apex.body) == rules_of(&www.body);
        let status = if same_final || same_rules {
            Status::Pass
        } else {
            findings.push(
                Finding::new(Severity::Warn, format!("{apex_host} and {www_host} serve different robots.txt rules"))
                    .fix("Serve one robots.txt for both hosts (or redirect one host to the other), so every crawler reads the same policy.")
                    .at(www.url.clone()),
            );
            Status::Warn
        };
        StepResult::new("equal", "The same rules on both hosts", 0.5, status).evidence(json!({
            "same_final_url": same_final,
            "same_rules": same_rules,
            "bytes": [apex.body.len(), www.body.len()],
        }))
    } else {
        StepResult::new("equal", "The same rules on both hosts", 0.5, Status::Skip)
    };
    CheckResult::from_steps(ID, VERSION, TITLE, vec![served_step, equal_step], findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs() {
        let pair = |s: &str| host_pair(&Url::parse(s).unwrap()).map(|(a, w)| (a.to_string(), w.to_string()));
        assert_eq!(
            pair("https://www.example.com/x"),
            Some(("https://example.com/robots.txt".into(), "https://www.example.com/robots.txt".into()))
        );
        assert_eq!(
            pair("http://example.com:8080"),
            Some(("http://example.com:8080/robots.txt".into(), "http://www.example.com:8080/robots.txt".into()))
        );
        assert_eq!(pair("http://127.0.0.1:8080"), None);
        assert_eq!(pair("http://localhost"), None);
    }

    #[test]
    fn rules_ignore_comments_and_case() {
        assert_eq!(
            rules_of(b"# a\nUser-Agent: *\n\nDisallow: /x # why\n"),
            rules_of(b"user-agent:*\r\ndisallow: /x\n")
        );
        assert_ne!(rules_of(b"User-agent: *\nDisallow: /x\n"), rules_of(b"User-agent: *\nDisallow: /y\n"));
    }
}
