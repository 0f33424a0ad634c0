//! JSON Schemas as every face publishes them (MCP tool schemas, the OpenAPI
//! document): the standard vocabulary only.
//!
//! Schema generators describe Rust number types with `format` values of
//! their own (`uint8`, `uint16`, `uint64`, `uint`, `double`, …) that JSON
//! Schema does not define, and strict validators (the MCP Inspector's among
//! them) report every one. [`to_standard_formats`] drops those formats and
//! states the same bounds with `minimum` and `maximum`, which every
//! validator knows. The OpenAPI document may keep the numeric formats of
//! the OpenAPI 3.1 format registry (`int32`, `int64`, `float`, `double`),
//! which code generators read.

use serde_json::{Map, Value};

/// Which standard a published schema follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Plain JSON Schema 2020-12 (MCP tool schemas).
    JsonSchema,
    /// An OpenAPI 3.1 document: JSON Schema plus the numeric formats of the
    /// OpenAPI format registry.
    OpenApi31,
}

impl Dialect {
    fn knows(self, format: &str) -> bool {
        JSON_SCHEMA_FORMATS.contains(&format)
            || (self == Dialect::OpenApi31 && OPENAPI_NUMBER_FORMATS.contains(&format))
    }
}

/// The numeric formats of the OpenAPI 3.1 format registry.
const OPENAPI_NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// The `format` values JSON Schema 2020-12 defines (§7.3 of the validation
/// vocabulary).
pub const JSON_SCHEMA_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose values are data, not schemas: never rewritten.
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples", "example"];

/// Rewrites `schema` (and every schema inside it) to the standard
/// vocabulary: a nonstandard `format` is dropped, and an unsigned integer
/// format becomes the `minimum` and `maximum` it stood for.
///
/// ```
/// use webcanon_client::json_schema::{Dialect, to_standard_formats};
///
/// let mut schema = serde_json::json!({"type": "integer", "format": "uint8"});
/// to_standard_formats(&mut schema, Dialect::JsonSchema);
/// assert_eq!(schema, serde_json::json!({"type": "integer", "minimum": 0, "maximum": 255}));
/// ```
pub fn to_standard_formats(schema: &mut Value, dialect: Dialect) {
    match schema {
        Value::Object(object) => rewrite_object(object, dialect),
        Value::Array(items) => items.iter_mut().for_each(|item| to_standard_formats(item, dialect)),
        _ => {}
    }
}

/// The bounds an integer format stands for.
fn integer_bounds(format: &str) -> Option<(i64, u64)> {
    Some(match format {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX),
        "int8" => (i8::MIN.into(), i8::MAX as u64),
        "int16" => (i16::MIN.into(), i16::MAX as u64),
        "int32" => (i32::MIN.into(), i32::MAX as u64),
        "int64" | "int" => (i64::MIN, i64::MAX as u64),
        _ => return None,
    })
}

fn rewrite_object(object: &mut Map<String, Value>, dialect: Dialect) {
    if let Some(format) = object.get("format").and_then(Value::as_str).map(str::to_string)
        && !dialect.knows(&format)
    {
        object.remove("format");
        if let Some((minimum, maximum)) = integer_bounds(&format) {
            object.entry("minimum").or_insert(Value::from(minimum));
            object.entry("maximum").or_insert(Value::from(maximum));
        }
    }
    for (key, value) in object.iter_mut() {
        if !DATA_KEYWORDS.contains(&key.as_str()) {
            to_standard_formats(value, dialect);
        }
    }
}

/// Every `format` value in `schema` that `dialect` does not define, with
/// its JSON pointer: what a strict validator would report.
pub fn nonstandard_formats(schema: &Value, dialect: Dialect) -> Vec<(String, String)> {
    fn walk(value: &Value, pointer: &str, dialect: Dialect, out: &mut Vec<(String, String)>) {
        match value {
            Value::Object(object) => {
                if let Some(format) = object.get("format").and_then(Value::as_str)
                    && !dialect.knows(format)
                {
                    out.push((pointer.to_string(), format.to_string()));
                }
                for (key, child) in object {
                    if !DATA_KEYWORDS.contains(&key.as_str()) {
                        let pointer = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                        walk(child, &pointer, dialect, out);
                    }
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{pointer}/{i}"), dialect, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(schema, "", dialect, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unsigned_formats_become_bounds_and_others_are_dropped() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "score": {"type": "integer", "format": "uint8", "minimum": 0},
                "status": {"type": ["integer", "null"], "format": "uint16"},
                "count": {"type": "integer", "format": "uint"},
                "age": {"type": "integer", "format": "uint64"},
                "ratio": {"type": "number", "format": "double"},
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "enum": ["markdown"], "default": {"format": "uint8"}},
                "list": {"type": "array", "items": {"type": "integer", "format": "int32"}}
            }
        });
        let openapi = schema.clone();
        assert_eq!(nonstandard_formats(&schema, Dialect::JsonSchema).len(), 6);
        assert_eq!(nonstandard_formats(&schema, Dialect::OpenApi31).len(), 4);
        to_standard_formats(&mut schema, Dialect::JsonSchema);
        assert_eq!(nonstandard_formats(&schema, Dialect::JsonSchema), Vec::<(String, String)>::new());
        let p = &schema["properties"];
        assert_eq!(p["score"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
        assert_eq!(p["status"], json!({"type": ["integer", "null"], "minimum": 0, "maximum": 65535}));
        assert_eq!(p["count"], json!({"type": "integer", "minimum": 0, "maximum": u64::MAX}));
        assert_eq!(p["ratio"], json!({"type": "number"}));
        assert_eq!(p["when"]["format"], "date-time");
        assert_eq!(p["list"]["items"], json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}));
        // A property named `format` is a schema, not a keyword; data stays as written.
        assert_eq!(p["format"]["default"], json!({"format": "uint8"}));
        // OpenAPI keeps its registry's numeric formats.
        let mut openapi = openapi;
        to_standard_formats(&mut openapi, Dialect::OpenApi31);
        assert_eq!(openapi["properties"]["ratio"]["format"], "double");
        assert_eq!(openapi["properties"]["list"]["items"]["format"], "int32");
        assert_eq!(openapi["properties"]["score"]["maximum"], 255);
    }
}
