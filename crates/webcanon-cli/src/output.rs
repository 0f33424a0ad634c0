//! The flags every command takes: `--color`, `--quiet`, `--verbose`, set
//! once at start-up and read where output is written. Colour is decided
//! here only: clap's own help and errors, diagnostics and the audit report
//! all ask [`color_stdout`].

use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::OnceLock;

use clap::{ArgAction, Args, ColorChoice};

/// The heading of the flags every command takes, apart from its own.
pub const GLOBAL_HEADING: &str = "Global options";

/// The variables the command line reads, for `webcanon --help` and the
/// manual page: every option's variable (clap's `env`), taken from the
/// definitions of all the commands, then the variables read outside clap.
pub fn environment(command: &clap::Command) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    collect_variables(command, &mut rows);
    rows.push(("NO_COLOR".into(), "set and not empty: no colour unless --color always".into()));
    rows.push(("RUST_LOG".into(), "the log filter when neither --quiet nor --verbose is given".into()));
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut text = String::from("Environment (a flag given on the command line wins):\n");
    for (name, what) in rows {
        text.push_str(&format!("  {name:width$}  {what}\n"));
    }
    text.push_str("HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are never read: name a proxy with --proxy.");
    text
}

/// Every option variable of `command` and its subcommands, once each, in
/// the order of first definition: (`WEBCANON_AGENT`, `--agent: what it is`).
fn collect_variables(command: &clap::Command, rows: &mut Vec<(String, String)>) {
    for arg in command.get_arguments() {
        let (Some(name), Some(long)) = (arg.get_env().and_then(|v| v.to_str()), arg.get_long()) else { continue };
        if rows.iter().any(|(seen, _)| seen == name) {
            continue;
        }
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        let first = help.split(". ").next().unwrap_or_default().trim_end_matches('.');
        rows.push((name.to_string(), format!("--{long}: {first}")));
    }
    for sub in command.get_subcommands() {
        collect_variables(sub, rows);
    }
}

/// The global flags, accepted before or after the subcommand, listed under
/// their own heading in every command's help.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = GLOBAL_HEADING)]
pub struct GlobalArgs {
    /// When to colour output: auto (a terminal, and `NO_COLOR` unset or
    /// empty), always, never. The flag wins over `NO_COLOR`.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
    /// Print no summary, notes or progress bars on stderr (warnings and
    /// errors still), and log only errors.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Log more on stderr (repeat for more: -v info, -vv debug, -vvv
    /// trace; `serve` starts at info). Replaces `RUST_LOG`.
    #[arg(long, short, global = true, action = ArgAction::Count)]
    pub verbose: u8,
}

/// The settings read by the output code, once parsed.
#[derive(Debug, Clone, Copy)]
struct Settings {
    color: ColorChoice,
    quiet: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Records the global flags for the rest of the run and starts logging;
/// `serve` logs at info by default, the other commands only when asked.
pub fn init(args: &GlobalArgs, serving: bool) {
    let _ = SETTINGS.set(Settings { color: args.color, quiet: args.quiet });
    init_logging(args, serving);
}

/// Whether `--quiet` was given: summaries, notes and progress are left out.
pub fn quiet() -> bool {
    SETTINGS.get().is_some_and(|s| s.quiet)
}

/// Whether what goes to stdout is coloured.
pub fn color_stdout() -> bool {
    let choice = SETTINGS.get().map_or(ColorChoice::Auto, |s| s.color);
    resolve(choice, std::io::stdout().is_terminal())
}

/// `--color` against the terminal and `NO_COLOR` (set and not empty: no
/// colour, <https://no-color.org>).
fn resolve(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// The `--color` choice as written on the command line, read before clap
/// parses it so that clap's own help and errors follow it too. The last
/// one given wins, like clap's; nothing after `--` is looked at.
pub fn color_from_args(args: impl IntoIterator<Item = OsString>) -> ColorChoice {
    let mut choice = ColorChoice::Auto;
    let mut args = args.into_iter().skip(1);
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str() else { continue };
        let value = match arg {
            "--" => break,
            "--color" => args.next().and_then(|v| v.into_string().ok()),
            _ => arg.strip_prefix("--color=").map(str::to_string),
        };
        match value.as_deref() {
            Some("always") => choice = ColorChoice::Always,
            Some("never") => choice = ColorChoice::Never,
            Some("auto") => choice = ColorChoice::Auto,
            _ => {}
        }
    }
    choice
}

/// Logs to stderr. `-q` logs errors only, `-v`… raise the level from the
/// default (off, or info for `serve`); without either, `RUST_LOG` filters.
fn init_logging(args: &GlobalArgs, serving: bool) {
    use tracing_subscriber::EnvFilter;
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    let default = if serving { 3 } else { 0 };
    let filter = if args.quiet {
        EnvFilter::new("error")
    } else if args.verbose > 0 {
        let from = if serving { default } else { 2 };
        EnvFilter::new(LEVELS[(from + usize::from(args.verbose)).min(LEVELS.len() - 1)])
    } else {
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(LEVELS[default]))
    };
    let color = resolve(SETTINGS.get().map_or(ColorChoice::Auto, |s| s.color), std::io::stderr().is_terminal());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color)
        .with_target(false)
        .try_init();
}

/// `eprintln!` unless `--quiet`: for summaries and notes, never for
/// warnings or errors.
macro_rules! note {
    ($($arg:tt)*) => {
        if !$crate::output::quiet() {
            eprintln!($($arg)*);
        }
    };
}
pub(crate) use note;

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        std::iter::once("webcanon").chain(list.iter().copied()).map(OsString::from).collect()
    }

    #[test]
    fn color_is_read_before_parsing_last_one_winning() {
        assert_eq!(color_from_args(args(&["fetch", "URL"])), ColorChoice::Auto);
        assert_eq!(color_from_args(args(&["--color", "always", "fetch"])), ColorChoice::Always);
        assert_eq!(color_from_args(args(&["fetch", "--color=never"])), ColorChoice::Never);
        assert_eq!(color_from_args(args(&["--color=never", "x", "--color", "always"])), ColorChoice::Always);
        assert_eq!(color_from_args(args(&["x", "--", "--color=always"])), ColorChoice::Auto);
    }

    #[test]
    fn the_flag_wins_over_the_terminal() {
        assert!(resolve(ColorChoice::Always, false));
        assert!(!resolve(ColorChoice::Never, true));
        assert!(!resolve(ColorChoice::Auto, false));
    }
}
