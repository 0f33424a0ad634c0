//! Usage warnings attached to a result: never fetch blocks.
//!
//! The types are the core's ([`UsageWarning`](webcanon_core::signals::UsageWarning),
//! [`WarningCode`], [`WarningSource`]): one list of codes and sources for
//! the core's signal parsers and the client's fetch path.

pub use webcanon_core::signals::{UsageWarning as Warning, WarningCode, WarningSource};
