//! [`ClientBuilder`]: every setting of a [`Client`], its defaults, and
//! [`BuildError`] when one cannot be honoured.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderValue;
use webcanon_core::policy::RobotsMode;
use webcanon_core::rsl::Usage;

use super::handle::{Client, Inner};
use crate::agent::ProductToken;
use crate::bot_auth::{RequestSigner, SignatureAgentForm, SigningKey};
use crate::browser::{RenderLimits, RenderMode, Renderer};
use crate::clock::Clock;
use crate::fetch_options::FetchOptions;
use crate::http::{Http, Pacing};
use crate::llms_hint::{LLMS_MEMORY_BYTES, LlmsCache};
use crate::markdown::ContentShape;
use crate::pacing::{Pacer, PacingConfig};
use crate::pdf::PdfWorker;
use crate::robots_cache::{RobotsCache, RobotsCacheConfig};
use crate::rsl_cache::{RSL_MEMORY_BYTES, RslCache};
use crate::ssrf::{NameLookup, SsrfGuard, SsrfPolicy};
use crate::store::{MemoryStore, RobotsStore, SqliteStore};

/// The product token used when the caller names none.
pub const DEFAULT_AGENT: &str = "webcanon";
/// The default time limit for each request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
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
    max_redirects: usize,
    cache: CacheSetting,
    cache_config: RobotsCacheConfig,
    auth_disallows: bool,
    fetch: FetchOptions,
    ssrf: SsrfPolicy,
    name_lookup: Option<Arc<dyn NameLookup>>,
    pacing: PacingConfig,
    clock: Clock,
    proxy: Option<url::Url>,
    signing: Signing,
    signature_agent_form: SignatureAgentForm,
    chromium: Option<PathBuf>,
    render_limits: RenderLimits,
    pdf_worker: Option<PdfWorker>,
}

/// Whether and how the client signs its requests.
#[derive(Debug, Clone, Default)]
enum Signing {
    #[default]
    Off,
    /// A key file read when the client is built.
    File {
        key: PathBuf,
        agent: String,
    },
    Signer(Box<RequestSigner>),
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            agent: DEFAULT_AGENT.into(),
            user_agent: None,
            mode: RobotsMode::Respect,
            timeout: DEFAULT_TIMEOUT,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            cache: CacheSetting::Memory,
            cache_config: RobotsCacheConfig::default(),
            auth_disallows: false,
            fetch: FetchOptions::default(),
            ssrf: SsrfPolicy::default(),
            name_lookup: None,
            pacing: PacingConfig::default(),
            clock: Clock::system(),
            proxy: None,
            signing: Signing::Off,
            signature_agent_form: SignatureAgentForm::default(),
            chromium: None,
            render_limits: RenderLimits::default(),
            pdf_worker: None,
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
        self.fetch.max_bytes = max_bytes;
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

    /// Whether robots.txt outcomes stored before the client starts (in the
    /// `cache_dir` file or a shared store) are read again: each origin's
    /// robots.txt is fetched the first time it is needed, then cached as
    /// usual. Set after [`ClientBuilder::cache_config`], which replaces it.
    pub fn refresh_robots(mut self, refresh: bool) -> Self {
        self.cache_config.refresh_stored = refresh;
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
        self.fetch.alternatives = yes;
        self
    }

    /// The shape of fetched content: Markdown or plain text, links and
    /// images (default: Markdown, links as numbered references, no images;
    /// see [`ContentShape`]).
    pub fn content_shape(mut self, shape: ContentShape) -> Self {
        self.fetch.shape = shape;
        self
    }

    /// Whether [`Client::fetch`] renders HTML pages in headless Chromium
    /// (default: off; see [`browser`](crate::browser)).
    pub fn render(mut self, mode: RenderMode) -> Self {
        self.fetch.render = mode;
        self
    }

    /// The use the agent declares for what it fetches (RSL 1.0 usage:
    /// `search`, `ai-input`, `ai-train`, …). [`Client::fetch`] then reads the
    /// site's RSL license and warns when it prohibits the use, asks for
    /// payment or a license server (never a block). `None` (the default)
    /// takes the use of the agent's registry category
    /// ([`Category::rsl_usage`](webcanon_core::agents::Category::rsl_usage)):
    /// `GPTBot` declares `ai-train`.
    pub fn purpose(mut self, purpose: Option<Usage>) -> Self {
        self.fetch.purpose = purpose;
        self
    }

    /// The Chromium executable rendering uses (default: `chromium` or
    /// `chromium-browser` on `PATH`). Nothing is started until a page is
    /// rendered; without a browser, only rendering fails.
    pub fn chromium(mut self, path: impl Into<PathBuf>) -> Self {
        self.chromium = Some(path.into());
        self
    }

    /// The bounds of rendering (pages at once, and each page's wall time,
    /// requests and bytes).
    pub fn render_limits(mut self, limits: RenderLimits) -> Self {
        self.render_limits = limits;
        self
    }

