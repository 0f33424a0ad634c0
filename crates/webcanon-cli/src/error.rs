//! Errors the command line reports, with their exit status.

use std::fmt;

/// Exit status for bad usage, invalid input or unreadable files.
pub const EXIT_USAGE: u8 = 2;

/// An error that ends the command: a message, an optional hint, an exit status.
#[derive(Debug)]
pub struct CliError {
    message: String,
    hint: Option<String>,
    exit_code: u8,
}

impl CliError {
    /// A usage or input error (exit status 2).
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError { message: message.into(), hint: None, exit_code: EXIT_USAGE }
    }

    /// An error with its own exit status.
    pub fn new(exit_code: u8, message: impl Into<String>) -> CliError {
        CliError { message: message.into(), hint: None, exit_code }
    }

    /// Adds a `hint:` line telling the user what to do.
    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        self.exit_code
    }

    /// Writes the error (and its hint) to stderr.
    pub fn report(&self) {
        if self.message.is_empty() {
            // A closed pipe: nothing worth saying.
            return;
        }
        eprintln!("error: {}", self.message);
        if let Some(hint) = &self.hint {
            eprintln!("hint: {hint}");
        }
    }
}

impl CliError {
    /// Writes the error as the JSON error object of `--json` output
    /// (`{"error": {"kind", "message", "code", "hint"?}}`) to stdout.
    pub fn report_json(&self) {
        if self.message.is_empty() {
            return;
        }
        #[derive(serde::Serialize)]
        struct Body<'a> {
            kind: &'a str,
            message: &'a str,
            code: u8,
            #[serde(skip_serializing_if = "Option::is_none")]
            hint: Option<&'a str>,
        }
        #[derive(serde::Serialize)]
        struct Wrapper<'a> {
            error: Body<'a>,
        }
        // The kinds of the client's JSON errors, by the exit status they share.
        let kind = match self.exit_code {
            EXIT_USAGE => "usage",
            3 => "policy",
            4 => "ssrf",
            5 => "fetch",
            _ => "error",
        };
        let body = Body { kind, message: &self.message, code: self.exit_code, hint: self.hint.as_deref() };
        let text = serde_json::to_string_pretty(&Wrapper { error: body }).unwrap_or_default();
        println!("{text}");
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<std::io::Error> for CliError {
    fn from(err: std::io::Error) -> CliError {
        // A closed pipe (`webcanon ... | head`) is not worth a message.
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError { message: String::new(), hint: None, exit_code: 0 };
        }
        let shown = CliError::usage(format!("i/o error: {err}"));
        if crate::file_limit::is_file_too_large(&err) { shown.with_hint(crate::file_limit::HINT) } else { shown }
    }
}
