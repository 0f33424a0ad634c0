//! Which URLs a crawl (or a map) of some start URLs may reach: the sites
//! of the start URLs ([`Scope`]), path patterns to include and exclude,
//! and a maximum depth.
//!
//! Patterns are robots.txt patterns (RFC 9309 §2.2.2, matched by
//! [`webcanon_core::robots::pattern_matches`]): a path prefix, `*` for
//! any run of characters, `$` for the end; they are matched against the
//! path and query. An exclude pattern wins over an include pattern.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use url::Url;
use webcanon_core::robots::pattern_matches;

use crate::limits::CountRange;

/// How far from its start URLs a crawl may go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The start URLs' origins: scheme, host and port (the default).
    #[default]
    Origin,
    /// The start URLs' registrable domains (`docs.example.com` and
    /// `www.example.com` are both `example.com`), any scheme and port, by
    /// the Public Suffix List.
    Domain,
    /// The start URLs' origins, under the folder of each start URL's path
    /// (`https://example.com/docs/intro` keeps `https://example.com/docs/…`).
    Prefix,
}

impl Scope {
    /// The name a command line or a request uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Origin => "origin",
            Scope::Domain => "domain",
            Scope::Prefix => "prefix",
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = ScopeError;

    fn from_str(s: &str) -> Result<Scope, ScopeError> {
        match s {
            "origin" => Ok(Scope::Origin),
            "domain" => Ok(Scope::Domain),
            "prefix" => Ok(Scope::Prefix),
            _ => Err(ScopeError::UnknownScope(s.to_string())),
        }
    }
}

/// What the user asked of the scope: shared by `crawl` and `map`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeConfig {
    /// How far from the start URLs.
    pub scope: Scope,
    /// When not empty, only URLs whose path matches one of these patterns
    /// (start URLs always pass).
    pub include: Vec<String>,
    /// URLs whose path matches one of these patterns are out of scope.
    pub exclude: Vec<String>,
    /// The deepest link depth followed (start URLs are depth 0); `None`:
    /// no limit.
    pub max_depth: Option<u32>,
}

/// A scope setting that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScopeError {
    /// Not `origin`, `domain` or `prefix`.
    #[error("unknown scope `{0}` (expected origin, domain or prefix)")]
    UnknownScope(String),
    /// A pattern that starts with neither `/` nor `*` (it would match
    /// nothing).
    #[error("pattern `{0}` must start with `/` or `*`")]
    Pattern(String),
    /// A pattern longer than [`MAX_PATTERN_BYTES`] (it is not repeated in
    /// the message).
    #[error("a pattern of {0} bytes is longer than the {MAX_PATTERN_BYTES} bytes a pattern may have")]
    PatternTooLong(usize),
    /// More include and exclude patterns than [`MAX_SCOPE_PATTERNS`]
    /// (checked of a service's request only).
    #[error("{0} include and exclude patterns given; a scope takes at most {MAX_SCOPE_PATTERNS}")]
    TooManyPatterns(usize),
    /// A maximum depth past the largest the request's schema declares
    /// (checked of a service's request only).
    #[error("max_depth {depth} is over the most, {most}")]
    DepthTooLarge {
        /// The depth asked for.
        depth: u32,
        /// The largest depth taken.
        most: u32,
    },
}

/// The longest include or exclude pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 2_048;
/// The most include and exclude patterns, together, that a service's
/// request (the HTTP API, MCP) may give.
pub const MAX_SCOPE_PATTERNS: usize = 100;

impl ScopeConfig {
    /// Checks the patterns: each must start with `/` or `*`, as robots.txt
    /// rules do, and be at most [`MAX_PATTERN_BYTES`].
    pub fn validate(&self) -> Result<(), ScopeError> {
        for pattern in self.include.iter().chain(&self.exclude) {
            if pattern.len() > MAX_PATTERN_BYTES {
                return Err(ScopeError::PatternTooLong(pattern.len()));
            }
            if !(pattern.starts_with('/') || pattern.starts_with('*')) {
                return Err(ScopeError::Pattern(pattern.clone()));
            }
        }
        Ok(())
    }

    /// Checks a scope a service's request gave (the HTTP API, MCP), whose
    /// every pattern costs each URL a match: at most
    /// [`MAX_SCOPE_PATTERNS`] patterns together, a maximum depth within
    /// `range`, then [`ScopeConfig::validate`].
    ///
    /// ```
    /// use webcanon_crawl::{CountRange, ScopeConfig, ScopeError};
    ///
    /// let config = ScopeConfig { exclude: vec!["/x".into(); 101], ..ScopeConfig::default() };
    /// assert_eq!(config.validate_request(CountRange::SIGNED), Err(ScopeError::TooManyPatterns(101)));
    /// ```
    pub fn validate_request(&self, range: CountRange) -> Result<(), ScopeError> {
        let patterns = self.include.len() + self.exclude.len();
        if patterns > MAX_SCOPE_PATTERNS {
            return Err(ScopeError::TooManyPatterns(patterns));
        }
        if let Some(depth) = self.max_depth.filter(|depth| *depth > range.max_depth) {
            return Err(ScopeError::DepthTooLarge { depth, most: range.max_depth });
        }
        self.validate()
    }
}

