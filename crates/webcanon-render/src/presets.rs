//! Ready-made policies: the shapes most sites want, written as commented
//! policy files to adapt.
//!
//! Each preset takes the well-known agents of a fixed, short list
//! ([`WELL_KNOWN`], the tokens most sites decide about) and groups them by their
//! registry category, so the file stays short and each entry's `role` is the
//! registry's.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use webcanon_core::agents::{Category, registry};

/// The tokens presets list, in the order they are written.
pub use webcanon_core::agents::WELL_KNOWN;

/// A ready-made policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Preset {
    /// Search and AI retrieval allowed, AI training and the opt-out tokens
    /// denied: the shape most sites that decide about AI want.
    BlockTrainingAllowRetrieval,
    /// Every AI agent allowed, listed explicitly.
    AllowAllAi,
    /// Every AI agent denied, live retrieval included; search allowed.
    BlockAllAi,
    /// Search engines allowed, every other agent denied.
    SearchOnly,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 4] =
        [Preset::BlockTrainingAllowRetrieval, Preset::AllowAllAi, Preset::BlockAllAi, Preset::SearchOnly];

    /// The name the command line uses (`block-training-allow-retrieval`).
    pub fn name(self) -> &'static str {
        match self {
            Preset::BlockTrainingAllowRetrieval => "block-training-allow-retrieval",
            Preset::AllowAllAi => "allow-all-ai",
            Preset::BlockAllAi => "block-all-ai",
            Preset::SearchOnly => "search-only",
        }
    }

    /// One sentence on what the preset does.
    pub fn description(self) -> &'static str {
        match self {
            Preset::BlockTrainingAllowRetrieval => {
                "Search crawlers and AI search/live retrieval allowed; AI training crawlers and the AI opt-out tokens denied."
            }
            Preset::AllowAllAi => "Every agent allowed, with the AI agents listed explicitly.",
            Preset::BlockAllAi => {
                "Search crawlers allowed; every AI agent denied, live retrieval included (the site disappears from AI assistants)."
            }
            Preset::SearchOnly => "Search crawlers allowed; every other agent denied.",
        }
    }

    /// The access of each category, `None` when the preset leaves the
    /// category to the default record.
    fn access(self, category: Category) -> Option<bool> {
        use Category::*;
        match (self, category) {
            (_, Search) => Some(true),
            (Preset::BlockTrainingAllowRetrieval, AiTraining | Legacy | OptOutToken) => Some(false),
            (Preset::BlockTrainingAllowRetrieval, AiSearch | AiUserFetch) => Some(true),
            (Preset::AllowAllAi, _) => Some(true),
            (Preset::BlockAllAi, _) => Some(false),
            (Preset::SearchOnly, _) => None,
            (_, Seo) => None,
        }
    }

    /// The policy file, as TOML with comments.
    pub fn policy_toml(self) -> String {
        let mut out = String::new();
        let default_allows = self != Preset::SearchOnly;
        let _ = writeln!(out, "# Agent policy from the `{}` preset of `webcanon render`.", self.name());
        let _ = writeln!(out, "# {}", self.description());
        out.push_str("# Render it with `webcanon render policy.toml -o robots.txt`; edit freely.\n\n");
        out.push_str("source = \"example.com\"\n");
        out.push_str("# sitemap_url = \"https://example.com/sitemap.xml\"\n");
        out.push_str("# llms_txt_url = \"https://example.com/llms.txt\"\n\n");
        out.push_str("# Every agent not listed below (the `*` record).\n[default_policy]\n");
        out.push_str(if default_allows { "allow_all = true\n" } else { "deny_all = true\n" });

        let order = [
            Category::Search,
            Category::AiTraining,
            Category::Legacy,
            Category::AiSearch,
            Category::AiUserFetch,
            Category::OptOutToken,
        ];
        for category in order {
            let Some(allow) = self.access(category) else { continue };
            let tokens: Vec<&str> = WELL_KNOWN
                .iter()
                .filter_map(|t| registry().get(t))
                .filter(|a| a.category == category)
                .map(|a| a.token)
                .collect();
            if tokens.is_empty() {
                continue;
            }
            let notes = notes(category, allow);
            let _ = write!(out, "\n# {notes}\n");
            if category == Category::AiTraining && !allow {
                out.push_str("# To let them read your docs, replace deny_all with:\n");
                out.push_str("#   allow = [\"/docs/\"]\n#   disallow = [\"/\"]\n");
            }
            let list: Vec<String> = tokens.iter().map(|t| format!("\"{t}\"")).collect();
            let _ = writeln!(out, "[[agents]]\ntokens = [{}]", list.join(", "));
            let _ = writeln!(out, "role = \"{category}\"\nnotes = \"{notes}\"");
            out.push_str(if allow { "allow_all = true\n" } else { "deny_all = true\n" });
        }
        out
    }
}

fn notes(category: Category, allow: bool) -> String {
    let what = match category {
        Category::Search => "Search crawlers",
        Category::AiTraining => "AI training crawlers",
        Category::Legacy => "Legacy AI tokens (some crawlers still read them)",
        Category::AiSearch => "AI search indexes",
        Category::AiUserFetch => "AI live retrieval (fetches a user asked for)",
        Category::OptOutToken => "AI opt-out tokens (not crawlers: they govern AI use of search crawls)",
        Category::Seo => "SEO crawlers",
    };
    format!("{what}: {}", if allow { "allowed" } else { "denied" })
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = String;

    fn from_str(s: &str) -> Result<Preset, String> {
        Preset::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
            format!("unknown preset `{s}`; expected one of {}", names.join(", "))
        })
    }
}
