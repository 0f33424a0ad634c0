//! A parsed llms.txt file: its title, summary, sections and links.

use super::codes::{Diagnostic, Severity};

/// What a body is when it is not an llms.txt Markdown file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum NotLlms {
    /// Nothing but whitespace.
    Empty,
    /// An HTML page (a soft 404, an SPA shell, a trap).
    Html,
    /// A JSON document.
    Json,
    /// An XML document, such as the `<project>` output of `llms_txt2ctx`.
    Xml,
    /// robots.txt records (`User-agent:`, `Disallow:`).
    Robots,
    /// Binary data.
    Binary,
}

impl NotLlms {
    /// What the body is, in words that fit "the file is …": `empty`, `an
    /// HTML page`, `JSON`, `XML`, `robots.txt syntax`, `binary data`.
    pub fn describe(self) -> &'static str {
        match self {
            NotLlms::Empty => "empty",
            NotLlms::Html => "an HTML page",
            NotLlms::Json => "JSON",
            NotLlms::Xml => "XML",
            NotLlms::Robots => "robots.txt syntax",
            NotLlms::Binary => "binary data",
        }
    }
}

/// A parsed llms.txt file.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LlmsTxt {
    /// The H1 text: the site or project name.
    pub title: Option<String>,
    /// The line of the H1.
    pub title_line: Option<u32>,
    /// The blockquote right after the H1, all its lines joined with spaces
    /// (an empty `>` line becomes a paragraph break).
    pub summary: Option<String>,
    /// The first line of the summary blockquote.
    pub summary_line: Option<u32>,
    /// Free Markdown between the title (or summary) and the first H2, as
    /// written, without leading and trailing blank lines.
    pub prose: String,
    /// Link list items found before the first H2 (some generators put all
    /// links there); they are also in the prose.
    pub intro_links: Vec<Link>,
    /// The H2 sections, in file order.
    pub sections: Vec<Section>,
    /// Findings, in line order (file-wide ones first).
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the body is not llms.txt Markdown at all; then nothing else
    /// is read from it.
    pub not_llms: Option<NotLlms>,
    /// Number of lines read.
    pub line_count: u32,
}

/// An H2 section: its name, links, sub-headings and stray prose.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Section {
    /// The H2 text.
    pub name: String,
    /// The line of the H2.
    pub line: u32,
    /// The links, in file order.
    pub links: Vec<Link>,
    /// `###` (and deeper) headings inside the section.
    pub subheadings: Vec<SubHeading>,
    /// Lines that are neither links nor headings (prose, list items without
    /// a link), kept as written.
    pub prose: Vec<ProseLine>,
}

impl Section {
    /// Whether this is the `## Optional` section, whose links a reader may
    /// skip when its context budget is tight.
    pub fn is_optional(&self) -> bool {
        self.name.eq_ignore_ascii_case("optional")
    }
}

/// A heading deeper than H2 inside a section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SubHeading {
    /// 3 for `###`, up to 6.
    pub level: u8,
    /// The heading text.
    pub text: String,
    /// Its line.
    pub line: u32,
}

/// A non-link line inside a section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ProseLine {
    /// The line as written.
    pub text: String,
    /// Its line number.
    pub line: u32,
}

/// One `- [title](url): notes` list item.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Link {
    /// The text in brackets.
    pub title: String,
    /// The target as written (angle brackets and a Markdown link title removed).
    pub url: String,
    /// The description after `:`, if any.
    pub notes: Option<String>,
    /// The line of the list item.
    pub line: u32,
    /// Index into the section's [`subheadings`](Section::subheadings) of the
    /// sub-heading the link sits under.
    pub subheading: Option<usize>,
}

/// A link with where it was found, as [`LlmsTxt::links`] yields it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRef<'a> {
    /// The link.
    pub link: &'a Link,
    /// The name of its H2 section; `None` for links before the first H2.
    pub section: Option<&'a str>,
    /// Whether it is in the `## Optional` section.
    pub optional: bool,
}

impl LlmsTxt {
    /// The `## Optional` section, if the file has one.
    pub fn optional(&self) -> Option<&Section> {
        self.sections.iter().find(|s| s.is_optional())
    }

    /// Every link in file order: those before the first H2, then each
    /// section's, with the section name and whether it is optional.
    pub fn links(&self) -> impl Iterator<Item = LinkRef<'_>> {
        let intro = self.intro_links.iter().map(|link| LinkRef { link, section: None, optional: false });
        let sections = self.sections.iter().flat_map(|s| {
            let optional = s.is_optional();
            s.links.iter().map(move |link| LinkRef { link, section: Some(s.name.as_str()), optional })
        });
        intro.chain(sections)
    }

    /// The section named `name` (compared case-insensitively).
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}
