//! Name resolution under the guard.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use hickory_resolver::TokioResolver;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use tokio::sync::OnceCell;

use super::SsrfGuard;

/// A boxed lookup future.
pub type LookupFuture<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>>;

/// Turns a host name into addresses. The guard vets whatever it returns.
pub trait NameLookup: Send + Sync + fmt::Debug {
    /// Every address of `host` (A and AAAA).
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a>;
}

/// DNS through hickory with the system's configuration, created on first use.
#[derive(Debug, Default)]
pub struct HickoryLookup {
    resolver: OnceCell<TokioResolver>,
}

impl NameLookup for HickoryLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a> {
        Box::pin(async move {
            let resolver = self
                .resolver
                .get_or_try_init(|| async {
                    TokioResolver::builder_tokio()
                        .and_then(|b| b.build())
                        .map_err(|e| io::Error::other(format!("no DNS configuration: {e}")))
                })
                .await?;
            let answer = resolver.lookup_ip(host).await.map_err(|e| {
                if let Some(code) = crate::os_limits::local_exhaustion_in(&e).and_then(io::Error::raw_os_error) {
                    // Keep the code: the caller tells this machine's
                    // failures from the name's.
                    io::Error::from_raw_os_error(code)
                } else if e.is_nx_domain() {
                    io::Error::new(io::ErrorKind::NotFound, "no such host")
                } else if e.is_no_records_found() {
                    io::Error::new(io::ErrorKind::NotFound, "the name has no address records")
                } else {
                    io::Error::other(format!("DNS failed: {e}"))
                }
            })?;
            Ok(answer.iter().collect())
        })
    }
}

/// A fixed table of names, for tests: no DNS query is ever made.
#[derive(Debug, Default, Clone)]
pub struct StaticLookup {
    table: HashMap<String, Vec<IpAddr>>,
}

impl StaticLookup {
    /// An empty table (every name fails to resolve).
    pub fn new() -> StaticLookup {
        StaticLookup::default()
    }

    /// Adds a name with its addresses.
    pub fn with(mut self, host: &str, addrs: &[IpAddr]) -> StaticLookup {
        self.table.insert(host.to_ascii_lowercase(), addrs.to_vec());
        self
    }
}

impl NameLookup for StaticLookup {
    fn lookup<'a>(&'a self, host: &'a str) -> LookupFuture<'a> {
        let answer = self
            .table
            .get(&host.to_ascii_lowercase())
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("`{host}` is not in the table")));
        Box::pin(async move { answer })
    }
}

/// The HTTP client's only resolver: resolves once and hands back only vetted
/// addresses, so the connection goes exactly where the guard looked.
#[derive(Debug, Clone)]
pub struct GuardResolver {
    guard: Arc<SsrfGuard>,
    /// The explicit proxy's host name (lower case, no final dot): the one
    /// name resolved without vetting. Every request goes to the proxy, so
    /// no target name ever reaches this resolver; targets are vetted before
    /// each request instead.
    proxy_host: Option<String>,
}

impl GuardResolver {
    /// A resolver for `guard`.
    pub fn new(guard: Arc<SsrfGuard>) -> GuardResolver {
        GuardResolver { guard, proxy_host: None }
    }

    /// Resolves the proxy's `host` without vetting (an IP literal is never
    /// asked for; `None` changes nothing).
    pub fn proxy_host(mut self, host: Option<&str>) -> GuardResolver {
        self.proxy_host = host.map(|h| h.trim_end_matches('.').to_ascii_lowercase());
        self
    }
}

tokio::task_local! {
    /// The port of the connection being made, set around each request so
    /// that `--resolve HOST:PORT:ADDR` applies to that port only (the HTTP
    /// client hands the resolver a name without a port).
    pub(crate) static CONNECT_PORT: u16;
}

impl Resolve for GuardResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        // Read here, on the task that sends the request.
        let port = CONNECT_PORT.try_with(|port| *port).ok();
        let proxy =
            self.proxy_host.as_deref().is_some_and(|p| name.as_str().trim_end_matches('.').eq_ignore_ascii_case(p));
        Box::pin(async move {
            let addrs = if proxy {
                guard.resolve_proxy(name.as_str()).await?
            } else {
                guard.resolve(name.as_str(), port).await?
            };
            // The port is set by the connector from the URL.
            let sockets: Vec<SocketAddr> = addrs.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect();
            Ok(Box::new(sockets.into_iter()) as Addrs)
        })
    }
}
