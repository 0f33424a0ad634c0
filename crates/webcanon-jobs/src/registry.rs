//! [`Jobs`]: the registry of jobs, their results files and their expiry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use futures_util::Stream;
use tokio_util::sync::CancellationToken;

use crate::id::JobId;
use crate::limits::{JobLimits, JobsConfig};
use crate::runner::{self, Progress, lock};
use crate::status::{JobStatus, LimitsView, ResultsPage};
use crate::{JobFailure, JobsError, results};

/// The subfolder of the data folder that holds the results files.
const JOBS_FOLDER: &str = "jobs";
/// The extension of a results file.
const RESULTS_EXTENSION: &str = "jsonl";
/// The extension of a job's work folder (a crawl's frontier).
const WORK_EXTENSION: &str = "work";

/// What a job is, before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSpec {
    /// What it does, as its status names it (`map`, `crawl`).
    pub kind: &'static str,
    /// The limits it asks for; each is lowered to the registry's ceiling.
    pub limits: JobLimits,
    /// The top-level string field its records are counted by in its status.
    pub count_by: Option<&'static str>,
}

/// The registry: jobs started, running and finished, each with a results
/// file, until they expire. Cheap to clone; dropping the last clone
/// cancels the running jobs (and removes the data folder it made itself).
///
/// Expired jobs are swept on every call, so no task runs in the
/// background between calls.
#[derive(Debug, Clone)]
pub struct Jobs {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: JobsConfig,
    folder: PathBuf,
    /// The folder to remove on drop, when the registry made it.
    owned_root: Option<PathBuf>,
    entries: Mutex<HashMap<JobId, Entry>>,
}

#[derive(Debug)]
struct Entry {
    kind: &'static str,
    limits: JobLimits,
    started: Instant,
    started_at: u64,
    progress: Arc<Mutex<Progress>>,
    cancel: CancellationToken,
    path: PathBuf,
    /// The job's work folder, when its work asked for one.
    work_folder: Option<PathBuf>,
}

impl Jobs {
    /// A registry under `config`. Its results folder (`jobs/` in the data
    /// folder) is created, and results files left there by an earlier
    /// process, whose jobs nobody can name any more, are removed.
    pub fn new(config: JobsConfig) -> Result<Jobs, JobsError> {
        let (root, owned_root) = match &config.data_dir {
            Some(dir) => (dir.clone(), None),
            None => {
                let id = JobId::random().map_err(|error| JobsError::Random(error.to_string()))?;
                let dir = std::env::temp_dir().join(format!("webcanon-jobs-{}", &id.as_str()[..16]));
                (dir.clone(), Some(dir))
            }
        };
        let folder = root.join(JOBS_FOLDER);
        std::fs::create_dir_all(&folder)?;
        remove_stale_results(&folder)?;
        Ok(Jobs { inner: Arc::new(Inner { config, folder, owned_root, entries: Mutex::new(HashMap::new()) }) })
    }

    /// The highest limits a job may run under.
    pub fn ceiling(&self) -> JobLimits {
        self.inner.config.ceiling
    }

    /// The folder of the results files.
    pub fn folder(&self) -> &Path {
        &self.inner.folder
    }

    /// Starts a job whose work is `records`: each `Ok` is a record (written
    /// as one JSON line), an `Err` ends the job as failed. Must be called
    /// within a Tokio runtime. Refused, with nothing started, when
    /// `max_running` jobs run or `max_kept` jobs are kept.
    pub fn start<S>(&self, spec: JobSpec, records: S) -> Result<JobStatus, JobsError>
    where
        S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send + 'static,
    {
        self.admit(spec, false, |_| records)
    }

    /// Starts a job whose work keeps files of its own (a crawl's frontier):
    /// `work` is called with an empty folder made for the job in the
    /// registry's folder, and returns the job's records as for
    /// [`Jobs::start`]. The folder and what the work put in it are removed
    /// once the job stops (and, should the process end first, by the next
    /// registry on the same folder).
    pub fn start_in<S>(&self, spec: JobSpec, work: impl FnOnce(&Path) -> S) -> Result<JobStatus, JobsError>
    where
        S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send + 'static,
    {
        self.admit(spec, true, work)
    }

    /// Starts a job, with a work folder when `with_folder` (else `work` is
    /// given the registry's folder, to read nothing from).
    fn admit<S>(&self, spec: JobSpec, with_folder: bool, work: impl FnOnce(&Path) -> S) -> Result<JobStatus, JobsError>
    where
        S: Stream<Item = Result<serde_json::Value, JobFailure>> + Send + 'static,
    {
        let config = &self.inner.config;
        let mut entries = self.entries();
        self.sweep(&mut entries);
        let running = entries.values().filter(|e| !lock(&e.progress).state.is_finished()).count();
        if running >= config.max_running {
            return Err(JobsError::TooManyRunning { limit: config.max_running });
        }
        if entries.len() >= config.max_kept {
            return Err(JobsError::TooManyKept { limit: config.max_kept, ttl: config.ttl });
        }
        let id = JobId::random().map_err(|error| JobsError::Random(error.to_string()))?;
        let path = self.inner.folder.join(format!("{id}.{RESULTS_EXTENSION}"));
        let work_folder = match with_folder {
            true => {
                let folder = self.inner.folder.join(format!("{id}.{WORK_EXTENSION}"));
                std::fs::create_dir(&folder)?;
                Some(folder)
            }
            false => None,
        };
        let file = match std::fs::File::create(&path) {
            Ok(file) => tokio::fs::File::from_std(file),
            Err(error) => {
                remove_work_folder(work_folder.as_deref());
                return Err(error.into());
            }
        };
        let records = work(work_folder.as_deref().unwrap_or(&self.inner.folder));
        let limits = spec.limits.within(config.ceiling);
        let entry = Entry {
            kind: spec.kind,
            limits,
            started: Instant::now(),
            started_at: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            progress: Arc::new(Mutex::new(Progress::new())),
            cancel: CancellationToken::new(),
            path,
            work_folder: work_folder.clone(),
        };
        let run = runner::run(records, file, entry.progress.clone(), limits, spec.count_by, entry.cancel.clone());
        tokio::spawn(async move {
            run.await;
            // The work (and the files it held open) is dropped by now.
            remove_work_folder(work_folder.as_deref());
        });
        let status = self.status_of(&id, &entry);
        entries.insert(id, entry);
        Ok(status)
    }

