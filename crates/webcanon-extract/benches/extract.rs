//! Conversion speed, bytes in per second:
//! - HTML to Markdown on the test fixture and on the first pages of the
//!   extraction corpus (`shared/corpus/extraction/pages`, beside the
//!   repository; left out when it is not there), decoding included;
//! - PDF to Markdown on generated documents: pages of prose, pages of
//!   code, and a long document of short pages.
//!
//! ```text
//! cargo bench -p webcanon-extract --bench extract
//! ```

use std::io::Read;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use url::Url;
use webcanon_extract::html::{self, HtmlLimits};
use webcanon_extract::{charset, pdf};
use webcanon_test::pdf::PdfSpec;

/// The corpus's development pages, beside the repository.
const CORPUS_PAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/extraction/pages");

/// How many corpus pages are measured (in the order of their names).
const CORPUS_SAMPLE: usize = 5;

/// The fixture and the first [`CORPUS_SAMPLE`] corpus pages, by name.
fn html_pages() -> Vec<(String, Vec<u8>)> {
    let mut pages = vec![("fixture-article".to_string(), webcanon_test::ARTICLE_HTML.as_bytes().to_vec())];
    let Ok(entries) = std::fs::read_dir(Path::new(CORPUS_PAGES)) else { return pages };
    let mut names: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    names.sort();
    for path in names.into_iter().filter(|p| p.to_string_lossy().ends_with(".html.gz")).take(CORPUS_SAMPLE) {
        let mut body = Vec::new();
        let raw = std::fs::read(&path).expect("a corpus page is readable");
        flate2::read::GzDecoder::new(raw.as_slice()).read_to_end(&mut body).expect("a corpus page is gzip");
        let name = path.file_name().unwrap().to_string_lossy().trim_end_matches(".html.gz").to_string();
        pages.push((format!("corpus-{name}"), body));
    }
    pages
}

/// Generated PDFs, by name.
fn pdfs() -> Vec<(&'static str, Vec<u8>)> {
    let prose: Vec<String> = (1..=40)
        .map(|n| format!("Line {n} of a paragraph about robots.txt, llms.txt and the agents that read them."))
        .collect();
    let prose: Vec<&str> = prose.iter().map(String::as_str).collect();
    let code: Vec<String> = (1..=50).map(|n| format!("    let value_{n} = compute({n}, \"argument\");")).collect();
    let code: Vec<&str> = code.iter().map(String::as_str).collect();
    let mut mixed = PdfSpec::text(&[&prose]);
    for _ in 0..9 {
        mixed = mixed.lines_page(&prose).code_page(&code);
    }
    vec![("prose-and-code-19-pages", mixed.build()), ("numbered-200-pages", PdfSpec::numbered(200).build())]
}

fn benches(c: &mut Criterion) {
    let url = Url::parse("https://example.com/article").unwrap();
    let mut group = c.benchmark_group("html");
    for (name, body) in html_pages() {
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(&name, |b| {
            b.iter(|| {
                let text = charset::decode(&body, Some("text/html"), Some(&url)).text;
                html::extract(&text, &url, &HtmlLimits::default())
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("pdf");
    group.sample_size(20);
    for (name, bytes) in pdfs() {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(name, |b| b.iter(|| pdf::extract(&bytes, &pdf::PdfLimits::default()).unwrap()));
    }
    group.finish();
}

criterion_group!(extract, benches);
criterion_main!(extract);
