//! One record per document, for datasets and crawls: [`PageRecord`].
//!
//! A [`FetchResult`] answers one call; a dataset needs one flat, stable
//! record per URL, fetched or not, that says what was fetched, what the
//! site asked for it (the robots verdict with its rule, and every usage
//! signal the document carried) and, when nothing was fetched, why. The
//! crawl and the batch content pass write the same record, so one reader
//! filters both.
//!
//! The content hash ([`ContentHash`]) is XXH3-64 of the content with its
//! whitespace normalised: pages that differ only in spacing or line
//! breaks hash alike, which is what de-duplication by text wants.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use webcanon_core::policy::{FetchRecommendation, RobotsEvidence, RuleEvidence, Verdict};

use crate::client::FetchResult;
use crate::error::{Error, FetchError};
use crate::warning::Warning;

/// What is known of one URL of a dataset or a crawl: the page when it was
/// fetched, the reason when it was not.
///
/// A record has content exactly when [`PageRecord::not_fetched`] is
/// `None`. The robots fields are set whenever the verdict is known, for a
/// refused URL too.
///
/// ```
/// use webcanon_client::{NotFetchedReason, PageRecord};
///
/// let record = PageRecord::not_fetched("https://example.com/private", NotFetchedReason::Disallowed);
/// let json = serde_json::to_value(&record)?;
/// assert_eq!(json["not_fetched"], "disallowed");
/// assert_eq!(json["content"], serde_json::Value::Null);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct PageRecord {
    /// The URL asked for, as the dataset or the crawl frontier gave it.
    pub requested_url: String,
    /// Where the request ended after redirects; `None` when nothing was
    /// fetched.
    pub final_url: Option<String>,
    /// The page's canonical URL (`rel=canonical` link or `Link` header).
    pub canonical_url: Option<String>,
    /// The final HTTP status, when an answer came (an error status too).
    pub status: Option<u16>,
    /// The `Content-Type` of the answer.
    pub content_type: Option<String>,
    /// What robots.txt says about the requested URL for the agent; `None`
    /// when the URL never reached the robots decision (out of scope, a
    /// limit, an invalid URL).
    pub verdict: Option<Verdict>,
    /// What a well-behaved agent should do, from the verdict.
    pub recommendation: Option<FetchRecommendation>,
    /// The robots.txt rule that decided the verdict: its line, directive
    /// and pattern.
    pub rule: Option<RuleEvidence>,
    /// Every usage signal of the document, from robots.txt
    /// (`Content-Signal`, `Content-Usage`), the answer's headers
    /// (`X-Robots-Tag`, `Content-Usage`, TDMRep, `Link` to a license), the
    /// page (meta robots `noai`/`noimageai`, TDMRep, RSL links) and the
    /// fetch itself (a truncated body): the client's warnings, whole.
    pub warnings: Vec<Warning>,
    /// The page title, when there is one.
    pub title: Option<String>,
    /// What the page says about itself (authors, dates, language, site
    /// name, description, …); `None` when nothing was fetched.
    pub metadata: Option<crate::Metadata>,
    /// The content in the format asked for (Markdown by default); `None`
    /// when nothing was fetched.
    pub content: Option<String>,
    /// XXH3-64 of the content with its whitespace normalised; `None` when
    /// there is no content.
    pub content_hash: Option<ContentHash>,
    /// When the fetch finished or failed, UTC (RFC 3339 in JSON); `None`
    /// when nothing was requested.
    pub fetched_at: Option<DateTime<Utc>>,
    /// The size of the body received, after decompression (at most the
    /// fetch's byte limit).
    pub bytes: Option<u64>,
    /// Why the page was not fetched or has no content; `None` for a page
    /// with content.
    pub not_fetched: Option<NotFetchedReason>,
    /// What went wrong, in words, for a refusal or a failure.
    pub error: Option<String>,
    /// The crawl depth of the URL (0 for a start URL); absent outside a
    /// crawl.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The page whose link led to the URL; absent outside a crawl and for
    /// a start URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

impl PageRecord {
    /// The record of a fetched page, stamped with the current time.
    pub fn from_result(result: FetchResult) -> PageRecord {
        let FetchResult {
            requested_url,
            final_url,
            canonical_url,
            status,
            content_type,
            title,
            content,
            robots,
            warnings,
            body_bytes,
            metadata,
            ..
        } = result;
        PageRecord {
            requested_url,
            final_url: Some(final_url),
            canonical_url,
            status: Some(status),
            content_type,
            verdict: Some(robots.verdict),
            recommendation: Some(robots.recommendation),
            rule: robots.rule,
            warnings,
            title,
            metadata: Some(metadata),
            content_hash: Some(ContentHash::of(&content)),
            content: Some(content),
            fetched_at: Some(Utc::now()),
            bytes: Some(body_bytes),
            not_fetched: None,
            error: None,
            depth: None,
            parent: None,
        }
    }

