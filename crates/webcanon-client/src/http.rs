//! One guarded HTTP exchange: vet the URL, send, check the peer, read the
//! body up to a limit. Redirects are not followed here: callers run their
//! own loop so that every hop is vetted again (and, for pages, checked
//! against robots.txt again).

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{self, HeaderMap, HeaderValue};
use url::Url;

use crate::bot_auth::RequestSigner;
use crate::error::FetchError;
use crate::pacing::Pacer;
use crate::robots_cache::RobotsCache;
use crate::sockets::SocketBudget;
use crate::ssrf::SsrfGuard;

/// How many times a request that this machine failed is tried.
const LOCAL_TRIES: u32 = 4;
/// The pause before the first retry; each next one is four times longer.
const LOCAL_RETRY_FIRST: Duration = Duration::from_millis(100);

/// An answer, with its body read up to the limit.
#[derive(Debug)]
pub(crate) struct Answer {
    pub url: Url,
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    /// Whether the body was longer than the limit and cut there.
    pub truncated: bool,
}

impl Answer {
    /// The redirect target, resolved against the request URL.
    pub fn location(&self) -> Option<Result<Url, String>> {
        if !matches!(self.status, 301 | 302 | 303 | 307 | 308) {
            return None;
        }
        let value = self.headers.get(header::LOCATION)?;
        let text = match value.to_str() {
            Ok(text) => text,
            Err(_) => return Some(Err("redirect Location is not ASCII".into())),
        };
        Some(self.url.join(text).map_err(|e| format!("redirect to an invalid URL `{text}`: {e}")))
    }

    /// A header as a string, if present and printable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Every value of a header that may repeat.
    pub fn header_all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.headers.get_all(name).iter().filter_map(|v| v.to_str().ok())
    }
}

/// The HTTP side of the client.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    pub client: reqwest::Client,
    pub guard: Arc<SsrfGuard>,
    pub user_agent: HeaderValue,
    pub timeout: Duration,
    pub pacing: Pacing,
    /// Whether requests go through an explicit proxy: then the target is
    /// resolved and vetted before each request (the HTTP client only ever
    /// resolves the proxy), and the peer is the proxy, not checked.
    pub proxied: bool,
    /// Signs every request (Web Bot Auth), when the client has a key.
    pub signer: Option<Arc<RequestSigner>>,
}

/// What paces the requests of one agent: the shared pacer, and the robots
/// cache whose `Crawl-delay` for the agent sets the interval.
#[derive(Debug, Clone)]
pub(crate) struct Pacing {
    pub pacer: Arc<Pacer>,
    pub robots: Arc<RobotsCache>,
    pub agent: Arc<str>,
}

impl Pacing {
    /// Waits for the slot of `url`'s host.
    async fn before(&self, url: &Url) {
        let Some(host) = url.host_str() else { return };
        let origin = url.origin().ascii_serialization();
        let interval = self.pacer.config().interval(self.robots.crawl_delay(&origin, &self.agent));
        self.pacer.wait(host, interval).await;
    }

    /// Notes that the request to `url` ended: the host's next interval
    /// counts from now.
    fn after(&self, url: &Url) {
        if let Some(host) = url.host_str() {
            self.pacer.finished(host);
        }
    }
}

/// Whether a request waits for its host's pacing slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// Every request but robots.txt: pages, llms.txt and RSL files,
    /// Markdown copies, and what callers of `Client::get` ask for.
    Paced,
    /// robots.txt: the file that carries the `Crawl-delay`, so it is read
    /// before the delay is known, at most once per cache period, and the
    /// delay counts between the requests it governs.
    Exempt,
}

