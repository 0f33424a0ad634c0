//! Continuation tokens of the `map` and `crawl` tools: a call that leaves
//! records unread answers with a token, and the next call with it reads
//! on from there.
//!
//! A token is 128 random bits in hexadecimal, which the server maps to a
//! job and a position in its results; nothing can be read out of a token,
//! and one session cannot guess another's. At most [`MAX_TOKENS`] are kept
//! by the server, each for [`TOKEN_TTL`], the oldest dropped first; a token
//! stays valid until then (calling again with the same token reads the
//! same records again).

use std::sync::Arc;
use std::time::Duration;

use webcanon_jobs::JobId;

use crate::refusal::Failure;
use crate::ttl_cache::TtlCache;

/// How long a token stays valid after it was handed out.
pub const TOKEN_TTL: Duration = Duration::from_secs(30 * 60);
/// The most tokens the server keeps, all sessions together.
pub const MAX_TOKENS: usize = 4_096;
/// The bytes of randomness in a token.
const TOKEN_BYTES: usize = 16;

/// Which tool a job belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JobTool {
    /// `map`.
    Map,
    /// `crawl`.
    Crawl,
}

impl JobTool {
    /// The tool's name, which is also the job's kind.
    pub fn name(self) -> &'static str {
        match self {
            JobTool::Map => "map",
            JobTool::Crawl => "crawl",
        }
    }
}

/// Where a token continues: a job of a tool and the cursor of its next
/// record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Continuation {
    /// The tool that started the job.
    pub tool: JobTool,
    /// The job.
    pub job: JobId,
    /// The cursor of the next record in the job's results.
    pub cursor: u64,
}

/// The tokens handed out; see the module documentation.
#[derive(Debug)]
pub(crate) struct Continuations {
    tokens: TtlCache<String, Continuation>,
}

impl Continuations {
    /// No tokens yet.
    pub fn new() -> Continuations {
        Continuations { tokens: TtlCache::new(TOKEN_TTL, MAX_TOKENS, MAX_TOKENS) }
    }

    /// A new token for `continuation`.
    pub fn issue(&self, continuation: Continuation) -> Result<String, Failure> {
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes)
            .map_err(|e| Failure::server("fetch", format!("No continuation token could be drawn: {e}.")))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.tokens.put(token.clone(), Arc::new(continuation), 1);
        Ok(token)
    }

    /// Where `token` continues, for a call of `tool`; a usage failure for a
    /// token that is malformed, unknown, expired or another tool's.
    pub fn resolve(&self, token: &str, tool: JobTool) -> Result<Continuation, Failure> {
        let token = token.trim();
        let well_formed =
            token.len() == TOKEN_BYTES * 2 && token.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !well_formed {
            let shown: String = token.chars().take(40).collect();
            return Err(Failure::usage(
                format!("`{shown}` is not a continuation token: pass the `continuation` of the previous result as is"),
                None,
            ));
        }
        let Some((continuation, _)) = self.tokens.get(&token.to_string()) else {
            return Err(Failure::usage(
                format!(
                    "continuation token {token} is unknown or expired (tokens last {} minutes); call {} without \
                     `continuation` to start again",
                    TOKEN_TTL.as_secs() / 60,
                    tool.name()
                ),
                None,
            ));
        };
        if continuation.tool != tool {
            return Err(Failure::usage(
                format!(
                    "continuation token {token} continues a {} job: call {} with it",
                    continuation.tool.name(),
                    continuation.tool.name()
                ),
                None,
            ));
        }
        Ok(continuation.as_ref().clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn continuation(tool: JobTool) -> Continuation {
        Continuation { tool, job: "0123456789abcdef0123456789abcdef".parse().unwrap(), cursor: 42 }
    }

    #[test]
    fn tokens_resolve_to_what_they_were_issued_for_and_nothing_else() {
        let tokens = Continuations::new();
        let token = tokens.issue(continuation(JobTool::Map)).unwrap();
        assert_ne!(token, tokens.issue(continuation(JobTool::Map)).unwrap(), "each token is new");
        assert_eq!(tokens.resolve(&token, JobTool::Map).unwrap(), continuation(JobTool::Map));
        assert_eq!(tokens.resolve(&token, JobTool::Map).unwrap().cursor, 42, "a token can be used again");
        let rows = [
            (token.clone(), JobTool::Crawl, "continues a map job"),
            ("ffffffffffffffffffffffffffffffff".to_string(), JobTool::Map, "unknown or expired"),
            ("../../etc/passwd".to_string(), JobTool::Map, "not a continuation token"),
            ("x".repeat(100_000), JobTool::Map, "not a continuation token"),
            (String::new(), JobTool::Crawl, "not a continuation token"),
        ];
        for (given, tool, says) in rows {
            let failure = tokens.resolve(&given, tool).unwrap_err();
            assert!(failure.text.contains(says), "{}: {}", &given[..given.len().min(40)], failure.text);
            assert!(failure.text.len() < 300, "the message stays short: {}", failure.text.len());
        }
    }

    #[test]
    fn tokens_are_bounded_in_number_and_expire() {
        let tokens = Continuations::new();
        let first = tokens.issue(continuation(JobTool::Crawl)).unwrap();
        for _ in 0..MAX_TOKENS {
            tokens.issue(continuation(JobTool::Crawl)).unwrap();
        }
        assert!(tokens.resolve(&first, JobTool::Crawl).is_err(), "the oldest token goes past the bound");
        let short = Continuations { tokens: TtlCache::new(Duration::ZERO, MAX_TOKENS, MAX_TOKENS) };
        let token = short.issue(continuation(JobTool::Map)).unwrap();
        assert!(short.resolve(&token, JobTool::Map).unwrap_err().text.contains("expired"));
    }
}
