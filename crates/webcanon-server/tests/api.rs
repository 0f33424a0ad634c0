//! The HTTP API over real sockets: every endpoint, the error table, metrics.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{loopback_client, start, start_guarded, start_with};
use webcanon_client::warning::{WarningCode, WarningSource};
use webcanon_server::Limits;
use webcanon_test::{Route, TestServer};

const ROBOTS: &str =
    "# internal note: staging-secret-42\nUser-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nDisallow: /\n";

async fn site() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, ROBOTS));
    server.route(
        "/page",
        Route::html(200, "<html><head><title>Hello</title></head><body><h1>Hello</h1><p>World text.</p></body></html>"),
    );
    server.route("/private/page", Route::html(200, "<p>private</p>"));
    server.route("/broken", Route::text(500, "oops"));
    server.route("/slow", Route::html(200, "<p>slow</p>").delay(Duration::from_secs(3)));
    server
}

/// The override table every face shares: each row applied on the API
/// gives the content the client gives for the same options, or the usage
/// error the table names.
#[tokio::test]
async fn fetch_applies_the_shared_table_of_overrides() {
    let table: Value = serde_json::from_str(webcanon_test::FETCH_OVERRIDES_TABLE).unwrap();
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let path = table["path"].as_str().unwrap();
    server.route(path, Route::html(200, table["page"].as_str().unwrap()));
    let service = start().await;
    let client = loopback_client().build().unwrap();
    for row in table["rows"].as_array().unwrap() {
        let overrides = &row["overrides"];
        let mut request = json!({"url": server.url(path)});
        request.as_object_mut().unwrap().extend(overrides.as_object().unwrap().clone());
        let (status, body) = service.post("/v1/fetch", &request).await;
        if let Some(error) = row["error"].as_str() {
            assert_eq!(status, 422, "{overrides}: {body}");
            assert_eq!(body["error"]["kind"], "usage", "{overrides}: {body}");
            assert!(body["error"]["message"].as_str().unwrap().contains(error), "{overrides}: {body}");
            continue;
        }
        assert_eq!(status, 200, "{overrides}: {body}");
        let content = body["content"].as_str().unwrap();
        for expected in row["contains"].as_array().unwrap() {
            assert!(content.contains(expected.as_str().unwrap()), "{overrides}: {expected} in {content}");
        }
        for unexpected in row["absent"].as_array().unwrap() {
            assert!(!content.contains(unexpected.as_str().unwrap()), "{overrides}: {unexpected} in {content}");
        }
        let parsed: webcanon_client::FetchOverrides = serde_json::from_value(overrides.clone()).unwrap();
        let options = client.fetch_options().with(&parsed).unwrap();
        let direct = client.fetch_with(&server.url(path), &options).await.unwrap();
        assert_eq!(content, direct.content, "{overrides}: the API and the client apply it alike");
    }
}

/// A bad `url`, `agent` or scope field is refused by the request's
/// deserialization: the answer names the field, and nothing is requested
/// for it.
#[tokio::test]
async fn a_bad_url_or_agent_is_refused_when_the_body_is_read() {
    let server = site().await;
    let service = start().await;
    let page = server.url("/page");
    let rows = [
        (
            "/v1/fetch",
            json!({"url": "not a url"}),
            "invalid_url",
            "url: invalid URL `not a url`: relative URL without a base",
        ),
        (
            "/v1/robots/check",
            json!({"url": "ftp://example.com/x"}),
            "invalid_url",
            "url: invalid URL `ftp://example.com/x`: scheme `ftp`",
        ),
        ("/v1/audit", json!({"url": "/var/www"}), "invalid_url", "url: invalid URL `/var/www`"),
        (
            "/v1/fetch",
            json!({"url": page, "agent": "GPT Bot"}),
            "invalid_agent",
            "agent: agent `GPT Bot` is not a product token",
        ),
        (
            "/v1/robots/check",
            json!({"url": page, "agent": "bigsur.ai"}),
            "invalid_agent",
            "agent: agent `bigsur.ai` is not a product token",
        ),
        (
            "/v1/robots/eval",
            json!({"urls": [page], "agent": ""}),
            "invalid_agent",
            "agent: agent `` is not a product token",
        ),
        // The job requests read their scope fields as fields of their own
        // (not flattened in), so that a refusal names the field.
        ("/v1/map", json!({"url": page, "agent": "GPT Bot"}), "invalid_agent", "agent: agent `GPT Bot` is not"),
        ("/v1/crawl", json!({"urls": [page], "agent": "GPT Bot"}), "invalid_agent", "agent: agent `GPT Bot` is not"),
        ("/v1/crawl", json!({"urls": [page, "ftp://x/"]}), "invalid_url", "urls[1]: invalid URL `ftp://x/`"),
        ("/v1/map", json!({"url": page, "scope": "site"}), "invalid_body", "scope: unknown variant `site`"),
        ("/v1/crawl", json!({"urls": [page], "include": [1]}), "invalid_body", "include[0]: invalid type"),
        ("/v1/map", json!({"url": page, "exclude": "/a"}), "invalid_body", "exclude: invalid type"),
    ];
    for (path, body, reason, message) in rows {
        let (status, answer) = service.post(path, &body).await;
        assert_eq!(status, 422, "{path} {body}: {answer}");
        assert_eq!(answer["error"]["reason"], reason, "{path} {body}: {answer}");
        let said = answer["error"]["message"].as_str().unwrap();
        assert!(said.contains(message), "{path} {body}: expected `{message}` in `{said}`");
    }
    assert!(server.requests().is_empty(), "nothing requested: {:?}", server.requests());
}

