//! Ed25519 signing keys: made, written to a private file, read back, and
//! described as the public JWK a key directory lists.

use std::io::{Read, Write};
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, spki::der::pem::LineEnding};
use web_bot_auth::keyring::Thumbprintable;

/// The largest key file read, in bytes: a PEM Ed25519 key is 119 bytes, a
/// JWK about 200; anything much larger is not a key.
pub const MAX_KEY_FILE_BYTES: u64 = 16 * 1024;

/// An Ed25519 private key and its key id (the RFC 7638 JWK thumbprint of
/// its public half). `Debug` never shows the private key.
#[derive(Clone)]
pub struct SigningKey {
    key: ed25519_dalek::SigningKey,
    key_id: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

/// Why a key could not be made, read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The file could not be read or written.
    #[error("key file `{path}`: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_KEY_FILE_BYTES`].
    #[error("key file `{path}` is larger than {MAX_KEY_FILE_BYTES} bytes: not a key")]
    TooLarge {
        /// The file.
        path: String,
    },
    /// The file holds no Ed25519 private key in a form read here.
    #[error(
        "key file `{path}` holds no Ed25519 private key ({reason}); expected a PKCS#8 PEM file \
         (`webcanon keys generate`, `openssl genpkey -algorithm ed25519`) or a private JWK"
    )]
    NotAKey {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The system's random source failed.
    #[error("no random bytes from the system: {0}")]
    Random(String),
}

impl SigningKey {
    /// A new key from the system's random source.
    pub fn generate() -> Result<SigningKey, KeyError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(SigningKey::from_seed(&seed))
    }

    /// The key of a 32-byte Ed25519 seed (the RFC 8032 private key).
    pub fn from_seed(seed: &[u8; 32]) -> SigningKey {
        let key = ed25519_dalek::SigningKey::from_bytes(seed);
        let key_id = thumbprint(&key.verifying_key().to_bytes());
        SigningKey { key, key_id }
    }

    /// Reads a key file: PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or a
    /// private JWK (`{"kty":"OKP","crv":"Ed25519","d":…,"x":…}`).
    pub fn load(path: &Path) -> Result<SigningKey, KeyError> {
        let shown = path.display().to_string();
        let io = |source| KeyError::Io { path: shown.clone(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut text = String::new();
        file.take(MAX_KEY_FILE_BYTES + 1).read_to_string(&mut text).map_err(io)?;
        if text.len() as u64 > MAX_KEY_FILE_BYTES {
            return Err(KeyError::TooLarge { path: shown });
        }
        SigningKey::parse(&text).map_err(|reason| KeyError::NotAKey { path: shown, reason })
    }

    /// A warning when the key file at `path` can be read by its group or by
    /// others (Unix permission bits `0o077`), naming the mode and the fix;
    /// `None` when only its owner can read it, when it cannot be examined,
    /// or on systems without such bits. A private key anyone on the machine
    /// can read can sign as the agent.
    pub fn exposure_warning(path: &Path) -> Option<String> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
            (mode & 0o077 != 0).then(|| {
                format!(
                    "key file `{}` can be read by {} (mode {mode:04o}); anyone who reads it can sign as your agent: \
                     run `chmod 600 {}`",
                    path.display(),
                    if mode & 0o007 != 0 { "other users" } else { "its group" },
                    path.display()
                )
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    /// The key in `text` (PEM or JWK), or what is wrong with it.
    pub fn parse(text: &str) -> Result<SigningKey, String> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            return from_jwk(trimmed);
        }
        if !trimmed.starts_with("-----BEGIN PRIVATE KEY-----") {
            return Err("no `-----BEGIN PRIVATE KEY-----` line and not a JSON object".into());
        }
        let key = ed25519_dalek::SigningKey::from_pkcs8_pem(trimmed).map_err(|e| e.to_string())?;
        Ok(SigningKey::from_seed(&key.to_bytes()))
    }

    /// Writes the key as PKCS#8 PEM to a new file, readable by its owner
    /// only (mode 0600 on Unix, set when the file is created). An existing
    /// file is never overwritten.
    pub fn write_new(&self, path: &Path) -> Result<(), KeyError> {
        let shown = path.display().to_string();
        let io = |source| KeyError::Io { path: shown.clone(), source };
        let pem = self
            .key
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| KeyError::NotAKey { path: shown.clone(), reason: format!("cannot encode the key: {e}") })?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(io)?;
        file.write_all(pem.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)
    }

    /// The key id: the base64url SHA-256 JWK thumbprint (RFC 7638) of the
    /// public key, as `keyid` in `Signature-Input` and `kid` in the
    /// directory.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The public key, base64url (the JWK's `x`).
    pub fn public_x(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key.verifying_key().to_bytes())
    }

    /// The public JWK a key directory lists: `kty`, `crv`, `x` and `kid`.
    pub fn public_jwk(&self) -> serde_json::Value {
        serde_json::json!({ "kty": "OKP", "crv": "Ed25519", "x": self.public_x(), "kid": self.key_id })
    }

    /// Signs `message` (Ed25519, RFC 8032).
    pub(crate) fn sign(&self, message: &[u8]) -> [u8; 64] {
        use ed25519_dalek::Signer as _;
        self.key.sign(message).to_bytes()
    }
}

