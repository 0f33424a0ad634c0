//! The retrieval layer of webcanon: everything that touches the network.
//!
//! This crate fetches pages for LLM agents the way the site owner asked: the
//! SSRF guard vets every address before a connection is made, robots.txt is
//! evaluated (and cached) before every request, and HTML is converted to
//! Markdown with hard caps on hostile input.

pub mod agent;
mod client;
pub mod clock;
pub mod error;
mod http;
pub mod json_schema;
pub mod link_check;
pub mod llms_hint;
pub mod markdown;
pub mod options;
pub mod os_limits;
pub mod pacing;
mod page;
pub mod robots_cache;
pub mod robots_fetch;
mod single_flight;
pub mod sitemap_discovery;
mod sockets;
pub mod ssrf;
pub mod store;
pub mod warning;
pub mod web_url;

pub use client::{
    Alternative, AlternativeSource, BuildError, CHECK_MANY_ORIGINS_AT_ONCE, CacheSetting, CheckOutcome, Client,
    ClientBuilder, DEFAULT_AGENT, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT, FetchResult, RawResponse,
    RedirectHop, SkipReason, Timings,
};
pub use sitemap_discovery::{DiscoveryConfig, DiscoveryEvent, DiscoverySummary};
