//! `crawl`: a site read breadth first, one page record per URL, as a job
//! read a page per call. Every request goes through the server's client:
//! its robots mode and SSRF guard, which no argument loosens.

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use webcanon_client::FetchOverrides;
use webcanon_client::agent::ProductToken;
use webcanon_client::web_url::WebUrl;
use webcanon_crawl::{
    CrawlConfig, CrawlLimits, CrawlLimitsRequest, Crawler, MAX_CRAWL_STARTS, Scope, SeedSources, crawl_stream,
};

use super::job_pages::{self, page_size};
use super::{Answer, COUNT_RANGE, Shared, count_failure, scope_config};
use crate::Initiator;
use crate::continuation::JobTool;
use crate::refusal::Failure;

/// The name of a crawl's frontier file in its job's folder.
const FRONTIER_FILE: &str = "frontier.sqlite";

/// Where a crawl starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SeedArg {
    /// The start URLs themselves.
    Start,
    /// The URLs the start sites' sitemaps list.
    Sitemap,
    /// The links of the start sites' llms.txt.
    Llms,
}

/// Arguments of the `crawl` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CrawlArgs {
    /// The http(s) start URLs (at most 100); their sites are the crawl's scope. Required unless `continuation` is given.
    #[serde(default)]
    pub urls: Option<Vec<WebUrl>>,
    /// The robots.txt product token to crawl as (e.g. `GPTBot`); omit it for the server's own agent.
    #[serde(default, deserialize_with = "crate::arguments::optional_agent")]
    pub agent: Option<ProductToken>,
    /// Which URLs are followed: `origin` (default: the start URLs' scheme, host and port), `domain` (their registrable domains) or `prefix` (their origins under each start URL's folder).
    #[serde(default)]
    #[schemars(schema_with = "crate::arguments::scope_schema")]
    pub scope: Option<Scope>,
    /// Only URLs whose path matches one of these robots.txt patterns (`/docs/`, `/*.html$`; at most 100 patterns with `exclude`).
    #[serde(default)]
    pub include: Vec<String>,
    /// URLs whose path matches one of these robots.txt patterns are not followed.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Where the crawl starts (default all three): `start` (the URLs given), `sitemap`, `llms`.
    #[serde(default)]
    pub seeds: Option<Vec<SeedArg>>,
    /// The deepest link depth followed (start URLs are 0).
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// The most pages requested, all calls together (default and most: the server's per-job limit of records).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_pages: Option<u64>,
    /// The most pages requested from one host.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_pages_per_host: Option<u64>,
    /// The most records this call returns (default 50, at most 500; a call also stops at 256 KiB of records).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub page_size: Option<usize>,
    /// The `continuation` of the previous result, to read the next records of the same crawl (the other arguments but `page_size` are then not read).
    #[serde(default)]
    pub continuation: Option<String>,
    /// What this crawl changes of the server's fetch options, as in `fetch`.
    #[serde(flatten)]
    pub options: FetchOverrides,
}

/// Runs the `crawl` tool: the next page of a crawl, or the first of a new one.
pub(crate) async fn run(shared: &Shared, args: CrawlArgs) -> Result<Answer, Failure> {
    let page_size = page_size(args.page_size)?;
    if let Some(token) = &args.continuation {
        return job_pages::resume(shared, JobTool::Crawl, token, page_size).await;
    }
    let urls = args.urls.unwrap_or_default();
    if urls.is_empty() {
        return Err(Failure::usage("give `urls` to start a crawl, or `continuation` to read on", None));
    }
    if urls.len() > MAX_CRAWL_STARTS {
        return Err(Failure::usage(
            format!("{} start URLs given; a crawl takes at most {MAX_CRAWL_STARTS}", urls.len()),
            None,
        ));
    }
    // The job's records are at least one per page: its limit of records
    // is the server's, which bounds the crawl's pages, with room for the
    // URLs it records unfetched.
    let max_records = shared.jobs()?.ceiling().max_records;
    let asked = CrawlLimitsRequest {
        max_pages: args.max_pages,
        max_total_bytes: None,
        max_pages_per_host: args.max_pages_per_host,
    };
    let mut limits = CrawlLimits::for_job(asked, max_records, COUNT_RANGE).map_err(count_failure)?;
    // A call's records are read a page at a time by the model: URLs from a
    // sitemap past the pages the crawl may request, which could never be
    // fetched, are not taken to be recorded as `limit` either.
    let max_pages = limits.max_pages.unwrap_or(max_records);
    limits.max_sitemap_urls = limits.max_sitemap_urls.min(usize::try_from(max_pages).unwrap_or(usize::MAX));
    let client = shared.client_for(args.agent.as_ref(), Initiator::Autonomous)?;
    let options = client.fetch_options().with(&args.options).map_err(|e| Failure::usage(e.message(e.option), None))?;
    let scope = scope_config(args.scope.unwrap_or_default(), args.include, args.exclude, args.max_depth)?;
    let seeds = args.seeds.map_or_else(SeedSources::default, |named| SeedSources {
        start: named.contains(&SeedArg::Start),
        sitemap: named.contains(&SeedArg::Sitemap),
        llms: named.contains(&SeedArg::Llms),
    });
    let config = CrawlConfig { scope, seeds, limits, pacing: client.pacing(), ..CrawlConfig::default() };
    // The start URLs are vetted now, so that a refused site is this call's
    // error rather than a failed job.
    let texts: Vec<String> = urls.iter().map(|url| url.as_str().to_string()).collect();
    for (outcome, url) in client.check_many(&texts).await.into_iter().zip(&texts) {
        outcome.map_err(|e| Failure::from_client(&e, url, client.agent()))?;
    }
    let starts = urls.into_iter().map(WebUrl::into_url).collect();
    let crawler = Crawler::new(client, options, config);
    job_pages::start(shared, JobTool::Crawl, "not_fetched", None, page_size, move |folder| {
        crawl_stream(crawler, starts, folder.join(FRONTIER_FILE)).map(|item| match item {
            Ok(record) => Ok(serde_json::to_value(record).unwrap_or_default()),
            Err(error) => Err(webcanon_jobs::JobFailure(
                Failure::server("fetch", format!("The crawl stopped: {error}.")).structured(),
            )),
        })
    })
    .await
}
