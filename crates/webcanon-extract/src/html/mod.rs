//! HTML to Markdown for LLMs: the main content when an extractor finds it,
//! the whole body otherwise, with hard caps on hostile input.
//!
//! The pipeline: a linear pre-scan (no tree, no recursion) measures the document,
//! reads the `<head>` and finds the contents of its scripts and styles
//! (code, not text, and often half of a page's bytes: the tree is built
//! without them, the elements left empty, wherever the tokenizer would end
//! them where the scan does); a document within the caps is parsed once, its
//! comments and thread replies kept, set aside or dropped as the page's
//! structure and the caller's [`Comments`] choice say (`comments`), cleaned
//! of boilerplate structures (`clean`), its tables read as data or layout
//! (`tables`: layout tables unwrapped to their cells), and given to a
//! Readability-style extractor (`dom_smoothie`); its article goes to a
//! converter (`htmd`; data tables as pipe tables, `table_markdown`) and
//! the Markdown is tidied (`tidy`: repeated blocks, teasers, link lists,
//! empty sections). When the element the page marks as its article's body
//! (`prose`: `<article>`, `itemprop="articleBody"`, `entry-content`, …)
//! holds more prose than the extractor kept, the paragraphs of prose the
//! extractor dropped from inside the article are put back in place
//! (`merge`).
//!
//! **Short pages: the candidate choice, by named rule.** A short page's
//! own text is a few sentences, and a sidebar's "About me", a footer's
//! blurb or a list of archive links can outweigh it; the page's structure
//! decides instead (each rule measured on both page sets of
//! `benches/extraction`, none keyed to a site):
//! - **headline block**: when the extractor's article is short (under
//!   1,000 visible characters, `SHORT_ARTICLE_CHARS` in `rules.rs`), holds less text
//!   than the block around the page's one `<h1>` (its nearest ancestor
//!   with 200 characters, `HEADLINE_BLOCK_CHARS`, besides the
//!   heading), is not in that block, and opens in the last quarter of the
//!   page's shown text (where footers stand), the headline block is the
//!   article (`prose::page_structure`; a product or data page whose text
//!   is rows beside its heading, whose only prose is the footer's);
//! - **marked short post**: when the extractor's article is too short
//!   ([`HtmlLimits::min_article_chars`]), the element the page marks as
//!   its article's body (`prose`), when there is one with text, is
//!   converted instead;
//! - **short post over link lists**: without one, the extractor's short
//!   article stands when what the whole body adds to it is mostly links
//!   (an archive, a category list, a blogroll beside a post of three
//!   lines);
//! - in the cleaning (`clean`): a **form inside the article** that holds
//!   prose and asks for no text is the article's (a shop's description in
//!   its order form), and ruby readings (`<rt>`) are not the text; in the
//!   tidy pass (`tidy`): a **cut teaser** (an excerpt breaking off with an
//!   ellipsis before a link to the rest) goes with its label.
//!
//! Only without any of these is the whole cleaned body
//! (minus scripts, navigation, headers, footers, asides and forms)
//! converted instead; and when that holds no text either (a page whose
//! words all stand in its navigation, header or footer), the page's text
//! with those structures ([`Method::PageText`]), so that no page with
//! words comes back empty; a caller says so (the client's warning
//! `extraction_empty`). The result is then given its shape (`shape`). A
//! document over the caps is never given to a tree builder: its text is
//! taken by the scanner-level tag stripper, and the result says so. The
//! conversion runs on its own thread with a large stack, as a second line
//! of defence.
//!
//! **`<noscript>`.** The tree is built as a reader without scripts sees
//! it, and a `<noscript>` is what the page shows in place of its scripts:
//! a tracking pixel, a frame of a tag manager, a notice to turn scripts
//! on. Its content counts as the page's text only where it *is* the
//! page's text: in the body, when it holds prose of its own or more than
//! half of the page's text (a page written for readers without scripts,
//! or one that never closes its `<noscript>`: see `clean`). Any other is
//! left to the extractor and the converter, which drop it. A `<noscript>`
//! of the `<head>` holds nothing for a reader: the pre-scan finds it and
//! the tree is built without it, since a tree builder moves what it holds
//! that is not a head element (a pixel's `<img>`) into the body, where
//! it would be the text of a page that has little else.

