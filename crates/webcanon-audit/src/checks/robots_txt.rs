//! `robots-txt` 1.0.0: the site publishes a fetchable, parseable
//! `/robots.txt` (RFC 9309).
//!
//! Steps: `fetch` (0.3) — `/robots.txt` answers 2xx; `core-syntax` (0.45) —
//! the body is robots.txt with at least one `User-agent` group and its core
//! records are well formed; `extensions` (0.25) — known extensions,
//! unsupported legacy records (`Noindex`, a warning) and unknown records are
//! classified, and the agent tokens named are split into known and unknown.
//!
//! A non-2xx answer fails the check even though crawlers read a 4xx as "no
//! restrictions": the site publishes no policy document. Evidence keys:
//! `fetch` {url, final_url, status, status_class, interpretation, redirects,
//! bytes, error}; `core-syntax` {groups, rules, lines, bytes, not_robots,
//! diagnostics}; `extensions` {known_extensions, unsupported_legacy,
//! unknown_records, sitemaps, content_signals, known_agents, unknown_agents}.

use serde_json::{Value, json};
use webcanon_core::agents::registry;
use webcanon_core::robots::{LintCode, RecordClass, Robots};

use super::Context;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::Resource;

/// The check id.
pub const ID: &str = "robots-txt";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "robots.txt is published and valid";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let resource = ctx.robots_resource().await;
    let mut findings = Vec::new();
    let fetch = fetch_step(&resource, &mut findings);
    if fetch.status == Status::Fail {
        let steps = vec![
            fetch,
            StepResult::new("core-syntax", CORE_TITLE, 0.45, Status::Skip),
            StepResult::new("extensions", EXT_TITLE, 0.25, Status::Skip),
        ];
        return CheckResult::from_steps(ID, VERSION, TITLE, steps, findings);
    }
    let robots = Robots::parse(&resource.body);
    let core = core_step(&robots, &resource, &mut findings);
    let extensions = if core.status == Status::Fail {
        StepResult::new("extensions", EXT_TITLE, 0.25, Status::Skip)
    } else {
        extensions_step(&robots, &mut findings)
    };
    CheckResult::from_steps(ID, VERSION, TITLE, vec![fetch, core, extensions], findings)
}

const FETCH_TITLE: &str = "Fetch robots.txt";
const CORE_TITLE: &str = "Validate RFC 9309 core syntax";
const EXT_TITLE: &str = "Classify extension records";

/// How crawlers read a robots.txt status (RFC 9309 §2.3.1.2–§2.3.1.4).
fn interpretation(status: Option<u16>) -> (&'static str, &'static str) {
    match status {
        Some(200..=299) => ("2xx", "fetched; crawlers parse it"),
        Some(300..=399) => ("3xx", "redirect chain too long; crawlers treat it as unavailable"),
        Some(400..=499) => ("4xx", "no robots.txt; crawlers generally assume no restrictions"),
        Some(_) => ("5xx", "server error; crawlers treat it as a temporary failure and may pause crawling"),
        None => ("network", "unreachable; crawlers treat it as a temporary failure"),
    }
}

fn fetch_step(resource: &Resource, findings: &mut Vec<Finding>) -> StepResult {
    let (class, meaning) = interpretation(resource.status);
    let evidence = json!({
        "url": resource.url,
        "final_url": resource.final_url,
        "status": resource.status,
        "status_class": class,
        "interpretation": meaning,
        "redirects": resource.redirects.iter().map(|(u, s)| json!({"url": u, "status": s})).collect::<Vec<_>>(),
        "bytes": resource.body.len(),
        "error": resource.error.as_ref().map(|e| e.message()),
    });
    let status = if resource.is_success() { Status::Pass } else { Status::Fail };
    if status == Status::Fail {
        let message = match resource.status {
            Some(_) => format!("/robots.txt {}: {meaning}", resource.answered()),
            None => format!("/robots.txt could not be fetched: {}", resource.outcome()),
        };
        findings.push(
            Finding::new(Severity::Fail, message)
                .fix("Serve a robots.txt at the root of the origin with a 200 status, even if it only says `User-agent: *` and `Allow: /`.")
                .at(resource.url.clone()),
        );
    } else if !resource.redirects.is_empty() {
        findings.push(
            Finding::new(Severity::Info, format!("/robots.txt redirects to {}", resource.final_url))
                .fix("Serve robots.txt directly: crawlers follow at most five redirects, and its rules apply to the origin first asked.")
                .at(resource.url.clone()),
        );
    }
    StepResult::new("fetch", FETCH_TITLE, 0.3, status).evidence(evidence)
}

/// Core-record problems, each reported with its code's severity: an error
/// (a rule before any group, which no parser applies) fails the step, a
/// warning warns.
fn is_core_problem(code: LintCode) -> bool {
    matches!(
        code,
        LintCode::OrphanRule
            | LintCode::MisspelledDirective
            | LintCode::MissingColon
            | LintCode::InvalidProductToken
            | LintCode::InvalidLine
            | LintCode::LineTooLong
            | LintCode::FileTooLarge
            | LintCode::EmptyGroup
            | LintCode::MatchOrderConflict
            | LintCode::PatternNeverMatches
    )
}