    /// The record of a URL that was not requested, for `reason`: no
    /// answer, no content, no verdict (add it with
    /// [`PageRecord::with_robots`] or [`PageRecord::with_verdict`] when it
    /// is known).
    pub fn not_fetched(requested_url: impl Into<String>, reason: NotFetchedReason) -> PageRecord {
        PageRecord {
            requested_url: requested_url.into(),
            final_url: None,
            canonical_url: None,
            status: None,
            content_type: None,
            verdict: None,
            recommendation: None,
            rule: None,
            warnings: Vec::new(),
            title: None,
            metadata: None,
            content: None,
            content_hash: None,
            fetched_at: None,
            bytes: None,
            not_fetched: Some(reason),
            error: None,
            depth: None,
            parent: None,
        }
    }

    /// The record of a fetch of `requested_url` that ended in `error`,
    /// stamped with the current time: a robots refusal carries its verdict
    /// and rule, an HTTP error its status, every error its message.
    pub fn from_error(requested_url: impl Into<String>, error: &Error) -> PageRecord {
        let reason = NotFetchedReason::of_error(error);
        let mut record = PageRecord::not_fetched(requested_url, reason);
        match error {
            Error::Policy(policy) => record = record.with_robots(&policy.evidence),
            Error::Fetch(fetch) => {
                record.status = fetch.status();
                if let FetchError::Status { url, .. } | FetchError::PaymentRequired { url, .. } = fetch {
                    record.final_url = Some(url.clone());
                }
            }
            Error::InvalidUrl { .. } | Error::Ssrf(_) => {}
        }
        // Nothing was requested for an invalid URL; every other error
        // comes from an attempt.
        if reason != NotFetchedReason::InvalidUrl {
            record.fetched_at = Some(Utc::now());
        }
        record.error = Some(error.to_string());
        record
    }

    /// The record with the verdict, recommendation and rule of `robots`.
    pub fn with_robots(mut self, robots: &RobotsEvidence) -> PageRecord {
        self.verdict = Some(robots.verdict);
        self.recommendation = Some(robots.recommendation);
        self.rule = robots.rule.clone();
        self
    }

    /// The record with `verdict`, its recommendation, and the rule that
    /// decided it: for a verdict decided offline, without a fetch.
    pub fn with_verdict(mut self, verdict: Verdict, rule: Option<RuleEvidence>) -> PageRecord {
        self.verdict = Some(verdict);
        self.recommendation = Some(verdict.recommendation());
        self.rule = rule;
        self
    }

    /// The record with its crawl position: `depth` from the start URLs,
    /// and the page that linked to it.
    pub fn with_crawl_position(mut self, depth: u32, parent: Option<String>) -> PageRecord {
        self.depth = Some(depth);
        self.parent = parent;
        self
    }

    /// Whether the record carries a fetched page's content.
    pub fn is_fetched(&self) -> bool {
        self.not_fetched.is_none()
    }
}

/// Why a URL has no content in a dataset or a crawl. The names are stable:
/// datasets are filtered on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NotFetchedReason {
    /// robots.txt disallows the URL for the agent (or a redirect hop on
    /// its way): it was never requested.
    Disallowed,
    /// robots.txt could not be read (429, 5xx, network error), which
    /// refuses every URL of its origin until it can (RFC 9309 §2.3.1.4).
    RobotsUnreachable,
    /// The URL is outside the crawl's scope (origin, domain, prefix,
    /// include and exclude patterns).
    OutOfScope,
    /// The page repeats one already recorded (same content hash or same
    /// canonical URL).
    Duplicate,
    /// A limit of the run was reached (pages, depth, bytes, per-host
    /// budget) before the URL's turn.
    Limit,
    /// The SSRF guard refused the URL, a redirect target or the address
    /// its host resolved to.
    SsrfRefused,
    /// The URL is not an absolute http(s) URL.
    InvalidUrl,
    /// The answer was an HTTP error status (402 included): `status` says
    /// which.
    HttpStatus,
    /// The answer is neither HTML, text, Markdown nor a PDF (an image, an
    /// archive).
    UnsupportedContent,
    /// The request failed: DNS, connection, timeout, protocol, redirects,
    /// an unreadable PDF, no browser to render with.
    FetchFailed,
    /// Every link to the URL asked not to be followed (`rel=nofollow`, or
    /// `nofollow` in the linking page's meta robots or `X-Robots-Tag`).
    Nofollow,
    /// The page answered 200 with the text the site serves for a URL that
    /// does not exist (its answer to a random path): a soft 404.
    SoftNotFound,
}

