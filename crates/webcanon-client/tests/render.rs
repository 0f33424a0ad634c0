//! Rendering in headless Chromium on loopback: a single-page application
//! whose text arrives only through a script-loaded JSON (present rendered,
//! absent fetched), and hostile pages whose every forbidden request is
//! shown absent from the request logs of the servers it aims at.
//!
//! The client allows exactly one private address, `127.0.0.1` (the
//! fixture server); the servers a hostile page aims at listen on other
//! loopback addresses (`127.0.0.3`), which the SSRF guard refuses like any
//! private address, so a request reaching them would be a hole.
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`. Without
//! either the tests say so on stderr and pass, unless
//! `WEBCANON_REQUIRE_CHROMIUM` is set (as `scripts/test.sh` does).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use webcanon_client::browser::{RenderLimits, RenderMode};
use webcanon_client::ssrf::{SsrfPolicy, StaticLookup};
use webcanon_client::warning::WarningCode;
use webcanon_client::{CacheSetting, Client, FetchResult};
use webcanon_test::{Route, TestServer, chromium, serve_single_page_app};

/// One browser test at a time: each starts its own Chromium, and six of
/// them at once on a small machine starve the pages whose timing a test
/// reads (a page's first statement before its limit cuts it).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The text of the single-page application, only in its JSON.
const SPA_TEXT: &str = "Quarterly tide tables for the northern harbour";

/// The application's paragraphs, each naming [`SPA_TEXT`].
fn spa_paragraphs() -> Vec<String> {
    (0..6)
        .map(|i| format!("{SPA_TEXT}, part {i}: the tide rises twice a day along the northern harbour wall, and the pilots read the tables before every departure."))
        .collect()
}

/// A client that allows only `127.0.0.1` among private addresses, with
/// `names` resolved by a static table.
fn client(chromium: &Path, render: RenderMode, limits: RenderLimits, names: &[(&str, &str)]) -> Client {
    let mut lookup = StaticLookup::new();
    for (name, addr) in names {
        lookup = lookup.with(name, &[addr.parse().unwrap()]);
    }
    Client::builder()
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()))
        .name_lookup(Arc::new(lookup))
        .cache(CacheSetting::Memory)
        .alternatives(false)
        .chromium(chromium)
        .render(render)
        .render_limits(limits)
        .build()
        .unwrap()
}

async fn spa_server() -> TestServer {
    let server = TestServer::start().await;
    serve_single_page_app(&server, "Tide tables", &spa_paragraphs());
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_page_application_has_its_text_only_when_rendered() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = spa_server().await;
    let url = server.url("/");

    let fetched = client(&chromium, RenderMode::Off, RenderLimits::default(), &[]).fetch(&url).await.unwrap();
    assert!(!fetched.content.contains(SPA_TEXT), "{}", fetched.content);
    assert!(!fetched.rendered);
    assert!(fetched.render.is_none());
    assert_eq!(server.hits("/data.json"), 0);

    let rendered = client(&chromium, RenderMode::On, RenderLimits::default(), &[]).fetch(&url).await.unwrap();
    assert!(rendered.content.contains(SPA_TEXT), "{}", rendered.content);
    assert!(rendered.content.contains("pilots read the tables"), "{}", rendered.content);
    assert!(rendered.rendered);
    let report = rendered.render.as_ref().unwrap();
    assert_eq!(report.requests_made, 2, "{report:?} {:?}", server.requests());
    assert_eq!(server.hits("/data.json"), 1);
    assert_eq!(server.hits("/app.js"), 1);
    // The main document was fetched once, by webcanon, not by the browser.
    assert_eq!(server.hits("/"), 2);

    // `auto` renders the shell (little text, a script) and not an article.
    let auto = client(&chromium, RenderMode::Auto, RenderLimits::default(), &[]);
    let shell = auto.fetch(&url).await.unwrap();
    assert!(shell.rendered && shell.content.contains(SPA_TEXT), "{}", shell.content);
    server.route(
        "/article",
        Route::html(
            200,
            &format!(
                "<html><body><article><p>{}</p><script>1</script></article></body></html>",
                "Plain words on a page. ".repeat(40)
            ),
        ),
    );
    let article = auto.fetch(&server.url("/article")).await.unwrap();
    assert!(!article.rendered && article.render.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_chromium_render_is_a_clear_error_and_fetch_still_works() {
    let server = spa_server().await;
    let bogus = Path::new("/nonexistent/chromium");
    let client = client(bogus, RenderMode::On, RenderLimits::default(), &[]);
    let err = client.fetch(&server.url("/")).await.unwrap_err();
    let message = err.to_string();
    assert!(message.contains("rendering needs Chromium") && message.contains("/nonexistent/chromium"), "{message}");
    assert_eq!(err.kind(), "fetch");
    match &err {
        webcanon_client::error::Error::Fetch(fetch) => assert_eq!(fetch.reason(), "render_unavailable"),
        other => panic!("{other:?}"),
    }
    let plain = webcanon_client::FetchOptions { render: RenderMode::Off, ..*client.fetch_options() };
    let page = client.fetch_with(&server.url("/"), &plain).await.unwrap();
    assert!(page.content.contains("Loading"), "{}", page.content);
}

/// A server the page must never reach (a WebSocket or TURN server over
/// TCP, a STUN server over UDP): it records where each connection or
/// datagram came from, in the order they arrive.
struct Probe {
    addr: SocketAddr,
    sources: Arc<Mutex<Vec<SocketAddr>>>,
    udp: bool,
}

impl Probe {
    async fn tcp() -> Probe {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let probe = Probe { addr: listener.local_addr().unwrap(), sources: Arc::default(), udp: false };
        let sources = probe.sources.clone();
        tokio::spawn(async move {
            while let Ok((socket, source)) = listener.accept().await {
                sources.lock().unwrap().push(source);
                drop(socket);
            }
        });
        probe
    }

    async fn udp() -> Probe {
        let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let probe = Probe { addr: socket.local_addr().unwrap(), sources: Arc::default(), udp: true };
        let sources = probe.sources.clone();
        tokio::spawn(async move {
            let mut buffer = [0u8; 2048];
            while let Ok((_, source)) = socket.recv_from(&mut buffer).await {
                sources.lock().unwrap().push(source);
            }
        });
        probe
    }

    /// How many connections or datagrams arrived before a control the test
    /// sends now. The probe must see the control (else it could not have
    /// seen the page's either), and arrivals are taken in order, so once it
    /// has, every earlier arrival is counted too.
    async fn arrivals_before_control(&self) -> usize {
        let control = if self.udp {
            let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            socket.send_to(b"control", self.addr).await.unwrap();
            socket.local_addr().unwrap()
        } else {
            tokio::net::TcpStream::connect(self.addr).await.unwrap().local_addr().unwrap()
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(position) = self.sources.lock().unwrap().iter().position(|source| *source == control) {
                return position;
            }
            assert!(Instant::now() < deadline, "the probe at {} never saw its control", self.addr);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

fn page_with_script(script: &str) -> String {
    format!(
        "<!doctype html><html><head><title>Hostile</title></head><body><main><h1>Hostile page</h1>\
         <p id=\"out\">The page's own words stay readable whatever its scripts do.</p></main>\
         <script>{script}</script></body></html>"
    )
}

fn refused_reasons(result: &FetchResult) -> Vec<(String, String)> {
    result.render.as_ref().unwrap().refused.iter().map(|r| (r.url.clone(), r.reason.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_cannot_reach_private_or_metadata_addresses_in_any_spelling() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await;
    // The target: a server on another loopback address, and a name that
    // resolves to it.
    let private = TestServer::start_on("127.0.0.3:0").await;
    private.route("/secret", Route::text(200, "the secret"));
    let port = private.port();
    let targets = [
        format!("http://127.0.0.3:{port}/secret"),
        format!("http://2130706435:{port}/secret"),
        format!("http://0x7f000003:{port}/secret"),
        format!("http://0177.0.0.3:{port}/secret"),
        format!("http://127.3:{port}/secret"),
        format!("http://[::ffff:127.0.0.3]:{port}/secret"),
        format!("http://[::ffff:7f00:3]:{port}/secret"),
        format!("http://internal.test:{port}/secret"),
        format!("http://localhost:{port}/secret"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://metadata.google.internal/computeMetadata/v1/".to_string(),
        "http://[fd00:ec2::254]/latest/meta-data/".to_string(),
        "http://10.0.0.1/".to_string(),
        "http://192.168.1.1/".to_string(),
        "http://100.64.0.1/".to_string(),
        "http://[::1]/".to_string(),
        "http://0.0.0.0/".to_string(),
        // A redirect on the allowed server to the private one.
        server.url("/to-private"),
    ];
    let list = serde_json::to_string(&targets).unwrap();
    let script = format!(
        "for (const url of {list}) {{ fetch(url).then(r => r.text()).then(t => {{ document.getElementById('out').textContent += ' LEAKED ' + t; }}).catch(() => {{}}); }}\
         const x = new XMLHttpRequest(); x.open('GET', {first:?}); x.send();\
         const img = new Image(); img.src = {first:?};\
         fetch('file:///etc/passwd').then(r => r.text()).then(t => {{ document.getElementById('out').textContent += ' LEAKED ' + t; }}).catch(() => {{}});",
        first = targets[0]
    );
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route("/", Route::html(200, &page_with_script(&script)))
        .route("/to-private", Route::redirect(302, &format!("http://127.0.0.3:{port}/secret")));
    let client = client(&chromium, RenderMode::On, RenderLimits::default(), &[("internal.test", "127.0.0.3")]);
    let result = client.fetch(&server.url("/")).await.unwrap();
    assert!(result.rendered);
    assert!(!result.content.contains("LEAKED"), "{}", result.content);
    assert!(result.content.contains("stay readable"), "{}", result.content);
    assert!(private.requests().is_empty(), "the private server was reached: {:?}", private.requests());
    // The redirect itself was fetched (the allowed server), its target not.
    assert_eq!(server.hits("/to-private"), 1);
    let refused = refused_reasons(&result);
    for (url, reason) in &refused {
        assert!(matches!(reason.as_str(), "ssrf" | "resource_type"), "{url}: {reason}");
    }
    let ssrf = refused.iter().filter(|(_, r)| r == "ssrf").count();
    // Every target of the list and the XHR; the image is refused by type.
    assert_eq!(ssrf, targets.len() + 1, "{refused:#?}");
    assert!(refused.iter().any(|(_, r)| r == "resource_type"), "{refused:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_from_an_origin_whose_robots_txt_disallows_it_is_not_loaded() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await;
    let port = server.port();
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route_host("cdn.test", "/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private/\n"))
        .route_host(
            "cdn.test",
            "/private/app.js",
            Route::bytes(
                200,
                "text/javascript",
                b"document.getElementById('out').textContent = 'SCRIPT RAN';".to_vec(),
            ),
        )
        .route_host(
            "cdn.test",
            "/public/app.js",
            Route::bytes(200, "text/javascript", b"document.title = 'public script ran';".to_vec()),
        )
        .route(
            "/",
            Route::html(
                200,
                &format!(
                    "<!doctype html><html><head><title>Page</title></head><body><main><h1>Robots</h1>\
                     <p id=\"out\">Words of the page itself, long enough to be its main text.</p></main>\
                     <script src=\"http://cdn.test:{port}/private/app.js\"></script>\
                     <script src=\"http://cdn.test:{port}/public/app.js\"></script></body></html>"
                ),
            ),
        );
    let client = client(&chromium, RenderMode::On, RenderLimits::default(), &[("cdn.test", "127.0.0.1")]);
    let result = client.fetch(&server.url("/")).await.unwrap();
    assert!(result.rendered);
    assert!(!result.content.contains("SCRIPT RAN"), "{}", result.content);
    assert_eq!(result.title.as_deref(), Some("public script ran"));
    let cdn: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.host.as_deref().is_some_and(|h| h.starts_with("cdn.test")))
        .map(|r| r.path_and_query)
        .collect();
    assert_eq!(cdn, ["/robots.txt", "/public/app.js"], "cdn.test was asked for {cdn:?}");
    assert!(refused_reasons(&result).contains(&(format!("http://cdn.test:{port}/private/app.js"), "robots".into())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_webrtc_windows_and_workers_reach_nothing() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await;
    let (ws_probe, turn_probe, stun_probe) = (Probe::tcp().await, Probe::tcp().await, Probe::udp().await);
    let (ws, turn, stun) = (ws_probe.addr, turn_probe.addr, stun_probe.addr);
    let script = format!(
        r#"
        const sockets = [];
        try {{ sockets.push(new WebSocket("ws://{ws}/socket")); }} catch (e) {{}}
        try {{ const frame = document.createElement("iframe"); document.body.appendChild(frame);
               sockets.push(new frame.contentWindow.WebSocket("ws://{ws}/from-frame")); }} catch (e) {{}}
        try {{
          const Peer = window.RTCPeerConnection || document.createElement("iframe").contentWindow?.RTCPeerConnection;
          const pc = new Peer({{ iceServers: [{{ urls: "stun:{stun}" }}, {{ urls: "turn:{turn}?transport=tcp", username: "u", credential: "p" }}] }});
          pc.createDataChannel("x");
          pc.createOffer().then(o => pc.setLocalDescription(o));
        }} catch (e) {{}}
        for (let i = 0; i < 50; i++) {{ try {{ window.open("/popup-" + i, "_blank"); }} catch (e) {{}} }}
        try {{ new Worker("/worker.js"); }} catch (e) {{}}
        try {{ navigator.serviceWorker && navigator.serviceWorker.register("/sw.js"); }} catch (e) {{}}
        const link = document.createElement("a"); link.href = "/download.bin"; link.download = "x.bin"; document.body.appendChild(link); link.click();
        setTimeout(() => {{ location.href = "/elsewhere"; }}, 50);
        "#
    );
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route("/", Route::html(200, &page_with_script(&script)))
        .route("/worker.js", Route::bytes(200, "text/javascript", b"fetch('/from-worker');".to_vec()))
        .route("/sw.js", Route::bytes(200, "text/javascript", b"fetch('/from-sw');".to_vec()));
    let limits = RenderLimits { wall_time: Duration::from_secs(5), ..RenderLimits::default() };
    let client = client(&chromium, RenderMode::On, limits, &[]);
    let result = client.fetch(&server.url("/")).await.unwrap();
    assert!(result.rendered);
    assert!(result.content.contains("stay readable"), "{}", result.content);
    // A late attempt from the page would arrive before each probe's control.
    assert_eq!(ws_probe.arrivals_before_control().await, 0, "the WebSocket server was reached");
    assert_eq!(turn_probe.arrivals_before_control().await, 0, "the TURN server was reached");
    assert_eq!(stun_probe.arrivals_before_control().await, 0, "the STUN server was reached");
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path_and_query).collect();
    for path in &paths {
        assert!(matches!(path.as_str(), "/robots.txt" | "/" | "/worker.js"), "the page reached {path}: {paths:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_that_loop_or_allocate_without_end_are_cut_at_the_limits() {
    let Some(chromium) = chromium() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await;
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route(
            "/loop",
            Route::html(
                200,
                &page_with_script(
                    "document.getElementById('out').textContent += ' Rendered before the loop.'; while (true) {}",
                ),
            ),
        )
        .route(
            "/alloc",
            Route::html(
                200,
                &page_with_script("const hoard = []; while (true) hoard.push(new Array(1e6).fill(Math.random()));"),
            ),
        )
        .route("/many", Route::html(200, &page_with_script("for (let i = 0; i < 40; i++) fetch('/item-' + i);")));
    for i in 0..40 {
        server.route(&format!("/item-{i}"), Route::text(200, &"x".repeat(1000)));
    }
    let limits = RenderLimits {
        wall_time: Duration::from_secs(3),
        max_requests: 10,
        max_bytes: 5_000,
        ..RenderLimits::default()
    };
    let client = client(&chromium, RenderMode::On, limits, &[]);

    let started = Instant::now();
    let looped = client.fetch(&server.url("/loop")).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(
        looped.content.contains("Rendered before the loop"),
        "{} {:?} {:?}",
        looped.content,
        looped.warnings,
        looped.render
    );
    assert!(
        looped.warnings.iter().any(|w| w.code == WarningCode::RenderLimit && w.detail.contains("wall-time")),
        "{:?}",
        looped.warnings
    );

    let started = Instant::now();
    let hoard = client.fetch(&server.url("/alloc")).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(hoard.content.contains("stay readable"), "{}", hoard.content);
    assert!(
        hoard.warnings.iter().any(|w| matches!(w.code, WarningCode::RenderLimit | WarningCode::RenderFailed)),
        "{:?}",
        hoard.warnings
    );
    eprintln!("allocating page: {:?}", hoard.warnings);

    let many = client.fetch(&server.url("/many")).await.unwrap();
    let report = many.render.as_ref().unwrap();
    assert!(report.bytes <= 5_000, "{report:?}");
    // Requests past the count are refused unsent; a body past the byte
    // budget was sent (counted as made) but not handed to the page.
    assert!(report.requests_made <= 10, "{report:?}");
    assert!(report.refused.iter().any(|r| r.reason == "requests"), "{report:?}");
    assert!(report.refused.iter().any(|r| r.reason == "bytes"), "{report:?}");
    let items = server.requests().iter().filter(|r| r.path_and_query.starts_with("/item-")).count();
    assert_eq!(items, report.requests_made, "{report:?}");
    assert!(many.warnings.iter().any(|w| w.code == WarningCode::RenderLimit), "{:?}", many.warnings);

    // The browser survived all of it.
    let server2 = spa_server().await;
    let after = client.fetch(&server2.url("/")).await.unwrap();
    assert!(after.content.contains(SPA_TEXT), "{}", after.content);
}
