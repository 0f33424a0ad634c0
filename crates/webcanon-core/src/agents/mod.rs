//! The known-agents registry: robots.txt product tokens with their operator
//! and what they do.
//!
//! Tokens are not centrally registered and change every quarter; the list
//! ships as data (`agents.tsv`, built by `scripts/gen-agents.py` from
//! operators' documentation and the ai.robots.txt project's list). Every
//! row has a valid product token, its operator's name, a category and a
//! source; the generator repairs what the data supports (a version after
//! the token, an operator named in the agent's own description) and leaves
//! out, with the reason, what it does not.
//! Lint, audit and render use it to tell training from live retrieval, to
//! catch misspelled tokens and to name the successors of legacy tokens.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// What an agent does with what it fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Category {
    /// A search engine's crawler (Googlebot, Bingbot).
    Search,
    /// Crawls to train AI models (GPTBot, ClaudeBot, CCBot).
    AiTraining,
    /// Indexes pages for an AI search or answer product (OAI-SearchBot).
    AiSearch,
    /// Fetches a page when a user of an AI product asks for it (ChatGPT-User).
    AiUserFetch,
    /// Not a crawler: a token whose only use is to opt out (Google-Extended).
    OptOutToken,
    /// SEO and commercial crawlers (AhrefsBot).
    Seo,
    /// A token its operator replaced (anthropic-ai).
    Legacy,
}

impl Category {
    /// Every category, in display order.
    pub const ALL: [Category; 7] = [
        Category::Search,
        Category::AiTraining,
        Category::AiSearch,
        Category::AiUserFetch,
        Category::OptOutToken,
        Category::Seo,
        Category::Legacy,
    ];

    /// The kebab-case name (`ai-training`).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::AiTraining => "ai-training",
            Category::AiSearch => "ai-search",
            Category::AiUserFetch => "ai-user-fetch",
            Category::OptOutToken => "opt-out-token",
            Category::Seo => "seo",
            Category::Legacy => "legacy",
        }
    }

    /// The RSL 1.0 use (§3.4.1) an agent of this category declares when
    /// it names none: `ai-training` crawls for `ai-train`, `ai-search`
    /// builds an index AI answers come from (`ai-index`), `ai-user-fetch`
    /// hands a page to a model answering its user (`ai-input`), `search`
    /// is `search`. Opt-out tokens fetch nothing; SEO crawlers' uses have
    /// no RSL token; a legacy token's successor is the agent to name.
    ///
    /// ```
    /// use webcanon_core::agents::{Category, registry};
    /// use webcanon_core::rsl::Usage;
    /// let gptbot = registry().get("GPTBot").unwrap();
    /// assert_eq!(gptbot.category.rsl_usage(), Some(Usage::AiTrain));
    /// assert_eq!(Category::Seo.rsl_usage(), None);
    /// ```
    pub fn rsl_usage(self) -> Option<crate::rsl::Usage> {
        use crate::rsl::Usage;
        match self {
            Category::Search => Some(Usage::Search),
            Category::AiTraining => Some(Usage::AiTrain),
            Category::AiSearch => Some(Usage::AiIndex),
            Category::AiUserFetch => Some(Usage::AiInput),
            Category::OptOutToken | Category::Seo | Category::Legacy => None,
        }
    }

    /// Whether agents of this category feed AI models or products.
    pub fn is_ai(self) -> bool {
        matches!(self, Category::AiTraining | Category::AiSearch | Category::AiUserFetch | Category::OptOutToken)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Category {
    type Err = String;

    fn from_str(s: &str) -> Result<Category, String> {
        Category::ALL.into_iter().find(|c| c.as_str().eq_ignore_ascii_case(s)).ok_or_else(|| {
            let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
            format!("unknown category `{s}`; expected one of {}", names.join(", "))
        })
    }
}

/// The agents most sites decide about, in this order: search crawlers, AI training crawlers (and Anthropic's legacy
/// token), AI search, live retrieval, the AI opt-out tokens. Presets are
/// written from this list, and reports show these agents whether a
/// robots.txt names them or not.
pub const WELL_KNOWN: &[&str] = &[
    "Googlebot",
    "Bingbot",
    "Applebot",
    "DuckDuckBot",
    "GPTBot",
    "ClaudeBot",
    "CCBot",
    "Bytespider",
    "meta-externalagent",
    "anthropic-ai",
    "OAI-SearchBot",
    "Claude-SearchBot",
    "PerplexityBot",
    "ChatGPT-User",
    "Claude-User",
    "Perplexity-User",
    "Google-Extended",
    "Applebot-Extended",
];

/// One known agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Agent {
    /// The robots.txt product token, as its operator writes it (`GPTBot`);
    /// every token of the shipped registry is a valid product token.
    pub token: &'static str,
    /// The part of the token robots.txt matching compares (`AI` for
    /// `AI2Bot`: crawlers read a `User-agent` value up to its first digit).
    pub product_token: &'static str,
    /// Who runs it (always named in the shipped registry: rows the data
    /// gives no operator for are left out, see `scripts/gen-agents.py`).
    pub operator: &'static str,
    /// What it does.
    pub category: Category,
    /// For a legacy token, the token that replaced it.
    pub successor: Option<&'static str>,
    /// A short description.
    pub description: &'static str,
    /// Where the facts come from.
    pub source: &'static str,
    /// The Web Bot Auth key directory its operator publishes (the public
    /// keys of the operator's signed requests), when a public source says
    /// there is one: a site can then verify requests that carry the
    /// operator's signature, rather than trust the `User-Agent`.
    pub key_directory: Option<&'static str>,
}

