//! What `sitemap_urls` discovered per origin, kept briefly, so that paging
//! through a site's URLs runs discovery once rather than once per page.
//!
//! Entries are keyed by (origin, product token) and live
//! [`SITEMAP_TTL`]; at most [`MAX_SITES`] origins and [`MAX_BYTES`] bytes
//! of URLs are kept, the oldest dropped first.

use std::sync::Arc;
use std::time::Duration;

use crate::output::{SitemapUrlOutput, SkippedSitemapOutput};
use crate::ttl_cache::TtlCache;

/// How long a discovery is served from the cache.
pub(crate) const SITEMAP_TTL: Duration = Duration::from_secs(600);
/// How many origins are kept at most.
pub(crate) const MAX_SITES: usize = 64;
/// How many bytes of URLs are kept at most, over all origins.
pub(crate) const MAX_BYTES: usize = 32 * 1024 * 1024;

/// What identifies a discovery: the site's origin and the agent whose
/// robots.txt rules admitted its sitemaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SiteKey {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// The product token.
    pub agent: String,
}

/// One discovery run's findings.
#[derive(Debug)]
pub(crate) struct Discovered {
    /// The URLs found, in order.
    pub urls: Vec<SitemapUrlOutput>,
    /// The sitemaps not read.
    pub skipped: Vec<SkippedSitemapOutput>,
    /// Sitemaps parsed.
    pub sitemaps_read: usize,
    /// Parser findings over them.
    pub diagnostics: usize,
    /// Whether every sitemap was read or skipped (the run did not stop at a
    /// URL limit): then no page past `urls` exists.
    pub complete: bool,
}

impl Discovered {
    /// About what this holds in memory.
    fn bytes(&self) -> usize {
        let urls: usize = self
            .urls
            .iter()
            .map(|u| u.url.len() + u.sitemap.len() + u.lastmod.as_ref().map_or(0, String::len) + 96)
            .sum();
        let skipped: usize = self.skipped.iter().map(|s| s.url.len() + s.detail.len() + s.reason.len() + 72).sum();
        urls + skipped + 128
    }

    /// Whether it answers a page that ends at `end` (exclusive), knowing
    /// whether more follow.
    pub fn covers(&self, end: usize) -> bool {
        self.complete || self.urls.len() > end
    }
}

/// The cache: findings weighed by their bytes.
#[derive(Debug)]
pub(crate) struct SitemapCache(TtlCache<SiteKey, Discovered>);

impl SitemapCache {
    /// An empty cache.
    pub fn new() -> SitemapCache {
        SitemapCache(TtlCache::new(SITEMAP_TTL, MAX_SITES, MAX_BYTES))
    }

    /// The discovery for `key`, if it is still fresh.
    pub fn get(&self, key: &SiteKey) -> Option<Arc<Discovered>> {
        self.0.get(key).map(|(found, _)| found)
    }

    /// Keeps `found` for `key`, replacing an older run; drops the oldest
    /// past the limits. A run larger than the whole budget is not kept.
    pub fn put(&self, key: SiteKey, found: Arc<Discovered>) {
        let bytes = found.bytes();
        self.0.put(key, found, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(urls: usize, complete: bool) -> Arc<Discovered> {
        let urls = (0..urls)
            .map(|i| SitemapUrlOutput {
                url: format!("https://a.test/{i:0>2000}"),
                lastmod: None,
                sitemap: "https://a.test/sitemap.xml".into(),
            })
            .collect();
        Arc::new(Discovered { urls, skipped: Vec::new(), sitemaps_read: 1, diagnostics: 0, complete })
    }

    fn key(origin: &str) -> SiteKey {
        SiteKey { origin: origin.into(), agent: "GPTBot".into() }
    }

    #[test]
    fn kept_per_origin_and_agent_within_the_byte_budget() {
        let cache = SitemapCache::new();
        cache.put(key("https://a.test"), run(10, true));
        assert_eq!(cache.get(&key("https://a.test")).unwrap().urls.len(), 10);
        assert!(cache.get(&SiteKey { origin: "https://a.test".into(), agent: "ClaudeBot".into() }).is_none());
        // About 2 KiB a URL: 5,000 URLs a site, so the budget keeps about three.
        for site in 0..8 {
            cache.put(key(&format!("https://s{site}.test")), run(5_000, false));
        }
        let kept = (0..8).filter(|site| cache.get(&key(&format!("https://s{site}.test"))).is_some()).count();
        assert!((1..8).contains(&kept), "{kept}");
        assert!(cache.get(&key("https://s7.test")).is_some(), "the newest stays");
        assert!(cache.get(&key("https://a.test")).is_none(), "the oldest went first");
        assert!(cache.0.weight() <= MAX_BYTES, "{}", cache.0.weight());
    }

    #[test]
    fn a_run_covers_a_page_when_complete_or_longer_than_it() {
        assert!(run(10, true).covers(100));
        assert!(!run(10, false).covers(10));
        assert!(run(11, false).covers(10));
    }
}
