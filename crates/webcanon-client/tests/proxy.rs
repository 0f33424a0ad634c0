//! An explicit proxy: requests go through a real forward proxy on loopback
//! (which logs what it is asked for), the SSRF guard still resolves and
//! vets every target here first, so a private target never reaches the
//! proxy, and the proxy itself, on loopback, needs no opt-in.

use std::net::IpAddr;
use std::sync::Arc;

use webcanon_client::options::{CacheChoice, ClientOptions};
use webcanon_client::ssrf::StaticLookup;
use webcanon_client::{CacheSetting, Client, error::code};
use webcanon_test::{Route, TestProxy, TestServer};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A client through `proxy`, resolving names from a static table (no DNS
/// query leaves the machine) and allowing no private network: the proxy
/// on 127.0.0.1 is reached because the operator named it.
fn client(proxy: &TestProxy) -> Client {
    let lookup = StaticLookup::new()
        .with("public.test", &[ip("93.184.216.34")])
        .with("private.test", &[ip("10.1.2.3")])
        .with("mixed.test", &[ip("93.184.216.34"), ip("127.0.0.1")]);
    let options = ClientOptions { proxy: Some(proxy.url()), cache: CacheChoice::None, ..ClientOptions::default() };
    options
        .builder()
        .unwrap()
        .cache(CacheSetting::None)
        .name_lookup(Arc::new(lookup))
        .alternatives(false)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_fetch_goes_through_the_proxy() {
    let origin = TestServer::start().await;
    origin.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    origin.route("/page", Route::html(200, "<title>Hi</title><main><p>Through the proxy.</p></main>"));
    let proxy = TestProxy::start(origin.addr()).await;
    let port = origin.port();
    let result = client(&proxy).fetch(&format!("http://public.test:{port}/page")).await.unwrap();
    assert_eq!(result.status, 200);
    assert!(result.content.contains("Through the proxy."), "{}", result.content);
    assert_eq!(
        proxy.requests(),
        [format!("http://public.test:{port}/robots.txt"), format!("http://public.test:{port}/page")],
        "the proxy is asked for each URL in absolute form"
    );
    let seen: Vec<_> = origin.requests().into_iter().map(|r| (r.path_and_query, r.host)).collect();
    let host = Some(format!("public.test:{port}"));
    assert_eq!(seen, [("/robots.txt".to_string(), host.clone()), ("/page".to_string(), host)]);
}

#[tokio::test]
async fn a_private_target_is_refused_before_anything_reaches_the_proxy() {
    let origin = TestServer::start().await;
    let proxy = TestProxy::start(origin.addr()).await;
    let client = client(&proxy);
    for url in [
        "http://private.test/page",
        "http://mixed.test/page",
        "http://10.0.0.1/page",
        &origin.url("/page"),
        "http://localhost/page",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        let err = client.fetch(url).await.unwrap_err();
        assert_eq!(err.code(), code::SSRF, "{url}: {err}");
    }
    assert_eq!(proxy.requests(), Vec::<String>::new(), "the proxy saw nothing");
    assert!(origin.requests().is_empty());
}

#[tokio::test]
async fn a_redirect_to_a_private_target_is_refused_before_the_proxy_sees_it() {
    let origin = TestServer::start().await;
    origin.route("/robots.txt", Route::text(404, "none"));
    origin.route("/hop", Route::redirect(302, "http://private.test/inside"));
    let proxy = TestProxy::start(origin.addr()).await;
    let port = origin.port();
    let err = client(&proxy).fetch(&format!("http://public.test:{port}/hop")).await.unwrap_err();
    assert_eq!(err.code(), code::SSRF, "{err}");
    let asked = proxy.requests();
    assert!(asked.iter().all(|url| url.starts_with("http://public.test:")), "{asked:?}");
    assert!(asked.contains(&format!("http://public.test:{port}/hop")), "{asked:?}");
}

#[tokio::test]
async fn requests_the_client_does_not_vet_itself_are_vetted_before_the_proxy_sees_them() {
    // robots.txt redirects are followed inside the robots loader, request
    // by request: each hop is vetted where the request is made.
    let origin = TestServer::start().await;
    origin.route("/robots.txt", Route::redirect(301, "http://private.test/robots.txt"));
    origin.route("/page", Route::html(200, "<main><p>The page.</p></main>"));
    let proxy = TestProxy::start(origin.addr()).await;
    let port = origin.port();
    let _ = client(&proxy).fetch(&format!("http://public.test:{port}/page")).await;
    let asked = proxy.requests();
    assert!(asked.contains(&format!("http://public.test:{port}/robots.txt")), "{asked:?}");
    assert!(!asked.iter().any(|url| url.contains("private.test")), "the private hop reached the proxy: {asked:?}");
}
