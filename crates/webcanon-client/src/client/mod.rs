//! [`Client`]: fetch a URL for an LLM the way the site owner asked.

mod alternative;
mod batch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::HeaderValue;
use serde::Serialize;
use url::Url;
use webcanon_core::policy::{PolicyError, RobotsEvidence, RobotsMode};

use self::alternative::{Admission, Candidate, Taken};
pub use self::alternative::{Alternative, AlternativeSource, SkipReason};
pub use self::batch::{CHECK_MANY_ORIGINS_AT_ONCE, CheckOutcome};
use crate::agent::ProductToken;
use crate::clock::Clock;
use crate::error::{Error, FetchError};
use crate::http::{Answer, Http, Pace, Pacing};
use crate::llms_hint::LlmsCache;
use crate::pacing::{Pacer, PacingConfig};
use crate::page;
use crate::robots_cache::{CacheStats, CachedRobots, RobotsCache, RobotsCacheConfig};
use crate::robots_fetch::{fetch_robots, robots_url};
use crate::ssrf::{NameLookup, SsrfGuard, SsrfPolicy};
use crate::store::{MemoryStore, RobotsStore, SqliteStore, StoreHealth};
use crate::warning::{Warning, WarningCode, WarningSource};

/// The product token used when the caller names none.
pub const DEFAULT_AGENT: &str = "webcanon";
/// The default time limit for each request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// The default body limit, counted after decompression.
pub const DEFAULT_MAX_BYTES: usize = 10 * 1024 * 1024;
/// The default number of page redirects followed.
pub const DEFAULT_MAX_REDIRECTS: usize = 10;

/// Where robots.txt outcomes are kept.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum CacheSetting {
    /// In this process only (the default).
    #[default]
    Memory,
    /// A SQLite file in this directory, shared with other processes.
    Dir(PathBuf),
    /// No cache: every fetch loads robots.txt again.
    None,
    /// A store of the caller's.
    Store(Arc<dyn RobotsStore>),
    /// A Redis or Valkey server shared by a fleet (`redis://HOST:PORT`):
    /// robots.txt outcomes, one fetch per origin across processes, and
    /// per-host pacing shared by all. Over a local store (a SQLite file in
    /// `local_dir`, else memory) that keeps a copy and serves alone while
    /// the server does not answer. See [`RedisStore`](crate::store::RedisStore).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    Redis {
        /// The server, as `redis://HOST:PORT[/DB]`, `valkey://…` or
        /// `redis+unix:///PATH`.
        url: String,
        /// A directory for the local SQLite fallback; memory when `None`.
        local_dir: Option<PathBuf>,
    },
}

/// Builds a [`Client`].
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    agent: String,
    user_agent: Option<String>,
    mode: RobotsMode,
    timeout: Duration,
    max_bytes: usize,
    max_redirects: usize,
    cache: CacheSetting,
    cache_config: RobotsCacheConfig,
    auth_disallows: bool,
    alternatives: bool,
    ssrf: SsrfPolicy,
    name_lookup: Option<Arc<dyn NameLookup>>,
    pacing: PacingConfig,
    clock: Clock,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            agent: DEFAULT_AGENT.into(),
            user_agent: None,
            mode: RobotsMode::Respect,
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            cache: CacheSetting::Memory,
            cache_config: RobotsCacheConfig::default(),
            auth_disallows: false,
            alternatives: true,
            ssrf: SsrfPolicy::default(),
            name_lookup: None,
            pacing: PacingConfig::default(),
            clock: Clock::system(),
        }
    }
}

impl ClientBuilder {
    /// The product token matched against robots.txt `User-agent` lines
    /// (checked as a [`ProductToken`] when the client is built).
    pub fn agent(mut self, token: impl Into<String>) -> Self {
        self.agent = token.into();
        self
    }

    /// The `User-Agent` header; by default `<agent>/<version> (+https://github.com/webcanon/webcanon)`.
    pub fn user_agent(mut self, value: impl Into<String>) -> Self {
        self.user_agent = Some(value.into());
        self
    }

    /// How the robots verdict is applied.
    pub fn mode(mut self, mode: RobotsMode) -> Self {
        self.mode = mode;
        self
    }

