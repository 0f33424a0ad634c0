//! What a conversion comes to: the text and what is known about the
//! document, why it stopped early, the pages left out, or why the PDF
//! could not be read at all.

/// What is known about a PDF besides its text: the fetch result's `pdf`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
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
    /// them would pass a cap on characters or decoded content
    /// (`MAX_PAGE_CHARS`, `MAX_PAGE_CONTENT`); absent from JSON when there
    /// are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages_skipped: Vec<usize>,
}

/// Why a conversion stopped before the last page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PdfCut {
    /// More pages than [`PdfLimits::max_pages`](super::PdfLimits::max_pages).
    Pages,
    /// It ran past [`PdfLimits::time_limit`](super::PdfLimits::time_limit).
    Time,
}

/// The cap a page is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageCap {
    /// It can make more than [`MAX_PAGE_CHARS`](super::MAX_PAGE_CHARS) characters.
    Characters,
    /// It has more than [`MAX_PAGE_CONTENT`](super::MAX_PAGE_CONTENT) bytes of decoded content.
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
    /// The text as Markdown: paragraphs, a [`page_marker`](super::page_marker) line before
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
///
/// [`extract`](super::extract) returns the first four; the last two are
/// for a caller that runs the reader in a process of its own (webcanon's
/// client does, under memory and CPU limits) and learns that the process
/// died or never started.
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
    /// The process reading it died before it had read it, or answered
    /// out of protocol.
    #[error("the PDF reader {0}")]
    ReaderDied(ReaderDeath),
    /// No process could be started to read it.
    #[error("the PDF reader could not be started: {0}")]
    WorkerUnavailable(String),
}

/// What a process reading a PDF died of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReaderDeath {
    /// It reached its address-space limit.
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
