//! The pages of a site: HTML with a navigation bar, a few paragraphs, links
//! within the site (a tree through every page, plus random ones and query
//! variants) and one to another site, and a footer; their Markdown twins;
//! and the pages of the traps.

use crate::web::{Site, Trap, Web};

/// Syllables the pages' words are made of.
const SYLLABLES: [&str; 24] = [
    "ka", "lo", "mi", "ren", "ta", "vo", "shi", "el", "ur", "pa", "ne", "dor", "sa", "qui", "ben", "to", "la", "mor",
    "gi", "fen", "ra", "ost", "li", "um",
];

/// The pages page `number` of `site` links to within the site, in order:
/// its children in a binary tree over the site's pages (so every page is
/// reachable from the home page), then three chosen at random.
pub fn page_links(web: &Web, site: &Site, number: u32) -> Vec<u32> {
    let mut rng = web.rng(site.index, number);
    let children = [2 * number + 1, 2 * number + 2].into_iter().filter(|&child| child < site.pages);
    let random = (0..3).map(|_| rng.u32(0..site.pages));
    children.chain(random).collect()
}

/// The HTML of page `number` of `site`.
pub fn page_html(web: &Web, site: &Site, number: u32) -> String {
    let origin = site.origin(web.port);
    let path = Site::page_path(number);
    let mut rng = web.rng(site.index, number.wrapping_add(0x5EED));
    let title = format!("{} {number}", sentence(&mut rng, 3));
    let mut html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <title>{title} | Site {site}</title>\n\
         <link rel=\"canonical\" href=\"{origin}{path}\">\n</head><body>\n\
         <header><nav><a href=\"/\">Home</a> <a href=\"/docs/8.html\">Docs</a> \
         <a href=\"/blog/1.html\">Blog</a> <a href=\"/shop/2.html\">Shop</a> <a href=\"#main\">Skip</a></nav></header>\n\
         <main id=\"main\"><article><h1>{title}</h1>\n",
        site = site.index
    );
    for _ in 0..rng.usize(3..6) {
        let words = rng.usize(40..80);
        html.push_str("<p>");
        html.push_str(&sentence(&mut rng, words));
        html.push_str(".</p>\n");
    }
    html.push_str("<h2>Related</h2>\n<ul>\n");
    for target in page_links(web, site, number) {
        let target_path = Site::page_path(target);
        html.push_str(&format!("<li><a href=\"{target_path}\">{}</a></li>\n", sentence(&mut rng, 2)));
        if let Some(variant) = Site::page_variant(target) {
            html.push_str(&format!("<li><a href=\"{}\">Other view</a></li>\n", variant));
        }
    }
    let other_site = web.site(rng.u32(0..web.sites));
    let other_page = rng.u32(0..other_site.pages);
    html.push_str(&format!(
        "<li><a href=\"{}{}\">Elsewhere</a></li>\n</ul>\n</article></main>\n",
        other_site.origin(web.port),
        Site::page_path(other_page)
    ));
    html.push_str("<footer><a href=\"/private/3.html\">Account</a> <a href=\"/news/7.html\">News</a>");
    if number == 0 {
        match site.trap {
            Some(Trap::Calendar) => html.push_str(" <a href=\"/calendar/2026/11\">Events</a>"),
            Some(Trap::DeeperPaths) => html.push_str(" <a href=\"/deep/x/\">Browse</a>"),
            None => {}
        }
    }
    html.push_str("</footer>\n</body></html>\n");
    html
}

/// The Markdown twin of page `number`, linked from llms.txt.
pub fn page_markdown(web: &Web, site: &Site, number: u32) -> String {
    let mut rng = web.rng(site.index, number.wrapping_add(0x5EED));
    let title = format!("{} {number}", sentence(&mut rng, 3));
    let mut markdown = format!("# {title}\n\n");
    for _ in 0..rng.usize(3..6) {
        let words = rng.usize(40..80);
        markdown.push_str(&sentence(&mut rng, words));
        markdown.push_str(".\n\n");
    }
    markdown
}

/// A page of a trap: a paragraph and the link that leads further in.
pub fn trap_html(path: &str) -> Option<String> {
    let next = if let Some(month) = path.strip_prefix("/calendar/") {
        let (year, month) = month.trim_end_matches('/').split_once('/')?;
        let (year, month): (u32, u32) = (year.parse().ok()?, month.parse().ok()?);
        if !(1..=12).contains(&month) {
            return None;
        }
        let (next_year, next_month) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
        let (previous_year, previous_month) = if month == 1 { (year.checked_sub(1)?, 12) } else { (year, month - 1) };
        format!(
            "<a href=\"/calendar/{next_year}/{next_month:02}\">Next month</a> \
             <a href=\"/calendar/{previous_year}/{previous_month:02}\">Previous month</a>"
        )
    } else if path.starts_with("/deep/") && path.ends_with("/") {
        format!("<a href=\"{path}x/\">More</a>")
    } else {
        return None;
    };
    Some(format!(
        "<!doctype html>\n<html><head><title>{path}</title></head><body>\n\
         <p>Nothing new here, only the way onward.</p>\n<p>{next}</p>\n</body></html>\n"
    ))
}

/// `words` pseudo-words, the first capitalised.
fn sentence(rng: &mut fastrand::Rng, words: usize) -> String {
    let mut text = String::new();
    for index in 0..words {
        if index > 0 {
            text.push(' ');
        }
        for _ in 0..rng.usize(1..4) {
            text.push_str(SYLLABLES[rng.usize(0..SYLLABLES.len())]);
        }
    }
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_page_is_reachable_from_the_home_page() {
        let web = Web { seed: 3, sites: 2, pages: 500, port: 8080 };
        let site = web.site(0);
        let mut seen = HashSet::from([0]);
        let mut queue = vec![0];
        while let Some(page) = queue.pop() {
            for target in page_links(&web, &site, page) {
                if seen.insert(target) {
                    queue.push(target);
                }
            }
        }
        assert_eq!(seen.len(), 500);
    }

    #[test]
    fn pages_are_the_same_for_the_same_seed_and_differ_across_pages() {
        let web = Web { seed: 3, sites: 2, pages: 500, port: 8080 };
        let site = web.site(1);
        assert_eq!(page_html(&web, &site, 17), page_html(&web, &site, 17));
        assert_ne!(page_html(&web, &site, 17), page_html(&web, &site, 18));
        assert!(page_html(&web, &site, 17).contains("href=\"http://127.1.0."), "a link to another site");
    }

    #[test]
    fn traps_lead_on_forever() {
        let december = trap_html("/calendar/2026/12").expect("a month");
        assert!(december.contains("/calendar/2027/01"));
        assert!(december.contains("/calendar/2026/11"));
        assert!(trap_html("/deep/x/x/").expect("a level").contains("/deep/x/x/x/"));
        assert!(trap_html("/calendar/2026/13").is_none());
    }
}
