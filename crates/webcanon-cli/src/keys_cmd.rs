//! `webcanon keys`: the Ed25519 keys that sign requests (Web Bot Auth), and
//! the key directory that publishes their public halves.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use webcanon_client::agent::ProductToken;
use webcanon_client::bot_auth::card::{AgentCard, CardKeys, Trigger};
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
    /// Print the agent's Signature Agent Card (draft-meunier-webbotauth-registry-03):
    /// its name, contacts, robots.txt product token and key directory, to
    /// serve at --client-id.
    Card(Box<CardArgs>),
}

/// Arguments of `webcanon keys card`.
#[derive(Debug, Args)]
pub struct CardArgs {
    /// The https URL the card is served at (`client_id`); clients check
    /// that the card names the URL they fetched.
    #[arg(long, value_name = "URL")]
    client_id: String,
    /// The agent's robots.txt product token (`rfc9309-product-token`).
    #[arg(long, value_name = "TOKEN")]
    product_token: ProductToken,
    /// A friendly name (`client_name`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// A page describing the agent (`client_uri`).
    #[arg(long, value_name = "URL")]
    about: Option<String>,
    /// A URI to reach the operator (`mailto:…`); repeatable.
    #[arg(long = "contact", value_name = "URI")]
    contacts: Vec<String>,
    /// The key directory's https URL (`jwks_uri`); default: the well-known
    /// directory of --client-id's origin.
    #[arg(long, value_name = "URL", conflicts_with = "keys")]
    jwks_uri: Option<String>,
    /// List this key file's public key inline (`jwks`) instead of a
    /// `jwks_uri`; repeatable.
    #[arg(long = "key", value_name = "FILE")]
    keys: Vec<PathBuf>,
    /// `fetcher` (a user asks for each request) or `crawler` (autonomous).
    #[arg(long, value_name = "TRIGGER", value_parser = ["fetcher", "crawler"])]
    trigger: Option<String>,
    /// What the content is used for (`purpose`: `search`, `tdm`, …).
    #[arg(long, value_name = "PURPOSE")]
    purpose: Option<String>,
    /// The User-Agent the agent sends (`expected-user-agent`).
    #[arg(long, value_name = "TEXT")]
    user_agent: Option<String>,
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
            eprintln!(
                "serve this over https at {DIRECTORY_PATH} with Content-Type: {DIRECTORY_MEDIA_TYPE}, \
                 answering 200 itself: verifiers follow no redirect"
            );
        }
        KeysCommand::Card(args) => print_card(*args)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the Signature Agent Card of `webcanon keys card`.
fn print_card(args: CardArgs) -> Result<(), CliError> {
    let keys = if args.keys.is_empty() {
        CardKeys::Uri(args.jwks_uri)
    } else {
        let keys = args.keys.iter().map(|path| SigningKey::load(path).map_err(|e| CliError::usage(e.to_string())));
        CardKeys::Inline(keys.collect::<Result<Vec<_>, _>>()?)
    };
    let trigger = args.trigger.as_deref().map(|t| if t == "crawler" { Trigger::Crawler } else { Trigger::Fetcher });
    let card = AgentCard {
        client_id: args.client_id,
        name: args.name,
        about: args.about,
        contacts: args.contacts,
        keys,
        product_token: args.product_token,
        trigger,
        purpose: args.purpose,
        user_agent: args.user_agent,
    };
    let json = card.to_json().map_err(|e| CliError::usage(e.to_string()))?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    serde_json::to_writer_pretty(&mut out, &json).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    eprintln!(
        "serve this at {} with Content-Type: application/json, answering 200 itself: clients follow no redirect",
        card.client_id
    );
    Ok(())
}
