//! Comments and forum threads: whether a thread's posts are the page's
//! content, read from the page's structure alone (never a site's names),
//! before the page is cleaned.
//!
//! The rules, by name:
//! - **thread by schema**: the page is a thread when an element's
//!   `itemtype` is a schema.org `DiscussionForumPosting`, `QAPage`,
//!   `Question` or `Answer`, or a JSON-LD block names a
//!   `DiscussionForumPosting` or a `QAPage`;
//! - **thread by repetition**: the page is a thread when three or more
//!   sibling blocks alike (the same first class token) whose class names
//!   a post (`post`, `message`, `reply`, `answer`; `<article
//!   class="message">` included, as forum software marks each post) hold
//!   more than half of the text the body shows (scripts and styles are
//!   not shown), and every
//!   element marking an article (`<article>`, `<main>`, `articleBody`) is
//!   inside them or around them;
//! - **a listing is not a thread**: repeated post blocks of which more
//!   than half are teasers, each headed by a link to another page of at
//!   least [`TEASER_HEADLINE_WORDS`] words (`<h2><a href="/2024/pumps">How
//!   to prime a pump</a></h2>`), are a blog's or a site's index of posts,
//!   not a thread's replies: no rule of threads applies to them. A forum
//!   post's heading is its author's name (one or two words) or a link to
//!   the post itself (`#p123`);
//! - **comments under an article**: on any other page, schema.org
//!   `Comment` items and blocks whose class or id names `comment(s)` are
//!   comments, not content.
//!
//! What the choice ([`Comments`]) does with them:
//! - `auto` keeps a thread's posts and replies (comment-named blocks
//!   included) and drops an article's comments;
//! - `include` does the same on a thread, and on an article puts its
//!   comments after its text under a `## Comments` heading;
//! - `exclude` drops an article's comments, and on a thread keeps only its
//!   first post: every later post item (`DiscussionForumPosting`,
//!   `Answer`, `Comment`, or repeated post block) goes, and so does every
//!   comment-named block. A thread known by JSON-LD alone has no post
//!   blocks to tell apart: only its comment-named blocks go.
//!
//! Each rule is one pass over the elements (the text of the repeated
//! blocks is read once), so the cost stays linear in the page.

use dom_query::{Document, NodeRef};
use rustc_hash::{FxHashMap, FxHashSet};

use super::clean::{listed, marks_article, shown_runs, visible_chars, words};
use crate::shape::UnknownValue;

/// What becomes of comments and a thread's replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Comments {
    /// A forum's or a Q&A page's posts are content, an article's comments
    /// are not (the default).
    #[default]
    Auto,
    /// An article's comments are kept too, after its text under `## Comments`.
    Include,
    /// No comments: an article's are dropped, a thread keeps its first post.
    Exclude,
}

impl std::str::FromStr for Comments {
    type Err = UnknownValue;

    fn from_str(given: &str) -> Result<Comments, UnknownValue> {
        match given {
            "auto" => Ok(Comments::Auto),
            "include" => Ok(Comments::Include),
            "exclude" => Ok(Comments::Exclude),
            _ => Err(UnknownValue::new(given, "`auto`, `include`, `exclude`")),
        }
    }
}

/// schema.org types whose item on a page makes it a thread.
const THREAD_TYPES: &[&str] = &["Answer", "DiscussionForumPosting", "QAPage", "Question"];
/// schema.org types whose JSON-LD naming makes a page a thread (`Question`
/// alone is also a FAQ page's entry, which is not a thread).
const JSON_LD_THREAD_TYPES: &[&str] = &["\"DiscussionForumPosting\"", "\"QAPage\""];
/// schema.org types of a thread's posts after the first.
const POST_TYPES: &[&str] = &["Answer", "Comment", "DiscussionForumPosting"];
/// schema.org types of comments.
const COMMENT_TYPES: &[&str] = &["Comment", "UserComments"];
/// Class words of a thread's repeated post blocks (sorted).
const POST_WORDS: &[&str] = &["answer", "message", "post", "reply"];
/// Class or id words of comment blocks (sorted).
const COMMENT_WORDS: &[&str] = &["comment", "comments"];
/// The fewest repeated post blocks that make a thread.
const MIN_REPEATED_POSTS: usize = 3;
/// The fewest words of a teaser's headline link (rule "a listing is not a
/// thread"): a headline says what the post is about; a forum post's
/// heading names its author.
const TEASER_HEADLINE_WORDS: usize = 3;

