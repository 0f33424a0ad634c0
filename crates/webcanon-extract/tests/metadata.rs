//! Page metadata read from real pages of the development set
//! (`shared/corpus/extraction/pages`), each field against the value the
//! page states, and its cost on hostile input.

use std::io::Read;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_extract::charset;
use webcanon_extract::html::{self, HtmlLimits, Metadata};

const PAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/extraction/pages");

/// The metadata of development-set page `key`, fetched from `url`, as
/// `extract` gives them.
fn corpus_metadata(key: &str, url: &str) -> Metadata {
    let mut body = Vec::new();
    let file = std::fs::File::open(format!("{PAGES}/{key}.html.gz")).expect("the development set's page");
    flate2::read::GzDecoder::new(file).read_to_end(&mut body).unwrap();
    let url = Url::parse(url).unwrap();
    let text = charset::decode(&body, Some("text/html"), Some(&url)).text;
    let extracted = html::extract(&text, &url, &HtmlLimits::default());
    assert_eq!(extracted.metadata, html::page_metadata(&text, &url), "{key}: the pre-scan alone reads the same");
    extracted.metadata
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_news_article_with_json_ld_gives_every_field() {
    let url =
        "https://www.bostonherald.com/2023/11/08/brothel-catering-to-politicians-doctors-lawyers-busted-in-boston/";
    let page = corpus_metadata("007fa084c52e7ba2", url);
    assert_eq!(page.headline.as_deref(), Some("Brothel catering to politicians, doctors, lawyers busted in Boston"));
    assert_eq!(page.authors, strings(&["Grace Zokovitch"]));
    assert_eq!(page.published.as_deref(), Some("2023-11-08T21:56:18Z"));
    assert_eq!(page.modified.as_deref(), Some("2023-11-08T21:56:18Z"));
    assert_eq!(page.language.as_deref(), Some("en-US"));
    assert_eq!(page.site_name.as_deref(), Some("Boston Herald"));
    assert!(
        page.description.as_deref().is_some_and(|d| d.starts_with("A “booming” sex ring catering to wealthy doctors"))
    );
    assert_eq!(page.canonical_url.as_deref(), Some(url));
    assert_eq!(page.page_type.as_deref(), Some("NewsArticle"));
    assert_eq!(
        page.image.as_deref(),
        Some("https://www.bostonherald.com/wp-content/uploads/2023/11/brothelms004.jpg?w=1024")
    );
    assert_eq!(page.keywords.len(), 8);
    assert_eq!(page.keywords[..3], strings(&["cambridge", "cambridge police department", "homeland security"]));
    assert_eq!(page.section.as_deref(), Some("Local News"));
}

#[test]
fn a_spanish_article_keeps_its_publisher_and_section() {
    let url = "https://www.elnacional.com/venezuela/carta-abierta-un-nuevo-espacio-donde-el-nacional-recibira-las-denuncias-de-sus-lectores/";
    let page = corpus_metadata("026df84089f95fef", url);
    assert_eq!(
        page.headline.as_deref(),
        Some("Carta abierta, un nuevo espacio donde El Nacional recibirá las denuncias de sus lectores")
    );
    assert_eq!(page.authors, strings(&["Williams Perdomo @wperdomod"]));
    assert_eq!(page.published.as_deref(), Some("2022-05-11T11:30:40Z"));
    assert_eq!(page.modified.as_deref(), Some("2022-05-10T20:10:41Z"));
    assert_eq!(page.language.as_deref(), Some("es"));
    assert_eq!(page.site_name.as_deref(), Some("El Nacional"));
    assert_eq!(page.keywords, strings(&["carta abierta", "El Nacional", "Jorge Makriniotis", "ÚLTIMA HORA"]));
    assert_eq!(page.section.as_deref(), Some("CIUDAD,VENEZUELA"));
}

#[test]
fn open_graph_and_microdata_serve_a_page_without_json_ld() {
    // `article:*` dates, `og:site_name`, the first `article:section` and a
    // `<meta itemprop="author">`.
    let page = corpus_metadata("00bd2ea418691a09", "https://tell-review.de/unstillbares-heimweh/");
    assert_eq!(page.headline.as_deref(), Some("Unstillbares Heimweh"));
    assert_eq!(page.authors, strings(&["Frank Hahn"]));
    assert_eq!(page.published.as_deref(), Some("2019-09-18T08:43:48+02:00"));
    assert_eq!(page.modified.as_deref(), Some("2019-09-18T08:43:55+02:00"));
    assert_eq!(page.language.as_deref(), Some("de-DE"));
    assert_eq!(page.site_name.as_deref(), Some("tell"));
    assert_eq!(page.section.as_deref(), Some("Aktuell"));
    assert_eq!(page.page_type.as_deref(), Some("article"));
    assert_eq!(page.canonical_url.as_deref(), Some("https://tell-review.de/unstillbares-heimweh/"));
}

#[test]
fn a_page_that_states_no_date_has_none() {
    let url = "http://www.regards.fr/politique/article/deux-ans-et-demi-en-macronie-9-mises-en-examen-10-enquetes-en-cours-et-2";
    let page = corpus_metadata("009e5b04e98200a2", url);
    assert_eq!((page.published.as_deref(), page.modified.as_deref()), (None, None));
    assert!(page.authors.is_empty());
    assert_eq!(page.language.as_deref(), Some("fr"));
    assert_eq!(page.site_name.as_deref(), Some("regards.fr"));
    assert_eq!(page.image.as_deref(), Some("http://www.regards.fr/IMG/jpg/befunky-collage-34.jpg"));
}

#[test]
fn a_japanese_page_gives_its_language_and_site() {
    let url = "https://www3.nhk.or.jp/news/easy/k10011959621000/k10011959621000.html";
    let page = corpus_metadata("bef83102e0ff9a71", url);
    assert_eq!(page.language.as_deref(), Some("ja-JP"));
    assert_eq!(page.site_name.as_deref(), Some("NEWS WEB EASY"));
    assert_eq!(page.headline.as_deref(), Some("NEWS WEB EASY|子どもへの体罰を禁止する法律ができる"));
    assert!(page.description.as_deref().is_some_and(|d| d.starts_with("子どもへの虐待をなくすための法律ができて")));
    assert_eq!(page.image.as_deref(), Some("https://www3.nhk.or.jp/news/easy/images/og-image.png"));
}

fn base() -> Url {
    Url::parse("https://example.com/a/").unwrap()
}

/// Reads the metadata of `html` and checks the time it took.
fn timed(what: &str, html: &str) -> Metadata {
    let started = Instant::now();
    let metadata = html::page_metadata(html, &base());
    let took = started.elapsed();
    eprintln!("{what}: {took:?}");
    assert!(took < Duration::from_secs(5), "{what}: {took:?}");
    metadata
}

const AFTER: &str = r#"<meta name="author" content="After It">"#;

#[test]
fn a_ten_megabyte_json_ld_block_is_passed_over() {
    let items = r#"{"@type":"Person","name":"x"},"#.repeat(10 * 1024 * 1024 / 30);
    let html = format!(
        r#"<script type="application/ld+json">{{"@type":"NewsArticle","author":[{items}{{}}]}}</script>{AFTER}"#
    );
    assert!(html.len() > 10 << 20);
    let page = timed("10 MB of JSON-LD", &html);
    assert_eq!(page.authors, strings(&["After It"]));
    assert_eq!(page.page_type, None);
}

#[test]
fn only_the_first_json_ld_blocks_are_read() {
    let block = format!(
        r#"<script type="application/ld+json">[{}{{}}]</script>"#,
        r#"{"@type":"Thing","name":"x"},"#.repeat(8_000)
    );
    let html = format!(
        "{}{}",
        block.repeat(200),
        r#"<script type="application/ld+json">{"@type":"Article","headline":"Late"}</script>"#
    );
    let page = timed("200 blocks of 8,000 nodes", &html);
    assert_eq!(page.headline, None);
}

#[test]
fn deep_json_ld_ends_early() {
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let graphs =
        format!(r#"{}{{"@type":"Article","headline":"Deep"}}{}"#, r#"{"@graph":["#.repeat(30), "]}".repeat(30));
    let html = format!(
        r#"<script type="application/ld+json">{deep}</script><script type="application/ld+json">{graphs}</script>{AFTER}"#
    );
    let page = timed("deep JSON-LD", &html);
    // 30 graphs parse (60 levels, under the parser's limit of 128); nodes
    // are looked for a few graphs deep only.
    assert_eq!(page.headline, None);
    assert_eq!(page.authors, strings(&["After It"]));
}

#[test]
fn a_hundred_thousand_meta_tags_cost_a_linear_pass() {
    let tags = r#"<meta name="filler" content="a value">"#.repeat(100_000);
    let html = format!("<head>{tags}{AFTER}</head>");
    let page = timed("100,000 meta tags", &html);
    // The pre-scan keeps the first 500 tags; the author's comes after them.
    assert!(page.authors.is_empty());
    let early = format!("<head>{AFTER}{tags}</head>");
    assert_eq!(timed("100,000 meta tags after the author", &early).authors, strings(&["After It"]));
}
