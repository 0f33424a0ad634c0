//! Reading order from where the glyphs are:
//!
//! 1. glyphs into lines by their baselines; a superscript, a subscript or a
//!    lowered letter (the E of the TeX logo) joins the line it sits on;
//! 2. each line cut at a wide gap into pieces (columns, table cells), but
//!    not where the gap is the padding of a line of monospaced text (code
//!    or a listing aligned with spaces, read across), and at a narrower
//!    one that begins at the right edge of a justified column (a note in
//!    the margin, a narrow gutter: [`edges`]), and the glyphs of a
//!    piece into words at the gaps between them (in monospaced text, a gap
//!    of several characters kept as that many spaces); a listing's line
//!    numbers joined to the code they number ([`listing`]), and the
//!    number, title and page number of an entry of a table of contents to
//!    each other ([`entries`]);
//! 3. pieces stacked into blocks: a piece joins the block whose last line
//!    is just above it, whose width it shares (give or take a little) and
//!    whose lines are set in its size;
//! 4. blocks in the order a reader takes them, by recursive cuts: the
//!    page split into bands where a line across it meets no block (a
//!    running head, a heading or a figure across the columns, the
//!    columns' run between them), each band split into columns where a
//!    line down it meets no block, and so on, bands top to bottom and
//!    columns left to right;
//! 5. the lines of a block into paragraphs: a line that stops well short of
//!    the block's right edge ends one, an indented line, a list item or a
//!    line of dot leaders starts one; a block of monospaced lines (with
//!    the blocks of the same code below it, across a blank line or two)
//!    is one paragraph of code, its lines kept as they were set.
//!
//! Text in another direction (a rotated table, a margin note) is read the
//! same way in its own frame, after the page's main direction. The reader
//! cannot tell the advances of text turned a quarter: the advances its
//! font showed upright ([`super::fonts`]) and the spaces the reader saw
//! mark where its glyphs end, and a turned direction whose lines read
//! backwards (punctuation the wrong way round) is turned half round.
//!
//! Every step is linear or `n log n` in the glyphs of the page, but for the
//! block order, which is quadratic in the blocks at worst: a page of more
//! than [`MAX_ORDERED_BLOCKS`] blocks (no real page has that many; a
//! hostile one might) keeps its blocks top to bottom, left to right.

use pdf_oxide::layout::TextChar;

use super::fonts::OTHER_FONTS;
use edges::Edges;

mod edges;
mod entries;
mod listing;
mod table;

/// The most blocks a page may have for the order by cuts (quadratic in
/// the blocks at worst); past it, blocks go top to bottom, left to right.
pub(super) const MAX_ORDERED_BLOCKS: usize = 2_000;

/// The character of every white-space glyph.
pub(super) const SPACE: char = ' ';

/// The most blocks kept open for lines to join while a page is read top to
/// bottom (a line compares itself with each open block).
const MAX_OPEN_BLOCKS: usize = 64;

/// Baselines this close (in font sizes) are one line from the start.
const SAME_BASELINE: f32 = 0.2;
/// A shorter line this close to a longer one (in the longer one's font
/// size), within its width, is a superscript, subscript or lowered letter
/// of it.
const RAISED_OR_LOWERED: f32 = 0.6;
/// A run of glyphs smaller than this (times a line's size) near the line's
/// baseline may be its superscripts or subscripts.
const SCRIPT_SIZE: f32 = 0.9;
/// The longest stretch of superscript or subscript (in the line's sizes)
/// that bridges a gap in the line.
const SCRIPT_WIDTH: f32 = 5.0;
/// The widest gap (in the script's sizes) inside one stretch of it.
const SCRIPT_GAP: f32 = 0.5;
/// How far (in the line's sizes) from the end of a glyph a script set
/// after it begins.
const SCRIPT_ATTACHED: f32 = 0.5;
/// How much smaller than the code (as a share of its size) a listing's
/// line numbers are set for one to part a line ([`numbers_line`]).
const LINE_NUMBER_SIZE: f32 = 0.9;
/// The fewest terms a definition list has ([`terms_beside`]).
const MIN_TERMS: usize = 2;
/// How many fragments of lines either side (in the order of their
/// baselines) are looked at for the line a superscript or subscript
/// belongs to.
const NEIGHBOUR_FRAGMENTS: usize = 24;
/// A gap wider than this (in font sizes) cuts a line into pieces.
const PIECE_GAP: f32 = 1.5;
/// A gap wider than this (in font sizes) is a space between words.
const WORD_GAP: f32 = 0.1;
/// Where the font size changes, a gap wider than this (in font sizes) is
/// one too.
const RESIZED_WORD_GAP: f32 = 0.03;
/// The advance taken for a glyph whose advance is unknown, at most (in
/// font sizes): about the widest letter's.
const UNKNOWN_ADVANCE: f32 = 1.0;
/// The least evidence (commas that begin a word, parentheses the wrong way
/// round), and at least twice the evidence the other way, for a
/// direction's lines to be read backwards.
const REVERSED_MIN_EVIDENCE: usize = 3;
/// The fewest glyphs a font shows on a page to be known as monospaced.
const MONOSPACED_MIN_GLYPHS: usize = 8;
/// How far (in characters) a gap in monospaced text may be from a whole
/// number of characters and still be padding: typesetters place padding
/// on the character grid to a hundredth; a column's gutter lands there
/// only by chance.
const PADDING_TOLERANCE: f32 = 0.02;
/// The share of a font's glyphs that must be one width for it to be
/// monospaced (a few may be drawn squeezed or stretched).
const MONOSPACED_SHARE: f32 = 0.9;
/// The farthest (in font sizes) one baseline may be below the one above
/// for both lines to be in one block.
const BLOCK_LINE_PITCH: f32 = 1.6;
/// How far (in font sizes) a line may stand left or right of a block and
/// still join it.
const BLOCK_SLACK: f32 = 0.3;
/// How much (as a fraction) the font sizes of the lines of a block may
/// differ: a heading in a larger size is a block of its own.
const BLOCK_SIZE_DIFFERENCE: f32 = 0.05;
/// How much wider than a line's usual space its widest may be for the line
/// to be read as justified text rather than cut at wide gaps.
const STRETCH_EVENNESS: f32 = 1.3;
/// The fewest spaces a line has for their evenness to tell it justified.
const STRETCHED_SPACES: usize = 3;
/// The most spaces one gap in monospaced text is kept as (padding, a line
/// number's distance from its code): a line's text is at most this many
/// times its glyphs.
const MAX_PADDING: usize = 40;
/// The most digits a line number has.
const MAX_LABEL_DIGITS: usize = 6;

/// One glyph in its text direction's frame: `u` along the line, `v` down
/// the page, across the lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Glyph {
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
    pub(super) fn of(c: &TextChar, font: u16) -> Option<Glyph> {
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
            Some([a, b, ..]) if a.abs() > 1e-3 * a.hypot(b) => a.hypot(b) / a.abs(),
            Some(_) => f32::NAN,
            None => 1.0,
        };
        let advance = [c.advance_width, c.bbox.width]
            .into_iter()
            .map(|a| a * stretch)
            .find(|a| a.is_finite() && *a > 0.0 && *a < size * 4.0)
            .unwrap_or(if stretch.is_nan() { f32::NAN } else { size * 0.5 });
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
pub(super) fn within(c: &TextChar, visible: (f32, f32, f32, f32)) -> bool {
    let (left, bottom, right, top) = visible;
    let slack = if c.font_size.is_finite() { c.font_size.abs() * 0.5 } else { 0.0 };
    (left - slack..=right + slack).contains(&c.origin_x) && (bottom - slack..=top + slack).contains(&c.origin_y)
}

/// A line, or the piece of one between wide gaps: its words, where it
/// starts and ends, its baseline and font size.
#[derive(Debug, Clone, PartialEq)]
struct Piece {
    text: String,
    u0: f32,
    u1: f32,
    v: f32,
    /// The size most of its glyphs are set in (after its line number, if
    /// it begins with one).
    size: f32,
    /// The advance of its monospaced font: set in one (code, a listing),
    /// not counting a line number it begins with.
    advance: Option<f32>,
    /// The line number it begins with ([`Label`]); once the listings are
    /// found ([`listing::number_lines`]), only a listing's line has one.
    label: Option<u32>,
}

