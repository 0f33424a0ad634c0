//! A whole batch run: distinct origins → fetch pass → snapshot → verdict
//! pass (or, with [`BatchConfig::content`], the [content pass](crate::content))
//! → output, checkpointed in a state directory next to the output so
//! a killed run resumes where it stopped.
//!
//! The state directory is `<output>.batch/`:
//!
//! - `state.json` — the run's settings (a resume with other settings is
//!   refused), whether the fetch pass finished, the output's
//!   [`OutputProgress`] and counts, and whether the output was being moved
//!   into place; replaced atomically after every output batch;
//! - `origins/` — the shard's origins spilled in hash partitions (of
//!   [`PARTITION_BYTES`](crate::PARTITION_BYTES) of text by default), with
//!   a `complete` marker once the input is read;
//! - `parts/NNNNN.journal` — the entries of partition NNNNN fetched so far,
//!   appended as they complete ([`read_journal`](crate::read_journal) reads
//!   them); `parts/NNNNN.parquet` — the partition once all its origins are
//!   recorded (the journal then goes);
//! - `output.partial` or `parts/` — the output being written;
//! - `content.journal` — the page records of the content pass's current
//!   chunk fetched so far ([`crate::content::ContentJournal`]).
//!
//! The fetch pass takes one partition at a time, so its memory is that of
//! one partition's origins (a budget, [`BatchConfig::partition_bytes`]),
//! the entries in flight (`concurrency`) and a row group of the snapshot
//! ([`crate::snapshot::ROW_GROUP_BYTES`]), whatever the number of origins.
//! The verdict pass indexes the whole snapshot (about its size on disk,
//! bodies included): to decide a dataset larger than that, split it with
//! `--shard` (each shard's snapshot holds only its origins), or decide it
//! on Ray or Spark from the snapshot dataset.
//!
//! A killed run resumes where it stopped: a spill without its marker is
//! redone, a partition with a Parquet part is done, a partition with a
//! journal fetches only the origins its journal does not hold, the snapshot
//! is assembled again from the parts if it was not finished. A resumed run skips the
//! input rows the checkpoint counts, and cuts the output back to the
//! checkpoint: no origin fetched twice (bar those in flight at the kill),
//! no row lost or repeated. A run killed while moving its finished output
//! into place finishes that on resume. The directory is removed when the
//! run ends, `state.json` first: a directory without it holds nothing to
//! keep, and the next run clears it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use webcanon_client::agent::ProductToken;

use arrow::array::{Array, BooleanArray, StringArray};
use arrow::record_batch::RecordBatch;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use webcanon_client::{Client, FetchOptions, PageRecord};
use webcanon_core::policy::RobotsMode;

use crate::BatchError;
use crate::content::{CHUNK_ROWS, ContentJournal, Todo, fetch_chunk, record_without_fetch};
use crate::fetch::{Fetched, Recorded, fetch_all, group_by_host};
use crate::input::UrlReader;
use crate::journal::Journal;
use crate::origin::{Shard, origin_of, parse_url, write_origin};
use crate::output::{OutputProgress, OutputWriter};
use crate::page_records::PageRecordWriter;
use crate::partition::{MAX_PARTITIONS, Partitions, SpillState, partition_count, url_bytes};
pub use crate::progress::{NoProgress, Pass, Progress};
use crate::snapshot::{Snapshot, SnapshotWriter, tmp_path};
use crate::verdict::VerdictPass;

/// What a batch run does.
#[derive(Debug, Clone)]
pub struct BatchConfig {
    /// The input file (text, CSV or Parquet).
    pub input: PathBuf,
    /// The URL column of a CSV or Parquet input.
    pub column: String,
    /// The output file (`.parquet`, `.csv` or `.jsonl`).
    pub output: PathBuf,
    /// The agent's product token.
    pub agent: ProductToken,
    /// The robots mode.
    pub mode: RobotsMode,
    /// The shard of the input to work on.
    pub shard: Shard,
    /// Decide from this snapshot made earlier: no fetch pass, no network.
    pub snapshot: Option<PathBuf>,
    /// Where the fetch pass writes its snapshot.
    pub snapshot_out: PathBuf,
    /// Hosts fetched from at once.
    pub concurrency: usize,
    /// Input rows per batch (and per checkpoint).
    pub batch_rows: usize,
    /// Threads of the verdict pass.
    pub threads: usize,
    /// Run the fetch pass only: write the snapshot, decide nothing
    /// (`output` is not written; the state directory is next to
    /// `snapshot_out`).
    pub fetch_only: bool,
    /// The budget of origin text per partition of the fetch pass (by
    /// default [`PARTITION_BYTES`](crate::PARTITION_BYTES)): the memory the
    /// pass takes to find distinct origins does not grow past about twice
    /// this, whatever the input.
    pub partition_bytes: u64,
    /// The client settings that shape what the fetch pass records, as
    /// [`fetch_fingerprint`] states them: a resume under other ones is
    /// refused, as the journal holds answers to them.
    pub fetch_settings: String,
    /// Fetch and convert every allowed URL under these options (the
    /// client's own, or a request's): the output holds one
    /// [`PageRecord`] per URL instead of a
    /// verdict row ([`crate::content`]). `None`: verdicts only.
    pub content: Option<FetchOptions>,
}

