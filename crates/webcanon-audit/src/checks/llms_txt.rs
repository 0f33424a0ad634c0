//! `llms-txt` 1.0.0: the site publishes a valid `/llms.txt` whose links
//! work ([llmstxt.org](https://llmstxt.org/)).
//!
//! Steps:
//! - `present` (0.3) — `/llms.txt` answers 2xx with Markdown, not an HTML
//!   page, JSON, XML, robots.txt syntax, binary data or nothing (the core
//!   parser classifies the body). Served with a media type other than
//!   `text/markdown` or `text/plain`, it warns. A missing, refused or
//!   non-Markdown file fails the step and skips the others.
//! - `valid` (0.3) — the core validator's diagnostics (`L001`…): an error
//!   fails, a warning warns, an info note is a finding only. Each is a
//!   finding with its code, line and a fix for the mistake.
//!   Links without descriptions (`L007`) are reported by `links`.
//! - `links` (0.4) — every link is read once (the first 200 distinct
//!   targets, 4 at a time): one that does not answer 2xx fails the step;
//!   one robots.txt keeps the audit's agent from, one that serves HTML
//!   rather than Markdown, or a file without any link, warns; links
//!   without a description (`L007`) are one finding of the code's own
//!   severity (an info note, as in `llms check`). Links that cannot be checked (other hosts when
//!   auditing a folder, addresses the SSRF guard refuses, non-http schemes)
//!   are recorded as not checked, never failed; when no link could be
//!   read at all, the step is skipped.
//!
//! Evidence keys: `present` {url, final_url, status, media_type, redirects,
//! bytes, error, not_llms}; `valid` {title, summary, sections, links, lines,
//! errors, warnings, diagnostics: [{code, line, severity, message}]};
//! `links` {listed, unique, checked, ok, cap, skipped_over_cap, broken,
//! refused, html: [{line, title, url, ...}], without_description: [{line,
//! title}], not_checked: [{line, url, reason}]}.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use webcanon_client::link_check::{LinkOutcome, judge_answer};

use serde::Serialize;
use serde_json::json;
use webcanon_core::llms::{LinkRef, LlmsCode, LlmsTxt, NotLlms, Severity as LlmsSeverity};

use super::Context;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{ReadError, ReadEvidence, Resource};

/// The check id.
pub const ID: &str = "llms-txt";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "llms.txt is published, valid and its links work";

/// Distinct link targets read; the rest are counted in the evidence.
pub const MAX_LINKS: usize = 200;
/// Findings of one kind (a code, broken links) before they are summed up.
const FINDINGS_PER_KIND: usize = 10;
const PATH: &str = "/llms.txt";

const PRESENT_TITLE: &str = "llms.txt is served as Markdown";
const VALID_TITLE: &str = "llms.txt follows the format";
const LINKS_TITLE: &str = "Every link answers 200 with Markdown";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let resource = ctx.site.get(PATH).await;
    let mut findings = Vec::new();
    let file = resource.is_success().then(|| LlmsTxt::parse(&resource.body));
    let present = present_step(ctx, &resource, file.as_ref(), &mut findings);
    let Some(file) = file.filter(|_| present.status != Status::Fail) else {
        let steps = vec![
            present,
            StepResult::new("valid", VALID_TITLE, 0.3, Status::Skip),
            StepResult::new("links", LINKS_TITLE, 0.4, Status::Skip),
        ];
        return CheckResult::from_steps(ID, VERSION, TITLE, steps, findings);
    };
    let valid = valid_step(&file, &resource, &mut findings);
    let links = links_step(ctx, &file, &resource, &mut findings).await;
    CheckResult::from_steps(ID, VERSION, TITLE, vec![present, valid, links], findings)
}

