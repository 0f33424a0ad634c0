//! The facts of a page's JSON-LD (`<script type="application/ld+json">`),
//! read within bounds.
//!
//! Each block the pre-scan kept (at most 16, each at most 256 KiB) is
//! parsed with `serde_json`, whose recursion limit (128) ends a deeply
//! nested document early. The nodes are the objects with an `@type`: a
//! block's top level, the members of a top-level array and of `@graph`,
//! found at most [`MAX_DEPTH`] arrays or graphs deep and at most
//! [`MAX_NODES`] of them. The page's node is the first whose type is an
//! article's ([`is_article`]), else the first of a web page's type, else
//! the first with a `headline`. A value that is only a reference
//! (`{"@id": "#org"}`) is read as the node of that `@id`.

use serde_json::{Map, Value};

/// How deep, in arrays and `@graph`s, nodes are looked for.
const MAX_DEPTH: usize = 4;
/// The most nodes read from a page.
const MAX_NODES: usize = 64;
/// The most names read from one list (authors, keywords).
const MAX_NAMES: usize = 32;

/// The schema.org types of a web page (schema.org `WebPage` and the types
/// below it that pages use).
const PAGE_TYPES: &[&str] = &[
    "WebPage",
    "AboutPage",
    "CollectionPage",
    "ContactPage",
    "FAQPage",
    "ItemPage",
    "MedicalWebPage",
    "ProfilePage",
    "QAPage",
    "SearchResultsPage",
];

/// The schema.org types of a piece of writing that are not named
/// `…Article`.
const POSTING_TYPES: &[&str] =
    &["BlogPosting", "LiveBlogPosting", "SocialMediaPosting", "DiscussionForumPosting", "Report"];

/// Whether `kind` is a schema.org article: `Article` and the types named
/// `…Article` below it (`NewsArticle`, `ScholarlyArticle`, …), postings
/// and reports.
fn is_article(kind: &str) -> bool {
    kind.ends_with("Article") || POSTING_TYPES.contains(&kind)
}

/// The nodes of a page's JSON-LD blocks.
#[derive(Debug, Default)]
pub(crate) struct LinkedData {
    nodes: Vec<Map<String, Value>>,
}

impl LinkedData {
    /// Reads `blocks` (the text of each script); a block that does not
    /// parse is passed over.
    pub(crate) fn read(blocks: &[String]) -> LinkedData {
        let mut data = LinkedData::default();
        for block in blocks {
            let text = block.trim().trim_start_matches("<!--").trim_end_matches("-->");
            if let Ok(value) = serde_json::from_str::<Value>(text) {
                data.collect(value, 0);
            }
        }
        data
    }

    fn collect(&mut self, value: Value, depth: usize) {
        if depth > MAX_DEPTH || self.nodes.len() >= MAX_NODES {
            return;
        }
        match value {
            Value::Array(items) => items.into_iter().for_each(|item| self.collect(item, depth + 1)),
            Value::Object(mut object) => {
                if let Some(graph) = object.remove("@graph") {
                    self.collect(graph, depth + 1);
                }
                if object.contains_key("@type") && self.nodes.len() < MAX_NODES {
                    self.nodes.push(object);
                }
            }
            _ => {}
        }
    }

    /// The node that speaks for the page (see the module's documentation).
    pub(crate) fn main(&self) -> Option<Node<'_>> {
        let of_type = |wanted: &dyn Fn(&str) -> bool| self.nodes.iter().find(|n| types(n).any(wanted));
        of_type(&is_article)
            .or_else(|| of_type(&|kind| PAGE_TYPES.contains(&kind)))
            .or_else(|| self.nodes.iter().find(|n| n.contains_key("headline")))
            .map(|object| Node { object, data: self })
    }

    /// The first node of type `kind`.
    pub(crate) fn first_of_type(&self, kind: &str) -> Option<Node<'_>> {
        self.nodes.iter().find(|n| types(n).any(|t| t == kind)).map(|object| Node { object, data: self })
    }

    /// The object `value` stands for: itself, or the node it refers to
    /// when it is a bare `{"@id": …}`.
    fn object<'a>(&'a self, value: &'a Value) -> Option<&'a Map<String, Value>> {
        let object = value.as_object()?;
        let reference = object.get("@id").and_then(Value::as_str).filter(|_| object.len() == 1);
        match reference {
            Some(id) => self.nodes.iter().find(|n| n.get("@id").and_then(Value::as_str) == Some(id)).or(Some(object)),
            None => Some(object),
        }
    }
}

