//! [`UsageWarning`]: what a result warns about, with a stable
//! [`WarningCode`] and the [`WarningSource`] it came from.
//!
//! Codes and sources never change spelling once published; new ones are
//! added (the enums are `#[non_exhaustive]`).

use std::fmt;

/// A usage warning: a stable code, where it came from, what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct UsageWarning {
    /// What the warning is about.
    pub code: WarningCode,
    /// Where it came from.
    pub source: WarningSource,
    /// A sentence for people.
    pub detail: String,
}

impl UsageWarning {
    /// A warning with `code` from `source`.
    pub fn new(code: WarningCode, source: WarningSource, detail: String) -> UsageWarning {
        UsageWarning { code, source, detail }
    }
}

/// Declares a `#[non_exhaustive]` enum with `as_str`, `ALL` and `Display`.
/// Each spelling is the variant's name in snake_case, which serde and the
/// OpenAPI schema derive from the name and a test checks against `as_str`.
macro_rules! spelled_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The value as JSON spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

spelled_enum! {
    /// What a usage warning is about.
    WarningCode {
        /// Robots directive `noindex`: do not index the page.
        Noindex => "noindex",
        /// Robots directive `nofollow`: do not follow its links.
        Nofollow => "nofollow",
        /// Robots directive `none`: `noindex` and `nofollow`.
        None => "none",
        /// Robots directive `noarchive`: do not keep a cached copy.
        Noarchive => "noarchive",
        /// Robots directive `nocache` (a `noarchive` synonym).
        Nocache => "nocache",
        /// Robots directive `nosnippet`: do not show snippets or quotes.
        Nosnippet => "nosnippet",
        /// Robots directive `noai`: do not use the page to train AI.
        Noai => "noai",
        /// Robots directive `noimageai`: do not use its images to train AI.
        Noimageai => "noimageai",
        /// Robots directive `noimageindex`: do not index its images.
        Noimageindex => "noimageindex",
        /// TDMRep `tdm-reservation: 1`: text and data mining rights reserved.
        TdmReservation => "tdm_reservation",
        /// A `Content-Usage` statement (header or robots.txt) that disallows
        /// a category of use (`train-ai=n`, `search=n`).
        ContentUsage => "content_usage",
        /// A `Content-Usage` statement that is not a Structured Fields
        /// Dictionary (a key in upper case, a stray byte): every category
        /// is unknown, nothing is refused; the detail quotes the parser.
        ContentUsageUnreadable => "content_usage_unreadable",
        /// A `Content-Signal` preference that says no (header or robots.txt).
        ContentSignal => "content_signal",
        /// The body was longer than the limit and was cut.
        BodyTruncated => "body_truncated",
        /// The page was over the HTML conversion's caps and read as text.
        HtmlOverLimits => "html_over_limits",
        /// The HTML conversion found no main text: the content is the
        /// page's whole text, navigation, headers and footers included,
        /// or empty when the page shows no text without scripts (the
        /// detail says which).
        ExtractionEmpty => "extraction_empty",
        /// A redirect went from https to http.
        InsecureRedirect => "insecure_redirect",
        /// robots.txt answered 401 or 403, read as allowing everything.
        RobotsAccessDenied => "robots_access_denied",
        /// robots.txt was not a robots.txt (HTML, binary) or partly garbled.
        RobotsParseError => "robots_parse_error",
        /// robots.txt could not be fetched; the site is treated as disallowed.
        RobotsUnreachable => "robots_unreachable",
        /// A cached robots.txt past its freshness is used while the site
        /// does not answer.
        StaleRobotsCache => "stale_robots_cache",
        /// The shared robots cache does not answer; a local copy serves.
        SharedCacheUnavailable => "shared_cache_unavailable",
        /// robots.txt asked for a longer `Crawl-delay` than is honoured.
        CrawlDelayCapped => "crawl_delay_capped",
        /// The page was served through its Markdown copy without requesting
        /// the HTML page, whose own usage signals were therefore not read:
        /// no usage warning is not the same as no restriction.
        PageSignalsNotRead => "page_signals_not_read",
        /// A PDF was cut: more pages than the page limit, or its conversion
        /// ran past the time limit; the detail says how far it got.
        PdfTruncated => "pdf_truncated",
        /// A PDF has pages but no text layer (scanned images): nothing to
        /// read without OCR, which is not done.
        PdfNoTextLayer => "pdf_no_text_layer",
        /// Pages of a PDF were left out because reading them would pass a
        /// cap (the characters a page can draw, its decoded content); the
        /// detail says which pages and why. The other pages are read.
        PdfPagesSkipped => "pdf_pages_skipped",
        /// A page rendered in the browser reached one of its limits (wall
        /// time, requests, bytes): the text is what it had by then.
        RenderLimit => "render_limit",
        /// A page could not be rendered after all (its renderer crashed,
        /// the browser stopped answering): the content is the fetched HTML.
        RenderFailed => "render_failed",
        /// The site's RSL license prohibits the declared use of this page
        /// (or permits only other uses); the detail names the license and
        /// the `content` pattern.
        RslProhibited => "rsl_prohibited",
        /// The site's RSL license for the declared use costs money; the
        /// detail names the payment type, amounts and terms.
        RslPaymentRequired => "rsl_payment_required",
        /// The site's RSL license must be obtained from a license server,
        /// even when it is free.
        RslLicenseServer => "rsl_license_server",
        /// The site names an RSL license that could not be read (refused by
        /// robots.txt or the SSRF guard, unreachable, too large, not RSL):
        /// its terms are unknown, which is not the same as none.
        RslUnavailable => "rsl_unavailable",
    }
}

