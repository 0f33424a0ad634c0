//! What a site asks of the content, against real servers on loopback: the
//! IETF AI preferences (`Content-Usage` header and robots.txt rule) read
//! as the drafts say, and a page that asks for payment (HTTP 402, pay per
//! crawl) reported with its price, never paid and never retried.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use webcanon_client::error::{Error, ErrorBody, FetchError};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client, ClientBuilder};
use webcanon_test::{Route, TestServer};

const PAGE: &str = "<!doctype html><html><head><title>Hello</title></head><body><main><h1>Hello</h1>\
<p>This is a page about robots and the agents that read them, long enough to be an article.</p></main></body></html>";

fn builder() -> ClientBuilder {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
}

fn codes(warnings: &[webcanon_client::warning::Warning]) -> Vec<(&str, &str)> {
    warnings.iter().map(|w| (w.code.as_str(), w.source.as_str())).collect()
}

#[tokio::test]
async fn content_usage_headers_are_read_as_the_vocabulary_says() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(404, ""));
    // (path, its Content-Usage header lines, the warnings expected)
    type Row<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let rows: &[Row] = &[
        ("/no-training", &["train-ai=n"], &[("content_usage", "content_usage_header")]),
        ("/both", &["search=n, train-ai=n"], &[("content_usage", "content_usage_header")]),
        // A String "N" and a Token N are not the Token n: unknown, no warning.
        ("/quoted", &[r#"train-ai="N""#], &[]),
        ("/upper-value", &["train-ai=N"], &[]),
        ("/retired-label", &["ai-use=n, train-genai=n"], &[]),
        // A key in upper case: not a Dictionary, so unreadable, said so.
        ("/upper-key", &["Train-AI=n"], &[("content_usage_unreadable", "content_usage_header")]),
        // Two lines are one field: the later `train-ai` replaces the first.
        ("/two-lines", &["train-ai=n", "train-ai=y"], &[]),
    ];
    for (path, values, _) in rows {
        let mut route = Route::html(200, PAGE);
        for value in *values {
            route = route.header("content-usage", value);
        }
        server.route(path, route);
    }
    let client = builder().build().unwrap();
    for (path, _, expected) in rows {
        let result = client.fetch(&server.url(path)).await.unwrap();
        let found: Vec<(&str, &str)> =
            codes(&result.warnings).into_iter().filter(|(code, _)| code.starts_with("content_usage")).collect();
        assert_eq!(found, expected.to_vec(), "{path}: {:?}", result.warnings);
    }
    let both = client.fetch(&server.url("/both")).await.unwrap();
    assert!(both.warnings.iter().any(|w| w.detail == "content_usage_header says train-ai=n, search=n"));
    let unreadable = client.fetch(&server.url("/upper-key")).await.unwrap();
    let detail = &unreadable.warnings.iter().find(|w| w.code.as_str() == "content_usage_unreadable").unwrap().detail;
    assert!(detail.contains("unreadable statement of preference") && detail.contains("nothing is refused"), "{detail}");
}

#[tokio::test]
async fn robots_content_usage_rules_take_the_longest_path() {
    // draft-ietf-aipref-attach-05 §3.4, Figure 2, for an agent of the `*` group.
    let robots = "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n\
                  Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n";
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, robots));
    server.route("/test", Route::html(200, PAGE));
    server.route("/ai-ok/test", Route::html(200, PAGE));
    let client = builder().build().unwrap();
    let test = client.fetch(&server.url("/test")).await.unwrap();
    assert!(codes(&test.warnings).contains(&("content_usage", "robots_txt")), "{:?}", test.warnings);
    let ok = client.fetch(&server.url("/ai-ok/test")).await.unwrap();
    assert!(!codes(&ok.warnings).iter().any(|(c, _)| c.starts_with("content_usage")), "{:?}", ok.warnings);
    let example = builder().agent("ExampleBot").build().unwrap();
    let mine = example.fetch(&server.url("/test")).await.unwrap();
    assert!(!codes(&mine.warnings).iter().any(|(c, _)| c.starts_with("content_usage")), "{:?}", mine.warnings);
}

/// A server answering every request with `status` and `headers`, writing
/// down each request's head.
async fn raw_server(status: &'static str, headers: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let heads = Arc::new(Mutex::new(Vec::new()));
    let log = heads.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            let log = log.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let robots = head.starts_with("GET /robots.txt ");
                log.lock().unwrap().push(head);
                let answer = if robots {
                    "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
                } else {
                    format!(
                        "HTTP/1.1 {status}\r\n{headers}content-type: text/html\r\ncontent-length: 7\r\nconnection: close\r\n\r\npay me."
                    )
                };
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    (base, heads)
}

#[tokio::test]
async fn a_402_is_payment_required_with_its_price_never_paid_never_retried() {
    let (base, heads) = raw_server("402 Payment Required", "crawler-price: USD 0.01\r\n").await;
    let client = builder().build().unwrap();
    let url = format!("{base}/article");
    let err = client.fetch(&url).await.unwrap_err();
    let Error::Fetch(fetch @ FetchError::PaymentRequired { .. }) = &err else { panic!("{err:?}") };
    assert_eq!(fetch.reason(), "payment_required");
    assert_eq!(fetch.status(), Some(402));
    let price = fetch.price().expect("the price asked");
    assert_eq!((price.currency.as_str(), price.amount.as_str()), ("USD", "0.01"));
    assert!(err.to_string().ends_with("(HTTP 402, crawler-price USD 0.01); nothing was paid"), "{err}");
    let body = serde_json::to_value(ErrorBody::from_error(&err, &url)).unwrap();
    assert_eq!(body["kind"], "fetch");
    assert_eq!(body["reason"], "payment_required");
    assert_eq!(body["status"], 402);
    assert_eq!(body["price"], serde_json::json!({"currency": "USD", "amount": "0.01"}));

    let heads = heads.lock().unwrap().clone();
    let pages: Vec<&String> = heads.iter().filter(|h| h.starts_with("GET /article ")).collect();
    assert_eq!(pages.len(), 1, "asked once, never retried: {heads:?}");
    for head in &heads {
        let lower = head.to_ascii_lowercase();
        assert!(!lower.contains("crawler-exact-price") && !lower.contains("crawler-max-price"), "never paid: {head}");
    }
}

#[tokio::test]
async fn a_402_without_a_readable_price_is_still_payment_required() {
    let (base, _) = raw_server("402 Payment Required", "crawler-price: a lot\r\n").await;
    let err = builder().build().unwrap().fetch(&format!("{base}/x")).await.unwrap_err();
    assert!(matches!(&err, Error::Fetch(FetchError::PaymentRequired { price: None, .. })), "{err:?}");
    assert!(err.to_string().contains("asks for payment (HTTP 402); nothing was paid"), "{err}");
    // `Client::get` (raw answers) reports its status the same way.
    let (base, _) = raw_server("402 Payment Required", "crawler-price: EUR 2\r\n").await;
    let raw = builder().build().unwrap().get(&format!("{base}/x"), "*/*", 1024).await.unwrap();
    let status = raw.status_error().expect("402 is an error");
    assert_eq!(status.price().map(|p| p.to_string()).as_deref(), Some("EUR 2"));
}
