//! IETF AI preferences: a statement of preference (`train-ai=n, search=y`)
//! read exactly as the vocabulary draft says.
//!
//! Follows draft-ietf-aipref-vocab-07 (19 August 2026):
//! - the labels are `train-ai` (§4.1, AI Model Training) and `search`
//!   (§4.2), case-sensitive (§6.1); every other label is ignored (§6.4);
//! - a statement is a Structured Fields Dictionary (RFC 9651 §3.2) parsed
//!   as bytes (§6.5); a value is `allowed` only for the Token `y`,
//!   `disallowed` only for the Token `n`; any other value (a String `"n"`,
//!   a Token `N`, a Boolean) leaves the category `unknown` (§6.5), as does
//!   an absent label; parameters are ignored (§6.5.2); a label given
//!   twice keeps its last value (§6.5.1);
//! - a statement that does not parse as a Dictionary (a key in upper case,
//!   a byte outside ASCII) is unreadable: every category is `unknown`
//!   (§6.5.1), and the caller says so;
//! - several statements combine per category, the most restrictive winning
//!   (§5.1): any `disallowed` gives `disallowed`, else any `allowed` gives
//!   `allowed`, else `unknown`.

use std::fmt;

/// The categories of use of the vocabulary (§4), each with its label (§6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum UsageCategory {
    /// AI Model Training (§4.1), label `train-ai`.
    TrainAi,
    /// Search (§4.2), label `search`.
    Search,
}

impl UsageCategory {
    /// Every category of the vocabulary, in the draft's order.
    pub const ALL: [UsageCategory; 2] = [UsageCategory::TrainAi, UsageCategory::Search];

    /// The category's label (§6.1, Table 1).
    pub const fn label(self) -> &'static str {
        match self {
            UsageCategory::TrainAi => "train-ai",
            UsageCategory::Search => "search",
        }
    }
}

impl fmt::Display for UsageCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The preference for one category (§3): allowed, disallowed or unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Preference {
    /// The Token `y`.
    Allowed,
    /// The Token `n`.
    Disallowed,
    /// No statement about the category, or one that is not `y` or `n`.
    #[default]
    Unknown,
}

impl Preference {
    /// The most restrictive of two preferences (§5.1).
    pub const fn combine(self, other: Preference) -> Preference {
        match (self, other) {
            (Preference::Disallowed, _) | (_, Preference::Disallowed) => Preference::Disallowed,
            (Preference::Allowed, _) | (_, Preference::Allowed) => Preference::Allowed,
            _ => Preference::Unknown,
        }
    }
}

/// A statement of preference: one value per category of the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UsageStatement {
    /// `train-ai`.
    pub train_ai: Preference,
    /// `search`.
    pub search: Preference,
}

/// A statement that does not parse as a Structured Fields Dictionary: every
/// category is unknown (vocab §6.5.1). The text says what the parser found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableStatement {
    /// What is wrong, in the Structured Fields parser's words.
    pub reason: String,
}

impl fmt::Display for UnreadableStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unreadable statement of preference ({}): every category is unknown", self.reason)
    }
}

impl std::error::Error for UnreadableStatement {}

impl UsageStatement {
    /// Reads a statement of preference from its bytes (vocab §6.5).
    ///
    /// ```
    /// use webcanon_core::signals::{Preference, UsageStatement};
    ///
    /// let statement = UsageStatement::parse(b"train-ai=n, search=y").unwrap();
    /// assert_eq!(statement.train_ai, Preference::Disallowed);
    /// assert_eq!(statement.search, Preference::Allowed);
    /// // A String "n" is not the Token n: unknown, not a refusal.
    /// assert_eq!(UsageStatement::parse(br#"train-ai="n""#).unwrap().train_ai, Preference::Unknown);
    /// // Keys are case-sensitive: an upper-case key makes the Dictionary unreadable.
    /// assert!(UsageStatement::parse(b"Train-AI=n").is_err());
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<UsageStatement, UnreadableStatement> {
        let dictionary =
            sfv::Parser::new(bytes).parse_dictionary().map_err(|e| UnreadableStatement { reason: e.to_string() })?;
        let preference = |category: UsageCategory| match dictionary.get(category.label()) {
            Some(sfv::ListEntry::Item(item)) => match item.bare_item.as_token().map(|t| t.as_str()) {
                Some("y") => Preference::Allowed,
                Some("n") => Preference::Disallowed,
                _ => Preference::Unknown,
            },
            _ => Preference::Unknown,
        };
        Ok(UsageStatement { train_ai: preference(UsageCategory::TrainAi), search: preference(UsageCategory::Search) })
    }

    /// Reads a statement, unknown in every category when it is unreadable.
    pub fn parse_or_unknown(bytes: &[u8]) -> UsageStatement {
        UsageStatement::parse(bytes).unwrap_or_default()
    }

    /// The preference for `category`.
    pub const fn get(&self, category: UsageCategory) -> Preference {
        match category {
            UsageCategory::TrainAi => self.train_ai,
            UsageCategory::Search => self.search,
        }
    }

    /// The statements combined, category by category, the most restrictive
    /// winning (vocab §5.1).
    pub const fn combine(self, other: UsageStatement) -> UsageStatement {
        UsageStatement { train_ai: self.train_ai.combine(other.train_ai), search: self.search.combine(other.search) }
    }

    /// The categories the statement disallows, in the draft's order.
    pub fn disallowed(&self) -> impl Iterator<Item = UsageCategory> + '_ {
        UsageCategory::ALL.into_iter().filter(|c| self.get(*c) == Preference::Disallowed)
    }

    /// Whether every category is unknown.
    pub fn is_unknown(&self) -> bool {
        UsageCategory::ALL.into_iter().all(|c| self.get(c) == Preference::Unknown)
    }
}

