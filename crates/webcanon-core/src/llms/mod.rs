//! llms.txt: parsing and validation ([llmstxt.org](https://llmstxt.org/)).
//!
//! [`LlmsTxt::parse`] reads a file once and never fails: it returns the
//! title (H1), the blockquote summary (all its lines), the free prose before
//! the first H2, and the H2 sections with their links, plus line-numbered
//! [`Diagnostic`]s with stable codes ([`LlmsCode`]) for each mistake a
//! validator should report. Unlike the reference Python parser it keeps
//! going where real files depart from the proposal: prose and non-link list
//! items inside a section are kept, a `###` heading stays inside its section
//! as a sub-heading, URLs may hold balanced parentheses, and a missing H1 is a
//! diagnostic, not a crash.
//!
//! An llms.txt is untrusted content: this module only describes it. Bodies
//! that are not llms.txt at all (HTML, JSON, XML, robots.txt syntax, binary)
//! are recognised ([`NotLlms`]) and not read as Markdown.
//!
//! [`markdown_candidates`] and [`page_key`] implement the Markdown-copy naming
//! of llms.txt v2 (`page.md`, `page.html.md`, `index.md`, `index.html.md`).
//!
//! ```
//! use webcanon_core::llms::{LlmsCode, LlmsTxt};
//!
//! let file = LlmsTxt::parse("# Acme\n\n> Analytics.\n\n## Docs\n\n- [Start](https://acme.com/start.md): Begin here.\n- [Ref](https://acme.com/ref.html)\n");
//! assert_eq!(file.title.as_deref(), Some("Acme"));
//! assert_eq!(file.sections[0].links.len(), 2);
//! let codes: Vec<_> = file.diagnostics.iter().map(|d| (d.code, d.line)).collect();
//! assert!(codes.contains(&(LlmsCode::LinkWithoutNotes, Some(8))));
//! assert!(codes.contains(&(LlmsCode::NonMarkdownLink, Some(8))));
//! ```

mod codes;
pub mod full;
mod limits;
mod markdown_copy;
mod model;
mod parse;

pub use parse::inline_link;

pub use codes::{Diagnostic, LlmsCode, Severity};
pub use limits::{LARGE_FILE_BYTES, MAX_PARSE_BYTES};
pub use markdown_copy::{is_markdown_copy_of, markdown_candidates, page_key};
pub use model::{Link, LinkRef, LlmsTxt, NotLlms, ProseLine, Section, SubHeading};
