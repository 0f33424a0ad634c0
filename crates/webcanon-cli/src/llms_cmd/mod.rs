//! `webcanon llms check | full`: validate an llms.txt file and the pages it
//! links to, and build llms-full.txt from those pages.
//!
//! [`args`] holds the arguments of both subcommands, [`plan`] what they
//! share: the llms.txt URL a command-line URL means, loading that file,
//! resolving its links and planning one request per distinct URL. Each
//! subcommand, with its output, the schema of its `--json` object and its
//! exit status, is documented in its own module: [`check`] for `webcanon
//! llms check`, [`full`] for `webcanon llms full`.

mod args;
mod check;
mod full;
mod plan;

use std::process::ExitCode;

use clap::Subcommand;

pub use self::args::{CheckArgs, FullArgs};
use crate::error::CliError;

/// The `llms` subcommands.
#[derive(Debug, Subcommand)]
pub enum LlmsCommand {
    /// Validate an llms.txt file or a site's, and check that its links serve Markdown.
    ///
    /// Exit status: 0 clean; 1 the file has errors or a link is broken; 2 bad
    /// usage or unreadable file; 3, 4, 5 when the llms.txt itself is refused by
    /// robots.txt, refused by the SSRF guard, or cannot be fetched.
    Check(CheckArgs),
    /// Build llms-full.txt: the llms.txt title and summary, then each linked page as Markdown.
    ///
    /// Exit status: 0 at least one page included; 5 none; 2, 3, 4, 5 when the
    /// llms.txt itself cannot be loaded.
    Full(FullArgs),
}

/// Runs a `webcanon llms` subcommand.
pub fn run(command: LlmsCommand) -> Result<ExitCode, CliError> {
    match command {
        LlmsCommand::Check(args) => check::check(args),
        LlmsCommand::Full(args) => full::full(args),
    }
}
