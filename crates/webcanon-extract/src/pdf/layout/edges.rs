//! The edges of justified columns: where many lines of prose end at one
//! place (a right edge) or begin at one (a left edge, or a paragraph's
//! indent).
//!
//! Nothing of a column reaches past its right edge, so text that stands
//! on a line just beyond it, with more room between than a space, is
//! outside the column: a note in the margin ("New feature" beside a
//! paragraph), or the next column across a narrow gutter. Such a gap can
//! be narrower than the gap that cuts a line anywhere ([`super::PIECE_GAP`])
//! and still part the line.
//!
//! A line that runs from a left edge to the right edge of its column is a
//! full line of justified text: however wide its spaces (a short line
//! before a long word, stretched), they are spaces, not gaps between
//! columns ([`super::justified`]).

use super::glyphs::{Glyph, baseline_runs};

/// A gap wider than this (in font sizes) that begins at a column's edge
/// parts a line: wider than the spaces of justified text, narrower than a
/// margin note's distance from the text (about one size) or a narrow
/// gutter.
pub(super) const EDGE_GAP: f32 = 0.8;
/// How many times the usual space between a line's words a gap at an edge
/// must be to part the line: a margin note stands 2.3 to 4 spaces off in
/// the benchmark PDFs, a wide space after a stop in a loose line 1.8.
const EDGE_SPACES: f32 = 2.0;
/// The shortest line of prose (in font sizes) whose end counts towards an
/// edge: shorter runs (a table's right-aligned numbers) make none.
pub(super) const PROSE_LINE: f32 = 15.0;
/// The fewest lines of prose that end at one place for it to be an edge.
const MIN_EDGE_LINES: usize = 6;
/// How close (in points of the page) line ends must be to be at one
/// place: justified lines end at the same point to a hundredth.
const EDGE_TOLERANCE: f32 = 0.5;
/// How far (in font sizes) past an edge a line may end and still end at
/// it: punctuation set into the margin (a hyphen, a stop) for an even edge.
const PROTRUSION: f32 = 0.3;
/// How far (in font sizes) inside a left edge a paragraph's first line
/// may begin: its indent (TeX sets one to two sizes, a word processor
/// half an inch, three sizes at 12 points).
const PARAGRAPH_INDENT: f32 = 3.0;

/// Whether a run of glyphs ends in dot leaders (a table of contents'
/// line, its page number to come after a gap): leaders end at one place
/// line after line, but not at a column's edge.
fn ends_in_leaders(run: &[Glyph]) -> bool {
    run.len() >= 2 && run[run.len() - 2..].iter().all(|g| g.ch == '.')
}

/// The edges of a page's justified columns, in one text direction.
#[derive(Debug, Default)]
pub(super) struct Edges {
    /// Where lines of prose end (right edges), in order.
    right: Vec<f32>,
    /// Where lines of prose begin (left edges, and the indents of first
    /// lines), in order.
    left: Vec<f32>,
}

impl Edges {
    /// The edges of `glyphs` (one direction, sorted by baseline then
    /// along the line): the places where at least [`MIN_EDGE_LINES`] runs
    /// of at least [`PROSE_LINE`] sizes end (right edges; a run that ends
    /// in dot leaders counts for none) or begin (left edges), a run being
    /// a line's glyphs up to a gap wider than [`EDGE_GAP`].
    pub(super) fn of(glyphs: &[Glyph]) -> Edges {
        let (mut ends, mut starts) = (Vec::new(), Vec::new());
        for line in baseline_runs(glyphs) {
            let mut from = 0;
            let mut reach = line[0].end;
            for k in 1..=line.len() {
                if k < line.len() && line[k].u - reach <= EDGE_GAP * line[k].size {
                    reach = reach.max(line[k].end);
                    continue;
                }
                let run = &line[from..k];
                if reach - run[0].u >= PROSE_LINE * run[0].size {
                    starts.push(run[0].u);
                    if !ends_in_leaders(run) {
                        ends.push(reach);
                    }
                }
                if k < line.len() {
                    (from, reach) = (k, line[k].end);
                }
            }
        }
        Edges { right: shared_places(ends), left: shared_places(starts) }
    }

