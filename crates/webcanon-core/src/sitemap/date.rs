//! Dates in sitemaps and feeds: W3C datetimes (`lastmod`, Atom) and RFC 822
//! dates (RSS `pubDate`), without a calendar crate.

use std::fmt;

/// A date as a sitemap or feed writes it, at the precision it was written.
///
/// W3C datetime ([W3C-DTF](https://www.w3.org/TR/NOTE-datetime)) allows a
/// year, a month, a day, or a day with a time and a zone; the parts not
/// written are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DateTime {
    /// The year (`0000`–`9999`).
    pub year: u16,
    /// The month, 1–12.
    pub month: Option<u8>,
    /// The day of the month, 1–31 (checked against the month).
    pub day: Option<u8>,
    /// The time of day, when written.
    pub time: Option<Time>,
}

/// The time part of a [`DateTime`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Time {
    /// 0–23.
    pub hour: u8,
    /// 0–59.
    pub minute: u8,
    /// 0–60 (60 for a leap second); `None` when written as `hh:mm`.
    pub second: Option<u8>,
    /// The decimal fraction of the second, in nanoseconds.
    pub nanosecond: u32,
    /// The offset from UTC in minutes (`Z` is 0); `None` when the writer left
    /// the zone out, which W3C-DTF does not allow (read as UTC).
    pub offset_minutes: Option<i16>,
}

impl DateTime {
    /// Parses a W3C datetime: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`,
    /// `YYYY-MM-DDThh:mmTZD`, `YYYY-MM-DDThh:mm:ssTZD` or
    /// `YYYY-MM-DDThh:mm:ss.sTZD`, where TZD is `Z` or `±hh:mm`
    /// (<https://www.w3.org/TR/NOTE-datetime>, the form sitemaps.org names).
    ///
    /// Leniencies seen in real sitemaps: a missing zone (then
    /// [`Time::offset_minutes`] is `None`), `±hhmm` and `±hh` zones, and
    /// lower-case `t` and `z`. Out-of-range fields are refused.
    pub fn parse_w3c(s: &str) -> Option<DateTime> {
        let s = s.trim().as_bytes();
        let year = digits(s, 0, 4)? as u16;
        if s.len() == 4 {
            return Some(DateTime { year, month: None, day: None, time: None });
        }
        if s.get(4) != Some(&b'-') {
            return None;
        }
        let month = digits(s, 5, 2)? as u8;
        if !(1..=12).contains(&month) {
            return None;
        }
        if s.len() == 7 {
            return Some(DateTime { year, month: Some(month), day: None, time: None });
        }
        if s.get(7) != Some(&b'-') {
            return None;
        }
        let day = digits(s, 8, 2)? as u8;
        if day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let date = DateTime { year, month: Some(month), day: Some(day), time: None };
        if s.len() == 10 {
            return Some(date);
        }
        if !matches!(s.get(10), Some(b'T' | b't')) {
            return None;
        }
        let hour = digits(s, 11, 2)? as u8;
        if s.get(13) != Some(&b':') {
            return None;
        }
        let minute = digits(s, 14, 2)? as u8;
        let mut i = 16;
        let mut second = None;
        let mut nanosecond = 0;
        if s.get(i) == Some(&b':') {
            second = Some(digits(s, i + 1, 2)? as u8);
            i += 3;
            if s.get(i) == Some(&b'.') {
                let start = i + 1;
                let mut end = start;
                while s.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                if end == start {
                    return None;
                }
                for (k, b) in s[start..end.min(start + 9)].iter().enumerate() {
                    nanosecond += u32::from(b - b'0') * 10u32.pow(8 - k as u32);
                }
                i = end;
            }
        }
        if hour > 23 || minute > 59 || second.is_some_and(|s| s > 60) {
            return None;
        }
        let offset_minutes = zone(&s[i..])?;
        Some(DateTime { time: Some(Time { hour, minute, second, nanosecond, offset_minutes }), ..date })
    }

    /// Parses an RFC 822 date as RSS 2.0 `pubDate` uses it
    /// (<https://www.rssboard.org/rss-specification#ltpubdategtSubelementOfLtitemgt>,
    /// [RFC 822 §5](https://www.rfc-editor.org/rfc/rfc822#section-5) with
    /// RFC 1123's four-digit years): `[Day, ] DD Mon YYYY hh:mm[:ss] zone`,
    /// where zone is `GMT`, `UT`, `UTC`, `Z`, a US zone (`EST`…`PDT`), a
    /// military letter (read as UTC) or `±hhmm`.
    pub fn parse_rfc822(s: &str) -> Option<DateTime> {
        let s = s.trim();
        let s = match s.split_once(',') {
            Some((day, rest)) if day.trim().chars().all(|c| c.is_ascii_alphabetic()) => rest,
            _ => s,
        };
        let mut parts = s.split_whitespace();
        let day: u8 = parts.next()?.parse().ok()?;
        let month = month_number(parts.next()?)?;
        let year_text = parts.next()?;
        let mut year: u16 = year_text.parse().ok()?;
        match year_text.len() {
            2 => year += if year < 50 { 2000 } else { 1900 },
            4 => {}
            _ => return None,
        }
        if day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let date = DateTime { year, month: Some(month), day: Some(day), time: None };
        let Some(clock) = parts.next() else { return Some(date) };
        let mut fields = clock.split(':');
        let hour: u8 = fields.next()?.parse().ok()?;
        let minute: u8 = fields.next()?.parse().ok()?;
        let second: Option<u8> = match fields.next() {
            Some(sec) => Some(sec.parse().ok()?),
            None => None,
        };
        if fields.next().is_some() || hour > 23 || minute > 59 || second.is_some_and(|s| s > 60) {
            return None;
        }
        let offset_minutes = match parts.next() {
            None => None,
            Some(zone) => Some(rfc822_zone(zone)?),
        };
        Some(DateTime { time: Some(Time { hour, minute, second, nanosecond: 0, offset_minutes }), ..date })
    }

