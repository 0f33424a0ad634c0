//! Verifying a signed request, as a site owner would: the request's head
//! (from a log or a capture), a key directory, the time of the request, and
//! a cache of the nonces already seen.

use std::collections::{HashMap, VecDeque};

use web_bot_auth::WebBotAuthVerifier;
use web_bot_auth::components::{CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters};
use web_bot_auth::message_signatures::SignedMessage;

use super::TAG;
use super::directory::KeyDirectory;
use super::sign::SignatureAgentForm;

/// The most header lines one request may have.
pub const MAX_HEADER_LINES: usize = 200;
/// The longest header line, in bytes.
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// How far a signature's `created` may be ahead of the verifier's clock,
/// in seconds (clocks differ).
pub const CLOCK_SKEW_SECONDS: i64 = 60;
/// The most nonces remembered; the oldest are forgotten first.
pub const MAX_NONCES: usize = 100_000;
/// The most members a `Signature-Agent` dictionary may have: each signature
/// of a request names one (draft-ietf-webbotauth-httpsig-protocol §5.2.2),
/// and a request carries a few.
pub const MAX_SIGNATURE_AGENT_MEMBERS: usize = 16;

/// The head of one HTTP request: its `@authority` and its header lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestHead {
    /// The target's authority: the request line's absolute-form target,
    /// else the `Host` header.
    pub authority: Option<String>,
    /// Header lines, names lowercase, values trimmed, in order.
    pub headers: Vec<(String, String)>,
}

/// A request head that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("request {request}, line {line}: {reason}")]
pub struct RequestError {
    /// Which request of the input (from 1).
    pub request: usize,
    /// The line, from 1, counted over the whole input.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl RequestHead {
    /// Reads request heads: each an optional request line (`GET /x
    /// HTTP/1.1`) then `Name: value` lines, requests apart by blank lines.
    ///
    /// ```
    /// use webcanon_client::bot_auth::RequestHead;
    ///
    /// let heads = RequestHead::parse_many("GET / HTTP/1.1\nHost: Example.com\nAccept: */*\n").unwrap();
    /// assert_eq!(heads[0].authority.as_deref(), Some("example.com"));
    /// ```
    pub fn parse_many(text: &str) -> Result<Vec<RequestHead>, RequestError> {
        let mut heads = Vec::new();
        let mut current: Option<(RequestHead, Option<String>)> = None;
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim_end_matches('\r');
            let error = |reason: String| RequestError { request: heads.len() + 1, line: index + 1, reason };
            if line.trim().is_empty() {
                if let Some(head) = current.take() {
                    heads.push(finish(head));
                }
                continue;
            }
            if line.len() > MAX_LINE_BYTES {
                return Err(error(format!("longer than {MAX_LINE_BYTES} bytes")));
            }
            let (head, target) = current.get_or_insert_with(Default::default);
            if head.headers.is_empty() && target.is_none() && is_request_line(line) {
                *target = line.split_whitespace().nth(1).map(str::to_string);
                continue;
            }
            if line.starts_with([' ', '\t']) {
                return Err(error("folded header lines (obs-fold) are not accepted".into()));
            }
            let Some((name, value)) = line.split_once(':') else {
                return Err(error(format!("`{}` is neither a request line nor `Name: value`", shorten(line))));
            };
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(error(format!("`{}` is not a header name", shorten(name))));
            }
            if head.headers.len() == MAX_HEADER_LINES {
                return Err(error(format!("more than {MAX_HEADER_LINES} header lines")));
            }
            head.headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        if let Some(head) = current.take() {
            heads.push(finish(head));
        }
        Ok(heads)
    }

    /// Every value of header `name` (lowercase).
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The form of the request's `Signature-Agent` header, if it has one: a
    /// String Item starts with `"`, a Dictionary member key does not
    /// (draft-ietf-webbotauth-httpsig-protocol §5.2.1).
    pub fn signature_agent_form(&self) -> Option<SignatureAgentForm> {
        let value = self.values("signature-agent").next()?;
        Some(if value.trim_start().starts_with('"') {
            SignatureAgentForm::Legacy
        } else {
            SignatureAgentForm::Dictionary
        })
    }

    /// The `Signature-Agent` dictionary, read within
    /// [`MAX_SIGNATURE_AGENT_MEMBERS`] members and [`MAX_LINE_BYTES`] bytes.
    fn signature_agent_dictionary(&self) -> Result<Option<sfv::Dictionary>, Reason> {
        let Some(value) = self.values("signature-agent").next() else { return Ok(None) };
        if value.len() > MAX_LINE_BYTES {
            return Err(Reason::Malformed(format!("Signature-Agent is longer than {MAX_LINE_BYTES} bytes")));
        }
        // Members are apart by commas; counting them first keeps a field of
        // thousands of members from being built into a map (a comma inside
        // a string only makes the count larger, never smaller).
        let commas = memchr::memchr_iter(b',', value.as_bytes()).take(MAX_SIGNATURE_AGENT_MEMBERS).count();
        if commas >= MAX_SIGNATURE_AGENT_MEMBERS {
            return Err(Reason::Malformed(format!(
                "Signature-Agent has more than {MAX_SIGNATURE_AGENT_MEMBERS} members"
            )));
        }
        sfv::Parser::new(value)
            .parse_dictionary()
            .map(Some)
            .map_err(|e| Reason::Malformed(format!("Signature-Agent is not a dictionary: {e}")))
    }
}

