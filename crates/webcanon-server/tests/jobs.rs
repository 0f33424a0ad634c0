//! The job endpoints over real sockets: status, results paged from disk,
//! cancellation, the bounds on jobs, expiry and hostile ids and cursors.

mod support;

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde_json::{Value, json};
use support::{service_with, start_guarded};
use webcanon_jobs::{JobLimits, JobSpec, JobsConfig};

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
        (format!("/v1/jobs/{id}/results?limit=0"), 422, "invalid_query"),
        (format!("/v1/jobs/{id}/results?limit=1001"), 422, "invalid_query"),
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
        ("/v1/map", "post", &["202", "400", "403", "413", "415", "422", "429", "503", "504"][..]),
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
    let map = &doc["components"]["schemas"]["MapRequest"]["properties"];
    for field in ["url", "agent", "scope", "include", "exclude", "sources", "max_links", "limits"] {
        assert!(map[field].is_object(), "MapRequest.{field} undocumented");
    }
    for schema in ["JobStatus", "JobState", "ResultsPage", "LimitKind", "MapRecord", "MapSource", "JobLimitsRequest"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} missing");
    }
}

async fn mapped_site() -> webcanon_test::TestServer {
    use webcanon_test::Route;
    let server = webcanon_test::TestServer::start().await;
    let base = server.url("");
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let urls = ["/a", "/b", "/private/c"].iter().map(|p| format!("<url><loc>{base}{p}</loc></url>"));
    server.route("/sitemap.xml", Route::bytes(200, "application/xml", webcanon_test::urlset(urls).into_bytes()));
    server.route("/llms.txt", Route::text(200, "# Site\n\n## Docs\n\n- [D](/d): d\n"));
    server.route("/", Route::html(200, r#"<a href="/e">e</a>"#));
    server
}

#[tokio::test]
async fn a_map_job_reports_the_sites_urls_with_their_verdicts() {
    let site = mapped_site().await;
    let service = service_with(JobsConfig::default()).await;
    let response = service
        .http
        .post(format!("{}/v1/map", service.base))
        .json(&json!({"url": site.url("/")}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let location = response.headers()["location"].to_str().unwrap().to_string();
    let started: Value = response.json().await.unwrap();
    assert_eq!(location, format!("/v1/jobs/{}", started["id"].as_str().unwrap()));
    assert_eq!(started["kind"], "map");
    let status = service.until_finished(started["id"].as_str().unwrap()).await;
    assert_eq!(status["state"], "completed", "{status}");
    assert_eq!(status["counts"], json!({"allowed_implicit": 4, "disallowed_explicit": 1}), "{status}");
    let (_, page) = service.get(&format!("{location}/results")).await;
    let records = page["records"].as_array().unwrap();
    let urls: Vec<&str> =
        records.iter().map(|r| r["url"].as_str().unwrap().trim_start_matches(&site.url(""))).collect();
    assert_eq!(urls, ["/a", "/b", "/private/c", "/d", "/e"]);
    assert_eq!(records[2]["rule"]["pattern"], "/private");
    assert_eq!(records[3]["sources"], json!(["llms_txt"]));
    assert!(page["next_cursor"].is_null());
}

#[tokio::test]
async fn a_map_job_takes_its_sources_scope_and_limits() {
    let site = mapped_site().await;
    let service = service_with(JobsConfig::default()).await;
    let request = json!({
        "url": site.url("/"),
        "sources": ["sitemap"],
        "exclude": ["/b"],
        "limits": {"max_records": 1},
    });
    let (code, started) = service.post("/v1/map", &request).await;
    assert_eq!(code, 202, "{started}");
    assert_eq!(started["limits"]["max_records"], 1);
    let status = service.until_finished(started["id"].as_str().unwrap()).await;
    assert_eq!((status["state"].as_str(), status["records"].as_u64()), (Some("limit_reached"), Some(1)), "{status}");
    assert_eq!(site.hits("/llms.txt"), 0);
}

/// Hostile job requests cost the service a bounded amount: a huge body is
/// refused unread past the limit, absurd limits and patterns are refused
/// before any request to the site, and thousands of starts past the bound
/// on jobs are refused at once without a file each.
#[tokio::test]
async fn hostile_job_requests_are_refused_cheaply() {
    let site = mapped_site().await;
    let config = JobsConfig { max_running: 2, max_kept: 4, ..JobsConfig::default() };
    let service = service_with(config).await;
    let url = site.url("/");
    let huge = format!(r#"{{"url": "{url}", "include": ["/{}"]}}"#, "a".repeat(2 << 20));
    let (code, body) = service.post_raw("/v1/map", "application/json", huge.into_bytes()).await;
    assert_eq!((code, body["error"]["reason"].as_str()), (413, Some("body_too_large")));
    let refused = [
        json!({"url": url, "limits": {"max_records": 1_000_000_000_000u64}}),
        json!({"url": url, "limits": {"max_seconds": 0}}),
        json!({"url": url, "limits": {"max_result_bytes": u64::MAX}}),
        json!({"url": url, "max_links": 1_000_000}),
        json!({"url": url, "include": ["docs"]}),
        json!({"url": url, "exclude": vec!["/x"; 101]}),
    ];
    for request in refused {
        let (code, body) = service.post("/v1/map", &request).await;
        assert_eq!((code, body["error"]["reason"].as_str()), (422, Some("invalid_option")), "{request}: {body}");
    }
    let (code, body) = service.post("/v1/map", &json!({"url": url, "limits": {"max_pages": 5}})).await;
    assert_eq!((code, body["error"]["reason"].as_str()), (422, Some("invalid_body")), "{body}");
    assert_eq!(site.requests().len(), 0, "nothing is asked of the site for a refused request");
    site.route("/sitemap.xml", webcanon_test::Route::text(200, "").delay(Duration::from_secs(5)));
    let began = std::time::Instant::now();
    let mut accepted = 0;
    let mut too_many = 0;
    for _ in 0..2_000 {
        let (code, body) = service.post("/v1/map", &json!({"url": url, "sources": ["sitemap"]})).await;
        match code {
            202 => accepted += 1,
            429 => {
                assert_eq!(body["error"]["reason"], "too_many_jobs", "{body}");
                too_many += 1;
            }
            other => panic!("{other}: {body}"),
        }
    }
    // Two run at once; once the first have failed on the stalled sitemap
    // (the client's 2 s timeout), two more may start, up to the four kept.
    assert!((2..=4).contains(&accepted), "{accepted} accepted");
    assert_eq!(accepted + too_many, 2_000);
    assert!(began.elapsed() < Duration::from_secs(30), "{:?}", began.elapsed());
    let jobs = service.state.jobs().unwrap();
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), accepted);
}

#[tokio::test]
async fn a_map_of_a_refused_site_is_an_error_of_the_request() {
    let guarded = start_guarded().await;
    let (code, body) = guarded.post("/v1/map", &json!({"url": "http://127.0.0.1:9/"})).await;
    assert_eq!((code, body["error"]["kind"].as_str()), (403, Some("ssrf")), "{body}");
}
