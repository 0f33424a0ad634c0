//! What a page says about itself: author, dates, language, site name,
//! description, canonical URL and the facts of its Open Graph and JSON-LD
//! markup, read from the pre-scan's findings alone (no tree: any input is
//! safe and cheap, and a page read as text keeps its metadata).
//!
//! # Sources and precedence
//!
//! Each field is read from its sources in one order, and the first source
//! that gives a usable value wins (a date must parse, a URL must be an
//! absolute `http(s)` one after resolving, a text must not be empty). The
//! rule is the same for every field: **the page's structured data first**
//! (the JSON-LD node that speaks for the page: an article's, else a web
//! page's, else the first with a `headline`), **then
//! Open Graph** (`og:*`, `article:*`), **then Twitter cards**
//! (`twitter:*`), **then plain and Dublin Core `<meta>` names**, **then
//! microdata** (`<meta itemprop>`), **then the markup** (`<time
//! datetime>`). Structured data come first because a publisher writes them
//! for machines, per article; the `<meta name>` tags are often a site's
//! defaults. Two fields are exceptions, each read from the standard that
//! defines it first:
//!
//! - `language`: `<html lang>`, then `Content-Language` (`<meta
//!   http-equiv>`), `<meta name=language>`, `dc.language`, `og:locale`
//!   (`en_US` read as `en-US`), JSON-LD `inLanguage`;
//! - `canonical_url`: `<link rel=canonical>`, then `og:url`, JSON-LD `url`.
//!
//! Every source of each field, in order:
//!
//! | field | sources |
//! |---|---|
//! | `headline` | JSON-LD `headline`, `name`; `og:title`; `twitter:title`; `dc.title`; `itemprop=headline` |
//! | `authors` | JSON-LD `author`, `creator`; `article:author` (not a URL); `author`, `dc.creator`, `dcterms.creator`, `parsely-author`, `sailthru.author`; `itemprop=author` |
//! | `published` | JSON-LD `datePublished`, `dateCreated`; `article:published_time`; `dc.date`, `dc.date.issued`, `dcterms.issued`, `dcterms.created`, `dcterms.date`, `date`, `pubdate`, `publishdate`, `publish-date`, `citation_publication_date`, `parsely-pub-date`, `sailthru.date`; `itemprop=datePublished`; the first `<time>` marked `pubdate` or `itemprop=datePublished`, else the first `<time datetime>` |
//! | `modified` | JSON-LD `dateModified`; `article:modified_time`, `og:updated_time`; `dcterms.modified`, `last-modified`; `itemprop=dateModified`; a `<time itemprop=dateModified>` |
//! | `site_name` | JSON-LD `publisher` of the page's node, the `WebSite` node's `name`; `og:site_name`; `application-name` |
//! | `description` | JSON-LD `description`; `og:description`; `twitter:description`; `description`, `dc.description`; `itemprop=description` |
//! | `page_type` | JSON-LD `@type` of the page's node; `og:type` |
//! | `image` | JSON-LD `image`; `og:image`, `og:image:url`, `og:image:secure_url`; `twitter:image`, `twitter:image:src`; `itemprop=image` |
//! | `keywords` | JSON-LD `keywords`; `article:tag` (every one); `keywords`, `news_keywords` (comma-separated) |
//! | `section` | JSON-LD `articleSection`; `article:section` |
//!
//! Dates are normalised to ISO 8601: RFC 3339 and ISO 8601 dates and times
//! with an offset (`Z` for UTC), RFC 2822, dates and times without one, and
//! dates alone (`2024-03-05`, `2024/03/05`, `20240305`); any other value
//! (`March 5, 2024`, `5 days ago`, `2024-02-30`) is passed over for the
//! next source, never guessed. Texts have their
//! entities decoded and white space collapsed, and are cut at
//! [`MAX_TEXT_CHARS`] characters; lists keep their first
//! [`MAX_LIST_ITEMS`] distinct items.

mod date;
mod json_ld;

use serde::{Deserialize, Serialize};
use url::Url;

use self::json_ld::LinkedData;
use super::scan::{HeadTag, Scan, decode_entities};

/// The most characters kept of one text value.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// The most items kept of one list (authors, keywords).
pub const MAX_LIST_ITEMS: usize = 32;

