//! `rsl` 1.0.0: the site publishes its content licence as an RSL 1.0
//! document ([Really Simple Licensing](https://rslstandard.org/rsl)), and
//! it agrees with robots.txt.
//!
//! Steps:
//! - `present` (0.3) — robots.txt names an RSL document with a `License:`
//!   record (RSL 1.0 §4; the guide "Adding RSL to robots.txt"). It is
//!   optional: none warns with a fix, as ai.txt does.
//! - `valid` (0.4) — each named document is read and parses as RSL 1.0: a
//!   document that cannot be read, is not RSL (HTML, not well-formed, over
//!   the size or element limits) or lacks the namespace fails; the RSL codes
//!   (`RSL001`…) are findings with their severity.
//! - `consistent` (0.3) — what the documents say about `ai-train` on the
//!   site's root and on each `content` entry's path agrees with robots.txt:
//!   RSL permitting `ai-train` where robots.txt's `Content-Signal:
//!   ai-train=no` or `Content-Usage: train-ai=n` (for `*`) says no, or where
//!   every AI training crawler in the registry is disallowed, warns; so does
//!   RSL prohibiting `ai-train` where those records say yes.
//!
//! RSL states usage terms; like every usage signal it never blocks a fetch.
//!
//! Evidence keys: `present` {robots_url, licenses}; `valid` {documents:
//! [{url, status, error, contents, diagnostics: [{code, line, severity,
//! message}]}]}; `consistent` {probes: [{path, rsl, content_signal,
//! training_crawlers_allowed}]}.

use serde_json::json;
use webcanon_core::agents::{Category, registry};
use webcanon_core::robots::Robots;
use webcanon_core::rsl::{self, LicenseVerdict, RslDocument, Usage};
use webcanon_core::signals::Preference;

use super::Context;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};

/// The check id.
pub const ID: &str = "rsl";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "RSL license states the content's terms";

const PUBLISH_FIX: &str = "Publish an RSL 1.0 document (https://rslstandard.org/rsl), e.g. /license.xml with \
     `<rsl xmlns=\"https://rslstandard.org/rsl\"><content url=\"/\"><license><prohibits type=\"usage\">ai-train\
     </prohibits></license></content></rsl>`, and name it in robots.txt with `License: https://example.com/license.xml`.";

/// At most this many documents are read.
const MAX_DOCUMENTS: usize = 4;

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let robots = ctx.robots().await;
    let licenses: Vec<String> =
        robots.as_ref().map_or_else(Vec::new, |r| r.licenses().take(MAX_DOCUMENTS).map(str::to_string).collect());
    let mut findings = Vec::new();
    let present = present_step(ctx, &licenses, &mut findings);
    if licenses.is_empty() {
        let valid = StepResult::new("valid", "the RSL documents are RSL 1.0", 0.4, Status::Skip);
        let consistent = StepResult::new("consistent", "RSL agrees with robots.txt", 0.3, Status::Skip);
        return CheckResult::from_steps(ID, VERSION, TITLE, vec![present, valid, consistent], findings);
    }
    let mut documents = Vec::new();
    let mut evidence = Vec::new();
    let mut status = Status::Pass;
    for url in &licenses {
        let resource = ctx.site.get_url(url).await;
        let parsed = if resource.is_success() {
            rsl::parse(&resource.body).map_err(|e| e.to_string())
        } else {
            Err(resource
                .error
                .as_ref()
                .map_or_else(|| format!("HTTP {}", resource.status.unwrap_or(0)), |e| e.message().to_string()))
        };
        match &parsed {
            Err(why) => {
                status = Status::Fail;
                findings.push(
                    Finding::new(Severity::Fail, format!("the RSL document {url} cannot be read as RSL 1.0: {why}"))
                        .fix("Serve an RSL 1.0 document (application/rsl+xml) at that URL, or remove the `License:` line.")
                        .at(url.clone()),
                );
            }
            Ok(document) => {
                for d in &document.diagnostics {
                    let severity = Severity::from(d.severity);
                    status = status.max(severity.step_status());
                    let at = d.line.map_or_else(|| url.clone(), |l| format!("{url}:{l}"));
                    findings.push(Finding::new(severity, format!("{} {}", d.code.code(), d.message)).at(at));
                }
            }
        }
        evidence.push(json!({
            "url": url,
            "status": resource.status,
            "error": parsed.as_ref().err(),
            "contents": parsed.as_ref().map_or(0, |d| d.contents.len()),
            "diagnostics": parsed.as_ref().map_or_else(|_| Vec::new(), |d| d.diagnostics.iter().map(|d| json!({
                "code": d.code.code(), "line": d.line, "severity": d.severity.as_str(), "message": d.message,
            })).collect()),
        }));
        if let Ok(document) = parsed {
            documents.push((url.clone(), document));
        }
    }
    let valid = StepResult::new("valid", "the RSL documents are RSL 1.0", 0.4, status)
        .evidence(json!({ "documents": evidence }));
    let consistent = match &robots {
        Some(robots) if !documents.is_empty() => consistent_step(ctx, robots, &documents, &mut findings),
        _ => StepResult::new("consistent", "RSL agrees with robots.txt", 0.3, Status::Skip),
    };
    CheckResult::from_steps(ID, VERSION, TITLE, vec![present, valid, consistent], findings)
}

