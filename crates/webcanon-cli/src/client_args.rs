//! What every command that fetches shares: the client flags (read into the
//! client's one options type), the async runtime, and how a client error is
//! reported and becomes the exit status.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use webcanon_client::agent::ProductToken;
use webcanon_client::bot_auth::SignatureAgentForm;
use webcanon_client::error::{Error, ErrorBody, ErrorJson};
use webcanon_client::markdown::Comments;
use webcanon_client::options::{CacheChoice, ClientOptions};
use webcanon_client::pdf::PdfWorker;
use webcanon_client::ssrf::{SsrfError, SsrfReason};
use webcanon_client::{ClientBuilder, FetchOptions};
use webcanon_core::policy::{RobotsMode, Verdict};
use webcanon_core::rsl::Usage;

use crate::error::CliError;

/// Exit status when the fetch itself failed.
pub const EXIT_FETCH: u8 = webcanon_client::error::code::FETCH;

/// The client flags every command that fetches shares (`fetch`, `robots
/// check`, `llms`, `sitemap`, `audit`, `serve`, `mcp`, `batch`), read into
/// the client's one options type; listed under their own heading.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Client options")]
pub struct ClientArgs {
    /// The product token matched against robots.txt `User-agent` lines.
    #[arg(long, value_name = "TOKEN", env = "WEBCANON_AGENT", default_value = webcanon_client::DEFAULT_AGENT)]
    pub agent: ProductToken,
    /// The `User-Agent` header (default: `<agent>/<version> (+project URL)`).
    #[arg(long, value_name = "STRING", env = "WEBCANON_USER_AGENT")]
    pub user_agent: Option<String>,
    /// How the robots verdict is applied: respect (refuse disallowed and
    /// unreachable), report_only (record, never refuse), ignore (do not fetch robots.txt).
    #[arg(long, value_name = "MODE", default_value = "respect")]
    pub mode: RobotsMode,
    /// Time limit of every request, robots.txt included, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub timeout: f64,
    /// Keep robots.txt outcomes in a SQLite file in this directory (shared
    /// with other processes). Default: the user cache directory.
    #[arg(long, value_name = "DIR", env = "WEBCANON_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Share robots.txt outcomes, one robots.txt fetch per origin and
    /// per-host pacing with a fleet through Redis or Valkey
    /// (redis://HOST:PORT). With --cache-dir, that SQLite file is the local
    /// fallback while the server does not answer; memory otherwise.
    #[arg(long, value_name = "URL", env = "WEBCANON_CACHE", hide_env_values = true)]
    pub cache: Option<String>,
    /// Keep no robots.txt cache: load robots.txt for every request (not
    /// with --cache-dir or --cache; wins over their variables).
    #[arg(long)]
    pub no_cache: bool,
    /// Read robots.txt again for every origin instead of using an outcome
    /// cached by an earlier run (after editing a robots.txt); what is read
    /// is cached as usual.
    #[arg(long)]
    pub refresh_robots: bool,
    /// The least time between two requests to one host, in seconds
    /// (shared by the fleet with --cache redis://).
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    pub min_interval: f64,
    /// The longest robots.txt Crawl-delay honoured, in seconds; a larger
    /// one is cut to this, with a warning.
    #[arg(long, value_name = "SECS", default_value_t = webcanon_client::DEFAULT_MAX_CRAWL_DELAY.as_secs_f64())]
    pub max_crawl_delay: f64,
    /// Allow addresses in this network although they are not public: a CIDR
    /// block (10.0.0.0/8) or one address (127.0.0.1); repeatable. Names of
    /// the local host (`localhost`) stay refused: use the address.
    #[arg(long, value_name = "CIDR|ADDR")]
    pub allow_private: Vec<String>,
    /// Resolve HOST:PORT to ADDR instead of asking DNS, like curl (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    pub resolve: Vec<String>,
    /// Read robots.txt answering 401 or 403 as "disallow everything".
    #[arg(long)]
    pub auth_disallows: bool,
    /// Send every request through this HTTP proxy (`http://[USER:PASS@]HOST:PORT`).
    /// Names are still resolved and vetted here before each request; the
    /// proxy resolves them again. HTTP_PROXY and HTTPS_PROXY are never read.
    #[arg(long, value_name = "URL", env = "WEBCANON_PROXY", hide_env_values = true)]
    pub proxy: Option<String>,
    /// Sign every request (Web Bot Auth: Signature-Agent, Signature-Input,
    /// Signature) with the Ed25519 key in this file (`webcanon keys
    /// generate`); needs --signature-agent.
    #[arg(long, value_name = "FILE", env = "WEBCANON_SIGN_KEY", requires = "signature_agent")]
    pub sign_key: Option<PathBuf>,
    /// The URL of the origin that publishes the key directory of
    /// --sign-key (at /.well-known/http-message-signatures-directory),
    /// sent as Signature-Agent.
    #[arg(long, value_name = "URL", env = "WEBCANON_SIGNATURE_AGENT", requires = "sign_key")]
    pub signature_agent: Option<String>,
    /// How Signature-Agent is sent: `dictionary` (`sig1="https://…"`, the
    /// current Web Bot Auth draft; an origin names its well-known key
    /// directory) or `legacy` (the bare string of earlier drafts).
    #[arg(
        long,
        value_name = "FORM",
        default_value = "dictionary",
        value_parser = signature_agent_form,
        requires = "sign_key"
    )]
    pub signature_agent_form: SignatureAgentForm,
    /// The Chromium executable that renders pages (`--render`); default:
    /// `chromium` or `chromium-browser` on PATH. Started only when a page is
    /// rendered.
    #[arg(long, value_name = "PATH", env = "WEBCANON_CHROMIUM")]
    pub chromium: Option<PathBuf>,
    /// The use declared for fetched content (search, ai-input, ai-index,
    /// ai-train, ai-all, all), read against the site's RSL license: what it
    /// prohibits or charges for becomes a warning, never a refusal.
    /// Default: the use of the agent's registry category (GPTBot: ai-train).
    #[arg(long, value_name = "USE", value_parser = str::parse::<Usage>)]
    pub purpose: Option<Usage>,
    /// Comments and a thread's replies (auto, include, exclude): `auto`
    /// keeps a forum's or a Q&A page's posts and drops an article's
    /// comments; `include` puts an article's comments after its text under
    /// `## Comments`; `exclude` drops them, a thread keeping its first post.
    #[arg(long, value_name = "WHICH", default_value = "auto", value_parser = str::parse::<Comments>)]
    pub comments: Comments,
}