/// The RFC 7638 thumbprint of an Ed25519 public key: base64url of the
/// SHA-256 of `{"crv":"Ed25519","kty":"OKP","x":"…"}`.
pub fn thumbprint(public: &[u8; 32]) -> String {
    Thumbprintable::OKP { crv: "Ed25519".into(), x: URL_SAFE_NO_PAD.encode(public) }.b64_thumbprint()
}

/// A private OKP JWK (RFC 8037): `d` is the seed; `x`, when given, must be
/// its public key.
fn from_jwk(text: &str) -> Result<SigningKey, String> {
    #[derive(serde::Deserialize)]
    struct Jwk {
        kty: String,
        crv: String,
        d: Option<String>,
        x: Option<String>,
    }
    let jwk: Jwk = serde_json::from_str(text).map_err(|e| format!("not a JWK: {e}"))?;
    if jwk.kty != "OKP" || jwk.crv != "Ed25519" {
        return Err(format!("a JWK with kty `{}` and crv `{}`, not OKP Ed25519", jwk.kty, jwk.crv));
    }
    let d = jwk.d.ok_or("a public JWK: it has no `d`")?;
    let seed: [u8; 32] = URL_SAFE_NO_PAD
        .decode(d.trim_end_matches('='))
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or("`d` is not 32 bytes of base64url")?;
    let key = SigningKey::from_seed(&seed);
    if let Some(x) = jwk.x
        && x.trim_end_matches('=') != key.public_x()
    {
        return Err("`x` is not the public key of `d`".into());
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8037 appendix A.1 (the key) and A.3 (its thumbprint).
    const RFC8037_D: &str = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
    const RFC8037_X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    const RFC8037_KID: &str = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";

    #[test]
    fn the_rfc_8037_key_has_the_rfc_7638_thumbprint() {
        let jwk = format!(r#"{{"kty":"OKP","crv":"Ed25519","d":"{RFC8037_D}","x":"{RFC8037_X}"}}"#);
        let key = SigningKey::parse(&jwk).unwrap();
        assert_eq!(key.public_x(), RFC8037_X);
        assert_eq!(key.key_id(), RFC8037_KID);
    }

    #[test]
    fn a_written_key_reads_back_and_is_private() {
        let dir = std::env::temp_dir().join(format!("webcanon-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("agent.pem");
        let _ = std::fs::remove_file(&path);
        let key = SigningKey::generate().unwrap();
        key.write_new(&path).unwrap();
        assert_eq!(SigningKey::load(&path).unwrap().key_id(), key.key_id());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        // Never overwritten.
        let again = SigningKey::generate().unwrap().write_new(&path).unwrap_err();
        assert!(again.to_string().contains("exists"), "{again}");
        assert!(!format!("{key:?}").contains(&URL_SAFE_NO_PAD.encode(key.key.to_bytes())));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_is_not_a_key_says_why() {
        let rows = [
            ("hello", "no `-----BEGIN PRIVATE KEY-----` line"),
            ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", ""),
            (r#"{"kty":"RSA","crv":"x"}"#, "not OKP Ed25519"),
            (&format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8037_X}"}}"#), "a public JWK"),
            (r#"{"kty":"OKP","crv":"Ed25519","d":"AAAA"}"#, "`d` is not 32 bytes"),
            (
                &format!(r#"{{"kty":"OKP","crv":"Ed25519","d":"{RFC8037_D}","x":"{RFC8037_KID}"}}"#),
                "`x` is not the public key",
            ),
        ];
        for (text, expected) in rows {
            let err = SigningKey::parse(text).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn an_oversized_file_is_refused_unread() {
        let path = std::env::temp_dir().join(format!("webcanon-bigkey-{}", std::process::id()));
        std::fs::write(&path, vec![b'a'; MAX_KEY_FILE_BYTES as usize + 1]).unwrap();
        let err = SigningKey::load(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(err, KeyError::TooLarge { .. }), "{err}");
    }
}
