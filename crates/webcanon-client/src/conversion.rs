//! The turns every document conversion takes: HTML trees and PDFs, in this
//! process or in a worker, at most one per core at a time, process-wide.
//! They are CPU-bound, so more at once only adds memory (a tree needs up
//! to about twelve times its page); the rest wait their turn.

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A turn to convert a document. The permit goes with the work: a
/// conversion abandoned at its time limit still counts until its thread
/// (or its worker process) ends.
pub(crate) async fn conversion_permit() -> OwnedSemaphorePermit {
    static CONVERSIONS: OnceLock<Arc<Semaphore>> = OnceLock::new();
    let permits = CONVERSIONS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Arc::new(Semaphore::new(cores))
    });
    permits.clone().acquire_owned().await.expect("the semaphore is never closed")
}