impl BatchConfig {
    /// The default snapshot name for `output`: its name without the
    /// extension, plus `.robots.parquet`.
    pub fn default_snapshot_out(output: &Path) -> PathBuf {
        let stem = output.file_stem().map(|s| s.to_os_string()).unwrap_or_default();
        let mut name = stem;
        name.push(".robots.parquet");
        output.with_file_name(name)
    }

    /// The state directory of a run writing `output` (`snapshot_out` for a
    /// fetch-only run).
    pub fn state_dir(&self) -> PathBuf {
        let target = if self.fetch_only { &self.snapshot_out } else { &self.output };
        let mut name = target.as_os_str().to_owned();
        name.push(".batch");
        name.into()
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BatchSummary {
    /// Whether an interrupted run was resumed.
    pub resumed: bool,
    /// Distinct origins in the shard.
    pub origins: u64,
    /// Origins fetched by this run.
    pub fetched: u64,
    /// Origins already in the journal of the interrupted run.
    pub already_fetched: u64,
    /// Rows in the output.
    pub rows: u64,
    /// Rows this run decided (the rest were written before the resume).
    pub decided: u64,
    /// Rows of the output whose URL is invalid (the rows written before a
    /// resume included).
    pub invalid: u64,
    /// Rows of the output allowed under the mode (the rows written before a
    /// resume included).
    pub allowed: u64,
    /// Records of the content output with a page's content (the rows
    /// written before a resume included).
    pub pages: u64,
    /// Partitions the fetch pass spilled the origins into.
    pub partitions: u32,
    /// Seconds spent on the fetch pass (origins included).
    pub fetch_seconds: f64,
    /// Seconds spent on the verdict pass (the content pass, with
    /// [`BatchConfig::content`]).
    pub verdict_seconds: f64,
    /// The snapshot the verdicts came from.
    pub snapshot: PathBuf,
    /// What the run recovered from, one sentence each (see
    /// [`Progress::warn`]).
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Settings {
    input: PathBuf,
    input_bytes: u64,
    input_modified: u64,
    column: String,
    agent: String,
    mode: String,
    shard: String,
    snapshot: Option<PathBuf>,
    /// Size and modification time of the `--snapshot` file.
    #[serde(default)]
    snapshot_file: Option<(u64, u64)>,
    snapshot_out: PathBuf,
    batch_rows: usize,
    #[serde(default)]
    fetch_settings: String,
    #[serde(default)]
    fetch_only: bool,
    /// The fetch options of a content run, as their debug form states them.
    #[serde(default)]
    content: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    settings: Settings,
    fetch_done: bool,
    output: OutputProgress,
    /// Counts over the rows of `output`.
    #[serde(default)]
    counts: Counts,
    /// The output is complete and being moved into place.
    #[serde(default)]
    finishing: bool,
}

/// Counts over the rows written, kept across a resume.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct Counts {
    allowed: u64,
    invalid: u64,
    #[serde(default)]
    pages: u64,
}

/// The client settings that shape what the fetch pass records (the
/// `User-Agent` header sent, and whether a robots.txt answering 401 or 403
/// disallows everything), in one line: [`BatchConfig::fetch_settings`] for
/// every face, so a run started by one face resumes under another only
/// with the same settings. Its spelling is kept in resume state files:
/// changing it refuses every interrupted run.
///
/// ```
/// let line = webcanon_batch::run::fetch_fingerprint(Some("Bot/1.0"), true);
/// assert_eq!(line, r#"user_agent="Bot/1.0" auth_disallows=true"#);
/// ```
pub fn fetch_fingerprint(user_agent: Option<&str>, auth_disallows: bool) -> String {
    format!("user_agent={:?} auth_disallows={auth_disallows}", user_agent.unwrap_or(""))
}

/// Size and modification time (whole seconds since the epoch).
fn fingerprint(path: &Path) -> Result<(u64, u64), BatchError> {
    let meta = std::fs::metadata(path).map_err(|e| BatchError::input(BatchError::io(path, e)))?;
    let modified =
        meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs());
    Ok((meta.len(), modified))
}

fn settings_of(config: &BatchConfig) -> Result<Settings, BatchError> {
    let (input_bytes, input_modified) = fingerprint(&config.input)?;
    Ok(Settings {
        input: std::path::absolute(&config.input).unwrap_or_else(|_| config.input.clone()),
        input_bytes,
        input_modified,
        column: config.column.clone(),
        agent: config.agent.to_string(),
        mode: config.mode.to_string(),
        shard: config.shard.to_string(),
        snapshot: config.snapshot.clone(),
        snapshot_file: config.snapshot.as_deref().map(fingerprint).transpose()?,
        snapshot_out: config.snapshot_out.clone(),
        batch_rows: config.batch_rows,
        fetch_settings: config.fetch_settings.clone(),
        fetch_only: config.fetch_only,
        content: config.content.map(|options| format!("{options:?}")),
    })
}

fn save_state(dir: &Path, state: &State) -> Result<(), BatchError> {
    let path = dir.join("state.json");
    let tmp = tmp_path(&path);
    let json = serde_json::to_vec_pretty(state).expect("state serialises");
    std::fs::write(&tmp, json).map_err(|e| BatchError::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| BatchError::io(&path, e))
}

fn load_state(dir: &Path, settings: &Settings) -> Result<Option<State>, BatchError> {
    let path = dir.join("state.json");
    if !dir.exists() {
        return Ok(None);
    }
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        // Killed before the first state was saved: nothing to keep.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(BatchError::io(&path, e)),
    };
    let state: State = serde_json::from_slice(&text).map_err(|e| BatchError::Resume {
        path: path.clone(),
        reason: format!("unreadable state ({e}); remove {} to start over", dir.display()),
    })?;
    if &state.settings != settings {
        return Err(BatchError::Resume {
            path,
            reason: format!(
                "an interrupted run with other settings (input, column, agent, mode, shard, snapshot, batch \
                 size, content options, User-Agent or --auth-disallows) left its state here; rerun it with the same settings, \
                 or remove {} to start over",
                dir.display()
            ),
        });
    }
    Ok(Some(state))
}

