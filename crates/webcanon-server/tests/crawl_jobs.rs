//! `POST /v1/crawl` over real sockets: a loopback site crawled as a job,
//! its records paged from disk, its limits, cancellation, the bound on
//! jobs at once, and hostile requests refused at bounded cost.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Service, service_with, start_guarded};
use webcanon_jobs::JobsConfig;
use webcanon_test::{Route, TestServer};

fn page(title: &str, links: &[&str]) -> Route {
    let links: String = links.iter().map(|l| format!(r#"<a href="{l}">{l}</a> "#)).collect();
    Route::html(
        200,
        &format!(
            "<html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{title}: a page with enough words of its own to be a page, not a teaser.</p>{links}</main></body></html>"
        ),
    )
}

/// A site of four pages linked from `/`, one of them disallowed.
async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/", page("Home", &["/a", "/b", "/private/c", "https://elsewhere.example/"]));
    server.route("/a", page("A", &["/b"]));
    server.route("/b", page("B", &[]));
    server.route("/private/c", page("C", &[]));
    server
}

fn request(site: &TestServer, extra: Value) -> Value {
    let mut body = json!({"urls": [site.url("/")], "seeds": ["start"]});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    body
}

impl Service {
    /// The entries of the jobs folder once the work folders of stopped
    /// jobs are removed (the runner removes them just after the end).
    async fn settled_job_files(&self, expected: usize) -> usize {
        let folder = self.state.jobs().unwrap().folder().to_path_buf();
        let mut count = 0;
        for _ in 0..100 {
            count = std::fs::read_dir(&folder).unwrap().count();
            if count == expected {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        count
    }
}

fn path_of<'a>(site: &TestServer, record: &'a Value) -> &'a str {
    record["requested_url"].as_str().unwrap().strip_prefix(&site.url("")).unwrap_or("(elsewhere)")
}

#[tokio::test]
async fn a_crawl_job_writes_a_page_record_per_url_paged_from_disk() {
    let site = site().await;
    let service = service_with(JobsConfig::default()).await;
    let response = service.http.post(format!("{}/v1/crawl", service.base)).json(&request(&site, json!({}))).send();
    let response = response.await.unwrap();
    assert_eq!(response.status(), 202);
    let location = response.headers()["location"].to_str().unwrap().to_string();
    let started: Value = response.json().await.unwrap();
    let id = started["id"].as_str().unwrap().to_string();
    assert_eq!((location, started["kind"].as_str()), (format!("/v1/jobs/{id}"), Some("crawl")));
    let status = service.until_finished(&id).await;
    assert_eq!(status["state"], "completed", "{status}");
    assert_eq!(status["counts"], json!({"none": 3, "disallowed": 1, "out_of_scope": 1}), "{status}");
    let records = service.records(&id, 2).await;
    assert_eq!(records.len(), 5);
    let mut paths: Vec<&str> = records.iter().map(|r| path_of(&site, r)).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["(elsewhere)", "/", "/a", "/b", "/private/c"]);
    let a = records.iter().find(|r| path_of(&site, r) == "/a").unwrap();
    assert!(a["content"].as_str().unwrap().contains("# A"), "{a}");
    assert_eq!((a["depth"].as_u64(), a["parent"].as_str()), (Some(1), Some(site.url("/").as_str())));
    let private = records.iter().find(|r| path_of(&site, r) == "/private/c").unwrap();
    assert_eq!(private["rule"]["pattern"], "/private", "{private}");
    assert_eq!(site.hits("/private/c"), 0, "robots.txt is the service's: a disallowed page is not asked for");
    assert_eq!(service.settled_job_files(1).await, 1, "the frontier is removed with the job's work");
}

#[tokio::test]
async fn a_crawl_job_takes_its_scope_limits_and_fetch_options() {
    let site = site().await;
    let service = service_with(JobsConfig::default()).await;
    let body = request(&site, json!({"exclude": ["/b"], "max_depth": 1, "format": "text", "links": "drop"}));
    let (code, started) = service.post("/v1/crawl", &body).await;
    assert_eq!(code, 202, "{started}");
    let id = started["id"].as_str().unwrap();
    service.until_finished(id).await;
    let records = service.records(id, 100).await;
    let b = records.iter().find(|r| path_of(&site, r) == "/b").unwrap();
    assert_eq!(b["not_fetched"], "out_of_scope", "{b}");
    let home = records.iter().find(|r| path_of(&site, r) == "/").unwrap();
    let text = home["content"].as_str().unwrap();
    assert!(!text.contains("# Home") && text.contains("Home"), "plain text: {text}");
    assert_eq!(site.hits("/b"), 0);
}

