//! The renderer: a checked [`Policy`] to robots.txt text, by the production
//! rules below.
//!
//! The file, in this order:
//!
//! 1. a header comment naming the policy's `source` and the SHA-256 of the
//!    policy's canonical form (so the hash changes exactly when the policy's
//!    meaning or its rendered comments change, not with key order or path
//!    order in the TOML file);
//! 2. one record per `[[agents]]` entry, in policy order; consecutive entries
//!    with the same access share one record (several `User-agent` lines,
//!    each entry's note as a comment above its own lines), as a careful
//!    site owner writes it by hand;
//! 3. the `*` record from `[default_policy]`;
//! 4. the `Sitemap:` line;
//! 5. a comment pointing at llms.txt.
//!
//! # Rule order inside a record
//!
//! RFC 9309 crawlers take the longest matching pattern (Allow winning a
//! tie); some older crawlers take the first matching rule in file order.
//! Rules are written longest pattern first, by the
//! precedence length the core uses (octets after percent-encoding
//! normalisation, `*` and a final `$` counting one each), Allow before
//! Disallow at equal length, then by pattern text. With that order the
//! first rule that matches a path is a matching rule of greatest length,
//! and an Allow if any Allow of that length matches: exactly the rule the
//! longest-match reading picks. `Allow: /docs/` therefore comes before
//! `Disallow: /`, the "broad Allow first, narrow Disallow last" of §2.7,
//! generalised to any set of patterns. [`crate::verify`] checks both
//! readings on the rendered file.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::RenderError;
use crate::policy::{Access, AgentPolicy, Policy};
use crate::verify;

pub use crate::order::{ordered_rules, precedence};

/// A rendered robots.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The file, ending with a newline.
    pub text: String,
    /// The SHA-256 of the policy's canonical form, lowercase hex: the hash
    /// named in the header, usable as an `ETag`.
    pub policy_hash: String,
}

/// Renders `policy` to robots.txt and verifies the result with the core's
/// matcher ([`verify::verify`]); a file that does not give every agent the
/// access the policy intends is an error, never returned.
pub fn render(policy: &Policy) -> Result<Rendered, RenderError> {
    let rendered = render_unverified(policy);
    verify::verify(policy, &rendered.text)?;
    Ok(rendered)
}

/// Reads a policy file and renders it ([`Policy::from_toml`], then [`render`]).
pub fn render_toml(text: &str) -> Result<Rendered, RenderError> {
    render(&Policy::from_toml(text)?)
}

/// Renders without verifying: the text [`render`] checks.
pub fn render_unverified(policy: &Policy) -> Rendered {
    let policy_hash = policy_hash(policy);
    let mut out = String::new();
    // `write!` to a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(out, "# robots.txt for {}", policy.source);
    out.push_str("# Rendered by `webcanon render` from an agent policy: edit the policy, not this file.\n");
    let _ = writeln!(out, "# Policy SHA-256: {policy_hash}");

    let mut entries = policy.agents.iter().peekable();
    while let Some(first) = entries.next() {
        out.push('\n');
        let mut group = vec![first];
        while let Some(next) = entries.next_if(|e| e.access == first.access) {
            group.push(next);
        }
        for entry in &group {
            if let Some(comment) = entry_comment(entry) {
                let _ = writeln!(out, "# {comment}");
            }
            for token in &entry.tokens {
                let _ = writeln!(out, "User-agent: {token}");
            }
        }
        write_rules(&mut out, &first.access);
    }

    out.push_str("\n# Every agent not named above\nUser-agent: *\n");
    write_rules(&mut out, &policy.default_policy);

    if let Some(url) = &policy.sitemap_url {
        let _ = write!(out, "\nSitemap: {url}\n");
    }
    if let Some(url) = &policy.license_url {
        let _ = write!(out, "\n# Content licence (RSL 1.0, https://rslstandard.org/rsl)\nLicense: {url}\n");
    }
    if let Some(url) = &policy.llms_txt_url {
        let _ = write!(out, "\n# LLM-readable site index (llms.txt, https://llmstxt.org):\n# {url}\n");
    }
    Rendered { text: out, policy_hash }
}

/// The comment above an entry's `User-agent` lines: its notes, then vendor
/// and role in parentheses.
fn entry_comment(entry: &AgentPolicy) -> Option<String> {
    let about: Vec<&str> = entry
        .vendor
        .as_deref()
        .into_iter()
        .chain(entry.role.map(|r| r.as_str()))
        .filter(|s| !s.trim().is_empty())
        .collect();
    match (entry.notes.as_ref().filter(|n| !n.trim().is_empty()), about.is_empty()) {
        (None, true) => None,
        (None, false) => Some(about.join(", ")),
        (Some(notes), true) => Some(notes.clone()),
        (Some(notes), false) => Some(format!("{notes} ({})", about.join(", "))),
    }
}

fn write_rules(out: &mut String, access: &Access) {
    for (directive, pattern) in ordered_rules(access) {
        let _ = writeln!(out, "{directive}: {pattern}");
    }
}

/// The SHA-256 of the policy's canonical form, lowercase hex.
///
/// The canonical form lists every field that reaches the rendered file,
/// each length-prefixed so that no two policies share it; path lists are
/// already sorted by [`Policy::from_toml`].
pub fn policy_hash(policy: &Policy) -> String {
    let mut canon = String::new();
    let mut field = |name: &str, value: &str| {
        let _ = write!(canon, "{name}:{}:{value};", value.len());
    };
    field("source", &policy.source);
    field("sitemap", policy.sitemap_url.as_deref().unwrap_or(""));
    field("llms", policy.llms_txt_url.as_deref().unwrap_or(""));
    // Only when set, so that policies without one keep their hash.
    if let Some(url) = &policy.license_url {
        field("license", url);
    }
    let access = |field: &mut dyn FnMut(&str, &str), a: &Access| match a {
        Access::AllowAll => field("access", "allow_all"),
        Access::DenyAll => field("access", "deny_all"),
        Access::Paths { allow, disallow } => {
            field("access", "paths");
            allow.iter().for_each(|p| field("allow", p));
            disallow.iter().for_each(|p| field("disallow", p));
        }
    };
    access(&mut field, &policy.default_policy);
    for agent in &policy.agents {
        field("agent", "");
        agent.tokens.iter().for_each(|t| field("token", t));
        field("vendor", agent.vendor.as_deref().unwrap_or(""));
        field("role", agent.role.map_or("", |r| r.as_str()));
        field("notes", agent.notes.as_deref().unwrap_or(""));
        access(&mut field, &agent.access);
    }
    let digest = Sha256::digest(canon.as_bytes());
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
