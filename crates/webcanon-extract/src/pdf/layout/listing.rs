//! Listings: the line numbers of code joined to the lines they number
//! (the blocks of code themselves are [`code`](super::code)'s).
//!
//! A line number is a [`Label`](super::cuts::Label): digits in a font or size of their
//! own at the start of a line. It counts as one only when a number one
//! more or one less stands just above or below it, aligned with it, so a
//! table's first column or a footnote mark is left as it is. Only a line
//! number followed by monospaced text is joined to it: numbered prose (a
//! manuscript's line numbers) keeps its numbers apart.

use super::monospace::MAX_PADDING;
use super::pieces::{Piece, next_on_line};

/// How many numbered lines below one are looked at for the next number
/// (a listing beside another numbered column interleaves with it).
const NUMBER_WINDOW: usize = 8;
/// The farthest (in font sizes) the next numbered line may be below one:
/// a few unnumbered lines (a long line of code wrapped) between them.
const NUMBER_PITCH: f32 = 5.0;

/// Joins each line number of a listing to the code on its line (the
/// nearest piece to its right on its baseline, when monospaced).
/// `pieces`: sorted by baseline then along the line, and so they stay. A
/// numbered line with no code on it (a blank line of the listing) takes
/// the size and font of the listing's code, so that it stays in the
/// code's block. Only the lines of a listing keep their `label`.
pub(super) fn number_lines(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut slots: Vec<Option<Piece>> = pieces.into_iter().map(Some).collect();
    let listing = numbered(&slots);
    let code: Vec<Option<usize>> = listing.iter().map(|&k| code_beside(&slots, k)).collect();
    // Numbered prose (a manuscript's line numbers, with a line in a
    // typewriter font now and then) is no listing: most lines of a
    // listing have code.
    let has_code = |k: usize| slots[k].as_ref().is_some_and(|p| p.advance.is_some());
    let with_code = listing.iter().zip(&code).filter(|(k, c)| has_code(**k) || c.is_some()).count();
    let is_listing = !listing.is_empty() && with_code * 2 > listing.len();
    // Only a listing's numbers stay labels: a number that does not count
    // on, or numbered prose, is text like any other.
    let mut counted = vec![false; slots.len()];
    if is_listing {
        listing.iter().for_each(|&k| counted[k] = true);
    }
    for (slot, counted) in slots.iter_mut().zip(counted) {
        if let Some(piece) = slot.as_mut().filter(|_| !counted) {
            piece.label = None;
        }
    }
    if !is_listing {
        return slots.into_iter().flatten().collect();
    }
    for (&k, &j) in listing.iter().zip(&code) {
        let Some(j) = j else { continue };
        if slots[k].is_none() {
            continue;
        }
        let Some(code) = slots[j].take() else { continue };
        let number = slots[k].as_mut().expect("checked above");
        let advance = code.advance.expect("code is monospaced");
        let spaces = (((code.u0 - number.u1) / advance).round() as usize).clamp(1, MAX_PADDING);
        number.append(&code, spaces);
        number.size = code.size;
        number.advance = code.advance;
    }
    // Lines of the listing without code (blank, or a label alone): the
    // size and font of the nearest code above (or, for those before any,
    // below).
    let mut code: Option<(f32, Option<f32>)> = None;
    let mut waiting: Vec<usize> = Vec::new();
    for &k in &listing {
        let Some(number) = slots[k].as_mut() else { continue };
        if number.advance.is_some() {
            let found = (number.size, number.advance);
            code = Some(found);
            for j in waiting.drain(..) {
                if let Some(earlier) = slots[j].as_mut() {
                    (earlier.size, earlier.advance) = found;
                }
            }
        } else {
            match code {
                Some(found) => (number.size, number.advance) = found,
                None => waiting.push(k),
            }
        }
    }
    slots.into_iter().flatten().collect()
}