impl Piece {
    /// Appends `other` (the next piece on its line), `spaces` apart.
    fn append(&mut self, other: &Piece, spaces: usize) {
        self.text.extend(std::iter::repeat_n(' ', spaces));
        self.text.push_str(&other.text);
        self.u1 = self.u1.max(other.u1);
    }
}

/// The next piece on the line of `slots[k]` (pieces sorted by baseline
/// then along the line, those taken out `None`): the nearest to its right
/// on its baseline, among the [`NEIGHBOUR_FRAGMENTS`] either side.
fn next_on_line(slots: &[Option<Piece>], k: usize) -> Option<usize> {
    let piece = slots[k].as_ref()?;
    let near = k.saturating_sub(NEIGHBOUR_FRAGMENTS)..(k + NEIGHBOUR_FRAGMENTS + 1).min(slots.len());
    let right = near.filter_map(|j| Some((j, slots[j].as_ref()?))).filter(|&(j, p)| {
        j != k && (p.v - piece.v).abs() <= SAME_BASELINE * p.size.max(piece.size) && p.u0 >= piece.u1
    });
    right.min_by(|a, b| a.1.u0.total_cmp(&b.1.u0)).map(|(j, _)| j)
}

/// A number that begins a line, set in a font or size of its own (or
/// alone on it): a listing's line number, if the lines above and below
/// are numbered on ([`listing::number_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Label {
    /// Its value.
    number: u32,
    /// How many glyphs it is.
    glyphs: usize,
}

impl Label {
    /// The label `glyphs` (sorted along the line) begin with, if any: one
    /// to [`MAX_LABEL_DIGITS`] digits of one font and size, then a
    /// glyph in another font or size.
    fn of(glyphs: &[Glyph]) -> Option<Label> {
        let first = glyphs.first()?;
        let same = |g: &Glyph| g.font == first.font && (g.size - first.size).abs() <= 0.01 * first.size;
        let digits = glyphs.iter().take_while(|g| g.ch.is_ascii_digit() && same(g)).count();
        if digits == 0 || digits > MAX_LABEL_DIGITS || glyphs.get(digits).is_some_and(same) {
            return None;
        }
        let number = glyphs[..digits].iter().fold(0u32, |n, g| n * 10 + g.ch.to_digit(10).unwrap_or(0));
        Some(Label { number, glyphs: digits })
    }
}

/// Lines stacked one under the other: a column's run of text.
#[derive(Debug, Clone)]
struct Block {
    lines: Vec<Piece>,
    u0: f32,
    u1: f32,
    top: f32,
    bottom: f32,
    /// The rows of the table the block is ([`table::rows`]), its lines
    /// those of all its cells.
    rows: Option<Vec<Vec<table::Cell>>>,
}

impl Block {
    fn new(piece: Piece) -> Block {
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

    fn push(&mut self, piece: Piece) {
        self.u0 = self.u0.min(piece.u0);
        self.u1 = self.u1.max(piece.u1);
        self.top = self.top.min(piece.v - piece.size);
        self.bottom = self.bottom.max(piece.v + piece.size * 0.25);
        self.lines.push(piece);
    }

    fn last(&self) -> &Piece {
        self.lines.last().expect("a block has a line")
    }
}

/// How much of `[a0, a1]` and `[b0, b1]` is shared.
fn overlap(a0: f32, a1: f32, b0: f32, b1: f32) -> f32 {
    a1.min(b1) - a0.max(b0)
}

/// A paragraph of a page, its lines in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Paragraph {
    /// Running text: its lines are to be joined.
    Prose(Vec<String>),
    /// Monospaced lines (code, a listing): kept line for line, each
    /// indented as it was set, an empty line where the code has a blank
    /// one ([`listing::code_lines`]).
    Code(Vec<String>),
    /// A table's rows, each its cells, the first as set ([`table::rows`]).
    Table(Vec<Vec<table::Cell>>),
}

