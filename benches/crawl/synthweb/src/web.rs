//! The synthetic web: which sites exist, where they listen, what each
//! site's robots.txt, sitemaps and llms.txt hold, which pages it has and
//! what each page links to. Everything follows from the seed and the two
//! sizes, so the server and the scorer compute the same web.

use std::net::Ipv4Addr;

/// The product token the benchmark's crawlers send and robots.txt names.
pub const AGENT_TOKEN: &str = "benchbot";

/// The pages of a site that sets `Crawl-delay`: politeness bounds such a
/// site to one page a second, so it stays small enough for a quick run.
const DELAYED_SITE_PAGES: u32 = 10;

/// The `Crawl-delay` those sites set, in seconds.
pub const CRAWL_DELAY_SECONDS: u32 = 1;

/// A site's robots.txt policy, one of the cases a crawler must decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RobotsKind {
    /// Path prefixes only.
    Prefixes,
    /// Rules whose order disagrees with their length: a broad `Allow`
    /// before a narrower `Disallow`, a broad `Disallow` before a narrower
    /// `Allow`. RFC 9309 takes the longest match; a first-match parser
    /// fetches the disallowed drafts and skips the allowed internal docs.
    OrderAgainstLength,
    /// `*` wildcards and the `$` end anchor.
    Wildcards,
    /// `User-agent: *` disallows everything; the benchmark agent's own
    /// group allows most of the site.
    AgentGroup,
    /// `Crawl-delay` for every agent.
    CrawlDelay,
    /// No robots.txt (404): everything is allowed.
    Missing,
    /// robots.txt answers 503: RFC 9309 section 2.3.1.3, complete disallow.
    ServerError,
}

/// How a site lists its pages for discovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SitemapKind {
    /// A sitemap index at `/sitemap_index.xml` naming gzip and plain parts.
    IndexWithGzip,
    /// One plain `/sitemap.xml`.
    Plain,
}

/// The trap a site hides behind one link of its home page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trap {
    /// `/calendar/YYYY/MM`, each month linking to the next and the previous.
    Calendar,
    /// `/deep/x/`, each level linking to one level deeper.
    DeeperPaths,
}

/// The sections a page lives in, by its number modulo their count.
const SECTIONS: [&str; 8] = ["docs", "blog", "shop", "private", "archive", "blog/drafts", "docs/internal", "news"];

/// A generated web: `sites` origins on loopback, `pages` pages each (fewer
/// on sites with `Crawl-delay`).
#[derive(Clone, Copy, Debug)]
pub struct Web {
    /// Seeds every page's text and links.
    pub seed: u64,
    /// The number of sites (origins).
    pub sites: u32,
    /// Pages of an ordinary site.
    pub pages: u32,
    /// The port every site listens on (each site has its own address).
    pub port: u16,
}

/// One site of the web.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// Its number, from 0.
    pub index: u32,
    /// Its pages: numbers 0 (the home page) to `pages - 1`.
    pub pages: u32,
    /// Its robots.txt policy.
    pub robots: RobotsKind,
    /// Its sitemaps, if robots.txt names any.
    pub sitemap: Option<SitemapKind>,
    /// Whether it serves `/llms.txt` and Markdown twins of its docs pages.
    pub llms_txt: bool,
    /// Its trap, if any.
    pub trap: Option<Trap>,
}

/// What a path of a site is, as the server and the scorer read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// `/robots.txt`.
    Robots,
    /// A sitemap or sitemap index.
    Sitemap,
    /// `/llms.txt`.
    LlmsTxt,
    /// A page by number; `markdown` for its `.md` twin.
    Page {
        /// The page's number.
        number: u32,
        /// Whether the Markdown twin was asked for.
        markdown: bool,
    },
    /// A page of the site's trap.
    Trap,
    /// Anything else: 404.
    Unknown,
}