/// Why a URL is out of scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutOfScope {
    /// Not on a start URL's site (origin or registrable domain).
    #[error("on another site")]
    OtherSite,
    /// On a start URL's origin, outside its path prefix.
    #[error("outside the path prefix")]
    OutsidePrefix,
    /// Matched an exclude pattern.
    #[error("excluded by `{0}`")]
    Excluded(String),
    /// Matched no include pattern.
    #[error("matches no include pattern")]
    NotIncluded,
    /// Deeper than the maximum depth.
    #[error("deeper than the maximum depth {0}")]
    TooDeep(u32),
}

/// A [`ScopeConfig`] applied to start URLs: decides, for any URL and
/// depth, whether it is in scope. Holds one entry per start site, not per
/// URL.
#[derive(Debug, Clone)]
pub struct SiteScope {
    config: ScopeConfig,
    /// Origins (`Origin`, `Prefix`) or registrable domains (`Domain`) of
    /// the start URLs.
    sites: HashSet<String>,
    /// Per origin, the path prefixes of its start URLs (`Prefix` only).
    prefixes: HashMap<String, Vec<String>>,
}

impl SiteScope {
    /// The scope of `config` around no start URL yet: add them with
    /// [`SiteScope::add_start`].
    pub fn new(config: ScopeConfig) -> SiteScope {
        SiteScope { config, sites: HashSet::new(), prefixes: HashMap::new() }
    }

    /// The configuration.
    pub fn config(&self) -> &ScopeConfig {
        &self.config
    }

    /// Adds a start URL: its site (and, under [`Scope::Prefix`], its
    /// folder) is in scope from now on.
    pub fn add_start(&mut self, url: &Url) {
        self.sites.insert(self.site_of(url));
        if self.config.scope == Scope::Prefix {
            let path = url.path();
            let folder = &path[..path.rfind('/').map_or(0, |at| at + 1)];
            self.prefixes.entry(origin_of(url)).or_default().push(folder.to_string());
        }
    }

    /// Whether `url`, reached at `depth`, is in scope.
    ///
    /// ```
    /// use url::Url;
    /// use webcanon_crawl::{OutOfScope, Scope, ScopeConfig, SiteScope};
    ///
    /// let config = ScopeConfig { scope: Scope::Domain, exclude: vec!["/*.pdf$".into()], ..ScopeConfig::default() };
    /// let mut scope = SiteScope::new(config);
    /// scope.add_start(&Url::parse("https://www.example.co.uk/")?);
    /// assert_eq!(scope.check(&Url::parse("http://docs.example.co.uk/a")?, 1), Ok(()));
    /// assert_eq!(scope.check(&Url::parse("https://other.co.uk/")?, 1), Err(OutOfScope::OtherSite));
    /// assert!(matches!(scope.check(&Url::parse("https://www.example.co.uk/a.pdf")?, 1), Err(OutOfScope::Excluded(_))));
    /// # Ok::<(), url::ParseError>(())
    /// ```
    pub fn check(&self, url: &Url, depth: u32) -> Result<(), OutOfScope> {
        if !self.sites.contains(&self.site_of(url)) {
            return Err(OutOfScope::OtherSite);
        }
        if self.config.scope == Scope::Prefix {
            let prefixes = self.prefixes.get(&origin_of(url)).map_or(&[][..], Vec::as_slice);
            if !prefixes.iter().any(|prefix| url.path().starts_with(prefix.as_str())) {
                return Err(OutOfScope::OutsidePrefix);
            }
        }
        if let Some(max) = self.config.max_depth
            && depth > max
        {
            return Err(OutOfScope::TooDeep(max));
        }
        if let Some(pattern) = self.config.exclude.iter().find(|p| pattern_matches(p, url.as_str())) {
            return Err(OutOfScope::Excluded(pattern.clone()));
        }
        let included =
            self.config.include.is_empty() || self.config.include.iter().any(|p| pattern_matches(p, url.as_str()));
        if depth > 0 && !included {
            return Err(OutOfScope::NotIncluded);
        }
        Ok(())
    }

    fn site_of(&self, url: &Url) -> String {
        match self.config.scope {
            Scope::Origin | Scope::Prefix => origin_of(url),
            Scope::Domain => registrable_domain(url),
        }
    }
}

