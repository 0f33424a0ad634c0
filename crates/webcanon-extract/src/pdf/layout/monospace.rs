//! Monospaced text: which fonts of a page are monospaced, the advance
//! lines and blocks are set at, and the gaps that are a monospaced line's
//! padding (code or a listing aligned with spaces), not a column's gap.

use super::glyphs::Glyph;
use crate::pdf::fonts::OTHER_FONTS;

/// The fewest glyphs a font shows on a page to be known as monospaced.
pub(super) const MONOSPACED_MIN_GLYPHS: usize = 8;

/// The share of a font's glyphs that must be one width for it to be
/// monospaced (a few may be drawn squeezed or stretched).
pub(super) const MONOSPACED_SHARE: f32 = 0.9;

/// How far (in characters) a gap in monospaced text may be from a whole
/// number of characters and still be padding: typesetters place padding
/// on the character grid to a hundredth; a column's gutter lands there
/// only by chance.
pub(super) const PADDING_TOLERANCE: f32 = 0.02;

/// The most spaces one gap in monospaced text is kept as (padding, a line
/// number's distance from its code): a line's text is at most this many
/// times its glyphs.
pub(super) const MAX_PADDING: usize = 40;
/// How much wider (as a ratio) than the narrowest of a run of a font's
/// glyph widths the widest may be for the run to be one width: 1%, what
/// rounding in the reader's measures leaves.
const WIDTH_RUN: f32 = 1.01;
/// How far (as a share of it) an advance may be from another for both to
/// be one monospaced font's: the same font measures the same but for
/// rounding.
pub(super) const SAME_ADVANCE: f32 = 0.01;
/// How far (as a share of it) a font size may be from another for both to
/// be one size.
pub(super) const SAME_SIZE: f32 = 0.01;

/// The advance (per unit of font size) of each monospaced font of a page,
/// by font number: a font whose glyphs (letters among them) are nearly all
/// one width for their size. A font seen only in digits, which most fonts
/// set at one width, is not known to be.
pub(super) fn monospaced_fonts(glyphs: &[Glyph]) -> Vec<Option<f32>> {
    let mut widths: Vec<Vec<f32>> = Vec::new();
    let mut letters: Vec<bool> = Vec::new();
    for g in glyphs {
        let width = (g.end - g.u) / g.size;
        // The number shared by the fonts past the table's cap stands for
        // many: never one monospaced font.
        if !width.is_finite() || width <= 0.0 || g.font == OTHER_FONTS {
            continue;
        }
        let id = usize::from(g.font);
        if widths.len() <= id {
            widths.resize(id + 1, Vec::new());
            letters.resize(id + 1, false);
        }
        widths[id].push(width);
        letters[id] |= g.ch.is_alphabetic();
    }
    widths
        .into_iter()
        .zip(letters)
        .map(|(mut w, letters)| {
            if !letters || w.len() < MONOSPACED_MIN_GLYPHS {
                return None;
            }
            w.sort_by(f32::total_cmp);
            // The widest run of widths within 1% of its first.
            let (mut best, mut best_len, mut from) = (w[0], 0, 0);
            for to in 0..w.len() {
                while w[to] > w[from] * WIDTH_RUN {
                    from += 1;
                }
                if to + 1 - from > best_len {
                    (best, best_len) = (w[from], to + 1 - from);
                }
            }
            (best_len as f32 >= MONOSPACED_SHARE * w.len() as f32).then_some(best)
        })
        .collect()
}

/// The advance (per unit of font size) of `g`'s font, when it is one of
/// the page's monospaced fonts (`monospaced`, by font number).
pub(super) fn monospaced_width(g: &Glyph, monospaced: &[Option<f32>]) -> Option<f32> {
    monospaced.get(usize::from(g.font)).copied().flatten()
}

/// The advance of the monospaced font that nearly all of `glyphs` are set
/// in ([`MONOSPACED_SHARE`] of them), at their size; `None` for text in
/// proportional fonts.
pub(super) fn monospaced_advance(glyphs: &[Glyph], monospaced: &[Option<f32>]) -> Option<f32> {
    shared_advance(glyphs.iter().map(|g| monospaced_width(g, monospaced).map(|w| w * g.size)))
}

/// The first of `advances` (each that of a glyph or line, `None` where it
/// is not monospaced) when [`MONOSPACED_SHARE`] of them are that one.
pub(super) fn shared_advance(advances: impl Iterator<Item = Option<f32>> + Clone) -> Option<f32> {
    let first = advances.clone().flatten().next()?;
    let (mut alike, mut all) = (0usize, 0usize);
    for advance in advances {
        all += 1;
        alike += usize::from(advance.is_some_and(|a| (a - first).abs() <= SAME_ADVANCE * first));
    }
    (alike as f32 >= MONOSPACED_SHARE * all as f32).then_some(first)
}

/// Whether the gap between `left` and `right` is the padding of a line of
/// monospaced text (code aligned with spaces): both glyphs in one
/// monospaced font and size, the gap a whole number of their advances.
pub(super) fn padded(left: &Glyph, right: &Glyph, gap: f32, monospaced: &[Option<f32>]) -> bool {
    let Some(width) = monospaced_width(left, monospaced) else { return false };
    let advance = width * left.size;
    let fits = |g: &Glyph| ((g.end - g.u) - advance).abs() <= SAME_ADVANCE * advance;
    if left.font != right.font || (left.size - right.size).abs() > SAME_SIZE * left.size || !fits(left) || !fits(right)
    {
        return false;
    }
    let spaces = gap / advance;
    (spaces - spaces.round()).abs() < PADDING_TOLERANCE
}
