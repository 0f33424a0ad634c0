//! HTML to Markdown: the main content of a real-looking page, links made
//! absolute, head facts read, and hostile documents that neither crash nor
//! stall the process.

use std::time::{Duration, Instant};

use url::Url;
use webcanon_extract::html::{self, HtmlLimits, Method, strip_tags};

fn base() -> Url {
    Url::parse("https://example.com/guides/start").unwrap()
}

#[test]
fn an_article_keeps_its_content_and_drops_the_chrome() {
    let html = webcanon_test::ARTICLE_HTML;
    let page = html::extract(html, &base(), &HtmlLimits::default());
    assert_eq!(page.method, Method::Article);
    assert_eq!(page.title.as_deref(), Some("How robots.txt works"));
    assert_eq!(page.canonical.as_ref().map(Url::as_str), Some("https://example.com/guides/robots"));
    assert_eq!(page.markdown_alternates[0].as_str(), "https://example.com/guides/robots.md");
    assert_eq!(page.described_by[0].as_str(), "https://example.com/llms.txt");
    let md = &page.markdown;
    assert!(md.contains("Groups and rules"), "{md}");
    assert!(md.contains("[RFC](https://example.com/spec/rfc9309)"), "{md}");
    assert!(md.contains("```"), "code fence kept: {md}");
    assert!(md.contains("Disallow: /private"), "{md}");
    assert!(md.contains("| Status | Meaning |") || md.contains("Status"), "{md}");
    for chrome in ["Menu A", "Pricing", "Legal", "tracking"] {
        assert!(!md.contains(chrome), "{chrome} should be gone: {md}");
    }
}

#[test]
fn a_short_page_falls_back_to_the_whole_body() {
    let html = "<html><head><title>Tiny</title></head><body><nav>Skip me</nav><div>Just <a href='x'>one</a> line.</div></body></html>";
    let page = html::extract(html, &base(), &HtmlLimits::default());
    assert_eq!(page.method, Method::WholeBody);
    assert!(page.markdown.contains("[one](https://example.com/guides/x)"), "{}", page.markdown);
    assert!(!page.markdown.contains("Skip me"), "{}", page.markdown);
}

#[test]
fn a_noscript_of_the_head_is_never_the_pages_text() {
    // A tag manager's pixel in the head's `<noscript>`: a tree builder
    // moves its `<img>` into the body, where it was all a script-driven
    // page had to show.
    let pixel = "<noscript><img height=1 width=1 src='https://pixel.test/tr?id=1&amp;ev=PageView'>\
                 <img src='https://beacon.test/p?c1=2&amp;c2=3'></noscript>";
    let html = format!(
        "<html><head><title>ニュース</title>{pixel}</head><body><div id=app></div><p>ニュースの本文。</p>\
         <script>render()</script></body></html>"
    );
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert!(!page.markdown.contains("pixel.test") && !page.markdown.contains("beacon.test"), "{}", page.markdown);
    assert_eq!(page.markdown, "ニュースの本文。");
}

#[test]
fn scripts_and_styles_cut_before_the_tree_change_nothing_a_reader_sees() {
    // A page as a publishing system writes it: a megabyte of inline
    // script and style around the article, a script inside it, and the
    // same page without them. The tree is built without their contents;
    // what comes out is the same, and no code is read as text.
    let article = "<article><h1>Harbour reopens</h1>\
        <p>The harbour reopened on Monday after a week of repairs to the sea wall, officials said.</p>\
        <script>window.ads = window.ads || []; ads.push({slot: 'mid', text: 'Buy now'});</script>\
        <p>Fishing boats returned at dawn, and the ferry to the islands runs to its summer timetable again.</p>\
        <p>Repairs cost less than feared: the contractor finished two days early and under its estimate.</p>\
        </article>";
    let code = format!(
        "<style>{}</style><script>var config = {{{}}};</script>",
        ".a{color:red}".repeat(40_000),
        "\"k\": \"Lorem ipsum dolor sit amet\",".repeat(20_000)
    );
    let with_code = format!("<html><head><title>Harbour</title>{code}</head><body>{code}{article}{code}</body></html>");
    let without_code = with_code.replace(&code, "").replace(
        "<script>window.ads = window.ads || []; ads.push({slot: 'mid', text: 'Buy now'});</script>",
        "<script></script>",
    );
    let read = |page: &str| html::extract(page, &base(), &HtmlLimits::default());
    let (with_code, without_code) = (read(&with_code), read(&without_code));
    assert_eq!(with_code.markdown, without_code.markdown);
    assert_eq!(with_code.method, Method::Article);
    assert!(with_code.markdown.contains("under its estimate"), "{}", with_code.markdown);
    for code in ["Buy now", "Lorem", "color:red"] {
        assert!(!with_code.markdown.contains(code), "{code}: {}", with_code.markdown);
    }
    // An escaped script keeps its content (its end is the tokenizer's to
    // find), and is still not text.
    let escaped = "<html><body><script><!-- document.write('<script>x()</script>'); --></script>\
                   <p>The text after an escaped script is read as text.</p></body></html>";
    let page = read(escaped);
    assert_eq!(page.markdown, "The text after an escaped script is read as text.");
}

