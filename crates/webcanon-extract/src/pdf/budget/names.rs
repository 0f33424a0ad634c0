//! The names a resource dictionary gives the forms a page's content
//! draws, what its `/Properties` can add to a marked-content sequence, and
//! its fonts' `/ToUnicode` CMaps.

use pdf_oxide::PdfDocument;
use pdf_oxide::object::{Object, ObjectRef};
use rustc_hash::FxHashMap;

use super::caps::{CHARS_PER_CODE, MAX_NAME, MAX_SHOWN_STRING};
use super::streams::resolve;

/// The XObject names of a resource dictionary, and what its `/Properties`
/// can add to a marked-content sequence.
#[derive(Debug, Default)]
pub(super) struct Names {
    /// Each name (as the reader spells its keys) to its target's index.
    pub(super) index: FxHashMap<String, usize>,
    /// The objects named.
    pub(super) targets: Vec<ObjectRef>,
    /// The targets whose names are longer than [`MAX_NAME`].
    pub(super) long: Vec<usize>,
    /// The most characters the `/ActualText` of one `/Properties` entry
    /// can make.
    pub(super) actual_text: u64,
    /// The `/ToUnicode` CMap of each of its fonts that has one.
    pub(super) to_unicode: Vec<ObjectRef>,
}

impl Names {
    /// The names of `resources` (a resource dictionary, or a reference to
    /// one).
    pub(super) fn of(doc: &PdfDocument, resources: Option<&Object>) -> Names {
        let mut names = Names::default();
        let Some(resources) = resources.and_then(|r| resolve(doc, r)) else { return names };
        let Some(dict) = resources.as_dict() else { return names };
        if let Some(xobjects) = dict.get("XObject").and_then(|x| resolve(doc, x)) {
            for (key, value) in xobjects.as_dict().into_iter().flatten() {
                let Some(target) = value.as_reference() else { continue };
                let at = names.targets.len();
                names.targets.push(target);
                names.index.insert(key.clone(), at);
                if key.len() > MAX_NAME {
                    names.long.push(at);
                }
            }
        }
        if let Some(fonts) = dict.get("Font") {
            names.to_unicode = to_unicode_streams(doc, fonts);
        }
        let longest = dict
            .get("Properties")
            .and_then(|p| resolve(doc, p))
            .and_then(|p| {
                let dict = p.as_dict()?;
                dict.values()
                    .filter_map(|entry| resolve(doc, entry))
                    .filter_map(|entry| Some(entry.as_dict()?.get("ActualText")?.as_string()?.len() as u64))
                    .max()
            })
            .unwrap_or(0);
        // A text string becomes UTF-8 of at most three bytes a byte, which
        // the reader shows as codes, cut at its string limit.
        names.actual_text = CHARS_PER_CODE * (3 * longest).min(MAX_SHOWN_STRING);
        names
    }

    /// The target a name read from content names: as written, and with its
    /// `#xx` escapes decoded.
    pub(super) fn find(&self, raw: &[u8]) -> Option<usize> {
        let found = self.index.get(String::from_utf8_lossy(raw).as_ref()).copied();
        if found.is_some() || !raw.contains(&b'#') {
            return found;
        }
        let decoded = decode_name(raw);
        self.index.get(String::from_utf8_lossy(&decoded).as_ref()).copied()
    }
}

/// A name's `#xx` escapes decoded.
fn decode_name(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (raw[i], raw.get(i + 1).and_then(|&b| hex(b)), raw.get(i + 2).and_then(|&b| hex(b))) {
            (b'#', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// The `/ToUnicode` streams of the fonts of a resource dictionary's
/// `/Font`, one for each font that names one.
fn to_unicode_streams(doc: &PdfDocument, fonts: &Object) -> Vec<ObjectRef> {
    let resolve = |object: &Object| match object {
        Object::Reference(r) => doc.load_object(*r).ok(),
        other => Some(other.clone()),
    };
    let Some(fonts) = resolve(fonts) else { return Vec::new() };
    fonts
        .as_dict()
        .into_iter()
        .flatten()
        .filter_map(|(_, font)| resolve(font)?.as_dict()?.get("ToUnicode")?.as_reference())
        .collect()
}
