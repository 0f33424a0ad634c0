//! `webcanon sitemap`: discover a site's URLs from its sitemaps.
//!
//! URLs go to stdout as they are found (one per line, or JSON lines);
//! skipped sitemaps and parser diagnostics are `warning:` lines on stderr
//! and never stop the run.

use std::io::{self, BufWriter, StdoutLock, Write};
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::ExitCode;

use clap::Args;
use indicatif::ProgressBar;
use serde::Serialize;
use webcanon_client::sitemap_discovery::{
    DEFAULT_MAX_DEPTH, DEFAULT_MAX_SITEMAPS, DiscoveryConfig, DiscoveryEnd, DiscoveryEvent, DiscoverySummary, FoundUrl,
    SitemapRead, SitemapSkipReason, SkippedSitemap,
};

use crate::client_args::{ClientArgs, EXIT_FETCH, report_error, runtime};
use crate::error::CliError;
use crate::progress;

/// Exit status when no URL was found: no sitemap could be read, or those
/// read list none.
pub const EXIT_NO_URLS: u8 = EXIT_FETCH;

const EXIT_STATUS_HELP: &str = "Exit status: 0 URLs were found; 2 bad usage or invalid URL; 4 the site is refused by \
the SSRF guard; 5 no URL was found (no sitemap could be read, or they list none).";

/// Arguments of `webcanon sitemap`.
#[derive(Debug, Args)]
#[command(after_help = EXIT_STATUS_HELP)]
pub struct SitemapArgs {
    /// Any URL of the site: its origin's robots.txt `Sitemap:` lines and /sitemap.xml are read.
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    client: ClientArgs,
    /// Levels of sitemaps followed below the roots (what an index lists is level 1).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DEPTH)]
    max_depth: usize,
    /// Sitemaps requested at most; the rest are skipped with a warning.
    #[arg(long, value_name = "N", default_value_t = NonZeroUsize::new(DEFAULT_MAX_SITEMAPS).expect("the default is not zero"))]
    max_sitemaps: NonZeroUsize,
    /// Stop after N URLs.
    #[arg(long, value_name = "N")]
    limit: Option<NonZeroUsize>,
    /// One JSON object per line: {"url", "lastmod", "sitemap"} (lastmod in W3C form, or null).
    #[arg(long)]
    json: bool,
}

impl SitemapArgs {
    fn config(&self) -> DiscoveryConfig {
        let config = DiscoveryConfig::default().max_depth(self.max_depth).max_sitemaps(self.max_sitemaps.get());
        match self.limit {
            Some(limit) => config.max_urls(limit.get()),
            None => config,
        }
    }
}

/// Runs `webcanon sitemap`.
pub fn run(args: SitemapArgs) -> Result<ExitCode, CliError> {
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    let config = args.config();
    let runtime = runtime()?;
    let bar = progress::bar(args.limit.map(|n| n.get() as u64), "URLs");
    let mut printer = Printer::new(args.json, &bar);
    let outcome = runtime.block_on(client.discover_sitemaps(&args.url, &config, |event| printer.on_event(event)));
    bar.finish_and_clear();
    let summary = match outcome {
        Ok(summary) => summary,
        Err(err) => return report_error(&err, &args.url, args.json),
    };
    match printer.finish(&args) {
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        result => result?,
    }
    crate::output::note!("{}", describe(&summary, &args));
    if summary.urls > 0 {
        return Ok(ExitCode::SUCCESS);
    }
    if summary.sitemaps_read == 0 {
        eprintln!("error: no sitemap could be read for {}", args.url);
        eprintln!("hint: the warnings above say why each one was skipped");
    } else {
        eprintln!("error: the sitemaps of {} list no URLs", args.url);
    }
    Ok(ExitCode::from(EXIT_NO_URLS))
}

/// The closing line on stderr: what was read, found and skipped.
fn describe(summary: &DiscoverySummary, args: &SitemapArgs) -> String {
    let mut text = format!(
        "sitemaps: {} read, {} skipped; {} URLs; {} diagnostics",
        summary.sitemaps_read, summary.skipped, summary.urls, summary.diagnostics
    );
    if summary.end == DiscoveryEnd::UrlLimit
        && let Some(limit) = args.limit
    {
        text.push_str(&format!(" (stopped at --limit {limit})"));
    }
    text
}

