//! `webcanon audit`: what AI agents will see on a site, scored.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use webcanon_audit::{AuditError, Report, Site, Target};

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
    let report = match run_audit(site, &args.client.agent)? {
        Ok(report) => report,
        Err(err) => return Err(audit_error(&err)),
    };
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

/// Runs the audit with a spinner on stderr (when it is a terminal) that
/// counts the resources read.
fn run_audit(site: Site, agent: &str) -> Result<Result<Report, AuditError>, CliError> {
    let counter = site.read_counter();
    let bar = crate::progress::spinner(format!("auditing {}", site.target().display()));
    let runtime = runtime()?;
    let outcome = runtime.block_on(async {
        let ticker = {
            let bar = bar.clone();
            let base = bar.message();
            async move {
                loop {
                    let read = counter.load(std::sync::atomic::Ordering::Relaxed);
                    bar.set_message(format!("{base}: {read} resource{} read", if read == 1 { "" } else { "s" }));
                    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
                }
            }
        };
        tokio::select! {
            outcome = webcanon_audit::audit(site, agent) => outcome,
            () = ticker => unreachable!("the ticker never ends"),
        }
    });
    bar.finish_and_clear();
    Ok(outcome)
}

/// An origin that cannot be audited: exit status 4 when the SSRF guard
/// refused it, 5 when it does not answer, the reason said.
fn audit_error(err: &AuditError) -> CliError {
    match err {
        AuditError::Refused { .. } => CliError::new(webcanon_client::error::code::SSRF, err.to_string()).with_hint(
            "private and local addresses are refused; `--allow-private` opts in for an address (127.0.0.1) \
             or a network (10.0.0.0/8), but names of the local host (`localhost`) stay refused: use the address",
        ),
        _ => CliError::new(webcanon_client::error::code::FETCH, err.to_string())
            .with_hint("check the origin's name and that it answers; nothing was scored"),
    }
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
