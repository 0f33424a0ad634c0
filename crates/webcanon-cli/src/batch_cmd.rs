//! `webcanon batch`: robots verdicts for a dataset of URLs, in two passes
//! (a polite robots fetch pass writing a snapshot, then a verdict pass),
//! sharded and resumable. The work is done by `webcanon_batch`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Args;
use clap::builder::TypedValueParser;
use indicatif::ProgressBar;
use webcanon_batch::origin::Shard;
use webcanon_batch::page_records::PageRecordWriter;
use webcanon_batch::run::{BatchConfig, BatchSummary, Pass, Progress};
use webcanon_batch::{BatchError, FailureKind, input, run};

use crate::client_args::ClientArgs;
use crate::error::CliError;
use crate::page_args::PageArgs;

/// Exit status when the run failed (writing its output, its snapshot or its
/// state); the same command resumes it.
pub const EXIT_FAILED: u8 = 1;
/// Exit status when the state of an interrupted run does not fit the command.
pub const EXIT_RESUME: u8 = 3;

/// Arguments of `webcanon batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The URLs: a text file (one a line), CSV or Parquet (by extension).
    #[arg(value_name = "URLS")]
    input: PathBuf,
    /// The output: `.parquet`, `.csv` or `.jsonl`.
    #[arg(short, long, value_name = "OUT", required_unless_present = "fetch_only")]
    output: Option<PathBuf>,
    /// Run the fetch pass only: write the robots snapshot to
    /// `--snapshot-out` and decide nothing (then `-o` is not needed).
    #[arg(long, requires = "snapshot_out", conflicts_with_all = ["snapshot", "output"])]
    fetch_only: bool,
    /// Bytes of origin text per on-disk partition of the fetch pass: the
    /// pass's memory for finding distinct origins stays near this, whatever
    /// the number of origins.
    #[arg(long, value_name = "BYTES", default_value_t = webcanon_batch::PARTITION_BYTES,
          value_parser = clap::value_parser!(u64).range(1..=(1u64 << 40)))]
    partition_bytes: u64,
    /// The column holding the URLs (CSV and Parquet inputs).
    #[arg(long, value_name = "NAME", default_value = "url")]
    column: String,
    /// Decide from this robots snapshot made earlier (a Parquet file, or a
    /// directory of them): no fetch pass, no network, the same output every
    /// time.
    #[arg(long, value_name = "FILE", conflicts_with = "snapshot_out")]
    snapshot: Option<PathBuf>,
    /// Where the fetch pass writes its robots snapshot (default: OUT's name
    /// without the extension, plus `.robots.parquet`).
    #[arg(long, value_name = "FILE")]
    snapshot_out: Option<PathBuf>,
    /// Work on shard I of N: the URLs whose origin's FNV-1a 64 hash is I modulo N.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Hosts fetched from at once (one request at a time per host).
    #[arg(long, value_name = "N", default_value_t = webcanon_batch::fetch::DEFAULT_CONCURRENCY,
          value_parser = clap::value_parser!(u32).range(1..=100_000).map(|n| n as usize))]
    concurrency: usize,
    /// Input rows per batch, and per checkpoint of the output.
    #[arg(long, value_name = "N", default_value_t = input::DEFAULT_BATCH_ROWS,
          value_parser = clap::value_parser!(u32).range(1..=16_777_216).map(|n| n as usize))]
    batch_rows: usize,
    /// Threads of the verdict pass (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64).map(|n| n as usize))]
    threads: Option<usize>,
    /// Print the run's summary as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// Fetch and convert every URL the verdict allows, and write one page
    /// record per URL (content, usage signals, verdict, or the reason it
    /// was not fetched) to OUT (`.jsonl` or `.parquet`) instead of verdict rows.
    #[arg(long, conflicts_with = "fetch_only")]
    content: bool,
    #[command(flatten)]
    client: ClientArgs,
    #[command(flatten, next_help_heading = "Page options (with --content)")]
    page: PageArgs,
}

