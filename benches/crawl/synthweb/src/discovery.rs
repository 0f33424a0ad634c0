//! The files a site offers for discovery: sitemaps (an index with a gzip
//! and a plain part, or one plain file) and llms.txt.

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::web::{Site, SitemapKind};

/// The most URLs a sitemap file may hold (sitemaps.org).
const URLS_PER_SITEMAP: u32 = 50_000;

/// The docs pages llms.txt links, by their Markdown twins.
const LLMS_TXT_LINKS: u32 = 20;

/// A sitemap document: its body and whether it is gzip.
pub struct SitemapFile {
    /// The bytes to serve.
    pub body: Vec<u8>,
    /// Whether `body` is gzip (served as `application/gzip`).
    pub gzip: bool,
}

/// The sitemap or index at `path` on `site`, if there is one.
pub fn sitemap_file(site: &Site, origin: &str, path: &str) -> Option<SitemapFile> {
    let parts = site.pages.div_ceil(URLS_PER_SITEMAP);
    match (site.sitemap?, path) {
        (SitemapKind::Plain, "/sitemap.xml") => {
            Some(SitemapFile { body: urlset(origin, 0..site.pages).into_bytes(), gzip: false })
        }
        (SitemapKind::IndexWithGzip, "/sitemap_index.xml") => {
            let mut xml = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
            );
            for part in 0..parts {
                let name = part_name(part);
                xml.push_str(&format!("  <sitemap><loc>{origin}/{name}</loc></sitemap>\n"));
            }
            xml.push_str("</sitemapindex>\n");
            Some(SitemapFile { body: xml.into_bytes(), gzip: false })
        }
        (SitemapKind::IndexWithGzip, _) => {
            let part = (0..parts).find(|&part| path == format!("/{}", part_name(part)))?;
            let first = part * URLS_PER_SITEMAP;
            let xml = urlset(origin, first..(first + URLS_PER_SITEMAP).min(site.pages));
            if part.is_multiple_of(2) {
                let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
                encoder.write_all(xml.as_bytes()).expect("writing to memory");
                Some(SitemapFile { body: encoder.finish().expect("writing to memory"), gzip: true })
            } else {
                Some(SitemapFile { body: xml.into_bytes(), gzip: false })
            }
        }
        (SitemapKind::Plain, _) => None,
    }
}

/// Even parts are gzip, odd ones plain.
fn part_name(part: u32) -> String {
    if part.is_multiple_of(2) { format!("sitemap-{part}.xml.gz") } else { format!("sitemap-{part}.xml") }
}

fn urlset(origin: &str, pages: std::ops::Range<u32>) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for number in pages {
        let path = Site::page_path(number);
        xml.push_str(&format!("  <url><loc>{origin}{path}</loc><lastmod>2026-11-01</lastmod></url>\n"));
    }
    xml.push_str("</urlset>\n");
    xml
}

/// The site's llms.txt: a title, a summary and links to the Markdown twins
/// of its first docs pages.
pub fn llms_txt(site: &Site, origin: &str) -> String {
    let mut text = format!(
        "# Site {}\n\n> Documentation and articles of synthetic site {}.\n\n## Docs\n\n",
        site.index, site.index
    );
    let docs = (8..site.pages).step_by(8).take(LLMS_TXT_LINKS as usize);
    for number in docs {
        let path = Site::page_path(number);
        text.push_str(&format!("- [Docs page {number}]({origin}{path}.md)\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use flate2::read::GzDecoder;

    use super::*;
    use crate::web::Web;

    #[test]
    fn an_index_names_its_parts_and_the_gzip_part_lists_the_pages() {
        let web = Web { seed: 1, sites: 4, pages: 120_000, port: 8080 };
        let site = web.site(0);
        let index = sitemap_file(&site, "http://o", "/sitemap_index.xml").expect("an index");
        let index = String::from_utf8(index.body).expect("UTF-8");
        assert_eq!(index.matches("<sitemap>").count(), 3);
        let part = sitemap_file(&site, "http://o", "/sitemap-0.xml.gz").expect("part 0");
        assert!(part.gzip);
        let mut xml = String::new();
        GzDecoder::new(part.body.as_slice()).read_to_string(&mut xml).expect("gzip");
        assert_eq!(xml.matches("<url>").count(), 50_000);
        assert!(xml.contains("<loc>http://o/</loc>"));
        let last = sitemap_file(&site, "http://o", "/sitemap-2.xml.gz").expect("part 2");
        assert!(last.gzip);
        assert!(sitemap_file(&site, "http://o", "/sitemap-3.xml").is_none());
    }
}
