//! The client's options as the faces receive them (command-line flags,
//! Python keyword arguments): checked in one place, then turned into a
//! [`ClientBuilder`]. Each face only names the options its own way
//! (`--allow-private` on the command line, `allow_private` in Python).

use std::path::PathBuf;
use std::time::Duration;

use webcanon_core::policy::RobotsMode;

use crate::bot_auth::SignatureAgentForm;
use crate::client::{CacheSetting, Client, ClientBuilder, DEFAULT_AGENT, DEFAULT_TIMEOUT};
use crate::fetch_options::FetchOptions;
pub use crate::option_error::OptionError;
use crate::pdf::PdfWorker;
use crate::ssrf::{ResolveOverride, SsrfPolicy};

/// The longest timeout, interval or delay accepted, in seconds (a day).
pub const MAX_SECONDS: f64 = 86_400.0;

/// Where robots.txt and llms.txt outcomes are kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheChoice {
    /// In this process, or in a SQLite file in `cache_dir` when one is given
    /// (the default).
    #[default]
    Memory,
    /// Nowhere: every fetch reads robots.txt again.
    None,
    /// A Redis or Valkey server shared by a fleet (`redis://HOST:PORT`),
    /// over `cache_dir` (or memory) as the local copy.
    Redis(String),
}

/// The client's options, unchecked. [`ClientOptions::builder`] checks them
/// all and says which one is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientOptions {
    /// The product token matched against robots.txt.
    pub agent: String,
    /// The `User-Agent` header; by default built from the agent.
    pub user_agent: Option<String>,
    /// How the robots verdict is applied.
    pub mode: RobotsMode,
    /// Seconds for each request; above 0, at most [`MAX_SECONDS`].
    pub timeout: f64,
    /// Where outcomes are kept.
    pub cache: CacheChoice,
    /// The directory of the SQLite cache file (the local copy under Redis).
    pub cache_dir: Option<PathBuf>,
    /// Private networks (CIDR, `127.0.0.0/8`) the SSRF guard lets through.
    pub allow_private: Vec<String>,
    /// curl-style `HOST:PORT:ADDR` overrides of name resolution.
    pub resolve: Vec<String>,
    /// What each fetch does with a page (body limit, Markdown
    /// alternatives, content shape, rendering): the part a request may
    /// override ([`FetchOptions::with`]).
    pub fetch: FetchOptions,
    /// Seconds between requests to one host; 0 to [`MAX_SECONDS`].
    pub min_interval: f64,
    /// The largest robots.txt `Crawl-delay` honoured, in seconds; 0 to
    /// [`MAX_SECONDS`].
    pub max_crawl_delay: f64,
    /// Reads robots.txt answering 401 or 403 as "disallow everything".
    pub auth_disallows: bool,
    /// An HTTP proxy every request goes through (`http://[user:pass@]host:port`);
    /// none by default, and proxy environment variables are never read.
    pub proxy: Option<String>,
    /// An Ed25519 key file (PKCS#8 PEM or private JWK) that signs every
    /// request (Web Bot Auth); needs `signature_agent`.
    pub sign_key: Option<PathBuf>,
    /// The `Signature-Agent` URL: the origin publishing the key directory
    /// of `sign_key` (`https://bot.example`), or the directory's own URL.
    pub signature_agent: Option<String>,
    /// The form `Signature-Agent` is sent in: the dictionary of the current
    /// draft (default) or the legacy bare string.
    pub signature_agent_form: SignatureAgentForm,
    /// The Chromium executable rendering uses; `chromium` or
    /// `chromium-browser` on `PATH` when not given.
    pub chromium: Option<PathBuf>,
    /// Whether robots.txt outcomes cached before the client started are
    /// read again (each origin once, then cached as usual).
    pub refresh_robots: bool,
    /// The worker process PDFs are read in (see [`PdfWorker`]); none reads
    /// them in this process, within the reader's own bounds only.
    pub pdf_worker: Option<PdfWorker>,
}

impl Default for ClientOptions {
    fn default() -> ClientOptions {
        ClientOptions {
            agent: DEFAULT_AGENT.to_string(),
            user_agent: None,
            mode: RobotsMode::Respect,
            timeout: DEFAULT_TIMEOUT.as_secs_f64(),
            cache: CacheChoice::Memory,
            cache_dir: None,
            allow_private: Vec::new(),
            resolve: Vec::new(),
            fetch: FetchOptions::default(),
            min_interval: 0.0,
            max_crawl_delay: crate::pacing::DEFAULT_MAX_CRAWL_DELAY.as_secs_f64(),
            auth_disallows: false,
            proxy: None,
            sign_key: None,
            signature_agent: None,
            signature_agent_form: SignatureAgentForm::Dictionary,
            chromium: None,
            refresh_robots: false,
            pdf_worker: None,
        }
    }
}

