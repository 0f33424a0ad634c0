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
use tokio_util::sync::CancellationToken;
use webcanon_mcp::{Identity, MCP_PATH, WebcanonMcp};
use webcanon_server::DEFAULT_SHUTDOWN_GRACE;

use crate::client_args::{ClientArgs, runtime};
use crate::error::CliError;
use crate::job_args::JobArgs;
use crate::listen_args::ListenArgs;
use crate::signal::shutdown_signal;

const AFTER_HELP: &str = "Tools: fetch, check_url, llms_txt, sitemap_urls, audit_site, map, crawl; prompt: fetch.

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
    /// With --http: the hosts answered and the connection and session caps.
    #[command(flatten)]
    listen_args: ListenArgs,
    /// The jobs of the `map` and `crawl` tools.
    #[command(flatten)]
    jobs: JobArgs,
}

/// Runs `webcanon mcp`.
pub fn run(args: McpArgs) -> Result<ExitCode, CliError> {
    if args.http.is_none() && (!args.listen_args.allow_host.is_empty() || args.listen_args.max_connections.is_some()) {
        return Err(CliError::usage("--allow-host and --max-connections need --http"));
    }
    let jobs = crate::job_args::registry(args.jobs.config()?)?;
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    let identity = match &args.client.user_agent {
        Some(user_agent) => Identity::with_user_agent(user_agent),
        None => Identity::default(),
    };
    let server = WebcanonMcp::new(client, identity).map_err(|e| CliError::usage(e.to_string()))?.with_jobs(jobs);
    let runtime = runtime()?;
    let outcome = match &args.http {
        None => runtime.block_on(webcanon_mcp::serve_stdio(server)).map_err(|e| CliError::usage(e.to_string())),
        Some(addr) => runtime.block_on(serve_http(addr, &args.listen_args, server)),
    };
    // Nothing of the session is left to wait for (stdin is at its end or
    // was never read).
    runtime.shutdown_timeout(Duration::from_secs(1));
    outcome.map(|()| ExitCode::SUCCESS)
}

async fn serve_http(addr: &str, listen_args: &ListenArgs, server: WebcanonMcp) -> Result<(), CliError> {
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        CliError::usage(format!("cannot listen on `{addr}`: {e}"))
            .with_hint("give a local address such as 127.0.0.1:8765")
    })?;
    let local: SocketAddr = listener.local_addr()?;
    let options = listen_args.serve_options(local, DEFAULT_SHUTDOWN_GRACE)?;
    let stop_mcp = CancellationToken::new();
    let mcp_options = listen_args.mcp_options(&options.allowed_hosts)?.shutdown_token(stop_mcp.clone());
    let signalled = shutdown_signal();
    eprintln!("listening on http://{local}{MCP_PATH}");
    listen_args.note_unspecified(local);
    let shutdown = async move {
        signalled.await;
        stop_mcp.cancel();
    };
    webcanon_server::serve_with(listener, webcanon_mcp::http_router(server, &mcp_options), options, shutdown)
        .await
        .map_err(|e| CliError::usage(format!("the HTTP server failed: {e}")))?;
    crate::output::note!("stopped");
    Ok(())
}