/// A finding for a resource that did not answer 2xx: refused by robots.txt,
/// missing, a server error or unreachable.
pub(crate) fn unavailable(ctx: &Context, resource: &Resource, path: &str, severity: Severity) -> Finding {
    let (message, fix) = match (&resource.error, resource.status) {
        (Some(ReadError::Robots { .. }), _) => (
            format!("robots.txt keeps {} from reading {path}", ctx.agent),
            format!("Allow {path} in robots.txt: agents that honour robots.txt cannot read it otherwise."),
        ),
        (_, Some(status)) if (400..500).contains(&status) => (
            format!("{path} {}: the site does not publish it", resource.answered()),
            format!("Publish {path} at the root of the site with a 200 status."),
        ),
        (_, Some(status)) => (
            format!("{path} answered HTTP {status}"),
            format!("Fix the server so that {path} answers 200; agents treat errors as a missing file."),
        ),
        (_, None) => (
            format!("{path} could not be read: {}", resource.outcome()),
            format!("Make {path} reachable with a 200 status."),
        ),
    };
    Finding::new(severity, message).fix(fix).at(resource.url.clone())
}

/// Media types Markdown files are served with.
pub(crate) fn is_text_type(media_type: Option<&str>) -> bool {
    media_type.is_none_or(webcanon_client::markdown::is_markdown_media_type)
}

/// The evidence of the `present` step: the read, and what the body is
/// when it is not an llms.txt.
#[derive(Serialize)]
struct PresentEvidence<'a> {
    #[serde(flatten)]
    read: ReadEvidence<'a>,
    not_llms: Option<NotLlms>,
}

fn present_step(ctx: &Context, resource: &Resource, file: Option<&LlmsTxt>, findings: &mut Vec<Finding>) -> StepResult {
    let not_llms = file.and_then(|f| f.not_llms);
    let evidence = PresentEvidence { read: resource.evidence(), not_llms };
    let status = match (file, not_llms) {
        (None, _) => {
            let mut finding = unavailable(ctx, resource, PATH, Severity::Fail);
            if resource.status.is_some_and(|s| (400..500).contains(&s)) {
                finding = finding.fix(PUBLISH_FIX);
            }
            findings.push(finding);
            Status::Fail
        }
        (Some(_), Some(kind)) => {
            findings.push(
                Finding::new(Severity::Fail, format!("/llms.txt is {}, not Markdown", kind.describe()))
                    .fix(body_fix(kind))
                    .at(resource.url.clone()),
            );
            Status::Fail
        }
        (Some(_), None) if !is_text_type(resource.media_type.as_deref()) => {
            let served = resource.media_type.as_deref().unwrap_or_default();
            findings.push(
                Finding::new(Severity::Warn, format!("/llms.txt is served as {served}"))
                    .fix("Serve it as `text/markdown; charset=utf-8` (or `text/plain`), so agents read it as Markdown.")
                    .at(resource.url.clone()),
            );
            Status::Warn
        }
        (Some(_), None) => Status::Pass,
    };
    StepResult::new("present", PRESENT_TITLE, 0.3, status).evidence(evidence)
}

const PUBLISH_FIX: &str = "Publish /llms.txt: a `# Site name` line, a `> one-sentence summary`, then `## Docs` sections \
     listing `- [Page](https://…/page.md): what it holds` (llmstxt.org).";

fn body_fix(kind: NotLlms) -> &'static str {
    match kind {
        NotLlms::Html => {
            "Serve the Markdown file itself: an HTML page answers at /llms.txt (a catch-all route or a soft 404), and agents skip it."
        }
        NotLlms::Json | NotLlms::Xml => {
            "Write llms.txt in Markdown (`# Name`, `> summary`, `## Section` link lists); agents skip other formats."
        }
        NotLlms::Robots => "Serve llms.txt, not a copy of robots.txt: a Markdown index of the site's key pages.",
        _ => PUBLISH_FIX,
    }
}

// --- valid ---------------------------------------------------------------------

