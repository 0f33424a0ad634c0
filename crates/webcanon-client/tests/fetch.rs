//! The retrieval layer against real HTTP servers on loopback: one test per
//! row of the verdict table and per mode, robots.txt served with each
//! status, redirect chains, timeouts, limits, caching. Every refusal is
//! also checked on the server side: a refused URL is never requested.

use std::sync::Arc;
use std::time::Duration;

use webcanon_client::Clock;
use webcanon_client::error::{Error, FetchError};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::store::{MemoryStore, RobotsStore};
use webcanon_client::{CacheSetting, Client, ClientBuilder};
use webcanon_core::policy::{FetchRecommendation, RobotsAvailability, RobotsMode, Verdict};
use webcanon_test::{Route, TestServer};

const PAGE: &str = "<!doctype html><html><head><title>Hello</title></head><body><main><h1>Hello</h1>\
<p>This is a page about robots and the agents that read them, long enough to be an article.</p></main></body></html>";

fn loopback() -> SsrfPolicy {
    SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap())
}

fn builder() -> ClientBuilder {
    Client::builder().agent("TestBot").timeout(Duration::from_secs(5)).cache(CacheSetting::None).ssrf_policy(loopback())
}

async fn server_with(robots: Route) -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", robots);
    server.route("/page", Route::html(200, PAGE));
    server.route("/private", Route::html(200, PAGE));
    server
}

fn policy_error(err: Error) -> webcanon_core::policy::PolicyError {
    match err {
        Error::Policy(policy) => *policy,
        other => panic!("expected a policy refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn allowed_explicit_carries_the_rule() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /\nAllow: /page\n")).await;
    let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::AllowedExplicit);
    assert_eq!(result.robots.recommendation, FetchRecommendation::Recommended);
    let rule = result.robots.rule.unwrap();
    assert_eq!((rule.line, rule.pattern.as_str()), (3, "/page"));
    assert_eq!(result.robots.status, Some(200));
    assert_eq!(result.robots.robots_url.as_deref(), Some(server.url("/robots.txt").as_str()));
    assert!(!result.robots.from_cache);
    assert_eq!(result.status, 200);
}

#[tokio::test]
async fn allowed_implicit_when_no_rule_matches() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::AllowedImplicit);
    assert!(result.robots.rule.is_none());
}

#[tokio::test]
async fn disallowed_explicit_is_refused_and_never_requested() {
    let server = server_with(Route::text(200, "User-agent: TestBot\nDisallow: /private\n")).await;
    let err = builder().build().unwrap().fetch(&server.url("/private")).await.unwrap_err();
    let policy = policy_error(err);
    assert_eq!(policy.evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(policy.evidence.recommendation, FetchRecommendation::NotRecommended);
    assert_eq!(policy.evidence.rule.as_ref().unwrap().line, 2);
    assert!(policy.to_string().contains("`Disallow: /private`"));
    assert_eq!(server.hits("/private"), 0);
    assert_eq!(server.hits("/robots.txt"), 1);
}

#[tokio::test]
async fn report_only_records_a_disallow_and_fetches() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    let client = builder().mode(RobotsMode::ReportOnly).build().unwrap();
    let result = client.fetch(&server.url("/private")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::DisallowedExplicit);
    assert_eq!(server.hits("/private"), 1);
}

#[tokio::test]
async fn ignore_mode_never_asks_for_robots_txt() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /\n")).await;
    let client = builder().mode(RobotsMode::Ignore).build().unwrap();
    let result = client.fetch(&server.url("/private")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::SkippedByUserPolicy);
    assert_eq!(result.robots.recommendation, FetchRecommendation::Recommended);
    assert_eq!(server.hits("/robots.txt"), 0);
}

#[tokio::test]
async fn robots_4xx_means_no_restrictions() {
    for status in [404, 410, 400] {
        let server = server_with(Route::text(status, "User-agent: *\nDisallow: /\n")).await;
        let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
        assert_eq!(result.robots.verdict, Verdict::AllowedImplicit, "status {status}");
        assert_eq!(result.robots.availability, Some(RobotsAvailability::Unavailable));
        assert_eq!(result.robots.status, Some(status));
    }
}

