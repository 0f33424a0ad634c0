//! `webcanon llms check`: validate an llms.txt file and check that its
//! links serve Markdown.
//!
//! # `webcanon llms check FILE|URL [--json] [--no-links] [--max-links N]`
//!
//! A FILE (`-` for standard input) is parsed and its diagnostics printed,
//! compiler-style, with their stable `L…` codes; its links are listed, never
//! fetched. A URL whose path is `/` or empty means `<origin>/llms.txt`; any
//! other URL is fetched as given, through the client (SSRF guard, robots.txt
//! of its origin, the client's own redirect loop). Then, unless
//! `--no-links`, every link is resolved against the file's final URL
//! (relative links too, a `#fragment` dropped) and each distinct URL is
//! requested once with `Accept: text/markdown, text/plain`, at most four
//! requests in flight and one at a time per host, each through the same
//! guard and robots.txt admission as a fetch (`Client::check_links`). llms.txt never overrides a
//! robots.txt disallow: a refused link is reported, not requested. At most
//! `--max-links` distinct URLs (default 1,000), the first in the file's
//! order, are requested; the rest are left out, said in a note on stderr,
//! in the summary line and in the JSON (`outcome` null, `left_out`).
//!
//! Link outcomes (the client's one classification,
//! `webcanon_client::link_check`, which the audit uses too):
//!
//! | outcome | meaning |
//! |---|---|
//! | `ok` | 2xx; `text/markdown`, `text/x-markdown`, `text/plain` or no type, and not an HTML page |
//! | `not_markdown` | 2xx, but an HTML page (by its type, or by its first bytes whatever the type says) or another type |
//! | `broken` | the final status is not 2xx (4xx, 5xx); `status` says which |
//! | `refused_robots` | robots.txt of the link's origin (or of a redirect target) refuses it; `rule` holds the matched rule |
//! | `refused_ssrf` | the SSRF guard refuses the address (private, loopback, link-local, …) |
//! | `unreachable` | timeout, connection failure, a bad redirect or too many |
//! | `invalid` | not an http(s) URL once resolved (`mailto:`, `javascript:`, unparseable) |
//!
//! A redirect is not an outcome of its own: the outcome judges the answer at
//! the end of the redirects, `final_url` says where that was and
//! `redirected` is true. Text output lists every link whose outcome is not
//! `ok`, and redirected `ok` links as notes.
//!
//! Exit status: 0 clean; 1 the file has errors or a link is `broken`; 2 bad
//! usage or an unreadable FILE; 3, 4 or 5 when the llms.txt itself is refused
//! by robots.txt, refused by the SSRF guard, or cannot be fetched (a non-2xx
//! answer included). Links that are refused or unreachable are reported but
//! do not change the exit status: refusals are the site's wish, and a
//! timeout may be passing.
//!
//! With `--json`, one object on stdout (an error object like `webcanon
//! fetch --json` when the llms.txt itself cannot be fetched):
//!
//! ```text
//! {
//!   "source": "https://example.com/llms.txt",  // final URL, file path or "<stdin>"
//!   "max_links": 1000 | null,                  // the cap on distinct URLs requested; null when none were
//!   "content_type": "text/markdown" | null,    // of the fetched file; null for a FILE
//!   "title": "Example" | null,                 // the H1
//!   "summary": "…" | null,                     // the blockquote after the H1
//!   "not_llms": "html" | "json" | "xml" | "robots" | "binary" | "empty" | null,
//!   "sections": [{"name": "Docs", "line": 5, "optional": false, "links": 3}],
//!   "diagnostics": [{"code": "L007", "name": "link-without-notes", "severity": "info",
//!                    "line": 8, "message": "…"}],    // severity: error, warning, info
//!   "links": [{
//!     "url": "guide.md",                           // as written in the file
//!     "resolved_url": "https://example.com/guide.md" | null,  // absolute, without #fragment
//!     "title": "Guide", "section": "Docs" | null, "optional": false, "line": 8,
//!     "outcome": "ok" | … | null,                  // null when links were not checked, or left out by the cap
//!     "status": 200 | null, "final_url": "…" | null, "redirected": false,
//!     "content_type": "text/markdown" | null, "message": "…" | null,
//!     "rule": {"line": 2, "directive": "disallow", "pattern": "/private"} | null,
//!     "robots_url": "https://example.com/robots.txt" | null
//!   }],
//!   "totals": {"errors", "warnings", "infos",        // diagnostics
//!              "links",                              // link list items in the file
//!              "checked",                            // distinct URLs requested
//!              "ok", "broken", "not_markdown", "refused", "unreachable", "invalid", "redirected",
//!              "left_out"}                           // link list items not requested (past --max-links)
//! }
//! ```
//!
//! Link counts in `totals` count list items, so a URL listed twice counts
//! twice although it was requested once. (`totals` is not called `summary`,
//! which already names the file's blockquote.)

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use url::Url;
use webcanon_client::link_check::{LinkCheck, LinkOutcome as Outcome};
use webcanon_core::llms::{LlmsTxt, NotLlms};
use webcanon_core::policy::RuleEvidence;
use webcanon_core::robots::Severity;

