//! What `map` reports: one [`MapRecord`] per URL, and the [`MapSummary`].

use serde::Serialize;
use webcanon_core::policy::{FetchRecommendation, RuleEvidence, Verdict};

/// Where a URL of the map was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MapSource {
    /// A sitemap of the site (named by robots.txt, or `/sitemap.xml`, and
    /// the sitemaps their indexes list).
    Sitemap,
    /// The site's llms.txt.
    LlmsTxt,
    /// A link of the start page.
    Link,
}

impl MapSource {
    /// The sources in the order a record lists them.
    pub const ALL: [MapSource; 3] = [MapSource::Sitemap, MapSource::LlmsTxt, MapSource::Link];

    /// The name records and the command line use.
    pub fn as_str(self) -> &'static str {
        match self {
            MapSource::Sitemap => "sitemap",
            MapSource::LlmsTxt => "llms_txt",
            MapSource::Link => "link",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of [`MapSource`]s, kept in one byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources(u8);

impl Sources {
    /// The set of `source` alone.
    pub fn of(source: MapSource) -> Sources {
        Sources(source.bit())
    }

    /// Adds `source`.
    pub fn insert(&mut self, source: MapSource) {
        self.0 |= source.bit();
    }

    /// Adds every source of `other`.
    pub fn merge(&mut self, other: Sources) {
        self.0 |= other.0;
    }

    /// Whether `source` is in the set.
    pub fn contains(self, source: MapSource) -> bool {
        self.0 & source.bit() != 0
    }

    /// The sources, in [`MapSource::ALL`] order.
    pub fn to_vec(self) -> Vec<MapSource> {
        MapSource::ALL.into_iter().filter(|s| self.contains(*s)).collect()
    }
}

/// One URL of the map: where it was found and what robots.txt says of it
/// for the agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MapRecord {
    /// The URL, normalised (the form a crawl's seen set uses).
    pub url: String,
    /// Whether the agent may fetch it under the client's robots mode.
    pub allowed: bool,
    /// What robots.txt says.
    pub verdict: Verdict,
    /// What a well-behaved agent should do.
    pub recommendation: FetchRecommendation,
    /// The rule that decided, if one matched.
    pub rule: Option<RuleEvidence>,
    /// The `lastmod` its sitemap gives (ISO 8601), when it gives a valid one.
    pub lastmod: Option<String>,
    /// Where it was found.
    pub sources: Vec<MapSource>,
}

/// The totals of a map run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MapSummary {
    /// URLs reported.
    pub urls: u64,
    /// URLs reported that the agent may fetch.
    pub allowed: u64,
    /// URLs found more than once (by one source or several), reported once.
    pub duplicates: u64,
    /// URLs found outside the scope, not reported.
    pub out_of_scope: u64,
    /// URLs found that are not web URLs or too long to normalise, not reported.
    pub invalid: u64,
    /// URLs whose robots.txt could not be read here (its host refused by
    /// the SSRF guard, or this machine failed), not reported.
    pub undecided: u64,
    /// Sitemaps read.
    pub sitemaps_read: usize,
    /// Sitemaps skipped (not found, refused, over a limit).
    pub sitemaps_skipped: usize,
    /// Whether the site has an llms.txt that was read.
    pub llms_txt: bool,
    /// Links of the start page read.
    pub links_read: usize,
    /// Whether the run stopped at `max_urls` (or because the caller asked)
    /// before every source was read.
    pub stopped: bool,
}