mod clean;
mod comments;
mod links;
mod merge;
pub mod metadata;
mod prose;
mod rules;
mod scan;
mod table_markdown;
mod tables;
mod tidy;

pub use comments::Comments;
pub use links::{LinkLimits, LinkSource, PageLink, PageLinks, read_links};
pub use metadata::{MAX_LIST_ITEMS, MAX_TEXT_CHARS, Metadata};
pub use scan::{HeadTag, decode_entities};
use url::Url;

use crate::syntax;

/// Caps checked before any tree is built.
///
/// A document within every cap costs the tree builder and the extractor a
/// bounded time (well under [`time_limit`](HtmlLimits::time_limit) in a
/// release build) and memory within a small multiple of
/// [`max_tree_bytes`](HtmlLimits::max_tree_bytes); a document over any cap
/// is read by the linear tag stripper instead, whose cost is linear in its
/// size and whose memory stays under three times it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HtmlLimits {
    /// The deepest nesting accepted (default 512).
    pub max_depth: usize,
    /// The most elements accepted (default 50,000).
    pub max_elements: usize,
    /// The most attributes on one element (default 256).
    pub max_attributes: usize,
    /// The largest document given to the tree builder, in bytes
    /// (default 4 MiB; larger pages are read as text).
    pub max_tree_bytes: usize,
    /// The share of NUL and control bytes, in thousandths, above which a
    /// document is read as text (default 10: 1%).
    pub max_control_per_mille: usize,
    /// The most `&` escaping work accepted: for each run of text, its `&`
    /// count times its length, summed (default 50,000,000; an ordinary page
    /// is far below, one run of a million `&` far above).
    pub max_ampersand_work: u64,
    /// Articles with less text than this fall back to the whole body
    /// (default 200 characters: less is usually a teaser or a cookie banner).
    pub min_article_chars: usize,
    /// The wall-clock cap on one conversion (default 1 s): past it the
    /// result is the page's text without structure, with a warning.
    pub time_limit: std::time::Duration,
}

impl Default for HtmlLimits {
    fn default() -> Self {
        HtmlLimits {
            max_depth: 512,
            max_elements: 50_000,
            max_attributes: 256,
            max_tree_bytes: 4 << 20,
            max_control_per_mille: 10,
            max_ampersand_work: 50_000_000,
            min_article_chars: 200,
            time_limit: std::time::Duration::from_secs(1),
        }
    }
}

/// Why a document was read as text, without a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverLimit {
    /// Nested deeper than [`HtmlLimits::max_depth`].
    Depth,
    /// More elements than [`HtmlLimits::max_elements`].
    Elements,
    /// An element with more attributes than [`HtmlLimits::max_attributes`].
    Attributes,
    /// Larger than [`HtmlLimits::max_tree_bytes`].
    Size,
    /// Too many NUL or control bytes to be a page.
    ControlBytes,
    /// Text runs with too many `&` for their length.
    Ampersands,
    /// The conversion ran past [`HtmlLimits::time_limit`].
    Time,
}

impl OverLimit {
    /// What was over the limit, in words.
    pub fn describe(self) -> &'static str {
        match self {
            OverLimit::Depth => "nested too deep",
            OverLimit::Elements => "too many elements",
            OverLimit::Attributes => "an element with too many attributes",
            OverLimit::Size => "too large for the converter",
            OverLimit::ControlBytes => "mostly NUL or control bytes",
            OverLimit::Ampersands => "text with too many `&`",
            OverLimit::Time => "conversion took too long",
        }
    }
}

/// How the Markdown was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The extractor's main content (completed with the prose it left out
    /// of the page's marked article), or, when it found too little, the
    /// element the page marks as its article.
    Article,
    /// The whole body, because the extractor found too little.
    WholeBody,
    /// The page's text with its boilerplate structures (navigation,
    /// headers, footers, asides, forms), because neither the extractor
    /// nor the whole body without them held any text; only scripts,
    /// styles, `<noscript>`, templates, frames and drawings are left out.
    /// Never used for a page that shows no text at all to a reader
    /// without scripts (see [`holds_text`]): that one is
    /// [`Method::WholeBody`], images and all.
    PageText,
    /// Text only: the document was over the caps (which one is in
    /// [`Extracted::over_limit`]).
    TextOnly,
}

