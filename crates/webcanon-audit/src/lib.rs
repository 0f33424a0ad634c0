//! The site audit of webcanon: what AI agents will see on a site.
//!
//! An audit runs versioned checks (see [`checks`]) against a live origin or
//! a folder holding a site's build output, and returns a [`Report`]: each
//! check made of weighted steps with a status, a score and evidence, plus
//! findings that say what to change, and an access matrix of known agents
//! against the site's main paths. Reports render as a terminal report
//! ([`render::terminal`]), JSON (the [`Report`] serialised; schema in
//! [`report`]) and a standalone HTML page ([`render::html`]).
//!
//! A live origin is read through a [`webcanon_client::Client`], so every
//! request passes the SSRF guard and robots.txt like any other fetch;
//! every resource is read once per audit. An origin the SSRF guard refuses,
//! or whose robots.txt gets no HTTP answer at all (the name does not
//! resolve, the connection is refused, the request times out), is not
//! audited: [`audit`] returns an [`AuditError`] saying why, never a score.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use webcanon_audit::{Site, audit};
//!
//! let report = audit(Site::folder("examples/site"), "webcanon").await?;
//! println!("{}: {}/100", report.target, report.score);
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `openapi`: OpenAPI schemas (utoipa `ToSchema`) of the report types.

pub mod access;
pub mod checks;
pub mod render;
pub mod report;
pub mod site;

pub use report::{CheckResult, Finding, Report, Severity, Status, StepResult};
pub use site::{AuditError, Site, Target};

use checks::Context;

/// Audits `site` for the product token `agent` (used where robots.txt is
/// evaluated: the access matrix uses every known agent).
///
/// Fails when `site` is an origin that cannot be audited: refused by the
/// SSRF guard, or not answering (see [`Site::reachable`]).
pub async fn audit(site: Site, agent: &str) -> Result<Report, AuditError> {
    site.reachable().await?;
    let ctx = Context { site, agent: agent.to_string() };
    let checks = vec![
        checks::robots_txt::run(&ctx).await,
        checks::llms_txt::run(&ctx).await,
        checks::llms_full_txt::run(&ctx).await,
        checks::sitemap::run(&ctx).await,
        checks::ai_agents_policy::run(&ctx).await,
        checks::apex_www::run(&ctx).await,
        checks::ai_txt::run(&ctx).await,
        checks::rsl::run(&ctx).await,
        checks::page_signals::run(&ctx).await,
    ];
    let matrix = access::matrix(&ctx).await;
    let kind = if ctx.site.is_origin() { "origin" } else { "folder" };
    Ok(Report::new(ctx.site.target().display(), kind, agent.to_string(), checks, matrix, ctx.site.reads()))
}

/// [`audit`] run on a thread of the runtime's blocking pool, for servers:
/// the audit's parsing, linting and scoring (CPU work, bounded per input)
/// never hold up the async workers that answer other requests. Its reads
/// still go through the runtime. Dropping the returned future (a request
/// time limit) stops the audit at its next read.
///
/// Must be called within a multi-threaded Tokio runtime.
pub async fn audit_off_runtime(site: Site, agent: &str) -> Result<Report, AuditError> {
    let agent = agent.to_owned();
    let runtime = tokio::runtime::Handle::current();
    // Dropped with this future: the blocking side then stops waiting.
    let (keep_going, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::task::spawn_blocking(move || {
        runtime.block_on(async move {
            tokio::select! {
                report = audit(site, &agent) => Some(report),
                _ = stopped => None,
            }
        })
    });
    let outcome = task.await;
    drop(keep_going);
    match outcome {
        Ok(report) => report.expect("the audit stops early only when nobody waits for it"),
        Err(err) => std::panic::resume_unwind(err.into_panic()),
    }
}
