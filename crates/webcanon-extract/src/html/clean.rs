//! Boilerplate removed from the page before the extractor scores it:
//! structures that are never the main text, found by their role, their
//! element and the words of their `class` and `id`, never by site.
//!
//! An `<article>`'s own `<header>` (its title and standfirst) is made a
//! plain block, so that the extractor's rule for site headers spares it;
//! so are blocks that hold a page heading but are named like a header
//! (`<div class="entry-header"><h1>`): the word `header` is taken out of
//! their class and id. A named block run into a paragraph (a dateline
//! `<span>` inside a `<p>` with text of its own) is part of its text, and
//! a paragraph set in a heading element (an `<h3>` standfirst of forty
//! words) becomes a `<p>`.
//!
//! Removed: elements hidden from readers (`hidden`, `aria-hidden`,
//! `display:none`, screen-reader-only text); navigation, banners, dialogs
//! and forms by ARIA role or element; buttons and inputs; ruby
//! annotations (`<rt>`, `<rp>`); figure captions and photo credits; blocks whose class or id names sharing, related
//! stories, newsletters, promotions, advertising, bylines and dates,
//! comments, tags or cookie notices. A block is kept, whatever its name, when it holds the
//! page's heading or its marked main content (`<article>`, `<main>`,
//! `itemprop="articleBody"`), or more than half of the page's text: a
//! wrapper named `has-social-bar` is not boilerplate, and a page that
//! lives inside one `<form>` (ASP.NET Web Forms) keeps its text.
//!
//! **Form inside the article**: a `<form>` inside the page's marked
//! article that holds prose of its own and asks for no text (no address,
//! password, search or message field: not a sign-up, a login, a search or
//! a comment form) is the article's text: a shop's product page wraps its
//! description in the order form. It becomes a plain block (its controls
//! are gone).
//!
//! Lazy-loaded images get their real address: the first candidate of
//! `data-srcset`/`srcset` or `data-src` when `src` is missing or a
//! placeholder, never a whole srcset list.

use dom_query::{Document, NodeData, NodeRef};
use rustc_hash::{FxHashMap, FxHashSet};

use super::rules;

/// Words of a class or id that name boilerplate whatever the block holds.
const ALWAYS_BOILERPLATE_WORDS: &[&str] = &[
    "adsbygoogle",
    "comment",
    "comments",
    "consent",
    "cookie",
    "cookies",
    "disqus",
    "gdpr",
    "newsletter",
    "outbrain",
    "taboola",
];

/// Words of a class or id that name boilerplate when the block holds no
/// prose of its own ([`Stats::holds_prose`]): site builders put such words on
/// content wrappers too (`entry share`, `post-meta-enabled`).
const BOILERPLATE_WORDS: &[&str] = &[
    "ad",
    "ads",
    "advert",
    "advertisement",
    "advertising",
    "author",
    "authors",
    "banner",
    "breadcrumb",
    "breadcrumbs",
    "byline",
    "bylines",
    "caption",
    "captions",
    "credit",
    "credits",
    "dateline",
    "masthead",
    "meta",
    "modal",
    "pagination",
    "popup",
    "promo",
    "promotion",
    "rating",
    "recommendations",
    "recommended",
    "related",
    "relatedposts",
    "share",
    "sharedaddy",
    "shares",
    "sharing",
    "signup",
    "social",
    "sponsor",
    "sponsored",
    "subscribe",
    "subscription",
    "tagcloud",
    "tags",
    "toolbar",
];

/// Words that turn the next word around (`no-share`, `hide-for-print`).
const NEGATIONS: &[&str] = &["no", "not", "without", "hide", "for"];

/// Whole class values of text meant for screen readers only.
const SCREEN_READER_CLASSES: &[&str] =
    &["sr-only", "screen-reader-text", "visually-hidden", "visuallyhidden", "screenreader", "a11y-hidden"];

/// ARIA roles of structures that are never the main text.
const BOILERPLATE_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "menu",
    "menubar",
    "toolbar",
];

/// Elements that are boilerplate unless they hold the main content: a
/// search or comment form, a cookie dialog; but some sites (ASP.NET Web
/// Forms) wrap the whole page in one `<form>`.
const GUARDED_ELEMENTS: &[&str] = &["form", "dialog"];