#[tokio::test]
async fn robots_401_and_403_allow_with_a_warning_unless_configured() {
    for status in [401, 403] {
        let server = server_with(Route::text(status, "denied")).await;
        let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
        assert_eq!(result.robots.verdict, Verdict::AllowedImplicit);
        assert!(result.warnings.iter().any(|w| w.code.as_str() == "robots_access_denied"), "{:?}", result.warnings);

        let strict = builder().auth_status_disallows(true).build().unwrap();
        let policy = policy_error(strict.fetch(&server.url("/private")).await.unwrap_err());
        assert_eq!(policy.evidence.verdict, Verdict::DisallowedExplicit);
        assert_eq!(policy.evidence.availability, Some(RobotsAvailability::AuthDisallowAll));
        assert_eq!(server.hits("/private"), 0);
    }
}

#[tokio::test]
async fn robots_429_and_5xx_are_unreachable_and_refuse() {
    for status in [429, 500, 502, 503] {
        let server = server_with(Route::text(status, "busy")).await;
        let policy = policy_error(builder().build().unwrap().fetch(&server.url("/page")).await.unwrap_err());
        assert_eq!(policy.evidence.verdict, Verdict::UnknownUnreachable, "status {status}");
        assert_eq!(policy.evidence.recommendation, FetchRecommendation::UnknownDoNotFetchByDefault);
        assert_eq!(server.hits("/page"), 0, "status {status}");
    }
}

#[tokio::test]
async fn unreachable_under_report_only_fetches_with_a_warning() {
    let server = server_with(Route::text(503, "busy")).await;
    let client = builder().mode(RobotsMode::ReportOnly).build().unwrap();
    let result = client.fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::UnknownUnreachable);
    assert!(result.warnings.iter().any(|w| w.code.as_str() == "robots_unreachable"));
}

#[tokio::test]
async fn robots_timeout_is_unreachable() {
    // The server would answer after 20 s; the 400 ms timeout must end the
    // wait long before (the bound leaves a loaded machine ample room).
    let server = server_with(Route::text(200, "User-agent: *\nAllow: /\n").delay(Duration::from_secs(20))).await;
    let client = builder().timeout(Duration::from_millis(400)).build().unwrap();
    let started = std::time::Instant::now();
    let policy = policy_error(client.fetch(&server.url("/page")).await.unwrap_err());
    assert_eq!(policy.evidence.verdict, Verdict::UnknownUnreachable);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(server.hits("/page"), 0);
}

#[tokio::test]
async fn network_error_is_unreachable() {
    let server = TestServer::start().await;
    let dead = server.url("/page");
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let policy = policy_error(builder().build().unwrap().fetch(&dead).await.unwrap_err());
    assert_eq!(policy.evidence.verdict, Verdict::UnknownUnreachable);
    assert_eq!(policy.evidence.status, None);
}

#[tokio::test]
async fn html_served_as_robots_txt_is_a_parse_error() {
    let server = server_with(Route::html(200, "<!DOCTYPE html><html><body><h1>Welcome</h1></body></html>")).await;
    let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::UnknownParseError);
    assert_eq!(result.robots.recommendation, FetchRecommendation::AllowedButWarn);
    assert!(result.warnings.iter().any(|w| w.code.as_str() == "robots_parse_error"));
}

#[tokio::test]
async fn robots_redirects_are_followed_up_to_five() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::redirect(301, "/r1"));
    for i in 1..5 {
        server.route(&format!("/r{i}"), Route::redirect(302, &format!("/r{}", i + 1)));
    }
    server.route("/r5", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/private", Route::html(200, PAGE));
    let policy = policy_error(builder().build().unwrap().fetch(&server.url("/private")).await.unwrap_err());
    assert_eq!(policy.evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(server.hits("/r5"), 1);
    assert_eq!(server.hits("/private"), 0);
}

#[tokio::test]
async fn more_than_five_robots_redirects_mean_unavailable() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::redirect(301, "/r1"));
    for i in 1..6 {
        server.route(&format!("/r{i}"), Route::redirect(302, &format!("/r{}", i + 1)));
    }
    server.route("/r6", Route::text(200, "User-agent: *\nDisallow: /\n"));
    server.route("/page", Route::html(200, PAGE));
    let result = builder().build().unwrap().fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::AllowedImplicit);
    assert_eq!(result.robots.availability, Some(RobotsAvailability::Unavailable));
    assert_eq!(server.hits("/r6"), 0);
}

