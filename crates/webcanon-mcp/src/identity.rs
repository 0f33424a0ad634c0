//! Who the server says it is: the product token matched against robots.txt
//! and the `User-Agent` header of its requests, which depends on who asked.

/// The project URL named in the default `User-Agent` headers.
const PROJECT_URL: &str = "https://github.com/webcanon/webcanon";

/// Who decided that a request is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Initiator {
    /// The model called a tool on its own.
    Autonomous,
    /// The user asked for the page (the `fetch` prompt).
    UserInitiated,
}

impl Initiator {
    /// `Autonomous` or `User-Initiated`, as written in the `User-Agent` comment.
    pub fn as_str(self) -> &'static str {
        match self {
            Initiator::Autonomous => "Autonomous",
            Initiator::UserInitiated => "User-Initiated",
        }
    }
}

/// The `User-Agent` configuration of the server, set once.
///
/// By default the header names the product token and who asked:
/// `<token>/<version> (Autonomous; +https://github.com/webcanon/webcanon)` for
/// tool calls (the model decides) and `... (User-Initiated; ...)` for the
/// `fetch` prompt (the user asked). An explicit value replaces both.
/// robots.txt is evaluated in every case.
///
/// ```
/// use webcanon_mcp::{Identity, Initiator};
///
/// let ua = Identity::default().user_agent("webcanon", Initiator::UserInitiated);
/// assert!(ua.starts_with("webcanon/") && ua.contains("(User-Initiated; +https://"));
/// let fixed = Identity::with_user_agent("MyAgent/1.0");
/// assert_eq!(fixed.user_agent("webcanon", Initiator::Autonomous), "MyAgent/1.0");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    user_agent: Option<String>,
}

impl Identity {
    /// One `User-Agent` for every request, whoever asked (`--user-agent`).
    pub fn with_user_agent(value: impl Into<String>) -> Identity {
        Identity { user_agent: Some(value.into()) }
    }

    /// The explicit `User-Agent`, if one was set.
    pub fn explicit_user_agent(&self) -> Option<&str> {
        self.user_agent.as_deref()
    }

    /// The `User-Agent` header for requests made as `token` on behalf of `initiator`.
    pub fn user_agent(&self, token: &str, initiator: Initiator) -> String {
        match &self.user_agent {
            Some(value) => value.clone(),
            None => format!("{token}/{} ({}; +{PROJECT_URL})", env!("CARGO_PKG_VERSION"), initiator.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_user_agents_name_the_token_and_who_asked() {
        let identity = Identity::default();
        let version = env!("CARGO_PKG_VERSION");
        let rows = [
            ("webcanon", Initiator::Autonomous, format!("webcanon/{version} (Autonomous; +{PROJECT_URL})")),
            ("webcanon", Initiator::UserInitiated, format!("webcanon/{version} (User-Initiated; +{PROJECT_URL})")),
            ("MyBot", Initiator::Autonomous, format!("MyBot/{version} (Autonomous; +{PROJECT_URL})")),
        ];
        for (token, initiator, expected) in rows {
            assert_eq!(identity.user_agent(token, initiator), expected);
        }
    }

    #[test]
    fn an_explicit_user_agent_replaces_both_defaults() {
        let identity = Identity::with_user_agent("Acme/2.0");
        for initiator in [Initiator::Autonomous, Initiator::UserInitiated] {
            assert_eq!(identity.user_agent("webcanon", initiator), "Acme/2.0");
        }
    }
}
