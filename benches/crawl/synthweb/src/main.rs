//! The crawl benchmark's synthetic web (`benches/crawl/`): many sites of
//! many pages on loopback addresses, with robots.txt files of every case a
//! crawler must decide, sitemaps, llms.txt and traps; a server that logs
//! every request; and a scorer that reads the log against the generated
//! web.
//!
//! ```sh
//! synthweb seeds --sites 20                        # one home-page URL per site
//! synthweb serve --sites 20 --pages 500 --log requests.tsv
//! synthweb score --sites 20 --pages 500 --log requests.tsv
//! ```
//!
//! Site `i` listens on its own loopback address (127.1.0.1, 127.1.0.2, ...:
//! Linux routes all of 127.0.0.0/8 to the loopback interface), so every
//! site is its own host to every crawler, with no name resolution.

mod discovery;
mod page;
mod robots;
mod score;
mod serve;
mod web;

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::web::{Site, Web};

/// The crawl benchmark's synthetic web.
#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve every site until SIGINT or SIGTERM, logging each request.
    Serve {
        #[command(flatten)]
        web: WebArgs,
        /// The request log to write (tab-separated).
        #[arg(long)]
        log: PathBuf,
    },
    /// Print each site's home-page URL, one a line.
    Seeds {
        #[command(flatten)]
        web: WebArgs,
    },
    /// Score a request log against the web; prints one JSON object.
    Score {
        #[command(flatten)]
        web: WebArgs,
        /// The request log the server wrote.
        #[arg(long)]
        log: PathBuf,
    },
}

/// The sizes and seed that make the web.
#[derive(Args)]
struct WebArgs {
    /// Seeds every page's text and links.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The number of sites.
    #[arg(long, default_value_t = 20)]
    sites: u32,
    /// Pages of an ordinary site (sites with `Crawl-delay` have at most 10).
    #[arg(long, default_value_t = 500)]
    pages: u32,
    /// The port every site listens on (below 1024 needs root or
    /// CAP_NET_BIND_SERVICE; trafilatura's crawler refuses an address with
    /// any port but 80).
    #[arg(long, default_value_t = 80)]
    port: u16,
}

impl WebArgs {
    fn web(&self) -> Web {
        Web { seed: self.seed, sites: self.sites, pages: self.pages, port: self.port }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> std::io::Result<()> {
    match cli.command {
        Command::Serve { web, log } => tokio::runtime::Runtime::new()?.block_on(serve::serve(web.web(), &log)),
        Command::Seeds { web } => {
            let web = web.web();
            for site in web.all_sites() {
                println!("{}{}", site.origin(web.port), Site::page_path(0));
            }
            Ok(())
        }
        Command::Score { web, log } => {
            let score = score::score(&web.web(), BufReader::new(File::open(log)?))?;
            println!("{}", score.to_json());
            Ok(())
        }
    }
}