#[tokio::test]
async fn page_redirects_are_checked_against_robots_on_every_hop() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    server.route("/start", Route::redirect(302, "/middle"));
    server.route("/middle", Route::redirect(301, "/private"));
    let policy = policy_error(builder().build().unwrap().fetch(&server.url("/start")).await.unwrap_err());
    assert!(policy.url.ends_with("/private"), "{}", policy.url);
    assert_eq!(server.hits("/middle"), 1);
    assert_eq!(server.hits("/private"), 0);

    server.route("/ok", Route::redirect(307, "/page"));
    let result = builder().build().unwrap().fetch(&server.url("/ok")).await.unwrap();
    assert!(result.final_url.ends_with("/page"));
    assert_eq!(result.requested_url, server.url("/ok"));
    assert_eq!(result.redirects.len(), 1);
}

#[tokio::test]
async fn cross_origin_redirects_use_the_other_origins_robots() {
    let first = server_with(Route::text(200, "User-agent: *\nAllow: /\n")).await;
    let second = server_with(Route::text(200, "User-agent: TestBot\nDisallow: /\n")).await;
    first.route("/away", Route::redirect(302, &second.url("/page")));
    let policy = policy_error(builder().build().unwrap().fetch(&first.url("/away")).await.unwrap_err());
    assert_eq!(policy.evidence.robots_url.as_deref(), Some(second.url("/robots.txt").as_str()));
    assert_eq!(second.hits("/robots.txt"), 1);
    assert_eq!(second.hits("/page"), 0);
}

#[tokio::test]
async fn redirect_loops_stop_at_the_limit() {
    let server = server_with(Route::text(404, "")).await;
    server.route("/loop", Route::redirect(302, "/loop"));
    let err = builder().max_redirects(4).build().unwrap().fetch(&server.url("/loop")).await.unwrap_err();
    assert!(matches!(err, Error::Fetch(FetchError::TooManyRedirects { limit: 4, .. })), "{err:?}");
    assert_eq!(server.hits("/loop"), 5);
}

#[tokio::test]
async fn redirect_to_a_private_address_is_refused_by_the_guard() {
    let server = server_with(Route::text(404, "")).await;
    server.route("/meta", Route::redirect(302, "http://169.254.169.254/latest/meta-data/"));
    let err = builder().build().unwrap().fetch(&server.url("/meta")).await.unwrap_err();
    assert!(err.is_ssrf(), "{err:?}");
    server.route("/file", Route::redirect(302, "file:///etc/passwd"));
    let err = builder().build().unwrap().fetch(&server.url("/file")).await.unwrap_err();
    assert!(matches!(err, Error::Fetch(FetchError::BadRedirect { .. }) | Error::Ssrf(_)), "{err:?}");
}

#[tokio::test]
async fn error_statuses_fail_the_fetch() {
    let server = server_with(Route::text(404, "")).await;
    let err = builder().build().unwrap().fetch(&server.url("/missing")).await.unwrap_err();
    assert!(matches!(err, Error::Fetch(FetchError::Status { status: 404, .. })), "{err:?}");
}

#[tokio::test]
async fn page_timeout_fails_the_fetch() {
    let server = server_with(Route::text(404, "")).await;
    server.route("/slow", Route::html(200, PAGE).delay(Duration::from_secs(3)));
    let client = builder().timeout(Duration::from_millis(400)).build().unwrap();
    let err = client.fetch(&server.url("/slow")).await.unwrap_err();
    assert!(matches!(err, Error::Fetch(FetchError::Timeout { .. })), "{err:?}");
}

#[tokio::test]
async fn bodies_are_cut_at_the_limit_even_when_compressed() {
    let server = server_with(Route::text(404, "")).await;
    server.route("/big", Route::repeat(200, "text/plain", &[b'a'; 64 * 1024], 160));
    // 64 MiB of zeros compress to about 64 KiB.
    server.route("/bomb", Route::gzip(200, "text/plain", &vec![b'0'; 64 * 1024 * 1024]));
    let client = builder().max_bytes(1024 * 1024).build().unwrap();
    for path in ["/big", "/bomb"] {
        let result = client.fetch(&server.url(path)).await.unwrap();
        assert_eq!(result.content.len(), 1024 * 1024, "{path}");
        assert!(result.warnings.iter().any(|w| w.code.as_str() == "body_truncated"), "{path}");
    }
}

