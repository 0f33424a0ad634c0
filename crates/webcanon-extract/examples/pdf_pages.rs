//! Converts a folder of PDFs as `webcanon fetch --format text` would and
//! writes the results as JSON, for the PDF benchmark
//! (`benches/pdf/compare.py`).
//!
//! ```text
//! cargo run --release -p webcanon-extract --example pdf_pages -- PDFS OUT.json
//! ```
//!
//! OUT.json maps each file name (without `.pdf`) to `{"content",
//! "seconds", "pages", "pages_read", "pages_skipped", "cut", "error"}`:
//! the text in the text shape, the time of the conversion on this thread,
//! the page counts, the pages left out for their cost, why it was cut (if
//! it was), and the error (if it failed). The limits are the fetch path's
//! defaults.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use webcanon_extract::pdf::{self, PdfLimits};
use webcanon_extract::{ContentFormat, ContentShape};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, folder, out] = args.as_slice() else {
        eprintln!("usage: pdf_pages PDFS OUT.json");
        std::process::exit(2);
    };
    let shape = ContentShape { format: ContentFormat::Text, ..ContentShape::default() };
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .expect("the folder is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    files.sort();
    let mut results = BTreeMap::new();
    for path in files {
        let key = path.file_stem().unwrap().to_string_lossy().to_string();
        results.insert(key, convert(&path, &shape));
    }
    std::fs::write(out, serde_json::to_string(&results).unwrap()).expect("OUT.json is writable");
}

fn convert(path: &Path, shape: &ContentShape) -> serde_json::Value {
    let bytes = std::fs::read(path).expect("the PDF is readable");
    let started = Instant::now();
    let outcome = pdf::extract(&bytes, &PdfLimits::default());
    let content = outcome.as_ref().map(|c| shape.apply(&c.markdown)).unwrap_or_default();
    let seconds = started.elapsed().as_secs_f64();
    match outcome {
        Ok(converted) => serde_json::json!({
            "content": content,
            "seconds": seconds,
            "pages": converted.info.pages,
            "pages_read": converted.info.pages_read,
            "pages_skipped": converted.info.pages_skipped,
            "cut": converted.cut.map(|c| format!("{c:?}")),
            "error": null,
        }),
        Err(err) => serde_json::json!({"content": "", "seconds": seconds, "error": err.to_string()}),
    }
}
