//! [`FetchOptions`]: what [`Client::fetch`](crate::Client::fetch) does with
//! a page, and [`FetchOverrides`], the part of them one request may choose.
//!
//! A client holds its own options (set on the builder, or through
//! [`ClientOptions::fetch`](crate::options::ClientOptions::fetch)); a request
//! of a face (HTTP API body, MCP tool arguments, Python keywords) carries
//! its overrides as a [`FetchOverrides`], deserialised with the rest of the
//! request, and [`FetchOptions::with`] applies them. No face lists the
//! options again.

use serde::Deserialize;
use webcanon_core::rsl::Usage;

use crate::browser::mode::RenderMode;
use crate::markdown::{Comments, ContentFormat, ContentShape, ImageStyle, LinkStyle};
use crate::option_error::OptionError;

/// The default body limit, counted after decompression.
pub const DEFAULT_MAX_BYTES: usize = 10 * 1024 * 1024;
/// The largest body limit one request may ask for, in bytes (10 MiB): a
/// caller of a shared service cannot make it hold more per page.
pub const MAX_REQUEST_BYTES: u64 = DEFAULT_MAX_BYTES as u64;

/// What [`Client::fetch`](crate::Client::fetch) does with a page: the
/// client's own ([`Client::fetch_options`](crate::Client::fetch_options)),
/// or a request's ([`Client::fetch_with`](crate::Client::fetch_with)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchOptions {
    /// The page body limit in bytes, after decompression.
    pub max_bytes: usize,
    /// Whether to look for a Markdown alternative of the page.
    pub alternatives: bool,
    /// The shape of the content.
    pub shape: ContentShape,
    /// Whether HTML pages are rendered in the browser.
    pub render: RenderMode,
    /// The use declared for the content (RSL 1.0 usage): the site's RSL
    /// license is read and its terms for this use become warnings. `None`
    /// takes the agent's registry category's use, if it has one.
    pub purpose: Option<Usage>,
    /// Whether comments and a thread's replies are content (see
    /// [`Comments`]).
    pub comments: Comments,
}

impl Default for FetchOptions {
    fn default() -> FetchOptions {
        FetchOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            alternatives: true,
            shape: ContentShape::default(),
            render: RenderMode::Off,
            purpose: None,
            comments: Comments::Auto,
        }
    }
}

impl FetchOptions {
    /// These options with a request's own choices where it makes them, or
    /// the first override out of range ([`OptionError`], named as the
    /// field is: `max_bytes`).
    ///
    /// ```
    /// use webcanon_client::{FetchOptions, FetchOverrides};
    /// use webcanon_client::markdown::ContentFormat;
    ///
    /// let overrides: FetchOverrides = serde_json::from_str(r#"{"format": "text", "max_bytes": 100}"#)?;
    /// let options = FetchOptions::default().with(&overrides)?;
    /// assert_eq!((options.shape.format, options.max_bytes), (ContentFormat::Text, 100));
    /// assert_eq!(options.render, FetchOptions::default().render);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with(&self, overrides: &FetchOverrides) -> Result<FetchOptions, OptionError> {
        let max_bytes = match overrides.max_bytes {
            None => self.max_bytes,
            Some(n) if (1..=MAX_REQUEST_BYTES).contains(&n) => n as usize,
            Some(n) => {
                return Err(OptionError::new(
                    "max_bytes",
                    format!(" must be between 1 and {MAX_REQUEST_BYTES}, not {n}"),
                ));
            }
        };
        Ok(FetchOptions {
            max_bytes,
            alternatives: overrides.alternatives.unwrap_or(self.alternatives),
            shape: self.shape.overridden(overrides.format, overrides.links, overrides.images),
            render: overrides.render.unwrap_or(self.render),
            purpose: overrides.purpose.or(self.purpose),
            comments: overrides.comments.unwrap_or(self.comments),
        })
    }
}

/// The fetch options one request may choose; what it leaves out stays the
/// client's. Faces deserialise it with the rest of a request (the HTTP
/// API's body and the MCP tool's arguments flatten it in; Python's keyword
/// arguments are read into it) and apply it with [`FetchOptions::with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct FetchOverrides {
    /// The page body limit in bytes, counted after decompression (at most 10 MiB).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 10485760))]
    #[cfg_attr(feature = "json-schema", schemars(range(min = 1, max = 10_485_760)))]
    pub max_bytes: Option<u64>,
    /// Whether to look for a Markdown copy of the page (llms.txt, `rel="alternate"`, `Accept: text/markdown`).
    pub alternatives: Option<bool>,
    /// `markdown` or plain `text`.
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "content_format"))]
    pub format: Option<ContentFormat>,
    /// Links `inline`, as numbered `references` listed once at the end (the same address cited five times is listed once), or `drop`ped to their text.
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "link_style"))]
    pub links: Option<LinkStyle>,
    /// Images: `keep` as Markdown images, or `drop`.
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "image_style"))]
    pub images: Option<ImageStyle>,
    /// Render the page in headless Chromium first, for pages whose text arrives through scripts: `true`, `"auto"` (only when the fetched HTML has little text but scripts) or `false`. Every request the page makes still goes through the SSRF guard and robots.txt.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi_render_mode))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "render_mode"))]
    pub render: Option<RenderMode>,
    /// The use that will be made of the content: `search`, `ai-input` (answering a user from it), `ai-index`, `ai-train`, `ai-all` or `all`. The site's RSL license is read for it, and what it prohibits or charges for comes back as an `rsl_*` warning (never a refusal).
    pub purpose: Option<Usage>,
    /// Comments and a thread's replies: `auto` (a forum's or a Q&A page's posts are content, an article's comments are not), `include` (an article's comments follow its text under `## Comments`) or `exclude` (none: a thread keeps its first post).
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "comments"))]
    pub comments: Option<Comments>,
}

