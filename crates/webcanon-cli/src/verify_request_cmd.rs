//! `webcanon verify-request`: are these requests signed by an agent of
//! this key directory (Web Bot Auth)?

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use webcanon_client::bot_auth::{KeyDirectory, RequestHead, Verdict, Verifier};

use crate::error::CliError;
use crate::input::read_file;

/// The most request text read, in bytes.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Arguments of `webcanon verify-request`.
#[derive(Debug, Args)]
pub struct VerifyRequestArgs {
    /// Request heads (request line, then `Name: value` header lines; requests
    /// apart by a blank line), from a log or a capture; `-` or none for
    /// standard input.
    #[arg(value_name = "FILE")]
    requests: Option<PathBuf>,
    /// The agent's key directory (JWKS, as served at
    /// /.well-known/http-message-signatures-directory); repeatable.
    #[arg(long = "directory", value_name = "FILE", required = true)]
    directories: Vec<PathBuf>,
    /// Verify as of this time (Unix seconds), such as when a logged request
    /// was received; default: now.
    #[arg(long, value_name = "UNIX_SECONDS")]
    at: Option<i64>,
    /// One JSON object per request instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `webcanon verify-request`: exit 0 when every request is validly
/// signed, 1 when one is not, 2 on bad usage or unreadable input.
pub fn run(args: VerifyRequestArgs) -> Result<ExitCode, CliError> {
    let mut directory: Option<KeyDirectory> = None;
    for path in &args.directories {
        let bytes = read_file(path, "key directory")?;
        let text = String::from_utf8(bytes)
            .map_err(|_| CliError::usage(format!("key directory `{}` is not UTF-8", path.display())))?;
        let parsed = KeyDirectory::parse(&text).map_err(|e| CliError::usage(format!("`{}`: {e}", path.display())))?;
        match &mut directory {
            Some(d) => d.merge(parsed),
            None => directory = Some(parsed),
        }
    }
    let directory = directory.ok_or_else(|| CliError::usage("no --directory given"))?;
    let text = read_requests(args.requests.as_ref())?;
    let heads = RequestHead::parse_many(&text).map_err(|e| CliError::usage(e.to_string()))?;
    if heads.is_empty() {
        return Err(CliError::usage("no request in the input")
            .with_hint("give request heads: `GET / HTTP/1.1`, `Host: …`, the Signature headers"));
    }
    let now = args.at.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    let mut verifier = Verifier::new(directory);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut all_valid = true;
    for (index, head) in heads.iter().enumerate() {
        let number = index + 1;
        let verdict = verifier.verify(head, now);
        all_valid &= matches!(verdict, Verdict::Valid(_));
        // Which form of Signature-Agent the request used (draft §5.2.1):
        // `dictionary`, `legacy`, or none.
        let form = head.signature_agent_form();
        if args.json {
            let value = match &verdict {
                Verdict::Valid(signer) => serde_json::json!({
                    "request": number, "valid": true, "agent": signer.agent,
                    "signature_agent_form": form, "key_id": signer.key_id, "expires": signer.expires,
                }),
                Verdict::Invalid(reason) => serde_json::json!({
                    "request": number, "valid": false, "signature_agent_form": form, "reason": reason.code(),
                    "message": reason.to_string(),
                }),
            };
            serde_json::to_writer(&mut out, &value).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
        } else {
            let seen = match form {
                Some(form) => format!(" (Signature-Agent: {form} form)"),
                None => String::new(),
            };
            match &verdict {
                Verdict::Valid(signer) => writeln!(
                    out,
                    "request {number}: valid: signed by {} with key {}{seen}",
                    signer.agent.as_deref().unwrap_or("(no Signature-Agent)"),
                    signer.key_id
                )?,
                Verdict::Invalid(reason) => {
                    writeln!(out, "request {number}: invalid ({}): {reason}{seen}", reason.code())?
                }
            }
        }
    }
    out.flush()?;
    Ok(if all_valid { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The whole input, at most [`MAX_INPUT_BYTES`].
fn read_requests(path: Option<&PathBuf>) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let (name, reader): (String, Box<dyn Read>) = match path {
        Some(p) if p.as_os_str() != "-" => (
            p.display().to_string(),
            Box::new(
                std::fs::File::open(p)
                    .map_err(|e| CliError::usage(format!("cannot read requests `{}`: {e}", p.display())))?,
            ),
        ),
        _ => ("<stdin>".into(), Box::new(io::stdin())),
    };
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(CliError::usage(format!("{name} is larger than {MAX_INPUT_BYTES} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| CliError::usage(format!("{name} is not UTF-8 text")))
}