fn is_request_line(line: &str) -> bool {
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let _target = parts.next();
    parts.next().is_some_and(|v| v.starts_with("HTTP/")) && method.bytes().all(|b| b.is_ascii_uppercase())
}

fn finish((mut head, target): (RequestHead, Option<String>)) -> RequestHead {
    let from_target = target.and_then(|t| url::Url::parse(&t).ok()).and_then(|u| super::sign::authority(&u));
    head.authority = from_target.or_else(|| head.values("host").next().map(|h| h.to_ascii_lowercase()));
    head
}

fn shorten(text: &str) -> String {
    text.chars().take(60).collect()
}

impl SignedMessage for RequestHead {
    fn lookup_component(&self, name: &CoveredComponent) -> Vec<String> {
        match name {
            CoveredComponent::HTTP(HTTPField { name, parameters }) if parameters.0.is_empty() => {
                self.values(name).map(str::to_string).collect()
            }
            // A dictionary member (RFC 9421 §2.1.2): its value serialised.
            CoveredComponent::HTTP(HTTPField { name, parameters })
                if name == "signature-agent"
                    && let [HTTPFieldParameters::Key(key)] = parameters.0.as_slice() =>
            {
                match self.signature_agent_dictionary() {
                    Ok(Some(dictionary)) => match dictionary.get(key.as_str()) {
                        Some(sfv::ListEntry::Item(item)) => vec![sfv::SerializeValue::serialize_value(item)],
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                }
            }
            CoveredComponent::Derived(DerivedComponent::Authority { req: false }) => {
                self.authority.iter().cloned().collect()
            }
            _ => Vec::new(),
        }
    }
}

/// What a verification found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A valid Web Bot Auth signature.
    Valid(Signer),
    /// Not a valid one, and why.
    Invalid(Reason),
}

/// Who signed a valid request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The `Signature-Agent` URL, when the request names one.
    pub agent: Option<String>,
    /// The form `Signature-Agent` came in, when the request has one.
    pub form: Option<SignatureAgentForm>,
    /// The key id (JWK thumbprint) that signed.
    pub key_id: String,
    /// When the signature expires (Unix seconds).
    pub expires: i64,
}

/// Why a request's signature is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Reason {
    /// No `Signature-Input` or no `Signature` header.
    #[error("not signed: no `Signature-Input` and `Signature` headers")]
    Unsigned,
    /// The signature headers do not parse, or lack a parameter.
    #[error("malformed signature: {0}")]
    Malformed(String),
    /// No signature with `tag="web-bot-auth"`.
    #[error("no signature has tag=\"web-bot-auth\"")]
    NotWebBotAuth,
    /// A component the protocol requires is not covered.
    #[error("the signature does not cover `{0}`")]
    MissingComponent(&'static str),
    /// The request has no authority (no `Host`) to verify against.
    #[error("the request has no Host header or absolute target: no @authority")]
    NoAuthority,
    /// Past its `expires`.
    #[error("expired at {expires} (Unix seconds), {} s before {now}", now - expires)]
    Expired {
        /// The signature's `expires`.
        expires: i64,
        /// The time of verification.
        now: i64,
    },
    /// `created` is ahead of the clock by more than [`CLOCK_SKEW_SECONDS`].
    #[error("created at {created} (Unix seconds), after {now}")]
    NotYetValid {
        /// The signature's `created`.
        created: i64,
        /// The time of verification.
        now: i64,
    },
    /// The key id is not in the directory.
    #[error("unknown key `{0}`: not in the key directory")]
    UnknownKey(String),
    /// The algorithm is not Ed25519.
    #[error("algorithm `{0}` is not ed25519")]
    Algorithm(String),
    /// The signature does not match the request and key.
    #[error("bad signature: it does not match the request under key `{0}`")]
    BadSignature(String),
    /// The nonce was seen before in a valid request.
    #[error("replayed nonce `{0}`: already seen in a valid request")]
    ReplayedNonce(String),
}

