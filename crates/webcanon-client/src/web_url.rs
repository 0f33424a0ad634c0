//! What every face accepts as a URL to fetch: an absolute `http` or `https`
//! URL with a host, read by the WHATWG URL parser. One rule for the client,
//! the CLI, the HTTP service, the MCP server and batch runs; each face words
//! its own error around [`WebUrlError`].

use url::Url;

/// Why a string is not a URL webcanon can fetch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebUrlError {
    /// The URL parser refused it (relative, bad characters, bad port, …).
    #[error("{0}")]
    Invalid(#[from] url::ParseError),
    /// The scheme is not `http` or `https`.
    #[error("scheme `{0}` is not http or https")]
    Scheme(String),
    /// There is no host (`file:`-like or opaque URLs).
    #[error("no host")]
    NoHost,
}

/// Parses `input` as an absolute http(s) URL with a host.
///
/// ```
/// use webcanon_client::web_url::{WebUrlError, parse};
///
/// assert_eq!(parse("https://example.com/a?b").unwrap().path(), "/a");
/// assert_eq!(parse("ftp://example.com/x"), Err(WebUrlError::Scheme("ftp".into())));
/// assert!(matches!(parse("/relative"), Err(WebUrlError::Invalid(_))));
/// ```
pub fn parse(input: &str) -> Result<Url, WebUrlError> {
    let url = Url::parse(input)?;
    check(&url)?;
    Ok(url)
}

/// Checks that `url` is http(s) with a host.
pub fn check(url: &Url) -> Result<(), WebUrlError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(WebUrlError::Scheme(url.scheme().to_string()));
    }
    if url.host().is_none() {
        return Err(WebUrlError::NoHost);
    }
    Ok(())
}

/// Whether `url` is http(s) with a host.
pub fn is_web_url(url: &Url) -> bool {
    check(url).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_with_a_host() {
        let rows = [
            ("https://example.com/", Ok(())),
            ("http://127.0.0.1:8080/x", Ok(())),
            ("HTTPS://EXAMPLE.COM", Ok(())),
            ("http:///path", Ok(())), // the WHATWG parser reads `path` as the host
            ("ftp://example.com/", Err("scheme `ftp` is not http or https")),
            ("mailto:a@example.com", Err("scheme `mailto` is not http or https")),
            ("file:///etc/passwd", Err("scheme `file` is not http or https")),
            ("example.com/page", Err("relative URL without a base")),
            ("http://exa mple.com/", Err("invalid international domain name")),
        ];
        for (input, expected) in rows {
            assert_eq!(
                parse(input).map(|_| ()).map_err(|e| e.to_string()),
                expected.map_err(str::to_string),
                "{input}"
            );
        }
    }
}
