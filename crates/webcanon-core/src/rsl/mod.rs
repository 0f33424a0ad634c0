//! Really Simple Licensing (RSL) 1.0: the licence a site publishes for its
//! content, read as usage terms ([RSL-SPEC-1.0], Recommendation of
//! 2025-11-06).
//!
//! An RSL document lists `content` entries (a URL pattern with the
//! robots.txt wildcards) and, for each, `license` alternatives that permit
//! or prohibit uses (`search`, `ai-train`, `ai-input`, `ai-index`,
//! `ai-all`, `all`), users and countries, with a payment and legal terms.
//! Like every usage signal it warns and never blocks a fetch: whether a
//! URL may be fetched is robots.txt's to say.
//!
//! - [`parse`] reads a document within [`RslLimits`], or fails with an
//!   [`RslError`] when there is nothing to read;
//! - [`RslDocument::content_for`] and [`RslDocument::decide`] find the
//!   entry that covers a URL and what it says about a declared [`Usage`];
//! - [`license_links_in_header`] and [`is_rsl_license_link`] find the
//!   document a page names; the robots.txt `License:` record is
//!   [`Robots::licenses`](crate::robots::Robots::licenses).
//!
//! ```
//! use webcanon_core::rsl::{self, LicenseVerdict, Usage};
//!
//! let doc = rsl::parse(br#"<rsl xmlns="https://rslstandard.org/rsl">
//!   <content url="/">
//!     <license><prohibits type="usage">ai-train</prohibits></license>
//!   </content>
//! </rsl>"#)?;
//! let decision = doc.decide("https://example.com/post", Usage::AiTrain).unwrap();
//! assert_eq!(decision.verdict, LicenseVerdict::Prohibited);
//! assert_eq!(doc.decide("https://example.com/post", Usage::Search).unwrap().verdict, LicenseVerdict::NotStated);
//! # Ok::<(), rsl::RslError>(())
//! ```
//!
//! [RSL-SPEC-1.0]: https://rslstandard.org/rsl

mod codes;
mod decide;
mod discovery;
mod model;
mod parse;
mod usage;

pub use codes::{Diagnostic, RslCode, RslError, RslErrorKind};
pub use decide::{LicenseVerdict, UsageDecision};
pub use discovery::{is_rsl_license_link, license_links_in_header};
pub use model::{Amount, Content, Copyright, Legal, License, Payment, PaymentType, RslDocument, Terms};
pub use parse::{RslLimits, parse, parse_with};
pub use usage::{UnknownUsage, Usage};

/// The RSL namespace, which the root element must declare (§3.1).
pub const NAMESPACE: &str = "https://rslstandard.org/rsl";

/// The media type of RSL documents, which `Link:` headers and `<link>`
/// elements name with `rel="license"` (§4).
pub const MEDIA_TYPE: &str = "application/rsl+xml";