    /// Seconds since 1970-01-01T00:00:00Z, reading missing parts as their
    /// start (January, the 1st, midnight) and a missing zone as UTC. Useful
    /// for sorting and for "changed since" filters.
    pub fn unix_timestamp(&self) -> i64 {
        let days = days_from_civil(i64::from(self.year), self.month.unwrap_or(1).into(), self.day.unwrap_or(1).into());
        let mut seconds = days * 86_400;
        if let Some(t) = self.time {
            seconds += i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second.unwrap_or(0));
            seconds -= i64::from(t.offset_minutes.unwrap_or(0)) * 60;
        }
        seconds
    }
}

impl fmt::Display for DateTime {
    /// The W3C datetime form, at the precision the value has.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        let Some(month) = self.month else { return Ok(()) };
        write!(f, "-{month:02}")?;
        let Some(day) = self.day else { return Ok(()) };
        write!(f, "-{day:02}")?;
        let Some(t) = self.time else { return Ok(()) };
        write!(f, "T{:02}:{:02}", t.hour, t.minute)?;
        if let Some(second) = t.second {
            write!(f, ":{second:02}")?;
            if t.nanosecond > 0 {
                let fraction = format!("{:09}", t.nanosecond);
                write!(f, ".{}", fraction.trim_end_matches('0'))?;
            }
        }
        match t.offset_minutes {
            None => Ok(()),
            Some(0) => f.write_str("Z"),
            Some(m) => {
                let sign = if m < 0 { '-' } else { '+' };
                write!(f, "{sign}{:02}:{:02}", m.unsigned_abs() / 60, m.unsigned_abs() % 60)
            }
        }
    }
}

fn digits(s: &[u8], at: usize, n: usize) -> Option<u32> {
    let field = s.get(at..at + n)?;
    field.iter().try_fold(0u32, |acc, b| b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0')))
}

/// `Z`, `±hh:mm`, `±hhmm`, `±hh`, or nothing (`Some(None)`).
fn zone(s: &[u8]) -> Option<Option<i16>> {
    match s {
        [] => Some(None),
        [b'Z' | b'z'] => Some(Some(0)),
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (hours, minutes) = match rest.len() {
                2 => (digits(rest, 0, 2)?, 0),
                4 => (digits(rest, 0, 2)?, digits(rest, 2, 2)?),
                5 if rest[2] == b':' => (digits(rest, 0, 2)?, digits(rest, 3, 2)?),
                _ => return None,
            };
            if hours > 23 || minutes > 59 {
                return None;
            }
            let total = (hours * 60 + minutes) as i16;
            Some(Some(if *sign == b'-' { -total } else { total }))
        }
        _ => None,
    }
}

fn rfc822_zone(name: &str) -> Option<i16> {
    let hours = match name.to_ascii_uppercase().as_str() {
        "GMT" | "UT" | "UTC" | "Z" => 0,
        "EDT" => -4,
        "EST" | "CDT" => -5,
        "CST" | "MDT" => -6,
        "MST" | "PDT" => -7,
        "PST" => -8,
        // RFC 1123 notes military zones were specified wrongly in RFC 822; read as UTC.
        z if z.len() == 1 && z.as_bytes()[0].is_ascii_alphabetic() => 0,
        _ => return zone(name.as_bytes()).flatten(),
    };
    Some(hours * 60)
}

fn month_number(name: &str) -> Option<u8> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let prefix = name.get(..3)?;
    MONTHS.iter().position(|m| m.eq_ignore_ascii_case(prefix)).map(|i| i as u8 + 1)
}

fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`, <https://howardhinnant.github.io/date_algorithms.html>).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch() {
        assert_eq!(DateTime::parse_w3c("1970-01-01T00:00:00Z").unwrap().unix_timestamp(), 0);
        assert_eq!(DateTime::parse_w3c("2000-03-01").unwrap().unix_timestamp(), 951_868_800);
        assert_eq!(DateTime::parse_w3c("1969-12-31T23:00-01:00").unwrap().unix_timestamp(), 0);
    }

    #[test]
    fn rejects() {
        for bad in
            ["", "97", "1997-13", "1997-02-29", "1997-07-16T25:00Z", "1997-07-16T19:20+0100x", "1997-07-16 19:20Z"]
        {
            assert_eq!(DateTime::parse_w3c(bad), None, "{bad}");
        }
        for bad in ["", "Mon", "32 Jan 2020", "1 Foo 2020", "1 Jan 20201", "1 Jan 2020 25:00"] {
            assert_eq!(DateTime::parse_rfc822(bad), None, "{bad}");
        }
    }
}
