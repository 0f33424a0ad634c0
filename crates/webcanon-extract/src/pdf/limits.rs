//! The caps a caller sets on one conversion.

use std::time::Duration;

/// Caps on one conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// The most pages read (default 2,000); the rest are left out with a
    /// warning.
    pub max_pages: usize,
    /// The wall-clock cap on one document (default 10 s): past it, the
    /// pages read so far, with a warning that says how far it got.
    pub time_limit: Duration,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits { max_pages: 2_000, time_limit: Duration::from_secs(10) }
    }
}
