//! `webcanon serve`: the HTTP JSON API on one shared client.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use tokio_util::sync::CancellationToken;
use webcanon_mcp::{Identity, WebcanonMcp};
use webcanon_server::{AppState, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_IN_FLIGHT, Limits};

use crate::client_args::{ClientArgs, runtime};
use crate::error::CliError;
use crate::job_args::JobArgs;
use crate::listen_args::{ListenArgs, seconds};
use crate::signal::shutdown_signal;

/// Arguments of `webcanon serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0 picks a free port; the real one is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    #[command(flatten)]
    client: ClientArgs,
    /// The largest request body taken, in bytes (larger: 413).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    max_body: usize,
    /// How many /v1 requests are answered at once; more get 503 at once.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_IN_FLIGHT)]
    max_in_flight: usize,
    /// The time limit of one /v1 request, in seconds (over it: 504).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    request_timeout: f64,
    /// How long a /v1 request's body has to arrive once its headers have,
    /// in seconds (over it: 408). The body is read before the request
    /// takes one of the --max-in-flight slots.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    body_timeout: f64,
    /// After SIGTERM or Ctrl-C, how long requests in flight may still run, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    shutdown_grace: f64,
    /// Do not serve the MCP endpoint (streamable HTTP at /mcp).
    #[arg(long)]
    no_mcp: bool,
    #[command(flatten)]
    listen_args: ListenArgs,
    /// The map and crawl jobs (`POST /v1/map`, `POST /v1/crawl` and the MCP
    /// tools `map` and `crawl`).
    #[command(flatten)]
    jobs: JobArgs,
}

/// Runs `webcanon serve` until SIGTERM or Ctrl-C.
pub fn run(args: ServeArgs) -> Result<ExitCode, CliError> {
    if args.max_in_flight == 0 {
        return Err(CliError::usage("--max-in-flight must be at least 1"));
    }
    if args.max_body == 0 {
        return Err(CliError::usage("--max-body must be at least 1 byte"));
    }
    let limits = Limits {
        max_body_bytes: args.max_body,
        max_in_flight: args.max_in_flight,
        request_timeout: seconds("request-timeout", args.request_timeout)?,
        body_read_timeout: seconds("body-timeout", args.body_timeout)?,
    };
    let grace = seconds("shutdown-grace", args.shutdown_grace)?;
    // Before the port is bound: the folder is ready (and an earlier run's
    // jobs removed) once the address is printed.
    let jobs = crate::job_args::registry(args.jobs.config()?)?;
    let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
    let runtime = runtime()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| CliError::usage(format!("cannot listen on {}: {e}", args.listen)))?;
        let addr = listener.local_addr().map_err(|e| CliError::usage(format!("cannot read the bound address: {e}")))?;
        let options = args.listen_args.serve_options(addr, grace)?;
        let signalled = shutdown_signal();
        eprintln!("listening on http://{addr}");
        args.listen_args.note_unspecified(addr);
        let mut app = webcanon_server::router(AppState::new(client.clone(), limits).with_jobs(jobs.clone()));
        let stop_mcp = CancellationToken::new();
        if !args.no_mcp {
            // The MCP endpoint answers from the same client: one connection
            // pool, one robots cache, one pacing state for both faces.
            let identity = match &args.client.user_agent {
                Some(user_agent) => Identity::with_user_agent(user_agent),
                None => Identity::default(),
            };
            // Its map and crawl jobs are the service's: one folder, one
            // bound on jobs at once.
            let server =
                WebcanonMcp::new(client, identity).map_err(|e| CliError::usage(e.to_string()))?.with_jobs(jobs);
            let mcp_options = args.listen_args.mcp_options(&options.allowed_hosts)?.shutdown_token(stop_mcp.clone());
            app = app.merge(webcanon_mcp::http_router(server, &mcp_options));
        }
        let shutdown = async move {
            signalled.await;
            // Open MCP streams end now, so the grace period is for requests.
            stop_mcp.cancel();
        };
        webcanon_server::serve_with(listener, app, options, shutdown)
            .await
            .map_err(|e| CliError::usage(format!("serving on {addr} failed: {e}")))
    })?;
    // Connections still open after the grace period are cut here.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    crate::output::note!("stopped");
    Ok(ExitCode::SUCCESS)
}
