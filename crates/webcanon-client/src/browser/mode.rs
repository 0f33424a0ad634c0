//! [`RenderMode`]: whether a fetch renders its page, as every face spells
//! it (`true`, `false`, `on`, `off`, `auto`). A leaf the fetch options
//! name without reaching the browser itself.

use serde::Serialize;

/// Whether [`Client::fetch`](crate::Client::fetch) renders an HTML page in
/// the browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderMode {
    /// Never (the default).
    #[default]
    Off,
    /// Every HTML page (`--render`, `render: true`).
    On,
    /// Only a page whose fetched HTML has little main text but scripts
    /// (see [`wants_render`](crate::browser::wants_render)).
    Auto,
}

impl RenderMode {
    /// The spellings, as every face takes them.
    pub const SPELLINGS: &'static [&'static str] = &["off", "on", "auto"];

    /// The spelling (`off`, `on`, `auto`).
    pub fn as_str(self) -> &'static str {
        match self {
            RenderMode::Off => "off",
            RenderMode::On => "on",
            RenderMode::Auto => "auto",
        }
    }
}

impl From<bool> for RenderMode {
    fn from(yes: bool) -> RenderMode {
        if yes { RenderMode::On } else { RenderMode::Off }
    }
}

/// A render mode that is not one of the spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown render mode `{0}`, expected `on`, `off`, `auto`, `true` or `false`")]
pub struct UnknownRenderMode(pub String);

impl std::str::FromStr for RenderMode {
    type Err = UnknownRenderMode;

    fn from_str(given: &str) -> Result<RenderMode, UnknownRenderMode> {
        match given {
            "off" | "false" => Ok(RenderMode::Off),
            "on" | "true" => Ok(RenderMode::On),
            "auto" => Ok(RenderMode::Auto),
            _ => Err(UnknownRenderMode(given.to_string())),
        }
    }
}

/// `true`, `false`, or one of the spellings.
impl<'de> serde::Deserialize<'de> for RenderMode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RenderMode, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Given {
            Bool(bool),
            Text(String),
        }
        match Given::deserialize(deserializer)? {
            Given::Bool(yes) => Ok(yes.into()),
            Given::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}
