//! Rendering under hostile load: the per-page limit holds while hostile
//! pages render at once, a normal page waits only for a free slot, a page
//! whose navigation the browser refuses ends at once with the reason, and
//! the browser opens no listening socket (DevTools runs over a pipe).
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`. Without
//! either the tests say so on stderr and pass, unless
//! `WEBCANON_REQUIRE_CHROMIUM` is set (as `scripts/test.sh` does).

use std::path::Path;
use std::time::{Duration, Instant};

use webcanon_client::browser::{RenderLimits, RenderMode};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::warning::WarningCode;
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer, chromium, processes};

/// What a page may take past its limit: the context's disposal and the
/// scheduling of a loaded machine.
const SLACK: Duration = Duration::from_millis(1500);

/// Ten thousand timers, each asking for a resource every millisecond.
const TIMERS: &str = "for (let i = 0; i < 10000; i++) setInterval(() => fetch('/tick?' + i), 1);";
/// A loop that never yields.
const LOOP: &str = "while (true) {}";
/// Timers that each burn the CPU, then yield.
const BURN: &str =
    "for (let i = 0; i < 100; i++) setInterval(() => { const end = Date.now() + 50; while (Date.now() < end) {} }, 0);";

/// The text a normal page's script writes.
const NORMAL_TEXT: &str = "The harbour master posts the evening tides at the pier gate";

fn page(script: &str) -> String {
    format!(
        "<!doctype html><html><head><title>Page</title></head><body><main><h1>Page</h1>\
         <p id=\"out\">The page's own words.</p></main><script>{script}</script></body></html>"
    )
}

fn client(chromium: &Path, limits: RenderLimits) -> Client {
    Client::builder()
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()))
        .cache(CacheSetting::Memory)
        .alternatives(false)
        .chromium(chromium)
        .render(RenderMode::On)
        .render_limits(limits)
        .build()
        .unwrap()
}

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route("/timers", Route::html(200, &page(TIMERS)))
        .route("/loop", Route::html(200, &page(LOOP)))
        .route("/burn", Route::html(200, &page(BURN)))
        .route(
            "/normal",
            Route::html(200, &page(&format!("document.getElementById('out').textContent = '{NORMAL_TEXT}';"))),
        )
        .route("/tick", Route::text(200, "tick"))
        .route("/slow.js", Route::bytes(200, "text/javascript", b"1;".to_vec()).delay(Duration::from_secs(2)));
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pages_at_once_keep_their_limit_and_a_normal_page_waits_only_for_a_slot() {
    let Some(chromium) = chromium() else { return };
    let server = site().await;
    let limits = RenderLimits { pages_at_once: 2, wall_time: Duration::from_secs(4), ..RenderLimits::default() };
    let client = client(&chromium, limits);
    // The browser is started first, so that no page's wait includes it.
    let warm = client.fetch(&server.url("/normal")).await.unwrap();
    assert!(warm.rendered, "{:?}", warm.warnings);

    let started = Instant::now();
    let mut renders = Vec::new();
    for path in ["/timers", "/loop", "/burn", "/timers", "/normal"] {
        let (client, url) = (client.clone(), server.url(path));
        renders.push(tokio::spawn(async move {
            let result = client.fetch(&url).await.unwrap();
            (url, result, started.elapsed())
        }));
        // In this order: the normal page is the last in line.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for render in renders {
        let (url, result, finished) = render.await.unwrap();
        let report = result.render.as_ref().unwrap();
        let (render_ms, wait_ms) = (Duration::from_millis(report.render_ms), Duration::from_millis(report.wait_ms));
        eprintln!("{url}: waited {wait_ms:?}, rendered in {render_ms:?}, done at {finished:?}");
        assert!(render_ms <= limits.wall_time + SLACK, "{url}: {render_ms:?} in the browser");
        if url.ends_with("/normal") {
            assert!(result.content.contains(NORMAL_TEXT), "{}", result.content);
            assert!(render_ms < limits.wall_time, "the normal page is not starved: {render_ms:?}");
            // Two hostile pages ahead of it in each of the two slots.
            assert!(wait_ms <= 2 * (limits.wall_time + SLACK), "{url} waited {wait_ms:?}");
        } else {
            assert!(result.content.contains("own words"), "{url}: {}", result.content);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_the_browser_will_not_show_ends_at_once_with_the_reason() {
    let Some(chromium) = chromium() else { return };
    let server = site().await;
    server.route(
        "/download",
        Route::html(200, &page("")).header("content-disposition", "attachment; filename=\"page.html\""),
    );
    let limits = RenderLimits { wall_time: Duration::from_secs(10), ..RenderLimits::default() };
    let client = client(&chromium, limits);
    let result = client.fetch(&server.url("/download")).await.unwrap();
    let report = result.render.as_ref().unwrap();
    assert!(report.render_ms < 3_000, "a refused navigation ends at once, not after its limit: {report:?}");
    assert!(!result.rendered);
    let warning =
        result.warnings.iter().find(|w| w.code == WarningCode::RenderFailed).expect("a render_failed warning");
    assert!(warning.detail.contains("refused to show the page (net::"), "{}", warning.detail);
    assert!(result.content.contains("own words"), "the fetched HTML stands: {}", result.content);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_listens_on_no_port_and_writes_no_devtools_port_file() {
    let Some(chromium) = chromium() else { return };
    let server = site().await;
    server.route(
        "/waits",
        Route::html(200, "<!doctype html><html><body><p>Waiting.</p><script src=\"/slow.js\"></script></body></html>"),
    );
    let client = client(&chromium, RenderLimits::default());
    let rendering = tokio::spawn({
        let (client, url) = (client.clone(), server.url("/waits"));
        async move { client.fetch(&url).await.unwrap() }
    });
    // The browser of this process, once it is loading the page.
    let profile = format!("--user-data-dir={}", std::env::temp_dir().join("webcanon-chromium-").display());
    let profile = format!("{profile}{}-", std::process::id());
    let mut browser = Vec::new();
    for _ in 0..200 {
        if server.hits("/slow.js") > 0 {
            browser = processes::with_arg(&profile);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(!browser.is_empty(), "the browser is running while the page loads");
    let tree = processes::descendants(&browser);
    assert_eq!(processes::listening_tcp(&tree), Vec::<String>::new(), "listening sockets of the browser");
    let profiles = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&format!("webcanon-chromium-{}-", std::process::id())))
        .map(|e| e.path())
        .collect::<Vec<_>>();
    assert!(!profiles.is_empty());
    for profile in &profiles {
        assert!(!profile.join("DevToolsActivePort").exists(), "{} names a DevTools port", profile.display());
    }
    let result = rendering.await.unwrap();
    assert!(result.rendered, "{:?}", result.warnings);
}
