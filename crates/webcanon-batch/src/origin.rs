//! URLs to origins, and origins to shards.
//!
//! The origin of a URL is the WHATWG ASCII serialisation
//! (`scheme://host[:port]`, default port left out, host lower-cased and
//! IDNA-encoded), exactly what the live client keys its robots cache on.
//! Shards split work by a stable hash of that string, so N machines can each
//! take one shard with no coordination.

use std::fmt;
use std::str::FromStr;

use url::Url;

use crate::BatchError;

/// A URL the batch can decide: parsed, http or https, with a host.
#[derive(Debug, Clone)]
pub struct ParsedUrl {
    /// The parsed URL (normalised by the WHATWG parser).
    pub url: Url,
    /// Its origin, `scheme://host[:port]`.
    pub origin: String,
}

/// Parses `input` the way the live client does: the WHATWG URL parser, then
/// only `http` and `https` with a host. The error says why not. A row read
/// from bytes that are not UTF-8 ([`UNDECODABLE`](crate::UNDECODABLE)) is not a URL.
pub fn parse_url(input: &str) -> Result<Url, String> {
    if input.contains(crate::undecodable::UNDECODABLE) {
        return Err("not valid UTF-8: the line holds bytes that are not UTF-8 (shown as U+FDD0)".into());
    }
    webcanon_client::web_url::parse(input).map_err(|e| e.to_string())
}

/// Writes the origin of a parsed http(s) URL into `out` (cleared first),
/// without allocating when `out` has room.
pub fn write_origin(url: &Url, out: &mut String) {
    use std::fmt::Write;
    out.clear();
    out.push_str(url.scheme());
    out.push_str("://");
    // The host as the URL standard serializes it (IPv6 in brackets and in
    // its compressed form, `[::ffff:102:304]` for a mapped IPv4 address),
    // as the live client's cache keys it.
    if let Some(host) = url.host_str() {
        out.push_str(host);
    }
    if let Some(port) = url.port() {
        let _ = write!(out, ":{port}");
    }
}

/// The length of the origin at the start of `input` when `input` is already
/// exactly what the WHATWG parser would make of it, so that parsing can be
/// skipped: `http://` or `https://`, a host of lower-case ASCII letters,
/// digits, `-` and `.` (no empty label, no `xn--` label, the last label
/// starting with a letter so it is no IPv4 number), an optional port
/// without leading zeros that is not the scheme's default, then a path
/// starting with `/` of characters the parser leaves as they are and no
/// dot segment, and an optional query and fragment of the same kind.
/// Anything else (`None`) takes the full parser; nothing the parser would
/// change is ever accepted here (property-tested against the `url` crate).
pub fn canonical_origin_len(input: &str) -> Option<usize> {
    let b = input.as_bytes();
    let (host_start, default_port): (usize, &[u8]) = if b.starts_with(b"https://") {
        (8, b"443")
    } else if b.starts_with(b"http://") {
        (7, b"80")
    } else {
        return None;
    };
    let mut i = host_start;
    let mut label_start = i;
    while i < b.len() {
        match b[i] {
            b'a'..=b'z' | b'0'..=b'9' | b'-' => i += 1,
            b'.' => {
                if i == label_start || b[label_start..i].starts_with(b"xn--") {
                    return None;
                }
                i += 1;
                label_start = i;
            }
            _ => break,
        }
    }
    let last_label = &b[label_start..i];
    if last_label.is_empty() || !last_label[0].is_ascii_lowercase() || last_label.starts_with(b"xn--") {
        return None;
    }
    if b.get(i) == Some(&b':') {
        let digits_start = i + 1;
        let mut j = digits_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let port = &b[digits_start..j];
        if port.is_empty() || port[0] == b'0' || port.len() > 5 || port == default_port {
            return None;
        }
        let value = port.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
        if value > 65_535 {
            return None;
        }
        i = j;
    }
    let origin_len = i;
    if b.get(i) != Some(&b'/') {
        return None;
    }
    // Path segments, then query and fragment.
    let mut segment_start = i + 1;
    let mut part = Part::Path;
    for (k, &c) in b.iter().enumerate().skip(i + 1) {
        let plain = c.is_ascii_alphanumeric() || b"-._~!$&()*+,;=:@%".contains(&c);
        match (part, c) {
            (_, _) if plain => {}
            (Part::Path, b'/' | b'?' | b'#') => {
                if is_dot_segment(&b[segment_start..k]) {
                    return None;
                }
                segment_start = k + 1;
                part = match c {
                    b'?' => Part::Query,
                    b'#' => Part::Fragment,
                    _ => Part::Path,
                };
            }
            (Part::Query, b'/' | b'?') | (Part::Fragment, b'/' | b'?') => {}
            (Part::Query, b'#') => part = Part::Fragment,
            _ => return None,
        }
    }
    if part == Part::Path && is_dot_segment(&b[segment_start..]) {
        return None;
    }
    Some(origin_len)
}

