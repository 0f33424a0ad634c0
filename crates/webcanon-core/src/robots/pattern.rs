//! Matching one normalised pattern against one normalised path.
//!
//! A pattern is a run of literal pieces separated by `*` wildcards, with an
//! optional `$` end anchor (RFC 9309 §2.2.3). Because `*` matches any run of
//! octets, taking the leftmost occurrence of each piece is always safe: a
//! later occurrence can only leave less room for the pieces that follow.
//! Matching therefore costs one substring search per piece, linear in the
//! path, however many wildcards the pattern holds; there is no backtracking
//! to blow up.

use memchr::{memchr, memmem, memrchr};

use super::normalize::WILDCARD;

/// Whether `pattern` (normalised, wildcards as [`WILDCARD`]) matches `path`
/// (normalised) from its first octet.
#[inline]
pub(crate) fn matches(pattern: &[u8], anchored: bool, path: &[u8]) -> bool {
    let Some(first_wild) = memchr(WILDCARD, pattern) else {
        return if anchored { path == pattern } else { path.starts_with(pattern) };
    };
    let head = &pattern[..first_wild];
    if !path.starts_with(head) {
        return false;
    }
    let last_wild = memrchr(WILDCARD, pattern).unwrap_or(first_wild);
    let tail = &pattern[last_wild + 1..];
    let mut pos = head.len();
    if first_wild < last_wild {
        for piece in pattern[first_wild + 1..last_wild].split(|&b| b == WILDCARD) {
            if piece.is_empty() {
                continue;
            }
            match memmem::find(&path[pos..], piece) {
                Some(found) => pos += found + piece.len(),
                None => return false,
            }
        }
    }
    if anchored {
        path.len() - pos >= tail.len() && path.ends_with(tail)
    } else {
        tail.is_empty() || memmem::find(&path[pos..], tail).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::normalize::normalize_pattern_into;

    fn check(pattern: &str, path: &str) -> bool {
        let mut out = Vec::new();
        let p = normalize_pattern_into(pattern.as_bytes(), &mut out);
        matches(&out, p.anchored, path.as_bytes())
    }

    #[test]
    fn wildcard_and_anchor_table() {
        let cases = [
            ("/", "/anything", true),
            ("/fish", "/fish.html", true),
            ("/fish", "/Fish", false),
            ("/fish$", "/fish", true),
            ("/fish$", "/fish/", false),
            ("/*.php", "/folder/filename.php?p=1", true),
            ("/*.php$", "/filename.php?p=1", false),
            ("/*.php$", "/folder/filename.php", true),
            ("/fish*.php", "/fishheads/catfish.php?p=1", true),
            ("/fish*.php", "/Fish.PHP", false),
            ("*", "/", true),
            ("/*", "/", true),
            ("/a*b*c$", "/abc", true),
            ("/a*b*c$", "/axbxcxc", true),
            ("/a*b*c$", "/axbxcx", false),
            ("/a*bc$", "/abcbc", true),
            ("/a**b", "/ab", true),
            ("/*$", "/x", true),
            ("$", "/", false),
            ("foo", "/foo", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(check(pattern, path), expected, "{pattern:?} vs {path:?}");
        }
    }

    #[test]
    fn anchored_tail_may_not_overlap_consumed_pieces() {
        // "/ab*b$" on "/ab": the tail "b" is there, but only inside "/ab".
        assert!(!check("/ab*b$", "/ab"));
        assert!(check("/ab*b$", "/abb"));
    }

    #[test]
    fn many_wildcards_stay_linear() {
        let pattern = format!("/{}x$", "*a".repeat(2000));
        let path = format!("/{}", "a".repeat(100_000));
        assert!(!check(&pattern, &path));
    }
}
