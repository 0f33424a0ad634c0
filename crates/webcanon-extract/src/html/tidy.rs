//! The extracted Markdown tidied for a reader: what the extractor kept but
//! no one reads removed, by the shape of the blocks alone.
//!
//! - a block that repeats an earlier one (a caption under each photo of a
//!   gallery, a pull quote) is dropped;
//! - a related-story teaser, a paragraph that is a short label and one link
//!   (`**Read more:** [Headline](…)`), is dropped;
//! - a **cut teaser**, a paragraph of at most [`rules::CUT_TEASER_WORDS`]
//!   words that breaks off with an ellipsis before a link to the rest
//!   (`Auskunft über vergangenes Wetter… [mehr](…)`), is the opening of
//!   another page, and goes with the short label that names it (a label
//!   is not a sentence: it ends without `.`, `!` or `?`);
//! - a run of two or more lines that are each nothing but a link (a "more
//!   on this" list), and the short heading or label that introduces it,
//!   are dropped, and so is a run of two or more paragraphs that are each
//!   one such line (the same list written loose); a link inside prose
//!   stays;
//! - a heading whose section is empty (the next block is a heading of the
//!   same or a higher level, or nothing) is dropped, and so is a rule at
//!   the end.
//!
//! Code blocks and tables are never touched.

use std::collections::HashSet;

use super::rules;
use crate::syntax::{Block, blocks, text_and_link_chars, visible};

/// The line without its list marker, quote marker and emphasis.
pub(super) fn bare(line: &str) -> &str {
    let mut s = line.trim_start().trim_start_matches('>').trim_start();
    for marker in ["* ", "- ", "+ "] {
        if let Some(rest) = s.strip_prefix(marker) {
            s = rest.trim_start();
        }
    }
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && s[digits..].starts_with(". ") {
        s = s[digits + 2..].trim_start();
    }
    s
}

/// Whether a line is nothing but a link (bar punctuation).
fn is_link_line(line: &str) -> bool {
    let (text, links) = text_and_link_chars(bare(line));
    let all = visible(&text);
    all > 0 && links * 10 >= all * rules::LINK_LINE_TENTHS
}

pub(super) fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes).then_some(hashes).filter(|&n| line[n..].starts_with(' '))
}

/// A short label: a heading or a line of at most six words.
fn is_short_label(block: &Block<'_>) -> bool {
    block.lines.len() == 1 && !block.code && {
        let line = bare(block.lines[0]);
        heading_level(line).is_some()
            || text_and_link_chars(line).0.split_whitespace().count() <= rules::SHORT_LABEL_WORDS
    }
}

/// `**Label:** [Headline](…)`: a label of at most five words ending in a
/// colon, then one link that is the rest of the line.
fn is_teaser(block: &Block<'_>) -> bool {
    if block.code || block.lines.len() != 1 {
        return false;
    }
    let line = bare(block.lines[0]);
    let Some(link) = line.find('[') else { return false };
    let label = line[..link].trim().trim_matches(['*', '_']).trim();
    let words = label.split_whitespace().count();
    (1..=rules::TEASER_LABEL_WORDS).contains(&words) && label.ends_with(':') && is_link_line(&line[link..])
}

/// A cut teaser: one line of at most [`rules::CUT_TEASER_WORDS`] words
/// whose text before its last link ends with an ellipsis, the link being
/// the rest of the line.
fn is_cut_teaser(block: &Block<'_>) -> bool {
    if block.code || block.lines.len() != 1 {
        return false;
    }
    let line = bare(block.lines[0]).trim_end();
    let Some(link) = line.rfind('[') else { return false };
    let excerpt = line[..link].trim_end().trim_end_matches(['*', '_']);
    (excerpt.ends_with('…') || excerpt.ends_with("..."))
        && excerpt.split_whitespace().count() <= rules::CUT_TEASER_WORDS
        && line.ends_with(')')
        && is_link_line(&line[link..])
}

fn is_link_list(block: &Block<'_>) -> bool {
    !block.code && block.lines.len() >= 2 && block.lines.iter().all(|l| is_link_line(l))
}

/// A block that is one line and nothing but a link: an item of a list of
/// links written loose (`1. ## [Headline](…)`, items apart by blank lines).
fn is_link_item(block: &Block<'_>) -> bool {
    // Such a line opens with its link (after list, heading and emphasis
    // marks): a paragraph of prose is told without counting its text.
    let opens_with_link = |line: &str| bare(line).trim_start_matches(['#', '*', '_', ' ']).starts_with('[');
    !block.code
        && (block.lines.len() == 1 || block.spanning_link)
        && opens_with_link(block.lines[0])
        && is_link_line(&block.text())
}

