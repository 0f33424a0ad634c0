//! `webcanon mcp`: the MCP server, on stdio (for a client that starts it)
//! or on streamable HTTP at `http://ADDR/mcp`.
//!
//! On stdio, stdout carries protocol messages only; everything else goes to
//! stderr.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use tokio::net::TcpListener;
use webcanon_mcp::{HttpOptions, Identity, MCP_PATH, WebcanonMcp};

use crate::error::CliError;
use crate::fetch_cmd::{ClientArgs, runtime};
use crate::signal::shutdown_signal;

const AFTER_HELP: &str = "Tools: fetch, check_url, llms_txt, sitemap_urls, audit_site; prompt: fetch.

User-Agent: tool calls (the model decides) send `<agent>/<version> (Autonomous; +https://github.com/webcanon/webcanon)`, \
the fetch prompt (the user asks) `<agent>/<version> (User-Initiated; +...)`; --user-agent replaces both. robots.txt is \
evaluated before every request in both cases, in the --mode given.

Exit status: 0 the client closed the session (stdio) or the server was stopped (SIGTERM, Ctrl-C); 2 bad usage, an \
address that cannot be listened on, or a session that failed.";

/// Arguments of `webcanon mcp`.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct McpArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// Serve streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8765; port 0
    /// picks a free one) instead of stdio. The address is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: also accept requests whose Host header names HOST
    /// (repeatable). Loopback names and the address listened on are always accepted.
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
}

/// Runs `webcanon mcp`.
pub fn run(args: McpArgs) -> Result<ExitCode, CliError> {
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    let identity = match &args.client.user_agent {
        Some(user_agent) => Identity::with_user_agent(user_agent),
        None => Identity::default(),
    };
    let server = WebcanonMcp::new(client, identity).map_err(|e| CliError::usage(e.to_string()))?;
    let runtime = runtime()?;
    let outcome = match &args.http {
        None => runtime.block_on(webcanon_mcp::serve_stdio(server)).map_err(|e| CliError::usage(e.to_string())),
        Some(addr) => runtime.block_on(serve_http(addr, &args.allow_host, server)),
    };
    // Nothing of the session is left to wait for (stdin is at its end or
    // was never read).
    runtime.shutdown_timeout(Duration::from_secs(1));
    outcome.map(|()| ExitCode::SUCCESS)
}

async fn serve_http(addr: &str, allow_hosts: &[String], server: WebcanonMcp) -> Result<(), CliError> {
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        CliError::usage(format!("cannot listen on `{addr}`: {e}"))
            .with_hint("give a local address such as 127.0.0.1:8765")
    })?;
    let local: SocketAddr = listener.local_addr()?;
    let mut options = HttpOptions::default();
    if !local.ip().is_unspecified() {
        options = options.allow_host(local.ip().to_string());
    }
    for host in allow_hosts {
        options = options.allow_host(host);
    }
    let signalled = shutdown_signal();
    eprintln!("listening on http://{local}{MCP_PATH}");
    if local.ip().is_unspecified() && allow_hosts.is_empty() {
        eprintln!(
            "note: only requests naming a loopback host are accepted; add --allow-host NAME for the names clients use"
        );
    }
    webcanon_mcp::serve_http(listener, server, options, signalled)
        .await
        .map_err(|e| CliError::usage(format!("the HTTP server failed: {e}")))?;
    eprintln!("stopped");
    Ok(())
}