/// Elements removed wherever they are: controls, captions, templates, and
/// ruby annotations (`<rt>`, `<rp>`: the reading printed above a word, as
/// Japanese pages gloss their kanji), which a reader reads past and which
/// would split every glossed word of the text in two.
const BOILERPLATE_ELEMENTS: &[&str] = &["button", "figcaption", "input", "rp", "rt", "select", "template", "textarea"];

/// The document's `<body>`, found without a selector walk.
pub(crate) fn body(doc: &Document) -> Option<NodeRef<'_>> {
    let html = doc.root().element_children().into_iter().find(|n| n.node_name().as_deref() == Some("html"))?;
    html.element_children().into_iter().find(|n| n.node_name().as_deref() == Some("body"))
}

/// Cleans `doc` in place (see the module documentation).
pub(crate) fn clean(doc: &Document) {
    let Some(body) = body(doc) else { return };
    // One walk finds what every later step needs, in document order.
    let mut boilerplate = Vec::new();
    let mut headers = Vec::new();
    let mut images = Vec::new();
    let mut noscripts = Vec::new();
    let mut chrome = Vec::new();
    let mut candidates: Vec<(NodeRef<'_>, Kind)> = Vec::new();
    let mut page_headings = Vec::new();
    let mut headings = Vec::new();
    for node in body.descendants_it().filter(|n| n.is_element()) {
        let name = node.node_name().unwrap_or_default();
        match &*name {
            name if BOILERPLATE_ELEMENTS.contains(&name) => boilerplate.push(node),
            "header" => {
                headers.push(node);
                chrome.push(node);
            }
            "img" => images.push(node),
            "h1" => page_headings.push(node),
            "h2" | "h3" | "h4" | "h5" | "h6" => headings.push(node),
            "noscript" => noscripts.push(node),
            "nav" | "footer" | "aside" => chrome.push(node),
            _ => {}
        }
        if let Some(kind) = kind(&node, &name) {
            candidates.push((node, kind));
        }
    }
    // Read before the controls go. Forms do not nest in a parsed page, so
    // each element is looked at once.
    let asking_forms: FxHashSet<dom_query::NodeId> = candidates
        .iter()
        .filter(|(node, _)| node.node_name().as_deref() == Some("form"))
        .filter(|(node, _)| node.descendants_it().any(|d| asks_for_text(&d)))
        .map(|(node, _)| node.id)
        .collect();
    for node in boilerplate {
        node.remove_from_parent();
    }
    // An article's own header holds its title and standfirst, not the
    // site's banner: keep it from the extractor's header rule.
    for header in headers {
        if header.ancestors_it(None).any(|a| marks_article(&a)) {
            header.rename("div");
        }
    }
    let mut unnamed = FxHashSet::default();
    for heading in page_headings {
        unname_headers_above(&heading, body, &mut unnamed);
    }
    fix_lazy_images(&images);
    escape_alt_brackets(&images);
    let stats = subtree_stats(body);
    // A paragraph set in a heading element (a standfirst in an `<h3>`) is
    // read as a paragraph: the extractor and the tidy pass treat headings
    // as titles of sections, and drop one whose section looks empty.
    for heading in headings {
        if stats.get(&heading.id).is_some_and(|s| s.chars > rules::PARAGRAPH_IN_HEADING_CHARS) {
            heading.rename("p");
        }
    }
    let body_chars = stats.get(&body.id).map_or(0, |s| s.chars).max(1);
    unwrap_swallowing_noscript(&noscripts, &stats, body_chars);
    unwrap_swallowing_chrome(&chrome, &stats, body_chars);
    let mut removed: FxHashSet<dom_query::NodeId> = FxHashSet::default();
    let mut paragraphs_with_text: FxHashMap<dom_query::NodeId, bool> = FxHashMap::default();
    for (node, kind) in candidates {
        // A removed element has no counts: it is no longer under `<body>`.
        let Some(block) = stats.get(&node.id) else { continue };
        if node.ancestors_it(None).any(|a| removed.contains(&a.id)) {
            continue;
        }
        if block.main || block.chars * 2 > body_chars || (kind == Kind::Named && block.holds_prose()) {
            continue;
        }
        // Rule "form inside the article"; the prose is checked first, so
        // only forms holding prose walk their ancestors.
        if block.holds_prose()
            && node.node_name().as_deref() == Some("form")
            && !asking_forms.contains(&node.id)
            && node.ancestors_it(None).any(|a| marks_article(&a))
        {
            node.rename("div");
            continue;
        }
        // A dateline or a credit run into a paragraph is part of its text.
        if kind == Kind::Named && inside_paragraph(&node, &mut paragraphs_with_text) {
            continue;
        }
        removed.insert(node.id);
        node.remove_from_parent();
    }
}

/// The text under `node` that a reader is shown, its runs apart by a
/// space: the text of scripts and styles is not shown.
pub(crate) fn shown_text(node: &NodeRef<'_>) -> String {
    let mut text = String::new();
    for run in shown_runs(node) {
        text.push_str(&run.text());
        text.push(' ');
    }
    text
}

/// The text nodes under `node` that a reader is shown: not those of
/// scripts and styles.
pub(crate) fn shown_runs<'a>(node: &NodeRef<'a>) -> impl Iterator<Item = NodeRef<'a>> {
    node.descendants_it().filter(NodeRef::is_text).filter(|run| {
        !run.parent().and_then(|p| p.node_name()).is_some_and(|name| matches!(&*name, "script" | "style"))
    })
}

