//! The job endpoints over real sockets: status, results paged from disk,
//! cancellation, the bounds on jobs, expiry and hostile ids and cursors.

mod support;

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde_json::{Value, json};
use support::{Service, loopback_client, start_with};
use webcanon_jobs::{JobLimits, JobSpec, Jobs, JobsConfig};
use webcanon_server::Limits;

async fn service_with(config: JobsConfig) -> Service {
    let service = start_with(loopback_client(), Limits::default()).await;
    let _ = service.state.clone().with_jobs(Jobs::new(config).unwrap());
    service
}

fn numbered(count: u64) -> futures_util::stream::BoxStream<'static, Result<Value, webcanon_jobs::JobFailure>> {
    stream::iter((0..count).map(|n| Ok(json!({"n": n, "verdict": "allowed"})))).boxed()
}

fn endless() -> futures_util::stream::BoxStream<'static, Result<Value, webcanon_jobs::JobFailure>> {
    stream::unfold(0u64, |n| async move {
        tokio::time::sleep(Duration::from_millis(2)).await;
        Some((Ok(json!({"n": n})), n + 1))
    })
    .boxed()
}

fn spec() -> JobSpec {
    JobSpec { kind: "map", limits: JobLimits::default(), count_by: Some("verdict") }
}

impl Service {
    async fn get(&self, path: &str) -> (u16, Value) {
        let response = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    async fn delete(&self, path: &str) -> (u16, Value) {
        let response = self.http.delete(format!("{}{path}", self.base)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    async fn until_finished(&self, id: &str) -> Value {
        for _ in 0..300 {
            let (status, body) = self.get(&format!("/v1/jobs/{id}")).await;
            assert_eq!(status, 200, "{body}");
            if body["state"] != "running" {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("job {id} did not finish");
    }
}

#[tokio::test]
async fn status_and_pages_of_results_read_from_disk() {
    let service = service_with(JobsConfig::default()).await;
    let started = service.state.jobs().unwrap().start(spec(), numbered(250)).unwrap();
    let status = service.until_finished(&started.id).await;
    assert_eq!(status["state"], "completed");
    assert_eq!(status["records"], 250);
    assert_eq!(status["counts"]["allowed"], 250);
    let mut cursor = Some(0u64);
    let mut seen = Vec::new();
    while let Some(at) = cursor {
        let (code, page) = service.get(&format!("/v1/jobs/{}/results?cursor={at}&limit=100", started.id)).await;
        assert_eq!(code, 200, "{page}");
        seen.extend(page["records"].as_array().unwrap().iter().map(|r| r["n"].as_u64().unwrap()));
        cursor = page["next_cursor"].as_u64();
    }
    assert_eq!(seen, (0..250).collect::<Vec<_>>());
    let (_, first) = service.get(&format!("/v1/jobs/{}/results", started.id)).await;
    assert_eq!(first["records"].as_array().unwrap().len(), webcanon_server::DEFAULT_PAGE_RECORDS);
}

#[tokio::test]
async fn delete_cancels_a_running_job_and_keeps_its_records() {
    let service = service_with(JobsConfig::default()).await;
    let started = service.state.jobs().unwrap().start(spec(), endless()).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (code, cancelled) = service.delete(&format!("/v1/jobs/{}", started.id)).await;
    assert_eq!((code, cancelled["state"].as_str()), (200, Some("cancelled")), "{cancelled}");
    let status = service.until_finished(&started.id).await;
    assert_eq!(status["state"], "cancelled");
    let (_, page) = service.get(&format!("/v1/jobs/{}/results?limit=1000", started.id)).await;
    assert!(!page["records"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn unknown_and_malformed_ids_and_cursors_are_json_errors() {
    let service = service_with(JobsConfig::default()).await;
    let started = service.state.jobs().unwrap().start(spec(), numbered(3)).unwrap();
    service.until_finished(&started.id).await;
    let id = &started.id;
    let rows = [
        ("/v1/jobs/0123456789abcdef0123456789abcdef".to_string(), 404, "no_such_job"),
        ("/v1/jobs/..%2F..%2Fetc%2Fpasswd".to_string(), 422, "invalid_job_id"),
        ("/v1/jobs/not-an-id/results".to_string(), 422, "invalid_job_id"),
        (format!("/v1/jobs/{id}/results?cursor=3"), 422, "invalid_cursor"),
        (format!("/v1/jobs/{id}/results?cursor=99999999999"), 422, "invalid_cursor"),
        (format!("/v1/jobs/{id}/results?cursor=-1"), 422, "invalid_query"),
        (format!("/v1/jobs/{id}/results?cursor=0&page=2"), 422, "invalid_query"),
    ];
    for (path, status, reason) in rows {
        let (code, body) = service.get(&path).await;
        assert_eq!((code, body["error"]["reason"].as_str()), (status, Some(reason)), "{path}: {body}");
    }
    let (code, body) = service.delete("/v1/jobs/0123456789abcdef0123456789abcdef").await;
    assert_eq!((code, body["error"]["reason"].as_str()), (404, Some("no_such_job")));
}

#[tokio::test]
async fn a_finished_job_expires_with_its_results() {
    let service = service_with(JobsConfig { ttl: Duration::from_millis(200), ..JobsConfig::default() }).await;
    let jobs = service.state.jobs().unwrap();
    let started = jobs.start(spec(), numbered(3)).unwrap();
    let status = service.until_finished(&started.id).await;
    assert!(status["expires_in_seconds"].is_u64(), "{status}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (code, body) = service.get(&format!("/v1/jobs/{}/results", started.id)).await;
    assert_eq!((code, body["error"]["reason"].as_str()), (404, Some("no_such_job")));
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), 0);
}

#[tokio::test]
async fn openapi_documents_the_job_routes_and_their_types() {
    let service = service_with(JobsConfig::default()).await;
    let (_, _, text) = service.get_text("/openapi.json").await;
    let doc: Value = serde_json::from_str(&text).unwrap();
    for (path, method, codes) in [
        ("/v1/jobs/{id}", "get", &["200", "404", "422"][..]),
        ("/v1/jobs/{id}", "delete", &["200", "404", "422"][..]),
        ("/v1/jobs/{id}/results", "get", &["200", "404", "422", "503"][..]),
    ] {
        let responses =
            doc["paths"][path][method]["responses"].as_object().unwrap_or_else(|| panic!("{method} {path}"));
        for code in codes {
            assert!(responses.contains_key(*code), "{method} {path} does not document {code}");
        }
    }
    let parameters: Vec<&str> = doc["paths"]["/v1/jobs/{id}/results"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(parameters, ["id", "cursor", "limit"]);
    for schema in ["JobStatus", "JobState", "ResultsPage", "LimitKind"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} missing");
    }
}