/// A network given to `allow_private`: a CIDR block (`10.0.0.0/8`), or a
/// single address, which stands for itself (`127.0.0.1` is
/// `127.0.0.1/32`, `::1` is `::1/128`).
fn private_network(text: &str) -> Result<ipnet::IpNet, OptionError> {
    if let Ok(net) = text.parse::<ipnet::IpNet>() {
        return Ok(net);
    }
    text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from).map_err(|_| {
        OptionError::new(
            "allow_private",
            format!(
                " `{text}` is neither an IP address nor a CIDR network: give one such as 127.0.0.1, \
                 10.0.0.0/8 or fd00::/8"
            ),
        )
    })
}

impl ClientOptions {
    /// Checks every option and returns the builder they make.
    pub fn builder(&self) -> Result<ClientBuilder, OptionError> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= MAX_SECONDS) {
            return Err(OptionError::new(
                "timeout",
                format!(" must be a number of seconds above 0 and up to 86400, not {}", self.timeout),
            ));
        }
        let seconds = |option: &'static str, value: f64| {
            if value.is_finite() && (0.0..=MAX_SECONDS).contains(&value) {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(OptionError::new(option, format!(" must be a number of seconds from 0 to 86400, not {value}")))
            }
        };
        let min_interval = seconds("min_interval", self.min_interval)?;
        let max_crawl_delay = seconds("max_crawl_delay", self.max_crawl_delay)?;
        if self.fetch.max_bytes == 0 {
            return Err(OptionError::new("max_bytes", " must be at least 1".into()));
        }
        let mut policy = SsrfPolicy::default();
        for cidr in &self.allow_private {
            policy = policy.allow_private(private_network(cidr)?);
        }
        for spec in &self.resolve {
            let entry: ResolveOverride =
                spec.parse().map_err(|e| OptionError::new("resolve", format!(" `{spec}`: {e}")))?;
            policy = policy.resolve(entry);
        }
        let cache = match (&self.cache, &self.cache_dir) {
            (CacheChoice::Memory, None) => CacheSetting::Memory,
            (CacheChoice::Memory, Some(dir)) => CacheSetting::Dir(dir.clone()),
            (CacheChoice::None, None) => CacheSetting::None,
            (CacheChoice::None, Some(_)) => {
                return Err(OptionError::new("cache_dir", " has no use when nothing is cached".into()));
            }
            (CacheChoice::Redis(url), dir) => redis_setting(url, dir.clone())?,
        };
        let mut builder = Client::builder()
            .agent(&self.agent)
            .mode(self.mode)
            .timeout(Duration::from_secs_f64(self.timeout))
            .cache(cache)
            .fetch_options(self.fetch)
            .auth_status_disallows(self.auth_disallows)
            .min_interval(min_interval)
            .max_crawl_delay(max_crawl_delay)
            .ssrf_policy(policy)
            .refresh_robots(self.refresh_robots);
        if let Some(value) = &self.user_agent {
            builder = builder.user_agent(value);
        }
        if let Some(text) = &self.proxy {
            builder = builder.proxy(proxy_url(text)?);
        }
        match (&self.sign_key, &self.signature_agent) {
            (Some(key), Some(agent)) => {
                builder = builder.sign_with(key, agent).signature_agent_form(self.signature_agent_form);
            }
            (None, None) => {}
            (Some(_), None) => {
                return Err(OptionError::new(
                    "sign_key",
                    " needs signature_agent: the URL whose key directory lists the key".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(OptionError::new("signature_agent", " needs sign_key: the key that signs".into()));
            }
        }
        if let Some(path) = &self.chromium {
            if path.as_os_str().is_empty() {
                return Err(OptionError::new("chromium", " must name the Chromium executable, not be empty".into()));
            }
            builder = builder.chromium(path);
        }
        if let Some(worker) = &self.pdf_worker {
            builder = builder.pdf_worker(worker.clone());
        }
        Ok(builder)
    }
}

