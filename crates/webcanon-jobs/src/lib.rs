//! Long-running jobs for webcanon's services: a site map or a crawl
//! started by one request and read by the next ones.
//!
//! A job's work is a [`Stream`](futures_util::Stream) of JSON records. The
//! registry ([`Jobs`]) runs it in a task that appends each record as one
//! line to a results file of its own, so a job's results never sit in
//! memory; a client reads them in [`ResultsPage`]s from a byte-offset
//! cursor while the job runs and after. Each job stops at the first of its
//! [`JobLimits`] (records, bytes of results, time), at a cancellation, at
//! a failure, or when its work ends. The registry bounds the jobs running
//! at once and the jobs kept, and forgets a finished job with its file
//! once its time to live has passed ([`JobsConfig`]).
//!
//! What the records are, and what the work fetches, is the caller's: the
//! HTTP service and the MCP server plug `webcanon map` and `webcanon
//! crawl` in.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), webcanon_jobs::JobsError> {
//! use webcanon_jobs::{JobLimits, JobSpec, Jobs, JobsConfig};
//!
//! let jobs = Jobs::new(JobsConfig::default())?;
//! let records = futures_util::stream::iter((0..3).map(|n| Ok(serde_json::json!({"n": n}))));
//! let spec = JobSpec { kind: "count", limits: JobLimits::default(), count_by: None };
//! let started = jobs.start(spec, records)?;
//! let id = started.id.parse().expect("an id the registry made");
//! # tokio::time::sleep(std::time::Duration::from_millis(50)).await;
//! let page = jobs.page(&id, 0, 100).await?;
//! assert_eq!(page.records.len(), 3);
//! # Ok(())
//! # }
//! ```
//!
//! Feature `openapi`: utoipa schemas of [`JobStatus`] and [`ResultsPage`].

#![deny(missing_docs)]

mod id;
mod limits;
mod registry;
mod results;
mod runner;
mod status;

use std::time::Duration;

pub use id::{InvalidJobId, JobId};
pub use limits::{
    DEFAULT_MAX_DURATION, DEFAULT_MAX_KEPT, DEFAULT_MAX_RECORDS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_RUNNING,
    DEFAULT_TTL, JobLimits, JobsConfig, MAX_PAGE_BYTES, MAX_PAGE_RECORDS,
};
pub use registry::{JobSpec, Jobs};
pub use status::{JobState, JobStatus, LimitKind, LimitsView, ResultsPage};

/// The error that ends a job, as the JSON error body of the face that
/// started it; the job's status shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobFailure(pub serde_json::Value);

/// Why the registry refused a call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobsError {
    /// No job has this id (never started, or expired).
    #[error("no such job (never started, or forgotten after its time to live)")]
    NotFound,
    /// `max_running` jobs run already.
    #[error("{limit} jobs are running already; try again when one has finished")]
    TooManyRunning {
        /// The limit.
        limit: usize,
    },
    /// `max_kept` jobs are kept already.
    #[error("{limit} jobs are kept already; finished jobs are forgotten {} s after they end", ttl.as_secs())]
    TooManyKept {
        /// The limit.
        limit: usize,
        /// How long a finished job is kept.
        ttl: Duration,
    },
    /// The cursor is not one a page of this job handed out.
    #[error("cursor {cursor} is not the start of a record of this job")]
    InvalidCursor {
        /// The cursor given.
        cursor: u64,
    },
    /// A results file holds a line that is not JSON.
    #[error("the job's results are damaged: {0}")]
    CorruptResults(String),
    /// The results folder or a file could not be used.
    #[error("the job's results could not be read or written: {0}")]
    Io(#[from] std::io::Error),
    /// The system's random source failed.
    #[error("no job id could be drawn: {0}")]
    Random(String),
}