impl Reason {
    /// A short stable code for the reason (`expired`, `unknown_key`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Reason::Unsigned => "unsigned",
            Reason::Malformed(_) => "malformed",
            Reason::NotWebBotAuth => "not_web_bot_auth",
            Reason::MissingComponent(_) => "missing_component",
            Reason::NoAuthority => "no_authority",
            Reason::Expired { .. } => "expired",
            Reason::NotYetValid { .. } => "not_yet_valid",
            Reason::UnknownKey(_) => "unknown_key",
            Reason::Algorithm(_) => "algorithm",
            Reason::BadSignature(_) => "bad_signature",
            Reason::ReplayedNonce(_) => "replayed_nonce",
        }
    }
}

/// Verifies requests against a key directory, remembering the nonces of
/// valid ones (at most [`MAX_NONCES`], each until its signature expires).
#[derive(Debug, Clone)]
pub struct Verifier {
    directory: KeyDirectory,
    nonces: NonceCache,
}

impl Verifier {
    /// A verifier for the keys of `directory`.
    pub fn new(directory: KeyDirectory) -> Verifier {
        Verifier { directory, nonces: NonceCache::new(MAX_NONCES) }
    }

    /// Verifies `request` as of `now` (Unix seconds).
    pub fn verify(&mut self, request: &RequestHead, now: i64) -> Verdict {
        match self.check(request, now) {
            Ok(signer) => Verdict::Valid(signer),
            Err(reason) => Verdict::Invalid(reason),
        }
    }

    fn check(&mut self, request: &RequestHead, now: i64) -> Result<Signer, Reason> {
        repeated_single_field(request)?;
        if request.values("signature-input").next().is_none() || request.values("signature").next().is_none() {
            return Err(Reason::Unsigned);
        }
        let agent_members = request.signature_agent_dictionary();
        let form = request.signature_agent_form();
        if form == Some(SignatureAgentForm::Dictionary) {
            agent_members.clone()?;
        }
        let params = web_bot_auth_params(request, form, agent_members.ok().flatten().as_ref())?;
        if request.authority.is_none() {
            return Err(Reason::NoAuthority);
        }
        if let Some(alg) = params.alg.as_deref().filter(|a| *a != "ed25519") {
            return Err(Reason::Algorithm(alg.to_string()));
        }
        if now >= params.expires {
            return Err(Reason::Expired { expires: params.expires, now });
        }
        if params.created > now + CLOCK_SKEW_SECONDS {
            return Err(Reason::NotYetValid { created: params.created, now });
        }
        if !self.directory.has(&params.key_id) {
            return Err(Reason::UnknownKey(params.key_id));
        }
        let parsed = WebBotAuthVerifier::parse(request).map_err(|e| Reason::Malformed(e.to_string()))?;
        let agent = parsed.get_signature_agents().iter().find_map(|link| match link {
            web_bot_auth::SignatureAgentLink::External(url) => Some(url.clone()),
            web_bot_auth::SignatureAgentLink::Inline(_) => None,
        });
        match parsed.verify(&self.directory.ring, Some(params.key_id.clone())) {
            Ok(_) => {}
            Err(web_bot_auth::ImplementationError::FailedToVerify(_))
            | Err(web_bot_auth::ImplementationError::InvalidSignatureLength) => {
                return Err(Reason::BadSignature(params.key_id));
            }
            Err(other) => return Err(Reason::Malformed(other.to_string())),
        }
        if let Some(nonce) = params.nonce
            && !self.nonces.insert(nonce.clone(), params.expires, now)
        {
            return Err(Reason::ReplayedNonce(nonce));
        }
        Ok(Signer { agent, form, key_id: params.key_id, expires: params.expires })
    }
}

/// The fields a request verified here may carry at most once, and why.
///
/// - `Host`: RFC 9112 §3.2 makes a request with more than one a 400; the
///   signature covers `@authority` from the first, so a second could name
///   another site unseen.
/// - `Signature-Agent`, `Signature-Input`, `Signature`: a Web Bot Auth
///   signer sends one line of each. RFC 9421 reads several lines as one
///   combined field, where a second line can add a signature or replace the
///   signed label's value: which one a server acts on then depends on the
///   implementation, so a request that repeats them is refused rather than
///   read one way here and another way elsewhere.
const SINGLE_FIELDS: [(&str, &str); 4] = [
    ("host", "RFC 9112 §3.2: a request with more than one Host is answered 400"),
    ("signature-agent", "a Web Bot Auth request names one agent"),
    ("signature-input", "a second line could add or replace a signature"),
    ("signature", "a second line could add or replace a signature"),
];

