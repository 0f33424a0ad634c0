//! The error answers several routes document alike, each written once:
//! types a route's `#[utoipa::path(responses(...))]` names beside its own
//! rows. Each answer's body is an [`ErrorJson`].

use std::collections::BTreeMap;

use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{ContentBuilder, Ref, RefOr};
use utoipa::{IntoResponses, ToSchema};
use webcanon_client::error::ErrorJson;

/// Declares a unit type per group of error answers, documented as its
/// rows of status and description.
macro_rules! error_responses {
    ($($(#[$doc:meta])* $name:ident { $($status:literal => $description:literal),+ $(,)? })+) => {
        $(
            $(#[$doc])*
            pub(crate) struct $name;

            impl IntoResponses for $name {
                fn responses() -> BTreeMap<String, RefOr<Response>> {
                    error_rows(&[$(($status, $description)),+])
                }
            }
        )+
    };
}

error_responses! {
    /// A JSON body that cannot be read: not JSON, too large, not `application/json`.
    BodyErrors {
        "400" => "The body is not JSON",
        "413" => "The body is larger than the limit",
        "415" => "The body is not `application/json`",
    }
    /// A URL the SSRF guard refuses.
    SsrfRefused { "403" => "Refused by the SSRF guard (`ssrf`)" }
    /// A request shed at once because the service answers as many as it takes.
    Overloaded { "503" => "Too many requests in flight (`overloaded`)" }
    /// A request past the service's time limit.
    TimedOut { "504" => "The request timed out (`timeout`)" }
    /// A job start refused because the service runs or keeps as many jobs as it takes.
    TooManyJobs {
        "429" => "The service runs or keeps as many jobs as it takes (`too_many_jobs`); retry after `Retry-After`",
    }
    /// A job id the registry does not know.
    NoSuchJob { "404" => "No such job (never started, or forgotten after its time to live)" }
    /// A path whose job id is not one the service gives.
    InvalidJobId { "422" => "The id is not a job id" }
}

/// The answers of `rows` (status, description), each with an
/// [`ErrorJson`] body.
fn error_rows(rows: &[(&str, &str)]) -> BTreeMap<String, RefOr<Response>> {
    let body = ContentBuilder::new().schema(Some(Ref::from_schema_name(ErrorJson::name()))).build();
    rows.iter()
        .map(|(status, description)| {
            let answer = ResponseBuilder::new().description(*description).content("application/json", body.clone());
            ((*status).to_string(), RefOr::T(answer.build()))
        })
        .collect()
}