use crate::client_args::runtime;
use crate::diagnostics::{Counts, Finding, markdown_lines, paint, use_color, write_diagnostic};
use crate::error::CliError;
use crate::input::read_all;

use super::args::CheckArgs;
use super::plan::{Plan, is_url, llms_url, load_remote};

/// How the text output paints an outcome.
fn severity(outcome: Outcome) -> Severity {
    match outcome {
        Outcome::Ok => Severity::Info,
        o if o.fails() => Severity::Error,
        _ => Severity::Warning,
    }
}

#[derive(Debug, Default, Serialize)]
struct Totals {
    errors: usize,
    warnings: usize,
    infos: usize,
    links: usize,
    checked: usize,
    ok: usize,
    broken: usize,
    not_markdown: usize,
    refused: usize,
    unreachable: usize,
    invalid: usize,
    redirected: usize,
    left_out: usize,
}

#[derive(Serialize)]
struct CheckJson<'a> {
    source: &'a str,
    max_links: Option<usize>,
    content_type: Option<&'a str>,
    title: Option<&'a str>,
    summary: Option<&'a str>,
    not_llms: Option<NotLlms>,
    sections: Vec<SectionJson<'a>>,
    diagnostics: Vec<Finding<'a>>,
    links: Vec<LinkJson<'a>>,
    totals: Totals,
}

#[derive(Serialize)]
struct SectionJson<'a> {
    name: &'a str,
    line: u32,
    optional: bool,
    links: usize,
}

#[derive(Serialize)]
struct LinkJson<'a> {
    url: &'a str,
    resolved_url: Option<&'a str>,
    title: &'a str,
    section: Option<&'a str>,
    optional: bool,
    line: u32,
    outcome: Option<Outcome>,
    status: Option<u16>,
    final_url: Option<&'a str>,
    redirected: bool,
    content_type: Option<&'a str>,
    message: Option<&'a str>,
    rule: Option<&'a RuleEvidence>,
    robots_url: Option<&'a str>,
}

/// Everything `check` reports about one file.
struct Report<'a> {
    source: &'a str,
    content_type: Option<&'a str>,
    body: &'a [u8],
    file: &'a LlmsTxt,
    plan: &'a Plan,
    /// Per distinct URL requested (the first ones of the plan), when the
    /// links were requested.
    results: Option<&'a [LinkCheck]>,
    /// The cap on distinct URLs requested, when the links were requested.
    max_links: Option<usize>,
}

