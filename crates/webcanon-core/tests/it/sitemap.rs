//! The sitemap parser against the real files of `shared/corpus/sitemaps` and
//! generated files for the limits (gzip bomb, 60,000 URLs), malformed
//! entries, every `lastmod` form, and the text, RSS and Atom formats.
//!
//! CI checks `shared/` out beside the repository, hence the path.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use flate2::Compression;
use flate2::write::GzEncoder;
use webcanon_core::sitemap::{
    self, ChangeFreq, DateTime, MAX_BYTES, MAX_ENTRIES, Sitemap, SitemapCode, SitemapKind, Time,
};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sitemaps");

fn corpus(name: &str) -> Sitemap {
    let path = PathBuf::from(CORPUS).join(name);
    sitemap::parse(&fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn codes(s: &Sitemap) -> Vec<(SitemapCode, Option<u32>)> {
    s.diagnostics.iter().map(|d| (d.code, d.line)).collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn urlset(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{body}</urlset>\n"
    )
}

#[test]
fn every_corpus_file_parses() {
    let mut paths: Vec<PathBuf> = fs::read_dir(CORPUS)
        .unwrap_or_else(|e| panic!("cannot read {CORPUS}: {e} (shared/ must be checked out beside the repository)"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "index.tsv"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 36);
    for path in paths {
        let bytes = fs::read(&path).expect("read");
        let parsed = sitemap::parse(&bytes);
        let mut streamed = 0;
        let summary = sitemap::parse_with(&bytes, |_| streamed += 1);
        assert_eq!(summary.entries, parsed.entries.len(), "{}", path.display());
        assert_eq!(streamed, parsed.entries.len());
        for entry in &parsed.entries {
            assert!(entry.loc.starts_with("http"), "{}: {:?}", path.display(), entry.loc);
        }
    }
}

#[test]
fn corpus_kinds_and_counts() {
    let cases: &[(&str, SitemapKind, usize)] = &[
        ("0install__sitemap.txt", SitemapKind::Text, 5),
        ("10beasts-yoast__sitemap_index.xml", SitemapKind::Index, 3),
        ("10beasts-yoast__post-sitemap.xml", SitemapKind::UrlSet, 14),
        ("mangesh-astro__sitemap-index.xml", SitemapKind::Index, 1),
        ("mangesh-astro__sitemap-0.xml", SitemapKind::UrlSet, 164),
        ("mangesh-astro__rss.xml", SitemapKind::Rss, 26),
        ("heizung-defekt-yoast__post-sitemap0.xml", SitemapKind::UrlSet, 1044),
        ("chill-paws__image-sitemap.xml", SitemapKind::UrlSet, 579),
        ("hurcann__video-sitemap.xml", SitemapKind::UrlSet, 969),
        ("mercury-composable-mkdocs__sitemap.xml", SitemapKind::UrlSet, 48),
        ("mercury-composable-mkdocs__sitemap.xml.gz", SitemapKind::UrlSet, 48),
        ("openxlsx2-pkgdown__sitemap.xml", SitemapKind::UrlSet, 136),
        ("cybercrimeinfo__news-sitemap.xml", SitemapKind::UrlSet, 1),
        ("xfeed__news-sitemap.xml", SitemapKind::UrlSet, 0),
        ("moab-news__sitemap.xml", SitemapKind::Unknown, 0),
    ];
    for (name, kind, count) in cases {
        let parsed = corpus(name);
        assert_eq!((parsed.kind, parsed.entries.len()), (*kind, *count), "{name}: {:?}", codes(&parsed));
    }
}

#[test]
fn gzip_copy_equals_plain_file() {
    let plain = corpus("mercury-composable-mkdocs__sitemap.xml");
    let gz = corpus("mercury-composable-mkdocs__sitemap.xml.gz");
    assert_eq!(plain, gz);
    assert_eq!(plain.entries[0].lastmod, DateTime::parse_w3c(&plain.entries[0].lastmod.unwrap().to_string()));
}

#[test]
fn index_with_offset_dates() {
    let parsed = corpus("10beasts-yoast__sitemap_index.xml");
    let first = &parsed.entries[0];
    assert_eq!(first.loc, "http://www.10beasts.cn/post-sitemap.xml");
    assert_eq!(first.line, 5);
    assert_eq!(first.lastmod.unwrap().to_string(), "2017-04-17T13:32:22Z");
    assert_eq!(codes(&parsed), []);
    let astro = corpus("mangesh-astro__sitemap-index.xml");
    let date = astro.entries[0].lastmod.unwrap();
    assert_eq!(date.time.unwrap().nanosecond, 853_000_000);
    assert_eq!(date.to_string(), "2026-06-30T11:25:26.853Z");
}

#[test]
fn index_published_as_urlset() {
    let parsed = corpus("heizung-defekt-yoast__sitemap_index.xml");
    assert_eq!(parsed.kind, SitemapKind::UrlSet);
    assert_eq!(parsed.entries.len(), 19);
    assert_eq!(codes(&parsed), [(SitemapCode::UrlsetListsSitemaps, None)]);
}

#[test]
fn unrendered_templates_and_other_bodies() {
    assert_eq!(codes(&corpus("moab-news__sitemap.xml")), [(SitemapCode::UnrenderedTemplate, Some(1))]);
    assert_eq!(codes(&corpus("moab-news__news-sitemap.xml")), [(SitemapCode::UnrenderedTemplate, Some(1))]);
    let html = sitemap::parse(b"<!DOCTYPE html><html><body>Not found</body></html>");
    assert_eq!((html.kind, codes(&html)), (SitemapKind::Unknown, vec![(SitemapCode::HtmlBody, None)]));
    let liquid = sitemap::parse(urlset("<url><loc>{{ site.url }}/a</loc></url>\n").as_bytes());
    assert_eq!(codes(&liquid), [(SitemapCode::UnrenderedTemplate, Some(3)), (SitemapCode::Empty, None)]);
}

#[test]
fn extensions_are_kept() {
    let news = corpus("cybercrimeinfo__news-sitemap.xml");
    let item = news.entries[0].news.as_ref().expect("news");
    assert_eq!(item.publication_name.as_deref(), Some("Cybercrimeinfo"));
    assert_eq!(item.language.as_deref(), Some("nl"));
    assert_eq!(item.publication_date.unwrap().to_string(), "2026-08-19");
    let images = corpus("chill-paws__image-sitemap.xml");
    assert_eq!(images.entries[0].loc, "https://www.certa.ai");
    assert!(images.entries[0].images.len() > 3);
    assert!(images.entries[0].images[0].loc.ends_with("_logo.svg"));
    let video = corpus("hurcann__video-sitemap.xml");
    let v = &video.entries[0].videos[0];
    assert_eq!(v.title.as_deref(), Some("Why Choose an R-32 PTAC Unit?"));
    assert_eq!(v.content_loc.as_deref(), Some("https://www.youtube.com/embed/_i58nfwU0bY"));
    // The upstream file has a bare `&` (line 4319): kept as text, entry kept.
    let amp =
        video.entries.iter().flat_map(|e| &e.videos).find(|v| v.title.as_deref().is_some_and(|t| t.contains(" & ")));
    assert_eq!(amp.and_then(|v| v.title.as_deref()), Some("Best Air Conditioner Brands & Models"));
    let not_well_formed: Vec<_> = video.diagnostics.iter().filter(|d| d.code == SitemapCode::NotWellFormed).collect();
    assert_eq!(not_well_formed.len(), 1, "reported once: {not_well_formed:?}");
    assert_eq!(not_well_formed[0].line, Some(4319));
    assert!(not_well_formed[0].message.contains("bare `&`"), "{}", not_well_formed[0].message);
    let hreflang = sitemap::parse(
        urlset(
            "<url><loc>https://a.dev/en</loc><xhtml:link xmlns:xhtml=\"http://www.w3.org/1999/xhtml\" rel=\"alternate\" hreflang=\"de\" href=\"https://a.dev/de?x=1&amp;y=2\"/></url>\n",
        )
        .as_bytes(),
    );
    assert_eq!(hreflang.entries[0].alternates[0].hreflang, "de");
    assert_eq!(hreflang.entries[0].alternates[0].href, "https://a.dev/de?x=1&y=2");
}

#[test]
fn rss_feed() {
    let rss = corpus("mangesh-astro__rss.xml");
    let first = &rss.entries[0];
    assert_eq!(first.loc, "https://mangeshbide.tech/blog/chatbot-v2-streaming-and-memory/");
    assert_eq!(first.lastmod.unwrap().to_string(), "2026-06-15T00:00:00Z");
    assert!(first.title.as_deref().unwrap().starts_with("Portfolio Chatbot v2"));
    assert_eq!(codes(&rss), []);
}

#[test]
fn atom_feed() {
    let atom = br#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example</title>
  <link href="https://a.dev/"/>
  <entry>
    <title>One</title>
    <link rel="self" href="https://a.dev/feed/1"/>
    <link href="https://a.dev/1"/>
    <updated>2003-12-13T18:30:02Z</updated>
  </entry>
  <entry>
    <link rel="alternate" href="https://a.dev/2"/>
    <published>2003-12-14T10:00:00+01:00</published>
  </entry>
</feed>"#;
    let parsed = sitemap::parse(atom);
    assert_eq!(parsed.kind, SitemapKind::Atom);
    let got: Vec<(&str, u32, String)> =
        parsed.entries.iter().map(|e| (e.loc.as_str(), e.line, e.lastmod.unwrap().to_string())).collect();
    assert_eq!(
        got,
        [
            ("https://a.dev/1", 8, "2003-12-13T18:30:02Z".into()),
            ("https://a.dev/2", 12, "2003-12-14T10:00:00+01:00".into())
        ]
    );
    assert_eq!(parsed.entries[0].title.as_deref(), Some("One"));
}

#[test]
fn text_sitemap() {
    let parsed = sitemap::parse(b"https://a.dev/1\r\n\r\n/relative\nftp://a.dev/x\nhttps://a.dev/2\n");
    assert_eq!(parsed.kind, SitemapKind::Text);
    let locs: Vec<(&str, u32)> = parsed.entries.iter().map(|e| (e.loc.as_str(), e.line)).collect();
    assert_eq!(locs, [("https://a.dev/1", 1), ("https://a.dev/2", 5)]);
    assert_eq!(codes(&parsed), [(SitemapCode::InvalidTextLine, Some(3)), (SitemapCode::InvalidTextLine, Some(4))]);
}

#[test]
fn malformed_entries_are_skipped() {
    let xml = urlset(concat!(
        "<url><loc>https://a.dev/ok</loc><lastmod>2024-02-30</lastmod><changefreq>sometimes</changefreq><priority>2</priority></url>\n",
        "<url><lastmod>2024-01-01</lastmod></url>\n",
        "<url><loc>relative/page</loc></url>\n",
        "<url><loc>https://a.dev/x y</loc></url>\n",
        "<sitemap><loc>https://a.dev/s.xml</loc></sitemap>\n",
        "<url><loc>https://a.dev/last</loc><lastmod>2024-01-01T10:00</lastmod><changefreq>Weekly</changefreq><priority>0.5</priority></url>\n",
    ));
    let parsed = sitemap::parse(xml.as_bytes());
    let locs: Vec<&str> = parsed.entries.iter().map(|e| e.loc.as_str()).collect();
    assert_eq!(locs, ["https://a.dev/ok", "https://a.dev/last"]);
    assert_eq!(parsed.entries[0].lastmod, None);
    assert_eq!(parsed.entries[0].changefreq, None);
    assert_eq!(parsed.entries[1].changefreq, Some(ChangeFreq::Weekly));
    assert_eq!(parsed.entries[1].priority, Some(0.5));
    assert_eq!(
        codes(&parsed),
        [
            (SitemapCode::InvalidLastmod, Some(3)),
            (SitemapCode::InvalidChangefreq, Some(3)),
            (SitemapCode::InvalidPriority, Some(3)),
            (SitemapCode::MissingLoc, Some(4)),
            (SitemapCode::InvalidLoc, Some(5)),
            (SitemapCode::InvalidLoc, Some(6)),
            (SitemapCode::MisplacedEntry, Some(7)),
            (SitemapCode::LastmodWithoutTimezone, Some(8)),
        ]
    );
}

#[test]
fn broken_xml_keeps_earlier_entries() {
    let xml = urlset(
        "<url><loc>https://a.dev/1</loc></url>\n<url><loc>https://a.dev/2</loc></url>\n<url><loc>https://a.dev/3",
    );
    let parsed = sitemap::parse(&xml.as_bytes()[..xml.len() - 12]);
    assert_eq!(parsed.entries.len(), 2);
    assert!(parsed.diagnostics.iter().any(|d| d.code == SitemapCode::NotWellFormed));
}

#[test]
fn doctype_is_refused() {
    let bomb = br#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.dev/&lol2;</loc></url></urlset>"#;
    let parsed = sitemap::parse(bomb);
    assert!(parsed.entries.is_empty());
    assert_eq!(codes(&parsed), [(SitemapCode::DoctypeRefused, Some(2))]);
}

#[test]
fn index_listing_an_index() {
    let xml = br#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://a.dev/posts.xml</loc></sitemap>
<sitemap><loc>https://a.dev/sitemap_index.xml</loc></sitemap>
<url><loc>https://a.dev/page</loc></url>
</sitemapindex>"#;
    let parsed = sitemap::parse(xml);
    assert!(parsed.kind.is_index());
    assert_eq!(parsed.entries.len(), 2);
    assert_eq!(codes(&parsed), [(SitemapCode::IndexListsIndex, Some(3)), (SitemapCode::MisplacedEntry, Some(4))]);
}

#[test]
fn sixty_thousand_urls() {
    let mut body = String::with_capacity(60_000 * 48);
    for i in 0..60_000 {
        body.push_str(&format!("<url><loc>https://a.dev/p/{i}</loc></url>\n"));
    }
    let xml = urlset(&body);
    let mut seen = 0;
    let summary = sitemap::parse_with(xml.as_bytes(), |_| seen += 1);
    assert_eq!((seen, summary.entries, summary.dropped), (MAX_ENTRIES, MAX_ENTRIES, 10_000));
    assert_eq!(summary.diagnostics.len(), 1);
    assert_eq!((summary.diagnostics[0].code, summary.diagnostics[0].line), (SitemapCode::TooManyUrls, Some(50_003)));
    let parsed = sitemap::parse(&gzip(xml.as_bytes()));
    assert_eq!(parsed.entries.last().unwrap().loc, "https://a.dev/p/49999");
}

#[test]
fn gzip_bomb_stops_at_the_cap() {
    // 200 MB of zeros compresses to about 200 KB at the default level
    // (with either flate2 backend: the workspace's PDF reader selects
    // zlib-rs, whose fastest level compresses zeros far less).
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..200 {
        encoder.write_all(&zeros).expect("gzip");
    }
    let bomb = encoder.finish().expect("gzip");
    assert!(bomb.len() < 1 << 20);
    let parsed = sitemap::parse(&bomb);
    assert!(parsed.entries.is_empty());
    assert_eq!(codes(&parsed), [(SitemapCode::DecompressionLimit, None), (SitemapCode::BinaryBody, None)]);
}

#[test]
fn oversized_gzip_sitemap_keeps_the_first_fifty_megabytes() {
    let entry = "<url><loc>https://a.dev/some/fairly/long/path/to/make/the/file/big/quickly/page</loc></url>\n";
    let count = MAX_BYTES / entry.len() + 1000;
    let xml = urlset(&entry.repeat(count));
    let parsed = sitemap::parse(&gzip(xml.as_bytes()));
    assert_eq!(parsed.entries.len(), MAX_ENTRIES);
    let found = codes(&parsed);
    assert!(found.contains(&(SitemapCode::DecompressionLimit, None)), "{found:?}");
    assert!(found.iter().any(|c| c.0 == SitemapCode::TooManyUrls));
}

#[test]
fn corrupt_gzip() {
    let mut gz = gzip(urlset("<url><loc>https://a.dev/1</loc></url>\n").as_bytes());
    gz.truncate(gz.len() - 12);
    let parsed = sitemap::parse(&gz);
    assert!(parsed.diagnostics.iter().any(|d| d.code == SitemapCode::GzipError));
}

/// A lastmod as written, then its year, month, day and time.
type LastmodCase = (&'static str, u16, Option<u8>, Option<u8>, Option<Time>);

#[test]
fn every_lastmod_form() {
    let t = |hour, minute, second, nanosecond, offset| {
        Some(Time { hour, minute, second, nanosecond, offset_minutes: offset })
    };
    let cases: &[LastmodCase] = &[
        ("1997", 1997, None, None, None),
        ("1997-07", 1997, Some(7), None, None),
        ("1997-07-16", 1997, Some(7), Some(16), None),
        ("1997-07-16T19:20+01:00", 1997, Some(7), Some(16), t(19, 20, None, 0, Some(60))),
        ("1997-07-16T19:20:30+01:00", 1997, Some(7), Some(16), t(19, 20, Some(30), 0, Some(60))),
        ("1997-07-16T19:20:30.45+01:00", 1997, Some(7), Some(16), t(19, 20, Some(30), 450_000_000, Some(60))),
        ("1997-07-16T19:20:30.45Z", 1997, Some(7), Some(16), t(19, 20, Some(30), 450_000_000, Some(0))),
        ("1997-07-16T19:20Z", 1997, Some(7), Some(16), t(19, 20, None, 0, Some(0))),
        ("1997-07-16T19:20:30-05:30", 1997, Some(7), Some(16), t(19, 20, Some(30), 0, Some(-330))),
        ("2024-02-29T00:00:00+0000", 2024, Some(2), Some(29), t(0, 0, Some(0), 0, Some(0))),
    ];
    for (text, year, month, day, time) in cases {
        let want = DateTime { year: *year, month: *month, day: *day, time: *time };
        assert_eq!(DateTime::parse_w3c(text), Some(want), "{text}");
        let xml = urlset(&format!("<url><loc>https://a.dev/</loc><lastmod>{text}</lastmod></url>\n"));
        let parsed = sitemap::parse(xml.as_bytes());
        assert_eq!(parsed.entries[0].lastmod, Some(want), "{text}");
        assert_eq!(codes(&parsed), [], "{text}");
    }
    assert_eq!(DateTime::parse_w3c("1997-07-16T19:20:30.45+01:00").unwrap().unix_timestamp(), 869_077_230);
    for (rfc822, w3c) in [
        ("Mon, 15 Jun 2026 00:00:00 GMT", "2026-06-15T00:00:00Z"),
        ("15 Jun 2026 08:30 EST", "2026-06-15T08:30-05:00"),
        ("Tue, 1 Jul 03 10:00:00 +0200", "2003-07-01T10:00:00+02:00"),
        ("Sat, 07 Sep 2002 00:00:01 PDT", "2002-09-07T00:00:01-07:00"),
    ] {
        assert_eq!(DateTime::parse_rfc822(rfc822).map(|d| d.to_string()).as_deref(), Some(w3c), "{rfc822}");
    }
}

#[test]
fn missing_namespace_and_unknown_root() {
    let parsed = sitemap::parse(b"<urlset><url><loc>https://a.dev/</loc></url></urlset>");
    assert_eq!(codes(&parsed), [(SitemapCode::MissingNamespace, Some(1))]);
    let other = sitemap::parse(b"<?xml version=\"1.0\"?>\n<catalog><item/></catalog>");
    assert_eq!(codes(&other), [(SitemapCode::UnknownRoot, Some(2))]);
}
