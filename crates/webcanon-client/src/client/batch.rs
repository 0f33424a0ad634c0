//! Many robots.txt decisions at once: [`Client::check_many`].

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use url::Url;
use webcanon_core::policy::{RobotsEvidence, RobotsMode};

use super::handle::Client;
use crate::error::Error;
use crate::robots_fetch::{fetch_robots, robots_url};
use crate::store::unix_now;
use crate::warning::Warning;

/// How many origins [`Client::check_many`] loads at the same time.
pub const CHECK_MANY_ORIGINS_AT_ONCE: usize = 16;

/// The answer for one URL of [`Client::check_many`].
pub type CheckOutcome = Result<(RobotsEvidence, Vec<Warning>), Error>;

impl Client {
    /// The robots verdicts for many URLs, in input order, without fetching
    /// any page: like [`Client::check`] for each, but robots.txt is loaded
    /// once per origin for the whole call (even without a cache), up to
    /// [`CHECK_MANY_ORIGINS_AT_ONCE`] origins at a time. A URL that is
    /// invalid or refused by the SSRF guard gets its own error; the others
    /// are decided as usual.
    pub async fn check_many(&self, urls: &[String]) -> Vec<CheckOutcome> {
        let mut outcomes: Vec<Option<CheckOutcome>> = (0..urls.len()).map(|_| None).collect();
        let mut groups: HashMap<String, Vec<(usize, Url)>> = HashMap::new();
        for (index, input) in urls.iter().enumerate() {
            match Client::parse_url(input) {
                Ok(url) => groups.entry(url.origin().ascii_serialization()).or_default().push((index, url)),
                Err(err) => outcomes[index] = Some(Err(err)),
            }
        }
        let permits = Arc::new(Semaphore::new(CHECK_MANY_ORIGINS_AT_ONCE));
        let mut tasks = JoinSet::new();
        for (origin, group) in groups {
            let client = self.clone();
            let permits = permits.clone();
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await;
                client.check_origin(&origin, group).await
            });
        }
        while let Some(joined) = tasks.join_next().await {
            let decided = match joined {
                Ok(decided) => decided,
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Err(_) => continue,
            };
            for (index, outcome) in decided {
                outcomes[index] = Some(outcome);
            }
        }
        outcomes.into_iter().map(|o| o.expect("every URL belongs to a group or failed to parse")).collect()
    }

    /// Decides every URL of one origin with one robots.txt load.
    async fn check_origin(&self, origin: &str, group: Vec<(usize, Url)>) -> Vec<(usize, CheckOutcome)> {
        let inner = &self.inner;
        let guard = &inner.http.guard;
        let mut admitted = Vec::with_capacity(group.len());
        let mut decided = Vec::with_capacity(group.len());
        for (index, url) in group {
            match guard.check_url(&url) {
                Ok(()) => admitted.push((index, url)),
                Err(err) => decided.push((index, Err(Error::Ssrf(err)))),
            }
        }
        let Some((_, first)) = admitted.first() else { return decided };
        // As in `vet`: a name that does not resolve is not refused; its
        // robots.txt is unreachable.
        if let Some(url::Host::Domain(name)) = first.host()
            && let Err(err) = guard.resolve(name, first.port_or_known_default()).await
            && !err.is_lookup_failure()
        {
            decided.extend(admitted.into_iter().map(|(index, _)| (index, Err(Error::Ssrf(err.clone())))));
            return decided;
        }
        if inner.mode == RobotsMode::Ignore {
            decided.extend(admitted.into_iter().map(|(index, _)| (index, Ok((RobotsEvidence::skipped(), Vec::new())))));
            return decided;
        }
        let robots_url = robots_url(first);
        let (cached, from_cache) =
            inner.cache.get(origin, || fetch_robots(&inner.http, &robots_url, inner.auth_disallows)).await;
        if cached.local_failure().is_some() {
            let failed =
                admitted.into_iter().filter_map(|(index, _)| Some((index, Err(Error::Fetch(cached.local_failure()?)))));
            decided.extend(failed);
            return decided;
        }
        let now = unix_now();
        for (index, url) in admitted {
            decided.push((index, Ok(cached.evaluate(&inner.agent, url.as_str(), from_cache, now))));
        }
        decided
    }
}
