//! Findings about an RSL document, each with a stable code, and the
//! errors that leave nothing to read.
//!
//! Codes never change meaning once published; new checks get new codes.

use std::fmt;

pub use crate::robots::Severity;

crate::codes::diagnostic_codes! {
    /// A stable RSL diagnostic code (`RSL001`…).
    RslCode, "RSL001";
    Namespace = "RSL001", "namespace", Error,
        "The root element is not in the RSL namespace `https://rslstandard.org/rsl` (RSL 1.0 §3.1 requires it).";
    NoContent = "RSL002", "no-content", Error,
        "The document has no `content` element, so it licenses nothing (§3.1 requires one or more).";
    ContentWithoutUrl = "RSL003", "content-without-url", Warning,
        "A `content` element without its required `url` attribute; it was skipped (§3.2).";
    InvalidContentUrl = "RSL004", "invalid-content-url", Warning,
        "A `content` `url` that is neither an absolute http(s) URL nor a path starting with `/` or `*`; it matches nothing (§3.2).";
    ContentWithoutLicense = "RSL005", "content-without-license", Warning,
        "A `content` element with no `license`: it names an asset but states no terms for it.";
    UnknownUsage = "RSL006", "unknown-usage", Warning,
        "A usage token outside the RSL 1.0 vocabulary (all, ai-all, ai-train, ai-input, ai-index, search); it was ignored (§3.4.1).";
    UnknownUserType = "RSL007", "unknown-user-type", Info,
        "A user token outside commercial, non-commercial, education, government, personal (§3.4.1).";
    InvalidGeo = "RSL008", "invalid-geo", Info,
        "A geo token that is not an ISO 3166-1 alpha-2 country code.";
    UnknownTermType = "RSL009", "unknown-term-type", Warning,
        "A `permits` or `prohibits` whose `type` is not usage, user or geo; it was ignored.";
    MissingTermType = "RSL010", "missing-term-type", Info,
        "A `permits` or `prohibits` without a `type`; it was read as `usage`.";
    UnknownPaymentType = "RSL011", "unknown-payment-type", Warning,
        "A `payment` type outside purchase, subscription, training, crawl, use, contribution, attribution, free; read as requiring payment.";
    InvalidAmount = "RSL012", "invalid-amount", Warning,
        "An `amount` that is not a non-negative decimal number with a three-letter `currency`.";
    InvalidServer = "RSL013", "invalid-server", Warning,
        "A `server` attribute that is not an absolute https URL.";
    InvalidEncrypted = "RSL014", "invalid-encrypted", Info,
        "An `encrypted` attribute other than `true` or `false`; read as `false`.";
    PermittedAndProhibited = "RSL015", "permitted-and-prohibited", Warning,
        "A license that both permits and prohibits a use; the prohibition wins.";
    TooManyDiagnostics = "RSL016", "too-many-diagnostics", Info,
        "Further findings were suppressed.";
}

impl fmt::Display for RslCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for RslCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// One finding: code, severity, line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code.
    pub code: RslCode,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line it points at; `None` for the whole document.
    pub line: Option<u32>,
    /// What is wrong, quoting the document only as much as needed.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(code: RslCode, line: Option<u32>, message: String) -> Diagnostic {
        Diagnostic { code, severity: code.severity(), line, message }
    }
}

/// Why a body could not be read as an RSL document at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RslErrorKind {
    /// Longer than [`RslLimits::max_bytes`](super::RslLimits::max_bytes).
    TooLarge,
    /// Not valid UTF-8.
    NotUtf8,
    /// An HTML page, not XML.
    HtmlBody,
    /// The XML is not well-formed.
    NotWellFormed,
    /// A DOCTYPE, refused: entity declarations could expand without bound.
    DoctypeRefused,
    /// The root element is not `rsl`.
    NotRsl,
    /// Elements nested deeper than [`RslLimits::max_depth`](super::RslLimits::max_depth).
    TooDeep,
    /// More elements than [`RslLimits::max_elements`](super::RslLimits::max_elements).
    TooManyElements,
    /// An attribute value or a text longer than
    /// [`RslLimits::max_value_bytes`](super::RslLimits::max_value_bytes).
    ValueTooLong,
}

impl RslErrorKind {
    /// The kind as JSON and warnings spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            RslErrorKind::TooLarge => "too_large",
            RslErrorKind::NotUtf8 => "not_utf8",
            RslErrorKind::HtmlBody => "html_body",
            RslErrorKind::NotWellFormed => "not_well_formed",
            RslErrorKind::DoctypeRefused => "doctype_refused",
            RslErrorKind::NotRsl => "not_rsl",
            RslErrorKind::TooDeep => "too_deep",
            RslErrorKind::TooManyElements => "too_many_elements",
            RslErrorKind::ValueTooLong => "value_too_long",
        }
    }
}

impl fmt::Display for RslErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A body that is not an RSL document: what kind of failure, where, and
/// a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RslError {
    /// What went wrong.
    pub kind: RslErrorKind,
    /// The 1-based line, when one is known.
    pub line: Option<u32>,
    /// A short lowercase sentence.
    pub message: String,
}

impl fmt::Display for RslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{} (line {line}): {}", self.kind, self.message),
            None => write!(f, "{}: {}", self.kind, self.message),
        }
    }
}

impl std::error::Error for RslError {}