    /// The time limit of every request (robots.txt and pages alike).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The page body limit, counted after decompression.
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// How many page redirects are followed.
    pub fn max_redirects(mut self, max_redirects: usize) -> Self {
        self.max_redirects = max_redirects;
        self
    }

    /// Where robots.txt outcomes are kept.
    pub fn cache(mut self, cache: CacheSetting) -> Self {
        self.cache = cache;
        self
    }

    /// How long robots.txt outcomes stay fresh (capped at 24 hours).
    pub fn max_cache_seconds(mut self, seconds: u64) -> Self {
        self.cache_config.max_cache_seconds = seconds;
        self
    }

    /// The whole cache configuration.
    pub fn cache_config(mut self, config: RobotsCacheConfig) -> Self {
        self.cache_config = config;
        self
    }

    /// The clock that robots.txt and llms.txt freshness is counted on (the
    /// system clock by default; a [`Clock::manual`] one for deterministic
    /// tests and simulations).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Reads robots.txt answering 401 or 403 as "disallow everything"
    /// instead of RFC 9309's "no restrictions".
    pub fn auth_status_disallows(mut self, yes: bool) -> Self {
        self.auth_disallows = yes;
        self
    }

    /// Whether [`Client::fetch`] looks for a Markdown alternative of the
    /// page (llms.txt, `rel="alternate" type="text/markdown"`, `Accept:
    /// text/markdown`). On by default.
    pub fn alternatives(mut self, yes: bool) -> Self {
        self.alternatives = yes;
        self
    }

    /// The SSRF policy (private networks allowed, resolve overrides).
    pub fn ssrf_policy(mut self, policy: SsrfPolicy) -> Self {
        self.ssrf = policy;
        self
    }

    /// How host names are resolved (default: DNS with the system's
    /// configuration, [`HickoryLookup`](crate::ssrf::HickoryLookup)). Every
    /// address it answers is still vetted by the SSRF guard; a
    /// [`StaticLookup`](crate::ssrf::StaticLookup) keeps tests off DNS.
    pub fn name_lookup(mut self, lookup: Arc<dyn NameLookup>) -> Self {
        self.name_lookup = Some(lookup);
        self
    }

    /// The least time between two requests to one host (default: none;
    /// see [`pacing`](crate::pacing)). Shared across processes with
    /// `CacheSetting::Redis`.
    pub fn min_interval(mut self, interval: Duration) -> Self {
        self.pacing.min_interval = interval;
        self
    }

    /// The longest robots.txt `Crawl-delay` honoured (default 10 s); a
    /// larger one is cut to this, with a `crawl_delay_capped` warning.
    pub fn max_crawl_delay(mut self, cap: Duration) -> Self {
        self.pacing.max_crawl_delay = cap;
        self
    }

