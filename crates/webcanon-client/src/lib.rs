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
pub mod clock;
mod conversion;
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
pub mod payment;
pub mod pdf;
pub mod polite;
pub mod robots_cache;
pub mod robots_fetch;
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
    ClientBuilder, DEFAULT_AGENT, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT, FetchOptions, FetchResult,
    RawResponse, RedirectHop, RobotsCheck, SkipReason, Timings,
};
pub use sitemap_discovery::{DiscoveryConfig, DiscoveryEvent, DiscoverySummary};