impl ClientArgs {
    /// A client builder configured from these options; PDFs are read in
    /// worker processes of this executable.
    pub fn builder(&self) -> Result<ClientBuilder, CliError> {
        if let Some(key) = &self.sign_key {
            warn_if_exposed(key);
        }
        let worker = PdfWorker::current_exe()
            .map_err(|e| CliError::usage(format!("cannot find this executable to read PDFs with: {e}")))?;
        let options = ClientOptions { pdf_worker: Some(worker), ..self.options() };
        options.builder().map_err(|e| CliError::usage(e.message(&format!("--{}", e.option.replace('_', "-")))))
    }

    /// The flags as the client's one options type (checked by its builder).
    /// The cache defaults to the SQLite file in the user's cache directory.
    fn options(&self) -> ClientOptions {
        let (cache, cache_dir) = if self.no_cache {
            (CacheChoice::None, None)
        } else if let Some(url) = &self.cache {
            (CacheChoice::Redis(url.clone()), self.cache_dir.clone())
        } else {
            (CacheChoice::Memory, self.cache_dir.clone().or_else(default_cache_dir))
        };
        ClientOptions {
            agent: self.agent.to_string(),
            user_agent: self.user_agent.clone(),
            mode: self.mode,
            timeout: self.timeout,
            cache,
            cache_dir,
            allow_private: self.allow_private.clone(),
            resolve: self.resolve.clone(),
            min_interval: self.min_interval,
            max_crawl_delay: self.max_crawl_delay,
            auth_disallows: self.auth_disallows,
            proxy: self.proxy.clone(),
            sign_key: self.sign_key.clone(),
            signature_agent: self.signature_agent.clone(),
            signature_agent_form: self.signature_agent_form,
            chromium: self.chromium.clone(),
            refresh_robots: self.refresh_robots,
            fetch: FetchOptions { purpose: self.purpose, comments: self.comments, ..FetchOptions::default() },
            ..ClientOptions::default()
        }
    }
}

