//! The fonts of a document as the reading order needs them: a number for
//! each (glyphs of one font compared with each other), and the advance of
//! each character of a font as its upright glyphs showed it, for glyphs
//! turned a quarter, whose advance the reader cannot tell.
//!
//! Both tables are bounded: a hostile document with more fonts or
//! characters than [`MAX_FONTS`] and [`MAX_ADVANCES`] shares one number
//! for the rest of its fonts and learns no more advances.

use pdf_oxide::layout::TextChar;
use rustc_hash::FxHashMap;

use super::layout::glyphs::{Glyph, SPACE};

/// The most fonts numbered one by one; the rest share [`OTHER_FONTS`].
pub(super) const MAX_FONTS: usize = 4_096;
/// The longest font name kept whole (in bytes).
const MAX_NAME: usize = 256;
/// The most (font, character) advances remembered.
pub(super) const MAX_ADVANCES: usize = 65_536;
/// The number of every font past [`MAX_FONTS`] (never monospaced, never
/// learned from: it stands for many fonts).
pub(super) const OTHER_FONTS: u16 = u16::MAX;

/// Font numbers and advances learned so far in one document.
#[derive(Debug, Default)]
pub(super) struct Fonts {
    numbers: FxHashMap<String, u16>,
    /// Advance per unit of font size, by font number and character.
    advances: FxHashMap<(u16, char), f32>,
}

impl Fonts {
    /// The number of the font named `name`.
    pub(super) fn number(&mut self, name: &str) -> u16 {
        // A name is kept to its first [`MAX_NAME`] bytes (a PDF name has at
        // most 127): what the table holds stays small whatever a file says.
        let mut end = MAX_NAME.min(name.len());
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        let name = &name[..end];
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        if self.numbers.len() >= MAX_FONTS {
            return OTHER_FONTS;
        }
        let n = u16::try_from(self.numbers.len()).unwrap_or(OTHER_FONTS);
        self.numbers.insert(name.to_owned(), n);
        n
    }

    /// A page's glyphs from the reader's characters: each numbered by its
    /// font; the advances of its upright glyphs learned, then lent to its
    /// glyphs turned a quarter whose advance is unknown.
    pub(super) fn glyphs<'a>(&mut self, chars: impl Iterator<Item = &'a TextChar>) -> Vec<Glyph> {
        let mut glyphs = Vec::new();
        for c in chars {
            let Some(g) = Glyph::of(c, self.number(&c.font_name)) else { continue };
            // Only an advance the reader measured (not one made up for a
            // glyph without it) is learned.
            let measured = c.advance_width.is_finite() && c.advance_width > 0.0;
            if measured
                && g.quarter == 0
                && g.ch != SPACE
                && g.font != OTHER_FONTS
                && self.advances.len() < MAX_ADVANCES
            {
                let width = (g.end - g.u) / g.size;
                if width.is_finite() && width > 0.0 {
                    self.advances.entry((g.font, g.ch)).or_insert(width);
                }
            }
            glyphs.push(g);
        }
        for g in glyphs.iter_mut().filter(|g| g.end.is_nan()) {
            if let Some(width) = self.advances.get(&(g.font, g.ch)) {
                g.end = g.u + width * g.size;
            }
        }
        glyphs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A character of font `font` at size 10 with its origin at `(x, y)`,
    /// upright with `advance`, or turned a quarter (no advance known).
    fn char_at(ch: char, font: &str, x: f32, y: f32, advance: Option<f32>) -> TextChar {
        let matrix = if advance.is_some() { [10.0, 0.0, 0.0, 10.0, x, y] } else { [0.0, 10.0, -10.0, 0.0, x, y] };
        TextChar {
            char: ch,
            font_name: font.to_owned(),
            font_size: 10.0,
            advance_width: advance.unwrap_or(0.0),
            rotation_degrees: if advance.is_some() { 0.0 } else { 90.0 },
            ..TextChar::default()
        }
        .with_matrix(matrix)
    }

    #[test]
    fn a_turned_glyph_takes_the_advance_its_font_showed_upright() {
        let mut fonts = Fonts::default();
        let upright = [char_at('a', "F", 0.0, 0.0, Some(5.0)), char_at('b', "F", 5.0, 0.0, Some(6.0))];
        assert_eq!(fonts.glyphs(upright.iter()).len(), 2);
        // Turned: 'a' of F is known, 'a' of G and 'c' of F are not.
        let turned = [
            char_at('a', "F", 100.0, 0.0, None),
            char_at('a', "G", 100.0, 20.0, None),
            char_at('c', "F", 100.0, 40.0, None),
        ];
        let glyphs = fonts.glyphs(turned.iter());
        let ends: Vec<f32> = glyphs.iter().map(|g| g.end - g.u).collect();
        assert_eq!(glyphs.iter().map(|g| g.quarter).collect::<Vec<_>>(), [1, 1, 1]);
        assert!((ends[0] - 5.0).abs() < 1e-3, "{ends:?}");
        assert!(ends[1].is_nan() && ends[2].is_nan(), "{ends:?}");
    }

    #[test]
    fn past_the_cap_fonts_share_one_number() {
        let mut fonts = Fonts::default();
        for i in 0..MAX_FONTS {
            assert_eq!(usize::from(fonts.number(&format!("F{i}"))), i);
        }
        assert_eq!(fonts.number("one more"), OTHER_FONTS);
        assert_eq!(fonts.number("F7"), 7);
    }

    #[test]
    fn long_names_are_kept_to_their_first_bytes() {
        let mut fonts = Fonts::default();
        let long = "é".repeat(1_000);
        let n = fonts.number(&long);
        assert_eq!(fonts.number(&"é".repeat(500)), n);
        assert!(fonts.numbers.keys().all(|k| k.len() <= MAX_NAME));
    }
}
