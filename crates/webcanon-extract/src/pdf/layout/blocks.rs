//! Step 3 of the reading order: pieces stacked into blocks. A piece joins
//! the block whose last line is just above it, whose width it shares
//! (give or take a little) and whose lines are set in its size.

use super::glyphs::SAME_BASELINE;
use super::listing;
use super::pieces::Piece;

/// A table's cell: its lines, in order (joined as a paragraph's are when
/// the table is written, a word hyphenated at a line end joined again).
pub(super) type Cell = Vec<String>;

/// The most blocks kept open for lines to join while a page is read top to
/// bottom (a line compares itself with each open block).
pub(super) const MAX_OPEN_BLOCKS: usize = 64;

/// The farthest (in font sizes) one baseline may be below the one above
/// for both lines to be in one block.
pub(super) const BLOCK_LINE_PITCH: f32 = 1.6;

/// How far (in font sizes) a line may stand left or right of a block and
/// still join it.
pub(super) const BLOCK_SLACK: f32 = 0.3;

/// How much (as a fraction) the font sizes of the lines of a block may
/// differ: a heading in a larger size is a block of its own.
pub(super) const BLOCK_SIZE_DIFFERENCE: f32 = 0.05;
/// How far (in font sizes) a line's letters reach below its baseline:
/// where a block ends.
const DESCENT: f32 = 0.25;

/// Lines stacked one under the other: a column's run of text.
#[derive(Debug, Clone)]
pub(super) struct Block {
    pub(super) lines: Vec<Piece>,
    pub(super) u0: f32,
    pub(super) u1: f32,
    pub(super) top: f32,
    pub(super) bottom: f32,
    /// The rows of the table the block is ([`table::rows`]), its lines
    /// those of all its cells.
    pub(super) rows: Option<Vec<Vec<Cell>>>,
}

impl Block {
    pub(super) fn new(piece: Piece) -> Block {
        let mut block = Block {
            lines: Vec::new(),
            u0: piece.u0,
            u1: piece.u1,
            top: piece.v - piece.size,
            bottom: piece.v,
            rows: None,
        };
        block.push(piece);
        block
    }

    pub(super) fn push(&mut self, piece: Piece) {
        self.u0 = self.u0.min(piece.u0);
        self.u1 = self.u1.max(piece.u1);
        self.top = self.top.min(piece.v - piece.size);
        self.bottom = self.bottom.max(piece.v + piece.size * DESCENT);
        self.lines.push(piece);
    }

    pub(super) fn last(&self) -> &Piece {
        self.lines.last().expect("a block has a line")
    }
}

/// How much of `[a0, a1]` and `[b0, b1]` is shared.
pub(super) fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    a1.min(b1) - a0.max(b0)
}

/// Pieces (sorted by baseline) stacked into blocks.
pub(super) fn blocks(pieces: Vec<Piece>) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for piece in pieces {
        open.retain(|&b| {
            let last = blocks[b].last();
            piece.v - last.v <= BLOCK_LINE_PITCH * last.size.max(piece.size)
        });
        // A block whose last line shares some of the piece's width is the
        // best place for it; one whose lines reach over it (an indented
        // line of code under a shorter one) the next best.
        let joins = open
            .iter()
            .copied()
            .filter(|&b| {
                let (block, last) = (&blocks[b], blocks[b].last());
                let slack = BLOCK_SLACK * last.size;
                piece.v - last.v > SAME_BASELINE * last.size
                    && (piece.size - last.size).abs() <= BLOCK_SIZE_DIFFERENCE * last.size
                    && overlap(block.u0 - slack, block.u1 + slack, piece.u0, piece.u1) > 0.0
                    && !listing::parts(last, &piece)
            })
            .max_by(|&a, &b| {
                let fit = |i: usize| {
                    let last = blocks[i].last();
                    let shared = overlap(last.u0, last.u1, piece.u0, piece.u1);
                    (shared > 0.0, overlap(blocks[i].u0, blocks[i].u1, piece.u0, piece.u1))
                };
                let (fa, fb) = (fit(a), fit(b));
                fa.0.cmp(&fb.0).then(fa.1.total_cmp(&fb.1))
            });
        match joins {
            Some(b) => {
                blocks[b].push(piece);
                // Most recently joined last, so the oldest leaves first.
                open.retain(|&o| o != b);
                open.push(b);
            }
            None => {
                blocks.push(Block::new(piece));
                open.push(blocks.len() - 1);
                if open.len() > MAX_OPEN_BLOCKS {
                    open.remove(0);
                }
            }
        }
    }
    blocks
}