/// The OpenAPI document's agent schema is the product token's, and a
/// validator reading it accepts exactly the agents the service accepts.
#[tokio::test]
async fn the_published_agent_schema_accepts_what_the_service_accepts() {
    let server = site().await;
    let service = start().await;
    let (_, _, text) = service.get_text("/openapi.json").await;
    let doc: Value = serde_json::from_str(&text).unwrap();
    let token = &doc["components"]["schemas"]["ProductToken"];
    let pattern = regex::Regex::new(token["pattern"].as_str().unwrap()).unwrap();
    let (min, max) = (token["minLength"].as_u64().unwrap() as usize, token["maxLength"].as_u64().unwrap() as usize);
    for request in ["UrlRequest", "FetchRequest", "EvalRequest", "MapRequest", "CrawlRequest"] {
        let agent = &doc["components"]["schemas"][request]["properties"]["agent"];
        assert_eq!(agent["oneOf"][0]["$ref"], "#/components/schemas/ProductToken", "{request}: {agent}");
    }
    // The fetch request's own and flattened fields side by side, as serde reads them.
    let fetch = &doc["components"]["schemas"]["FetchRequest"]["properties"];
    for field in ["url", "agent", "max_bytes", "alternatives", "format", "links", "images", "render", "comments"] {
        assert!(fetch[field].is_object(), "FetchRequest.{field}: {fetch}");
    }
    assert_eq!(
        doc["components"]["schemas"]["FetchRequest"]["additionalProperties"], false,
        "unknown fields are refused"
    );
    let long = "a".repeat(64);
    let too_long = "a".repeat(65);
    let agents = [
        "GPTBot",
        "Claude-User",
        "my_bot2",
        long.as_str(),
        too_long.as_str(),
        "",
        "GPT Bot",
        "GPTBot/1.0",
        "bigsur.ai",
        "é",
    ];
    for agent in agents {
        let published = pattern.is_match(agent) && (min..=max).contains(&agent.chars().count());
        let (status, body) =
            service.post("/v1/robots/check", &json!({"url": server.url("/page"), "agent": agent})).await;
        let accepted = status == 200;
        assert_eq!(
            published, accepted,
            "{agent:?}: the schema says {published}, the service answered {status}: {body}"
        );
        if !accepted {
            assert_eq!(body["error"]["reason"], "invalid_agent", "{agent:?}: {body}");
        }
    }
}

#[tokio::test]
async fn healthz_answers_ok_and_the_version() {
    let service = start().await;
    let (status, content_type, body) = service.get_text("/healthz").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body, json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}));
}

#[tokio::test]
async fn check_answers_the_robots_object_without_requesting_the_page() {
    let server = site().await;
    let service = start().await;
    let cases = [
        (None, "/private/page", "disallowed_explicit", "not_recommended", Some(3)),
        (None, "/page", "allowed_implicit", "recommended", None),
        (Some("GPTBot"), "/page", "disallowed_explicit", "not_recommended", Some(6)),
        (Some("ClaudeBot"), "/private/x", "disallowed_explicit", "not_recommended", Some(3)),
    ];
    for (agent, path, verdict, recommendation, line) in cases {
        let (status, body) = service.post("/v1/robots/check", &json!({"url": server.url(path), "agent": agent})).await;
        assert_eq!(status, 200, "{body}");
        let robots = &body["robots"];
        assert_eq!(robots["verdict"], verdict, "{agent:?} {path}: {body}");
        assert_eq!(robots["recommendation"], recommendation);
        assert_eq!(robots["robots_url"], server.url("/robots.txt"));
        assert_eq!(robots["status"], 200);
        assert_eq!(robots["rule"]["line"], line.map_or(Value::Null, Value::from), "{body}");
        assert!(body["warnings"].is_array());
    }
    assert_eq!(server.hits("/private/page") + server.hits("/page"), 0, "a check requests no page");
    assert_eq!(server.hits("/robots.txt"), 1, "one robots.txt fetch serves every agent");
}

#[tokio::test]
async fn fetch_answers_the_same_object_as_the_cli() {
    let server = site().await;
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/page"), "alternatives": false})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["requested_url"], server.url("/page"));
    assert_eq!(body["final_url"], server.url("/page"));
    assert_eq!(body["status"], 200);
    assert_eq!(body["title"], "Hello");
    assert!(body["content"].as_str().unwrap().contains("World text."), "{body}");
    assert_eq!(body["robots"]["verdict"], "allowed_implicit");
    assert_eq!(body["alternatives"], json!([]));
    for key in ["fetched_url", "content_type", "warnings", "redirects", "timings"] {
        assert!(body.get(key).is_some(), "missing {key}: {body}");
    }
}

