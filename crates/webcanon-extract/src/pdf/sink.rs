//! Where the reader puts what it reads, page by page, and the sink that
//! collects it in memory for whoever waits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::outcome::{ConvertedPdf, PdfCut, PdfInfo, SkippedPage};

/// Where the reader puts what it reads, page by page: a [`Progress`] in
/// memory, or anything else that takes pages as they come (webcanon's PDF
/// worker process writes each one to its parent as it is read).
pub trait PageSink {
    /// The document's metadata, before any page.
    fn info(&self, info: PdfInfo);
    /// The next page's text.
    fn page(&self, text: String);
    /// The next page, left out for its cost.
    fn skipped(&self, page: SkippedPage);
    /// Whether whoever waits has stopped waiting: the reader stops before
    /// the next page.
    fn stopped(&self) -> bool;
}

/// What the reader has done so far, shared with whoever waits: a reader on
/// another thread fills it, and the waiter may [`stop`](Progress::stop)
/// it and [`finish`](Progress::finish) with the pages read by then.
///
/// ```
/// use webcanon_extract::pdf::{PageSink, PdfCut, PdfInfo, Progress};
///
/// let progress = Progress::default();
/// progress.info(PdfInfo { pages: 3, ..PdfInfo::default() });
/// progress.page("The first page.".into());
/// progress.stop();
/// assert!(progress.stopped());
/// let converted = progress.finish(Some(PdfCut::Time));
/// assert_eq!((converted.markdown.as_str(), converted.info.pages_read), ("The first page.", 1));
/// ```
#[derive(Debug, Default)]
pub struct Progress {
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

impl Progress {
    /// Tells the reader to stop before its next page.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The text of each page read so far (a page left out is empty).
    pub fn pages_so_far(&self) -> Vec<String> {
        lock(&self.pages).clone()
    }

    /// The metadata read so far (the default until the reader has opened
    /// the document).
    pub fn info_so_far(&self) -> PdfInfo {
        lock(&self.info).clone()
    }

    /// The pages left out for their cost so far.
    pub fn skipped_so_far(&self) -> Vec<SkippedPage> {
        lock(&self.skipped).clone()
    }

    /// The result from what the reader has put here by now, `cut` saying
    /// why it stopped early (if it did); the pages are taken out.
    pub fn finish(&self, cut: Option<PdfCut>) -> ConvertedPdf {
        let pages = std::mem::take(&mut *lock(&self.pages));
        let mut info = lock(&self.info).clone();
        info.pages_read = pages.len();
        let skipped = std::mem::take(&mut *lock(&self.skipped));
        info.pages_skipped = skipped.iter().map(|s| s.page).collect();
        let no_text_layer = !pages.is_empty() && skipped.is_empty() && pages.iter().all(|p| p.trim().is_empty());
        let text: &[String] = if no_text_layer { &[] } else { &pages };
        let markdown = super::text::assemble(text);
        ConvertedPdf { markdown, info, cut, no_text_layer, skipped }
    }
}

/// The value behind `mutex`, even when a thread panicked holding it (the
/// reader's panics are caught, and what it put here by then stands).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
