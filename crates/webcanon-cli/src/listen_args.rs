//! The flags of the HTTP faces (`serve`, `mcp --http`): which hosts they
//! answer, how many connections and MCP sessions they keep, how long a
//! client has to send its headers. One set of flags, one serving path
//! ([`webcanon_server::serve_with`]).

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;
use webcanon_mcp::{DEFAULT_MAX_SESSIONS, HttpOptions};
use webcanon_server::{AllowedHosts, ServeOptions, default_max_connections};

use crate::error::CliError;

/// Flags shared by the HTTP faces.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Also answer requests whose Host header (or a browser's Origin) names
    /// HOST: a name or address, any port, or HOST:PORT (repeatable; `*`
    /// answers any host, for a server behind a proxy that checks Host).
    /// Loopback names and the address listened on are always answered.
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Connections served at once; more wait in the listen queue [default:
    /// half the open-file limit].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// How long a client has to send a request's headers, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// MCP sessions kept at once; an initialize beyond them gets 503.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,
}

impl ListenArgs {
    /// The hosts answered on `addr`: loopback, `addr`'s own address, and
    /// every `--allow-host`.
    pub fn allowed_hosts(&self, addr: SocketAddr) -> Result<AllowedHosts, CliError> {
        let mut hosts = AllowedHosts::loopback().allow_address(addr.ip());
        for host in &self.allow_host {
            hosts = hosts.allow(host).map_err(|e| CliError::usage(format!("--allow-host: {e}")))?;
        }
        Ok(hosts)
    }

    /// The connection settings for a server on `addr` that shuts down with
    /// `grace`.
    pub fn serve_options(&self, addr: SocketAddr, grace: Duration) -> Result<ServeOptions, CliError> {
        let max_connections = match self.max_connections {
            Some(0) => return Err(CliError::usage("--max-connections must be at least 1")),
            Some(n) => n,
            None => default_max_connections(),
        };
        Ok(ServeOptions {
            allowed_hosts: self.allowed_hosts(addr)?,
            max_connections,
            header_read_timeout: seconds("header-timeout", self.header_timeout)?,
            grace,
        })
    }

    /// The MCP endpoint's settings: the same hosts, the session cap.
    pub fn mcp_options(&self, hosts: &AllowedHosts) -> Result<HttpOptions, CliError> {
        if self.max_sessions == 0 {
            return Err(CliError::usage("--max-sessions must be at least 1"));
        }
        let mut options = HttpOptions::default().max_sessions(self.max_sessions);
        if hosts.is_any() {
            options = options.allow_any_host();
        }
        for host in hosts.entries() {
            options = options.allow_host(host);
        }
        Ok(options)
    }

    /// A note for the operator when the server listens on every address
    /// but answers loopback names only.
    pub fn note_unspecified(&self, addr: SocketAddr) {
        if addr.ip().is_unspecified() && self.allow_host.is_empty() {
            eprintln!(
                "note: only requests naming a loopback host are answered; add --allow-host NAME for the names clients use"
            );
        }
    }
}

/// `value` seconds as a duration: positive and finite, or a usage error
/// naming `--flag`.
pub fn seconds(flag: &str, value: f64) -> Result<Duration, CliError> {
    if value.is_finite() && value > 0.0 && value <= 1e9 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(CliError::usage(format!("--{flag} must be a positive number of seconds, not {value}")))
    }
}
