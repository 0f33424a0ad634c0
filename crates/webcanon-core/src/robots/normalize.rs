//! Percent-encoding normalisation of rule patterns and URL paths.
//!
//! RFC 9309 §2.2.2 compares rules and URLs after both are brought to one
//! form. The form chosen here:
//!
//! - octets outside printable US-ASCII (and the space) are `%XX`-encoded,
//!   so a UTF-8 path written raw equals the same path written encoded;
//! - the hex digits of an escape are upper-cased (`%e3` is `%E3`);
//! - escapes of unreserved characters (`A–Z a–z 0–9 - . _ ~`) are decoded,
//!   because RFC 3986 §6.2.2.2 makes them equivalent (`%62%61%7A` is `baz`);
//! - escapes of reserved characters stay as written: `%2F` is not `/`;
//! - `%2A` and `%24` are decoded to a literal `*` and `$` (RFC 9309 §2.2.3:
//!   a rule matches those characters verbatim only through these escapes).
//!
//! In a pattern a raw `*` is a wildcard and a trailing raw `$` an end anchor.
//! Patterns are stored with [`WILDCARD`] in place of each raw `*`; that byte
//! can never occur in a normalised path, which encodes every octet above
//! 0x7E.

/// The byte that stands for a `*` wildcard in a normalised pattern.
pub(crate) const WILDCARD: u8 = 0xFF;

/// Whether `b` needs `%XX` encoding in the normalised form.
#[inline]
fn needs_encoding(b: u8) -> bool {
    b <= b' ' || b >= 0x7F
}

#[inline]
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

#[inline]
fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

#[inline]
fn push_escaped(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(&[b'%', HEX_UPPER[usize::from(b >> 4)], HEX_UPPER[usize::from(b & 15)]]);
}

/// Whether `bytes` is already in normalised form, so it can be matched as is.
///
/// Most real paths and patterns are plain ASCII without escapes; checking
/// first lets the hot path skip the copy.
#[inline]
pub(crate) fn is_plain(bytes: &[u8]) -> bool {
    none_of(bytes, |b| needs_encoding(b) | (b == b'%'))
}

/// Whether a plain pattern is also free of wildcards: copied as is.
#[inline]
fn is_plain_literal(bytes: &[u8]) -> bool {
    none_of(bytes, |b| needs_encoding(b) | (b == b'%') | (b == b'*'))
}

/// Whether no byte of `bytes` is `special`: sixteen bytes at a time without
/// a branch per byte, which the compiler turns into vector compares.
#[inline(always)]
pub(crate) fn none_of(bytes: &[u8], special: impl Fn(u8) -> bool) -> bool {
    let mut chunks = bytes.chunks_exact(16);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |seen, &b| seen | special(b)) {
            return false;
        }
    }
    !chunks.remainder().iter().any(|&b| special(b))
}

/// Appends the normalised form of one `%` escape or octet at `input[i..]` to
/// `out` and returns how many input octets it consumed.
#[inline]
fn normalize_one(input: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let b = input[i];
    if b == b'%' {
        if let (Some(h), Some(l)) =
            (input.get(i + 1).and_then(|&h| hex_value(h)), input.get(i + 2).and_then(|&l| hex_value(l)))
        {
            let decoded = h << 4 | l;
            if is_unreserved(decoded) || decoded == b'*' || decoded == b'$' {
                out.push(decoded);
            } else {
                push_escaped(out, decoded);
            }
            return 3;
        }
        // A lone `%` is kept as written on both sides, so it still compares.
        out.push(b'%');
        1
    } else if needs_encoding(b) {
        push_escaped(out, b);
        1
    } else {
        out.push(b);
        1
    }
}

/// Normalises a URL path (with params and query) into `out`.
pub(crate) fn normalize_path_into(path: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(path.len());
    let mut i = 0;
    while i < path.len() {
        i += normalize_one(path, i, out);
    }
}

/// A rule pattern after normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NormalizedPattern {
    /// Whether the pattern ends with the `$` anchor.
    pub anchored: bool,
    /// The precedence length: octets after normalisation, counting each `*`
    /// and the `$` anchor as one, as Google's reference parser counts them.
    pub priority: u32,
}