/// The converted page.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The Markdown.
    pub markdown: String,
    /// The `<title>`.
    pub title: Option<String>,
    /// `<link rel="canonical">`, absolute.
    pub canonical: Option<Url>,
    /// `<link rel="alternate" type="text/markdown">` targets, absolute.
    pub markdown_alternates: Vec<Url>,
    /// `<link rel="describedby">` targets (llms.txt v2), absolute.
    pub described_by: Vec<Url>,
    /// Every `<meta>` and `<link>` tag.
    pub head: Vec<HeadTag>,
    /// What the page says about itself: author, dates, language, site
    /// name, description, canonical URL, Open Graph and JSON-LD facts.
    pub metadata: Metadata,
    /// How the Markdown was made.
    pub method: Method,
    /// Elements and depth found by the pre-scan.
    pub elements: usize,
    /// The deepest nesting found by the pre-scan.
    pub depth: usize,
    /// The cap the document was over, when it was read as text.
    pub over_limit: Option<OverLimit>,
}

fn rel_has(tag: &HeadTag, rel: &str) -> bool {
    tag.attr("rel").is_some_and(|r| r.split_ascii_whitespace().any(|v| v.eq_ignore_ascii_case(rel)))
}

/// The `<meta>` and `<link>` tags of a page's `<head>`, found by the linear
/// pre-scan alone: no tree is built, so any input is safe and cheap.
pub fn head_tags(html: &str) -> Vec<HeadTag> {
    scan::scan(html).head
}

/// What a page (fetched from `base`) says about itself, read by the
/// linear pre-scan alone, as [`extract`] reads it: no tree is built, so
/// any input is safe and cheap.
pub fn page_metadata(html: &str, base: &Url) -> Metadata {
    let found = scan::scan(html);
    metadata::read(&found, canonical_link(&found.head, base).as_ref(), base)
}

/// The page's `<link rel=canonical>`, resolved against `base`.
fn canonical_link(head: &[HeadTag], base: &Url) -> Option<Url> {
    head.iter()
        .find(|t| t.tag == "link" && rel_has(t, "canonical"))
        .and_then(|t| t.attr("href").and_then(|h| base.join(h.trim()).ok()))
}

/// Converts `html` (fetched from `base`) to Markdown, comments as
/// [`Comments::Auto`] takes them.
pub fn extract(html: &str, base: &Url, limits: &HtmlLimits) -> Extracted {
    extract_with(html, base, limits, Comments::Auto)
}

/// Converts `html` (fetched from `base`) to Markdown, its comments and
/// thread replies as `comments` says (see [`Comments`]).
pub fn extract_with(html: &str, base: &Url, limits: &HtmlLimits, comments: Comments) -> Extracted {
    let found = scan::scan(html);
    let links = |rel: &str, typ: Option<&str>| -> Vec<Url> {
        found
            .head
            .iter()
            .filter(|t| t.tag == "link" && rel_has(t, rel))
            .filter(|t| typ.is_none_or(|want| t.attr("type").is_some_and(|have| have.eq_ignore_ascii_case(want))))
            .filter_map(|t| t.attr("href").and_then(|h| base.join(h.trim()).ok()))
            .collect()
    };
    let canonical = links("canonical", None).into_iter().next();
    let markdown_alternates = links("alternate", Some("text/markdown"));
    let described_by = links("describedby", None);
    let over_limit = if found.controls * 1000 > html.len() * limits.max_control_per_mille {
        Some(OverLimit::ControlBytes)
    } else if html.len() > limits.max_tree_bytes {
        Some(OverLimit::Size)
    } else if found.max_depth > limits.max_depth {
        Some(OverLimit::Depth)
    } else if found.elements > limits.max_elements {
        Some(OverLimit::Elements)
    } else if found.max_attributes > limits.max_attributes {
        Some(OverLimit::Attributes)
    } else if found.ampersand_work > limits.max_ampersand_work {
        Some(OverLimit::Ampersands)
    } else {
        None
    };
    let (markdown, method) = if over_limit.is_some() {
        (composed(strip_tags(html)), Method::TextOnly)
    } else {
        let mut cut: Vec<std::ops::Range<usize>> =
            found.head_noscripts.iter().chain(&found.code_bodies).cloned().collect();
        cut.sort_unstable_by_key(|range| range.start);
        convert_on_big_stack(without_ranges(html, &cut), base.clone(), *limits, comments)
    };
    // The title is its own field of every result; the content does not
    // repeat it (an extractor keeps the page's H1 when it has one).
    let metadata = metadata::read(&found, canonical.as_ref(), base);
    Extracted {
        markdown,
        title: found.title.clone().map(composed),
        canonical,
        metadata,
        markdown_alternates,
        described_by,
        head: found.head,
        method,
        elements: found.elements,
        depth: found.max_depth,
        over_limit,
    }
}