    /// The status of job `id`.
    pub fn status(&self, id: &JobId) -> Result<JobStatus, JobsError> {
        let mut entries = self.entries();
        self.sweep(&mut entries);
        let entry = entries.get(id).ok_or(JobsError::NotFound)?;
        Ok(self.status_of(id, entry))
    }

    /// Cancels job `id` if it runs (its work is dropped; the records
    /// written stay readable until it expires); its status after.
    pub fn cancel(&self, id: &JobId) -> Result<JobStatus, JobsError> {
        let mut entries = self.entries();
        self.sweep(&mut entries);
        let entry = entries.get(id).ok_or(JobsError::NotFound)?;
        entry.cancel.cancel();
        lock(&entry.progress).finish(crate::JobState::Cancelled, None, None);
        Ok(self.status_of(id, entry))
    }

    /// The page of job `id`'s records from `cursor` (0 for the first),
    /// at most `limit` of them (and [`MAX_PAGE_RECORDS`](crate::MAX_PAGE_RECORDS)).
    pub async fn page(&self, id: &JobId, cursor: u64, limit: usize) -> Result<ResultsPage, JobsError> {
        self.page_within(id, cursor, limit, crate::MAX_PAGE_BYTES).await
    }

    /// The page of job `id`'s records from `cursor`, as [`Jobs::page`]
    /// reads it, holding at most `max_bytes` of JSON lines (and
    /// [`MAX_PAGE_BYTES`](crate::MAX_PAGE_BYTES)); the first record is
    /// read whatever its size, so that every page moves on.
    pub async fn page_within(
        &self,
        id: &JobId,
        cursor: u64,
        limit: usize,
        max_bytes: usize,
    ) -> Result<ResultsPage, JobsError> {
        let (path, committed, state) = {
            let mut entries = self.entries();
            self.sweep(&mut entries);
            let entry = entries.get(id).ok_or(JobsError::NotFound)?;
            let progress = lock(&entry.progress);
            (entry.path.clone(), progress.committed, progress.state)
        };
        // Read after the state: a job seen finished has committed every
        // line, so an empty page at the end is the last one.
        let (records, next) = results::read_page(&path, cursor, committed, limit, max_bytes).await?;
        let next_cursor = (!state.is_finished() || next < committed).then_some(next);
        Ok(ResultsPage { records, next_cursor, state })
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<JobId, Entry>> {
        self.inner.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets the jobs finished more than the TTL ago, with their files.
    fn sweep(&self, entries: &mut HashMap<JobId, Entry>) {
        let ttl = self.inner.config.ttl;
        entries.retain(|_, entry| {
            let expired = lock(&entry.progress).finished.is_some_and(|at| at.elapsed() >= ttl);
            if expired {
                remove_file(&entry.path);
                remove_work_folder(entry.work_folder.as_deref());
            }
            !expired
        });
    }

    fn status_of(&self, id: &JobId, entry: &Entry) -> JobStatus {
        let progress = lock(&entry.progress);
        let elapsed = progress.finished.map_or_else(|| entry.started.elapsed(), |at| at - entry.started);
        let ttl = self.inner.config.ttl;
        JobStatus {
            id: id.to_string(),
            kind: entry.kind.to_string(),
            state: progress.state,
            limit: progress.limit,
            records: progress.records,
            result_bytes: progress.result_bytes,
            counts: progress.counts.clone(),
            started_at: entry.started_at,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            expires_in_seconds: progress.finished.map(|at| ttl.saturating_sub(at.elapsed()).as_secs()),
            limits: LimitsView {
                max_records: entry.limits.max_records,
                max_result_bytes: entry.limits.max_result_bytes,
                max_seconds: entry.limits.max_duration.as_secs(),
            },
            error: progress.error.clone(),
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let entries = self.entries.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        for entry in entries.values() {
            entry.cancel.cancel();
        }
        if let Some(root) = &self.owned_root {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

/// Removes the results files and work folders (named by a job id) in
/// `folder`.
fn remove_stale_results(folder: &Path) -> std::io::Result<()> {
    for item in std::fs::read_dir(folder)? {
        let path = item?.path();
        let named_by_id = path.file_stem().and_then(|s| s.to_str()).is_some_and(|s| s.parse::<JobId>().is_ok());
        let extension = path.extension().and_then(|e| e.to_str());
        match extension {
            Some(RESULTS_EXTENSION) if named_by_id => remove_file(&path),
            Some(WORK_EXTENSION) if named_by_id => remove_work_folder(Some(&path)),
            _ => {}
        }
    }
    Ok(())
}

/// Removes a job's work folder with its files, as [`remove_file`] does a
/// results file.
fn remove_work_folder(folder: Option<&Path>) {
    if let Some(folder) = folder {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// Removes a results file; one already gone, or that cannot be removed,
/// is left (a job's expiry cannot fail, and the next start of the
/// registry removes what is left in its folder).
fn remove_file(path: &Path) {
    let _ = std::fs::remove_file(path);
}