/// Runs a batch: the fetch pass through `client` (unless the config names
/// a snapshot made earlier, or the mode is `ignore`), then the verdict pass.
/// `client` may be `None` only when no fetch pass is needed.
pub fn run(config: &BatchConfig, client: Option<Client>, progress: &dyn Progress) -> Result<BatchSummary, BatchError> {
    let settings = settings_of(config)?;
    let dir = config.state_dir();
    let previous = load_state(&dir, &settings)?;
    let mut summary = BatchSummary { resumed: previous.is_some(), ..BatchSummary::default() };
    if previous.is_none() && dir.exists() {
        // No state: killed before saving one, or while removing the
        // directory at the end. Nothing in it is to be kept.
        std::fs::remove_dir_all(&dir).map_err(|e| BatchError::io(&dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| BatchError::io(&dir, e))?;
    let mut state = previous.unwrap_or(State {
        settings,
        fetch_done: false,
        output: OutputProgress::default(),
        counts: Counts::default(),
        finishing: false,
    });
    save_state(&dir, &state)?;

    let started = Instant::now();
    let snapshot = match (&config.snapshot, config.mode) {
        (Some(path), _) => Snapshot::read_parquet(path).map_err(BatchError::input)?,
        (None, RobotsMode::Ignore) if !config.fetch_only => Snapshot::default(),
        (None, _) => {
            if !state.fetch_done {
                let client =
                    client.clone().ok_or_else(|| BatchError::Client("the fetch pass needs an HTTP client".into()))?;
                fetch_pass(config, &dir, client, progress, &mut summary)?;
                state.fetch_done = true;
                save_state(&dir, &state)?;
                // The snapshot holds them now.
                for work in [dir.join("parts"), dir.join("origins")] {
                    if work.exists() {
                        std::fs::remove_dir_all(&work).map_err(|e| BatchError::io(&work, e))?;
                    }
                }
            }
            if config.fetch_only { Snapshot::default() } else { Snapshot::read_parquet(&config.snapshot_out)? }
        }
    };
    summary.fetch_seconds = started.elapsed().as_secs_f64();
    summary.snapshot = config.snapshot.clone().unwrap_or_else(|| config.snapshot_out.clone());
    if config.fetch_only {
        let state_file = dir.join("state.json");
        std::fs::remove_file(&state_file).map_err(|e| BatchError::io(&state_file, e))?;
        std::fs::remove_dir_all(&dir).map_err(|e| BatchError::io(&dir, e))?;
        return Ok(summary);
    }

    let started = Instant::now();
    let pass = VerdictPass::new(Arc::new(snapshot), config.agent.clone(), config.mode);
    match (&config.content, client) {
        (Some(options), Some(client)) => {
            content_pass(config, &dir, &pass, (&client, options), &mut state, progress, &mut summary)?
        }
        (Some(_), None) => return Err(BatchError::Client("the content pass needs an HTTP client".into())),
        (None, _) => verdict_pass(config, &dir, &pass, &mut state, progress, &mut summary)?,
    }
    summary.verdict_seconds = started.elapsed().as_secs_f64();
    let state_file = dir.join("state.json");
    std::fs::remove_file(&state_file).map_err(|e| BatchError::io(&state_file, e))?;
    std::fs::remove_dir_all(&dir).map_err(|e| BatchError::io(&dir, e))?;
    Ok(summary)
}

/// The distinct origins of the shard's URLs, in first-seen order, all in
/// memory: for small inputs and tests. The fetch pass itself partitions
/// them on disk (by default in partitions of
/// [`PARTITION_BYTES`](crate::PARTITION_BYTES) of text).
pub fn distinct_origins(config: &BatchConfig, progress: &dyn Progress) -> Result<Vec<String>, BatchError> {
    progress.begin(Pass::Origins, None, 0);
    let mut seen: HashSet<String> = HashSet::new();
    let mut origins = Vec::new();
    let mut buffer = String::new();
    for urls in UrlReader::open(&config.input, &config.column, config.batch_rows).map_err(BatchError::input)? {
        let urls = urls.map_err(BatchError::input)?;
        for url in urls.iter().flatten() {
            let Ok(parsed) = parse_url(url) else { continue };
            write_origin(&parsed, &mut buffer);
            if config.shard.contains(&buffer) && !seen.contains(buffer.as_str()) {
                seen.insert(buffer.clone());
                origins.push(buffer.clone());
            }
        }
        progress.advance(Pass::Origins, urls.len() as u64);
    }
    progress.end(Pass::Origins);
    Ok(origins)
}

/// The most partitions a process with this open-file limit keeps open at
/// once while it spills origins: a quarter of the limit.
fn max_partitions() -> u32 {
    let by_files = webcanon_client::open_file_limit().map_or(u64::from(MAX_PARTITIONS), |n| n / 4);
    u32::try_from(by_files).unwrap_or(u32::MAX).clamp(1, MAX_PARTITIONS)
}

/// The fetch pass, partition by partition: the shard's origins spilled to
/// disk in partitions ([`Partitions`]), then each partition's distinct
/// origins fetched (those its journal does not hold), journaled as they
/// complete, and the journal turned into the partition's Parquet part;
/// finally the parts are streamed into the snapshot file. Memory: one
/// partition's origins, the entries in flight and one row group; never
/// the whole shard.
fn fetch_pass(
    config: &BatchConfig,
    dir: &Path,
    client: Client,
    progress: &dyn Progress,
    summary: &mut BatchSummary,
) -> Result<(), BatchError> {
    let spill = dir.join("origins");
    let parts = dir.join("parts");
    let part_path = |p: u32| parts.join(format!("{p:05}.parquet"));
    let partitions = spilled_origins(config, &spill, &parts, progress, summary)?;
    summary.partitions = partitions.count();
    std::fs::create_dir_all(&parts).map_err(|e| BatchError::io(&parts, e))?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BatchError::Client(format!("cannot start the async runtime: {e}")))?;
    progress.begin(Pass::Fetch, None, 0);
    let mut local_failures = 0u64;
    let mut first_local_failure: Option<String> = None;
    for p in 0..partitions.count() {
        let part = part_path(p);
        let journal_path = parts.join(format!("{p:05}.journal"));
        if part.exists() {
            // Finished by the interrupted run.
            let rows = crate::snapshot::parquet_rows(&part)?;
            summary.origins += rows;
            summary.already_fetched += rows;
            progress.advance(Pass::Fetch, rows);
            remove_if_present(&journal_path)?;
            partitions.remove(p)?;
            continue;
        }
        let origins = partitions.origins(p)?;
        let (mut journal, done) = Journal::open(&journal_path)?;
        let done: HashSet<String> = done.into_iter().collect();
        summary.origins += origins.len() as u64;
        summary.already_fetched += done.len() as u64;
        progress.advance(Pass::Fetch, done.len() as u64);
        let todo: Vec<String> = origins.into_iter().filter(|o| !done.contains(o)).collect();
        drop(done);
        let outcome = runtime.block_on(fetch_into(&mut journal, client.clone(), todo, config.concurrency, progress));
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                runtime.shutdown_timeout(Duration::from_secs(1));
                return Err(e);
            }
        };
        summary.fetched += outcome.fetched;
        drop(journal);
        if outcome.local_failures > 0 {
            // Not recorded: the partition stays open, its journal kept, and
            // the origins are fetched on the next run.
            local_failures += outcome.local_failures;
            first_local_failure = first_local_failure.or(outcome.first_local_failure);
            continue;
        }
        journal_to_part(&journal_path, &part)?;
        remove_if_present(&journal_path)?;
        partitions.remove(p)?;
    }
    runtime.shutdown_timeout(Duration::from_secs(1));
    if let Some(why) = first_local_failure {
        return Err(BatchError::Client(format!(
            "{local_failures} origins could not be fetched because this machine failed the requests ({why}); \
             nothing was recorded for them: run the same command again to fetch them"
        )));
    }
    progress.end(Pass::Fetch);

    let mut snapshot = SnapshotWriter::create(&config.snapshot_out)?;
    for p in 0..partitions.count() {
        for batch in crate::snapshot::parquet_batches(&part_path(p))? {
            snapshot.write(&batch?)?;
        }
    }
    snapshot.finish()
}

