//! `llms-full-txt` 1.0.0: the site publishes `/llms-full.txt`, the whole
//! content as one Markdown file, consistent with its llms.txt (the
//! [llms.txt proposal](https://llmstxt.org/)'s companion file).
//!
//! Steps:
//! - `present` (0.5) — `/llms-full.txt` answers 2xx with Markdown text.
//!   A missing file (4xx) only warns: the map alone is enough for most
//!   marketing sites, and documentation sites should ship both. A file that answers but cannot be used fails: a server error,
//!   no answer, a refusal by robots.txt, or a body that is HTML, JSON, XML,
//!   binary or empty. Served with a media type other than `text/markdown`
//!   or `text/plain`, it warns.
//! - `consistent` (0.5) — the file describes the same site as llms.txt: its
//!   H1 equals llms.txt's H1, or the text names that title (else warn); and
//!   each page llms.txt links outside `## Optional` (the first 200) appears
//!   in it, by the link's title or URL (some missing → warn, all missing →
//!   fail). Skipped when there is no usable llms.txt or llms-full.txt.
//!
//! Evidence keys: `present` {url, final_url, status, media_type, redirects,
//! bytes, error, not_llms, title, lines}; `consistent` {llms_title,
//! full_title, title_matches, pages, found, missing: [{line, title, url}],
//! optional_ignored, reason}.

use serde::Serialize;
use serde_json::json;
use webcanon_core::llms::{LlmsTxt, NotLlms};

use super::Context;
use super::llms_txt::{MAX_LINKS, is_text_type, unavailable};
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{ReadEvidence, Resource};

/// The check id.
pub const ID: &str = "llms-full-txt";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "llms-full.txt is published and matches llms.txt";

const PATH: &str = "/llms-full.txt";
const PRESENT_TITLE: &str = "llms-full.txt is served as Markdown";
const CONSISTENT_TITLE: &str = "llms-full.txt holds the pages llms.txt lists";
/// Missing pages named in a finding.
const NAMED_MISSING: usize = 5;

const GENERATE_FIX: &str = "Generate llms-full.txt at build time by concatenating the Markdown of the pages llms.txt \
     links, so both files describe the same site.";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let resource = ctx.site.get(PATH).await;
    let mut findings = Vec::new();
    let full = resource.is_success().then(|| LlmsTxt::parse(&resource.body));
    let present = present_step(ctx, &resource, full.as_ref(), &mut findings);
    let usable = full.filter(|f| f.not_llms.is_none());
    let consistent = match usable {
        Some(full) => consistent_step(ctx, &resource, &full, &mut findings).await,
        None => StepResult::new("consistent", CONSISTENT_TITLE, 0.5, Status::Skip)
            .evidence(json!({"reason": "no usable llms-full.txt"})),
    };
    CheckResult::from_steps(ID, VERSION, TITLE, vec![present, consistent], findings)
}

/// The evidence of the `present` step: the read, and what the file is.
#[derive(Serialize)]
struct PresentEvidence<'a> {
    #[serde(flatten)]
    read: ReadEvidence<'a>,
    not_llms: Option<NotLlms>,
    title: Option<&'a str>,
    lines: Option<u32>,
}

fn present_step(ctx: &Context, resource: &Resource, full: Option<&LlmsTxt>, findings: &mut Vec<Finding>) -> StepResult {
    let evidence = PresentEvidence {
        read: resource.evidence(),
        not_llms: full.and_then(|f| f.not_llms),
        title: full.and_then(|f| f.title.as_deref()),
        lines: full.map(|f| f.line_count),
    };
    let missing = resource.error.is_none() && resource.status.is_some_and(|s| (400..500).contains(&s));
    let status = match full {
        None if missing => {
            findings.push(unavailable(ctx, resource, PATH, Severity::Warn).fix(format!(
                "If the site documents a product, publish /llms-full.txt (marketing sites can do without it). {GENERATE_FIX}"
            )));
            Status::Warn
        }
        None => {
            findings.push(unavailable(ctx, resource, PATH, Severity::Fail));
            Status::Fail
        }
        Some(file) => match file.not_llms {
            Some(kind) => {
                findings.push(
                    Finding::new(Severity::Fail, format!("/llms-full.txt is {}, not Markdown", kind.describe()))
                        .fix(format!("Serve Markdown text at /llms-full.txt. {GENERATE_FIX}"))
                        .at(resource.url.clone()),
                );
                Status::Fail
            }
            None if !is_text_type(resource.media_type.as_deref()) => {
                let served = resource.media_type.as_deref().unwrap_or_default();
                findings.push(
                    Finding::new(Severity::Warn, format!("/llms-full.txt is served as {served}"))
                        .fix("Serve it as `text/markdown; charset=utf-8` (or `text/plain`), so agents read it as Markdown.")
                        .at(resource.url.clone()),
                );
                Status::Warn
            }
            None => Status::Pass,
        },
    };
    StepResult::new("present", PRESENT_TITLE, 0.5, status).evidence(evidence)
}

