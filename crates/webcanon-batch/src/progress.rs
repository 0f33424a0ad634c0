//! Progress reports of a run: the passes, and what watches them (the
//! CLI's bars, or nobody).

/// The passes, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Reading the input for its distinct origins.
    Origins,
    /// Fetching robots.txt, counted in origins.
    Fetch,
    /// Deciding URLs, counted in rows.
    Verdict,
    /// Fetching and converting the allowed URLs (`--content`), counted in
    /// rows.
    Content,
}

/// Receives progress: the CLI draws bars with it.
pub trait Progress: Sync {
    /// A pass begins: `total` items (if known), `done` of them already done
    /// by an earlier, interrupted run.
    fn begin(&self, pass: Pass, total: Option<u64>, done: u64);
    /// `n` more items done.
    fn advance(&self, pass: Pass, n: u64);
    /// The pass ended.
    fn end(&self, pass: Pass);
    /// The run met something it recovered from (a damaged checkpoint redone),
    /// said in a sentence; it is in [`BatchSummary::warnings`](crate::run::BatchSummary::warnings) too.
    fn warn(&self, message: &str) {
        let _ = message;
    }
}

/// Progress nobody watches.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _: Pass, _: Option<u64>, _: u64) {}
    fn advance(&self, _: Pass, _: u64) {}
    fn end(&self, _: Pass) {}
}