/// Flags that cannot go together on the command line, though one of them
/// may come from its variable: `--no-cache` beside `--cache` or
/// `--cache-dir` (`--no-cache` wins over `WEBCANON_CACHE` and
/// `WEBCANON_CACHE_DIR`), and `robots eval --jsonl` beside `--agent` (each
/// line names its agent; `WEBCANON_AGENT` is not used). clap counts a
/// variable as given, so its own conflict rule cannot tell them apart.
pub fn check_flag_conflicts(matches: &clap::ArgMatches) -> Result<(), CliError> {
    let mut leaf = matches;
    while let Some((_, sub)) = leaf.subcommand() {
        leaf = sub;
    }
    let conflicts = [
        ("no_cache", "--no-cache", "cache", "--cache"),
        ("no_cache", "--no-cache", "cache_dir", "--cache-dir"),
        ("jsonl", "--jsonl", "agent", "--agent"),
    ];
    for (set, set_flag, id, flag) in conflicts {
        if matches!(leaf.try_get_one::<bool>(set), Ok(Some(true)))
            && leaf.try_get_raw(id).is_ok_and(|v| v.is_some())
            && leaf.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
        {
            return Err(CliError::usage(format!("{set_flag} cannot be used with {flag}")));
        }
    }
    Ok(())
}

/// `$XDG_CACHE_HOME/webcanon` or `~/.cache/webcanon`.
fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("webcanon"))
}

/// The async runtime of the network commands.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::usage(format!("cannot start the async runtime: {e}")))
}

/// Reports a client error on stderr (or as a JSON error object on stdout
/// with `json`) and returns its exit status.
pub fn report_error(err: &Error, url: &str, json: bool) -> Result<ExitCode, CliError> {
    let code = err.code();
    if json {
        let body = ErrorBody::from_error(err, url);
        let stdout = io::stdout();
        let mut out = stdout.lock();
        serde_json::to_writer_pretty(&mut out, &ErrorJson { error: body }).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    } else {
        eprintln!("error: {err}");
        match err {
            Error::Policy(refusal) if refusal.evidence.verdict == Verdict::UnknownUnreachable => eprintln!(
                "hint: robots.txt could not be fetched, which RFC 9309 reads as a full disallow until it can; \
                 `--mode report_only` records the verdict without refusing"
            ),
            Error::Policy(_) => eprintln!(
                "hint: the site asks agents not to fetch this URL; `--mode report_only` records the verdict without refusing"
            ),
            Error::Ssrf(refusal) => eprintln!("hint: {}", ssrf_hint(refusal, url)),
            _ => {}
        }
    }
    Ok(ExitCode::from(code))
}

/// What to do about an SSRF refusal: `--allow-private` opens an address or
/// a network, but a name of the local host is refused by name, whatever
/// it resolves to, so the hint names the address to use instead.
fn ssrf_hint(refusal: &SsrfError, url: &str) -> String {
    match refusal.kind() {
        SsrfReason::Localhost => {
            let port = url::Url::parse(url).ok().and_then(|u| u.port()).map(|p| format!(":{p}")).unwrap_or_default();
            format!(
                "`localhost` is refused by name and `--allow-private` does not change that; use the address \
                 instead: http://127.0.0.1{port}/ with `--allow-private 127.0.0.1` (or `::1`)"
            )
        }
        SsrfReason::Address(_) => "private and local addresses are refused; `--allow-private` opts in for an \
             address (127.0.0.1) or a network (10.0.0.0/8)"
            .to_string(),
        _ => "the SSRF guard refuses this URL whatever the options (scheme, credentials or a cloud metadata name)"
            .to_string(),
    }
}

/// Says on stderr, once per process (`serve` and `mcp` build a client per
/// agent), when the `--sign-key` file can be read by others than its owner.
/// Said even under `-q`: it is a warning.
fn warn_if_exposed(key: &std::path::Path) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Some(warning) = webcanon_client::bot_auth::SigningKey::exposure_warning(key) {
        WARNED.call_once(|| eprintln!("warning: {warning}"));
    }
}

/// Reads `--signature-agent-form`, offering its two values.
fn signature_agent_form(text: &str) -> Result<SignatureAgentForm, String> {
    text.parse()
}
