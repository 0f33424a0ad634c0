//! `webcanon agents`: the known-agents registry.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Args;
use webcanon_core::agents::{Category, registry};

use crate::error::CliError;

/// Arguments of `webcanon agents`.
#[derive(Debug, Args)]
pub struct AgentsArgs {
    /// Only this category: search, ai-training, ai-search, ai-user-fetch,
    /// opt-out-token, seo or legacy.
    #[arg(long, value_name = "C")]
    category: Option<Category>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `webcanon agents`.
pub fn run(args: AgentsArgs) -> Result<ExitCode, CliError> {
    let agents: Vec<_> = registry().all().iter().filter(|a| args.category.is_none_or(|c| a.category == c)).collect();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &agents).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        let width = agents.iter().map(|a| a.token.len()).max().unwrap_or(5).max(5);
        writeln!(out, "{:<width$}  {:<13}  {:<16}  DESCRIPTION", "TOKEN", "CATEGORY", "OPERATOR")?;
        for a in &agents {
            let mut description: String = a.description.chars().take(70).collect();
            if a.description.chars().count() > 70 {
                description.push('…');
            }
            if let Some(successor) = a.successor {
                description = format!("(use {successor}) {description}");
            }
            let operator: String = a.operator.chars().take(16).collect();
            writeln!(out, "{:<width$}  {:<13}  {:<16}  {description}", a.token, a.category.as_str(), operator)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
