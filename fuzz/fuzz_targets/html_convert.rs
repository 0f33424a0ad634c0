//! HTML to Markdown on arbitrary bytes, under the default limits.
//!
//! Properties: nothing panics; a conversion ends within its wall-clock cap
//! plus a margin (the pre-scan and the caps keep the tree builder linear);
//! a page over a cap says which one; the text-only fallback never panics
//! either.

#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use url::Url;
use webcanon_extract::html::{self, HtmlLimits};

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    let base = Url::parse("https://example.com/a/page").expect("a constant URL");
    let limits = HtmlLimits::default();
    let started = Instant::now();
    let converted = html::extract(&html, &base, &limits);
    // Instrumented builds are slow; the cap itself is enforced by the
    // caller's timer, this bounds the work the caps leave.
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?} on {} bytes", started.elapsed(), data.len());
    let _ = converted.over_limit;
    let _ = html::text_only(&html, &base);
});
