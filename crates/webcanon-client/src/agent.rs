//! The agent's product token: what robots.txt `User-agent` lines are
//! matched against. One rule for every face (library, CLI, HTTP service,
//! MCP server, Python).

/// The longest product token accepted.
pub const MAX_AGENT_TOKEN_LEN: usize = 64;

/// A valid product token as a regular expression (for schemas).
pub const AGENT_TOKEN_PATTERN: &str = r"^[A-Za-z0-9_-]{1,64}$";

/// An agent that is not a robots.txt product token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "agent `{}` is not a product token: {reason}; give the token a crawler matches in robots.txt \
     `User-agent` lines, such as `GPTBot` or `Claude-User`",
    token.escape_debug()
)]
pub struct InvalidAgent {
    token: String,
    reason: &'static str,
}

/// A robots.txt product token, valid by construction: 1 to 64 ASCII
/// letters, digits, `_` or `-`. Every face (library, CLI, HTTP service, MCP
/// server, Python) takes the agent as one, so the rule is checked in one
/// place, [`ProductToken::new`], and the schemas publish
/// [`AGENT_TOKEN_PATTERN`].
///
/// RFC 9309 §2.2.1 names letters, `_` and `-`; digits are taken as given,
/// the way Google's parser takes the caller's token (lint reports a
/// `User-agent` value with digits, which crawlers read only up to the first
/// digit).
///
/// ```
/// use webcanon_client::agent::ProductToken;
///
/// let token = ProductToken::new("GPTBot")?;
/// assert_eq!(token.as_str(), "GPTBot");
/// assert!(ProductToken::new("GPTBot/1.0").is_err());
/// assert!(ProductToken::new("bigsur.ai").is_err());
/// assert!(ProductToken::new("").is_err());
/// # Ok::<(), webcanon_client::agent::InvalidAgent>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProductToken(Box<str>);

impl ProductToken {
    /// `token` as a product token, or why it is not one.
    pub fn new(token: &str) -> Result<ProductToken, InvalidAgent> {
        let invalid =
            |reason| Err(InvalidAgent { token: token.chars().take(MAX_AGENT_TOKEN_LEN + 16).collect(), reason });
        if token.is_empty() {
            return invalid("it is empty");
        }
        if token.len() > MAX_AGENT_TOKEN_LEN {
            return invalid("it is longer than 64 characters");
        }
        if !token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            return invalid("only ASCII letters, digits, `_` and `-` are allowed");
        }
        Ok(ProductToken(token.into()))
    }

    /// The token as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ProductToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for ProductToken {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ProductToken {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for ProductToken {
    type Err = InvalidAgent;

    fn from_str(token: &str) -> Result<ProductToken, InvalidAgent> {
        ProductToken::new(token)
    }
}

impl TryFrom<&str> for ProductToken {
    type Error = InvalidAgent;

    fn try_from(token: &str) -> Result<ProductToken, InvalidAgent> {
        ProductToken::new(token)
    }
}

impl serde::Serialize for ProductToken {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for ProductToken {
    /// Deserialises a string and checks it: an invalid token is an error
    /// that says why.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ProductToken, D::Error> {
        let token = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        ProductToken::new(&token).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
impl utoipa::PartialSchema for ProductToken {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(AGENT_TOKEN_PATTERN))
            .min_length(Some(1))
            .max_length(Some(MAX_AGENT_TOKEN_LEN))
            .description(Some("A robots.txt product token (RFC 9309 §2.2.1), e.g. `GPTBot`."))
            .examples(["GPTBot"])
            .into()
    }
}

#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
impl utoipa::ToSchema for ProductToken {}

#[cfg(feature = "json-schema")]
#[cfg_attr(docsrs, doc(cfg(feature = "json-schema")))]
impl schemars::JsonSchema for ProductToken {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ProductToken".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": AGENT_TOKEN_PATTERN,
            "minLength": 1,
            "maxLength": MAX_AGENT_TOKEN_LEN,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_tokens() {
        let rows = [
            ("GPTBot", true),
            ("Claude-User", true),
            ("Bot2", true),
            ("my_bot", true),
            ("", false),
            ("GPT Bot", false),
            ("GPTBot/1.0", false),
            ("bigsur.ai", false),
            ("bot\nUser-agent: *", false),
            ("é", false),
        ];
        for (token, ok) in rows {
            assert_eq!(ProductToken::new(token).is_ok(), ok, "{token:?}");
            // Deserialised, the same rule.
            let parsed: Result<ProductToken, _> = serde_json::from_value(serde_json::Value::from(token));
            assert_eq!(parsed.is_ok(), ok, "{token:?} from JSON");
        }
        assert!(ProductToken::new(&"a".repeat(64)).is_ok());
        let long = ProductToken::new(&"a".repeat(65)).unwrap_err();
        assert!(long.to_string().contains("longer than 64"), "{long}");
        let from_json = serde_json::from_str::<ProductToken>("\"GPTBot/1.0\"").unwrap_err().to_string();
        assert!(from_json.contains("not a product token"), "{from_json}");
        assert_eq!(serde_json::to_string(&ProductToken::new("GPTBot").unwrap()).unwrap(), "\"GPTBot\"");
    }

    #[test]
    fn the_pattern_says_the_same() {
        assert_eq!(AGENT_TOKEN_PATTERN, format!("^[A-Za-z0-9_-]{{1,{MAX_AGENT_TOKEN_LEN}}}$"));
    }
}
