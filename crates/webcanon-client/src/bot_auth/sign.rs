//! Signing one request: the three headers for a URL.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use reqwest::header::HeaderValue;
use url::Url;
use web_bot_auth::components::{
    CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters, HTTPFieldParametersSet,
};
use web_bot_auth::keyring::Algorithm;
use web_bot_auth::message_signatures::{GenerateSignature, MessageSigner, UnsignedMessage};

use super::{DIRECTORY_PATH, LABEL, SIGNATURE_VALIDITY, TAG, key::SigningKey};

/// How old a signature made ahead may be when a request takes it: it
/// still has at least `SIGNATURE_VALIDITY - AHEAD_FRESH` (50 s) to live.
pub const AHEAD_FRESH: Duration = Duration::from_secs(10);
/// The most hosts with a signature made ahead at once.
pub const AHEAD_HOSTS: usize = 1024;

/// How the `Signature-Agent` header is written.
///
/// draft-ietf-webbotauth-httpsig-protocol (editor's copy of 9 October 2026,
/// §5.2.1): the header is a Structured Fields Dictionary whose member,
/// keyed by the signature's label, is the https URL of the key directory,
/// and the signature covers that member (`"signature-agent";key="sig1"`);
/// signers must send that form. Earlier drafts (up to
/// draft-meunier-web-bot-auth-architecture-03) sent a bare String, which
/// verifiers may still accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignatureAgentForm {
    /// `Signature-Agent: sig1="https://bot.example/.well-known/http-message-signatures-directory"`,
    /// covered as `"signature-agent";key="sig1"` (the current draft).
    #[default]
    Dictionary,
    /// `Signature-Agent: "https://bot.example"`, covered as
    /// `"signature-agent"` (drafts before the dictionary form).
    Legacy,
}

impl SignatureAgentForm {
    /// The form's name, as options and JSON spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            SignatureAgentForm::Dictionary => "dictionary",
            SignatureAgentForm::Legacy => "legacy",
        }
    }
}

impl std::fmt::Display for SignatureAgentForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for SignatureAgentForm {
    type Err = String;

    fn from_str(text: &str) -> Result<SignatureAgentForm, String> {
        match text {
            "dictionary" => Ok(SignatureAgentForm::Dictionary),
            "legacy" => Ok(SignatureAgentForm::Legacy),
            other => Err(format!("`{other}` is not a Signature-Agent form: use dictionary or legacy")),
        }
    }
}

/// Signs requests for one agent: a key and the `Signature-Agent` URL where
/// its directory is published.
///
/// Signatures can be made ahead ([`RequestSigner::sign_ahead`]): the
/// client makes the next signature for a host on the blocking pool right
/// after a request to it, so the next request to that host
/// ([`RequestSigner::take_or_sign`]) does not wait for Ed25519. Each
/// signature made ahead is taken once, for its own host only, and only
/// while younger than [`AHEAD_FRESH`]; at most [`AHEAD_HOSTS`] wait at a
/// time. The CPU cost per request is the same; only its place moves.
#[derive(Debug, Clone)]
pub struct RequestSigner {
    key: SigningKey,
    /// The URL given, as given (without the slash `Url` adds to an origin).
    agent_url: String,
    form: SignatureAgentForm,
    /// The value of the covered `signature-agent` component: the directory
    /// URL as a structured-field string.
    agent: String,
    agent_header: HeaderValue,
    validity: Duration,
    ahead: Arc<Mutex<HashMap<String, (Instant, SignedHeaders)>>>,
}

/// Why a signer cannot be made, or a request signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    /// The `Signature-Agent` URL is not an http(s) URL with a host.
    #[error("signature agent `{0}` must be an https (or http) URL with a host, such as https://bot.example")]
    AgentUrl(String),
    /// The dictionary form names an http URL: the draft requires https.
    #[error(
        "signature agent `{0}` must be an https URL: the dictionary form of Signature-Agent takes https only \
         (draft-ietf-webbotauth-httpsig-protocol §5.2.1); the legacy form also sends http"
    )]
    AgentNotHttps(String),
    /// The request URL has no host to sign as `@authority`.
    #[error("`{0}` has no host to sign")]
    NoAuthority(String),
    /// The signature could not be made (a failure of the signing library).
    #[error("cannot sign: {0}")]
    Signing(String),
}