/// The shard's origins spilled in `spill`: those an intact, complete spill
/// left there, or a new spill. A damaged spill is redone with a warning,
/// with the partition count its marker recorded, so that the parts already
/// fetched in `parts` keep their numbers; when the count is lost, so are
/// the parts.
fn spilled_origins(
    config: &BatchConfig,
    spill: &Path,
    parts: &Path,
    progress: &dyn Progress,
    summary: &mut BatchSummary,
) -> Result<Partitions, BatchError> {
    let (count, damage) = match Partitions::open(spill) {
        SpillState::Complete(partitions) => {
            // A partition's file goes only once its part is in place.
            let has_part = |p: u32| parts.join(format!("{p:05}.parquet")).exists();
            match (0..partitions.count()).find(|&p| !partitions.is_present(p) && !has_part(p)) {
                None => return Ok(partitions),
                Some(p) => (
                    Some(partitions.count()),
                    Some(format!("partition {p} has neither its file of origins nor its fetched part")),
                ),
            }
        }
        SpillState::Damaged { count, why } => (count, Some(why)),
        SpillState::Missing => (None, None),
    };
    if let Some(why) = damage {
        let kept = match count {
            Some(_) => "the robots.txt already fetched are kept",
            None => "its partition count is lost, so every origin is fetched again",
        };
        let message =
            format!("the origins spilled by the interrupted run are damaged ({why}); reading the input again ({kept})");
        warn(progress, summary, message);
        if count.is_none() && parts.exists() {
            std::fs::remove_dir_all(parts).map_err(|e| BatchError::io(parts, e))?;
        }
    }
    let count = match count {
        Some(count) => count,
        None => {
            let bytes = url_bytes(&config.input, &config.column).map_err(BatchError::input)?;
            partition_count(bytes, config.partition_bytes, max_partitions())
        }
    };
    Partitions::spill(&config.input, &config.column, config.batch_rows, config.shard, spill, count, progress)
}