/// Whether an element is a field for an address, a password, a search or
/// a message: what sign-up, login, search and comment forms ask for, and
/// an order form does not.
fn asks_for_text(node: &NodeRef<'_>) -> bool {
    match node.node_name().as_deref() {
        Some("textarea") => true,
        Some("input") => node
            .attr("type")
            .is_some_and(|t| ["email", "password", "search"].iter().any(|kind| t.trim().eq_ignore_ascii_case(kind))),
        _ => false,
    }
}

/// Elements that run inside a line of text.
const INLINE_ELEMENTS: &[&str] = &["abbr", "b", "cite", "em", "i", "small", "span", "strong", "time"];

/// Whether an element runs inside a paragraph (`<p><span class="dateline">
/// KOBE – </span>A total of…`): an inline element whose parent is a `<p>`
/// with text of its own beside it. Each paragraph's answer is kept
/// (`known`), so a paragraph of many named spans is read once.
fn inside_paragraph(node: &NodeRef<'_>, known: &mut FxHashMap<dom_query::NodeId, bool>) -> bool {
    if !node.node_name().is_some_and(|name| INLINE_ELEMENTS.contains(&&*name)) {
        return false;
    }
    let Some(parent) = node.parent().filter(|p| p.node_name().as_deref() == Some("p")) else { return false };
    *known.entry(parent.id).or_insert_with(|| {
        parent.children_it(false).any(|child| {
            child.query_or(false, |n| matches!(&n.data, NodeData::Text { contents } if visible_chars(contents) > 0))
        })
    })
}

/// Takes the word `header` out of the class and id of the blocks that
/// hold a page heading (`<div class="entry-header"><h1>…`). The extractor
/// drops blocks so named unread, heading and all, and then takes the first
/// heading inside the article that resembles the page title for the title
/// and removes it: a section heading is lost in place of the page's.
/// Each block is seen once (`seen`), so a page of many headings costs its
/// tree once.
fn unname_headers_above(heading: &NodeRef<'_>, body: NodeRef<'_>, seen: &mut FxHashSet<dom_query::NodeId>) {
    let named = |value: &str| value.to_ascii_lowercase().contains("header");
    // Collected first: the walk holds the tree while attributes change it.
    let blocks: Vec<NodeRef<'_>> =
        heading.ancestors_it(None).take_while(|a| a.id != body.id && seen.insert(a.id)).collect();
    for block in blocks {
        if let Some(class) = block.attr("class").filter(|c| named(c)) {
            let kept: Vec<&str> = class.split_ascii_whitespace().filter(|word| !named(word)).collect();
            block.set_attr("class", &kept.join(" "));
        }
        if block.attr("id").is_some_and(|id| named(&id)) {
            block.remove_attr("id");
        }
    }
}

/// Whether an element marks the article ([`rules::marks_article`]): its
/// `<header>` is the article's own, and no block holding it is removed.
pub(super) fn marks_article(node: &NodeRef<'_>) -> bool {
    node.query_or(false, |n| match &n.data {
        NodeData::Element(element) => rules::marks_article(
            &element.name.local,
            element.attrs.iter().map(|attr| (&*attr.name.local, &*attr.value)),
        ),
        _ => false,
    })
}

