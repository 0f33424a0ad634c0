//! Site crawling for webcanon, policy-exact at any scale.
//!
//! A crawl reads a site breadth first from its start URLs (and, by
//! default, its sitemaps and llms.txt), sending every request through the
//! client's one policy path ([`webcanon_client::Client::fetch_with`]:
//! robots.txt before every hop, the SSRF guard, pacing, rendering, PDF,
//! signing). This crate adds what a site needs beyond one page:
//!
//! - [`normalize`]: URLs in one normal form for the seen set
//!   ([`NormalizedUrl`]): fragments, default ports, escapes, tracking and
//!   session parameters, a length cap.
//! - [`scope`]: which URLs the crawl may reach ([`ScopeConfig`],
//!   [`SiteScope`]): origin, registrable domain or path prefix, include
//!   and exclude patterns in robots.txt syntax, a maximum depth. `map`
//!   shares it.
//! - [`limits`]: when a crawl stops ([`CrawlLimits`]), and the counts a
//!   service's request may ask of it, checked and lowered to its job.
//! - [`links`]: the links of a fetched page and whether they may be
//!   followed (`nofollow` in meta robots, `X-Robots-Tag` and `rel`).
//!
//! - [`map`]: the URLs of a site an agent may fetch, from its sitemaps,
//!   llms.txt and start page, each with its robots verdict.
//! - [`seed_file`]: a file of start URLs, read within bounds.
//! - [`sink`]: where the records go (JSON lines, Markdown files, Parquet
//!   with the feature `parquet`).
//! - [`stream`]: a crawl as a stream of records ([`crawl_stream`]), for
//!   the faces that run it as a job.
//!
//! The pure modules do no I/O.
//!
//! # Example
//!
//! ```
//! use url::Url;
//! use webcanon_crawl::{NormalizedUrl, ScopeConfig, SiteScope};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let start = NormalizedUrl::parse("https://example.com/docs/")?;
//! let mut scope = SiteScope::new(ScopeConfig { max_depth: Some(3), ..ScopeConfig::default() });
//! scope.add_start(start.url());
//! let link = NormalizedUrl::new(&Url::parse("https://EXAMPLE.com/docs/a?utm_source=feed#top")?)?;
//! assert_eq!(link.as_str(), "https://example.com/docs/a");
//! assert!(scope.check(link.url(), 1).is_ok());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

pub mod frontier;
pub mod limits;
pub mod links;
pub mod map;
pub mod normalize;
pub mod run;
pub mod scope;
pub mod seed_file;
pub mod seeds;
pub mod sink;
pub mod soft_404;
pub mod stream;

pub use frontier::{Frontier, FrontierError};
pub use limits::{CountError, CountRange, CrawlLimits, CrawlLimitsRequest, MAX_CRAWL_STARTS, count_within};
pub use links::{FoundBy, Link, links_of};
pub use normalize::{NormalizeError, NormalizedUrl};
pub use run::{CrawlConfig, CrawlError, CrawlObserver, CrawlSummary, Crawler};
pub use scope::{MAX_SCOPE_PATTERNS, OutOfScope, Scope, ScopeConfig, ScopeError, SiteScope};
pub use seed_file::{SeedFileError, read_seed_file};
pub use seeds::{SeedSource, SeedSources};
pub use sink::{JsonLines, JsonLinesFile, MarkdownFolder, RecordSink};
pub use stream::crawl_stream;