/// Tells the watcher of the run, and records in the summary, something the
/// run recovered from.
fn warn(progress: &dyn Progress, summary: &mut BatchSummary, message: String) {
    progress.warn(&message);
    summary.warnings.push(message);
}

fn remove_if_present(path: &Path) -> Result<(), BatchError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(BatchError::io(path, e)),
        _ => Ok(()),
    }
}

/// A partition's journal streamed into its Parquet part, atomically.
fn journal_to_part(journal: &Path, part: &Path) -> Result<(), BatchError> {
    let mut writer = SnapshotWriter::create(part)?;
    if journal.exists() {
        for batch in crate::journal::batches(journal)? {
            writer.write(&batch?)?;
        }
    }
    writer.finish()
}

/// What fetching one partition did.
struct FetchOutcome {
    fetched: u64,
    local_failures: u64,
    first_local_failure: Option<String>,
}

/// Fetches `todo`, journaling every entry before its host's task goes on.
async fn fetch_into(
    journal: &mut Journal,
    client: Client,
    todo: Vec<String>,
    concurrency: usize,
    progress: &dyn Progress,
) -> Result<FetchOutcome, BatchError> {
    let (tx, mut rx) = mpsc::channel::<Fetched>(concurrency.max(1));
    let producer = tokio::spawn(fetch_all(client, group_by_host(todo), concurrency, tx));
    let mut outcome = FetchOutcome { fetched: 0, local_failures: 0, first_local_failure: None };
    let mut chunk = Vec::new();
    let mut confirmations = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(Fetched { entry, recorded }) = next.take() {
            match entry {
                Ok(entry) => chunk.push(entry),
                // Not recorded: the origin is fetched again on resume.
                Err(why) => {
                    outcome.local_failures += 1;
                    outcome.first_local_failure.get_or_insert(why);
                }
            }
            confirmations.push(recorded);
            if chunk.len() < crate::snapshot::ENTRIES_PER_BATCH {
                next = rx.try_recv().ok();
            }
        }
        if !chunk.is_empty() {
            journal.append(&chunk)?;
        }
        // Journaled: the hosts' tasks may go on.
        confirmations.drain(..).for_each(Recorded::confirm);
        progress.advance(Pass::Fetch, chunk.len() as u64);
        outcome.fetched += chunk.len() as u64;
        chunk.clear();
    }
    producer.await.map_err(|e| BatchError::Client(format!("the fetch pass failed: {e}")))?;
    Ok(outcome)
}

