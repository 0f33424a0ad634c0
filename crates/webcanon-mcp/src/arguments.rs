//! Tool arguments read by the server itself, so that arguments that do not
//! fit the tool (an unknown field, a missing one, a wrong type) fail like
//! every other failure: an `isError` result with the explanation and the
//! JSON error object (`kind: usage`, `code: 2`). rmcp's own `Parameters`
//! extractor answers them with the explanation alone.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::handler::server::common::{FromContextPart, schema_for_input};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use webcanon_client::agent::ProductToken;

use crate::refusal::Failure;

/// A tool's arguments as read from the call: the value, or the usage
/// failure to answer with.
pub(crate) struct Arguments<T>(pub Result<T, Failure>);

impl<S, T: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Arguments<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        let read = serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|e| {
            let field = e.path().to_string();
            let e = e.into_inner();
            let text = if field == "." {
                format!("the arguments do not fit the tool: {e}")
            } else {
                format!("the arguments do not fit the tool: `{field}`: {e}")
            };
            Failure::usage(text, None)
        });
        Ok(Arguments(read))
    }
}

/// Reads an optional `agent` argument: absent, `null` or blank is the
/// server's own agent; anything else must be a product token, refused here
/// with the token rule's message.
pub(crate) fn optional_agent<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ProductToken>, D::Error> {
    let given = Option::<std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    match given.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(token) => ProductToken::new(token).map(Some).map_err(serde::de::Error::custom),
    }
}

/// The input schema of a tool taking `T`, as rmcp's `Parameters<T>` gives it.
pub(crate) fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|e| panic!("invalid input schema for `{}`: {e}", std::any::type_name::<T>()))
}

/// The schema of a scope (`origin`, `domain`, `prefix`), as serde reads
/// [`Scope`](webcanon_crawl::Scope).
pub(crate) fn scope_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use webcanon_crawl::Scope::{Domain, Origin, Prefix};
    string_enum(&[Origin, Domain, Prefix])
}

/// The schema of a list of map sources (`sitemap`, `llms_txt`, `link`), as
/// serde reads [`MapSource`](webcanon_crawl::map::MapSource).
pub(crate) fn map_sources_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use webcanon_crawl::map::MapSource::{Link, LlmsTxt, Sitemap};
    let item = string_enum(&[Sitemap, LlmsTxt, Link]);
    schemars::json_schema!({ "type": ["array", "null"], "items": item })
}

/// A string schema listing `values` by their serde names: schemas list
/// what deserialisation takes, never a second copy of the names.
fn string_enum<T: serde::Serialize>(values: &[T]) -> schemars::Schema {
    let names: Vec<serde_json::Value> = values.iter().filter_map(|value| serde_json::to_value(value).ok()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}