/// The JSON spellings of `values`, as serde writes them: schemas list
/// what deserialisation takes, never a second copy of the names.
#[cfg(feature = "json-schema")]
fn spellings<T: serde::Serialize>(values: &[T]) -> Vec<String> {
    values.iter().filter_map(|value| serde_json::to_value(value).ok()?.as_str().map(str::to_string)).collect()
}

/// A string schema listing `values` by their serde names.
#[cfg(feature = "json-schema")]
fn string_enum<T: serde::Serialize>(values: &[T]) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": spellings(values) })
}

/// The schema of a content format (`markdown`, `text`).
#[cfg(feature = "json-schema")]
fn content_format(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::markdown::ContentFormat::{Markdown, Text};
    string_enum(&[Markdown, Text])
}

/// The schema of a link style (`inline`, `references`, `drop`).
#[cfg(feature = "json-schema")]
fn link_style(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::markdown::LinkStyle::{Drop, Inline, References};
    string_enum(&[Inline, References, Drop])
}

/// The schema of an image style (`keep`, `drop`).
#[cfg(feature = "json-schema")]
fn image_style(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::markdown::ImageStyle::{Drop, Keep};
    string_enum(&[Keep, Drop])
}

/// The schema of a comments choice (`auto`, `include`, `exclude`).
#[cfg(feature = "json-schema")]
fn comments(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    use crate::markdown::Comments::{Auto, Exclude, Include};
    string_enum(&[Auto, Include, Exclude])
}

/// The schema of a render mode: a boolean, or `off`, `on`, `auto`, or
/// null for the default, as every other optional field takes.
#[cfg(feature = "json-schema")]
fn render_mode(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let spellings = RenderMode::SPELLINGS;
    schemars::json_schema!({
        "oneOf": [{ "type": "boolean" }, { "type": "string", "enum": spellings }, { "type": "null" }]
    })
}

/// The OpenAPI schema of a render mode: a boolean, or `off`, `on`, `auto`,
/// or null for the default, as every other optional field takes.
#[cfg(feature = "openapi")]
fn openapi_render_mode() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};

    let spellings = RenderMode::SPELLINGS.iter().copied();
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Boolean))
        .item(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(spellings)))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .build()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_only_what_they_name() {
        let client = FetchOptions { max_bytes: 5_000, render: RenderMode::Auto, ..FetchOptions::default() };
        let rows: &[(&str, Result<FetchOptions, &str>)] = &[
            ("{}", Ok(client)),
            (r#"{"max_bytes": 100}"#, Ok(FetchOptions { max_bytes: 100, ..client })),
            (r#"{"render": false}"#, Ok(FetchOptions { render: RenderMode::Off, ..client })),
            (r#"{"render": "on"}"#, Ok(FetchOptions { render: RenderMode::On, ..client })),
            (r#"{"alternatives": false}"#, Ok(FetchOptions { alternatives: false, ..client })),
            (r#"{"purpose": "ai-train"}"#, Ok(FetchOptions { purpose: Some(Usage::AiTrain), ..client })),
            (r#"{"comments": "include"}"#, Ok(FetchOptions { comments: Comments::Include, ..client })),
            (r#"{"comments": "exclude"}"#, Ok(FetchOptions { comments: Comments::Exclude, ..client })),
            (
                r#"{"format": "text", "links": "drop"}"#,
                Ok(FetchOptions {
                    shape: ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, ..client.shape },
                    ..client
                }),
            ),
            (r#"{"max_bytes": 0}"#, Err("max_bytes must be between 1 and 10485760, not 0")),
            (r#"{"max_bytes": 10485761}"#, Err("max_bytes must be between 1 and 10485760, not 10485761")),
        ];
        for (json, expected) in rows {
            let overrides: FetchOverrides = serde_json::from_str(json).unwrap();
            let got = client.with(&overrides).map_err(|e| e.message(e.option));
            assert_eq!(got, expected.map_err(str::to_string), "{json}");
        }
    }

    #[test]
    fn unknown_overrides_are_refused() {
        let error = serde_json::from_str::<FetchOverrides>(r#"{"foramt": "text"}"#).unwrap_err().to_string();
        assert!(error.contains("unknown field `foramt`"), "{error}");
    }
}
