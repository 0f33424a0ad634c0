//! The arguments of `webcanon llms check` and `webcanon llms full`, and
//! the link cap they share.

use std::path::PathBuf;

use clap::Args;
use clap::builder::TypedValueParser;

use crate::client_args::ClientArgs;

/// Arguments of `webcanon llms check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// An llms.txt file (`-` for standard input), or an http(s) URL; a site
    /// URL such as `https://example.com/` means its `/llms.txt`.
    #[arg(value_name = "FILE|URL")]
    pub(super) target: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(super) json: bool,
    /// Do not request the links (a FILE's links are never requested).
    #[arg(long)]
    pub(super) no_links: bool,
    #[command(flatten)]
    pub(super) cap: LinkCap,
    #[command(flatten)]
    pub(super) client: ClientArgs,
}

/// The cap on the links one command requests, shared by `check` and `full`.
#[derive(Debug, Clone, Copy, Args)]
pub struct LinkCap {
    /// Request at most N distinct links, in the file's order; the rest are
    /// reported as left out.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::link_check::DEFAULT_MAX_LINKS,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    pub(super) max_links: usize,
}

/// Arguments of `webcanon llms full`.
#[derive(Debug, Args)]
pub struct FullArgs {
    /// The llms.txt URL; a site URL such as `https://example.com/` means its `/llms.txt`.
    #[arg(value_name = "URL")]
    pub(super) url: String,
    /// Include the links of the `## Optional` section.
    #[arg(long)]
    pub(super) optional: bool,
    /// Print one JSON object (pages, and the content unless `-o`) instead of the text.
    #[arg(long)]
    pub(super) json: bool,
    /// Write llms-full.txt to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
    /// The body limit of each page in bytes, counted after decompression.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::DEFAULT_MAX_BYTES)]
    pub(super) max_bytes: usize,
    #[command(flatten)]
    pub(super) cap: LinkCap,
    #[command(flatten)]
    pub(super) client: ClientArgs,
}