/// Whether a listing's line and another line, one under the other,
/// belong to blocks of their own: a numbered line of code (a listing's,
/// after [`number_lines`]) continues no paragraph, and no line but one of
/// its code continues a listing, however close below: the description
/// just above a listing in a program's documented source, or the names
/// in the margin beside its lines, are read apart. Its code is a
/// monospaced line that reaches past where a numbered line begins (a long
/// line wrapped, a right-aligned value), where a name in the margin ends
/// before it.
pub(super) fn parts(above: &Piece, below: &Piece) -> bool {
    let listed = |p: &Piece| p.label.is_some() && p.advance.is_some();
    let code_of = |line: &Piece, listing: &Piece| line.advance.is_some() && line.u1 > listing.u0;
    match (listed(above), listed(below)) {
        (false, true) => !code_of(above, below),
        (true, false) => !code_of(below, above),
        _ => false,
    }
}

/// The code on the line `slots[k]` numbers: the next piece on its line
/// ([`next_on_line`]), when it is monospaced, not farther than
/// [`MAX_PADDING`] characters and not itself numbered (the line of a
/// listing beside this one).
fn code_beside(slots: &[Option<Piece>], k: usize) -> Option<usize> {
    let number = slots[k].as_ref()?;
    let next = next_on_line(slots, k)?;
    let code = slots[next].as_ref()?;
    let near = code.advance.is_some_and(|a| code.u0 - number.u1 <= MAX_PADDING as f32 * a);
    (near && code.label.is_none()).then_some(next)
}