#[tokio::test]
async fn concurrent_fetches_share_one_robots_fetch() {
    let server = server_with(Route::text(200, "User-agent: *\nAllow: /\n").delay(Duration::from_millis(200))).await;
    let client = builder().cache(CacheSetting::Memory).build().unwrap();
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let client = client.clone();
        let url = server.url("/page");
        tasks.push(tokio::spawn(async move { client.fetch(&url).await.map(|r| r.robots.verdict) }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap().unwrap(), Verdict::AllowedExplicit);
    }
    assert_eq!(server.hits("/robots.txt"), 1);
    assert_eq!(server.hits("/page"), 16);
}

#[tokio::test]
async fn cache_ttl_is_honoured() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    // A manual clock: freshness is decided by the test, not by where the
    // second boundary of the system clock falls.
    let clock = Clock::manual(1_700_000_000);
    let client = builder().cache(CacheSetting::Memory).max_cache_seconds(60).clock(clock.clone()).build().unwrap();
    let first = client.fetch(&server.url("/page")).await.unwrap();
    clock.advance(59);
    let second = client.fetch(&server.url("/page")).await.unwrap();
    assert!(!first.robots.from_cache);
    assert!(second.robots.from_cache, "fresh for 60 s, asked after 59");
    assert_eq!(server.hits("/robots.txt"), 1);
    clock.advance(1);
    let third = client.fetch(&server.url("/page")).await.unwrap();
    assert!(!third.robots.from_cache);
    assert_eq!(server.hits("/robots.txt"), 2);
}

#[tokio::test]
async fn cache_lifetime_is_capped_at_24_hours() {
    let server =
        server_with(Route::text(200, "User-agent: *\nAllow: /\n").header("cache-control", "max-age=999999")).await;
    let store = Arc::new(MemoryStore::new());
    let client = builder().cache(CacheSetting::Store(store.clone())).max_cache_seconds(7 * 24 * 3600).build().unwrap();
    client.fetch(&server.url("/page")).await.unwrap();
    let origin = server.url("");
    let record = store.load(&origin).unwrap().expect("record saved");
    assert_eq!(record.expires_at - record.fetched_at, 24 * 3600);
    let server_ttl =
        server_with(Route::text(200, "User-agent: *\nAllow: /\n").header("cache-control", "max-age=120")).await;
    client.fetch(&server_ttl.url("/page")).await.unwrap();
    let record = store.load(&server_ttl.url("")).unwrap().expect("record saved");
    assert_eq!(record.expires_at - record.fetched_at, 120);
}

#[tokio::test]
async fn stale_copy_is_used_when_robots_becomes_unreachable() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    let clock = Clock::manual(1_700_000_000);
    let client = builder().cache(CacheSetting::Memory).max_cache_seconds(60).clock(clock.clone()).build().unwrap();
    client.fetch(&server.url("/page")).await.unwrap();
    server.route("/robots.txt", Route::text(503, "down"));
    clock.advance(61);
    let result = client.fetch(&server.url("/page")).await.unwrap();
    assert_eq!(result.robots.verdict, Verdict::AllowedImplicit);
    assert!(result.robots.from_cache);
    assert!(result.warnings.iter().any(|w| w.code.as_str() == "stale_robots_cache"), "{:?}", result.warnings);
    let policy = policy_error(client.fetch(&server.url("/private")).await.unwrap_err());
    assert_eq!(policy.evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(server.hits("/robots.txt"), 2, "the failure is cached, not retried at once");
    assert_eq!(server.hits("/private"), 0);
}

#[tokio::test]
async fn the_default_policy_refuses_loopback() {
    let server = server_with(Route::text(200, "User-agent: *\nAllow: /\n")).await;
    let client = Client::builder().cache(CacheSetting::None).build().unwrap();
    let err = client.fetch(&server.url("/page")).await.unwrap_err();
    assert!(err.is_ssrf(), "{err:?}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn check_decides_without_fetching_the_page() {
    let server = server_with(Route::text(200, "User-agent: *\nDisallow: /private\n")).await;
    let client = builder().build().unwrap();
    let evidence = client.check(&server.url("/private")).await.unwrap().robots;
    assert_eq!(evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(server.hits("/private"), 0);
}

#[tokio::test]
async fn user_agent_header_and_agent_token_are_separate() {
    let server = server_with(Route::text(200, "User-agent: TestBot\nAllow: /\n")).await;
    let client = builder().user_agent("Mozilla/5.0 (compatible; TestBot/1.0)").build().unwrap();
    client.fetch(&server.url("/page")).await.unwrap();
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.user_agent.as_deref() == Some("Mozilla/5.0 (compatible; TestBot/1.0)")));
}