/// The result of a conversion cut at its time limit: the page's text from
/// the linear tag stripper, and its `<head>` facts from the pre-scan.
pub fn text_only(html: &str, base: &Url) -> Extracted {
    let found = scan::scan(html);
    let canonical = canonical_link(&found.head, base);
    let metadata = metadata::read(&found, canonical.as_ref(), base);
    Extracted {
        markdown: composed(strip_tags(html)),
        title: found.title.map(composed),
        canonical,
        metadata,
        markdown_alternates: Vec::new(),
        described_by: Vec::new(),
        head: found.head,
        method: Method::TextOnly,
        elements: found.elements,
        depth: found.max_depth,
        over_limit: Some(OverLimit::Time),
    }
}

/// `html` without the byte ranges `cut` (in order of their starts; a
/// range inside one already cut adds nothing): what the tree is built
/// from.
fn without_ranges(html: &str, cut: &[std::ops::Range<usize>]) -> String {
    let mut kept = String::with_capacity(html.len());
    let mut copied = 0;
    for range in cut {
        kept.push_str(&html[copied..range.start.max(copied)]);
        copied = copied.max(range.end);
    }
    kept.push_str(&html[copied..]);
    kept
}

/// Runs the tree-based conversion on a thread with a 64 MiB stack.
fn convert_on_big_stack(html: String, base: Url, limits: HtmlLimits, comments: Comments) -> (String, Method) {
    let worker = std::thread::Builder::new()
        .name("webcanon-html".into())
        .stack_size(64 * 1024 * 1024)
        .spawn(move || convert(&html, &base, &limits, comments));
    match worker.map(|handle| handle.join()) {
        Ok(Ok(result)) => result,
        // A panic inside a converter must not take the process down.
        _ => (String::new(), Method::TextOnly),
    }
}

const SKIPPED: &[&str] =
    &["script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe", "svg", "template", "head"];

/// `text` in Unicode's composed form (NFC): a page may spell the same
/// letter as one code point or as a base and combining marks, and a reader
/// (or a search for a phrase in it) should not see two spellings. Text
/// that is already composed, nearly all of it, is returned as it is.
fn composed(text: String) -> String {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text,
        _ => text.nfc().collect(),
    }
}

fn convert(html: &str, base: &Url, limits: &HtmlLimits, comments: Comments) -> (String, Method) {
    let (markdown, method) = convert_tree(html, base, limits, comments);
    (composed(markdown), method)
}