fn valid_step(file: &LlmsTxt, resource: &Resource, findings: &mut Vec<Finding>) -> StepResult {
    let count = |s: LlmsSeverity| file.diagnostics.iter().filter(|d| d.severity == s).count();
    let (errors, warnings) = (count(LlmsSeverity::Error), count(LlmsSeverity::Warning));
    let evidence = json!({
        "title": file.title,
        "summary": file.summary,
        "sections": file.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        "links": file.links().count(),
        "lines": file.line_count,
        "errors": errors,
        "warnings": warnings,
        "diagnostics": file.diagnostics.iter().take(MAX_LINKS).map(|d| json!({
            "code": d.code.code(), "line": d.line, "severity": d.severity.as_str(), "message": d.message,
        })).collect::<Vec<_>>(),
    });
    let mut per_code: HashMap<LlmsCode, usize> = HashMap::new();
    for d in file.diagnostics.iter().filter(|d| d.code != LlmsCode::LinkWithoutNotes) {
        let seen = per_code.entry(d.code).or_default();
        *seen += 1;
        if *seen <= FINDINGS_PER_KIND {
            let location = d.line.map_or_else(|| resource.url.clone(), |l| format!("{}:{l}", resource.url));
            findings.push(
                Finding::new(Severity::from(d.severity), format!("{} {}", d.code.code(), d.message))
                    .fix(llms_fix(d.code))
                    .at(location),
            );
        }
    }
    let mut more: Vec<(LlmsCode, usize)> = per_code.into_iter().filter(|(_, n)| *n > FINDINGS_PER_KIND).collect();
    more.sort_by_key(|(code, _)| code.code());
    for (code, n) in more {
        findings.push(
            Finding::new(
                Severity::from(code.severity()),
                format!("{} {} more times", code.code(), n - FINDINGS_PER_KIND),
            )
            .fix(llms_fix(code))
            .at(resource.url.clone()),
        );
    }
    let status = if errors > 0 {
        Status::Fail
    } else if warnings > 0 {
        Status::Warn
    } else {
        Status::Pass
    };
    StepResult::new("valid", VALID_TITLE, 0.3, status).evidence(evidence)
}

/// What to change for each diagnostic: the common mistakes first.
fn llms_fix(code: LlmsCode) -> &'static str {
    match code {
        LlmsCode::MissingH1 => {
            "Start the file with one `# Name` line, the site or product name: without an H1 the file is invalid."
        }
        LlmsCode::MultipleH1 => {
            "Keep one H1, the site or product name, and turn the others into `## Section` headings."
        }
        LlmsCode::ContentBeforeH1 => "Move the `# Name` line to the top: the summary and sections follow it.",
        LlmsCode::HtmlBody | LlmsCode::JsonBody | LlmsCode::XmlBody | LlmsCode::RobotsBody | LlmsCode::BinaryBody => {
            "Write llms.txt in Markdown: a crawler that does not see Markdown skips the file."
        }
        LlmsCode::EmptyFile => PUBLISH_FIX,
        LlmsCode::LinkWithoutNotes => {
            "Add a one-line description after the link: `- [Title](url): what the page holds`."
        }
        LlmsCode::NonMarkdownLink => {
            "Link a Markdown copy of the page (`page.md` next to `page.html`), so agents skip the HTML chrome."
        }
        LlmsCode::RelativeUrl => {
            "Write full URLs (`https://example.com/docs/intro.md`): not every reader resolves relative ones."
        }
        LlmsCode::EmptySection => "Add links to the section or remove it.",
        LlmsCode::MalformedLink | LlmsCode::EmptyLinkTitle => {
            "Write each list item as `- [Title](https://…): description`."
        }
        LlmsCode::HeadingOutsideSection => {
            "Turn the heading into a `## Section` or remove it: the intro is plain prose."
        }
        LlmsCode::DuplicateLink => "List each URL once.",
        LlmsCode::LargeFile | LlmsCode::FileTruncated => {
            "Keep llms.txt an index under 100 KiB: move the content into llms-full.txt or the linked pages."
        }
        LlmsCode::MissingSummary => {
            "Add a one-to-three-sentence `> summary` right after the H1: agents quote it when they describe the site."
        }
        LlmsCode::InvalidUtf8 => "Save the file as UTF-8.",
        LlmsCode::FrontMatter => "Remove the YAML front matter: llms.txt starts with the H1.",
        LlmsCode::ProseInSection | LlmsCode::ListItemWithoutLink => {
            "Keep sections to link lists; move prose into the intro before the first `##`."
        }
        LlmsCode::UnsupportedScheme => "Link only http(s) pages: agents do not follow mailto: or javascript: links.",
        LlmsCode::DuplicateSection => "Merge the two sections into one.",
        LlmsCode::EmptyHeading => "Give the heading text or remove it.",
        LlmsCode::UnclosedCodeFence => "Close the code fence with a matching ``` line.",
        LlmsCode::LinkOutsideSection => "Put the links under a `## Section` heading.",
        _ => "Fix the line so that every llms.txt reader takes it as the format describes (llmstxt.org).",
    }
}