/// `scheme://host[:port]` of `url`.
pub(crate) fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The registrable domain of `url`'s host by the Public Suffix List (the
/// host itself for an IP address or a name the list does not cover).
fn registrable_domain(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    psl::domain_str(host).unwrap_or(host).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(config: ScopeConfig, starts: &[&str]) -> SiteScope {
        let mut scope = SiteScope::new(config);
        for start in starts {
            scope.add_start(&Url::parse(start).unwrap());
        }
        scope
    }

    fn check(scope: &SiteScope, url: &str, depth: u32) -> Result<(), OutOfScope> {
        scope.check(&Url::parse(url).unwrap(), depth)
    }

    #[test]
    fn origin_is_scheme_host_and_port() {
        let s = scope(ScopeConfig::default(), &["https://example.com/docs/"]);
        assert_eq!(check(&s, "https://example.com/blog", 3), Ok(()));
        assert_eq!(check(&s, "http://example.com/", 1), Err(OutOfScope::OtherSite));
        assert_eq!(check(&s, "https://example.com:8443/", 1), Err(OutOfScope::OtherSite));
        assert_eq!(check(&s, "https://www.example.com/", 1), Err(OutOfScope::OtherSite));
    }

    #[test]
    fn domain_is_the_registrable_domain() {
        let s = scope(
            ScopeConfig { scope: Scope::Domain, ..ScopeConfig::default() },
            &["https://a.example.github.io/", "http://127.0.0.1:8080/"],
        );
        assert_eq!(check(&s, "https://b.a.example.github.io/", 1), Ok(()));
        // github.io is a public suffix: another project is another site.
        assert_eq!(check(&s, "https://other.github.io/", 1), Err(OutOfScope::OtherSite));
        assert_eq!(check(&s, "http://127.0.0.1:9090/", 1), Ok(()));
    }

    #[test]
    fn prefix_is_the_start_folder() {
        let s =
            scope(ScopeConfig { scope: Scope::Prefix, ..ScopeConfig::default() }, &["https://example.com/docs/intro"]);
        assert_eq!(check(&s, "https://example.com/docs/api/x", 1), Ok(()));
        assert_eq!(check(&s, "https://example.com/blog/", 1), Err(OutOfScope::OutsidePrefix));
    }

    #[test]
    fn patterns_and_depth() {
        let config = ScopeConfig {
            include: vec!["/docs/".into(), "/*.md$".into()],
            exclude: vec!["/docs/old/".into()],
            max_depth: Some(2),
            ..ScopeConfig::default()
        };
        let s = scope(config, &["https://example.com/"]);
        assert_eq!(check(&s, "https://example.com/", 0), Ok(()));
        assert_eq!(check(&s, "https://example.com/docs/a", 2), Ok(()));
        assert_eq!(check(&s, "https://example.com/notes/a.md", 1), Ok(()));
        assert_eq!(check(&s, "https://example.com/notes/a.md?x", 1), Err(OutOfScope::NotIncluded));
        assert_eq!(check(&s, "https://example.com/docs/old/a", 1), Err(OutOfScope::Excluded("/docs/old/".into())));
        assert_eq!(check(&s, "https://example.com/docs/a", 3), Err(OutOfScope::TooDeep(2)));
    }

    #[test]
    fn patterns_are_checked() {
        let bad = ScopeConfig { include: vec!["docs".into()], ..ScopeConfig::default() };
        assert_eq!(bad.validate(), Err(ScopeError::Pattern("docs".into())));
        assert_eq!("site".parse::<Scope>(), Err(ScopeError::UnknownScope("site".into())));
    }

    #[test]
    fn a_request_scope_is_bounded() {
        let patterns = |include: usize, exclude: usize| ScopeConfig {
            include: vec!["/docs/".into(); include],
            exclude: vec!["/*.pdf$".into(); exclude],
            ..ScopeConfig::default()
        };
        let deep = |max_depth: u32| ScopeConfig { max_depth: Some(max_depth), ..ScopeConfig::default() };
        let long = ScopeConfig { include: vec![format!("/{}", "a".repeat(5_000))], ..ScopeConfig::default() };
        let unrooted = ScopeConfig { exclude: vec!["docs".into()], ..ScopeConfig::default() };
        let most_signed = i32::MAX.unsigned_abs();
        // The scope, the range: Ok or the message.
        let rows: [(ScopeConfig, CountRange, Result<(), &str>); 9] = [
            (ScopeConfig::default(), CountRange::SIGNED, Ok(())),
            (patterns(60, 40), CountRange::SIGNED, Ok(())),
            (
                patterns(60, 41),
                CountRange::UNSIGNED,
                Err("101 include and exclude patterns given; a scope takes at most 100"),
            ),
            (
                patterns(0, 10_000),
                CountRange::SIGNED,
                Err("10000 include and exclude patterns given; a scope takes at most 100"),
            ),
            (deep(most_signed), CountRange::SIGNED, Ok(())),
            (deep(most_signed + 1), CountRange::SIGNED, Err("max_depth 2147483648 is over the most, 2147483647")),
            (deep(u32::MAX), CountRange::UNSIGNED, Ok(())),
            (long, CountRange::SIGNED, Err("a pattern of 5001 bytes is longer than the 2048 bytes a pattern may have")),
            (unrooted, CountRange::UNSIGNED, Err("pattern `docs` must start with `/` or `*`")),
        ];
        for (config, range, expected) in rows {
            let shown =
                format!("{} patterns, depth {:?}", config.include.len() + config.exclude.len(), config.max_depth);
            let outcome = config.validate_request(range).map_err(|error| error.to_string());
            assert_eq!(outcome, expected.map_err(str::to_string), "{shown} in {range:?}");
        }
    }
}
