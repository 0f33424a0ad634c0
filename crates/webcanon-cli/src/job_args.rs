//! The flags of the faces that run map and crawl jobs (`serve`, `mcp`):
//! where their results and frontiers go, how many run and are kept at
//! once, how long they are kept, and what one job may produce.

use std::path::PathBuf;

use clap::Args;
use webcanon_jobs::{
    DEFAULT_MAX_DURATION, DEFAULT_MAX_KEPT, DEFAULT_MAX_RECORDS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_RUNNING,
    DEFAULT_TTL, JobLimits, Jobs, JobsConfig,
};

use crate::error::CliError;
use crate::listen_args::seconds;

/// Flags of the registry of jobs.
#[derive(Debug, Args)]
pub struct JobArgs {
    /// Where jobs keep their results and crawl frontiers (in DIR/jobs/,
    /// files left by an earlier run removed at start) [default: a folder
    /// of its own under the system's temporary folder, removed at exit].
    #[arg(long, value_name = "DIR")]
    pub job_dir: Option<PathBuf>,
    /// Map and crawl jobs running at once; one more start is refused (429
    /// on HTTP).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RUNNING)]
    pub max_jobs: usize,
    /// Jobs kept, running or finished, until they expire; one more start is
    /// refused.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_KEPT)]
    pub max_kept_jobs: usize,
    /// How long a finished job and its results are kept, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TTL.as_secs_f64())]
    pub job_ttl: f64,
    /// The most records one job writes (a request may ask for fewer).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RECORDS)]
    pub job_max_records: u64,
    /// The most bytes of results (JSON lines) one job writes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_RESULT_BYTES)]
    pub job_max_result_bytes: u64,
    /// The most time one job runs, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_MAX_DURATION.as_secs_f64())]
    pub job_max_seconds: f64,
}

impl JobArgs {
    /// The registry's settings, each flag checked: counts of at least 1,
    /// positive times.
    pub fn config(&self) -> Result<JobsConfig, CliError> {
        let at_least_one = |flag: &str, value: u64| match value {
            0 => Err(CliError::usage(format!("--{flag} must be at least 1"))),
            _ => Ok(value),
        };
        at_least_one("max-jobs", self.max_jobs as u64)?;
        at_least_one("max-kept-jobs", self.max_kept_jobs as u64)?;
        if self.max_kept_jobs < self.max_jobs {
            return Err(CliError::usage(format!(
                "--max-kept-jobs ({}) must be at least --max-jobs ({}): running jobs are kept too",
                self.max_kept_jobs, self.max_jobs
            )));
        }
        Ok(JobsConfig {
            data_dir: self.job_dir.clone(),
            max_running: self.max_jobs,
            max_kept: self.max_kept_jobs,
            ttl: seconds("job-ttl", self.job_ttl)?,
            ceiling: JobLimits {
                max_records: at_least_one("job-max-records", self.job_max_records)?,
                max_result_bytes: at_least_one("job-max-result-bytes", self.job_max_result_bytes)?,
                max_duration: seconds("job-max-seconds", self.job_max_seconds)?,
            },
        })
    }
}

/// The registry under `config`, its folder made (and emptied of an earlier
/// run's jobs).
pub fn registry(config: JobsConfig) -> Result<Jobs, CliError> {
    let folder = config.data_dir.as_ref().map_or_else(|| "a temporary folder".into(), |d| d.display().to_string());
    Jobs::new(config).map_err(|e| CliError::usage(format!("--job-dir: cannot keep jobs in {folder}: {e}")))
}
