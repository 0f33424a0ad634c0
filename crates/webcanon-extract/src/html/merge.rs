//! The extractor's article completed with the prose it left out.
//!
//! A Readability-style extractor keeps one scored block and drops what
//! its cleaning rules take for clutter; an article spread over several
//! containers, or with paragraphs its rules misjudge, loses text. The
//! element the page marks as its article's body ([`super::prose`]) holds
//! that text. Its paragraphs of real prose that the extractor dropped are
//! put back where they stand in the page, after the last paragraph the two
//! share, and so are its lists and tables that stand between paragraphs the
//! two share; nothing the extractor kept is removed or moved, and nothing
//! else is added: headings, lists of links, images, captions and code of
//! the marked element come only through the extractor.

use std::collections::{HashMap, HashSet};

use super::rules;
use super::tidy::{bare, heading_level};
use crate::syntax::{Block, blocks, text_and_link_chars, visible};

/// A block's text as a key: its letters and digits, lower case, without
/// Markdown, link targets or spacing (two converters of the same paragraph
/// agree on it).
fn key(block: &Block<'_>) -> String {
    let mut key = String::new();
    for line in &block.lines {
        let (text, _) = text_and_link_chars(bare(line));
        key.extend(text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase));
    }
    key
}

/// What a block of the marked body may be put back as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// A paragraph of prose: lines of text (no heading, list, table, code
    /// or image), at least [`rules::MERGED_PARAGRAPH_CHARS`] visible characters, links
    /// at most half of them.
    Prose,
    /// A list or a table whose text is not mostly links (ingredients,
    /// steps, figures): put back only between paragraphs the two share.
    Structured,
}

/// How a block fits, if it does.
fn fit(block: &Block<'_>) -> Option<Fit> {
    if block.code || block.lines.iter().any(|line| is_image_line(line)) {
        return None;
    }
    if block.lines.len() == 1 && heading_level(block.lines[0].trim_start()).is_some() {
        return None;
    }
    let (mut chars, mut links) = (0, 0);
    for line in &block.lines {
        let (text, link_chars) = text_and_link_chars(bare(line));
        chars += visible(&text);
        links += link_chars;
    }
    if links * 2 > chars {
        return None;
    }
    let structured = |line: &&str| {
        let line = line.trim_start();
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        line.starts_with('|')
            || ["* ", "- ", "+ "].iter().any(|marker| line.starts_with(marker))
            || (digits > 0 && line[digits..].starts_with(". "))
    };
    if block.lines.iter().any(structured) {
        return (chars >= rules::MERGED_STRUCTURED_CHARS).then_some(Fit::Structured);
    }
    (chars >= rules::MERGED_PARAGRAPH_CHARS).then_some(Fit::Prose)
}

/// Whether a line opens with an image or a linked image.
fn is_image_line(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("![") || line.starts_with("[![")
}

