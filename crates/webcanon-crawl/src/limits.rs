//! When a crawl stops ([`CrawlLimits`]), and the counts a service's
//! request may ask of it: each checked against the integers the service's
//! schema declares ([`CountRange`]) and lowered to the job it runs as
//! ([`CrawlLimits::for_job`]).

/// The most start URLs a service's request (the HTTP API, MCP) may give
/// a crawl.
pub const MAX_CRAWL_STARTS: usize = 100;

/// The limits of a crawl. `None`: no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrawlLimits {
    /// The most pages requested.
    pub max_pages: Option<u64>,
    /// The most body bytes received, all pages together.
    pub max_bytes: Option<u64>,
    /// The most pages requested from one host.
    pub max_pages_per_host: Option<u64>,
    /// The most URLs taken from one site's sitemaps (default 100,000).
    pub max_sitemap_urls: usize,
}

impl Default for CrawlLimits {
    fn default() -> Self {
        CrawlLimits { max_pages: None, max_bytes: None, max_pages_per_host: None, max_sitemap_urls: 100_000 }
    }
}

/// The largest integers a request's schema declares for its counts: a
/// larger one is refused rather than read as "no limit".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountRange {
    /// The largest count of pages, bytes or records.
    pub max_count: u64,
    /// The largest link depth.
    pub max_depth: u32,
}

impl CountRange {
    /// Every `u64` count and `u32` depth: a JSON schema of unsigned
    /// integers (the MCP tools' arguments).
    pub const UNSIGNED: CountRange = CountRange { max_count: u64::MAX, max_depth: u32::MAX };
    /// The `int64` counts and `int32` depths of an OpenAPI document (the
    /// HTTP API), the integers most JSON clients can write.
    pub const SIGNED: CountRange =
        CountRange { max_count: i64::MAX.unsigned_abs(), max_depth: i32::MAX.unsigned_abs() };
}

/// A count a request asked for that a crawl or a map cannot take; the
/// message names the request's field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CountError {
    /// 0, which would end the work before it starts.
    #[error("{name} must be at least 1")]
    Zero {
        /// The request's field.
        name: &'static str,
    },
    /// Past the largest integer the request's schema declares.
    #[error("{name} must be at most {most}")]
    TooLarge {
        /// The request's field.
        name: &'static str,
        /// The largest count taken.
        most: u64,
    },
}

/// The limits a request asks of a crawl, unchecked (`None`: not asked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrawlLimitsRequest {
    /// The most pages requested (`max_pages`).
    pub max_pages: Option<u64>,
    /// The most body bytes received, all pages together (`max_total_bytes`).
    pub max_total_bytes: Option<u64>,
    /// The most pages requested from one host (`max_pages_per_host`).
    pub max_pages_per_host: Option<u64>,
}

impl CrawlLimits {
    /// The limits of a crawl run as a job of at most `max_records`
    /// records, from what a request asked: each count at least 1 and at
    /// most `range.max_count`; `max_pages` (by default the job's records)
    /// and the URLs taken from a sitemap lowered to the job's records,
    /// since a page requested is at least one record and pages past the
    /// job's records could never be written.
    ///
    /// ```
    /// use webcanon_crawl::{CountError, CountRange, CrawlLimits, CrawlLimitsRequest};
    ///
    /// let asked = CrawlLimitsRequest { max_pages: Some(5_000), ..CrawlLimitsRequest::default() };
    /// let limits = CrawlLimits::for_job(asked, 1_000, CountRange::SIGNED)?;
    /// assert_eq!((limits.max_pages, limits.max_sitemap_urls), (Some(1_000), 1_000));
    /// let zero = CrawlLimitsRequest { max_pages_per_host: Some(0), ..CrawlLimitsRequest::default() };
    /// let refused = CrawlLimits::for_job(zero, 1_000, CountRange::SIGNED).unwrap_err();
    /// assert_eq!(refused.to_string(), "max_pages_per_host must be at least 1");
    /// # Ok::<(), CountError>(())
    /// ```
    pub fn for_job(asked: CrawlLimitsRequest, max_records: u64, range: CountRange) -> Result<CrawlLimits, CountError> {
        Ok(CrawlLimits {
            max_pages: Some(count_within("max_pages", asked.max_pages, max_records, range)?),
            max_bytes: positive("max_total_bytes", asked.max_total_bytes, range)?,
            max_pages_per_host: positive("max_pages_per_host", asked.max_pages_per_host, range)?,
            max_sitemap_urls: usize::try_from(max_records)
                .unwrap_or(usize::MAX)
                .min(CrawlLimits::default().max_sitemap_urls),
        })
    }
}