fn convert_tree(html: &str, base: &Url, limits: &HtmlLimits, comments: Comments) -> (String, Method) {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED.to_vec())
        .add_handler(vec!["table"], table_markdown::handle)
        .build();
    let config = dom_smoothie::Config { max_elements_to_parse: limits.max_elements, ..Default::default() };
    let doc = dom_query::Document::from(html);
    let taken_comments = comments::prepare(&doc, comments);
    let comments_markdown = taken_comments.map(|taken| comments_section(&taken, &converter)).unwrap_or_default();
    clean::clean(&doc);
    tables::read_tables(&doc);
    // The extractor takes the tree; the marked body is kept as HTML.
    let structure = prose::page_structure(&doc);
    let marked = structure.marked.map(|m| (m.node.html(), m.prose));
    let has_headline_block = structure.headline_block.is_some();
    let parsed = dom_smoothie::Readability::with_document(doc, Some(base.as_str()), Some(config))
        .ok()
        .and_then(|mut r| r.parse().ok());
    // An article under the length the extractor is trusted at is kept
    // aside for the rule of the short post (below).
    let (article, short_article) = match parsed {
        Some(a) if a.text_content.trim().chars().count() >= limits.min_article_chars => (Some(a), None),
        short => (None, short),
    };
    // The rule of the headline block (see `headline_block_wins`), weighed
    // for a short article only.
    let article = article.map(|a| {
        let short = clean::visible_chars(&a.text_content) < rules::SHORT_ARTICLE_CHARS;
        match (has_headline_block && short).then(|| headline_block_of(html, comments)).flatten() {
            Some((block_html, block_text, shown)) if headline_block_wins(&a.text_content, &block_text, &shown) => {
                (block_html, block_text)
            }
            _ => (a.content.to_string(), a.text_content.to_string()),
        }
    });
    if let Some((article_html, article_text)) = article
        && let Ok(markdown) = converter.convert(&article_html)
    {
        let mut markdown = tidy::tidy(markdown.trim());
        // The marked body is read only when it holds more prose than the
        // extractor's whole article: otherwise it has nothing to add.
        let article_chars = clean::visible_chars(&article_text);
        if let Some((marked_html, prose)) = &marked
            && *prose > article_chars
            && let Ok(marked) = converter.convert(marked_html)
        {
            markdown = merge::complete(&markdown, &tidy::tidy(marked.trim()));
        }
        if !markdown.trim().is_empty() {
            markdown.push_str(&comments_markdown);
        }
        let markdown = absolutize_links(markdown.trim(), base);
        if !markdown.is_empty() {
            return (markdown, Method::Article);
        }
    }
    // A short page: what it marks as its article, before the whole body,
    // whose sidebars, widgets and footers would outweigh a short post.
    if let Some((marked_html, _)) = &marked
        && let Ok(markdown) = converter.convert(marked_html)
    {
        let markdown = tidy::tidy(markdown.trim());
        if holds_text(&markdown) {
            return (absolutize_links((markdown + &comments_markdown).trim(), base), Method::Article);
        }
    }
    // The rare fallback parses and cleans again rather than every page
    // paying for a serialised copy of its cleaned tree.
    let doc = dom_query::Document::from(html);
    comments::prepare(&doc, comments);
    clean::clean(&doc);
    tables::read_tables(&doc);
    let whole_body = match converter.convert(&doc.html()) {
        Ok(markdown) => absolutize_links((tidy::tidy(markdown.trim()) + &comments_markdown).trim(), base),
        Err(_) => return (strip_tags(html), Method::TextOnly),
    };
    if let Some(short) = short_article
        && let Ok(markdown) = converter.convert(&short.content)
    {
        let markdown = absolutize_links((tidy::tidy(markdown.trim()) + &comments_markdown).trim(), base);
        if short_post_stands(&markdown, &whole_body) {
            return (markdown, Method::Article);
        }
    }
    match page_text(html, &doc, base) {
        Some(text) if !holds_text(&whole_body) => (text, Method::PageText),
        // Text, or no text anywhere: what the body shows (images, maybe).
        _ => (whole_body, Method::WholeBody),
    }
}

/// The rule of the **short post over link lists**: the extractor's
/// article, too short to be trusted alone, stands for the page when it
/// holds text and the whole body adds to it, mostly links (at least half
/// of the added visible characters): a post of three lines beside an
/// archive, a category list and a blogroll is the page's text, and they
/// are not.
fn short_post_stands(short: &str, whole_body: &str) -> bool {
    let (short_text, _) = syntax::text_and_link_chars(short);
    let short_chars = syntax::visible(&short_text);
    let (body_text, body_links) = syntax::text_and_link_chars(whole_body);
    let rest = syntax::visible(&body_text).saturating_sub(short_chars);
    short_chars > 0 && rest > 0 && body_links * 2 >= rest
}

/// The headline block's HTML and text and the page's shown text, from
/// the page parsed and cleaned again: only a short article is weighed
/// against them, so no other page pays for serialising them.
fn headline_block_of(html: &str, comments: Comments) -> Option<(String, String, String)> {
    let doc = dom_query::Document::from(html);
    comments::prepare(&doc, comments);
    clean::clean(&doc);
    tables::read_tables(&doc);
    let block = prose::page_structure(&doc).headline_block?;
    let shown = clean::body(&doc).map(|body| clean::shown_text(&body)).unwrap_or_default();
    Some((block.html().to_string(), block.text().to_string(), shown))
}

