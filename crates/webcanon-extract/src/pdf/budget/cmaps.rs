//! What a page's fonts cost the reader: it decodes each font's
//! `/ToUnicode` CMap for that font (fonts that share one stream decode it
//! once each) and keeps each code a `bfrange` line maps. Each CMap is
//! inflated piece by piece up to [`MAX_CMAP_BYTES`](super::caps::MAX_CMAP_BYTES) and its `bfrange`
//! lines counted; its cost is its bytes and [`CMAP_ENTRY_COST`](super::caps::CMAP_ENTRY_COST) a code,
//! counted against [`MAX_PAGE_CONTENT`](super::caps::MAX_PAGE_CONTENT) with the
//! page's content.

use std::io::Read;

use pdf_oxide::PdfDocument;
use pdf_oxide::object::{Object, ObjectRef};

use super::caps::{CMAP_ENTRY_COST, MAX_CMAP_BYTES};
use super::streams::{Decrypt, canonical_filter, decoded_bound, filter_names, has_predictor};
use crate::pdf::outcome::PageCap;

/// The cost of the CMap `reference`, its streams decrypted by `decrypt`:
/// nothing when it is not a stream the reader can decode.
pub(super) fn cmap_cost(doc: &PdfDocument, decrypt: &Decrypt, reference: ObjectRef) -> Result<u64, PageCap> {
    let Ok(Object::Stream { dict, data }) = doc.load_object(reference) else { return Ok(0) };
    let plain = match decrypt {
        Decrypt::Plain => data.to_vec(),
        Decrypt::Handler(handler) => match handler.decrypt_stream(&data, reference.id, u32::from(reference.r#gen)) {
            Ok(bytes) => bytes,
            Err(_) => return Ok(0),
        },
        Decrypt::Unavailable => return Err(PageCap::Content),
    };
    let filters = filter_names(&dict);
    let decoded = match filters.as_slice() {
        [] => plain,
        [only] if canonical_filter(only) == Some("FlateDecode") && !has_predictor(&dict) => {
            let mut decoded = Vec::new();
            let mut decoder = flate2::read::ZlibDecoder::new(plain.as_slice()).take(MAX_CMAP_BYTES + 1);
            // A corrupt stream counts what it decoded before the fault.
            let _ = decoder.read_to_end(&mut decoded);
            decoded
        }
        _ if decoded_bound(&filters, plain.len() as u64) <= MAX_CMAP_BYTES => {
            let copy = Object::Stream { dict: dict.clone(), data: plain.into() };
            copy.decode_stream_data().unwrap_or_default()
        }
        _ => return Err(PageCap::Content),
    };
    if decoded.len() as u64 > MAX_CMAP_BYTES {
        return Err(PageCap::Content);
    }
    Ok((decoded.len() as u64).saturating_add(bfrange_codes(&decoded).saturating_mul(CMAP_ENTRY_COST)))
}

/// The codes the `bfrange` lines of a CMap map: for each line
/// `<low> <high> destination`, `high - low + 1`.
pub fn bfrange_codes(cmap: &[u8]) -> u64 {
    let mut total: u64 = 0;
    let mut rest = cmap;
    while let Some(start) = memchr::memmem::find(rest, b"beginbfrange") {
        rest = &rest[start + b"beginbfrange".len()..];
        let end = memchr::memmem::find(rest, b"endbfrange").unwrap_or(rest.len());
        total = total.saturating_add(section_codes(&rest[..end]));
        rest = &rest[end..];
    }
    total
}

/// The codes of one `bfrange` section: its operands in threes (low, high,
/// and a string or an array as the destination).
fn section_codes(section: &[u8]) -> u64 {
    let mut total: u64 = 0;
    let mut operands: Vec<Option<u64>> = Vec::with_capacity(3);
    let mut i = 0;
    while i < section.len() {
        let operand = match section[i] {
            b'<' => {
                let end = section[i..].iter().position(|&b| b == b'>').map_or(section.len(), |p| i + p);
                let value = hex_value(&section[i + 1..end]);
                i = end + 1;
                value
            }
            b'[' => {
                i += section[i..].iter().position(|&b| b == b']').map_or(section.len() - i, |p| p + 1);
                None
            }
            _ => {
                i += 1;
                continue;
            }
        };
        operands.push(operand);
        if let [Some(low), Some(high), _] = operands[..] {
            total = total.saturating_add(high.saturating_sub(low).saturating_add(1));
        }
        if operands.len() == 3 {
            operands.clear();
        }
    }
    total
}

/// A hex string's value (white space skipped; at most eight digits, more
/// saturate).
fn hex_value(hex: &[u8]) -> Option<u64> {
    let mut value: u64 = 0;
    for &byte in hex.iter().filter(|b| !b.is_ascii_whitespace()) {
        let digit = (byte as char).to_digit(16)?;
        value = value.saturating_mul(16).saturating_add(u64::from(digit)).min(u64::from(u32::MAX));
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfrange_lines_count_the_codes_they_map() {
        let cases: &[(&str, u64)] = &[
            ("2 beginbfrange <0000> <2710> <0041> <0020> <0021> [<0041> <0042>] endbfrange", 10_001 + 2),
            ("1 beginbfrange\n<00> <FF> <0041>\nendbfrange 1 beginbfrange <10> <0F> <41> endbfrange", 256 + 1),
            ("beginbfchar <01> <0041> endbfchar", 0),
            ("1 beginbfrange <00000000> <FFFFFFFFFF> <41> endbfrange", u64::from(u32::MAX) + 1),
            ("1 beginbfrange <0000> <00", 0),
        ];
        for &(cmap, codes) in cases {
            assert_eq!(bfrange_codes(cmap.as_bytes()), codes, "{cmap}");
        }
    }
}
