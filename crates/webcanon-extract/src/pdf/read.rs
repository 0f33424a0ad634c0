//! The reader: `pdf_oxide`'s characters page by page, put in reading
//! order by [`layout`], into a [`PageSink`], between pages
//! checking the page limit, the time limit and the waiter's stop flag;
//! each page first checked by [`budget`](super::budget), and the document
//! opened again once the reader's caches may hold
//! [`MAX_CONTENT_PER_OPENING`].

use std::collections::HashSet;
use std::time::Instant;

use pdf_oxide::PdfDocument;
use pdf_oxide::object::Object;

use super::budget::Budget;
use super::budget::caps::MAX_PAGE_CONTENT;
use super::fonts::Fonts;
use super::limits::PdfLimits;
use super::outcome::{PdfCut, PdfError, PdfInfo, SkippedPage};
use super::sink::PageSink;
use super::{layout, text, tree};

/// The decoded content the pages read may hand one opening of the document
/// (64 MiB, a page's cap) before it is opened again from its bytes. The
/// reader keeps the decoded content of the last 64 pages it read in a cache
/// of its own (besides 64 MB of objects, 50 MB of forms' content and its
/// fonts), which only a new opening empties.
pub const MAX_CONTENT_PER_OPENING: u64 = MAX_PAGE_CONTENT;

/// Reads the document's metadata and pages into `progress`; why it stopped
/// early, if it did.
pub(super) fn read(bytes: Vec<u8>, limits: &PdfLimits, progress: &dyn PageSink) -> Result<Option<PdfCut>, PdfError> {
    read_opening_again(bytes, limits, progress, MAX_CONTENT_PER_OPENING, &mut 0)
}

/// [`read`], opening the document again whenever the pages read would
/// hand it more than `per_opening` bytes of content (counted in
/// `reopened`).
fn read_opening_again(
    bytes: Vec<u8>,
    limits: &PdfLimits,
    progress: &dyn PageSink,
    per_opening: u64,
    reopened: &mut usize,
) -> Result<Option<PdfCut>, PdfError> {
    let started = Instant::now();
    // The bytes are kept for opening the document again.
    let mut doc = PdfDocument::from_bytes(bytes.clone()).map_err(|e| opening_error(&e))?;
    let encrypted = doc.is_encrypted();
    // The reader has tried the empty password; any other is unknown.
    if encrypted && !doc.is_authenticated() {
        return Err(PdfError::Encrypted);
    }
    tree::check_page_tree(&doc)?;
    let pages = doc.page_count().map_err(|e| if encrypted { PdfError::Encrypted } else { opening_error(&e) })?;
    if pages == 0 {
        return Err(PdfError::NoPages);
    }
    progress.info(PdfInfo {
        title: info_text(&doc, "Title"),
        author: info_text(&doc, "Author"),
        pages,
        pages_read: 0,
        pages_skipped: Vec::new(),
    });
    let mut first_failure = None;
    let mut read_nothing = true;
    let mut fonts = Fonts::default();
    let wanted = pages.min(limits.max_pages);
    let mut budget = Budget::new(&doc);
    // Decoded content the reader has been handed since it was opened.
    let mut handed: u64 = 0;
    for index in 0..wanted {
        if progress.stopped() || started.elapsed() >= limits.time_limit {
            return Ok(Some(PdfCut::Time));
        }
        match budget.page(&doc, index) {
            Ok(bound) => {
                // The reader's caches, this page's content included, stay
                // within the budget (what the pre-check remembers holds for
                // the same bytes).
                if handed > 0 && handed.saturating_add(bound.content) > per_opening {
                    drop(doc);
                    doc = PdfDocument::from_bytes(bytes.clone()).map_err(|e| opening_error(&e))?;
                    handed = 0;
                    *reopened += 1;
                }
                handed = handed.saturating_add(bound.content);
            }
            Err(over) => {
                progress.skipped(SkippedPage { page: index + 1, over });
                continue;
            }
        }
        // Unfiltered `extract_chars` would keep every page's characters in
        // the document's cache until the end: this call keeps none.
        let visible = doc.get_page_visible_box(index).ok();
        let text = match doc.extract_chars_filtered(index, HashSet::new(), HashSet::new()) {
            Ok(chars) => {
                let glyphs = fonts.glyphs(chars.iter().filter(|c| visible.is_none_or(|v| layout::within(c, v))));
                // The reader's records are several times a glyph's size: gone
                // before the layout's work begins.
                drop(chars);
                text::page_markdown(&layout::page_paragraphs(glyphs))
            }
            Err(e) => {
                first_failure.get_or_insert_with(|| e.to_string());
                String::new()
            }
        };
        read_nothing &= text.is_empty();
        progress.page(text);
    }
    match first_failure {
        Some(_) if read_nothing && encrypted => Err(PdfError::Encrypted),
        Some(message) if read_nothing => Err(PdfError::Broken(message)),
        _ => Ok((pages > wanted).then_some(PdfCut::Pages)),
    }
}

/// What an error opening the document means.
fn opening_error(error: &pdf_oxide::Error) -> PdfError {
    match error {
        pdf_oxide::Error::EncryptedPdf => PdfError::Encrypted,
        other => PdfError::Broken(other.to_string()),
    }
}

/// A text entry of the document information dictionary, when present and
/// not blank.
fn info_text(doc: &PdfDocument, key: &str) -> Option<String> {
    let info = doc.trailer().as_dict()?.get("Info")?;
    let info = match info {
        Object::Reference(_) => doc.resolve_object(info).ok()?,
        other => other.clone(),
    };
    let value = info.as_dict()?.get(key)?;
    let value = match value {
        Object::Reference(_) => doc.resolve_object(value).ok()?,
        other => other.clone(),
    };
    let text = pdf_oxide::optional_content::decode_pdf_text_string(value.as_string()?);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::sink::Progress;
    use webcanon_test::pdf::PdfSpec;

    #[test]
    fn a_document_opened_again_between_pages_reads_the_same() {
        let pdf = PdfSpec::numbered(6)
            .form(b"BT /F1 12 Tf 72 700 Td (A form drawn on the page.) Tj ET")
            .drawn_page(b"/Fm1 Do BT /F1 12 Tf 72 600 Td (And text of its own.) Tj ET")
            .build();
        let read = |per_opening: u64| {
            let progress = Progress::default();
            let mut reopened = 0;
            let cut = read_opening_again(pdf.clone(), &PdfLimits::default(), &progress, per_opening, &mut reopened);
            assert_eq!(cut, Ok(None));
            (progress.pages_so_far(), reopened)
        };
        let (once, none) = read(MAX_CONTENT_PER_OPENING);
        let (again, reopened) = read(1);
        assert_eq!((none, reopened), (0, 6));
        assert_eq!(once, again);
        assert!(
            again[6].contains("A form drawn on the page.") && again[6].contains("And text of its own."),
            "{again:?}"
        );
    }
}
