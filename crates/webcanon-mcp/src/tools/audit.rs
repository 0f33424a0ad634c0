//! `audit_site`: what AI agents will see on a site, scored.
//!
//! Only a live origin is audited, never a local folder: a folder argument
//! would let a model read the server's own files.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Deserialize;
use webcanon_audit::{Report, Site};
use webcanon_client::agent::ProductToken;
use webcanon_client::error::code;
use webcanon_client::web_url::WebUrl;

use super::{Answer, Shared, parse_http_url};
use crate::Initiator;
use crate::output::{AuditCheckOutput, AuditFindingOutput, AuditOutput};
use crate::refusal::Failure;

/// Findings listed at most.
const TOP_FINDINGS: usize = 10;

/// Arguments of the `audit_site` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditArgs {
    /// Any http(s) URL of the site: its origin is audited.
    pub url: WebUrl,
    /// The robots.txt product token to audit for (e.g. `GPTBot`); omit it for the server's own agent.
    #[serde(default, deserialize_with = "crate::arguments::optional_agent")]
    pub agent: Option<ProductToken>,
}

/// Runs the `audit_site` tool.
pub(crate) async fn run(shared: &Shared, args: AuditArgs) -> Result<Answer, Failure> {
    let origin = args.url.origin().ascii_serialization();
    let origin_url = parse_http_url(&origin)?;
    let client = shared.client_for(args.agent.as_ref(), Initiator::Autonomous)?;
    let agent = client.agent().to_string();
    // Vets the origin first, so that an address the SSRF guard refuses is a
    // refusal rather than an audit full of unreadable resources.
    client.check(&origin_url).await.map_err(|e| Failure::from_client(&e, &origin, &agent))?;
    let site = Site::origin(origin_url, client);
    let report = webcanon_audit::audit_off_runtime(site, &agent).await.map_err(|err| {
        let text = format!("Audit failed: {err}. Nothing was scored.");
        let mut failure = Failure::other(err.kind(), text, err.origin());
        failure.body.code = if err.kind() == "ssrf" { code::SSRF } else { code::FETCH };
        failure
    })?;
    let output = summary(&report);
    Ok(Answer::new(header(&output), None, &output))
}

fn summary(report: &Report) -> AuditOutput {
    let mut findings: Vec<AuditFindingOutput> = Vec::new();
    let mut all = Vec::new();
    for check in &report.checks {
        for f in &check.findings {
            all.push((f.severity, check.id, f));
        }
    }
    all.sort_by_key(|(severity, _, _)| *severity);
    for (severity, check, f) in all.iter().take(TOP_FINDINGS) {
        findings.push(AuditFindingOutput {
            check: check.to_string(),
            severity: severity.as_str().to_string(),
            message: f.message.clone(),
            fix: f.fix.clone(),
            location: f.location.clone(),
        });
    }
    AuditOutput {
        target: report.target.clone(),
        agent: report.agent.clone(),
        score: report.score,
        status: report.status.as_str().to_string(),
        checks: report
            .checks
            .iter()
            .map(|c| AuditCheckOutput {
                id: c.id.to_string(),
                title: c.title.to_string(),
                status: c.status.as_str().to_string(),
                score: c.score,
            })
            .collect(),
        top_findings: findings,
        findings_total: all.len(),
    }
}

fn header(output: &AuditOutput) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Audit of {} for agent `{}`: score {}/100 ({})",
        output.target, output.agent, output.score, output.status
    );
    let _ = writeln!(out, "Checks:");
    for c in &output.checks {
        let score = c.score.map_or_else(|| "no score".to_string(), |s| format!("{s}/100"));
        let _ = writeln!(out, "- {} ({}): {}, {score}", c.id, c.title, c.status);
    }
    if output.top_findings.is_empty() {
        let _ = write!(out, "Findings: none");
        return out;
    }
    let _ = writeln!(out, "Top findings ({} of {}):", output.top_findings.len(), output.findings_total);
    for (i, f) in output.top_findings.iter().enumerate() {
        let location = f.location.as_deref().map(|l| format!(" at {l}")).unwrap_or_default();
        let _ = write!(out, "{}. [{}] {}: {}{location}", i + 1, f.severity, f.check, f.message);
        if let Some(fix) = &f.fix {
            let _ = write!(out, " Fix: {fix}");
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}