#[test]
fn links_and_images_dropped_leave_no_markdown_whatever_the_page_writes() {
    use webcanon_extract::{ContentFormat, ContentShape, ImageStyle, LinkStyle};
    let cases = [
        r#"<a href="/x(">an address with an open parenthesis</a>"#,
        r#"<a href="/x)">an address with a closing one</a>"#,
        r#"<img src=x.png alt="a]b"><img src=y.png alt="[b">"#,
        r#"<a href=/x><img src=y.png alt="pic [1]"></a>"#,
        r#"<ul><li><a href=/x><h2>Head</h2><p>teaser</p></a></li></ul>"#,
        r#"<a href=/x>line<br>break</a> <a href=/y><p>para one</p><p>para two</p></a>"#,
    ];
    let shapes = [
        ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, images: ImageStyle::Drop },
        ContentShape { format: ContentFormat::Markdown, links: LinkStyle::Drop, images: ImageStyle::Drop },
    ];
    for case in cases {
        let html = format!("<html><body><p>Before.</p>{case}<p>After.</p></body></html>");
        let markdown = html::extract(&html, &base(), &HtmlLimits::default()).markdown;
        for shape in shapes {
            let shaped = shape.apply(&markdown);
            assert!(!shaped.contains("](") && !shaped.contains("!["), "{case}: {shape:?}: {shaped:?}");
            if shape.format == ContentFormat::Text {
                assert!(!shaped.contains('#'), "{case}: {shape:?}: {shaped:?}");
            }
        }
    }
    // The address itself, parentheses and all, is what a link leads to.
    let html = r#"<html><body><p>See <a href="/a_(b)">one</a> and <a href="/c(">two</a>.</p></body></html>"#;
    let markdown = html::extract(html, &base(), &HtmlLimits::default()).markdown;
    assert!(markdown.contains("[one](https://example.com/a_(b))"), "{markdown}");
    assert!(markdown.contains("[two](https://example.com/c\\()"), "{markdown}");
}

#[test]
fn a_short_post_the_page_marks_wins_over_its_sidebar() {
    // Too little text for the extractor: the whole body would be read.
    let about = "I write about gardens, old roses and the weather in the hills. ";
    let html = format!(
        "<html><head><title>Frost</title></head><body><div id=wrap><div id=main><article><h1>Frost</h1>\
         <div class=entry-content><p>The first frost came last night and the dahlias are gone.</p></div></article></div>\
         <div id=about><h3>About me</h3><p>{}</p></div></div></body></html>",
        about.repeat(2)
    );
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert!(page.markdown.contains("The first frost came last night"), "{}", page.markdown);
    assert!(!page.markdown.contains("old roses"), "{}", page.markdown);
}

#[test]
fn a_page_whose_words_are_all_boilerplate_comes_back_as_its_text() {
    let html = "<html><head><title>Shop</title><style>p{}</style></head><body>\
                <header><a href=/>Acme tools and hardware</a></header><nav><a href=/hammers>Hammers</a> \
                <a href=/saws>Saws</a> <a href=/drills>Drills</a> <a href=/ladders>Ladders</a></nav>\
                <footer>Open Monday to Friday.</footer><script>var x = 'no';</script></body></html>";
    let page = html::extract(html, &base(), &HtmlLimits::default());
    assert_eq!(page.method, Method::PageText);
    for text in ["Acme tools", "[Hammers](https://example.com/hammers)", "Open Monday to Friday"] {
        assert!(page.markdown.contains(text), "{text}: {}", page.markdown);
    }
    assert!(!page.markdown.contains("var x") && !page.markdown.contains("p{}"), "{}", page.markdown);
    // A page built by scripts shows no text to a reader without them.
    let shell = "<html><head><title>App</title></head><body><div id=root></div><script>render()</script>\
                 <img src=/pixel.gif></body></html>";
    let page = html::extract(shell, &base(), &HtmlLimits::default());
    assert_eq!((page.method, page.markdown.as_str()), (Method::WholeBody, "![](https://example.com/pixel.gif)"));
    assert!(!html::holds_text(&page.markdown));
}

