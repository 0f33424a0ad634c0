//! Parses arbitrary bytes as llms.txt.
//!
//! Properties: nothing panics; every diagnostic line and every link line
//! exists in the file; section links are in line order after their H2; a
//! link's sub-heading index points into its section; `links()` yields every
//! link exactly once; a body recognised as not-llms has no sections; the
//! Markdown-copy helpers round-trip on each link's path.

#![no_main]

use libfuzzer_sys::fuzz_target;
use webcanon_core::llms::{LlmsTxt, is_markdown_copy_of, markdown_candidates, page_key};

fuzz_target!(|data: &[u8]| {
    let file = LlmsTxt::parse(data);
    let lines = file.line_count;
    for d in &file.diagnostics {
        if let Some(line) = d.line {
            assert!(line >= 1 && line <= lines, "diagnostic line {line} of {lines}");
        }
    }
    if file.not_llms.is_some() {
        assert!(file.sections.is_empty() && file.title.is_none());
    }
    let mut total = file.intro_links.len();
    for section in &file.sections {
        assert!(section.line >= 1 && section.line <= lines);
        let mut previous = section.line;
        for link in &section.links {
            assert!(link.line > previous, "links in order");
            previous = link.line;
            assert!(!link.url.is_empty());
            if let Some(i) = link.subheading {
                assert!(i < section.subheadings.len());
                assert!(section.subheadings[i].line < link.line);
            }
        }
        total += section.links.len();
    }
    assert_eq!(file.links().count(), total);
    let optional: usize = file.sections.iter().filter(|s| s.is_optional()).map(|s| s.links.len()).sum();
    assert_eq!(file.links().filter(|l| l.optional).count(), optional);
    for link in file.links().take(32) {
        let path = link.link.url.as_str();
        if !path.contains(['?', '#']) {
            for candidate in markdown_candidates(path) {
                assert!(is_markdown_copy_of(&candidate, path), "{candidate} for {path}");
            }
        }
        let key = page_key(path);
        assert_eq!(page_key(key), key, "page_key is idempotent on {path:?}");
    }
});
