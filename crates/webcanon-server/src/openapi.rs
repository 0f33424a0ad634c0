//! The OpenAPI document, generated from the handlers and the types.

use std::sync::OnceLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use utoipa::OpenApi;

/// The OpenAPI 3.1 document of every endpoint.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "webcanon HTTP API",
        description = "Policy-correct retrieval for AI agents: robots.txt (RFC 9309) respected, SSRF-guarded, pages as Markdown. Errors are `{\"error\": {\"kind\", \"message\", \"code\", ...}}` with the CLI's kinds and exit codes.",
        license(name = "MIT OR Apache-2.0")
    ),
    paths(
        crate::handlers::fetch,
        crate::handlers::robots_check,
        crate::handlers::robots_eval,
        crate::handlers::audit,
        crate::site_jobs::map,
        crate::site_jobs::crawl,
        crate::job_routes::status,
        crate::job_routes::results,
        crate::job_routes::cancel,
        crate::handlers::healthz,
        crate::handlers::metrics,
        openapi,
    ),
    components(schemas(webcanon_crawl::map::MapRecord, webcanon_client::PageRecord))
)]
pub struct ApiDoc;

/// This document.
#[utoipa::path(
    get, path = "/openapi.json", tag = "service",
    responses((status = 200, description = "The OpenAPI document of the service", body = Object))
)]
pub(crate) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], document_json()).into_response()
}

/// The document, serialised once.
pub fn document_json() -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let mut document = serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serialises");
        // The schemas in the standard vocabulary (no `uint8`-style formats).
        webcanon_client::json_schema::to_standard_formats(
            &mut document,
            webcanon_client::json_schema::Dialect::OpenApi31,
        );
        merge_flattened(&mut document);
        document.to_string()
    })
}

/// Writes each request schema made of a flattened struct (`allOf`: the
/// struct's own object and the schemas of the structs it flattens in) as
/// the one object serde reads: every property side by side, as a client
/// sends them, and no other (every request type refuses unknown fields; an
/// `allOf` of closed objects would accept no body at all). Code generators
/// and validators then see the fields of
/// [`FetchOverrides`](webcanon_client::FetchOverrides) as the request's
/// own.
fn merge_flattened(document: &mut Value) {
    let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else { return };
    let snapshot = schemas.clone();
    for schema in schemas.values_mut() {
        let Some(parts) = schema.get("allOf").and_then(Value::as_array) else { continue };
        let resolved: Option<Vec<&Map<String, Value>>> = parts
            .iter()
            .map(|part| match part.get("$ref").and_then(Value::as_str) {
                Some(reference) => snapshot.get(reference.strip_prefix("#/components/schemas/")?)?.as_object(),
                None => part.as_object(),
            })
            .collect();
        let Some(resolved) = resolved.filter(|parts| parts.iter().all(|p| p.get("type") == Some(&json!("object"))))
        else {
            continue;
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        for part in &resolved {
            if let Some(own) = part.get("properties").and_then(Value::as_object) {
                properties.extend(own.clone());
            }
            if let Some(own) = part.get("required").and_then(Value::as_array) {
                required.extend(own.iter().cloned());
            }
        }
        let mut merged = Map::new();
        merged.insert("type".into(), json!("object"));
        if let Some(description) = schema.get("description") {
            merged.insert("description".into(), description.clone());
        }
        merged.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            merged.insert("required".into(), Value::Array(required));
        }
        // Every request type of the API refuses unknown fields
        // (`deny_unknown_fields`), which utoipa leaves unsaid once a struct
        // flattens another in.
        merged.insert("additionalProperties".into(), json!(false));
        *schema = Value::Object(merged);
    }
}