fn present_step(ctx: &Context, licenses: &[String], findings: &mut Vec<Finding>) -> StepResult {
    let status = if licenses.is_empty() {
        findings.push(
            Finding::new(
                Severity::Warn,
                "robots.txt names no RSL license (`License:`), so the content's terms are unstated",
            )
            .fix(PUBLISH_FIX)
            .at(ctx.site.url_of("/robots.txt")),
        );
        Status::Warn
    } else {
        Status::Pass
    };
    StepResult::new("present", "robots.txt names an RSL license", 0.3, status)
        .evidence(json!({ "robots_url": ctx.site.url_of("/robots.txt"), "licenses": licenses }))
}

/// What robots.txt says for `*` about training on `path`: `Some(false)`
/// no, `Some(true)` yes. Cloudflare's `Content-Signal` lines whose scope
/// covers the path, and the `Content-Usage` rule of the longest matching
/// path (draft-ietf-aipref-attach-05 §3.1), read together: a no wins.
fn signalled_training(robots: &Robots, path: &str) -> Option<bool> {
    let mut verdict = None;
    for signal in robots.content_signals("*") {
        let applies = signal.path.as_deref().is_none_or(|scope| path.starts_with(scope));
        if applies && matches!(signal.key.as_str(), "ai-train" | "train-ai") {
            let no = signal.is_no();
            verdict = Some(verdict.unwrap_or(true) && !no);
        }
    }
    let rules = robots.rules_for("*");
    if let Some(usage) = rules.content_usage(path) {
        match usage.statement.train_ai {
            Preference::Disallowed => verdict = Some(false),
            Preference::Allowed => verdict = Some(verdict.unwrap_or(true)),
            Preference::Unknown => {}
        }
    }
    verdict
}

/// Whether any AI training crawler of the registry may fetch `path`.
fn training_crawlers_allowed(robots: &Robots, path: &str) -> bool {
    let url = format!("https://robots.invalid{path}");
    registry().by_category(Category::AiTraining).any(|agent| robots.decide(agent.token, &url).is_allowed())
}

fn consistent_step(
    ctx: &Context,
    robots: &Robots,
    documents: &[(String, RslDocument)],
    findings: &mut Vec<Finding>,
) -> StepResult {
    let mut probes = vec!["/".to_string()];
    for (_, document) in documents {
        for content in &document.contents {
            let literal = content.url.split(['*', '$']).next().unwrap_or("");
            if literal.starts_with('/') && !probes.iter().any(|p| p == literal) {
                probes.push(literal.to_string());
            }
        }
    }
    let mut status = Status::Pass;
    let mut evidence = Vec::new();
    for path in probes.iter().take(50) {
        let url = ctx.site.url_of(path);
        let absolute = if url.starts_with('/') { format!("https://robots.invalid{url}") } else { url.clone() };
        let decided =
            documents.iter().find_map(|(doc_url, d)| d.decide(&absolute, Usage::AiTrain).map(|x| (doc_url, x)));
        let signal = signalled_training(robots, path);
        let crawlers = training_crawlers_allowed(robots, path);
        let rsl = decided.as_ref().map(|(_, d)| d.verdict);
        let mut contradiction = |message: String| {
            status = Status::Warn;
            findings.push(
                Finding::new(Severity::Warn, message)
                    .fix("Make the RSL license and robots.txt say the same about AI training: crawlers read both.")
                    .at(url.clone()),
            );
        };
        if let Some((doc_url, decision)) = &decided {
            let pattern = &decision.content.url;
            match decision.verdict {
                LicenseVerdict::Permitted if signal == Some(false) => contradiction(format!(
                    "{doc_url} (content `{pattern}`) permits `ai-train` on {path}, but robots.txt's content signal says no"
                )),
                LicenseVerdict::Permitted if !crawlers => contradiction(format!(
                    "{doc_url} (content `{pattern}`) permits `ai-train` on {path}, but robots.txt disallows it to every AI training crawler"
                )),
                LicenseVerdict::Prohibited if signal == Some(true) => contradiction(format!(
                    "{doc_url} (content `{pattern}`) prohibits `ai-train` on {path}, but robots.txt's content signal says yes"
                )),
                _ => {}
            }
        }
        evidence.push(json!({
            "path": path,
            "rsl": rsl.map(LicenseVerdict::as_str),
            "content_signal": signal,
            "training_crawlers_allowed": crawlers,
        }));
    }
    StepResult::new("consistent", "RSL agrees with robots.txt", 0.3, status).evidence(json!({ "probes": evidence }))
}
