//! Helpers shared by the end-to-end tests of the `webcanon` binary: run it
//! as a child process and keep its exit status and output, from a plain
//! test or from an async test that serves requests in the same process.
//!
//! Each test file in `tests/` includes this module with `mod support;` and
//! uses only what it needs, so unused helpers are allowed here.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use webcanon_test::ServeProcess;

/// What one run of the binary left behind.
pub struct Run {
    /// The exit status; -1 when the process was killed by a signal.
    pub code: i32,
    /// Standard output, which must be UTF-8.
    pub stdout: String,
    /// Standard error, which must be UTF-8.
    pub stderr: String,
}

impl Run {
    /// Standard output, line by line.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    fn from_output(output: Output) -> Run {
        let Output { status, stdout, stderr } = output;
        Run {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8(stdout).unwrap(),
            stderr: String::from_utf8(stderr).unwrap(),
        }
    }
}

/// The variables the binary reads for its options: removed, so that the
/// environment the tests run in changes nothing.
pub const OPTION_VARIABLES: &[&str] = &[
    "WEBCANON_AGENT",
    "WEBCANON_USER_AGENT",
    "WEBCANON_CACHE_DIR",
    "WEBCANON_CACHE",
    "WEBCANON_PROXY",
    "WEBCANON_SIGN_KEY",
    "WEBCANON_SIGNATURE_AGENT",
    "RUST_LOG",
];

/// The binary with `args`, `NO_COLOR` set so that output is plain text, and
/// the proxy and option variables removed so that a proxy named by the
/// environment the tests run in never sees a request.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_webcanon"));
    command.args(args).env("NO_COLOR", "1").env_remove("HTTP_PROXY").env_remove("HTTPS_PROXY").env_remove("ALL_PROXY");
    for name in OPTION_VARIABLES {
        command.env_remove(name);
    }
    command
}

/// Runs `webcanon ARGS` to its end with these variables set (an empty value
/// removes the variable: `("NO_COLOR", "")`), after the defaults above.
pub fn webcanon_env(args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut command = command(args);
    for (name, value) in vars {
        if value.is_empty() {
            command.env_remove(name);
        } else {
            command.env(name, value);
        }
    }
    Run::from_output(command.output().expect("webcanon runs"))
}

/// [`webcanon_env`] on a blocking thread, for async tests serving requests.
pub async fn run_env(args: Vec<String>, vars: Vec<(String, String)>) -> Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let vars: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        webcanon_env(&args, &vars)
    })
    .await
    .unwrap()
}

/// Runs `webcanon ARGS` to its end, with an empty standard input.
pub fn webcanon(args: &[&str]) -> Run {
    Run::from_output(command(args).output().expect("webcanon runs"))
}

/// Runs `webcanon ARGS` to its end with `stdin` as its standard input.
pub fn webcanon_with_stdin(args: &[&str], stdin: &str) -> Run {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("webcanon starts");
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.as_bytes()).unwrap();
    drop(pipe);
    Run::from_output(child.wait_with_output().unwrap())
}

/// Runs `webcanon ARGS` to its end in the working directory `dir`, with an
/// empty standard input.
pub fn webcanon_in(dir: &Path, args: &[&str]) -> Run {
    Run::from_output(command(args).current_dir(dir).output().expect("webcanon runs"))
}

/// `webcanon fetch` arguments for a loopback test server (private
/// addresses allowed on 127.0.0.0/8, a 5 s timeout), then `extra`.
pub fn fetch_args(extra: &[&str]) -> Vec<String> {
    let mut all: Vec<String> =
        ["fetch", "--allow-private", "127.0.0.0/8", "--timeout", "5"].iter().map(|s| s.to_string()).collect();
    all.extend(extra.iter().map(|s| s.to_string()));
    all
}

/// Runs `webcanon ARGS` on a blocking thread, so that a test server in this
/// process keeps answering while the binary talks to it.
pub async fn run(args: Vec<String>) -> Run {
    tokio::task::spawn_blocking(move || webcanon(&args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

/// `webcanon serve --listen 127.0.0.1:0 ARGS`, with the proxy and option
/// variables removed, once it accepts connections; killed when dropped.
pub fn serve(args: &[&str]) -> ServeProcess {
    let mut command = ServeProcess::command(env!("CARGO_BIN_EXE_webcanon"), args);
    for name in OPTION_VARIABLES {
        command.env_remove(name);
    }
    ServeProcess::spawn(command)
}

/// A fresh, empty directory under the system's temporary directory, named
/// after the calling test file, `name` and this process:
/// `webcanon-llms-full-1234`. It is emptied first if a former run left it
/// behind; the test removes it when it wants it gone.
#[track_caller]
pub fn temp_dir(name: &str) -> PathBuf {
    let caller = Path::new(std::panic::Location::caller().file());
    let test_file = caller.file_stem().and_then(|s| s.to_str()).unwrap_or("test");
    let dir = std::env::temp_dir().join(format!("webcanon-{test_file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `webcanon ARGS` with stdout discarded and stderr on a terminal (a
/// pseudo-terminal made by util-linux `script`), and returns what the
/// terminal showed, or `None` when `script` is not installed. For progress
/// bars, which are drawn only on a terminal.
pub fn webcanon_on_terminal(args: &[String]) -> Option<String> {
    Command::new("script").arg("--version").output().ok()?;
    let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', r"'\''"))).collect();
    let line = format!("{} {} > /dev/null", env!("CARGO_BIN_EXE_webcanon"), quoted.join(" "));
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("NO_COLOR", "1")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY")
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}
