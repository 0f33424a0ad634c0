//! One page rendered: every request it makes paused by the Fetch domain
//! and decided here, then its DOM read without running its scripts.
//!
//! Per request, in order:
//! - the main document is answered with the body webcanon already fetched
//!   (robots.txt, SSRF guard and redirects done by the normal fetch path);
//!   any other document (a frame, a navigation away) is refused;
//! - images, media, fonts and the like are refused without fetching;
//! - only `GET` and `HEAD` of `http(s)` URLs are fetched: a render never
//!   sends data to a site on the page's behalf;
//! - past the page's request count or byte budget, requests are refused;
//! - the rest is fetched by webcanon's own client (SSRF guard on the URL,
//!   on every address and on every redirect hop; robots.txt of each URL's
//!   origin as the client's mode says) and handed to the browser.
//!
//! WebSocket and WebRTC do not pass through the Fetch domain: the page's
//! constructors for them are removed before its scripts run, and the
//! browser's flags send whatever is left to a proxy that is not there.
//! Workers and pop-ups are attached paused and never let run.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::task::JoinSet;
use url::Url;

use super::cdp::{Cdp, Event};
use super::fetcher::PageFetcher;
use super::launch::COMMAND_LIMIT;
use super::report::{RefusedRequest, RenderLimits, RenderReport};
use crate::error::Error;
use crate::warning::{Warning, WarningCode, WarningSource};

/// How long the network must be quiet after the load event.
const QUIET: Duration = Duration::from_millis(300);
/// How many refused requests are listed (all are counted).
const LISTED: usize = 50;
/// The end of a page's time kept for stopping its scripts and reading its
/// DOM (a fifth of the limit when that is less).
const READ_RESERVE: Duration = Duration::from_secs(2);
/// The pause between two attempts to read a page's DOM.
const READ_RETRY: Duration = Duration::from_millis(50);

/// Runs before any of the page's scripts, in every frame: the ways out
/// that interception does not see are taken away.
const HARDEN: &str = r#"(() => {
  const gone = ["WebSocket", "WebSocketStream", "RTCPeerConnection", "webkitRTCPeerConnection",
    "RTCDataChannel", "RTCRtpSender", "RTCRtpReceiver", "RTCIceTransport", "WebTransport"];
  for (const name of gone) { try { delete globalThis[name]; } catch (e) {} try { Object.defineProperty(globalThis, name, { value: undefined, configurable: false, writable: false }); } catch (e) {} }
  try { Object.defineProperty(Navigator.prototype, "serviceWorker", { get() { return undefined; }, configurable: false }); } catch (e) {}
  try { window.open = () => null; } catch (e) {}
})();"#;

/// The main document as webcanon fetched it.
#[derive(Debug)]
pub(crate) struct MainDocument {
    pub url: Url,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What a render gave.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// The DOM serialised, or `None` when it could not be read (the page
    /// crashed, the browser went away).
    pub html: Option<String>,
    pub report: RenderReport,
    pub warnings: Vec<Warning>,
}

/// Why the wait for the page ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Loaded, and no request in flight for [`QUIET`].
    Settled,
    /// The wall-time limit.
    Time,
    /// The browser refused to navigate to the page (a download, a body it
    /// would not show): nothing to wait for.
    Refused,
    /// The renderer crashed (out of memory, most likely).
    Crashed,
    /// The browser went away.
    Gone,
}

/// The counts a render keeps while it runs.
#[derive(Debug, Default)]
struct Tally {
    report: RenderReport,
    count_cut: bool,
    bytes_cut: bool,
    /// Why the browser refused the navigation, in its words.
    navigation_error: Option<String>,
}

impl Tally {
    fn refuse(&mut self, url: &str, reason: &str) {
        self.report.requests_refused += 1;
        if self.report.refused.len() < LISTED {
            self.report.refused.push(RefusedRequest { url: url.to_string(), reason: reason.to_string() });
        }
    }
}

