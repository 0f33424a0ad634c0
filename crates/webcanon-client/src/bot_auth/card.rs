//! The Signature Agent Card (draft-meunier-webbotauth-registry-03, 26 June
//! 2026, §3): a JSON document describing the agent, in the OAuth client
//! metadata namespace (RFC 7591, as the Client ID Metadata Document uses
//! it) plus one `web_bot_auth` object.
//!
//! What the card holds here:
//! - `client_id` (§3.1.1): the https URL the card is served at; a client
//!   fetches it with GET, takes only a 200, follows no redirect, and checks
//!   that the card's `client_id` is that URL, byte for byte;
//! - `client_name`, `client_uri`, `contacts` (§3.1), when given;
//! - the keys (§3.1.2, §3.1.3): `jwks_uri` (an https URL of the key
//!   directory; by default the well-known directory of the `client_id`'s
//!   origin) or `jwks` (the public keys inline), never both;
//! - `web_bot_auth` (§3.2): `rfc9309-product-token`, `rfc9309-compliance`
//!   (the robots.txt directives webcanon obeys: [`ROBOTS_COMPLIANCE`]),
//!   and, when given, `trigger`, `purpose`, `expected-user-agent`.

use serde_json::{Map, Value, json};
use url::Url;

use super::DIRECTORY_PATH;
use super::directory::jwks;
use super::key::SigningKey;
use crate::agent::ProductToken;

/// The robots.txt directives webcanon implements (registry-03 §3.2.3): the
/// RFC 9309 records, and `Crawl-delay`, which it honours up to a cap.
pub const ROBOTS_COMPLIANCE: [&str; 4] = ["User-Agent", "Allow", "Disallow", "Crawl-delay"];

/// How the agent is set off (registry-03 §3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// `fetcher`: requests made because a user asked.
    Fetcher,
    /// `crawler`: autonomous scanning.
    Crawler,
}

impl Trigger {
    /// The value as the card spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Trigger::Fetcher => "fetcher",
            Trigger::Crawler => "crawler",
        }
    }
}

/// Where a card's keys are.
#[derive(Debug, Clone)]
pub enum CardKeys {
    /// `jwks_uri`: the key directory's https URL; `None` for the well-known
    /// directory of the `client_id`'s origin.
    Uri(Option<String>),
    /// `jwks`: the public halves of these keys, inline.
    Inline(Vec<SigningKey>),
}

/// What a Signature Agent Card says.
#[derive(Debug, Clone)]
pub struct AgentCard {
    /// `client_id`: the https URL the card is served at.
    pub client_id: String,
    /// `client_name`: a friendly name.
    pub name: Option<String>,
    /// `client_uri`: a page describing the agent.
    pub about: Option<String>,
    /// `contacts`: URIs to reach the operator (`mailto:…`).
    pub contacts: Vec<String>,
    /// The keys.
    pub keys: CardKeys,
    /// `rfc9309-product-token`: the token robots.txt groups name.
    pub product_token: ProductToken,
    /// `trigger`.
    pub trigger: Option<Trigger>,
    /// `purpose`: what the fetched content is used for (`search`, `tdm`).
    pub purpose: Option<String>,
    /// `expected-user-agent`: the `User-Agent` the agent sends.
    pub user_agent: Option<String>,
}

/// A card that cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// A URL the draft requires to be https is not an https URL with a host.
    #[error("{field} `{url}` must be an https URL with a host (draft-meunier-webbotauth-registry-03 {section})")]
    NotHttps {
        /// The card parameter.
        field: &'static str,
        /// The value given.
        url: String,
        /// The section requiring https.
        section: &'static str,
    },
    /// An inline key set with no key.
    #[error("an inline key set needs at least one key")]
    NoKeys,
}

