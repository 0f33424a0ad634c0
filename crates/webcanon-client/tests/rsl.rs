//! RSL licenses read by `Client::fetch` for the declared use, against real
//! servers on loopback: once per document, through robots.txt and the SSRF
//! guard, bounded in size, and only ever as warnings.

use std::time::Duration;

use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::warning::{WarningCode, WarningSource};
use webcanon_client::{CacheSetting, Client, ClientBuilder, FetchOptions, FetchResult};
use webcanon_core::policy::RobotsMode;
use webcanon_core::rsl::Usage;
use webcanon_test::{Route, TestServer};

const PAGE: &str = "<!doctype html><html><head><title>Hello</title></head><body><main><h1>Hello</h1>\
<p>This is a page about licences and the agents that read them, long enough to be an article.</p></main></body></html>";

const LICENSE: &str = r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license><permits type="usage">search ai-input</permits></license>
  </content>
  <content url="/paid/" server="https://licenses.example.com">
    <license>
      <permits type="usage">ai-all</permits>
      <payment type="training"><standard>https://example.com/rates</standard><amount currency="USD">25</amount></payment>
    </license>
  </content>
</rsl>"#;

fn builder(purpose: Option<Usage>) -> ClientBuilder {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .purpose(purpose)
}

async fn site(robots: &str) -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, robots));
    server.route("/page", Route::html(200, PAGE));
    server.route("/paid/page", Route::html(200, PAGE));
    server.route("/license.xml", Route::bytes(200, "application/rsl+xml", LICENSE.as_bytes().to_vec()));
    server
}

fn codes(result: &FetchResult) -> Vec<WarningCode> {
    result.warnings.iter().filter(|w| w.source == WarningSource::Rsl).map(|w| w.code).collect()
}

fn detail(result: &FetchResult, code: WarningCode) -> &str {
    &result.warnings.iter().find(|w| w.code == code).unwrap_or_else(|| panic!("{code}: {:?}", result.warnings)).detail
}

#[tokio::test]
async fn a_prohibited_use_warns_with_the_license_and_the_pattern() {
    let server = site("").await;
    let robots = format!("License: {}\nUser-agent: *\nAllow: /\n", server.url("/license.xml"));
    server.route("/robots.txt", Route::text(200, &robots));
    let client = builder(Some(Usage::AiTrain)).build().unwrap();
    let result = client.fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.status, 200, "a prohibition never blocks the fetch");
    assert_eq!(codes(&result), [WarningCode::RslProhibited]);
    let detail = detail(&result, WarningCode::RslProhibited);
    assert!(detail.contains(&server.url("/license.xml")), "{detail}");
    assert!(detail.contains("content `/`, line 2"), "{detail}");
    assert!(detail.contains("permits only `search`, `ai-input`"), "{detail}");

    let search = builder(Some(Usage::Search)).build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert!(codes(&search).is_empty(), "{:?}", search.warnings);
}

#[tokio::test]
async fn payment_and_license_server_are_warned_and_the_document_is_read_once() {
    let server = site("").await;
    server.route("/robots.txt", Route::text(200, &format!("License: {}\n", server.url("/license.xml"))));
    let client = builder(Some(Usage::AiTrain)).cache(CacheSetting::Memory).build().unwrap();
    let result = client.fetch(&server.url("/paid/page")).await.unwrap();
    assert_eq!(codes(&result), [WarningCode::RslPaymentRequired, WarningCode::RslLicenseServer]);
    let payment = detail(&result, WarningCode::RslPaymentRequired);
    assert!(payment.contains("`training`, 25 USD; standard terms at https://example.com/rates"), "{payment}");
    assert!(payment.contains("content `/paid/`, line 5"), "{payment}");
    assert!(detail(&result, WarningCode::RslLicenseServer).contains("https://licenses.example.com"));
    client.fetch(&server.url("/page")).await.unwrap();
    client.fetch(&server.url("/paid/page")).await.unwrap();
    assert_eq!(server.hits("/license.xml"), 1, "one request per document and cache time");
    // Another agent's client on the same caches reads it from there too.
    let other = client.with_agent(&"OtherBot".parse().unwrap(), None).unwrap();
    assert_eq!(codes(&other.fetch(&server.url("/paid/page")).await.unwrap()).len(), 2);
    assert_eq!(server.hits("/license.xml"), 1);
}