/// What a page says about itself (the module documentation names each
/// field's sources and their order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Metadata {
    /// The headline as the page's structured data give it (often the
    /// `<title>` without the site's name).
    pub headline: Option<String>,
    /// The authors' names, in the page's order.
    pub authors: Vec<String>,
    /// When the page was first published, in ISO 8601 (`2024-03-05`,
    /// `2024-03-05T10:20:00`, `2024-03-05T10:20:00+01:00`).
    pub published: Option<String>,
    /// When the page was last changed, in ISO 8601.
    pub modified: Option<String>,
    /// The language of the page, as a BCP 47 tag (`en`, `pt-BR`).
    pub language: Option<String>,
    /// The name of the site or publisher.
    pub site_name: Option<String>,
    /// The page's summary of itself.
    pub description: Option<String>,
    /// The page's own URL as it declares it, absolute.
    pub canonical_url: Option<String>,
    /// What the page is, as its structured data or Open Graph say
    /// (`NewsArticle`, `BlogPosting`, `article`, `website`).
    pub page_type: Option<String>,
    /// The page's main image, absolute.
    pub image: Option<String>,
    /// The page's keywords or tags.
    pub keywords: Vec<String>,
    /// The section or category the page belongs to.
    pub section: Option<String>,
}

impl Metadata {
    /// Whether nothing at all is known.
    pub fn is_empty(&self) -> bool {
        *self == Metadata::default()
    }

    /// The facts a reader weighs a page by, in one line: `by Ada Lovelace;
    /// published 2024-03-05; The Paper; language en` (the modification
    /// date when it differs from the publication date); `None` when none
    /// is known.
    pub fn byline(&self) -> Option<String> {
        let mut facts = Vec::new();
        if !self.authors.is_empty() {
            facts.push(format!("by {}", self.authors.join(", ")));
        }
        if let Some(published) = &self.published {
            facts.push(format!("published {published}"));
        }
        if let Some(modified) = self.modified.as_ref().filter(|m| self.published.as_ref() != Some(*m)) {
            facts.push(format!("modified {modified}"));
        }
        facts.extend(self.site_name.clone());
        if let Some(language) = &self.language {
            facts.push(format!("language {language}"));
        }
        (!facts.is_empty()).then(|| facts.join("; "))
    }
}

/// The `<meta>` tags of a page, looked up by `property`, `name`,
/// `itemprop` or `http-equiv` (case-insensitive).
#[derive(Clone, Copy)]
struct MetaTags<'a> {
    tags: &'a [HeadTag],
}

impl<'a> MetaTags<'a> {
    /// The `content` of every `<meta>` named `key`, in document order.
    fn all(self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.tags
            .iter()
            .filter(|tag| tag.tag == "meta")
            .filter(move |tag| {
                ["property", "name", "itemprop", "http-equiv"]
                    .iter()
                    .any(|attr| tag.attr(attr).is_some_and(|name| name.trim().eq_ignore_ascii_case(key)))
            })
            .filter_map(|tag| tag.attr("content"))
    }

    /// The contents of the `<meta>` tags named by `keys`, key by key.
    fn each(self, keys: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
        keys.iter().flat_map(move |key| self.all(key))
    }
}

