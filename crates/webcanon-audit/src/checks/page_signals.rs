//! `page-signals` 1.0.0: the usage signals pages carry, on a sample of the
//! site's pages (meta robots, `X-Robots-Tag`, `noai`/`noimageai`, TDMRep).
//!
//! Up to 10 pages are sampled from the sitemap ([`sitemap::sample_pages`],
//! spread across it), else the home page; each is read once. Per page the
//! check collects meta robots and `X-Robots-Tag` directives that apply to
//! the audit's agent (`noindex`, `nofollow`, `noai`, `noimageai`, …), the
//! TDMRep reservation from the `tdm-reservation` meta tag, the header and
//! `/.well-known/tdmrep.json` (whose `location` patterns match like
//! robots.txt paths, first matching rule wins), and `Content-Usage` /
//! `Content-Signal` headers. These are usage preferences: they say what
//! may be done with content once fetched, and never block a fetch.
//!
//! Steps:
//! - `sampled` (0.2) — the pages could be read: all → pass, some → warn,
//!   none → fail (a page refused by robots.txt counts as not read).
//! - `consistent` (0.4) — a page listed in the sitemap that asks not to be
//!   indexed (`noindex`) warns: the sitemap advertises a page that opts
//!   out; a page whose TDMRep sources disagree warns. A signal present on
//!   some sampled pages and not others (`noai` on some marketing pages) is
//!   evidence and an info finding, not a warning: it is often deliberate.
//! - `declared` (0.4) — the site states a usage preference somewhere:
//!   `noai`/`noimageai` on a page, TDMRep (meta, header or tdmrep.json),
//!   a `Content-Usage`/`Content-Signal` header, `Content-Signal` or
//!   `Content-Usage` records in robots.txt, or Spawning rules in ai.txt.
//!   None → warn with a fix; an unreadable tdmrep.json → warn. Advice,
//!   never a failure.
//!
//! Evidence keys: `sampled` {source, sampled, read, pages: [{page, status,
//! error, meta_robots, x_robots_tag, tdm_reservation: {meta, header, file},
//! tdm_policy, content_usage, content_signal, signals}]}; `consistent`
//! {pages, signals: {signal: count}, mixed: {signal: {with, without}},
//! noindex_in_sitemap, tdm_conflicts}; `declared` {sources, tdmrep_json:
//! {url, status, rules: [{location, tdm_reservation, tdm_policy}], error},
//! robots_txt_signals, ai_txt_kind}.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Value, json};
use url::Url;
use webcanon_client::markdown::HeadTag;
use webcanon_core::ai_txt::{AiTxt, AiTxtKind};
use webcanon_core::robots::{MatchVerdict, RecordKind, Robots};
use webcanon_core::signals::{
    applies_to, parse_content_usage_header, parse_meta_robots, parse_preferences, parse_tdm_reservation,
    parse_x_robots_tag,
};

use super::Context;
use super::sitemap;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{ReadError, Resource};

/// The check id.
pub const ID: &str = "page-signals";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "Pages state usage preferences consistently";

/// Pages sampled.
pub const SAMPLE: usize = 10;
const TDMREP_PATH: &str = "/.well-known/tdmrep.json";
/// Findings of one kind before the rest are left to the evidence.
const FINDINGS_PER_KIND: usize = 5;
/// Pages named per signal in the `mixed` evidence.
const EXAMPLES: usize = 5;

const SAMPLED_TITLE: &str = "Sampled pages could be read";
const CONSISTENT_TITLE: &str = "Signals agree with the sitemap and each other";
const DECLARED_TITLE: &str = "The site states a usage preference";

const NOT_A_BLOCK: &str = "These are usage preferences: agents may still fetch the pages.";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let sampled_pages = sitemap::sample_pages(ctx, SAMPLE).await;
    let (source, keys) =
        if sampled_pages.is_empty() { ("home", vec![ctx.site.url_of("/")]) } else { ("sitemap", sampled_pages) };
    let tdm = tdmrep(ctx).await;
    let resources = ctx.site.read_many(&keys).await;
    let pages: Vec<PageSignals> =
        keys.into_iter().zip(resources).map(|(key, r)| PageSignals::read(key, r, &ctx.agent, &tdm.rules)).collect();
    let mut findings = Vec::new();
    let steps = vec![
        sampled_step(ctx, source, &pages, &mut findings),
        consistent_step(source, &pages, &mut findings),
        declared_step(ctx, &pages, &tdm, &mut findings).await,
    ];
    CheckResult::from_steps(ID, VERSION, TITLE, steps, findings)
}

