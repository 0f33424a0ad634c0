//! `sitemap` 1.0.0: the site publishes a sitemap that crawlers find and
//! read ([sitemaps.org](https://www.sitemaps.org/protocol.html), named by a
//! robots.txt `Sitemap:` line, RFC 9309 §2.2.4).
//!
//! Steps:
//! - `discoverable` (0.3) — robots.txt names the sitemap in `Sitemap:` lines
//!   (the first 10 are read) and they answer 2xx: some broken → warn, all
//!   broken → fail. When robots.txt names none, `/sitemap.xml` is tried:
//!   found only there, the step warns (crawlers that do not guess the path
//!   miss it); found nowhere (or answered by something that is not a
//!   sitemap), it fails. Sitemaps on other hosts cannot be read from a
//!   folder: when robots.txt names only such sitemaps the step is skipped.
//! - `valid` (0.3) — every sitemap found parses with the core parser as a
//!   urlset, index, text sitemap or feed, without error diagnostics
//!   (warnings warn; size and count errors belong to `limits`). An index is
//!   followed one level: its first 20 children are read (once each, 4 at a
//!   time) and must answer 2xx and parse too; a child that is itself an
//!   index warns.
//! - `limits` (0.2) — each file within 50,000 URLs and 50 MB uncompressed
//!   (over → fail); every URL on the sitemap's own host (others → warn).
//!   Hosts are compared when the sitemap's public URL is known, which for a
//!   folder needs a robots.txt `Sitemap:` line.
//! - `lastmod` (0.2) — the share of page entries with a `lastmod`: all →
//!   pass, some or none → warn; no page entries → skipped.
//!
//! When no sitemap is found the other steps are skipped. [`sample_pages`]
//! picks pages from the same files (read once per audit) for other checks.
//!
//! Evidence keys: `discoverable` {robots_sitemaps, candidates: [{named,
//! source, url, final_url, status, error, not_read}], found,
//! listed_not_read}; `valid` {files: [{url, final_url, status, kind,
//! entries, dropped, bytes, child, diagnostics}], children_listed,
//! children_read, children_over_cap, children_not_read: [{named, reason}]};
//! `limits` {max_entries, max_bytes, files: [{url, entries, dropped,
//! over_count, over_size, host, off_host}], off_host_examples};
//! `lastmod` {entries, with_lastmod, share, oldest, newest}.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use url::Url;
use webcanon_core::sitemap::{self, MAX_BYTES, MAX_ENTRIES, Sitemap, SitemapCode, SitemapKind};

use super::Context;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{FOLDER_BASE, Resource, Site, Target, path_and_query};

/// The check id.
pub const ID: &str = "sitemap";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "A sitemap is discoverable and valid";

/// Children of sitemap indexes read (the rest are counted in evidence).
pub const MAX_CHILDREN: usize = 20;
/// `Sitemap:` lines of robots.txt read.
const MAX_LISTED: usize = 10;
/// Diagnostics reported as findings per file; all are in the evidence.
const FINDINGS_PER_FILE: usize = 10;
/// Diagnostics kept in the evidence per file.
const EVIDENCE_DIAGNOSTICS: usize = 50;
/// Where a sitemap is looked for when robots.txt names none.
const WELL_KNOWN: &str = "/sitemap.xml";

const DISCOVERABLE_TITLE: &str = "Sitemap is discoverable";
const VALID_TITLE: &str = "Sitemap parses without errors";
const LIMITS_TITLE: &str = "Within size limits and on its own host";
const LASTMOD_TITLE: &str = "Entries carry lastmod dates";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let collected = collect(ctx).await;
    let mut findings = Vec::new();
    let discoverable = discoverable_step(ctx, &collected, &mut findings);
    if collected.files.is_empty() {
        let steps = vec![
            discoverable,
            StepResult::new("valid", VALID_TITLE, 0.3, Status::Skip),
            StepResult::new("limits", LIMITS_TITLE, 0.2, Status::Skip),
            StepResult::new("lastmod", LASTMOD_TITLE, 0.2, Status::Skip),
        ];
        return CheckResult::from_steps(ID, VERSION, TITLE, steps, findings);
    }
    let steps = vec![
        discoverable,
        valid_step(&collected, &mut findings),
        limits_step(&collected, &mut findings),
        lastmod_step(&collected, &mut findings),
    ];
    CheckResult::from_steps(ID, VERSION, TITLE, steps, findings)
}