fn normalised(block: &Block<'_>) -> String {
    let joined = block.lines.iter().map(|l| text_and_link_chars(bare(l)).0).collect::<Vec<_>>().join(" ");
    joined.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Tidies extracted Markdown (see the module documentation).
pub(crate) fn tidy(markdown: &str) -> String {
    let blocks = blocks(markdown);
    let mut keep = vec![true; blocks.len()];
    let mut seen = HashSet::new();
    // Two or more blocks in a row that are each one link line are a list
    // of links written loose, and go like one, with their label.
    let mut run_start = 0;
    for i in 0..=blocks.len() {
        if i < blocks.len() && is_link_item(&blocks[i]) {
            continue;
        }
        if i - run_start >= 2 {
            keep[run_start..i].fill(false);
            if run_start > 0 && is_short_label(&blocks[run_start - 1]) {
                keep[run_start - 1] = false;
            }
        }
        run_start = i + 1;
    }
    for (i, block) in blocks.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        if block.code || block.lines.iter().any(|l| l.trim_start().starts_with('|')) {
            continue;
        }
        if is_teaser(block) {
            keep[i] = false;
            continue;
        }
        if is_cut_teaser(block) {
            keep[i] = false;
            // Its label is a name, not a sentence.
            let sentence = |b: &Block<'_>| b.lines[0].trim_end().ends_with(['.', '!', '?']);
            if i > 0 && keep[i - 1] && is_short_label(&blocks[i - 1]) && !sentence(&blocks[i - 1]) {
                keep[i - 1] = false;
            }
            continue;
        }
        if is_link_list(block) {
            keep[i] = false;
            if i > 0 && keep[i - 1] && is_short_label(&blocks[i - 1]) {
                keep[i - 1] = false;
            }
            continue;
        }
        let text = normalised(block);
        if heading_level(block.lines[0]).is_none() && !text.is_empty() && !seen.insert(text) {
            keep[i] = false;
        }
    }
    // Headings whose sections are empty, from the end, so that a heading
    // left empty by the one after it goes too; then a closing rule.
    let mut next_level: Option<usize> = Some(0);
    for i in (0..blocks.len()).rev() {
        if !keep[i] {
            continue;
        }
        let block = &blocks[i];
        let at_end = next_level == Some(0);
        if at_end && !block.code && matches!(block.lines[0].trim(), "* * *" | "---" | "***" | "- - -" | "___") {
            keep[i] = false;
            continue;
        }
        match (!block.code && block.lines.len() == 1).then(|| heading_level(block.lines[0])).flatten() {
            Some(level) if next_level.is_some_and(|next| next <= level) => keep[i] = false,
            Some(level) => next_level = Some(level),
            None => next_level = None,
        }
    }
    let kept: Vec<String> = blocks.iter().zip(keep).filter(|(_, k)| *k).map(|(b, _)| b.text()).collect();
    kept.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boilerplate_blocks_are_dropped_and_prose_is_kept() {
        let rows: &[(&str, &str)] = &[
            // A caption repeated under every photo.
            ("Para one.\n\nPhoto: AP\n\nPara two.\n\nPhoto: AP", "Para one.\n\nPhoto: AP\n\nPara two."),
            // A teaser between paragraphs.
            ("Para one.\n\n> **PUEDES VER:** [Otra noticia](https://x.test/a)\n\nPara two.", "Para one.\n\nPara two."),
            ("Para one.\n\nRead more: [Headline](https://x.test/a)\n\nPara two.", "Para one.\n\nPara two."),
            // A link list and its heading.
            ("Para one.\n\n## Mehr zum Thema\n\n*   [A](https://x.test/a)\n*   [B](https://x.test/b)", "Para one."),
            // The same list written loose: numbered headline links apart.
            (
                "Para one.\n\nLo más leído\n\n1.   ## [Headline one](https://x.test/1)\n\n2.   ## [Headline two](https://x.test/2)\n\nPara two.",
                "Para one.\n\nPara two.",
            ),
            (
                "The story ends with a sentence of more than six words.\n\n[Sign the petition](https://x.test/p)\n\n[Donate](https://x.test/d)",
                "The story ends with a sentence of more than six words.",
            ),
            // Cut teasers and their labels.
            (
                "Para one.\n\nWettergutachten\n\nAuskunft über vergangenes Wetter… [mehr •••](https://x.test/w)\n\nPara two.",
                "Para one.\n\nPara two.",
            ),
            ("Para one.\n\nThe first words of a story... [Read on](https://x.test/s)", "Para one."),
            // A trailing empty section and rule.
            ("Para one.\n\n* * *\n\n## Related", "Para one."),
            // An empty section between two others.
            ("## A\n\n## B\n\nText of B.", "## B\n\nText of B."),
        ];
        for (input, expected) in rows {
            assert_eq!(tidy(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn a_line_of_unmatched_brackets_costs_linear_time() {
        let line = format!("Text {}", "[".repeat(1_000_000));
        let started = std::time::Instant::now();
        assert_eq!(tidy(&line), line);
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
    }

    #[test]
    fn what_readers_need_is_left_alone() {
        let rows: &[&str] = &[
            // A link inside prose, and a short link-heavy paragraph.
            "See [the report](https://x.test/r) for the figures behind this story.\n\n[Sign the petition](https://x.test/p)",
            // Nested headings with content.
            "# Title\n\n## Part\n\nText.",
            // Repeated lines inside code and tables.
            "```\n}\n```\n\n```\n}\n```",
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n| a | b |\n|---|---|\n| 1 | 2 |",
            // One link line alone is not a list, nor are two with prose between.
            "Text.\n\n*   [Only one](https://x.test/a)",
            "[One](https://x.test/a)\n\nProse between the two links.\n\n[Two](https://x.test/b)",
        ];
        for input in rows {
            assert_eq!(tidy(input), *input);
        }
    }
}
