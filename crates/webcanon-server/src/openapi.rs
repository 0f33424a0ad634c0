//! The OpenAPI document, generated from the handlers and the types.

use std::sync::OnceLock;

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
        crate::handlers::healthz,
        crate::handlers::metrics,
        crate::handlers::openapi,
    )
)]
pub struct ApiDoc;

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
        document.to_string()
    })
}
