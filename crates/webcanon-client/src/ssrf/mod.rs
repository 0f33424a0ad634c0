//! The SSRF guard: nothing the client fetches may reach a private, local or
//! otherwise non-public address, whatever a page, a redirect or an llms.txt
//! says.
//!
//! How it holds:
//! 1. [`SsrfGuard::check_url`] runs before any I/O on every URL (every
//!    redirect hop, every llms.txt candidate): only `http` and `https`, no
//!    credentials, and an IP-literal host (after WHATWG normalisation, which
//!    turns `2130706433`, `0x7f.1` and `0177.0.0.1` into `127.0.0.1`) is
//!    classified right there, because the HTTP client never asks the
//!    resolver about literals.
//! 2. Names are resolved once, by our resolver (the only one the HTTP client
//!    has); if ANY address is not public the whole name is refused, and the
//!    client connects to exactly the vetted addresses (no second lookup, so
//!    no DNS rebinding in between).
//! 3. [`SsrfGuard::check_peer`] checks the address actually connected to.
//! 4. The HTTP client ignores proxy environment variables (a proxy would
//!    make the resolver see the proxy's name, not the target's).
//!
//! Through an explicit proxy ([`ClientBuilder::proxy`](crate::ClientBuilder::proxy))
//! steps 1 and 2 still run before each request: the target's name is
//! resolved and every address vetted here, and the request is refused
//! before anything reaches the proxy. What cannot hold is the rest: the
//! proxy resolves the name again and connects wherever its own answer
//! points (a name whose DNS answer changes between the two lookups is not
//! caught), and step 3 sees the proxy's address, so it is not applied. The
//! proxy itself is the operator's choice and is not vetted (it may be on
//! loopback or a private network).
//!
//! Opt-ins for intranets and tests, both off by default: `allow_private`
//! networks, and `resolve` overrides like curl's `--resolve`.

mod classify;
pub(crate) mod resolve;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use classify::{AddressClass, classify, embedded_v4};
use ipnet::IpNet;
pub use resolve::{GuardResolver, HickoryLookup, NameLookup, StaticLookup};
use url::{Host, Url};

/// A curl-style `HOST:PORT:ADDR` override: connect to `ADDR` for `HOST`
/// instead of asking DNS. The address is still vetted by the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveOverride {
    /// The host name, lower-cased.
    pub host: String,
    /// The port the override is written for.
    pub port: u16,
    /// The address to use.
    pub addr: IpAddr,
}

impl FromStr for ResolveOverride {
    type Err = String;

    fn from_str(s: &str) -> Result<ResolveOverride, String> {
        let (host, rest) = s.split_once(':').ok_or("expected HOST:PORT:ADDR")?;
        let (port, addr) = rest.split_once(':').ok_or("expected HOST:PORT:ADDR")?;
        if host.is_empty() {
            return Err("the host is empty".into());
        }
        let port: u16 = port.parse().map_err(|_| format!("`{port}` is not a port number"))?;
        let addr_text = addr.trim_start_matches('[').trim_end_matches(']');
        let addr: IpAddr = addr_text.parse().map_err(|_| format!("`{addr}` is not an IP address"))?;
        Ok(ResolveOverride { host: host.trim_end_matches('.').to_ascii_lowercase(), port, addr })
    }
}

/// What the guard allows beyond public addresses.
#[derive(Debug, Clone, Default)]
pub struct SsrfPolicy {
    allow_private: Vec<IpNet>,
    resolve: Vec<ResolveOverride>,
}

impl SsrfPolicy {
    /// Allows addresses in `net` although they are not public (an
    /// intranet, or loopback for tests).
    pub fn allow_private(mut self, net: IpNet) -> Self {
        self.allow_private.push(net);
        self
    }

    /// Resolves a host through an override instead of DNS. The override's
    /// address must still be public or inside an `allow_private` network.
    pub fn resolve(mut self, entry: ResolveOverride) -> Self {
        self.resolve.push(entry);
        self
    }

