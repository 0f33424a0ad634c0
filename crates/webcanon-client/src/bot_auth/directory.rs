//! The key directory (draft-ietf-webbotauth-httpsig-protocol §5.5): a JWKS
//! of the agent's public keys, each `kid` its RFC 7638 thumbprint,
//! published over https at [`DIRECTORY_PATH`](super::DIRECTORY_PATH) with
//! the media type [`DIRECTORY_MEDIA_TYPE`](super::DIRECTORY_MEDIA_TYPE),
//! answered with a 200 itself (verifiers follow no redirect).

use web_bot_auth::keyring::{KeyRing, Thumbprintable};

use super::key::SigningKey;

/// The largest directory read, in bytes.
pub const MAX_DIRECTORY_BYTES: usize = 256 * 1024;
/// The most keys a directory may list.
pub const MAX_DIRECTORY_KEYS: usize = 64;

/// The directory listing `keys` (public halves only), in the order given:
/// several keys for rotation, the new one published before it signs and
/// the old one kept until its last signatures have expired.
///
/// ```
/// use webcanon_client::bot_auth::{SigningKey, directory};
///
/// let key = SigningKey::from_seed(&[1; 32]);
/// let json = directory::jwks(&[key.clone()]);
/// assert_eq!(json["keys"][0]["kid"], key.key_id());
/// assert!(json["keys"][0].get("d").is_none());
/// ```
pub fn jwks(keys: &[SigningKey]) -> serde_json::Value {
    let mut seen = std::collections::HashSet::new();
    let keys: Vec<_> =
        keys.iter().filter(|k| seen.insert(k.key_id().to_string())).map(SigningKey::public_jwk).collect();
    serde_json::json!({ "keys": keys })
}

/// A directory read for verifying: its Ed25519 keys by key id.
#[derive(Debug, Clone)]
pub struct KeyDirectory {
    pub(crate) ring: KeyRing,
    ids: Vec<String>,
}

/// A directory that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DirectoryError {
    /// Larger than [`MAX_DIRECTORY_BYTES`].
    #[error("the key directory is larger than {MAX_DIRECTORY_BYTES} bytes")]
    TooLarge,
    /// Not a JWKS (`{"keys":[…]}`).
    #[error("the key directory is not a JWKS (`{{\"keys\":[…]}}`): {0}")]
    NotJwks(String),
    /// More than [`MAX_DIRECTORY_KEYS`] keys.
    #[error("the key directory lists {0} keys, more than {MAX_DIRECTORY_KEYS}")]
    TooManyKeys(usize),
    /// No Ed25519 key in it.
    #[error("the key directory has no Ed25519 (OKP) public key")]
    NoKey,
}

impl KeyDirectory {
    /// Reads a JWKS. Keys other than Ed25519 are ignored (they cannot sign
    /// `alg="ed25519"`); each key is known by its RFC 7638 thumbprint.
    pub fn parse(text: &str) -> Result<KeyDirectory, DirectoryError> {
        if text.len() > MAX_DIRECTORY_BYTES {
            return Err(DirectoryError::TooLarge);
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| DirectoryError::NotJwks(e.to_string()))?;
        let Some(keys) = value.get("keys").and_then(|k| k.as_array()) else {
            return Err(DirectoryError::NotJwks("no `keys` array".into()));
        };
        if keys.len() > MAX_DIRECTORY_KEYS {
            return Err(DirectoryError::TooManyKeys(keys.len()));
        }
        let okp: Vec<Thumbprintable> = keys
            .iter()
            .filter_map(|k| serde_json::from_value::<Thumbprintable>(k.clone()).ok())
            .filter(|k| matches!(k, Thumbprintable::OKP { crv, .. } if crv == "Ed25519"))
            .collect();
        let mut ring = KeyRing::default();
        let mut ids = Vec::new();
        for key in &okp {
            if ring.try_import_jwk(key).is_ok() {
                ids.push(key.b64_thumbprint());
            }
        }
        if ids.is_empty() {
            return Err(DirectoryError::NoKey);
        }
        Ok(KeyDirectory { ring, ids })
    }

    /// The key ids (thumbprints) of the keys it holds.
    pub fn key_ids(&self) -> &[String] {
        &self.ids
    }

    /// Whether it holds the key `id`.
    pub fn has(&self, id: &str) -> bool {
        self.ids.iter().any(|known| known == id)
    }

    /// Adds the keys of `other` (several directories at once).
    pub fn merge(&mut self, other: KeyDirectory) {
        for id in other.ids {
            if !self.has(&id)
                && let Some((algorithm, key)) = other.ring.get(&id)
            {
                self.ring.import_raw(id.clone(), algorithm.clone(), key.clone());
                self.ids.push(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_directory_reads_back() {
        let keys = [SigningKey::from_seed(&[1; 32]), SigningKey::from_seed(&[2; 32]), SigningKey::from_seed(&[1; 32])];
        let text = jwks(&keys).to_string();
        let directory = KeyDirectory::parse(&text).unwrap();
        assert_eq!(directory.key_ids(), [keys[0].key_id(), keys[1].key_id()]);
    }

    #[test]
    fn bad_directories_say_why() {
        let many = serde_json::json!({ "keys": vec![serde_json::json!({}); MAX_DIRECTORY_KEYS + 1] }).to_string();
        let rows: [(String, DirectoryError); 5] = [
            (" ".repeat(MAX_DIRECTORY_BYTES + 1), DirectoryError::TooLarge),
            ("[]".into(), DirectoryError::NotJwks("no `keys` array".into())),
            (many, DirectoryError::TooManyKeys(MAX_DIRECTORY_KEYS + 1)),
            (r#"{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}"#.into(), DirectoryError::NoKey),
            (r#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AAAA"}]}"#.into(), DirectoryError::NoKey),
        ];
        for (text, expected) in rows {
            assert_eq!(KeyDirectory::parse(&text).unwrap_err(), expected);
        }
    }
}
