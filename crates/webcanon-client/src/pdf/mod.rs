//! PDF to Markdown for LLMs: the text layer of each page in reading order,
//! paragraphs joined, hyphenation at line ends repaired, page breaks
//! marked, title and author from the document information dictionary.
//!
//! The reader is `pdf_oxide` (pure Rust); the reading order of a page's
//! characters is this crate's own (`layout`). PDF readers panic and loop on
//! hostile input, so every conversion has defined outcomes:
//!
//! | input | outcome |
//! |---|---|
//! | more pages than [`PdfLimits::max_pages`] | the first pages, [`PdfCut::Pages`] |
//! | past [`PdfLimits::time_limit`] | the pages read by then, [`PdfCut::Time`] |
//! | a page that can make more than [`MAX_PAGE_CHARS`] characters, or has more than [`MAX_PAGE_CONTENT`] bytes of decoded content | the other pages; that page is not read, [`ConvertedPdf::skipped`] |
//! | encrypted with a password | [`PdfError::Encrypted`] |
//! | not readable (broken, truncated past repair) | [`PdfError::Broken`] |
//! | no pages | [`PdfError::NoPages`] |
//! | the reader panics | [`PdfError::ReaderFailed`] (the panic is caught) |
//! | a page tree that lists a node twice, or is more than [`MAX_PAGE_TREE_DEPTH`] deep | [`PdfError::Broken`], before the reader walks it |
//! | a page whose fonts' `/ToUnicode` CMaps cost more than [`MAX_PAGE_CONTENT`] ([`CMAP_ENTRY_COST`] a code a `bfrange` maps) | that page is not read, [`ConvertedPdf::skipped`] |
//! | in a worker ([`convert_in_worker`]): the reader runs out of memory, past its CPU time, overflows its stack or crashes | [`PdfError::ReaderDied`], this process untouched |
//! | pages without any text (scanned) | empty content, [`ConvertedPdf::no_text_layer`] |
//!
//! Memory: a page is read only once its budget has bounded what it can
//! cost (its characters and decoded content, counted without decoding it
//! into memory), and the document is opened again, which empties the
//! reader's caches, once the pages read have handed it
//! [`MAX_CONTENT_PER_OPENING`] bytes of content.
//!
//! [`convert_in_worker`] runs the reader in a worker process (the
//! [`worker`] module: limits, protocol), which every face of webcanon
//! uses; [`convert`] runs it on the blocking pool of this process and
//! stops waiting at the time limit; [`pdf_to_markdown`] is the same work
//! on the caller's thread (the worker, the fuzz target and the benchmark
//! call it).

mod budget;
mod fonts;
mod layout;
mod read;
mod text;
mod tree;
pub mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

pub use budget::{CHARS_PER_CODE, CMAP_ENTRY_COST, MAX_CMAP_BYTES, MAX_FORM_DEPTH, MAX_PAGE_CHARS, MAX_PAGE_CONTENT};
pub use read::MAX_CONTENT_PER_OPENING;
pub use text::page_marker;
pub use tree::MAX_PAGE_TREE_DEPTH;
pub use worker::{
    DEFAULT_WORKER_MEMORY, MAX_ANSWER, MAX_INFO_FRAME, MAX_INFO_TEXT, MAX_PAGE_FRAME, PdfWorker, REQUEST_MAGIC,
    WORKER_STACK, run_worker,
};

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

/// What is known about a PDF besides its text: the fetch result's `pdf`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PdfInfo {
    /// The document's title (its information dictionary's `Title`).
    pub title: Option<String>,
    /// Its author (`Author`).
    pub author: Option<String>,
    /// How many pages it has (as its page tree says).
    pub pages: usize,
    /// How many of them were read (fewer when cut by a limit), those
    /// left out for their cost included.
    pub pages_read: usize,
    /// The pages (numbered from 1) whose text was left out because reading
    /// them would pass a cap ([`MAX_PAGE_CHARS`], [`MAX_PAGE_CONTENT`]);
    /// absent from JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages_skipped: Vec<usize>,
}

/// Why a conversion stopped before the last page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PdfCut {
    /// More pages than [`PdfLimits::max_pages`].
    Pages,
    /// It ran past [`PdfLimits::time_limit`].
    Time,
}

/// The cap a page is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageCap {
    /// It can make more than [`MAX_PAGE_CHARS`] characters.
    Characters,
    /// It has more than [`MAX_PAGE_CONTENT`] bytes of decoded content.
    Content,
}

/// A page whose text was left out for its cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedPage {
    /// Its number, from 1.
    pub page: usize,
    /// The cap it is over.
    pub over: PageCap,
}

/// A converted PDF.
#[derive(Debug, Clone)]
pub struct ConvertedPdf {
    /// The text as Markdown: paragraphs, a [`page_marker`] line before
    /// every page after the first (the title is in [`ConvertedPdf::info`]).
    pub markdown: String,
    /// Title, author, page counts.
    pub info: PdfInfo,
    /// Why it stopped early, if it did.
    pub cut: Option<PdfCut>,
    /// Whether it has pages but not a character of text on any page read
    /// (a scan without a text layer; no OCR is done), no page having been
    /// left out.
    pub no_text_layer: bool,
    /// The pages left out for their cost, in order (their text is empty).
    pub skipped: Vec<SkippedPage>,
}

