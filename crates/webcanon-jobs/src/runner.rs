//! The task behind a job: it drains the job's stream of records into its
//! results file, counts them, and stops at the first limit, at a
//! cancellation, at a failure, or when the stream ends.

use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::JobFailure;
use crate::limits::JobLimits;
use crate::status::{JobState, LimitKind};

/// A record waits about this long at most in the write buffer, so that
/// readers see it soon.
const FLUSH_AFTER: Duration = Duration::from_millis(100);
/// Buffered bytes written out at once.
const FLUSH_BYTES: usize = 64 * 1024;
/// Distinct values of the counted field kept; the rest count under [`OTHER`].
const MAX_COUNTED_VALUES: usize = 64;
/// The count of values past [`MAX_COUNTED_VALUES`], and of records whose
/// counted field is missing or neither a string nor null.
const OTHER: &str = "other";
/// The count of records whose counted field is null (a crawl's page with
/// content has no `not_fetched` reason).
const NULL: &str = "none";

/// What readers see of a running job, updated by its runner.
#[derive(Debug)]
pub(crate) struct Progress {
    pub records: u64,
    pub result_bytes: u64,
    /// Bytes of whole lines flushed: what readers may read.
    pub committed: u64,
    pub counts: std::collections::BTreeMap<String, u64>,
    pub state: JobState,
    pub limit: Option<LimitKind>,
    pub error: Option<serde_json::Value>,
    /// When the job stopped.
    pub finished: Option<std::time::Instant>,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            records: 0,
            result_bytes: 0,
            committed: 0,
            counts: std::collections::BTreeMap::new(),
            state: JobState::Running,
            limit: None,
            error: None,
            finished: None,
        }
    }

    fn count(&mut self, record: &serde_json::Value, field: Option<&str>) {
        let Some(field) = field else { return };
        let value = match record.get(field) {
            Some(serde_json::Value::String(value)) => value.as_str(),
            Some(serde_json::Value::Null) => NULL,
            _ => OTHER,
        };
        let key = if self.counts.contains_key(value) || self.counts.len() < MAX_COUNTED_VALUES { value } else { OTHER };
        *self.counts.entry(key.to_string()).or_default() += 1;
    }

    /// Marks the job stopped (once: a cancellation that races the end of
    /// the work keeps whichever came first).
    pub fn finish(&mut self, state: JobState, limit: Option<LimitKind>, error: Option<serde_json::Value>) {
        if self.state == JobState::Running {
            self.state = state;
            self.limit = limit;
            self.error = error;
            self.finished = Some(std::time::Instant::now());
        }
    }
}

/// How the loop ended.
enum End {
    Completed,
    Limit(LimitKind),
    Cancelled,
    Failed(serde_json::Value),
}

/// Writes `records` to `file` under `limits` until one of them, `cancel`,
/// a failure or the stream's end; the stream is dropped (its work
/// stopped) before the job is marked finished.
pub(crate) async fn run<S>(
    records: S,
    file: tokio::fs::File,
    progress: Arc<Mutex<Progress>>,
    limits: JobLimits,
    count_by: Option<&'static str>,
    cancel: CancellationToken,
) where
    S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send,
{
    let deadline = Instant::now() + limits.max_duration;
    let mut writer = Writer {
        out: BufWriter::with_capacity(FLUSH_BYTES * 2, file),
        written: 0,
        buffered: 0,
        last_commit: Instant::now(),
    };
    let end = {
        let mut records = pin!(records);
        drain(&mut records, &mut writer, &progress, limits, count_by, deadline, &cancel).await
    };
    let flushed = writer.commit(&progress).await;
    let mut progress = lock(&progress);
    match (end, flushed) {
        (End::Cancelled, _) => progress.finish(JobState::Cancelled, None, None),
        (_, Err(error)) | (End::Failed(error), _) => progress.finish(JobState::Failed, None, Some(error)),
        (End::Limit(limit), _) => progress.finish(JobState::LimitReached, Some(limit), None),
        (End::Completed, _) => progress.finish(JobState::Completed, None, None),
    }
}

async fn drain<S>(
    records: &mut std::pin::Pin<&mut S>,
    writer: &mut Writer,
    progress: &Mutex<Progress>,
    limits: JobLimits,
    count_by: Option<&'static str>,
    deadline: Instant,
    cancel: &CancellationToken,
) -> End
where
    S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send,
{
    let mut full = false;
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return End::Cancelled,
            () = tokio::time::sleep_until(deadline) => return End::Limit(LimitKind::Duration),
            next = tokio::time::timeout(FLUSH_AFTER, records.next()) => next,
        };
        let record = match next {
            Err(_idle) => {
                if let Err(error) = writer.commit(progress).await {
                    return End::Failed(error);
                }
                continue;
            }
            Ok(None) => return End::Completed,
            Ok(Some(Err(JobFailure(error)))) => return End::Failed(error),
            Ok(Some(Ok(record))) => record,
        };
        // One record past `max_records` tells a job that stopped at its
        // limit from one whose work ended there.
        if full {
            return End::Limit(LimitKind::Records);
        }
        let mut line = serde_json::to_vec(&record).unwrap_or_default();
        line.push(b'\n');
        let written = lock(progress).result_bytes;
        if written + line.len() as u64 > limits.max_result_bytes {
            return End::Limit(LimitKind::ResultBytes);
        }
        if let Err(error) = writer.write(&line, progress).await {
            return End::Failed(error);
        }
        let mut shared = lock(progress);
        shared.records += 1;
        shared.result_bytes += line.len() as u64;
        shared.count(&record, count_by);
        full = shared.records >= limits.max_records;
    }
}

/// The buffered results file and how much of it is whole lines.
struct Writer {
    out: BufWriter<tokio::fs::File>,
    written: u64,
    buffered: usize,
    last_commit: Instant,
}

impl Writer {
    async fn write(&mut self, line: &[u8], progress: &Mutex<Progress>) -> Result<(), serde_json::Value> {
        self.out.write_all(line).await.map_err(io_failure)?;
        self.written += line.len() as u64;
        self.buffered += line.len();
        if self.buffered >= FLUSH_BYTES || self.last_commit.elapsed() >= FLUSH_AFTER {
            self.commit(progress).await?;
        }
        Ok(())
    }

    /// Flushes the buffer and lets readers see every whole line.
    async fn commit(&mut self, progress: &Mutex<Progress>) -> Result<(), serde_json::Value> {
        if self.buffered == 0 {
            return Ok(());
        }
        self.out.flush().await.map_err(io_failure)?;
        self.buffered = 0;
        self.last_commit = Instant::now();
        lock(progress).committed = self.written;
        Ok(())
    }
}

fn io_failure(error: std::io::Error) -> serde_json::Value {
    serde_json::json!({"kind": "io", "message": format!("the job's results could not be written: {error}")})
}

pub(crate) fn lock(progress: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    progress.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
