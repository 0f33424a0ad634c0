//! The `webcanon` command line.
//!
//! Data goes to stdout, messages to stderr. Exit status: 0 success, 1 lint
//! found errors, 2 bad usage or unreadable input.

mod error;
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Robots(command) => robots_cmd::run(command),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            err.report();
            ExitCode::from(err.exit_code())
        }
    }
}