    /// Whether a connection to `ip` is allowed.
    pub fn permits(&self, ip: IpAddr) -> Result<(), AddressClass> {
        let class = classify(ip);
        if class.is_public() || self.allow_private.iter().any(|net| net.contains(&canonical(ip))) {
            Ok(())
        } else {
            Err(class)
        }
    }

    /// The override addresses for `host` on `port` (any port when `None`),
    /// if any: like curl, an override written for another port does not
    /// apply. Entries naming the host exactly win; otherwise wildcard
    /// entries apply: `*.example.test` covers every name under
    /// `example.test` (not `example.test` itself), and `*` covers every
    /// name.
    pub fn overrides_for(&self, host: &str, port: Option<u16>) -> Vec<IpAddr> {
        let host = host.trim_end_matches('.');
        let on_port = |r: &&ResolveOverride| port.is_none_or(|p| p == r.port);
        let exact: Vec<IpAddr> =
            self.resolve.iter().filter(on_port).filter(|r| r.host.eq_ignore_ascii_case(host)).map(|r| r.addr).collect();
        if !exact.is_empty() {
            return exact;
        }
        self.resolve.iter().filter(on_port).filter(|r| wildcard_covers(&r.host, host)).map(|r| r.addr).collect()
    }
}

/// Whether the wildcard override `pattern` (`*` or `*.suffix`) covers `host`.
fn wildcard_covers(pattern: &str, host: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let Some(suffix) = pattern.strip_prefix("*.") else {
        return false;
    };
    host.len() > suffix.len() + 1
        && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
        && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// IPv4-mapped IPv6 addresses compare as IPv4 against `allow_private`.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Why the guard refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SsrfReason {
    /// Not `http` or `https`.
    Scheme,
    /// The URL carries a user name or password.
    Userinfo,
    /// `localhost`, a name under it, or another name of the local host (`localhost.localdomain`, `ip6-localhost`).
    Localhost,
    /// A cloud metadata host name.
    MetadataName,
    /// An address that is not public.
    Address(AddressClass),
    /// The name resolved to no address.
    NoAddress,
    /// The name could not be resolved.
    Lookup,
    /// This machine could not make the lookup (out of descriptors or
    /// buffers): nothing was refused and nothing is known about the name.
    LocalFailure,
}

impl SsrfReason {
    /// A stable snake_case code (`loopback`, `private`, `scheme`, ...).
    pub fn code(self) -> &'static str {
        match self {
            SsrfReason::Scheme => "scheme",
            SsrfReason::Userinfo => "userinfo",
            SsrfReason::Localhost => "localhost",
            SsrfReason::MetadataName => "metadata",
            SsrfReason::Address(class) => class.code(),
            SsrfReason::NoAddress => "no_address",
            SsrfReason::Lookup => "lookup_failed",
            SsrfReason::LocalFailure => "local",
        }
    }
}

/// A refusal by the SSRF guard, naming what was refused and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refused {target}: {detail}")]
pub struct SsrfError {
    target: String,
    reason: SsrfReason,
    detail: String,
}

impl SsrfError {
    fn new(target: impl fmt::Display, reason: SsrfReason, detail: impl Into<String>) -> SsrfError {
        SsrfError { target: target.to_string(), reason, detail: detail.into() }
    }

    /// The stable reason code.
    pub fn reason(&self) -> &'static str {
        self.reason.code()
    }

    /// The reason.
    pub fn kind(&self) -> SsrfReason {
        self.reason
    }

    /// What is wrong, without the target.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// Whether the name did not resolve to any address: nothing was refused,
    /// there is no address to reach. The client reports it as a fetch
    /// failure ([`FetchError::Resolve`](crate::error::FetchError::Resolve)).
    pub fn is_lookup_failure(&self) -> bool {
        matches!(self.reason, SsrfReason::Lookup | SsrfReason::NoAddress | SsrfReason::LocalFailure)
    }

    /// Whether this machine failed the lookup ([`SsrfReason::LocalFailure`]).
    pub fn is_local_failure(&self) -> bool {
        self.reason == SsrfReason::LocalFailure
    }

    /// The URL, host or address refused.
    pub fn target(&self) -> &str {
        &self.target
    }
}

