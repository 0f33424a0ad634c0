//! `webcanon render`: an agent policy (TOML) to robots.txt, verified by the
//! core's matcher; `--preset` writes a starting policy; `--check` compares an
//! existing robots.txt with the policy.
//!
//! Exit status: 0 rendered (or `--check` found no difference); 1 `--check`
//! found differences; 2 bad usage or an invalid policy; 6 the rendered file
//! failed self-verification (a renderer bug; nothing is written).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use webcanon_core::robots::Robots;
use webcanon_render::verify::{self, Difference};
use webcanon_render::{Policy, Preset, RenderError, render, warnings};

use crate::error::CliError;
use crate::input::{read_all, read_file};

/// Exit status when `--check` finds that the existing file differs.
const EXIT_DIFFERS: u8 = 1;
/// Exit status when the rendered file fails self-verification.
const EXIT_VERIFICATION: u8 = 6;

/// Arguments of `webcanon render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The policy file (TOML); `-` for standard input.
    #[arg(value_name = "POLICY", required_unless_present = "preset", conflicts_with = "preset")]
    policy: Option<PathBuf>,
    /// Write a starting policy instead: block-training-allow-retrieval,
    /// allow-all-ai, block-all-ai or search-only.
    #[arg(long, value_name = "NAME")]
    preset: Option<Preset>,
    /// Write the robots.txt (or, with --preset, the policy) to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", conflicts_with = "check")]
    output: Option<PathBuf>,
    /// Compare an existing robots.txt with the policy instead of rendering.
    #[arg(long, value_name = "EXISTING_ROBOTS", conflicts_with = "preset")]
    check: Option<PathBuf>,
    /// With --check: print the differences as JSON.
    #[arg(long, requires = "check")]
    json: bool,
}

/// Runs `webcanon render`.
pub fn run(args: RenderArgs) -> Result<ExitCode, CliError> {
    if let Some(preset) = args.preset {
        write_output(args.output.as_deref(), &preset.policy_toml())?;
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.policy.unwrap_or_else(|| PathBuf::from("-"));
    let bytes = read_all(Some(&path))?;
    let name = if path == Path::new("-") { "<stdin>".to_owned() } else { path.display().to_string() };
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{name}: the policy is not UTF-8")).with_hint("save the file as UTF-8"))?;
    let policy = Policy::from_toml(&text).map_err(|err| {
        CliError::usage(format!("{name}: {err}"))
            .with_hint("see `webcanon render --help` and the policy format in README.md (`## webcanon render`)")
    })?;
    for warning in warnings::check(&policy) {
        eprintln!("warning: {name}: {warning}");
    }
    if let Some(existing) = &args.check {
        return check(&policy, existing, args.json);
    }
    match render(&policy) {
        Ok(rendered) => {
            write_output(args.output.as_deref(), &rendered.text)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err @ RenderError::Verification { .. }) => {
            eprintln!("error: {name}: {err}");
            eprintln!(
                "hint: this is a bug in webcanon's renderer; nothing was written. Please report it with the policy file"
            );
            Ok(ExitCode::from(EXIT_VERIFICATION))
        }
        Err(err) => Err(CliError::usage(format!("{name}: {err}"))),
    }
}

fn write_output(path: Option<&Path>, text: &str) -> Result<(), CliError> {
    match path {
        Some(path) => {
            fs::write(path, text).map_err(|err| CliError::usage(format!("cannot write `{}`: {err}", path.display())))
        }
        None => {
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(())
        }
    }
}

#[derive(Serialize)]
struct JsonCheck<'a> {
    existing: String,
    same_effect: bool,
    differences: Vec<JsonDifference<'a>>,
}

#[derive(Serialize)]
struct JsonDifference<'a> {
    agent: &'a str,
    path: &'a str,
    policy: &'static str,
    existing: &'static str,
    /// The existing file's rule that decided; null when no rule matched.
    rule: Option<JsonRule<'a>>,
}

#[derive(Serialize)]
struct JsonRule<'a> {
    line: u32,
    directive: &'static str,
    pattern: &'a str,
}

fn word(allowed: bool) -> &'static str {
    if allowed { "allow" } else { "disallow" }
}

fn check(policy: &Policy, existing: &Path, json: bool) -> Result<ExitCode, CliError> {
    let body = read_file(existing, "robots.txt")?;
    let robots = Robots::parse(&body);
    let diffs: Vec<Difference> = verify::compare(policy, &robots);
    let mut out = io::stdout().lock();
    if json {
        let report = JsonCheck {
            existing: existing.display().to_string(),
            same_effect: diffs.is_empty(),
            differences: diffs
                .iter()
                .map(|d| JsonDifference {
                    agent: &d.agent,
                    path: &d.path,
                    policy: word(d.policy_allows),
                    existing: word(d.existing_allows),
                    rule: d.rule.as_ref().map(|r| JsonRule {
                        line: r.line,
                        directive: r.directive.as_str(),
                        pattern: &r.pattern,
                    }),
                })
                .collect(),
        };
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        for d in &diffs {
            let because = match &d.rule {
                Some(r) => format!("line {}: {}: {}", r.line, r.directive, r.pattern),
                None => "no rule matches".to_owned(),
            };
            writeln!(
                out,
                "{} {}: policy {}s, existing {}s ({because})",
                d.agent,
                d.path,
                word(d.policy_allows),
                word(d.existing_allows)
            )?;
        }
    }
    out.flush()?;
    if diffs.is_empty() {
        crate::output::note!("{}: same effect as the policy on every probed agent and path", existing.display());
        Ok(ExitCode::SUCCESS)
    } else {
        crate::output::note!("{}: {} difference(s) from the policy", existing.display(), diffs.len());
        Ok(ExitCode::from(EXIT_DIFFERS))
    }
}
