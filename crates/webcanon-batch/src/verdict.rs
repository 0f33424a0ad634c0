//! The verdict pass: URLs in, one verdict row per URL out, from a robots
//! snapshot, offline.
//!
//! Each URL is parsed as the live client parses it, its origin looked up in
//! the snapshot, and the verdict taken from the core's
//! [`webcanon_core::policy::decide`], the function the live client uses, so
//! a row says what `Client::check` would say for the same robots outcome.
//!
//! Rows that have no robots outcome in the live sense:
//!
//! | case | `verdict` | `allowed` | `robots_status` |
//! |---|---|---|---|
//! | the URL does not parse, or is not http(s) with a host | `invalid_url` (with `error`) | false | null |
//! | the origin is not in the snapshot | `unknown_unreachable` | false under `respect` | `missing` |
//! | the SSRF guard refused the origin | `unknown_unreachable` | false in every mode | `refused` |
//! | mode `ignore` | `skipped_by_user_policy` | true | null |
//!
//! `allowed` is whether the URL may be fetched under the mode: false for
//! `disallowed_explicit` and `unknown_unreachable` under `respect`, true
//! otherwise (but never for an invalid or refused URL).

use std::sync::{Arc, LazyLock, OnceLock};

use arrow::array::{Array, ArrayRef, BooleanBuilder, StringArray, StringBuilder, UInt32Builder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use webcanon_client::agent::ProductToken;
use webcanon_core::policy::{FetchRecommendation, RobotsAvailability, RobotsMode, Verdict};
use webcanon_core::robots::{AgentRules, Robots};

use crate::BatchError;
use crate::origin::{canonical_origin_len, parse_url, write_origin};
use crate::snapshot::Snapshot;

/// The `verdict` of a URL that cannot be decided.
pub const INVALID_URL: &str = "invalid_url";
/// The `robots_status` of an origin absent from the snapshot.
pub const MISSING: &str = "missing";

static OUTPUT_SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, true),
        Field::new("origin", DataType::Utf8, true),
        Field::new("allowed", DataType::Boolean, false),
        Field::new("verdict", DataType::Utf8, false),
        Field::new("recommendation", DataType::Utf8, true),
        Field::new("rule_line", DataType::UInt32, true),
        Field::new("rule_pattern", DataType::Utf8, true),
        Field::new("robots_status", DataType::Utf8, true),
        Field::new("error", DataType::Utf8, true),
    ]))
});

/// The verdict of one URL, owned (see [`VerdictPass::decide_one`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlVerdict {
    /// The origin, `None` for an invalid URL.
    pub origin: Option<String>,
    /// Whether the URL may be fetched under the mode.
    pub allowed: bool,
    /// The verdict's name (`allowed_explicit`, …, or `invalid_url`).
    pub verdict: String,
    /// The recommendation, `None` for an invalid URL.
    pub recommendation: Option<FetchRecommendation>,
    /// The line of the rule that decided.
    pub rule_line: Option<u32>,
    /// The pattern of the rule that decided, as written.
    pub rule_pattern: Option<String>,
    /// The HTTP status or class of the robots.txt outcome.
    pub robots_status: Option<String>,
    /// Why the URL is invalid.
    pub error: Option<String>,
}

/// One row, borrowed from the pass and the input.
struct Row<'a> {
    origin: Option<&'a str>,
    allowed: bool,
    verdict: &'static str,
    recommendation: Option<FetchRecommendation>,
    rule: Option<(u32, &'a str)>,
    robots_status: Option<&'a str>,
    error: Option<String>,
}

/// Decides URLs for one agent and mode from a [`Snapshot`]. Cheap to share
/// between threads: each origin's rules are parsed and compiled for the
/// agent on first use, once.
#[derive(Debug)]
pub struct VerdictPass {
    snapshot: Arc<Snapshot>,
    agent: ProductToken,
    mode: RobotsMode,
    rules: Vec<OnceLock<Option<AgentRules>>>,
}

impl VerdictPass {
    /// A pass deciding for the product token `agent` under `mode`.
    pub fn new(snapshot: Arc<Snapshot>, agent: ProductToken, mode: RobotsMode) -> VerdictPass {
        let rules = (0..snapshot.len()).map(|_| OnceLock::new()).collect();
        VerdictPass { snapshot, agent, mode, rules }
    }

    /// The schema of [`VerdictPass::decide`]'s batches: `url`, `origin`,
    /// `allowed`, `verdict`, `recommendation`, `rule_line`, `rule_pattern`,
    /// `robots_status`, `error`.
    pub fn output_schema() -> SchemaRef {
        OUTPUT_SCHEMA.clone()
    }