/// The proxy URL, checked: http or https, with a host. Messages never
/// repeat a password it carries.
fn proxy_url(text: &str) -> Result<url::Url, OptionError> {
    let shown = redact_userinfo(text);
    let url = url::Url::parse(text).map_err(|e| OptionError::new("proxy", format!(" `{shown}`: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(OptionError::new(
            "proxy",
            format!(" `{shown}`: scheme `{}` is not supported (http or https)", url.scheme()),
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(OptionError::new("proxy", format!(" `{shown}`: the URL has no host")));
    }
    Ok(url)
}

/// `text` with whatever stands between `://` and the last `@` before the
/// host replaced by `***`.
fn redact_userinfo(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else { return text.to_string() };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***{}", &rest[at..]),
        None => text.to_string(),
    }
}

#[cfg(feature = "redis")]
fn redis_setting(url: &str, local_dir: Option<PathBuf>) -> Result<CacheSetting, OptionError> {
    use crate::store::RedisStore;
    RedisStore::check_url(url)
        .map_err(|e| OptionError::new("cache", format!(" `{}`: {e}", RedisStore::redact_url(url))))?;
    Ok(CacheSetting::Redis { url: url.to_string(), local_dir })
}

#[cfg(not(feature = "redis"))]
fn redis_setting(url: &str, _local_dir: Option<PathBuf>) -> Result<CacheSetting, OptionError> {
    let _ = url;
    Err(OptionError::new("cache", ": a shared cache needs webcanon-client's `redis` feature".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(options: ClientOptions) -> String {
        options.builder().map(|_| ()).unwrap_err().to_string()
    }

    #[test]
    fn every_bad_value_names_its_option() {
        let base = ClientOptions::default;
        let rows = [
            (
                ClientOptions { timeout: 0.0, ..base() },
                "timeout must be a number of seconds above 0 and up to 86400, not 0",
            ),
            (ClientOptions { timeout: f64::NAN, ..base() }, "timeout must be a number of seconds above 0"),
            (ClientOptions { timeout: 100_000.0, ..base() }, "timeout must be a number of seconds above 0"),
            (
                ClientOptions { min_interval: -1.0, ..base() },
                "min_interval must be a number of seconds from 0 to 86400",
            ),
            (ClientOptions { max_crawl_delay: f64::INFINITY, ..base() }, "max_crawl_delay must be a number of seconds"),
            (
                ClientOptions { fetch: FetchOptions { max_bytes: 0, ..FetchOptions::default() }, ..base() },
                "max_bytes must be at least 1",
            ),
            (
                ClientOptions { allow_private: vec!["10.0.0.0/33".into()], ..base() },
                "allow_private `10.0.0.0/33` is neither an IP address nor a CIDR network",
            ),
            (ClientOptions { resolve: vec!["nonsense".into()], ..base() }, "resolve `nonsense`: "),
            (
                ClientOptions { cache: CacheChoice::None, cache_dir: Some("/tmp/x".into()), ..base() },
                "cache_dir has no use when nothing is cached",
            ),
            (ClientOptions { proxy: Some("proxy:3128".into()), ..base() }, "proxy `proxy:3128`: scheme `proxy`"),
            (
                ClientOptions { proxy: Some("socks5://u:secret@proxy:1080".into()), ..base() },
                "proxy `socks5://***@proxy:1080`: scheme `socks5` is not supported",
            ),
            (ClientOptions { proxy: Some("http://u:secret@".into()), ..base() }, "proxy `http://***@`: "),
            (ClientOptions { sign_key: Some("k.pem".into()), ..base() }, "sign_key needs signature_agent"),
            (
                ClientOptions { signature_agent: Some("https://bot.example".into()), ..base() },
                "signature_agent needs sign_key",
            ),
            (ClientOptions { chromium: Some("".into()), ..base() }, "chromium must name the Chromium executable"),
        ];
        for (options, expected) in rows {
            let got = error(options);
            assert!(got.starts_with(expected), "expected `{expected}…`, got `{got}`");
        }
        // The agent is checked when the client is built, as a ProductToken.
        let options = ClientOptions { agent: "GPTBot/1.0".into(), ..base() };
        let built = options.builder().unwrap().build().map(|_| ()).unwrap_err().to_string();
        assert!(built.contains("not a product token"), "{built}");
    }

    #[test]
    fn good_values_build() {
        let options = ClientOptions {
            timeout: 0.5,
            min_interval: 86_400.0,
            allow_private: vec!["127.0.0.0/8".into()],
            resolve: vec!["example.com:443:127.0.0.1".into()],
            proxy: Some("http://user:pass@proxy.example:3128".into()),
            ..ClientOptions::default()
        };
        let client = options.builder().unwrap().build().unwrap();
        assert_eq!(client.agent(), DEFAULT_AGENT);
    }

    #[test]
    fn a_single_address_is_its_own_network() {
        assert_eq!(private_network("127.0.0.1").unwrap().to_string(), "127.0.0.1/32");
        assert_eq!(private_network("::1").unwrap().to_string(), "::1/128");
        assert_eq!(private_network("10.0.0.0/8").unwrap().to_string(), "10.0.0.0/8");
        assert!(private_network("localhost").unwrap_err().to_string().contains("neither an IP address"));
    }
}