    /// The options of [`Client::fetch`] at once.
    pub fn fetch_options(self, options: FetchOptions) -> Self {
        Self { fetch: options, ..self }
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
    /// see [`PacingConfig`](crate::PacingConfig)). Shared across processes with
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

    /// Sends every request through this HTTP proxy (`http://[user:pass@]host:port`;
    /// default: none, and proxy environment variables are never read).
    /// The SSRF guard still resolves and vets each target before its
    /// request; the proxy resolves the name again, and the address it
    /// connects to is its own (see [`ssrf`](crate::ssrf)). The proxy's own
    /// address is not vetted. [`ClientOptions`](crate::options::ClientOptions)
    /// checks the URL.
    pub fn proxy(mut self, url: url::Url) -> Self {
        self.proxy = Some(url);
        self
    }

    /// Signs every request (Web Bot Auth, see [`bot_auth`](crate::bot_auth))
    /// with the Ed25519 key in `key_file`, naming `signature_agent` (the
    /// origin that publishes the key directory) in `Signature-Agent`. The
    /// file is read once, by [`ClientBuilder::build`], which fails with
    /// [`BuildError::SignKey`] or [`BuildError::SignatureAgent`] when it
    /// cannot be used.
    pub fn sign_with(mut self, key_file: impl Into<PathBuf>, signature_agent: impl Into<String>) -> Self {
        self.signing = Signing::File { key: key_file.into(), agent: signature_agent.into() };
        self
    }

    /// The form of the `Signature-Agent` header a key file given to
    /// [`ClientBuilder::sign_with`] sends: the dictionary of the current
    /// draft (default), or the legacy bare string.
    pub fn signature_agent_form(mut self, form: SignatureAgentForm) -> Self {
        self.signature_agent_form = form;
        self
    }

    /// Signs every request with a signer already made.
    pub fn signer(mut self, signer: RequestSigner) -> Self {
        self.signing = Signing::Signer(Box::new(signer));
        self
    }

    /// Reads PDFs in worker processes started by `worker`, each under an
    /// address-space, CPU-time and stack limit, so that no PDF can crash
    /// or bloat this process (see [`PdfWorker`]). Without one, PDFs are
    /// read in this process, within the reader's own bounds only
    /// ([`crate::pdf::convert`] says what they leave open).
    pub fn pdf_worker(mut self, worker: PdfWorker) -> Self {
        self.pdf_worker = Some(worker);
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
        let signer = match self.signing {
            Signing::Off => None,
            Signing::File { key, agent } => {
                let key = SigningKey::load(&key).map_err(BuildError::SignKey)?;
                let signer = RequestSigner::with_form(key, &agent, self.signature_agent_form);
                Some(Arc::new(signer.map_err(BuildError::SignatureAgent)?))
            }
            Signing::Signer(signer) => Some(Arc::new(*signer)),
        };
        let agent = ProductToken::new(&self.agent)?;
        let user_agent = user_agent_header(&agent, self.user_agent.as_deref())?;
        let guard = Arc::new(match self.name_lookup {
            Some(lookup) => SsrfGuard::with_lookup(self.ssrf, lookup),
            None => SsrfGuard::new(self.ssrf),
        });
        let client = crate::ssrf::build_http_client(guard.clone(), self.timeout, self.proxy.as_ref())
            .map_err(|e| BuildError::Http(e.to_string()))?;
        let cache = Arc::new(RobotsCache::with_clock(store.clone(), cache_config, self.clock.clone()));
        let pacing = Pacing {
            pacer: Arc::new(Pacer::new(self.pacing, store.clone())),
            robots: cache.clone(),
            agent: self.agent.as_str().into(),
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http: Http {
                    client,
                    guard,
                    user_agent,
                    timeout: self.timeout,
                    pacing,
                    proxied: self.proxy.is_some(),
                    signer,
                },
                cache,
                licenses: Arc::new(RslCache::new(
                    store.clone(),
                    cache_config.max_cache_seconds.min(crate::robots_cache::MAX_CACHE_SECONDS),
                    RSL_MEMORY_BYTES,
                    self.clock.clone(),
                )),
                llms: Arc::new(LlmsCache::new(
                    store,
                    cache_config.max_cache_seconds.min(crate::robots_cache::MAX_CACHE_SECONDS),
                    LLMS_MEMORY_BYTES,
                    self.clock,
                )),
                explicit_user_agent: self.user_agent,
                fetch: self.fetch,
                renderer: Arc::new(Renderer::new(self.chromium, self.render_limits)),
                agent,
                mode: self.mode,
                max_redirects: self.max_redirects,
                auth_disallows: self.auth_disallows,
                pdf_worker: self.pdf_worker.map(Arc::new),
            }),
        })
    }
}

/// The `User-Agent` header: `explicit` when given, else
/// `<agent>/<version> (+project URL)`.
pub(super) fn user_agent_header(agent: &str, explicit: Option<&str>) -> Result<HeaderValue, BuildError> {
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
    /// The signing key file cannot be read or holds no Ed25519 key.
    #[error("cannot sign requests: {0}")]
    SignKey(crate::bot_auth::KeyError),
    /// The `Signature-Agent` URL is not one.
    #[error("cannot sign requests: {0}")]
    SignatureAgent(crate::bot_auth::SignError),
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
        // A signing key that is missing, or not a key; an agent URL that is not one.
        let err = Client::builder().sign_with("/nonexistent/key.pem", "https://bot.example").build().unwrap_err();
        assert!(matches!(err, BuildError::SignKey(_)), "{err}");
        assert!(err.to_string().contains("/nonexistent/key.pem"), "{err}");
        let file = std::env::temp_dir().join(format!("webcanon-build-key-{}", std::process::id()));
        std::fs::write(&file, b"not a key").unwrap();
        let err = Client::builder().sign_with(&file, "https://bot.example").build().unwrap_err();
        assert!(matches!(err, BuildError::SignKey(_)), "{err}");
        assert!(err.to_string().contains("holds no Ed25519 private key"), "{err}");
        std::fs::remove_file(&file).unwrap();
        crate::bot_auth::SigningKey::generate().unwrap().write_new(&file).unwrap();
        let err = Client::builder().sign_with(&file, "bot.example").build().unwrap_err();
        std::fs::remove_file(&file).unwrap();
        assert!(matches!(err, BuildError::SignatureAgent(_)), "{err}");
    }
}