impl AgentCard {
    /// The card as JSON (its parameters sorted by name).
    ///
    /// ```
    /// use webcanon_client::bot_auth::card::{AgentCard, CardKeys};
    ///
    /// let card = AgentCard {
    ///     client_id: "https://bot.example/card.json".into(),
    ///     name: Some("Example Bot".into()),
    ///     about: None,
    ///     contacts: vec![],
    ///     keys: CardKeys::Uri(None),
    ///     product_token: "ExampleBot".parse().unwrap(),
    ///     trigger: None,
    ///     purpose: None,
    ///     user_agent: None,
    /// };
    /// let json = card.to_json().unwrap();
    /// assert_eq!(json["jwks_uri"], "https://bot.example/.well-known/http-message-signatures-directory");
    /// assert_eq!(json["web_bot_auth"]["rfc9309-product-token"], "ExampleBot");
    /// ```
    pub fn to_json(&self) -> Result<Value, CardError> {
        let client_id = https_url("client_id", &self.client_id, "§3.1.1")?;
        let mut card = Map::new();
        card.insert("client_id".into(), json!(self.client_id));
        if let Some(name) = &self.name {
            card.insert("client_name".into(), json!(name));
        }
        if let Some(about) = &self.about {
            card.insert("client_uri".into(), json!(about));
        }
        if !self.contacts.is_empty() {
            card.insert("contacts".into(), json!(self.contacts));
        }
        match &self.keys {
            CardKeys::Uri(Some(uri)) => {
                https_url("jwks_uri", uri, "§3.1.2")?;
                card.insert("jwks_uri".into(), json!(uri));
            }
            CardKeys::Uri(None) => {
                let origin = client_id.origin().ascii_serialization();
                card.insert("jwks_uri".into(), json!(format!("{origin}{DIRECTORY_PATH}")));
            }
            CardKeys::Inline(keys) if keys.is_empty() => return Err(CardError::NoKeys),
            CardKeys::Inline(keys) => {
                card.insert("jwks".into(), jwks(keys));
            }
        }
        let mut bot = Map::new();
        if let Some(user_agent) = &self.user_agent {
            bot.insert("expected-user-agent".into(), json!(user_agent));
        }
        bot.insert("rfc9309-product-token".into(), json!(self.product_token.as_str()));
        bot.insert("rfc9309-compliance".into(), json!(ROBOTS_COMPLIANCE));
        if let Some(trigger) = self.trigger {
            bot.insert("trigger".into(), json!(trigger.as_str()));
        }
        if let Some(purpose) = &self.purpose {
            bot.insert("purpose".into(), json!(purpose));
        }
        card.insert("web_bot_auth".into(), Value::Object(bot));
        Ok(Value::Object(card))
    }
}

fn https_url(field: &'static str, text: &str, section: &'static str) -> Result<Url, CardError> {
    Url::parse(text)
        .ok()
        .filter(|u| u.scheme() == "https" && u.host_str().is_some_and(|h| !h.is_empty()))
        .ok_or_else(|| CardError::NotHttps { field, url: text.into(), section })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(keys: CardKeys) -> AgentCard {
        AgentCard {
            client_id: "https://example.com/bot".into(),
            name: Some("Example Bot".into()),
            about: Some("https://example.com/bot/about.html".into()),
            contacts: vec!["mailto:bot-support@example.com".into()],
            keys,
            product_token: "ExampleBot".parse().unwrap(),
            trigger: Some(Trigger::Fetcher),
            purpose: Some("search".into()),
            user_agent: Some("Mozilla/5.0 ExampleBot".into()),
        }
    }

    /// registry-03 §3, the card example: the parameters webcanon writes
    /// carry the example's names and values.
    #[test]
    fn the_registry_drafts_example() {
        let uri = "https://example.com/.well-known/http-message-signatures-directory";
        let json = card(CardKeys::Uri(Some(uri.into()))).to_json().unwrap();
        assert_eq!(json["client_id"], "https://example.com/bot");
        assert_eq!(json["client_name"], "Example Bot");
        assert_eq!(json["client_uri"], "https://example.com/bot/about.html");
        assert_eq!(json["contacts"], json!(["mailto:bot-support@example.com"]));
        assert_eq!(json["jwks_uri"], uri);
        assert!(json.get("jwks").is_none(), "jwks and jwks_uri never both (§3.1.2)");
        let bot = &json["web_bot_auth"];
        assert_eq!(bot["expected-user-agent"], "Mozilla/5.0 ExampleBot");
        assert_eq!(bot["rfc9309-product-token"], "ExampleBot");
        assert_eq!(bot["rfc9309-compliance"], json!(["User-Agent", "Allow", "Disallow", "Crawl-delay"]));
        assert_eq!(bot["trigger"], "fetcher");
        assert_eq!(bot["purpose"], "search");
    }

    #[test]
    fn keys_inline_or_by_https_uri_only() {
        let key = SigningKey::from_seed(&[3; 32]);
        let json = card(CardKeys::Inline(vec![key.clone()])).to_json().unwrap();
        assert_eq!(json["jwks"]["keys"][0]["kid"], key.key_id());
        assert!(json.get("jwks_uri").is_none());
        assert!(json["jwks"]["keys"][0].get("d").is_none(), "public halves only");
        assert_eq!(card(CardKeys::Inline(vec![])).to_json().unwrap_err(), CardError::NoKeys);
        let http = card(CardKeys::Uri(Some("http://example.com/keys".into()))).to_json().unwrap_err();
        assert!(http.to_string().contains("jwks_uri `http://example.com/keys` must be an https URL"), "{http}");
        let mut bad = card(CardKeys::Uri(None));
        bad.client_id = "example.com/bot".into();
        assert!(matches!(bad.to_json(), Err(CardError::NotHttps { field: "client_id", .. })));
    }
}