    /// Whether there are any right edges.
    pub(super) fn has_any(&self) -> bool {
        !self.right.is_empty()
    }

    /// Whether a line from `start` to `end` (at `size`) is a full line of
    /// a justified column: it begins at a left edge (or a paragraph's
    /// indent inside one) and ends at a right one, with no right edge
    /// between (the gutter of two columns side by side).
    pub(super) fn spans_column(&self, start: f32, end: f32, size: f32) -> bool {
        let slack = EDGE_TOLERANCE + PROTRUSION * size;
        near(&self.left, start - slack - PARAGRAPH_INDENT * size, start + EDGE_TOLERANCE)
            && near(&self.right, end - slack, end + EDGE_TOLERANCE)
            && !near(&self.right, start + size, end - size)
    }

    /// Whether a gap, after text that reaches `end`, parts a line: `end`
    /// is at an edge, and the gap is wider than [`EDGE_GAP`] times `size`
    /// and [`EDGE_SPACES`] times the line's usual space between words
    /// (`spacing`), so that a wide space after a stop in a loose line that
    /// happens to end at an edge is still a space.
    pub(super) fn parts(&self, end: f32, gap: f32, size: f32, spacing: f32) -> bool {
        gap > EDGE_GAP * size && gap > EDGE_SPACES * spacing && self.at_right(end, size)
    }

    /// Whether text that reaches `end` (at `size`) ends at a right edge.
    pub(super) fn at_right(&self, end: f32, size: f32) -> bool {
        near(&self.right, end - EDGE_TOLERANCE - PROTRUSION * size, end + EDGE_TOLERANCE)
    }
}

/// The places (in order) where at least [`MIN_EDGE_LINES`] of `places`
/// are, to [`EDGE_TOLERANCE`].
fn shared_places(mut places: Vec<f32>) -> Vec<f32> {
    places.retain(|p| p.is_finite());
    places.sort_by(f32::total_cmp);
    let mut shared = Vec::new();
    let mut from = 0;
    while from < places.len() {
        let to = places[from..].partition_point(|&p| p <= places[from] + EDGE_TOLERANCE) + from;
        if to - from >= MIN_EDGE_LINES {
            shared.push(places[from]);
            from = to;
        } else {
            from += 1;
        }
    }
    shared
}

/// Whether one of `places` (in order) is within `low..=high`.
fn near(places: &[f32], low: f32, high: f32) -> bool {
    let k = places.partition_point(|&p| p < low);
    places.get(k).is_some_and(|&p| p <= high)
}

#[cfg(test)]
mod tests {
    use super::super::Glyph;
    use super::super::tests::{page_text, set};

    /// `words` set at size 10 from `u` on baseline `v`, each letter 5
    /// wide, `space` between words.
    fn spaced(words: &[&str], u: f32, v: f32, space: f32) -> Vec<Glyph> {
        let mut at = u;
        let mut out = Vec::new();
        for word in words {
            for ch in word.chars() {
                out.push(Glyph { ch, u: at, end: at + 5.0, v, size: 10.0, quarter: 0, font: 0 });
                at += 5.0;
            }
            at += space;
        }
        out
    }

    /// Seven justified lines from 0, each ending at 160 (16 sizes): a
    /// column whose right edge is at 160.
    fn column() -> Vec<Glyph> {
        let words = ["aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff", "gggg"];
        (0..7).flat_map(|i| set(&words.join(" "), 0.0, 100.0 + 12.0 * i as f32, 10.0)).collect()
    }

    #[test]
    fn a_note_in_the_margin_is_read_apart_from_the_lines_beside_it() {
        // Eleven units off the edge (a margin note's usual distance),
        // smaller: narrower than the gap that cuts a line anywhere.
        let mut glyphs = column();
        glyphs.extend(set("New", 171.0, 112.0, 8.0));
        glyphs.extend(set("feature", 171.0, 124.0, 8.0));
        let text = page_text(glyphs);
        assert!(text.lines().all(|l| !l.contains("gggg New") && !l.contains("gggg feature")), "{text}");
        assert!(text.contains("New\nfeature") || text.contains("New feature"), "{text}");
    }