/// Reads the metadata of a scanned page fetched from `base`; `canonical`
/// is its `<link rel=canonical>`, already resolved.
pub(crate) fn read(found: &Scan, canonical: Option<&Url>, base: &Url) -> Metadata {
    let linked = LinkedData::read(&found.json_ld);
    let main = linked.main();
    let meta = MetaTags { tags: &found.head };
    let ld_text = |key: &str| main.and_then(|node| node.text(key));

    let headline = first_text(["headline", "name"].iter().filter_map(|key| ld_text(key)).chain(meta.each(&[
        "og:title",
        "twitter:title",
        "dc.title",
        "headline",
    ])));
    let authors = first_list(
        [
            main.map(|node| node.names("author")).unwrap_or_default(),
            main.map(|node| node.names("creator")).unwrap_or_default(),
        ]
        .into_iter()
        .chain(
            meta.each(&[
                "article:author",
                "author",
                "dc.creator",
                "dcterms.creator",
                "parsely-author",
                "sailthru.author",
            ])
            .filter(|name| !looks_like_url(name))
            .map(|name| vec![name]),
        ),
    );
    let marked_time = |itemprop: &str| {
        found.times.iter().find(|time| {
            time.attr("itemprop").is_some_and(|p| p.eq_ignore_ascii_case(itemprop))
                || (itemprop == "datePublished" && time.attr("pubdate").is_some())
        })
    };
    let published = first_date(
        ["datePublished", "dateCreated"]
            .iter()
            .filter_map(|key| ld_text(key))
            .chain(meta.each(&PUBLISHED_KEYS))
            .chain(marked_time("datePublished").or(found.times.first()).and_then(|time| time.attr("datetime"))),
    );
    let modified = first_date(
        ld_text("dateModified")
            .into_iter()
            .chain(meta.each(&MODIFIED_KEYS))
            .chain(marked_time("dateModified").and_then(|time| time.attr("datetime"))),
    );
    let language = found
        .html_lang
        .as_deref()
        .into_iter()
        .chain(meta.each(&["content-language", "language", "dc.language", "og:locale"]))
        .chain(ld_text("inLanguage"))
        .find_map(language_tag);
    let publisher = main.map(|node| node.names("publisher")).unwrap_or_default();
    let site_name = first_text(
        publisher
            .into_iter()
            .chain(linked.first_of_type("WebSite").and_then(|site| site.text("name")))
            .chain(meta.each(&["og:site_name", "application-name"])),
    );
    let description = first_text(ld_text("description").into_iter().chain(meta.each(&[
        "og:description",
        "twitter:description",
        "description",
        "dc.description",
    ])));
    let canonical_url = canonical
        .filter(|url| is_web_url(url))
        .map(Url::to_string)
        .or_else(|| first_url(meta.each(&["og:url"]).chain(main.and_then(|node| node.url("url"))), base));
    let page_type = first_text(main.and_then(|node| node.kind()).into_iter().chain(meta.each(&["og:type"])));
    let image = first_url(
        main.and_then(|node| node.url("image")).into_iter().chain(meta.each(&[
            "og:image",
            "og:image:url",
            "og:image:secure_url",
            "twitter:image",
            "twitter:image:src",
            "image",
        ])),
        base,
    );
    let keywords = first_list(
        [main.map(|node| node.words("keywords")).unwrap_or_default(), meta.all("article:tag").collect()]
            .into_iter()
            .chain(meta.each(&["keywords", "news_keywords"]).map(|words| words.split(',').collect())),
    );
    let section = first_text(ld_text("articleSection").into_iter().chain(meta.each(&["article:section"])));
    Metadata {
        headline,
        authors,
        published,
        modified,
        language,
        site_name,
        description,
        canonical_url,
        page_type,
        image,
        keywords,
        section,
    }
}

/// The `<meta>` names of a publication date, after `article:published_time`.
const PUBLISHED_KEYS: [&str; 15] = [
    "article:published_time",
    "dc.date",
    "dc.date.issued",
    "dcterms.issued",
    "dcterms.created",
    "dcterms.date",
    "date",
    "pubdate",
    "publishdate",
    "publish-date",
    "citation_publication_date",
    "parsely-pub-date",
    "sailthru.date",
    "datepublished",
    "datecreated",
];

/// The `<meta>` names of a modification date.
const MODIFIED_KEYS: [&str; 5] =
    ["article:modified_time", "og:updated_time", "dcterms.modified", "last-modified", "datemodified"];

/// `raw` with entities decoded and white space collapsed, cut at
/// [`MAX_TEXT_CHARS`]; `None` when nothing is left.
fn clean_text(raw: &str) -> Option<String> {
    let decoded = decode_entities(raw);
    let words: Vec<&str> = decoded.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    let text = words.join(" ");
    Some(match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((cut, _)) => text[..cut].to_string(),
        None => text,
    })
}

fn first_text<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates.into_iter().find_map(clean_text)
}

fn first_date<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates.into_iter().find_map(date::iso8601)
}

/// The first candidate list with a usable item, its items cleaned and
/// without repeats.
fn first_list<'a>(candidates: impl IntoIterator<Item = Vec<&'a str>>) -> Vec<String> {
    for candidate in candidates {
        let mut items: Vec<String> = Vec::new();
        for item in candidate.into_iter().filter_map(clean_text) {
            if items.len() < MAX_LIST_ITEMS && !items.iter().any(|seen| seen.eq_ignore_ascii_case(&item)) {
                items.push(item);
            }
        }
        if !items.is_empty() {
            return items;
        }
    }
    Vec::new()
}

fn first_url<'a>(candidates: impl IntoIterator<Item = &'a str>, base: &Url) -> Option<String> {
    candidates
        .into_iter()
        .filter_map(|raw| base.join(decode_entities(raw.trim()).as_str()).ok())
        .find(is_web_url)
        .map(String::from)
}

fn is_web_url(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host().is_some()
}

/// Whether an author value is a link to a profile rather than a name
/// (`article:author` is a URL by the Open Graph protocol).
fn looks_like_url(value: &str) -> bool {
    let value = value.trim_start();
    value.starts_with("http://") || value.starts_with("https://") || value.starts_with("//")
}

