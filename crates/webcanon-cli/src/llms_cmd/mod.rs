//! `webcanon llms check | full`: validate an llms.txt file and the pages it
//! links to, and build llms-full.txt from those pages.
//!
//! This module holds the arguments of both subcommands and what they share:
//! the llms.txt URL a command-line URL means, loading that file, resolving
//! its links and planning one request per distinct URL. Each subcommand, with
//! its output, the schema of its `--json` object and its exit status, is
//! documented in its own module: [`check`] for `webcanon llms check`, [`full`]
//! for `webcanon llms full`.

mod check;
mod full;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use webcanon_client::web_url::WebUrlError;

use clap::builder::TypedValueParser;
use clap::{Args, Subcommand};
use url::Url;
use webcanon_client::error::{Error, FetchError};
use webcanon_client::{Client, RawResponse};
use webcanon_core::llms::LinkRef;

use crate::client_args::{ClientArgs, report_error};
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

/// Arguments of `webcanon llms check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// An llms.txt file (`-` for standard input), or an http(s) URL; a site
    /// URL such as `https://example.com/` means its `/llms.txt`.
    #[arg(value_name = "FILE|URL")]
    target: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Do not request the links (a FILE's links are never requested).
    #[arg(long)]
    no_links: bool,
    #[command(flatten)]
    cap: LinkCap,
    #[command(flatten)]
    client: ClientArgs,
}

/// The cap on the links one command requests, shared by `check` and `full`.
#[derive(Debug, Clone, Copy, Args)]
pub struct LinkCap {
    /// Request at most N distinct links, in the file's order; the rest are
    /// reported as left out.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::link_check::DEFAULT_MAX_LINKS,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    max_links: usize,
}

/// Arguments of `webcanon llms full`.
#[derive(Debug, Args)]
pub struct FullArgs {
    /// The llms.txt URL; a site URL such as `https://example.com/` means its `/llms.txt`.
    #[arg(value_name = "URL")]
    url: String,
    /// Include the links of the `## Optional` section.
    #[arg(long)]
    optional: bool,
    /// Print one JSON object (pages, and the content unless `-o`) instead of the text.
    #[arg(long)]
    json: bool,
    /// Write llms-full.txt to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The body limit of each page in bytes, counted after decompression.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    #[command(flatten)]
    cap: LinkCap,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs a `webcanon llms` subcommand.
pub fn run(command: LlmsCommand) -> Result<ExitCode, CliError> {
    match command {
        LlmsCommand::Check(args) => check::check(args),
        LlmsCommand::Full(args) => full::full(args),
    }
}

// ---------------------------------------------------------------------------
// Loading

/// Whether a command-line target names a URL rather than a file.
fn is_url(target: &str) -> bool {
    target.contains("://")
}

/// The llms.txt URL for a command-line URL, by the client's one rule
/// ([`webcanon_client::llms_hint::llms_txt_url`]): the file named, the
/// `llms.txt` of a directory, or the site's `/llms.txt` for a page.
fn llms_url(input: &str) -> Result<Url, CliError> {
    let hint = "give an http(s) URL such as https://example.com/ or https://example.com/docs/llms.txt";
    let url = webcanon_client::web_url::parse(input)
        .map_err(|e| CliError::usage(format!("invalid URL `{input}`: {e}")).with_hint(hint))?;
    Ok(webcanon_client::llms_hint::llms_txt_url(&url))
}

/// Fetches the llms.txt at `url`. A refusal, a failure or a non-2xx answer
/// is reported (as an error object with `json`) and becomes the exit status.
async fn load_remote(client: &Client, url: &Url, json: bool) -> Result<Result<RawResponse, ExitCode>, CliError> {
    let waiting = crate::progress::spinner(format!("reading {url}"));
    let answer = client.llms_txt(url.as_str()).await;
    waiting.finish_and_clear();
    let response = match answer {
        Ok(response) => response,
        Err(err) => return Ok(Err(report_error(&err, url.as_str(), json)?)),
    };
    if response.is_success() {
        return Ok(Ok(response));
    }
    let status = response.status;
    let err = Error::Fetch(FetchError::Status { url: response.final_url.clone(), status });
    let code = report_error(&err, url.as_str(), json)?;
    if !json {
        match status {
            404 | 410 => eprintln!(
                "hint: there is no llms.txt at this address; a site's llms.txt lives at its root (`/llms.txt`), \
                 one for part of a site under that part's path (`/docs/llms.txt`)"
            ),
            429 | 500..=599 => eprintln!("hint: the server is failing or limiting requests; try again later"),
            _ => {}
        }
    }
    Ok(Err(code))
}

/// A link target resolved for a request: absolute http(s), no fragment.
fn resolve(base: Option<&Url>, href: &str) -> Result<Url, String> {
    let parsed = match base {
        Some(base) => base.join(href),
        None => Url::parse(href),
    };
    let mut url = match parsed {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            return Err("a relative URL, and a local file has no URL to resolve it against".into());
        }
        Err(e) => return Err(format!("not a valid URL: {e}")),
    };
    match webcanon_client::web_url::check(&url) {
        Ok(()) => {}
        Err(WebUrlError::Scheme(scheme)) => {
            return Err(format!("a `{scheme}:` link; only http and https links can be requested"));
        }
        Err(_) => return Err("a URL without a host".into()),
    }
    url.set_fragment(None);
    Ok(url)
}

