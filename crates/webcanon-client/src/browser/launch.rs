//! Starting Chromium and keeping it: one process per [`Renderer`](super::Renderer),
//! started on the first render, started again if it went away.
//!
//! The flags make the browser unable to reach anything by itself, as a
//! second wall behind request interception (which decides every request
//! the page makes, see [`page`](super::page)): every connection goes to a
//! proxy that does not exist (`127.0.0.1:9`, loopback included), every
//! name resolves to nothing, WebRTC may not send UDP that skips the proxy,
//! new windows are refused, and the background services that call home
//! (updates, sync, safe browsing, metrics) are off.
//!
//! The DevTools protocol runs over a pipe (`--remote-debugging-pipe`), not
//! a port: no other local process can reach the browser. The browser and
//! every process it started are killed (and its profile removed) when the
//! last client holding it is dropped; a process killed outright drops
//! nothing, but its ends of the pipes close and Chromium exits by itself,
//! and the profile it leaves is removed at the next start (see
//! [`process`](super::process)).

use std::collections::{HashMap, VecDeque};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use super::cdp::{Cdp, Event};
use super::process::{Processes, profile_path, remove_stale_profiles};

/// How long Chromium may take to answer its first command.
const START_LIMIT: Duration = Duration::from_secs(30);
/// The time limit of a browser-level command.
pub(crate) const COMMAND_LIMIT: Duration = Duration::from_secs(10);

/// The names looked for on `PATH` when no browser is given.
const NAMES: &[&str] = &["chromium", "chromium-browser"];

/// The flags every browser is started with (besides the profile).
const FLAGS: &[&str] = &[
    "--headless",
    // The renderer sandbox needs user namespaces, which containers often
    // lack; the page's reach is bounded by interception and the flags below.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
    "--no-pings",
    "--mute-audio",
    "--hide-scrollbars",
    // Nothing leaves by itself: a proxy that is not there, for loopback
    // too, and no name resolves.
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--block-new-web-contents",
    "--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
    // A page that allocates without end stops its own renderer, not the machine.
    "--js-flags=--max-old-space-size=256",
    "--window-size=1280,2000",
    // DevTools over descriptors 3 and 4, no listening socket.
    "--remote-debugging-pipe",
];

/// What happened to the targets a page of ours did not ask for.
#[derive(Debug)]
enum ContextState {
    /// The context's page is being created: its session goes here.
    Waiting(oneshot::Sender<(String, String)>),
    /// The context has its page; any other page in it is a pop-up.
    Claimed,
}

/// A running Chromium and its DevTools connection.
#[derive(Debug)]
pub(crate) struct Browser {
    pub cdp: Cdp,
    processes: Mutex<Processes>,
    contexts: Arc<Mutex<HashMap<String, ContextState>>>,
}