fn core_step(robots: &Robots, resource: &Resource, findings: &mut Vec<Finding>) -> StepResult {
    let lint = robots.lint();
    let groups = robots.groups().len();
    let rules: usize = robots.groups().map(|g| g.rules().count()).sum();
    let diagnostics: Vec<Value> = lint
        .iter()
        .filter(|d| is_core_problem(d.code) || matches!(d.code, LintCode::HtmlBody | LintCode::BinaryBody))
        .map(|d| json!({"code": d.code.code(), "line": d.line, "severity": d.severity.as_str(), "message": d.message}))
        .collect();
    let evidence = json!({
        "groups": groups,
        "rules": rules,
        "lines": robots.line_count(),
        "bytes": robots.size(),
        "not_robots": robots.not_robots().map(|n| format!("{n:?}").to_lowercase()),
        "diagnostics": diagnostics,
    });
    let location = |line: Option<u32>| match line {
        Some(line) => format!("{}:{line}", resource.url),
        None => resource.url.clone(),
    };
    let status = if let Some(kind) = robots.not_robots() {
        findings.push(
            Finding::new(Severity::Fail, format!("/robots.txt is not a robots.txt file ({kind:?} content)"))
                .fix("Serve a plain-text robots.txt; an HTML page at /robots.txt is usually a catch-all route or a soft 404.")
                .at(resource.url.clone()),
        );
        Status::Fail
    } else if groups == 0 {
        findings.push(
            Finding::new(Severity::Fail, "robots.txt has no User-agent group, so none of its rules apply")
                .fix("Start the rules with `User-agent: *` (or a named agent).")
                .at(resource.url.clone()),
        );
        Status::Fail
    } else {
        let mut status = Status::Pass;
        for d in lint.iter().filter(|d| is_core_problem(d.code)) {
            let severity = Severity::from(d.severity);
            status = status.max(severity.step_status());
            findings.push(
                Finding::new(severity, format!("{} {}", d.code.code(), d.message))
                    .fix(core_fix(d.code))
                    .at(location(d.line)),
            );
        }
        status
    };
    StepResult::new("core-syntax", CORE_TITLE, 0.45, status).evidence(evidence)
}

fn core_fix(code: LintCode) -> &'static str {
    match code {
        LintCode::OrphanRule => {
            "Move the rule under a `User-agent` line; crawlers ignore rules before the first group."
        }
        LintCode::MisspelledDirective | LintCode::MissingColon => {
            "Write the record as `Allow: /path` or `Disallow: /path`; lenient parsers guess, strict ones skip the line."
        }
        LintCode::MatchOrderConflict => {
            "Put the broad Allow before the narrow Disallow so first-match crawlers agree with longest-match ones."
        }
        LintCode::EmptyGroup => {
            "Add a rule to the group or remove it; an empty group still hides the `*` rules from its agents."
        }
        LintCode::PatternNeverMatches => "Start patterns with `/` or `*`; other patterns never match.",
        _ => "Fix the line so every crawler reads it the same way (`webcanon robots lint` explains each code).",
    }
}

fn extensions_step(robots: &Robots, findings: &mut Vec<Finding>) -> StepResult {
    let record = |r: &webcanon_core::robots::Record<'_>| json!({"line": r.line, "record": r.key, "value": r.value});
    let of_class = |class: RecordClass| -> Vec<Value> {
        robots.records().filter(|r| r.kind.class() == class).map(|r| record(&r)).collect()
    };
    let legacy = of_class(RecordClass::UnsupportedLegacy);
    let unknown = of_class(RecordClass::Unknown);
    let registry = registry();
    let mut known_agents = Vec::new();
    let mut unknown_agents = Vec::new();
    for group in robots.groups() {
        for agent in group.user_agents().filter(|a| !a.global && !a.token.is_empty()) {
            match registry.get(agent.token) {
                Some(known) => known_agents.push(json!({
                    "token": agent.token, "line": agent.line, "operator": known.operator, "category": known.category.as_str(),
                })),
                None => unknown_agents.push(json!({"token": agent.token, "line": agent.line})),
            }
        }
    }
    for r in robots.records().filter(|r| r.kind.class() == RecordClass::UnsupportedLegacy) {
        findings.push(
            Finding::new(Severity::Warn, format!("line {}: `{}` is an unsupported legacy record", r.line, r.key))
                .fix("Use a `<meta name=\"robots\" content=\"noindex\">` tag or an `X-Robots-Tag: noindex` header instead.")
                .at(format!("/robots.txt:{}", r.line)),
        );
    }
    if !unknown.is_empty() {
        findings
            .push(Finding::new(Severity::Info, format!("{} unknown record(s); crawlers ignore them", unknown.len())));
    }
    let evidence = json!({
        "known_extensions": of_class(RecordClass::KnownExtension),
        "unsupported_legacy": legacy,
        "unknown_records": unknown,
        "sitemaps": robots.sitemaps().collect::<Vec<_>>(),
        "content_signals": robots.records()
            .filter(|r| matches!(r.kind, webcanon_core::robots::RecordKind::ContentSignal | webcanon_core::robots::RecordKind::ContentUsage))
            .map(|r| record(&r)).collect::<Vec<_>>(),
        "known_agents": known_agents,
        "unknown_agents": unknown_agents,
    });
    let status = if legacy.is_empty() { Status::Pass } else { Status::Warn };
    StepResult::new("extensions", EXT_TITLE, 0.25, status).evidence(evidence)
}