/// Renders `main` on an attached, paused page (`session`) within `limits`,
/// fetching what it asks for through `fetcher`; the page's time began at
/// `started` and ends at `deadline`, DOM read included.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn render<F: PageFetcher>(
    cdp: &Cdp,
    target: &str,
    session: &str,
    fetcher: &F,
    main: MainDocument,
    limits: RenderLimits,
    started: tokio::time::Instant,
    deadline: tokio::time::Instant,
) -> Rendered {
    let loading_ends = deadline - READ_RESERVE.min(limits.wall_time / 5);
    let mut events = cdp.subscribe(session);
    let mut tally = Tally::default();
    let ending = match drive(cdp, target, session, fetcher, &main, loading_ends, &mut events, &mut tally, limits).await
    {
        Ok(ending) => ending,
        Err(message) => {
            tracing::debug!("render of {} failed: {message}", main.url);
            Ending::Gone
        }
    };
    let html = match ending {
        Ending::Crashed | Ending::Gone | Ending::Refused => None,
        Ending::Settled | Ending::Time => read_dom(cdp, session, deadline).await,
    };
    cdp.forget(session);
    let mut warnings = Vec::new();
    let mut cut = Vec::new();
    if ending == Ending::Time {
        cut.push(format!("its wall-time limit of {} s", limits.wall_time.as_secs_f64()));
    }
    if tally.count_cut {
        cut.push(format!("its request limit of {}", limits.max_requests));
    }
    if tally.bytes_cut {
        cut.push(format!("its byte limit of {}", limits.max_bytes));
    }
    if !cut.is_empty() {
        warnings.push(Warning::new(
            WarningCode::RenderLimit,
            WarningSource::Render,
            format!("rendering {} reached {}; the page is as far as it got", main.url, cut.join(" and ")),
        ));
    }
    if html.is_none() {
        let why = match ending {
            Ending::Crashed => "the page's renderer crashed (out of memory, or killed)".to_string(),
            Ending::Refused => format!(
                "the browser refused to show the page ({})",
                tally.navigation_error.as_deref().unwrap_or("no reason given")
            ),
            Ending::Settled | Ending::Time => "the page's DOM could not be read within its time".to_string(),
            Ending::Gone => "the browser stopped answering".to_string(),
        };
        warnings.push(Warning::new(
            WarningCode::RenderFailed,
            WarningSource::Render,
            format!("{why} while rendering {}; the content is the fetched HTML, not rendered", main.url),
        ));
    }
    tally.report.render_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Rendered { html, report: tally.report, warnings }
}

