//! What `sitemap_urls` discovered per origin, kept briefly, so that paging
//! through a site's URLs runs discovery once rather than once per page.
//!
//! Entries are keyed by (origin, product token) and live
//! [`SITEMAP_TTL`]; at most [`MAX_SITES`] origins and [`MAX_BYTES`] bytes
//! of URLs are kept, the oldest dropped first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::output::{SitemapUrlOutput, SkippedSitemapOutput};

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

struct Entry {
    key: SiteKey,
    at: Instant,
    bytes: usize,
    found: Arc<Discovered>,
}

/// The cache.
pub(crate) struct SitemapCache {
    entries: Mutex<VecDeque<Entry>>,
}

impl std::fmt::Debug for SitemapCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self.entries.lock().map(|e| e.len()).unwrap_or(0);
        f.debug_struct("SitemapCache").field("sites", &len).finish()
    }
}

impl SitemapCache {
    /// An empty cache.
    pub fn new() -> SitemapCache {
        SitemapCache { entries: Mutex::new(VecDeque::new()) }
    }

    /// The discovery for `key`, if it is still fresh.
    pub fn get(&self, key: &SiteKey) -> Option<Arc<Discovered>> {
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        entries.retain(|e| now.duration_since(e.at) < SITEMAP_TTL);
        entries.iter().find(|e| &e.key == key).map(|e| e.found.clone())
    }

    /// Keeps `found` for `key`, replacing an older run; drops the oldest
    /// past the limits. A run larger than the whole budget is not kept.
    pub fn put(&self, key: SiteKey, found: Arc<Discovered>) {
        let bytes = found.bytes();
        if bytes > MAX_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        entries.retain(|e| e.key != key);
        entries.push_back(Entry { key, at: Instant::now(), bytes, found });
        let mut total: usize = entries.iter().map(|e| e.bytes).sum();
        while entries.len() > MAX_SITES || total > MAX_BYTES {
            let Some(oldest) = entries.pop_front() else { break };
            total -= oldest.bytes;
        }
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
        let total: usize = cache.entries.lock().unwrap().iter().map(|e| e.bytes).sum();
        assert!(total <= MAX_BYTES, "{total}");
    }

    #[test]
    fn a_run_covers_a_page_when_complete_or_longer_than_it() {
        assert!(run(10, true).covers(100));
        assert!(!run(10, false).covers(10));
        assert!(run(11, false).covers(10));
    }
}
