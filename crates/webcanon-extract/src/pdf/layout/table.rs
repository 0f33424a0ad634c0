//! Tables: columns of cells side by side, read row by row. Apart, each
//! column would be read whole before the next (all the commands of a
//! reference card, then all their descriptions), and a column's cells run
//! together into one paragraph.
//!
//! Columns of a band are a table when the first (the keys) is a list of
//! short lines, most on the baseline of a line of another column, and
//! another column is much wider: not a column of running text, whose
//! lines reach across it, nor the columns of an index, as wide as each
//! other, that happen to share their baselines. Each key that shares its
//! baseline begins a row; a key alone on its line goes on the cell above
//! (a key wrapped), and so does a line of another column set between two
//! rows (a description wrapped).

use super::blocks::{Block, Cell};
use super::edges;
use super::glyphs::SAME_BASELINE;
use super::pieces::Piece;

/// The fewest rows of a table.
const MIN_ROWS: usize = 3;
/// The least share of a table's keys that each of its other columns has
/// a line beside.
const COLUMN_SHARE: f32 = 0.5;
/// The least share of a table's keys set on the baseline of a line of
/// another column.
const ROW_SHARE: f32 = 0.8;
/// How much smaller or larger (as a share of the text's size) line numbers
/// are set than the lines they number.
const NUMBER_SIZE: f32 = 0.1;
/// The most of its room (up to the next column) the widest key of a
/// table of even keys fills.
const KEY_ROOM: f32 = 0.8;
/// How many times as wide as the keys' column the widest other column of
/// a table is at least.
const VALUES_WIDTH: f32 = 1.5;
/// The widest (as a share of the key column's width) the middle key line
/// may be: keys are short and uneven, where running text fills its
/// column.
const KEY_WIDTH: f32 = 0.7;

/// The table that the first of `columns` (the blocks of each column of a
/// band, left to right) begin, if they begin one: how many columns it
/// takes, and each row's cells, the first row as set (often the table's
/// head). The table ends before a column with a line beside fewer than
/// [`COLUMN_SHARE`] of its keys (a caption set beside it in the page's
/// next column).
pub(super) fn rows(columns: &[Vec<&Block>]) -> Option<(usize, Vec<Vec<Cell>>)> {
    let [keys, others @ ..] = columns else { return None };
    let mut key_lines: Vec<_> = keys.iter().flat_map(|b| &b.lines).collect();
    key_lines.sort_by(|a, b| a.v.total_cmp(&b.v));
    let on_line = |lines: &[&Piece], v: f32, size: f32| {
        let tolerance = SAME_BASELINE * size;
        let k = lines.partition_point(|l| l.v < v - tolerance);
        lines.get(k).is_some_and(|l| l.v <= v + tolerance)
    };
    let mut column_lines: Vec<Vec<&Piece>> = Vec::new();
    for blocks in others {
        let mut lines: Vec<_> = blocks.iter().flat_map(|b| &b.lines).collect();
        lines.sort_by(|a, b| a.v.total_cmp(&b.v));
        let beside = key_lines.iter().filter(|k| on_line(&lines, k.v, k.size)).count();
        if (beside as f32) < COLUMN_SHARE * key_lines.len() as f32 {
            break;
        }
        column_lines.push(lines);
    }
    // A column of running text (a manuscript's lines beside their
    // numbers) is no column of values: most of its lines are long and
    // reach its right edge.
    let running = |lines: &Vec<&Piece>| {
        let edge = lines.iter().map(|l| l.u1).fold(f32::NEG_INFINITY, f32::max);
        let full = lines.iter().filter(|l| edge - l.u1 <= l.size && l.u1 - l.u0 >= edges::PROSE_LINE * l.size);
        2 * full.count() >= lines.len()
    };
    // Numbers alone in a size of their own are the numbers of the lines
    // beside them (a manuscript's, a poem's), not a table's keys.
    let size = |lines: &[&Piece]| lines.iter().map(|l| l.size).fold(0.0f32, f32::max);
    let numbered = key_lines.iter().all(|l| l.text.bytes().all(|b| b.is_ascii_digit()))
        && column_lines.iter().all(|lines| (size(lines) - size(&key_lines)).abs() > NUMBER_SIZE * size(lines));
    // A listing's lines stay code, whatever names stand beside them.
    let listed = |lines: &Vec<&Piece>| lines.iter().any(|l| l.label.is_some() && l.advance.is_some());
    if column_lines.is_empty() || column_lines.iter().any(|c| running(c) || listed(c)) || numbered {
        return None;
    }
    let columns = &columns[..=column_lines.len()];
    let beside = |v: f32, size: f32| column_lines.iter().any(|lines| on_line(lines, v, size));
    let paired: Vec<bool> = key_lines.iter().map(|l| beside(l.v, l.size)).collect();
    let rows = paired.iter().filter(|&&p| p).count();
    if rows < MIN_ROWS || (rows as f32) < ROW_SHARE * key_lines.len() as f32 {
        return None;
    }
    // A narrow column of keys beside a wide one of values: columns as wide
    // as each other are a page's (an index, a list of names set in
    // columns), read one after the other. A column's room runs from where
    // it begins to where the next does (to where its text ends, for the
    // last).
    let extent = |blocks: &[&Block]| {
        let start = blocks.iter().map(|b| b.u0).fold(f32::INFINITY, f32::min);
        (start, blocks.iter().map(|b| b.u1).fold(f32::NEG_INFINITY, f32::max))
    };
    let starts: Vec<(f32, f32)> = columns.iter().map(|c| extent(c)).collect();
    let room = |k: usize| starts.get(k + 1).map_or(starts[k].1, |next| next.0) - starts[k].0;
    // Keys are short: uneven (the middle one well short of the widest), or
    // all well short of the values (where running text reaches its
    // column's gutter).
    let (left, right) =
        key_lines.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, r), p| (l.min(p.u0), r.max(p.u1)));
    let mut widths: Vec<f32> = key_lines.iter().map(|l| l.u1 - l.u0).collect();
    let middle = widths.len() / 2;
    let median = *widths.select_nth_unstable_by(middle, f32::total_cmp).1;
    if median > KEY_WIDTH * (right - left) && right - left > KEY_ROOM * room(0) {
        return None;
    }
    let widest = (1..columns.len()).map(room).fold(0.0f32, f32::max);
    if widest < VALUES_WIDTH * room(0) {
        return None;
    }
    // Where each row begins: its key's baseline (the first key begins one
    // whatever it shares).
    let starts: Vec<(f32, f32)> = key_lines
        .iter()
        .zip(&paired)
        .enumerate()
        .filter(|&(i, (_, &p))| p || i == 0)
        .map(|(_, (l, _))| (l.v, SAME_BASELINE * l.size))
        .collect();
    let row_of = |v: f32| starts.partition_point(|&(start, tolerance)| start - tolerance <= v).saturating_sub(1);
    let mut table = vec![vec![Cell::new(); columns.len()]; starts.len()];
    // Lines of the other columns above the first key make a row of their
    // own (a head over the values, the key's cell empty).
    let mut head = vec![Cell::new(); columns.len()];
    let first = starts[0].0 - starts[0].1;
    for line in &key_lines {
        cell(&mut table[row_of(line.v)], 0, &line.text);
    }
    for (c, lines) in column_lines.iter().enumerate() {
        for line in lines {
            if line.v < first {
                cell(&mut head, c + 1, &line.text);
            } else {
                cell(&mut table[row_of(line.v)], c + 1, &line.text);
            }
        }
    }
    if head.iter().any(|c| !c.is_empty()) {
        table.insert(0, head);
    }
    Some((columns.len(), table))
}