#[tokio::test]
async fn each_limit_ends_a_crawl_job_with_its_reason() {
    let site = TestServer::start().await;
    site.route("/robots.txt", Route::text(200, ""));
    let links: Vec<String> = (0..40).map(|n| format!("/p{n}")).collect();
    site.route("/", page("Home", &links.iter().map(String::as_str).collect::<Vec<_>>()));
    for link in &links {
        site.route(link, page(&format!("Page {link}"), &[]).delay(Duration::from_millis(50)));
    }
    let service = service_with(JobsConfig::default()).await;
    let rows = [
        (json!({"limits": {"max_records": 3}}), "records"),
        (json!({"limits": {"max_result_bytes": 2_000}}), "result_bytes"),
        (json!({"limits": {"max_seconds": 1}}), "duration"),
    ];
    for (extra, limit) in rows {
        let body = request(&site, extra);
        let (code, started) = service.post("/v1/crawl", &body).await;
        assert_eq!(code, 202, "{started}");
        let id = started["id"].as_str().unwrap();
        let status = service.until_finished(id).await;
        assert_eq!(
            (status["state"].as_str(), status["limit"].as_str()),
            (Some("limit_reached"), Some(limit)),
            "{body}: {status}"
        );
        assert_eq!(service.records(id, 1_000).await.len() as u64, status["records"].as_u64().unwrap());
    }
    // A crawl limit of its own ends the work, not the job: the pages past
    // it are recorded as `limit`.
    let (_, started) = service.post("/v1/crawl", &request(&site, json!({"max_pages": 2}))).await;
    let status = service.until_finished(started["id"].as_str().unwrap()).await;
    assert_eq!(status["state"], "completed", "{status}");
    assert_eq!(status["counts"]["none"], 2, "{status}");
    assert_eq!(status["counts"].as_object().unwrap().len(), 2, "{status}");
    assert_eq!(status["counts"]["limit"], 39, "{status}");
}

