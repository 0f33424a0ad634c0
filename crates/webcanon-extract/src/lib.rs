//! Documents to Markdown for LLMs, with no I/O: the main text of an HTML
//! page and the text of a PDF in reading order, each within hard caps on
//! hostile input.
//!
//! - [`html`]: a page's main text as Markdown. A linear pre-scan measures
//!   the document and reads its `<head>`; a page within the caps
//!   ([`html::HtmlLimits`]) is parsed, cleaned of boilerplate, given to a
//!   Readability-style extractor, converted and tidied; a page over them
//!   is read by a linear tag stripper instead.
//! - [`charset`]: the bytes of a page decoded as a browser would (byte
//!   order mark, header, `<meta>`, then a detector).
//! - [`shape`]: what a reader receives of the Markdown ([`ContentShape`]:
//!   Markdown or plain text, links inline, as references or dropped,
//!   images kept or dropped).
//! - [`pdf`]: a PDF's text layer in reading order, page by page, within
//!   page, time and per-page cost limits ([`pdf::PdfLimits`]).
//!
//! Everything here runs on the caller's thread and returns. Fetching,
//! time limits enforced from outside (a conversion abandoned at a
//! deadline), running the PDF reader in a process of its own and limiting
//! how many conversions run at once are the caller's: webcanon's client
//! (`webcanon-client`) does all four.
//!
//! # Example
//!
//! ```
//! use url::Url;
//! use webcanon_extract::html::{self, HtmlLimits};
//! use webcanon_extract::{ContentShape, charset};
//!
//! # fn main() -> Result<(), url::ParseError> {
//! let body = b"<html><head><title>Notes</title></head><body><nav><a href=/>Home</a></nav>\
//!     <main><p>The first paragraph of the notes, with a <a href=/more>link</a>.</p></main></body></html>";
//! let url = Url::parse("https://example.com/notes")?;
//! let text = charset::decode(body, Some("text/html"), Some(&url)).text;
//! let page = html::extract(&text, &url, &HtmlLimits::default());
//! assert_eq!(page.title.as_deref(), Some("Notes"));
//! assert_eq!(
//!     ContentShape::default().apply(&page.markdown),
//!     "The first paragraph of the notes, with a [link][1].\n\n[1]: https://example.com/more"
//! );
//! # Ok(()) }
//! ```
//!
//! # Features
//!
//! - `openapi`: OpenAPI schemas (utoipa `ToSchema`) of the content shape's
//!   types and of [`pdf::PdfInfo`].

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod charset;
pub mod html;
pub mod pdf;
pub mod shape;
mod syntax;

pub use shape::{ContentFormat, ContentShape, ImageStyle, LinkStyle};
