//! Robots verdicts for many URLs of a few origins: each origin's
//! robots.txt is loaded once through the client (its cache, its SSRF
//! guard) and its compiled rules decide every URL after, so a sitemap of
//! 100,000 URLs costs one robots.txt and 100,000 index lookups.

use std::collections::HashMap;
use std::sync::Arc;

use url::Url;
use webcanon_client::CachedRobots;
use webcanon_client::Client;
use webcanon_core::policy::RobotsEvidence;

/// Origins whose robots.txt is held here; past that, each decision asks
/// the client, whose own cache is bounded.
const MAX_HELD_ORIGINS: usize = 256;

/// The robots.txt of each origin met, held for decisions.
pub(crate) struct Verdicts<'c> {
    client: &'c Client,
    held: HashMap<String, Option<Arc<CachedRobots>>>,
}

impl<'c> Verdicts<'c> {
    pub fn new(client: &'c Client) -> Verdicts<'c> {
        Verdicts { client, held: HashMap::new() }
    }

    /// Holds `robots` as the robots.txt of `url`'s origin.
    pub fn hold(&mut self, url: &Url, robots: Arc<CachedRobots>) {
        self.held.insert(url.origin().ascii_serialization(), Some(robots));
    }

    /// The verdict on `url` for the client's agent; `None` when its
    /// origin's robots.txt cannot be read here (the SSRF guard refuses the
    /// host, or this machine failed).
    pub async fn decide(&mut self, url: &Url) -> Option<RobotsEvidence> {
        let origin = url.origin().ascii_serialization();
        let robots = match self.held.get(&origin) {
            Some(held) => held.clone(),
            None => {
                let loaded = self.client.robots_txt(url.as_str()).await.ok();
                if self.held.len() < MAX_HELD_ORIGINS {
                    self.held.insert(origin, loaded.clone());
                }
                loaded
            }
        }?;
        let (evidence, _) = robots.evaluate(self.client.agent(), url.as_str(), true, unix_now());
        Some(evidence)
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}