/// Why a PDF could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PdfError {
    /// Encrypted, and not readable without a password.
    #[error("it is encrypted and needs a password")]
    Encrypted,
    /// Not a readable PDF (broken, or truncated past repair).
    #[error("it is not a readable PDF: {0}")]
    Broken(String),
    /// Its page tree has no pages.
    #[error("it has no pages")]
    NoPages,
    /// The reader failed on it (a panic, caught).
    #[error("the PDF reader failed on it")]
    ReaderFailed,
    /// The worker process reading it died before it had read it, or
    /// answered out of protocol ([`PdfWorker`]).
    #[error("the PDF reader {0}")]
    ReaderDied(ReaderDeath),
    /// No worker process could be started to read it.
    #[error("the PDF reader could not be started: {0}")]
    WorkerUnavailable(String),
}

/// What a worker process reading a PDF died of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReaderDeath {
    /// It reached its address-space limit ([`PdfWorker::memory_limit`]).
    #[error("ran out of memory")]
    OutOfMemory,
    /// It used up its CPU time, or the time limit passed before it had
    /// opened the document.
    #[error("ran past its time")]
    OutOfTime,
    /// It crashed (a stack overflow, a signal, an exit without an answer).
    #[error("crashed ({0})")]
    Crashed(String),
    /// Its answer broke the protocol (what was wrong with it).
    #[error("gave an answer out of protocol ({0})")]
    BadAnswer(String),
}

/// Whether an answer is a PDF: its media type, or for no type (or a
/// generic one) its first bytes (`%PDF-` within the first kilobyte, where
/// readers look for it).
pub fn is_pdf(media_type: Option<&str>, body: &[u8]) -> bool {
    match media_type {
        Some("application/pdf" | "application/x-pdf") => true,
        None | Some("" | "application/octet-stream" | "binary/octet-stream") => {
            memchr::memmem::find(&body[..body.len().min(1024)], b"%PDF-").is_some()
        }
        _ => false,
    }
}

/// Where the reader puts what it reads, page by page: a [`Progress`] in
/// this process, the worker's answer frames in a worker.
pub(crate) trait PageSink {
    /// The document's metadata, before any page.
    fn info(&self, info: PdfInfo);
    /// The next page's text.
    fn page(&self, text: String);
    /// The next page, left out for its cost.
    fn skipped(&self, page: SkippedPage);
    /// Whether whoever waits has stopped waiting.
    fn stopped(&self) -> bool;
}

/// What the reading thread has done so far, shared with whoever waits.
#[derive(Debug, Default)]
struct Progress {
    /// Each page's text, in order.
    pages: Mutex<Vec<String>>,
    /// Metadata, once read.
    info: Mutex<PdfInfo>,
    /// The pages left out for their cost.
    skipped: Mutex<Vec<SkippedPage>>,
    /// Set by the waiter to stop the reader between pages.
    stop: AtomicBool,
}

impl PageSink for Progress {
    fn info(&self, info: PdfInfo) {
        *lock(&self.info) = info;
    }

    fn page(&self, text: String) {
        lock(&self.pages).push(text);
    }

    fn skipped(&self, page: SkippedPage) {
        lock(&self.skipped).push(page);
        lock(&self.pages).push(String::new());
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads `bytes` into `progress`, catching the reader's panics.
fn read_caught(bytes: Vec<u8>, limits: &PdfLimits, progress: &dyn PageSink) -> Result<Option<PdfCut>, PdfError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read::read(bytes, limits, progress)))
        .unwrap_or(Err(PdfError::ReaderFailed))
}

/// The result from what `progress` holds.
fn finish(progress: &Progress, cut: Option<PdfCut>) -> ConvertedPdf {
    let pages = std::mem::take(&mut *lock(&progress.pages));
    let mut info = lock(&progress.info).clone();
    info.pages_read = pages.len();
    let skipped = std::mem::take(&mut *lock(&progress.skipped));
    info.pages_skipped = skipped.iter().map(|s| s.page).collect();
    let no_text_layer = !pages.is_empty() && skipped.is_empty() && pages.iter().all(|p| p.trim().is_empty());
    let text: &[String] = if no_text_layer { &[] } else { &pages };
    let markdown = text::assemble(text);
    ConvertedPdf { markdown, info, cut, no_text_layer, skipped }
}

/// Converts a PDF on the caller's thread, within `limits` (time checked
/// between pages).
pub fn pdf_to_markdown(bytes: &[u8], limits: &PdfLimits) -> Result<ConvertedPdf, PdfError> {
    let progress = Progress::default();
    let cut = read_caught(bytes.to_vec(), limits, &progress)?;
    Ok(finish(&progress, cut))
}

/// Converts a PDF in a worker process started by `worker` (see
/// [`PdfWorker`]): past the time limit the worker is killed and the pages
/// it sent by then come back; a worker that dies is
/// [`PdfError::ReaderDied`].
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
pub async fn convert(bytes: Vec<u8>, limits: PdfLimits) -> Result<ConvertedPdf, PdfError> {
    let progress = Arc::new(Progress::default());
    let permit = crate::page::conversion_permit().await;
    let shared = progress.clone();
    let reading = tokio::task::spawn_blocking(move || {
        let outcome = read_caught(bytes, &limits, &*shared);
        drop(permit);
        outcome
    });
    match tokio::time::timeout(limits.time_limit, reading).await {
        Ok(Ok(outcome)) => Ok(finish(&progress, outcome?)),
        Ok(Err(_)) => Err(PdfError::ReaderFailed),
        Err(_) => {
            progress.stop.store(true, Ordering::Relaxed);
            Ok(finish(&progress, Some(PdfCut::Time)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdfs_are_known_by_type_or_by_their_first_bytes() {
        assert!(is_pdf(Some("application/pdf"), b""));
        assert!(is_pdf(None, b"%PDF-1.7\n"));
        assert!(is_pdf(Some("application/octet-stream"), b"\n\n%PDF-1.4"));
        assert!(!is_pdf(Some("text/html"), b"%PDF-1.4"));
        assert!(!is_pdf(None, b"<html>"));
    }
}