/// llms.txt, when it answers 2xx with Markdown.
async fn llms_txt(ctx: &Context) -> Option<(LlmsTxt, std::sync::Arc<Resource>)> {
    let resource = ctx.site.get("/llms.txt").await;
    let file = resource.is_success().then(|| LlmsTxt::parse(&resource.body))?;
    file.not_llms.is_none().then_some((file, resource))
}

async fn consistent_step(
    ctx: &Context,
    resource: &Resource,
    full: &LlmsTxt,
    findings: &mut Vec<Finding>,
) -> StepResult {
    let Some((llms, llms_resource)) = llms_txt(ctx).await else {
        return StepResult::new("consistent", CONSISTENT_TITLE, 0.5, Status::Skip)
            .evidence(json!({"reason": "no llms.txt to compare with"}));
    };
    let text = String::from_utf8_lossy(&resource.body).to_lowercase();
    let title_matches = llms.title.as_deref().map(|title| {
        let wanted = title.trim().to_lowercase();
        full.title.as_deref().is_some_and(|t| t.trim().to_lowercase() == wanted) || text.contains(&wanted)
    });
    let base = ctx.site.document_base(&llms_resource, "/llms.txt");
    let pages: Vec<_> = llms.links().filter(|l| !l.optional).take(MAX_LINKS).collect();
    let missing: Vec<_> = pages
        .iter()
        .filter(|l| {
            let absolute = base.join(&l.link.url).map(|u| u.to_string()).unwrap_or_default();
            let named = [l.link.title.as_str(), l.link.url.as_str(), absolute.as_str()];
            !named.iter().map(|s| s.trim().to_lowercase()).any(|s| !s.is_empty() && text.contains(&s))
        })
        .map(|l| MissingPage { line: l.link.line, title: &l.link.title, url: &l.link.url })
        .collect();
    if title_matches == Some(false) {
        let llms_title = llms.title.as_deref().unwrap_or_default();
        let message = match full.title.as_deref() {
            Some(t) => format!("llms-full.txt is titled {t:?} and never names {llms_title:?}, the title of llms.txt"),
            None => format!("llms-full.txt has no H1 and never names {llms_title:?}, the title of llms.txt"),
        };
        findings.push(
            Finding::new(Severity::Warn, message)
                .fix(format!("Start llms-full.txt with `# {llms_title}`, the same H1 as llms.txt."))
                .at(resource.url.clone()),
        );
    }
    let status = pages_status(&missing, pages.len(), resource, findings).max(if title_matches == Some(false) {
        Status::Warn
    } else {
        Status::Pass
    });
    let evidence = json!({
        "llms_title": llms.title,
        "full_title": full.title,
        "title_matches": title_matches,
        "pages": pages.len(),
        "found": pages.len() - missing.len(),
        "missing": missing,
        "optional_ignored": llms.links().filter(|l| l.optional).count(),
    });
    StepResult::new("consistent", CONSISTENT_TITLE, 0.5, status).evidence(evidence)
}

/// A page llms.txt lists that llms-full.txt does not name.
#[derive(Serialize)]
struct MissingPage<'a> {
    line: u32,
    title: &'a str,
    url: &'a str,
}

fn pages_status(missing: &[MissingPage<'_>], pages: usize, resource: &Resource, findings: &mut Vec<Finding>) -> Status {
    if missing.is_empty() {
        return Status::Pass;
    }
    let all = missing.len() == pages;
    let named: Vec<&str> = missing.iter().take(NAMED_MISSING).map(|m| m.title).collect();
    let more = if missing.len() > NAMED_MISSING { ", …" } else { "" };
    let message = format!(
        "{} of the {pages} pages llms.txt lists do not appear in llms-full.txt: {}{more}",
        missing.len(),
        named.join(", ")
    );
    let severity = if all { Severity::Fail } else { Severity::Warn };
    findings.push(Finding::new(severity, message).fix(GENERATE_FIX).at(resource.url.clone()));
    if all { Status::Fail } else { Status::Warn }
}