/// Up to `n` pages of the site listed in its sitemaps, spread evenly across
/// the entries (first, last and between), for checks that sample pages.
///
/// Pages are URLs for an origin and site paths (`/docs/`) for a folder.
/// Only pages of the site itself are returned: on the audited host, where
/// `www.` and the apex count as the same site. For a folder, pages on the
/// origin it is published at (see [`Site::published_origin`]), or all
/// pages when that origin is unknown. The sitemaps are the ones this check
/// reads, so calling this costs no further request.
pub async fn sample_pages(ctx: &Context, n: usize) -> Vec<String> {
    let collected = collect(ctx).await;
    let mut seen = HashSet::new();
    let pages: Vec<String> = page_files(&collected.files)
        .flat_map(|f| f.parsed.entries.iter())
        .filter_map(|e| own_page(&ctx.site, &e.loc))
        .filter(|p| seen.insert(p.clone()))
        .collect();
    spread(pages, n)
}

/// `n` items spread evenly over `items`, in order.
fn spread(items: Vec<String>, n: usize) -> Vec<String> {
    if items.len() <= n {
        return items;
    }
    (0..n).map(|i| items[i * items.len() / n].clone()).collect()
}

/// A page URL as the key to read it by, when it belongs to the site.
fn own_page(site: &Site, loc: &str) -> Option<String> {
    let url = Url::parse(loc).ok()?;
    match site.target() {
        Target::Origin(origin) => same_site(&url, origin).then(|| url.to_string()),
        Target::Folder(_) => match site.published_origin() {
            Some(origin) if !same_site(&url, origin) => None,
            _ => Some(path_and_query(&url)),
        },
    }
}

/// Whether two URLs are on the same site: the same host once a leading
/// `www.` is dropped.
fn same_site(a: &Url, b: &Url) -> bool {
    let bare = |u: &Url| u.host_str().map(|h| h.trim_start_matches("www.").to_ascii_lowercase());
    bare(a).is_some() && bare(a) == bare(b)
}

// --- Collecting the sitemaps -------------------------------------------------

/// How a sitemap URL was come by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Robots,
    WellKnown,
    Index,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::Robots => "robots_txt",
            Source::WellKnown => "well_known",
            Source::Index => "index",
        }
    }
}

/// A sitemap URL tried: as named, and what reading it gave (or why it was
/// not read).
struct Candidate {
    named: String,
    source: Source,
    read: Result<Arc<Resource>, String>,
}

impl Candidate {
    /// The resource, when it answered 2xx.
    fn found(&self) -> Option<&Arc<Resource>> {
        self.read.as_ref().ok().filter(|r| r.is_success())
    }

    fn evidence(&self) -> Value {
        let mut value = match &self.read {
            Ok(r) => serde_json::to_value(r.evidence()).unwrap_or_default(),
            Err(why) => json!({"not_read": why}),
        };
        value["named"] = json!(self.named);
        value["source"] = json!(self.source.as_str());
        value
    }
}

/// A sitemap file read and parsed.
struct File {
    resource: Arc<Resource>,
    parsed: Sitemap,
    child: bool,
    /// Its public URL, when known (for the host comparison).
    public: Option<Url>,
}

/// Everything read: the candidates tried, index children, parsed files.
struct Collected {
    listed: Vec<String>,
    candidates: Vec<Candidate>,
    children: Vec<Candidate>,
    children_listed: usize,
    files: Vec<File>,
}