/// Adds the line `text` to a row's cell in `column`.
fn cell(row: &mut [Cell], column: usize, text: &str) {
    row[column].push(text.to_string());
}

#[cfg(test)]
mod tests {
    use super::super::tests::{page_text, proportional, set, typed};
    use super::super::{Glyph, Paragraph, page_paragraphs};

    /// Rows of a table: each key at 0, its value at 80 on the same
    /// baseline, and any more lines of the value below it; 12 apart.
    fn table(rows: &[(&str, &[&str])]) -> Vec<Glyph> {
        let mut glyphs = Vec::new();
        let mut v = 100.0;
        for (key, value) in rows {
            glyphs.extend(proportional(key, 0.0, v));
            for line in *value {
                glyphs.extend(proportional(line, 80.0, v));
                v += 12.0;
            }
        }
        glyphs
    }

    /// Rows of two cells, each cell's lines apart by `¦`.
    fn cells(rows: &[[&str; 2]]) -> Vec<Vec<Vec<String>>> {
        rows.iter().map(|row| row.iter().map(|c| c.split(" ¦ ").map(str::to_string).collect()).collect()).collect()
    }

    #[test]
    fn keys_and_their_values_are_read_row_by_row() {
        let glyphs = table(&[
            ("x + y", &["addition"]),
            ("x .* y", &["element by element multiplication"]),
            ("x / y", &["right division, conceptually", "equivalent to the inverse"]),
            ("++ x (-- x)", &["increment, return the new value"]),
        ]);
        let expected = cells(&[
            ["x + y", "addition"],
            ["x .* y", "element by element multiplication"],
            ["x / y", "right division, conceptually ¦ equivalent to the inverse"],
            ["++ x (-- x)", "increment, return the new value"],
        ]);
        assert_eq!(page_paragraphs(glyphs), [Paragraph::Table(expected)]);
    }

