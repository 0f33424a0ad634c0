//! Web Bot Auth: requests signed with the agent's Ed25519 key, so that a
//! site can tell the agent from anyone claiming its `User-Agent`
//! (draft-ietf-webbotauth-httpsig-protocol, the editor's copy of 9 October
//! 2026, on HTTP Message Signatures, RFC 9421).
//!
//! What a signed request carries (one signature per request, taken in
//! `http.rs` as the request is sent, so robots.txt, llms.txt, pages,
//! Markdown alternatives, every redirect hop and sitemaps are all signed,
//! each hop for its own `@authority`; a retried request is signed again,
//! with a new nonce; the signature for a host's next request is made ahead
//! on the blocking pool, at most [`AHEAD_FRESH`] before it is used):
//!
//! ```text
//! Signature-Agent: sig1="https://bot.example/.well-known/http-message-signatures-directory"
//! Signature-Input: sig1=("@authority" "signature-agent";key="sig1");keyid="<thumbprint>";
//!     nonce="<32 random bytes, base64>";tag="web-bot-auth";alg="ed25519";
//!     created=<now>;expires=<now + 60>
//! Signature: sig1=:<Ed25519 signature, base64>:
//! ```
//!
//! Decisions:
//! - `Signature-Agent` is the Structured Fields Dictionary the draft
//!   requires of signers (§5.2.1): one member, keyed by the signature's
//!   label, whose value is the key directory's https URL, covered as
//!   `"signature-agent";key="sig1"`; an origin given as the agent means its
//!   well-known directory. [`SignatureAgentForm::Legacy`] sends the bare
//!   string of earlier drafts instead (`"https://bot.example"`, covered as
//!   `"signature-agent"`). The verifier reads both and reports which.
//! - Signatures are valid [`SIGNATURE_VALIDITY`] (60 s) after they are
//!   made: long enough for a slow request, short enough that a captured
//!   one is of little use.
//! - The key id is the RFC 7638 JWK thumbprint of the public key, as the
//!   directory draft asks; key files are PKCS#8 PEM (as `openssl genpkey
//!   -algorithm ed25519` writes them) or private JWKs. A key is read once,
//!   when the client is built.
//! - The signature base and the `Signature-Input` serialisation are
//!   Cloudflare's `web-bot-auth` crate; this module adds keys, the
//!   directory, the headers' values and a verifier that says why a
//!   signature fails (expired, unknown key, a component missing, bad
//!   signature, replayed nonce).
//! - The verifier takes the request's time from the caller (a log is
//!   verified as of when it was written) and keeps the nonces of valid
//!   requests until their signatures expire.

pub mod card;
pub mod directory;
mod key;
mod sign;
mod verify;

pub use directory::{DirectoryError, KeyDirectory};
pub use key::{KeyError, MAX_KEY_FILE_BYTES, SigningKey, thumbprint};
pub use sign::{AHEAD_FRESH, AHEAD_HOSTS, RequestSigner, SignError, SignatureAgentForm, SignedHeaders};
pub use verify::{
    CLOCK_SKEW_SECONDS, MAX_HEADER_LINES, MAX_LINE_BYTES, MAX_NONCES, Reason, RequestError, RequestHead, Signer,
    Verdict, Verifier,
};

use std::time::Duration;

/// Where an agent publishes its key directory, on the origin its
/// `Signature-Agent` names.
pub const DIRECTORY_PATH: &str = "/.well-known/http-message-signatures-directory";
/// The key directory's media type.
pub const DIRECTORY_MEDIA_TYPE: &str = "application/http-message-signatures-directory+json";
/// The `tag` of Web Bot Auth signatures.
pub const TAG: &str = "web-bot-auth";
/// The label of the signature in `Signature-Input` and `Signature`.
pub const LABEL: &str = "sig1";
/// How long a signature is valid after it is made.
pub const SIGNATURE_VALIDITY: Duration = Duration::from_secs(60);
