//! Clients that send a request's body a byte at a time: they get 408 once
//! the body time is up and hold no in-flight slot while they trickle.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{loopback_client, start_with};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use webcanon_server::Limits;
use webcanon_test::{Route, TestServer};

/// Trickling clients: five times the in-flight slots.
const TRICKLING: usize = 40;
const IN_FLIGHT: usize = 8;
const BODY_TIME: Duration = Duration::from_secs(2);

/// Sends the headers of a robots check with a 100-byte body, then one
/// byte of it every 200 ms until the server answers; the answer as text
/// and how long after the headers it came.
async fn trickle(addr: String) -> (String, Duration) {
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let head = "POST /v1/robots/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                Content-Length: 100\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let sent = Instant::now();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        tokio::select! {
            read = stream.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            },
            () = tokio::time::sleep(Duration::from_millis(200)) => {
                if stream.write_all(b" ").await.is_err() {
                    // The server stopped reading: its answer follows.
                    let _ = stream.read_to_end(&mut answer).await;
                    break;
                }
            }
        }
    }
    (String::from_utf8_lossy(&answer).into_owned(), sent.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickled_bodies_hold_no_slot_and_get_408_when_their_time_is_up() {
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let limits = Limits { max_in_flight: IN_FLIGHT, body_read_timeout: BODY_TIME, ..Limits::default() };
    let service = start_with(loopback_client(), limits).await;
    let addr = service.base.trim_start_matches("http://").to_string();
    let trickling: Vec<_> = (0..TRICKLING).map(|_| tokio::spawn(trickle(addr.clone()))).collect();

    // Every trickling request is in the service (the /metrics request too).
    let in_flight = "webcanon_http_requests_in_flight";
    let mut waited = 0;
    while service.metric(in_flight).await < (TRICKLING + 1) as f64 {
        waited += 1;
        assert!(waited < 200, "the trickling requests never all arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // A normal request is answered while they trickle.
    let (status, body) = service.post("/v1/robots/check", &json!({"url": site.url("/page")})).await;
    assert_eq!(status, 200, "a normal request while {TRICKLING} bodies trickle: {body}");
    assert_eq!(body["robots"]["verdict"], "allowed_implicit", "{body}");

    for client in trickling {
        let (answer, after) = client.await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        let json_at = answer.find("\r\n\r\n").expect("an answer with a body") + 4;
        let error: Value = serde_json::from_str(&answer[json_at..]).unwrap_or_else(|e| panic!("{e}: {answer}"));
        assert_eq!(error["error"]["kind"], "usage", "{error}");
        assert_eq!(error["error"]["code"], 2, "{error}");
        assert_eq!(error["error"]["reason"], "body_timeout", "{error}");
        assert!(after >= BODY_TIME && after < BODY_TIME + Duration::from_secs(3), "408 after {after:?}");
    }
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_before_admission() {
    let limits = Limits { max_body_bytes: 64, max_in_flight: 1, ..Limits::default() };
    let service = start_with(loopback_client(), limits).await;
    let (status, body) = service.post_raw("/v1/robots/check", "application/json", vec![b' '; 65]).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["reason"], "body_too_large", "{body}");
}
