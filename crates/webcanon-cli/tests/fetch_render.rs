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

use std::path::Path;
use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use support::{fetch_args, run, run_env, serve};
use webcanon_test::{ServeProcess, TestServer, chromium, serve_single_page_app};

/// The text only the script-loaded JSON holds.
const TEXT: &str = "Ferry timetable for the winter crossings";

async fn shell_site() -> TestServer {
    let paragraphs: Vec<String> = (0..5)
        .map(|i| format!("{TEXT}, sailing {i}: the boat leaves the pier at dawn and returns before the tide turns."))
        .collect();
    let server = TestServer::start().await;
    serve_single_page_app(&server, "Ferries", &paragraphs);
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

/// `POST /v1/fetch` with `body`: the status and the JSON answer.
fn post_fetch(served: &ServeProcess, body: &Value) -> (u16, Value) {
    let answer = served.post("/v1/fetch", &body.to_string());
    (answer.status, serde_json::from_str(answer.body()).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_and_the_mcp_tool_render_on_request() {
    let Some(chromium) = chromium() else { return };
    let server = shell_site().await;
    let url = server.url("/");

    let browser = chromium.to_str().expect("a UTF-8 path").to_string();
    let api = tokio::task::spawn_blocking({
        let url = url.clone();
        move || {
            let served = serve(&["--allow-private", "127.0.0.1", "--no-cache", "--chromium", &browser]);
            let plain = post_fetch(&served, &json!({ "url": url }));
            let rendered = post_fetch(&served, &json!({ "url": url, "render": true }));
            let auto = post_fetch(&served, &json!({ "url": url, "render": "auto" }));
            let bad = post_fetch(&served, &json!({ "url": url, "render": "sometimes" }));
            (plain, rendered, auto, bad)
        }
    })
    .await
    .unwrap();
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