    /// Builds the client.
    pub fn build(self) -> Result<Client, BuildError> {
        let no_cache = matches!(self.cache, CacheSetting::None);
        let open_dir = |dir: &std::path::Path| -> Result<Arc<dyn RobotsStore>, BuildError> {
            Ok(Arc::new(SqliteStore::open_dir(dir).map_err(BuildError::Store)?))
        };
        let store: Arc<dyn RobotsStore> = match self.cache {
            CacheSetting::Memory => Arc::new(MemoryStore::new()),
            CacheSetting::Dir(dir) => open_dir(&dir)?,
            CacheSetting::None => Arc::new(MemoryStore::new()),
            CacheSetting::Store(store) => store,
            #[cfg(feature = "redis")]
            CacheSetting::Redis { url, local_dir } => {
                let local = match local_dir {
                    Some(dir) => open_dir(&dir)?,
                    None => Arc::new(MemoryStore::new()),
                };
                let options = crate::store::RedisOptions::default();
                Arc::new(crate::store::RedisStore::open(&url, local, options).map_err(BuildError::Store)?)
            }
        };
        let mut cache_config = self.cache_config;
        if no_cache {
            cache_config.max_cache_seconds = 0;
        }
        // A fleet lock must outlast the fetch it guards: robots.txt is not
        // paced, but its fetch may take one request timeout per hop, the
        // first request and every redirect followed.
        let hops = u32::try_from(crate::robots_fetch::MAX_ROBOTS_REDIRECTS + 1).unwrap_or(u32::MAX);
        cache_config.fleet_lock_ttl = cache_config.fleet_lock_ttl.max(self.timeout.saturating_mul(hops));
        let agent = ProductToken::new(&self.agent)?;
        let user_agent = user_agent_header(&agent, self.user_agent.as_deref())?;
        let guard = Arc::new(match self.name_lookup {
            Some(lookup) => SsrfGuard::with_lookup(self.ssrf, lookup),
            None => SsrfGuard::new(self.ssrf),
        });
        let client =
            crate::ssrf::build_http_client(guard.clone(), self.timeout).map_err(|e| BuildError::Http(e.to_string()))?;
        let cache = Arc::new(RobotsCache::with_clock(store.clone(), cache_config, self.clock.clone()));
        let pacing = Pacing {
            pacer: Arc::new(Pacer::new(self.pacing, store.clone())),
            robots: cache.clone(),
            agent: self.agent.as_str().into(),
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http: Http { client, guard, user_agent, timeout: self.timeout, pacing },
                cache,
                llms: Arc::new(LlmsCache::new(
                    store,
                    cache_config.max_cache_seconds.min(crate::robots_cache::MAX_CACHE_SECONDS),
                    self.clock,
                )),
                explicit_user_agent: self.user_agent,
                alternatives: self.alternatives,
                agent,
                mode: self.mode,
                max_bytes: self.max_bytes,
                max_redirects: self.max_redirects,
                auth_disallows: self.auth_disallows,
            }),
        })
    }
}

/// The `User-Agent` header: `explicit` when given, else
/// `<agent>/<version> (+project URL)`.
fn user_agent_header(agent: &str, explicit: Option<&str>) -> Result<HeaderValue, BuildError> {
    let value = match explicit {
        Some(value) => value.to_string(),
        None => format!("{agent}/{} (+https://github.com/webcanon/webcanon)", env!("CARGO_PKG_VERSION")),
    };
    HeaderValue::from_str(&value).map_err(|_| BuildError::UserAgent(value))
}

/// Why the client could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The agent is not a valid robots.txt product token.
    #[error(transparent)]
    Agent(#[from] crate::agent::InvalidAgent),
    /// The `User-Agent` header value holds bytes a header cannot carry.
    #[error("user agent `{0}` is not a valid header value")]
    UserAgent(String),
    /// The robots cache cannot be opened: a directory that cannot be
    /// created or written, a SQLite file that is not one, a Redis URL that
    /// does not parse.
    #[error(transparent)]
    Store(crate::store::StoreError),
    /// The HTTP stack could not be set up (no TLS roots, for one).
    #[error("cannot build the HTTP client: {0}")]
    Http(String),
}

/// Fetches pages for LLM agents: robots.txt evaluated before every request
/// (redirect hops included), the SSRF guard on every address, content as
/// Markdown, usage signals as warnings. Cheap to clone; clones share the
/// robots cache.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: Http,
    cache: Arc<RobotsCache>,
    llms: Arc<LlmsCache>,
    /// The `User-Agent` set on the builder, kept by [`Client::with_agent`].
    explicit_user_agent: Option<String>,
    alternatives: bool,
    agent: ProductToken,
    mode: RobotsMode,
    max_bytes: usize,
    max_redirects: usize,
    auth_disallows: bool,
}

/// One redirect on the way to the content.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RedirectHop {
    /// The URL that redirected.
    pub url: String,
    /// Its status.
    pub status: u16,
}

/// How long the parts of a fetch took, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timings {
    /// Deciding robots.txt for the requested URL (cached or fetched).
    pub robots_ms: u64,
    /// Fetching the page, redirects included.
    pub fetch_ms: u64,
    /// Decoding and converting the content.
    pub convert_ms: u64,
    /// The whole call.
    pub total_ms: u64,
}

/// The answer of [`Client::check`]: the robots verdict for a URL, with its
/// evidence, and the usage warnings robots.txt gives (`Content-Signal`, a
/// stale copy), without the page.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RobotsCheck {
    /// The verdict, the recommendation, the matched rule and how robots.txt
    /// was obtained.
    pub robots: RobotsEvidence,
    /// Usage warnings from robots.txt.
    pub warnings: Vec<Warning>,
}

