//! PDF to Markdown on arbitrary bytes, under the default limits, read as
//! the client's worker process reads it: on a thread with the reader's
//! stack ([`READER_STACK`]; the worker's address-space and CPU limits are
//! the containment around what this finds).
//!
//! Properties: nothing panics out of the conversion (the reader's panics
//! are caught and become `ReaderFailed`, and only reported here); every
//! input ends in bounded time
//! (the time limit is checked between pages; one page's work is bounded
//! by the reader); what is read never exceeds the page limit.

#![no_main]

use std::sync::Once;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use webcanon_extract::pdf::{self, PdfLimits, READER_STACK};

/// libFuzzer's panic hook aborts on every panic, caught or not. The
/// reader's panics are caught and become `PdfError::ReaderFailed`, an
/// outcome of the conversion, so the hook here only reports them; a panic
/// that escapes the conversion (or a failed assertion below) still aborts,
/// when libfuzzer-sys catches it around the target.
static REPORT_PANICS: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    REPORT_PANICS.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("panic: {info}"))));
    let limits = PdfLimits::default();
    let started = Instant::now();
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(READER_STACK)
            .spawn_scoped(scope, || pdf::extract(data, &limits))
            .expect("a reading thread")
            .join()
            .expect("the conversion catches the reader's panics")
    });
    // Instrumented builds are slow: the margin bounds one page past the cap.
    assert!(
        started.elapsed() < limits.time_limit + Duration::from_secs(20),
        "took {:?} on {} bytes",
        started.elapsed(),
        data.len()
    );
    if let Ok(converted) = outcome {
        assert!(converted.info.pages_read <= limits.max_pages);
        assert!(converted.info.pages_read <= converted.info.pages);
    }
});
