//! The glyphs of a page as the layout reads them: each in its text
//! direction's frame, where it stands and how large it is set; their
//! baselines, the spaces between words, and the ends the reader could not
//! tell. A direction whose lines read backwards is turned round here,
//! before any line is made.

use pdf_oxide::layout::TextChar;

/// Baselines this close (in font sizes) are one line from the start.
pub(super) const SAME_BASELINE: f32 = 0.2;

/// A gap wider than this (in font sizes) is a space between words.
pub(super) const WORD_GAP: f32 = 0.1;

/// The advance taken for a glyph whose advance is unknown, at most (in
/// font sizes): about the widest letter's.
pub(super) const UNKNOWN_ADVANCE: f32 = 1.0;

/// The least evidence (commas that begin a word, parentheses the wrong way
/// round), and at least twice the evidence the other way, for a
/// direction's lines to be read backwards.
pub(super) const REVERSED_MIN_EVIDENCE: usize = 3;

/// The character of every white-space glyph.
pub(crate) const SPACE: char = ' ';
/// The least share of a glyph's scale that must lie along the page's x
/// axis for the reader's advance (measured along x) to be stretched back
/// along the text; below it the glyph is turned a quarter and its
/// advance is unknown.
const MIN_ALONG_X: f32 = 1e-3;
/// The widest advance (in font sizes) taken from the reader: a wider one
/// is a measuring error, and the glyph gets [`DEFAULT_ADVANCE`].
const MAX_ADVANCE: f32 = 4.0;
/// The advance (in font sizes) of a glyph the reader gave none for: about
/// an average letter's.
const DEFAULT_ADVANCE: f32 = 0.5;
/// How far (in font sizes) a character may stand outside the page's
/// visible box and still be read: a glyph's origin sits on its baseline,
/// its ink around it.
const VISIBLE_SLACK: f32 = 0.5;
/// The glyphs of a line whose baseline is the line's: those at least this
/// share of its largest size (a drop cap or a superscript in a smaller
/// size does not move it).
const LARGEST_GLYPHS: f32 = 0.95;

/// One glyph in its text direction's frame: `u` along the line, `v` down
/// the page, across the lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Glyph {
    /// The character.
    pub ch: char,
    /// Where it starts along the line.
    pub u: f32,
    /// Where it ends along the line (where the next glyph would start);
    /// NaN where the reader could not tell.
    pub end: f32,
    /// Its baseline, measured down the page.
    pub v: f32,
    /// Its font size.
    pub size: f32,
    /// The text direction in quarter turns counter-clockwise (0 to 3).
    pub quarter: u8,
    /// Its font, as a number the page's reader gave it (glyphs of one
    /// font share it).
    pub font: u16,
}

impl Glyph {
    /// The glyph of a character the reader found, in the frame of its
    /// direction; `None` for a character without a usable position or
    /// size. White space is a [`SPACE`] glyph: words are read from the
    /// gaps, but a space the reader saw marks where the glyph before it
    /// ends when its advance is unknown.
    pub(crate) fn of(c: &TextChar, font: u16) -> Option<Glyph> {
        if c.char.is_control() && !c.char.is_whitespace() {
            return None;
        }
        let ch = if c.char.is_whitespace() { SPACE } else { c.char };
        let (x, y) = (c.origin_x, c.origin_y);
        let size = [c.font_size, c.bbox.height].into_iter().find(|s| s.is_finite() && *s > 0.0)?;
        if !x.is_finite() || !y.is_finite() {
            return None;
        }
        let rotation = if c.rotation_degrees.is_finite() { c.rotation_degrees } else { 0.0 };
        let quarter = (rotation / 90.0).round().rem_euclid(4.0) as u8;
        // The glyph's own advance: the reader's rendered advance adds
        // character and word spacing that the page does not always apply.
        // The reader measures advances along the page's x axis: text turned
        // by the angle of its matrix needs them stretched back along the
        // text, and turned a quarter (no x component left) they are unknown
        // until the next glyph's position tells (`fill_unknown_ends`).
        let stretch = match c.matrix {
            Some([a, b, ..]) if a.abs() > MIN_ALONG_X * a.hypot(b) => a.hypot(b) / a.abs(),
            Some(_) => f32::NAN,
            None => 1.0,
        };
        let advance = [c.advance_width, c.bbox.width]
            .into_iter()
            .map(|a| a * stretch)
            .find(|a| a.is_finite() && *a > 0.0 && *a < size * MAX_ADVANCE)
            .unwrap_or(if stretch.is_nan() { f32::NAN } else { size * DEFAULT_ADVANCE });
        // The frame turned with the text: u along it, v down across it.
        let (u, v) = match quarter {
            0 => (x, -y),
            1 => (y, x),
            2 => (-x, y),
            _ => (-y, -x),
        };
        Some(Glyph { ch, u, end: u + advance, v, size, quarter, font })
    }
}

/// Whether a character stands on the part of the page a reader sees
/// (`visible`: the lower-left and upper-right corners), give or take
/// half its size: text set outside it (a slide's hidden sidebar, a
/// printer's marks) is not read.
pub(crate) fn within(c: &TextChar, visible: (f32, f32, f32, f32)) -> bool {
    let (left, bottom, right, top) = visible;
    let slack = if c.font_size.is_finite() { c.font_size.abs() * VISIBLE_SLACK } else { 0.0 };
    (left - slack..=right + slack).contains(&c.origin_x) && (bottom - slack..=top + slack).contains(&c.origin_y)
}

