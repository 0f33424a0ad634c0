//! Code: blocks of monospaced lines kept line for line, indented as they
//! were set, instead of being joined as prose; the blocks of one piece of
//! code below each other, across blank lines, read as one.

use super::blocks::{Block, overlap};
use super::monospace::{SAME_ADVANCE, shared_advance};

/// The fewest lines a block of monospaced lines has to be code: a single
/// line in a typewriter font is as often a heading or a name.
const MIN_CODE_LINES: usize = 2;
/// The most spaces of indentation kept for a line of code.
pub(super) const MAX_INDENT: usize = 40;
/// The most blank lines between two blocks of code that are one piece of
/// code.
const MAX_BLANK_LINES: usize = 2;

/// The advance of the monospaced font that nearly all ([`MONOSPACED_SHARE`](super::monospace::MONOSPACED_SHARE))
/// of the lines of `block` are set in: a block of code. `None` for prose.
fn monospaced(block: &Block) -> Option<f32> {
    shared_advance(block.lines.iter().map(|l| l.advance))
}

/// How many of `blocks` (in reading order) from the first are one piece
/// of code: the first, when it is monospaced and has at least
/// [`MIN_CODE_LINES`], and each next one set in the same font just below
/// the one before, across at most [`MAX_BLANK_LINES`] blank lines (code
/// with blank lines in it). 0 for prose.
pub(super) fn code_run(blocks: &[Block]) -> usize {
    let Some(first) = blocks.first().filter(|b| b.rows.is_none()) else { return 0 };
    let Some(advance) = monospaced(first).filter(|_| first.lines.len() >= MIN_CODE_LINES) else { return 0 };
    let mut run = 1;
    while let Some(next) = blocks.get(run) {
        let above = &blocks[run - 1];
        let size = above.last().size;
        let below = next.top - above.bottom;
        let continues = next.rows.is_none()
            && monospaced(next).is_some_and(|a| (a - advance).abs() <= SAME_ADVANCE * advance)
            && below > 0.0
            && below <= (MAX_BLANK_LINES as f32 + 1.0) * size
            && overlap(above.u0, above.u1, next.u0, next.u1) > 0.0;
        if !continues {
            break;
        }
        run += 1;
    }
    run
}

/// The lines of a run of code `blocks` ([`code_run`]), each indented as it
/// was set (from the run's leftmost line, at most [`MAX_INDENT`] spaces),
/// a blank line between blocks.
pub(super) fn code_lines(blocks: &[Block]) -> Vec<String> {
    let advance = monospaced(&blocks[0]).expect("a run of code");
    let origin = blocks.iter().map(|b| b.u0).fold(f32::INFINITY, f32::min);
    let mut out = Vec::new();
    for (k, block) in blocks.iter().enumerate() {
        if k > 0 {
            out.push(String::new());
        }
        for line in &block.lines {
            let indent = ((line.u0 - origin) / advance).round().clamp(0.0, MAX_INDENT as f32) as usize;
            let mut text = " ".repeat(indent);
            text.push_str(line.text.trim_end());
            out.push(text);
        }
    }
    out
}
