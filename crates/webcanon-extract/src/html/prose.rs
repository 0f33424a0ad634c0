//! The element a page marks as its article's body, found by structure
//! and by the naming conventions of publishing systems, never by site:
//! `<article>`, `<main>`, `role="main"`, `itemprop="articleBody"`, and
//! class or id words such as `entry-content`, `article__body`,
//! `postBody` or `story-text`. Of several, the one with the most prose
//! and the least other text wins.
//!
//! A *paragraph* is the text of a block element (`p`, `li`, `div`, …)
//! outside any block inside it; it is *prose* when it has at least
//! [`rules::PROSE_PARAGRAPH_CHARS`] visible characters and links make up no more
//! than half of them. Every element is counted in one pass from the leaves
//! up, so the cost is linear in the tree.

use dom_query::{Document, NodeData, NodeId, NodeRef};
use rustc_hash::FxHashMap;

use super::clean::{listed, visible_chars};
use super::rules;

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

/// What the page's own structure says of its main text, read in one pass.
pub(crate) struct PageStructure<'a> {
    /// The element the page marks as its article's body.
    pub marked: Option<MarkedBody<'a>>,
    /// The block around the page's one `<h1>`: its nearest ancestor
    /// holding at least [`rules::HEADLINE_BLOCK_CHARS`] visible characters
    /// besides the heading's (`None` without exactly one `<h1>`, or when
    /// only `<body>` holds that much).
    pub headline_block: Option<NodeRef<'a>>,
}

/// The page's structure: its marked body and its headline block.
pub(crate) fn page_structure(doc: &Document) -> PageStructure<'_> {
    let Some(body) = super::clean::body(doc) else { return PageStructure { marked: None, headline_block: None } };
    let (counts, marked, headings) = count(body);
    let of = |node: &NodeRef<'_>| counts.get(&node.id).copied().unwrap_or_default();
    let headline_block = match headings.as_slice() {
        [h1] => {
            let wanted = of(h1).chars + rules::HEADLINE_BLOCK_CHARS;
            h1.ancestors_it(None).take_while(|a| a.id != body.id).find(|a| of(a).chars >= wanted)
        }
        _ => None,
    };
    PageStructure { marked: best_marked(&counts, marked), headline_block }
}

/// Of the marked elements, the one with the most prose and the least other text.
fn best_marked<'a>(counts: &FxHashMap<NodeId, Count>, marked: Vec<NodeRef<'a>>) -> Option<MarkedBody<'a>> {
    let of = |node: &NodeRef<'_>| counts.get(&node.id).copied().unwrap_or_default();
    // Prose counts for the element, every other character against it.
    let score = |c: &Count| c.prose as i64 - (c.chars - c.prose) as i64;
    let mut best: Option<(i64, NodeRef<'_>)> = None;
    for node in marked {
        let found = of(&node);
        // A later (deeper) element wins a tie: it holds the same text.
        if found.prose > 0 && best.as_ref().is_none_or(|(s, _)| score(&found) >= *s) {
            best = Some((score(&found), node));
        }
    }
    best.map(|(_, node)| MarkedBody { node, prose: of(&node).prose })
}

/// What one node is, read in one look at the tree.
enum Facts {
    /// Text, with its visible characters.
    Text(usize),
    /// An element.
    Element {
        /// A link (`<a>`).
        link: bool,
        /// An element that starts a paragraph of its own.
        block: bool,
        /// An element that marks an article's body.
        marks: bool,
        /// An `<h1>`.
        headline: bool,
    },
    /// Anything else (comments, …).
    Other,
}

/// The [`Facts`] of a node, without allocating.
fn facts(node: &NodeRef<'_>) -> Facts {
    node.query_or(Facts::Other, |n| match &n.data {
        NodeData::Text { contents } => Facts::Text(visible_chars(contents)),
        NodeData::Element(element) => {
            let name: &str = &element.name.local;
            // The one structural mark, then the naming conventions of
            // publishing systems (`itemprop="text"`, `entry-content`, …).
            let marks = rules::marks_article(name, element.attrs.iter().map(|attr| (&*attr.name.local, &*attr.value)))
                || element.attrs.iter().any(|attr| match &*attr.name.local {
                    "itemprop" => attr.value.split_ascii_whitespace().any(|v| v == "text"),
                    "class" | "id" => names_body(&attr.value),
                    _ => false,
                });
            Facts::Element { link: name == "a", block: BLOCKS.contains(&name), marks, headline: name == "h1" }
        }
        _ => Facts::Other,
    })
}

/// Counts every node under `body`, leaves first, and lists the elements
/// that mark an article's body and the `<h1>`s, in document order.
fn count(body: NodeRef<'_>) -> (FxHashMap<NodeId, Count>, Vec<NodeRef<'_>>, Vec<NodeRef<'_>>) {
    let mut nodes: Vec<NodeRef<'_>> = vec![body];
    nodes.extend(body.descendants_it());
    let mut counts: FxHashMap<NodeId, Count> = FxHashMap::with_capacity_and_hasher(nodes.len(), Default::default());
    let mut marked = Vec::new();
    let mut headings = Vec::new();
    // In document order a node comes before everything under it, so in
    // reverse its children are done before it.
    for node in nodes.iter().rev() {
        let mut own = counts.get(&node.id).copied().unwrap_or_default();
        match facts(node) {
            Facts::Text(chars) => {
                own.loose = chars;
                own.chars = chars;
            }
            Facts::Element { link, block, marks, headline } => {
                if headline {
                    headings.push(*node);
                }
                if link {
                    own.loose_links = own.loose;
                }
                if block {
                    if own.loose >= rules::PROSE_PARAGRAPH_CHARS && own.loose_links * 2 <= own.loose {
                        own.prose += own.loose;
                    }
                    own.loose = 0;
                    own.loose_links = 0;
                }
                if marks && node.id != body.id {
                    marked.push(*node);
                }
            }
            Facts::Other => {}
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
    marked.reverse();
    headings.reverse();
    (counts, marked, headings)
}

/// First words of the class or id word pairs that name an article's body
/// (`entry-content`, `article__body`, `postText`).
const FIRST_WORDS: &[&str] =
    &["article", "blog", "content", "entry", "field", "main", "news", "page", "post", "single", "story"];
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

/// Whether a class or id value holds a word pair or a single word that
/// names an article's body, compared without allocating.
fn names_body(value: &str) -> bool {
    let mut previous_first = false;
    for word in super::clean::words(value) {
        if listed(WHOLE_WORDS, word) || (previous_first && listed(SECOND_WORDS, word)) {
            return true;
        }
        previous_first = listed(FIRST_WORDS, word);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(html: &str) -> Option<String> {
        let doc = Document::from(html);
        page_structure(&doc).marked.map(|b| b.node.attr("id").map(|id| id.to_string()).unwrap_or_default())
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
    fn the_word_lists_are_sorted_for_binary_search() {
        for list in [FIRST_WORDS, SECOND_WORDS, WHOLE_WORDS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert!(names_body("c-entry-content") && names_body("ArticleBody") && names_body("story__text"));
        assert!(!names_body("content") && !names_body("body"));
        assert!(!names_body("text-entry") && !names_body("post") && !names_body("comment-body"));
    }

    #[test]
    fn short_and_link_heavy_paragraphs_are_not_prose() {
        let html = "<body><article id=a><p>Short.</p><p><a href=/1>A long link text that is most of it</a> and a bit</p>\
                    </article></body>";
        assert_eq!(found(html), None);
    }
}
