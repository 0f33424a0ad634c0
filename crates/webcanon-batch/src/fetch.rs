//! The fetch pass: one polite robots.txt fetch per origin.
//!
//! Origins are grouped by host (http and https and every port of a host
//! share it); up to `concurrency` hosts are worked on at once, and the
//! origins of one host one after the other, so a host never sees two
//! requests from the pass at the same time. Every fetch goes through
//! [`Client::robots_txt`]: the SSRF guard, RFC 9309 redirects and limits,
//! and the client's robots store (a `--cache-dir` or Redis store answers
//! origins it already holds without a request).
//!
//! A host's task hands each entry to the sink as a [`Fetched`] and waits
//! until the sink confirms it recorded it before it moves on or gives up
//! its slot. So at any moment at most `concurrency` origins have been
//! requested without being recorded: the most a killed run fetches again.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::JoinSet;
use webcanon_client::Client;
use webcanon_client::error::Error;
use webcanon_core::policy::RobotsAvailability;

use crate::origin::host_of_origin;
use crate::snapshot::{SnapshotEntry, SnapshotStatus};

/// The default number of hosts fetched from at once.
pub const DEFAULT_CONCURRENCY: usize = 64;

/// Groups `origins` by host, keeping first-seen order.
pub fn group_by_host(origins: impl IntoIterator<Item = String>) -> Vec<Vec<String>> {
    group_by_key(origins, |origin| host_of_origin(origin).to_ascii_lowercase())
}

/// `items` grouped by `key`, groups and their items in first-seen order.
pub(crate) fn group_by_key<T>(items: impl IntoIterator<Item = T>, key: impl Fn(&T) -> String) -> Vec<Vec<T>> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Vec<T>> = Vec::new();
    for item in items {
        let key = key(&item);
        match index.get(&key) {
            Some(&i) => groups[i].push(item),
            None => {
                index.insert(key, groups.len());
                groups.push(vec![item]);
            }
        }
    }
    groups
}

/// Fetches robots.txt for one origin and turns the outcome into a snapshot
/// entry: the site's failures (unreachable, refused) are entries too.
/// `Err` is a failure of this machine (out of descriptors, buffers or
/// ports, after retries): nothing about the site, so no entry.
pub async fn fetch_origin(client: &Client, origin: &str) -> Result<SnapshotEntry, String> {
    let now = i64::try_from(webcanon_client::store::unix_now()).unwrap_or(i64::MAX);
    let failed = |status: SnapshotStatus, error: String| SnapshotEntry {
        origin: origin.to_string(),
        status,
        http_status: None,
        body: None,
        fetched_at: now,
        error: Some(error),
        last_good_at: None,
    };
    Ok(match client.robots_txt(&format!("{origin}/")).await {
        Ok(cached) => {
            let record = cached.record();
            let stale = cached.stale_since();
            let body = match (stale, record.availability) {
                (Some(_), _) => cached.rules_body().map(<[u8]>::to_vec),
                (None, RobotsAvailability::Parsed | RobotsAvailability::NotRobots) => record.body.clone(),
                (None, _) => None,
            };
            SnapshotEntry {
                origin: origin.to_string(),
                status: record.availability.into(),
                http_status: record.status,
                body,
                fetched_at: i64::try_from(record.fetched_at).unwrap_or(i64::MAX),
                error: record.error.clone(),
                last_good_at: stale.map(|t| i64::try_from(t).unwrap_or(i64::MAX)),
            }
        }
        Err(Error::Ssrf(e)) => failed(SnapshotStatus::Refused, e.to_string()),
        Err(Error::Fetch(local)) if local.is_local() => return Err(local.to_string()),
        // A name that does not resolve is a network failure too
        // (`FetchError::Resolve`): unreachable, as a connection error is.
        Err(other) => failed(RobotsAvailability::Unreachable.into(), other.to_string()),
    })
}

/// One fetched origin on its way to the sink of [`fetch_all`].
#[derive(Debug)]
pub struct Fetched {
    /// The origin's entry, or why this machine could not fetch it
    /// ([`fetch_origin`]): then nothing is recorded for the origin.
    pub entry: Result<SnapshotEntry, String>,
    /// Confirms the entry is recorded; the fetching task waits for it.
    pub recorded: Recorded,
}

/// The sink's confirmation that it recorded an entry (journaled it, or
/// kept it in memory). Dropping it unconfirmed stops the task that sent
/// the entry, as a closed sink does.
#[derive(Debug)]
pub struct Recorded(oneshot::Sender<()>);

impl Recorded {
    /// Lets the fetching task go on to its host's next origin.
    pub fn confirm(self) {
        // The task may be gone already (the pass was dropped): nothing to do.
        let _ = self.0.send(());
    }
}

/// Fetches every origin of `groups` (one group per host), `concurrency`
/// hosts at once, sending each entry to `sink` as it completes and going
/// on with that host only once the sink has confirmed it.
pub async fn fetch_all(client: Client, groups: Vec<Vec<String>>, concurrency: usize, sink: mpsc::Sender<Fetched>) {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for group in groups {
        let Ok(permit) = permits.clone().acquire_owned().await else { break };
        let client = client.clone();
        let sink = sink.clone();
        tasks.spawn(async move {
            for origin in group {
                let entry = fetch_origin(&client, &origin).await;
                let (confirm, confirmed) = oneshot::channel();
                if sink.send(Fetched { entry, recorded: Recorded(confirm) }).await.is_err() {
                    break;
                }
                if confirmed.await.is_err() {
                    break;
                }
            }
            drop(permit);
        });
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_of_one_host_share_a_group() {
        let groups = group_by_host(
            ["https://a.test", "https://b.test", "http://a.test", "https://a.test:8443", "https://B.test:1"]
                .map(String::from),
        );
        assert_eq!(
            groups,
            vec![
                vec!["https://a.test".to_string(), "http://a.test".into(), "https://a.test:8443".into()],
                vec!["https://b.test".to_string(), "https://B.test:1".into()],
            ]
        );
    }
}
