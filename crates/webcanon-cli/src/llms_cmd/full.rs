//! `webcanon llms full`: build llms-full.txt from the pages an llms.txt
//! links to.
//!
//! # `webcanon llms full URL [--optional] [--json] [-o FILE] [--max-links N]`
//!
//! Loads the llms.txt as `check` does, then fetches each linked page with the
//! client's fetch (robots.txt respected, SSRF-guarded, HTML converted to
//! Markdown), each distinct URL once, as politely as `check` requests its
//! links; links in `## Optional` are left out unless `--optional`. It writes
//! llms-full.txt: the H1, the summary blockquote and the intro prose of the
//! llms.txt, then each page in llms.txt order, introduced by a `---` rule and
//! a `Source: URL` line; the pages' own headings and links are kept as they
//! are (links inline and images kept, whatever the fetch default) (a code fence a page leaves open is closed, a leading YAML front
//! matter block is dropped). A page that fails is skipped with a `warning:`
//! line on stderr. At most `--max-links` distinct pages (default 1,000),
//! the first in the file's order, are fetched; the rest are left out, said
//! in a note on stderr and in the JSON (`max_links`, `left_out`).
//!
//! With `--json`, one object on stdout:
//!
//! ```text
//! {
//!   "source": "https://example.com/llms.txt", "title": "…" | null,
//!   "pages": [{"url", "title", "section", "optional", "fetched_url", "status",
//!              "ok", "error", "error_kind", "bytes"}],   // error_kind: policy, ssrf, fetch, invalid
//!   "included": 3, "skipped_optional": 2,
//!   "max_links": 1000, "left_out": 0,                  // distinct pages past the cap, not fetched
//!   "output": "llms-full.txt" | null,                 // the -o file
//!   "content": "# …" | null                           // null with -o or when no page was included
//! }
//! ```
//!
//! Exit status: 0 when at least one page was included; 5 when none was; 2,
//! 3, 4 or 5 as for `check` when the llms.txt itself cannot be loaded.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use url::Url;
use webcanon_client::error::Error;
use webcanon_client::markdown::ContentShape;
use webcanon_client::{Client, FetchResult};
use webcanon_core::llms::{LinkRef, LlmsTxt};

use crate::client_args::{EXIT_FETCH, runtime};
use crate::error::CliError;
use webcanon_client::{MAX_IN_FLIGHT, run_polite};

use super::args::FullArgs;
use super::plan::{Plan, llms_url, load_remote};

#[derive(Serialize)]
struct FullJson<'a> {
    source: &'a str,
    title: Option<&'a str>,
    pages: Vec<PageJson<'a>>,
    included: usize,
    skipped_optional: usize,
    max_links: usize,
    left_out: usize,
    output: Option<String>,
    content: Option<&'a str>,
}

#[derive(Serialize)]
struct PageJson<'a> {
    url: String,
    title: &'a str,
    section: Option<&'a str>,
    optional: bool,
    fetched_url: Option<String>,
    status: Option<u16>,
    ok: bool,
    error: Option<String>,
    error_kind: Option<&'static str>,
    bytes: usize,
}

/// One link of the llms.txt to include: the index of its URL in the plan,
/// or why it has none.
type Entry<'a> = (LinkRef<'a>, Result<usize, String>);

