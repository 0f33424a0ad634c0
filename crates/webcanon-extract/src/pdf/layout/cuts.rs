//! Step 2 of the reading order, where a line is cut into pieces: at a
//! wide gap (between columns, table cells), not at a monospaced line's
//! padding nor at the even wide spaces of a justified line stretched
//! loose, nor where superscripts take up the gap; at a narrower one where
//! a justified column's right edge is ([`edges`](super::edges)); and
//! before a listing's line number.

use super::edges::Edges;
use super::glyphs::{Glyph, SAME_BASELINE, WORD_GAP};
use super::monospace::{SAME_SIZE, monospaced_advance, monospaced_width, padded};

/// A gap wider than this (in font sizes) cuts a line into pieces.
pub(super) const PIECE_GAP: f32 = 1.5;

/// How far (in the line's sizes) from the end of a glyph a script set
/// after it begins.
pub(super) const SCRIPT_ATTACHED: f32 = 0.5;

/// How much smaller than the code (as a share of its size) a listing's
/// line numbers are set for one to part a line ([`numbers_line`]).
pub(super) const LINE_NUMBER_SIZE: f32 = 0.9;

/// How much wider than a line's usual space its widest may be for the line
/// to be read as justified text rather than cut at wide gaps.
pub(super) const STRETCH_EVENNESS: f32 = 1.3;

/// The fewest spaces a line has for their evenness to tell it justified.
pub(super) const STRETCHED_SPACES: usize = 3;

/// The most digits a line number has.
pub(super) const MAX_LABEL_DIGITS: usize = 6;

/// Where a line (its glyphs sorted along it) is cut into pieces: at a
/// gap that begins at the right edge of a justified column (one that
/// [`Edges::parts`] the line, or any gap wider than [`PIECE_GAP`] times
/// `size`, the line's typical size), and, within each stretch between
/// such gaps (a column's part of the line), at each gap wider than
/// [`PIECE_GAP`] times `size` that is not [`padded`] (`monospaced`: the
/// advance of each monospaced font, by font number), unless the stretch
/// is a [`justified`] line stretched loose.
pub(super) fn cuts(
    row: &[Glyph],
    size: f32,
    monospaced: &[Option<f32>],
    edges: &Edges,
    scripts: &[(f32, f32)],
) -> Vec<usize> {
    let wide = |k: usize, gap: f32| {
        gap > PIECE_GAP * size
            && !padded(&row[k - 1], &row[k], gap, monospaced)
            && !bridged(scripts, row[k].u - gap, row[k].u, size)
    };
    let mut at_edges = Vec::new();
    if let Some(spacing) = edges.has_any().then(|| word_spacing(row, size)).flatten() {
        let mut reach = row[0].end;
        for (k, g) in row.iter().enumerate().skip(1) {
            let gap = g.u - reach;
            if edges.parts(reach, gap, size, spacing) || (wide(k, gap) && edges.at_right(reach, size)) {
                at_edges.push(k);
            }
            reach = reach.max(g.end);
        }
    }
    let mut out = Vec::new();
    let mut from = 0;
    for to in at_edges.iter().copied().chain([row.len()]) {
        let stretch = &row[from..to];
        let stretched =
            word_spacing(stretch, size).is_some_and(|spacing| justified(stretch, size, spacing, edges, monospaced));
        let mut reach = stretch[0].end;
        for (k, g) in stretch.iter().enumerate().skip(1) {
            let gap = g.u - reach;
            if (!stretched && wide(from + k, gap)) || (gap > WORD_GAP * size && numbers_line(stretch, k, monospaced)) {
                out.push(from + k);
            }
            reach = reach.max(g.end);
        }
        if to < row.len() {
            out.push(to);
        }
        from = to;
    }
    out
}

/// Whether the gap from `reach` to `next` on a line at `size` is taken up
/// by the superscripts or subscripts set after the glyph that ends at
/// `reach` (`scripts`: the spans of the short runs of smaller glyphs just
/// above or below the line, sorted by start): `A` with `ml` over `1,39`
/// before `and` is one stretch of text, not two pieces.
pub(super) fn bridged(scripts: &[(f32, f32)], reach: f32, next: f32, size: f32) -> bool {
    let attached = SCRIPT_ATTACHED * size;
    let from = scripts.partition_point(|&(u0, _)| u0 < reach - attached);
    let end =
        scripts[from..].iter().take_while(|&&(u0, _)| u0 <= reach + attached).map(|&(_, u1)| u1).fold(reach, f32::max);
    next - end <= PIECE_GAP * size
}

