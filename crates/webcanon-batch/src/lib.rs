//! Dataset-scale robots.txt decisions: `webcanon batch`.
//!
//! Two passes over a list of URLs (text, CSV or Parquet):
//!
//! 1. the **fetch pass** takes the distinct origins (of one shard), fetches
//!    each robots.txt politely through [`webcanon_client::Client`] (many
//!    hosts at once, one request at a time per host) and writes a robots
//!    [`snapshot`] (Parquet: origin, status, body, fetched_at, …);
//! 2. the **verdict pass** decides every URL from the snapshot, offline and
//!    reproducibly, over Arrow record batches, and writes Parquet, CSV or
//!    JSON lines.
//!
//! With `--content` ([`run::BatchConfig::content`]), the verdict pass gives
//! way to the [`content`] pass: every allowed URL is fetched and converted
//! through the client, and the output holds one
//! [`PageRecord`](webcanon_client::PageRecord) per URL ([`page_records`]).
//!
//! Every pass checkpoints as it goes: a killed run resumes without fetching
//! an origin twice or losing or repeating a row.
//!
//! ```
//! use std::sync::Arc;
//! use arrow::array::{Array, BooleanArray, StringArray};
//! use webcanon_batch::snapshot::{Snapshot, SnapshotEntry, SnapshotStatus};
//! use webcanon_batch::verdict::VerdictPass;
//! use webcanon_core::policy::{RobotsAvailability, RobotsMode};
//!
//! let snapshot = Snapshot::from_entries([SnapshotEntry {
//!     origin: "https://example.com".into(),
//!     status: SnapshotStatus::Robots(RobotsAvailability::Parsed),
//!     http_status: Some(200),
//!     body: Some(b"User-agent: *\nDisallow: /private\n".to_vec()),
//!     fetched_at: 1_700_000_000,
//!     error: None,
//!     last_good_at: None,
//! }]);
//! let pass = VerdictPass::new(Arc::new(snapshot), "ExampleBot".parse().unwrap(), RobotsMode::Respect);
//! let urls = StringArray::from(vec!["https://example.com/private/a", "https://example.com/public"]);
//! let rows = pass.decide(&urls)?;
//! let allowed = rows.column_by_name("allowed").unwrap().as_any().downcast_ref::<BooleanArray>().unwrap();
//! assert!(!allowed.value(0));
//! assert!(allowed.value(1));
//! # Ok::<(), webcanon_batch::BatchError>(())
//! ```

pub mod content;
mod error;
pub mod fetch;
pub mod input;
mod journal;
pub mod origin;
pub mod output;
pub mod page_records;
mod partition;
mod progress;
pub mod run;
pub mod snapshot;
mod undecodable;
pub mod verdict;

pub use error::{BatchError, FailureKind};
pub use journal::read as read_journal;
pub use partition::PARTITION_BYTES;
pub use undecodable::{UNDECODABLE, UndecodableLines};