/// Where in a URL the fast check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Path,
    Query,
    Fragment,
}

/// `.`, `..` and their percent-encoded spellings, which the parser resolves.
fn is_dot_segment(segment: &[u8]) -> bool {
    let lower = segment.to_ascii_lowercase();
    matches!(lower.as_slice(), b"." | b".." | b".%2e" | b"%2e." | b"%2e%2e" | b"%2e")
}

/// The origin of `input`, or why it is not a URL the batch can decide.
pub fn origin_of(input: &str) -> Result<ParsedUrl, String> {
    let url = parse_url(input)?;
    let mut origin = String::with_capacity(input.len().min(64));
    write_origin(&url, &mut origin);
    Ok(ParsedUrl { url, origin })
}

/// The host part of an origin (`https://a.example:8443` → `a.example`):
/// the unit of politeness, shared by http and https and every port.
pub fn host_of_origin(origin: &str) -> &str {
    let rest = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    if let Some(v6) = rest.strip_prefix('[') {
        return v6.split_once(']').map_or(rest, |(host, _)| host);
    }
    rest.rsplit_once(':').filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit())).map_or(rest, |(h, _)| h)
}

/// FNV-1a, 64 bits, over the bytes of `key`: the shard hash. Stable across
/// machines, platforms and versions; easy to reproduce anywhere
/// (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`).
pub fn shard_hash(key: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key.as_bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// One shard of N: the rows whose key hashes to `index` modulo `count`.
///
/// The key of a row is the origin of its URL; a row whose URL is invalid
/// has no origin and is keyed by its text as given, so it still lands in
/// exactly one shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards there are.
    pub count: u32,
}

impl Shard {
    /// The whole input as one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// A shard, checked: `count > 0` and `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, BatchError> {
        let value = format!("{index}/{count}");
        if count == 0 {
            return Err(BatchError::BadShard { value, reason: "the shard count must be at least 1".into() });
        }
        if index >= count {
            return Err(BatchError::BadShard {
                value,
                reason: format!("the shard index must be below the count (0..{count})"),
            });
        }
        Ok(Shard { index, count })
    }

    /// Whether a row keyed by `key` belongs to this shard.
    #[inline]
    pub fn contains(&self, key: &str) -> bool {
        self.count == 1 || shard_hash(key) % u64::from(self.count) == u64::from(self.index)
    }
}

impl FromStr for Shard {
    type Err = BatchError;

