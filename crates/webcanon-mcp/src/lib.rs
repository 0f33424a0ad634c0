//! The MCP server of webcanon: policy-correct retrieval as tools for AI agents.
//!
//! [`WebcanonMcp`] serves the [Model Context Protocol](https://modelcontextprotocol.io)
//! through the official Rust SDK, `rmcp` (this crate is the only place its
//! types appear). It is built from a [`webcanon_client::Client`], so every
//! face of webcanon — the command line, the HTTP service, this server — can
//! share one client: one robots.txt cache, one SSRF guard, one set of
//! connections.
//!
//! Tools (each takes the target as `url`, `crawl` its start URLs as
//! `urls`, and an optional `agent` product token):
//!
//! | tool | what it returns |
//! |---|---|
//! | `fetch` | a page as Markdown (or `raw`), paged by characters, after a header naming the URL used, the robots verdict and the warnings |
//! | `check_url` | the robots.txt verdict, recommendation and matched rule, without fetching the page |
//! | `llms_txt` | a site's llms.txt, parsed: title, summary, sections with links, optional links |
//! | `sitemap_urls` | URLs found in the site's sitemaps, with lastmod, paged |
//! | `audit_site` | the audit summary of an origin: score, checks, top findings with fixes |
//! | `map` | a site's URLs with their robots verdicts, a page of records per call with a continuation token |
//! | `crawl` | a site crawled breadth first, a page of page records per call with a continuation token |
//!
//! and one prompt, `fetch`, for pages the user asks for.
//!
//! Refusals (robots.txt, SSRF guard) and invalid arguments are tool results
//! with `isError: true` that say why, quoting only the matched robots.txt
//! rule. Page text is returned as content, in its own content item, never
//! as instructions.
//!
//! `map` and `crawl` run as jobs in a [`webcanon_jobs::Jobs`] registry
//! ([`WebcanonMcp::with_jobs`]): the work goes on between calls, its
//! records wait on disk, and each call reads a bounded page of them with
//! an opaque continuation token for the next (see DESIGN.md).
//!
//! Transports: [`serve_stdio`] (one client on standard input and output) and
//! [`http_router`], the streamable HTTP endpoint at `/mcp` as an axum
//! [`Router`](axum::Router) that another service can merge into its own.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use webcanon_mcp::{Identity, WebcanonMcp, serve_stdio};
//!
//! let client = webcanon_client::Client::builder().agent("webcanon").build()?;
//! let server = WebcanonMcp::new(client, Identity::default())?;
//! serve_stdio(server).await?;
//! # Ok(())
//! # }
//! ```

mod arguments;
mod continuation;
mod identity;
mod output;
mod page_cache;
mod paging;
mod refusal;
mod server;
mod sitemap_cache;
mod text;
mod tools;
mod transport;
mod ttl_cache;

pub use continuation::{MAX_TOKENS, TOKEN_TTL};
pub use identity::{Identity, Initiator};
pub use server::{MAX_FETCH_LENGTH, MAX_SITEMAP_LIMIT, WebcanonMcp};
pub use transport::{
    DEFAULT_MAX_SESSIONS, HttpOptions, MAX_REQUEST_BODY_BYTES, MCP_PATH, ServeError, http_router, serve_stdio,
};
pub use webcanon_client::agent::{InvalidAgent, ProductToken};