#[test]
fn text_and_title_come_out_composed_whatever_the_page_spells() {
    // "Café" and the Bengali letter YYA spelled decomposed (e + U+0301;
    // U+09DF, which Unicode writes as U+09AF U+09BC), on every path: the
    // article, the whole body and the hostile-input text fallback.
    let decomposed = "Cafe\u{301} \u{9df}";
    let composed = "Caf\u{e9} \u{9af}\u{9bc}";
    let paragraph =
        format!("<p>{decomposed} is what this paragraph is about, said at length so that it reads as prose.</p>");
    let article = format!(
        "<html><head><title>{decomposed}</title></head><body><article>{}</article></body></html>",
        paragraph.repeat(8)
    );
    let short = format!("<html><body><div>{decomposed}</div></body></html>");
    let limits = HtmlLimits { max_elements: 2, ..HtmlLimits::default() };
    for (html, limits, method) in [
        (&article, HtmlLimits::default(), Method::Article),
        (&short, HtmlLimits::default(), Method::WholeBody),
        (&article, limits, Method::TextOnly),
    ] {
        let page = html::extract(html, &base(), &limits);
        assert_eq!(page.method, method);
        assert!(
            page.markdown.contains(composed) && !page.markdown.contains(decomposed),
            "{method:?}: {}",
            page.markdown
        );
    }
    let page = html::extract(&article, &base(), &HtmlLimits::default());
    assert_eq!(page.title.as_deref(), Some(composed));
}

#[test]
fn a_section_heading_like_the_title_is_kept_when_the_page_heading_is_in_a_header_block() {
    // The page heading sits in a block named like a site header; the
    // section heading resembles the title; the article is long enough for
    // the extractor's first, strictest pass. The page heading is the one
    // that the content leaves out, the section heading stays.
    let p = |n: usize| {
        format!(
            "<p>Paragraph {n}: hens start laying at about five months, earlier in spring and later in autumn, and the breed matters most.</p>"
        )
    };
    let html = format!(
        "<html><head><title>How long do hens lay eggs? - Example Farm</title></head><body>\
         <div class=\"entry-header\"><h1 class=entry-title>How long do hens lay eggs?</h1></div>\
         <div class=entry-content>{}<h2>When do hens lay eggs?</h2>{}</div></body></html>",
        (1..5).map(p).collect::<String>(),
        (5..9).map(p).collect::<String>(),
    );
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert!(page.markdown.contains("## When do hens lay eggs?"), "{}", page.markdown);
    assert!(!page.markdown.contains("How long do hens"), "{}", page.markdown);
}

#[test]
fn deep_nesting_is_capped_before_any_tree_is_built() {
    let depth = 100_000;
    let html = format!("<html><body>{}deep text{}</body></html>", "<div>".repeat(depth), "</div>".repeat(depth));
    let started = Instant::now();
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert_eq!(page.method, Method::TextOnly);
    assert_eq!(page.depth, depth + 2);
    assert!(page.markdown.contains("deep text"));
    // A bound against a quadratic pass (which would take hours here), far
    // from what a loaded machine's debug build needs for the linear one.
    assert!(started.elapsed() < Duration::from_secs(60), "took {:?}", started.elapsed());
}

#[test]
fn millions_of_elements_are_capped() {
    let html = format!("<html><body>{}</body></html>", "<p>x</p>".repeat(2_000_000));
    let started = Instant::now();
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert_eq!(page.method, Method::TextOnly);
    assert_eq!(page.elements, 2_000_002);
    assert!(page.markdown.starts_with("x\n\nx"), "{}", &page.markdown[..20]);
    // As above: quadratic would be hours; linear takes seconds even loaded.
    assert!(started.elapsed() < Duration::from_secs(60), "took {:?}", started.elapsed());
}

#[test]
fn unclosed_paragraphs_do_not_count_as_depth() {
    let body = "<p>Some sentence that goes on for a while. ".repeat(2_000);
    let html = format!("<html><head><title>Flat</title></head><body><article>{body}</article></body></html>");
    let page = html::extract(&html, &base(), &HtmlLimits::default());
    assert!(page.depth < 10, "depth {}", page.depth);
    assert_ne!(page.method, Method::TextOnly);
}

#[test]
fn stripping_tags_is_linear_and_keeps_text() {
    let text = strip_tags("<h1>Title</h1><script>var a = '<p>';</script><p>One &amp; two</p><!-- <b>no</b> -->");
    assert_eq!(text, "Title\n\nOne & two");
}

#[test]
fn html_bodies_are_recognised_before_conversion() {
    use webcanon_core::sniff::looks_like_html;
    for html in [&b"<!DOCTYPE html><p>x"[..], b"  \n<html>", b"\xEF\xBB\xBF<head>", b"<BODY>404"] {
        assert!(looks_like_html(html), "{:?}", String::from_utf8_lossy(html));
    }
    for text in [&b"# Title\n\n<html> in prose"[..], b"", b"<p>fragment</p>", b"plain text"] {
        assert!(!looks_like_html(text), "{:?}", String::from_utf8_lossy(text));
    }
}