/// The registry: every known agent, looked up by product token.
#[derive(Debug)]
pub struct Registry {
    agents: Vec<Agent>,
    /// Each agent's product token lower-cased without `-`, `_` and spaces,
    /// for [`Registry::suggest`].
    squashed: Vec<Vec<u8>>,
}

const DATA: &str = include_str!("agents.tsv");

/// The registry shipped with this version.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry::parse(DATA))
}

fn product_token(token: &str) -> &str {
    let end = token.find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_')).unwrap_or(token.len());
    &token[..end]
}

impl Registry {
    fn parse(data: &'static str) -> Registry {
        let agents = data
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|line| {
                let mut f = line.split('\t');
                let token = f.next()?;
                let operator = f.next()?;
                let category = f.next()?.parse().ok()?;
                let successor = f.next().filter(|s| !s.is_empty());
                let description = f.next().unwrap_or("");
                let source = f.next().unwrap_or("");
                let key_directory = f.next().filter(|s| !s.is_empty());
                Some(Agent {
                    token,
                    product_token: product_token(token),
                    operator,
                    category,
                    successor,
                    description,
                    source,
                    key_directory,
                })
            })
            .collect::<Vec<Agent>>();
        let squashed = agents.iter().map(|a| squash(a.product_token)).collect();
        Registry { agents, squashed }
    }

    /// Every agent, curated ones first.
    pub fn all(&self) -> &[Agent] {
        &self.agents
    }

    /// The agent whose product token equals `token` (case-insensitively).
    pub fn get(&self, token: &str) -> Option<&Agent> {
        let token = product_token(token.trim());
        if token.is_empty() {
            return None;
        }
        self.agents.iter().find(|a| a.product_token.eq_ignore_ascii_case(token))
    }

    /// The agents of one category.
    pub fn by_category(&self, category: Category) -> impl Iterator<Item = &Agent> {
        self.agents.iter().filter(move |a| a.category == category)
    }

    /// The agents one operator runs (`OpenAI`), compared case-insensitively.
    pub fn by_operator<'a>(&'a self, operator: &'a str) -> impl Iterator<Item = &'a Agent> {
        self.agents.iter().filter(move |a| !a.operator.is_empty() && a.operator.eq_ignore_ascii_case(operator))
    }

    /// For an unknown token, the known one it is most likely a misspelling
    /// of (at most two edits, or equal once `-`, `_` and spaces are dropped).
    pub fn suggest(&self, token: &str) -> Option<&Agent> {
        if self.get(token).is_some() {
            return None;
        }
        let wanted = squash(token);
        if wanted.len() < 4 {
            return None;
        }
        let most = if wanted.len() < 7 { 1 } else { 2 };
        self.agents
            .iter()
            .zip(&self.squashed)
            // The distance is at least the difference in length: a token
            // far longer than any known one costs nothing to rule out.
            .filter(|(_, known)| known.len().abs_diff(wanted.len()) <= most)
            .map(|(a, known)| (edit_distance(&wanted, known), a))
            .filter(|(d, _)| *d <= most)
            .min_by_key(|(d, _)| *d)
            .map(|(_, a)| a)
    }
}

