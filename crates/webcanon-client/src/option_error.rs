//! [`OptionError`]: an option whose value cannot be used, named as the
//! Rust field is, for each face to word with its own name for it.

/// An option with a value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option}{detail}")]
pub struct OptionError {
    /// The option, as the Rust field is named (`allow_private`).
    pub option: &'static str,
    /// What is wrong, to follow the option's name (` must be …`, `` `x`: … ``).
    pub detail: String,
}

impl OptionError {
    pub(crate) fn new(option: &'static str, detail: String) -> OptionError {
        OptionError { option, detail }
    }

    /// The message with the option named as a face names it.
    ///
    /// ```
    /// use webcanon_client::options::ClientOptions;
    ///
    /// let options = ClientOptions { timeout: 0.0, ..ClientOptions::default() };
    /// let error = options.builder().unwrap_err();
    /// let flag = format!("--{}", error.option.replace('_', "-"));
    /// assert_eq!(error.message(&flag), "--timeout must be a number of seconds above 0 and up to 86400, not 0");
    /// ```
    pub fn message(&self, name: &str) -> String {
        format!("{name}{}", self.detail)
    }
}