impl Http {
    /// Sends one GET for `url` and reads at most `max_bytes` of the body
    /// (counted after decompression), after the host's pacing slot unless
    /// `pace` exempts it. The whole exchange (not the wait for the slot)
    /// must end before `self.timeout` has passed.
    ///
    /// A failure of this machine ([`FetchError::Local`]: out of descriptors,
    /// buffers or ports) is tried again after 0.1, 0.4 and 1.6 s before it
    /// is returned.
    pub async fn get(&self, url: &Url, accept: &str, max_bytes: usize, pace: Pace) -> Result<Answer, FetchError> {
        let mut pause = LOCAL_RETRY_FIRST;
        let mut tries = 1;
        loop {
            match self.get_once(url, accept, max_bytes, pace).await {
                Err(err) if err.is_local() && tries < LOCAL_TRIES => {
                    tracing::warn!("{err}; trying again in {:.1} s", pause.as_secs_f64());
                    tokio::time::sleep(pause).await;
                    pause *= 4;
                    tries += 1;
                }
                result => return result,
            }
        }
    }

    async fn get_once(&self, url: &Url, accept: &str, max_bytes: usize, pace: Pace) -> Result<Answer, FetchError> {
        self.guard.check_url(url).map_err(FetchError::from_guard)?;
        if self.proxied
            && let Some(url::Host::Domain(name)) = url.host()
        {
            self.guard.resolve(name, url.port_or_known_default()).await.map_err(FetchError::from_guard)?;
        }
        if pace == Pace::Paced {
            self.pacing.before(url).await;
        }
        // A socket from the process's budget: waiting for one is
        // back-pressure and does not count against the time limit.
        let sockets = SocketBudget::process();
        let lease = sockets.acquire(&url.origin().ascii_serialization()).await;
        let started = Instant::now();
        let mut request = self
            .client
            .get(url.clone())
            .header(header::USER_AGENT, self.user_agent.clone())
            .header(header::ACCEPT, accept)
            .timeout(self.timeout);
        if !lease.keep_alive {
            request = request.header(header::CONNECTION, "close");
        }
        // Signed here, once per request sent, for this URL's authority: every
        // kind of request and every redirect hop, and a retry signs anew. The
        // next signature for this host is made on the blocking pool while
        // this request is under way, so the next request does not wait for
        // Ed25519 (see `RequestSigner`).
        if let Some(signer) = &self.signer {
            let signed = match signer.take_or_sign(url) {
                Ok(signed) => signed,
                Err(e) => {
                    sockets.release(lease, false);
                    let message = format!("cannot sign the request: {e}");
                    return Err(FetchError::Local { url: url.to_string(), message });
                }
            };
            let ahead = (signer.clone(), url.clone());
            tokio::task::spawn_blocking(move || ahead.0.sign_ahead(&ahead.1));
            request = request
                .header("signature-agent", signed.signature_agent)
                .header("signature-input", signed.signature_input)
                .header("signature", signed.signature);
        }
        let port = url.port_or_known_default().unwrap_or(0);
        let exchange = crate::ssrf::resolve::CONNECT_PORT.scope(port, async {
            let mut response = request.send().await.map_err(|e| FetchError::from_reqwest(url, e, started.elapsed()))?;
            if let Some(addr) = response.remote_addr().filter(|_| !self.proxied) {
                self.guard.check_peer(url, addr).map_err(FetchError::from_guard)?;
            }
            let status = response.status().as_u16();
            let headers = std::mem::take(response.headers_mut());
            let mut body = Vec::new();
            let mut truncated = false;
            while let Some(chunk) =
                response.chunk().await.map_err(|e| FetchError::from_reqwest(url, e, started.elapsed()))?
            {
                let room = max_bytes - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Answer { url: url.clone(), status, headers, body, truncated })
        });
        let result = match tokio::time::timeout(self.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout { url: url.to_string(), after: started.elapsed() }),
        };
        if pace == Pace::Paced {
            self.pacing.after(url);
        }
        // A body read to its end over a connection the server keeps open
        // goes back to the pool; a cut one, an error or `close` does not.
        let reusable = result.as_ref().is_ok_and(|answer| {
            !answer.truncated && !answer.header("connection").is_some_and(|v| v.to_ascii_lowercase().contains("close"))
        });
        sockets.release(lease, reusable);
        result
    }
}