#[tokio::test]
async fn a_running_crawl_job_is_cancelled_and_its_records_stay() {
    let site = site().await;
    site.route("/b", page("B", &[]).delay(Duration::from_secs(30)));
    let service = service_with(JobsConfig::default()).await;
    let (_, started) = service.post("/v1/crawl", &request(&site, json!({}))).await;
    let id = started["id"].as_str().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while service.get(&format!("/v1/jobs/{id}")).await.1["records"].as_u64() < Some(2) {
        assert!(Instant::now() < until, "the crawl wrote nothing");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (code, cancelled) = service.delete(&format!("/v1/jobs/{id}")).await;
    assert_eq!(code, 200);
    assert_eq!(cancelled["state"], "cancelled");
    // The records written before the cancellation become readable once
    // the job's writer has flushed them.
    let written = cancelled["records"].as_u64().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    while (service.records(id, 100).await.len() as u64) < written {
        assert!(Instant::now() < until, "{written} records written, fewer readable");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(service.settled_job_files(1).await, 1, "the cancelled crawl's frontier is removed");
}

#[tokio::test]
async fn crawl_jobs_past_the_bound_on_jobs_at_once_get_429() {
    let site = site().await;
    site.route("/", page("Home", &[]).delay(Duration::from_secs(30)));
    let service = service_with(JobsConfig { max_running: 1, ..JobsConfig::default() }).await;
    let (code, first) = service.post("/v1/crawl", &request(&site, json!({}))).await;
    assert_eq!(code, 202, "{first}");
    let response = service.http.post(format!("{}/v1/crawl", service.base)).json(&request(&site, json!({}))).send();
    let response = response.await.unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["reason"], "too_many_jobs", "{body}");
}

#[tokio::test]
async fn a_crawl_of_a_refused_site_is_an_error_of_the_request() {
    let guarded = start_guarded().await;
    let body = json!({"urls": ["https://example.com/", "http://127.0.0.1:9/"]});
    let (code, body) = guarded.post("/v1/crawl", &body).await;
    assert_eq!((code, body["error"]["kind"].as_str()), (403, Some("ssrf")), "{body}");
}

/// Hostile crawl requests cost the service a bounded amount: refused
/// before any request to a site, in a bounded time, with a message naming
/// the bound; a limit past the service's own is lowered to it.
#[tokio::test]
async fn hostile_crawl_requests_are_refused_or_clamped_cheaply() {
    let site = site().await;
    let config = JobsConfig { max_running: 1, ..JobsConfig::default() };
    let service = service_with(config).await;
    let url = site.url("/");
    let many: Vec<String> = (0..10_000).map(|n| format!("{url}p{n}")).collect();
    let long = format!("/{}", "a".repeat(5_000));
    let refused = [
        (json!({"urls": many}), "invalid_option", "a crawl takes 1 to 100"),
        (json!({"urls": []}), "invalid_option", "a crawl takes 1 to 100"),
        (json!({"urls": [url], "include": [long]}), "invalid_option", "a pattern of 5001 bytes is longer than"),
        (json!({"urls": [url], "include": ["docs"]}), "invalid_option", "must start with `/` or `*`"),
        (json!({"urls": [url], "exclude": vec!["/x"; 101]}), "invalid_option", "at most 100"),
        (json!({"urls": [url], "limits": {"max_records": u64::MAX}}), "invalid_option", "ceiling"),
        (json!({"urls": [url], "max_pages": 0}), "invalid_option", "max_pages"),
        (json!({"urls": [url], "max_pages": u64::MAX}), "invalid_option", "max_pages must be at most"),
        (json!({"urls": [url], "max_total_bytes": 1u64 << 63}), "invalid_option", "max_total_bytes must be at most"),
        (json!({"urls": [url], "max_bytes": 0}), "invalid_option", "max_bytes"),
        (json!({"urls": [url], "max_depth": -1}), "invalid_body", "max_depth"),
        (json!({"urls": [url], "max_depth": 1u64 << 31}), "invalid_option", "max_depth"),
        (json!({"urls": [url], "robots": "ignore"}), "invalid_body", "robots"),
        (json!({"urls": [url], "ssrf": "allow"}), "invalid_body", "ssrf"),
        (json!({"urls": ["file:///etc/passwd"]}), "invalid_url", ""),
    ];
    for (body, reason, says) in refused {
        let began = Instant::now();
        let (code, answer) = service.post("/v1/crawl", &body).await;
        let head: String = body.to_string().chars().take(120).collect();
        assert_eq!((code, answer["error"]["reason"].as_str()), (422, Some(reason)), "{head}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{head}: {answer}");
        assert!(message.len() < 400, "{head}: the message does not repeat the input: {}", message.len());
        assert!(began.elapsed() < Duration::from_secs(2), "{head}: {:?}", began.elapsed());
    }
    assert_eq!(site.requests().len(), 0, "nothing is asked of a site for a refused request");
    let (code, started) = service.post("/v1/crawl", &json!({"urls": [url], "max_pages": i64::MAX})).await;
    assert_eq!(code, 202, "{started}");
    let ceiling = service.state.jobs().unwrap().ceiling();
    assert_eq!(started["limits"]["max_records"], ceiling.max_records, "{started}");
    let id = started["id"].as_str().unwrap();
    for cursor in ["abc", "1e3", "18446744073709551616", "%00", "3"] {
        let (code, answer) = service.get(&format!("/v1/jobs/{id}/results?cursor={cursor}")).await;
        assert_eq!(code, 422, "{cursor}: {answer}");
    }
}

#[tokio::test]
async fn openapi_documents_the_crawl_request_with_the_fetch_options() {
    let service = service_with(JobsConfig::default()).await;
    let (_, _, text) = service.get_text("/openapi.json").await;
    let doc: Value = serde_json::from_str(&text).unwrap();
    let responses = doc["paths"]["/v1/crawl"]["post"]["responses"].as_object().unwrap();
    for code in ["202", "400", "403", "413", "415", "422", "429", "503", "504"] {
        assert!(responses.contains_key(code), "POST /v1/crawl does not document {code}");
    }
    let crawl = &doc["components"]["schemas"]["CrawlRequest"];
    assert_eq!(crawl["additionalProperties"], false, "{crawl}");
    let crawl_fields = [
        "urls",
        "agent",
        "scope",
        "include",
        "exclude",
        "seeds",
        "max_depth",
        "max_pages",
        "max_total_bytes",
        "max_pages_per_host",
        "limits",
    ];
    let fetch = doc["components"]["schemas"]["FetchRequest"]["properties"].as_object().unwrap();
    let fetch_options = fetch.keys().filter(|k| !["url", "agent"].contains(&k.as_str()));
    for field in crawl_fields.iter().copied().chain(fetch_options.map(String::as_str)) {
        assert!(crawl["properties"][field].is_object(), "CrawlRequest.{field} undocumented");
    }
    assert_eq!(crawl["properties"]["urls"]["maxItems"], webcanon_server::MAX_CRAWL_STARTS);
    for schema in ["PageRecord", "SeedName", "NotFetchedReason"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} missing");
    }
}