    #[test]
    fn a_table_of_many_rows_is_read_in_bounded_time() {
        // 3,000 rows, each key with a subscript after it: the scripts,
        // the rows and their cells are found by sorting and searching,
        // never by looking at every line for each line.
        const ROWS: usize = 3_000;
        let keys = ["a", "bb cc", "ddd", "eeee ffff", "g"];
        let values = ["one value", "the second value, set here", "a third", "and the fourth value of a key", "five"];
        let mut glyphs = Vec::new();
        for i in 0..ROWS {
            let v = 100.0 + 12.0 * i as f32;
            let key = proportional(keys[i % keys.len()], 0.0, v);
            let end = key.last().map_or(0.0, |g| g.end);
            glyphs.extend(key);
            glyphs.extend(set("1,2", end, v + 3.3, 7.0));
            glyphs.extend(proportional(values[i % values.len()], 80.0, v));
        }
        let started = std::time::Instant::now();
        let paragraphs = page_paragraphs(glyphs);
        let Some(Paragraph::Table(rows)) = paragraphs.first() else {
            panic!("no table, {} paragraphs", paragraphs.len())
        };
        assert_eq!(rows.len(), ROWS);
        assert_eq!(rows[1][0].concat(), "bb cc1,2");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
    }

    #[test]
    fn the_columns_of_an_index_are_read_one_after_the_other() {
        // Two columns as wide as each other, short entries on shared
        // baselines: the page's columns, not a table.
        let left = ["abacus, 3", "absolute value, 41", "acos, 12", "addition, 7"];
        let right = ["macros, 99", "magic squares, 102", "map, 5", "matrices, 88"];
        let mut glyphs = Vec::new();
        for (i, (l, r)) in left.iter().zip(right).enumerate() {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(proportional(l, 0.0, v));
            glyphs.extend(proportional(r, 150.0, v));
        }
        let text = page_text(glyphs);
        assert!(!text.contains('|'), "{text}");
        assert!(text.find("addition").unwrap() < text.find("macros").unwrap(), "{text}");
    }

    #[test]
    fn running_text_beside_words_in_the_margin_is_no_table() {
        // Words at 0 beside long lines that all reach one right edge: a
        // column of text with labels in its margin.
        let line = "a line of running text that goes on and on up to the edge";
        let glyphs = table(&[("Note", &[line, line]), ("Tip", &[line]), ("Warning", &[line, line]), ("See", &[line])]);
        let paragraphs = page_paragraphs(glyphs);
        assert!(!paragraphs.iter().any(|p| matches!(p, Paragraph::Table(_))), "{paragraphs:?}");
    }

    #[test]
    fn names_beside_a_listing_make_no_table() {
        // Names in the margin on the baselines of a listing's lines, each
        // number just before its code: the listing stays code.
        let mut glyphs = Vec::new();
        for (i, (name, number, code)) in [
            ("\\x", 41, "alpha(1); // the first"),
            ("\\yyyy", 42, "beta(2);"),
            ("\\zz", 43, "gamma(3);"),
            ("\\w", 44, "delta(4);"),
        ]
        .iter()
        .enumerate()
        {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(typed(name, -40.0, v));
            glyphs.extend(set(&number.to_string(), 14.0, v, 6.0));
            glyphs.extend(typed(code, 24.0, v));
        }
        let paragraphs = page_paragraphs(glyphs);
        let listing = ["41 alpha(1); // the first", "42 beta(2);", "43 gamma(3);", "44 delta(4);"];
        assert!(
            paragraphs.contains(&Paragraph::Code(listing.iter().map(|l| l.to_string()).collect())),
            "{paragraphs:?}"
        );
    }

    #[test]
    fn a_caption_beside_a_table_is_no_column_of_it() {
        // A third column of two lines beside two of the five rows.
        let mut glyphs = table(&[
            ("alpha ray", &["the first letter of the alphabet"]),
            ("b", &["the second letter"]),
            ("gamma", &["the third one, and a function"]),
            ("d", &["the fourth letter"]),
            ("epsilon", &["the fifth letter"]),
        ]);
        glyphs.extend(proportional("FIG. 1. A caption set in", 300.0, 124.0));
        glyphs.extend(proportional("the page's next column.", 300.0, 136.0));
        let paragraphs = page_paragraphs(glyphs);
        let Some(Paragraph::Table(rows)) = paragraphs.first() else { panic!("{paragraphs:?}") };
        assert!(rows.iter().all(|row| row.len() == 2), "{rows:?}");
        assert!(
            paragraphs[1..].iter().any(|p| matches!(p, Paragraph::Prose(l) if l[0].starts_with("FIG. 1."))),
            "{paragraphs:?}"
        );
    }
}
