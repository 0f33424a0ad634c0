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

/// Checks that `token` is a product token: 1 to 64 ASCII letters, digits,
/// `_` or `-`. RFC 9309 §2.2.1 names letters, `_` and `-`; digits are
/// taken as given, the way Google's parser takes the caller's token (lint
/// reports a `User-agent` value with digits, which crawlers read only up
/// to the first digit).
///
/// ```
/// use webcanon_client::agent::check_agent_token;
///
/// assert!(check_agent_token("GPTBot").is_ok());
/// assert!(check_agent_token("GPTBot/1.0").is_err());
/// assert!(check_agent_token("").is_err());
/// ```
pub fn check_agent_token(token: &str) -> Result<(), InvalidAgent> {
    let invalid = |reason| Err(InvalidAgent { token: token.chars().take(MAX_AGENT_TOKEN_LEN + 16).collect(), reason });
    if token.is_empty() {
        return invalid("it is empty");
    }
    if token.len() > MAX_AGENT_TOKEN_LEN {
        return invalid("it is longer than 64 characters");
    }
    if !token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return invalid("only ASCII letters, digits, `_` and `-` are allowed");
    }
    Ok(())
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
            assert_eq!(check_agent_token(token).is_ok(), ok, "{token:?}");
        }
        assert!(check_agent_token(&"a".repeat(64)).is_ok());
        let long = check_agent_token(&"a".repeat(65)).unwrap_err();
        assert!(long.to_string().contains("longer than 64"), "{long}");
    }

    #[test]
    fn the_pattern_says_the_same() {
        assert_eq!(AGENT_TOKEN_PATTERN, format!("^[A-Za-z0-9_-]{{1,{MAX_AGENT_TOKEN_LEN}}}$"));
    }
}
