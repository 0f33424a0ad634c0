//! The retrieval layer of webcanon: everything that touches the network.
//!
//! This crate fetches pages for LLM agents the way the site owner asked: the
//! SSRF guard vets every address before a connection is made, robots.txt is
//! evaluated (and cached) before every request, and HTML is converted to
//! Markdown with hard caps on hostile input.
//!
//! # Example
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use webcanon_client::Client;
//!
//! let client = Client::builder().agent("ExampleBot").build()?;
//! match client.fetch("https://example.com/docs/start").await {
//!     Ok(page) => println!("{}", page.content),
//!     Err(error) if error.is_policy() => eprintln!("robots.txt refuses {}", error.url()),
//!     Err(error) => return Err(error.into()),
//! }
//! # Ok(()) }
//! ```
//!
//! # Features
//!
//! - `redis`: the Redis/Valkey store for fleets (`CacheSetting::Redis`,
//!   `store::RedisStore`): one robots.txt fetch per origin and per-host
//!   pacing across processes.
//! - `openapi`: OpenAPI schemas (utoipa `ToSchema`) of the result and error
//!   types, and of [`agent::ProductToken`].

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod agent;
pub mod bot_auth;
pub mod browser;
pub mod charset;
mod client;
mod clock;
mod conversion;
pub mod error;
mod fetch_options;
mod hint_cache;
mod http;
pub mod json_schema;
pub mod link_check;
mod llms_hint;
pub mod markdown;
mod option_error;
pub mod options;
mod os_limits;
mod pacing;
mod page;
mod page_record;
pub mod payment;
pub mod pdf;
mod polite;
mod robots_cache;
mod robots_fetch;
mod rsl_cache;
mod single_flight;
pub mod sitemap_discovery;
mod sockets;
pub mod ssrf;
pub mod store;
pub mod warning;
pub mod web_url;

pub use client::{
    Alternative, AlternativeSource, BuildError, CHECK_MANY_ORIGINS_AT_ONCE, CacheSetting, CheckOutcome, Client,
    ClientBuilder, DEFAULT_AGENT, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT, FetchResult, RawResponse, RedirectHop,
    RobotsCheck, SkipReason, Timings,
};
pub use clock::Clock;
pub use fetch_options::{DEFAULT_MAX_BYTES, FetchOptions, FetchOverrides, MAX_REQUEST_BYTES};
pub use llms_hint::{LLMS_ACCEPT, LLMS_MAX_BYTES, LLMS_MEMORY_BYTES, MAX_NESTED_LEVELS, llms_txt_url};
pub use os_limits::{is_local_exhaustion, local_exhaustion_in, open_file_limit};
pub use pacing::{DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MIN_INTERVAL, PacingConfig};
pub use page_record::{ContentHash, NotFetchedReason, PageRecord};
pub use polite::{MAX_IN_FLIGHT, run_polite};
pub use robots_cache::{
    CacheStats, CachedRobots, DEFAULT_FLEET_LOCK_TTL, DEFAULT_MEMORY_BYTES, FetchedRobots, LAST_GOOD_MAX_AGE,
    MAX_CACHE_SECONDS, RobotsCacheConfig,
};
pub use sitemap_discovery::{DiscoveryConfig, DiscoveryEvent, DiscoverySummary};
pub use webcanon_extract::html::Metadata;
