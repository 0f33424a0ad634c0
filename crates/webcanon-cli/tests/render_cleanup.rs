//! `webcanon fetch --render` of a page that floods the browser with timers
//! leaves no browser process and no profile behind, however the command
//! ends: normally, on SIGTERM, or killed outright (then the browser exits
//! with its pipe, and the next start removes the profile).
//!
//! The browser's processes are found in `/proc` while the page runs: those
//! that inherited a variable naming the test run, and their descendants;
//! after the command ends, none of them may still run.
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`. Without
//! either the tests say so on stderr and pass, unless
//! `WEBCANON_REQUIRE_CHROMIUM` is set (as `scripts/test.sh` does).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use webcanon_test::{Route, TestServer, chromium, processes};

/// Ten thousand timers, each asking for a resource every millisecond.
/// The tests of this file one at a time: every browser start removes the
/// profiles of processes that are gone, so a render started by one test
/// would remove the profile another test is about to look for.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const TIMER_FLOOD: &str = "<!doctype html><html><head><title>Timers</title></head><body><p>Timers.</p><script>\
     for (let i = 0; i < 10000; i++) setInterval(() => fetch('/tick?' + i), 1);</script></body></html>";

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route("/timers", Route::html(200, TIMER_FLOOD))
        .route("/tick", Route::text(200, "tick"))
        .route("/plain", Route::html(200, "<!doctype html><html><body><p>Plain words.</p></body></html>"));
    server
}

/// `webcanon fetch URL --render` started with `NAME=VALUE` (`mark`) in its
/// environment.
fn start_render(chromium: &Path, url: &str, mark: &str) -> Child {
    let (name, value) = mark.split_once('=').unwrap();
    Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(["fetch", "--allow-private", "127.0.0.0/8", "--no-cache", "--no-alternatives", url, "--render"])
        .arg("--chromium")
        .arg(chromium)
        .env(name, value)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("webcanon starts")
}

/// A mark unique to this test.
fn mark(test: &str) -> String {
    format!("WEBCANON_TEST_RUN={test}-{}", std::process::id())
}

/// The profiles left by the command with process id `pid`.
fn profiles_of(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("webcanon-chromium-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// Waits until the browser the command started is loading the page (the
/// first tick request has arrived); the browser's processes: those that
/// carry the mark (the command, the browser, the crash handlers it starts
/// in sessions of their own) and their descendants (the zygotes and
/// renderers, started with an environment of their own).
async fn wait_for_browser(server: &TestServer, child: &mut Child, mark: &str) -> Vec<u32> {
    let started = Instant::now();
    while server.hits("/tick") == 0 {
        assert!(child.try_wait().unwrap().is_none(), "the command ended before its page ran");
        assert!(started.elapsed() < Duration::from_secs(30), "the page never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let tree = processes::descendants(&processes::with_env(mark));
    assert!(tree.len() > 2, "the command and its browser are running: {tree:?}");
    tree.into_iter().filter(|pid| *pid != child.id()).collect()
}

/// Waits until none of `browser` runs, up to `limit`: the browser's group
/// is killed before the command exits, and the crash handlers, outside the
/// group, exit once the browser is gone.
async fn all_gone(browser: &[u32], limit: Duration) {
    let started = Instant::now();
    loop {
        let running: Vec<String> = browser
            .iter()
            .filter(|pid| processes::is_running(**pid))
            .map(|pid| {
                let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                format!("{pid} {}", name.trim())
            })
            .collect();
        if running.is_empty() {
            return;
        }
        assert!(started.elapsed() < limit, "browser processes left after {limit:?}: {running:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for `child` to exit, up to `limit`.
async fn exit_of(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(started.elapsed() < limit, "the command did not exit within {limit:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_that_ends_normally_leaves_no_process_and_no_profile() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = site().await;
    let mark = mark("normal");
    let mut child = start_render(&chromium, &server.url("/timers"), &mark);
    let browser = wait_for_browser(&server, &mut child, &mark).await;
    let status = exit_of(&mut child, Duration::from_secs(60)).await;
    assert!(status.success(), "{status:?}");
    all_gone(&browser, Duration::from_secs(2)).await;
    assert_eq!(profiles_of(child.id()), Vec::<PathBuf>::new(), "profiles left after the command exited");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_stopped_by_sigterm_leaves_no_process_and_no_profile() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = site().await;
    let mark = mark("sigterm");
    let mut child = start_render(&chromium, &server.url("/timers"), &mark);
    let browser = wait_for_browser(&server, &mut child, &mark).await;
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = exit_of(&mut child, Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(130), "{status:?}");
    all_gone(&browser, Duration::from_secs(2)).await;
    assert_eq!(profiles_of(child.id()), Vec::<PathBuf>::new(), "profiles left after the command exited");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_killed_outright_takes_its_browser_along_and_the_next_start_removes_its_profile() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = site().await;
    let mark = mark("sigkill");
    let mut child = start_render(&chromium, &server.url("/timers"), &mark);
    let browser = wait_for_browser(&server, &mut child, &mark).await;
    child.kill().unwrap();
    child.wait().unwrap();
    // The browser sees its pipe close and exits by itself.
    all_gone(&browser, Duration::from_secs(10)).await;
    let left = profiles_of(child.id());
    assert_eq!(left.len(), 1, "a command killed outright cannot remove its profile: {left:?}");

    let next_mark = mark.replace("sigkill", "next");
    let mut next = start_render(&chromium, &server.url("/plain"), &next_mark);
    let status = exit_of(&mut next, Duration::from_secs(60)).await;
    assert!(status.success(), "{status:?}");
    assert!(!left[0].exists(), "the next start removes the profile of a command that is gone");
}