impl Web {
    /// The site at `index`.
    pub fn site(&self, index: u32) -> Site {
        let robots = match index {
            5 => RobotsKind::ServerError,
            _ => match index % 6 {
                0 => RobotsKind::Prefixes,
                1 => RobotsKind::OrderAgainstLength,
                2 => RobotsKind::Wildcards,
                3 => RobotsKind::AgentGroup,
                4 => RobotsKind::CrawlDelay,
                _ => RobotsKind::Missing,
            },
        };
        let pages = match robots {
            RobotsKind::CrawlDelay => self.pages.min(DELAYED_SITE_PAGES),
            _ => self.pages,
        };
        let sitemap = match (robots, index % 2) {
            (RobotsKind::Missing | RobotsKind::ServerError, _) => None,
            (_, 0) => Some(SitemapKind::IndexWithGzip),
            _ => Some(SitemapKind::Plain),
        };
        let trap = match index % 4 {
            2 => Some(Trap::DeeperPaths),
            3 => Some(Trap::Calendar),
            _ => None,
        };
        Site { index, pages: pages.max(1), robots, sitemap, llms_txt: index.is_multiple_of(3), trap }
    }

    /// Every site, in order.
    pub fn all_sites(&self) -> impl Iterator<Item = Site> + '_ {
        (0..self.sites).map(|index| self.site(index))
    }

    /// The site listening on `address`, if it is one of this web's.
    pub fn site_at(&self, address: Ipv4Addr) -> Option<Site> {
        let [first, second, third, fourth] = address.octets();
        if first != 127 || second == 0 || third >= 250 || fourth == 0 || fourth > 250 {
            return None;
        }
        let index = (u32::from(second) - 1) * 250 * 250 + u32::from(third) * 250 + u32::from(fourth) - 1;
        (index < self.sites).then(|| self.site(index))
    }

    /// The pages of the whole web, traps excluded.
    pub fn total_pages(&self) -> u64 {
        self.all_sites().map(|site| u64::from(site.pages)).sum()
    }

    /// A deterministic random stream for one page of one site.
    pub fn rng(&self, site: u32, page: u32) -> fastrand::Rng {
        let mixed = self.seed
            ^ u64::from(site).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(page).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        fastrand::Rng::with_seed(mixed)
    }
}

impl Site {
    /// The loopback address the site listens on: 127.1.0.1, 127.1.0.2, ...
    /// (250 hosts to a third octet, so none ends in .0 or .255).
    pub fn address(&self) -> Ipv4Addr {
        let second = 1 + self.index / (250 * 250);
        let third = (self.index / 250) % 250;
        let fourth = self.index % 250 + 1;
        Ipv4Addr::new(
            127,
            u8::try_from(second).expect("fewer than 250^3 sites"),
            u8::try_from(third).expect("below 250"),
            u8::try_from(fourth).expect("at most 250"),
        )
    }

    /// The site's origin, `http://127.1.0.1:PORT` (without the port when
    /// it is HTTP's default, 80: some crawlers refuse an address with one).
    pub fn origin(&self, port: u16) -> String {
        match port {
            80 => format!("http://{}", self.address()),
            _ => format!("http://{}:{port}", self.address()),
        }
    }

    /// The `Crawl-delay` the site asks of the benchmark agent, if any.
    pub fn crawl_delay_seconds(&self) -> Option<u32> {
        (self.robots == RobotsKind::CrawlDelay).then_some(CRAWL_DELAY_SECONDS)
    }

    /// The path of page `number` (without query).
    pub fn page_path(number: u32) -> String {
        if number == 0 {
            return "/".to_owned();
        }
        let section = SECTIONS[number as usize % SECTIONS.len()];
        format!("/{section}/{number}.html")
    }

    /// The query variant a page is also linked under, if its section has
    /// one: a sort order on shop pages, a print view on archive pages
    /// (the same page: duplicate content under another URL).
    pub fn page_variant(number: u32) -> Option<String> {
        match SECTIONS[number as usize % SECTIONS.len()] {
            "shop" if number != 0 => Some(format!("{}?sort=price", Self::page_path(number))),
            "archive" if number != 0 => Some(format!("{}?print=1", Self::page_path(number))),
            _ => None,
        }
    }

