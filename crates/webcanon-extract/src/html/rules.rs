//! The extraction passes' shared definitions, side by side: what marks
//! an article, and the thresholds that tell prose from clutter. Each
//! pass's module says how it uses them; the numbers live here so that one
//! reading of "prose" holds across the cleaning ([`super::clean`]), the
//! marked body ([`super::prose`]), the merge ([`super::merge`]) and the
//! tidy pass ([`super::tidy`]).

/// Whether an element marks the page's article by structure: `<article>`,
/// `<main>`, `role="main"` (any case), or `itemprop` holding
/// `articleBody`. The one definition every pass uses; [`super::prose`]
/// also reads publishing systems' naming conventions on top of it.
pub(super) fn marks_article<'a>(name: &str, mut attributes: impl Iterator<Item = (&'a str, &'a str)>) -> bool {
    matches!(name, "article" | "main")
        || attributes.any(|(key, value)| match key {
            "role" => value.trim().eq_ignore_ascii_case("main"),
            "itemprop" => value.split_ascii_whitespace().any(|v| v == "articleBody"),
            _ => false,
        })
}

/// Cleaning: a block holds prose of its own with at least this many
/// visible characters outside links...
pub(super) const BLOCK_PROSE_CHARS: usize = 200;
/// ...and links at most one part in this many of its text.
pub(super) const BLOCK_PROSE_LINK_PARTS: usize = 3;

/// Cleaning: a heading element with more visible characters than this
/// (about seventeen words) is a paragraph set in a heading, read as one.
pub(super) const PARAGRAPH_IN_HEADING_CHARS: usize = 100;

/// The marked body: a paragraph is prose with at least this many visible
/// characters, links at most half of them.
pub(super) const PROSE_PARAGRAPH_CHARS: usize = 30;

/// Headline block: the block around the page's `<h1>` holds at least
/// this many visible characters besides the heading's.
pub(super) const HEADLINE_BLOCK_CHARS: usize = 200;
/// Headline block: an extractor's article under this many visible
/// characters (about 150 words) is short, and weighed against it.
pub(super) const SHORT_ARTICLE_CHARS: usize = 1000;

/// Merge: the fewest visible characters of a paragraph put back, links
/// at most half of them.
pub(super) const MERGED_PARAGRAPH_CHARS: usize = 150;
/// Merge: the fewest visible characters of a list or table put back.
pub(super) const MERGED_STRUCTURED_CHARS: usize = 40;

/// Tidy: a line is nothing but a link when link text is at least this
/// many tenths of its visible characters.
pub(super) const LINK_LINE_TENTHS: usize = 9;
/// Tidy: a short label (before a list of links) has at most this many
/// words.
pub(super) const SHORT_LABEL_WORDS: usize = 6;
/// Tidy: a teaser's label (`**Read more:** [Headline](…)`) has at most
/// this many words.
pub(super) const TEASER_LABEL_WORDS: usize = 5;
/// Tidy: a cut teaser (`Auskunft über vergangenes Wetter… [mehr](…)`) has
/// at most this many words before its link: an excerpt, not a paragraph
/// that ends on a link.
pub(super) const CUT_TEASER_WORDS: usize = 40;

#[cfg(test)]
mod tests {
    use super::marks_article;

    #[test]
    fn one_definition_of_what_marks_the_article() {
        type Row<'a> = (&'a str, &'a [(&'a str, &'a str)], bool);
        let rows: &[Row<'_>] = &[
            ("article", &[], true),
            ("main", &[], true),
            ("div", &[("role", " Main ")], true),
            ("div", &[("itemprop", "text articleBody")], true),
            ("div", &[("itemprop", "articlebody")], false),
            ("div", &[("role", "navigation")], false),
            ("section", &[("class", "article")], false),
        ];
        for (name, attributes, expected) in rows {
            assert_eq!(marks_article(name, attributes.iter().copied()), *expected, "{name} {attributes:?}");
        }
    }
}