/// `raw` as a BCP 47 language tag: the first of a list (`en, fr`),
/// underscores read as hyphens (`en_US`, as Open Graph writes locales),
/// letters, digits and hyphens only, a primary subtag of two or three
/// letters; `None` otherwise.
fn language_tag(raw: &str) -> Option<String> {
    let tag = raw.split(',').next()?.trim().replace('_', "-");
    let primary = tag.split('-').next()?;
    let well_formed = tag.len() <= 35
        && (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_alphabetic())
        && tag.split('-').all(|sub| !sub.is_empty() && sub.bytes().all(|b| b.is_ascii_alphanumeric()));
    well_formed.then_some(tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::scan::scan;

    fn metadata(html: &str) -> Metadata {
        let base = Url::parse("https://news.test/2024/story").unwrap();
        read(&scan(html), None, &base)
    }

    #[test]
    fn json_ld_comes_before_open_graph_before_meta_names() {
        let page = metadata(
            r#"<html lang="en-GB"><head>
            <meta property="og:title" content="OG title"><meta name="author" content="Meta Author">
            <meta property="article:published_time" content="2024-01-01T00:00:00Z">
            <meta property="og:site_name" content="OG Site"><meta name="description" content="Meta description">
            <meta property="og:type" content="article"><meta property="og:image" content="/og.jpg">
            <meta name="keywords" content="a, b, A">
            <script type="application/ld+json">{"@type":"NewsArticle","headline":"LD headline",
              "author":{"@type":"Person","name":"LD Author"},"datePublished":"2024-02-02T10:00:00+01:00",
              "dateModified":"not a date","publisher":{"name":"LD Publisher"},"articleSection":"World"}</script>
            </head><body><time datetime="2020-01-01">then</time></body></html>"#,
        );
        assert_eq!(page.headline.as_deref(), Some("LD headline"));
        assert_eq!(page.authors, ["LD Author"]);
        assert_eq!(page.published.as_deref(), Some("2024-02-02T10:00:00+01:00"));
        // The JSON-LD date does not parse and no other source gives one.
        assert_eq!(page.modified, None);
        assert_eq!(page.site_name.as_deref(), Some("LD Publisher"));
        assert_eq!(page.description.as_deref(), Some("Meta description"));
        assert_eq!(page.page_type.as_deref(), Some("NewsArticle"));
        assert_eq!(page.image.as_deref(), Some("https://news.test/og.jpg"));
        assert_eq!(page.keywords, ["a", "b"]);
        assert_eq!(page.section.as_deref(), Some("World"));
        assert_eq!(page.language.as_deref(), Some("en-GB"));
        assert_eq!(page.canonical_url, None);
    }

    #[test]
    fn each_field_falls_back_to_the_next_source() {
        let page = metadata(
            r#"<head><meta property="og:locale" content="pt_BR">
            <meta property="article:author" content="https://facebook.com/someone">
            <meta name="dc.creator" content="Dublin &amp; Core"><meta name="dcterms.modified" content="2023-05-06">
            <meta property="og:url" content="https://news.test/canonical"><meta name="twitter:description" content="  two
            lines ">
            <meta property="article:tag" content="x"><meta property="article:tag" content="y"></head>
            <body><time datetime="2019-01-01">a</time><time pubdate datetime="2022-02-03T04:05">b</time></body>"#,
        );
        assert_eq!(page.language.as_deref(), Some("pt-BR"));
        assert_eq!(page.authors, ["Dublin & Core"]);
        assert_eq!(page.modified.as_deref(), Some("2023-05-06"));
        assert_eq!(page.published.as_deref(), Some("2022-02-03T04:05:00"));
        assert_eq!(page.canonical_url.as_deref(), Some("https://news.test/canonical"));
        assert_eq!(page.description.as_deref(), Some("two lines"));
        assert_eq!(page.keywords, ["x", "y"]);
        assert!(metadata("<p>nothing</p>").is_empty());
        assert_eq!(metadata("<p>nothing</p>").byline(), None);
        assert_eq!(
            page.byline().as_deref(),
            Some("by Dublin & Core; published 2022-02-03T04:05:00; modified 2023-05-06; language pt-BR")
        );
    }

    #[test]
    fn language_tags_are_checked() {
        let cases = [
            ("en", Some("en")),
            ("en_US", Some("en-US")),
            ("de-DE, en", Some("de-DE")),
            ("zh-Hant-TW", Some("zh-Hant-TW")),
            ("english", None),
            ("", None),
            ("e", None),
            ("en--US", None),
        ];
        for (raw, want) in cases {
            assert_eq!(language_tag(raw).as_deref(), want, "{raw:?}");
        }
    }
}