/// Reads the `Content-Usage` header of a response (draft-ietf-aipref-attach-05
/// §2): a Dictionary, whose field lines combine into one value before
/// parsing (RFC 9651 §4.2), so a label repeated on a later line replaces
/// the earlier one (vocab §6.5.1).
pub fn parse_content_usage_header<'a>(
    lines: impl IntoIterator<Item = &'a str>,
) -> Result<UsageStatement, UnreadableStatement> {
    let combined: Vec<&str> = lines.into_iter().collect();
    UsageStatement::parse(combined.join(", ").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::Preference::{Allowed, Disallowed, Unknown};
    use super::*;

    fn read(text: &str) -> (Preference, Preference) {
        let s = UsageStatement::parse(text.as_bytes()).unwrap();
        (s.train_ai, s.search)
    }

    /// The vocabulary draft's own examples, each with its section.
    #[test]
    fn the_vocabulary_drafts_examples() {
        // vocab-07 §6: "the following states a preference to allow model
        // training, disallow search, with the preference for other
        // categories being unknown: train-ai=y, search=n".
        assert_eq!(read("train-ai=y, search=n"), (Allowed, Disallowed));
        // vocab-07 §6.5.1: "the following results in all preferences being
        // unknown, because the type of the parameter values (a boolean and
        // a string respectively) are not tokens".
        assert_eq!(read(r#"train-ai=y, train-ai, search=n, search="n""#), (Unknown, Unknown));
        // vocab-07 §6.5.2: "the following preference carries no parameters,
        // and a preference to allow the usage: train-ai;allow=n, train-ai=y".
        assert_eq!(read("train-ai;allow=n, train-ai=y"), (Allowed, Unknown));
        // vocab-07 §6.5.2: "the following train-ai preference has parameters
        // even though the preference is unknown: train-ai;has;parameters="?";"
        // As printed, the trailing `;` is not Dictionary syntax (RFC 9651
        // §4.2.2: a parameter needs a key), so it parses as unreadable;
        // without it the preference is unknown, as the draft says.
        assert!(UsageStatement::parse(br#"train-ai;has;parameters="?";"#).is_err());
        assert_eq!(read(r#"train-ai;has;parameters="?""#), (Unknown, Unknown));
        // vocab-07 §6.5.1: "If the parsing of the Dictionary fails,
        // preferences are unknown. This includes where keys include
        // uppercase characters".
        assert!(UsageStatement::parse(b"TRAIN-AI=n").is_err());
        // attach-05 §1.2 (the header and robots.txt examples): train-ai=n.
        assert_eq!(read("train-ai=n"), (Disallowed, Unknown));
    }

    #[test]
    fn values_other_than_the_tokens_y_and_n_are_unknown() {
        let rows: &[(&str, (Preference, Preference))] = &[
            ("train-ai=N", (Unknown, Unknown)),
            (r#"train-ai="N""#, (Unknown, Unknown)),
            ("train-ai=no", (Unknown, Unknown)),
            ("train-ai=?0", (Unknown, Unknown)),
            ("train-ai=1", (Unknown, Unknown)),
            ("train-ai=(n)", (Unknown, Unknown)),
            ("train-genai=n, ai-use=n, search=y", (Unknown, Allowed)),
            ("", (Unknown, Unknown)),
            ("search=n, search=y", (Unknown, Allowed)),
        ];
        for (text, expected) in rows {
            assert_eq!(read(text), *expected, "{text:?}");
        }
        for unreadable in ["Train-AI=n", "train-ai=n,", "train-ai=n search=n", "trаin-ai=n", "train-ai=\"n"] {
            assert!(UsageStatement::parse(unreadable.as_bytes()).is_err(), "{unreadable:?}");
        }
    }

    #[test]
    fn statements_combine_most_restrictive_first() {
        let a = UsageStatement::parse(b"train-ai=y, search=y").unwrap();
        let b = UsageStatement::parse(b"train-ai=n").unwrap();
        let c = UsageStatement::default();
        assert_eq!(a.combine(b), UsageStatement { train_ai: Disallowed, search: Allowed });
        assert_eq!(c.combine(c), c);
        assert_eq!(c.combine(a), a);
        assert_eq!(a.combine(b).disallowed().collect::<Vec<_>>(), [UsageCategory::TrainAi]);
    }

    #[test]
    fn header_lines_combine_into_one_dictionary() {
        let s = parse_content_usage_header(["train-ai=n", "train-ai=y, search=n"]).unwrap();
        assert_eq!((s.train_ai, s.search), (Allowed, Disallowed));
        assert!(parse_content_usage_header(["train-ai=n", "Search=n"]).is_err());
    }

    /// A statement of 100,000 members reads in time and memory linear in its
    /// length, and its verdict is still exact.
    #[test]
    fn a_statement_of_100000_members_is_read_linearly() {
        let members: Vec<String> = (0..100_000).map(|i| format!("x{i}=n")).collect();
        let text = format!("{}, train-ai=n", members.join(", "));
        let started = std::time::Instant::now();
        let statement = UsageStatement::parse(text.as_bytes()).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(statement.train_ai, Disallowed);
        assert!(elapsed < std::time::Duration::from_secs(2), "{elapsed:?} for {} bytes", text.len());
        // Twice the members, at most about twice the time (plus noise).
        let double = format!("{}, {text}", members.join(", "));
        let started = std::time::Instant::now();
        assert_eq!(UsageStatement::parse(double.as_bytes()).unwrap().train_ai, Disallowed);
        assert!(started.elapsed() < elapsed * 4 + std::time::Duration::from_millis(50), "not linear");
    }
}
