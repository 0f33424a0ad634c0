//! What a sitemap holds: its kind, its entries and their extensions.

use super::codes::Diagnostic;
use super::date::DateTime;

/// What the file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum SitemapKind {
    /// `<urlset>`: page URLs.
    UrlSet,
    /// `<sitemapindex>`: the entries are other sitemaps.
    Index,
    /// One URL per line.
    Text,
    /// RSS 2.0 (or RSS 1.0 / RDF): each item's link.
    Rss,
    /// Atom 1.0: each entry's link.
    Atom,
    /// Not a sitemap (HTML, a template, binary, an unknown root element).
    Unknown,
}

impl SitemapKind {
    /// Whether the entries are sitemaps to fetch rather than pages.
    pub fn is_index(self) -> bool {
        self == SitemapKind::Index
    }
}

/// How often a page is said to change (`changefreq`; search engines ignore it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[allow(missing_docs)]
pub enum ChangeFreq {
    Always,
    Hourly,
    Daily,
    Weekly,
    Monthly,
    Yearly,
    Never,
}

impl ChangeFreq {
    /// Parses the protocol's values, case-insensitively.
    pub fn parse(s: &str) -> Option<ChangeFreq> {
        const ALL: [(&str, ChangeFreq); 7] = [
            ("always", ChangeFreq::Always),
            ("hourly", ChangeFreq::Hourly),
            ("daily", ChangeFreq::Daily),
            ("weekly", ChangeFreq::Weekly),
            ("monthly", ChangeFreq::Monthly),
            ("yearly", ChangeFreq::Yearly),
            ("never", ChangeFreq::Never),
        ];
        ALL.iter().find(|(name, _)| name.eq_ignore_ascii_case(s)).map(|(_, v)| *v)
    }
}

/// One entry: a page (urlset, text, feed) or a child sitemap (index).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Entry {
    /// The absolute URL (`loc`, a feed item's link).
    pub loc: String,
    /// The line of the `loc` (or of the entry when it has none).
    pub line: u32,
    /// `lastmod`, RSS `pubDate`, Atom `updated` (or `published`).
    pub lastmod: Option<DateTime>,
    /// `changefreq`.
    pub changefreq: Option<ChangeFreq>,
    /// `priority`, 0.0 to 1.0.
    pub priority: Option<f32>,
    /// Feed item title (RSS, Atom).
    pub title: Option<String>,
    /// `image:image` children.
    pub images: Vec<Image>,
    /// `video:video` children.
    pub videos: Vec<Video>,
    /// The `news:news` child.
    pub news: Option<News>,
    /// hreflang alternates (`xhtml:link rel="alternate"`).
    pub alternates: Vec<Alternate>,
}

/// An image of the Google image extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Image {
    /// `image:loc`.
    pub loc: String,
    /// `image:caption` (deprecated by Google, still common).
    pub caption: Option<String>,
    /// `image:title`.
    pub title: Option<String>,
    /// `image:geo_location`.
    pub geo_location: Option<String>,
    /// `image:license`.
    pub license: Option<String>,
}

/// A video of the Google video extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Video {
    /// `video:thumbnail_loc`.
    pub thumbnail_loc: Option<String>,
    /// `video:title`.
    pub title: Option<String>,
    /// `video:description`.
    pub description: Option<String>,
    /// `video:content_loc`.
    pub content_loc: Option<String>,
    /// `video:player_loc`.
    pub player_loc: Option<String>,
    /// `video:duration`, in seconds.
    pub duration: Option<u32>,
    /// `video:publication_date`.
    pub publication_date: Option<DateTime>,
}

/// The Google news extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct News {
    /// `news:publication/news:name`.
    pub publication_name: Option<String>,
    /// `news:publication/news:language`.
    pub language: Option<String>,
    /// `news:publication_date`.
    pub publication_date: Option<DateTime>,
    /// `news:title`.
    pub title: Option<String>,
    /// `news:keywords` (not used by Google; kept).
    pub keywords: Option<String>,
}

/// An hreflang alternate of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Alternate {
    /// The `hreflang` value (`en`, `de-CH`, `x-default`).
    pub hreflang: String,
    /// The alternate URL.
    pub href: String,
}

/// A whole parsed sitemap.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Sitemap {
    /// What the file is.
    pub kind: SitemapKind,
    /// The entries kept, in file order.
    pub entries: Vec<Entry>,
    /// Findings, in the order met.
    pub diagnostics: Vec<Diagnostic>,
    /// Entries dropped because they came after [`MAX_ENTRIES`](super::MAX_ENTRIES).
    pub dropped: usize,
}

/// What [`parse_with`](super::parse_with) returns once the file is read:
/// everything but the entries.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// What the file is.
    pub kind: SitemapKind,
    /// Entries handed to the callback.
    pub entries: usize,
    /// Entries dropped because they came after [`MAX_ENTRIES`](super::MAX_ENTRIES).
    pub dropped: usize,
    /// Findings, in the order met.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes of text read, after decompression: the work the file cost.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub bytes: usize,
}
