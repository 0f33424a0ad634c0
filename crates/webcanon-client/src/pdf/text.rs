//! From the layout's paragraphs to Markdown: the lines of each paragraph
//! joined, words hyphenated at a line end put back together where that is
//! safe, page breaks marked, Markdown syntax in the text escaped.

/// The line that marks where page `number` (counted from 1) begins: every
/// page after the first starts with one, in Markdown and text alike.
///
/// ```
/// assert_eq!(webcanon_client::pdf::page_marker(2), "--- page 2 ---");
/// ```
pub fn page_marker(number: usize) -> String {
    format!("--- page {number} ---")
}

/// The document: each page's paragraphs, a marker before every page after
/// the first. The title is not repeated (it is in the metadata, and most
/// PDFs print it on their first page).
pub(super) fn assemble(pages: &[String]) -> String {
    let mut out = String::new();
    for (index, page) in pages.iter().enumerate() {
        if index > 0 {
            out.push_str(&page_marker(index + 1));
            out.push_str("\n\n");
        }
        for paragraph in paragraphs(page) {
            out.push_str(&escape(&paragraph));
            out.push_str("\n\n");
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// The paragraphs of one page, as the layout set them apart (blank lines
/// between paragraphs, one line per line), each joined into one line.
fn paragraphs(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in page.split("\n\n") {
        let mut paragraph = String::new();
        for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if paragraph.is_empty() {
                paragraph.push_str(line);
            } else {
                join(&mut paragraph, line);
            }
        }
        if !paragraph.is_empty() {
            out.push(paragraph);
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

/// A paragraph with the characters Markdown would read as syntax escaped:
/// backslashes, code spans, emphasis (an `_` inside a word is left), and a
/// heading or quote marker at its start. The text shape removes the
/// escapes again.
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
        if matches!(c, '\\' | '`' | '*' | '_') && !in_word {
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

    #[test]
    fn lines_of_a_paragraph_are_joined_and_blank_lines_part_paragraphs() {
        let page = "The first line of a paragraph that goes on\nand stops here.\n\nA new paragraph.";
        assert_eq!(
            paragraphs(page),
            ["The first line of a paragraph that goes on and stops here.", "A new paragraph."]
        );
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
    fn pages_after_the_first_are_marked() {
        let pages = vec!["One.".to_string(), "Two.".to_string()];
        assert_eq!(assemble(&pages), "One.\n\n--- page 2 ---\n\nTwo.");
    }
}