/// The rows of `urls` that belong to the shard.
fn shard_rows(shard: Shard, urls: StringArray) -> Result<StringArray, BatchError> {
    if shard.count == 1 {
        return Ok(urls);
    }
    let mut buffer = String::new();
    let keep: BooleanArray = urls
        .iter()
        .map(|url| {
            let url = url.unwrap_or_default();
            Some(match origin_of(url) {
                Ok(parsed) => {
                    buffer = parsed.origin;
                    shard.contains(&buffer)
                }
                Err(_) => shard.contains(url),
            })
        })
        .collect();
    let kept = arrow::compute::filter(&urls, &keep).map_err(|e| BatchError::arrow("sharding the input", e))?;
    Ok(kept.as_any().downcast_ref::<StringArray>().expect("filtered strings").clone())
}

/// Decides `urls` on up to `threads` threads, rows kept in order.
/// The rows of `urls` this shard owns that the output does not hold yet:
/// the first `skip` of them (written before a resume) are passed over,
/// and `skip` counts down by as many.
fn unwritten_rows(shard: Shard, urls: StringArray, skip: &mut u64) -> Result<StringArray, BatchError> {
    let urls = shard_rows(shard, urls)?;
    let skipped = (*skip as usize).min(urls.len());
    *skip -= skipped as u64;
    Ok(urls.slice(skipped, urls.len() - skipped))
}

/// Ends a pass that read the whole input: a checkpoint that counted more
/// rows than the input has is an error; otherwise the output is finished
/// (`finish` moves it into place, after the state says so) and the
/// input's `undecodable` lines, if any, are warned of.
fn end_pass(
    dir: &Path,
    state: &mut State,
    skip: u64,
    finish: impl FnOnce() -> Result<OutputProgress, BatchError>,
    pass: Pass,
    undecodable: Option<String>,
    (progress, summary): (&dyn Progress, &mut BatchSummary),
) -> Result<(), BatchError> {
    if skip > 0 {
        return Err(BatchError::Resume {
            path: dir.join("state.json"),
            reason: format!("the checkpoint counts {skip} more rows than the input has"),
        });
    }
    state.finishing = true;
    save_state(dir, state)?;
    finish()?;
    progress.end(pass);
    if let Some(warning) = undecodable {
        warn(progress, summary, warning);
    }
    Ok(())
}

fn decide_parallel(pass: &VerdictPass, urls: &StringArray, threads: usize) -> Result<RecordBatch, BatchError> {
    let threads = threads.clamp(1, 64);
    if threads == 1 || urls.len() < 4096 {
        return pass.decide(urls);
    }
    let chunk = urls.len().div_ceil(threads);
    let batches: Vec<Result<RecordBatch, BatchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..urls.len())
            .step_by(chunk)
            .map(|start| {
                let slice = urls.slice(start, chunk.min(urls.len() - start));
                scope.spawn(move || pass.decide(&slice))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("verdict thread")).collect()
    });
    let batches = batches.into_iter().collect::<Result<Vec<_>, _>>()?;
    arrow::compute::concat_batches(&VerdictPass::output_schema(), &batches)
        .map_err(|e| BatchError::arrow("joining verdict rows", e))
}

fn verdict_pass(
    config: &BatchConfig,
    dir: &Path,
    pass: &VerdictPass,
    state: &mut State,
    progress: &dyn Progress,
    summary: &mut BatchSummary,
) -> Result<(), BatchError> {
    if state.finishing {
        // Killed while moving the finished output into place: finish that.
        if !OutputWriter::moved_into_place(&config.output, dir) {
            OutputWriter::open(&config.output, dir, state.output)?.finish()?;
        }
    } else {
        let total =
            if config.shard.count == 1 { UrlReader::count_rows(&config.input, &config.column).ok() } else { None };
        let mut writer = OutputWriter::open(&config.output, dir, state.output)?;
        let mut skip = state.output.rows;
        progress.begin(Pass::Verdict, total, skip);
        let mut reader =
            UrlReader::open(&config.input, &config.column, config.batch_rows).map_err(BatchError::input)?;
        for urls in &mut reader {
            let urls = unwritten_rows(config.shard, urls.map_err(BatchError::input)?, &mut skip)?;
            if urls.is_empty() {
                continue;
            }
            let batch = decide_parallel(pass, &urls, config.threads)?;
            summary.decided += batch.num_rows() as u64;
            count(&batch, &mut state.counts);
            state.output = writer.write(&batch)?;
            save_state(dir, state)?;
            progress.advance(Pass::Verdict, urls.len() as u64);
        }
        let undecodable = reader.undecodable().warning(&config.input);
        end_pass(dir, state, skip, || writer.finish(), Pass::Verdict, undecodable, (progress, summary))?;
    }
    summary.rows = state.output.rows;
    summary.allowed = state.counts.allowed;
    summary.invalid = state.counts.invalid;
    Ok(())
}