// --- links ---------------------------------------------------------------------

/// What reading a link gave.
enum Outcome {
    Ok { html: bool },
    Broken(String),
    Refused,
    NotChecked(String),
}

/// The client's one link classification (`webcanon llms check` uses it
/// too), read into the step's lists: only a link that answered with a
/// non-2xx status is broken; one that could not be reached is not checked.
fn outcome(resource: &Resource) -> Outcome {
    let link = match &resource.error {
        Some(ReadError::Robots { .. }) => LinkOutcome::RefusedRobots,
        Some(ReadError::Ssrf { .. }) => LinkOutcome::RefusedSsrf,
        Some(ReadError::Fetch { .. }) => LinkOutcome::Unreachable,
        None => judge_answer(resource.status.unwrap_or(0), resource.media_type.as_deref(), &resource.body).0,
    };
    let why = resource.error.as_ref().map_or_else(|| resource.outcome(), |e| e.message().to_string());
    match link {
        LinkOutcome::Ok | LinkOutcome::NotMarkdown => Outcome::Ok { html: resource.is_html() },
        LinkOutcome::Broken => Outcome::Broken(why),
        LinkOutcome::RefusedRobots => Outcome::Refused,
        LinkOutcome::RefusedSsrf | LinkOutcome::Unreachable | LinkOutcome::Invalid => {
            Outcome::NotChecked(format!("{}: {why}", link.as_str()))
        }
    }
}

/// The distinct links to check, in file order, each with where to read it
/// (or why it cannot be read).
fn plan<'a>(ctx: &Context, file: &'a LlmsTxt, resource: &Resource) -> Vec<(LinkRef<'a>, Result<String, String>)> {
    let base = ctx.site.document_base(resource, PATH);
    let mut seen = HashSet::new();
    file.links()
        .map(|link| (link, ctx.site.locate(&base, &link.link.url)))
        .filter(|(link, key)| seen.insert(key.clone().unwrap_or_else(|_| link.link.url.clone())))
        .collect()
}

/// A link with a non-2xx answer.
#[derive(Serialize)]
struct BrokenLink<'a> {
    line: u32,
    title: &'a str,
    url: &'a str,
    outcome: String,
}

/// A link robots.txt keeps the audit's agent from.
#[derive(Serialize)]
struct RefusedLink<'a> {
    line: u32,
    title: &'a str,
    url: &'a str,
}

/// A link that serves HTML rather than Markdown.
#[derive(Serialize)]
struct HtmlLink<'a> {
    line: u32,
    title: &'a str,
    url: &'a str,
    media_type: Option<String>,
}

/// A link that could not be read, and why.
#[derive(Serialize)]
struct UncheckedLink<'a> {
    line: u32,
    url: &'a str,
    reason: String,
}

/// A link without a description after its `:`.
#[derive(Serialize)]
struct UndescribedLink<'a> {
    line: u32,
    title: &'a str,
}

