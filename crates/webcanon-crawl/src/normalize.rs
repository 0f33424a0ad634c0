//! URL normalisation for the seen set: two URLs that name the same page
//! the same way after these steps are one entry of the frontier.
//!
//! The `url` crate's parse already lower-cases the scheme and the host,
//! drops the default port, resolves `.` and `..` segments and gives an
//! empty path as `/` (WHATWG URL Standard). [`NormalizedUrl::new`] adds:
//!
//! 1. only `http` and `https` are accepted;
//! 2. the fragment is dropped (it never reaches the server);
//! 3. percent-escapes are written in upper case, and escapes of unreserved
//!    characters (`A-Z a-z 0-9 - . _ ~`) are decoded (RFC 3986 §6.2.2.2);
//! 4. session ids in path parameters (`;jsessionid=…`) are removed;
//! 5. query parameters named in [`TRACKING_PARAMETERS`] or
//!    [`SESSION_PARAMETERS`], or starting with `utm_`, are removed (names
//!    compared without case); the others keep their order, and an empty
//!    query is dropped;
//! 6. a URL longer than [`MAX_URL_BYTES`] is refused.

use url::Url;

/// The longest normalised URL accepted, in bytes. Longer URLs are almost
/// always traps (a path that grows on every page) or garbage; most servers
/// refuse them, and the sitemap protocol caps URLs at 2,048 characters.
pub const MAX_URL_BYTES: usize = 2_048;

/// Query parameters that only track a visit, removed from every URL.
/// Names are compared in lower case; every name starting with `utm_` is
/// removed too (Google Analytics' campaign parameters). The list is
/// Firefox's query-stripping list (`privacy.query_stripping.strip_list`)
/// with Microsoft's `msclkid` and TikTok's `ttclid`: see DESIGN.md,
/// "Crawl: URL normalisation".
pub const TRACKING_PARAMETERS: &[&str] = &[
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "fbclid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "yclid",
    "_hsenc",
    "_hsmi",
    "hsctatracking",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "__s",
    "vero_id",
    "vero_conv",
    "igshid",
    "twclid",
    "ttclid",
    "_openstat",
    "rb_clickid",
    "s_cid",
    "wickedid",
    "ml_subscriber",
    "ml_subscriber_hash",
    "ck_subscriber_id",
];

/// Session-id parameters, removed from queries and (as `;name=value`)
/// from paths: every visit gets a new one, so a site that puts them in
/// its links would otherwise be crawled again on every page.
pub const SESSION_PARAMETERS: &[&str] = &["jsessionid", "phpsessid", "sid", "sessionid", "session_id"];

/// Why a URL cannot enter the frontier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NormalizeError {
    /// Not an `http` or `https` URL.
    #[error("not an http(s) URL: {0}")]
    Scheme(String),
    /// Longer than [`MAX_URL_BYTES`] once normalised.
    #[error("URL longer than {MAX_URL_BYTES} bytes")]
    TooLong,
}

/// A URL in its normal form, checked once at construction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NormalizedUrl(Url);

impl NormalizedUrl {
    /// `url` in its normal form (the steps of the module's documentation).
    ///
    /// ```
    /// use url::Url;
    /// use webcanon_crawl::NormalizedUrl;
    ///
    /// let url = Url::parse("HTTPS://Example.COM:443/a/%7euser;jsessionid=F00?utm_source=x&id=%2f#top")?;
    /// assert_eq!(NormalizedUrl::new(&url)?.as_str(), "https://example.com/a/~user?id=%2F");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(url: &Url) -> Result<NormalizedUrl, NormalizeError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(NormalizeError::Scheme(url.scheme().to_string()));
        }
        if url.as_str().len() > MAX_URL_BYTES * 3 {
            // Normalising only shortens a URL by a bounded factor (an
            // escape becomes one byte): refuse hopeless ones unread.
            return Err(NormalizeError::TooLong);
        }
        let mut out = url.clone();
        out.set_fragment(None);
        let path = without_session_path_parameters(&percent_normalized(url.path()));
        out.set_path(&path);
        let query = url.query().map(|q| kept_query(&percent_normalized(q)));
        out.set_query(query.as_deref().filter(|q| !q.is_empty()));
        if out.as_str().len() > MAX_URL_BYTES {
            return Err(NormalizeError::TooLong);
        }
        Ok(NormalizedUrl(out))
    }

    /// Parses `text` and normalises it.
    pub fn parse(text: &str) -> Result<NormalizedUrl, NormalizeError> {
        if text.len() > MAX_URL_BYTES * 3 {
            return Err(NormalizeError::TooLong);
        }
        let url = Url::parse(text.trim()).map_err(|_| NormalizeError::Scheme(String::new()))?;
        NormalizedUrl::new(&url)
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The URL.
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// The host name (lower case), or the address of an IP host.
    pub fn host(&self) -> &str {
        self.0.host_str().unwrap_or_default()
    }

    /// The seen set's key: XXH3-64 of the normalised text.
    pub fn key(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(self.as_str().as_bytes())
    }
}

