//! The router served on 127.0.0.1:0 in-process, and a JSON client for it.

#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use webcanon_client::ClientBuilder;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_jobs::{Jobs, JobsConfig};
use webcanon_server::{AppState, Limits};

/// A running service: its base URL, its state, and a way to stop it.
pub struct Service {
    pub base: String,
    pub state: AppState,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A client builder for tests: loopback allowed, short timeout, memory cache.
pub fn loopback_client() -> ClientBuilder {
    webcanon_client::Client::builder()
        .timeout(Duration::from_secs(2))
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
}

/// Serves the router over `builder`'s client with `limits`.
pub async fn start_with(builder: ClientBuilder, limits: Limits) -> Service {
    let state = AppState::new(builder.build().expect("client"), limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let app = webcanon_server::router(state.clone());
    tokio::spawn(async move {
        webcanon_server::serve(listener, app, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    Service { base, state, http: reqwest::Client::new(), stop: Some(stop) }
}

/// Serves the router with loopback allowed and the default limits.
pub async fn start() -> Service {
    start_with(loopback_client(), Limits::default()).await
}

/// Serves the router over a client with the default SSRF guard (loopback
/// refused) and the default limits.
pub async fn start_guarded() -> Service {
    start_with(webcanon_client::Client::builder(), Limits::default()).await
}

/// Serves the router with loopback allowed, the default limits and a
/// registry of jobs made with `config`.
pub async fn service_with(config: JobsConfig) -> Service {
    let service = start().await;
    let _ = service.state.clone().with_jobs(Jobs::new(config).unwrap());
    service
}

impl Service {
    /// POSTs `body` as JSON to `path`: the status and the parsed answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = self.http.post(format!("{}{path}", self.base)).json(body).send().await.unwrap();
        read(response).await
    }

    /// POSTs raw bytes with a content type.
    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        read(response).await
    }

    /// GETs `path`: the status and the parsed answer.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        read(response).await
    }

    /// DELETEs `path`: the status and the parsed answer.
    pub async fn delete(&self, path: &str) -> (u16, Value) {
        let response = self.http.delete(format!("{}{path}", self.base)).send().await.unwrap();
        read(response).await
    }

    /// The status of job `id` once it no longer runs.
    pub async fn until_finished(&self, id: &str) -> Value {
        for _ in 0..1_000 {
            let (status, body) = self.get(&format!("/v1/jobs/{id}")).await;
            assert_eq!(status, 200, "{body}");
            if body["state"] != "running" {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("job {id} did not finish");
    }

    /// Every record of job `id`, read `limit` at a time from its cursors.
    pub async fn records(&self, id: &str, limit: usize) -> Vec<Value> {
        let mut cursor = Some(0u64);
        let mut records = Vec::new();
        while let Some(at) = cursor {
            let (code, page) = self.get(&format!("/v1/jobs/{id}/results?cursor={at}&limit={limit}")).await;
            assert_eq!(code, 200, "{page}");
            let got = page["records"].as_array().unwrap();
            assert!(got.len() <= limit);
            records.extend(got.iter().cloned());
            cursor = page["next_cursor"].as_u64();
        }
        records
    }

    /// GETs `path`: the status, the content type and the body as text.
    pub async fn get_text(&self, path: &str) -> (u16, String, String) {
        let response = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        let status = response.status().as_u16();
        let content_type =
            response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        (status, content_type, response.text().await.unwrap())
    }

    /// The value of one metric line (`name{labels}`) in `/metrics`, or 0.
    pub async fn metric(&self, series: &str) -> f64 {
        let (_, _, text) = self.get_text("/metrics").await;
        text.lines()
            .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
            .map_or(0.0, |value| value.trim().parse().unwrap())
    }
}

async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    assert_eq!(content_type.as_deref(), Some("application/json"), "answer {status} {text}");
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}