    fn from_str(s: &str) -> Result<Shard, BatchError> {
        let bad = |reason: &str| BatchError::BadShard { value: s.to_string(), reason: reason.to_string() };
        let (index, count) = s.split_once('/').ok_or_else(|| bad("expected I/N, e.g. 0/4"))?;
        let index: u32 = index.trim().parse().map_err(|_| bad("the index is not a whole number"))?;
        let count: u32 = count.trim().parse().map_err(|_| bad("the count is not a whole number"))?;
        Shard::new(index, count).map_err(|e| match e {
            BatchError::BadShard { reason, .. } => bad(&reason),
            other => other,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// When the fast check accepts a URL, the full parser leaves it as it
    /// is and agrees on the origin.
    fn agrees_with_the_parser(input: &str) -> bool {
        match canonical_origin_len(input) {
            None => true,
            Some(len) => {
                let parsed = origin_of(input).unwrap_or_else(|e| panic!("{input:?} accepted but not a URL: {e}"));
                assert_eq!(parsed.url.as_str(), input, "{input:?} accepted but the parser changes it");
                assert_eq!(&input[..len], parsed.origin, "{input:?}");
                true
            }
        }
    }

    #[test]
    fn the_fast_check_takes_canonical_urls_and_leaves_the_rest_to_the_parser() {
        let table: [(&str, Option<usize>); 34] = [
            ("https://example.com/", Some(19)),
            ("http://a.example:8080/x?y#z", Some(21)),
            ("https://example.com/.well-known/tdmrep.json", Some(19)),
            ("https://example.com/a/b.c/..d/e?x=/../#/./", Some(19)),
            ("https://example.com/a%2Fb%zz", Some(19)),
            ("https://example.com/x?a=1&b=(2)*;@:", Some(19)),
            ("https://example.com", None),
            ("https://example.com?x", None),
            ("https://Example.com/", None),
            ("HTTPS://example.com/", None),
            ("https://example.com:443/", None),
            ("http://example.com:80/", None),
            ("http://example.com:080/", None),
            ("http://example.com:65536/", None),
            ("http://example.com:/", None),
            ("https://127.0.0.1/", None),
            ("https://a.0x10/", None),
            ("https://a.b.9/", None),
            ("https://example.com./", None),
            ("https://a..b/", None),
            ("https://xn--bcher-kva.example/", None),
            ("https://user@example.com/", None),
            ("https://[::1]/", None),
            ("https://bücher.example/", None),
            ("https://example.com/a/./b", None),
            ("https://example.com/a/../b", None),
            ("https://example.com/a/%2E%2e/b", None),
            ("https://example.com/a/..", None),
            ("https://example.com/a b", None),
            ("https://example.com/a\\b", None),
            ("https://example.com/a'b", None),
            ("https://example.com/?a'b", None),
            ("https://example.com/a#b#c", None),
            ("ftp://example.com/", None),
        ];
        for (input, expected) in table {
            assert_eq!(canonical_origin_len(input), expected, "{input:?}");
            assert!(agrees_with_the_parser(input));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn the_fast_check_never_accepts_what_the_parser_changes(
            input in "(https?|HTTP)://([a-zA-Z0-9-]{0,6}[.]){0,3}[a-zA-Z0-9-]{0,6}(:[0-9]{0,6})?(/|[?#])?[a-zA-Z0-9._~%:@!$&'()*+,;=/?# \\\\^`{}|\\[\\]\"<>-]{0,24}"
        ) {
            prop_assert!(agrees_with_the_parser(&input));
        }

        #[test]
        fn the_fast_check_with_dot_segments_and_percent_dots(
            input in "https://a\\.example(/(\\.|\\.\\.|%2[eE]|[.]%2[eE]|x|\\.x)){0,5}([?#][./a%]{0,4})?"
        ) {
            prop_assert!(agrees_with_the_parser(&input));
        }
    }

    #[test]
    fn origins_match_the_url_crate() {
        for input in [
            "https://Example.COM/a?b#c",
            "http://example.com:80/x",
            "http://example.com:8080/x",
            "https://[::1]:8443/x",
            "http://[::ffff:1.2.3.4]/x",
            "http://[2001:DB8:0:0:0:0:0:1]:8080/",
            "https://bücher.example/",
            "HTTP://user:pw@a.example./p",
            "https://127.0.0.1/",
        ] {
            let parsed = origin_of(input).unwrap();
            assert_eq!(parsed.origin, parsed.url.origin().ascii_serialization(), "{input}");
        }
    }

    #[test]
    fn invalid_urls_say_why() {
        let rows = [
            ("not a url", "relative URL without a base"),
            ("ftp://example.com/", "scheme `ftp` is not http or https"),
            ("mailto:a@example.com", "scheme `mailto` is not http or https"),
            ("", "relative URL without a base"),
        ];
        for (input, reason) in rows {
            assert_eq!(origin_of(input).unwrap_err(), reason, "{input}");
        }
    }

    #[test]
    fn hosts_of_origins() {
        let rows = [
            ("https://a.example", "a.example"),
            ("http://a.example:8080", "a.example"),
            ("https://[::1]:8443", "::1"),
            ("https://[::1]", "::1"),
            ("http://127.0.0.1:80", "127.0.0.1"),
        ];
        for (origin, host) in rows {
            assert_eq!(host_of_origin(origin), host, "{origin}");
        }
    }

    #[test]
    fn the_shard_hash_is_fnv1a_64() {
        // Reference values of FNV-1a 64.
        assert_eq!(shard_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(shard_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(shard_hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!("2/8".parse::<Shard>().unwrap(), Shard { index: 2, count: 8 });
        for (value, reason) in [
            ("8/8", "below the count"),
            ("1/0", "at least 1"),
            ("x/2", "index is not"),
            ("1", "expected I/N"),
            ("1/-2", "count is not"),
        ] {
            let err = value.parse::<Shard>().unwrap_err().to_string();
            assert!(err.contains(reason) && err.contains(value), "{value}: {err}");
        }
    }
}
