//! [`Client`]: fetch a URL for an LLM the way the site owner asked.

mod alternative;
mod batch;
mod builder;
mod handle;
mod licenses;
mod results;

use std::sync::Arc;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_core::policy::{PolicyError, RobotsEvidence, RobotsMode};

use self::alternative::{Admission, Candidate, Taken};
pub use self::batch::{CHECK_MANY_ORIGINS_AT_ONCE, CheckOutcome};
use self::builder::user_agent_header;
pub use self::builder::{
    BuildError, CacheSetting, ClientBuilder, DEFAULT_AGENT, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT,
};
pub use self::handle::Client;
use self::handle::Inner;
pub use self::results::{
    Alternative, AlternativeSource, FetchResult, RawResponse, RedirectHop, RobotsCheck, SkipReason, Timings,
};
use crate::agent::ProductToken;
use crate::browser::{MainDocument, PageFetcher, RenderMode, RenderReport};
use crate::error::{Error, FetchError};
use crate::fetch_options::FetchOptions;
use crate::http::{Answer, Http, Pace, Pacing};
use crate::markdown::{Comments, ContentFormat, ContentShape, ImageStyle, LinkStyle};
use crate::page;
use crate::robots_cache::{CacheStats, CachedRobots};
use crate::robots_fetch::{fetch_robots, robots_url};
use crate::store::StoreHealth;
use crate::warning::{Warning, WarningCode, WarningSource};
use crate::web_url::IntoWebUrl;