async fn collect(ctx: &Context) -> Collected {
    let site = &ctx.site;
    let listed = listed_sitemaps(ctx).await;
    let candidates = if listed.is_empty() {
        vec![Candidate { named: WELL_KNOWN.into(), source: Source::WellKnown, read: Ok(site.get(WELL_KNOWN).await) }]
    } else {
        read_named(site, &listed[..listed.len().min(MAX_LISTED)], Source::Robots).await
    };
    let mut files: Vec<File> = candidates.iter().filter_map(|c| parse_found(site, c)).collect();
    let (children, children_listed) = read_children(site, &candidates, &files).await;
    files.extend(children.iter().filter_map(|c| parse_found(site, c)));
    Collected { listed, candidates, children, children_listed, files }
}

/// The `Sitemap:` lines of robots.txt, without repeats.
async fn listed_sitemaps(ctx: &Context) -> Vec<String> {
    let Some(robots) = ctx.robots().await.filter(|r| r.not_robots().is_none()) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    robots.sitemaps().map(str::to_string).filter(|s| seen.insert(s.clone())).collect()
}

async fn read_named(site: &Site, names: &[String], source: Source) -> Vec<Candidate> {
    let reads = site.read_located(&site.base(), names).await;
    names.iter().zip(reads).map(|(named, read)| Candidate { named: named.clone(), source, read }).collect()
}

/// Reads the children of the indexes found, one level, at most
/// [`MAX_CHILDREN`]; returns them and how many the indexes list.
async fn read_children(site: &Site, top: &[Candidate], files: &[File]) -> (Vec<Candidate>, usize) {
    let mut seen: HashSet<String> = top.iter().map(|c| c.named.clone()).collect();
    let locs: Vec<String> = files
        .iter()
        .filter(|f| f.parsed.kind.is_index())
        .flat_map(|f| f.parsed.entries.iter().map(|e| e.loc.clone()))
        .filter(|loc| seen.insert(loc.clone()))
        .collect();
    let children = read_named(site, &locs[..locs.len().min(MAX_CHILDREN)], Source::Index).await;
    (children, locs.len())
}

/// Parses a candidate that answered 2xx. A guessed `/sitemap.xml` counts
/// only when it is a sitemap (catch-all routes answer every path).
fn parse_found(site: &Site, candidate: &Candidate) -> Option<File> {
    let resource = candidate.found()?;
    let parsed = sitemap::parse(&resource.body);
    if candidate.source == Source::WellKnown && parsed.kind == SitemapKind::Unknown {
        return None;
    }
    let public = match site.target() {
        Target::Origin(_) => Url::parse(&resource.final_url).ok(),
        Target::Folder(_) => Url::parse(&candidate.named)
            .ok()
            .or_else(|| site.published_origin().and_then(|o| o.join(&candidate.named).ok())),
    };
    Some(File { resource: resource.clone(), parsed, child: candidate.source == Source::Index, public })
}

/// Files whose entries are pages (not indexes, not unreadable files).
fn page_files(files: &[File]) -> impl Iterator<Item = &File> {
    files.iter().filter(|f| !f.parsed.kind.is_index() && f.parsed.kind != SitemapKind::Unknown)
}

// --- discoverable --------------------------------------------------------------

fn discoverable_step(ctx: &Context, c: &Collected, findings: &mut Vec<Finding>) -> StepResult {
    let found: Vec<&str> = c.files.iter().filter(|f| !f.child).map(|f| f.resource.url.as_str()).collect();
    let evidence = json!({
        "robots_sitemaps": c.listed,
        "candidates": c.candidates.iter().map(Candidate::evidence).collect::<Vec<_>>(),
        "found": found,
        "listed_not_read": c.listed.len().saturating_sub(MAX_LISTED),
    });
    let status =
        if c.listed.is_empty() { well_known_status(ctx, c, findings) } else { listed_status(ctx, c, findings) };
    StepResult::new("discoverable", DISCOVERABLE_TITLE, 0.3, status).evidence(evidence)
}

