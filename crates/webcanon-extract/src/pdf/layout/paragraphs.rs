//! Step 5 of the reading order: the lines of a block into paragraphs. A
//! line that stops well short of the block's right edge ends one; an
//! indented line, a list item or a line of dot leaders starts one.

use super::blocks::{Block, Cell};
use super::pieces::{Piece, has_leaders};

/// A line that reaches less than this share of its block's width ends its
/// paragraph.
const SHORT_LINE: f32 = 0.6;
/// How far (in font sizes) right of the block's left edge a line begins
/// to be indented: it starts a paragraph.
const INDENT: f32 = 0.8;
/// How near (in font sizes) the block's left edge the line above an
/// indented one begins for it to be flush (a hanging indent is not).
const FLUSH: f32 = 0.5;
/// The most characters of a list item's mark, parentheses included:
/// `(viii)`.
const MAX_ITEM_MARK: usize = 6;

/// A paragraph of a page, its lines in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Paragraph {
    /// Running text: its lines are to be joined.
    Prose(Vec<String>),
    /// Monospaced lines (code, a listing): kept line for line, each
    /// indented as it was set, an empty line where the code has a blank
    /// one ([`listing::code_lines`]).
    Code(Vec<String>),
    /// A table's rows, each its cells, the first as set ([`table::rows`]).
    Table(Vec<Vec<Cell>>),
}

/// The lines of a block grouped into paragraphs.
pub(super) fn paragraphs(block: &Block) -> Vec<Vec<&str>> {
    let width = block.u1 - block.u0;
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut previous: Option<&Piece> = None;
    for line in &block.lines {
        let starts = match previous {
            None => true,
            Some(p) => {
                let short = p.u1 - block.u0 < SHORT_LINE * width;
                // An indented line after a flush one starts a paragraph, but
                // not under a list item's first line (a hanging indent).
                let indented = line.u0 > block.u0 + INDENT * line.size
                    && p.u0 <= block.u0 + FLUSH * p.size
                    && !starts_item(&p.text);
                let hyphenated = p.text.ends_with('-') && line.text.starts_with(char::is_lowercase);
                !hyphenated
                    && (short || indented || starts_item(&line.text) || has_leaders(&p.text) || has_leaders(&line.text))
            }
        };
        if starts {
            out.push(Vec::new());
        }
        out.last_mut().expect("a paragraph was started").push(&line.text);
        previous = Some(line);
    }
    out
}

/// A bullet or a numbered item: `•`, `-`, `*`, `–`, `1.`, `(a)`, `iv)`.
pub(super) fn starts_item(line: &str) -> bool {
    let mut chars = line.chars();
    let first = chars.next().unwrap_or(' ');
    if matches!(first, '•' | '◦' | '▪' | '‣' | '–' | '—' | '-' | '*') {
        return chars.next().is_some_and(char::is_whitespace);
    }
    let head: String = line.chars().take_while(|c| !c.is_whitespace()).take(MAX_ITEM_MARK).collect();
    let marker = head.trim_start_matches('(');
    (marker.ends_with('.') || marker.ends_with(')'))
        && marker.len() > 1
        && marker[..marker.len() - 1].chars().all(|c| c.is_ascii_digit())
}
