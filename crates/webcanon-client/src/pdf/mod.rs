//! PDF to Markdown on the client's terms: `webcanon-extract`'s reader
//! ([`webcanon_extract::pdf`], whose module docs list every outcome), run
//! in a worker process ([`convert_in_worker`], which every face of
//! webcanon uses) or on the blocking pool of this process ([`convert`]),
//! under the conversion permit HTML trees share, and cut at the time
//! limit with the pages read by then.
//!
//! | input | outcome |
//! |---|---|
//! | in a worker: the reader runs out of memory, past its CPU time, overflows its stack or crashes | [`PdfError::ReaderDied`], this process untouched |
//! | in a worker that cannot be started | [`PdfError::WorkerUnavailable`] |
//! | past [`PdfLimits::time_limit`], in either | the pages read by then, [`PdfCut::Time`] |

pub mod worker;

use std::sync::Arc;

pub use webcanon_extract::pdf::{
    CHARS_PER_CODE, CMAP_ENTRY_COST, ConvertedPdf, MAX_CMAP_BYTES, MAX_CONTENT_PER_OPENING, MAX_FORM_DEPTH,
    MAX_PAGE_CHARS, MAX_PAGE_CONTENT, MAX_PAGE_TREE_DEPTH, PageCap, PdfCut, PdfError, PdfInfo, PdfLimits, ReaderDeath,
    SkippedPage, is_pdf, page_marker,
};
use webcanon_extract::pdf::{Progress, extract_into};
pub use worker::{
    DEFAULT_WORKER_MEMORY, MAX_ANSWER, MAX_INFO_FRAME, MAX_INFO_TEXT, MAX_PAGE_FRAME, PdfWorker, REQUEST_MAGIC,
    WORKER_STACK, run_worker,
};

use crate::conversion::conversion_permit;

/// Converts a PDF in a worker process started by `worker` (see
/// [`PdfWorker`]): past the time limit the worker is killed and the pages
/// it sent by then come back; a worker that dies is
/// [`PdfError::ReaderDied`].
///
/// # Errors
/// The reader's ([`PdfError`]), and a worker that died or could not be
/// started.
pub async fn convert_in_worker(worker: &PdfWorker, bytes: &[u8], limits: PdfLimits) -> Result<ConvertedPdf, PdfError> {
    worker::convert_in_worker(worker, bytes, limits).await
}

/// Converts a PDF on the blocking pool, in this process; past the time
/// limit, the pages read by then (the reader is told to stop, and stops
/// after the page it is on, still holding its conversion permit).
///
/// The reader's own bounds ([`MAX_PAGE_CHARS`], [`MAX_PAGE_CONTENT`], the
/// page-tree and nesting caps) hold here, but nothing bounds what a PDF
/// finds past them: an allocation the reader makes that no cap foresaw
/// aborts the process, and a page that takes minutes keeps a blocking
/// thread that long. Serve untrusted PDFs with [`convert_in_worker`].
///
/// # Errors
/// The reader's ([`PdfError`]).
pub async fn convert(bytes: Vec<u8>, limits: PdfLimits) -> Result<ConvertedPdf, PdfError> {
    let progress = Arc::new(Progress::default());
    let permit = conversion_permit().await;
    let shared = progress.clone();
    let reading = tokio::task::spawn_blocking(move || {
        let outcome = extract_into(bytes, &limits, &*shared);
        drop(permit);
        outcome
    });
    match tokio::time::timeout(limits.time_limit, reading).await {
        Ok(Ok(outcome)) => Ok(progress.finish(outcome?)),
        Ok(Err(_)) => Err(PdfError::ReaderFailed),
        Err(_) => {
            progress.stop();
            Ok(progress.finish(Some(PdfCut::Time)))
        }
    }
}