impl WarningCode {
    /// The code of a robots directive that is warned about (`noai`,
    /// `noindex`, …), by its lower-case name; `None` for directives that
    /// are not (`max-snippet`, `index`).
    pub fn of_robots_directive(name: &str) -> Option<WarningCode> {
        let code = match name {
            "noindex" => WarningCode::Noindex,
            "nofollow" => WarningCode::Nofollow,
            "none" => WarningCode::None,
            "noarchive" => WarningCode::Noarchive,
            "nocache" => WarningCode::Nocache,
            "nosnippet" => WarningCode::Nosnippet,
            "noai" => WarningCode::Noai,
            "noimageai" => WarningCode::Noimageai,
            "noimageindex" => WarningCode::Noimageindex,
            _ => return Option::None,
        };
        Some(code)
    }
}

spelled_enum! {
    /// Where a usage warning came from.
    WarningSource {
        /// robots.txt: its fetch, or a record such as `Content-Signal`.
        RobotsTxt => "robots_txt",
        /// A `<meta name="robots">` (or agent-named) tag.
        MetaRobots => "meta_robots",
        /// The `X-Robots-Tag` response header.
        XRobotsTag => "x_robots_tag",
        /// TDMRep: the `tdm-reservation` meta tag or header.
        Tdmrep => "tdmrep",
        /// The IETF AIPREF `Content-Usage` response header.
        ContentUsageHeader => "content_usage_header",
        /// The `Content-Signal` response header.
        ContentSignalHeader => "content_signal_header",
        /// The fetch itself (a cut body, a downgrade to http).
        Fetch => "fetch",
        /// The HTML conversion (a page over the size caps).
        Conversion => "conversion",
        /// The robots cache (a shared store that does not answer).
        Cache => "cache",
        /// Rendering the page in the browser.
        Render => "render",
        /// The site's RSL license document (Really Simple Licensing).
        Rsl => "rsl",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_distinct_snake_case() {
        let mut seen = std::collections::HashSet::new();
        let spellings =
            WarningCode::ALL.iter().map(|c| c.as_str()).chain(WarningSource::ALL.iter().map(|s| s.as_str()));
        for text in spellings {
            assert!(text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{text}");
            assert!(seen.insert((text, WarningCode::ALL.iter().any(|c| c.as_str() == text))), "{text} twice");
        }
    }

    #[test]
    fn robots_directive_codes_spell_the_directive() {
        for name in
            ["noindex", "nofollow", "none", "noarchive", "nocache", "nosnippet", "noai", "noimageai", "noimageindex"]
        {
            assert_eq!(WarningCode::of_robots_directive(name).map(WarningCode::as_str), Some(name));
        }
        for name in ["index", "max-snippet", "unavailable_after", ""] {
            assert_eq!(WarningCode::of_robots_directive(name), Option::None);
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_uses_the_spelling() {
        let warning = UsageWarning::new(WarningCode::TdmReservation, WarningSource::Tdmrep, "x".into());
        let json = serde_json::to_value(&warning).unwrap();
        assert_eq!(json, serde_json::json!({"code": "tdm_reservation", "source": "tdmrep", "detail": "x"}));
        for code in WarningCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
        for source in WarningSource::ALL {
            assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
        }
    }
}