/// What a subtree holds, counted once for the whole page.
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    /// Visible (non-white-space) characters of its text.
    chars: usize,
    /// Of which inside links.
    link_chars: usize,
    /// Whether it is or holds the page's heading or marked main content.
    main: bool,
    /// Whether it is or holds the page's marked article (`article`, `main`,
    /// `role="main"`, `itemprop="articleBody"`; not a heading alone).
    article: bool,
}

impl Stats {
    /// Whether a block holds prose of its own: at least 200 visible
    /// characters outside links, and links no more than a third of its
    /// text. Share bars, bylines, tag lists and related-story blocks do
    /// not; a content wrapper with a misleading name does.
    fn holds_prose(&self) -> bool {
        self.chars.saturating_sub(self.link_chars) >= rules::BLOCK_PROSE_CHARS
            && self.link_chars * rules::BLOCK_PROSE_LINK_PARTS <= self.chars
    }
}

/// [`Stats`] of every node under `<body>`, in one pass from the leaves up:
/// each decision about a block is then a lookup, whatever the nesting.
fn subtree_stats(body: NodeRef<'_>) -> FxHashMap<dom_query::NodeId, Stats> {
    let mut nodes: Vec<NodeRef<'_>> = vec![body];
    nodes.extend(body.descendants_it());
    let mut stats: FxHashMap<dom_query::NodeId, Stats> =
        FxHashMap::with_capacity_and_hasher(nodes.len(), Default::default());
    // In document order a node comes before everything under it, so in
    // reverse its children are done before it.
    for node in nodes.iter().rev() {
        let mut own = stats.get(&node.id).copied().unwrap_or_default();
        if node.is_text() {
            own.chars = node.query_or(0, |n| match &n.data {
                NodeData::Text { contents } => visible_chars(contents),
                _ => 0,
            });
        } else if node.is_element() {
            if node.node_name().is_some_and(|n| &*n == "a") {
                own.link_chars = own.chars;
            }
            let article = marks_article(node);
            own.article |= article;
            own.main |= article || node.node_name().as_deref() == Some("h1");
        }
        stats.insert(node.id, own);
        if node.id != body.id
            && let Some(parent) = node.parent()
        {
            let up = stats.entry(parent.id).or_default();
            up.chars += own.chars;
            up.link_chars += own.link_chars;
            up.main |= own.main;
            up.article |= own.article;
        }
    }
    stats
}