fn parse_shard(value: &str) -> Result<Shard, String> {
    value.parse::<Shard>().map_err(|e| match e {
        BatchError::BadShard { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// Progress bars on stderr, one per pass.
struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn begin(&self, pass: Pass, total: Option<u64>, done: u64) {
        let what = match pass {
            Pass::Origins => "URLs read for origins",
            Pass::Fetch => "origins",
            Pass::Verdict => "URLs",
            Pass::Content => "URLs fetched or recorded",
        };
        let bar = crate::progress::bar(total, what);
        bar.set_position(done);
        bar.reset_eta();
        if done > 0 {
            bar.set_message(format!("({done} done before the resume)"));
        }
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar);
    }

    fn advance(&self, _: Pass, n: u64) {
        if let Some(bar) = &*self.current.lock().unwrap_or_else(|p| p.into_inner()) {
            bar.inc(n);
        }
    }

    fn end(&self, _: Pass) {
        if let Some(bar) = self.current.lock().unwrap_or_else(|p| p.into_inner()).take() {
            bar.finish_and_clear();
        }
    }

    fn warn(&self, message: &str) {
        // Above the bar when one is drawn; said even under `-q`.
        match &*self.current.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(bar) if !bar.is_hidden() => bar.suspend(|| eprintln!("warning: {message}")),
            _ => eprintln!("warning: {message}"),
        }
    }
}

/// Runs `webcanon batch`.
pub fn run(args: BatchArgs) -> Result<ExitCode, CliError> {
    // Bad names are reported before anything is read or fetched.
    input::InputFormat::from_path(&args.input).map_err(usage)?;
    // A fetch-only run writes no output: its state goes next to the snapshot.
    let output = match &args.output {
        Some(output) => output.clone(),
        None => args.snapshot_out.clone().ok_or_else(|| CliError::usage("--fetch-only needs --snapshot-out"))?,
    };
    if args.content {
        PageRecordWriter::format_of(&output).map_err(usage)?;
    } else if !args.fetch_only {
        webcanon_batch::output::OutputFormat::from_path(&output).map_err(usage)?;
    }
    let agent = args.client.agent.clone();
    if !args.input.is_file() {
        return Err(CliError::usage(format!("{}: no such file", args.input.display())));
    }
    let needs_fetch =
        args.snapshot.is_none() && (args.fetch_only || args.client.mode != webcanon_core::policy::RobotsMode::Ignore);
    let client = if needs_fetch || args.content {
        let builder = args.client.builder()?;
        Some(args.page.apply(builder).build().map_err(|e| CliError::usage(e.to_string()))?)
    } else {
        None
    };
    let content = args.content.then(|| client.as_ref().map(|c| *c.fetch_options())).flatten();
    let config = BatchConfig {
        snapshot_out: args.snapshot_out.clone().unwrap_or_else(|| BatchConfig::default_snapshot_out(&output)),
        input: args.input,
        column: args.column,
        output,
        fetch_only: args.fetch_only,
        partition_bytes: args.partition_bytes,
        agent,
        mode: args.client.mode,
        shard: args.shard.unwrap_or(Shard::ALL),
        snapshot: args.snapshot,
        concurrency: args.concurrency,
        batch_rows: args.batch_rows,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        fetch_settings: run::fetch_fingerprint(args.client.user_agent.as_deref(), args.client.auth_disallows),
        content,
    };
    let bars = Bars { current: Mutex::new(None) };
    let summary = run::run(&config, client, &bars).map_err(|e| {
        let state = config.state_dir();
        match e.kind() {
            FailureKind::Usage => usage(e),
            FailureKind::Resume => CliError::new(EXIT_RESUME, e.to_string())
                .with_hint(format!("the state of the interrupted run is in {}", state.display())),
            FailureKind::Run => {
                let err = CliError::new(EXIT_FAILED, e.to_string());
                if e.is_file_too_large() {
                    err.with_hint(format!("{}; then the same command resumes", crate::file_limit::HINT))
                } else if state.join("state.json").is_file() {
                    err.with_hint("run the same command again to resume where this run stopped")
                } else {
                    err
                }
            }
        }
    })?;
    report(&summary, &config, args.json)?;
    Ok(ExitCode::SUCCESS)
}

fn usage(err: BatchError) -> CliError {
    CliError::usage(err.to_string())
}

fn report(summary: &BatchSummary, config: &BatchConfig, json: bool) -> Result<(), CliError> {
    if json {
        let mut stdout = io::stdout().lock();
        serde_json::to_writer(&mut stdout, summary).map_err(|e| CliError::usage(e.to_string()))?;
        writeln!(stdout)?;
        return Ok(());
    }
    if crate::output::quiet() {
        return Ok(());
    }
    let resumed = if summary.resumed { " (resumed)" } else { "" };
    let mut stderr = io::stderr().lock();
    if config.fetch_only {
        writeln!(
            stderr,
            "fetch pass{resumed}: {} origins in {} partitions, {} fetched, {} from the interrupted run, {:.1}s; \
             wrote {}",
            summary.origins,
            summary.partitions,
            summary.fetched,
            summary.already_fetched,
            summary.fetch_seconds,
            summary.snapshot.display()
        )?;
        return Ok(());
    }
    if config.snapshot.is_none() && summary.origins > 0 {
        writeln!(
            stderr,
            "fetch pass{resumed}: {} origins, {} fetched, {} from the interrupted run, {:.1}s; snapshot {}",
            summary.origins,
            summary.fetched,
            summary.already_fetched,
            summary.fetch_seconds,
            summary.snapshot.display()
        )?;
    }
    if config.content.is_some() {
        writeln!(
            stderr,
            "content pass{resumed}: {} rows ({} allowed, {} pages with content, {} invalid URLs), {:.1}s; wrote {}",
            summary.rows,
            summary.allowed,
            summary.pages,
            summary.invalid,
            summary.verdict_seconds,
            config.output.display()
        )?;
        return Ok(());
    }
    writeln!(
        stderr,
        "verdict pass{resumed}: {} rows ({} allowed, {} invalid URLs), {:.1}s; wrote {}",
        summary.rows,
        summary.allowed,
        summary.invalid,
        summary.verdict_seconds,
        config.output.display()
    )?;
    Ok(())
}