/// The content pass: the shard's URLs in chunks of [`CHUNK_ROWS`], each
/// decided, its allowed URLs fetched ([`crate::content`]), its records
/// written in input order and checkpointed; the chunk's journal holds
/// what was fetched since the last checkpoint.
fn content_pass(
    config: &BatchConfig,
    dir: &Path,
    pass: &VerdictPass,
    (client, options): (&Client, &FetchOptions),
    state: &mut State,
    progress: &dyn Progress,
    summary: &mut BatchSummary,
) -> Result<(), BatchError> {
    if state.finishing {
        // Killed while moving the finished output into place: finish that.
        if !OutputWriter::moved_into_place(&config.output, dir) {
            PageRecordWriter::open(&config.output, dir, state.output)?.finish()?;
        }
    } else {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| BatchError::Client(format!("cannot start the async runtime: {e}")))?;
        let total =
            if config.shard.count == 1 { UrlReader::count_rows(&config.input, &config.column).ok() } else { None };
        let mut writer = PageRecordWriter::open(&config.output, dir, state.output)?;
        let (mut journal, mut journaled) = ContentJournal::open(&dir.join("content.journal"), state.output.rows)?;
        let mut skip = state.output.rows;
        progress.begin(Pass::Content, total, skip);
        let advance = |n| progress.advance(Pass::Content, n);
        let mut reader =
            UrlReader::open(&config.input, &config.column, config.batch_rows).map_err(BatchError::input)?;
        for urls in &mut reader {
            let urls = unwritten_rows(config.shard, urls.map_err(BatchError::input)?, &mut skip)?;
            for start in (0..urls.len()).step_by(CHUNK_ROWS) {
                let chunk = urls.slice(start, CHUNK_ROWS.min(urls.len() - start));
                let first_row = state.output.rows;
                let mut slots: Vec<Option<PageRecord>> = Vec::with_capacity(chunk.len());
                let mut todo = Vec::new();
                for (i, url) in chunk.iter().enumerate() {
                    let url = url.unwrap_or_default();
                    let row = first_row + i as u64;
                    let verdict = pass.decide_one(url);
                    state.counts.allowed += u64::from(verdict.allowed);
                    state.counts.invalid += u64::from(verdict.verdict == crate::verdict::INVALID_URL);
                    let ready = record_without_fetch(url, &verdict).or_else(|| journaled.remove(&row));
                    if ready.is_none() {
                        todo.push(Todo { row, url: url.to_string() });
                    } else {
                        advance(1);
                    }
                    slots.push(ready);
                }
                let outcome =
                    runtime.block_on(fetch_chunk(client, options, todo, config.concurrency, &mut journal, &advance));
                let outcome = match outcome {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        runtime.shutdown_timeout(Duration::from_secs(1));
                        return Err(e);
                    }
                };
                if let Some(why) = outcome.first_local_failure {
                    runtime.shutdown_timeout(Duration::from_secs(1));
                    return Err(BatchError::Client(format!(
                        "{} pages could not be fetched because this machine failed the requests ({why}); \
                         nothing was recorded for them: run the same command again to fetch them",
                        outcome.local_failures
                    )));
                }
                let mut fetched = outcome.records;
                let records: Vec<PageRecord> = slots
                    .into_iter()
                    .enumerate()
                    .map(|(i, slot)| slot.or_else(|| fetched.remove(&(first_row + i as u64))))
                    .collect::<Option<_>>()
                    .expect("every allowed URL of the chunk is fetched or journaled");
                summary.decided += records.len() as u64;
                state.counts.pages += records.iter().filter(|r| r.is_fetched()).count() as u64;
                state.output = writer.write(&records)?;
                save_state(dir, state)?;
                // The chunk is in the checkpoint: its journal is done with.
                journal.clear()?;
            }
        }
        runtime.shutdown_timeout(Duration::from_secs(1));
        let undecodable = reader.undecodable().warning(&config.input);
        end_pass(dir, state, skip, || writer.finish(), Pass::Content, undecodable, (progress, summary))?;
    }
    summary.rows = state.output.rows;
    summary.allowed = state.counts.allowed;
    summary.invalid = state.counts.invalid;
    summary.pages = state.counts.pages;
    Ok(())
}

