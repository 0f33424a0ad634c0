//! The DevTools protocol over the browser's pipe: commands with ids and
//! their answers, events routed to the session they belong to.
//!
//! Chromium started with `--remote-debugging-pipe` reads commands on its
//! descriptor 3 and writes answers and events on its descriptor 4, each
//! message one JSON text ended by a NUL byte. Nothing listens on a port:
//! only the process holding the other ends of the pipes can drive the
//! browser, and the browser exits when they close.
//!
//! Only what rendering uses: JSON in, JSON out, no generated bindings.
//! One reader task routes every message; a command waits on its own
//! one-shot channel; each attached page session has an event channel of its
//! own, and events without a session (target attachment) go to the
//! browser's channel.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// The largest message read from the browser: a rendered DOM comes in one.
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// One protocol event.
#[derive(Debug)]
pub(crate) struct Event {
    /// `Domain.event`.
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

/// Why a command got no result.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum CdpError {
    /// The browser answered with an error.
    #[error("{method}: {message}")]
    Protocol { method: String, message: String },
    /// The connection is gone (the browser exited or crashed).
    #[error("the browser connection is closed")]
    Closed,
    /// No answer in time.
    #[error("{method}: no answer within {} s", .after.as_secs_f64())]
    Timeout { method: String, after: Duration },
}

type Pending = Mutex<HashMap<u64, (String, oneshot::Sender<Result<Value, CdpError>>)>>;

#[derive(Debug, Default)]
struct Routes {
    sessions: HashMap<String, mpsc::UnboundedSender<Event>>,
}

/// A connection to the browser. Cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct Cdp {
    out: mpsc::UnboundedSender<String>,
    pending: Arc<Pending>,
    routes: Arc<Mutex<Routes>>,
    next_id: Arc<AtomicU64>,
    closed: Arc<AtomicBool>,
}

impl Cdp {
    /// Speaks the protocol over the browser's pipes: commands are written
    /// to `to_browser`, answers and events read from `from_browser`;
    /// browser-level events go to the returned receiver.
    pub fn over_pipes(
        from_browser: impl AsyncRead + Unpin + Send + 'static,
        mut to_browser: impl AsyncWrite + Unpin + Send + 'static,
    ) -> (Cdp, mpsc::UnboundedReceiver<Event>) {
        let (out, mut outgoing) = mpsc::unbounded_channel::<String>();
        let (browser_events, events) = mpsc::unbounded_channel();
        let cdp = Cdp {
            out,
            pending: Arc::new(Mutex::new(HashMap::new())),
            routes: Arc::new(Mutex::new(Routes::default())),
            next_id: Arc::new(AtomicU64::new(1)),
            closed: Arc::new(AtomicBool::new(false)),
        };
        tokio::spawn(async move {
            while let Some(text) = outgoing.recv().await {
                let mut frame = text.into_bytes();
                frame.push(0);
                if to_browser.write_all(&frame).await.is_err() {
                    break;
                }
            }
        });
        let reader = cdp.clone();
        tokio::spawn(async move {
            let mut from_browser = BufReader::new(from_browser);
            let mut frame = Vec::new();
            while read_frame(&mut from_browser, &mut frame).await {
                let Ok(value) = serde_json::from_slice::<Value>(&frame) else { continue };
                reader.route(value, &browser_events);
            }
            reader.close();
        });
        (cdp, events)
    }

    fn route(&self, mut value: Value, browser_events: &mpsc::UnboundedSender<Event>) {
        if let Some(id) = value.get("id").and_then(Value::as_u64) {
            let Some((method, answer)) = self.pending.lock().expect("pending lock").remove(&id) else { return };
            let result = match value.get_mut("error") {
                Some(error) => Err(CdpError::Protocol {
                    method,
                    message: error.get("message").and_then(Value::as_str).unwrap_or("error").to_string(),
                }),
                None => Ok(value.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
            };
            let _ = answer.send(result);
            return;
        }
        let Some(method) = value.get("method").and_then(Value::as_str).map(str::to_string) else { return };
        let params = value.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let event = Event { method, params };
        match value.get("sessionId").and_then(Value::as_str) {
            Some(session) => {
                let routes = self.routes.lock().expect("routes lock");
                if let Some(channel) = routes.sessions.get(session) {
                    let _ = channel.send(event);
                } else {
                    let _ = browser_events.send(event);
                }
            }
            None => {
                let _ = browser_events.send(event);
            }
        }
    }

    /// Marks the connection closed and fails every command waiting.
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for (_, (_, answer)) in self.pending.lock().expect("pending lock").drain() {
            let _ = answer.send(Err(CdpError::Closed));
        }
        self.routes.lock().expect("routes lock").sessions.clear();
    }

    /// Whether the browser went away.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst) || self.out.is_closed()
    }

    /// Routes the events of `session` to a channel of their own, until
    /// [`Cdp::forget`].
    pub fn subscribe(&self, session: &str) -> mpsc::UnboundedReceiver<Event> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.routes.lock().expect("routes lock").sessions.insert(session.to_string(), sender);
        receiver
    }

    /// Stops routing the events of `session`.
    pub fn forget(&self, session: &str) {
        self.routes.lock().expect("routes lock").sessions.remove(session);
    }

    /// Sends a command without waiting for its answer.
    pub fn post(&self, session: Option<&str>, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.out.send(message(id, session, method, params));
    }

    /// Sends a command and waits up to `limit` for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, CdpError> {
        if self.is_closed() {
            return Err(CdpError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, result) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, (method.to_string(), answer));
        if self.out.send(message(id, session, method, params)).is_err() {
            self.pending.lock().expect("pending lock").remove(&id);
            return Err(CdpError::Closed);
        }
        match tokio::time::timeout(limit, result).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(CdpError::Closed),
            Err(_) => {
                self.pending.lock().expect("pending lock").remove(&id);
                Err(CdpError::Timeout { method: method.to_string(), after: limit })
            }
        }
    }
}

/// Reads one NUL-ended message into `frame` (without its NUL): `false`
/// at the end of the pipe, on a read error, or for a message longer than
/// [`MAX_MESSAGE`] (the connection is then given up).
async fn read_frame(from_browser: &mut (impl tokio::io::AsyncBufRead + Unpin), frame: &mut Vec<u8>) -> bool {
    frame.clear();
    let limit = u64::try_from(MAX_MESSAGE).unwrap_or(u64::MAX) + 1;
    match from_browser.take(limit).read_until(0, frame).await {
        Ok(_) if frame.last() == Some(&0) => {
            frame.pop();
            true
        }
        _ => false,
    }
}

fn message(id: u64, session: Option<&str>, method: &str, params: Value) -> String {
    let mut message = json!({ "id": id, "method": method, "params": params });
    if let Some(session) = session {
        message["sessionId"] = Value::String(session.to_string());
    }
    message.to_string()
}