    /// The snapshot decided from.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snapshot
    }

    /// The agent's product token.
    pub fn agent(&self) -> &str {
        self.agent.as_str()
    }

    /// The robots mode.
    pub fn mode(&self) -> RobotsMode {
        self.mode
    }

    /// One output row per input URL, in order, schema
    /// [`VerdictPass::output_schema`]. A null URL is an invalid URL.
    pub fn decide(&self, urls: &StringArray) -> Result<RecordBatch, BatchError> {
        let n = urls.len();
        let text_bytes = urls.value_data().len();
        let mut url = StringBuilder::with_capacity(n, text_bytes);
        let mut origin = StringBuilder::with_capacity(n, text_bytes / 2);
        let mut allowed = BooleanBuilder::with_capacity(n);
        let mut verdict = StringBuilder::with_capacity(n, n * 16);
        let mut recommendation = StringBuilder::with_capacity(n, n * 12);
        let mut rule_line = UInt32Builder::with_capacity(n);
        let mut rule_pattern = StringBuilder::with_capacity(n, n * 4);
        let mut robots_status = StringBuilder::with_capacity(n, n * 3);
        let mut error = StringBuilder::new();
        let mut buffer = String::with_capacity(64);
        for i in 0..n {
            let input = urls.is_valid(i).then(|| urls.value(i));
            url.append_option(input);
            let row = match input {
                Some(text) => self.row(text, &mut buffer),
                None => Row::invalid("no URL (null)".into()),
            };
            let origin_text = row.origin.map(|_| buffer.as_str());
            origin.append_option(origin_text);
            allowed.append_value(row.allowed);
            verdict.append_value(row.verdict);
            recommendation.append_option(row.recommendation.map(FetchRecommendation::as_str));
            rule_line.append_option(row.rule.map(|r| r.0));
            rule_pattern.append_option(row.rule.map(|r| r.1));
            robots_status.append_option(row.robots_status);
            error.append_option(row.error);
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(url.finish()),
            Arc::new(origin.finish()),
            Arc::new(allowed.finish()),
            Arc::new(verdict.finish()),
            Arc::new(recommendation.finish()),
            Arc::new(rule_line.finish()),
            Arc::new(rule_pattern.finish()),
            Arc::new(robots_status.finish()),
            Arc::new(error.finish()),
        ];
        RecordBatch::try_new(Self::output_schema(), columns).map_err(|e| BatchError::arrow("building verdict rows", e))
    }

    /// The verdict of one URL.
    pub fn decide_one(&self, url: &str) -> UrlVerdict {
        let mut buffer = String::new();
        let row = self.row(url, &mut buffer);
        UrlVerdict {
            origin: row.origin.map(|_| buffer.clone()),
            allowed: row.allowed,
            verdict: row.verdict.to_string(),
            recommendation: row.recommendation,
            rule_line: row.rule.map(|r| r.0),
            rule_pattern: row.rule.map(|r| r.1.to_string()),
            robots_status: row.robots_status.map(str::to_string),
            error: row.error,
        }
    }

    /// Decides `input`; its origin is left in `origin` (when it has one).
    #[inline]
    fn row<'s>(&'s self, input: &str, origin: &mut String) -> Row<'s> {
        // Most URLs in a dataset are already in canonical form: then the
        // text is the parsed URL and its origin a prefix of it.
        let parsed;
        let url = match canonical_origin_len(input) {
            Some(len) => {
                origin.clear();
                origin.push_str(&input[..len]);
                input
            }
            None => {
                parsed = match parse_url(input) {
                    Ok(url) => url,
                    Err(reason) => return Row::invalid(reason),
                };
                write_origin(&parsed, origin);
                parsed.as_str()
            }
        };
        if self.mode == RobotsMode::Ignore {
            // robots.txt is not consulted, but the SSRF guard still is: an
            // origin it refused is never fetched, whatever the mode.
            if let Some(position) = self.snapshot.position(origin) {
                let indexed = self.snapshot.indexed(position);
                if indexed.availability.is_none() {
                    return Row::fixed(Verdict::UnknownUnreachable, false, Some(&*indexed.robots_status));
                }
            }
            return Row::fixed(Verdict::SkippedByUserPolicy, true, None);
        }
        let Some(position) = self.snapshot.position(origin) else {
            let verdict = Verdict::UnknownUnreachable;
            return Row::fixed(verdict, !self.mode.blocks(verdict), Some(MISSING));
        };
        let indexed = self.snapshot.indexed(position);
        let status = Some(&*indexed.robots_status);
        let Some(availability) = indexed.availability else {
            return Row::fixed(Verdict::UnknownUnreachable, false, status);
        };
        let rules = if availability == RobotsAvailability::Parsed {
            self.rules[position as usize]
                .get_or_init(|| indexed.entry.body.as_deref().map(|body| Robots::parse(body).rules_for(&self.agent)))
                .as_ref()
        } else {
            None
        };
        let (verdict, rule) = webcanon_core::policy::decide(availability, rules, url);
        Row {
            origin: Some(""),
            allowed: !self.mode.blocks(verdict),
            verdict: verdict.as_str(),
            recommendation: Some(verdict.recommendation()),
            rule: rule.map(|r| (r.line, r.pattern)),
            robots_status: status,
            error: None,
        }
    }
}

impl Row<'_> {
    fn invalid(reason: String) -> Row<'static> {
        Row {
            origin: None,
            allowed: false,
            verdict: INVALID_URL,
            recommendation: None,
            rule: None,
            robots_status: None,
            error: Some(reason),
        }
    }

    fn fixed<'a>(verdict: Verdict, allowed: bool, robots_status: Option<&'a str>) -> Row<'a> {
        Row {
            origin: Some(""),
            allowed,
            verdict: verdict.as_str(),
            recommendation: Some(verdict.recommendation()),
            rule: None,
            robots_status,
            error: None,
        }
    }
}
