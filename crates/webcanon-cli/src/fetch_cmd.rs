//! `webcanon fetch`: a page for an LLM, the way the site owner asked.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;
use webcanon_client::FetchResult;
use webcanon_client::browser::RenderMode;
use webcanon_client::markdown::{ContentFormat, ContentShape, ImageStyle, LinkStyle};
use webcanon_core::policy::RobotsEvidence;

use crate::client_args::{ClientArgs, report_error, runtime};
use crate::error::CliError;
use crate::output::note;
use crate::signal::shutdown_signal;

/// Arguments of `webcanon fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The URL to fetch (http or https).
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    client: ClientArgs,
    /// The page body limit in bytes, counted after decompression.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// Print one JSON object (the result, or an error object) instead of Markdown.
    #[arg(long)]
    json: bool,
    /// Do not look for a Markdown copy of the page (llms.txt, rel="alternate",
    /// Accept: text/markdown): fetch the URL itself.
    #[arg(long)]
    no_alternatives: bool,
    /// The content as Markdown or as plain text.
    #[arg(long, value_name = "markdown|text", default_value = "markdown", value_parser = str::parse::<ContentFormat>)]
    format: ContentFormat,
    /// Links where they are (inline), as numbered references listed once
    /// at the end (references), or as their text only (drop).
    #[arg(long, value_name = "inline|references|drop", default_value = "references", value_parser = str::parse::<LinkStyle>)]
    links: LinkStyle,
    /// Render the page in headless Chromium before extracting its text (for
    /// pages whose text arrives through scripts): `--render` alone is `on`;
    /// `auto` renders only a page with little text but scripts. Every
    /// request the page makes goes through the SSRF guard and robots.txt.
    /// Its mode is optional, so a bare `--render` goes after the URL.
    #[arg(long, value_name = "on|auto|off", num_args = 0..=1, default_value = "off", default_missing_value = "on", value_parser = render_mode)]
    render: RenderMode,
    /// Images as Markdown images (keep) or not at all (drop).
    #[arg(long, value_name = "keep|drop", default_value = "drop", value_parser = str::parse::<ImageStyle>)]
    images: ImageStyle,
}

/// `--render`'s mode, with a hint when it took the URL for one.
fn render_mode(given: &str) -> Result<RenderMode, String> {
    given.parse().map_err(|e: webcanon_client::browser::UnknownRenderMode| {
        if given.contains("://") {
            format!("{e} (a bare --render goes after the URL: `webcanon fetch URL --render`)")
        } else {
            e.to_string()
        }
    })
}

/// The exit status of a fetch stopped by SIGINT or SIGTERM (128 + SIGINT,
/// as shells report an interrupted command).
const INTERRUPTED: u8 = 130;

/// Runs `webcanon fetch`.
pub fn run(args: FetchArgs) -> Result<ExitCode, CliError> {
    let client = args
        .client
        .builder()?
        .max_bytes(args.max_bytes)
        .alternatives(!args.no_alternatives)
        .content_shape(ContentShape { format: args.format, links: args.links, images: args.images })
        .render(args.render)
        .build()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let runtime = runtime()?;
    let outcome = runtime.block_on(async {
        if args.render == RenderMode::Off {
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
            print_result(&result, args.json, args.format)?;
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