fn squash(token: &str) -> Vec<u8> {
    token.bytes().filter(|b| !matches!(b, b'-' | b'_' | b' ')).map(|b| b.to_ascii_lowercase()).collect()
}

/// Edit distance counting a swap of two neighbours as one edit (optimal
/// string alignment): `GTPBot` is one edit from `GPTBot`.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best =
                (d[(i - 1) * width + j] + 1).min(d[i * width + j - 1] + 1).min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_data_parses() {
        let lines = DATA.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).count();
        assert_eq!(registry().all().len(), lines);
        assert!(lines > 150);
    }

    #[test]
    fn lookups_by_token() {
        let cases = [
            ("GPTBot", Category::AiTraining, "OpenAI"),
            ("gptbot", Category::AiTraining, "OpenAI"),
            ("ChatGPT-User", Category::AiUserFetch, "OpenAI"),
            ("OAI-SearchBot", Category::AiSearch, "OpenAI"),
            ("ClaudeBot", Category::AiTraining, "Anthropic"),
            ("Claude-User", Category::AiUserFetch, "Anthropic"),
            ("anthropic-ai", Category::Legacy, "Anthropic"),
            ("Google-Extended", Category::OptOutToken, "Google"),
            ("Applebot-Extended", Category::OptOutToken, "Apple"),
            ("Googlebot", Category::Search, "Google"),
            ("Googlebot/2.1", Category::Search, "Google"),
            ("Screaming", Category::Seo, "Screaming Frog"),
            ("PerplexityBot", Category::AiSearch, "Perplexity"),
            ("Perplexity-User", Category::AiUserFetch, "Perplexity"),
        ];
        for (token, category, operator) in cases {
            let agent = registry().get(token).unwrap_or_else(|| panic!("{token} missing"));
            assert_eq!((agent.category, agent.operator), (category, operator), "{token}");
        }
        assert!(registry().get("NoSuchBot").is_none());
        assert!(registry().get("*").is_none());
    }

    #[test]
    fn legacy_tokens_name_their_successors() {
        assert_eq!(registry().get("anthropic-ai").unwrap().successor, Some("ClaudeBot"));
        for agent in registry().by_category(Category::Legacy) {
            let successor = agent.successor.expect("legacy tokens have successors");
            assert!(registry().get(successor).is_some(), "{successor} is known");
        }
    }

    #[test]
    fn misspellings_get_suggestions() {
        let cases = [
            ("GTPBot", "GPTBot"),
            ("ClaudBot", "ClaudeBot"),
            ("Google_Extended", "Google-Extended"),
            ("ChatGPTUser", "ChatGPT-User"),
        ];
        for (typo, meant) in cases {
            assert_eq!(registry().suggest(typo).map(|a| a.token), Some(meant), "{typo}");
        }
        assert!(registry().suggest("GPTBot").is_none(), "known tokens get no suggestion");
        assert!(registry().suggest("MyOwnCrawler").is_none());
    }

    #[test]
    fn operators_group_their_agents() {
        let openai: Vec<&str> = registry().by_operator("openai").map(|a| a.token).collect();
        for token in ["GPTBot", "OAI-SearchBot", "ChatGPT-User"] {
            assert!(openai.contains(&token), "{openai:?}");
        }
    }

    #[test]
    fn categories_parse() {
        assert_eq!("ai-user-fetch".parse::<Category>(), Ok(Category::AiUserFetch));
        assert!("robots".parse::<Category>().unwrap_err().contains("ai-training"));
    }
}
