//! `webcanon crawl`: a site, breadth first, one record per URL, through
//! the same policy path as `fetch`. The work is done by `webcanon_crawl`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use indicatif::ProgressBar;
use url::Url;
use webcanon_client::browser::RenderMode;
use webcanon_client::markdown::{ContentFormat, ContentShape, ImageStyle, LinkStyle};
use webcanon_client::{PacingConfig, PageRecord};
use webcanon_crawl::frontier::Frontier;
use webcanon_crawl::{
    CrawlConfig, CrawlLimits, CrawlObserver, CrawlSummary, Crawler, JsonLines, JsonLinesFile, MarkdownFolder,
    RecordSink, Scope, ScopeConfig, SeedSources,
};

use crate::client_args::{ClientArgs, runtime};
use crate::error::CliError;

/// The most start URLs a seed file may hold (a line each, at most 2,048
/// bytes); a larger list is a dataset for `batch`.
const MAX_SEEDS: usize = 100_000;
/// The largest seed file read, in bytes.
const MAX_SEED_FILE_BYTES: u64 = 256 << 20;

/// Arguments of `webcanon crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Start URLs (http or https).
    #[arg(value_name = "URL")]
    urls: Vec<String>,
    /// A file of start URLs, one a line (`#` starts a comment).
    #[arg(long, value_name = "FILE")]
    seeds: Option<PathBuf>,
    /// Where the records go: `FILE.jsonl`, or `DIR/` for a folder of
    /// Markdown files mirroring the sites' paths with `index.jsonl`.
    /// Without it, JSON lines on stdout (a crawl that cannot resume).
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
    /// The most body bytes received, all pages together.
    #[arg(long, value_name = "BYTES")]
    max_bytes: Option<u64>,
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
    /// Where the frontier lives (default: OUT plus `.frontier`): run the
    /// same command again to resume an interrupted crawl.
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// Do not look for Markdown copies of pages (llms.txt, rel="alternate").
    #[arg(long)]
    no_alternatives: bool,
    /// Render pages in headless Chromium: on, auto (pages with little text
    /// but scripts) or off.
    #[arg(long, value_name = "on|auto|off", default_value = "off", value_parser = str::parse::<RenderMode>)]
    render: RenderMode,
    /// The content as Markdown or as plain text.
    #[arg(long, value_name = "markdown|text", default_value = "markdown", value_parser = str::parse::<ContentFormat>)]
    format: ContentFormat,
    /// Print the summary as one JSON object on stdout (only with `-o`).
    #[arg(long, requires = "output")]
    json: bool,
    #[command(flatten)]
    client: ClientArgs,
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
    let mut texts = args.urls.clone();
    if let Some(file) = &args.seeds {
        texts.extend(read_seed_file(file)?);
    }
    if texts.is_empty() {
        return Err(CliError::usage("no start URL: give URLs or --seeds FILE"));
    }
    let starts = texts
        .iter()
        .map(|t| Url::parse(t.trim()).map_err(|e| CliError::usage(format!("start URL {t}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let scope = ScopeConfig {
        scope: args.scope,
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        max_depth: args.max_depth,
    };
    scope.validate().map_err(|e| CliError::usage(e.to_string()))?;
    let client = args
        .client
        .builder()?
        .alternatives(!args.no_alternatives)
        .content_shape(ContentShape { format: args.format, links: LinkStyle::Inline, images: ImageStyle::Drop })
        .render(args.render)
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let config = CrawlConfig {
        scope,
        seeds: args.seed,
        limits: CrawlLimits {
            max_pages: args.max_pages,
            max_bytes: args.max_bytes,
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
    let summary = runtime()?
        .block_on(crawler.run(&starts, &mut frontier, sink.as_mut(), &mut bar))
        .map_err(|e| CliError::new(1, e.to_string()).with_hint("run the same command again to resume the crawl"))?;
    bar.0.finish_and_clear();
    report(&summary, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The frontier and the sink for `output`: a file or a folder with its
/// frontier beside it (resumable), or stdout with a frontier in memory.
fn open_output(output: Option<&Path>, state: Option<&Path>) -> Result<(Frontier, Box<dyn RecordSink>), CliError> {
    let fail = |e: &dyn std::fmt::Display| CliError::new(1, e.to_string());
    let Some(output) = output else {
        let frontier = match state {
            Some(state) => Frontier::open(state).map_err(|e| fail(&e))?,
            None => Frontier::in_memory().map_err(|e| fail(&e))?,
        };
        return Ok((frontier, Box::new(JsonLines::new(io::BufWriter::new(io::stdout())))));
    };
    let folder = output.as_os_str().to_string_lossy().ends_with('/') || output.is_dir();
    let default_state =
        if folder { output.join(".frontier") } else { PathBuf::from(format!("{}.frontier", output.display())) };
    let sink: Box<dyn RecordSink> = if folder {
        Box::new(MarkdownFolder::open(output).map_err(|e| fail(&format!("{}: {e}", output.display())))?)
    } else if output.extension().is_some_and(|e| e == "jsonl") {
        Box::new(JsonLinesFile::open(output).map_err(|e| fail(&format!("{}: {e}", output.display())))?)
    } else {
        return Err(CliError::usage(format!("{}: the output is FILE.jsonl or DIR/", output.display())));
    };
    let frontier = Frontier::open(state.unwrap_or(&default_state)).map_err(|e| fail(&e))?;
    Ok((frontier, sink))
}

/// The start URLs of a seed file: one a line, blank lines and `#`
/// comments skipped, at most [`MAX_SEEDS`], the file at most
/// [`MAX_SEED_FILE_BYTES`] (read a line at a time, each line cut at
/// 4 KiB).
fn read_seed_file(path: &Path) -> Result<Vec<String>, CliError> {
    use std::io::BufRead;
    let unreadable = |e: io::Error| CliError::usage(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    if file.metadata().map_err(unreadable)?.len() > MAX_SEED_FILE_BYTES {
        return Err(CliError::usage(format!("{}: larger than {} MiB", path.display(), MAX_SEED_FILE_BYTES >> 20)));
    }
    let mut seeds = Vec::new();
    let mut reader = io::BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = io::Read::take(&mut reader, 4096).read_until(b'\n', &mut line).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        if !line.ends_with(b"\n") && read == 4096 {
            return Err(CliError::usage(format!("{}: a line longer than 4 KiB", path.display())));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if seeds.len() == MAX_SEEDS {
            return Err(CliError::usage(format!("{}: more than {MAX_SEEDS} start URLs", path.display())));
        }
        seeds.push(text.to_string());
    }
    Ok(seeds)
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