/// The font size most of a line's glyphs are set in (the median: line
/// numbers, superscripts and footnote marks in a smaller size move it
/// little).
pub(super) fn typical_size(glyphs: &[Glyph]) -> f32 {
    let mut sizes: Vec<f32> = glyphs.iter().map(|g| g.size).collect();
    let middle = sizes.len() / 2;
    *sizes.select_nth_unstable_by(middle, f32::total_cmp).1
}

/// The baseline of a line: that of its largest glyphs.
pub(super) fn baseline(glyphs: &[Glyph]) -> f32 {
    let largest = glyphs.iter().map(|g| g.size).fold(0.0f32, f32::max);
    glyphs.iter().find(|g| g.size >= largest * LARGEST_GLYPHS).map_or(glyphs[0].v, |g| g.v)
}

/// Glyphs (sorted by baseline) in runs on one baseline (each within
/// [`SAME_BASELINE`] of the run's first), each sorted along the line.
pub(super) fn baseline_runs(glyphs: &[Glyph]) -> impl Iterator<Item = Vec<Glyph>> + '_ {
    let mut start = 0;
    (1..=glyphs.len()).filter_map(move |i| {
        let ends = i == glyphs.len() || {
            let (first, g) = (&glyphs[start], &glyphs[i]);
            (g.v - first.v).abs() > SAME_BASELINE * first.size.max(g.size)
        };
        if !ends {
            return None;
        }
        let mut run = glyphs[start..i].to_vec();
        run.sort_by(|a, b| a.u.total_cmp(&b.u));
        start = i;
        Some(run)
    })
}

/// Ends the glyphs whose end the reader could not tell where the next
/// glyph on the same baseline starts, but no farther than
/// [`UNKNOWN_ADVANCE`] of the size (so a gap wider than that still reads
/// as a space). `glyphs` are sorted by direction, baseline, then along the
/// line.
pub(super) fn fill_unknown_ends(glyphs: &mut [Glyph]) {
    for i in 0..glyphs.len() {
        if !glyphs[i].end.is_nan() {
            continue;
        }
        let g = glyphs[i];
        let most = g.u + UNKNOWN_ADVANCE * g.size;
        let next = glyphs.get(i + 1).filter(|n| n.quarter == g.quarter && (n.v - g.v).abs() <= SAME_BASELINE * g.size);
        glyphs[i].end = next.map_or(most, |n| n.u.clamp(g.u, most));
    }
}

/// Turns half round the glyphs turned a quarter whose lines read
/// backwards: where commas, semicolons and colons mostly begin words
/// instead of ending them (`,dna`), and closing parentheses begin them
/// (`)c`). A direction taken from the reader's text matrix is upside down
/// on pages whose drawing flips an axis (text turned a quarter in a
/// browser's print). Stops are no evidence (`.tex`, `.NET` begin with
/// one), and upright text is left as it is: a mistake there would turn a
/// page. A word ends at a [`SPACE`] glyph or at a gap wider than
/// [`WORD_GAP`] after a glyph whose end is known. `glyphs` are sorted by
/// direction, baseline, then along the line, spaces among them; whether
/// any were turned (and need sorting again).
pub(super) fn turn_reversed_directions(glyphs: &mut [Glyph]) -> bool {
    // Both directions judged first: turning one moves it into the other.
    let backwards: Vec<std::ops::Range<usize>> = [1u8, 3]
        .into_iter()
        .map(|quarter| {
            glyphs.partition_point(|g| g.quarter < quarter)..glyphs.partition_point(|g| g.quarter <= quarter)
        })
        .filter(|range| reads_backwards(&glyphs[range.clone()]))
        .collect();
    for range in &backwards {
        for g in &mut glyphs[range.clone()] {
            // The glyph starts at its origin, which the wrong frame put
            // at `-u`, and keeps its advance.
            let advance = g.end - g.u;
            g.u = -g.u;
            g.end = g.u + advance;
            g.v = -g.v;
            g.quarter = (g.quarter + 2) % 4;
        }
    }
    !backwards.is_empty()
}

/// Whether the lines of `glyphs` (one direction, sorted by baseline then
/// along the line, spaces among them) read backwards (see
/// [`turn_reversed_directions`]).
pub(super) fn reads_backwards(glyphs: &[Glyph]) -> bool {
    let (mut forward, mut backward) = (0usize, 0usize);
    // The last two glyphs that are not spaces, each with whether a word
    // boundary comes after it.
    let mut last: [Option<(&Glyph, bool)>; 2] = [None, None];
    for g in glyphs {
        if g.ch == SPACE {
            if let Some((_, boundary)) = &mut last[1] {
                *boundary = true;
            }
            continue;
        }
        // A new line forgets the last one.
        if last[1].is_some_and(|(p, _)| (g.v - p.v).abs() > SAME_BASELINE * p.size) {
            last = [None, None];
        }
        if let Some((p, boundary)) = &mut last[1]
            && p.end.is_finite()
            && g.u - p.end > WORD_GAP * p.size
        {
            *boundary = true;
        }
        if let [Some((a, a_ends)), Some((b, b_ends))] = last {
            // `b` ends the word `a` is in, or begins the one `g` is in.
            let ends_word = a.ch.is_alphanumeric() && !a_ends && b_ends;
            let begins_word = g.ch.is_alphanumeric() && a_ends && !b_ends;
            match b.ch {
                ',' | ';' | ':' | ')' if ends_word => forward += 1,
                ',' | ';' | ':' | ')' if begins_word => backward += 1,
                '(' if begins_word => forward += 1,
                '(' if ends_word => backward += 1,
                _ => {}
            }
        }
        last = [last[1], Some((g, false))];
    }
    backward >= REVERSED_MIN_EVIDENCE && backward > 2 * forward
}