/// The schema.org types of a node, without the vocabulary's prefix.
fn types(node: &Map<String, Value>) -> impl Iterator<Item = &str> {
    let kinds: Vec<&str> = match node.get("@type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    kinds.into_iter().map(|kind| {
        kind.trim()
            .trim_start_matches("http://schema.org/")
            .trim_start_matches("https://schema.org/")
            .trim_start_matches("schema:")
    })
}

/// One node, with the graph its references resolve in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node<'a> {
    object: &'a Map<String, Value>,
    data: &'a LinkedData,
}

impl<'a> Node<'a> {
    /// The node's first type.
    pub(crate) fn kind(&self) -> Option<&'a str> {
        types(self.object).next().filter(|kind| !kind.is_empty())
    }

    /// The text of property `key`: a string, or the first string of an
    /// array.
    pub(crate) fn text(&self, key: &str) -> Option<&'a str> {
        first_string(self.object.get(key)?)
    }

    /// The names of property `key`: strings, or objects' `name`, alone or
    /// in an array (`author`, `publisher`).
    pub(crate) fn names(&self, key: &str) -> Vec<&'a str> {
        let name = |value: &'a Value| match value {
            Value::String(name) => Some(name.as_str()),
            _ => self.data.object(value)?.get("name").and_then(first_string),
        };
        match self.object.get(key) {
            Some(Value::Array(items)) => items.iter().take(MAX_NAMES).filter_map(name).collect(),
            Some(value) => name(value).into_iter().collect(),
            None => Vec::new(),
        }
    }

    /// The URL of property `key`: a string, an object's `url` (or
    /// `contentUrl`), or the first of an array (`image`).
    pub(crate) fn url(&self, key: &str) -> Option<&'a str> {
        let url_of = |value: &'a Value| match value {
            Value::String(url) => Some(url.as_str()),
            _ => {
                let object = self.data.object(value)?;
                object.get("url").or_else(|| object.get("contentUrl")).and_then(first_string)
            }
        };
        match self.object.get(key)? {
            Value::Array(items) => items.iter().find_map(url_of),
            value => url_of(value),
        }
    }

    /// The words of property `key`: an array of strings, or one string
    /// of comma-separated words (`keywords`).
    pub(crate) fn words(&self, key: &str) -> Vec<&'a str> {
        match self.object.get(key) {
            Some(Value::String(words)) => words.split(',').take(MAX_NAMES).collect(),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).take(MAX_NAMES).collect(),
            _ => Vec::new(),
        }
    }
}

fn first_string(value: &Value) -> Option<&str> {
    match value {
        Value::String(text) => Some(text),
        Value::Array(items) => items.iter().find_map(Value::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(block: &str) -> LinkedData {
        LinkedData::read(&[block.to_string()])
    }

    #[test]
    fn the_article_node_speaks_for_the_page_and_references_resolve() {
        let data = read(
            r##"{"@context":"https://schema.org","@graph":[
                {"@type":"WebSite","@id":"#site","name":"The Site"},
                {"@type":"WebPage","@id":"#page","name":"Page"},
                {"@type":["NewsArticle"],"headline":"A headline","author":[{"@id":"#a"},{"name":"B. Writer"}],
                 "publisher":{"@id":"#org"},"image":[{"url":"/i.jpg"}],"keywords":"one, two"},
                {"@type":"Person","@id":"#a","name":"A. Writer"},
                {"@type":"Organization","@id":"#org","name":"The Paper"}]}"##,
        );
        let main = data.main().unwrap();
        assert_eq!(main.kind(), Some("NewsArticle"));
        assert_eq!(main.text("headline"), Some("A headline"));
        assert_eq!(main.names("author"), ["A. Writer", "B. Writer"]);
        assert_eq!(main.names("publisher"), ["The Paper"]);
        assert_eq!(main.url("image"), Some("/i.jpg"));
        assert_eq!(main.words("keywords"), ["one", " two"]);
        assert_eq!(data.first_of_type("WebSite").unwrap().text("name"), Some("The Site"));
    }

    #[test]
    fn a_web_page_node_serves_when_there_is_no_article() {
        let data =
            read(r#"[{"@type":"Organization","name":"Org"},{"@type":"http://schema.org/AboutPage","name":"About"}]"#);
        assert_eq!(data.main().unwrap().kind(), Some("AboutPage"));
        assert!(read("{not json").main().is_none());
        assert!(read(r#"{"headline":"no type"}"#).main().is_none());
    }
}
