//! The URLs found so far: a seen set of 64-bit hashes (8 bytes a URL,
//! bounded by `max_urls`), and the URLs of the small sources (llms.txt,
//! the start page's links) held until the sitemaps have been read, so
//! that a URL every source lists is reported once with all of them.

use std::collections::{HashMap, HashSet};

use xxhash_rust::xxh3::xxh3_64;

use super::record::{MapSource, Sources};
use crate::NormalizedUrl;

/// The URLs met by a map run.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Hashes of the URLs reported.
    reported: HashSet<u64>,
    /// URLs of the small sources not reported yet, in the order found.
    held: Vec<(NormalizedUrl, Sources)>,
    /// Index in `held` by hash.
    held_at: HashMap<u64, usize>,
}

/// What [`Found::take`] says of a URL a sitemap lists.
pub(crate) enum Taken {
    /// Reported already.
    Duplicate,
    /// New to the report: with the sources of the small ones that listed it too.
    New(Sources),
}

impl Found {
    /// Holds `url`, found by `source` (a small one), until the end of the
    /// run; whether it is new.
    pub fn hold(&mut self, url: NormalizedUrl, source: MapSource) -> bool {
        let key = xxh3_64(url.as_str().as_bytes());
        match self.held_at.get(&key) {
            Some(&at) => {
                let known = self.held[at].1.contains(source);
                self.held[at].1.insert(source);
                !known
            }
            None => {
                self.held_at.insert(key, self.held.len());
                self.held.push((url, Sources::of(source)));
                true
            }
        }
    }

    /// Marks `url`, found by `source`, as reported, unless it was.
    pub fn take(&mut self, url: &NormalizedUrl, source: MapSource) -> Taken {
        let key = xxh3_64(url.as_str().as_bytes());
        if !self.reported.insert(key) {
            return Taken::Duplicate;
        }
        let mut sources = Sources::of(source);
        if let Some(&at) = self.held_at.get(&key) {
            sources.merge(self.held[at].1);
        }
        Taken::New(sources)
    }

    /// The held URLs not reported yet, in the order found.
    pub fn unreported(&mut self) -> Vec<(NormalizedUrl, Sources)> {
        let held = std::mem::take(&mut self.held);
        self.held_at.clear();
        held.into_iter().filter(|(url, _)| !self.reported.contains(&xxh3_64(url.as_str().as_bytes()))).collect()
    }
}