// --- Reading the signals -------------------------------------------------------

/// One rule of `/.well-known/tdmrep.json`.
struct TdmRule {
    location: String,
    reservation: Option<bool>,
    policy: Option<String>,
    /// The location as a one-rule robots.txt, to match paths the way
    /// TDMRep says (robots.txt `*` and `$`).
    matcher: Robots,
}

impl TdmRule {
    fn matches(&self, path: &str) -> bool {
        self.matcher.decide("*", path).verdict == MatchVerdict::DisallowedExplicit
    }
}

/// `/.well-known/tdmrep.json` as read.
struct TdmFile {
    resource: Arc<Resource>,
    rules: Vec<TdmRule>,
    error: Option<String>,
}

async fn tdmrep(ctx: &Context) -> TdmFile {
    let resource = ctx.site.get(TDMREP_PATH).await;
    if !resource.is_success() {
        return TdmFile { resource, rules: Vec::new(), error: None };
    }
    let (rules, error) = match serde_json::from_slice::<Value>(&resource.body) {
        Ok(Value::Array(items)) => {
            let rules: Vec<TdmRule> = items.iter().filter_map(tdm_rule).collect();
            let error = (rules.len() < items.len())
                .then(|| format!("{} of {} rules lack a usable `location`", items.len() - rules.len(), items.len()));
            (rules, error)
        }
        Ok(_) => (Vec::new(), Some("the file is JSON but not an array of rules".to_string())),
        Err(e) => (Vec::new(), Some(format!("the file is not JSON ({e})"))),
    };
    TdmFile { resource, rules, error }
}

fn tdm_rule(item: &Value) -> Option<TdmRule> {
    let location = item.get("location")?.as_str()?.trim();
    if !location.starts_with(['/', '*']) || location.contains(|c: char| c.is_control() || c == '#') {
        return None;
    }
    let reservation = match item.get("tdm-reservation") {
        Some(Value::Number(n)) => parse_tdm_reservation(&n.to_string()),
        Some(Value::String(s)) => parse_tdm_reservation(s),
        _ => None,
    };
    let policy = item.get("tdm-policy").and_then(Value::as_str).map(str::to_string);
    let matcher = Robots::parse(format!("User-agent: *\nDisallow: {location}\n").as_bytes());
    Some(TdmRule { location: location.to_string(), reservation, policy, matcher })
}

/// The usage signals of one sampled page.
struct PageSignals {
    key: String,
    resource: Arc<Resource>,
    meta_robots: BTreeSet<String>,
    x_robots_tag: BTreeSet<String>,
    tdm_meta: Option<bool>,
    tdm_header: Option<bool>,
    tdm_file: Option<bool>,
    tdm_policy: Option<String>,
    content_usage: Vec<String>,
    content_signal: Vec<String>,
}

/// The `<meta>` and `<link>` tags of an HTML page (the client's linear
/// head scan: no tree is built).
fn head_tags(resource: &Resource) -> Vec<HeadTag> {
    if !resource.is_success() || !resource.is_html() {
        return Vec::new();
    }
    webcanon_client::markdown::head_tags(&resource.text())
}

impl PageSignals {
    fn read(key: String, resource: Arc<Resource>, agent: &str, tdm: &[TdmRule]) -> PageSignals {
        let headers = |name: &str| -> Vec<String> {
            resource.headers.iter().filter(|(n, _)| n == name).map(|(_, v)| v.clone()).collect()
        };
        let x_robots_tag = headers("x-robots-tag")
            .iter()
            .flat_map(|v| parse_x_robots_tag(v))
            .filter(|d| applies_to(d, agent))
            .map(|d| d.name().to_string())
            .collect();
        let mut page = PageSignals {
            tdm_header: resource.header("tdm-reservation").and_then(parse_tdm_reservation),
            tdm_policy: resource.header("tdm-policy").map(str::to_string),
            content_usage: headers("content-usage"),
            content_signal: headers("content-signal"),
            x_robots_tag,
            meta_robots: BTreeSet::new(),
            tdm_meta: None,
            tdm_file: tdm.iter().find(|r| r.matches(&page_path(&key))).and_then(|r| r.reservation),
            key,
            resource: resource.clone(),
        };
        page.read_head(&head_tags(&resource), agent);
        page
    }

