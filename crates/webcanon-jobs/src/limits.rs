//! [`JobLimits`] (what one job may produce) and [`JobsConfig`] (what the
//! whole registry holds).

use std::path::PathBuf;
use std::time::Duration;

/// The default records one job may write.
pub const DEFAULT_MAX_RECORDS: u64 = 100_000;
/// The default bytes of results one job may write: 256 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 256 * 1024 * 1024;
/// The default time one job may run.
pub const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(30 * 60);
/// The default number of jobs running at once.
pub const DEFAULT_MAX_RUNNING: usize = 4;
/// The default number of jobs kept (running or finished, until they expire).
pub const DEFAULT_MAX_KEPT: usize = 64;
/// The default time a finished job and its results are kept.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60 * 60);
/// The most records one page of results holds.
pub const MAX_PAGE_RECORDS: usize = 1_000;
/// The most bytes of records one page of results holds (a page holds at
/// least one record, whatever its size).
pub const MAX_PAGE_BYTES: usize = 4 * 1024 * 1024;

/// What one job may produce; the job stops, with the limit it reached,
/// at the first one crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    /// Records written.
    pub max_records: u64,
    /// Bytes of results written (the JSON lines, newlines included).
    pub max_result_bytes: u64,
    /// Time from the start.
    pub max_duration: Duration,
}

impl Default for JobLimits {
    fn default() -> Self {
        JobLimits {
            max_records: DEFAULT_MAX_RECORDS,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            max_duration: DEFAULT_MAX_DURATION,
        }
    }
}

impl JobLimits {
    /// Each limit of `self`, lowered to `ceiling`'s where it is higher.
    pub fn within(self, ceiling: JobLimits) -> JobLimits {
        JobLimits {
            max_records: self.max_records.min(ceiling.max_records),
            max_result_bytes: self.max_result_bytes.min(ceiling.max_result_bytes),
            max_duration: self.max_duration.min(ceiling.max_duration),
        }
    }
}

/// The registry's settings: where results go, how many jobs at once, how
/// long they are kept, and the ceiling of every job's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobsConfig {
    /// The folder of the results files (created if missing). `None`: a
    /// folder of its own under the system's temporary folder, removed
    /// when the registry is dropped.
    pub data_dir: Option<PathBuf>,
    /// Jobs running at once; one more start is refused.
    pub max_running: usize,
    /// Jobs kept, running or finished; one more start is refused until
    /// one expires.
    pub max_kept: usize,
    /// How long a finished job and its results file are kept.
    pub ttl: Duration,
    /// The highest limits a job may ask for, and the limits of a job that
    /// asks for none.
    pub ceiling: JobLimits,
}

impl Default for JobsConfig {
    fn default() -> Self {
        JobsConfig {
            data_dir: None,
            max_running: DEFAULT_MAX_RUNNING,
            max_kept: DEFAULT_MAX_KEPT,
            ttl: DEFAULT_TTL,
            ceiling: JobLimits::default(),
        }
    }
}
