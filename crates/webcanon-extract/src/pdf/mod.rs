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
//! | pages without any text (scanned) | empty content, [`ConvertedPdf::no_text_layer`] |
//!
//! Memory: a page is read only once its budget has bounded what it can
//! cost (its characters and decoded content, counted without decoding it
//! into memory), and the document is opened again, which empties the
//! reader's caches, once the pages read have handed it
//! [`MAX_CONTENT_PER_OPENING`] bytes of content.
//!
//! [`extract`] reads a document on the caller's thread. [`extract_into`]
//! hands each page to a [`PageSink`] as it is read, so that a caller can
//! read on another thread (or in another process) and keep the pages read
//! by a time limit of its own: a [`Progress`] collects them and
//! [`Progress::finish`] makes the result. The reader's own bounds hold
//! either way, but nothing bounds what a PDF finds past them: an
//! allocation the reader makes that no cap foresaw aborts the process, and
//! a page that takes minutes takes its thread that long. Read untrusted
//! PDFs in a process of their own, with limits on its memory and CPU time
//! (webcanon's client does: [`PdfError::ReaderDied`] says what such a
//! process died of).

mod budget;
mod fonts;
mod layout;
mod limits;
mod outcome;
mod read;
mod sink;
mod text;
mod tree;

pub use budget::caps::{
    CHARS_PER_CODE, CMAP_ENTRY_COST, MAX_CMAP_BYTES, MAX_FORM_DEPTH, MAX_PAGE_CHARS, MAX_PAGE_CONTENT,
};
pub use limits::PdfLimits;
pub use outcome::{ConvertedPdf, PageCap, PdfCut, PdfError, PdfInfo, ReaderDeath, SkippedPage};
pub use read::MAX_CONTENT_PER_OPENING;
pub use sink::{PageSink, Progress};
pub use text::page_marker;
pub use tree::MAX_PAGE_TREE_DEPTH;

/// The stack a thread that reads PDFs should have: 64 MiB, where the
/// reader recurses into nested objects (a page tree or an array thousands
/// deep that overflows a thread's usual 2 MiB).
pub const READER_STACK: usize = 64 << 20;

/// Whether an answer is a PDF: its media type, or for no type (or a
/// generic one) its first bytes (`%PDF-` within the first kilobyte, where
/// readers look for it).
///
/// ```
/// use webcanon_extract::pdf::is_pdf;
///
/// assert!(is_pdf(Some("application/pdf"), b""));
/// assert!(is_pdf(None, b"%PDF-1.7\n"));
/// assert!(!is_pdf(Some("text/html"), b"%PDF-1.7\n"));
/// ```
pub fn is_pdf(media_type: Option<&str>, body: &[u8]) -> bool {
    match media_type {
        Some("application/pdf" | "application/x-pdf") => true,
        None | Some("" | "application/octet-stream" | "binary/octet-stream") => {
            memchr::memmem::find(&body[..body.len().min(1024)], b"%PDF-").is_some()
        }
        _ => false,
    }
}

/// Converts a PDF on the caller's thread, within `limits` (time checked
/// between pages). Run it on a thread with a stack of [`READER_STACK`]
/// bytes: a document nested deeper than a usual stack allows overflows it.
///
/// ```
/// use webcanon_extract::pdf::{PdfError, PdfLimits, extract};
///
/// let outcome = extract(b"%PDF-1.7 but nothing after it", &PdfLimits::default());
/// assert!(matches!(outcome, Err(PdfError::Broken(_))));
/// ```
///
/// # Errors
/// When the PDF cannot be read at all: encrypted with a password, broken,
/// without pages, or the reader failed on it ([`PdfError`]).
pub fn extract(bytes: &[u8], limits: &PdfLimits) -> Result<ConvertedPdf, PdfError> {
    let progress = Progress::default();
    let cut = extract_into(bytes.to_vec(), limits, &progress)?;
    Ok(progress.finish(cut))
}

/// Reads `bytes` into `sink` page by page, within `limits`, and says why
/// the reading stopped early, if it did; the reader's panics are caught
/// ([`PdfError::ReaderFailed`]). The pages already in `sink` stand
/// whatever the outcome.
///
/// # Errors
/// As [`extract`]'s.
pub fn extract_into(bytes: Vec<u8>, limits: &PdfLimits, sink: &dyn PageSink) -> Result<Option<PdfCut>, PdfError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read::read(bytes, limits, sink)))
        .unwrap_or(Err(PdfError::ReaderFailed))
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