#[tokio::test]
async fn fetch_takes_the_content_shape() {
    let server = site().await;
    server.route(
        "/linked",
        Route::html(
            200,
            "<html><head><title>L</title></head><body><main><p>Read <a href=\"/guide\">the guide</a> first, in a \
             paragraph long enough to be the page's main content for the extractor.</p></main></body></html>",
        ),
    );
    let service = start().await;
    let guide = server.url("/guide");
    let rows = [
        (json!({}), "[the guide][1]".to_string()),
        (json!({"links": "inline"}), format!("[the guide]({guide})")),
        (json!({"links": "drop", "format": "text"}), "Read the guide first".to_string()),
    ];
    for (shape, expected) in rows {
        let mut request = json!({"url": server.url("/linked")});
        request.as_object_mut().unwrap().extend(shape.as_object().unwrap().clone());
        let (status, body) = service.post("/v1/fetch", &request).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["content"].as_str().unwrap().contains(&expected), "{shape}: {body}");
    }
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/linked"), "links": "footnotes"})).await;
    assert_eq!(status, 422, "{body}");
}

#[tokio::test]
async fn fetch_honours_max_bytes() {
    let server = site().await;
    server.route("/long", Route::text(200, &"a".repeat(5000)));
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/long"), "max_bytes": 100})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["content"].as_str().unwrap().len(), 100);
    assert!(body["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "body_truncated"), "{body}");
}

#[tokio::test]
async fn policy_refusal_quotes_the_rule_and_never_the_file() {
    let server = site().await;
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/private/page")})).await;
    assert_eq!(status, 403, "{body}");
    let error = &body["error"];
    assert_eq!(error["kind"], "policy");
    assert_eq!(error["code"], 3);
    assert_eq!(error["verdict"], "disallowed_explicit");
    assert_eq!(error["recommendation"], "not_recommended");
    assert_eq!(error["rule"], json!({"line": 3, "directive": "disallow", "pattern": "/private"}));
    assert_eq!(error["robots_url"], server.url("/robots.txt"));
    assert!(!body.to_string().contains("staging-secret-42"), "robots.txt text leaked: {body}");
    assert_eq!(server.hits("/private/page"), 0);
}

/// One row of the error table: what is sent, what must come back.
struct ErrorCase {
    name: &'static str,
    path: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
    status: u16,
    kind: &'static str,
    code: u8,
    reason: Option<&'static str>,
}

fn case(name: &'static str, path: &'static str, body: &str, status: u16, kind: &'static str, code: u8) -> ErrorCase {
    ErrorCase {
        name,
        path,
        content_type: "application/json",
        body: body.as_bytes().to_vec(),
        status,
        kind,
        code,
        reason: None,
    }
}

impl ErrorCase {
    fn reason(mut self, reason: &'static str) -> ErrorCase {
        self.reason = Some(reason);
        self
    }

    fn content_type(mut self, content_type: &'static str) -> ErrorCase {
        self.content_type = content_type;
        self
    }
}

#[tokio::test]
async fn errors_are_json_with_the_cli_kinds_and_codes() {
    let server = site().await;
    let service = start_with(loopback_client(), Limits { max_body_bytes: 4096, ..Limits::default() }).await;
    let page = server.url("/page");
    let many_urls = serde_json::to_string(&json!({"urls": vec!["http://a.invalid/"; 10_001]})).unwrap();
    let cases = vec![
        case("bad JSON", "/v1/fetch", "{\"url\": ", 400, "usage", 2).reason("invalid_json"),
        case("missing field", "/v1/robots/check", "{}", 422, "usage", 2).reason("invalid_body"),
        case("unknown field", "/v1/robots/check", &format!("{{\"url\":\"{page}\",\"agnt\":\"x\"}}"), 422, "usage", 2)
            .reason("invalid_body"),
        case("wrong type", "/v1/robots/eval", "{\"urls\": \"http://a/\"}", 422, "usage", 2).reason("invalid_body"),
        case("wrong content type", "/v1/fetch", &format!("{{\"url\":\"{page}\"}}"), 415, "usage", 2)
            .content_type("text/plain")
            .reason("unsupported_media_type"),
        case("huge body", "/v1/robots/eval", &format!("{{\"urls\":[\"{}\"]}}", "a".repeat(8192)), 413, "usage", 2)
            .reason("body_too_large"),
        case("invalid URL", "/v1/fetch", "{\"url\":\"not a url\"}", 422, "usage", 2).reason("invalid_url"),
        case("non-http scheme", "/v1/robots/check", "{\"url\":\"ftp://example.com/x\"}", 422, "usage", 2)
            .reason("invalid_url"),
        case("local path audit", "/v1/audit", "{\"url\":\"examples/site\"}", 422, "usage", 2).reason("invalid_url"),
        case(
            "invalid agent",
            "/v1/robots/check",
            &format!("{{\"url\":\"{page}\",\"agent\":\"bad agent\"}}"),
            422,
            "usage",
            2,
        )
        .reason("invalid_agent"),
        case(
            "agent with a dot (once allowed by the published pattern)",
            "/v1/robots/check",
            &format!("{{\"url\":\"{page}\",\"agent\":\"bigsur.ai\"}}"),
            422,
            "usage",
            2,
        )
        .reason("invalid_agent"),
        case("max_bytes 0", "/v1/fetch", &format!("{{\"url\":\"{page}\",\"max_bytes\":0}}"), 422, "usage", 2)
            .reason("invalid_option"),
        case("upstream 500", "/v1/fetch", &format!("{{\"url\":\"{}\"}}", server.url("/broken")), 502, "fetch", 5),
        case("upstream timeout", "/v1/fetch", &format!("{{\"url\":\"{}\"}}", server.url("/slow")), 504, "fetch", 5),
        case("unknown path", "/v1/nothing", "{}", 404, "usage", 2).reason("not_found"),
    ];
    for case in cases {
        let (status, body) = service.post_raw(case.path, case.content_type, case.body).await;
        assert_eq!(status, case.status, "{}: {body}", case.name);
        assert_eq!(body["error"]["kind"], case.kind, "{}: {body}", case.name);
        assert_eq!(body["error"]["code"], case.code, "{}: {body}", case.name);
        assert!(!body["error"]["message"].as_str().unwrap().is_empty(), "{}", case.name);
        if let Some(reason) = case.reason {
            assert_eq!(body["error"]["reason"], reason, "{}: {body}", case.name);
        }
    }
    assert_eq!(service.post("/v1/fetch", &json!({"url": server.url("/broken")})).await.1["error"]["status"], 500);
    // More URLs than a batch takes: the body limit is raised so the count is what is refused.
    let roomy = start_with(loopback_client(), Limits::default()).await;
    let (status, body) = roomy.post_raw("/v1/robots/eval", "application/json", many_urls.into_bytes()).await;
    assert_eq!((status, &body["error"]["reason"]), (422, &json!("too_many_urls")), "{body}");
}

#[tokio::test]
async fn wrong_method_is_405_json_with_allow() {
    let service = start().await;
    let response = service.http.get(format!("{}/v1/fetch", service.base)).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        (body["error"]["kind"].as_str(), body["error"]["reason"].as_str()),
        (Some("usage"), Some("method_not_allowed"))
    );
}

#[tokio::test]
async fn ssrf_refusal_without_allow_private() {
    let server = site().await;
    let service = start_guarded().await;
    for path in ["/v1/fetch", "/v1/robots/check", "/v1/audit"] {
        let (status, body) = service.post(path, &json!({"url": server.url("/page")})).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(body["error"]["kind"], "ssrf");
        assert_eq!(body["error"]["code"], 4);
        assert_eq!(body["error"]["reason"], "loopback");
    }
    assert!(server.requests().is_empty(), "nothing may reach a refused address");
    assert_eq!(service.metric("webcanon_ssrf_refusals_total").await, 3.0);
}

#[tokio::test]
async fn eval_keeps_order_gives_per_item_errors_and_fetches_each_robots_once() {
    let first = site().await;
    let second = TestServer::start().await;
    second.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /open\nDisallow: /\n"));
    let service = start().await;
    let urls = json!([
        first.url("/private/a"),
        second.url("/open/b"),
        "not a url",
        first.url("/page"),
        second.url("/closed"),
        "http://10.1.2.3/x",
        first.url("/private/c"),
    ]);
    let (status, body) = service.post("/v1/robots/eval", &json!({"urls": urls})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["agent"], "webcanon");
    let results = body["results"].as_array().unwrap();
    let got: Vec<(Value, Value, Value)> =
        results.iter().map(|r| (r["url"].clone(), r["allowed"].clone(), r["verdict"].clone())).collect();
    let expected = [
        (true, false, "disallowed_explicit"),
        (true, true, "allowed_explicit"),
        (false, false, ""),
        (true, true, "allowed_implicit"),
        (true, false, "disallowed_explicit"),
        (false, false, ""),
        (true, false, "disallowed_explicit"),
    ];
    for (index, ((url, allowed, verdict), (decided, want_allowed, want_verdict))) in
        got.iter().zip(expected).enumerate()
    {
        assert_eq!(url, &urls[index], "order");
        if decided {
            assert_eq!((allowed, verdict.as_str().unwrap()), (&json!(want_allowed), want_verdict), "item {index}");
            assert!(results[index].get("recommendation").is_some() && results[index].get("rule").is_some());
        } else {
            assert!(results[index]["error"].is_object(), "item {index}: {}", results[index]);
        }
    }
    assert_eq!(results[2]["error"]["kind"], "usage");
    assert_eq!(results[2]["error"]["reason"], "invalid_url");
    assert_eq!(results[5]["error"]["kind"], "ssrf");
    assert_eq!(results[5]["error"]["code"], 4);
    assert_eq!(results[1]["rule"], json!({"line": 2, "directive": "allow", "pattern": "/open"}));
    assert_eq!((first.hits("/robots.txt"), second.hits("/robots.txt")), (1, 1));
    // A second batch is served from the cache.
    service.post("/v1/robots/eval", &json!({"agent": "GPTBot", "urls": [first.url("/page")]})).await;
    assert_eq!(first.hits("/robots.txt"), 1);
}

#[tokio::test]
async fn eval_without_a_cache_still_fetches_once_per_origin() {
    let server = site().await;
    let service = start_with(loopback_client().cache(webcanon_client::CacheSetting::None), Limits::default()).await;
    let urls: Vec<String> = (0..50).map(|i| server.url(&format!("/p{i}"))).collect();
    let (status, body) = service.post("/v1/robots/eval", &json!({"urls": urls})).await;
    assert_eq!(status, 200);
    assert_eq!(body["results"].as_array().unwrap().len(), 50);
    assert_eq!(server.hits("/robots.txt"), 1);
}

#[tokio::test]
async fn metrics_count_requests_verdicts_cache_and_refusals() {
    let server = site().await;
    let service = start().await;
    let check = json!({"url": server.url("/page")});
    service.post("/v1/robots/check", &check).await;
    service.post("/v1/robots/check", &check).await;
    service.post("/v1/fetch", &json!({"url": server.url("/private/page")})).await;
    service.post("/v1/robots/check", &json!({"url": "ftp://x/"})).await;
    let (status, content_type, text) = service.get_text("/metrics").await;
    assert_eq!(status, 200);
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    assert!(text.ends_with("# EOF\n"), "{text}");
    let expectations = [
        (r#"webcanon_http_requests_total{route="/v1/robots/check",method="POST",status="200"}"#, 2.0),
        (r#"webcanon_http_requests_total{route="/v1/robots/check",method="POST",status="422"}"#, 1.0),
        (r#"webcanon_http_requests_total{route="/v1/fetch",method="POST",status="403"}"#, 1.0),
        (r#"webcanon_robots_verdicts_total{verdict="allowed_implicit"}"#, 2.0),
        (r#"webcanon_robots_verdicts_total{verdict="disallowed_explicit"}"#, 1.0),
        ("webcanon_policy_refusals_total", 1.0),
        ("webcanon_ssrf_refusals_total", 0.0),
        ("webcanon_robots_fetches_total", 1.0),
        ("webcanon_robots_cache_misses_total", 1.0),
        ("webcanon_robots_cache_hits_total", 2.0),
        (r#"webcanon_http_request_duration_seconds_count{route="/v1/robots/check"}"#, 3.0),
    ];
    for (series, value) in expectations {
        let line = text.lines().find(|l| l.starts_with(series) && l[series.len()..].starts_with(' '));
        let got = line.map_or(0.0, |l| l[series.len()..].trim().parse::<f64>().unwrap());
        assert_eq!(got, value, "{series}\n{text}");
    }
    assert!(text.contains("webcanon_http_requests_in_flight 1"), "the /metrics request itself is in flight");
}

#[tokio::test]
async fn saturated_service_sheds_load_with_503() {
    let server = site().await;
    let service = start_with(
        loopback_client().timeout(Duration::from_secs(10)),
        Limits { max_in_flight: 1, ..Limits::default() },
    )
    .await;
    let slow = {
        let (http, url) = (service.http.clone(), format!("{}/v1/fetch", service.base));
        let body = json!({"url": server.url("/slow"), "alternatives": false});
        tokio::spawn(async move { http.post(url).json(&body).send().await.unwrap().status().as_u16() })
    };
    wait_until(|| server.hits("/slow") == 1).await;
    let response = service
        .http
        .post(format!("{}/v1/robots/check", service.base))
        .json(&json!({"url": server.url("/page")}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    let body: Value = response.json().await.unwrap();
    assert_eq!((body["error"]["kind"].as_str(), body["error"]["code"].as_u64()), (Some("overloaded"), Some(5)));
    assert_eq!(service.get_text("/healthz").await.0, 200, "health stays outside the limit");
    assert_eq!(slow.await.unwrap(), 200, "the request in flight completes");
    assert_eq!(service.post("/v1/robots/check", &json!({"url": server.url("/page")})).await.0, 200);
}

#[tokio::test]
async fn request_over_the_time_limit_is_504() {
    let server = site().await;
    let service = start_with(
        loopback_client().timeout(Duration::from_secs(10)),
        Limits { request_timeout: Duration::from_millis(300), ..Limits::default() },
    )
    .await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/slow")})).await;
    assert_eq!(status, 504, "{body}");
    assert_eq!((body["error"]["kind"].as_str(), body["error"]["code"].as_u64()), (Some("timeout"), Some(5)));
}

#[tokio::test]
async fn audit_reports_on_a_live_origin() {
    let server = site().await;
    server.route("/llms.txt", Route::text(200, "# Site\n\n> A test site.\n\n## Docs\n\n- [Page](/page): the page\n"));
    let service = start().await;
    let (status, body) = service.post("/v1/audit", &json!({"url": server.url("/"), "agent": "GPTBot"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["target"], server.url("/").trim_end_matches('/'));
    assert_eq!(body["target_kind"], "origin");
    assert_eq!(body["agent"], "GPTBot");
    assert!(body["score"].as_u64().unwrap() <= 100);
    let checks: Vec<&str> = body["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(checks.contains(&"robots-txt") && checks.contains(&"llms-txt"), "{checks:?}");
    assert_eq!(server.hits("/robots.txt"), 1, "the audit reads robots.txt through the shared cache");
}

/// Issue 16: an origin that does not answer is a `fetch` error (502,
/// reason `unreachable`), not a report scoring what could not be read.
#[tokio::test]
async fn audit_of_an_origin_that_does_not_answer_is_an_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let service = start().await;
    let origin = format!("http://127.0.0.1:{port}");
    let (status, body) = service.post("/v1/audit", &json!({"url": format!("{origin}/")})).await;
    assert_eq!(status, 502, "{body}");
    let error = &body["error"];
    assert_eq!((error["kind"].as_str(), error["code"].as_u64()), (Some("fetch"), Some(5)), "{body}");
    assert_eq!((error["reason"].as_str(), error["url"].as_str()), (Some("unreachable"), Some(origin.as_str())));
    assert!(error["message"].as_str().unwrap().contains("does not answer"), "{body}");
    // Issue 31: the reason in a few words, as on the command line, not
    // reqwest's chain of causes.
    let reason = format!("(cannot connect to {origin}/robots.txt: connection refused)");
    assert!(error["message"].as_str().unwrap().ends_with(&reason), "{body}");
}

#[tokio::test]
async fn openapi_documents_every_route() {
    let service = start().await;
    let (status, content_type, text) = service.get_text("/openapi.json").await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let routes = [
        ("/v1/fetch", "post"),
        ("/v1/robots/check", "post"),
        ("/v1/robots/eval", "post"),
        ("/v1/audit", "post"),
        ("/v1/map", "post"),
        ("/v1/crawl", "post"),
        ("/v1/jobs/{id}", "get"),
        ("/v1/jobs/{id}", "delete"),
        ("/v1/jobs/{id}/results", "get"),
        ("/healthz", "get"),
        ("/metrics", "get"),
        ("/openapi.json", "get"),
    ];
    // Two methods of one path.
    assert_eq!(doc["paths"].as_object().unwrap().len(), routes.len() - 1);
    for (path, method) in routes {
        let operation = &doc["paths"][path][method];
        assert!(operation.is_object(), "{method} {path} undocumented");
        let responses = operation["responses"].as_object().unwrap();
        if method == "post" {
            // A job starts with 202 and may be refused with 429.
            let answers: &[&str] = if path == "/v1/map" || path == "/v1/crawl" { &["202", "429"] } else { &["200"] };
            for code in answers.iter().chain(&["400", "413", "415", "422", "503", "504"]) {
                assert!(responses.contains_key(*code), "{path} does not document {code}");
            }
        }
    }
    for schema in ["FetchResult", "PdfInfo", "Metadata", "RobotsEvidence", "ErrorJson", "EvalItem", "Report"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} missing");
    }
    // Only formats a strict validator knows (no `uint8`, `uint64`, ...).
    assert_eq!(
        webcanon_client::json_schema::nonstandard_formats(&doc, webcanon_client::json_schema::Dialect::OpenApi31),
        Vec::<(String, String)>::new()
    );
    // Every agent field is the one ProductToken schema, with the rule's pattern.
    let token = &doc["components"]["schemas"]["ProductToken"];
    assert_eq!(token["pattern"], webcanon_client::agent::AGENT_TOKEN_PATTERN, "{token}");
    for request in ["UrlRequest", "FetchRequest", "EvalRequest", "MapRequest", "CrawlRequest"] {
        let agent = &doc["components"]["schemas"][request]["properties"]["agent"];
        assert_eq!(agent["oneOf"][0]["$ref"], "#/components/schemas/ProductToken", "{request}: {agent}");
    }
    let score = &doc["components"]["schemas"]["Report"]["properties"]["score"];
    assert!(score["minimum"] == 0 && score["maximum"] == 100, "the bounds are stated: {score}");
    // Warning codes and sources are enums with the spellings the JSON uses.
    let spelled = |schema: &str| -> Vec<String> {
        let values = doc["components"]["schemas"][schema]["enum"].as_array().unwrap_or_else(|| panic!("{schema}"));
        values.iter().map(|v| v.as_str().unwrap().to_string()).collect()
    };
    let codes: Vec<String> = WarningCode::ALL.iter().map(|c| c.as_str().to_string()).collect();
    let sources: Vec<String> = WarningSource::ALL.iter().map(|s| s.as_str().to_string()).collect();
    assert_eq!(spelled("WarningCode"), codes);
    assert_eq!(spelled("WarningSource"), sources);
}

async fn wait_until(condition: impl Fn() -> bool) {
    for _ in 0..200 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not met in 2 s");
}

/// A robots.txt of about 500 KiB of distinct wildcard rules, and a home page
/// whose title is 200,000 escapes: each audit of it is a second or more of
/// parsing and linting in a debug build.
fn heavy_site_files() -> (String, String) {
    let mut robots = String::from("User-agent: *\n");
    let mut i = 0;
    while robots.len() < 500 * 1024 {
        i += 1;
        robots.push_str(&format!("Disallow: /{}*{}/x{i}$\n", (b'a' + (i % 8) as u8) as char, ["x", "y", "z"][i % 3]));
    }
    let page = format!("<html><head><title>{}</title></head><body><p>hi</p></body></html>", "&amp;".repeat(200_000));
    (robots, page)
}

// One async worker: an audit that ran its CPU work on it would hold up every
// other request for as long as it lints.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn audits_leave_the_async_worker_free_for_health_checks() {
    let server = site().await;
    let (robots, page) = heavy_site_files();
    server.route("/robots.txt", Route::text(200, &robots));
    server.route("/", Route::html(200, &page));
    let service = start().await;
    let addr = service.base.trim_start_matches("http://").to_string();
    let probing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let prober = {
        let probing = probing.clone();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            let mut slowest = Duration::ZERO;
            while probing.load(std::sync::atomic::Ordering::Relaxed) {
                let started = std::time::Instant::now();
                let mut stream = std::net::TcpStream::connect(&addr).unwrap();
                write!(stream, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
                let mut answer = String::new();
                stream.read_to_string(&mut answer).unwrap();
                assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
                slowest = slowest.max(started.elapsed());
                std::thread::sleep(Duration::from_millis(20));
            }
            slowest
        })
    };
    let url = format!("{}/v1/audit", service.base);
    let audits: Vec<_> = (0..2)
        .map(|_| {
            let (http, url, body) = (service.http.clone(), url.clone(), json!({"url": server.url("/")}));
            tokio::spawn(async move {
                let response = http.post(url).json(&body).send().await.unwrap();
                (response.status().as_u16(), response.json::<Value>().await.unwrap())
            })
        })
        .collect();
    for audit in audits {
        let (status, body) = audit.await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body["checks"].as_array().is_some_and(|c| !c.is_empty()), "{body}");
    }
    probing.store(false, std::sync::atomic::Ordering::Relaxed);
    let slowest = prober.join().unwrap();
    assert!(slowest < Duration::from_millis(300), "/healthz took {slowest:?} while audits ran");
}

/// A store that holds its caller's thread, as a locked SQLite file does
/// (its busy timeout) or a Redis server that stopped answering.
#[derive(Debug, Default)]
struct StallingStore {
    inner: webcanon_client::store::MemoryStore,
    stall: std::sync::atomic::AtomicBool,
    /// Calls that have started to stall.
    stalled: std::sync::atomic::AtomicUsize,
}

impl StallingStore {
    fn wait(&self) {
        if self.stall.load(std::sync::atomic::Ordering::Relaxed) {
            self.stalled.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(3));
        }
    }
}

impl webcanon_client::store::RobotsStore for StallingStore {
    fn load(
        &self,
        origin: &str,
    ) -> Result<Option<webcanon_client::store::RobotsRecord>, webcanon_client::store::StoreError> {
        self.wait();
        self.inner.load(origin)
    }
    fn save(&self, record: &webcanon_client::store::RobotsRecord) -> Result<(), webcanon_client::store::StoreError> {
        self.wait();
        self.inner.save(record)
    }
    fn load_last_good(
        &self,
        origin: &str,
    ) -> Result<Option<webcanon_client::store::RobotsRecord>, webcanon_client::store::StoreError> {
        self.wait();
        self.inner.load_last_good(origin)
    }
    fn save_last_good(
        &self,
        record: &webcanon_client::store::RobotsRecord,
    ) -> Result<(), webcanon_client::store::StoreError> {
        self.wait();
        self.inner.save_last_good(record)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_store_holds_no_async_worker() {
    let cached = site().await;
    let store = std::sync::Arc::new(StallingStore::default());
    let service =
        start_with(loopback_client().cache(webcanon_client::CacheSetting::Store(store.clone())), Limits::default())
            .await;
    let check = |url: String| {
        let (http, endpoint) = (service.http.clone(), format!("{}/v1/robots/check", service.base));
        async move {
            let started = std::time::Instant::now();
            let response = http.post(endpoint).json(&json!({"url": url, "agent": "Bot"})).send().await.unwrap();
            (response.status().as_u16(), started.elapsed())
        }
    };
    // One origin's robots.txt in memory, then the store stalls every call.
    assert_eq!(check(cached.url("/page")).await.0, 200);
    store.stall.store(true, std::sync::atomic::Ordering::Relaxed);
    // Four origins not in memory: each request waits on the store, twice
    // as many as there are workers.
    let mut others = Vec::new();
    for _ in 0..4 {
        others.push(site().await);
    }
    let waiting: Vec<_> = others.iter().map(|s| tokio::spawn(check(s.url("/page")))).collect();
    // Once as many store calls stall as there are workers, a store call on
    // a worker thread would leave none free.
    let started = std::time::Instant::now();
    while store.stalled.load(std::sync::atomic::Ordering::SeqCst) < 2 {
        assert!(started.elapsed() < Duration::from_secs(10), "the waiting requests never reached the store");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A decision from memory does not wait for them (a store call on a
    // worker thread would hold both workers for the 3 s of each call).
    let (status, took) = check(cached.url("/private/x")).await;
    assert_eq!(status, 200);
    // Behind a stalled store it would wait 3 s or more (12 s measured).
    assert!(took < Duration::from_millis(2500), "a cached decision waited {took:?} behind the stalled store");
    for request in waiting {
        let (status, _) = request.await.unwrap();
        assert_eq!(status, 200, "the stalled requests still finish");
    }
}

fn paper() -> Vec<u8> {
    webcanon_test::pdf::PdfSpec::text(&[&["First page of the paper."], &["Second page of the paper."]])
        .title("The Paper")
        .author("Ada Lovelace")
        .build()
}

#[tokio::test]
async fn fetch_reads_a_pdf_behind_a_redirect_in_the_shape_asked_for() {
    let server = site().await;
    server.route("/paper.pdf", Route::bytes(200, "application/pdf", paper()).header("X-Robots-Tag", "noai"));
    server.route("/latest.pdf", Route::redirect(301, "/paper.pdf"));
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/latest.pdf"), "format": "text"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["content"], "First page of the paper.\n\n--- page 2 ---\n\nSecond page of the paper.");
    assert_eq!(body["title"], "The Paper");
    assert_eq!(body["pdf"], json!({"title": "The Paper", "author": "Ada Lovelace", "pages": 2, "pages_read": 2}));
    assert_eq!(body["metadata"]["headline"], "The Paper");
    assert_eq!(body["metadata"]["authors"], json!(["Ada Lovelace"]));
    assert_eq!(body["metadata"]["published"], Value::Null);
    assert_eq!(body["redirects"][0]["url"], server.url("/latest.pdf"));
    assert_eq!(body["warnings"][0]["code"], "noai", "{body}");
}

#[tokio::test]
async fn fetch_refuses_a_disallowed_pdf_unrequested_and_a_broken_one_with_pdf_error() {
    let server = site().await;
    server.route("/private/paper.pdf", Route::bytes(200, "application/pdf", paper()));
    server.route("/broken.pdf", Route::bytes(200, "application/pdf", b"%PDF-1.7\nnot really".to_vec()));
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/private/paper.pdf")})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(server.hits("/private/paper.pdf"), 0);
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/broken.pdf")})).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["reason"], "pdf_error", "{body}");
}

/// A page that asks for payment (HTTP 402, pay per crawl): 502 `fetch` with
/// reason `payment_required`, the page's status and the price asked, which
/// the OpenAPI document describes. The page is requested once.
#[tokio::test]
async fn payment_asked_is_a_fetch_error_with_the_price() {
    let server = site().await;
    server.route("/paid", Route::html(402, "<p>pay</p>").header("crawler-price", "EUR 1.50"));
    let service = start().await;
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/paid")})).await;
    assert_eq!(status, 502, "{body}");
    let error = &body["error"];
    assert_eq!((error["kind"].as_str(), error["code"].as_u64()), (Some("fetch"), Some(5)), "{body}");
    assert_eq!(error["reason"], "payment_required");
    assert_eq!(error["status"], 402);
    assert_eq!(error["price"], json!({"currency": "EUR", "amount": "1.50"}));
    assert_eq!(server.hits("/paid"), 1, "never retried");
    let (_, _, openapi) = service.get_text("/openapi.json").await;
    let openapi: Value = serde_json::from_str(&openapi).unwrap();
    let price = &openapi["components"]["schemas"]["CrawlerPrice"];
    assert_eq!(price["required"], json!(["currency", "amount"]), "{price}");
    assert!(openapi["components"]["schemas"]["ErrorBody"]["properties"]["price"].is_object());
}

#[tokio::test]
async fn fetch_takes_a_purpose_read_against_the_rsl_license() {
    let server = TestServer::start().await;
    let license = r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><prohibits type="usage">ai-train</prohibits></license></content></rsl>"#;
    server.route("/robots.txt", Route::text(200, &format!("License: {}\n", server.url("/license.xml"))));
    server.route("/license.xml", Route::bytes(200, "application/rsl+xml", license.as_bytes().to_vec()));
    server.route("/page", Route::html(200, "<html><head><title>Hi</title></head><body><p>Text.</p></body></html>"));
    let service = start().await;
    let rsl_codes = |body: &Value| -> Vec<String> {
        body["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["source"] == WarningSource::Rsl.as_str())
            .map(|w| w["code"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/page"), "purpose": "ai-train"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(rsl_codes(&body), [WarningCode::RslProhibited.as_str()], "{body}");
    let (_, body) = service.post("/v1/fetch", &json!({"url": server.url("/page"), "purpose": "search"})).await;
    assert!(rsl_codes(&body).is_empty(), "{body}");
    let (status, body) = service.post("/v1/fetch", &json!({"url": server.url("/page"), "purpose": "train-ai"})).await;
    assert_eq!(status, 422, "an unknown use is refused: {body}");
}