/// Applies `choice` to `doc` before it is cleaned. Returns the HTML of an
/// article's comments, taken out of the page, when they are to follow its
/// text ([`Comments::Include`] on a page that is not a thread).
pub(super) fn prepare(doc: &Document, choice: Comments) -> Option<String> {
    let body = super::clean::body(doc)?;
    let page = PageItems::read(body);
    match (page.thread_posts(body), choice) {
        (Some(_), Comments::Auto | Comments::Include) => {
            unname_comments(body.descendants());
            None
        }
        (Some(posts), Comments::Exclude) => {
            posts.iter().skip(1).for_each(NodeRef::remove_from_parent);
            None
        }
        (None, Comments::Auto | Comments::Exclude) => {
            page.typed(COMMENT_TYPES).for_each(|item| item.remove_from_parent());
            None
        }
        (None, Comments::Include) => take_comments(body),
    }
}

/// What the rules of threads and comments read from a page, found in one
/// walk of its elements.
struct PageItems<'a> {
    /// The elements with an `itemtype`, with its value, in document order.
    typed: Vec<(NodeRef<'a>, String)>,
    /// Whether a JSON-LD block names a forum posting or a Q&A page.
    json_ld_thread: bool,
    /// Post blocks counted under their parent by their kind ([`post_kind`]).
    post_groups: FxHashMap<(dom_query::NodeId, String), (usize, NodeRef<'a>)>,
    /// The elements under `<body>` that mark an article.
    article_marks: usize,
}

impl<'a> PageItems<'a> {
    /// Walks the page's elements once: the `<html>` element and its
    /// `<head>` for items and JSON-LD, its `<body>` for posts too.
    fn read(body: NodeRef<'a>) -> PageItems<'a> {
        let mut page =
            PageItems { typed: Vec::new(), json_ld_thread: false, post_groups: FxHashMap::default(), article_marks: 0 };
        if let Some(html) = body.parent() {
            page.read_item(&html);
            for head in html.element_children().into_iter().filter(|child| child.id != body.id) {
                for node in std::iter::once(head).chain(head.descendants_it()).filter(NodeRef::is_element) {
                    page.read_item(&node);
                }
            }
        }
        for node in std::iter::once(body).chain(body.descendants_it()).filter(NodeRef::is_element) {
            page.read_item(&node);
            if node.id == body.id {
                continue;
            }
            if marks_article(&node) {
                page.article_marks += 1;
            }
            if let Some(kind) = post_kind(&node)
                && let Some(parent) = node.parent()
            {
                page.post_groups.entry((parent.id, kind)).or_insert((0, parent)).0 += 1;
            }
        }
        page
    }

    /// Notes an element's `itemtype`, and a JSON-LD block naming a thread.
    fn read_item(&mut self, node: &NodeRef<'a>) {
        if let Some(itemtype) = node.attr("itemtype") {
            self.typed.push((*node, itemtype.to_string()));
        }
        if node.node_name().is_some_and(|name| &*name == "script")
            && node.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        {
            let text = node.text();
            self.json_ld_thread |= JSON_LD_THREAD_TYPES.iter().any(|name| text.contains(name));
        }
    }

    /// The items whose `itemtype` is one of `types` (`https://schema.org/Answer`),
    /// in document order.
    fn typed(&self, types: &'a [&'a str]) -> impl Iterator<Item = NodeRef<'a>> + '_ {
        self.typed.iter().filter(move |(_, value)| names_type(value, types)).map(|(node, _)| *node)
    }

    /// The thread's posts in document order when the page is a thread (the
    /// list may be empty: a thread known by JSON-LD alone), `None` otherwise.
    fn thread_posts(&self, body: NodeRef<'a>) -> Option<Vec<NodeRef<'a>>> {
        let by_schema = self.typed(THREAD_TYPES).next().is_some() || self.json_ld_thread;
        let repeated = self.repeated_posts(body);
        if !by_schema && repeated.is_empty() {
            return None;
        }
        let posts: Vec<NodeRef<'a>> = self.typed(POST_TYPES).collect();
        Some(if posts.is_empty() { repeated } else { posts })
    }

    /// The repeated post blocks of the rule "thread by repetition", or none.
    fn repeated_posts(&self, body: NodeRef<'a>) -> Vec<NodeRef<'a>> {
        let Some(((_, kind), (count, parent))) = self.post_groups.iter().max_by_key(|(_, (count, _))| *count) else {
            return Vec::new();
        };
        if *count < MIN_REPEATED_POSTS {
            return Vec::new();
        }
        let posts: Vec<NodeRef<'a>> =
            parent.element_children().into_iter().filter(|child| post_kind(child).as_ref() == Some(kind)).collect();
        if posts.iter().filter(|post| is_teaser(post)).count() * 2 > posts.len() {
            return Vec::new();
        }
        let post_chars: usize = posts.iter().map(shown_chars).sum();
        if post_chars * 2 <= shown_chars(&body) {
            return Vec::new();
        }
        let around = parent.ancestors_it(None).filter(marks_article).count();
        let within = parent.descendants_it().filter(|node| node.is_element() && marks_article(node)).count()
            + usize::from(marks_article(parent));
        if around + within < self.article_marks {
            return Vec::new();
        }
        posts
    }
}

/// The kind of post an element is, when its class names a post: its
/// first class token (`message` of `message message--post js-post`). The
/// posts of a thread are alike; the parts of one post (`post-header`,
/// `post-body`, `post-footer`) are not.
fn post_kind(node: &NodeRef<'_>) -> Option<String> {
    let class = node.attr("class")?;
    if !words(&class).any(|word| listed(POST_WORDS, word)) {
        return None;
    }
    class.split_ascii_whitespace().next().map(str::to_ascii_lowercase)
}

/// Whether a post block is a teaser (rule "a listing is not a thread"):
/// a heading in it holds a link to another page (not a `#` fragment of
/// this one) whose text has at least [`TEASER_HEADLINE_WORDS`] words.
fn is_teaser(post: &NodeRef<'_>) -> bool {
    post.descendants_it().any(|node| {
        node.node_name().is_some_and(|name| matches!(&*name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
            && node.descendants_it().any(|link| {
                link.node_name().is_some_and(|name| &*name == "a")
                    && link.attr("href").is_some_and(|href| !href.trim().is_empty() && !href.trim().starts_with('#'))
                    && link.text().split_whitespace().count() >= TEASER_HEADLINE_WORDS
            })
    })
}

/// The visible characters of the text under `node` that a reader is
/// shown: the text of scripts and styles is not (a forum's page carries
/// more of it than of posts).
fn shown_chars(node: &NodeRef<'_>) -> usize {
    shown_runs(node).map(|text| visible_chars(&text.text())).sum()
}

/// Whether an `itemtype` value names one of `types` (`https://schema.org/Answer`
/// names `Answer`).
fn names_type(itemtype: &str, types: &[&str]) -> bool {
    itemtype.split_ascii_whitespace().any(|url| types.contains(&url.rsplit('/').next().unwrap_or(url)))
}

/// Whether a class token or an id names a comment (`commentlist`,
/// `comment-body`, `userComments`): the extractor takes any such name for
/// boilerplate.
fn names_a_comment(value: &str) -> bool {
    value.to_ascii_lowercase().contains("comment")
}

/// Takes the comment naming out of `nodes`' classes and ids, so that the
/// cleaning and the extractor keep them.
fn unname_comments<'a>(nodes: impl IntoIterator<Item = NodeRef<'a>>) {
    for node in nodes.into_iter().filter(NodeRef::is_element) {
        if let Some(class) = node.attr("class")
            && names_a_comment(&class)
        {
            let kept: Vec<&str> = class.split_ascii_whitespace().filter(|token| !names_a_comment(token)).collect();
            node.set_attr("class", &kept.join(" "));
        }
        if node.attr("id").is_some_and(|id| names_a_comment(&id)) {
            node.remove_attr("id");
        }
    }
}

/// Whether an element is a comment block by rule "comments under an article".
fn is_comment_block(node: &NodeRef<'_>) -> bool {
    let typed = node.attr("itemtype").is_some_and(|value| names_type(&value, COMMENT_TYPES));
    typed
        || [node.attr("class"), node.attr("id")]
            .iter()
            .flatten()
            .any(|value| words(value).any(|word| listed(COMMENT_WORDS, word)))
}

/// Takes an article's comment blocks (the outermost ones) out of the page
/// and returns their HTML, unnamed, or `None` when there are none.
fn take_comments(body_node: NodeRef<'_>) -> Option<String> {
    let mut blocks: Vec<NodeRef<'_>> = Vec::new();
    // Elements inside a taken block, found by their parent in one pass.
    let mut covered: FxHashSet<dom_query::NodeId> = FxHashSet::default();
    for node in body_node.descendants_it().filter(NodeRef::is_element) {
        if node.parent().is_some_and(|parent| covered.contains(&parent.id)) {
            covered.insert(node.id);
        } else if is_comment_block(&node) {
            covered.insert(node.id);
            blocks.push(node);
        }
    }
    if blocks.is_empty() {
        return None;
    }
    let mut html = String::new();
    for block in &blocks {
        unname_comments(std::iter::once(*block).chain(block.descendants()));
        html.push_str(&block.html());
        block.remove_from_parent();
    }
    Some(html)
}