fn listed_status(ctx: &Context, c: &Collected, findings: &mut Vec<Finding>) -> Status {
    let tried: Vec<&Candidate> = c.candidates.iter().filter(|c| c.read.is_ok()).collect();
    let found = tried.iter().filter(|c| c.found().is_some()).count();
    if c.listed.len() > MAX_LISTED {
        findings.push(
            Finding::new(
                Severity::Info,
                format!("robots.txt names {} sitemaps; the first {MAX_LISTED} were read", c.listed.len()),
            )
            .fix("Name one sitemap index in robots.txt and list the other sitemaps in it.")
            .at(ctx.site.url_of("/robots.txt")),
        );
    }
    if tried.is_empty() {
        findings.push(
            Finding::new(Severity::Info, "robots.txt names only sitemaps on other hosts, which a folder cannot hold")
                .fix("Audit the live origin to check those sitemaps.")
                .at(ctx.site.url_of("/robots.txt")),
        );
        return Status::Skip;
    }
    let severity = if found == 0 { Severity::Fail } else { Severity::Warn };
    for candidate in tried.iter().filter(|c| c.found().is_none()) {
        let answered = candidate.read.as_ref().map(|r| r.answered()).unwrap_or_default();
        findings.push(
            Finding::new(severity, format!("robots.txt names the sitemap {}, which {answered}", candidate.named))
                .fix("Publish the sitemap at that URL, or correct the `Sitemap:` line in robots.txt.")
                .at(candidate.named.clone()),
        );
    }
    match found {
        0 => Status::Fail,
        n if n < tried.len() => Status::Warn,
        _ => Status::Pass,
    }
}

fn well_known_status(ctx: &Context, c: &Collected, findings: &mut Vec<Finding>) -> Status {
    let location = ctx.site.url_of(WELL_KNOWN);
    let public = ctx.site.base().join(WELL_KNOWN).map(|u| u.to_string()).unwrap_or_else(|_| WELL_KNOWN.into());
    let public = if public.starts_with(FOLDER_BASE) { "https://<your-domain>/sitemap.xml".into() } else { public };
    if !c.files.is_empty() {
        findings.push(
            Finding::new(Severity::Warn, "the sitemap at /sitemap.xml is not named in robots.txt")
                .fix(format!("Add `Sitemap: {public}` to robots.txt, so crawlers find it without guessing its path."))
                .at(location),
        );
        return Status::Warn;
    }
    let outcome = match c.candidates.first().map(|c| &c.read) {
        Some(Ok(r)) if r.is_success() => "answers with something that is not a sitemap".to_string(),
        Some(Ok(r)) => r.answered(),
        _ => "was not read".to_string(),
    };
    findings.push(
        Finding::new(Severity::Fail, format!("no sitemap found: robots.txt names none and /sitemap.xml {outcome}"))
            .fix(format!(
                "Publish a sitemap of the pages agents should find (an XML urlset with lastmod dates) and name \
                 it in robots.txt: `Sitemap: {public}`."
            ))
            .at(location),
    );
    Status::Fail
}

// --- valid ---------------------------------------------------------------------

/// Codes the `limits` step judges.
fn is_limit_code(code: SitemapCode) -> bool {
    matches!(code, SitemapCode::TooManyUrls | SitemapCode::FileTooLarge | SitemapCode::DecompressionLimit)
}

fn valid_step(c: &Collected, findings: &mut Vec<Finding>) -> StepResult {
    let mut status = Status::Pass;
    for file in &c.files {
        status = status.max(file_status(file, findings));
    }
    status = status.max(children_status(c, findings));
    let not_read: Vec<Value> = c
        .children
        .iter()
        .filter_map(|ch| ch.read.as_ref().err().map(|why| json!({"named": ch.named, "reason": why})))
        .collect();
    let evidence = json!({
        "files": c.files.iter().map(file_evidence).collect::<Vec<_>>(),
        "children_listed": c.children_listed,
        "children_read": c.children.iter().filter(|ch| ch.read.is_ok()).count(),
        "children_over_cap": c.children_listed.saturating_sub(MAX_CHILDREN),
        "children_not_read": not_read,
    });
    StepResult::new("valid", VALID_TITLE, 0.3, status).evidence(evidence)
}

