//! The standards core of webcanon: bytes in, values and diagnostics out.
//!
//! This crate implements the formats that tell crawlers and AI agents what
//! they may fetch and how they may use it, with no I/O, no async and no
//! logging. Fetching, caching and timeouts are left to the caller (the
//! `webcanon-client` crate does them for the product).
//!
//! - [`robots`]: the Robots Exclusion Protocol (RFC 9309): a lenient parser
//!   that keeps every record with its line number, a matcher that returns the
//!   verdict together with the rule that decided it, and a linter.
//! - [`agents`]: the known-agents registry (token, operator, category).
//! - [`policy`]: the verdict, the fetch recommendation and the robots
//!   modes that turn a robots.txt outcome into a decision to fetch or not.
//! - [`sniff`]: the one look that tells an HTML page served in place of a
//!   robots.txt, llms.txt, sitemap or Markdown file.
//! - [`signals`]: page-level usage signals (meta robots, `X-Robots-Tag`,
//!   TDMRep, `Content-Usage`, `Content-Signal`), which warn but never block.
//! - [`rsl`]: Really Simple Licensing 1.0 documents, matched to a URL and
//!   a declared use; usage terms, never a fetch block.
//!
//! # Example
//!
//! ```
//! use webcanon_core::robots::{MatchVerdict, Robots};
//!
//! let robots = Robots::parse(b"User-agent: *\nDisallow: /private\nAllow: /private/open\n");
//! let decision = robots.decide("ExampleBot", "https://example.com/private/page");
//! assert_eq!(decision.verdict, MatchVerdict::DisallowedExplicit);
//! assert_eq!(decision.rule.unwrap().line, 2);
//!
//! // Parse once, then decide many URLs fast for one agent.
//! let rules = robots.rules_for("ExampleBot");
//! assert!(rules.decide("/private/open/doc").is_allowed());
//! assert!(rules.decide("/public").is_allowed());
//! ```
//!
//! # Features
//!
//! - `serde`: `Serialize`/`Deserialize` for the public value types.
//! - `openapi`: OpenAPI schemas (utoipa `ToSchema`) of the serialisable
//!   result types (implies `serde`).

pub mod agents;
pub mod ai_txt;
mod codes;
pub mod llms;
pub mod policy;
pub mod robots;
pub mod rsl;
pub mod signals;
pub mod sitemap;
pub mod sniff;
mod xml;