/// Whether a line number begins at `row[k]`, after a word (not a digit) a
/// space before it: a [`Label`] set smaller than the monospaced code that
/// follows it, on its baseline (the name in a listing's margin, set on
/// the baseline of the line it names, and then the line's number and
/// code; not a footnote's mark, raised, nor a page number in an index's
/// list, after a comma).
pub(super) fn numbers_line(row: &[Glyph], k: usize, monospaced: &[Option<f32>]) -> bool {
    !row[k - 1].ch.is_ascii_digit()
        && !matches!(row[k - 1].ch, ',' | ';')
        && Label::of(&row[k..]).is_some_and(|label| {
            row.get(k + label.glyphs).is_some_and(|next| {
                row[k].size < LINE_NUMBER_SIZE * next.size
                    && (row[k].v - next.v).abs() <= SAME_BASELINE * next.size
                    && monospaced_width(next, monospaced).is_some()
            })
        })
}

/// Whether `row` (its glyphs sorted along it) is a justified line stretched
/// so loose that its spaces are wide gaps (a short line before a long
/// word): it spans a justified column ([`Edges::spans_column`]), is not
/// monospaced (whose padding is told apart on its own), has at least
/// [`STRETCHED_SPACES`] spaces and its widest is at most
/// [`STRETCH_EVENNESS`] times its usual one (`spacing`), as justification
/// spreads the room evenly, where a row of a table has narrow spaces in
/// its cells and wide gaps between them, and a term beside its
/// description (in CJK, with no spaces) has one gap.
pub(super) fn justified(row: &[Glyph], size: f32, spacing: f32, edges: &Edges, monospaced: &[Option<f32>]) -> bool {
    let end = row.iter().map(|g| g.end).fold(f32::NEG_INFINITY, f32::max);
    if !edges.spans_column(row[0].u, end, size) || monospaced_advance(row, monospaced).is_some() {
        return false;
    }
    let gaps = row.windows(2).map(|w| w[1].u - w[0].end).filter(|&gap| gap > WORD_GAP * size);
    let (count, widest) = gaps.fold((0, 0.0f32), |(n, widest), gap| (n + 1, widest.max(gap)));
    count >= STRETCHED_SPACES && widest <= STRETCH_EVENNESS * spacing
}

/// The usual space between the words of a line (its glyphs sorted along
/// it): the median of its gaps wider than [`WORD_GAP`] times `size`.
pub(super) fn word_spacing(row: &[Glyph], size: f32) -> Option<f32> {
    let mut gaps: Vec<f32> = row.windows(2).map(|w| w[1].u - w[0].end).filter(|&gap| gap > WORD_GAP * size).collect();
    if gaps.is_empty() {
        return None;
    }
    let middle = gaps.len() / 2;
    Some(*gaps.select_nth_unstable_by(middle, f32::total_cmp).1)
}

/// A number that begins a line, set in a font or size of its own (or
/// alone on it): a listing's line number, if the lines above and below
/// are numbered on ([`listing::number_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Label {
    /// Its value.
    pub(super) number: u32,
    /// How many glyphs it is.
    pub(super) glyphs: usize,
}

impl Label {
    /// The label `glyphs` (sorted along the line) begin with, if any: one
    /// to [`MAX_LABEL_DIGITS`] digits of one font and size, then a
    /// glyph in another font or size.
    pub(super) fn of(glyphs: &[Glyph]) -> Option<Label> {
        let first = glyphs.first()?;
        let same = |g: &Glyph| g.font == first.font && (g.size - first.size).abs() <= SAME_SIZE * first.size;
        let digits = glyphs.iter().take_while(|g| g.ch.is_ascii_digit() && same(g)).count();
        if digits == 0 || digits > MAX_LABEL_DIGITS || glyphs.get(digits).is_some_and(same) {
            return None;
        }
        let number = glyphs[..digits].iter().fold(0u32, |n, g| n * 10 + g.ch.to_digit(10).unwrap_or(0));
        Some(Label { number, glyphs: digits })
    }
}
