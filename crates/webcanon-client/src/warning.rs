//! Usage warnings attached to a result: never fetch blocks.
//!
//! The type is the core's [`UsageWarning`](webcanon_core::signals::UsageWarning);
//! this module names the sources the client adds.

pub use webcanon_core::signals::UsageWarning as Warning;

/// Where a warning came from (the `source` field).
pub mod source {
    /// robots.txt: its fetch, or a record such as `Content-Signal`.
    pub const ROBOTS_TXT: &str = "robots_txt";
    /// A `<meta name="robots">` (or agent-named) tag.
    pub const META_ROBOTS: &str = "meta_robots";
    /// The `X-Robots-Tag` response header.
    pub const X_ROBOTS_TAG: &str = "x_robots_tag";
    /// TDMRep: the `tdm-reservation` meta tag or header.
    pub const TDMREP: &str = "tdmrep";
    /// The IETF AIPREF `Content-Usage` response header.
    pub const CONTENT_USAGE_HEADER: &str = "content_usage_header";
    /// The `Content-Signal` response header.
    pub const CONTENT_SIGNAL_HEADER: &str = "content_signal_header";
    /// The fetch itself (a cut body, a downgrade to http).
    pub const FETCH: &str = "fetch";
    /// The HTML conversion (a page over the size caps).
    pub const CONVERSION: &str = "conversion";
    /// The robots cache (a shared store that does not answer).
    pub const CACHE: &str = "cache";
}