/// Unwraps a `<noscript>` that holds most of the page's text or prose of
/// its own. The tree is built as a reader without scripts sees it, and
/// that is what such a reader reads: a page that never closes a
/// `<noscript>` (`<noscript><div></noscript>`) holds the rest of the page
/// in it, and some publishing systems put the article there for readers
/// without scripts (and in a script for the others). The extractor drops
/// `<noscript>`, and would drop the text with it.
fn unwrap_swallowing_noscript(
    noscripts: &[NodeRef<'_>],
    stats: &FxHashMap<dom_query::NodeId, Stats>,
    body_chars: usize,
) {
    for noscript in noscripts {
        if stats.get(&noscript.id).is_some_and(|s| s.chars * 2 > body_chars || s.holds_prose())
            && let Some(child) = noscript.first_child()
        {
            // Unwraps the child's parent: the noscript.
            child.unwrap_node();
        }
    }
}

/// Makes plain blocks of a `<header>`, `<nav>`, `<footer>` or `<aside>`
/// that holds the page's article or more than half of its text: a page
/// that never closes its `<header>` holds everything in it, and both the
/// extractor and the converter drop such structures whole.
fn unwrap_swallowing_chrome(chrome: &[NodeRef<'_>], stats: &FxHashMap<dom_query::NodeId, Stats>, body_chars: usize) {
    for node in chrome {
        if stats.get(&node.id).is_some_and(|s| s.article || s.chars * 2 > body_chars) {
            node.rename("div");
        }
    }
}

/// Why an element is taken for boilerplate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Hidden, or a role or class that is never the main text.
    Always,
    /// A class or id word that is boilerplate unless the block holds prose.
    Named,
}

/// The characters of `text` that are not white space (Unicode's), counted
/// byte by byte when the text is ASCII.
pub(crate) fn visible_chars(text: &str) -> usize {
    if text.is_ascii() {
        // ASCII white space as `char::is_whitespace` has it (`\x0B` too).
        return text.bytes().filter(|b| !matches!(b, b' ' | b'\t'..=b'\r')).count();
    }
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// Whether an element (named `name`) is boilerplate by its attributes,
/// and how surely.
fn kind(node: &NodeRef<'_>, name: &str) -> Option<Kind> {
    if GUARDED_ELEMENTS.contains(&name) {
        return Some(Kind::Always);
    }
    if node.has_attr("hidden") || node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Some(Kind::Always);
    }
    if node.attr("style").is_some_and(|s| hides(&s)) {
        return Some(Kind::Always);
    }
    if node.attr("role").is_some_and(|r| BOILERPLATE_ROLES.iter().any(|b| r.trim().eq_ignore_ascii_case(b))) {
        return Some(Kind::Always);
    }
    let class = node.attr("class");
    if class.as_deref().is_some_and(|c| {
        c.split_ascii_whitespace().any(|v| SCREEN_READER_CLASSES.iter().any(|s| v.eq_ignore_ascii_case(s)))
    }) {
        return Some(Kind::Always);
    }
    let mut kind = None;
    for value in [class, node.attr("id")].iter().flatten() {
        let mut negated = false;
        for word in words(value) {
            if !negated {
                if listed(ALWAYS_BOILERPLATE_WORDS, word) {
                    return Some(Kind::Always);
                }
                if listed(BOILERPLATE_WORDS, word) {
                    kind = Some(Kind::Named);
                }
            }
            negated = NEGATIONS.iter().any(|n| n.eq_ignore_ascii_case(word));
        }
    }
    kind
}

/// Whether an inline style hides the element (`display: none`,
/// `visibility:hidden`), without allocating for the styles that do not.
fn hides(style: &str) -> bool {
    let bytes = style.as_bytes();
    let has = |word: &[u8]| bytes.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    if !has(b"none") && !has(b"hidden") {
        return false;
    }
    let squeezed: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    squeezed.contains("display:none") || squeezed.contains("visibility:hidden")
}

/// Whether a sorted list of lower-case words holds `word`, in any case.
pub(crate) fn listed(list: &[&str], word: &str) -> bool {
    list.binary_search_by(|probe| probe.bytes().cmp(word.bytes().map(|b| b.to_ascii_lowercase()))).is_ok()
}

/// The words of a class or id value: split at anything not a letter or
/// digit and at lower-to-upper case changes (`shareBar` → `share`, `Bar`),
/// without allocating.
pub(crate) fn words(value: &str) -> impl Iterator<Item = &str> + '_ {
    value.split(|c: char| !c.is_ascii_alphanumeric()).filter(|part| !part.is_empty()).flat_map(camel_case_parts)
}

/// `shareBarTop` → `share`, `Bar`, `Top`.
fn camel_case_parts(part: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = part.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let mut end = start + 1;
        while end < bytes.len() && !(bytes[end].is_ascii_uppercase() && bytes[end - 1].is_ascii_lowercase()) {
            end += 1;
        }
        let word = &part[start..end];
        start = end;
        Some(word)
    })
}

