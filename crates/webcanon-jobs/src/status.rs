//! What a client reads of a job: its [`JobStatus`] and [`ResultsPage`]s.

use std::collections::BTreeMap;

use serde::Serialize;

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Still producing records.
    Running,
    /// Its work ended by itself: every record is written.
    Completed,
    /// Stopped at one of its limits (`limit` says which).
    LimitReached,
    /// Cancelled by a client.
    Cancelled,
    /// Its work failed (`error` says why); the records before stay readable.
    Failed,
}

impl JobState {
    /// Whether the job has stopped producing records.
    pub fn is_finished(self) -> bool {
        self != JobState::Running
    }
}

/// The limit a job stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// `max_records`.
    Records,
    /// `max_result_bytes`.
    ResultBytes,
    /// `max_seconds`.
    Duration,
}

/// The limits a job runs under, as a client reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LimitsView {
    /// Records it may write.
    pub max_records: u64,
    /// Bytes of results it may write.
    pub max_result_bytes: u64,
    /// Seconds it may run.
    pub max_seconds: u64,
}

/// A job's status and counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobStatus {
    /// The job's id.
    pub id: String,
    /// What the job does (`map`, `crawl`).
    pub kind: String,
    /// Where it stands.
    pub state: JobState,
    /// The limit it stopped at, when `state` is `limit_reached`.
    pub limit: Option<LimitKind>,
    /// Records written and readable.
    pub records: u64,
    /// Bytes of results written.
    pub result_bytes: u64,
    /// Records counted by the value of their field named by the job (a
    /// map counts by `verdict`, a crawl by `not_fetched`); a null value
    /// counts as `none` (a crawl's pages with content), a missing one as
    /// `other`, as do values past the 64 first.
    pub counts: BTreeMap<String, u64>,
    /// Seconds since the Unix epoch at its start.
    pub started_at: u64,
    /// Milliseconds it has run (until it finished).
    pub elapsed_ms: u64,
    /// Seconds until a finished job and its results are forgotten.
    pub expires_in_seconds: Option<u64>,
    /// The limits it runs under.
    pub limits: LimitsView,
    /// Why it failed, when `state` is `failed` (the face's JSON error body).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub error: Option<serde_json::Value>,
}

/// One page of a job's records.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResultsPage {
    /// The records, in the order the job wrote them.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub records: Vec<serde_json::Value>,
    /// The cursor of the next page (a byte offset in the job's results);
    /// absent once the job has finished and every record is read. While
    /// the job runs, a page may be empty: ask again with the same cursor.
    pub next_cursor: Option<u64>,
    /// Where the job stood when the page was read.
    pub state: JobState,
}