/// A count a request asked for as `name`, lowered to `ceiling` (the
/// ceiling when not asked): at least 1 and at most `range.max_count`.
///
/// ```
/// use webcanon_crawl::{CountRange, count_within};
///
/// assert_eq!(count_within("max_urls", Some(u64::MAX), 500, CountRange::UNSIGNED), Ok(500));
/// assert_eq!(count_within("max_urls", None, 500, CountRange::UNSIGNED), Ok(500));
/// assert!(count_within("max_urls", Some(0), 500, CountRange::UNSIGNED).is_err());
/// ```
pub fn count_within(
    name: &'static str,
    asked: Option<u64>,
    ceiling: u64,
    range: CountRange,
) -> Result<u64, CountError> {
    Ok(positive(name, asked, range)?.map_or(ceiling, |count| count.min(ceiling)))
}

/// `asked`, refused when 0 or past `range.max_count`.
fn positive(name: &'static str, asked: Option<u64>, range: CountRange) -> Result<Option<u64>, CountError> {
    match asked {
        Some(0) => Err(CountError::Zero { name }),
        Some(count) if count > range.max_count => Err(CountError::TooLarge { name, most: range.max_count }),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGNED_MAX: u64 = i64::MAX.unsigned_abs();

    fn asked(
        max_pages: Option<u64>,
        max_total_bytes: Option<u64>,
        max_pages_per_host: Option<u64>,
    ) -> CrawlLimitsRequest {
        CrawlLimitsRequest { max_pages, max_total_bytes, max_pages_per_host }
    }

    #[test]
    fn crawl_limits_are_checked_and_lowered_to_the_job() {
        use CountRange as R;
        // asked, the job's records, the range: the limits (pages, bytes, per host, sitemap URLs) or the message.
        let rows = [
            (asked(None, None, None), 1_000, R::SIGNED, Ok((Some(1_000), None, None, 1_000))),
            (asked(Some(10), Some(1 << 20), Some(3)), 1_000, R::SIGNED, Ok((Some(10), Some(1 << 20), Some(3), 1_000))),
            (asked(Some(5_000), None, None), 1_000, R::SIGNED, Ok((Some(1_000), None, None, 1_000))),
            (asked(Some(SIGNED_MAX), None, None), 7, R::SIGNED, Ok((Some(7), None, None, 7))),
            (asked(None, None, None), u64::MAX, R::UNSIGNED, Ok((Some(u64::MAX), None, None, 100_000))),
            (asked(Some(u64::MAX), None, Some(u64::MAX)), 9, R::UNSIGNED, Ok((Some(9), None, Some(u64::MAX), 9))),
            (asked(Some(0), None, None), 1_000, R::SIGNED, Err("max_pages must be at least 1")),
            (asked(None, Some(0), None), 1_000, R::UNSIGNED, Err("max_total_bytes must be at least 1")),
            (asked(None, None, Some(0)), 1_000, R::UNSIGNED, Err("max_pages_per_host must be at least 1")),
            (asked(Some(u64::MAX), None, None), 1_000, R::SIGNED, Err("max_pages must be at most 9223372036854775807")),
            (
                asked(None, Some(1 << 63), None),
                1_000,
                R::SIGNED,
                Err("max_total_bytes must be at most 9223372036854775807"),
            ),
            (
                asked(None, None, Some(SIGNED_MAX + 1)),
                1_000,
                R::SIGNED,
                Err("max_pages_per_host must be at most 9223372036854775807"),
            ),
        ];
        for (request, max_records, range, expected) in rows {
            let outcome = CrawlLimits::for_job(request, max_records, range)
                .map(|l| (l.max_pages, l.max_bytes, l.max_pages_per_host, l.max_sitemap_urls))
                .map_err(|error| error.to_string());
            assert_eq!(outcome, expected.map_err(str::to_string), "{request:?} within {max_records}");
        }
    }

    #[test]
    fn a_count_is_lowered_to_its_ceiling() {
        // asked, ceiling, range: the count or the message.
        let rows = [
            (None, 500, CountRange::UNSIGNED, Ok(500)),
            (Some(20), 500, CountRange::UNSIGNED, Ok(20)),
            (Some(u64::MAX), 500, CountRange::UNSIGNED, Ok(500)),
            (Some(SIGNED_MAX), 500, CountRange::SIGNED, Ok(500)),
            (Some(SIGNED_MAX + 1), 500, CountRange::SIGNED, Err("max_urls must be at most 9223372036854775807")),
            (Some(0), 500, CountRange::UNSIGNED, Err("max_urls must be at least 1")),
        ];
        for (asked, ceiling, range, expected) in rows {
            let outcome = count_within("max_urls", asked, ceiling, range).map_err(|error| error.to_string());
            assert_eq!(outcome, expected.map_err(str::to_string), "{asked:?} within {ceiling}");
        }
    }
}
