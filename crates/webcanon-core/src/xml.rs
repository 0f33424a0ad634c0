//! What the XML readers (sitemaps, RSL documents) share over quick-xml:
//! line numbers for their findings, attribute values, the entities
//! resolved without a DOCTYPE, and the reason a DOCTYPE is refused.
//!
//! Neither reader expands entities a document declares: a DOCTYPE is
//! refused outright ([`DOCTYPE_REFUSED`]), so the only references resolved
//! are the five predefined entities and character references
//! ([`resolve_reference`]), and no input expands past its own size.

use quick_xml::events::{BytesRef, BytesStart};

/// Why a document with a DOCTYPE is not read, as both readers word it.
pub(crate) const DOCTYPE_REFUSED: &str = "a DOCTYPE is refused (entity declarations could expand without bound)";

/// Counts lines up to a byte offset of the document being read; offsets
/// only grow, so each byte is counted once.
pub(crate) struct LineCounter<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u32,
}

impl<'a> LineCounter<'a> {
    /// A counter at line 1 of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> LineCounter<'a> {
        LineCounter { bytes, pos: 0, line: 1 }
    }

    /// The line of byte offset `pos` (a reader's position; past the end
    /// means the last line).
    pub(crate) fn at(&mut self, pos: u64) -> u32 {
        let pos = usize::try_from(pos).unwrap_or(usize::MAX).min(self.bytes.len());
        if pos > self.pos {
            let newlines = memchr::memchr_iter(b'\n', &self.bytes[self.pos..pos]).count();
            self.line = self.line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            self.pos = pos;
        }
        self.line
    }
}

/// An attribute's value by local name, its references resolved when they
/// can be (as written otherwise).
pub(crate) fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes().with_checks(false).flatten().find(|a| a.key.local_name().as_ref() == key).map(|a| {
        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| a.value.to_string())
    })
}

/// The character a reference in text stands for: one of the five
/// predefined entities (XML 1.0 §4.6) or a character reference; `None`
/// for any other name, which without a DOCTYPE is declared nowhere.
pub(crate) fn resolve_reference(r: &BytesRef<'_>) -> Option<char> {
    match &**r {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => r.resolve_char_ref().ok().flatten(),
    }
}

#[cfg(test)]
mod tests {
    use quick_xml::Reader;
    use quick_xml::events::Event;

    use super::*;

    /// The references of `text`, each resolved.
    fn references(text: &str) -> Vec<Option<char>> {
        let mut reader = Reader::from_str(text);
        let mut found = Vec::new();
        loop {
            match reader.read_event().unwrap() {
                Event::GeneralRef(r) => found.push(resolve_reference(&r)),
                Event::Eof => return found,
                _ => {}
            }
        }
    }

    #[test]
    fn predefined_and_character_references_resolve_and_others_do_not() {
        let text = "<a>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&nbsp;&bomb;</a>";
        let expected = [Some('<'), Some('>'), Some('&'), Some('\''), Some('"'), Some('A'), Some('B'), None, None];
        assert_eq!(references(text), expected);
    }

    #[test]
    fn lines_count_up_to_each_offset_once() {
        let mut lines = LineCounter::new(b"a\nb\n\nc");
        assert_eq!(lines.at(0), 1);
        assert_eq!(lines.at(2), 2);
        assert_eq!(lines.at(1), 2, "an earlier offset keeps the line reached");
        assert_eq!(lines.at(5), 4);
        assert_eq!(lines.at(u64::MAX), 4);
    }

    #[test]
    fn attributes_are_found_by_local_name_and_unescaped() {
        let mut reader = Reader::from_str(r#"<x a:href="/p?x=1&amp;y=2" title=" t "/>"#);
        let Ok(Event::Empty(e)) = reader.read_event() else { panic!("an empty element") };
        assert_eq!(attr(&e, "href").as_deref(), Some("/p?x=1&y=2"));
        assert_eq!(attr(&e, "title").as_deref(), Some(" t "));
        assert_eq!(attr(&e, "missing"), None);
    }
}
