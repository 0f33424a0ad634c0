//! Rendering on every face of the binary: `webcanon fetch --render` (and
//! `auto`, and a bogus `--chromium` that fails clearly while plain fetches
//! work), `/v1/fetch` with `render: true`, and the MCP `fetch` tool's
//! `render` argument, each against an application shell on loopback whose
//! text arrives only through a script-loaded JSON.
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`. Without
//! either the rendering tests say so on stderr and pass, unless
//! `WEBCANON_REQUIRE_CHROMIUM` is set (as `scripts/test.sh` does).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use support::{fetch_args, run, run_env};
use webcanon_test::{Route, TestServer, chromium};

/// The text only the script-loaded JSON holds.
const TEXT: &str = "Ferry timetable for the winter crossings";

async fn shell_site() -> TestServer {
    let paragraphs: Vec<String> = (0..5)
        .map(|i| format!("{TEXT}, sailing {i}: the boat leaves the pier at dawn and returns before the tide turns."))
        .collect();
    let data = json!({ "paragraphs": paragraphs }).to_string();
    let server = TestServer::start().await;
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route(
            "/",
            Route::html(
                200,
                "<!doctype html><html><head><title>Ferries</title></head><body><div id=\"app\"></div>\
                 <script src=\"/app.js\"></script></body></html>",
            ),
        )
        .route(
            "/app.js",
            Route::bytes(
                200,
                "text/javascript",
                b"fetch('/data.json').then(r => r.json()).then(d => { document.getElementById('app').innerHTML = \
                  '<article>' + d.paragraphs.map(p => '<p>' + p + '</p>').join('') + '</article>'; });"
                    .to_vec(),
            ),
        )
        .route("/data.json", Route::bytes(200, "application/json", data.into_bytes()));
    server
}

fn with_chromium(args: &[&str], chromium: &Path) -> Vec<String> {
    let mut all = fetch_args(args);
    all.extend(["--no-cache".to_string(), "--chromium".to_string(), chromium.display().to_string()]);
    all
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_render_gives_the_text_scripts_load() {
    let Some(chromium) = chromium() else { return };
    let server = shell_site().await;
    let url = server.url("/");

    let plain = run(with_chromium(&["--json", &url], &chromium)).await;
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let plain: Value = serde_json::from_str(&plain.stdout).unwrap();
    assert!(!plain["content"].as_str().unwrap().contains(TEXT));
    assert_eq!(plain["rendered"], false);
    assert!(plain["render"].is_null());

    for mode in [&["--render"][..], &["--render", "on"], &["--render", "auto"]] {
        let mut args = vec!["--json", url.as_str()];
        args.extend(mode);
        let r = run(with_chromium(&args, &chromium)).await;
        assert_eq!(r.code, 0, "{mode:?}: {}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        assert!(v["content"].as_str().unwrap().contains(TEXT), "{mode:?}: {}", v["content"]);
        assert_eq!(v["rendered"], true, "{mode:?}");
        assert_eq!(v["render"]["requests_made"], 2, "{mode:?}: {}", v["render"]);
    }

    // The text form says that the page was rendered.
    let r = run(with_chromium(&[&url, "--render"], &chromium)).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(TEXT), "{}", r.stdout);
    assert!(r.stderr.contains("render: rendered in the browser (2 requests made, 1 refused"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bogus_chromium_fails_render_clearly_and_nothing_else() {
    let server = shell_site().await;
    let url = server.url("/");
    let bogus = "/nonexistent/chromium";
    let r =
        run_env(fetch_args(&["--no-cache", &url, "--render"]), vec![("WEBCANON_CHROMIUM".into(), bogus.into())]).await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("rendering needs Chromium, and /nonexistent/chromium does not exist"), "{}", r.stderr);
    let r = run_env(
        fetch_args(&["--no-cache", "--json", "--render", "on", &url]),
        vec![("WEBCANON_CHROMIUM".into(), bogus.into())],
    )
    .await;
    assert_eq!(r.code, 5, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"]["reason"], "render_unavailable", "{v}");
    // Without --render the same setup fetches as always.
    let r = run_env(fetch_args(&["--no-cache", &url]), vec![("WEBCANON_CHROMIUM".into(), bogus.into())]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A bad mode is a usage error; a URL taken for one says where it goes.
    let r = run(fetch_args(&["--render", "sometimes", &url])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("unknown render mode `sometimes`"), "{}", r.stderr);
    let r = run(fetch_args(&["--render", &url])).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("a bare --render goes after the URL"), "{}", r.stderr);
}

/// A `webcanon serve` child, stopped when dropped.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `webcanon serve` on a free port: the child and its address.
fn serve(chromium: &Path) -> (Served, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(["serve", "--listen", "127.0.0.1:0", "--allow-private", "127.0.0.1", "--no-cache", "--chromium"])
        .arg(chromium)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("webcanon serve starts");
    let mut served = Served(child);
    let mut stderr = BufReader::new(served.0.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "serve exited before listening");
        if let Some(addr) = line.trim().strip_prefix("listening on http://") {
            let addr = addr.to_string();
            std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
            return (served, addr);
        }
    }
}

fn post(addr: &str, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let json = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_and_the_mcp_tool_render_on_request() {
    let Some(chromium) = chromium() else { return };
    let server = shell_site().await;
    let url = server.url("/");

    let (served, addr) = serve(&chromium);
    let api = tokio::task::spawn_blocking({
        let (addr, url) = (addr.clone(), url.clone());
        move || {
            let plain = post(&addr, "/v1/fetch", &json!({ "url": url }));
            let rendered = post(&addr, "/v1/fetch", &json!({ "url": url, "render": true }));
            let auto = post(&addr, "/v1/fetch", &json!({ "url": url, "render": "auto" }));
            let bad = post(&addr, "/v1/fetch", &json!({ "url": url, "render": "sometimes" }));
            (plain, rendered, auto, bad)
        }
    })
    .await
    .unwrap();
    drop(served);
    let (plain, rendered, auto, bad) = api;
    assert_eq!(plain.0, 200, "{}", plain.1);
    assert!(!plain.1["content"].as_str().unwrap().contains(TEXT));
    assert_eq!(plain.1["rendered"], false);
    for (status, v) in [rendered, auto] {
        assert_eq!(status, 200, "{v}");
        assert!(v["content"].as_str().unwrap().contains(TEXT), "{v}");
        assert_eq!(v["rendered"], true);
        assert_eq!(v["render"]["requests_made"], 2, "{v}");
    }
    assert_eq!(bad.0, 422, "{}", bad.1);

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_webcanon"));
    command.args(["mcp", "--allow-private", "127.0.0.1", "--no-cache", "--chromium"]).arg(&chromium);
    let (transport, _) = TokioChildProcess::builder(command).stderr(Stdio::null()).spawn().unwrap();
    let session = ().serve(transport).await.unwrap();
    let call = |render: Value| {
        let Value::Object(args) = json!({ "url": url, "render": render }) else { unreachable!() };
        session.call_tool(CallToolRequestParams::new("fetch").with_arguments(args))
    };
    let result = call(json!(true)).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text: Vec<&str> = result.content.iter().map(|c| c.as_text().unwrap().text.as_str()).collect();
    assert!(text.iter().any(|t| t.contains(TEXT)), "{text:?}");
    assert!(text[0].contains("Render: rendered in headless Chromium; the page's requests: 2 made"), "{}", text[0]);
    let structured = result.structured_content.as_ref().unwrap();
    assert_eq!(structured["rendered"], true, "{structured}");
    assert_eq!(structured["render"]["requests_made"], 2, "{structured}");
    let unrendered = call(json!(false)).await.unwrap();
    let text: Vec<&str> = unrendered.content.iter().map(|c| c.as_text().unwrap().text.as_str()).collect();
    assert!(!text.iter().any(|t| t.contains(TEXT)), "{text:?}");
    session.cancel().await.unwrap();
}
