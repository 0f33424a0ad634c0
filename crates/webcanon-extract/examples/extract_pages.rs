//! Converts a folder of saved pages as `webcanon fetch` would and writes
//! the results as JSON, for the extraction benchmark
//! (`benches/extraction/compare.py`).
//!
//! ```text
//! cargo run --release -p webcanon-extract --example extract_pages -- PAGES URLS.json OUT.json
//! ```
//!
//! PAGES holds `KEY.html` or `KEY.html.gz` files; URLS.json maps each KEY to
//! the page's URL (links resolve against it; its domain helps the charset
//! detector). OUT.json maps each KEY to `{"content", "seconds", "method",
//! "shapes", "metadata"}`: the content in the default shape, the time of
//! the page's decode and conversion on this thread, how it was converted,
//! the characters of each content shape, and the page's metadata.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use url::Url;
use webcanon_extract::charset;
use webcanon_extract::html::{self, HtmlLimits};
use webcanon_extract::{ContentFormat, ContentShape, ImageStyle, LinkStyle};

/// The shapes whose sizes are reported.
const SHAPES: &[(&str, ContentShape)] = &[
    ("markdown, links inline, images kept", ContentShape::AS_CONVERTED),
    (
        "markdown, links as references, no images (default)",
        ContentShape { format: ContentFormat::Markdown, links: LinkStyle::References, images: ImageStyle::Drop },
    ),
    (
        "markdown, no links, no images",
        ContentShape { format: ContentFormat::Markdown, links: LinkStyle::Drop, images: ImageStyle::Drop },
    ),
    (
        "text, links as references, no images",
        ContentShape { format: ContentFormat::Text, links: LinkStyle::References, images: ImageStyle::Drop },
    ),
    (
        "text, no links, no images",
        ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, images: ImageStyle::Drop },
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pages, urls, out] = args.as_slice() else {
        return Err("usage: extract_pages PAGES URLS.json OUT.json".into());
    };
    let urls: BTreeMap<String, String> = serde_json::from_slice(&std::fs::read(urls)?)?;
    let mut results = BTreeMap::new();
    for entry in std::fs::read_dir(pages)? {
        let path = entry?.path();
        let Some(key) = page_key(&path) else { continue };
        let body = read_page(&path)?;
        let url = urls.get(&key).and_then(|u| Url::parse(u).ok());
        let base = url.clone().unwrap_or_else(|| Url::parse("https://example.invalid/").expect("a valid URL"));
        let start = Instant::now();
        let text = charset::decode(&body, Some("text/html"), url.as_ref()).text;
        let converted = html::extract(&text, &base, &HtmlLimits::default());
        let seconds = start.elapsed().as_secs_f64();
        // What each content shape costs, in characters.
        let shapes: BTreeMap<String, usize> = SHAPES
            .iter()
            .map(|(name, shape)| (name.to_string(), shape.apply(&converted.markdown).chars().count()))
            .collect();
        let method = match converted.over_limit {
            Some(over) => format!("{:?} ({})", converted.method, over.describe()),
            None => format!("{:?}", converted.method),
        };
        results.insert(key, serde_json::json!({"content": ContentShape::default().apply(&converted.markdown), "seconds": seconds, "method": method, "shapes": shapes, "metadata": converted.metadata}));
    }
    std::fs::write(out, serde_json::to_vec(&results)?)?;
    eprintln!("{} pages converted", results.len());
    Ok(())
}

/// `KEY` of `KEY.html` or `KEY.html.gz`.
fn page_key(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let key = name.strip_suffix(".html.gz").or_else(|| name.strip_suffix(".html"))?;
    Some(key.to_string())
}

fn read_page(path: &Path) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut body = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice()).read_to_end(&mut body)?;
        Ok(body)
    } else {
        Ok(raw)
    }
}
