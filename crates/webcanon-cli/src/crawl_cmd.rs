//! `webcanon crawl`: a site, breadth first, one record per URL, through
//! the same policy path as `fetch`. The work is done by `webcanon_crawl`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use indicatif::ProgressBar;
use webcanon_client::{PacingConfig, PageRecord};
use webcanon_crawl::frontier::Frontier;
use webcanon_crawl::sink::ParquetFile;
use webcanon_crawl::{
    CrawlConfig, CrawlLimits, CrawlObserver, CrawlSummary, Crawler, JsonLines, JsonLinesFile, MarkdownFolder,
    RecordSink, Scope, ScopeConfig, SeedSources, read_seed_file,
};

use crate::client_args::{ClientArgs, runtime};
use crate::error::CliError;
use crate::page_args::PageArgs;

/// Arguments of `webcanon crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Start URLs (http or https).
    #[arg(value_name = "URL")]
    urls: Vec<String>,
    /// A file of start URLs, one a line (`#` starts a comment; at most
    /// 100,000 URLs, lines of at most 4 KiB).
    #[arg(long, value_name = "FILE")]
    seeds: Option<PathBuf>,
    /// Where the records go: `FILE.jsonl`, `FILE.parquet` (written as
    /// parts while the crawl goes, merged at its end), or `DIR/` for a
    /// folder of Markdown files mirroring the sites' paths with
    /// `index.jsonl`. Without it, JSON lines on stdout (a crawl that
    /// cannot resume).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// How far from the start URLs: their origins, their registrable
    /// domains, or their origins under each start URL's folder.
    #[arg(long, value_name = "origin|domain|prefix", default_value = "origin", value_parser = str::parse::<Scope>)]
    scope: Scope,
    /// Only URLs whose path matches this robots.txt-style pattern (`*`,
    /// `$`); repeatable.
    #[arg(long, value_name = "PATTERN")]
    include: Vec<String>,
    /// No URL whose path matches this robots.txt-style pattern; repeatable.
    #[arg(long, value_name = "PATTERN")]
    exclude: Vec<String>,
    /// The deepest link depth followed (start URLs are 0).
    #[arg(long, value_name = "N")]
    max_depth: Option<u32>,
    /// The most pages requested.
    #[arg(long, value_name = "N")]
    max_pages: Option<u64>,
    /// The most body bytes received, all pages together (`--max-bytes`
    /// is the limit of one page, as in `fetch`).
    #[arg(long, value_name = "BYTES")]
    max_total_bytes: Option<u64>,
    /// The most pages requested from one host.
    #[arg(long, value_name = "N")]
    max_pages_per_host: Option<u64>,
    /// Hosts fetched from at once (one request at a time per host).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    concurrency: u32,
    /// Where the crawl starts: `start` (the URLs given), `sitemap`, `llms`
    /// (comma separated).
    #[arg(long, value_name = "SOURCES", default_value = "start,sitemap,llms", value_parser = SeedSources::parse)]
    seed: SeedSources,
    /// Do not ask each host for a random path to learn its soft-404 page.
    #[arg(long)]
    no_soft_404_probe: bool,
    /// Where the frontier lives (default: OUT plus `.frontier`; a Parquet
    /// output keeps its parts beside it, in `STATE.parts/`): run the same
    /// command again to resume an interrupted crawl.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// Print the summary as one JSON object on stdout (only with `-o`).
    #[arg(long, requires = "output")]
    json: bool,
    #[command(flatten)]
    client: ClientArgs,
    #[command(flatten, next_help_heading = "Page options (as in fetch)")]
    page: PageArgs,
}

/// A progress bar counting records, its message the fetched pages.
struct Bar(ProgressBar);

impl CrawlObserver for Bar {
    fn record(&mut self, _: &PageRecord, summary: &CrawlSummary) {
        self.0.set_position(summary.records);
        self.0.set_message(format!("{} pages fetched, {} bytes", summary.fetched, summary.bytes));
    }
}