    fn read_head(&mut self, tags: &[HeadTag], agent: &str) {
        for tag in tags.iter().filter(|t| t.tag == "meta") {
            let (Some(name), Some(content)) = (tag.attr("name"), tag.attr("content")) else { continue };
            let lower = name.trim().to_ascii_lowercase();
            if lower == "tdm-reservation" {
                self.tdm_meta = self.tdm_meta.or(parse_tdm_reservation(content));
            } else if lower == "tdm-policy" {
                self.tdm_policy = self.tdm_policy.take().or_else(|| Some(content.to_string()));
            } else if lower == "robots" || lower.eq_ignore_ascii_case(agent) {
                self.meta_robots.extend(parse_meta_robots(name, content).iter().map(|d| d.name().to_string()));
            }
        }
    }

    fn is_read(&self) -> bool {
        self.resource.is_success()
    }

    fn has_directive(&self, name: &str) -> bool {
        self.meta_robots.contains(name) || self.x_robots_tag.contains(name)
    }

    /// TDMRep's answer: the file first, then the header, then the page.
    fn tdm_effective(&self) -> Option<bool> {
        self.tdm_file.or(self.tdm_header).or(self.tdm_meta)
    }

    fn tdm_conflict(&self) -> bool {
        let values: BTreeSet<bool> = [self.tdm_file, self.tdm_header, self.tdm_meta].into_iter().flatten().collect();
        values.len() > 1
    }

    /// Whether the page's `Content-Usage` header lines, read as one
    /// statement of the AI preferences vocabulary, disallow a category.
    fn content_usage_disallows(&self) -> bool {
        parse_content_usage_header(self.content_usage.iter().map(String::as_str))
            .is_ok_and(|s| s.disallowed().next().is_some())
    }

    /// The signals a page carries, as stable names.
    fn signals(&self) -> BTreeSet<&'static str> {
        let mut out = BTreeSet::new();
        let says_no = |values: &[String]| values.iter().any(|v| parse_preferences(v).iter().any(|p| p.is_no()));
        let checks: [(&'static str, bool); 7] = [
            ("noindex", self.has_directive("noindex") || self.has_directive("none")),
            ("nofollow", self.has_directive("nofollow") || self.has_directive("none")),
            ("noai", self.has_directive("noai")),
            ("noimageai", self.has_directive("noimageai")),
            ("tdm_reservation", self.tdm_effective() == Some(true)),
            ("content_usage_no", self.content_usage_disallows()),
            ("content_signal_no", says_no(&self.content_signal)),
        ];
        out.extend(checks.into_iter().filter(|(_, on)| *on).map(|(name, _)| name));
        out
    }

    /// Where the page states a usage preference.
    fn declarations(&self) -> Vec<&'static str> {
        let ai = |set: &BTreeSet<String>| set.contains("noai") || set.contains("noimageai");
        let declared = [
            ("meta_robots_noai", ai(&self.meta_robots)),
            ("x_robots_tag_noai", ai(&self.x_robots_tag)),
            ("tdmrep_meta", self.tdm_meta.is_some()),
            ("tdmrep_header", self.tdm_header.is_some()),
            ("content_usage_header", !self.content_usage.is_empty()),
            ("content_signal_header", !self.content_signal.is_empty()),
        ];
        declared.into_iter().filter(|(_, on)| *on).map(|(name, _)| name).collect()
    }

    fn evidence(&self) -> Value {
        json!({
            "page": self.key,
            "status": self.resource.status,
            "error": self.resource.error.as_ref().map(ReadError::message),
            "meta_robots": self.meta_robots,
            "x_robots_tag": self.x_robots_tag,
            "tdm_reservation": {"meta": self.tdm_meta, "header": self.tdm_header, "file": self.tdm_file},
            "tdm_policy": self.tdm_policy,
            "content_usage": self.content_usage,
            "content_signal": self.content_signal,
            "signals": self.signals(),
        })
    }
}

