//! `webcanon map`: the URLs of a site an agent may fetch, from its
//! sitemaps, llms.txt and start page, each with its robots verdict.
//!
//! Records go to stdout as they are decided: JSON lines with `--json`, else
//! a table of verdict, rule and URL. The totals are a note on stderr.

use std::io::{self, BufWriter, Write};
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::ExitCode;

use clap::Args;
use url::Url;
use webcanon_crawl::map::{
    DEFAULT_MAX_LINKS, MapConfig, MapError, MapRecord, MapSource, MapSources, MapSummary, map_site,
};
use webcanon_crawl::{Scope, ScopeConfig};

use crate::client_args::{ClientArgs, EXIT_FETCH, report_error, runtime};
use crate::error::CliError;

const EXIT_STATUS_HELP: &str = "Exit status: 0 URLs were found; 2 bad usage or invalid URL; 4 the site is refused by \
the SSRF guard; 5 no URL was found (no sitemap, llms.txt or link lists one in scope).";

/// Arguments of `webcanon map`.
#[derive(Debug, Args)]
#[command(after_help = EXIT_STATUS_HELP)]
pub struct MapArgs {
    /// Any URL of the site: its origin's robots.txt, sitemaps and llms.txt are read, and this page for its links.
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    client: ClientArgs,
    /// Which URLs are kept: the start URL's origin, its registrable domain, or its origin under its folder.
    #[arg(long, value_name = "SCOPE", default_value = "origin", value_parser = ["origin", "domain", "prefix"])]
    scope: String,
    /// Keep only URLs whose path matches this robots.txt pattern (`/docs/`, `/*.html$`); repeatable.
    #[arg(long, value_name = "PATTERN")]
    include: Vec<String>,
    /// Leave out URLs whose path matches this robots.txt pattern; repeatable.
    #[arg(long, value_name = "PATTERN")]
    exclude: Vec<String>,
    /// The sources read, comma-separated.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "sitemap,llms_txt,link",
          value_parser = ["sitemap", "llms_txt", "link"])]
    sources: Vec<String>,
    /// Stop after N URLs.
    #[arg(long, value_name = "N")]
    limit: Option<NonZeroUsize>,
    /// The most links of the start page read.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LINKS)]
    max_links: usize,
    /// One JSON object per line: {"url", "allowed", "verdict", "recommendation", "rule", "lastmod", "sources"}.
    #[arg(long)]
    json: bool,
}

impl MapArgs {
    fn config(&self) -> Result<MapConfig, CliError> {
        let scope = self.scope.parse::<Scope>().map_err(|e| CliError::usage(e.to_string()))?;
        let scope =
            ScopeConfig { scope, include: self.include.clone(), exclude: self.exclude.clone(), max_depth: None };
        scope.validate().map_err(|e| CliError::usage(e.to_string()))?;
        let named = |source: MapSource| self.sources.iter().any(|s| s == source.as_str());
        let mut config = MapConfig {
            scope,
            sources: MapSources {
                sitemaps: named(MapSource::Sitemap),
                llms_txt: named(MapSource::LlmsTxt),
                links: named(MapSource::Link),
            },
            max_links: self.max_links,
            ..MapConfig::default()
        };
        if let Some(limit) = self.limit {
            config.max_urls = limit.get();
        }
        Ok(config)
    }
}

/// Runs `webcanon map`.
pub fn run(args: MapArgs) -> Result<ExitCode, CliError> {
    let start = Url::parse(args.url.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| CliError::usage(format!("`{}` is not an absolute http(s) URL", args.url)))?;
    let config = args.config()?;
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    let runtime = runtime()?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut write_error = None;
    let outcome = runtime.block_on(map_site(&client, &start, &config, |record| {
        match write_record(&mut out, &record, args.json) {
            Ok(()) => ControlFlow::Continue(()),
            Err(error) => {
                write_error = Some(error);
                ControlFlow::Break(())
            }
        }
    }));
    let summary = match outcome {
        Ok(summary) => summary,
        Err(MapError::Client(error)) => return report_error(&error, &args.url, args.json),
        Err(other) => return Err(CliError::usage(other.to_string())),
    };
    match write_error.map_or_else(|| out.flush(), Err) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        result => result?,
    }
    crate::output::note!("{}", describe(&summary));
    if summary.urls > 0 {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("error: no URL of {} was found in scope", args.url);
    eprintln!("hint: the note above counts what each source gave; `--scope domain` keeps the site's other hosts");
    Ok(ExitCode::from(EXIT_FETCH))
}

/// One record: a JSON line, or `verdict  rule  url` (the rule `-` when
/// none matched).
fn write_record(out: &mut impl Write, record: &MapRecord, json: bool) -> io::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, record)?;
        return out.write_all(b"\n");
    }
    let rule = record.rule.as_ref().map_or_else(|| "-".to_string(), |rule| format!("{:?}", rule.pattern));
    writeln!(out, "{:<22} {:<24} {}", record.verdict.as_str(), rule, record.url)
}

/// The closing note: what each source gave and what was left out.
fn describe(summary: &MapSummary) -> String {
    let mut text = format!(
        "{} URLs ({} allowed); sitemaps: {} read, {} skipped; llms.txt: {}; start page links: {}; \
         left out: {} out of scope, {} duplicates, {} invalid, {} undecided",
        summary.urls,
        summary.allowed,
        summary.sitemaps_read,
        summary.sitemaps_skipped,
        if summary.llms_txt { "read" } else { "none" },
        summary.links_read,
        summary.out_of_scope,
        summary.duplicates,
        summary.invalid,
        summary.undecided,
    );
    if summary.stopped {
        text.push_str(" (stopped at --limit)");
    }
    text
}
