//! `webcanon keys`: the Ed25519 keys that sign requests (Web Bot Auth), and
//! the key directory that publishes their public halves.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use webcanon_client::bot_auth::{DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH, KeyError, SigningKey, directory};

use crate::error::CliError;

/// `webcanon keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make an Ed25519 key pair: the private key goes to a new file readable
    /// by its owner only (mode 0600), never to the terminal; its key id is
    /// printed.
    Generate(GenerateArgs),
    /// Print the key directory (JWKS) listing the public keys of the key
    /// files given, to serve at /.well-known/http-message-signatures-directory.
    ///
    /// Rotation: list the new key with the old one, publish, sign with the
    /// new key, and drop the old one once its last signatures have expired.
    Directory(DirectoryArgs),
}

/// Arguments of `webcanon keys generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The new key file (PKCS#8 PEM); an existing file is never overwritten.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Arguments of `webcanon keys directory`.
#[derive(Debug, Args)]
pub struct DirectoryArgs {
    /// A key file (PEM or private JWK); repeatable, listed in the order given.
    #[arg(long = "key", value_name = "FILE", required = true)]
    keys: Vec<PathBuf>,
}

/// Runs `webcanon keys`.
pub fn run(command: KeysCommand) -> Result<ExitCode, CliError> {
    match command {
        KeysCommand::Generate(args) => {
            let parent = args.out.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|dir| !dir.is_dir()) {
                return Err(CliError::usage(format!(
                    "cannot write {}: the directory {} does not exist",
                    args.out.display(),
                    dir.display()
                ))
                .with_hint(format!(
                    "create it first (`mkdir -p {}`), or give a path in an existing one",
                    dir.display()
                )));
            }
            let key = SigningKey::generate().map_err(|e| CliError::usage(e.to_string()))?;
            key.write_new(&args.out).map_err(|e| {
                let exists = matches!(&e, KeyError::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists);
                let err = CliError::usage(e.to_string());
                if exists { err.with_hint("give a new file: an existing key is never overwritten") } else { err }
            })?;
            println!("{}", key.key_id());
            eprintln!(
                "wrote {} (private, mode 0600); publish its public key with `webcanon keys directory --key {}`",
                args.out.display(),
                args.out.display()
            );
        }
        KeysCommand::Directory(args) => {
            let keys = args
                .keys
                .iter()
                .map(|path| SigningKey::load(path).map_err(|e| CliError::usage(e.to_string())))
                .collect::<Result<Vec<_>, _>>()?;
            let stdout = io::stdout();
            let mut out = stdout.lock();
            serde_json::to_writer_pretty(&mut out, &directory::jwks(&keys)).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
            eprintln!("serve this at {DIRECTORY_PATH} with Content-Type: {DIRECTORY_MEDIA_TYPE}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