#[tokio::test]
async fn invalid_urls_are_usage_errors() {
    let client = builder().build().unwrap();
    for url in ["not a url", "ftp://example.com/", "mailto:a@b.c", "/relative"] {
        let err = client.fetch(url).await.unwrap_err();
        assert!(matches!(err, Error::InvalidUrl { .. }) || err.is_ssrf(), "{url}: {err:?}");
    }
}

#[tokio::test]
async fn usage_signals_become_warnings_never_blocks() {
    let server = server_with(Route::text(
        200,
        "User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=no\n\nUser-agent: OtherBot\nContent-Signal: ai-input=no\n",
    ))
    .await;
    server.route(
        "/article",
        Route::html(200, webcanon_test::ARTICLE_HTML)
            .header("x-robots-tag", "testbot: noindex")
            .header("x-robots-tag", "otherbot: nosnippet")
            .header("content-usage", "train-ai=n, search=y"),
    );
    server.route(
        "/notes.md",
        Route::bytes(200, "text/markdown", b"# Notes\n\nPlain.".to_vec())
            .header("link", "</notes>; rel=\"canonical\"")
            .header("tdm-reservation", "1"),
    );
    let client = builder().build().unwrap();
    let result = client.fetch(&server.url("/article")).await.unwrap();
    let codes: Vec<(&str, &str)> = result.warnings.iter().map(|w| (w.code.as_str(), w.source.as_str())).collect();
    for expected in [
        ("noindex", "x_robots_tag"),
        ("content_usage", "content_usage_header"),
        ("noai", "meta_robots"),
        ("noimageai", "meta_robots"),
        ("tdm_reservation", "tdmrep"),
        ("content_signal", "robots_txt"),
    ] {
        assert!(codes.contains(&expected), "{expected:?} missing from {codes:?}");
    }
    assert!(!codes.iter().any(|(code, _)| *code == "nosnippet"), "other agents' directives do not apply: {codes:?}");
    assert_eq!(result.title.as_deref(), Some("How robots.txt works"));
    assert_eq!(result.canonical_url, Some(server.url("/guides/robots")));
    assert_eq!(result.metadata.language.as_deref(), Some("en"));
    assert_eq!(result.metadata.canonical_url, Some(server.url("/guides/robots")));

    let notes = client.fetch(&server.url("/notes.md")).await.unwrap();
    assert_eq!(notes.content, "# Notes\n\nPlain.");
    assert_eq!(notes.canonical_url, Some(server.url("/notes")));
    assert!(notes.metadata.is_empty(), "{:?}", notes.metadata);
    assert!(notes.warnings.iter().any(|w| w.code.as_str() == "tdm_reservation"));
}

#[tokio::test]
async fn binary_content_is_refused_as_unsupported() {
    let server = server_with(Route::text(404, "")).await;
    server.route("/image.png", Route::bytes(200, "image/png", vec![0x89, b'P', b'N', b'G', 0, 0]));
    let err = builder().build().unwrap().fetch(&server.url("/image.png")).await.unwrap_err();
    assert!(matches!(err, Error::Fetch(FetchError::UnsupportedContent { .. })), "{err:?}");
}

#[tokio::test]
async fn with_agent_shares_one_robots_cache_and_sends_its_own_identity() {
    let server =
        server_with(Route::text(200, "User-agent: GPTBot\nDisallow: /page\n\nUser-agent: *\nAllow: /\n")).await;
    let client = Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::Memory)
        .ssrf_policy(loopback())
        .build()
        .unwrap();
    let gptbot = client.with_agent(&"GPTBot".parse().unwrap(), None).unwrap();
    let mine = client.check(&server.url("/page")).await.unwrap().robots;
    let theirs = gptbot.check(&server.url("/page")).await.unwrap().robots;
    assert_eq!((mine.verdict, theirs.verdict), (Verdict::AllowedExplicit, Verdict::DisallowedExplicit));
    assert_eq!(theirs.rule.unwrap().line, 2);
    assert!(theirs.from_cache, "the second agent's answer comes from the shared cache");
    assert_eq!(server.hits("/robots.txt"), 1);
    assert_eq!(gptbot.cache_stats(), client.cache_stats());

    // The derived client sends its own token as User-Agent.
    policy_error(gptbot.fetch(&server.url("/page")).await.unwrap_err());
    client.fetch(&server.url("/page")).await.unwrap();
    let other =
        client.with_agent(&"OtherBot".parse().unwrap(), Some("OtherBot/2.0 (+https://example.com/bot)")).unwrap();
    other.fetch(&server.url("/page")).await.unwrap();
    let agents: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.path_and_query == "/page")
        .map(|r| r.user_agent.unwrap_or_default())
        .collect();
    assert!(agents[0].starts_with("TestBot/"), "{agents:?}");
    assert_eq!(agents[1], "OtherBot/2.0 (+https://example.com/bot)");
    assert!(client.with_agent(&"Bad".parse().unwrap(), Some("line\nbreak")).is_err());
}