/// Findings and evidence lists built while judging the links.
#[derive(Default)]
struct Tally<'a> {
    ok: usize,
    broken: Vec<BrokenLink<'a>>,
    refused: Vec<RefusedLink<'a>>,
    html: Vec<HtmlLink<'a>>,
    not_checked: Vec<UncheckedLink<'a>>,
}

/// The evidence of the `links` step.
#[derive(Serialize)]
struct LinksEvidence<'a> {
    listed: usize,
    unique: usize,
    checked: usize,
    ok: usize,
    cap: usize,
    skipped_over_cap: usize,
    broken: Vec<BrokenLink<'a>>,
    refused: Vec<RefusedLink<'a>>,
    html: Vec<HtmlLink<'a>>,
    without_description: Vec<UndescribedLink<'a>>,
    not_checked: Vec<UncheckedLink<'a>>,
}

async fn links_step(ctx: &Context, file: &LlmsTxt, resource: &Resource, findings: &mut Vec<Finding>) -> StepResult {
    let planned = plan(ctx, file, resource);
    let unique = planned.len();
    let checked = &planned[..unique.min(MAX_LINKS)];
    let keys: Vec<String> = checked.iter().filter_map(|(_, k)| k.clone().ok()).collect();
    let mut reads = ctx.site.read_many(&keys).await.into_iter();
    let mut tally = Tally::default();
    for (link, key) in checked {
        let read: Option<Arc<Resource>> = key.as_ref().ok().and_then(|_| reads.next());
        judge(link, key, read.as_deref(), &mut tally);
    }
    let without: Vec<UndescribedLink<'_>> = file
        .links()
        .filter(|l| l.link.notes.is_none())
        .map(|l| UndescribedLink { line: l.link.line, title: &l.link.title })
        .collect();
    let location = |line: u32| format!("{}:{}", resource.url, line);
    report_links(ctx, &tally, &without, &location, findings);
    if unique > MAX_LINKS {
        findings.push(
            Finding::new(Severity::Info, format!("only the first {MAX_LINKS} of {unique} distinct links were checked"))
                .fix("Keep llms.txt to the canonical pages; move long lists into llms-full.txt or section files.")
                .at(resource.url.clone()),
        );
    }
    let listed = file.links().count();
    if listed == 0 {
        findings.push(
            Finding::new(Severity::Warn, "llms.txt lists no links")
                .fix("Add `## Docs` (and other) sections listing the site's key pages: `- [Page](https://…/page.md): what it holds`.")
                .at(resource.url.clone()),
        );
    }
    let read = checked.len() - tally.not_checked.len();
    let status = if !tally.broken.is_empty() {
        Status::Fail
    } else if listed > 0 && read == 0 {
        Status::Skip
    } else if listed == 0 || !tally.refused.is_empty() || !tally.html.is_empty() {
        Status::Warn
    } else if without.is_empty() {
        Status::Pass
    } else {
        Severity::from(LlmsCode::LinkWithoutNotes.severity()).step_status()
    };
    let evidence = LinksEvidence {
        listed,
        unique,
        checked: read,
        ok: tally.ok,
        cap: MAX_LINKS,
        skipped_over_cap: unique.saturating_sub(MAX_LINKS),
        broken: tally.broken,
        refused: tally.refused,
        html: tally.html,
        without_description: without,
        not_checked: tally.not_checked,
    };
    StepResult::new("links", LINKS_TITLE, 0.4, status).evidence(evidence)
}