/// Escapes the brackets of images' alt texts: the converter writes an alt
/// text as it is, and `![a]b](…)` or `![[b](…)` is no image to a Markdown
/// reader (nor to the content shapes, which would leave it in the text).
fn escape_alt_brackets(images: &[NodeRef<'_>]) {
    for img in images {
        if let Some(alt) = img.attr("alt").filter(|alt| alt.contains(['[', ']'])) {
            let escaped = alt.replace('[', "\\[").replace(']', "\\]");
            img.set_attr("alt", &escaped);
        }
    }
}

/// Gives lazy-loaded images their real address.
fn fix_lazy_images(images: &[NodeRef<'_>]) {
    for img in images {
        let src = img.attr("src").map(|s| s.trim().to_string()).unwrap_or_default();
        let placeholder = src.is_empty() || src.starts_with("data:") || is_srcset_list(&src);
        if !placeholder {
            continue;
        }
        let real = ["data-src", "data-lazy-src", "data-original", "data-srcset", "srcset"].iter().find_map(|name| {
            let value = img.attr(name)?;
            let first = first_candidate(&value)?;
            (!first.starts_with("data:")).then(|| first.to_string())
        });
        match real {
            Some(url) => img.set_attr("src", &url),
            None if is_srcset_list(&src) => {
                if let Some(first) = first_candidate(&src) {
                    let first = first.to_string();
                    img.set_attr("src", &first);
                }
            }
            None => {}
        }
        img.remove_attrs(&["srcset", "data-srcset"]);
    }
}

/// Whether an attribute value is a srcset list (`a.jpg 1x, b.jpg 2x` or
/// `a.jpg?w=335 335w, …`), not one address.
fn is_srcset_list(value: &str) -> bool {
    let mut parts = value.split_ascii_whitespace();
    parts.next().is_some()
        && parts.next().is_some_and(|d| {
            let d = d.trim_end_matches(',');
            d.len() > 1 && d.ends_with(['w', 'x']) && d[..d.len() - 1].parse::<f32>().is_ok()
        })
}

/// The first address of a srcset list (or the value, when it is one).
fn first_candidate(value: &str) -> Option<&str> {
    let first = value.trim().split(", ").next()?.split_ascii_whitespace().next()?;
    (!first.is_empty()).then_some(first.trim_end_matches(','))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_chars_counts_as_unicode_white_space_says() {
        let ascii: String = (0u8..0x80).map(char::from).collect();
        for text in [ascii.as_str(), "a\u{a0}b\u{2003}c\u{3000}d\u{85}", "  \t\x0b\x0c\r\n", "日本語 の 文"] {
            assert_eq!(visible_chars(text), text.chars().filter(|c| !c.is_whitespace()).count(), "{text:?}");
        }
    }

    fn cleaned(html: &str) -> String {
        let doc = Document::from(html);
        clean(&doc);
        doc.select("body").text().split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_word_lists_are_sorted_for_binary_search() {
        assert!(BOILERPLATE_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(ALWAYS_BOILERPLATE_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn class_words_split_at_separators_and_case() {
        let split: Vec<&str> = words("c-shareBar article__byline  jp-relatedposts").collect();
        assert_eq!(split, ["c", "share", "Bar", "article", "byline", "jp", "relatedposts"]);
        assert!(listed(BOILERPLATE_WORDS, "ShareS") && !listed(BOILERPLATE_WORDS, "shar"));
        assert!(hides("color: red; DISPLAY : none") && !hides("display: block") && !hides("font: none"));
    }

    #[test]
    fn boilerplate_structures_are_removed_and_content_kept() {
        let article = "<p>The main text of the story, long enough to matter to anyone reading it.</p>";
        let rows: &[(&str, &str)] = &[
            ("<div class=\"share-buttons\">Share on Facebook</div>", "Share on Facebook"),
            ("<div class=\"c-byline\">By Jane Doe</div>", "Jane Doe"),
            ("<p class=\"article-meta\">Updated 3 hours ago</p>", "Updated"),
            ("<figure><img src=a.jpg><figcaption>Image 1 of 8</figcaption></figure>", "Image 1 of 8"),
            ("<span class=\"photo-credit\">Credit: AP</span>", "Credit"),
            ("<aside class=\"related-stories\"><h3>OTHER HEADLINE</h3></aside>", "OTHER HEADLINE"),
            ("<div id=\"newsletterSignup\">Get our newsletter</div>", "newsletter"),
            ("<div role=\"dialog\">Accept cookies?</div>", "cookies"),
            ("<span class=\"sr-only\">Opens in a new window</span>", "new window"),
            ("<div hidden>Secret</div>", "Secret"),
            ("<div style=\"display: none\">Hidden</div>", "Hidden"),
            ("<button>Close</button>", "Close"),
        ];
        for (boilerplate, words) in rows {
            let html = format!("<body><article><h1>Title</h1>{article}{boilerplate}</article></body>");
            let text = cleaned(&html);
            assert!(!text.contains(words), "{boilerplate} kept: {text}");
            assert!(text.contains("main text of the story"), "{boilerplate} took the content: {text}");
        }
    }

    #[test]
    fn ruby_annotations_are_not_the_text() {
        let html = "<body><article><h1>T</h1><p><ruby>法律<rp>(</rp><rt>ほうりつ</rt><rp>)</rp></ruby>では</p></article></body>";
        assert_eq!(cleaned(html), "T法律では");
    }

    #[test]
    fn a_form_inside_the_article_holding_prose_is_its_text() {
        let prose = "<p>A warm blanket of two layers, embroidered with your cat's name and a portrait of its \
                     breed, washable at forty degrees and sewn by hand in a small workshop near the coast, where \
                     the same family has made blankets and quilts for three generations.</p>";
        let order = format!("<form><select><option>Blue</option></select>{prose}<input type=text value=1></form>");
        let sign_up = format!("<form><input type=email>{prose}</form>");
        let rows: &[(String, bool)] = &[
            (format!("<article><h1>T</h1>{order}</article>"), true),
            (format!("<main><h1>T</h1>{order}</main>"), true),
            (format!("<article><h1>T</h1>{sign_up}</article>"), false),
            (format!("<article><h1>T</h1><form><textarea></textarea>{prose}</form></article>"), false),
            (format!("<h1>T</h1><div>{order}</div>"), false),
        ];
        // The rest of the page outweighs the form.
        let rest = "<p>The rest of the page, which outweighs the form.</p>".repeat(8);
        for (body, kept) in rows {
            let html = format!("<body>{body}{rest}</body>");
            assert_eq!(cleaned(&html).contains("warm blanket"), *kept, "{html}");
        }
    }

    #[test]
    fn many_forms_inside_an_article_cost_linear_time() {
        let prose = "Words of a product's description, long enough to be prose of its own. ".repeat(4);
        let forms = format!("<form><input type=text><p>{prose}</p></form>").repeat(5_000);
        let deep = format!("{}{forms}{}", "<div>".repeat(400), "</div>".repeat(400));
        let html = format!("<body><article><h1>Title</h1>{deep}</article></body>");
        let started = std::time::Instant::now();
        let text = cleaned(&html);
        assert_eq!(text.matches("description").count(), 5_000 * 4, "the forms' prose stays");
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn a_dateline_run_into_a_paragraph_is_its_text() {
        let html = "<body><article><h1>Title</h1><p><span class=\"dateline\">KOBE – </span>A total of 6,000 masks \
                    were lost.</p><p><span class=\"dateline\">Updated 3 hours ago</span></p></article></body>";
        let text = cleaned(html);
        assert!(text.contains("KOBE – A total of 6,000"), "{text}");
        assert!(!text.contains("Updated"), "a dateline that is a paragraph alone goes: {text}");
    }

    #[test]
    fn a_paragraph_of_many_named_spans_costs_linear_time() {
        let spans = "<span class=\"dateline\">q</span>".repeat(50_000);
        let html = format!("<body><article><h1>Title</h1><p>{spans} Text</p></article></body>");
        let started = std::time::Instant::now();
        let text = cleaned(&html);
        assert_eq!(text.matches('q').count(), 50_000, "the datelines run into the paragraph stay");
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn blocks_holding_the_page_heading_lose_the_word_header() {
        let html = "<body><div id=pageHeader class=\"entry-header wide\"><div class=header-inner><h1>T</h1></div></div>\
                    <div class=site-header>Banner</div></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert_eq!(doc.select("div.wide").attr("class").as_deref(), Some("wide"));
        assert!(doc.select("div.wide").attr("id").is_none());
        assert_eq!(doc.select("div.wide > div").attr("class").as_deref(), Some(""));
        assert_eq!(doc.select(".site-header").length(), 1, "a header without the page heading keeps its name");
    }

    #[test]
    fn a_paragraph_set_in_a_heading_element_is_a_paragraph() {
        let lead = "Long ago I started this letter, and every week since I have put it off again, because saying \
                    goodbye to a magazine you built is harder than it sounds.";
        let html = format!("<body><article><h1>{lead}</h1><h3>{lead}</h3><h2>A section</h2></article></body>");
        let doc = Document::from(html.as_str());
        clean(&doc);
        assert_eq!(doc.select("article > p").text().trim(), lead);
        assert_eq!(doc.select("h2").text().trim(), "A section", "a heading of a few words stays one");
        assert_eq!(doc.select("h1").length(), 1, "the page heading is never renamed");
    }

    #[test]
    fn a_form_around_the_whole_page_is_not_removed() {
        // (Forms cannot nest: the search form is the page's second one.)
        let body = "<form id=aspnetForm><div><h1>Title</h1><p>The page's text, inside the form.</p></div></form>\
                    <form class=search><input name=q><p>Search</p></form>";
        let text = cleaned(&format!("<body>{body}</body>"));
        assert!(text.contains("The page's text") && !text.contains("Search"), "{text}");
    }

    #[test]
    fn a_boilerplate_name_on_the_content_s_wrapper_is_not_obeyed() {
        let body = "<div class=\"has-social-bar\"><h1>Title</h1><p>All of the page's text lives here.</p></div>";
        assert!(cleaned(&format!("<body>{body}</body>")).contains("All of the page's text"));
        let body = "<div class=\"post related-enabled\"><p>Unmarked content that is most of the page.</p></div>\
                    <div class=\"share\">Share</div>";
        let text = cleaned(&format!("<body>{body}</body>"));
        assert!(text.contains("Unmarked content") && !text.contains("Share"), "{text}");
    }

    #[test]
    fn an_article_s_own_header_is_kept() {
        let html = "<body><header>Site banner</header><article><header><h1>T</h1><p class=lead>The standfirst.</p></header>\
                    <p>Body.</p></article></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert_eq!(doc.select("article header").length(), 0);
        assert_eq!(doc.select("body > header").length(), 1);
    }

    #[test]
    fn a_noscript_that_swallows_the_page_is_unwrapped() {
        let html =
            "<body><noscript><div id=nojs></noscript><h1>Title</h1><p>The page's own text, all of it.</p></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert!(!doc.select("noscript").exists());
        assert!(doc.select("body").text().contains("The page's own text"));
        let html =
            "<body><noscript><img src=pixel.gif>Enable scripts</noscript><p>The page's own, longer text.</p></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert!(doc.select("noscript").exists(), "a small noscript is the extractor's to judge");
    }

    #[test]
    fn a_noscript_with_prose_is_read() {
        let prose = "The article, given to readers without scripts: several sentences of real text, long \
                     enough to be a paragraph of its own and not a notice that scripts are off, which is \
                     what most of these elements hold instead, and then it goes on for a sentence more.";
        let html =
            format!("<body><script>render()</script><noscript><p>{prose}</p></noscript><p>Other text.</p></body>");
        let doc = Document::from(html.as_str());
        clean(&doc);
        assert!(!doc.select("noscript").exists());
        let html =
            format!("<body><noscript>Please enable JavaScript to read this site.</noscript><p>{prose}</p></body>");
        let doc = Document::from(html.as_str());
        clean(&doc);
        assert!(doc.select("noscript").exists());
    }

    #[test]
    fn a_header_that_swallows_the_article_is_a_plain_block() {
        // The page never closes its <header>: the article is inside it.
        let html = "<body><header id=top><a href=/>Logo</a><nav><a href=/a>A</a></nav><main><article><h1>T</h1>\
                    <p>The article's text.</p></article></main></header><footer>Imprint</footer></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert_eq!(doc.select("header").length(), 0, "{}", doc.html());
        assert_eq!(doc.select("footer").length(), 1);
        // A site header with the logo in an <h1> stays a header.
        let html = "<body><header><h1>Site name</h1></header><article><p>The article's own text.</p></article></body>";
        let doc = Document::from(html);
        clean(&doc);
        assert_eq!(doc.select("header").length(), 1);
    }

    #[test]
    fn lazy_images_get_one_address() {
        let html = "<body><img src=\"data:image/gif;base64,R0l\" data-srcset=\"https://x.test/a.jpg?w=335 335w, https://x.test/a.jpg?w=480 480w\">\
                    <img src=\"https://x.test/b.jpg?w=335 335w, https://x.test/b.jpg?w=480 480w\">\
                    <img data-src=\"/c.jpg\"></body>";
        let doc = Document::from(html);
        clean(&doc);
        let srcs: Vec<String> = doc.select("img").nodes().iter().map(|n| n.attr("src").unwrap().to_string()).collect();
        assert_eq!(srcs, ["https://x.test/a.jpg?w=335", "https://x.test/b.jpg?w=335", "/c.jpg"]);
    }
}