/// The three headers of a signed request.
#[derive(Debug, Clone)]
pub struct SignedHeaders {
    /// `Signature-Agent`: where the key directory is.
    pub signature_agent: HeaderValue,
    /// `Signature-Input`: the covered components and parameters.
    pub signature_input: HeaderValue,
    /// `Signature`: the Ed25519 signature.
    pub signature: HeaderValue,
}

impl RequestSigner {
    /// A signer with `key` whose directory is at `signature_agent`, sending
    /// the dictionary form ([`SignatureAgentForm::Dictionary`]): an origin
    /// (`https://bot.example`) means its well-known directory
    /// (`/.well-known/http-message-signatures-directory`), a URL with a
    /// path is the directory itself.
    pub fn new(key: SigningKey, signature_agent: &str) -> Result<RequestSigner, SignError> {
        RequestSigner::with_form(key, signature_agent, SignatureAgentForm::Dictionary)
    }

    /// A signer sending `Signature-Agent` in `form`.
    pub fn with_form(
        key: SigningKey,
        signature_agent: &str,
        form: SignatureAgentForm,
    ) -> Result<RequestSigner, SignError> {
        let url = Url::parse(signature_agent).map_err(|_| SignError::AgentUrl(signature_agent.into()))?;
        if !matches!(url.scheme(), "https" | "http") || url.host_str().is_none_or(str::is_empty) {
            return Err(SignError::AgentUrl(signature_agent.into()));
        }
        let origin_only = url.path() == "/" && url.query().is_none();
        // The URL as given, without the slash `Url` adds to a bare origin.
        let agent_url = if origin_only && !signature_agent.ends_with('/') {
            url.as_str().trim_end_matches('/').to_string()
        } else {
            url.to_string()
        };
        // A parsed URL never holds `"` or `\`, so the string is always a
        // valid structured-field string (RFC 9651 §3.3.3).
        let agent = match form {
            SignatureAgentForm::Legacy => format!("\"{agent_url}\""),
            SignatureAgentForm::Dictionary => {
                if url.scheme() != "https" {
                    return Err(SignError::AgentNotHttps(signature_agent.into()));
                }
                // The member is fetched as the JWK Set itself (§5.5).
                let directory = if origin_only {
                    format!("{}{DIRECTORY_PATH}", agent_url.trim_end_matches('/'))
                } else {
                    agent_url.clone()
                };
                format!("\"{directory}\"")
            }
        };
        let header = match form {
            SignatureAgentForm::Legacy => agent.clone(),
            SignatureAgentForm::Dictionary => format!("{LABEL}={agent}"),
        };
        let agent_header = HeaderValue::from_str(&header).map_err(|_| SignError::AgentUrl(signature_agent.into()))?;
        Ok(RequestSigner {
            key,
            agent_url,
            form,
            agent,
            agent_header,
            validity: SIGNATURE_VALIDITY,
            ahead: Arc::default(),
        })
    }

    /// The form `Signature-Agent` is sent in.
    pub fn form(&self) -> SignatureAgentForm {
        self.form
    }

    /// The `Signature-Agent` URL as given.
    pub fn agent_url(&self) -> &str {
        &self.agent_url
    }

    /// The same signer with signatures valid for `validity` after they are
    /// made (default [`SIGNATURE_VALIDITY`]).
    pub fn with_validity(mut self, validity: Duration) -> RequestSigner {
        self.validity = validity;
        self
    }

    /// The key that signs.
    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// The headers for a request to `url`, with a fresh nonce and `created`
    /// now.
    pub fn sign(&self, url: &Url) -> Result<SignedHeaders, SignError> {
        let authority = authority(url).ok_or_else(|| SignError::NoAuthority(url.to_string()))?;
        self.sign_authority(authority)
    }

    /// The signature made ahead for `url`'s host, when there is a fresh
    /// one (it is removed: never used twice), else a new one.
    pub fn take_or_sign(&self, url: &Url) -> Result<SignedHeaders, SignError> {
        let authority = authority(url).ok_or_else(|| SignError::NoAuthority(url.to_string()))?;
        let taken = self.lock().remove(&authority);
        match taken {
            Some((made, headers)) if made.elapsed() < AHEAD_FRESH => Ok(headers),
            _ => self.sign_authority(authority),
        }
    }