/// The pieces (by index, top to bottom) that begin with a line number of
/// a listing: a number one more stands just below it, or one less just
/// above, aligned with it, and not both are numbers alone on their lines
/// (a column of values counting up is no listing).
fn numbered(slots: &[Option<Piece>]) -> Vec<usize> {
    let labelled: Vec<usize> =
        (0..slots.len()).filter(|&i| slots[i].as_ref().is_some_and(|p| p.label.is_some())).collect();
    let alone = |k: usize| {
        let piece = slots[k].as_ref().expect("a labelled piece");
        piece.text.bytes().all(|b| b.is_ascii_digit()) && code_beside(slots, k).is_none()
    };
    let mut counted = vec![false; labelled.len()];
    for k in 0..labelled.len() {
        let above = slots[labelled[k]].as_ref().expect("a labelled piece");
        let next = labelled[k + 1..].iter().take(NUMBER_WINDOW).position(|&j| {
            let below = slots[j].as_ref().expect("a labelled piece");
            let size = below.size.max(above.size);
            below.label == above.label.and_then(|n| n.checked_add(1))
                && (below.u0 - above.u0).abs() <= size
                && below.v > above.v
                && below.v - above.v <= NUMBER_PITCH * size
                && !(alone(labelled[k]) && alone(j))
        });
        if let Some(offset) = next {
            counted[k] = true;
            counted[k + 1 + offset] = true;
        }
    }
    labelled.into_iter().zip(counted).filter(|(_, c)| *c).map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::super::code::MAX_INDENT;
    use super::super::glyphs::Glyph;
    use super::super::page_paragraphs;
    use super::super::paragraphs::Paragraph;
    use super::super::tests::{page_text, proportional, set, typed};
    use super::*;

    /// A listing's lines: each number set small (size 6) in a font of its
    /// own, right-aligned to end at 20; its code (if any) monospaced from
    /// 40, indented by that many characters.
    fn numbered(lines: &[(u32, usize, &str)]) -> Vec<Glyph> {
        let mut glyphs = Vec::new();
        for (i, &(number, indent, code)) in lines.iter().enumerate() {
            let v = 100.0 + 12.0 * i as f32;
            let digits = number.to_string();
            glyphs.extend(set(&digits, 20.0 - 3.0 * digits.len() as f32, v, 6.0));
            glyphs.extend(typed(code, 40.0 + 6.0 * indent as f32, v));
        }
        glyphs
    }

    #[test]
    fn line_numbers_join_their_code_and_the_listing_keeps_its_lines() {
        let glyphs =
            numbered(&[(9, 0, "fn main() {"), (10, 4, "let x = 1;"), (11, 0, ""), (12, 4, "print(x);"), (13, 0, "}")]);
        let expected = ["9   fn main() {", "10       let x = 1;", "11", "12       print(x);", "13   }"];
        let expected: Vec<String> = expected.iter().map(|l| l.to_string()).collect();
        // The numbers are right-aligned: the two-digit ones start a
        // character earlier.
        let mut expected = expected;
        expected[0].insert(0, ' ');
        assert_eq!(page_paragraphs(glyphs), [Paragraph::Code(expected)]);
    }

    #[test]
    fn a_description_just_above_a_listing_is_a_paragraph_of_its_own() {
        // A line of prose a line's height above the listing's first line.
        let mut glyphs = proportional("A simple reversal of a flag.", 40.0, 88.0);
        glyphs.extend(numbered(&[(7, 0, "reverse(flag) {"), (8, 4, "return !flag;"), (9, 0, "}")]));
        let code = ["7   reverse(flag) {", "8       return !flag;", "9   }"];
        assert_eq!(
            page_paragraphs(glyphs),
            [
                Paragraph::Prose(vec!["A simple reversal of a flag.".to_string()]),
                Paragraph::Code(code.iter().map(|l| l.to_string()).collect())
            ]
        );
    }

    /// A listing's lines from 100, 12 apart: each number set small (size
    /// 6) from 14, just before its code, monospaced from 24.
    fn close_numbers(lines: &[(u32, &str)]) -> Vec<Glyph> {
        let mut glyphs = Vec::new();
        for (i, (number, code)) in lines.iter().enumerate() {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(set(&number.to_string(), 14.0, v, 6.0));
            glyphs.extend(typed(code, 24.0, v));
        }
        glyphs
    }

    /// That the page's paragraphs hold lines 41 to 43 of a listing set by
    /// [`close_numbers`] whole, as one piece of code.
    fn assert_listing_kept(glyphs: Vec<Glyph>) {
        let paragraphs = page_paragraphs(glyphs);
        let listing = ["41 alpha(1);", "42 beta(2);", "43 gamma(3);"];
        assert!(
            paragraphs.contains(&Paragraph::Code(listing.iter().map(|l| l.to_string()).collect())),
            "{paragraphs:?}"
        );
    }

    #[test]
    fn names_in_the_margin_beside_a_listing_are_read_apart() {
        // A documented source: the first name in the margin (in the
        // listing's monospaced font, right-aligned to end at 2) and the
        // description after it on one line, 12 above the listing; the
        // other names each on a baseline 3 above a line of code; each
        // number just before its code.
        let mut glyphs = typed("\\one", 2.0 - 24.0, 88.0);
        glyphs.extend(proportional("Makes each of the things.", 12.0, 88.0));
        glyphs.extend(close_numbers(&[(41, "alpha(1);"), (42, "beta(2);"), (43, "gamma(3);")]));
        for (i, name) in ["\\two", "\\three"].iter().enumerate() {
            glyphs.extend(typed(name, 2.0 - 6.0 * name.chars().count() as f32, 97.0 + 12.0 * i as f32));
        }
        assert_listing_kept(glyphs);
    }

    #[test]
    fn a_name_in_the_margin_on_a_numbered_line_is_read_apart() {
        // The name ends a space before the first line's number, on its
        // baseline; each number just before its code.
        let mut glyphs = typed("\\first", 8.0 - 36.0, 100.0);
        glyphs.extend(close_numbers(&[(41, "alpha(1);"), (42, "beta(2);"), (43, "gamma(3);")]));
        assert_listing_kept(glyphs);
    }

    #[test]
    fn a_column_of_values_counting_up_is_no_listing() {
        // A program and its output in a monospaced font, the arrow in
        // another; the output ends in values 1, 2, 3 alone on their
        // lines, right-aligned: one piece of code, not a listing beside it.
        let program = ["s.d = 4;", "s.c = 3;", "s.b = 2;", "s.a = 1;", "[t, p] = sortfields (s)"];
        let mut glyphs = Vec::new();
        for (i, line) in program.iter().enumerate() {
            glyphs.extend(typed(line, 0.0, 100.0 + 12.0 * i as f32));
        }
        glyphs.push(Glyph { ch: '⇒', u: 0.0, end: 9.0, v: 160.0, size: 10.0, quarter: 0, font: 2 });
        for (i, (line, at)) in
            [("t =", 12.0), ("d = 4", 12.0), ("c = 3", 12.0), ("p =", 12.0), ("1", 36.0), ("2", 36.0), ("3", 36.0)]
                .iter()
                .enumerate()
        {
            glyphs.extend(typed(line, *at, 160.0 + 12.0 * i as f32));
        }
        let paragraphs = page_paragraphs(glyphs);
        assert!(matches!(paragraphs.as_slice(), [Paragraph::Code(lines)] if lines.len() == 12), "{paragraphs:?}");
    }

    #[test]
    fn a_guard_before_the_code_keeps_a_line_in_the_listing() {
        // Most lines begin with a guard in a proportional font, the code
        // right after it in a monospaced one; the numbers close before.
        let mut glyphs = Vec::new();
        for (i, (guard, code)) in
            [("<release>", "\\fi"), ("<release>", "\\def\\x{1}"), ("", "\\relax")].iter().enumerate()
        {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(set(&(i + 1).to_string(), 17.0, v, 6.0));
            let guard = proportional(guard, 24.0, v);
            let end = guard.last().map_or(24.0, |g| g.end);
            glyphs.extend(guard);
            glyphs.extend(typed(code, end, v));
        }
        let lines = ["1 <release>\\fi", "2 <release>\\def\\x{1}", "3 \\relax"];
        assert_eq!(page_paragraphs(glyphs), [Paragraph::Code(lines.iter().map(|l| l.to_string()).collect())]);
    }

    #[test]
    fn two_listings_side_by_side_keep_their_own_numbers() {
        // A second listing to the right, each number close enough to its
        // code to be one piece with it; the first listing has a blank line
        // where the second has code.
        let left = numbered(&[(1, 0, "alpha = 1;"), (2, 0, ""), (3, 0, "gamma = 3;")]);
        let right: Vec<Glyph> = numbered(&[(7, 0, "delta = 4;"), (8, 0, "omega = 5;"), (9, 0, "sigma = 6;")])
            .into_iter()
            .map(|g| {
                let shift = if g.font == 1 { 150.0 } else { 160.0 };
                Glyph { u: g.u + shift, end: g.end + shift, ..g }
            })
            .collect();
        let text = page_text(left.into_iter().chain(right).collect());
        for line in ["1   alpha = 1;", "2", "3   gamma = 3;", "7  delta = 4;", "8  omega = 5;"] {
            assert!(text.lines().any(|l| l.trim() == line), "{line:?} in {text}");
        }
    }

    #[test]
    fn code_with_blank_lines_in_it_is_one_piece_of_code() {
        // Two functions a blank line apart, then a last line after two
        // blank lines; prose after three is prose.
        let rows: [(f32, f32, &str); 7] = [
            (0.0, 100.0, "def first():"),
            (4.0, 112.0, "return 1"),
            (0.0, 136.0, "def second():"),
            (4.0, 148.0, "return 2"),
            (0.0, 184.0, "print(first())"),
            (0.0, 232.0, "A closing paragraph of prose text"),
            (0.0, 244.0, "set in a proportional font here"),
        ];
        let mut glyphs = Vec::new();
        for (indent, v, text) in &rows[..5] {
            glyphs.extend(typed(text, 6.0 * indent, *v));
        }
        for (_, v, text) in &rows[5..] {
            glyphs.extend(proportional(text, 0.0, *v));
        }
        let code = ["def first():", "    return 1", "", "def second():", "    return 2", "", "print(first())"];
        assert_eq!(
            page_paragraphs(glyphs),
            [
                Paragraph::Code(code.iter().map(|l| l.to_string()).collect()),
                Paragraph::Prose(vec![rows[5].2.to_string(), rows[6].2.to_string()])
            ]
        );
    }

    #[test]
    fn numbers_that_do_not_count_on_are_no_listing() {
        let glyphs = numbered(&[(10, 0, "alpha = 1;"), (20, 0, "beta = 2;"), (30, 0, "gamma = 3;")]);
        let text = page_text(glyphs);
        assert!(text.lines().all(|l| !l.starts_with("10 ") && !l.starts_with("20 ")), "{text}");
    }

    #[test]
    fn numbered_prose_keeps_its_numbers_apart() {
        // A manuscript's line numbers beside running text, one line of it
        // in a typewriter font: no listing.
        let mut glyphs = Vec::new();
        let lines = ["the first line of text", "goes on to the second", "then a third one", "and then the end"];
        for (i, line) in lines.iter().enumerate() {
            let v = 100.0 + 12.0 * i as f32;
            glyphs.extend(set(&(i + 1).to_string(), 17.0, v, 6.0));
            glyphs.extend(proportional(line, 40.0, v));
        }
        glyphs.extend(set("5", 17.0, 148.0, 6.0));
        glyphs.extend(typed("\\documentclass", 40.0, 148.0));
        let text = page_text(glyphs);
        let words: Vec<&str> = text.split_whitespace().filter(|w| w.parse::<u32>().is_err()).collect();
        assert_eq!(words.join(" "), format!("{} \\documentclass", lines.join(" ")), "{text}");
        assert!(text.lines().all(|l| !l.starts_with("1 the") && !l.starts_with("5 ")), "{text}");
    }

    #[test]
    fn a_page_of_many_numbered_lines_is_read_in_bounded_time() {
        // 10,000 numbered lines of code, and as many entries of a table
        // of contents: each line's neighbours are looked at, never the
        // page's.
        let lines: Vec<(u32, usize, &str)> = (1..=10_000).map(|n| (n, (n % 4) as usize, "let x = 1;")).collect();
        let mut glyphs = numbered(&lines);
        for i in 0..10_000 {
            let v = 100.0 + 12.0 * (10_000 + i) as f32;
            glyphs.extend(proportional("1.2", 0.0, v));
            glyphs.extend(proportional("Title . . . . . .", 30.0, v));
            glyphs.extend(proportional("7", 120.0, v));
        }
        let started = std::time::Instant::now();
        let text = page_text(glyphs);
        assert_eq!(text.matches("let x = 1;").count(), 10_000);
        assert_eq!(text.matches("1.2 Title . . . . . . 7").count(), 10_000, "{}", &text[text.len() - 300..]);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
    }

    #[test]
    fn padding_and_indentation_are_bounded() {
        // A gap of 100 characters inside a line of code, and a line
        // indented by 100 under a long one: at most the caps' spaces.
        let long = format!("{}{}", "x".repeat(110), "end");
        let mut glyphs = typed(&format!("left{}right", " ".repeat(100)), 0.0, 100.0);
        glyphs.extend(typed(&long, 0.0, 112.0));
        glyphs.extend(typed("deep", 600.0, 124.0));
        let paragraphs = page_paragraphs(glyphs);
        let [Paragraph::Code(lines)] = paragraphs.as_slice() else { panic!("{paragraphs:?}") };
        assert_eq!(lines[0], format!("left{}right", " ".repeat(MAX_PADDING)));
        assert_eq!(lines[2], format!("{}deep", " ".repeat(MAX_INDENT)));
    }
}