/// Runs `webcanon crawl`.
pub fn run(args: CrawlArgs) -> Result<ExitCode, CliError> {
    let mut starts = args
        .urls
        .iter()
        .map(|t| webcanon_client::web_url::parse(t.trim()).map_err(|e| CliError::usage(format!("start URL {t}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(file) = &args.seeds {
        starts.extend(read_seed_file(file).map_err(|e| CliError::usage(e.to_string()))?);
    }
    if starts.is_empty() {
        return Err(CliError::usage("no start URL: give URLs or --seeds FILE"));
    }
    let scope = ScopeConfig {
        scope: args.scope,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        max_depth: args.max_depth,
    };
    scope.validate().map_err(|e| CliError::usage(e.to_string()))?;
    let client = args.page.apply(args.client.builder()?).build().map_err(|e| CliError::usage(e.to_string()))?;
    let config = CrawlConfig {
        scope,
        seeds: args.seed,
        limits: CrawlLimits {
            max_pages: args.max_pages,
            max_bytes: args.max_total_bytes,
            max_pages_per_host: args.max_pages_per_host,
            ..CrawlLimits::default()
        },
        concurrency: args.concurrency as usize,
        pacing: PacingConfig {
            min_interval: Duration::from_secs_f64(args.client.min_interval.max(0.0)),
            max_crawl_delay: Duration::from_secs_f64(args.client.max_crawl_delay.max(0.0)),
        },
        probe_soft_404: !args.no_soft_404_probe,
    };
    let options = *client.fetch_options();
    let crawler = Crawler::new(client, options, config);
    let (mut frontier, mut sink) = open_output(args.output.as_deref(), args.state.as_deref())?;
    let mut bar = Bar(crate::progress::bar(None, "records"));
    let resume = |e: &dyn std::fmt::Display| {
        CliError::new(1, e.to_string()).with_hint("run the same command again to resume the crawl")
    };
    let summary =
        runtime()?.block_on(crawler.run(&starts, &mut frontier, sink.as_mut(), &mut bar)).map_err(|e| resume(&e))?;
    bar.0.finish_and_clear();
    sink.finish().map_err(|e| resume(&e))?;
    report(&summary, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Where the records go: a sink that is done when the crawl is, or a
/// Parquet file, whose parts are merged at the end.
enum Output {
    Streamed(Box<dyn RecordSink>),
    Parquet(ParquetFile),
}

impl Output {
    fn as_mut(&mut self) -> &mut dyn RecordSink {
        match self {
            Output::Streamed(sink) => sink.as_mut(),
            Output::Parquet(file) => file,
        }
    }

    /// Ends the output once the crawl has.
    fn finish(self) -> io::Result<()> {
        match self {
            Output::Streamed(_) => Ok(()),
            Output::Parquet(file) => file.finish(),
        }
    }
}

/// The frontier and the sink for `output`: a file or a folder with its
/// frontier beside it (resumable), or stdout with a frontier in memory.
fn open_output(output: Option<&Path>, state: Option<&Path>) -> Result<(Frontier, Output), CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::new(1, e.to_string());
    let Some(output) = output else {
        let frontier = match state {
            Some(state) => Frontier::open(state).map_err(|e| fail(&e))?,
            None => Frontier::in_memory().map_err(|e| fail(&e))?,
        };
        return Ok((frontier, Output::Streamed(Box::new(JsonLines::new(io::BufWriter::new(io::stdout()))))));
    };
    let folder = output.as_os_str().to_string_lossy().ends_with('/') || output.is_dir();
    let default_state =
        if folder { output.join(".frontier") } else { PathBuf::from(format!("{}.frontier", output.display())) };
    let state = state.unwrap_or(&default_state);
    let named = |e: io::Error| fail(&format!("{}: {e}", output.display()));
    let extension = output.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    let sink = if folder {
        Output::Streamed(Box::new(MarkdownFolder::open(output).map_err(named)?))
    } else if extension.as_deref() == Some("jsonl") {
        Output::Streamed(Box::new(JsonLinesFile::open(output).map_err(named)?))
    } else if extension.as_deref() == Some("parquet") {
        Output::Parquet(ParquetFile::open(output, &ParquetFile::state_dir_beside(state)).map_err(named)?)
    } else {
        return Err(CliError::usage(format!("{}: the output is FILE.jsonl, FILE.parquet or DIR/", output.display())));
    };
    let frontier = Frontier::open(state).map_err(|e| fail(&e))?;
    Ok((frontier, sink))
}

fn report(summary: &CrawlSummary, json: bool) -> Result<(), CliError> {
    if json {
        let value = serde_json::json!({
            "records": summary.records,
            "requested": summary.requested,
            "fetched": summary.fetched,
            "bytes": summary.bytes,
            "not_fetched": summary.not_fetched,
        });
        let mut stdout = io::stdout().lock();
        serde_json::to_writer(&mut stdout, &value).map_err(io::Error::from)?;
        writeln!(stdout)?;
        return Ok(());
    }
    if crate::output::quiet() {
        return Ok(());
    }
    let skipped: Vec<String> = summary.not_fetched.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    let skipped = if skipped.is_empty() { String::new() } else { format!("; not fetched: {}", skipped.join(", ")) };
    eprintln!(
        "crawled {} records: {} pages fetched of {} requested, {} bytes{skipped}",
        summary.records, summary.fetched, summary.requested, summary.bytes
    );
    Ok(())
}