/// Refuses a request that repeats a field of [`SINGLE_FIELDS`].
fn repeated_single_field(request: &RequestHead) -> Result<(), Reason> {
    for (name, why) in SINGLE_FIELDS {
        let count = request.values(name).count();
        if count > 1 {
            let shown = match name {
                "host" => "Host",
                "signature-agent" => "Signature-Agent",
                "signature-input" => "Signature-Input",
                _ => "Signature",
            };
            return Err(Reason::Malformed(format!("`{shown}` appears {count} times ({why})")));
        }
    }
    Ok(())
}

/// The parameters of the request's Web Bot Auth signature.
struct Params {
    key_id: String,
    created: i64,
    expires: i64,
    alg: Option<String>,
    nonce: Option<String>,
}

/// Finds the signature tagged `web-bot-auth` and checks what it must
/// cover and carry: `@authority` (or `@target-uri`) and, when the request
/// has a `Signature-Agent`, that header (legacy form) or its member keyed
/// by the signature's label (dictionary form, which must be there and carry
/// no parameters: draft-ietf-webbotauth-httpsig-protocol §5.2.1).
fn web_bot_auth_params(
    request: &RequestHead,
    form: Option<SignatureAgentForm>,
    members: Option<&sfv::Dictionary>,
) -> Result<Params, Reason> {
    let mut tagged = None;
    for value in request.values("signature-input") {
        let dictionary = sfv::Parser::new(value)
            .parse_dictionary()
            .map_err(|e| Reason::Malformed(format!("Signature-Input: {e}")))?;
        for (label, entry) in dictionary {
            if let sfv::ListEntry::InnerList(list) = entry
                && list.params.get("tag").and_then(|t| t.as_string()).is_some_and(|t| t.as_str() == TAG)
            {
                tagged.get_or_insert((label, list));
            }
        }
    }
    let (label, list) = tagged.ok_or(Reason::NotWebBotAuth)?;
    let covered = |name: &str, key: Option<&str>| {
        list.items.iter().any(|item| {
            item.bare_item.as_string().is_some_and(|s| s.as_str() == name)
                && item.params.get("key").and_then(|k| k.as_string()).map(|k| k.as_str()) == key
        })
    };
    if !covered("@authority", None) && !covered("@target-uri", None) {
        return Err(Reason::MissingComponent("@authority"));
    }
    match form {
        None => {}
        Some(SignatureAgentForm::Legacy) if !covered("signature-agent", None) => {
            return Err(Reason::MissingComponent("signature-agent"));
        }
        Some(SignatureAgentForm::Legacy) => {}
        Some(SignatureAgentForm::Dictionary) => {
            if !covered("signature-agent", Some(label.as_str())) {
                return Err(Reason::MissingComponent("signature-agent"));
            }
            match members.and_then(|m| m.get(label.as_str())) {
                Some(sfv::ListEntry::Item(item)) if item.params.is_empty() && item.bare_item.as_string().is_some() => {}
                Some(sfv::ListEntry::Item(item)) if !item.params.is_empty() => {
                    return Err(Reason::Malformed(format!(
                        "the Signature-Agent member `{label}` carries parameters, which verifiers ignore (§5.2.1)"
                    )));
                }
                Some(_) => {
                    return Err(Reason::Malformed(format!("the Signature-Agent member `{label}` is not a string")));
                }
                None => {
                    return Err(Reason::Malformed(format!("Signature-Agent has no member `{label}`")));
                }
            }
        }
    }
    let string = |name: &str| list.params.get(name).and_then(|v| v.as_string()).map(|s| s.as_str().to_string());
    let integer = |name: &str| list.params.get(name).and_then(|v| v.as_integer()).map(i64::from);
    let missing = |name: &str| Reason::Malformed(format!("no `{name}` parameter"));
    Ok(Params {
        key_id: string("keyid").ok_or_else(|| missing("keyid"))?,
        created: integer("created").ok_or_else(|| missing("created"))?,
        expires: integer("expires").ok_or_else(|| missing("expires"))?,
        alg: string("alg"),
        nonce: string("nonce"),
    })
}

/// Nonces of valid signatures, each kept until its signature expires, at
/// most `capacity` (the oldest forgotten first).
#[derive(Debug, Clone)]
struct NonceCache {
    capacity: usize,
    seen: HashMap<String, i64>,
    order: VecDeque<String>,
}

impl NonceCache {
    fn new(capacity: usize) -> NonceCache {
        NonceCache { capacity, seen: HashMap::new(), order: VecDeque::new() }
    }