impl Report<'_> {
    fn totals(&self) -> Totals {
        let Counts { errors, warnings, infos } = Counts::of(self.file.diagnostics.iter().map(|d| d.severity));
        let mut totals = Totals { errors, warnings, infos, ..Totals::default() };
        totals.links = self.plan.slots.len();
        let Some(results) = self.results else { return totals };
        totals.checked = results.len();
        for slot in &self.plan.slots {
            let Ok(index) = slot else {
                totals.invalid += 1;
                continue;
            };
            let Some(checked) = results.get(*index) else {
                totals.left_out += 1;
                continue;
            };
            match checked.outcome {
                Outcome::Ok => totals.ok += 1,
                Outcome::NotMarkdown => totals.not_markdown += 1,
                Outcome::Broken => totals.broken += 1,
                Outcome::RefusedRobots | Outcome::RefusedSsrf => totals.refused += 1,
                Outcome::Unreachable => totals.unreachable += 1,
                Outcome::Invalid => totals.invalid += 1,
            }
            if checked.redirected {
                totals.redirected += 1;
            }
        }
        totals
    }

    fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        let file = self.file;
        let sections = file
            .sections
            .iter()
            .map(|s| SectionJson { name: &s.name, line: s.line, optional: s.is_optional(), links: s.links.len() })
            .collect();
        let links = file
            .links()
            .zip(&self.plan.slots)
            .map(|(link, slot)| {
                let resolved = slot.as_ref().ok().map(|&i| self.plan.urls[i].as_str());
                let mut json = LinkJson {
                    url: &link.link.url,
                    resolved_url: resolved,
                    title: &link.link.title,
                    section: link.section,
                    optional: link.optional,
                    line: link.link.line,
                    outcome: None,
                    status: None,
                    final_url: None,
                    redirected: false,
                    content_type: None,
                    message: None,
                    rule: None,
                    robots_url: None,
                };
                if let Some(results) = self.results {
                    match slot {
                        Ok(index) if *index >= results.len() => {
                            json.message = Some("not requested: past the --max-links cap");
                        }
                        Ok(index) => {
                            let c = &results[*index];
                            json.outcome = Some(c.outcome);
                            json.status = c.status;
                            json.final_url = c.final_url.as_deref();
                            json.redirected = c.redirected;
                            json.content_type = c.content_type.as_deref();
                            json.message = c.message.as_deref();
                            json.rule = c.rule.as_ref();
                            json.robots_url = c.robots_url.as_deref();
                        }
                        Err(reason) => {
                            json.outcome = Some(Outcome::Invalid);
                            json.message = Some(reason.as_str());
                        }
                    }
                }
                json
            })
            .collect();
        let report = CheckJson {
            source: self.source,
            max_links: self.max_links,
            content_type: self.content_type,
            title: file.title.as_deref(),
            summary: file.summary.as_deref(),
            not_llms: file.not_llms,
            sections,
            diagnostics: file.diagnostics.iter().map(Finding::from).collect(),
            links,
            totals: self.totals(),
        };
        serde_json::to_writer_pretty(&mut *out, &report)?;
        out.write_all(b"\n")
    }

    fn write_text(&self, out: &mut impl Write, color: bool) -> io::Result<()> {
        let file = self.file;
        let lines = markdown_lines(self.body);
        for d in &file.diagnostics {
            write_diagnostic(out, &Finding::from(d), self.source, &lines, color)?;
        }
        if let Some(results) = self.results {
            for (link, slot) in file.links().zip(&self.plan.slots) {
                let (outcome, url, detail) = match slot {
                    // Left out by the cap: counted in the summary line.
                    Ok(index) if *index >= results.len() => continue,
                    Ok(index) => {
                        let c = &results[*index];
                        if c.outcome == Outcome::Ok && !c.redirected {
                            continue;
                        }
                        (c.outcome, self.plan.urls[*index].as_str(), c.message.as_deref().unwrap_or(""))
                    }
                    Err(reason) => (Outcome::Invalid, link.link.url.as_str(), reason.as_str()),
                };
                let (paint, reset) = paint(severity(outcome), color);
                write!(out, "{}:{}: {paint}{outcome}{reset}: {url}", self.source, link.link.line)?;
                if detail.is_empty() {
                    writeln!(out)?;
                } else {
                    writeln!(out, " ({detail})")?;
                }
            }
        }
        let t = self.totals();
        let title = file.title.as_deref().map_or_else(|| "no title".to_string(), |t| format!("{t:?}"));
        write!(
            out,
            "{}: {title}, {} section(s), {} link(s); {} error(s), {} warning(s), {} note(s)",
            self.source,
            file.sections.len(),
            t.links,
            t.errors,
            t.warnings,
            t.infos
        )?;
        if self.results.is_some() {
            write!(
                out,
                "; links: {} ok, {} broken, {} not Markdown, {} refused, {} unreachable",
                t.ok, t.broken, t.not_markdown, t.refused, t.unreachable
            )?;
            if t.invalid > 0 {
                write!(out, ", {} invalid", t.invalid)?;
            }
            if t.left_out > 0 {
                write!(out, ", {} left out (--max-links)", t.left_out)?;
            }
        }
        writeln!(out)
    }

    fn exit_code(&self) -> ExitCode {
        let t = self.totals();
        if t.errors > 0 || t.broken > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
    }
}

