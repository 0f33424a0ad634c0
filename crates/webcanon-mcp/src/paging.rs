//! Paging long text by characters (Unicode scalar values), never by bytes,
//! so a page never splits a character.

use std::fmt;

/// One page of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Page<'a> {
    /// The characters of the page.
    pub text: &'a str,
    /// The index of its first character.
    pub start_index: usize,
    /// One past the index of its last character.
    pub end_index: usize,
    /// How many characters the whole text has.
    pub total_length: usize,
}

impl Page<'_> {
    /// Where the next page starts, when there is more.
    pub fn next_start_index(&self) -> Option<usize> {
        (self.end_index < self.total_length).then_some(self.end_index)
    }
}

/// `start_index` is past the end of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PastTheEnd {
    pub start_index: usize,
    pub total_length: usize,
}

impl fmt::Display for PastTheEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "start_index {} is past the end of the content, which has {} characters; \
             the last page starts below {}",
            self.start_index, self.total_length, self.total_length
        )
    }
}

/// The page of `text` of at most `max_length` characters starting at
/// character `start_index`. An empty text has one empty page at 0; any other
/// start at or past the end is an error.
pub(crate) fn page(text: &str, start_index: usize, max_length: usize) -> Result<Page<'_>, PastTheEnd> {
    let total_length = text.chars().count();
    if start_index > 0 && start_index >= total_length {
        return Err(PastTheEnd { start_index, total_length });
    }
    let end_index = start_index.saturating_add(max_length).min(total_length);
    // The byte offset of every character, then the end of the text.
    let mut boundaries = text.char_indices().map(|(byte, _)| byte).chain(std::iter::once(text.len()));
    let start_byte = boundaries.nth(start_index).unwrap_or(text.len());
    let end_byte = match end_index - start_index {
        0 => start_byte,
        length => boundaries.nth(length - 1).unwrap_or(text.len()),
    };
    Ok(Page { text: &text[start_byte..end_byte], start_index, end_index, total_length })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_counted_in_characters() {
        let text = "héllo wörld ✓ done";
        let rows = [
            (0, 5, "héllo", Some(5)),
            (5, 7, " wörld ", Some(12)),
            (12, 3, "✓ d", Some(15)),
            (15, 100, "one", None),
            (0, 1000, text, None),
        ];
        for (start, max, expected, next) in rows {
            let page = page(text, start, max).unwrap();
            assert_eq!(page.text, expected, "start {start} max {max}");
            assert_eq!(page.total_length, 18);
            assert_eq!(page.next_start_index(), next, "start {start} max {max}");
        }
    }

    #[test]
    fn consecutive_pages_join_to_the_whole_text() {
        let text: String = (0..500)
            .map(|i| char::from_u32(0x41 + (i % 26) as u32 + if i % 7 == 0 { 0x100 } else { 0 }).unwrap())
            .collect();
        for max in [1, 3, 64, 499, 500, 501] {
            let mut joined = String::new();
            let mut start = Some(0);
            while let Some(index) = start {
                let page = page(&text, index, max).unwrap();
                joined.push_str(page.text);
                start = page.next_start_index();
            }
            assert_eq!(joined, text, "max {max}");
        }
    }

    #[test]
    fn past_the_end_is_an_error_except_for_empty_text() {
        assert_eq!(page("", 0, 10).unwrap(), Page { text: "", start_index: 0, end_index: 0, total_length: 0 });
        assert_eq!(page("abc", 3, 10), Err(PastTheEnd { start_index: 3, total_length: 3 }));
        assert_eq!(page("abc", 99, 10), Err(PastTheEnd { start_index: 99, total_length: 3 }));
        assert_eq!(page("", 1, 10), Err(PastTheEnd { start_index: 1, total_length: 0 }));
        assert_eq!(page("abc", 2, 10).unwrap().text, "c");
    }
}
