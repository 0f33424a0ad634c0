//! `--proxy` (and `WEBCANON_PROXY`) end to end: a real forward proxy on
//! loopback forwarding to a loopback site, the binary as a child process.
//! The target name resolves (by `--resolve`) to a public address, so the
//! guard lets it through without `--allow-private`; the proxy, on
//! loopback, needs no opt-in; it reaches the site whatever the name says.
//! Also: the proxy variables of the environment are ignored, and the
//! option variables, `--quiet` and `--verbose` on `fetch`.

mod support;

use support::{fetch_args, run, run_env, serve};
use webcanon_test::{Route, TestProxy, TestServer};

const PAGE: &str = "<html><head><title>Proxied</title></head><body><main><h1>Proxied</h1>\
<p>This page came through the proxy, and the proxy wrote down that it did.</p></main></body></html>";

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/page", Route::html(200, PAGE).header("x-robots-tag", "noai"));
    server
}

/// `fetch` arguments for `public.test` on the site's port, resolved to a
/// public address (no private network allowed), then `extra`.
fn public_fetch(site: &TestServer, extra: &[&str]) -> Vec<String> {
    let port = site.port();
    let mut args: Vec<String> = ["fetch", "--no-cache", "--no-alternatives", "--timeout", "5", "--resolve"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(format!("public.test:{port}:93.184.216.34"));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(format!("http://public.test:{port}/page"));
    args
}

fn expected_log(site: &TestServer) -> Vec<String> {
    let port = site.port();
    vec![format!("http://public.test:{port}/robots.txt"), format!("http://public.test:{port}/page")]
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_goes_through_the_proxy_named_by_the_flag_or_the_variable() {
    let site = site().await;
    let proxy = TestProxy::start(site.addr()).await;
    let r = run(public_fetch(&site, &["--proxy", &proxy.url()])).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("This page came through the proxy"), "{}", r.stdout);
    assert_eq!(proxy.requests(), expected_log(&site));
    assert_eq!(site.requests().len(), 2);

    let proxy = TestProxy::start(site.addr()).await;
    let r = run_env(public_fetch(&site, &[]), vec![("WEBCANON_PROXY".into(), proxy.url())]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(proxy.requests(), expected_log(&site), "WEBCANON_PROXY names the proxy");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_private_target_is_refused_before_the_proxy_sees_anything() {
    let site = site().await;
    let proxy = TestProxy::start(site.addr()).await;
    for (resolve, url) in [
        ("private.test:80:10.1.2.3", "http://private.test/page"),
        ("loop.test:80:127.0.0.1", "http://loop.test/page"),
        ("x.test:80:93.184.216.34", &site.url("/page")),
    ] {
        let r = run(vec![
            "fetch".into(),
            "--no-cache".into(),
            "--proxy".into(),
            proxy.url(),
            "--resolve".into(),
            resolve.into(),
            url.into(),
        ])
        .await;
        assert_eq!(r.code, 4, "{url}: {}", r.stderr);
        assert!(r.stderr.contains("refused"), "{}", r.stderr);
    }
    assert_eq!(proxy.requests(), Vec::<String>::new(), "nothing reached the proxy");
    assert!(site.requests().is_empty());
    let r = run(vec!["fetch".into(), "--proxy".into(), "socks5://127.0.0.1:1080".into(), site.url("/page")]).await;
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--proxy `socks5://127.0.0.1:1080`: scheme `socks5` is not supported"), "{}", r.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn proxy_variables_of_the_environment_are_ignored() {
    let site = site().await;
    let proxy = TestProxy::start(site.addr()).await;
    let port = site.port();
    let args = fetch_args(&[
        "--no-cache",
        "--resolve",
        &format!("direct.test:{port}:127.0.0.1"),
        &format!("http://direct.test:{port}/page"),
    ]);
    let vars = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]
        .iter()
        .map(|name| (name.to_string(), proxy.url()))
        .collect();
    let r = run_env(args, vars).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(proxy.requests().is_empty(), "the proxy was used: {:?}", proxy.requests());
    assert_eq!(site.hits("/page"), 1, "the site was reached directly");
}

#[tokio::test(flavor = "multi_thread")]
async fn webcanon_agent_is_the_agent_the_site_sees() {
    let site = site().await;
    let args = fetch_args(&["--no-cache", &site.url("/page")]);
    let r = run_env(args.clone(), vec![("WEBCANON_AGENT".into(), "GPTBot".into())]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let agents: Vec<String> = site.requests().into_iter().filter_map(|r| r.user_agent).collect();
    assert!(!agents.is_empty() && agents.iter().all(|a| a.starts_with("GPTBot/")), "{agents:?}");
    let r = run_env(args, vec![("WEBCANON_USER_AGENT".into(), "Custom/1.0".into())]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(site.requests().last().unwrap().user_agent.as_deref(), Some("Custom/1.0"));
}

#[tokio::test(flavor = "multi_thread")]
async fn quiet_keeps_warnings_and_drops_the_summary_verbose_logs() {
    let site = site().await;
    let loud = run(fetch_args(&["--no-cache", &site.url("/page")])).await;
    assert!(loud.stderr.contains("fetched ") && loud.stderr.contains("robots: "), "{}", loud.stderr);
    assert!(!loud.stderr.contains("DEBUG") && !loud.stderr.contains("INFO"), "no logs by default: {}", loud.stderr);
    let quiet = run(fetch_args(&["--no-cache", "--quiet", &site.url("/page")])).await;
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert_eq!(quiet.stdout, loud.stdout);
    let left: Vec<&str> = quiet.stderr.lines().collect();
    assert!(left.len() == 1 && left[0].starts_with("warning[noai]: "), "only the usage warning is left: {left:?}");
    let verbose = run(fetch_args(&["--no-cache", "-vv", &site.url("/page")])).await;
    assert_eq!(verbose.code, 0, "{}", verbose.stderr);
    assert!(verbose.stderr.contains("DEBUG"), "-vv logs at debug: {}", verbose.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_fetches_through_the_proxy() {
    let site = site().await;
    let proxy = TestProxy::start(site.addr()).await;
    let port = site.port();
    let resolve = format!("public.test:{port}:93.184.216.34");
    let body = format!(r#"{{"url": "http://public.test:{port}/page", "alternatives": false}}"#);
    let proxy_url = proxy.url();
    let answer = tokio::task::spawn_blocking(move || {
        let served = serve(&["--no-cache", "--proxy", &proxy_url, "--resolve", &resolve]);
        served.post("/v1/fetch", &body)
    })
    .await
    .unwrap();
    assert!(answer.head().starts_with("HTTP/1.1 200"), "{answer:?}");
    assert!(answer.body().contains("This page came through the proxy"), "{answer:?}");
    assert_eq!(proxy.requests(), expected_log(&site));
}
