//! What the tools do, apart from the protocol: arguments in, an [`Answer`]
//! or a [`Failure`] out. `server.rs` turns both into MCP results.

pub(crate) mod audit;
pub(crate) mod check;
pub(crate) mod crawl;
pub(crate) mod fetch;
mod job_pages;
pub(crate) mod llms;
pub(crate) mod map;
pub(crate) mod sitemap;

use std::sync::Mutex;

use webcanon_crawl::{CountError, CountRange, Scope, ScopeConfig};
use webcanon_jobs::{Jobs, JobsConfig};

use webcanon_client::{BuildError, Client};

use webcanon_client::agent::ProductToken;

use crate::identity::{Identity, Initiator};
use crate::page_cache::{PAGE_TTL, PageCache};
use crate::refusal::Failure;

/// A successful tool result.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// The header the model reads first: what was asked, what was found.
    pub header: String,
    /// The site's own content, returned apart from the header, if any.
    pub content: Option<String>,
    /// The same facts for programs (`structuredContent`).
    pub structured: serde_json::Value,
}

impl Answer {
    /// An answer of `header` and `content` with `structured` serialised.
    pub fn new(header: String, content: Option<String>, structured: &impl serde::Serialize) -> Answer {
        Answer { header, content, structured: serde_json::to_value(structured).unwrap_or_default() }
    }
}

/// What every tool call shares: the clients (one cache, one guard, one set
/// of connections) and the page cache.
#[derive(Debug)]
pub(crate) struct Shared {
    base: Client,
    identity: Identity,
    autonomous: Client,
    user_initiated: Client,
    /// Pages fetched by the `fetch` tool, kept briefly for paging.
    pub pages: PageCache<crate::output::PageMeta>,
    /// What `sitemap_urls` discovered per origin, kept briefly for paging.
    pub sitemaps: crate::sitemap_cache::SitemapCache,
    /// The map and crawl jobs: given by
    /// [`WebcanonMcp::with_jobs`](crate::WebcanonMcp::with_jobs), or a
    /// registry with the default settings made at the first job.
    jobs: Mutex<Option<Jobs>>,
    /// The continuation tokens of `map` and `crawl`.
    pub continuations: crate::continuation::Continuations,
}

impl Shared {
    /// The shared state over `base`, with the identity's two `User-Agent`s
    /// for the client's own product token.
    pub fn new(base: Client, identity: Identity) -> Result<Shared, BuildError> {
        let token = base.product_token().clone();
        let autonomous = base.with_agent(&token, Some(&identity.user_agent(&token, Initiator::Autonomous)))?;
        let user_initiated = base.with_agent(&token, Some(&identity.user_agent(&token, Initiator::UserInitiated)))?;
        Ok(Shared {
            base,
            identity,
            autonomous,
            user_initiated,
            pages: PageCache::new(PAGE_TTL),
            sitemaps: crate::sitemap_cache::SitemapCache::new(),
            jobs: Mutex::new(None),
            continuations: crate::continuation::Continuations::new(),
        })
    }

    /// Makes `jobs` the registry of the map and crawl jobs.
    pub fn set_jobs(&self, jobs: Jobs) {
        *self.jobs.lock().unwrap_or_else(|p| p.into_inner()) = Some(jobs);
    }

    /// The registry of the map and crawl jobs (one with the default
    /// settings, in a temporary folder, when none was given).
    pub fn jobs(&self) -> Result<Jobs, Failure> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(jobs) = jobs.as_ref() {
            return Ok(jobs.clone());
        }
        let made = Jobs::new(JobsConfig::default())
            .map_err(|e| Failure::server("fetch", format!("The server's job store cannot be made: {e}.")))?;
        *jobs = Some(made.clone());
        Ok(made)
    }

    /// The client for a call: the server's own agent when `agent` is absent
    /// (a blank one reads as absent: [`optional_agent`](crate::arguments::optional_agent)),
    /// else that product token (same caches and connections),
    /// with the `User-Agent` of `initiator`.
    pub fn client_for(&self, agent: Option<&ProductToken>, initiator: Initiator) -> Result<Client, Failure> {
        match agent {
            None => Ok(match initiator {
                Initiator::Autonomous => self.autonomous.clone(),
                Initiator::UserInitiated => self.user_initiated.clone(),
            }),
            Some(token) => self
                .base
                .with_agent(token, Some(&self.identity.user_agent(token, initiator)))
                .map_err(|e| Failure::usage(e.to_string(), None)),
        }
    }

    /// The robots mode of the server's client.
    pub fn mode(&self) -> webcanon_core::policy::RobotsMode {
        self.base.mode()
    }
}

/// Reads a `url` argument as an absolute http(s) URL.
pub(crate) fn parse_http_url(input: &str) -> Result<url::Url, Failure> {
    webcanon_client::web_url::parse(input.trim())
        .map_err(|e| Failure::usage(format!("invalid URL `{input}`: {e}"), Some(input)))
}

/// The counts and depths a `map` or `crawl` call may give: every one its
/// input schema declares (unsigned 64- and 32-bit integers).
pub(crate) const COUNT_RANGE: CountRange = CountRange::UNSIGNED;

/// The scope of a `map` or `crawl` call, checked as every service's
/// request scope is ([`ScopeConfig::validate_request`]).
pub(crate) fn scope_config(
    scope: Scope,
    include: Vec<String>,
    exclude: Vec<String>,
    max_depth: Option<u32>,
) -> Result<ScopeConfig, Failure> {
    let config = ScopeConfig { scope, include, exclude, max_depth };
    config.validate_request(COUNT_RANGE).map_err(|e| Failure::usage(e.to_string(), None))?;
    Ok(config)
}

/// A count a call asked for that cannot be taken, as a usage failure.
pub(crate) fn count_failure(error: CountError) -> Failure {
    Failure::usage(error.to_string(), None)
}
