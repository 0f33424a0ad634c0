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

use super::clean::{listed, visible_chars, words};
use super::rules;
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
    let thread = thread_posts(doc);
    match (thread, choice) {
        (Some(_), Comments::Auto | Comments::Include) => {
            unname_comments(doc.select("body").nodes().iter().flat_map(NodeRef::descendants));
            None
        }
        (Some(posts), Comments::Exclude) => {
            posts.iter().skip(1).for_each(NodeRef::remove_from_parent);
            None
        }
        (None, Comments::Auto | Comments::Exclude) => {
            typed_items(doc, COMMENT_TYPES).iter().for_each(NodeRef::remove_from_parent);
            None
        }
        (None, Comments::Include) => take_comments(doc),
    }
}

/// The thread's posts in document order when the page is a thread (the
/// list may be empty: a thread known by JSON-LD alone), `None` otherwise.
fn thread_posts(doc: &Document) -> Option<Vec<NodeRef<'_>>> {
    let by_schema = !typed_items(doc, THREAD_TYPES).is_empty() || json_ld_names_a_thread(doc);
    let repeated = repeated_posts(doc);
    if !by_schema && repeated.is_empty() {
        return None;
    }
    let mut posts = typed_items(doc, POST_TYPES);
    if posts.is_empty() {
        posts = repeated;
    }
    Some(posts)
}

/// Elements whose `itemtype` is one of `types` (`https://schema.org/Answer`),
/// in document order.
fn typed_items<'a>(doc: &'a Document, types: &[&str]) -> Vec<NodeRef<'a>> {
    doc.select("[itemtype]")
        .nodes()
        .iter()
        .filter(|node| {
            node.attr("itemtype").is_some_and(|value| {
                value.split_ascii_whitespace().any(|url| types.contains(&url.rsplit('/').next().unwrap_or(url)))
            })
        })
        .cloned()
        .collect()
}

/// Whether a JSON-LD block names a forum posting or a Q&A page.
fn json_ld_names_a_thread(doc: &Document) -> bool {
    doc.select("script[type]").nodes().iter().any(|script| {
        script.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) && {
            let text = script.text();
            JSON_LD_THREAD_TYPES.iter().any(|name| text.contains(name))
        }
    })
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

/// The repeated post blocks of the rule "thread by repetition", or none.
fn repeated_posts(doc: &Document) -> Vec<NodeRef<'_>> {
    let body = doc.select("body");
    let Some(body_node) = body.nodes().first() else { return Vec::new() };
    // One pass: post blocks counted under their parent by their first
    // class word (a thread's posts are alike), article marks counted.
    let mut counts: FxHashMap<(dom_query::NodeId, String), (usize, NodeRef<'_>)> = FxHashMap::default();
    let mut article_marks = 0;
    for node in body_node.descendants_it().filter(NodeRef::is_element) {
        if marks_article(&node) {
            article_marks += 1;
        }
        if let Some(kind) = post_kind(&node)
            && let Some(parent) = node.parent()
        {
            counts.entry((parent.id, kind)).or_insert((0, parent)).0 += 1;
        }
    }
    let Some(((_, kind), (count, parent))) = counts.into_iter().max_by_key(|(_, (count, _))| *count) else {
        return Vec::new();
    };
    if count < MIN_REPEATED_POSTS {
        return Vec::new();
    }
    let posts: Vec<NodeRef<'_>> =
        parent.element_children().into_iter().filter(|child| post_kind(child).as_ref() == Some(&kind)).collect();
    if posts.iter().filter(|post| is_teaser(post)).count() * 2 > posts.len() {
        return Vec::new();
    }
    let post_chars: usize = posts.iter().map(shown_chars).sum();
    if post_chars * 2 <= shown_chars(body_node) {
        return Vec::new();
    }
    let around = parent.ancestors_it(None).filter(marks_article).count();
    let within = parent.descendants_it().filter(|node| node.is_element() && marks_article(node)).count()
        + usize::from(marks_article(&parent));
    if around + within < article_marks {
        return Vec::new();
    }
    posts
}

/// The visible characters of the text under `node` that a reader is
/// shown: the text of scripts and styles is not (a forum's page carries
/// more of it than of posts).
fn shown_chars(node: &NodeRef<'_>) -> usize {
    node.descendants_it()
        .filter(|child| child.is_text())
        .filter(|text| {
            !text.parent().and_then(|p| p.node_name()).is_some_and(|name| matches!(&*name, "script" | "style"))
        })
        .map(|text| visible_chars(&text.text()))
        .sum()
}

fn marks_article(node: &NodeRef<'_>) -> bool {
    let Some(name) = node.node_name() else { return false };
    let attributes = node.attrs();
    rules::marks_article(&name, attributes.iter().map(|a| (&*a.name.local, &*a.value)))
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
    let typed = node.attr("itemtype").is_some_and(|value| {
        value.split_ascii_whitespace().any(|url| COMMENT_TYPES.contains(&url.rsplit('/').next().unwrap_or(url)))
    });
    typed
        || [node.attr("class"), node.attr("id")]
            .iter()
            .flatten()
            .any(|value| words(value).any(|word| listed(COMMENT_WORDS, word)))
}

/// Takes an article's comment blocks (the outermost ones) out of the page
/// and returns their HTML, unnamed, or `None` when there are none.
fn take_comments(doc: &Document) -> Option<String> {
    let body = doc.select("body");
    let body_node = body.nodes().first()?;
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