/// The path of a page key (a URL for an origin, a path for a folder).
fn page_path(key: &str) -> String {
    match Url::parse(key) {
        Ok(url) => match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        },
        Err(_) => key.to_string(),
    }
}

// --- sampled -------------------------------------------------------------------

fn sampled_step(ctx: &Context, source: &str, pages: &[PageSignals], findings: &mut Vec<Finding>) -> StepResult {
    let read = pages.iter().filter(|p| p.is_read()).count();
    for page in pages.iter().filter(|p| !p.is_read()).take(FINDINGS_PER_KIND) {
        let (message, fix) = match &page.resource.error {
            Some(ReadError::Robots { .. }) => (
                format!("robots.txt keeps {} from {}, so its signals could not be read", ctx.agent, page.key),
                "Allow the page in robots.txt for the agents meant to read it, or remove it from the sitemap.",
            ),
            _ if source == "sitemap" => (
                format!("{} is listed in the sitemap but {}", page.key, page.resource.answered()),
                "Restore the page or remove it from the sitemap: the sitemap should list only pages that answer 200.",
            ),
            _ => (
                format!("the home page {}", page.resource.answered()),
                "Make the home page answer 200, and publish a sitemap so that more pages can be sampled.",
            ),
        };
        findings.push(Finding::new(Severity::Warn, message).fix(fix).at(page.key.clone()));
    }
    let status = match read {
        0 => Status::Fail,
        n if n < pages.len() => Status::Warn,
        _ => Status::Pass,
    };
    let evidence = json!({
        "source": source,
        "sampled": pages.len(),
        "read": read,
        "pages": pages.iter().map(PageSignals::evidence).collect::<Vec<_>>(),
    });
    StepResult::new("sampled", SAMPLED_TITLE, 0.2, status).evidence(evidence)
}

// --- consistent ----------------------------------------------------------------

fn consistent_step(source: &str, pages: &[PageSignals], findings: &mut Vec<Finding>) -> StepResult {
    let read: Vec<&PageSignals> = pages.iter().filter(|p| p.is_read()).collect();
    if read.is_empty() {
        return StepResult::new("consistent", CONSISTENT_TITLE, 0.4, Status::Skip);
    }
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for page in &read {
        for signal in page.signals() {
            *counts.entry(signal).or_default() += 1;
        }
    }
    let mixed = mixed_signals(&read, &counts, findings);
    let noindex: Vec<&str> = if source == "sitemap" {
        read.iter().filter(|p| p.signals().contains("noindex")).map(|p| p.key.as_str()).collect()
    } else {
        Vec::new()
    };
    for key in noindex.iter().take(FINDINGS_PER_KIND) {
        findings.push(
            Finding::new(
                Severity::Warn,
                format!("{key} is listed in the sitemap but asks not to be indexed (noindex)"),
            )
            .fix(
                "Remove the page from the sitemap, or drop noindex if it should be found. noindex is a \
                     preference for indexers; it does not stop agents from fetching the page.",
            )
            .at(key.to_string()),
        );
    }
    let conflicts: Vec<&PageSignals> = read.iter().copied().filter(|p| p.tdm_conflict()).collect();
    for page in conflicts.iter().take(FINDINGS_PER_KIND) {
        let show = |v: Option<bool>| v.map_or("unset".to_string(), |b| u8::from(b).to_string());
        findings.push(
            Finding::new(
                Severity::Warn,
                format!(
                    "{} states conflicting TDMRep reservations (tdmrep.json: {}, header: {}, meta tag: {}); \
                     tdmrep.json wins, then the header",
                    page.key,
                    show(page.tdm_file),
                    show(page.tdm_header),
                    show(page.tdm_meta)
                ),
            )
            .fix("State the reservation in one place (tdmrep.json covers the whole site), or make every place agree.")
            .at(page.key.clone()),
        );
    }
    let status = if noindex.is_empty() && conflicts.is_empty() { Status::Pass } else { Status::Warn };
    let evidence = json!({
        "pages": read.len(),
        "signals": counts,
        "mixed": mixed,
        "noindex_in_sitemap": noindex,
        "tdm_conflicts": conflicts.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
    });
    StepResult::new("consistent", CONSISTENT_TITLE, 0.4, status).evidence(evidence)
}

