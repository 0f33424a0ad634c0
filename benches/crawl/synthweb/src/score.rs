//! The scorer: reads the server's request log against the generated web
//! and counts what a crawler did: pages fetched, requests RFC 9309
//! disallows for the benchmark agent, `Crawl-delay` violations, duplicate
//! fetches and trap pages.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::net::SocketAddrV4;

use crate::robots::Verdicts;
use crate::web::{Resource, Web};

/// Slack under a site's `Crawl-delay` before two requests count as a
/// violation: the server stamps arrivals, the crawler its own sends.
const DELAY_SLACK_SECONDS: f64 = 0.010;

/// What one crawler did, from the request log.
#[derive(Debug, Default, PartialEq)]
pub struct Score {
    /// Pages of the whole web, traps excluded.
    pub web_pages: u64,
    /// Log lines.
    pub requests: u64,
    /// Distinct pages (HTML or Markdown twin) answered 200.
    pub pages: u64,
    /// Of `pages`, those RFC 9309 allows the benchmark agent.
    pub allowed_pages: u64,
    /// Distinct trap pages answered 200.
    pub trap_pages: u64,
    /// Requests RFC 9309 disallows for the benchmark agent.
    pub disallowed: u64,
    /// The disallowed requests by the robots.txt case of their site.
    pub disallowed_by_case: BTreeMap<String, u64>,
    /// Requests to a site with `Crawl-delay` sooner than the delay after
    /// the previous one (robots.txt excluded).
    pub delay_violations: u64,
    /// Requests for a URL (origin, path and query) already requested.
    pub duplicates: u64,
    /// Seconds from the first request to the last.
    pub span_seconds: f64,
}

/// Scores the log read from `log` against `web`.
pub fn score(web: &Web, log: impl BufRead) -> std::io::Result<Score> {
    let mut score = Score { web_pages: web.total_pages(), ..Score::default() };
    let mut seen = HashSet::new();
    let mut pages = HashSet::new();
    let mut verdicts: HashMap<u32, Verdicts> = HashMap::new();
    let mut delayed_times: HashMap<u32, Vec<f64>> = HashMap::new();
    let (mut first, mut last) = (f64::INFINITY, 0.0_f64);
    for line in log.lines() {
        let line = line?;
        let mut fields = line.split('\t');
        let (Some(time), Some(origin), Some(path), Some(status)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (Ok(time), Ok(address)) = (time.parse::<f64>(), origin.parse::<SocketAddrV4>()) else { continue };
        let Some(site) = web.site_at(*address.ip()) else { continue };
        score.requests += 1;
        first = first.min(time);
        last = last.max(time);
        let url = format!("http://{origin}{path}");
        if !seen.insert(url.clone()) {
            score.duplicates += 1;
        }
        let resource = site.resource(path);
        let site_verdicts = verdicts.entry(site.index).or_insert_with(|| Verdicts::new(&site, &site.origin(web.port)));
        let allowed = site_verdicts.allows(&url);
        if !allowed {
            score.disallowed += 1;
            *score.disallowed_by_case.entry(format!("{:?}", site.robots)).or_default() += 1;
        }
        if site.crawl_delay_seconds().is_some() && resource != Resource::Robots {
            delayed_times.entry(site.index).or_default().push(time);
        }
        let fetched = matches!(resource, Resource::Page { .. } | Resource::Trap);
        if status == "200" && fetched && pages.insert(url) {
            match resource {
                Resource::Trap => score.trap_pages += 1,
                _ => {
                    score.pages += 1;
                    score.allowed_pages += u64::from(allowed);
                }
            }
        }
    }
    for (index, mut times) in delayed_times {
        let delay = f64::from(web.site(index).crawl_delay_seconds().unwrap_or(0));
        times.sort_by(f64::total_cmp);
        score.delay_violations +=
            times.windows(2).filter(|pair| pair[1] - pair[0] < delay - DELAY_SLACK_SECONDS).count() as u64;
    }
    score.span_seconds = if score.requests > 0 { last - first } else { 0.0 };
    Ok(score)
}

impl Score {
    /// The score as one JSON object.
    pub fn to_json(&self) -> String {
        let cases: Vec<String> =
            self.disallowed_by_case.iter().map(|(case, count)| format!("\"{case}\":{count}")).collect();
        format!(
            "{{\"web_pages\":{},\"requests\":{},\"pages\":{},\"allowed_pages\":{},\"trap_pages\":{},\"disallowed\":{},\"disallowed_by_case\":{{{}}},\
             \"delay_violations\":{},\"duplicates\":{},\"span_seconds\":{:.3}}}",
            self.web_pages,
            self.requests,
            self.pages,
            self.allowed_pages,
            self.trap_pages,
            self.disallowed,
            cases.join(","),
            self.delay_violations,
            self.duplicates,
            self.span_seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> Web {
        Web { seed: 1, sites: 12, pages: 100, port: 8080 }
    }

    #[test]
    fn a_polite_crawl_scores_clean() {
        let log = "0.0\t127.1.0.1:8080\t/robots.txt\t200\tbenchbot\n\
                   0.1\t127.1.0.1:8080\t/\t200\tbenchbot\n\
                   0.2\t127.1.0.1:8080\t/docs/8.html\t200\tbenchbot\n\
                   0.3\t127.1.0.5:8080\t/robots.txt\t200\tbenchbot\n\
                   0.3\t127.1.0.5:8080\t/\t200\tbenchbot\n\
                   1.3\t127.1.0.5:8080\t/docs/8.html\t200\tbenchbot\n";
        let score = score(&web(), log.as_bytes()).expect("read");
        let expected =
            Score { web_pages: 1020, requests: 6, pages: 4, allowed_pages: 4, span_seconds: 1.3, ..Score::default() };
        assert_eq!(score, expected);
    }

    #[test]
    fn violations_of_each_kind_are_counted() {
        let log = "0.0\t127.1.0.2:8080\t/blog/drafts/5.html\t200\tbenchbot\n\
                   0.1\t127.1.0.6:8080\t/\t200\tbenchbot\n\
                   0.2\t127.1.0.5:8080\t/\t200\tbenchbot\n\
                   0.5\t127.1.0.5:8080\t/docs/8.html\t200\tbenchbot\n\
                   0.6\t127.1.0.5:8080\t/docs/8.html\t200\tbenchbot\n\
                   0.7\t127.1.0.4:8080\t/calendar/2026/11\t200\tbenchbot\n";
        let score = score(&web(), log.as_bytes()).expect("read");
        assert_eq!(score.disallowed, 2, "the drafts and the site whose robots.txt fails");
        assert_eq!(
            score.disallowed_by_case,
            BTreeMap::from([("OrderAgainstLength".to_owned(), 1), ("ServerError".to_owned(), 1)])
        );
        assert_eq!(score.delay_violations, 2);
        assert_eq!(score.duplicates, 1);
        assert_eq!(score.pages, 4);
        assert_eq!(score.allowed_pages, 2, "the drafts and the failing site's home page are not");
        assert_eq!(score.trap_pages, 1);
    }
}
