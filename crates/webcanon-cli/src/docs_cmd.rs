//! `webcanon completions SHELL` and `webcanon man`: shell completions and
//! manual pages generated from the command-line definition itself, so they
//! never fall behind it.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use clap_complete::Shell;

use crate::error::CliError;

/// Arguments of `webcanon completions`.
#[derive(Debug, Args)]
#[command(after_help = "Install, for example:
  bash:       webcanon completions bash > ~/.local/share/bash-completion/completions/webcanon
  zsh:        webcanon completions zsh > ~/.zfunc/_webcanon   (with fpath+=(~/.zfunc) before compinit)
  fish:       webcanon completions fish > ~/.config/fish/completions/webcanon.fish
  PowerShell: webcanon completions powershell >> $PROFILE")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Arguments of `webcanon man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command (webcanon.1, webcanon-fetch.1, …) into
    /// this directory instead of printing webcanon(1) on stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `webcanon completions`: the script for `command` (the whole
/// command line) on stdout.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> Result<ExitCode, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "webcanon", &mut script);
    io::stdout().lock().write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `webcanon man`: webcanon(1) in roff on stdout, or every page into
/// `--dir`; `command` is the whole command line.
pub fn man(args: ManArgs, command: clap::Command) -> Result<ExitCode, CliError> {
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::usage(format!("cannot create {}: {e}", dir.display())))?;
            clap_mangen::generate_to(command, &dir)
                .map_err(|e| CliError::usage(format!("cannot write the pages into {}: {e}", dir.display())))?;
            crate::output::note!("wrote the manual pages into {}", dir.display());
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            io::stdout().lock().write_all(&page)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