    /// Makes the next signature for `url`'s host and keeps it for
    /// [`RequestSigner::take_or_sign`] (unless [`AHEAD_HOSTS`] hosts already
    /// have one that is still fresh).
    pub fn sign_ahead(&self, url: &Url) {
        let Some(authority) = authority(url) else { return };
        {
            let mut ahead = self.lock();
            if ahead.len() >= AHEAD_HOSTS {
                ahead.retain(|_, (made, _)| made.elapsed() < AHEAD_FRESH);
                if ahead.len() >= AHEAD_HOSTS {
                    return;
                }
            }
        }
        if let Ok(headers) = self.sign_authority(authority.clone()) {
            self.lock().insert(authority, (Instant::now(), headers));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, SignedHeaders)>> {
        self.ahead.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn sign_authority(&self, authority: String) -> Result<SignedHeaders, SignError> {
        let mut nonce = [0u8; 32];
        getrandom::fill(&mut nonce).map_err(|e| SignError::Signing(format!("no random nonce: {e}")))?;
        let signer =
            MessageSigner { keyid: self.key.key_id().to_string(), nonce: STANDARD.encode(nonce), tag: TAG.into() };
        let mut message =
            Message { authority, agent: &self.agent, form: self.form, input: String::new(), signature: String::new() };
        signer
            .generate_signature_headers_content(&mut message, self.validity, Algorithm::Ed25519, &self.key)
            .map_err(|e| SignError::Signing(e.to_string()))?;
        let header = |text: String| HeaderValue::try_from(text).map_err(|e| SignError::Signing(e.to_string()));
        Ok(SignedHeaders {
            signature_agent: self.agent_header.clone(),
            signature_input: header(format!("{LABEL}={}", message.input))?,
            signature: header(format!("{LABEL}={}", message.signature))?,
        })
    }
}

/// `@authority` (RFC 9421 §2.2.3): the host, lowercase, with the port only
/// when it is not the scheme's default.
pub(crate) fn authority(url: &Url) -> Option<String> {
    let host = url.host_str().filter(|h| !h.is_empty())?.to_ascii_lowercase();
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    })
}

/// One request as the signing library sees it.
struct Message<'a> {
    authority: String,
    agent: &'a str,
    form: SignatureAgentForm,
    input: String,
    signature: String,
}

impl UnsignedMessage for Message<'_> {
    fn fetch_components_to_cover(&self) -> indexmap::IndexMap<CoveredComponent, String> {
        let mut covered = indexmap::IndexMap::new();
        covered.insert(CoveredComponent::Derived(DerivedComponent::Authority { req: false }), self.authority.clone());
        covered.insert(
            CoveredComponent::HTTP(HTTPField {
                name: "signature-agent".into(),
                parameters: HTTPFieldParametersSet(match self.form {
                    SignatureAgentForm::Dictionary => vec![HTTPFieldParameters::Key(LABEL.into())],
                    SignatureAgentForm::Legacy => Vec::new(),
                }),
            }),
            self.agent.to_string(),
        );
        covered
    }

    fn register_header_contents(&mut self, signature_input: String, signature_header: String) {
        self.input = signature_input;
        self.signature = signature_header;
    }
}