/// The paragraphs of one page in reading order.
pub(super) fn page_paragraphs(mut glyphs: Vec<Glyph>) -> Vec<Paragraph> {
    let by_frame = |a: &Glyph, b: &Glyph| a.quarter.cmp(&b.quarter).then(a.v.total_cmp(&b.v)).then(a.u.total_cmp(&b.u));
    glyphs.sort_by(by_frame);
    if turn_reversed_directions(&mut glyphs) {
        glyphs.sort_by(by_frame);
    }
    fill_unknown_ends(&mut glyphs);
    // Spaces have told where words end; the gaps tell from here on.
    glyphs.retain(|g| g.ch != SPACE);
    let monospaced = monospaced_fonts(&glyphs);
    // The main direction first: the one most glyphs are set in.
    let mut counts = [0usize; 4];
    for g in &glyphs {
        counts[g.quarter as usize] += 1;
    }
    let mut quarters: Vec<u8> = (0..4).filter(|&q| counts[q as usize] > 0).collect();
    quarters.sort_by_key(|&q| std::cmp::Reverse(counts[q as usize]));
    let mut out = Vec::new();
    for quarter in quarters {
        let start = glyphs.partition_point(|g| g.quarter < quarter);
        let end = glyphs.partition_point(|g| g.quarter <= quarter);
        let edges = Edges::of(&glyphs[start..end]);
        let pieces = pieces(&glyphs[start..end], &monospaced, &edges);
        let ordered = in_reading_order(blocks(pieces));
        let mut k = 0;
        while k < ordered.len() {
            if let Some(rows) = &ordered[k].rows {
                out.push(Paragraph::Table(rows.clone()));
                k += 1;
                continue;
            }
            let code = listing::code_run(&ordered[k..]);
            if code > 0 {
                out.push(Paragraph::Code(listing::code_lines(&ordered[k..k + code])));
                k += code;
                continue;
            }
            let prose = paragraphs(&ordered[k]).into_iter();
            out.extend(prose.map(|lines| Paragraph::Prose(lines.into_iter().map(str::to_string).collect())));
            k += 1;
        }
    }
    out
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
fn turn_reversed_directions(glyphs: &mut [Glyph]) -> bool {
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
fn reads_backwards(glyphs: &[Glyph]) -> bool {
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

/// Whether the gap from `reach` to `next` on a line at `size` is taken up
/// by the superscripts or subscripts set after the glyph that ends at
/// `reach` (`scripts`: the spans of the short runs of smaller glyphs just
/// above or below the line, sorted by start): `A` with `ml` over `1,39`
/// before `and` is one stretch of text, not two pieces.
fn bridged(scripts: &[(f32, f32)], reach: f32, next: f32, size: f32) -> bool {
    let attached = SCRIPT_ATTACHED * size;
    let from = scripts.partition_point(|&(u0, _)| u0 < reach - attached);
    let end =
        scripts[from..].iter().take_while(|&&(u0, _)| u0 <= reach + attached).map(|&(_, u1)| u1).fold(reach, f32::max);
    next - end <= PIECE_GAP * size
}

/// For each run of glyphs on one baseline (`runs`, in order of baseline),
/// the spans of its superscripts and subscripts, sorted by start: the
/// stretches (up to [`SCRIPT_GAP`] apart inside) of the runs within
/// [`RAISED_OR_LOWERED`] of its baseline, set smaller than
/// [`SCRIPT_SIZE`] times its size, and at most [`SCRIPT_WIDTH`] sizes
/// long. A line of small print across the page beside it bridges nothing.
fn script_spans(runs: &[Vec<Glyph>]) -> Vec<Vec<(f32, f32)>> {
    let facts: Vec<(f32, f32)> = runs.iter().map(|r| (baseline(r), typical_size(r))).collect();
    let mut stretches: Vec<Option<Vec<(f32, f32)>>> = vec![None; runs.len()];
    (0..runs.len())
        .map(|i| {
            let (v, size) = facts[i];
            let near = i.saturating_sub(NEIGHBOUR_FRAGMENTS)..(i + NEIGHBOUR_FRAGMENTS + 1).min(runs.len());
            let mut spans: Vec<(f32, f32)> = Vec::new();
            for j in near {
                let (script_v, script_size) = facts[j];
                if j == i || (script_v - v).abs() >= RAISED_OR_LOWERED * size || script_size >= SCRIPT_SIZE * size {
                    continue;
                }
                let stretches = stretches[j].get_or_insert_with(|| stretches_of(&runs[j]));
                spans.extend(stretches.iter().filter(|&&(u0, u1)| u1 - u0 <= SCRIPT_WIDTH * size));
            }
            spans.sort_by(|a, b| a.0.total_cmp(&b.0));
            spans
        })
        .collect()
}

/// The stretches of a run (its glyphs sorted along it) between gaps wider
/// than [`SCRIPT_GAP`] times their size: where each begins and ends.
fn stretches_of(run: &[Glyph]) -> Vec<(f32, f32)> {
    let mut out: Vec<(f32, f32)> = Vec::new();
    for g in run {
        match out.last_mut() {
            Some(last) if g.u - last.1 <= SCRIPT_GAP * g.size => last.1 = last.1.max(g.end),
            _ => out.push((g.u, g.end)),
        }
    }
    out
}

/// Where a line (its glyphs sorted along it) is cut into pieces: at a
/// gap that begins at the right edge of a justified column (one that
/// [`Edges::parts`] the line, or any gap wider than [`PIECE_GAP`] times
/// `size`, the line's typical size), and, within each stretch between
/// such gaps (a column's part of the line), at each gap wider than
/// [`PIECE_GAP`] times `size` that is not [`padded`] (`monospaced`: the
/// advance of each monospaced font, by font number), unless the stretch
/// is a [`justified`] line stretched loose.
fn cuts(row: &[Glyph], size: f32, monospaced: &[Option<f32>], edges: &Edges, scripts: &[(f32, f32)]) -> Vec<usize> {
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

/// Whether a line number begins at `row[k]`, after a word (not a digit) a
/// space before it: a [`Label`] set smaller than the monospaced code that
/// follows it, on its baseline (the name in a listing's margin, set on
/// the baseline of the line it names, and then the line's number and
/// code; not a footnote's mark, raised, nor a page number in an index's
/// list, after a comma).
fn numbers_line(row: &[Glyph], k: usize, monospaced: &[Option<f32>]) -> bool {
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
fn justified(row: &[Glyph], size: f32, spacing: f32, edges: &Edges, monospaced: &[Option<f32>]) -> bool {
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
fn word_spacing(row: &[Glyph], size: f32) -> Option<f32> {
    let mut gaps: Vec<f32> = row.windows(2).map(|w| w[1].u - w[0].end).filter(|&gap| gap > WORD_GAP * size).collect();
    if gaps.is_empty() {
        return None;
    }
    let middle = gaps.len() / 2;
    Some(*gaps.select_nth_unstable_by(middle, f32::total_cmp).1)
}

/// Whether the gap between `left` and `right` is the padding of a line of
/// monospaced text (code aligned with spaces): both glyphs in one
/// monospaced font and size, the gap a whole number of their advances.
fn padded(left: &Glyph, right: &Glyph, gap: f32, monospaced: &[Option<f32>]) -> bool {
    let Some(width) = monospaced_width(left, monospaced) else { return false };
    let advance = width * left.size;
    let fits = |g: &Glyph| ((g.end - g.u) - advance).abs() <= 0.01 * advance;
    if left.font != right.font || (left.size - right.size).abs() > 0.01 * left.size || !fits(left) || !fits(right) {
        return false;
    }
    let spaces = gap / advance;
    (spaces - spaces.round()).abs() < PADDING_TOLERANCE
}

/// The advance (per unit of font size) of each monospaced font of a page,
/// by font number: a font whose glyphs (letters among them) are nearly all
/// one width for their size. A font seen only in digits, which most fonts
/// set at one width, is not known to be.
fn monospaced_fonts(glyphs: &[Glyph]) -> Vec<Option<f32>> {
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
                while w[to] > w[from] * 1.01 {
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

/// Ends the glyphs whose end the reader could not tell where the next
/// glyph on the same baseline starts, but no farther than
/// [`UNKNOWN_ADVANCE`] of the size (so a gap wider than that still reads
/// as a space). `glyphs` are sorted by direction, baseline, then along the
/// line.
fn fill_unknown_ends(glyphs: &mut [Glyph]) {
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

/// The pieces of lines of glyphs of one direction, sorted by baseline
/// then along the line, the line numbers of listings joined to their
/// lines ([`listing::number_lines`]) and the parts of the entries of a
/// table of contents to each other ([`entries::join_entries`]).
fn pieces(glyphs: &[Glyph], monospaced: &[Option<f32>], edges: &Edges) -> Vec<Piece> {
    let mut out = Vec::new();
    for mut row in rows(glyphs, monospaced, edges) {
        compose_accents(&mut row);
        let size = typical_size(&row);
        let v = baseline(&row);
        let mut from = 0;
        for cut in cuts(&row, size, monospaced, edges, &[]).into_iter().chain([row.len()]) {
            out.push(piece(&row[from..cut], v, monospaced));
            from = cut;
        }
    }
    out.sort_by(|a, b| a.v.total_cmp(&b.v).then(a.u0.total_cmp(&b.u0)));
    entries::join_entries(listing::number_lines(out))
}

/// The piece of a line made of `glyphs` (sorted along the line, on
/// baseline `v`): words apart where the gaps are, the padding of
/// monospaced text kept as that many spaces (at most
/// [`MAX_PADDING`] for a gap), a leading line number (a [`Label`]) and
/// what follows it measured apart.
fn piece(glyphs: &[Glyph], v: f32, monospaced: &[Option<f32>]) -> Piece {
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
            let resized = (g.size - before.size).abs() > 0.05 * size;
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
fn guarded(body: &[Glyph], monospaced: &[Option<f32>]) -> Option<f32> {
    let prefix = body.iter().take_while(|g| monospaced_width(g, monospaced).is_none()).count();
    let mark = prefix > 0 && {
        let last = body[prefix - 1].ch;
        !last.is_alphanumeric() && !matches!(last, '.' | ',' | ';' | ':' | '!' | '?')
    };
    let code = &body[prefix..];
    (mark && code.len() >= prefix).then(|| monospaced_advance(code, monospaced)).flatten()
}

/// The advance (per unit of font size) of `g`'s font, when it is one of
/// the page's monospaced fonts (`monospaced`, by font number).
fn monospaced_width(g: &Glyph, monospaced: &[Option<f32>]) -> Option<f32> {
    monospaced.get(usize::from(g.font)).copied().flatten()
}

/// The advance of the monospaced font that nearly all of `glyphs` are set
/// in ([`MONOSPACED_SHARE`] of them), at their size; `None` for text in
/// proportional fonts.
fn monospaced_advance(glyphs: &[Glyph], monospaced: &[Option<f32>]) -> Option<f32> {
    shared_advance(glyphs.iter().map(|g| monospaced_width(g, monospaced).map(|w| w * g.size)))
}

/// The first of `advances` (each that of a glyph or line, `None` where it
/// is not monospaced) when [`MONOSPACED_SHARE`] of them are that one.
fn shared_advance(advances: impl Iterator<Item = Option<f32>> + Clone) -> Option<f32> {
    let first = advances.clone().flatten().next()?;
    let (mut alike, mut all) = (0usize, 0usize);
    for advance in advances {
        all += 1;
        alike += usize::from(advance.is_some_and(|a| (a - first).abs() <= 0.01 * first));
    }
    (alike as f32 >= MONOSPACED_SHARE * all as f32).then_some(first)
}

/// Accents set as glyphs of their own over (or under) a letter, as TeX
/// sets them (`\^o` is a circumflex drawn over an o), composed with the
/// letter: ô, not ˆo; over a dotless i, î. An accent is the letter's when
/// its middle is within the letter's width; one with no precomposed form
/// with its letter stays as it is. `row` is sorted along the line.
fn compose_accents(row: &mut Vec<Glyph>) {
    let mut absorbed = vec![false; row.len()];
    for i in 0..row.len() {
        let Some(mark) = combining_mark(row[i].ch) else { continue };
        let middle = (row[i].u + row[i].end) / 2.0;
        let base = [i + 1, i.wrapping_sub(1)].into_iter().find(|&j| {
            row.get(j).is_some_and(|b| !absorbed[j] && b.ch.is_alphabetic() && (b.u..=b.end).contains(&middle))
        });
        // TeX puts an accent on an i or a j without its dot (`\^{\i}`):
        // the accented letter is the dotted one's (î, ǰ).
        let letter = |c: char| match c {
            '\u{131}' => 'i',
            '\u{237}' => 'j',
            c => c,
        };
        if let Some(j) = base
            && let Some(composed) = unicode_normalization::char::compose(letter(row[j].ch), mark)
        {
            row[j].ch = composed;
            absorbed[i] = true;
        }
    }
    if absorbed.contains(&true) {
        let mut index = 0;
        row.retain(|_| {
            index += 1;
            !absorbed[index - 1]
        });
    }
}

/// The combining mark a spacing accent glyph stands for.
fn combining_mark(c: char) -> Option<char> {
    Some(match c {
        '`' | '\u{02cb}' => '\u{0300}',
        '\u{00b4}' | '\u{02ca}' => '\u{0301}',
        '\u{02c6}' => '\u{0302}',
        '\u{02dc}' => '\u{0303}',
        '\u{00af}' | '\u{02c9}' => '\u{0304}',
        '\u{02d8}' => '\u{0306}',
        '\u{02d9}' => '\u{0307}',
        '\u{00a8}' => '\u{0308}',
        '\u{02da}' => '\u{030a}',
        '\u{02dd}' => '\u{030b}',
        '\u{02c7}' => '\u{030c}',
        '\u{00b8}' => '\u{0327}',
        '\u{02db}' => '\u{0328}',
        '\u{0300}'..='\u{036f}' => c,
        _ => return None,
    })
}

/// Appends `c`, with the typographic ligatures (ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ)
/// spelled out as their letters.
fn push_char(text: &mut String, c: char) {
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

/// The font size most of a line's glyphs are set in (the median: line
/// numbers, superscripts and footnote marks in a smaller size move it
/// little).
fn typical_size(glyphs: &[Glyph]) -> f32 {
    let mut sizes: Vec<f32> = glyphs.iter().map(|g| g.size).collect();
    let middle = sizes.len() / 2;
    *sizes.select_nth_unstable_by(middle, f32::total_cmp).1
}

/// The baseline of a line: that of its largest glyphs.
fn baseline(glyphs: &[Glyph]) -> f32 {
    let largest = glyphs.iter().map(|g| g.size).fold(0.0f32, f32::max);
    glyphs.iter().find(|g| g.size >= largest * 0.95).map_or(glyphs[0].v, |g| g.v)
}

/// Glyphs (sorted by baseline) in runs on one baseline (each within
/// [`SAME_BASELINE`] of the run's first), each sorted along the line.
fn baseline_runs(glyphs: &[Glyph]) -> impl Iterator<Item = Vec<Glyph>> + '_ {
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

/// Glyphs (sorted by baseline) into lines: runs on one baseline, cut at
/// wide gaps into fragments (so that a column's fragment is not mistaken
/// for part of its neighbour's; a gap its superscripts and subscripts take
/// up is no cut, [`bridged`]), then each short fragment that sits just
/// above or below a longer one (or one as long, set larger), within its
/// width, joined to it.
fn rows(glyphs: &[Glyph], monospaced: &[Option<f32>], edges: &Edges) -> Vec<Vec<Glyph>> {
    let mut fragments: Vec<Vec<Glyph>> = Vec::new();
    let runs: Vec<Vec<Glyph>> = baseline_runs(glyphs).collect();
    for (run, scripts) in runs.iter().zip(script_spans(&runs)) {
        let mut from = 0;
        for cut in cuts(run, typical_size(run), monospaced, edges, &scripts) {
            fragments.push(run[from..cut].to_vec());
            from = cut;
        }
        fragments.push(run[from..].to_vec());
    }
    let facts: Vec<_> = fragments
        .iter()
        .map(|f| {
            let u0 = f.iter().map(|g| g.u).fold(f32::INFINITY, f32::min);
            let u1 = f.iter().map(|g| g.end).fold(f32::NEG_INFINITY, f32::max);
            (u0, u1, baseline(f), typical_size(f), f.len())
        })
        .collect();
    // Each fragment's line: itself, or the longer fragment it is a part of.
    let mut parent: Vec<usize> = (0..fragments.len()).collect();
    let mut by_length: Vec<usize> = (0..fragments.len()).collect();
    by_length.sort_by_key(|&i| facts[i].4);
    for &i in &by_length {
        let (u0, u1, v, size, count) = facts[i];
        let near = i.saturating_sub(NEIGHBOUR_FRAGMENTS)..(i + NEIGHBOUR_FRAGMENTS + 1).min(fragments.len());
        let host = near
            .filter(|&j| j != i)
            .filter(|&j| {
                let (hu0, hu1, hv, hsize, hcount) = facts[j];
                (hcount > count || (hcount == count && hsize > size))
                    && (v - hv).abs() < RAISED_OR_LOWERED * hsize
                    && size <= hsize * 1.5
                    && u0 >= hu0 - hsize
                    && (u1 <= hu1 + hsize || scripts_end(u0, u1, size, hu1, hsize))
            })
            .max_by(|&a, &b| facts[a].4.cmp(&facts[b].4).then(facts[a].3.total_cmp(&facts[b].3)));
        if let Some(j) = host {
            parent[i] = j;
        }
    }
    let root = |mut i: usize| {
        // Hosts are always longer, or as long and set larger: the chain ends.
        while parent[i] != i {
            i = parent[i];
        }
        i
    };
    // Each glyph with where it is read from: a line's own glyphs (and
    // accents over them) each at its place, a superscript or subscript
    // (set smaller) as one unit where it begins (over the subscript beside
    // it), so that `A` with `ml` over `1,39` reads `Aml1,39`, not the two
    // interleaved.
    let mut rows: Vec<Vec<(f32, f32, Glyph)>> = vec![Vec::new(); fragments.len()];
    for (i, fragment) in fragments.into_iter().enumerate() {
        let line = root(i);
        let (_, _, v, size, _) = facts[i];
        if line == i || size >= SCRIPT_SIZE * facts[line].3 {
            rows[line].extend(fragment.into_iter().map(|g| (g.u, g.v, g)));
            continue;
        }
        // The fragment's stretches ([`stretches_of`]) are its units: a
        // prescript (`³Γ⁺`) is one apart from the script after the letter.
        let units = stretches_of(&fragment);
        let longest = SCRIPT_WIDTH * facts[line].3;
        let mut unit = 0;
        for g in fragment {
            while unit + 1 < units.len() && units[unit].1 < g.u {
                unit += 1;
            }
            let (u0, u1) = units[unit];
            rows[line].push(if u1 - u0 <= longest { (u0, v, g) } else { (g.u, g.v, g) });
        }
    }
    rows.retain(|r| !r.is_empty());
    rows.into_iter()
        .map(|mut row| {
            // Stable: a unit's glyphs stay in their order along it.
            row.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            row.into_iter().map(|(_, _, g)| g).collect()
        })
        .collect()
}

/// Whether a fragment from `u0` to `u1` at `size` is the superscript or
/// subscript that ends a line reaching `end` at `line_size`: set smaller,
/// beginning where the line ends, and at most [`SCRIPT_WIDTH`] sizes long
/// (`x` then `max` below it, past the line's end).
fn scripts_end(u0: f32, u1: f32, size: f32, end: f32, line_size: f32) -> bool {
    size < SCRIPT_SIZE * line_size && u0 <= end + SCRIPT_ATTACHED * line_size && u1 - u0 <= SCRIPT_WIDTH * line_size
}

/// Pieces (sorted by baseline) stacked into blocks.
fn blocks(pieces: Vec<Piece>) -> Vec<Block> {
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

/// What is read next: a block, or a table made of the blocks of its
/// columns (left to right), with its rows.
enum Read {
    Block(usize),
    Table(Vec<Vec<usize>>, Vec<Vec<table::Cell>>),
}

/// Blocks in reading order (see the module's doc), the blocks of a table
/// made one.
fn in_reading_order(blocks: Vec<Block>) -> Vec<Block> {
    let mut ids: Vec<usize> = (0..blocks.len()).collect();
    let mut order = Vec::with_capacity(blocks.len());
    if blocks.len() > MAX_ORDERED_BLOCKS {
        ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top).then(blocks[a].u0.total_cmp(&blocks[b].u0)));
        order = ids.into_iter().map(Read::Block).collect();
    } else {
        cut(&mut ids, &blocks, &mut order);
    }
    let mut slots: Vec<Option<Block>> = blocks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(order.len());
    for read in order {
        match read {
            Read::Block(i) => out.extend(slots[i].take()),
            Read::Table(columns, rows) => {
                let mut parts = columns.into_iter().flatten().filter_map(|i| slots[i].take());
                let Some(mut table) = parts.next() else { continue };
                for part in parts {
                    part.lines.into_iter().for_each(|line| table.push(line));
                }
                table.rows = Some(rows);
                out.push(table);
            }
        }
    }
    out
}

/// Recursive cuts: `ids` split into bands one above the other where a
/// horizontal line between them crosses no block, each band read in turn;
/// a band that has no such line split into columns where a vertical line
/// crosses no block, read left to right; what cannot be split, top to
/// bottom. A horizontal line that only passes where the paragraphs of two
/// columns happen to end at one height (the gutter between the columns
/// goes on above and below it) is no cut, nor are the two around a row of
/// headings, one atop each column ([`lines_atop_columns`]). Columns that
/// are a definition list are read term by term ([`terms_beside`]), and
/// columns that begin a table row by row ([`table::rows`]). Each call
/// splits its blocks into smaller sets, so the recursion is at most as
/// deep as the blocks are many ([`MAX_ORDERED_BLOCKS`]).
fn cut(ids: &mut [usize], blocks: &[Block], order: &mut Vec<Read>) {
    if ids.len() <= 1 {
        order.extend(ids.iter().map(|&i| Read::Block(i)));
        return;
    }
    let mut parts = bands(ids, blocks, |b| (b.top, b.bottom));
    // Bands of running text that share a gutter are one band, and so is a
    // row of lines alone (the headings of two columns, side by side)
    // between two such bands, where all three share it. The rows of a
    // table, a line each, stay bands of their own.
    let running = |part: &std::ops::Range<usize>| ids[part.clone()].iter().any(|&i| blocks[i].lines.len() > 1);
    let gutters_of = |part: &std::ops::Range<usize>| gutters(&ids[part.clone()], blocks);
    let mut k = 1;
    while k < parts.len() {
        let (upper, lower) = (gutters_of(&parts[k - 1]), gutters_of(&parts[k]));
        let shared = shared_gutters(&upper, &lower);
        if running(&parts[k - 1]) && !shared.is_empty() {
            if running(&parts[k]) {
                parts[k - 1].end = parts[k].end;
                parts.remove(k);
                continue;
            }
            let through = match parts.get(k + 1) {
                Some(next) if running(next) => shared_gutters(&shared, &gutters_of(next)),
                _ => Vec::new(),
            };
            let part = |p: &std::ops::Range<usize>| &ids[p.clone()];
            if through.iter().any(|&gutter| {
                lines_atop_columns(part(&parts[k - 1]), part(&parts[k]), part(&parts[k + 1]), gutter, blocks)
            }) {
                parts[k - 1].end = parts[k + 1].end;
                parts.drain(k..=k + 1);
                continue;
            }
        }
        k += 1;
    }
    if parts.len() == 1 {
        // No band to cut off: columns, if a vertical line can part them.
        ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top));
        parts = bands(ids, blocks, |b| (b.u0, b.u1));
        if let [terms, descriptions] = parts.as_slice()
            && terms_beside(&ids[terms.clone()], &ids[descriptions.clone()], blocks)
        {
            // A definition list: each term, then what it defines.
            let first_baseline = |i: usize| blocks[i].lines[0].v;
            ids.sort_by(|&a, &b| {
                first_baseline(a).total_cmp(&first_baseline(b)).then(blocks[a].u0.total_cmp(&blocks[b].u0))
            });
            order.extend(ids.iter().map(|&i| Read::Block(i)));
            return;
        }
        if parts.len() > 1 {
            let columns: Vec<Vec<usize>> = parts.iter().map(|part| ids[part.clone()].to_vec()).collect();
            let cells: Vec<Vec<&Block>> = columns.iter().map(|c| c.iter().map(|&i| &blocks[i]).collect()).collect();
            if let Some((taken, rows)) = table::rows(&cells) {
                order.push(Read::Table(columns[..taken].to_vec(), rows));
                let rest = parts[taken - 1].end;
                if rest < ids.len() {
                    cut(&mut ids[rest..], blocks, order);
                }
                return;
            }
        }
    }
    if parts.len() > 1 {
        for part in parts {
            cut(&mut ids[part], blocks, order);
        }
        return;
    }
    ids.sort_by(|&a, &b| blocks[a].top.total_cmp(&blocks[b].top).then(blocks[a].u0.total_cmp(&blocks[b].u0)));
    order.extend(ids.iter().map(|&i| Read::Block(i)));
}

/// `ids` sorted by where each block starts on one axis and split where
/// a line across that axis meets no block: the ranges of the parts.
fn bands(ids: &mut [usize], blocks: &[Block], extent: fn(&Block) -> (f32, f32)) -> Vec<std::ops::Range<usize>> {
    ids.sort_by(|&a, &b| extent(&blocks[a]).0.total_cmp(&extent(&blocks[b]).0));
    let mut parts = Vec::new();
    let (mut from, mut reach) = (0, extent(&blocks[ids[0]]).1);
    for k in 1..ids.len() {
        let (start, end) = extent(&blocks[ids[k]]);
        if start > reach {
            parts.push(from..k);
            from = k;
        }
        reach = reach.max(end);
    }
    parts.push(from..ids.len());
    parts
}

/// The gaps between blocks side by side (from where the blocks to the
/// left end to where the next begins): a set of blocks' gutters.
fn gutters(ids: &[usize], blocks: &[Block]) -> Vec<(f32, f32)> {
    let mut spans: Vec<(f32, f32)> = ids.iter().map(|&i| (blocks[i].u0, blocks[i].u1)).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Vec::new();
    let mut reach = spans[0].1;
    for &(start, end) in &spans[1..] {
        if start > reach {
            out.push((reach, start));
        }
        reach = reach.max(end);
    }
    out
}

/// Whether `middle` is a row of lines alone atop two columns that go on
/// across it, from `upper` to `lower`, on either side of `gutter`: each
/// of `upper` and `lower` has a paragraph of prose (more than one line,
/// at least [`edges::PROSE_LINE`] sizes wide) on each side, and each
/// block of `middle` is on one side and begins where that side's column
/// does (a heading). An equation across the page, its pieces wherever
/// they fall, is not such a row.
fn lines_atop_columns(
    upper: &[usize],
    middle: &[usize],
    lower: &[usize],
    gutter: (f32, f32),
    blocks: &[Block],
) -> bool {
    // Where the prose of each side of `part` begins.
    let starts = |part: &[usize]| {
        let mut starts = [f32::INFINITY; 2];
        for &i in part {
            let b = &blocks[i];
            if b.lines.len() > 1 && b.u1 - b.u0 >= edges::PROSE_LINE * b.last().size {
                if b.u1 <= gutter.0 {
                    starts[0] = starts[0].min(b.u0);
                } else if b.u0 >= gutter.1 {
                    starts[1] = starts[1].min(b.u0);
                }
            }
        }
        starts.iter().all(|s| s.is_finite()).then_some(starts)
    };
    let (Some(above), Some(below)) = (starts(upper), starts(lower)) else { return false };
    middle.iter().all(|&i| {
        let b = &blocks[i];
        let side = if b.u1 <= gutter.0 {
            0
        } else if b.u0 >= gutter.1 {
            1
        } else {
            return false;
        };
        let slack = BLOCK_SLACK * b.last().size;
        [above[side], below[side]].iter().any(|&start| (b.u0 - start).abs() <= slack)
    })
}

/// Whether `terms` (the blocks of a column) are the terms of a definition
/// list whose descriptions are `descriptions` (the column to its right):
/// at least [`MIN_TERMS`] of them, each a line alone, each on the
/// baseline of the first line of a description. Two columns of text are
/// not read so: their blocks are paragraphs, not lines alone.
fn terms_beside(terms: &[usize], descriptions: &[usize], blocks: &[Block]) -> bool {
    let mut starts: Vec<f32> = descriptions.iter().map(|&i| blocks[i].lines[0].v).collect();
    starts.sort_by(f32::total_cmp);
    terms.len() >= MIN_TERMS
        && terms.iter().all(|&i| {
            let term = &blocks[i].lines;
            let tolerance = SAME_BASELINE * term[0].size;
            let k = starts.partition_point(|&v| v < term[0].v - tolerance);
            term.len() == 1 && starts.get(k).is_some_and(|&v| v <= term[0].v + tolerance)
        })
}

/// Where the gutters of `a` and of `b` overlap: the gaps both share.
fn shared_gutters(a: &[(f32, f32)], b: &[(f32, f32)]) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    for &(a0, a1) in a {
        for &(b0, b1) in b {
            if overlap(a0, a1, b0, b1) > 0.0 {
                out.push((a0.max(b0), a1.min(b1)));
            }
        }
    }
    out
}

/// The lines of a block grouped into paragraphs.
fn paragraphs(block: &Block) -> Vec<Vec<&str>> {
    let width = block.u1 - block.u0;
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut previous: Option<&Piece> = None;
    for line in &block.lines {
        let starts = match previous {
            None => true,
            Some(p) => {
                let short = p.u1 - block.u0 < 0.6 * width;
                // An indented line after a flush one starts a paragraph, but
                // not under a list item's first line (a hanging indent).
                let indented =
                    line.u0 > block.u0 + 0.8 * line.size && p.u0 <= block.u0 + 0.5 * p.size && !starts_item(&p.text);
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
fn starts_item(line: &str) -> bool {
    let mut chars = line.chars();
    let first = chars.next().unwrap_or(' ');
    if matches!(first, '•' | '◦' | '▪' | '‣' | '–' | '—' | '-' | '*') {
        return chars.next().is_some_and(char::is_whitespace);
    }
    let head: String = line.chars().take_while(|c| !c.is_whitespace()).take(6).collect();
    let marker = head.trim_start_matches('(');
    (marker.ends_with('.') || marker.ends_with(')'))
        && marker.len() > 1
        && marker[..marker.len() - 1].chars().all(|c| c.is_ascii_digit())
}

/// Dot leaders, as tables of contents have.
fn has_leaders(line: &str) -> bool {
    line.contains(". . .") || line.contains("....")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The page's paragraphs apart by a blank line, the lines of each one
    /// per line.
    pub(super) fn page_text(glyphs: Vec<Glyph>) -> String {
        let paragraphs = page_paragraphs(glyphs);
        let lines = paragraphs.iter().map(|p| match p {
            Paragraph::Prose(lines) | Paragraph::Code(lines) => lines.join("\n"),
            Paragraph::Table(rows) => {
                let row = |cells: &Vec<table::Cell>| cells.iter().map(|c| c.join(" ")).collect::<Vec<_>>().join(" | ");
                rows.iter().map(row).collect::<Vec<_>>().join("\n")
            }
        });
        lines.collect::<Vec<_>>().join("\n\n")
    }

    /// Glyphs of `text` set from `u` on baseline `v` at `size`, each glyph
    /// half a size wide; a space leaves a gap of a third of the size.
    pub(super) fn set(text: &str, u: f32, v: f32, size: f32) -> Vec<Glyph> {
        let mut at = u;
        let mut out = Vec::new();
        for ch in text.chars() {
            if ch == ' ' {
                at += size / 3.0;
                continue;
            }
            out.push(Glyph { ch, u: at, end: at + size / 2.0, v, size, quarter: 0, font: 0 });
            at += size / 2.0;
        }
        out
    }

    /// Glyphs of `text` set as [`set`] does, at size 10, but in a
    /// proportional font (font 2): widths from 4 to 6 by letter.
    pub(super) fn proportional(text: &str, u: f32, v: f32) -> Vec<Glyph> {
        let mut at = u;
        let mut out = Vec::new();
        for ch in text.chars() {
            if ch == ' ' {
                at += 10.0 / 3.0;
                continue;
            }
            let width = 4.0 + 0.5 * (u32::from(ch) % 5) as f32;
            out.push(Glyph { ch, u: at, end: at + width, v, size: 10.0, quarter: 0, font: 2 });
            at += width;
        }
        out
    }

    /// Glyphs of `text` set from `u` on baseline `v` at size 10 in a
    /// monospaced font (font 1), each glyph and each space 6 wide.
    pub(super) fn typed(text: &str, u: f32, v: f32) -> Vec<Glyph> {
        text.chars()
            .enumerate()
            .filter(|(_, ch)| *ch != ' ')
            .map(|(i, ch)| {
                let at = u + 6.0 * i as f32;
                Glyph { ch, u: at, end: at + 6.0, v, size: 10.0, quarter: 0, font: 1 }
            })
            .collect()
    }

    /// A column of lines from `u`, one every 12 units from `v`, in a
    /// proportional font.
    fn column(lines: &[&str], u: f32, v: f32) -> Vec<Glyph> {
        lines.iter().enumerate().flat_map(|(i, l)| proportional(l, u, v + 12.0 * i as f32)).collect()
    }

    #[test]
    fn words_are_split_at_gaps_wider_than_kerning() {
        let mut glyphs = set("two words", 0.0, 0.0, 10.0);
        // A kern of a tenth of the size stays inside the word.
        glyphs.extend(set("ab", 200.0, 0.0, 10.0));
        glyphs.push(Glyph { ch: 'c', u: 211.0, end: 216.0, v: 0.0, size: 10.0, quarter: 0, font: 0 });
        assert_eq!(page_text(glyphs), "two words\n\nabc");
    }

    #[test]
    fn a_listing_aligned_with_spaces_is_read_line_by_line() {
        let rows =
            ["tcpmux        1/tcp     # multiplexer", "echo          7/tcp", "discard       9/tcp     sink null"];
        let glyphs: Vec<Glyph> =
            rows.iter().enumerate().flat_map(|(i, r)| typed(r, 0.0, 100.0 + 12.0 * i as f32)).collect();
        // One block of code, its padding kept.
        let expected = rows.iter().map(|r| r.to_string()).collect();
        assert_eq!(page_paragraphs(glyphs), [Paragraph::Code(expected)]);
    }

    #[test]
    fn the_number_shared_by_fonts_past_the_cap_is_never_monospaced() {
        // As `a_listing_aligned_with_spaces_is_read_line_by_line`, but in
        // the fonts that share one number: their gaps are columns.
        let rows = ["alpha       one", "beta        two", "gamma       six"];
        let glyphs: Vec<Glyph> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, r)| typed(r, 0.0, 100.0 + 12.0 * i as f32))
            .map(|g| Glyph { font: OTHER_FONTS, ..g })
            .collect();
        assert_eq!(
            page_text(glyphs).split_whitespace().collect::<Vec<_>>(),
            ["alpha", "beta", "gamma", "one", "two", "six"]
        );
    }

    #[test]
    fn monospaced_columns_off_the_character_grid_are_still_columns() {
        // The right column starts 2.5 characters past a whole number of
        // them: a gutter, not padding.
        let mut glyphs = Vec::new();
        for (i, (left, right)) in
            [("left one", "right one"), ("left two", "right two"), ("left six", "right six")].iter().enumerate()
        {
            glyphs.extend(typed(left, 0.0, 100.0 + 12.0 * i as f32));
            glyphs.extend(typed(right, 6.0 * 12.5, 100.0 + 12.0 * i as f32));
        }
        let text = page_text(glyphs);
        let words: Vec<&str> = text.split_whitespace().filter(|w| ["left", "right"].contains(w)).collect();
        assert_eq!(words, ["left", "left", "left", "right", "right", "right"], "{text}");
    }

    #[test]
    fn a_font_seen_only_in_digits_is_not_taken_for_monospaced() {
        // Digits of one width, as most fonts set them, in columns whose
        // gutter is a whole number of digits wide: still two columns.
        let mut glyphs = Vec::new();
        for (i, (left, right)) in [("11", "21"), ("12", "22"), ("13", "23"), ("14", "24")].iter().enumerate() {
            glyphs.extend(typed(left, 0.0, 100.0 + 12.0 * i as f32));
            glyphs.extend(typed(right, 60.0, 100.0 + 12.0 * i as f32));
        }
        assert_eq!(
            page_text(glyphs).split_whitespace().collect::<Vec<_>>(),
            ["11", "12", "13", "14", "21", "22", "23", "24"]
        );
    }

    /// Glyphs of `text` turned a quarter, each 5 wide and a space 3, with
    /// the advances unknown (as the reader gives them for turned text) and
    /// the spaces kept; `backwards`: in the frame of the opposite quarter,
    /// as a reader whose text matrix disagrees with the page gives them.
    fn turned(text: &str, v: f32, backwards: bool) -> Vec<Glyph> {
        let mut at = 0.0;
        let mut out = Vec::new();
        for ch in text.chars() {
            let width = if ch == ' ' { 3.0 } else { 5.0 };
            let (u, v, quarter) = if backwards { (-at, -v, 3) } else { (at, v, 1) };
            out.push(Glyph { ch, u, end: f32::NAN, v, size: 10.0, quarter, font: 0 });
            at += width;
        }
        out
    }

    #[test]
    fn a_backwards_turned_line_keeps_each_glyphs_advance() {
        // Advances known (from the font's upright glyphs), 4 to 6 wide by
        // letter, in the frame of the opposite quarter: each glyph starts
        // at its origin once turned, not a glyph's width before it.
        let mut at = 0.0;
        let mut glyphs = Vec::new();
        for ch in "alpha, beta, gamma, delta; epsilon".chars() {
            let width = if ch == ' ' { 3.0 } else { 4.0 + (u32::from(ch) % 3) as f32 };
            glyphs.push(Glyph { ch, u: -at, end: -at + width, v: 0.0, size: 10.0, quarter: 3, font: 0 });
            at += width;
        }
        assert_eq!(page_text(glyphs), "alpha, beta, gamma, delta; epsilon");
    }

    #[test]
    fn spaces_mark_word_ends_where_advances_are_unknown() {
        assert_eq!(page_text(turned("three short words", 0.0, false)), "three short words");
    }

    #[test]
    fn a_turned_line_that_reads_backwards_is_turned_round() {
        let mut glyphs = turned("one, two (and three), four; five: six, seven", 0.0, true);
        glyphs.extend(turned("eight, nine, ten", 12.0, true));
        assert_eq!(page_text(glyphs), "one, two (and three), four; five: six, seven\neight, nine, ten");
        // Without the evidence of punctuation, the reader's direction stands.
        assert_eq!(page_text(turned("no commas here", 0.0, true)), "no commas here".chars().rev().collect::<String>());
    }

    #[test]
    fn superscripts_and_subscripts_keep_a_line_whole_and_read_one_after_the_other() {
        // `A` with `ml` over `1,39`, then `and` a gap wider than the one
        // that cuts a line after the `A` (17, 1.7 sizes), but close after
        // the scripts; the same after `B`.
        let mut glyphs = Vec::new();
        let mut at = 0.0;
        for (word, last) in [("Here A", false), ("and B", false), ("are the coefficients", true)] {
            let line = set(word, at, 100.0, 10.0);
            let end = line.last().expect("a word").end;
            glyphs.extend(line);
            if !last {
                glyphs.extend(set("ml", end, 96.4, 7.0));
                glyphs.extend(set("1,39", end, 103.3, 7.0));
            }
            at = end + 17.0;
        }
        assert_eq!(page_text(glyphs), "Here Aml1,39 and Bml1,39 are the coefficients");
        // A letter alone in its fragment, a superscript after it as long.
        let mut glyphs = set("2", 0.0, 100.0, 10.0);
        glyphs.extend(set("nd", 5.0, 96.4, 7.0));
        glyphs.extend(set("2", 22.0, 100.0, 10.0));
        glyphs.extend(set("nd", 27.0, 96.4, 7.0));
        assert_eq!(page_text(glyphs), "2nd 2nd");
    }

    #[test]
    fn two_columns_are_read_one_after_the_other() {
        let mut glyphs = column(&["left one goes on", "left two goes on", "left three"], 0.0, 100.0);
        glyphs.extend(column(&["right one goes on", "right two goes on", "right three"], 150.0, 100.0));
        let text = page_text(glyphs);
        let words: Vec<&str> = text.split_whitespace().filter(|w| ["left", "right"].contains(w)).collect();
        assert_eq!(words, ["left", "left", "left", "right", "right", "right"], "{text}");
    }

    #[test]
    fn a_heading_across_both_columns_separates_them() {
        // Upper half: two columns; a heading across; lower half: two columns.
        let mut glyphs = column(&["aaa upper left"], 0.0, 100.0);
        glyphs.extend(column(&["bbb upper right"], 150.0, 100.0));
        glyphs.extend(set("ccc a heading across the whole width of the page", 0.0, 140.0, 10.0));
        glyphs.extend(column(&["ddd lower left"], 0.0, 180.0));
        glyphs.extend(column(&["eee lower right"], 150.0, 180.0));
        let text = page_text(glyphs);
        let firsts: Vec<&str> = text.split("\n\n").map(|p| &p[..3]).collect();
        assert_eq!(firsts, ["aaa", "bbb", "ccc", "ddd", "eee"], "{text}");
    }

    #[test]
    fn paragraphs_of_two_columns_ending_at_one_height_do_not_cut_the_columns() {
        // Each column: a paragraph of two lines, a blank line's gap at the
        // same height in both, another paragraph of two lines.
        let mut glyphs = column(&["aaa one goes on", "aaa one ends"], 0.0, 100.0);
        glyphs.extend(column(&["bbb two goes on", "bbb two ends"], 0.0, 130.0));
        glyphs.extend(column(&["ccc three goes on", "ccc three ends"], 150.0, 100.0));
        glyphs.extend(column(&["ddd four goes on", "ddd four ends"], 150.0, 130.0));
        let text = page_text(glyphs);
        let firsts: Vec<&str> = text.split("\n\n").map(|p| &p[..3]).collect();
        assert_eq!(firsts, ["aaa", "bbb", "ccc", "ddd"], "{text}");
    }

    /// Two columns of prose (at 0 and 230, three lines each, about 18
    /// sizes wide) above and below a row of lines from `middle` (text,
    /// where it begins): the first words of the paragraphs in the order
    /// read.
    fn around_a_row(middle: &[(&str, f32)]) -> Vec<String> {
        let prose = |word: &str| format!("{word} a line of prose that goes on and on");
        let three = |word: &str| [prose(word), prose(word), prose(word)];
        let mut glyphs = Vec::new();
        for (word, u, v) in [("aaa", 0.0, 100.0), ("ddd", 230.0, 100.0), ("bbb", 0.0, 180.0), ("eee", 230.0, 180.0)] {
            let lines = three(word);
            glyphs.extend(column(&lines.iter().map(String::as_str).collect::<Vec<_>>(), u, v));
        }
        for &(text, u) in middle {
            glyphs.extend(proportional(text, u, 155.0));
        }
        let text = page_text(glyphs);
        text.split("\n\n").map(|p| p[..3].to_string()).collect()
    }

    #[test]
    fn headings_side_by_side_do_not_cut_the_columns() {
        // Each column's paragraph ends at one height, the next begins at
        // one height, and each column's heading stands between, at its
        // column's left edge.
        let firsts = around_a_row(&[("hhh Left heading", 0.0), ("kkk Right heading", 230.0)]);
        assert_eq!(firsts, ["aaa", "hhh", "bbb", "ddd", "kkk", "eee"]);
        // Pieces of an equation across the page, wherever they fall: a row
        // between the halves of the page, not two headings.
        let firsts = around_a_row(&[("mmm = f(x)", 40.0), ("nnn + g(y)", 260.0)]);
        assert_eq!(firsts, ["aaa", "ddd", "mmm", "nnn", "bbb", "eee"]);
    }

    #[test]
    fn a_definition_list_reads_each_term_before_its_description() {
        // Terms at 0, each on the first baseline of its description at 60;
        // the descriptions a paragraph's gap apart.
        let items = [("aaa", 100.0, 3), ("bbb", 148.0, 2), ("ccc", 184.0, 2)];
        let mut glyphs = Vec::new();
        for (term, v, lines) in items {
            glyphs.extend(proportional(term, 0.0, v));
            let description: Vec<String> = (0..lines).map(|_| format!("{term} describes it")).collect();
            glyphs.extend(column(&description.iter().map(String::as_str).collect::<Vec<_>>(), 60.0, v));
        }
        let text = page_text(glyphs);
        let firsts: Vec<&str> = text.split("\n\n").map(|p| p.split_whitespace().next().unwrap_or("")).collect();
        assert_eq!(firsts, ["aaa", "aaa", "bbb", "bbb", "ccc", "ccc"], "{text}");
        assert!(text.starts_with("aaa\n\naaa describes it"), "{text}");
    }

    #[test]
    fn the_rows_of_a_table_are_read_row_by_row() {
        let mut glyphs = Vec::new();
        for (i, (key, value)) in
            [("aaa", "first value"), ("bbb", "second value"), ("ccc", "third value")].iter().enumerate()
        {
            glyphs.extend(set(key, 0.0, 100.0 + 20.0 * i as f32, 10.0));
            glyphs.extend(set(value, 100.0, 100.0 + 20.0 * i as f32, 10.0));
        }
        let text = page_text(glyphs);
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(words, ["aaa", "first", "value", "bbb", "second", "value", "ccc", "third", "value"], "{text}");
    }

    #[test]
    fn a_running_head_comes_before_the_text_below_it() {
        // A short running head at the top right; under it, a short line at
        // the left, then the body across the page.
        let mut glyphs = set("Chapter 4 running head", 200.0, 0.0, 10.0);
        glyphs.extend(set("label", 0.0, 30.0, 10.0));
        glyphs.extend(column(&["body text that runs across the whole width of the page here"], 0.0, 60.0));
        let firsts: Vec<String> = page_text(glyphs).split("\n\n").map(|p| p.chars().take(5).collect()).collect();
        assert_eq!(firsts, ["Chapt", "label", "body "]);
    }

    #[test]
    fn raised_and_lowered_letters_stay_in_their_word() {
        // The TeX logo: L, a small raised A, T, a lowered E, X.
        let glyphs = vec![
            Glyph { ch: 'L', u: 0.0, end: 6.0, v: 100.0, size: 10.0, quarter: 0, font: 0 },
            Glyph { ch: 'a', u: 3.0, end: 7.0, v: 97.5, size: 7.0, quarter: 0, font: 0 },
            Glyph { ch: 'T', u: 6.5, end: 12.5, v: 100.0, size: 10.0, quarter: 0, font: 0 },
            Glyph { ch: 'E', u: 11.0, end: 17.0, v: 102.2, size: 10.0, quarter: 0, font: 0 },
            Glyph { ch: 'X', u: 16.0, end: 22.0, v: 100.0, size: 10.0, quarter: 0, font: 0 },
        ];
        let mut page = set("the", -20.0, 100.0, 10.0);
        page.extend(glyphs);
        page.extend(set("system", 25.0, 100.0, 10.0));
        assert_eq!(page_text(page), "the LaTEX system");
    }

    #[test]
    fn a_superscript_joins_its_line_and_the_next_line_stays_apart() {
        let mut glyphs = set("area is x", 0.0, 100.0, 10.0);
        glyphs.push(Glyph { ch: '2', u: 41.7, end: 45.7, v: 96.0, size: 7.0, quarter: 0, font: 0 });
        glyphs.extend(set("units", 50.0, 100.0, 10.0));
        glyphs.extend(set("next line here", 0.0, 112.0, 10.0));
        assert_eq!(page_text(glyphs), "area is x2 units\nnext line here");
    }

    #[test]
    fn a_footnote_mark_set_apart_is_a_word_of_its_own() {
        // A raised footnote mark, a little room, then the note's text.
        let mut glyphs = vec![Glyph { ch: '1', u: 0.0, end: 3.5, v: 98.0, size: 7.0, quarter: 0, font: 0 }];
        glyphs.extend(set("This note", 4.5, 100.0, 10.0));
        assert_eq!(page_text(glyphs), "1 This note");
    }

    #[test]
    fn lines_of_a_paragraph_stay_together_and_an_indent_starts_a_new_one() {
        let mut glyphs = column(&["The first line of a paragraph that", "goes on and on to the right edge"], 0.0, 0.0);
        glyphs.extend(set("A new one, indented.", 15.0, 24.0, 10.0));
        assert_eq!(
            page_text(glyphs),
            "The first line of a paragraph that\ngoes on and on to the right edge\n\nA new one, indented."
        );
    }

    #[test]
    fn a_short_line_ends_its_paragraph() {
        let glyphs = column(
            &["This paragraph is wide enough to", "set the edge.", "Another paragraph follows it here"],
            0.0,
            0.0,
        );
        let text = page_text(glyphs);
        assert_eq!(text.split("\n\n").count(), 2, "{text}");
    }

    #[test]
    fn items_and_leaders_are_lines_of_their_own() {
        let glyphs = column(
            &[
                "These are the points made in this part:",
                "• the first point",
                "• the second point",
                "1. Introduction . . . . . . . 3",
            ],
            0.0,
            0.0,
        );
        assert_eq!(page_text(glyphs).split("\n\n").count(), 4);
    }

    #[test]
    fn text_in_another_direction_comes_after_the_main_text() {
        let mut glyphs = column(&["main text of the page", "more main text here"], 0.0, 0.0);
        // A margin note turned a quarter: its u runs up the page.
        glyphs.extend(set("note", 0.0, -300.0, 10.0).into_iter().map(|g| Glyph { quarter: 1, ..g }));
        assert_eq!(page_text(glyphs), "main text of the page\nmore main text here\n\nnote");
    }

    #[test]
    fn accents_drawn_over_letters_are_composed_with_them() {
        // "Hôtel": a circumflex drawn over the o; "Señor": a tilde over the n.
        let mut glyphs = set("Hotel", 0.0, 0.0, 10.0);
        glyphs.push(Glyph { ch: '\u{02c6}', u: 5.5, end: 9.5, v: -1.0, size: 10.0, quarter: 0, font: 0 });
        glyphs.extend(set("Senor", 40.0, 0.0, 10.0));
        glyphs.push(Glyph { ch: '\u{02dc}', u: 50.5, end: 54.5, v: -1.0, size: 10.0, quarter: 0, font: 0 });
        // "Maître": TeX's \^{\i}, a circumflex over a dotless i.
        glyphs.extend(set("Ma\u{131}tre", 100.0, 0.0, 10.0));
        glyphs.push(Glyph { ch: '\u{02c6}', u: 110.0, end: 114.0, v: -1.0, size: 10.0, quarter: 0, font: 0 });
        // A caret beside a letter, not over it, stays.
        glyphs.extend(set("a", 80.0, 0.0, 10.0));
        glyphs.push(Glyph { ch: '\u{02c6}', u: 85.5, end: 89.0, v: -1.0, size: 10.0, quarter: 0, font: 0 });
        assert_eq!(page_text(glyphs), "H\u{f4}tel Se\u{f1}or a\u{2c6} Ma\u{ee}tre");
    }

    #[test]
    fn ligatures_are_spelled_out() {
        assert_eq!(page_text(set("\u{fb01}nd \u{fb02}ow", 0.0, 0.0, 10.0)), "find flow");
    }

    #[test]
    fn nothing_in_gives_nothing_out() {
        assert_eq!(page_text(Vec::new()), "");
    }

    #[test]
    fn a_table_of_nearly_as_many_cells_as_the_block_cap_is_ordered_in_bounded_time() {
        // 45 rows of 44 cells: 1,980 blocks, just under the cap.
        let mut glyphs = Vec::new();
        for row in 0..45 {
            for cell in 0..44 {
                glyphs.extend(set("c1", cell as f32 * 40.0, row as f32 * 30.0, 10.0));
            }
        }
        let started = std::time::Instant::now();
        let text = page_text(glyphs);
        assert_eq!(text.matches("c1").count(), 45 * 44);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
    }

    #[test]
    fn a_page_of_many_scattered_glyphs_is_read_in_bounded_time() {
        // 200,000 glyphs, each its own piece and block (wide gaps, every
        // baseline different): past the block cap, top to bottom.
        let glyphs: Vec<Glyph> = (0..200_000)
            .map(|i| {
                let (u, v) = ((i % 500) as f32 * 40.0, (i / 500) as f32 * 3.0 + (i % 7) as f32 * 0.4);
                Glyph { ch: 'x', u, end: u + 5.0, v, size: 10.0, quarter: 0, font: 0 }
            })
            .collect();
        let started = std::time::Instant::now();
        let text = page_text(glyphs);
        assert_eq!(text.chars().filter(|c| *c == 'x').count(), 200_000);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
    }
}
