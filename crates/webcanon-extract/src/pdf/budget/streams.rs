//! A stream as the reader decodes it: decrypted with the document's own
//! handler, its filters named as the reader names them, and an upper bound
//! on what they decode it to.

use std::collections::HashMap;

use pdf_oxide::PdfDocument;
use pdf_oxide::encryption::EncryptionHandler;
use pdf_oxide::object::Object;

use super::caps::READER_FLATE_CAP;

/// How streams are decrypted.
pub(super) enum Decrypt {
    /// They are not encrypted.
    Plain,
    /// With the reader's own handler, opened with the empty password.
    Handler(Box<EncryptionHandler>),
    /// They are, and the handler could not be had: nothing is bounded.
    Unavailable,
}

/// The object `object` refers to, or itself.
pub(super) fn resolve(doc: &PdfDocument, object: &Object) -> Option<Object> {
    match object {
        Object::Reference(r) => doc.load_object(*r).ok(),
        other => Some(other.clone()),
    }
}

/// The reader's decryption, rebuilt from the trailer as the reader builds
/// it (the `/Encrypt` dictionary with its references resolved, the first
/// `/ID`, the empty password).
pub(super) fn decryption(doc: &PdfDocument) -> Decrypt {
    if !doc.is_encrypted() {
        return Decrypt::Plain;
    }
    let handler = || -> Option<EncryptionHandler> {
        let trailer = doc.trailer().as_dict()?;
        let encrypt = resolve(doc, trailer.get("Encrypt")?)?;
        let entries = encrypt.as_dict()?.iter();
        let encrypt =
            Object::Dictionary(entries.map(|(k, v)| (k.clone(), resolve(doc, v).unwrap_or(Object::Null))).collect());
        let id = match trailer.get("ID") {
            Some(Object::Array(ids)) => ids.first().and_then(Object::as_string).map(<[u8]>::to_vec).unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut handler = EncryptionHandler::new(&encrypt, id).ok()?;
        handler.authenticate(b"").ok()?.then_some(handler)
    };
    handler().map_or(Decrypt::Unavailable, |h| Decrypt::Handler(Box::new(h)))
}

/// A stream's `/Filter` names, in order.
pub(super) fn filter_names(dict: &HashMap<String, Object>) -> Vec<String> {
    match dict.get("Filter") {
        Some(Object::Name(name)) => vec![name.clone()],
        Some(Object::Array(names)) => names.iter().filter_map(|n| n.as_name().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

/// A filter's full name, as the reader reads names (abbreviations, any
/// case); `None` for one it does not know.
pub(super) fn canonical_filter(name: &str) -> Option<&'static str> {
    let canonical = match name.to_ascii_lowercase().as_str() {
        "flatedecode" | "fl" => "FlateDecode",
        "asciihexdecode" | "ahx" => "ASCIIHexDecode",
        "ascii85decode" | "a85" => "ASCII85Decode",
        "lzwdecode" | "lzw" => "LZWDecode",
        "runlengthdecode" | "rl" => "RunLengthDecode",
        _ => return None,
    };
    Some(canonical)
}

/// Whether the reader applies a predictor after the filters (its
/// `/DecodeParms`, a dictionary or the first in an array, with a
/// `/Predictor` other than 1).
pub(super) fn has_predictor(dict: &HashMap<String, Object>) -> bool {
    let params = match dict.get("DecodeParms") {
        Some(Object::Dictionary(params)) => Some(params),
        Some(Object::Array(all)) => all.iter().find_map(Object::as_dict),
        _ => None,
    };
    params.and_then(|p| p.get("Predictor")).and_then(Object::as_integer).is_some_and(|p| p != 1)
}

/// An upper bound on the bytes `filters` decode `len` bytes to: each
/// filter's largest expansion (deflate's 1032 to 1, at most the reader's
/// cap; a run of 128 from two bytes; a 12-bit LZW code of at most 4096
/// bytes; four bytes of an ASCII85 `z`); unbounded for any other filter.
pub(super) fn decoded_bound(filters: &[String], len: u64) -> u64 {
    filters.iter().fold(len, |len, name| match canonical_filter(name) {
        Some("FlateDecode") => len.saturating_add(1).saturating_mul(1032).min(READER_FLATE_CAP),
        Some("ASCIIHexDecode") => len / 2 + 1,
        Some("ASCII85Decode") => len.saturating_mul(4),
        Some("LZWDecode") => len.saturating_mul(4096),
        Some("RunLengthDecode") => len.saturating_mul(64),
        _ => u64::MAX,
    })
}
