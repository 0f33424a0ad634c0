//! What every face accepts as a URL to fetch: an absolute `http` or `https`
//! URL with a host, read by the WHATWG URL parser. One rule for the client,
//! the CLI, the HTTP service, the MCP server and batch runs; each face words
//! its own error around [`WebUrlError`].
//!
//! [`WebUrl`] is such a URL, checked once: faces deserialise it straight
//! from a request (a bad one is refused there, naming the field), and the
//! client's calls take it through [`IntoWebUrl`] without parsing it again.

use std::fmt;

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

/// An absolute `http` or `https` URL with a host, valid by construction
/// ([`WebUrl::parse`], [`str::parse`], or deserialisation, which refuses
/// anything else with an [`InvalidWebUrl`] message).
///
/// ```
/// use webcanon_client::web_url::WebUrl;
///
/// let url: WebUrl = "https://example.com/a".parse()?;
/// assert_eq!(url.host_str(), Some("example.com"));
/// let refused = serde_json::from_str::<WebUrl>(r#""ftp://example.com/""#).unwrap_err();
/// assert!(refused.to_string().starts_with("invalid URL `ftp://example.com/`: scheme `ftp`"));
/// # Ok::<(), webcanon_client::web_url::InvalidWebUrl>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WebUrl(Url);

/// A string that is not a [`WebUrl`]: the input (cut to 512 characters)
/// and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URL `{input}`: {reason}")]
pub struct InvalidWebUrl {
    /// The input as given.
    pub input: String,
    /// What is wrong with it.
    pub reason: WebUrlError,
}

impl WebUrl {
    /// `input` as a web URL, or why it is not one.
    pub fn parse(input: &str) -> Result<WebUrl, InvalidWebUrl> {
        parse(input).map(WebUrl).map_err(|reason| InvalidWebUrl { input: input.chars().take(512).collect(), reason })
    }

    /// The URL.
    pub fn as_url(&self) -> &Url {
        &self.0
    }

    /// The URL, serialised.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The URL, owned.
    pub fn into_url(self) -> Url {
        self.0
    }
}

impl TryFrom<Url> for WebUrl {
    type Error = WebUrlError;

    fn try_from(url: Url) -> Result<WebUrl, WebUrlError> {
        check(&url)?;
        Ok(WebUrl(url))
    }
}

impl std::str::FromStr for WebUrl {
    type Err = InvalidWebUrl;

    fn from_str(input: &str) -> Result<WebUrl, InvalidWebUrl> {
        WebUrl::parse(input)
    }
}

impl std::ops::Deref for WebUrl {
    type Target = Url;

    fn deref(&self) -> &Url {
        &self.0
    }
}

impl AsRef<str> for WebUrl {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for WebUrl {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for WebUrl {
    /// Deserialises a string and checks it: a URL that is not a web URL
    /// is an error that says why.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<WebUrl, D::Error> {
        let input = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        WebUrl::parse(&input).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
impl utoipa::PartialSchema for WebUrl {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::Custom("uri".into())))
            .description(Some("An absolute http or https URL with a host."))
            .into()
    }
}

#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
impl utoipa::ToSchema for WebUrl {}

#[cfg(feature = "json-schema")]
#[cfg_attr(docsrs, doc(cfg(feature = "json-schema")))]
impl schemars::JsonSchema for WebUrl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "WebUrl".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "uri" })
    }
}

/// What the client's calls take as a URL: a [`WebUrl`] as it is, or a
/// string, parsed then (a [`WebUrl`] is never parsed twice).
pub trait IntoWebUrl {
    /// The web URL, or why this is not one.
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl>;
}

impl IntoWebUrl for WebUrl {
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        Ok(self)
    }
}

impl IntoWebUrl for &WebUrl {
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        Ok(self.clone())
    }
}

impl IntoWebUrl for &Url {
    /// Checks the URL, which is already parsed.
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        WebUrl::try_from(self.clone()).map_err(|reason| InvalidWebUrl { input: self.as_str().into(), reason })
    }
}

impl IntoWebUrl for &str {
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        WebUrl::parse(self)
    }
}

impl IntoWebUrl for &String {
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        WebUrl::parse(self)
    }
}

impl IntoWebUrl for String {
    fn into_web_url(self) -> Result<WebUrl, InvalidWebUrl> {
        WebUrl::parse(&self)
    }
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

    #[test]
    fn web_urls_parse_and_deserialise_by_the_same_rule() {
        for input in ["https://example.com/a", "ftp://example.com/", "/relative", "mailto:a@example.com"] {
            let parsed = WebUrl::parse(input).map_err(|e| e.to_string());
            let read: Result<WebUrl, String> =
                serde_json::from_value(serde_json::Value::from(input)).map_err(|e| e.to_string());
            assert_eq!(parsed, read, "{input}");
            assert_eq!(parsed.is_ok(), parse(input).is_ok(), "{input}");
        }
        let refused = WebUrl::parse("/relative").unwrap_err().to_string();
        assert_eq!(refused, "invalid URL `/relative`: relative URL without a base");
        let url = WebUrl::parse("https://example.com/a").unwrap();
        assert_eq!(serde_json::to_string(&url).unwrap(), "\"https://example.com/a\"");
    }
}
