//! The entries of a table of contents, read as one line each: a section
//! number and the title set a wide gap after it (`2.1   Langue de
//! l'article . . . 4`), and dot leaders with the page number they lead
//! to. Apart, the numbers, the titles and the page numbers would each be
//! a column of their own, read one after the other.
//!
//! An entry without leaders (a chapter's, set in bold above its sections)
//! takes the page number at its line's end when that number is set where
//! the page numbers of the entries with leaders end: the page numbers'
//! column.
//!
//! A section number is joined to its title only where it cannot be a line
//! number (a manuscript's, a listing's): it has a dot (`2.1`), or the
//! title has leaders or ends in the page numbers' column; and only to a
//! title that does not begin as a number does (the next cell of a table
//! of figures).

use super::pieces::{Piece, has_leaders, next_on_line};

/// The widest gap (in the title's font sizes) between a section number
/// and its title.
const NUMBER_GAP: f32 = 4.0;
/// The widest gap (in font sizes) between dot leaders and their page
/// number.
const LEADER_GAP: f32 = 10.0;
/// How far apart (in font sizes) the ends of two page numbers may be and
/// still be in one column: right-aligned, they end at one point.
const PAGE_COLUMN_TOLERANCE: f32 = 0.2;
/// The most parts of a section number (`1.2.3.4`), and digits in each.
const MAX_NUMBER_PARTS: usize = 4;
const MAX_PART_DIGITS: usize = 3;

/// Joins the section numbers of a table of contents to their titles, and
/// dot leaders to their page numbers. `pieces`: sorted by baseline then
/// along the line, and so they stay.
pub(super) fn join_entries(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut slots: Vec<Option<Piece>> = pieces.into_iter().map(Some).collect();
    for k in 0..slots.len() {
        join_next(&mut slots, k, |entry, page| {
            ends_in_leaders(&entry.text) && page_number(&page.text) && page.u0 - entry.u1 <= LEADER_GAP * entry.size
        });
    }
    // Where the entries with leaders end: the page numbers' column.
    let mut column: Vec<f32> = slots.iter().flatten().filter(|p| led_to_page(&p.text)).map(|p| p.u1).collect();
    column.sort_by(f32::total_cmp);
    let in_column = |piece: &Piece| {
        let tolerance = PAGE_COLUMN_TOLERANCE * piece.size;
        let k = column.partition_point(|&end| end < piece.u1 - tolerance);
        column.get(k).is_some_and(|&end| end <= piece.u1 + tolerance)
    };
    for k in 0..slots.len() {
        join_next(&mut slots, k, |entry, page| {
            let last_word = entry.text.rsplit(' ').next().unwrap_or_default();
            page_number(&page.text) && in_column(page) && !ends_in_leaders(&entry.text) && !page_number(last_word)
        });
    }
    for k in 0..slots.len() {
        join_next(&mut slots, k, |number, title| {
            section_number(&number.text).is_some_and(|dotted| dotted || has_leaders(&title.text) || in_column(title))
                && !title.text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | '−'))
                && title.u0 - number.u1 <= NUMBER_GAP * title.size
        });
    }
    slots.into_iter().flatten().collect()
}

/// Joins to `slots[k]` the next piece on its line, when `joins` says so;
/// the joined piece keeps the larger size of the two.
fn join_next(slots: &mut [Option<Piece>], k: usize, joins: impl Fn(&Piece, &Piece) -> bool) {
    let Some(j) = next_on_line(slots, k) else { return };
    let (Some(left), Some(right)) = (slots[k].as_ref(), slots[j].as_ref()) else { return };
    if !joins(left, right) {
        return;
    }
    let right = slots[j].take().expect("checked above");
    let left = slots[k].as_mut().expect("checked above");
    left.append(&right, 1);
    left.size = left.size.max(right.size);
}

/// Whether `text` is a section number (`3`, `2.1`, `A.4.2`, with or
/// without a final stop): `Some(true)` when it has a dot between parts.
fn section_number(text: &str) -> Option<bool> {
    let parts: Vec<&str> = text.trim_end_matches('.').split('.').collect();
    let numeric = |p: &&str| (1..=MAX_PART_DIGITS).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    let letter = |p: &&str| p.len() == 1 && p.bytes().all(|b| b.is_ascii_uppercase());
    let fits = parts.len() <= MAX_NUMBER_PARTS
        && (numeric(&parts[0]) || letter(&parts[0]) && parts.len() > 1)
        && parts[1..].iter().all(numeric);
    fits.then_some(parts.len() > 1)
}

/// Whether `text` ends in dot leaders.
fn ends_in_leaders(text: &str) -> bool {
    text.ends_with('.') && has_leaders(text)
}

/// Whether `text` is an entry whose leaders lead to its page number.
fn led_to_page(text: &str) -> bool {
    text.rsplit_once(' ').is_some_and(|(entry, page)| ends_in_leaders(entry) && page_number(page))
}