impl std::fmt::Display for NormalizedUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `text` with upper-case escapes and the escapes of unreserved characters
/// decoded.
fn percent_normalized(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') => {
                out.push(byte as char);
                i += 3;
            }
            Some(byte) => {
                out.push_str(&format!("%{byte:02X}"));
                i += 3;
            }
            None => {
                let end = text[i + 1..].find('%').map_or(text.len(), |at| i + 1 + at);
                out.push_str(&text[i..end]);
                i = end;
            }
        }
    }
    out
}

/// `path` without `;name=value` parameters naming a session.
fn without_session_path_parameters(path: &str) -> String {
    if !path.contains(';') {
        return path.to_string();
    }
    path.split('/')
        .map(|segment| {
            let mut parts = segment.split(';');
            let mut kept = parts.next().unwrap_or_default().to_string();
            for parameter in parts {
                if !is_session_parameter(parameter.split('=').next().unwrap_or_default()) {
                    kept.push(';');
                    kept.push_str(parameter);
                }
            }
            kept
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `query` without tracking and session parameters.
fn kept_query(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default().to_ascii_lowercase();
            !pair.is_empty()
                && !name.starts_with("utm_")
                && !TRACKING_PARAMETERS.contains(&name.as_str())
                && !is_session_parameter(&name)
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_session_parameter(name: &str) -> bool {
    SESSION_PARAMETERS.iter().any(|session| session.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! normalizes {
        ($($input:expr => $expected:expr),* $(,)?) => {$(
            assert_eq!(NormalizedUrl::parse($input).map(|u| u.as_str().to_string()).as_deref(), Ok($expected), "{}", $input);
        )*};
    }

    #[test]
    fn table() {
        normalizes! {
            "http://example.com" => "http://example.com/",
            "HTTP://EXAMPLE.com:80/A#frag" => "http://example.com/A",
            "https://example.com:443/" => "https://example.com/",
            "https://example.com:8443/" => "https://example.com:8443/",
            "https://example.com/a/./b/../c" => "https://example.com/a/c",
            "https://example.com/%7e%41%2f%2a" => "https://example.com/~A%2F%2A",
            "https://example.com/a%zz" => "https://example.com/a%zz",
            "https://example.com/?utm_source=x&utm_Medium=y&a=1&gclid=z&FBCLID=1&b=2&msclkid=3&mc_cid=4&mc_eid=5" => "https://example.com/?a=1&b=2",
            "https://example.com/?utm_campaign=x" => "https://example.com/",
            "https://example.com/?a=1&&b=2" => "https://example.com/?a=1&b=2",
            "https://example.com/page;jsessionid=0123ABC?x=1" => "https://example.com/page?x=1",
            "https://example.com/page;JSESSIONID=0123ABC;v=2" => "https://example.com/page;v=2",
            "https://example.com/p?PHPSESSID=abc&sid=1&sessionid=2&q=go" => "https://example.com/p?q=go",
            "https://example.com/s?q=a%20b&z=%e2%82%ac" => "https://example.com/s?q=a%20b&z=%E2%82%AC",
            "https://Bücher.example/" => "https://xn--bcher-kva.example/",
        }
    }

    #[test]
    fn other_schemes_and_long_urls_are_refused() {
        assert!(matches!(NormalizedUrl::parse("mailto:a@example.com"), Err(NormalizeError::Scheme(_))));
        assert!(matches!(NormalizedUrl::parse("ftp://example.com/"), Err(NormalizeError::Scheme(_))));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_BYTES));
        assert_eq!(NormalizedUrl::parse(&long), Err(NormalizeError::TooLong));
        let huge = format!("https://example.com/{}", "a".repeat(10_000_000));
        assert_eq!(NormalizedUrl::parse(&huge), Err(NormalizeError::TooLong));
    }

    #[test]
    fn equal_forms_share_a_key() {
        let a = NormalizedUrl::parse("https://EXAMPLE.com/a?utm_source=n#x").unwrap();
        let b = NormalizedUrl::parse("https://example.com:443/a").unwrap();
        assert_eq!((a.key(), a.as_str()), (b.key(), b.as_str()));
    }
}
