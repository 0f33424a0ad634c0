//! Measures the `--render auto` rule on saved pages: for each page, the
//! characters of text its fetched HTML gives (letters and digits of the
//! extracted text, links and images dropped) and its `<script>` elements;
//! then how many pages each candidate threshold would render. Application
//! shells in the style of the common front-end frameworks' starter pages
//! are measured beside them (they must all be rendered).
//!
//! ```text
//! cargo run --release -p webcanon-client --example render_auto -- ../shared/corpus/extraction/pages
//! ```

use std::io::Read;
use std::path::Path;

use url::Url;
use webcanon_client::browser::{AUTO_MAX_TEXT_CHARS, AUTO_MIN_SCRIPTS, count_scripts, main_text_chars};
use webcanon_client::charset;
use webcanon_client::markdown::{self, ContentFormat, ContentShape, HtmlLimits, ImageStyle, LinkStyle};

/// Starter pages of front-end frameworks: the HTML such an application
/// serves before its scripts run.
const SHELLS: &[(&str, &str)] = &[
    (
        "create-react-app",
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><link rel="icon" href="/favicon.ico"/><meta name="viewport" content="width=device-width,initial-scale=1"/><title>React App</title><script defer="defer" src="/static/js/main.3f2a1b.js"></script><link href="/static/css/main.0a1b2c.css" rel="stylesheet"></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>"#,
    ),
    (
        "vite (react, vue, svelte)",
        r#"<!doctype html><html lang="en"><head><meta charset="UTF-8" /><link rel="icon" type="image/svg+xml" href="/vite.svg" /><meta name="viewport" content="width=device-width, initial-scale=1.0" /><title>Dashboard</title><script type="module" crossorigin src="/assets/index-4f2a.js"></script><link rel="stylesheet" href="/assets/index-9c1d.css"></head><body><div id="app"></div></body></html>"#,
    ),
    (
        "angular",
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title><base href="/"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="styles.css"></head><body><app-root></app-root><script src="runtime.js" type="module"></script><script src="polyfills.js" type="module"></script><script src="main.js" type="module"></script></body></html>"#,
    ),
    (
        "vue-cli",
        r#"<!DOCTYPE html><html lang=""><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>shop</title><script defer="defer" src="/js/chunk-vendors.js"></script><script defer="defer" src="/js/app.js"></script></head><body><noscript><strong>We're sorry but shop doesn't work properly without JavaScript enabled. Please enable it to continue.</strong></noscript><div id="app"></div></body></html>"#,
    ),
    (
        "ember",
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>Tracker</title><meta name="tracker/config/environment" content="%7B%22modulePrefix%22%3A%22tracker%22%7D" /><link integrity="" rel="stylesheet" href="/assets/vendor.css"><link integrity="" rel="stylesheet" href="/assets/tracker.css"></head><body><script src="/assets/vendor.js"></script><script src="/assets/tracker.js"></script></body></html>"#,
    ),
    (
        "single-page app with a loading message and a header",
        r#"<!doctype html><html><head><title>Status</title></head><body><header><a href="/">Home</a> <a href="/login">Sign in</a></header><div id="root"><div class="spinner">Loading…</div></div><script src="/bundle.js"></script><script>window.__CONFIG__={"api":"/api"}</script></body></html>"#,
    ),
];

/// Letters and digits of the page's text, and its scripts.
fn measure(html: &[u8], base: &Url) -> (usize, usize) {
    let text = charset::decode(html, None, Some(base)).text;
    let converted = markdown::extract(&text, base, &HtmlLimits::default());
    let plain = ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, images: ImageStyle::Drop }
        .apply(&converted.markdown);
    (main_text_chars(&plain), count_scripts(html))
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: render_auto PAGES");
    let base = Url::parse("https://example.com/page").unwrap();
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(Path::new(&dir)).expect("the pages folder") {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let html = if path.extension().is_some_and(|e| e == "gz") {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out).unwrap();
            out
        } else {
            bytes
        };
        pages.push(measure(&html, &base));
    }
    let mut chars: Vec<usize> = pages.iter().map(|p| p.0).collect();
    chars.sort_unstable();
    let at = |q: f64| chars[((chars.len() - 1) as f64 * q) as usize];
    println!("corpus pages: {}", pages.len());
    println!("with at least one <script>: {}", pages.iter().filter(|p| p.1 >= 1).count());
    println!(
        "text characters: min {}, 1% {}, 2% {}, 5% {}, 10% {}, median {}",
        chars[0],
        at(0.01),
        at(0.02),
        at(0.05),
        at(0.10),
        at(0.5)
    );
    for threshold in [50, 100, 200, 300, 500, 1000] {
        let rendered = pages.iter().filter(|(c, s)| *c <= threshold && *s >= AUTO_MIN_SCRIPTS).count();
        println!("text <= {threshold:>4} and scripts >= {AUTO_MIN_SCRIPTS}: {rendered} corpus pages rendered");
    }
    for (name, html) in SHELLS {
        let (chars, scripts) = measure(html.as_bytes(), &base);
        println!("shell {name}: {chars} text characters, {scripts} scripts");
    }
    println!("the rule: text <= {AUTO_MAX_TEXT_CHARS} and scripts >= {AUTO_MIN_SCRIPTS}");
}
