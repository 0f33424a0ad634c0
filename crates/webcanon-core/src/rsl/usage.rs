//! The usage vocabulary of `<permits type="usage">` and
//! `<prohibits type="usage">` (RSL 1.0 §3.4.1), and its hierarchy.

use std::fmt;
use std::str::FromStr;

/// A usage token of RSL 1.0 (§3.4.1, "Usage and User Classification
/// Vocabularies"). `all` covers every other token; `ai-all` covers the
/// three AI uses (`ai-train`, `ai-input`, `ai-index`); `search` is not an
/// AI use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum Usage {
    /// `all`: any automated processing.
    All,
    /// `ai-all`: every AI use (`ai-train`, `ai-input`, `ai-index`).
    AiAll,
    /// `ai-train`: training or fine-tuning AI models.
    AiTrain,
    /// `ai-input`: content given to an AI model as input at answer time
    /// (retrieval-augmented generation, grounding, agents acting for a user).
    AiInput,
    /// `ai-index`: building an index that AI applications answer from.
    AiIndex,
    /// `search`: building a search index and showing links and excerpts.
    Search,
}

impl Usage {
    /// Every token, broadest first.
    pub const ALL: &'static [Usage] =
        &[Usage::All, Usage::AiAll, Usage::AiTrain, Usage::AiInput, Usage::AiIndex, Usage::Search];

    /// The token as RSL spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Usage::All => "all",
            Usage::AiAll => "ai-all",
            Usage::AiTrain => "ai-train",
            Usage::AiInput => "ai-input",
            Usage::AiIndex => "ai-index",
            Usage::Search => "search",
        }
    }

    /// Whether a permission or prohibition of `self` applies to every use
    /// `other` names: `all` covers everything, `ai-all` the AI uses and
    /// itself, a narrow token only itself.
    pub fn covers(self, other: Usage) -> bool {
        match self {
            Usage::All => true,
            Usage::AiAll => matches!(other, Usage::AiAll | Usage::AiTrain | Usage::AiInput | Usage::AiIndex),
            narrow => narrow == other,
        }
    }

    /// Whether the two name any use in common: one covers the other. A
    /// prohibition of `ai-train` concerns an agent that declares `ai-all`.
    pub fn overlaps(self, other: Usage) -> bool {
        self.covers(other) || other.covers(self)
    }

    /// The RSL 1.0 token a pre-1.0 draft spelling stood for (`train-ai` is
    /// `ai-train`), for lint hints; `None` for anything else.
    pub fn from_draft_spelling(token: &str) -> Option<Usage> {
        match token {
            "train-ai" | "train-genai" => Some(Usage::AiTrain),
            "ai-use" | "ai-summarize" => Some(Usage::AiInput),
            _ => None,
        }
    }
}

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A token that is not in the RSL 1.0 usage vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownUsage(pub String);

impl fmt::Display for UnknownUsage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown RSL usage `{}` (expected one of all, ai-all, ai-train, ai-input, ai-index, search)", self.0)
    }
}

impl std::error::Error for UnknownUsage {}

impl FromStr for Usage {
    type Err = UnknownUsage;

    /// Parses a token exactly as RSL 1.0 spells it (lower case).
    fn from_str(token: &str) -> Result<Usage, UnknownUsage> {
        Usage::ALL.iter().copied().find(|u| u.as_str() == token).ok_or_else(|| UnknownUsage(token.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchy_table() {
        use Usage::*;
        // (broader, narrower, covers?)
        let cases = [
            (All, Search, true),
            (All, AiTrain, true),
            (All, AiAll, true),
            (AiAll, AiTrain, true),
            (AiAll, AiInput, true),
            (AiAll, AiIndex, true),
            (AiAll, Search, false),
            (AiAll, All, false),
            (AiTrain, AiTrain, true),
            (AiTrain, AiAll, false),
            (AiTrain, AiInput, false),
            (Search, AiIndex, false),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.covers(b), want, "{a} covers {b}");
        }
        assert!(AiTrain.overlaps(AiAll));
        assert!(!AiTrain.overlaps(Search));
    }

    #[test]
    fn tokens_round_trip_and_draft_spellings_are_not_tokens() {
        for usage in Usage::ALL {
            assert_eq!(usage.as_str().parse::<Usage>(), Ok(*usage));
        }
        assert!("train-ai".parse::<Usage>().is_err());
        assert_eq!(Usage::from_draft_spelling("train-ai"), Some(Usage::AiTrain));
        assert!("AI-TRAIN".parse::<Usage>().is_err());
    }
}