/// Names of the local host in common `/etc/hosts` files, besides
/// `localhost` and the names under it (RFC 6761 §6.3).
const LOCAL_HOST_NAMES: &[&str] =
    &["localhost.localdomain", "localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback"];

/// Whether `name` (lower case, no final dot) is the local host by name.
fn is_local_host_name(name: &str) -> bool {
    name == "localhost" || name.ends_with(".localhost") || LOCAL_HOST_NAMES.contains(&name)
}

const METADATA_NAMES: &[&str] = &["metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"];

/// The guard: a policy plus the name lookup it vets.
#[derive(Debug, Clone)]
pub struct SsrfGuard {
    policy: Arc<SsrfPolicy>,
    lookup: Arc<dyn NameLookup>,
}

impl SsrfGuard {
    /// A guard resolving names with the system's DNS configuration (hickory).
    pub fn new(policy: SsrfPolicy) -> SsrfGuard {
        SsrfGuard::with_lookup(policy, Arc::new(HickoryLookup::default()))
    }

    /// A guard resolving names with `lookup` (tests use [`StaticLookup`]).
    pub fn with_lookup(policy: SsrfPolicy, lookup: Arc<dyn NameLookup>) -> SsrfGuard {
        SsrfGuard { policy: Arc::new(policy), lookup }
    }

    /// The policy.
    pub fn policy(&self) -> &SsrfPolicy {
        &self.policy
    }

    fn address_error(target: impl fmt::Display, ip: IpAddr, class: AddressClass) -> SsrfError {
        let class_text = class.code().replace('_', " ");
        SsrfError::new(target, SsrfReason::Address(class), format!("address {ip} is {class_text}"))
    }

    /// Vets a URL before any I/O: scheme, credentials, IP literals and
    /// local names. Domain names are vetted again when they are resolved.
    pub fn check_url(&self, url: &Url) -> Result<(), SsrfError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(SsrfError::new(
                url,
                SsrfReason::Scheme,
                format!("scheme `{}` is not http or https", url.scheme()),
            ));
        }
        match url.host() {
            None => return Err(SsrfError::new(url, SsrfReason::NoAddress, "the URL has no host")),
            Some(Host::Ipv4(ip)) => {
                self.policy.permits(IpAddr::V4(ip)).map_err(|c| Self::address_error(url, ip.into(), c))?
            }
            Some(Host::Ipv6(ip)) => {
                self.policy.permits(IpAddr::V6(ip)).map_err(|c| Self::address_error(url, ip.into(), c))?
            }
            Some(Host::Domain(name)) => self.check_name(url, name)?,
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(SsrfError::new(url, SsrfReason::Userinfo, "URLs with credentials are not fetched"));
        }
        Ok(())
    }

    fn check_name(&self, url: &Url, name: &str) -> Result<(), SsrfError> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if !self.policy.overrides_for(&name, url.port_or_known_default()).is_empty() {
            return Ok(());
        }
        if is_local_host_name(&name) {
            return Err(SsrfError::new(url, SsrfReason::Localhost, format!("`{name}` is the local host")));
        }
        if METADATA_NAMES.contains(&name.as_str()) {
            return Err(SsrfError::new(url, SsrfReason::MetadataName, format!("`{name}` is a cloud metadata host")));
        }
        Ok(())
    }

    /// Resolves `host` once for a connection to `port` (any port when
    /// `None`) and vets every address: the overrides for that port first,
    /// else DNS; refused if any address is not allowed.
    pub async fn resolve(&self, host: &str, port: Option<u16>) -> Result<Vec<IpAddr>, SsrfError> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let overrides = self.policy.overrides_for(&host, port);
        let addrs = if overrides.is_empty() {
            if is_local_host_name(&host) {
                return Err(SsrfError::new(&host, SsrfReason::Localhost, format!("`{host}` is the local host")));
            }
            self.lookup.lookup(&host).await.map_err(|e| {
                let reason = if crate::os_limits::is_local_exhaustion(&e) {
                    SsrfReason::LocalFailure
                } else {
                    SsrfReason::Lookup
                };
                SsrfError::new(&host, reason, e.to_string())
            })?
        } else {
            overrides
        };
        if addrs.is_empty() {
            return Err(SsrfError::new(&host, SsrfReason::NoAddress, "the name has no address"));
        }
        for ip in &addrs {
            self.policy.permits(*ip).map_err(|class| Self::address_error(&host, *ip, class))?;
        }
        Ok(addrs)
    }

    /// Resolves the name of the operator's proxy, without vetting (overrides
    /// for any port first, else the lookup).
    async fn resolve_proxy(&self, host: &str) -> Result<Vec<IpAddr>, SsrfError> {
        let overrides = self.policy.overrides_for(host, None);
        if !overrides.is_empty() {
            return Ok(overrides);
        }
        self.lookup.lookup(host).await.map_err(|e| SsrfError::new(host, SsrfReason::Lookup, e.to_string()))
    }

    /// Checks the address a connection actually reached.
    pub fn check_peer(&self, url: &Url, peer: SocketAddr) -> Result<(), SsrfError> {
        self.policy.permits(peer.ip()).map_err(|class| Self::address_error(url, peer.ip(), class))
    }
}