#[tokio::test]
async fn the_page_names_its_license_in_a_header_or_its_head() {
    let server = site("User-agent: *\nAllow: /\n").await;
    let link = format!(r#"<{}>; rel="license"; type="application/rsl+xml""#, server.url("/license.xml"));
    server.route("/linked", Route::html(200, PAGE).header("link", &link));
    let head = PAGE.replace("<title>", r#"<link rel="license" type="application/rsl+xml" href="/license.xml"><title>"#);
    server.route("/headed", Route::html(200, &head));
    let client = builder(Some(Usage::AiTrain)).build().unwrap();
    for path in ["/linked", "/headed"] {
        let result = client.fetch(&server.url(path)).await.unwrap();
        assert_eq!(codes(&result), [WarningCode::RslProhibited], "{path}");
    }
}

#[tokio::test]
async fn no_declared_use_reads_no_license_unless_the_registry_gives_one() {
    let server = site("").await;
    server.route("/robots.txt", Route::text(200, &format!("License: {}\n", server.url("/license.xml"))));
    let result = builder(None).build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert!(codes(&result).is_empty());
    assert_eq!(server.hits("/license.xml"), 0);
    // GPTBot is an `ai-training` crawler in the registry: it declares `ai-train`.
    let gptbot = builder(None).agent("GPTBot").build().unwrap();
    assert_eq!(gptbot.purpose(), Some(Usage::AiTrain));
    let result = gptbot.fetch(&server.url("/page")).await.unwrap();
    assert_eq!(codes(&result), [WarningCode::RslProhibited]);
}

#[tokio::test]
async fn a_license_robots_txt_disallows_is_not_requested() {
    let server = site("").await;
    let robots = format!("License: {}\nUser-agent: *\nDisallow: /license.xml\n", server.url("/license.xml"));
    server.route("/robots.txt", Route::text(200, &robots));
    for mode in [RobotsMode::Respect, RobotsMode::ReportOnly] {
        let client = builder(Some(Usage::AiTrain)).mode(mode).build().unwrap();
        let result = client.fetch(&server.url("/page")).await.unwrap();
        assert_eq!(codes(&result), [WarningCode::RslUnavailable], "{mode:?}");
        assert!(detail(&result, WarningCode::RslUnavailable).contains("Disallow: /license.xml"));
    }
    assert_eq!(server.hits("/license.xml"), 0);
}

#[tokio::test]
async fn a_license_at_a_private_address_is_refused_by_the_ssrf_guard() {
    let server = site("License: http://169.254.169.254/latest/license.xml\n").await;
    let result = builder(Some(Usage::AiTrain)).build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert_eq!(codes(&result), [WarningCode::RslUnavailable]);
    let detail = detail(&result, WarningCode::RslUnavailable);
    assert!(detail.contains("169.254.169.254") && detail.contains("its terms for `ai-train` are unknown"), "{detail}");
}

#[tokio::test]
async fn an_oversize_or_malformed_license_is_a_clear_warning() {
    let server = site("").await;
    let huge = format!(r#"<rsl xmlns="https://rslstandard.org/rsl"><!-- {} --></rsl>"#, "x".repeat(2 << 20));
    server.route("/huge.xml", Route::bytes(200, "application/rsl+xml", huge.into_bytes()));
    server.route("/broken.xml", Route::bytes(200, "application/xml", b"<rsl><content url='/'></rsl>".to_vec()));
    let robots = format!("License: {}\nLicense: {}\n", server.url("/huge.xml"), server.url("/broken.xml"));
    server.route("/robots.txt", Route::text(200, &robots));
    let result = builder(Some(Usage::AiInput)).build().unwrap().fetch(&server.url("/page")).await.unwrap();
    let details: Vec<&str> =
        result.warnings.iter().filter(|w| w.code == WarningCode::RslUnavailable).map(|w| w.detail.as_str()).collect();
    assert_eq!(details.len(), 2, "{:?}", result.warnings);
    assert!(details[0].contains("too_large"), "{}", details[0]);
    assert!(details[1].contains("not_well_formed"), "{}", details[1]);
}

#[tokio::test]
async fn the_purpose_is_a_fetch_option() {
    let client = builder(None).build().unwrap();
    assert_eq!(client.fetch_options().purpose, None);
    let options = FetchOptions { purpose: Some(Usage::Search), ..*client.fetch_options() };
    let search = builder(None).fetch_options(options).build().unwrap();
    assert_eq!(search.purpose(), Some(Usage::Search));
    assert_eq!(search.fetch_options().purpose, Some(Usage::Search));
}
