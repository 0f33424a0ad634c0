//! From a URL to the octets that rules are matched against.

use std::borrow::Cow;

use memchr::{memchr, memchr2, memmem};

use super::normalize::{is_plain, normalize_path_into};

/// The path, `;params` and `?query` of `url`, without the fragment; `/`
/// when the path is empty. `url` may be absolute or start with `/`.
pub(crate) fn path_of(url: &[u8]) -> Cow<'_, [u8]> {
    let url = match memchr(b'#', url) {
        Some(i) => &url[..i],
        None => url,
    };
    let rest = if url.starts_with(b"//") {
        &url[2..]
    } else if url.starts_with(b"/") {
        return Cow::Borrowed(url);
    } else if let Some(i) = scheme_end(url) {
        &url[i..]
    } else {
        // Neither absolute nor a path: take it as a path without its slash.
        let mut owned = Vec::with_capacity(url.len() + 1);
        owned.push(b'/');
        owned.extend_from_slice(url);
        return Cow::Owned(owned);
    };
    // `rest` starts at the authority; the path starts at the first `/` or `?`.
    match memchr2(b'/', b'?', rest) {
        Some(i) if rest[i] == b'/' => Cow::Borrowed(&rest[i..]),
        Some(i) => {
            let mut owned = Vec::with_capacity(rest.len() - i + 1);
            owned.push(b'/');
            owned.extend_from_slice(&rest[i..]);
            Cow::Owned(owned)
        }
        None => Cow::Borrowed(b"/"),
    }
}

/// The end of `scheme://` at the start of `url`, if it has one.
fn scheme_end(url: &[u8]) -> Option<usize> {
    let i = memmem::find(url, b"://")?;
    let scheme = &url[..i];
    let valid = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    valid.then_some(i + 3)
}

/// The normalised path of `url`, ready for matching; `None` when the URL is
/// `/robots.txt`, which RFC 9309 §2.2.2 always allows.
#[inline]
pub(crate) fn matchable_path(url: &[u8]) -> Option<Cow<'_, [u8]>> {
    let path = path_of(url);
    let path = if is_plain(&path) {
        path
    } else {
        let mut out = Vec::new();
        normalize_path_into(&path, &mut out);
        Cow::Owned(out)
    };
    let without_query = match memchr(b'?', &path) {
        Some(i) => &path[..i],
        None => &path[..],
    };
    if without_query == b"/robots.txt" { None } else { Some(path) }
}

/// `path` with each run of slashes in its path part merged into one
/// (`//private//x?a=//b` becomes `/private/x?a=//b`), or `None` when the path
/// part has no repeated slash. Most servers serve `//private/x` as
/// `/private/x`, so a decision is also made on this form and the stricter
/// verdict wins (the query is left as written: servers do not merge it).
#[inline]
pub(crate) fn merged_slashes(path: &[u8]) -> Option<Vec<u8>> {
    let end = memchr(b'?', path).unwrap_or(path.len());
    memchr::memmem::find(&path[..end], b"//")?;
    let mut out = Vec::with_capacity(path.len());
    for (i, &b) in path[..end].iter().enumerate() {
        if !(b == b'/' && i > 0 && path[i - 1] == b'/') {
            out.push(b);
        }
    }
    out.extend_from_slice(&path[end..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_extraction_table() {
        let cases: &[(&str, &str)] = &[
            ("https://example.com/a/b?c=d#frag", "/a/b?c=d"),
            ("https://example.com", "/"),
            ("https://example.com?q=1", "/?q=1"),
            ("https://example.com#top", "/"),
            ("https://user:pw@example.com:8080/x;p?q", "/x;p?q"),
            ("//example.com/x", "/x"),
            ("/x?y", "/x?y"),
            ("/", "/"),
            ("", "/"),
            ("x/y", "/x/y"),
            ("HTTP://EXAMPLE.COM/Path", "/Path"),
        ];
        for (url, expected) in cases {
            assert_eq!(&*path_of(url.as_bytes()), expected.as_bytes(), "url {url:?}");
        }
    }

    #[test]
    fn robots_txt_is_not_matched() {
        assert!(matchable_path(b"https://example.com/robots.txt").is_none());
        assert!(matchable_path(b"/robots.txt?x=1").is_none());
        assert!(matchable_path(b"/robots.txt/x").is_some());
        assert!(matchable_path(b"/Robots.txt").is_some());
    }
}