fn count(batch: &RecordBatch, counts: &mut Counts) {
    if let Some(allowed) = batch.column_by_name("allowed").and_then(|c| c.as_any().downcast_ref::<BooleanArray>()) {
        counts.allowed += allowed.true_count() as u64;
    }
    if let Some(error) = batch.column_by_name("error") {
        counts.invalid += (error.len() - error.null_count()) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fetch_fingerprint_is_stable_and_names_each_setting() {
        // The line is kept in the state files of interrupted runs: a new
        // spelling would refuse to resume every one of them.
        assert_eq!(fetch_fingerprint(None, false), r#"user_agent="" auth_disallows=false"#);
        assert_eq!(
            fetch_fingerprint(Some("Bot/1.0 (+https://bot.example)"), false),
            r#"user_agent="Bot/1.0 (+https://bot.example)" auth_disallows=false"#
        );
        let base = fetch_fingerprint(Some("Bot/1.0"), false);
        assert_ne!(base, fetch_fingerprint(Some("Bot/1.1"), false), "another User-Agent");
        assert_ne!(base, fetch_fingerprint(Some("Bot/1.0"), true), "auth_disallows");
        assert_ne!(fetch_fingerprint(None, false), fetch_fingerprint(Some(""), true));
    }

    /// A run of three URLs (one invalid) from an empty snapshot, in `dir`.
    fn config(dir: &Path, ext: &str) -> BatchConfig {
        std::fs::write(dir.join("urls.txt"), "https://a.test/x\nnot a url\nhttps://b.test/y\n").unwrap();
        let snapshot = dir.join("snap.parquet");
        Snapshot::default().write_parquet(&snapshot).unwrap();
        BatchConfig {
            input: dir.join("urls.txt"),
            column: "url".into(),
            output: dir.join(format!("out.{ext}")),
            agent: ProductToken::new("bot").unwrap(),
            mode: RobotsMode::ReportOnly,
            shard: Shard::ALL,
            snapshot: Some(snapshot),
            snapshot_out: dir.join("unused.parquet"),
            concurrency: 1,
            batch_rows: 2,
            threads: 1,
            fetch_only: false,
            partition_bytes: crate::partition::PARTITION_BYTES,
            fetch_settings: String::new(),
            content: None,
        }
    }

    /// The state a text output's run leaves when it is killed while moving
    /// its finished output into place: complete, `finishing`, with counts.
    fn finishing_state(config: &BatchConfig, whole: &BatchSummary, bytes: u64) -> State {
        State {
            settings: settings_of(config).unwrap(),
            fetch_done: false,
            output: OutputProgress { rows: whole.rows, bytes, parts: 0 },
            counts: Counts { allowed: whole.allowed, invalid: whole.invalid, pages: 0 },
            finishing: true,
        }
    }

    #[test]
    fn a_run_killed_after_moving_its_output_ends_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path(), "csv");
        let whole = run(&config, None, &NoProgress).unwrap();
        assert_eq!((whole.rows, whole.invalid), (3, 1));
        let written = std::fs::read(&config.output).unwrap();

        // Killed after the rename, before the state directory was removed.
        let state_dir = config.state_dir();
        std::fs::create_dir(&state_dir).unwrap();
        save_state(&state_dir, &finishing_state(&config, &whole, written.len() as u64)).unwrap();
        let resumed = run(&config, None, &NoProgress).unwrap();
        assert!(resumed.resumed);
        assert_eq!((resumed.rows, resumed.allowed, resumed.invalid, resumed.decided), (3, whole.allowed, 1, 0));
        assert_eq!(std::fs::read(&config.output).unwrap(), written, "the output is kept as it was");
        assert!(!state_dir.exists());

        // Killed before the rename: the work file is moved into place.
        std::fs::create_dir(&state_dir).unwrap();
        std::fs::rename(&config.output, state_dir.join("output.partial")).unwrap();
        save_state(&state_dir, &finishing_state(&config, &whole, written.len() as u64)).unwrap();
        let resumed = run(&config, None, &NoProgress).unwrap();
        assert_eq!(resumed.rows, 3);
        assert_eq!(std::fs::read(&config.output).unwrap(), written);
        assert!(!state_dir.exists());
    }

    #[test]
    fn a_directory_without_state_is_cleared_before_a_fresh_run() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path(), "jsonl");
        // Left by a run killed while removing its state directory.
        let state_dir = config.state_dir();
        std::fs::create_dir(&state_dir).unwrap();
        std::fs::write(state_dir.join("output.partial"), "{\"stale\": true}\n").unwrap();
        let summary = run(&config, None, &NoProgress).unwrap();
        assert!(!summary.resumed);
        let text = std::fs::read_to_string(&config.output).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(!text.contains("stale"));
    }
}