/// Signals on some sampled pages and not others: evidence, and one info
/// finding naming them.
fn mixed_signals(
    read: &[&PageSignals],
    counts: &BTreeMap<&'static str, usize>,
    findings: &mut Vec<Finding>,
) -> BTreeMap<&'static str, Value> {
    let mut mixed = BTreeMap::new();
    let mut described = Vec::new();
    for (&signal, &count) in counts.iter().filter(|(_, n)| **n < read.len()) {
        let (with, without): (Vec<&&PageSignals>, Vec<&&PageSignals>) =
            read.iter().partition(|p| p.signals().contains(signal));
        let keys = |pages: &[&&PageSignals]| pages.iter().take(EXAMPLES).map(|p| p.key.clone()).collect::<Vec<_>>();
        described.push(format!("`{signal}` on {count} (e.g. {})", with[0].key));
        mixed.insert(signal, json!({"with": keys(&with), "without": keys(&without)}));
    }
    if !described.is_empty() {
        findings.push(
            Finding::new(
                Severity::Info,
                format!("signals differ across the {} sampled pages: {}", read.len(), described.join(", ")),
            )
            .fix(format!(
                "Check that the differences are deliberate: customer-only, internal and licensed pages usually carry \
                 such signals, public marketing pages usually do not. {NOT_A_BLOCK}"
            )),
        );
    }
    mixed
}

// --- declared ------------------------------------------------------------------

async fn declared_step(ctx: &Context, pages: &[PageSignals], tdm: &TdmFile, findings: &mut Vec<Finding>) -> StepResult {
    let mut sources: BTreeSet<&'static str> = pages.iter().flat_map(PageSignals::declarations).collect();
    if !tdm.rules.is_empty() {
        sources.insert("tdmrep_json");
    }
    let robots_signals: Vec<Value> = match ctx.robots().await {
        Some(robots) => robots
            .records()
            .filter(|r| matches!(r.kind, RecordKind::ContentSignal | RecordKind::ContentUsage))
            .map(|r| json!({"line": r.line, "record": r.key, "value": r.value}))
            .collect(),
        None => Vec::new(),
    };
    if !robots_signals.is_empty() {
        sources.insert("robots_txt");
    }
    let ai_txt = ctx.site.get("/ai.txt").await;
    let ai_kind = ai_txt.is_success().then(|| AiTxt::parse(&ai_txt.body));
    if ai_kind.as_ref().is_some_and(|f| f.kind == AiTxtKind::Spawning && f.groups.iter().any(|g| !g.rules.is_empty())) {
        sources.insert("ai_txt");
    }
    let mut status = Status::Pass;
    if let Some(error) = &tdm.error {
        findings.push(
            Finding::new(Severity::Warn, format!("/.well-known/tdmrep.json is not valid TDMRep: {error}"))
                .fix(
                    "Publish a JSON array of rules: `[{\"location\": \"/*\", \"tdm-reservation\": 1, \
                     \"tdm-policy\": \"https://…/policy.json\"}]`.",
                )
                .at(tdm.resource.url.clone()),
        );
        status = Status::Warn;
    }
    if sources.is_empty() {
        findings.push(
            Finding::new(Severity::Warn, "the site states no AI usage preference anywhere")
                .fix(format!(
                    "State one: `Content-Signal: search=yes, ai-train=no` in robots.txt, `<meta name=\"robots\" \
                     content=\"noai, noimageai\">` on pages that must not be trained on, a TDMRep \
                     /.well-known/tdmrep.json, or an ai.txt. {NOT_A_BLOCK}"
                ))
                .at(ctx.site.url_of("/")),
        );
        status = Status::Warn;
    }
    let evidence = json!({
        "sources": sources,
        "tdmrep_json": {
            "url": tdm.resource.url,
            "status": tdm.resource.status,
            "rules": tdm.rules.iter().map(|r| json!({
                "location": r.location, "tdm_reservation": r.reservation, "tdm_policy": r.policy,
            })).collect::<Vec<_>>(),
            "error": tdm.error,
        },
        "robots_txt_signals": robots_signals,
        "ai_txt_kind": ai_kind.map(|f| format!("{:?}", f.kind).to_lowercase()),
    });
    StepResult::new("declared", DECLARED_TITLE, 0.4, status).evidence(evidence)
}
