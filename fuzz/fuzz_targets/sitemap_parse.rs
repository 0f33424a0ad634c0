//! Parses arbitrary bytes as a sitemap (XML, text, RSS, Atom, gzip).
//!
//! Properties: nothing panics; `parse` and the streaming `parse_with` agree
//! exactly; at most `MAX_ENTRIES` entries; every entry has an absolute
//! http(s) `loc` without whitespace; each lastmod prints in W3C form and that
//! form parses back to the same value; entry lines never go backwards.

#![no_main]

use libfuzzer_sys::fuzz_target;
use webcanon_core::sitemap::{self, DateTime, MAX_ENTRIES};

fuzz_target!(|data: &[u8]| {
    let parsed = sitemap::parse(data);
    let mut streamed = Vec::new();
    let summary = sitemap::parse_with(data, |e| streamed.push(e));
    assert_eq!(parsed.entries, streamed);
    assert_eq!(parsed.kind, summary.kind);
    assert_eq!(parsed.diagnostics, summary.diagnostics);
    assert_eq!(summary.entries, streamed.len());
    assert!(parsed.entries.len() <= MAX_ENTRIES);
    let mut previous = 0;
    for entry in &parsed.entries {
        let lower = entry.loc.to_ascii_lowercase();
        assert!(lower.starts_with("http://") || lower.starts_with("https://"), "{:?}", entry.loc);
        assert!(!entry.loc.bytes().any(|b| b.is_ascii_whitespace()));
        assert!(entry.line >= 1);
        assert!(entry.line >= previous || entry.loc.is_empty(), "lines go backwards");
        previous = entry.line;
        if let Some(date) = entry.lastmod {
            let printed = date.to_string();
            assert_eq!(DateTime::parse_w3c(&printed), Some(date), "{printed}");
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = DateTime::parse_w3c(text);
        let _ = DateTime::parse_rfc822(text);
    }
});