/// Sets the page up, navigates, and answers its requests until it settles,
/// its navigation is refused, or a limit (`deadline` among them) is reached.
#[allow(clippy::too_many_arguments)]
async fn drive<F: PageFetcher>(
    cdp: &Cdp,
    target: &str,
    session: &str,
    fetcher: &F,
    main: &MainDocument,
    deadline: tokio::time::Instant,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>,
    tally: &mut Tally,
    limits: RenderLimits,
) -> Result<Ending, String> {
    let call = |method: &'static str, params: Value| async move {
        let limit = COMMAND_LIMIT.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        cdp.call(Some(session), method, params, limit).await.map_err(|e| e.to_string())
    };
    call("Fetch.enable", json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] })).await?;
    call("Page.enable", json!({})).await?;
    call("Page.addScriptToEvaluateOnNewDocument", json!({ "source": HARDEN, "runImmediately": true })).await?;
    call("Target.setAutoAttach", json!({ "autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true }))
        .await?;
    call("Runtime.runIfWaitingForDebugger", json!({})).await?;
    // The navigation's answer comes once the page is committed (after its
    // document is served below) or refused: it is awaited in the loop.
    let navigation = {
        let (cdp, session, url) = (cdp.clone(), session.to_string(), main.url.to_string());
        let limit = deadline.saturating_duration_since(tokio::time::Instant::now());
        tokio::spawn(async move { cdp.call(Some(&session), "Page.navigate", json!({ "url": url }), limit).await })
    };
    tokio::pin!(navigation);
    let mut navigation_answered = false;

    let budget = Arc::new(AtomicUsize::new(limits.max_bytes));
    let mut main_served = false;
    let mut loaded = false;
    let mut quiet_since = tokio::time::Instant::now();
    let mut tasks: JoinSet<Fetched> = JoinSet::new();
    loop {
        let quiet_at = quiet_since + QUIET;
        let settle = loaded && tasks.is_empty();
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => return Ok(Ending::Time),
            _ = tokio::time::sleep_until(quiet_at), if settle => return Ok(Ending::Settled),
            answer = &mut navigation, if !navigation_answered => {
                navigation_answered = true;
                if let Ok(Ok(answer)) = answer
                    && let Some(error) = answer["errorText"].as_str().filter(|e| !e.is_empty())
                {
                    tally.navigation_error = Some(error.to_string());
                    return Ok(Ending::Refused);
                }
            }
            Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                quiet_since = tokio::time::Instant::now();
                match done {
                    Ok(Fetched::Made { bytes }) => {
                        tally.report.requests_made += 1;
                        tally.report.bytes += bytes as u64;
                    }
                    Ok(Fetched::Refused { url, reason }) => {
                        if reason == "bytes" {
                            tally.bytes_cut = true;
                        }
                        tally.refuse(&url, reason);
                    }
                    Ok(Fetched::Failed) => tally.report.requests_made += 1,
                    Ok(Fetched::Cut { url }) => {
                        tally.report.requests_made += 1;
                        tally.bytes_cut = true;
                        tally.refuse(&url, "bytes");
                    }
                    Err(_) => {}
                }
            }
            event = events.recv() => {
                let Some(event) = event else { return Ok(Ending::Gone) };
                match event.method.as_str() {
                    "Fetch.requestPaused" => {
                        quiet_since = tokio::time::Instant::now();
                        let params = event.params;
                        let id = params["requestId"].as_str().unwrap_or_default().to_string();
                        let url = params["request"]["url"].as_str().unwrap_or_default().to_string();
                        let method = params["request"]["method"].as_str().unwrap_or_default();
                        let kind = params["resourceType"].as_str().unwrap_or_default();
                        if kind == "Document" && !main_served && params["frameId"].as_str() == Some(target) {
                            main_served = true;
                            fulfil(cdp, session, &id, main.status, &main.headers, &main.body);
                            continue;
                        }
                        let refusal = if kind == "Document" {
                            Some("document")
                        } else if kind == "Other" && is_favicon(&url) {
                            // The browser's own look for an icon: an image.
                            Some("resource_type")
                        } else if matches!(kind, "Image" | "Media" | "Font" | "TextTrack" | "Manifest" | "Ping" | "CSPViolationReport" | "Prefetch" | "SignedExchange" | "EventSource" | "WebSocket") {
                            Some("resource_type")
                        } else if !matches!(method, "GET" | "HEAD") {
                            Some("method")
                        } else if !(url.starts_with("http://") || url.starts_with("https://")) {
                            Some("scheme")
                        } else if tally.report.requests_made + tally.report.requests_refused + tasks.len() >= limits.max_requests {
                            tally.count_cut = true;
                            Some("requests")
                        } else {
                            None
                        };
                        if let Some(reason) = refusal {
                            if reason == "document" {
                                // Aborted, not blocked: an aborted navigation
                                // leaves the page as it is, where a blocked one
                                // would replace it with an error page.
                                cdp.post(Some(session), "Fetch.failRequest", json!({ "requestId": id, "errorReason": "Aborted" }));
                            } else {
                                refuse(cdp, session, &id);
                            }
                            tally.refuse(&url, reason);
                            continue;
                        }
                        tasks.spawn(fetch_for_page(cdp.clone(), session.to_string(), id, url, fetcher.clone(), budget.clone(), deadline));
                    }
                    "Page.loadEventFired" => {
                        loaded = true;
                        quiet_since = tokio::time::Instant::now();
                    }
                    "Inspector.targetCrashed" => return Ok(Ending::Crashed),
                    "Target.attachedToTarget" => {
                        // A worker or frame of the page: it stays paused and
                        // never runs (nothing it asks for is answered).
                        let kind = event.params["targetInfo"]["type"].as_str().unwrap_or_default();
                        let reason = match kind {
                            "page" => "window",
                            "iframe" => "document",
                            _ => "worker",
                        };
                        tally.refuse(event.params["targetInfo"]["url"].as_str().unwrap_or_default(), reason);
                    }
                    "Target.detachedFromTarget" if event.params["targetId"].as_str() == Some(target) => {
                        return Ok(Ending::Gone);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// What one request of the page came to.
enum Fetched {
    /// Fetched and handed to the page.
    Made { bytes: usize },
    /// Refused: a stable reason (`ssrf`, `robots`, `bytes`).
    Refused { url: String, reason: &'static str },
    /// Sent, but the fetch failed (the page sees a network error).
    Failed,
    /// Sent, but its body did not fit what was left of the byte budget:
    /// not handed to the page.
    Cut { url: String },
}

/// Fetches `url` for the page through the fetcher and answers the paused
/// request with it, or fails it.
async fn fetch_for_page<F: PageFetcher>(
    cdp: Cdp,
    session: String,
    id: String,
    url: String,
    fetcher: F,
    budget: Arc<AtomicUsize>,
    deadline: tokio::time::Instant,
) -> Fetched {
    let left = budget.load(Ordering::SeqCst);
    let Ok(parsed) = Url::parse(&url) else {
        refuse(&cdp, &session, &id);
        return Fetched::Refused { url, reason: "scheme" };
    };
    if left == 0 {
        refuse(&cdp, &session, &id);
        return Fetched::Refused { url, reason: "bytes" };
    }
    let outcome = tokio::time::timeout_at(deadline, fetcher.fetch_for_page(&parsed, left)).await;
    match outcome {
        Ok(Ok(answer)) => {
            let size = answer.body.len();
            let taken = budget.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| left.checked_sub(size));
            if answer.truncated || taken.is_err() {
                budget.store(0, Ordering::SeqCst);
                refuse(&cdp, &session, &id);
                return Fetched::Cut { url };
            }
            let headers = answer
                .headers
                .iter()
                .filter_map(|(name, value)| Some((name.as_str().to_string(), value.to_str().ok()?.to_string())))
                .collect::<Vec<_>>();
            // Encoding a body of megabytes is CPU work: off the async workers.
            let body = answer.body;
            let Ok(encoded) = tokio::task::spawn_blocking(move || encode(&body)).await else {
                refuse(&cdp, &session, &id);
                return Fetched::Failed;
            };
            fulfil_encoded(&cdp, &session, &id, answer.status, &headers, encoded);
            Fetched::Made { bytes: size }
        }
        Ok(Err(Error::Ssrf(_))) => {
            refuse(&cdp, &session, &id);
            Fetched::Refused { url, reason: "ssrf" }
        }
        Ok(Err(Error::Policy(_))) => {
            refuse(&cdp, &session, &id);
            Fetched::Refused { url, reason: "robots" }
        }
        Ok(Err(_)) | Err(_) => {
            cdp.post(Some(&session), "Fetch.failRequest", json!({ "requestId": id, "errorReason": "Failed" }));
            Fetched::Failed
        }
    }
}

/// Whether `url` is the icon the browser looks for by itself.
fn is_favicon(url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| u.path() == "/favicon.ico")
}

/// Response headers the browser is given: the site's, less those that
/// describe the transfer (the body is already decoded) or set state.
fn passed_header(name: &str) -> bool {
    !matches!(
        name.to_ascii_lowercase().as_str(),
        "content-encoding"
            | "content-length"
            | "transfer-encoding"
            | "connection"
            | "keep-alive"
            | "set-cookie"
            | "alt-svc"
            | "strict-transport-security"
            | "link"
            | "refresh"
    )
}

/// A body as the protocol carries it.
fn encode(body: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(body)
}

fn fulfil(cdp: &Cdp, session: &str, id: &str, status: u16, headers: &[(String, String)], body: &[u8]) {
    fulfil_encoded(cdp, session, id, status, headers, encode(body));
}

/// Answers a paused request with `status`, the passed `headers` and a body
/// already encoded.
fn fulfil_encoded(cdp: &Cdp, session: &str, id: &str, status: u16, headers: &[(String, String)], body: String) {
    let headers: Vec<Value> = headers
        .iter()
        .filter(|(name, _)| passed_header(name))
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    let status = if (200..600).contains(&status) && !(300..400).contains(&status) { status } else { 200 };
    cdp.post(
        Some(session),
        "Fetch.fulfillRequest",
        json!({
            "requestId": id,
            "responseCode": status,
            "responseHeaders": headers,
            "body": body,
        }),
    );
}

fn refuse(cdp: &Cdp, session: &str, id: &str) {
    cdp.post(Some(session), "Fetch.failRequest", json!({ "requestId": id, "errorReason": "BlockedByClient" }));
}

/// Stops the page's scripts and reads its DOM by `deadline` (no script of
/// ours runs in the page: the serialisation is the protocol's own). A read
/// that fails while a terminated script is still unwinding is tried again
/// after [`READ_RETRY`], until the deadline.
async fn read_dom(cdp: &Cdp, session: &str, deadline: tokio::time::Instant) -> Option<String> {
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    cdp.post(Some(session), "Runtime.terminateExecution", json!({}));
    let _ = cdp.call(Some(session), "Emulation.setScriptExecutionDisabled", json!({ "value": true }), left()).await;
    loop {
        cdp.post(Some(session), "Runtime.terminateExecution", json!({}));
        let read = async {
            let document = cdp.call(Some(session), "DOM.getDocument", json!({ "depth": 0 }), left()).await.ok()?;
            let node = document["root"]["nodeId"].as_i64()?;
            let html = cdp.call(Some(session), "DOM.getOuterHTML", json!({ "nodeId": node }), left()).await.ok()?;
            html["outerHTML"].as_str().map(str::to_string)
        };
        if let Some(html) = read.await {
            return Some(html);
        }
        if left() <= READ_RETRY {
            return None;
        }
        tokio::time::sleep(READ_RETRY).await;
    }
}