/// Distinct request URLs in first-seen order, and for each link its slot.
struct Plan {
    urls: Vec<Url>,
    slots: Vec<Result<usize, String>>,
    /// How many of `urls` (the first ones) are requested: all of them, or
    /// the `--max-links` cap.
    requested: usize,
}

impl Plan {
    fn new<'a>(links: impl Iterator<Item = LinkRef<'a>>, base: Option<&Url>) -> Plan {
        let mut urls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let slots = links
            .map(|link| {
                resolve(base, &link.link.url).map(|url| {
                    *seen.entry(url.to_string()).or_insert_with(|| {
                        urls.push(url);
                        urls.len() - 1
                    })
                })
            })
            .collect();
        let requested = urls.len();
        Plan { urls, slots, requested }
    }

    /// The plan with at most `cap.max_links` URLs requested.
    fn capped(mut self, cap: LinkCap) -> Plan {
        self.requested = self.urls.len().min(cap.max_links);
        self
    }

    /// The URLs to request.
    fn to_request(&self) -> &[Url] {
        &self.urls[..self.requested]
    }

    /// How many distinct URLs are left out by the cap.
    fn left_out(&self) -> usize {
        self.urls.len() - self.requested
    }

    /// Says on stderr (unless `-q`) how many distinct links the cap left out.
    fn note_left_out(&self, what: &str) {
        if self.left_out() > 0 {
            crate::output::note!(
                "note: requested the first {} of {} distinct {what}; {} left out (--max-links {} raises the cap)",
                self.requested,
                self.urls.len(),
                self.left_out(),
                self.urls.len()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_urls_mean_their_llms_txt() {
        assert_eq!(llms_url("https://example.com").unwrap().as_str(), "https://example.com/llms.txt");
        assert_eq!(llms_url("https://example.com/?x=1#a").unwrap().as_str(), "https://example.com/llms.txt");
        assert_eq!(
            llms_url("https://example.com/docs/llms.txt").unwrap().as_str(),
            "https://example.com/docs/llms.txt"
        );
        // A directory means its own llms.txt (the rule the MCP tool shares).
        assert_eq!(llms_url("http://example.com/docs/").unwrap().as_str(), "http://example.com/docs/llms.txt");
        assert!(llms_url("ftp://example.com/").is_err());
        assert!(llms_url("https://").is_err());
    }

    #[test]
    fn links_resolve_against_the_base_without_fragments() {
        let base = Url::parse("https://example.com/docs/llms.txt").unwrap();
        assert_eq!(resolve(Some(&base), "guide.md#intro").unwrap().as_str(), "https://example.com/docs/guide.md");
        assert_eq!(resolve(Some(&base), "/a.md").unwrap().as_str(), "https://example.com/a.md");
        assert!(resolve(Some(&base), "mailto:a@example.com").unwrap_err().contains("mailto:"));
        assert!(resolve(None, "guide.md").unwrap_err().contains("relative"));
    }
}