pub(super) fn full(args: FullArgs) -> Result<ExitCode, CliError> {
    let url = llms_url(&args.url)?;
    let client = args
        .client
        .builder()?
        .max_bytes(args.max_bytes)
        .content_shape(ContentShape::AS_CONVERTED)
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;
    runtime()?.block_on(async move {
        let response = match load_remote(&client, &url, args.json).await? {
            Ok(response) => response,
            Err(code) => return Ok(code),
        };
        let source = response.final_url.clone();
        let base = Url::parse(&source).unwrap_or_else(|_| url.as_url().clone());
        let file = LlmsTxt::parse(&response.body);
        let all: Vec<LinkRef<'_>> = file.links().collect();
        let skipped_optional = if args.optional { 0 } else { all.iter().filter(|l| l.optional).count() };
        let chosen: Vec<LinkRef<'_>> = all.iter().copied().filter(|l| args.optional || !l.optional).collect();
        let plan = Plan::new(chosen.iter().copied(), Some(&base)).capped(args.cap);
        let entries = distinct_entries(&chosen, &plan);
        plan.note_left_out("pages");
        let results = fetch_pages(&client, plan.to_request()).await;
        let (pages, blocks) = judge_pages(&entries, &plan, &results);
        for page in pages.iter().filter(|p| !p.ok) {
            eprintln!("warning: skipped {}: {}", page.url, page.error.as_deref().unwrap_or("failed"));
        }
        if skipped_optional > 0 {
            eprintln!("note: left out {skipped_optional} link(s) in `## Optional`; `--optional` includes them");
        }

        let included = blocks.len();
        let content = (included > 0).then(|| webcanon_core::llms::full::assemble(&file, &blocks));
        if let (Some(content), Some(path)) = (&content, &args.output) {
            write_atomically(path, content.as_bytes())?;
        }
        let report = FullJson {
            source: &source,
            title: file.title.as_deref(),
            pages,
            included,
            skipped_optional,
            max_links: args.cap.max_links,
            left_out: plan.left_out(),
            output: args.output.as_ref().filter(|_| content.is_some()).map(|p| p.display().to_string()),
            content: content.as_deref().filter(|_| args.output.is_none()),
        };
        print_output(&report, args.json)?;

        if included == 0 {
            explain_nothing_included(&source, &file, chosen.is_empty(), skipped_optional);
            return Ok(ExitCode::from(EXIT_FETCH));
        }
        let bytes = content.as_ref().map_or(0, String::len);
        let pages_total = entries.len();
        match &args.output {
            Some(path) => {
                crate::output::note!(
                    "wrote {} ({included} of {pages_total} page(s), {bytes} bytes) from {source}",
                    path.display()
                )
            }
            None => {
                crate::output::note!("llms-full: {included} of {pages_total} page(s), {bytes} bytes, from {source}")
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Each distinct URL to fetch once, in llms.txt order; unresolvable links
/// are entries too (pages that failed); URLs past the cap are not.
fn distinct_entries<'a>(chosen: &[LinkRef<'a>], plan: &Plan) -> Vec<Entry<'a>> {
    let mut first_of: HashMap<usize, usize> = HashMap::new();
    let mut entries: Vec<Entry<'a>> = Vec::new();
    for (link, slot) in chosen.iter().zip(&plan.slots) {
        match slot {
            Ok(index) if *index >= plan.requested => {}
            Ok(index) => {
                if first_of.insert(*index, entries.len()).is_none() {
                    entries.push((*link, Ok(*index)));
                }
            }
            Err(reason) => entries.push((*link, Err(reason.clone()))),
        }
    }
    entries
}

/// Fetches every page with the client's fetch, politely, with a progress bar.
async fn fetch_pages(client: &Client, urls: &[Url]) -> Vec<Result<FetchResult, Error>> {
    if urls.is_empty() {
        return Vec::new();
    }
    let bar = crate::progress::bar(Some(urls.len() as u64), "pages");
    let client = client.clone();
    let on_done = {
        let bar = bar.clone();
        move || bar.inc(1)
    };
    let results = run_polite(urls, MAX_IN_FLIGHT, on_done, move |page| {
        let client = client.clone();
        async move { client.fetch(&page).await }
    })
    .await;
    bar.finish_and_clear();
    results
}

/// What each entry gave, and the pages to include as (URL, Markdown).
fn judge_pages<'a>(
    entries: &[Entry<'a>],
    plan: &'a Plan,
    results: &'a [Result<FetchResult, Error>],
) -> (Vec<PageJson<'a>>, Vec<(&'a str, &'a str)>) {
    let mut pages = Vec::with_capacity(entries.len());
    let mut blocks: Vec<(&str, &str)> = Vec::new();
    for (link, slot) in entries {
        let mut page = PageJson {
            url: link.link.url.clone(),
            title: link.link.title.as_str(),
            section: link.section,
            optional: link.optional,
            fetched_url: None,
            status: None,
            ok: false,
            error: None,
            error_kind: None,
            bytes: 0,
        };
        let index = match slot {
            Err(reason) => {
                page.error = Some(reason.clone());
                page.error_kind = Some("invalid");
                pages.push(page);
                continue;
            }
            Ok(index) => *index,
        };
        page.url = plan.urls[index].to_string();
        match &results[index] {
            Ok(result) => {
                page.fetched_url = Some(result.final_url.clone());
                page.status = Some(result.status);
                if result.content.trim().is_empty() {
                    page.error = Some("the page has no text content".into());
                    page.error_kind = Some("fetch");
                } else {
                    page.ok = true;
                    page.bytes = result.content.len();
                    blocks.push((plan.urls[index].as_str(), &result.content));
                }
            }
            Err(err) => {
                page.error = Some(err.to_string());
                page.error_kind = Some(err.kind());
                if let Error::Fetch(fetch) = err {
                    page.status = fetch.status();
                }
            }
        }
        pages.push(page);
    }
    (pages, blocks)
}

/// The JSON report, or the assembled file when it goes to stdout.
fn print_output(report: &FullJson<'_>, json: bool) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if json {
        serde_json::to_writer_pretty(&mut out, report).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else if let Some(content) = report.content {
        out.write_all(content.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// Says on stderr why no page was included, and what to try.
fn explain_nothing_included(source: &str, file: &LlmsTxt, none_chosen: bool, skipped_optional: usize) {
    let only_optional = none_chosen && skipped_optional > 0;
    let (why, hint) = match file.not_llms {
        Some(kind) => (
            format!("{source} is not an llms.txt file ({})", kind.describe()),
            Some("give the URL of the llms.txt file itself"),
        ),
        None if only_optional => (
            format!("{source} lists links only in `## Optional`"),
            Some("`--optional` includes the links of `## Optional`"),
        ),
        None if none_chosen => (format!("{source} lists no links"), None),
        None => (
            format!("no page listed in {source} could be included"),
            Some("the warnings above say why each page was skipped"),
        ),
    };
    eprintln!("error: {why}");
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
}

/// Writes `path` through a temporary file beside it, so a failed run never
/// leaves half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |err: io::Error| {
        CliError::usage(format!("cannot write `{}`: {err}", path.display()))
            .with_hint("check that the directory exists and is writable")
    };
    let name = path.file_name().map_or_else(|| "llms-full.txt".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, bytes).map_err(fail)?;
    std::fs::rename(&temp, path).map_err(|err| {
        let _ = std::fs::remove_file(&temp);
        fail(err)
    })
}