/// Builds the HTTP client the guard protects: our resolver as its only
/// resolver, no redirects (callers follow them, vetting each hop), and no
/// proxies from the environment: only `proxy` when one is given, for every
/// request (its name is resolved without vetting: the operator chose it).
pub fn build_http_client(
    guard: Arc<SsrfGuard>,
    connect_timeout: Duration,
    proxy: Option<&Url>,
) -> reqwest::Result<reqwest::Client> {
    // reqwest is built without a default TLS crypto provider; ring is ours.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder().no_proxy();
    let mut resolver = GuardResolver::new(guard);
    if let Some(proxy) = proxy {
        builder = builder.proxy(reqwest::Proxy::all(proxy.as_str())?);
        resolver = resolver.proxy_host(proxy.host_str());
    }
    builder
        .redirect(reqwest::redirect::Policy::none())
        // At most one idle connection per host, briefly: the socket budget
        // counts it (crate::sockets).
        .pool_max_idle_per_host(1)
        .pool_idle_timeout(crate::sockets::IDLE_TIMEOUT)
        .dns_resolver(Arc::new(resolver))
        .connect_timeout(connect_timeout)
        .build()
}

#[cfg(test)]
mod wildcard_tests {
    use super::*;

    #[test]
    fn wildcard_overrides_cover_names_under_the_suffix() {
        let policy = SsrfPolicy::default()
            .resolve("*.test:8080:127.0.0.1".parse().unwrap())
            .resolve("exact.test:8080:127.0.0.2".parse().unwrap());
        let one: IpAddr = "127.0.0.1".parse().unwrap();
        let two: IpAddr = "127.0.0.2".parse().unwrap();
        let rows: [(&str, Vec<IpAddr>); 6] = [
            ("a.test", vec![one]),
            ("deep.sub.TEST.", vec![one]),
            ("exact.test", vec![two]),
            ("test", vec![]),
            ("atest", vec![]),
            ("a.test.example", vec![]),
        ];
        for (host, expected) in rows {
            assert_eq!(policy.overrides_for(host, Some(8080)), expected, "{host}");
            assert_eq!(policy.overrides_for(host, None), expected, "{host}, any port");
            assert!(policy.overrides_for(host, Some(443)).is_empty(), "{host}: written for port 8080, not 443");
        }
        let all = SsrfPolicy::default().resolve("*:443:127.0.0.3".parse().unwrap());
        assert_eq!(all.overrides_for("anything.example", Some(443)), vec!["127.0.0.3".parse::<IpAddr>().unwrap()]);
        assert!(all.overrides_for("anything.example", Some(80)).is_empty());
    }
}
