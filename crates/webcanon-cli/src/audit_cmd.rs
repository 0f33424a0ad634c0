//! `webcanon audit`: what AI agents will see on a site, scored.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use webcanon_audit::{Report, Site, Target};

use crate::client_args::{ClientArgs, runtime};
use crate::error::CliError;

/// Exit status when the score is under `--fail-under`.
pub const EXIT_UNDER: u8 = 1;

/// Arguments of `webcanon audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// An origin (`https://example.com`) or a folder holding a site's build output.
    #[arg(value_name = "URL|FOLDER")]
    target: String,
    #[command(flatten)]
    client: ClientArgs,
    /// Print the report as one JSON object (schema: see the README).
    #[arg(long)]
    json: bool,
    /// Also write a standalone HTML report to this file.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// For a folder: the origin it is published at, so absolute links to the
    /// site's own pages are read from the folder (default: the host of the
    /// first `Sitemap:` line of its robots.txt).
    #[arg(long, value_name = "URL")]
    site_url: Option<String>,
    /// Exit with status 1 when the score is below this (0–100), for CI pipelines.
    #[arg(long, value_name = "SCORE", value_parser = clap::value_parser!(u8).range(0..=100))]
    fail_under: Option<u8>,
}

/// Runs `webcanon audit`.
pub fn run(args: AuditArgs) -> Result<ExitCode, CliError> {
    let target = Target::parse(&args.target).map_err(|e| {
        CliError::usage(e).with_hint("pass an origin such as https://example.com or a folder such as public/")
    })?;
    let site = match target {
        Target::Origin(url) => {
            let client = args.client.builder()?.build().map_err(|e| CliError::usage(e.to_string()))?;
            Site::origin(url, client)
        }
        Target::Folder(path) => {
            let site = Site::folder(path);
            match &args.site_url {
                Some(url) => {
                    let url = url::Url::parse(url).map_err(|e| CliError::usage(format!("--site-url `{url}`: {e}")))?;
                    site.published_at(url)
                }
                None => site,
            }
        }
    };
    let report = runtime()?.block_on(webcanon_audit::audit(site, &args.client.agent));
    if let Some(path) = &args.html {
        std::fs::write(path, webcanon_audit::render::html::render(&report))
            .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
        crate::output::note!("wrote {}", path.display());
    }
    print(&report, args.json)?;
    if let Some(minimum) = args.fail_under
        && report.score < minimum
    {
        eprintln!("error: score {} is under --fail-under {minimum}", report.score);
        return Ok(ExitCode::from(EXIT_UNDER));
    }
    Ok(ExitCode::SUCCESS)
}

fn print(report: &Report, json: bool) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if json {
        serde_json::to_writer_pretty(&mut out, report).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        let color = crate::output::color_stdout();
        out.write_all(webcanon_audit::render::terminal::render(report, color).as_bytes())?;
    }
    Ok(())
}
