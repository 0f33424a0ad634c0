//! Each site's robots.txt, and the benchmark agent's verdicts on it as
//! RFC 9309 decides them (Google's reference matcher, ported to Rust by the
//! `robotstxt` crate), which the scorer holds every request against.

use robotstxt::DefaultMatcher;

use crate::web::{AGENT_TOKEN, CRAWL_DELAY_SECONDS, RobotsKind, Site, SitemapKind};

/// What `/robots.txt` answers on a site.
pub enum RobotsAnswer {
    /// 200 with this body.
    File(String),
    /// 404.
    NotFound,
    /// 503.
    ServerError,
}

/// The site's robots.txt.
pub fn robots_answer(site: &Site, origin: &str) -> RobotsAnswer {
    let rules = match site.robots {
        RobotsKind::Missing => return RobotsAnswer::NotFound,
        RobotsKind::ServerError => return RobotsAnswer::ServerError,
        RobotsKind::Prefixes => "User-agent: *\nDisallow: /private/\nDisallow: /blog/drafts/\n".to_owned(),
        RobotsKind::OrderAgainstLength => "User-agent: *\n\
             Allow: /blog/\n\
             Disallow: /blog/drafts/\n\
             Disallow: /docs/\n\
             Allow: /docs/internal/\n\
             Disallow: /private/\n"
            .to_owned(),
        RobotsKind::Wildcards => "User-agent: *\n\
             Disallow: /*?sort=\n\
             Disallow: /archive/*.html$\n\
             Disallow: /private/\n"
            .to_owned(),
        RobotsKind::AgentGroup => format!(
            "User-agent: *\nDisallow: /\n\n\
             User-agent: otherbot\nDisallow: /docs/\n\n\
             User-agent: {AGENT_TOKEN}\nDisallow: /private/\nDisallow: /news/\n"
        ),
        RobotsKind::CrawlDelay => {
            format!("User-agent: *\nCrawl-delay: {CRAWL_DELAY_SECONDS}\nDisallow: /private/\n")
        }
    };
    let sitemap = match site.sitemap {
        Some(SitemapKind::IndexWithGzip) => format!("\nSitemap: {origin}/sitemap_index.xml\n"),
        Some(SitemapKind::Plain) => format!("\nSitemap: {origin}/sitemap.xml\n"),
        None => String::new(),
    };
    RobotsAnswer::File(rules + &sitemap)
}

/// Decides the benchmark agent's requests to one site.
pub struct Verdicts {
    answer: RobotsAnswer,
}

impl Verdicts {
    /// The verdicts for `site`, served at `origin`.
    pub fn new(site: &Site, origin: &str) -> Self {
        Verdicts { answer: robots_answer(site, origin) }
    }

    /// Whether RFC 9309 lets the benchmark agent request `url`: robots.txt
    /// itself always, anything on a site whose robots.txt fails with 5xx
    /// never (section 2.3.1.3), a site without one entirely.
    pub fn allows(&self, url: &str) -> bool {
        if url.ends_with("/robots.txt") {
            return true;
        }
        match &self.answer {
            RobotsAnswer::NotFound => true,
            RobotsAnswer::ServerError => false,
            RobotsAnswer::File(body) => DefaultMatcher::default().one_agent_allowed_by_robots(body, AGENT_TOKEN, url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::Web;

    const ORIGIN: &str = "http://127.1.0.1:8080";

    fn allows(site: u32, path: &str) -> bool {
        let web = Web { seed: 1, sites: 12, pages: 100, port: 8080 };
        Verdicts::new(&web.site(site), ORIGIN).allows(&format!("{ORIGIN}{path}"))
    }

    #[test]
    fn the_longest_match_decides_not_the_first() {
        assert!(!allows(1, "/blog/drafts/5.html"), "a broad Allow comes first");
        assert!(allows(1, "/blog/1.html"));
        assert!(allows(1, "/docs/internal/6.html"), "a broad Disallow comes first");
        assert!(!allows(1, "/docs/8.html"));
    }

    #[test]
    fn wildcards_and_the_end_anchor() {
        assert!(!allows(2, "/shop/2.html?sort=price"));
        assert!(allows(2, "/shop/2.html"));
        assert!(!allows(2, "/archive/4.html"));
        assert!(allows(2, "/archive/4.html?print=1"), "$ anchors the end of the path and query");
    }

    #[test]
    fn the_agent_group_wins_over_the_star_group() {
        assert!(allows(3, "/docs/8.html"));
        assert!(!allows(3, "/news/7.html"));
        assert!(!allows(3, "/private/3.html"));
    }

    #[test]
    fn a_failing_robots_txt_disallows_all_and_a_missing_one_nothing() {
        assert!(!allows(5, "/"));
        assert!(allows(5, "/robots.txt"));
        assert!(allows(11, "/private/3.html"));
    }
}
