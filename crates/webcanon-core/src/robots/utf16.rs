//! robots.txt bodies served in UTF-16.
//!
//! RFC 9309 §2.3 says the file is UTF-8, yet some servers (Windows tools
//! save text as "Unicode") serve UTF-16 with a byte order mark. Read as
//! bytes, every other octet of such a file is NUL, so no rule would parse
//! and its `Disallow` lines would go unheeded. A body that starts with a
//! UTF-16 byte order mark is decoded to UTF-8 first and then parsed like any
//! other; without the mark, bytes are never guessed to be UTF-16.

use super::limits::MAX_PARSE_BYTES;

/// The byte order of a UTF-16 body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    /// Starts with `FF FE`.
    Little,
    /// Starts with `FE FF`.
    Big,
}

impl ByteOrder {
    /// How lint names the encoding.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ByteOrder::Little => "UTF-16LE",
            ByteOrder::Big => "UTF-16BE",
        }
    }
}

/// The byte order announced by `body`'s byte order mark, if it has one.
pub(crate) fn byte_order(body: &[u8]) -> Option<ByteOrder> {
    match body {
        [0xFF, 0xFE, ..] => Some(ByteOrder::Little),
        [0xFE, 0xFF, ..] => Some(ByteOrder::Big),
        _ => None,
    }
}

/// `body` (a UTF-16 body with its mark) decoded to UTF-8, the mark dropped.
///
/// Decoding stops once the text is longer than [`MAX_PARSE_BYTES`]: the
/// parse limit counts the decoded UTF-8 text, so a file is cut at the same
/// line whatever its encoding, and the work is bounded by the limit (each
/// code unit gives at least one byte of text). A lone surrogate becomes
/// U+FFFD and an odd last byte is dropped.
pub(crate) fn decode(body: &[u8], order: ByteOrder) -> String {
    let units = body[2..].chunks_exact(2).map(|pair| match order {
        ByteOrder::Little => u16::from_le_bytes([pair[0], pair[1]]),
        ByteOrder::Big => u16::from_be_bytes([pair[0], pair[1]]),
    });
    let mut text = String::with_capacity((body.len() / 2).min(MAX_PARSE_BYTES + 4));
    for c in char::decode_utf16(units) {
        if text.len() > MAX_PARSE_BYTES {
            break;
        }
        text.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(text: &str, order: ByteOrder) -> Vec<u8> {
        let mut out = match order {
            ByteOrder::Little => vec![0xFF, 0xFE],
            ByteOrder::Big => vec![0xFE, 0xFF],
        };
        for unit in text.encode_utf16() {
            out.extend(match order {
                ByteOrder::Little => unit.to_le_bytes(),
                ByteOrder::Big => unit.to_be_bytes(),
            });
        }
        out
    }

    #[test]
    fn both_byte_orders_decode() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let body = encoded("Disallow: /ツ😀\n", order);
            assert_eq!(byte_order(&body), Some(order));
            assert_eq!(decode(&body, order), "Disallow: /ツ😀\n");
        }
    }

    #[test]
    fn no_mark_is_not_utf16() {
        assert_eq!(byte_order(b"User-agent: *"), None);
        assert_eq!(byte_order(&[0xEF, 0xBB, 0xBF, b'U']), None);
        assert_eq!(byte_order(&[0xFF]), None);
    }

    #[test]
    fn lone_surrogates_and_odd_bytes_do_not_fail() {
        let body = [0xFF, 0xFE, 0x00, 0xD8, b'a', 0x00, 0x41];
        assert_eq!(decode(&body, ByteOrder::Little), "\u{FFFD}a");
    }

    #[test]
    fn decoding_stops_past_the_parse_limit() {
        let body = encoded(&"a".repeat(MAX_PARSE_BYTES * 2), ByteOrder::Big);
        let text = decode(&body, ByteOrder::Big);
        assert!(text.len() > MAX_PARSE_BYTES && text.len() <= MAX_PARSE_BYTES + 4, "{}", text.len());
    }
}
