//! From the layout's paragraphs to Markdown: the lines of each paragraph
//! of prose joined, words hyphenated at a line end put back together where
//! that is safe, Markdown syntax in the text escaped; code fenced as it
//! was set; page breaks marked.

use super::layout::paragraphs::Paragraph;

/// The line that marks where page `number` (counted from 1) begins: every
/// page after the first starts with one, in Markdown and text alike.
///
/// ```
/// assert_eq!(webcanon_extract::pdf::page_marker(2), "--- page 2 ---");
/// ```
pub fn page_marker(number: usize) -> String {
    format!("--- page {number} ---")
}

/// The document: each page's Markdown ([`page_markdown`]), a marker
/// before every page after the first. The title is not repeated (it is in
/// the metadata, and most PDFs print it on their first page).
pub(super) fn assemble(pages: &[String]) -> String {
    let mut out = String::new();
    for (index, page) in pages.iter().enumerate() {
        if index > 0 {
            out.push_str(&page_marker(index + 1));
            out.push_str("\n\n");
        }
        if !page.is_empty() {
            out.push_str(page);
            out.push_str("\n\n");
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// One page's paragraphs as Markdown, a blank line after each: prose
/// joined into one line and escaped, code fenced line for line.
pub(super) fn page_markdown(paragraphs: &[Paragraph]) -> String {
    let mut out = String::new();
    for paragraph in paragraphs {
        match paragraph {
            Paragraph::Prose(lines) => {
                let joined = prose(lines);
                if joined.is_empty() {
                    continue;
                }
                out.push_str(&escape(&joined));
            }
            Paragraph::Code(lines) => match fence(lines) {
                Some(fence) => {
                    out.push_str(fence);
                    for line in lines {
                        out.push('\n');
                        out.push_str(line);
                    }
                    out.push('\n');
                    out.push_str(fence);
                }
                None => out.push_str(&escape(&prose(lines))),
            },
            Paragraph::Table(rows) => out.push_str(&table(rows)),
        }
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out
}

/// The fence for a block of code: backticks, or tildes where a line of it
/// begins with three backticks; `None` where lines begin with both (the
/// block is then read as prose, nothing lost).
fn fence(lines: &[String]) -> Option<&'static str> {
    let begins = |fence: &str| lines.iter().any(|l| l.trim_start().starts_with(fence));
    ["```", "~~~"].into_iter().find(|f| !begins(f))
}

/// The lines of a paragraph joined into one, runs of spaces (the padding
/// of monospaced text) made one.
fn prose(lines: &[String]) -> String {
    let mut paragraph = String::new();
    for line in lines {
        let line = collapse_spaces(line.trim());
        if line.is_empty() {
            continue;
        }
        if paragraph.is_empty() {
            paragraph = line;
        } else {
            join(&mut paragraph, &line);
        }
    }
    paragraph
}

/// `line` with each run of spaces made one.
fn collapse_spaces(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    out
}

/// Appends `next` to `paragraph`: a soft hyphen, or a hyphen at the line
/// end after a letter and a lower-case letter (`hyphen-`, `Oc-`, not
/// `X-` or `e-`) and before a lower-case one, joins the word's halves; text in
/// scripts written without spaces (CJK) is joined without one; anything
/// else with a space.
fn join(paragraph: &mut String, next: &str) {
    if paragraph.ends_with('\u{ad}') {
        paragraph.pop();
        paragraph.push_str(next);
        return;
    }
    let mut tail = paragraph.chars().rev();
    let last = tail.next().unwrap_or(' ');
    let before = tail.next().unwrap_or(' ');
    let after = tail.next().unwrap_or(' ');
    let first = next.chars().next().unwrap_or(' ');
    if last == '-' && before.is_lowercase() && after.is_alphabetic() && first.is_lowercase() {
        paragraph.pop();
    } else if !(is_unspaced_script(last) && is_unspaced_script(first)) {
        paragraph.push(' ');
    }
    paragraph.push_str(next);
}

/// Characters of scripts written without spaces between words (CJK
/// ideographs, kana, fullwidth punctuation).
fn is_unspaced_script(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{ff00}'..='\u{ffef}')
}

/// A table's rows as a Markdown pipe table, the first row its head: each
/// cell's lines joined as a paragraph's are, escaped as prose is, and its
/// pipes.
fn table(rows: &[Vec<Vec<String>>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let row = |cells: &[Vec<String>]| {
        let mut line = String::from("|");
        for k in 0..columns {
            let text = cells.get(k).map_or(String::new(), |c| escape(&prose(c)).replace('|', "\\|"));
            line.push(' ');
            line.push_str(&text);
            line.push_str(" |");
        }
        line
    };
    let mut out = row(rows.first().map_or(&[][..], Vec::as_slice));
    out.push('\n');
    out.push('|');
    out.push_str(&" --- |".repeat(columns));
    for cells in rows.iter().skip(1) {
        out.push('\n');
        out.push_str(&row(cells));
    }
    out
}

/// A paragraph with the characters Markdown would read as syntax escaped:
/// backslashes, code spans, emphasis (an `_` inside a word is left), the
/// bracket that opens a link (`[](0x0)` in a manual is text, not an empty
/// link to drop), a `<` that would open an HTML tag, and a heading or
/// quote marker at its start. The text shape removes the escapes again.
fn escape(paragraph: &str) -> String {
    let mut out = String::with_capacity(paragraph.len() + 8);
    if paragraph.starts_with(['#', '>', '=', '+']) {
        out.push('\\');
    }
    let mut previous = ' ';
    let mut chars = paragraph.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        let in_word = c == '_' && previous.is_alphanumeric() && next.is_alphanumeric();
        let opens_tag = c == '<' && (next.is_ascii_alphabetic() || matches!(next, '/' | '!' | '?'));
        if (matches!(c, '\\' | '`' | '*' | '_' | '[') && !in_word) || opens_tag {
            out.push('\\');
        }
        out.push(c);
        previous = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose_paragraph(lines: &[&str]) -> Paragraph {
        Paragraph::Prose(lines.iter().map(|l| l.to_string()).collect())
    }

    fn code_paragraph(lines: &[&str]) -> Paragraph {
        Paragraph::Code(lines.iter().map(|l| l.to_string()).collect())
    }

    #[test]
    fn lines_of_prose_are_joined_and_paragraphs_part_by_a_blank_line() {
        let page = [
            prose_paragraph(&["The first line of a paragraph that goes on", "and   stops here."]),
            prose_paragraph(&["A new paragraph."]),
            prose_paragraph(&[" "]),
        ];
        assert_eq!(
            page_markdown(&page),
            "The first line of a paragraph that goes on and stops here.\n\nA new paragraph."
        );
    }

    #[test]
    fn code_is_fenced_line_for_line() {
        let page = [prose_paragraph(&["Run it:"]), code_paragraph(&["fn main() {", "    let _x = 1;", "}"])];
        assert_eq!(page_markdown(&page), "Run it:\n\n```\nfn main() {\n    let _x = 1;\n}\n```");
        // A line that would close the fence: tildes instead; both: prose.
        assert_eq!(page_markdown(&[code_paragraph(&["```rust", "x"])]), "~~~\n```rust\nx\n~~~");
        assert_eq!(page_markdown(&[code_paragraph(&["```", "~~~ x"])]), "\\`\\`\\` ~~~ x");
    }

    #[test]
    fn hyphenation_is_repaired_only_inside_a_word_going_on_in_lower_case() {
        let mut p = String::from("a word that was hyphen-");
        join(&mut p, "ated at the end");
        assert_eq!(p, "a word that was hyphenated at the end");
        // A capital may begin the word.
        let mut p = String::from("throw-away Oc-");
        join(&mut p, "tave programs");
        assert_eq!(p, "throw-away Octave programs");
        // A one-letter prefix is a word of its own (e-mail, X-ray).
        let mut p = String::from("send an e-");
        join(&mut p, "mail");
        assert_eq!(p, "send an e- mail");
        let mut p = String::from("the Jean-");
        join(&mut p, "Paul case");
        assert_eq!(p, "the Jean- Paul case");
        let mut p = String::from("soft\u{ad}");
        join(&mut p, "ware");
        assert_eq!(p, "software");
        let mut p = String::from("中文");
        join(&mut p, "文本");
        assert_eq!(p, "中文文本");
    }

    #[test]
    fn markdown_syntax_is_escaped() {
        assert_eq!(
            escape("# not a heading with *stars* and snake_case or _x_"),
            "\\# not a heading with \\*stars\\* and snake_case or \\_x\\_"
        );
    }

    #[test]
    fn brackets_and_tags_in_the_text_survive_every_shape() {
        use crate::shape::{ContentFormat, ContentShape, LinkStyle};
        let text = "size, def. [](0x0); see [1] and <b>bold</b> where a < b";
        let markdown = page_markdown(&[prose_paragraph(&[text])]);
        assert_eq!(markdown.trim_end(), "size, def. \\[](0x0); see \\[1] and \\<b>bold\\</b> where a < b");
        let plain = ContentShape { format: ContentFormat::Text, ..ContentShape::default() };
        assert_eq!(plain.apply(&markdown).trim_end(), text);
        let references = ContentShape { links: LinkStyle::References, ..ContentShape::default() };
        assert_eq!(references.apply(&markdown), markdown);
    }

    #[test]
    fn a_table_is_a_pipe_table_its_first_row_the_head() {
        let cell = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let rows = vec![
            vec![cell(&["Operator"]), cell(&["Meaning"])],
            vec![cell(&["a | b"]), cell(&["*or*, a replace-", "ment for it"])],
            vec![cell(&["!"])],
        ];
        let markdown = page_markdown(&[Paragraph::Table(rows)]);
        assert_eq!(
            markdown.trim_end(),
            "| Operator | Meaning |\n| --- | --- |\n| a \\| b | \\*or\\*, a replacement for it |\n| ! |  |"
        );
    }

    #[test]
    fn pages_after_the_first_are_marked() {
        let pages = vec!["One.".to_string(), "Two.".to_string()];
        assert_eq!(assemble(&pages), "One.\n\n--- page 2 ---\n\nTwo.");
    }
}
