//! Validator findings for llms.txt, each with a stable code.
//!
//! Codes never change meaning once published; new checks get new codes.

use std::fmt;

pub use crate::robots::Severity;

crate::codes::diagnostic_codes! {
    /// A stable llms.txt diagnostic code (`L001`…).
    LlmsCode, "L001";
    MissingH1 = "L001", "missing-h1", Error,
        "The file has no H1 title; it is the only part the proposal requires.";
    MultipleH1 = "L002", "multiple-h1", Warning,
        "A second H1: the proposal allows exactly one, the site or project name.";
    ContentBeforeH1 = "L003", "content-before-h1", Warning,
        "Text before the H1; the title must come first.";
    HtmlBody = "L004", "html-body", Error,
        "The body is an HTML page, not Markdown.";
    JsonBody = "L005", "json-body", Error,
        "The body is JSON, not Markdown.";
    RobotsBody = "L006", "robots-body", Error,
        "The body is robots.txt syntax served as llms.txt.";
    LinkWithoutNotes = "L007", "link-without-notes", Info,
        "A link with no `: notes` description after it.";
    NonMarkdownLink = "L008", "non-markdown-link", Info,
        "A link whose target is not a Markdown or text file (.md, .html.md, .txt).";
    RelativeUrl = "L009", "relative-url", Warning,
        "A relative link; readers that do not resolve it against the file's URL cannot follow it.";
    EmptySection = "L010", "empty-section", Warning,
        "An H2 section without any link.";
    MalformedLink = "L011", "malformed-link", Warning,
        "A list item that starts like a link but is not `[title](url)`.";
    HeadingOutsideSection = "L012", "heading-outside-section", Warning,
        "A heading deeper than H2 before the first H2 section: the prose may not hold headings.";
    DuplicateLink = "L013", "duplicate-link", Warning,
        "The same URL listed twice.";
    LargeFile = "L014", "large-file", Warning,
        "The file is over 100 KiB; agents with small context windows will truncate it.";
    FileTruncated = "L015", "file-truncated", Error,
        "The file is over 10 MiB; only the first 10 MiB were read.";
    MissingSummary = "L016", "missing-summary", Info,
        "No blockquote summary right after the H1.";
    EmptyFile = "L017", "empty-file", Error,
        "The file is empty or holds only whitespace.";
    BinaryBody = "L018", "binary-body", Error,
        "The body is binary data, not text.";
    XmlBody = "L019", "xml-body", Error,
        "The body is XML (such as llms_txt2ctx output), not llms.txt Markdown.";
    InvalidUtf8 = "L020", "invalid-utf8", Warning,
        "The body is not valid UTF-8; invalid bytes were replaced.";
    FrontMatter = "L021", "front-matter", Info,
        "YAML front matter at the top; it is not part of the format and was skipped.";
    ProseInSection = "L022", "prose-in-section", Info,
        "Free text inside an H2 section, which should hold only a link list.";
    ListItemWithoutLink = "L023", "list-item-without-link", Info,
        "List items inside an H2 section that hold no link.";
    UnsupportedScheme = "L024", "unsupported-scheme", Warning,
        "A link whose scheme is neither http nor https (mailto:, javascript:, …).";
    DuplicateSection = "L025", "duplicate-section", Warning,
        "Two H2 sections with the same name.";
    EmptyHeading = "L026", "empty-heading", Warning,
        "A heading without text.";
    UnclosedCodeFence = "L027", "unclosed-code-fence", Warning,
        "A code fence that is never closed; everything after it is code.";
    LinkOutsideSection = "L028", "link-outside-section", Info,
        "A link list item before the first H2 section.";
    EmptyLinkTitle = "L029", "empty-link-title", Warning,
        "A link with an empty `[]` title.";
}

impl fmt::Display for LlmsCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LlmsCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// One finding: code, severity, line and message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The stable code.
    pub code: LlmsCode,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line it points at; `None` for the whole file.
    pub line: Option<u32>,
    /// What is wrong, quoting the file only as much as needed.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(code: LlmsCode, line: Option<u32>, message: String) -> Diagnostic {
        Diagnostic { code, severity: code.severity(), line, message }
    }
}
