//! The `webcanon` command line.
//!
//! Data goes to stdout, messages to stderr. Exit status: 0 success; 1 the
//! command found what it looks for (lint or llms.txt errors, broken links,
//! an audit under `--fail-under`, `render --check` differences); 2 bad usage
//! or unreadable input; 3 refused by robots.txt policy; 4 refused by the
//! SSRF guard; 5 the fetch failed (or nothing was found to list); 6 a
//! rendered robots.txt failed its own verification.

mod agents_cmd;
mod audit_cmd;
mod batch_cmd;
mod client_args;
mod crawl_cmd;
mod diagnostics;
mod docs_cmd;
mod error;
mod fetch_cmd;
mod file_limit;
mod input;
mod job_args;
mod keys_cmd;
mod listen_args;
mod llms_cmd;
mod map_cmd;
mod mcp_cmd;
mod output;
mod page_args;
mod progress;
mod render_cmd;
mod robots_cmd;
mod serve_cmd;
mod signal;
mod sitemap_cmd;
mod verify_request_cmd;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// mimalloc: the long-lived services free memory back to the system after
/// a burst of large documents, where the system allocator's per-thread
/// arenas keep it (measured by `benches/soak.sh`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// robots.txt, llms.txt, sitemaps and usage signals for AI agents, done right.
#[derive(Debug, Parser)]
#[command(name = "webcanon", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: output::GlobalArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check URLs against a robots.txt file and lint it (RFC 9309).
    #[command(subcommand)]
    Robots(robots_cmd::RobotsCommand),
    /// Fetch a URL for an LLM: robots.txt respected, SSRF-guarded, content as Markdown.
    ///
    /// Exit status: 0 fetched; 2 bad usage or invalid URL; 3 refused by robots.txt
    /// policy; 4 refused by the SSRF guard; 5 the fetch failed.
    Fetch(fetch_cmd::FetchArgs),
    /// Check an llms.txt file and its links, or build llms-full.txt from it.
    #[command(subcommand)]
    Llms(llms_cmd::LlmsCommand),
    /// Crawl sites breadth first: one JSON record per URL, every request as `fetch` makes it.
    ///
    /// Exit status: 0 done; 1 the crawl stopped (run the same command to resume); 2 bad usage.
    Crawl(crawl_cmd::CrawlArgs),
    /// List a site's URLs from its sitemaps (robots.txt `Sitemap:` lines and /sitemap.xml).
    Sitemap(sitemap_cmd::SitemapArgs),
    /// List the URLs of a site an agent may fetch (sitemaps, llms.txt, the start page's links), each with its robots verdict.
    Map(map_cmd::MapArgs),
    /// List the known AI and search agents: token, category, operator.
    Agents(agents_cmd::AgentsArgs),
    /// Audit what AI agents will see on a site (a live origin or a build folder), scored.
    ///
    /// Exit status: 0 done; 1 the score is under --fail-under; 2 bad usage.
    Audit(audit_cmd::AuditArgs),
    /// Render an agent policy (TOML) or a preset to robots.txt, verified; or write a preset's policy.
    ///
    /// Exit status: 0 rendered, or --check found no difference; 1 --check found
    /// differences; 2 bad usage or invalid policy; 6 the rendered file failed
    /// self-verification (nothing written).
    Render(render_cmd::RenderArgs),
    /// Serve the fetch, robots, llms.txt, sitemap and audit tools over MCP (stdio, or HTTP with --http).
    ///
    /// Exit status: 0 the session ended or the server was stopped; 2 bad usage,
    /// an address that cannot be listened on, or a session that failed.
    Mcp(mcp_cmd::McpArgs),
    /// Serve the HTTP JSON API (fetch, robots check and eval, audit, metrics, OpenAPI).
    ///
    /// Exit status: 0 stopped by SIGTERM or Ctrl-C after requests in flight
    /// finished; 2 bad usage or the address cannot be bound.
    Serve(serve_cmd::ServeArgs),
    /// Robots verdicts for a dataset of URLs (text, CSV, Parquet): a polite robots
    /// fetch pass writing a snapshot, then a verdict pass; sharded and resumable.
    ///
    /// Exit status: 0 done; 1 the run failed (writing the output, the snapshot
    /// or the state): the same command resumes it; 2 bad usage or unreadable
    /// input; 3 an interrupted run's state does not fit the command.
    Batch(batch_cmd::BatchArgs),
    /// Make and publish the Ed25519 keys that sign requests (Web Bot Auth).
    #[command(subcommand)]
    Keys(keys_cmd::KeysCommand),
    /// Verify the Web Bot Auth signatures of requests (from a log or a
    /// capture) against a key directory, saying why when one is not valid.
    ///
    /// Exit status: 0 every request validly signed; 1 one is not (expired,
    /// unknown key, a component missing, bad signature, replayed nonce);
    /// 2 bad usage or unreadable input.
    VerifyRequest(verify_request_cmd::VerifyRequestArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) on stdout.
    Completions(docs_cmd::CompletionsArgs),
    /// Print the manual page webcanon(1) in roff on stdout, or write every page with --dir.
    Man(docs_cmd::ManArgs),
}

