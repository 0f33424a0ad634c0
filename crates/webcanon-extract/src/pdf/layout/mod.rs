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

mod blocks;
mod code;
mod cuts;
mod edges;
mod entries;
pub(super) mod glyphs;
mod lines;
mod listing;
mod monospace;
mod order;
pub(super) mod paragraphs;
mod pieces;
mod table;

pub(super) use glyphs::within;

use blocks::blocks;
use cuts::cuts;
use edges::Edges;
use glyphs::{Glyph, SPACE, baseline, fill_unknown_ends, turn_reversed_directions, typical_size};
use lines::{compose_accents, rows};
use monospace::monospaced_fonts;
use order::in_reading_order;
use paragraphs::{Paragraph, paragraphs};
use pieces::{Piece, piece};

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
            let code = code::code_run(&ordered[k..]);
            if code > 0 {
                out.push(Paragraph::Code(code::code_lines(&ordered[k..k + code])));
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::pdf::fonts::OTHER_FONTS;

    /// The page's paragraphs apart by a blank line, the lines of each one
    /// per line.
    pub(super) fn page_text(glyphs: Vec<Glyph>) -> String {
        let paragraphs = page_paragraphs(glyphs);
        let lines = paragraphs.iter().map(|p| match p {
            Paragraph::Prose(lines) | Paragraph::Code(lines) => lines.join("\n"),
            Paragraph::Table(rows) => {
                let row = |cells: &Vec<blocks::Cell>| cells.iter().map(|c| c.join(" ")).collect::<Vec<_>>().join(" | ");
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