/// One line of `--json` output.
#[derive(Serialize)]
struct UrlLine<'a> {
    url: &'a str,
    lastmod: Option<String>,
    sitemap: &'a str,
}

/// Sitemaps left out by a limit: reported as one line at the end, not one each.
#[derive(Default)]
struct LimitedSitemaps {
    count: usize,
    first: Option<String>,
}

impl LimitedSitemaps {
    fn add(&mut self, url: String) {
        self.count += 1;
        self.first.get_or_insert(url);
    }

    fn warn(&self, why: &str) {
        if let Some(first) = &self.first {
            eprintln!("warning: {} sitemaps not read: {why} (the first: {first})", self.count);
        }
    }
}

/// Turns discovery events into stdout lines, stderr warnings and progress.
struct Printer<'b> {
    out: BufWriter<StdoutLock<'static>>,
    json: bool,
    bar: &'b ProgressBar,
    too_deep: LimitedSitemaps,
    too_many: LimitedSitemaps,
    /// The first write error; the run stops at it.
    write_error: Option<io::Error>,
}

impl<'b> Printer<'b> {
    fn new(json: bool, bar: &'b ProgressBar) -> Self {
        Printer {
            out: BufWriter::new(io::stdout().lock()),
            json,
            bar,
            too_deep: LimitedSitemaps::default(),
            too_many: LimitedSitemaps::default(),
            write_error: None,
        }
    }

    fn on_event(&mut self, event: DiscoveryEvent) -> ControlFlow<()> {
        match event {
            DiscoveryEvent::SitemapStarted(sitemap) => self.bar.set_message(sitemap.url),
            DiscoveryEvent::UrlFound(found) => {
                self.bar.inc(1);
                if let Err(err) = self.write_url(&found) {
                    self.write_error = Some(err);
                    return ControlFlow::Break(());
                }
            }
            DiscoveryEvent::SitemapFinished(read) => self.warn_diagnostics(&read),
            DiscoveryEvent::SitemapSkipped(skipped) => self.warn_skipped(skipped),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn write_url(&mut self, found: &FoundUrl) -> io::Result<()> {
        if self.json {
            let line =
                UrlLine { url: &found.url, lastmod: found.lastmod.map(|d| d.to_string()), sitemap: &found.sitemap };
            serde_json::to_writer(&mut self.out, &line)?;
            self.out.write_all(b"\n")
        } else {
            writeln!(self.out, "{}", found.url)
        }
    }

    fn warn_diagnostics(&self, read: &SitemapRead) {
        if read.diagnostics.is_empty() {
            return;
        }
        self.bar.suspend(|| {
            for d in &read.diagnostics {
                let line = d.line.map(|line| format!(":{line}")).unwrap_or_default();
                eprintln!("warning: {}{line}: {} ({} {})", read.sitemap.url, d.message, d.code, d.code.name());
            }
        });
    }

    fn warn_skipped(&mut self, skipped: SkippedSitemap) {
        match skipped.reason {
            SitemapSkipReason::DepthLimit => self.too_deep.add(skipped.sitemap.url),
            SitemapSkipReason::CountLimit => self.too_many.add(skipped.sitemap.url),
            reason => self.bar.suspend(|| {
                eprintln!("warning: sitemap {} skipped ({}): {reason}", skipped.sitemap.url, reason.code());
            }),
        }
    }

    /// Flushes stdout and reports the sitemaps left out by the limits.
    fn finish(mut self, args: &SitemapArgs) -> io::Result<()> {
        if let Some(err) = self.write_error.take() {
            return Err(err);
        }
        self.out.flush()?;
        self.too_deep.warn(&format!("deeper than --max-depth {}", args.max_depth));
        self.too_many.warn(&format!("past --max-sitemaps {}", args.max_sitemaps));
        Ok(())
    }
}
