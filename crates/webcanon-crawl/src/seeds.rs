//! Where a crawl starts: its start URLs and, by default, the URLs the
//! sites list for crawlers and agents (their sitemaps and llms.txt).

use std::ops::ControlFlow;

use url::Url;
use webcanon_client::{Client, DiscoveryConfig, DiscoveryEvent};

/// Which sources seed a crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedSources {
    /// The start URLs themselves.
    pub start: bool,
    /// The URLs the start sites' sitemaps list (robots.txt `Sitemap:`
    /// lines and `/sitemap.xml`, indexes followed).
    pub sitemap: bool,
    /// The links of the start sites' llms.txt.
    pub llms: bool,
}

impl Default for SeedSources {
    fn default() -> Self {
        SeedSources { start: true, sitemap: true, llms: true }
    }
}

impl SeedSources {
    /// The sources named in `list` (`start`, `sitemap`, `llms`; comma
    /// separated), and no other.
    ///
    /// ```
    /// use webcanon_crawl::SeedSources;
    /// let only = SeedSources::parse("start,llms")?;
    /// assert!(only.start && only.llms && !only.sitemap);
    /// # Ok::<(), String>(())
    /// ```
    pub fn parse(list: &str) -> Result<SeedSources, String> {
        let mut sources = SeedSources { start: false, sitemap: false, llms: false };
        for name in list.split(',').map(str::trim) {
            match name {
                "start" => sources.start = true,
                "sitemap" => sources.sitemap = true,
                "llms" => sources.llms = true,
                _ => return Err(format!("unknown seed source `{name}` (expected start, sitemap or llms)")),
            }
        }
        Ok(sources)
    }
}

/// Where a seed came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedSource {
    /// A start URL.
    Start,
    /// A sitemap's entry.
    Sitemap,
    /// A link of an llms.txt.
    LlmsTxt,
}

/// A URL a crawl starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The URL, as given or listed.
    pub url: String,
    /// 0 for a start URL, 1 for a URL its site lists.
    pub depth: u32,
    /// The sitemap or llms.txt that listed it.
    pub listed_in: Option<String>,
}

/// The seeds of one start URL from `sources`, in order: the URL itself,
/// what its site's sitemaps list, then its llms.txt's links, at most
/// `max_listed` of each.
pub async fn seeds_of(client: &Client, start: &Url, sources: SeedSources, max_listed: usize) -> Vec<Seed> {
    let mut seeds = Vec::new();
    if sources.start {
        seeds.push(Seed { url: start.to_string(), depth: 0, listed_in: None });
    }
    if sources.sitemap {
        let listed = sitemap_urls(client, start, max_listed).await;
        seeds.extend(listed.into_iter().map(|(url, sitemap)| Seed { url, depth: 1, listed_in: Some(sitemap) }));
    }
    if sources.llms {
        let file = webcanon_client::llms_txt_url(start).to_string();
        let listed = llms_urls(client, start, max_listed).await;
        seeds.extend(listed.into_iter().map(|url| Seed { url, depth: 1, listed_in: Some(file.clone()) }));
    }
    seeds
}

/// The URLs the sitemaps of `site` list, at most `max_urls`, each with
/// the sitemap that listed it. Sitemap failures are not errors: a site
/// without sitemaps gives none.
pub async fn sitemap_urls(client: &Client, site: &Url, max_urls: usize) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let config = DiscoveryConfig::default().max_urls(max_urls);
    let _ = client
        .discover_sitemaps(site.as_str(), &config, |event| {
            if let DiscoveryEvent::UrlFound(url) = event {
                found.push((url.url, url.sitemap));
            }
            ControlFlow::Continue(())
        })
        .await;
    found
}

/// The links of the llms.txt of `site`, resolved against the file, at
/// most `max_urls`. A missing or refused llms.txt gives none. The file is
/// read through the client's llms.txt cache, which the Markdown copies of
/// the crawl's pages are looked for in too: one request for both.
pub async fn llms_urls(client: &Client, site: &Url, max_urls: usize) -> Vec<String> {
    let file = webcanon_client::llms_txt_url(site);
    client.llms_txt_links(&file).await.into_iter().take(max_urls).map(String::from).collect()
}