/// `article` with the prose paragraphs of `marked` that it lacks, each
/// after the last paragraph the two share that comes before it in
/// `marked` (or first, when none does).
pub(crate) fn complete(article: &str, marked: &str) -> String {
    let article_blocks = blocks(article);
    let position: HashMap<String, usize> =
        article_blocks.iter().enumerate().map(|(i, b)| (key(b), i)).filter(|(k, _)| !k.is_empty()).collect();
    // Candidates in the marked body's order, each with the article block
    // it follows (`None`: before the first shared one) and whether it
    // continues the article: it follows a shared block or another such
    // candidate with nothing between them.
    let mut candidates: Vec<(Option<usize>, bool, Fit, String)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut anchor: Option<usize> = None;
    let mut after_last_shared = 0;
    let mut continues = false;
    for block in &blocks(marked) {
        let key = key(block);
        if key.is_empty() {
            // No text to match: a rule is passed over, but an image ends
            // what continues the article, as any block not put back does.
            if block.lines.iter().any(|line| is_image_line(line)) {
                continues = false;
            }
            continue;
        }
        if let Some(&i) = position.get(&key) {
            anchor = Some(anchor.map_or(i, |a| a.max(i)));
            after_last_shared = candidates.len();
            continues = true;
        } else if let Some(fit) = fit(block)
            && seen.insert(key)
        {
            candidates.push((anchor, continues, fit, block.text()));
        } else {
            continues = false;
        }
    }
    // Taken: what stands inside the article (between paragraphs it shares
    // with the extractor), just before it (a lead), or right after its
    // last paragraph with nothing between; not what follows after a
    // heading, a list or an image (an author's note, teasers, an appeal).
    let mut added: HashMap<Option<usize>, Vec<String>> = HashMap::new();
    for (n, (anchor, continues, fit, text)) in candidates.into_iter().enumerate() {
        let between = anchor.is_some() && n < after_last_shared;
        let taken = match fit {
            Fit::Prose => anchor.is_none() || between || continues,
            Fit::Structured => between,
        };
        if taken {
            added.entry(anchor).or_default().push(text);
        }
    }
    if added.is_empty() {
        return article.to_string();
    }
    let mut out: Vec<String> = added.remove(&None).unwrap_or_default();
    for (i, block) in article_blocks.iter().enumerate() {
        out.push(block.text());
        out.extend(added.remove(&Some(i)).unwrap_or_default());
    }
    out.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: &str = "A paragraph of the article that the extractor dropped, long enough to be prose: \
                        it tells the reader something the rest of the story depends on, in full sentences, \
                        and it goes on for a while longer than a caption or a byline would.";

    #[test]
    fn prose_after_an_image_past_the_article_is_not_put_back() {
        // A caption set as a paragraph under a linked image, after the
        // article's last paragraph: not the article's.
        let article = "First paragraph, kept.\n\nLast paragraph, kept.";
        for image in ["![](https://x.test/i.png)", "[![](https://x.test/i.png)](https://x.test/i.jpg)"] {
            let marked = format!("First paragraph, kept.\n\nLast paragraph, kept.\n\n{image}\n\n{LONG}");
            assert_eq!(complete(article, &marked), article, "{image}");
        }
        // A rule is passed over.
        let marked = format!("First paragraph, kept.\n\nLast paragraph, kept.\n\n---\n\n{LONG}");
        assert_eq!(complete(article, &marked), format!("{article}\n\n{LONG}"));
    }

    #[test]
    fn dropped_prose_is_put_back_in_place() {
        let article = "First paragraph, kept.\n\nThird paragraph, kept.";
        let marked = format!("First paragraph, *kept*.\n\n{LONG}\n\nThird paragraph, kept.");
        assert_eq!(complete(article, &marked), format!("First paragraph, kept.\n\n{LONG}\n\nThird paragraph, kept."));
    }

    #[test]
    fn only_prose_is_added() {
        let article = "The story.";
        let rows = [
            "## A heading the extractor dropped",
            "By Jane Doe, 3 hours ago",
            "- [Related story one](https://x.test/1)\n- [Related story two](https://x.test/2)",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            "```\ncode\n```",
            "1. [A related story with a long headline that goes on](https://x.test/1) and its summary, which is long",
            "![A photo of the scene, with a long description of everything in it, more than enough](https://x.test/p.jpg)",
        ];
        for row in rows {
            assert_eq!(complete(article, &format!("{row}\n\nThe story.")), article, "{row}");
        }
        let linked = format!("[{LONG}](https://x.test/)");
        assert_eq!(complete(article, &linked), article);
    }

    #[test]
    fn lists_and_tables_are_put_back_only_inside_the_article() {
        let article = "First paragraph, kept.\n\nThird paragraph, kept.";
        let list = "- 200 g flour, sifted\n- 100 g cold butter, diced\n- 2 eggs, beaten with the milk";
        let inside = format!("First paragraph, kept.\n\n{list}\n\nThird paragraph, kept.");
        assert_eq!(complete(article, &inside), format!("First paragraph, kept.\n\n{list}\n\nThird paragraph, kept."));
        let after = format!("{article}\n\n{list}");
        assert_eq!(complete(article, &after), article);
    }

    #[test]
    fn prose_may_open_with_a_link_or_emphasis() {
        let article = "Kept.";
        for opening in ["[Alaska Airlines](https://x.test/a) said", "**Update:** the airline said"] {
            let paragraph = format!("{opening} {LONG}");
            assert_eq!(complete(article, &format!("{paragraph}\n\nKept.")), format!("{paragraph}\n\nKept."));
        }
    }

    #[test]
    fn nothing_the_extractor_kept_is_lost_or_repeated() {
        let article = format!("Kept alone.\n\n{LONG}");
        let marked = format!("{LONG}\n\n{LONG}");
        assert_eq!(complete(&article, &marked), article);
    }
}