/// Whether `text` is a page number: arabic, or roman in lower or upper case.
fn page_number(text: &str) -> bool {
    let roman = |c: char| "ivxlcdm".contains(c.to_ascii_lowercase());
    (1..=5).contains(&text.len())
        && (text.bytes().all(|b| b.is_ascii_digit())
            || text.chars().all(roman)
                && (text.chars().all(char::is_lowercase) || text.chars().all(char::is_uppercase)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{page_text, proportional};
    use super::*;

    #[test]
    fn section_numbers_and_page_numbers_are_told() {
        for (text, number) in [("3", Some(false)), ("2.1", Some(true)), ("A.4.2", Some(true)), ("4.", Some(false))] {
            assert_eq!(section_number(text), number, "{text}");
        }
        for text in ["A", "1.2.3.4.5", "2019a", "1234.5", "(3)", ""] {
            assert_eq!(section_number(text), None, "{text}");
        }
        assert!(page_number("12") && page_number("xiv") && page_number("IV"));
        assert!(!page_number("Xiv") && !page_number("123456") && !page_number("12a"));
    }

    #[test]
    fn a_table_of_contents_is_read_entry_by_entry() {
        // Numbers at 0 (chapters) and 15 (sections), titles a wide gap
        // after them, then leaders, each page number 20 past its leaders
        // (two sizes: a gap that cuts a line).
        let entries = [
            (0.0, "1", 30.0, "Introduction . . . . . . . .", "3"),
            (15.0, "1.1", 60.0, "Scope . . . . . . . . .", "4"),
            (15.0, "1.2", 60.0, "Terms . . . . . . . . .", "6"),
            (0.0, "2", 30.0, "Methods . . . . . . . . . .", "9"),
        ];
        let mut glyphs = Vec::new();
        for (i, (at, number, title_at, title, page)) in entries.iter().enumerate() {
            let v = 100.0 + 14.0 * i as f32;
            glyphs.extend(proportional(number, *at, v));
            let title = proportional(title, *title_at, v);
            let end = title.last().expect("a title").end;
            glyphs.extend(title);
            glyphs.extend(proportional(page, end + 20.0, v));
        }
        let text = page_text(glyphs);
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            [
                "1 Introduction . . . . . . . . 3",
                "1.1 Scope . . . . . . . . . 4",
                "1.2 Terms . . . . . . . . . 6",
                "2 Methods . . . . . . . . . . 9"
            ],
            "{text}"
        );
    }

    #[test]
    fn a_chapter_without_leaders_takes_its_page_number_from_the_column() {
        // Chapters in bold, no leaders, their page numbers far off; the
        // sections under them with leaders. Every page number ends at 180.
        let entries = [
            ("1", "Introduction", false, "3"),
            ("1.1", "Scope . . . . . . . . .", true, "4"),
            ("1.2", "Terms . . . . . . . . .", true, "6"),
            ("2", "Methods", false, "9"),
            ("2.1", "Design . . . . . . . .", true, "10"),
        ];
        let mut glyphs = Vec::new();
        for (i, (number, title, section, page)) in entries.iter().enumerate() {
            let v = 100.0 + 14.0 * i as f32;
            let indent = if *section { 15.0 } else { 0.0 };
            glyphs.extend(proportional(number, indent, v));
            glyphs.extend(proportional(title, indent + 30.0, v));
            let width: f32 = proportional(page, 0.0, v).iter().map(|g| g.end - g.u).sum();
            glyphs.extend(proportional(page, 180.0 - width, v));
        }
        let text = page_text(glyphs);
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            [
                "1 Introduction 3",
                "1.1 Scope . . . . . . . . . 4",
                "1.2 Terms . . . . . . . . . 6",
                "2 Methods 9",
                "2.1 Design . . . . . . . . 10"
            ],
            "{text}"
        );
    }

    #[test]
    fn the_column_is_found_where_leaders_and_page_numbers_are_set_close() {
        // The sections' page numbers a space after their leaders (one
        // piece with them); every page number ends at 180.
        let mut glyphs = Vec::new();
        let ending_at_180 = |text: &str, v: f32| {
            let width: f32 = proportional(text, 0.0, v).last().map_or(0.0, |g| g.end);
            proportional(text, 180.0 - width, v)
        };
        glyphs.extend(proportional("2", 0.0, 100.0));
        glyphs.extend(proportional("Methods", 30.0, 100.0));
        glyphs.extend(ending_at_180("9", 100.0));
        glyphs.extend(ending_at_180("2.1 Design . . . . . . . . . . . . . . . . 10", 114.0));
        glyphs.extend(ending_at_180("2.2 Results . . . . . . . . . . . . . . . . 12", 128.0));
        let text = page_text(glyphs);
        assert!(text.lines().any(|l| l == "2 Methods 9"), "{text}");
    }

    #[test]
    fn a_line_number_beside_prose_is_not_taken_for_a_section_number() {
        // A manuscript's line numbers, a wide gap from its lines: no dot,
        // no leaders.
        let mut glyphs = Vec::new();
        for (i, line) in ["the first line of the text", "and the second one"].iter().enumerate() {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(proportional(&(i + 7).to_string(), 0.0, v));
            glyphs.extend(proportional(line, 30.0, v));
        }
        let text = page_text(glyphs);
        assert!(text.lines().all(|l| !l.starts_with("7 the")), "{text}");
    }
}