fn file_evidence(file: &File) -> Value {
    let diagnostics: Vec<Value> = file
        .parsed
        .diagnostics
        .iter()
        .take(EVIDENCE_DIAGNOSTICS)
        .map(|d| json!({"code": d.code.code(), "line": d.line, "severity": d.severity.as_str(), "message": d.message}))
        .collect();
    json!({
        "url": file.resource.url,
        "final_url": file.resource.final_url,
        "status": file.resource.status,
        "kind": kind_name(file.parsed.kind),
        "entries": file.parsed.entries.len(),
        "dropped": file.parsed.dropped,
        "bytes": file.resource.body.len(),
        "child": file.child,
        "diagnostics": diagnostics,
    })
}

fn kind_name(kind: SitemapKind) -> &'static str {
    match kind {
        SitemapKind::UrlSet => "urlset",
        SitemapKind::Index => "index",
        SitemapKind::Text => "text",
        SitemapKind::Rss => "rss",
        SitemapKind::Atom => "atom",
        _ => "unknown",
    }
}

/// The status of one file's diagnostics, with findings for them.
fn file_status(file: &File, findings: &mut Vec<Finding>) -> Status {
    let url = &file.resource.url;
    let at = |line: Option<u32>| line.map_or_else(|| url.clone(), |l| format!("{url}:{l}"));
    if file.parsed.kind == SitemapKind::Unknown {
        let why = file.parsed.diagnostics.first();
        let message = why.map_or("unreadable content".to_string(), |d| d.message.clone());
        let fix = why.map_or(sitemap_fix(SitemapCode::UnknownRoot), |d| sitemap_fix(d.code));
        findings
            .push(Finding::new(Severity::Fail, format!("{url} is not a sitemap: {message}")).fix(fix).at(url.clone()));
        return Status::Fail;
    }
    let mut status = Status::Pass;
    let reported: Vec<_> = file.parsed.diagnostics.iter().filter(|d| !is_limit_code(d.code)).collect();
    for d in reported.iter().take(FINDINGS_PER_FILE) {
        let severity = Severity::from(d.severity);
        status = status.max(severity.step_status());
        findings.push(
            Finding::new(severity, format!("{} {}", d.code.code(), d.message)).fix(sitemap_fix(d.code)).at(at(d.line)),
        );
    }
    for d in reported.iter().skip(FINDINGS_PER_FILE) {
        status = status.max(Severity::from(d.severity).step_status());
    }
    if reported.len() > FINDINGS_PER_FILE {
        findings.push(
            Finding::new(Severity::Info, format!("{} more findings in {url}", reported.len() - FINDINGS_PER_FILE))
                .fix("See the step's evidence for the full list, and fix the entries the same way.")
                .at(url.clone()),
        );
    }
    status
}

/// Broken and nested children of indexes.
fn children_status(c: &Collected, findings: &mut Vec<Finding>) -> Status {
    let mut status = Status::Pass;
    for child in &c.children {
        if let Ok(r) = &child.read
            && !r.is_success()
        {
            findings.push(
                Finding::new(
                    Severity::Fail,
                    format!("the sitemap index lists {}, which {}", child.named, r.answered()),
                )
                .fix("Publish the child sitemap at that URL, or remove it from the index.")
                .at(child.named.clone()),
            );
            status = Status::Fail;
        }
    }
    for file in c.files.iter().filter(|f| f.child && f.parsed.kind.is_index()) {
        findings.push(
            Finding::new(
                Severity::Warn,
                format!("{} is an index listed by an index; its children were not read", file.resource.url),
            )
            .fix("List only urlset sitemaps in a sitemap index: the protocol does not allow nested indexes.")
            .at(file.resource.url.clone()),
        );
        status = status.max(Status::Warn);
    }
    if c.children_listed > MAX_CHILDREN {
        let message =
            format!("the sitemap index lists {} sitemaps; the first {MAX_CHILDREN} were read", c.children_listed);
        let fix = "Nothing to change for the audit: it samples the first children; validate the others on their own if they change often.";
        let mut finding = Finding::new(Severity::Info, message).fix(fix);
        if let Some(index) = c.files.iter().find(|f| !f.child && f.parsed.kind.is_index()) {
            finding = finding.at(index.resource.url.clone());
        }
        findings.push(finding);
    }
    status
}

