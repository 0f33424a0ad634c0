//! A `webcanon serve` process for the binary's tests: started on a free
//! loopback port, ready once it accepts connections, killed and reaped when
//! dropped (a failed test leaves no process behind), with one-request HTTP
//! helpers.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the process may take to print its address and to stop.
const START_AND_STOP: Duration = Duration::from_secs(30);

/// How long one request may wait for its answer.
const ANSWER: Duration = Duration::from_secs(60);

/// The environment variables that would send the server's own requests
/// through a proxy: removed, so that no proxy stands between a test and
/// loopback unless the test names one.
const PROXY_VARIABLES: [&str; 6] = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];

/// A running `webcanon serve`: its address, what it wrote on stderr so far,
/// and requests over a real socket.
pub struct ServeProcess {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<String>>,
    /// Closed when the process's stderr ends.
    stderr_done: Receiver<()>,
}

/// One answer as received: its status and its whole text.
#[derive(Debug, Clone)]
pub struct HttpAnswer {
    /// The status code; 0 when the server answered nothing parseable.
    pub status: u16,
    /// The status line, the headers and the body, as sent.
    pub text: String,
}

impl HttpAnswer {
    fn parse(text: String) -> HttpAnswer {
        let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        HttpAnswer { status, text }
    }

    /// The status line and headers.
    pub fn head(&self) -> &str {
        self.text.split_once("\r\n\r\n").map_or(&self.text, |(head, _)| head)
    }

    /// Everything after the blank line that ends the head.
    pub fn body(&self) -> &str {
        self.text.split_once("\r\n\r\n").map_or("", |(_, body)| body)
    }
}

impl ServeProcess {
    /// The command `binary serve --listen 127.0.0.1:0 ARGS`, without the
    /// proxy variables of the environment. Adjust it and pass it to
    /// [`ServeProcess::spawn`], or use [`ServeProcess::start`].
    pub fn command<S: AsRef<OsStr>>(binary: impl AsRef<OsStr>, args: impl IntoIterator<Item = S>) -> Command {
        let mut command = Command::new(binary);
        command.args(["serve", "--listen", "127.0.0.1:0"]).args(args);
        for name in PROXY_VARIABLES {
            command.env_remove(name);
        }
        command
    }

    /// Starts `binary serve --listen 127.0.0.1:0 ARGS` and waits until it
    /// accepts connections.
    pub fn start<S: AsRef<OsStr>>(binary: impl AsRef<OsStr>, args: impl IntoIterator<Item = S>) -> ServeProcess {
        ServeProcess::spawn(ServeProcess::command(binary, args))
    }

    /// Starts `command` (a `serve` that listens on a free port and says
    /// where on stderr) and waits until it accepts connections. Panics,
    /// with its stderr, when it exits or stays silent first.
    pub fn spawn(mut command: Command) -> ServeProcess {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("webcanon serve starts");
        let pipe = child.stderr.take().expect("stderr is piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (addr_tx, addr_rx) = channel();
        let (done_tx, stderr_done) = channel::<()>();
        std::thread::spawn({
            let stderr = stderr.clone();
            move || {
                let _done = done_tx;
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Some(addr) = line.trim().strip_prefix("listening on http://") {
                        let _ = addr_tx.send(addr.trim_end_matches('/').to_string());
                    }
                    let mut text = stderr.lock().unwrap();
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        });
        let mut served = ServeProcess { child, addr: String::new(), stderr, stderr_done };
        served.addr = match addr_rx.recv_timeout(START_AND_STOP) {
            Ok(addr) => addr,
            Err(RecvTimeoutError::Disconnected) => panic!("serve exited before listening:\n{}", served.stderr()),
            Err(RecvTimeoutError::Timeout) => {
                panic!("serve did not listen within {START_AND_STOP:?}:\n{}", served.stderr())
            }
        };
        let deadline = Instant::now() + START_AND_STOP;
        while TcpStream::connect(&served.addr).is_err() {
            assert!(Instant::now() < deadline, "serve never accepted a connection on {}", served.addr);
            std::thread::sleep(Duration::from_millis(10));
        }
        served
    }

    /// The `host:port` it listens on.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// `GET path`: the answer.
    pub fn get(&self, path: &str) -> HttpAnswer {
        self.request("GET", path, "")
    }

    /// `POST path` with a JSON `body`: the answer.
    pub fn post(&self, path: &str, body: &str) -> HttpAnswer {
        self.request("POST", path, body)
    }

    /// One `method path` request with a JSON `body`: the answer
    /// ([`http_request`]).
    pub fn request(&self, method: &str, path: &str, body: &str) -> HttpAnswer {
        http_request(&self.addr, method, path, body)
    }

    /// `head` and `body` sent as one request: the answer ([`http_exchange`]).
    pub fn exchange(&self, head: &str, body: &str) -> HttpAnswer {
        http_exchange(&self.addr, head, body)
    }

    /// Sends SIGTERM and waits for the process to exit and its stderr to
    /// end: its exit status and everything it wrote on stderr.
    pub fn terminate(&mut self) -> (ExitStatus, String) {
        let sent = Command::new("kill").args(["-TERM", &self.pid().to_string()]).status().expect("kill runs");
        assert!(sent.success(), "kill -TERM {} failed", self.pid());
        let deadline = Instant::now() + START_AND_STOP;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "serve did not stop within {START_AND_STOP:?} of SIGTERM");
            std::thread::sleep(Duration::from_millis(10));
        };
        // Its stderr ends with it, unless a child of its own still holds it.
        let _ = self.stderr_done.recv_timeout(START_AND_STOP);
        (status, self.stderr())
    }
}

/// One `method path` request to `addr` (`host:port`) with a JSON `body`,
/// naming `addr` as its host: the answer.
pub fn http_request(addr: &str, method: &str, path: &str, body: &str) -> HttpAnswer {
    http_exchange(
        addr,
        &format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n"),
        body,
    )
}

/// Sends `head` (the request line and headers, each ending in CRLF) to
/// `addr` with `body`, its length and `Connection: close`: the answer.
pub fn http_exchange(addr: &str, head: &str, body: &str) -> HttpAnswer {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
    stream.set_read_timeout(Some(ANSWER)).unwrap();
    write!(stream, "{head}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    HttpAnswer::parse(answer)
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
