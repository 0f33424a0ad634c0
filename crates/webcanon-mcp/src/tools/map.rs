//! `map`: the URLs of a site an agent may fetch, with their robots.txt
//! verdicts, as a job read a page per call.

use futures_util::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use webcanon_client::agent::ProductToken;
use webcanon_client::web_url::WebUrl;
use webcanon_crawl::Scope;
use webcanon_crawl::map::{MapConfig, MapSource, MapSources, map_stream};

use super::job_pages::{self, page_size};
use super::{Answer, COUNT_RANGE, Shared, count_failure, scope_config};
use crate::Initiator;
use crate::continuation::JobTool;
use crate::refusal::Failure;

/// Arguments of the `map` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MapArgs {
    /// Any http(s) URL of the site (its robots.txt, sitemaps and llms.txt are read; the page itself for its links). Required unless `continuation` is given.
    #[serde(default)]
    pub url: Option<WebUrl>,
    /// The robots.txt product token to decide for (e.g. `GPTBot`); omit it for the server's own agent.
    #[serde(default, deserialize_with = "crate::arguments::optional_agent")]
    pub agent: Option<ProductToken>,
    /// Which URLs are kept: `origin` (default: the URL's scheme, host and port), `domain` (its registrable domain) or `prefix` (its origin under its folder).
    #[serde(default)]
    #[schemars(schema_with = "crate::arguments::scope_schema")]
    pub scope: Option<Scope>,
    /// Only URLs whose path matches one of these robots.txt patterns (`/docs/`, `/*.html$`; at most 100 patterns with `exclude`).
    #[serde(default)]
    pub include: Vec<String>,
    /// URLs whose path matches one of these robots.txt patterns are left out.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The sources read (default all three): `sitemap`, `llms_txt`, `link` (the links of the page at `url`).
    #[serde(default)]
    #[schemars(schema_with = "crate::arguments::map_sources_schema")]
    pub sources: Option<Vec<MapSource>>,
    /// The most URLs the map reports, all calls together (default and most: the server's per-job limit).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_urls: Option<u64>,
    /// The most records this call returns (default 50, at most 500; a call also stops at 256 KiB of records).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub page_size: Option<usize>,
    /// The `continuation` of the previous result, to read the next records of the same map (the other arguments but `page_size` are then not read).
    #[serde(default)]
    pub continuation: Option<String>,
}

/// Runs the `map` tool: the next page of a map, or the first of a new one.
pub(crate) async fn run(shared: &Shared, args: MapArgs) -> Result<Answer, Failure> {
    let page_size = page_size(args.page_size)?;
    if let Some(token) = &args.continuation {
        return job_pages::resume(shared, JobTool::Map, token, page_size).await;
    }
    let Some(url) = args.url else {
        return Err(Failure::usage("give `url` to start a map, or `continuation` to read on", None));
    };
    let ceiling = shared.jobs()?.ceiling().max_records;
    let max_urls =
        webcanon_crawl::count_within("max_urls", args.max_urls, ceiling, COUNT_RANGE).map_err(count_failure)?;
    let client = shared.client_for(args.agent.as_ref(), Initiator::Autonomous)?;
    let scope = scope_config(args.scope.unwrap_or_default(), args.include, args.exclude, None)?;
    let sources = args.sources.map_or_else(MapSources::default, |named| MapSources {
        sitemaps: named.contains(&MapSource::Sitemap),
        llms_txt: named.contains(&MapSource::LlmsTxt),
        links: named.contains(&MapSource::Link),
    });
    let config = MapConfig {
        scope,
        sources,
        // One URL past the limit, so that the job tells a map cut at its
        // limit from one that ended there.
        max_urls: usize::try_from(max_urls.saturating_add(1)).unwrap_or(usize::MAX),
        max_links: webcanon_crawl::map::MAX_REQUEST_LINKS,
        ..MapConfig::default()
    };
    // The site is vetted now, so that a refused site is this call's error.
    client.check(&url).await.map_err(|e| Failure::from_client(&e, url.as_str(), client.agent()))?;
    let site = url.as_str().to_string();
    job_pages::start(shared, JobTool::Map, "verdict", Some(max_urls), page_size, move |_| {
        map_stream(client, url.into_url(), config).map(move |item| match item {
            Ok(record) => Ok(serde_json::to_value(record).unwrap_or_default()),
            Err(error) => Err(webcanon_jobs::JobFailure(
                Failure::other("fetch", format!("The map stopped: {error}."), &site).structured(),
            )),
        })
    })
    .await
}