impl NotFetchedReason {
    /// Every reason, in declaration order.
    pub const ALL: &'static [NotFetchedReason] = &[
        NotFetchedReason::Disallowed,
        NotFetchedReason::RobotsUnreachable,
        NotFetchedReason::OutOfScope,
        NotFetchedReason::Duplicate,
        NotFetchedReason::Limit,
        NotFetchedReason::SsrfRefused,
        NotFetchedReason::InvalidUrl,
        NotFetchedReason::HttpStatus,
        NotFetchedReason::UnsupportedContent,
        NotFetchedReason::FetchFailed,
        NotFetchedReason::Nofollow,
        NotFetchedReason::SoftNotFound,
    ];

    /// The reason in snake case, as JSON and Parquet spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            NotFetchedReason::Disallowed => "disallowed",
            NotFetchedReason::RobotsUnreachable => "robots_unreachable",
            NotFetchedReason::OutOfScope => "out_of_scope",
            NotFetchedReason::Duplicate => "duplicate",
            NotFetchedReason::Limit => "limit",
            NotFetchedReason::SsrfRefused => "ssrf_refused",
            NotFetchedReason::InvalidUrl => "invalid_url",
            NotFetchedReason::HttpStatus => "http_status",
            NotFetchedReason::UnsupportedContent => "unsupported_content",
            NotFetchedReason::FetchFailed => "fetch_failed",
            NotFetchedReason::Nofollow => "nofollow",
            NotFetchedReason::SoftNotFound => "soft_not_found",
        }
    }

    /// The reason a fetch that ended in `error` has no content.
    pub fn of_error(error: &Error) -> NotFetchedReason {
        match error {
            Error::InvalidUrl { .. } => NotFetchedReason::InvalidUrl,
            Error::Policy(policy) => match policy.evidence.verdict {
                Verdict::UnknownUnreachable => NotFetchedReason::RobotsUnreachable,
                _ => NotFetchedReason::Disallowed,
            },
            Error::Ssrf(_) | Error::Fetch(FetchError::Ssrf(_)) => NotFetchedReason::SsrfRefused,
            Error::Fetch(FetchError::Status { .. } | FetchError::PaymentRequired { .. }) => {
                NotFetchedReason::HttpStatus
            }
            Error::Fetch(FetchError::UnsupportedContent { .. }) => NotFetchedReason::UnsupportedContent,
            Error::Fetch(_) => NotFetchedReason::FetchFailed,
        }
    }
}

impl fmt::Display for NotFetchedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for NotFetchedReason {
    type Err = String;

    fn from_str(s: &str) -> Result<NotFetchedReason, String> {
        NotFetchedReason::ALL
            .iter()
            .copied()
            .find(|reason| reason.as_str() == s)
            .ok_or_else(|| format!("unknown not-fetched reason `{s}`"))
    }
}

/// XXH3-64 (seed 0) of a text with its whitespace normalised: every run of
/// Unicode white space is one space, and none leads or trails. Written as
/// 16 lower-case hexadecimal digits.
///
/// 64 bits keep de-duplication exact in practice at dataset scale: among
/// 100 million distinct pages the chance of any collision is about 3 in
/// 10,000, and a collision costs one page wrongly marked duplicate, never
/// a wrong policy decision. A cryptographic hash would cost several times
/// the time for no gain here: the hash identifies text, it does not
/// authenticate it.
///
/// ```
/// use webcanon_client::ContentHash;
///
/// assert_eq!(ContentHash::of("# Title\n\nSome  text.\n"), ContentHash::of("# Title Some text."));
/// assert_ne!(ContentHash::of("Some text."), ContentHash::of("Some text!"));
/// assert_eq!(ContentHash::of("").to_string().len(), 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentHash(pub u64);

impl ContentHash {
    /// The hash of `text`, whitespace normalised, without copying it.
    pub fn of(text: &str) -> ContentHash {
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        for (index, word) in text.split_whitespace().enumerate() {
            if index > 0 {
                hasher.update(b" ");
            }
            hasher.update(word.as_bytes());
        }
        ContentHash(hasher.digest())
    }
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for ContentHash {
    type Err = String;

    fn from_str(s: &str) -> Result<ContentHash, String> {
        if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(format!("`{s}` is not a content hash (16 lower-case hexadecimal digits)"));
        }
        u64::from_str_radix(s, 16).map(ContentHash).map_err(|e| e.to_string())
    }
}

