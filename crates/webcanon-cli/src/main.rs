//! The `webcanon` command line.
//!
//! Data goes to stdout, messages to stderr. Exit status: 0 success, 1 lint
//! found errors, 2 bad usage or unreadable input, 3 refused by robots.txt
//! policy, 4 refused by the SSRF guard, 5 the fetch failed.

mod agents_cmd;
mod error;
mod fetch_cmd;
mod input;
mod robots_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// robots.txt, llms.txt, sitemaps and usage signals for AI agents, done right.
#[derive(Debug, Parser)]
#[command(name = "webcanon", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// List the known AI and search agents: token, category, operator.
    Agents(agents_cmd::AgentsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Robots(command) => robots_cmd::run(command),
        Command::Fetch(args) => fetch_cmd::run(args),
        Command::Agents(args) => agents_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            err.report();
            ExitCode::from(err.exit_code())
        }
    }
}