fn sitemap_fix(code: SitemapCode) -> &'static str {
    match code {
        SitemapCode::NotWellFormed => "Fix the XML at that line (an unescaped `&` is the usual cause: write `&amp;`).",
        SitemapCode::MissingLoc => "Give every entry a <loc> with the page's absolute URL.",
        SitemapCode::InvalidLoc => {
            "Write <loc> as an absolute http(s) URL under 2,048 characters (`https://example.com/page`, not `/page`)."
        }
        SitemapCode::InvalidLastmod => "Write lastmod as a W3C date: `2026-05-01` or `2026-05-01T09:30:00+00:00`.",
        SitemapCode::InvalidChangefreq => {
            "Use always, hourly, daily, weekly, monthly, yearly or never, or drop changefreq: search engines ignore it."
        }
        SitemapCode::InvalidPriority => "Use a number from 0.0 to 1.0, or drop priority: search engines ignore it.",
        SitemapCode::GzipError => "Compress the file again: the gzip stream is corrupt or truncated.",
        SitemapCode::DoctypeRefused => {
            "Remove the DOCTYPE: sitemaps need none, and readers refuse entity declarations."
        }
        SitemapCode::UnrenderedTemplate => "Render the template at build time: the file is published as source.",
        SitemapCode::HtmlBody => {
            "Serve the sitemap itself at this URL: an HTML page (a catch-all route or a soft 404) answers instead."
        }
        SitemapCode::IndexListsIndex => "List only urlset sitemaps in an index: flatten nested indexes.",
        SitemapCode::UrlsetListsSitemaps => "Publish a list of sitemaps as <sitemapindex> with <sitemap> entries.",
        SitemapCode::MissingNamespace => {
            "Add `xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"` to the root element; strict readers require it."
        }
        SitemapCode::Empty => "List the site's pages in the sitemap, or stop publishing an empty one.",
        SitemapCode::LastmodWithoutTimezone => "Add a time zone to lastmod times: `2026-05-01T09:30:00+00:00`.",
        SitemapCode::UnknownEntity => "Escape text with the five XML entities only: &amp; &lt; &gt; &quot; &apos;.",
        SitemapCode::TooManyNewsUrls => "Keep at most 1,000 news entries, from the last two days, in a news sitemap.",
        SitemapCode::MisplacedEntry => "Put <url> entries only in a urlset and <sitemap> entries only in an index.",
        SitemapCode::InvalidTextLine => "Write one absolute http(s) URL per line in a text sitemap.",
        SitemapCode::InvalidUtf8 => "Save the sitemap as UTF-8.",
        SitemapCode::TooManyUrls | SitemapCode::FileTooLarge | SitemapCode::DecompressionLimit => {
            "Split the sitemap into files of at most 50,000 URLs and 50 MB, listed in a sitemap index."
        }
        _ => {
            "Serve a sitemap: a <urlset> of pages, a <sitemapindex> of sitemaps, a text file of URLs, or an RSS or Atom feed."
        }
    }
}

// --- limits --------------------------------------------------------------------

/// Up to five entries of `file` on another host than the file's own.
fn off_host(file: &File) -> Option<(usize, Vec<String>)> {
    let host = file.public.as_ref()?.host_str()?.to_ascii_lowercase();
    let off: Vec<&str> = file
        .parsed
        .entries
        .iter()
        .map(|e| e.loc.as_str())
        .filter(|loc| {
            Url::parse(loc).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).as_ref() != Some(&host)
        })
        .collect();
    Some((off.len(), off.iter().take(5).map(|s| s.to_string()).collect()))
}

fn limits_step(c: &Collected, findings: &mut Vec<Finding>) -> StepResult {
    let mut status = Status::Pass;
    let mut files = Vec::new();
    let mut examples = Vec::new();
    for file in &c.files {
        let codes: Vec<SitemapCode> = file.parsed.diagnostics.iter().map(|d| d.code).collect();
        let over_count = file.parsed.dropped > 0 || codes.contains(&SitemapCode::TooManyUrls);
        let over_size = codes.contains(&SitemapCode::FileTooLarge)
            || codes.contains(&SitemapCode::DecompressionLimit)
            || file.resource.body.len() > MAX_BYTES;
        let off = off_host(file);
        let url = &file.resource.url;
        if over_count || over_size {
            let what = if over_count {
                format!(
                    "lists {} URLs, over the limit of {MAX_ENTRIES}",
                    file.parsed.entries.len() + file.parsed.dropped
                )
            } else {
                "is over 50 MB uncompressed".to_string()
            };
            findings.push(
                Finding::new(Severity::Fail, format!("{url} {what}; readers drop the rest"))
                    .fix(sitemap_fix(SitemapCode::TooManyUrls))
                    .at(url.clone()),
            );
            status = Status::Fail;
        }
        if let Some((count, sample)) = &off
            && *count > 0
        {
            let host = file.public.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
            findings.push(
                Finding::new(Severity::Warn, format!("{url} lists {count} URL(s) on other hosts than {host}, e.g. {}", sample[0]))
                    .fix(format!("List only URLs on {host} in this sitemap; give each host its own sitemap, named in its own robots.txt."))
                    .at(url.clone()),
            );
            examples.extend(sample.iter().cloned());
            status = status.max(Status::Warn);
        }
        files.push(json!({
            "url": url,
            "entries": file.parsed.entries.len(),
            "dropped": file.parsed.dropped,
            "over_count": over_count,
            "over_size": over_size,
            "host": file.public.as_ref().and_then(|u| u.host_str()),
            "off_host": off.map(|(n, _)| n),
        }));
    }
    examples.truncate(5);
    let evidence =
        json!({"max_entries": MAX_ENTRIES, "max_bytes": MAX_BYTES, "files": files, "off_host_examples": examples});
    StepResult::new("limits", LIMITS_TITLE, 0.2, status).evidence(evidence)
}

// --- lastmod -------------------------------------------------------------------

fn lastmod_step(c: &Collected, findings: &mut Vec<Finding>) -> StepResult {
    let entries: Vec<&sitemap::Entry> = page_files(&c.files).flat_map(|f| f.parsed.entries.iter()).collect();
    let dates: Vec<&sitemap::DateTime> = entries.iter().filter_map(|e| e.lastmod.as_ref()).collect();
    let oldest = dates.iter().min_by_key(|d| d.unix_timestamp()).map(|d| d.to_string());
    let newest = dates.iter().max_by_key(|d| d.unix_timestamp()).map(|d| d.to_string());
    let share = if entries.is_empty() { 0.0 } else { dates.len() as f64 / entries.len() as f64 };
    let evidence = json!({
        "entries": entries.len(),
        "with_lastmod": dates.len(),
        "share": (share * 100.0).round() / 100.0,
        "oldest": oldest,
        "newest": newest,
    });
    let status = if entries.is_empty() {
        Status::Skip
    } else if dates.len() == entries.len() {
        Status::Pass
    } else {
        let text_only = page_files(&c.files).all(|f| f.parsed.kind == SitemapKind::Text);
        let message = if dates.is_empty() {
            format!("none of the {} sitemap URLs has a lastmod date", entries.len())
        } else {
            format!("{} of the {} sitemap URLs have no lastmod date", entries.len() - dates.len(), entries.len())
        };
        let fix = if text_only {
            "Publish an XML sitemap instead of a text one: only XML entries carry `<lastmod>`, which tells crawlers what changed."
        } else {
            "Add `<lastmod>` (the date the page's content last changed) to every `<url>`, so crawlers re-read what changed."
        };
        findings.push(Finding::new(Severity::Warn, message).fix(fix));
        Status::Warn
    };
    StepResult::new("lastmod", LASTMOD_TITLE, 0.2, status).evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_keeps_first_and_spaces_the_rest() {
        let items: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        assert_eq!(spread(items.clone(), 3), ["0", "3", "6"]);
        assert_eq!(spread(items.clone(), 20).len(), 10);
        assert!(spread(items, 0).is_empty());
    }

    #[test]
    fn same_site_ignores_www() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_site(&u("https://www.example.com/a"), &u("https://example.com/")));
        assert!(!same_site(&u("https://cdn.example.com/a"), &u("https://example.com/")));
    }
}
