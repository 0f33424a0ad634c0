//! `webcanon render`: an agent policy (TOML) to robots.txt, verified by the
//! core's matcher; `--preset` renders a ready-made policy (and
//! `--emit-policy` writes that policy, to edit); `--check` compares an
//! existing robots.txt with the policy on probe paths around its patterns.
//!
//! Exit status: 0 rendered (or `--check` found no difference); 1 `--check`
//! found differences; 2 bad usage or an invalid policy; 6 the rendered file
//! failed self-verification (a renderer bug; nothing is written).

use std::collections::HashSet;
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
    /// Render a ready-made policy instead of a file:
    /// block-training-allow-retrieval, allow-all-ai, block-all-ai or
    /// search-only.
    #[arg(long, value_name = "NAME")]
    preset: Option<Preset>,
    /// With --preset: write the preset's policy (TOML), to edit and render,
    /// instead of its robots.txt.
    #[arg(long, requires = "preset", conflicts_with = "check")]
    emit_policy: bool,
    /// Write the robots.txt (or, with --emit-policy, the policy) to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", conflicts_with = "check")]
    output: Option<PathBuf>,
    /// Compare an existing robots.txt with the policy instead of rendering,
    /// on the paths either file names and probe paths made around them.
    #[arg(long, value_name = "EXISTING_ROBOTS")]
    check: Option<PathBuf>,
    /// With --check: print the differences as JSON.
    #[arg(long, requires = "check")]
    json: bool,
}

/// Runs `webcanon render`.
pub fn run(args: RenderArgs) -> Result<ExitCode, CliError> {
    let (name, text) = match args.preset {
        Some(preset) if args.emit_policy => {
            write_output(args.output.as_deref(), &preset.policy_toml())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(preset) => (format!("preset {}", preset.name()), preset.policy_toml()),
        None => read_policy(args.policy.unwrap_or_else(|| PathBuf::from("-")))?,
    };
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
        Err(err @ (RenderError::Verification { .. } | RenderError::LicenseRecord { .. })) => {
            eprintln!("error: {name}: {err}");
            eprintln!(
                "hint: this is a bug in webcanon's renderer; nothing was written. Please report it with the policy file"
            );
            Ok(ExitCode::from(EXIT_VERIFICATION))
        }
        Err(err) => Err(CliError::usage(format!("{name}: {err}"))),
    }
}

/// The policy file's name as messages give it, and its text.
fn read_policy(path: PathBuf) -> Result<(String, String), CliError> {
    let bytes = read_all(Some(&path))?;
    let name = if path == Path::new("-") { "<stdin>".to_owned() } else { path.display().to_string() };
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{name}: the policy is not UTF-8")).with_hint("save the file as UTF-8"))?;
    Ok((name, text))
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
    /// Whether the path is a probe made around a pattern rather than a
    /// pattern either file names.
    probe: bool,
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

/// What the `(probe)` paths of `--check` are.
const PROBES: &str = "note: a path marked (probe) is named by neither file: it is made around a pattern \
    (the pattern's path, with `x` or `/sub` appended, its parent, `/`, `/robots.txt`; `*` read as nothing or `x`) \
    to show where the two files part";

/// The patterns the policy and the existing file write, as paths: a probe
/// is any other path.
fn written_paths(policy: &Policy, existing: &Robots) -> HashSet<String> {
    let accesses = std::iter::once(&policy.default_policy).chain(policy.agents.iter().map(|a| &a.access));
    let from_policy = accesses.flat_map(|a| a.patterns().map(str::to_owned).collect::<Vec<_>>());
    let from_file = existing.groups().flat_map(|g| g.rules().map(|r| r.pattern.to_owned()).collect::<Vec<_>>());
    from_policy.chain(from_file).collect()
}

fn check(policy: &Policy, existing: &Path, json: bool) -> Result<ExitCode, CliError> {
    let body = read_file(existing, "robots.txt")?;
    let robots = Robots::parse(&body);
    let diffs: Vec<Difference> = verify::compare(policy, &robots);
    let written = written_paths(policy, &robots);
    let is_probe = |path: &str| !written.contains(path);
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
                    probe: is_probe(&d.path),
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
            let probe = if is_probe(&d.path) { " (probe)" } else { "" };
            writeln!(
                out,
                "{} {}{probe}: policy {}s, existing {}s ({because})",
                d.agent,
                d.path,
                word(d.policy_allows),
                word(d.existing_allows)
            )?;
        }
    }
    out.flush()?;
    if diffs.iter().any(|d| is_probe(&d.path)) {
        crate::output::note!("{PROBES}");
    }
    if diffs.is_empty() {
        crate::output::note!("{}: same effect as the policy on every probed agent and path", existing.display());
        Ok(ExitCode::SUCCESS)
    } else {
        crate::output::note!("{}: {} difference(s) from the policy", existing.display(), diffs.len());
        Ok(ExitCode::from(EXIT_DIFFERS))
    }
}
