//! `webcanon robots check | eval | lint`. Each reads its robots.txt from
//! `--robots FILE`; the agent comes from `--agent` or `WEBCANON_AGENT`, as
//! on every command that has the flag.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use webcanon_client::agent::ProductToken;
use webcanon_core::robots::{Decision, LintCode, Robots, RuleRef};

use crate::diagnostics::{Counts, Finding, source_lines, use_color, write_diagnostic};
use crate::error::CliError;
use crate::input::{next_line, open_lines, read_all, read_file, validate_url};

/// The `robots` subcommands.
#[derive(Debug, Subcommand)]
pub enum RobotsCommand {
    /// Show the verdict and the matched rule for each URL.
    Check(CheckArgs),
    /// Decide a list of URLs, one per line, fast: `allow` or `disallow`, a tab, the URL.
    Eval(EvalArgs),
    /// Report problems in a robots.txt file, compiler-style.
    Lint(LintArgs),
}

/// Arguments of `webcanon robots check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The robots.txt file.
    #[arg(long, value_name = "FILE")]
    robots: PathBuf,
    /// The crawler's product token (e.g. `GPTBot`), matched against `User-agent` lines.
    #[arg(long, value_name = "TOKEN", env = "WEBCANON_AGENT")]
    agent: ProductToken,
    /// URLs (absolute, or paths starting with `/`).
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
    /// Print one JSON object per URL instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `webcanon robots eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The robots.txt file (not with `--jsonl`).
    #[arg(long, value_name = "FILE", required_unless_present = "jsonl", conflicts_with = "jsonl")]
    robots: Option<PathBuf>,
    /// The crawler's product token (not with `--jsonl`).
    #[arg(long, value_name = "TOKEN", env = "WEBCANON_AGENT", required_unless_present = "jsonl")]
    agent: Option<ProductToken>,
    /// One JSON object per output line instead of `allow<TAB>URL`.
    #[arg(long)]
    json: bool,
    /// Each input line is `{"robots": BODY, "agent": TOKEN, "url": URL}`; output as with `--json`.
    #[arg(long)]
    jsonl: bool,
    /// The input file; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,
}

/// Arguments of `webcanon robots lint`.
#[derive(Debug, Args)]
#[command(override_usage = "webcanon robots lint [--json] --robots <FILE>\n       webcanon robots lint --explain")]
pub struct LintArgs {
    /// The robots.txt file (`-` for standard input); required but with `--explain`.
    #[arg(long, value_name = "FILE", required_unless_present_any = ["explain", "file"], conflicts_with = "file")]
    robots: Option<PathBuf>,
    /// The file as a bare argument, as earlier versions took it (`robots lint FILE`).
    #[arg(value_name = "FILE", hide = true)]
    file: Option<PathBuf>,
    /// Print the diagnostics as one JSON object.
    #[arg(long)]
    json: bool,
    /// List every lint code with its severity and meaning, then exit.
    #[arg(long)]
    explain: bool,
}

/// Runs a `robots` subcommand.
pub fn run(command: RobotsCommand) -> Result<ExitCode, CliError> {
    match command {
        RobotsCommand::Check(args) => check(args),
        RobotsCommand::Eval(args) if args.jsonl => eval_jsonl(args.input.as_deref()),
        RobotsCommand::Eval(args) => eval(args),
        RobotsCommand::Lint(args) => lint(args),
    }
}

/// The JSON shape of one decision; shared by `check --json` and `eval --json`.
#[derive(Debug, Serialize)]
struct DecisionJson<'a> {
    url: &'a str,
    allowed: bool,
    verdict: &'static str,
    rule: Option<RuleRef<'a>>,
}

impl<'a> DecisionJson<'a> {
    fn new(url: &'a str, decision: &Decision<'a>) -> Self {
        DecisionJson { url, allowed: decision.is_allowed(), verdict: decision.verdict.as_str(), rule: decision.rule }
    }
}