    #[test]
    fn a_wide_space_at_an_edge_in_a_loose_line_is_still_a_space() {
        // A line across the column's edge, its words 5 apart; `gggg` ends
        // at the edge and the next word is 9 past it: wider than 0.8
        // sizes, narrower than two of the line's spaces.
        let mut glyphs = column();
        let words = ["aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff", "gggg"];
        glyphs.extend(spaced(&words, -10.0, 200.0, 5.0));
        glyphs.extend(spaced(&["more", "words", "here"], 169.0, 200.0, 5.0));
        let text = page_text(glyphs);
        assert!(text.contains("gggg more words here"), "{text}");
    }

    #[test]
    fn a_justified_line_stretched_loose_stays_one_line() {
        // The column's edges are 0 and 160; a line of four words spread
        // across it, each space 80/3 wide (over 1.5 sizes): one line. A
        // table's row across the column, narrow spaces in its cells and
        // one wide gap between them: two cells.
        // Both in a proportional font (font 2, letters 4 and 6 wide).
        let proportional = |glyphs: Vec<Glyph>| -> Vec<Glyph> {
            let mut at = glyphs[0].u;
            let mut out = Vec::new();
            for (i, g) in glyphs.iter().enumerate() {
                if i > 0 && g.u > glyphs[i - 1].end + 0.5 {
                    at += g.u - glyphs[i - 1].end;
                }
                let width = if i % 2 == 0 { 4.0 } else { 6.0 };
                out.push(Glyph { u: at, end: at + width, font: 2, ..*g });
                at += width;
            }
            out
        };
        let mut glyphs = column();
        glyphs.extend(proportional(spaced(&["wwww", "xxxx", "yyyy", "zzzz"], 0.0, 200.0, 80.0 / 3.0)));
        glyphs.extend(proportional(spaced(&["pp", "qq", "rr"], 0.0, 230.0, 3.0)));
        glyphs.extend(proportional(spaced(&["ss", "tt", "uu"], 160.0 - 36.0, 230.0, 3.0)));
        let text = page_text(glyphs);
        assert!(text.contains("wwww xxxx yyyy zzzz"), "{text}");
        assert!(!text.contains("rr ss"), "{text}");
    }

    #[test]
    fn an_indented_stretched_line_beside_the_other_column_stays_one_line() {
        // Two columns, 0..160 and 200..360. On one baseline, an equation's
        // number ending the left column, and the first line of a right
        // column's paragraph, indented 5 and stretched: its spaces (25)
        // are wider than the gutter is than two of them (45 < 50), so
        // only the edge tells the gutter from a space.
        let mut glyphs = column();
        glyphs.extend(column().into_iter().map(|g| Glyph { u: g.u + 200.0, end: g.end + 200.0, ..g }));
        glyphs.extend(set("(3)", 145.0, 200.0, 10.0));
        let mut at = 205.0;
        for word in ["wwww", "xxxx", "yyyy", "zzzz"] {
            for (i, ch) in word.chars().enumerate() {
                let width = if i % 2 == 0 { 4.0 } else { 6.0 };
                glyphs.push(Glyph { ch, u: at, end: at + width, v: 200.0, size: 10.0, quarter: 0, font: 2 });
                at += width;
            }
            at += 25.0;
        }
        let text = page_text(glyphs);
        assert!(text.contains("wwww xxxx yyyy zzzz"), "{text}");
        assert!(!text.contains("(3) wwww"), "{text}");
    }

    #[test]
    fn dot_leaders_that_end_at_one_place_make_no_edge() {
        // A table of contents: titles with leaders to 160, page numbers
        // right after them (a gap of 9, under the cut anywhere).
        let mut glyphs = Vec::new();
        for i in 0..7 {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(set("Chapter title . . . . . . . . . . .", 0.0, v, 10.0));
            glyphs.extend(set(&format!("{}", 10 + i), 169.0, v, 10.0));
        }
        let text = page_text(glyphs);
        assert!(text.contains(". . . 10") && text.contains(". . . 16"), "{text}");
    }
}