/// The command-line definition, with the variables it reads listed after
/// the top-level `--help` (and in the manual page), generated from it.
fn command() -> clap::Command {
    let command = Cli::command();
    let environment = output::environment(&command);
    command.after_long_help(environment)
}

fn main() -> ExitCode {
    // A PDF worker (`ClientArgs` names this executable as every client's):
    // before the command line is parsed, so it is in no help, completion
    // or manual page, and before any thread or runtime starts.
    if std::env::args_os().nth(1).is_some_and(|arg| arg == webcanon_client::pdf::PdfWorker::CLI_ARGUMENT) {
        return ExitCode::from(webcanon_client::pdf::run_worker());
    }
    let color = output::color_from_args(std::env::args_os());
    let matches = command().color(color).get_matches();
    let json = asks_for_json(&matches);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    output::init(&cli.global, matches!(cli.command, Command::Serve(_)));
    file_limit::report_oversized_writes();
    if let Err(err) = client_args::check_flag_conflicts(&matches) {
        err.report();
        return ExitCode::from(err.exit_code());
    }
    let result = match cli.command {
        Command::Robots(command) => robots_cmd::run(command),
        Command::Fetch(args) => fetch_cmd::run(args),
        Command::Llms(command) => llms_cmd::run(command),
        Command::Sitemap(args) => sitemap_cmd::run(args),
        Command::Crawl(args) => crawl_cmd::run(args),
        Command::Map(args) => map_cmd::run(args),
        Command::Agents(args) => agents_cmd::run(args),
        Command::Audit(args) => audit_cmd::run(args),
        Command::Render(args) => render_cmd::run(args),
        Command::Mcp(args) => mcp_cmd::run(args),
        Command::Serve(args) => serve_cmd::run(args),
        Command::Batch(args) => batch_cmd::run(args),
        Command::Keys(command) => keys_cmd::run(command),
        Command::VerifyRequest(args) => verify_request_cmd::run(args),
        Command::Completions(args) => docs_cmd::completions(args, command()),
        Command::Man(args) => docs_cmd::man(args, command()),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            // Scripts read the JSON on stdout; people and logs, stderr.
            if json {
                err.report_json();
            }
            err.report();
            ExitCode::from(err.exit_code())
        }
    }
}

/// Whether the subcommand that runs was given `--json`: then an error that
/// ends it (an unusable cache file, an unreadable input) is also a JSON
/// object on stdout, so a script reading stdout is never left with nothing.
fn asks_for_json(matches: &clap::ArgMatches) -> bool {
    let mut leaf = matches;
    while let Some((_, sub)) = leaf.subcommand() {
        leaf = sub;
    }
    matches!(leaf.try_get_one::<bool>("json"), Ok(Some(true)))
}