pub(super) fn check(args: CheckArgs) -> Result<ExitCode, CliError> {
    if is_url(&args.target) {
        return check_url(args);
    }
    let path = Path::new(&args.target);
    let body = read_all(Some(path)).map_err(|err| {
        if looks_like_host(&args.target) && !path.exists() {
            CliError::usage(format!("cannot read llms.txt file `{}`: no such file", args.target))
                .with_hint(format!("to check a site, give its URL: https://{}/", args.target))
        } else {
            err
        }
    })?;
    let source = if args.target == "-" { "<stdin>".to_string() } else { args.target.clone() };
    let file = LlmsTxt::parse(&body);
    let plan = Plan::new(file.links(), None);
    let report = Report {
        source: &source,
        content_type: None,
        body: &body,
        file: &file,
        plan: &plan,
        results: None,
        max_links: None,
    };
    print_report(&report, args.json)
}

/// Whether a missing FILE argument was probably meant as a site
/// (`example.com`), not a file (`llms.txt`, `docs/llms.md`).
fn looks_like_host(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    lower.contains('.')
        && !lower.contains(['/', '\\'])
        && ![".txt", ".md", ".markdown"].iter().any(|ext| lower.ends_with(ext))
}

fn print_report(report: &Report<'_>, json: bool) -> Result<ExitCode, CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if json {
        report.write_json(&mut out)?;
    } else {
        report.write_text(&mut out, use_color())?;
    }
    out.flush()?;
    Ok(report.exit_code())
}

fn check_url(args: CheckArgs) -> Result<ExitCode, CliError> {
    let url = llms_url(&args.target)?;
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    runtime()?.block_on(async move {
        let response = match load_remote(&client, &url, args.json).await? {
            Ok(response) => response,
            Err(code) => return Ok(code),
        };
        let base = Url::parse(&response.final_url).unwrap_or_else(|_| url.as_url().clone());
        let file = LlmsTxt::parse(&response.body);
        let plan = Plan::new(file.links(), Some(&base)).capped(args.cap);
        let results: Option<Vec<LinkCheck>> = if args.no_links {
            None
        } else if plan.urls.is_empty() {
            Some(Vec::new())
        } else {
            plan.note_left_out("links");
            let bar = crate::progress::bar(Some(plan.requested as u64), "links");
            let on_done = {
                let bar = bar.clone();
                move || bar.inc(1)
            };
            let results = client.check_links(plan.to_request(), on_done).await;
            bar.finish_and_clear();
            Some(results)
        };
        if !args.json && file.not_llms == Some(NotLlms::Html) {
            eprintln!(
                "hint: {} is an HTML page; give the URL of the llms.txt file itself \
                 (a site URL such as https://example.com/ means its /llms.txt)",
                response.final_url
            );
        }
        let content_type = response.header("content-type");
        let report = Report {
            source: &response.final_url,
            content_type,
            body: &response.body,
            file: &file,
            plan: &plan,
            max_links: results.as_ref().map(|_| args.cap.max_links),
            results: results.as_deref(),
        };
        print_report(&report, args.json)
    })
}