/// The JSON shape of a line that could not be decided: its URL when one
/// could be read from it (`null` otherwise), its line number and why.
#[derive(Debug, Serialize)]
struct ErrorJson<'a> {
    url: Option<&'a str>,
    line: u64,
    error: String,
}

fn load_robots(path: &Path) -> Result<Robots, CliError> {
    let body = read_file(path, "robots file")?;
    Ok(Robots::parse(&body))
}

fn warn_not_robots(robots: &Robots, path: &Path) {
    if let Some(kind) = robots.not_robots() {
        eprintln!(
            "warning: `{}` does not look like a robots.txt ({kind:?}); verdicts come from whatever rules could be read",
            path.display()
        );
    }
}

fn check(args: CheckArgs) -> Result<ExitCode, CliError> {
    for (i, url) in args.urls.iter().enumerate() {
        if let Err(reason) = validate_url(url) {
            return Err(CliError::usage(format!("invalid URL `{url}` (argument {}): {reason}", i + 1))
                .with_hint("give absolute http(s) URLs or paths starting with `/`"));
        }
    }
    let robots = load_robots(&args.robots)?;
    warn_not_robots(&robots, &args.robots);
    let rules = robots.rules_for(&args.agent);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        for url in &args.urls {
            serde_json::to_writer(&mut out, &DecisionJson::new(url, &rules.decide(url))).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
        }
    } else {
        let groups: Vec<String> = robots
            .groups_for(&args.agent)
            .map(|g| {
                let names: Vec<&str> = g.user_agents().map(|a| a.value).collect();
                format!("line {} (User-agent: {})", g.line(), names.join(", "))
            })
            .collect();
        if groups.is_empty() {
            writeln!(out, "agent {}: no group applies, so every URL is allowed", args.agent)?;
        } else {
            writeln!(out, "agent {}: rules from the group at {}", args.agent, groups.join("; "))?;
        }
        for url in &args.urls {
            let decision = rules.decide(url);
            let word = if decision.is_allowed() { "allow" } else { "disallow" };
            writeln!(out, "{word:<9}{url}")?;
            match decision.rule {
                Some(rule) => {
                    writeln!(
                        out,
                        "         {} by line {}: {}: {}",
                        decision.verdict.as_str(),
                        rule.line,
                        rule.directive,
                        rule.pattern
                    )?;
                }
                None => writeln!(out, "         {}: no rule matched", decision.verdict.as_str())?,
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn eval(args: EvalArgs) -> Result<ExitCode, CliError> {
    let (Some(robots_path), Some(agent)) = (args.robots.as_deref(), args.agent.as_ref()) else {
        return Err(CliError::usage("`--robots` and `--agent` are required without `--jsonl`"));
    };
    let robots = load_robots(robots_path)?;
    warn_not_robots(&robots, robots_path);
    let rules = robots.rules_for(agent);
    let (name, mut reader) = open_lines(args.input.as_deref())?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    let mut bad = 0u64;
    while next_line(&mut *reader, &mut buf)? {
        line_no += 1;
        let checked =
            std::str::from_utf8(&buf).map_err(|_| "not valid UTF-8").and_then(|url| validate_url(url).map(|()| url));
        match checked {
            Ok(url) => {
                let decision = rules.decide(url);
                if args.json {
                    serde_json::to_writer(&mut out, &DecisionJson::new(url, &decision)).map_err(io::Error::from)?;
                    out.write_all(b"\n")?;
                } else {
                    out.write_all(if decision.is_allowed() { b"allow\t" } else { b"disallow\t" })?;
                    out.write_all(url.as_bytes())?;
                    out.write_all(b"\n")?;
                }
            }
            Err(reason) => {
                bad += 1;
                let text = String::from_utf8_lossy(&buf);
                bad_line(&mut out, args.json, &name, line_no, &text, reason)?;
            }
        }
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("{bad} of {line_no} lines in {name} could not be decided");
    }
    Ok(ExitCode::SUCCESS)
}

/// Reports a bad input line on stderr and keeps the output aligned with the
/// input: `error<TAB>LINE` in text mode, an error object in JSON mode.
fn bad_line(out: &mut impl Write, json: bool, name: &str, line: u64, text: &str, reason: &str) -> io::Result<()> {
    eprintln!("error: {name}:{line}: {reason}: `{text}`");
    if json {
        serde_json::to_writer(&mut *out, &ErrorJson { url: Some(text), line, error: reason.to_string() })?;
        out.write_all(b"\n")
    } else {
        writeln!(out, "error\t{text}")
    }
}

#[derive(Debug, Deserialize)]
struct JsonlCase {
    robots: String,
    agent: String,
    url: String,
}

fn eval_jsonl(input: Option<&Path>) -> Result<ExitCode, CliError> {
    let (name, mut reader) = open_lines(input)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    let mut bad = 0u64;
    while next_line(&mut *reader, &mut buf)? {
        line_no += 1;
        let case: Result<JsonlCase, String> =
            serde_json::from_slice(&buf).map_err(|e| format!("not a {{\"robots\", \"agent\", \"url\"}} object: {e}"));
        let case = case
            .and_then(|c| ProductToken::new(&c.agent).map(|_| c).map_err(|e| format!("`agent`: {e}")))
            .and_then(|c| validate_url(&c.url).map(|()| c).map_err(|e| format!("`url`: {e}")));
        match case {
            Ok(case) => {
                let robots = Robots::parse(case.robots.as_bytes());
                let decision = robots.decide(&case.agent, &case.url);
                serde_json::to_writer(&mut out, &DecisionJson::new(&case.url, &decision)).map_err(io::Error::from)?;
                out.write_all(b"\n")?;
            }
            Err(reason) => {
                bad += 1;
                // The line holds a whole robots.txt: name its URL, if any.
                let url = serde_json::from_slice::<serde_json::Value>(&buf)
                    .ok()
                    .and_then(|v| v.get("url").and_then(|u| u.as_str()).map(str::to_string));
                eprintln!("error: {name}:{line_no}: {reason}");
                serde_json::to_writer(&mut out, &ErrorJson { url: url.as_deref(), line: line_no, error: reason })
                    .map_err(io::Error::from)?;
                out.write_all(b"\n")?;
            }
        }
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("{bad} of {line_no} lines in {name} could not be decided");
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Serialize)]
struct LintJson<'a> {
    file: String,
    diagnostics: Vec<Finding<'a>>,
    errors: usize,
    warnings: usize,
    infos: usize,
}

fn lint(args: LintArgs) -> Result<ExitCode, CliError> {
    if args.explain {
        let mut out = io::stdout().lock();
        for code in LintCode::ALL {
            writeln!(out, "{}  {:<24} {:<8} {}", code.code(), code.name(), code.severity().as_str(), code.summary())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.robots.or(args.file).unwrap_or_else(|| PathBuf::from("-"));
    let body = read_all(Some(&path))?;
    let name = if path == Path::new("-") { "<stdin>".to_string() } else { path.display().to_string() };
    let diagnostics = Robots::parse(&body).lint();
    let Counts { errors, warnings, infos } = Counts::of(diagnostics.iter().map(|d| d.severity));
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.json {
        let report = LintJson {
            file: name,
            diagnostics: diagnostics.iter().map(Finding::from).collect(),
            errors,
            warnings,
            infos,
        };
        serde_json::to_writer_pretty(&mut out, &report).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        let color = use_color();
        let lines = source_lines(&body);
        for d in &diagnostics {
            write_diagnostic(&mut out, &Finding::from(d), &name, &lines, color)?;
        }
        writeln!(out, "{name}: {errors} error(s), {warnings} warning(s), {infos} note(s)")?;
    }
    out.flush()?;
    Ok(if errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
