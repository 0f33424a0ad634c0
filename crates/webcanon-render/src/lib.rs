//! Render a structured agent policy (TOML) to robots.txt, verified by
//! `webcanon-core`'s matcher.
//!
//! A policy names agents by product token and says what each may fetch;
//! [`render()`](fn@render) turns it into robots.txt deterministically (its
//! production rules are in [`render`](mod@render)), then reads the file back
//! with the core and checks that every agent gets the intended access under
//! both the longest-match and the first-match reading ([`verify`]). A file
//! that fails is an error, never output. [`warnings::check`] compares the
//! policy with the known-agents registry; [`presets`] writes starting
//! policies.
//!
//! ```
//! use webcanon_render::{Policy, render};
//!
//! let policy = Policy::from_toml(r#"
//! source = "acme.com"
//! sitemap_url = "https://acme.com/sitemap.xml"
//!
//! [default_policy]
//! allow_all = true
//!
//! [[agents]]
//! token = "GPTBot"
//! allow = ["/docs/"]
//! disallow = ["/"]
//! "#)?;
//! let robots_txt = render(&policy)?.text;
//! assert!(robots_txt.contains("User-agent: GPTBot\nAllow: /docs/\nDisallow: /\n"));
//!
//! // The core reads it as the policy says.
//! let robots = webcanon_core::robots::Robots::parse(robots_txt.as_bytes());
//! assert!(robots.rules_for("GPTBot").is_allowed("https://acme.com/docs/start"));
//! assert!(!robots.rules_for("GPTBot").is_allowed("https://acme.com/pricing"));
//! assert!(robots.rules_for("Googlebot").is_allowed("https://acme.com/pricing"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod order;
pub mod policy;
pub mod presets;
pub mod render;
pub mod verify;
pub mod warnings;

use std::fmt;

pub use policy::{Access, AgentPolicy, Policy, PolicyError};
pub use presets::Preset;
pub use render::{Rendered, render, render_toml};
pub use verify::Reading;
pub use warnings::Warning;

/// Why a policy could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenderError {
    /// The policy file is invalid.
    Policy(PolicyError),
    /// The rendered file does not give an agent the policy's access: a bug
    /// in the renderer, reported instead of writing a wrong file.
    Verification {
        /// The agent (`GPTBot`, or `*` for the default record).
        agent: String,
        /// The probed path.
        path: String,
        /// Whether the policy allows the path.
        expected: bool,
        /// Whether the rendered file allows it under `reading`.
        got: bool,
        /// The reading that disagreed.
        reading: Reading,
    },
    /// The rendered file's `License:` lines, read back by the core's
    /// parser, are not the policy's `license_url`.
    LicenseRecord {
        /// The policy's license URL.
        expected: Option<String>,
        /// What the rendered file's `License:` lines say.
        got: Vec<String>,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = |allowed: bool| if allowed { "allows" } else { "disallows" };
        match self {
            RenderError::Policy(err) => write!(f, "invalid policy: {err}"),
            RenderError::Verification { agent, path, expected, got, reading } => write!(
                f,
                "verification failed for {agent} {path}: the policy {}, the rendered file {} ({} reading)",
                word(*expected),
                word(*got),
                reading.as_str()
            ),
            RenderError::LicenseRecord { expected, got } => write!(
                f,
                "verification failed for the License line: the policy names {}, the rendered file {got:?}",
                expected.as_deref().unwrap_or("none")
            ),
        }
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenderError::Policy(err) => Some(err),
            RenderError::Verification { .. } | RenderError::LicenseRecord { .. } => None,
        }
    }
}

impl From<PolicyError> for RenderError {
    fn from(err: PolicyError) -> RenderError {
        RenderError::Policy(err)
    }
}
