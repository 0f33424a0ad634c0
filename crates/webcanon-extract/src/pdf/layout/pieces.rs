//! Step 2 of the reading order, the pieces themselves: a line, or the
//! part of one between wide gaps, its glyphs made words at the gaps
//! between them (a monospaced line's padding kept as that many spaces),
//! with a listing's line number measured apart.

use super::cuts::Label;
use super::glyphs::{Glyph, SAME_BASELINE, WORD_GAP, typical_size};
use super::lines::NEIGHBOUR_FRAGMENTS;
use super::monospace::{MAX_PADDING, monospaced_advance, monospaced_width, padded};

/// Where the font size changes, a gap wider than this (in font sizes) is
/// one too.
pub(super) const RESIZED_WORD_GAP: f32 = 0.03;
/// A change of font size between two glyphs larger than this (as a share
/// of the line's size) marks where a word may end at a narrower gap
/// ([`RESIZED_WORD_GAP`]): a footnote mark after a word.
const RESIZED: f32 = 0.05;

/// A line, or the piece of one between wide gaps: its words, where it
/// starts and ends, its baseline and font size.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Piece {
    pub(super) text: String,
    pub(super) u0: f32,
    pub(super) u1: f32,
    pub(super) v: f32,
    /// The size most of its glyphs are set in (after its line number, if
    /// it begins with one).
    pub(super) size: f32,
    /// The advance of its monospaced font: set in one (code, a listing),
    /// not counting a line number it begins with.
    pub(super) advance: Option<f32>,
    /// The line number it begins with ([`Label`]); once the listings are
    /// found ([`listing::number_lines`]), only a listing's line has one.
    pub(super) label: Option<u32>,
}

impl Piece {
    /// Appends `other` (the next piece on its line), `spaces` apart.
    pub(super) fn append(&mut self, other: &Piece, spaces: usize) {
        self.text.extend(std::iter::repeat_n(' ', spaces));
        self.text.push_str(&other.text);
        self.u1 = self.u1.max(other.u1);
    }
}

/// The next piece on the line of `slots[k]` (pieces sorted by baseline
/// then along the line, those taken out `None`): the nearest to its right
/// on its baseline, among the [`NEIGHBOUR_FRAGMENTS`] either side.
pub(super) fn next_on_line(slots: &[Option<Piece>], k: usize) -> Option<usize> {
    let piece = slots[k].as_ref()?;
    let near = k.saturating_sub(NEIGHBOUR_FRAGMENTS)..(k + NEIGHBOUR_FRAGMENTS + 1).min(slots.len());
    let right = near.filter_map(|j| Some((j, slots[j].as_ref()?))).filter(|&(j, p)| {
        j != k && (p.v - piece.v).abs() <= SAME_BASELINE * p.size.max(piece.size) && p.u0 >= piece.u1
    });
    right.min_by(|a, b| a.1.u0.total_cmp(&b.1.u0)).map(|(j, _)| j)
}

/// The piece of a line made of `glyphs` (sorted along the line, on
/// baseline `v`): words apart where the gaps are, the padding of
/// monospaced text kept as that many spaces (at most
/// [`MAX_PADDING`] for a gap), a leading line number (a [`Label`]) and
/// what follows it measured apart.
pub(super) fn piece(glyphs: &[Glyph], v: f32, monospaced: &[Option<f32>]) -> Piece {
    let label = Label::of(glyphs);
    let body = &glyphs[label.map_or(0, |l| l.glyphs)..];
    let measured = if body.is_empty() { glyphs } else { body };
    let size = typical_size(measured);
    let advance = monospaced_advance(measured, monospaced).or_else(|| label.and_then(|_| guarded(body, monospaced)));
    let mut text = String::new();
    let mut u1 = glyphs[0].end;
    for (i, g) in glyphs.iter().enumerate() {
        if i > 0 {
            let before = &glyphs[i - 1];
            // A change of size (a superscript, a footnote mark) with any
            // room before it is a word boundary too.
            let resized = (g.size - before.size).abs() > RESIZED * size;
            let gap = g.u - u1;
            if gap > WORD_GAP * size || (resized && gap > RESIZED_WORD_GAP * size) {
                let after_label = label.is_some_and(|l| l.glyphs == i);
                let spaces = match advance {
                    Some(a) if after_label || padded(before, g, gap, monospaced) => (gap / a).round() as usize,
                    _ => 1,
                };
                text.extend(std::iter::repeat_n(' ', spaces.clamp(1, MAX_PADDING)));
            }
        }
        push_char(&mut text, g.ch);
        u1 = u1.max(g.end);
    }
    Piece { text, u0: glyphs[0].u, u1, v, size, advance, label: label.map(|l| l.number) }
}

/// The advance of the code of a numbered line that begins with a mark in
/// another font (a guard, `⟨latexrelease⟩\fi`; a prompt, `$ make`): its
/// glyphs after the mark monospaced ([`monospaced_advance`]) and at least
/// half of them. The mark ends in a symbol, where a word of prose before a
/// path (a footnote's `CTAN: /macros/latex`) ends in a letter or a stop.
pub(super) fn guarded(body: &[Glyph], monospaced: &[Option<f32>]) -> Option<f32> {
    let prefix = body.iter().take_while(|g| monospaced_width(g, monospaced).is_none()).count();
    let mark = prefix > 0 && {
        let last = body[prefix - 1].ch;
        !last.is_alphanumeric() && !matches!(last, '.' | ',' | ';' | ':' | '!' | '?')
    };
    let code = &body[prefix..];
    (mark && code.len() >= prefix).then(|| monospaced_advance(code, monospaced)).flatten()
}

/// Appends `c`, with the typographic ligatures (ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ)
/// spelled out as their letters.
pub(super) fn push_char(text: &mut String, c: char) {
    let spelled = match c {
        '\u{fb00}' => "ff",
        '\u{fb01}' => "fi",
        '\u{fb02}' => "fl",
        '\u{fb03}' => "ffi",
        '\u{fb04}' => "ffl",
        '\u{fb05}' | '\u{fb06}' => "st",
        _ => {
            text.push(c);
            return;
        }
    };
    text.push_str(spelled);
}

/// Dot leaders, as tables of contents have.
pub(super) fn has_leaders(line: &str) -> bool {
    line.contains(". . .") || line.contains("....")
}