/// The answer of [`Client::get`]: status, headers and body as received.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// The URL asked for.
    pub requested_url: String,
    /// Where it ended after redirects.
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    headers: reqwest::header::HeaderMap,
    /// The body, at most the limit asked for (after decompression).
    pub body: Vec<u8>,
    /// Whether the body was longer than the limit and cut there.
    pub truncated: bool,
    /// The robots verdict for the requested URL.
    pub robots: RobotsEvidence,
    /// Redirects followed.
    pub redirects: Vec<RedirectHop>,
    /// Warnings from robots.txt and the redirects.
    pub warnings: Vec<Warning>,
}

impl RawResponse {
    /// A response header as text, if present and printable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every value of a header that may repeat.
    pub fn header_all<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a str> + use<'a> {
        self.headers.get_all(name).iter().filter_map(|v| v.to_str().ok())
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body decoded as text (charset from `Content-Type`, a `<meta>`
    /// or a BOM; UTF-8 otherwise, invalid bytes replaced).
    pub fn text(&self) -> String {
        page::decode_body(&self.body, self.header("content-type"))
    }
}

/// The result of [`Client::fetch`].
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FetchResult {
    /// The URL asked for.
    pub requested_url: String,
    /// The URL whose content is returned.
    pub fetched_url: String,
    /// Where `fetched_url` ended after redirects.
    pub final_url: String,
    /// The final HTTP status.
    pub status: u16,
    /// The `Content-Type` of the answer.
    pub content_type: Option<String>,
    /// The page title, when there is one.
    pub title: Option<String>,
    /// The canonical URL (`rel=canonical` link or `Link` header).
    pub canonical_url: Option<String>,
    /// The content: Markdown for HTML, the text itself for Markdown and text.
    pub content: String,
    /// The robots verdict for the requested URL, with its evidence.
    pub robots: RobotsEvidence,
    /// The alternative that decided the content: the one used, else the
    /// first one tried and skipped; `None` when none was tried.
    pub alternative: Option<Alternative>,
    /// Every alternative tried, in order.
    pub alternatives: Vec<Alternative>,
    /// Usage warnings: never blocks, always worth telling.
    pub warnings: Vec<Warning>,
    /// Redirects followed.
    pub redirects: Vec<RedirectHop>,
    /// Where the time went.
    pub timings: Timings,
}

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
                explicit_user_agent: explicit,
                alternatives: inner.alternatives,
                agent: agent.clone(),
                mode: inner.mode,
                max_bytes: inner.max_bytes,
                max_redirects: inner.max_redirects,
                auth_disallows: inner.auth_disallows,
            }),
        })
    }

    /// A client on the same connections and caches whose [`Client::fetch`]
    /// reads at most `max_bytes` of a page and looks for a Markdown
    /// alternative only when `alternatives` is true: per-request options.
    pub fn with_fetch_options(&self, max_bytes: usize, alternatives: bool) -> Client {
        let inner = &self.inner;
        Client {
            inner: Arc::new(Inner {
                http: inner.http.clone(),
                cache: inner.cache.clone(),
                llms: inner.llms.clone(),
                explicit_user_agent: inner.explicit_user_agent.clone(),
                alternatives,
                agent: inner.agent.clone(),
                mode: inner.mode,
                max_bytes,
                max_redirects: inner.max_redirects,
                auth_disallows: inner.auth_disallows,
            }),
        }
    }

    /// The page body limit of [`Client::fetch`], in bytes after decompression.
    pub fn max_bytes(&self) -> usize {
        self.inner.max_bytes
    }

    /// Whether [`Client::fetch`] looks for Markdown alternatives.
    pub fn alternatives(&self) -> bool {
        self.inner.alternatives
    }

    /// The robots mode.
    pub fn mode(&self) -> RobotsMode {
        self.inner.mode
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

    fn parse_url(input: &str) -> Result<Url, Error> {
        crate::web_url::parse(input).map_err(|e| Error::InvalidUrl { url: input.to_string(), reason: e.to_string() })
    }

    /// The robots verdict for `url` and this client's agent, with its
    /// evidence and warnings, without fetching the page. robots.txt is
    /// loaded through the cache; the SSRF guard applies to it.
    pub async fn check(&self, url: &str) -> Result<RobotsCheck, Error> {
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
    pub async fn robots_txt(&self, url: &str) -> Result<Arc<CachedRobots>, Error> {
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
    pub async fn llms_txt(&self, url: &str) -> Result<RawResponse, Error> {
        let file = crate::llms_hint::llms_txt_url(&Self::parse_url(url)?);
        self.get(file.as_str(), crate::llms_hint::LLMS_ACCEPT, webcanon_core::llms::MAX_PARSE_BYTES + 1).await
    }

    /// One guarded GET without conversion: the URL vetted by the SSRF guard
    /// and admitted by robots.txt (refused with [`Error::Policy`] under
    /// [`RobotsMode::Respect`]), redirects followed by the client's own loop
    /// with every hop vetted and admitted, the body read up to `max_bytes`
    /// (after decompression). An HTTP error status is an answer, not an
    /// error: the caller decides what it means.
    pub async fn get(&self, url: &str, accept: &str, max_bytes: usize) -> Result<RawResponse, Error> {
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
    pub async fn fetch(&self, url: &str) -> Result<FetchResult, Error> {
        let started = Instant::now();
        let requested = Self::parse_url(url)?;
        self.vet(&requested).await?;
        let (robots, mut warnings) = self.admit_as(&requested, Admission::Mode).await?;
        let robots_done = Instant::now();
        let hints = self.inner.alternatives && !names_markdown(&requested);
        let mut alternatives = Vec::new();
        let mut taken = None;
        if hints && let Some(candidate) = self.llms_candidate(&requested).await {
            let (outcome, answer) = self.try_candidate(&candidate).await;
            alternatives.push(outcome);
            taken = answer;
        }
        let (mut answer, mut redirects, mut fetched_url) = match taken {
            Some(Taken { answer, redirects, warnings: hint_warnings }) => {
                merge_warnings(&mut warnings, hint_warnings);
                (answer, redirects, alternatives[0].url.clone())
            }
            None => {
                let accept = if hints { page::ACCEPT_MARKDOWN_FIRST } else { page::ACCEPT };
                let (answer, redirects) = self
                    .follow(&requested, accept, self.inner.max_bytes, Admission::Mode, Pace::Paced, &mut warnings)
                    .await?;
                (answer, redirects, requested.to_string())
            }
        };
        let fetched = Instant::now();
        if answer.status >= 400 {
            return Err(FetchError::Status { url: answer.url.to_string(), status: answer.status }.into());
        }
        let mut page = page::convert(&answer, &self.inner.agent).await.map_err(Error::Fetch)?;
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
                let (outcome, alternative) = self.try_candidate(&candidate).await;
                alternatives.push(outcome);
                if let Some(Taken { answer: md, redirects: md_redirects, warnings: md_warnings }) = alternative {
                    let md_page = page::convert(&md, &self.inner.agent).await.map_err(Error::Fetch)?;
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
        if answer.truncated {
            warnings.push(Warning::new(
                WarningCode::BodyTruncated,
                crate::warning::WarningSource::Fetch,
                format!("the body was longer than {} bytes and was cut there", self.inner.max_bytes),
            ));
        }
        merge_warnings(&mut warnings, page.warnings);
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
            content: page.content,
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
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_setting_has_its_build_error() {
        let err = Client::builder().agent("Bad Bot").build().unwrap_err();
        assert!(matches!(err, BuildError::Agent(_)), "{err}");
        let err = Client::builder().user_agent("Bot/1.0\r\nX-Injected: yes").build().unwrap_err();
        assert!(matches!(&err, BuildError::UserAgent(v) if v.contains("X-Injected")), "{err}");
        // A cache "directory" that is a file.
        let file = std::env::temp_dir().join(format!("webcanon-build-error-{}", std::process::id()));
        std::fs::write(&file, b"not a directory").unwrap();
        let err = Client::builder().cache(CacheSetting::Dir(file.clone())).build().unwrap_err();
        std::fs::remove_file(&file).unwrap();
        assert!(matches!(err, BuildError::Store(_)), "{err}");
        assert!(err.to_string().contains("cannot create the cache directory"), "{err}");
    }
}