/// The rule of the **headline block**: a short article (under
/// [`rules::SHORT_ARTICLE_CHARS`] visible characters) that stands apart
/// from the block around the page's one `<h1>` (the block does not hold
/// the article's opening words), holds less text than that block, and
/// opens in the last quarter of the page's text (where footers and
/// sidebars stand, not the text under a headline) is not the page's
/// text: the extractor took a footer's blurb on a page whose own text is
/// a few rows of data beside its heading. The headline block is taken
/// instead.
fn headline_block_wins(article_text: &str, block_text: &str, page_text: &str) -> bool {
    let article_chars = clean::visible_chars(article_text);
    let block_chars = clean::visible_chars(block_text);
    if article_chars >= rules::SHORT_ARTICLE_CHARS || block_chars <= article_chars {
        return false;
    }
    let opening: Vec<&str> = article_text.split_whitespace().take(8).collect();
    let opens_at = |text: &str| {
        let words: Vec<&str> = text.split_whitespace().collect();
        (words.windows(opening.len()).position(|w| w == opening.as_slice()), words.len())
    };
    if opening.is_empty() || opens_at(block_text).0.is_some() {
        return false;
    }
    matches!(opens_at(page_text), (Some(at), words) if at * 4 > words * 3)
}

/// What [`Method::PageText`] leaves out: what is never text.
const NEVER_TEXT: &[&str] = &["script", "style", "noscript", "template", "iframe", "svg", "head"];

/// The page's text with its boilerplate structures ([`Method::PageText`]):
/// the cleaned tree's when it holds any, else the page's as it came (the
/// cleaning may have taken all of a page that is nothing but, say, a
/// banner). Not tidied: its lists of links may be all the page has.
/// `None` when neither holds any text.
fn page_text(html: &str, cleaned: &dom_query::Document, base: &Url) -> Option<String> {
    let converter = htmd::HtmlToMarkdown::builder().skip_tags(NEVER_TEXT.to_vec()).build();
    let text = |html: &str| converter.convert(html).map(|m| absolutize_links(m.trim(), base)).unwrap_or_default();
    [text(&cleaned.html()), text(html)].into_iter().find(|text| holds_text(text))
}

/// Whether converted Markdown holds any text a reader sees: an image's
/// alt text and Markdown's own syntax are not.
///
/// ```
/// use webcanon_extract::html::holds_text;
///
/// assert!(holds_text("[Home](https://x.test/)"));
/// assert!(!holds_text("![A logo](https://x.test/l.png)\n\n* * *"));
/// ```
pub fn holds_text(markdown: &str) -> bool {
    syntax::visible(&syntax::text_and_link_chars(markdown).0) > 0
}

/// An article's comments (their HTML, taken out of the page) as a
/// `## Comments` section to follow its text, cleaned and tidied as the
/// page is; empty when nothing of them is left.
fn comments_section(taken: &str, converter: &htmd::HtmlToMarkdown) -> String {
    let doc = dom_query::Document::from(format!("<body>{taken}</body>"));
    clean::clean(&doc);
    tables::read_tables(&doc);
    match converter.convert(&doc.html()) {
        Ok(markdown) if !markdown.trim().is_empty() => format!("\n\n## Comments\n\n{}", tidy::tidy(markdown.trim())),
        _ => String::new(),
    }
}

/// Rewrites Markdown link and image targets `](target)` relative to
/// `base`, outside code (fenced blocks and inline code are left as they
/// are); everything else stays to the byte.
///
/// ```
/// use url::Url;
/// use webcanon_extract::html::absolutize_links;
///
/// let base = Url::parse("https://x.test/docs/").unwrap();
/// assert_eq!(
///     absolutize_links("[Guide](guide.md) and `[raw](raw.md)`", &base),
///     "[Guide](https://x.test/docs/guide.md) and `[raw](raw.md)`"
/// );
/// // An escaped parenthesis is one of the address, kept escaped when
/// // it has no partner.
/// assert_eq!(absolutize_links("[A](a_\\(b\\)) [B](b\\()", &base), "[A](https://x.test/docs/a_(b)) [B](https://x.test/docs/b\\()");
/// ```
pub fn absolutize_links(markdown: &str, base: &Url) -> String {
    let mut out = String::with_capacity(markdown.len() + 64);
    for stretch in syntax::stretches(markdown) {
        match stretch {
            syntax::Stretch::Code(code) => out.push_str(code),
            syntax::Stretch::Text(text) => absolutize_in(text, base, 0, &mut out),
        }
    }
    out
}