/// Adds `more` to `warnings`, leaving out those already there.
fn merge_warnings(warnings: &mut Vec<Warning>, more: Vec<Warning>) {
    for warning in more {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
}

/// Whether the URL already names a Markdown or text file, so no copy of it
/// is looked for.
fn names_markdown(url: &Url) -> bool {
    let path = url.path().to_ascii_lowercase();
    [".md", ".markdown", ".txt"].iter().any(|ext| path.ends_with(ext))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Client {
    /// A builder with the defaults: agent `webcanon`, mode `respect`, 20 s
    /// timeout, 10 MiB body limit, robots cache in memory, SSRF guard on.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The agent's product token.
    pub fn agent(&self) -> &str {
        self.inner.agent.as_str()
    }

    /// The agent's product token, as the type that guarantees it.
    pub fn product_token(&self) -> &ProductToken {
        &self.inner.agent
    }

    /// A client for another agent on the same connections, SSRF guard,
    /// robots.txt and llms.txt caches (and so the same counters): only the
    /// product token matched against robots.txt changes, and with it the
    /// `User-Agent` header, unless one was set on the builder (then that one
    /// is kept) or `user_agent` is given here.
    ///
    /// Services answering for several agents use this to keep one cache.
    ///
    /// ```
    /// # fn main() -> Result<(), webcanon_client::BuildError> {
    /// let client = webcanon_client::Client::builder().agent("webcanon").build()?;
    /// let gptbot = client.with_agent(&"GPTBot".parse()?, None)?;
    /// assert_eq!(gptbot.agent(), "GPTBot");
    /// assert_eq!(client.agent(), "webcanon");
    /// # Ok(()) }
    /// ```
    pub fn with_agent(&self, agent: &ProductToken, user_agent: Option<&str>) -> Result<Client, BuildError> {
        let inner = &self.inner;
        let explicit = user_agent.map(str::to_string).or_else(|| inner.explicit_user_agent.clone());
        let header = user_agent_header(agent, explicit.as_deref())?;
        Ok(Client {
            inner: Arc::new(Inner {
                http: Http {
                    user_agent: header,
                    pacing: Pacing { agent: agent.as_str().into(), ..inner.http.pacing.clone() },
                    ..inner.http.clone()
                },
                cache: inner.cache.clone(),
                llms: inner.llms.clone(),
                licenses: inner.licenses.clone(),
                explicit_user_agent: explicit,
                fetch: inner.fetch,
                renderer: inner.renderer.clone(),
                agent: agent.clone(),
                mode: inner.mode,
                max_redirects: inner.max_redirects,
                auth_disallows: inner.auth_disallows,
                pdf_worker: inner.pdf_worker.clone(),
            }),
        })
    }

    /// The options of [`Client::fetch`]: what a request's
    /// [`FetchOverrides`](crate::FetchOverrides) apply to
    /// ([`FetchOptions::with`]).
    pub fn fetch_options(&self) -> &FetchOptions {
        &self.inner.fetch
    }

    /// The robots mode.
    pub fn mode(&self) -> RobotsMode {
        self.inner.mode
    }

    /// The per-host pacing the client was built with (a crawl schedules
    /// hosts by it).
    pub fn pacing(&self) -> crate::PacingConfig {
        self.inner.http.pacing.pacer.config()
    }

    /// Cache counters (hits, misses, robots fetches).
    pub fn cache_stats(&self) -> CacheStats {
        self.inner.cache.stats()
    }

    /// How the robots store is doing: a shared store whose server does not
    /// answer reports the outage here (and as a `shared_cache_unavailable`
    /// warning on results).
    pub fn cache_health(&self) -> StoreHealth {
        self.inner.cache.store_health()
    }

    fn parse_url(input: impl IntoWebUrl) -> Result<Url, Error> {
        Ok(input.into_web_url()?.into_url())
    }

    /// The robots verdict for `url` and this client's agent, with its
    /// evidence and warnings, without fetching the page. robots.txt is
    /// loaded through the cache; the SSRF guard applies to it.
    pub async fn check(&self, url: impl IntoWebUrl) -> Result<RobotsCheck, Error> {
        let url = Self::parse_url(url)?;
        self.vet(&url).await?;
        let (robots, warnings) = self.robots_for(&url).await?;
        Ok(RobotsCheck { robots, warnings })
    }

    /// Vets `url` before anything is requested for it: the URL itself, and
    /// for a name, its addresses. The connection later resolves through the
    /// same guard, so whatever it gets is vetted again; this early look only
    /// makes a refusal an SSRF error rather than an unreachable robots.txt.
    /// A name that does not resolve passes: nothing is refused, and
    /// robots.txt is then unreachable (RFC 9309), as for a host that does
    /// not answer.
    async fn vet(&self, url: &Url) -> Result<(), Error> {
        let guard = &self.inner.http.guard;
        guard.check_url(url).map_err(Error::Ssrf)?;
        if let Some(url::Host::Domain(name)) = url.host() {
            match guard.resolve(name, url.port_or_known_default()).await {
                Err(refused) if !refused.is_lookup_failure() => return Err(Error::Ssrf(refused)),
                _ => {}
            }
        }
        Ok(())
    }

    /// The robots.txt outcome of the origin of `url` for this client's
    /// agent, loaded through the cache (the SSRF guard applies): its record
    /// (status, availability, body) and parsed rules, `Sitemap:` lines
    /// included. Under [`RobotsMode::Ignore`] it is still loaded, since the
    /// caller asked for the file itself.
    pub async fn robots_txt(&self, url: impl IntoWebUrl) -> Result<Arc<CachedRobots>, Error> {
        let url = Self::parse_url(url)?;
        self.vet(&url).await?;
        let inner = &self.inner;
        let origin = url.origin().ascii_serialization();
        let robots_url = robots_url(&url);
        let (cached, _) =
            inner.cache.get(&origin, || fetch_robots(&inner.http, &robots_url, inner.auth_disallows)).await;
        if let Some(err) = cached.local_failure() {
            return Err(Error::Fetch(err));
        }
        Ok(cached)
    }

    /// The llms.txt that `url` means (the file named, a directory's own
    /// llms.txt, or the site's for a page: see
    /// [`llms_txt_url`](crate::llms_hint::llms_txt_url)), requested like
    /// [`Client::get`] with the llms.txt `Accept` header and read up to one
    /// byte past the parser's limit, so an over-long file shows as one. The
    /// answer is raw (an HTTP error status included), for the caller to
    /// parse with [`LlmsTxt`](webcanon_core::llms::LlmsTxt).
    pub async fn llms_txt(&self, url: impl IntoWebUrl) -> Result<RawResponse, Error> {
        let file = crate::llms_hint::llms_txt_url(&Self::parse_url(url)?);
        self.get(&file, crate::llms_hint::LLMS_ACCEPT, webcanon_core::llms::MAX_PARSE_BYTES + 1).await
    }

    /// One guarded GET without conversion: the URL vetted by the SSRF guard
    /// and admitted by robots.txt (refused with [`Error::Policy`] under
    /// [`RobotsMode::Respect`]), redirects followed by the client's own loop
    /// with every hop vetted and admitted, the body read up to `max_bytes`
    /// (after decompression). An HTTP error status is an answer, not an
    /// error: the caller decides what it means.
    pub async fn get(&self, url: impl IntoWebUrl, accept: &str, max_bytes: usize) -> Result<RawResponse, Error> {
        let requested = Self::parse_url(url)?;
        self.vet(&requested).await?;
        let (robots, mut warnings) = self.admit_as(&requested, Admission::Mode).await?;
        let (answer, redirects) =
            self.follow(&requested, accept, max_bytes, Admission::Mode, Pace::Paced, &mut warnings).await?;
        Ok(RawResponse {
            requested_url: requested.to_string(),
            final_url: answer.url.to_string(),
            status: answer.status,
            headers: answer.headers,
            body: answer.body,
            truncated: answer.truncated,
            robots,
            redirects,
            warnings,
        })
    }

    /// The robots verdict for `url`; `Err` only when this machine could not
    /// fetch robots.txt ([`FetchError::Local`]), which is no verdict.
    async fn robots_for(&self, url: &Url) -> Result<(RobotsEvidence, Vec<Warning>), Error> {
        let inner = &self.inner;
        let origin = url.origin().ascii_serialization();
        let robots_url = robots_url(url);
        let (evidence, mut warnings) = inner
            .cache
            .evaluate(&origin, &inner.agent, url.as_str(), inner.mode, || {
                fetch_robots(&inner.http, &robots_url, inner.auth_disallows)
            })
            .await
            .map_err(Error::Fetch)?;
        let pacing = inner.http.pacing.pacer.config();
        if inner.mode != RobotsMode::Ignore
            && let Some(delay) = inner.cache.crawl_delay(&origin, &inner.agent)
            && pacing.is_capped(Some(delay))
        {
            warnings.push(Warning::new(
                WarningCode::CrawlDelayCapped,
                WarningSource::RobotsTxt,
                format!(
                    "robots.txt asks {} for a Crawl-delay of {delay} seconds; requests to {} are spaced {} seconds apart (the cap)",
                    inner.agent,
                    url.host_str().unwrap_or_default(),
                    pacing.max_crawl_delay.as_secs_f64()
                ),
            ));
        }
        if let Some(reason) = inner.cache.store_health().degraded {
            warnings.push(Warning::new(
                WarningCode::SharedCacheUnavailable,
                WarningSource::Cache,
                format!(
                    "{reason}; robots.txt comes from the local cache or the site itself, and single flight and pacing hold within this process only"
                ),
            ));
        }
        Ok((evidence, warnings))
    }

    /// Checks `url` against robots.txt and refuses it when `admission` says so.
    async fn admit_as(&self, url: &Url, admission: Admission) -> Result<(RobotsEvidence, Vec<Warning>), Error> {
        let (evidence, warnings) = self.robots_for(url).await?;
        if admission.blocks(self.inner.mode, evidence.verdict) {
            return Err(PolicyError { url: url.to_string(), evidence }.into());
        }
        Ok((evidence, warnings))
    }

    /// Fetches `url` for an LLM.
    ///
    /// In order: the URL is parsed (http and https only) and vetted by the
    /// SSRF guard; robots.txt of its origin decides (under
    /// [`RobotsMode::Respect`] a disallow or an unreachable robots.txt
    /// refuses with [`Error::Policy`] and nothing is requested); then,
    /// unless [`ClientBuilder::alternatives`] turned it off, the Markdown
    /// copy that the covering llms.txt lists is tried (guarded, and only if
    /// the robots.txt of its own origin permits it); failing that, the page
    /// is fetched, asking for Markdown first, with our own redirect loop,
    /// every hop vetted and checked against its own origin's robots.txt; an
    /// HTML page that names a Markdown copy (`rel="alternate"
    /// type="text/markdown"`, or its llms.txt with `rel="describedby"`) has
    /// that copy tried next; HTML is converted to Markdown; usage signals
    /// become warnings. [`FetchResult::alternatives`] says what was tried.
    ///
    /// The client's own [`FetchOptions`] apply; [`Client::fetch_with`]
    /// takes a request's.
    pub async fn fetch(&self, url: impl IntoWebUrl) -> Result<FetchResult, Error> {
        self.fetch_with(url, &self.inner.fetch).await
    }

    /// [`Client::fetch`] under `options` instead of the client's own: what
    /// a face does with a request's overrides, applied by
    /// [`FetchOptions::with`] to [`Client::fetch_options`].
    ///
    /// The options are one value passed by reference, not a request
    /// builder in reqwest's style: faces receive them whole, deserialised
    /// from a request, so a builder would only add a second way to name
    /// each option (and a type per option set) without checking anything
    /// more.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use webcanon_client::{Client, FetchOverrides};
    ///
    /// let client = Client::builder().build()?;
    /// let overrides: FetchOverrides = serde_json::from_str(r#"{"format": "text"}"#)?;
    /// let options = client.fetch_options().with(&overrides)?;
    /// let page = client.fetch_with("https://example.com/", &options).await?;
    /// println!("{}", page.content);
    /// # Ok(()) }
    /// ```
    pub async fn fetch_with(&self, url: impl IntoWebUrl, options: &FetchOptions) -> Result<FetchResult, Error> {
        let started = Instant::now();
        let requested = Self::parse_url(url)?;
        self.vet(&requested).await?;
        let (robots, mut warnings) = self.admit_as(&requested, Admission::Mode).await?;
        let robots_done = Instant::now();
        let hints = options.alternatives && !names_markdown(&requested);
        let mut alternatives = Vec::new();
        let mut taken = None;
        if hints && let Some(candidate) = self.llms_candidate(&requested).await {
            let (outcome, answer) = self.try_candidate(&candidate, options.max_bytes).await;
            alternatives.push(outcome);
            taken = answer;
        }
        let (mut answer, mut redirects, mut fetched_url) = match taken {
            Some(Taken { answer, redirects, warnings: hint_warnings }) => {
                merge_warnings(&mut warnings, hint_warnings);
                // The HTML page is not requested (that is the point of the
                // copy), so its own signals are unknown: say so rather than
                // let "no warnings" read as "no restrictions".
                warnings.push(Warning::new(
                    WarningCode::PageSignalsNotRead,
                    WarningSource::Fetch,
                    format!(
                        "served from the Markdown copy {} that llms.txt lists; the page {requested} was not \
                         requested, so its own usage signals (meta robots, X-Robots-Tag, TDMRep) were not read",
                        alternatives[0].url
                    ),
                ));
                (answer, redirects, alternatives[0].url.clone())
            }
            None => {
                let accept = if hints { page::ACCEPT_MARKDOWN_FIRST } else { page::ACCEPT };
                let (answer, redirects) = self
                    .follow(&requested, accept, options.max_bytes, Admission::Mode, Pace::Paced, &mut warnings)
                    .await?;
                (answer, redirects, requested.to_string())
            }
        };
        let fetched = Instant::now();
        if answer.status == 402 {
            let price = answer.header(crate::payment::PRICE_HEADER);
            return Err(FetchError::payment_required(answer.url.as_str(), price).into());
        }
        if answer.status >= 400 {
            return Err(FetchError::Status { url: answer.url.to_string(), status: answer.status }.into());
        }
        let mut page = page::convert(&answer, &self.inner.agent, self.inner.pdf_worker.as_deref(), options.comments)
            .await
            .map_err(Error::Fetch)?;
        if hints && alternatives.is_empty() {
            if page::is_markdown(&answer) && answer.header("content-type").is_some_and(|t| t.contains("markdown")) {
                alternatives.push(Alternative {
                    url: answer.url.to_string(),
                    source: AlternativeSource::ContentNegotiation,
                    used: true,
                    skipped_reason: None,
                    detail: Some("the server answered Accept: text/markdown with Markdown".into()),
                    llms_txt: None,
                });
            } else if let Some(candidate) = self.page_candidate(&page, &requested).await {
                let (outcome, alternative) = self.try_candidate(&candidate, options.max_bytes).await;
                alternatives.push(outcome);
                if let Some(Taken { answer: md, redirects: md_redirects, warnings: md_warnings }) = alternative {
                    let md_page =
                        page::convert(&md, &self.inner.agent, self.inner.pdf_worker.as_deref(), options.comments)
                            .await
                            .map_err(Error::Fetch)?;
                    merge_warnings(&mut warnings, md_warnings);
                    // The HTML page's own signals (meta robots, headers) still
                    // describe this content.
                    merge_warnings(&mut page.warnings, md_page.warnings);
                    page.content = md_page.content;
                    fetched_url = candidate.url.to_string();
                    redirects = md_redirects;
                    answer = md;
                }
            }
        }
        let used_alternative = alternatives.iter().any(|a| a.used);
        let mut render = None;
        let mut rendered = false;
        if !used_alternative && page.html && self.wants_render(options.render, &answer, &page) {
            let (report, rendered_page, render_warnings) = self.render(&answer, options.comments).await?;
            if let Some(rendered_page) = rendered_page {
                // The page's own signals (headers, the fetched <head>) still
                // describe it; the rendered DOM may add more.
                let fetched_warnings = std::mem::take(&mut page.warnings);
                page = rendered_page;
                merge_warnings(&mut page.warnings, fetched_warnings);
                rendered = true;
            }
            merge_warnings(&mut warnings, render_warnings);
            render = Some(report);
        }
        if answer.truncated {
            warnings.push(Warning::new(
                WarningCode::BodyTruncated,
                crate::warning::WarningSource::Fetch,
                format!("the body was longer than {} bytes and was cut there", options.max_bytes),
            ));
        }
        merge_warnings(&mut warnings, page.warnings);
        let license_links = page.licenses;
        let links = page.links;
        merge_warnings(&mut warnings, self.license_warnings(&answer.url, &license_links, options.purpose).await);
        let done = Instant::now();
        let alternative = alternatives.iter().find(|a| a.used).or(alternatives.first()).cloned();
        Ok(FetchResult {
            requested_url: requested.to_string(),
            fetched_url,
            final_url: answer.url.to_string(),
            status: answer.status,
            content_type: answer.header("content-type").map(str::to_string),
            title: page.title,
            canonical_url: page.canonical_url,
            content: if page.markdown { options.shape.apply(&page.content) } else { page.content },
            pdf: page.pdf,
            metadata: page.metadata,
            robots,
            alternative,
            alternatives,
            warnings,
            redirects,
            timings: Timings {
                robots_ms: millis(robots_done - started),
                fetch_ms: millis(fetched - robots_done),
                convert_ms: millis(done - fetched),
                total_ms: millis(done - started),
            },
            rendered,
            render,
            body_bytes: answer.body.len() as u64,
            links,
        })
    }

    /// Whether a fetch under `mode` renders `answer` (an HTML page): always
    /// under [`RenderMode::On`], by
    /// [`wants_render`](crate::browser::wants_render) under
    /// [`RenderMode::Auto`].
    fn wants_render(&self, mode: RenderMode, answer: &Answer, page: &page::Page) -> bool {
        match mode {
            RenderMode::Off => false,
            RenderMode::On => true,
            RenderMode::Auto => {
                let plain =
                    ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, images: ImageStyle::Drop }
                        .apply(&page.content);
                crate::browser::wants_render(&answer.body, &plain)
            }
        }
    }

    /// Renders the fetched HTML page `answer` in the browser, every request
    /// it makes decided by this client, and converts the DOM the way a
    /// fetched page is. The page is `None` when the DOM could not be read
    /// (a warning says why).
    async fn render(
        &self,
        answer: &Answer,
        comments: Comments,
    ) -> Result<(RenderReport, Option<page::Page>, Vec<Warning>), Error> {
        let main = MainDocument {
            url: answer.url.clone(),
            status: answer.status,
            headers: answer
                .headers
                .iter()
                .filter_map(|(name, value)| Some((name.as_str().to_string(), value.to_str().ok()?.to_string())))
                .collect(),
            body: answer.body.clone(),
        };
        let outcome = self
            .inner
            .renderer
            .render(self, main)
            .await
            .map_err(|message| FetchError::Render { url: answer.url.to_string(), message })?;
        let Some(html) = outcome.html else { return Ok((outcome.report, None, outcome.warnings)) };
        let mut headers = answer.headers.clone();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("text/html; charset=utf-8"),
        );
        let dom = Answer {
            url: answer.url.clone(),
            status: answer.status,
            headers,
            body: html.into_bytes(),
            truncated: false,
        };
        let page = page::convert(&dom, &self.inner.agent, self.inner.pdf_worker.as_deref(), comments)
            .await
            .map_err(Error::Fetch)?;
        Ok((outcome.report, Some(page), outcome.warnings))
    }

    /// The Markdown copy an HTML page names: its `rel="alternate"
    /// type="text/markdown"` link first, else the copy listed in the llms.txt
    /// it names with `rel="describedby"`.
    async fn page_candidate(&self, page: &page::Page, requested: &Url) -> Option<Candidate> {
        if let Some(url) = page.markdown_alternates.iter().find(|u| *u != requested) {
            return Some(Candidate { url: url.clone(), source: AlternativeSource::LinkAlternate, llms_txt: None });
        }
        for file in page.described_by.iter().take(2) {
            if let Some(candidate) = self.described_candidate(file, requested).await {
                return Some(candidate);
            }
        }
        None
    }

    /// Follows redirects from `start`, each hop vetted by the guard and
    /// admitted by robots.txt of its own origin.
    async fn follow(
        &self,
        start: &Url,
        accept: &str,
        max_bytes: usize,
        admission: Admission,
        pace: Pace,
        warnings: &mut Vec<Warning>,
    ) -> Result<(Answer, Vec<RedirectHop>), Error> {
        let mut url = start.clone();
        let mut redirects = Vec::new();
        loop {
            let answer = self.inner.http.get(&url, accept, max_bytes, pace).await?;
            let next = match answer.location() {
                None => return Ok((answer, redirects)),
                Some(Err(message)) => {
                    return Err(FetchError::BadRedirect { url: url.to_string(), message }.into());
                }
                Some(Ok(next)) => next,
            };
            redirects.push(RedirectHop { url: url.to_string(), status: answer.status });
            if redirects.len() > self.inner.max_redirects {
                return Err(
                    FetchError::TooManyRedirects { url: start.to_string(), limit: self.inner.max_redirects }.into()
                );
            }
            if !matches!(next.scheme(), "http" | "https") {
                return Err(FetchError::BadRedirect {
                    url: url.to_string(),
                    message: format!("redirect to a `{}` URL", next.scheme()),
                }
                .into());
            }
            if url.scheme() == "https" && next.scheme() == "http" {
                warnings.push(Warning::new(
                    WarningCode::InsecureRedirect,
                    crate::warning::WarningSource::Fetch,
                    format!("{url} redirected from https to plain http: {next}"),
                ));
            }
            self.vet(&next).await?;
            let (_, hop_warnings) = self.admit_as(&next, admission).await?;
            merge_warnings(warnings, hop_warnings);
            url = next;
        }
    }
}

impl PageFetcher for Client {
    /// One request of a page being rendered: vetted by the SSRF guard,
    /// admitted by robots.txt of its own origin under the client's mode,
    /// redirects followed by the client's loop (each hop vetted and
    /// admitted), the body read up to `max_bytes`.
    async fn fetch_for_page(&self, url: &Url, max_bytes: usize) -> Result<Answer, Error> {
        self.vet(url).await?;
        self.admit_as(url, Admission::Mode).await?;
        let mut warnings = Vec::new();
        let (answer, _) = self.follow(url, "*/*", max_bytes, Admission::Mode, Pace::Paced, &mut warnings).await?;
        Ok(answer)
    }
}
