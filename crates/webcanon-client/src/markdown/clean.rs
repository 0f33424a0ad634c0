//! Boilerplate removed from the page before the extractor scores it:
//! structures that are never the main text, found by their role, their
//! element and the words of their `class` and `id`, never by site.
//!
//! An `<article>`'s own `<header>` (its title and standfirst) is made a
//! plain block, so that the extractor's rule for site headers spares it.
//!
//! Removed: elements hidden from readers (`hidden`, `aria-hidden`,
//! `display:none`, screen-reader-only text); navigation, banners, dialogs
//! and forms by ARIA role or element; figure captions and photo credits;
//! blocks whose class or id names sharing, related stories, newsletters,
//! promotions, advertising, bylines and dates, comments, tags, galleries or
//! cookie notices. A block is kept, whatever its name, when it holds the
//! page's heading or its marked main content (`<article>`, `<main>`,
//! `itemprop="articleBody"`), or more than half of the page's text: a
//! wrapper named `has-social-bar` is not boilerplate.
//!
//! Lazy-loaded images get their real address: the first candidate of
//! `data-srcset`/`srcset` or `data-src` when `src` is missing or a
//! placeholder, never a whole srcset list.

use std::collections::HashSet;

use dom_query::{Document, NodeRef};

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
/// prose of its own ([`holds_prose`]): site builders put such words on
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

/// Elements removed wherever they are.
const BOILERPLATE_ELEMENTS: &str = "figcaption, button, form, select, textarea, input, dialog, template";

/// What marks the main content; a block holding one is never removed.
const MAIN_CONTENT: &str = "article, main, [role=main], [itemprop=articleBody], h1";

/// Cleans `doc` in place (see the module documentation).
pub(crate) fn clean(doc: &Document) {
    doc.select(BOILERPLATE_ELEMENTS).remove();
    // An article's own header holds its title and standfirst, not the
    // site's banner: keep it from the extractor's header rule.
    doc.select("article header, main header, [itemprop=articleBody] header").rename("div");
    fix_lazy_images(doc);
    let body_chars = visible_chars(&doc.select("body").text()).max(1);
    unwrap_swallowing_noscript(doc, body_chars);
    let mut removed: HashSet<dom_query::NodeId> = HashSet::new();
    let candidates: Vec<(NodeRef<'_>, Kind)> =
        doc.select("body *").nodes().iter().filter_map(|node| kind(node).map(|k| (*node, k))).collect();
    for (node, kind) in candidates {
        if node.ancestors_it(None).any(|a| removed.contains(&a.id)) {
            continue;
        }
        let selection = dom_query::Selection::from(node);
        if selection.is("body, html") || selection.is(MAIN_CONTENT) || selection.select(MAIN_CONTENT).exists() {
            continue;
        }
        let chars = visible_chars(&node.text());
        if chars * 2 > body_chars || (kind == Kind::Named && holds_prose(&selection, chars)) {
            continue;
        }
        removed.insert(node.id);
        node.remove_from_parent();
    }
}

/// Unwraps a `<noscript>` that holds most of the page's text. The tree is
/// built as a reader without scripts sees it, so a `<noscript>` that a page
/// never closes (`<noscript><div></noscript>`) holds the rest of the page;
/// the extractor drops `<noscript>`, and would drop the page with it.
fn unwrap_swallowing_noscript(doc: &Document, body_chars: usize) {
    for noscript in doc.select("noscript").nodes() {
        if visible_chars(&noscript.text()) * 2 > body_chars
            && let Some(child) = noscript.first_child()
        {
            // Unwraps the child's parent: the noscript.
            child.unwrap_node();
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

fn visible_chars(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// Whether a block holds prose of its own: at least 200 visible characters
/// outside links, and links no more than a third of its text. Share bars,
/// bylines, tag lists and related-story blocks do not; a content wrapper
/// with a misleading name does.
fn holds_prose(block: &dom_query::Selection<'_>, chars: usize) -> bool {
    let link_chars = visible_chars(&block.select("a").text());
    let own = chars.saturating_sub(link_chars);
    own >= 200 && link_chars * 3 <= chars
}

/// Whether an element is boilerplate by its attributes, and how surely.
fn kind(node: &NodeRef<'_>) -> Option<Kind> {
    if node.has_attr("hidden") || node.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Some(Kind::Always);
    }
    if node.attr("style").is_some_and(|s| {
        let s = s.to_ascii_lowercase().replace(' ', "");
        s.contains("display:none") || s.contains("visibility:hidden")
    }) {
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
        let words: Vec<String> = words(value).collect();
        for (i, word) in words.iter().enumerate() {
            if i > 0 && NEGATIONS.contains(&words[i - 1].as_str()) {
                continue;
            }
            if ALWAYS_BOILERPLATE_WORDS.binary_search(&word.as_str()).is_ok() {
                return Some(Kind::Always);
            }
            if BOILERPLATE_WORDS.binary_search(&word.as_str()).is_ok() {
                kind = Some(Kind::Named);
            }
        }
    }
    kind
}

/// The words of a class or id value, lower-cased: split at anything not a
/// letter or digit and at lower-to-upper case changes (`shareBar` →
/// `share`, `bar`).
fn words(value: &str) -> impl Iterator<Item = String> + '_ {
    value.split(|c: char| !c.is_ascii_alphanumeric()).filter(|part| !part.is_empty()).flat_map(|part| {
        let mut pieces = Vec::new();
        let mut start = 0;
        let bytes = part.as_bytes();
        for i in 1..bytes.len() {
            if bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
                pieces.push(&part[start..i]);
                start = i;
            }
        }
        pieces.push(&part[start..]);
        pieces.into_iter().map(str::to_ascii_lowercase)
    })
}

/// Gives lazy-loaded images their real address.
fn fix_lazy_images(doc: &Document) {
    for img in doc.select("img").nodes() {
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
        let split: Vec<String> = words("c-shareBar article__byline  jp-relatedposts").collect();
        assert_eq!(split, ["c", "share", "bar", "article", "byline", "jp", "relatedposts"]);
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
