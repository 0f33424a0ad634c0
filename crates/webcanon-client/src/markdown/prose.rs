//! The element a page marks as its article's body, found by structure
//! and by the naming conventions of publishing systems, never by site:
//! `<article>`, `<main>`, `role="main"`, `itemprop="articleBody"`, and
//! class or id words such as `entry-content`, `article__body`,
//! `postBody` or `story-text`. Of several, the one with the most prose
//! and the least other text wins.
//!
//! A *paragraph* is the text of a block element (`p`, `li`, `div`, …)
//! outside any block inside it; it is *prose* when it has at least
//! [`MIN_PARAGRAPH_CHARS`] visible characters and links make up no more
//! than half of them. Every element is counted in one pass from the leaves
//! up, so the cost is linear in the tree.

use std::collections::HashMap;

use dom_query::{Document, NodeId, NodeRef};

/// The fewest visible characters of a paragraph that counts as prose.
const MIN_PARAGRAPH_CHARS: usize = 30;

/// Elements that start a paragraph of their own.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "center",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

/// What a subtree holds.
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    /// Visible characters not yet inside a block: the open paragraph.
    loose: usize,
    /// Of which inside links.
    loose_links: usize,
    /// Visible characters of the prose paragraphs in the subtree.
    prose: usize,
    /// Visible characters in the subtree.
    chars: usize,
}

/// The element found, with what it holds.
#[derive(Debug, Clone)]
pub(crate) struct MarkedBody<'a> {
    /// The element.
    pub node: NodeRef<'a>,
    /// Visible characters of its prose paragraphs.
    pub prose: usize,
}

/// The element the page marks as its article's body, or `None` when no
/// marked element holds prose.
pub(crate) fn marked_body(doc: &Document) -> Option<MarkedBody<'_>> {
    let body = doc.select("body").nodes().first().copied()?;
    let counts = count(body);
    let of = |node: &NodeRef<'_>| counts.get(&node.id).copied().unwrap_or_default();
    // Prose counts for the element, every other character against it.
    let score = |c: &Count| c.prose as i64 - (c.chars - c.prose) as i64;
    let mut best: Option<(i64, NodeRef<'_>)> = None;
    for node in body.descendants_it().filter(|n| n.is_element() && marks_content(n)) {
        let found = of(&node);
        // A later (deeper) element wins a tie: it holds the same text.
        if found.prose > 0 && best.as_ref().is_none_or(|(s, _)| score(&found) >= *s) {
            best = Some((score(&found), node));
        }
    }
    best.map(|(_, node)| MarkedBody { node, prose: of(&node).prose })
}

/// Counts every node under `body`, leaves first.
fn count(body: NodeRef<'_>) -> HashMap<NodeId, Count> {
    let mut nodes: Vec<NodeRef<'_>> = vec![body];
    nodes.extend(body.descendants_it());
    let mut counts: HashMap<NodeId, Count> = HashMap::with_capacity(nodes.len());
    // In document order a node comes before everything under it, so in
    // reverse its children are done before it.
    for node in nodes.iter().rev() {
        let mut own = counts.get(&node.id).copied().unwrap_or_default();
        if node.is_text() {
            let chars = visible_chars(&node.text());
            own.loose = chars;
            own.chars = chars;
        } else if node.is_element() {
            let name = node.node_name();
            let name = name.as_deref().unwrap_or("");
            if name == "a" {
                own.loose_links = own.loose;
            }
            if BLOCKS.contains(&name) {
                if own.loose >= MIN_PARAGRAPH_CHARS && own.loose_links * 2 <= own.loose {
                    own.prose += own.loose;
                }
                own.loose = 0;
                own.loose_links = 0;
            }
        }
        counts.insert(node.id, own);
        if node.id != body.id
            && let Some(parent) = node.parent()
        {
            let up = counts.entry(parent.id).or_default();
            up.loose += own.loose;
            up.loose_links += own.loose_links;
            up.prose += own.prose;
            up.chars += own.chars;
        }
    }
    counts
}

/// First words of the class or id word pairs that name an article's body
/// (`entry-content`, `article__body`, `postText`).
const FIRST_WORDS: &[&str] = &["article", "blog", "entry", "field", "main", "news", "page", "post", "single", "story"];
/// Second words of those pairs.
const SECOND_WORDS: &[&str] = &["body", "content", "contents", "copy", "inner", "main", "text"];
/// Single class or id words that name an article's body.
const WHOLE_WORDS: &[&str] = &[
    "articlebody",
    "articlecontent",
    "articletext",
    "entrycontent",
    "postbody",
    "postcontent",
    "posttext",
    "storybody",
    "storycontent",
    "storytext",
];

/// Whether an element marks an article's body (see the module
/// documentation).
fn marks_content(node: &NodeRef<'_>) -> bool {
    let name = node.node_name();
    if matches!(name.as_deref(), Some("article" | "main"))
        || node.attr("role").is_some_and(|r| r.trim().eq_ignore_ascii_case("main"))
        || node.attr("itemprop").is_some_and(|p| p.split_ascii_whitespace().any(|v| v == "articleBody" || v == "text"))
    {
        return true;
    }
    [node.attr("class"), node.attr("id")].iter().flatten().any(|value| {
        let words: Vec<String> = super::clean::words(value).map(|w| w.to_ascii_lowercase()).collect();
        words.iter().any(|w| WHOLE_WORDS.contains(&w.as_str()))
            || words.windows(2).any(|p| FIRST_WORDS.contains(&p[0].as_str()) && SECOND_WORDS.contains(&p[1].as_str()))
    })
}

fn visible_chars(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(html: &str) -> Option<String> {
        let doc = Document::from(html);
        marked_body(&doc).map(|b| b.node.attr("id").map(|id| id.to_string()).unwrap_or_default())
    }

    const PARA: &str = "<p>A paragraph of the article with enough words to count as prose.</p>";

    #[test]
    fn the_marked_body_with_the_most_prose_is_found() {
        let rows: &[(&str, Option<&str>)] = &[
            ("<div id=a class=entry-content>{P}{P}</div><div id=b class=sidebar>{P}</div>", Some("a")),
            ("<div id=a class=\"article__body\">{P}</div>", Some("a")),
            ("<div id=a class=postBody>{P}</div>", Some("a")),
            ("<div id=a itemprop=articleBody>{P}</div>", Some("a")),
            ("<article id=a><div id=b class=story-text>{P}{P}</div></article>", Some("b")),
            ("<article id=a><div class=lead>{P}</div><div id=b class=story-text>{P}{P}</div></article>", Some("a")),
            ("<main id=m><div id=a class=post-content>{P}</div><ul><li><a href=/>Home</a></li></ul></main>", Some("a")),
            ("<div class=content>{P}</div>", None),
            ("<div id=a class=entry-content><a href=/x>Only a link, no prose at all here</a></div>", None),
        ];
        for (body, want) in rows {
            let html = format!("<body>{}</body>", body.replace("{P}", PARA));
            assert_eq!(found(&html).as_deref(), *want, "{body}");
        }
    }

    #[test]
    fn short_and_link_heavy_paragraphs_are_not_prose() {
        let html = "<body><article id=a><p>Short.</p><p><a href=/1>A long link text that is most of it</a> and a bit</p>\
                    </article></body>";
        assert_eq!(found(html), None);
    }
}