#[tokio::test]
async fn pages_in_legacy_encodings_without_a_declaration_are_read_right() {
    let server = server_with(Route::text(200, "User-agent: *\nAllow: /\n")).await;
    let pages: &[(&str, &'static encoding_rs::Encoding, &str)] = &[
        (
            "/sjis",
            encoding_rs::SHIFT_JIS,
            "東京の天気は晴れです。このページには文字コードの宣言がありません。日本語の文章が続きます。",
        ),
        (
            "/euckr",
            encoding_rs::EUC_KR,
            "서울의 날씨는 맑습니다. 이 페이지에는 문자 인코딩 선언이 없습니다. 한국어 문장이 이어집니다.",
        ),
        ("/gbk", encoding_rs::GBK, "北京今天天气晴朗。这个网页没有声明字符编码。中文的句子还在继续，适合出门散步。"),
        (
            "/cp1251",
            encoding_rs::WINDOWS_1251,
            "Погода в Москве хорошая. На этой странице не объявлена кодировка, и текст продолжается.",
        ),
    ];
    for (path, encoding, text) in pages {
        let html = format!(
            "<html><head><title>T</title></head><body><main><p>{text}</p><p>{text}</p><p>{text}</p></main></body></html>"
        );
        // Served as text/html with no charset anywhere.
        server.route(path, Route::bytes(200, "text/html", encoding.encode(&html).0.into_owned()));
        let result = builder().build().unwrap().fetch(&server.url(path)).await.unwrap();
        assert!(result.content.contains(text), "{}: {}", encoding.name(), result.content);
    }
}

#[tokio::test]
async fn a_page_without_main_text_says_so() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(404, ""));
    // Every word of the page stands in its header, navigation and footer.
    let boilerplate = "<html><head><title>Shop</title></head><body><header><a href=/>Acme tools and hardware</a>\
                       </header><nav><a href=/hammers>Hammers</a> <a href=/saws>Saws</a> <a href=/drills>Drills</a> \
                       <a href=/ladders>Ladders</a></nav><footer>Open Monday to Friday.</footer></body></html>";
    server.route("/boilerplate", Route::html(200, boilerplate));
    // A page built by scripts.
    let shell = "<html><head><title>App</title></head><body><div id=root></div><script>render()</script></body></html>";
    server.route("/shell", Route::html(200, shell));
    server.route("/page", Route::html(200, PAGE));
    let client = builder().build().unwrap();
    let empty = |result: &webcanon_client::FetchResult| {
        result
            .warnings
            .iter()
            .filter(|w| w.code.as_str() == "extraction_empty")
            .map(|w| w.detail.clone())
            .collect::<Vec<_>>()
    };

    let result = client.fetch(&server.url("/boilerplate")).await.unwrap();
    assert!(
        result.content.contains("Open Monday to Friday") && result.content.contains("Hammers"),
        "{}",
        result.content
    );
    let details = empty(&result);
    assert_eq!(details.len(), 1, "{:?}", result.warnings);
    assert!(details[0].contains("the page's whole text"), "{}", details[0]);
    assert_eq!(
        result.warnings.iter().find(|w| w.code.as_str() == "extraction_empty").unwrap().source.as_str(),
        "conversion"
    );

    let result = client.fetch(&server.url("/shell")).await.unwrap();
    assert_eq!(result.content, "");
    let details = empty(&result);
    assert!(details.len() == 1 && details[0].contains("no text without scripts"), "{details:?}");

    let result = client.fetch(&server.url("/page")).await.unwrap();
    assert!(empty(&result).is_empty(), "{:?}", result.warnings);
}