    /// Records `nonce`; false when it is already there.
    fn insert(&mut self, nonce: String, expires: i64, now: i64) -> bool {
        if self.seen.get(&nonce).is_some_and(|&until| until > now) {
            return false;
        }
        while self.order.len() >= self.capacity
            || self.order.front().is_some_and(|n| self.seen.get(n).is_none_or(|&until| until <= now))
        {
            let Some(old) = self.order.pop_front() else { break };
            self.seen.remove(&old);
        }
        self.order.push_back(nonce.clone());
        self.seen.insert(nonce, expires);
        true
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nonce_cache_is_bounded_and_forgets_expired_nonces() {
        let mut cache = NonceCache::new(3);
        assert!(cache.insert("a".into(), 100, 0));
        assert!(!cache.insert("a".into(), 100, 50), "replayed while valid");
        assert!(cache.insert("b".into(), 100, 0));
        assert!(cache.insert("c".into(), 100, 0));
        assert!(cache.insert("d".into(), 100, 0));
        assert_eq!(cache.len(), 3, "the oldest is forgotten at capacity");
        assert!(cache.insert("a".into(), 100, 0));
        // Past their expiry, nonces are dropped as new ones come.
        assert!(cache.insert("e".into(), 300, 200));
        assert_eq!(cache.len(), 1);
    }

    /// Issue 30, defect 13: a valid signed request with a second `Host`
    /// (or a second signature field) after the signed one was valid. Each
    /// repeated field is malformed; the request as signed is valid.
    #[test]
    fn a_request_repeating_a_single_field_is_malformed() {
        let key = super::super::SigningKey::from_seed(&[9; 32]);
        let directory = KeyDirectory::parse(&super::super::directory::jwks(std::slice::from_ref(&key)).to_string())
            .expect("a directory of the key");
        let signer = super::super::RequestSigner::new(key, "https://bot.example").unwrap();
        let signed = signer.sign(&url::Url::parse("http://a.example/x").unwrap()).unwrap();
        let header = |v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_string();
        let (agent, input, signature) =
            (header(&signed.signature_agent), header(&signed.signature_input), header(&signed.signature));
        let head = format!(
            "GET /x HTTP/1.1\nHost: a.example\nSignature-Agent: {agent}\nSignature-Input: {input}\nSignature: {signature}\n"
        );
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let verdict = |text: &str| {
            let request = RequestHead::parse_many(text).unwrap().remove(0);
            Verifier::new(directory.clone()).verify(&request, now)
        };
        assert!(matches!(verdict(&head), Verdict::Valid(_)), "{:?}", verdict(&head));
        let rows = [
            ("Host: b.example", "`Host` appears 2 times"),
            ("Host: a.example", "`Host` appears 2 times"),
            (&*format!("Signature-Agent: {agent}"), "`Signature-Agent` appears 2 times"),
            (&*format!("Signature-Input: {input}"), "`Signature-Input` appears 2 times"),
            (&*format!("Signature: {signature}"), "`Signature` appears 2 times"),
        ];
        for (extra, expected) in rows {
            match verdict(&format!("{head}{extra}\n")) {
                Verdict::Invalid(reason @ Reason::Malformed(_)) => {
                    assert!(reason.to_string().contains(expected), "{extra}: {reason}");
                    assert_eq!(reason.code(), "malformed");
                }
                other => panic!("{extra}: {other:?}"),
            }
        }
    }

    #[test]
    fn request_heads_are_read_and_bounded() {
        let text = "GET http://Other.example:8080/x HTTP/1.1\r\nHost: ignored\r\n\r\n\nGET / HTTP/1.1\nHost: A.example\nX: 1\n";
        let heads = RequestHead::parse_many(text).unwrap();
        assert_eq!(heads.len(), 2);
        assert_eq!(heads[0].authority.as_deref(), Some("other.example:8080"));
        assert_eq!(heads[1].authority.as_deref(), Some("a.example"));
        assert_eq!(heads[1].values("x").collect::<Vec<_>>(), ["1"]);
        let rows = [
            ("Host: a\n folded\n".to_string(), "obs-fold"),
            ("just words\n".to_string(), "neither a request line"),
            (format!("X: {}\n", "a".repeat(MAX_LINE_BYTES)), "longer than"),
            ("X: 1\n".repeat(MAX_HEADER_LINES + 1), "more than 200 header lines"),
            ("Bad Name: x\n".to_string(), "not a header name"),
        ];
        for (text, expected) in rows {
            let err = RequestHead::parse_many(&text).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
    }
}
