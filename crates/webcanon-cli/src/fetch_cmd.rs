//! `webcanon fetch`: a page for an LLM, the way the site owner asked.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;
use webcanon_client::FetchResult;
use webcanon_client::browser::RenderMode;
use webcanon_client::markdown::ContentFormat;
use webcanon_core::policy::RobotsEvidence;

use crate::client_args::{ClientArgs, report_error, runtime};
use crate::error::CliError;
use crate::output::note;
use crate::page_args::PageArgs;
use crate::signal::shutdown_signal;

/// Arguments of `webcanon fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The URL to fetch (http or https).
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    client: ClientArgs,
    /// Print one JSON object (the result, or an error object) instead of Markdown.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    page: PageArgs,
}

/// The exit status of a fetch stopped by SIGINT or SIGTERM (128 + SIGINT,
/// as shells report an interrupted command).
const INTERRUPTED: u8 = 130;

/// Runs `webcanon fetch`.
pub fn run(args: FetchArgs) -> Result<ExitCode, CliError> {
    let client = args
        .client
        .builder()
        .map(|builder| args.page.apply(builder))?
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let runtime = runtime()?;
    let outcome = runtime.block_on(async {
        if args.page.render == RenderMode::Off {
            return Some(client.fetch(&args.url).await);
        }
        // SIGINT and SIGTERM stop the fetch, so that the client, and with it
        // the browser's processes and profile, is dropped before exiting.
        let stopped = shutdown_signal();
        tokio::select! {
            outcome = client.fetch(&args.url) => Some(outcome),
            () = stopped => None,
        }
    });
    let Some(outcome) = outcome else {
        drop(runtime);
        drop(client);
        note!("interrupted: the browser is stopped and its profile removed");
        return Ok(ExitCode::from(INTERRUPTED));
    };
    match outcome {
        Ok(result) => {
            print_result(&result, args.json, args.page.format)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => report_error(&err, &args.url, args.json),
    }
}

/// The title line the printed page starts with, when the content does
/// not already start with it: the JSON keeps the title in its own field.
fn title_line(result: &FetchResult, format: ContentFormat) -> Option<String> {
    let title = result.title.as_deref()?.trim();
    let first = result.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.trim_start_matches('#').trim();
    if title.is_empty() || first.eq_ignore_ascii_case(title) {
        return None;
    }
    Some(match format {
        ContentFormat::Markdown => format!("# {title}\n\n"),
        _ => format!("{title}\n\n"),
    })
}

fn print_result(result: &FetchResult, json: bool, format: ContentFormat) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if json {
        serde_json::to_writer_pretty(&mut out, result).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        if let Some(line) = title_line(result, format) {
            out.write_all(line.as_bytes())?;
        }
        out.write_all(result.content.as_bytes())?;
        if !result.content.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        out.flush()?;
        note!(
            "fetched {} (HTTP {}{})",
            result.final_url,
            result.status,
            result.content_type.as_deref().map(|t| format!(", {t}")).unwrap_or_default()
        );
        if let Some(byline) = result.metadata.byline().filter(|_| result.pdf.is_none()) {
            note!("about: {byline}");
        }
        if let Some(pdf) = &result.pdf {
            note!(
                "pdf: {} pages, {} read{}{}",
                pdf.pages,
                pdf.pages_read,
                if pdf.pages_skipped.is_empty() {
                    String::new()
                } else {
                    format!(" ({} left out for their cost)", pdf.pages_skipped.len())
                },
                pdf.author.as_deref().map(|a| format!(", author {a}")).unwrap_or_default()
            );
        }
        note!("robots: {}", describe_robots(&result.robots));
        if let Some(render) = &result.render {
            note!(
                "render: {} ({} requests made, {} refused, {} ms in the browser after {} ms waiting for it)",
                if result.rendered { "rendered in the browser" } else { "not rendered" },
                render.requests_made,
                render.requests_refused,
                render.render_ms,
                render.wait_ms
            );
        }
        for alternative in &result.alternatives {
            match alternative.skipped_reason {
                None => note!("alternative: used {} (from {})", alternative.url, alternative.source.as_str()),
                Some(reason) => note!(
                    "alternative: skipped {} (from {}): {}{}",
                    alternative.url,
                    alternative.source.as_str(),
                    reason.as_str(),
                    alternative.detail.as_deref().map(|d| format!(", {d}")).unwrap_or_default()
                ),
            }
        }
        for warning in &result.warnings {
            eprintln!("warning[{}]: {}", warning.code, warning.detail);
        }
    }
    Ok(())
}

fn describe_robots(e: &RobotsEvidence) -> String {
    let mut text = format!("{} ({})", e.verdict, e.recommendation);
    if let Some(rule) = &e.rule {
        text.push_str(&format!(" by line {}: `{}: {}`", rule.line, rule.directive, rule.pattern));
    }
    if let Some(url) = &e.robots_url {
        text.push_str(&format!(" in {url}"));
        if let Some(status) = e.status {
            text.push_str(&format!(" (HTTP {status}"));
            if let Some(age) = e.cache_age_seconds.filter(|_| e.from_cache) {
                text.push_str(&format!(", cached {age} s ago"));
            }
            text.push(')');
        }
    }
    text
}