impl GenerateSignature for SigningKey {
    fn generate_signature(
        &self,
        algorithm: Algorithm,
        msg: &[u8],
    ) -> Result<Vec<u8>, web_bot_auth::ImplementationError> {
        match algorithm {
            Algorithm::Ed25519 => Ok(self.sign(msg).to_vec()),
            other => Err(web_bot_auth::ImplementationError::UnsupportedAlgorithm(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authority_is_host_and_non_default_port() {
        let rows = [
            ("https://Example.COM/a", "example.com"),
            ("https://example.com:443/a", "example.com"),
            ("http://example.com:8080/", "example.com:8080"),
            ("http://127.0.0.1:3000/x?y", "127.0.0.1:3000"),
            ("http://[::1]:80/", "[::1]"),
        ];
        for (url, expected) in rows {
            assert_eq!(authority(&Url::parse(url).unwrap()).as_deref(), Some(expected), "{url}");
        }
    }

    #[test]
    fn agent_urls_are_checked() {
        let key = || SigningKey::from_seed(&[7; 32]);
        for bad in ["bot.example", "ftp://bot.example", "https://", "data:,x"] {
            assert!(RequestSigner::new(key(), bad).is_err(), "{bad}");
        }
        let signer = RequestSigner::with_form(key(), "https://bot.example", SignatureAgentForm::Legacy).unwrap();
        assert_eq!(signer.agent, "\"https://bot.example\"");
    }

    #[test]
    fn headers_carry_every_parameter_and_a_fresh_nonce() {
        let signer = RequestSigner::with_form(
            SigningKey::from_seed(&[7; 32]),
            "https://bot.example",
            SignatureAgentForm::Legacy,
        )
        .unwrap();
        let url = Url::parse("http://127.0.0.1:8080/robots.txt").unwrap();
        let a = signer.sign(&url).unwrap();
        let b = signer.sign(&url).unwrap();
        let input = a.signature_input.to_str().unwrap();
        assert!(input.starts_with(r#"sig1=("@authority" "signature-agent");"#), "{input}");
        for parameter in ["created=", "expires=", "keyid=\"", "alg=\"ed25519\"", "nonce=\"", "tag=\"web-bot-auth\""] {
            assert!(input.contains(parameter), "{parameter} in {input}");
        }
        assert_ne!(a.signature_input, b.signature_input, "each signature has its own nonce");
        assert!(a.signature.to_str().unwrap().starts_with("sig1=:"));
    }

    #[test]
    fn the_dictionary_form_names_the_directory_under_the_label() {
        let key = || SigningKey::from_seed(&[7; 32]);
        let rows = [
            ("https://bot.example", r#"sig1="https://bot.example/.well-known/http-message-signatures-directory""#),
            ("https://bot.example/", r#"sig1="https://bot.example/.well-known/http-message-signatures-directory""#),
            ("https://bot.example/keys.json", r#"sig1="https://bot.example/keys.json""#),
        ];
        for (given, header) in rows {
            let signer = RequestSigner::new(key(), given).unwrap();
            assert_eq!(signer.form(), SignatureAgentForm::Dictionary);
            let signed = signer.sign(&Url::parse("https://a.example/x").unwrap()).unwrap();
            assert_eq!(signed.signature_agent.to_str().unwrap(), header, "{given}");
            let input = signed.signature_input.to_str().unwrap();
            assert!(input.starts_with(r#"sig1=("@authority" "signature-agent";key="sig1");"#), "{input}");
        }
        // §5.2.1: member values are https URLs; the legacy form keeps http.
        let err = RequestSigner::new(key(), "http://bot.example").unwrap_err();
        assert!(matches!(err, SignError::AgentNotHttps(_)), "{err}");
        let legacy = RequestSigner::with_form(key(), "http://bot.example", SignatureAgentForm::Legacy).unwrap();
        assert_eq!(legacy.agent_header.to_str().unwrap(), r#""http://bot.example""#);
        assert_eq!("legacy".parse::<SignatureAgentForm>(), Ok(SignatureAgentForm::Legacy));
        assert!("Dictionary".parse::<SignatureAgentForm>().is_err());
    }

    #[test]
    fn a_signature_made_ahead_is_taken_once_for_its_host_while_fresh() {
        let signer = RequestSigner::new(SigningKey::from_seed(&[7; 32]), "https://bot.example").unwrap();
        let a = Url::parse("http://a.example/x").unwrap();
        let b = Url::parse("http://b.example/x").unwrap();
        signer.sign_ahead(&a);
        let made = signer.lock().get("a.example").unwrap().1.signature.clone();
        assert_ne!(signer.take_or_sign(&b).unwrap().signature, made, "not for another host");
        assert_eq!(signer.take_or_sign(&a).unwrap().signature, made, "taken by its host");
        assert_ne!(signer.take_or_sign(&a).unwrap().signature, made, "never twice");
        // A stale one is not used.
        signer.sign_ahead(&a);
        let stale = {
            let mut ahead = signer.lock();
            let entry = ahead.get_mut("a.example").unwrap();
            entry.0 = Instant::now().checked_sub(AHEAD_FRESH).unwrap();
            entry.1.signature.clone()
        };
        assert_ne!(signer.take_or_sign(&a).unwrap().signature, stale);
        // At most AHEAD_HOSTS hosts wait.
        for i in 0..AHEAD_HOSTS + 10 {
            signer.sign_ahead(&Url::parse(&format!("http://h{i}.example/")).unwrap());
        }
        assert_eq!(signer.lock().len(), AHEAD_HOSTS);
    }
}
