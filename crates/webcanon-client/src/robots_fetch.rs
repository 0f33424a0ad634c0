//! Fetching robots.txt for an origin (RFC 9309 §2.3).

use url::Url;
use webcanon_core::policy::RobotsAvailability;
use webcanon_core::robots::MAX_PARSE_BYTES;

use crate::http::{Http, Pace};
use crate::robots_cache::FetchedRobots;

/// RFC 9309 §2.3.1.2: follow at least five consecutive redirects; after
/// that robots.txt may be treated as unavailable.
pub const MAX_ROBOTS_REDIRECTS: usize = 5;

/// The robots.txt URL of the origin of `url`.
pub fn robots_url(url: &Url) -> Url {
    let mut robots = url.clone();
    robots.set_path("/robots.txt");
    robots.set_query(None);
    robots.set_fragment(None);
    // Credentials never travel to robots.txt.
    let _ = robots.set_username("");
    let _ = robots.set_password(None);
    robots
}

/// Fetches robots.txt at `robots_url` and classifies the outcome: 2xx
/// parsed (first 500 KiB), up to five redirects followed (more:
/// unavailable), 4xx unavailable (401/403 disallow-all when
/// `auth_disallows`), 429, 5xx, network errors and timeouts unreachable.
pub(crate) async fn fetch_robots(http: &Http, robots_url: &Url, auth_disallows: bool) -> FetchedRobots {
    let mut url = robots_url.clone();
    let mut redirects: Vec<(String, u16)> = Vec::new();
    let outcome =
        |status, availability, body, max_age, error, redirects: &mut Vec<(String, u16)>, last: &Url| FetchedRobots {
            robots_url: robots_url.to_string(),
            status,
            availability,
            body,
            max_age,
            error,
            redirects: std::mem::take(redirects),
            final_url: (last != robots_url).then(|| last.to_string()),
            local_failure: None,
        };
    for _ in 0..=MAX_ROBOTS_REDIRECTS {
        let answer = match http.get(&url, "text/plain, text/*;q=0.9, */*;q=0.1", MAX_PARSE_BYTES, Pace::Exempt).await {
            Ok(answer) => answer,
            Err(err) => {
                let local = err.is_local().then(|| err.to_string());
                let error = Some(err.to_string());
                let mut fetched =
                    outcome(None, RobotsAvailability::Unreachable, None, None, error, &mut redirects, &url);
                fetched.local_failure = local;
                return fetched;
            }
        };
        match answer.location() {
            Some(Ok(next)) => {
                redirects.push((url.to_string(), answer.status));
                url = next;
                continue;
            }
            Some(Err(message)) => {
                let status = Some(answer.status);
                return outcome(
                    status,
                    RobotsAvailability::Unreachable,
                    None,
                    None,
                    Some(message),
                    &mut redirects,
                    &url,
                );
            }
            None => {}
        }
        let availability = RobotsAvailability::from_status(answer.status, auth_disallows);
        let max_age = answer.header("cache-control").and_then(max_age);
        let error = (availability == RobotsAvailability::Unreachable).then(|| format!("HTTP {}", answer.status));
        let body = (availability == RobotsAvailability::Parsed).then_some(answer.body);
        return outcome(Some(answer.status), availability, body, max_age, error, &mut redirects, &url);
    }
    // Too many redirects: unavailable (RFC 9309 §2.3.1.2); the last
    // redirect's status says what happened.
    let last = redirects.last().map(|(_, status)| *status);
    let error = Some(format!("more than {MAX_ROBOTS_REDIRECTS} redirects"));
    outcome(last, RobotsAvailability::Unavailable, None, None, error, &mut redirects, &url)
}

/// The `max-age` of a `Cache-Control` value.
fn max_age(cache_control: &str) -> Option<u64> {
    cache_control.split(',').find_map(|directive| {
        let (name, value) = directive.trim().split_once('=')?;
        name.trim().eq_ignore_ascii_case("max-age").then(|| value.trim().trim_matches('"').parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_age_parsing() {
        assert_eq!(max_age("public, max-age=3600"), Some(3600));
        assert_eq!(max_age("MAX-AGE=\"60\""), Some(60));
        assert_eq!(max_age("no-cache"), None);
        assert_eq!(max_age("max-age=abc"), None);
    }

    #[test]
    fn robots_url_of_a_page() {
        let url = Url::parse("https://user:pw@example.com:8443/a/b?c#d").unwrap();
        assert_eq!(robots_url(&url).as_str(), "https://example.com:8443/robots.txt");
    }
}
