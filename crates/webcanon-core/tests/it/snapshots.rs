//! Snapshots of the parsed form of a handful of real files from
//! `shared/corpus`: llms.txt files and sitemaps of every kind. A change in
//! what the parsers keep (a field, a diagnostic, an entry) shows up here as
//! a reviewed diff (`cargo insta review`).

use std::fs;
use std::path::PathBuf;

use webcanon_core::llms::LlmsTxt;
use webcanon_core::sitemap;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

fn read(folder: &str, name: &str) -> Vec<u8> {
    let path = PathBuf::from(CORPUS).join(folder).join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

macro_rules! llms_snapshots {
    ($($test:ident: $file:literal;)*) => {$(
        #[test]
        fn $test() {
            insta::assert_debug_snapshot!(LlmsTxt::parse(read("llms", $file)));
        }
    )*};
}

llms_snapshots! {
    llms_llmstxt_org: "llmstxt.org__llms.txt";
    llms_llmstxt_org_sample: "llmstxt.org__llms-sample.txt";
    llms_jan9103: "jan9103__llms.txt";
    llms_maurycy: "maurycy__llms.txt";
    llms_blunt_robots_syntax: "blunt__llms.txt";
    llms_blog_airat_top: "blog-airat-top__llms.txt";
}

macro_rules! sitemap_snapshots {
    ($($test:ident: $file:literal;)*) => {$(
        #[test]
        fn $test() {
            insta::assert_debug_snapshot!(sitemap::parse(&read("sitemaps", $file)));
        }
    )*};
}

sitemap_snapshots! {
    sitemap_text: "0install__sitemap.txt";
    sitemap_yoast_index: "10beasts-yoast__sitemap_index.xml";
    sitemap_news: "cybercrimeinfo__news-sitemap.xml";
    sitemap_urlset: "loupe__sitemap.xml";
    sitemap_index_as_urlset: "110kc3__sitemap.xml";
    sitemap_hreflang_or_plain: "subtract-ing__sitemap.xml";
}

/// The first entries and the summary of a large file: the extensions'
/// fields without a megabyte of snapshot.
fn head_and_summary(bytes: &[u8], entries: usize) -> (Vec<sitemap::Entry>, sitemap::Summary) {
    let mut head = Vec::new();
    let summary = sitemap::parse_with(bytes, |e| {
        if head.len() < entries {
            head.push(e);
        }
    });
    (head, summary)
}

#[test]
fn sitemap_images() {
    insta::assert_debug_snapshot!(head_and_summary(&read("sitemaps", "chill-paws__image-sitemap.xml"), 1));
}

#[test]
fn sitemap_videos() {
    insta::assert_debug_snapshot!(head_and_summary(&read("sitemaps", "hurcann__video-sitemap.xml"), 2));
}

#[test]
fn sitemap_gzip() {
    insta::assert_debug_snapshot!(head_and_summary(&read("sitemaps", "mercury-composable-mkdocs__sitemap.xml.gz"), 3));
}

#[test]
fn sitemap_rss() {
    insta::assert_debug_snapshot!(head_and_summary(&read("sitemaps", "mangesh-astro__rss.xml"), 2));
}
