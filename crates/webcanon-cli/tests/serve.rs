//! `webcanon serve` as a process: it prints where it listens, answers over a
//! real socket, and on SIGTERM finishes the request in flight and exits 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use webcanon_test::{Route, TestServer};

/// A `webcanon serve` process, killed and reaped when dropped (a failed test
/// leaves no process behind).
struct Served {
    child: Child,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `webcanon serve ARGS` on a free port: the process, its address and its stderr.
fn spawn_serve(args: &[&str]) -> (Served, String, BufReader<std::process::ChildStderr>) {
    let child = Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("webcanon serve starts");
    let mut served = Served { child };
    let mut stderr = BufReader::new(served.child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "serve exited before listening");
        if let Some(addr) = line.trim().strip_prefix("listening on http://") {
            let addr = addr.to_string();
            return (served, addr, stderr);
        }
    }
}

/// One HTTP/1.1 request with `Connection: close`: the status and the body.
fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_the_request_in_flight_finish_then_exits_0() {
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    site.route("/slow", Route::html(200, "<p>finally</p>").delay(Duration::from_millis(1500)));
    let (mut served, addr, mut stderr) =
        spawn_serve(&["--allow-private", "127.0.0.0/8", "--no-cache", "--timeout", "10"]);

    let (status, body) = request(&addr, "GET", "/healthz", "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"status\":\"ok\""), "{body}");
    let (status, body) =
        request(&addr, "POST", "/v1/robots/check", &format!("{{\"url\":\"{}\"}}", site.url("/private/x")));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"verdict\":\"disallowed_explicit\""), "{body}");

    let slow = {
        let addr = addr.clone();
        let body = format!("{{\"url\":\"{}\",\"alternatives\":false}}", site.url("/slow"));
        std::thread::spawn(move || request(&addr, "POST", "/v1/fetch", &body))
    };
    let started = Instant::now();
    while site.hits("/slow") == 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "the slow page was never requested");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let killed = Command::new("kill").args(["-TERM", &served.child.id().to_string()]).status().unwrap();
    assert!(killed.success());

    let (status, body) = slow.join().unwrap();
    assert_eq!(status, 200, "the request in flight completes: {body}");
    assert!(body.contains("finally"), "{body}");
    let exit = served.child.wait().unwrap();
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert_eq!(exit.code(), Some(0), "stderr: {rest}");
    assert!(rest.contains("shutting down"), "{rest}");
    assert!(TcpStream::connect(&addr).is_err(), "no connections after shutdown");
}

#[test]
fn bad_limits_are_usage_errors() {
    for (args, message) in [
        (&["--max-in-flight", "0"][..], "--max-in-flight"),
        (&["--request-timeout", "0"][..], "--request-timeout"),
        (&["--max-body", "0"][..], "--max-body"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_webcanon"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(message), "{args:?}");
    }
}