impl Serialize for ContentHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ContentHash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ContentHash, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "json-schema")]
impl schemars::JsonSchema for ContentHash {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ContentHash".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9a-f]{16}$",
            "description": "XXH3-64 of the content with its whitespace normalised, in hexadecimal",
        })
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for ContentHash {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^[0-9a-f]{16}$"))
            .description(Some("XXH3-64 of the content with its whitespace normalised, in hexadecimal"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for ContentHash {}

#[cfg(test)]
mod tests {
    use super::*;
    use webcanon_core::policy::PolicyError;
    use webcanon_core::robots::Directive;

    fn disallow_evidence() -> RobotsEvidence {
        RobotsEvidence {
            verdict: Verdict::DisallowedExplicit,
            recommendation: FetchRecommendation::NotRecommended,
            robots_url: Some("https://example.com/robots.txt".into()),
            status: Some(200),
            availability: None,
            from_cache: false,
            cache_age_seconds: None,
            rule: Some(RuleEvidence { line: 2, directive: Directive::Disallow, pattern: "/private".into() }),
            error: None,
        }
    }

    #[test]
    fn a_fetched_page_keeps_its_answer_verdict_signals_and_hash() {
        let warning = Warning::new(
            crate::warning::WarningCode::Noai,
            crate::warning::WarningSource::XRobotsTag,
            "X-Robots-Tag: noai".into(),
        );
        let mut robots = disallow_evidence();
        robots.verdict = Verdict::AllowedExplicit;
        robots.recommendation = FetchRecommendation::Recommended;
        robots.rule = Some(RuleEvidence { line: 3, directive: Directive::Allow, pattern: "/docs".into() });
        let result = FetchResult {
            requested_url: "https://example.com/docs".into(),
            fetched_url: "https://example.com/docs".into(),
            final_url: "https://example.com/docs/".into(),
            status: 200,
            content_type: Some("text/html".into()),
            title: Some("Docs".into()),
            canonical_url: Some("https://example.com/docs/".into()),
            content: "# Docs\n\nHello.\n".into(),
            pdf: None,
            robots: robots.clone(),
            alternative: None,
            alternatives: Vec::new(),
            warnings: vec![warning.clone()],
            redirects: Vec::new(),
            timings: crate::Timings::default(),
            rendered: false,
            render: None,
            body_bytes: 1234,
            links: Default::default(),
            metadata: Default::default(),
        };
        let before = Utc::now();
        let record = PageRecord::from_result(result);
        assert!(record.is_fetched());
        assert_eq!(record.final_url.as_deref(), Some("https://example.com/docs/"));
        assert_eq!(record.canonical_url.as_deref(), Some("https://example.com/docs/"));
        assert_eq!((record.status, record.bytes), (Some(200), Some(1234)));
        assert_eq!(
            (record.verdict, record.recommendation),
            (Some(Verdict::AllowedExplicit), Some(FetchRecommendation::Recommended))
        );
        assert_eq!(record.rule, robots.rule);
        assert_eq!(record.warnings, vec![warning]);
        assert_eq!(record.title.as_deref(), Some("Docs"));
        assert_eq!(record.content_hash, Some(ContentHash::of("# Docs Hello.")));
        assert!(record.fetched_at.is_some_and(|at| at >= before));
        assert_eq!((record.not_fetched, record.error.as_deref()), (None, None));
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<PageRecord>(&json).unwrap(), record);
    }

    #[test]
    fn reasons_are_spelled_alike_in_serde_as_str_and_from_str() {
        for &reason in NotFetchedReason::ALL {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
            assert_eq!(reason.as_str().parse::<NotFetchedReason>(), Ok(reason));
        }
        assert!("refused".parse::<NotFetchedReason>().is_err());
    }

    #[test]
    fn content_hash_ignores_whitespace_only() {
        let hash = ContentHash::of("a b\tc");
        assert_eq!(hash, ContentHash::of("  a\n\nb   c \n"));
        assert_ne!(hash, ContentHash::of("a bc"));
        assert_ne!(hash, ContentHash::of("A b c"));
        // The empty text and white space alone hash to XXH3-64 of nothing.
        assert_eq!(ContentHash::of(" \n"), ContentHash(xxhash_rust::xxh3::xxh3_64(b"")));
        assert_eq!(ContentHash::of("a b c"), ContentHash(xxhash_rust::xxh3::xxh3_64(b"a b c")));
    }

    #[test]
    fn content_hash_round_trips_as_sixteen_hex_digits() {
        let hash = ContentHash(0x00ab_cdef_0123_4567);
        assert_eq!(hash.to_string(), "00abcdef01234567");
        assert_eq!(serde_json::to_value(hash).unwrap(), "00abcdef01234567");
        assert_eq!(serde_json::from_value::<ContentHash>("00abcdef01234567".into()).unwrap(), hash);
        for bad in ["abcdef01234567", "00ABCDEF01234567", "+0abcdef01234567", "00abcdef0123456g"] {
            assert!(bad.parse::<ContentHash>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_policy_refusal_keeps_its_verdict_and_rule() {
        let error = Error::Policy(Box::new(PolicyError {
            url: "https://example.com/private/a".into(),
            evidence: disallow_evidence(),
        }));
        let record = PageRecord::from_error("https://example.com/private/a", &error);
        assert_eq!(record.not_fetched, Some(NotFetchedReason::Disallowed));
        assert_eq!(record.verdict, Some(Verdict::DisallowedExplicit));
        assert_eq!(record.recommendation, Some(FetchRecommendation::NotRecommended));
        assert_eq!(record.rule.as_ref().map(|r| r.line), Some(2));
        assert!(record.error.as_deref().unwrap().contains("matched line 2"));
        assert!(record.content.is_none() && record.content_hash.is_none() && !record.is_fetched());
    }

    #[test]
    fn an_unreachable_robots_txt_is_its_own_reason() {
        let mut evidence = disallow_evidence();
        evidence.verdict = Verdict::UnknownUnreachable;
        evidence.rule = None;
        let error = Error::Policy(Box::new(PolicyError { url: "https://example.com/".into(), evidence }));
        assert_eq!(NotFetchedReason::of_error(&error), NotFetchedReason::RobotsUnreachable);
    }

    #[test]
    fn errors_map_to_their_reasons() {
        let cases = [
            (Error::InvalidUrl { url: "x".into(), reason: "relative".into() }, NotFetchedReason::InvalidUrl, None),
            (
                Error::Fetch(FetchError::Status { url: "https://example.com/gone".into(), status: 404 }),
                NotFetchedReason::HttpStatus,
                Some(404),
            ),
            (
                Error::Fetch(FetchError::payment_required("https://example.com/paid", None)),
                NotFetchedReason::HttpStatus,
                Some(402),
            ),
            (
                Error::Fetch(FetchError::UnsupportedContent {
                    url: "https://example.com/a.png".into(),
                    content_type: "image/png".into(),
                }),
                NotFetchedReason::UnsupportedContent,
                None,
            ),
            (
                Error::Fetch(FetchError::Connect { url: "https://example.com/".into(), message: "refused".into() }),
                NotFetchedReason::FetchFailed,
                None,
            ),
        ];
        for (error, reason, status) in cases {
            let record = PageRecord::from_error("https://example.com/", &error);
            assert_eq!(record.not_fetched, Some(reason), "{error}");
            assert_eq!(record.status, status, "{error}");
            assert_eq!(record.fetched_at.is_some(), reason != NotFetchedReason::InvalidUrl, "{error}");
            assert_eq!(record.error, Some(error.to_string()));
            assert_eq!(record.verdict, None);
        }
    }

    #[test]
    fn an_offline_verdict_carries_its_recommendation() {
        let rule = RuleEvidence { line: 3, directive: Directive::Disallow, pattern: "/*.pdf$".into() };
        let record = PageRecord::not_fetched("https://example.com/a.pdf", NotFetchedReason::Disallowed)
            .with_verdict(Verdict::DisallowedExplicit, Some(rule.clone()));
        assert_eq!(record.recommendation, Some(FetchRecommendation::NotRecommended));
        assert_eq!(record.rule, Some(rule));
        assert!(record.fetched_at.is_none());
    }

    #[test]
    fn crawl_position_is_written_only_in_a_crawl() {
        let record = PageRecord::not_fetched("https://example.com/a", NotFetchedReason::Limit);
        let json = serde_json::to_value(&record).unwrap();
        assert!(json.get("depth").is_none() && json.get("parent").is_none());
        let record = record.with_crawl_position(2, Some("https://example.com/".into()));
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!((json["depth"].as_u64(), json["parent"].as_str()), (Some(2), Some("https://example.com/")));
        assert_eq!(serde_json::from_value::<PageRecord>(json).unwrap(), record);
    }
}