/// Normalises a rule pattern, appending it to `out` with [`WILDCARD`] for
/// each raw `*`. The end anchor is not written; it is returned as a flag.
pub(crate) fn normalize_pattern_into(pattern: &[u8], out: &mut Vec<u8>) -> NormalizedPattern {
    let start = out.len();
    let (body, anchored) = match pattern.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (pattern, false),
    };
    if is_plain_literal(body) {
        out.extend_from_slice(body);
    } else {
        // Runs of plain bytes are copied whole; only the bytes between them
        // (`*`, `%`, octets to encode) are looked at one by one.
        let special = |b: u8| needs_encoding(b) | (b == b'%') | (b == b'*');
        let mut i = 0;
        while i < body.len() {
            let run = body[i..].iter().position(|&b| special(b)).unwrap_or(body.len() - i);
            out.extend_from_slice(&body[i..i + run]);
            i += run;
            match body.get(i) {
                None => break,
                Some(b'*') => {
                    out.push(WILDCARD);
                    i += 1;
                }
                Some(_) => i += normalize_one(body, i, out),
            }
        }
    }
    let len = out.len() - start + usize::from(anchored);
    NormalizedPattern { anchored, priority: u32::try_from(len).unwrap_or(u32::MAX) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(input: &str) -> String {
        let mut out = Vec::new();
        normalize_path_into(input.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    fn pattern(input: &str) -> (String, bool, u32) {
        let mut out = Vec::new();
        let p = normalize_pattern_into(input.as_bytes(), &mut out);
        let text: String = out.iter().map(|&b| if b == WILDCARD { '*' } else { b as char }).collect();
        (text, p.anchored, p.priority)
    }

    #[test]
    fn paths_are_normalised_as_rfc_9309_says() {
        let cases = [
            ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
            ("/foo/bar/\u{30c4}", "/foo/bar/%E3%83%84"),
            ("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84"),
            ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
            ("/a%2Fb", "/a%2Fb"),
            ("/a%2fb", "/a%2Fb"),
            ("/a b", "/a%20b"),
            ("/100%", "/100%"),
            ("/%zz", "/%zz"),
            ("/file-%2A.html", "/file-*.html"),
            ("/foo-%24", "/foo-$"),
            ("/~user/%7Euser", "/~user/~user"),
        ];
        for (input, expected) in cases {
            assert_eq!(path(input), expected, "path {input:?}");
        }
    }

    #[test]
    fn patterns_keep_wildcards_and_anchor_apart_from_escapes() {
        assert_eq!(pattern("/*.pdf$"), ("/*.pdf".into(), true, 7));
        assert_eq!(pattern("/a%2A"), ("/a*".into(), false, 3));
        assert_eq!(pattern("/a$b"), ("/a$b".into(), false, 4));
        assert_eq!(pattern("/a%24"), ("/a$".into(), false, 3));
        assert_eq!(pattern("/\u{30c4}"), ("/%E3%83%84".into(), false, 10));
        assert_eq!(pattern("$"), ("".into(), true, 1));
        assert_eq!(pattern(""), ("".into(), false, 0));
    }

    #[test]
    fn plain_detection() {
        assert!(is_plain(b"/a/b?c=d"));
        assert!(!is_plain(b"/a%20"));
        assert!(!is_plain("/\u{e9}".as_bytes()));
        assert!(!is_plain(b"/a b"));
        // Past the first sixteen bytes too, and in the tail.
        assert!(is_plain(b"/a-long/path/that-spans/several/chunks?x=1"));
        assert!(!is_plain(b"/a-long/path/that-spans/several/chunks?x=%201234567"));
        assert!(!is_plain(b"/0123456789abcdef/0123456789abcdef/\x7f"));
        assert!(!is_plain("/0123456789abcdef/\u{e9}0123456789abcdef".as_bytes()));
        assert!(is_plain_literal(b"/0123456789abcdef/0123456789abcdef/"));
        assert!(!is_plain_literal(b"/0123456789abcdef/0123456789abcdef*/"));
    }
}