    /// What `path` (path and query) names on this site.
    pub fn resource(&self, path_and_query: &str) -> Resource {
        let (path, query) =
            path_and_query.split_once('?').map_or((path_and_query, None), |(path, query)| (path, Some(query)));
        match path {
            "/robots.txt" => return Resource::Robots,
            "/llms.txt" if self.llms_txt => return Resource::LlmsTxt,
            "/sitemap.xml" if self.sitemap == Some(SitemapKind::Plain) => return Resource::Sitemap,
            "/sitemap_index.xml" if self.sitemap == Some(SitemapKind::IndexWithGzip) => {
                return Resource::Sitemap;
            }
            "/" if query.is_none() => return Resource::Page { number: 0, markdown: false },
            _ => {}
        }
        if path.starts_with("/sitemap-") && self.sitemap == Some(SitemapKind::IndexWithGzip) {
            return Resource::Sitemap;
        }
        match self.trap {
            Some(Trap::Calendar) if path.starts_with("/calendar/") => return Resource::Trap,
            Some(Trap::DeeperPaths) if path.starts_with("/deep/") => return Resource::Trap,
            _ => {}
        }
        let (html_path, markdown) = match path.strip_suffix(".md") {
            Some(stem) if self.llms_txt => (stem, true),
            Some(_) => return Resource::Unknown,
            None => (path, false),
        };
        let Some(number) = html_path
            .rsplit_once('/')
            .and_then(|(_, file)| file.strip_suffix(".html"))
            .and_then(|digits| digits.parse::<u32>().ok())
        else {
            return Resource::Unknown;
        };
        let canonical = Self::page_path(number);
        let variant_ok = match query {
            None => true,
            Some(_) => Self::page_variant(number).as_deref() == Some(path_and_query),
        };
        if number < self.pages && canonical == html_path && variant_ok && !(markdown && query.is_some()) {
            Resource::Page { number, markdown }
        } else {
            Resource::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> Web {
        Web { seed: 7, sites: 700, pages: 50, port: 8080 }
    }

    #[test]
    fn every_site_is_found_at_its_own_address() {
        let web = web();
        for site in web.all_sites() {
            assert_eq!(web.site_at(site.address()).map(|found| found.index), Some(site.index));
        }
        assert!(web.site_at(Ipv4Addr::new(127, 0, 0, 1)).is_none());
        assert!(web.site_at(Ipv4Addr::new(127, 1, 2, 201)).is_none(), "site 700 is past the last");
    }

    #[test]
    fn page_paths_and_their_variants_name_the_page() {
        let site = web().site(0);
        for number in 0..site.pages {
            let path = Site::page_path(number);
            assert_eq!(site.resource(&path), Resource::Page { number, markdown: false });
            if let Some(variant) = Site::page_variant(number) {
                assert_eq!(site.resource(&variant), Resource::Page { number, markdown: false });
            }
        }
        assert_eq!(site.resource("/docs/8.html.md"), Resource::Page { number: 8, markdown: true });
        assert_eq!(site.resource("/docs/9.html"), Resource::Unknown, "page 9 is a blog page");
        assert_eq!(site.resource("/docs/8.html?sort=price"), Resource::Unknown);
        assert_eq!(site.resource("/docs/800.html"), Resource::Unknown, "past the last page");
    }

    #[test]
    fn sites_cover_every_robots_case() {
        let kinds: Vec<RobotsKind> = web().all_sites().take(7).map(|site| site.robots).collect();
        assert_eq!(
            kinds,
            [
                RobotsKind::Prefixes,
                RobotsKind::OrderAgainstLength,
                RobotsKind::Wildcards,
                RobotsKind::AgentGroup,
                RobotsKind::CrawlDelay,
                RobotsKind::ServerError,
                RobotsKind::Prefixes,
            ]
        );
        assert_eq!(web().site(4).pages, DELAYED_SITE_PAGES);
    }
}
