//! Dates as pages write them, normalised to ISO 8601.
//!
//! A value is read as the first of these that parses, and written back in
//! the most precise form it supports:
//!
//! | read | written |
//! |---|---|
//! | RFC 3339 / ISO 8601 with an offset (`2024-03-05T10:20:00+01:00`, `…Z`, `…+0100`, fractions of a second, a space for the `T`) | `2024-03-05T10:20:00+01:00` (`Z` for UTC) |
//! | RFC 2822 (`Tue, 05 Mar 2024 10:20:00 +0100`) | the same, as RFC 3339 |
//! | a date and time without an offset (`2024-03-05T10:20`, `2024-03-05 10:20:00`) | `2024-03-05T10:20:00` |
//! | a date alone (`2024-03-05`, `2024/03/05`, `20240305`) | `2024-03-05` |
//!
//! Anything else (`March 5, 2024`, `5 days ago`, an impossible date such
//! as `2024-02-30`) is not a date here: the source is passed over and the
//! next one in the field's order is read; a field none of whose sources
//! parses is empty. Words are never guessed into dates: a page's language
//! decides how they read, and a wrong date is worse than none.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat};

/// Formats of a date and time with an offset that RFC 3339 does not admit
/// but pages use.
const WITH_OFFSET: &[&str] =
    &["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%d %H:%M:%S%.f%z", "%Y-%m-%dT%H:%M%z", "%Y-%m-%d %H:%M%z"];
/// Formats of a date and time without an offset.
const WITHOUT_OFFSET: &[&str] = &["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"];
/// Formats of a date alone.
const DATE_ONLY: &[&str] = &["%Y-%m-%d", "%Y/%m/%d"];

/// `raw` as an ISO 8601 date or date and time, or `None` when it is not one
/// of the forms the module documents.
pub(crate) fn iso8601(raw: &str) -> Option<String> {
    let raw = raw.trim();
    // No form read here is longer; a longer value is not a date.
    if raw.is_empty() || raw.len() > 64 {
        return None;
    }
    let with_offset = DateTime::parse_from_rfc3339(raw)
        .ok()
        .or_else(|| WITH_OFFSET.iter().find_map(|f| DateTime::parse_from_str(raw, f).ok()))
        .or_else(|| DateTime::parse_from_rfc2822(raw).ok());
    if let Some(moment) = with_offset {
        return Some(moment.to_rfc3339_opts(SecondsFormat::Secs, true));
    }
    if let Some(moment) = WITHOUT_OFFSET.iter().find_map(|f| NaiveDateTime::parse_from_str(raw, f).ok()) {
        return Some(moment.format("%Y-%m-%dT%H:%M:%S").to_string());
    }
    let compact = raw.len() == 8 && raw.bytes().all(|b| b.is_ascii_digit());
    DATE_ONLY
        .iter()
        .find_map(|f| NaiveDate::parse_from_str(raw, f).ok())
        .or_else(|| compact.then(|| NaiveDate::parse_from_str(raw, "%Y%m%d").ok()).flatten())
        .map(|day| day.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn dates_are_written_in_iso_8601_or_not_at_all() {
        let cases = [
            ("2024-03-05T10:20:00+01:00", Some("2024-03-05T10:20:00+01:00")),
            ("2024-03-05T10:20:00.123Z", Some("2024-03-05T10:20:00Z")),
            ("2024-03-05T10:20:00+0100", Some("2024-03-05T10:20:00+01:00")),
            ("2024-03-05 10:20:00+01:00", Some("2024-03-05T10:20:00+01:00")),
            ("2024-03-05T10:20+01:00", Some("2024-03-05T10:20:00+01:00")),
            ("Tue, 05 Mar 2024 10:20:00 +0100", Some("2024-03-05T10:20:00+01:00")),
            ("2024-03-05T10:20", Some("2024-03-05T10:20:00")),
            ("2024-03-05 10:20:00", Some("2024-03-05T10:20:00")),
            (" 2024-03-05 ", Some("2024-03-05")),
            ("2024/03/05", Some("2024-03-05")),
            ("20240305", Some("2024-03-05")),
            ("2024-02-30", None),
            ("March 5, 2024", None),
            ("5 days ago", None),
            ("", None),
            ("1709634000", None),
        ];
        for (raw, want) in cases {
            assert_eq!(iso8601(raw).as_deref(), want, "{raw:?}");
        }
    }
}