/// The path of the browser: `given`, else the first of [`NAMES`] on `PATH`.
pub(crate) fn locate(given: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = given {
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        return Err(format!(
            "rendering needs Chromium, and {} does not exist (install Debian's chromium package, or give its path \
             with --chromium or WEBCANON_CHROMIUM)",
            path.display()
        ));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err("rendering needs Chromium, and none was found on PATH (install Debian's chromium package, or give its path \
         with --chromium or WEBCANON_CHROMIUM)"
        .into())
}

impl Browser {
    /// Starts the browser at `path` with a fresh profile (removing the
    /// profiles of processes that are gone first) and speaks to it over
    /// its pipes.
    pub async fn start(path: &Path) -> Result<Browser, String> {
        static STARTED: AtomicU64 = AtomicU64::new(0);
        remove_stale_profiles();
        let profile = profile_path(STARTED.fetch_add(1, Ordering::Relaxed));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile)
            .map_err(|e| format!("cannot create the browser profile {}: {e}", profile.display()))?;
        let mut command = Command::new(path);
        command
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let (mut processes, pipes) = match Processes::spawn(command, profile.clone()) {
            Ok(started) => started,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                return Err(format!("cannot start {}: {e}", path.display()));
            }
        };
        let tail = keep_tail(processes.take_stderr());
        let (cdp, events) = Cdp::over_pipes(pipes.from_browser, pipes.to_browser);
        let contexts = Arc::new(Mutex::new(HashMap::new()));
        tokio::spawn(watch_targets(cdp.clone(), events, contexts.clone()));
        // Every new target is attached, paused before it runs anything:
        // our own pages are set up first, anything else is never let run.
        // The first answer is also the sign that the browser is ready.
        let setup = json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true });
        if let Err(e) = cdp.call(None, "Target.setAutoAttach", setup, START_LIMIT).await {
            let what = if processes.is_running() {
                format!("{} did not answer within {} s ({e})", path.display(), START_LIMIT.as_secs())
            } else {
                format!("{} exited before it was ready", path.display())
            };
            processes.end();
            let said: Vec<String> = tail.lock().expect("tail lock").iter().cloned().collect();
            return Err(if said.is_empty() { what } else { format!("{what}; it said: {}", said.join(" / ")) });
        }
        Ok(Browser { cdp, processes: Mutex::new(processes), contexts })
    }

    /// Whether the browser is still there.
    pub fn is_alive(&self) -> bool {
        !self.cdp.is_closed() && self.processes.lock().expect("processes lock").is_running()
    }

    /// A new browser context (its own cookies, storage, cache) with one
    /// page in it, attached and paused, by `deadline`: `(context, target,
    /// session)`.
    pub async fn open_page(&self, deadline: tokio::time::Instant) -> Result<(String, String, String), String> {
        let cdp = &self.cdp;
        let left = || COMMAND_LIMIT.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        let context = cdp
            .call(None, "Target.createBrowserContext", json!({ "disposeOnDetach": true }), left())
            .await
            .map_err(|e| e.to_string())?;
        let context = context["browserContextId"].as_str().unwrap_or_default().to_string();
        let (claim, claimed) = oneshot::channel();
        self.contexts.lock().expect("contexts lock").insert(context.clone(), ContextState::Waiting(claim));
        let opened = async {
            cdp.call(
                None,
                "Browser.setDownloadBehavior",
                json!({ "behavior": "deny", "browserContextId": context }),
                left(),
            )
            .await
            .map_err(|e| e.to_string())?;
            cdp.call(None, "Target.createTarget", json!({ "url": "about:blank", "browserContextId": context }), left())
                .await
                .map_err(|e| e.to_string())?;
            match tokio::time::timeout(left(), claimed).await {
                Ok(Ok((target, session))) => Ok((target, session)),
                _ => Err("the browser did not attach the new page".to_string()),
            }
        };
        match opened.await {
            Ok((target, session)) => Ok((context, target, session)),
            Err(e) => {
                self.close_context(&context);
                Err(e)
            }
        }
    }

    /// Disposes of a context and every page in it.
    pub fn close_context(&self, context: &str) {
        self.contexts.lock().expect("contexts lock").remove(context);
        self.cdp.post(None, "Target.disposeBrowserContext", json!({ "browserContextId": context }));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.processes.get_mut().expect("processes lock").end();
    }
}

/// Reads the browser's messages to the end on a thread of their own (a
/// full pipe would stall it), keeping the last lines for an error message.
fn keep_tail(stderr: Option<std::process::ChildStderr>) -> Arc<Mutex<VecDeque<String>>> {
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let Some(stderr) = stderr else { return tail };
    let lines = tail.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let mut tail = lines.lock().expect("tail lock");
            if tail.len() == 5 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
    tail
}

/// Handles targets as they are attached: the first page of each of our
/// contexts is handed to whoever opened it; any other page in our
/// contexts (a pop-up) is closed before it runs; workers stay paused.
async fn watch_targets(
    cdp: Cdp,
    mut events: mpsc::UnboundedReceiver<Event>,
    contexts: Arc<Mutex<HashMap<String, ContextState>>>,
) {
    while let Some(event) = events.recv().await {
        if event.method != "Target.attachedToTarget" {
            continue;
        }
        let info = &event.params["targetInfo"];
        let session = event.params["sessionId"].as_str().unwrap_or_default().to_string();
        let target = info["targetId"].as_str().unwrap_or_default().to_string();
        let kind = info["type"].as_str().unwrap_or_default();
        let context = info["browserContextId"].as_str().unwrap_or_default();
        let mut contexts = contexts.lock().expect("contexts lock");
        let Some(state) = contexts.get_mut(context) else {
            // The startup page of the default context: not ours, left alone.
            if kind == "page" {
                cdp.post(Some(&session), "Runtime.runIfWaitingForDebugger", json!({}));
            }
            continue;
        };
        match std::mem::replace(state, ContextState::Claimed) {
            ContextState::Waiting(claim) if kind == "page" && info.get("openerId").is_none() => {
                let _ = claim.send((target, session));
            }
            previous => {
                *state = previous;
                tracing::debug!(kind, target, "a target the page opened is closed before it runs");
                if kind == "page" {
                    cdp.post(None, "Target.closeTarget", json!({ "targetId": target }));
                }
            }
        }
    }
}