/// [`absolutize_links`] on text between fences, links inside link texts
/// (`[![alt](img)](url)`) included.
fn absolutize_in(text: &str, base: &Url, nesting: usize, out: &mut String) {
    if nesting > syntax::MAX_LINK_NESTING {
        out.push_str(text);
        return;
    }
    let mut copied = 0;
    for link in syntax::links(text) {
        out.push_str(&text[copied..link.text.start]);
        absolutize_in(&text[link.text.clone()], base, nesting + 1, out);
        out.push_str(&text[link.text.end..link.target.start]);
        let target = &text[link.target.clone()];
        // Joined as the address the target stands for (`\(` is a
        // parenthesis, which a URL parser would read as `/(`), and written
        // back so that the target still ends where the address does.
        let absolute = if target.is_empty() || target.starts_with('#') || target.contains("://") {
            None
        } else {
            base.join(&syntax::target_address(target)).ok().filter(is_web_url)
        };
        match absolute {
            Some(url) => out.push_str(&syntax::address_target(url.as_str())),
            None => out.push_str(target),
        }
        copied = link.target.end;
    }
    out.push_str(&text[copied..]);
}

/// Whether `url` is one a reader can follow from a page: `http` or
/// `https`, with a host (webcanon's rule for every URL it fetches).
fn is_web_url(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host().is_some()
}

/// The text of an HTML document without building a tree: tags dropped,
/// scripts and styles skipped, entities decoded, blank runs collapsed.
/// Linear in the input, whatever its shape.
pub fn strip_tags(html: &str) -> String {
    let bytes = html.as_bytes();
    let mut text = String::with_capacity(html.len() / 2);
    let mut i = 0;
    while i < bytes.len() {
        match memchr::memchr(b'<', &bytes[i..]) {
            None => {
                text.push_str(&html[i..]);
                break;
            }
            Some(offset) => {
                text.push_str(&html[i..i + offset]);
                i += offset;
                let lower =
                    |n: &[u8]| bytes[i + 1..].len() >= n.len() && bytes[i + 1..i + 1 + n.len()].eq_ignore_ascii_case(n);
                let skip_to: Option<&[u8]> = if lower(b"script") {
                    Some(b"</script")
                } else if lower(b"style") {
                    Some(b"</style")
                } else if bytes[i..].starts_with(b"<!--") {
                    Some(b"-->")
                } else {
                    None
                };
                if let Some(end) = skip_to {
                    i = bytes[i..]
                        .windows(end.len())
                        .position(|w| w.eq_ignore_ascii_case(end))
                        .map_or(bytes.len(), |p| i + p);
                }
                let close = memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len(), |p| i + p + 1);
                let block = bytes[i..close]
                    .iter()
                    .skip(1)
                    .take(4)
                    .any(|b| matches!(b, b'p' | b'P' | b'd' | b'D' | b'l' | b'L' | b'h' | b'H' | b'b' | b'B'));
                text.push(if block { '\n' } else { ' ' });
                i = close;
            }
        }
    }
    let decoded = decode_entities(&text);
    drop(text);
    let mut out = String::with_capacity(decoded.len().min(html.len()));
    let mut blank = 0;
    for line in decoded.lines() {
        let line = line
            .split(|c: char| c.is_whitespace() || (c.is_control() && c != '\t'))
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&line);
    }
    out
}

/// Whether a media type (its essence, lower case: `text/markdown`) is one
/// that Markdown files are served with: `text/markdown`, `text/x-markdown`
/// or `text/plain`. The body decides the rest (an HTML page served as
/// `text/plain` is still HTML; see [`webcanon_core::sniff`]).
pub fn is_markdown_media_type(essence: &str) -> bool {
    matches!(essence, "text/markdown" | "text/x-markdown" | "text/plain")
}