fn judge<'a>(link: &LinkRef<'a>, key: &Result<String, String>, read: Option<&Resource>, tally: &mut Tally<'a>) {
    let (line, title, url) = (link.link.line, link.link.title.as_str(), link.link.url.as_str());
    let result = match (key, read) {
        (Err(why), _) => Outcome::NotChecked(why.clone()),
        (Ok(_), None) => Outcome::NotChecked("not read".into()),
        (Ok(_), Some(r)) => outcome(r),
    };
    match result {
        Outcome::Ok { html } => {
            tally.ok += 1;
            if html {
                let media_type = read.and_then(|r| r.media_type.clone());
                tally.html.push(HtmlLink { line, title, url, media_type });
            }
        }
        Outcome::Broken(outcome) => tally.broken.push(BrokenLink { line, title, url, outcome }),
        Outcome::Refused => tally.refused.push(RefusedLink { line, title, url }),
        Outcome::NotChecked(reason) => tally.not_checked.push(UncheckedLink { line, url, reason }),
    }
}

fn report_links(
    ctx: &Context,
    tally: &Tally<'_>,
    without: &[UndescribedLink<'_>],
    location: &dyn Fn(u32) -> String,
    findings: &mut Vec<Finding>,
) {
    for broken in tally.broken.iter().take(FINDINGS_PER_KIND) {
        findings.push(
            Finding::new(
                Severity::Fail,
                format!("the link [{}]({}) is broken: {}", broken.title, broken.url, broken.outcome),
            )
            .fix("Point the link at a page that answers 200 with the content its description promises, or remove it.")
            .at(location(broken.line)),
        );
    }
    if tally.broken.len() > FINDINGS_PER_KIND {
        findings.push(
            Finding::new(Severity::Fail, format!("{} more broken links", tally.broken.len() - FINDINGS_PER_KIND))
                .fix("Fix or remove every link listed under `broken` in the step's evidence."),
        );
    }
    for refused in tally.refused.iter().take(FINDINGS_PER_KIND) {
        findings.push(
            Finding::new(
                Severity::Warn,
                format!("robots.txt keeps {} from {}, which llms.txt lists", ctx.agent, refused.url),
            )
            .fix("Allow the page in robots.txt for the agents meant to read it, or drop it from llms.txt.")
            .at(location(refused.line)),
        );
    }
    let html = format!("{} link(s) serve HTML rather than Markdown", tally.html.len());
    let html_lines: Vec<u32> = tally.html.iter().map(|l| l.line).collect();
    let fix = llms_fix(LlmsCode::NonMarkdownLink);
    summary_finding(Severity::Warn, &html_lines, &html, fix, location, findings);
    let code = LlmsCode::LinkWithoutNotes;
    let undescribed = format!("{code} {} link(s) have no description", without.len());
    let undescribed_lines: Vec<u32> = without.iter().map(|l| l.line).collect();
    summary_finding(code.severity().into(), &undescribed_lines, &undescribed, llms_fix(code), location, findings);
    if let Some(first) = tally.not_checked.first() {
        let fix = if ctx.site.is_origin() {
            "Nothing to change if the targets are public; the audit could not read them from here."
        } else {
            "Audit the live origin to check links to other hosts: a folder holds only the site's own files."
        };
        findings.push(
            Finding::new(
                Severity::Info,
                format!("{} link(s) were not checked, e.g. {} ({})", tally.not_checked.len(), first.url, first.reason),
            )
            .fix(fix)
            .at(location(first.line)),
        );
    }
}

/// One finding for a list of links (`message`), naming their lines.
fn summary_finding(
    severity: Severity,
    lines_of_links: &[u32],
    message: &str,
    fix: &str,
    location: &dyn Fn(u32) -> String,
    findings: &mut Vec<Finding>,
) {
    let Some(&first) = lines_of_links.first() else { return };
    let mut lines: Vec<String> = lines_of_links.iter().take(FINDINGS_PER_KIND).map(u32::to_string).collect();
    if lines_of_links.len() > FINDINGS_PER_KIND {
        lines.push("…".into());
    }
    findings.push(
        Finding::new(
            severity,
            format!("{message} ({} {})", if lines_of_links.len() == 1 { "line" } else { "lines" }, lines.join(", ")),
        )
        .fix(fix)
        .at(location(first)),
    );
}
