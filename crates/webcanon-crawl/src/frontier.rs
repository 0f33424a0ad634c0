//! The crawl frontier on disk: the seen set, the per-host queues and each
//! host's next-ready time, in one SQLite file.
//!
//! Memory does not grow with the page count: every URL lives on disk, and
//! SQLite's page cache is capped at [`CACHE_BYTES`]; what a crawl holds in
//! memory besides is one entry per request in flight. Each fetched page
//! ends in one transaction ([`Batch::finish`]) that removes it from its
//! queue, adds the URLs it led to and records how far the output has been
//! written: a crawl killed at any point resumes from the last finished
//! page, with the output cut back to match ([`Frontier::output_bytes`]).
//!
//! Hosts are scheduled by readiness: [`Frontier::lease`] hands out the
//! first queued URL of a host that has no request in flight and whose
//! next-ready time has come, so a host waiting out its `Crawl-delay`
//! holds no concurrency slot that another host could use.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use webcanon_client::ContentHash;

use crate::normalize::NormalizedUrl;

/// SQLite's page cache for the frontier: the ceiling of its memory,
/// whatever the number of URLs.
pub const CACHE_BYTES: usize = 16 << 20;

/// The frontier's file failed.
#[derive(Debug, thiserror::Error)]
#[error("crawl frontier {path}: {source}")]
pub struct FrontierError {
    path: String,
    #[source]
    source: rusqlite::Error,
}

/// A URL handed out for fetching: it stays in its queue, marked in
/// flight, until [`Batch::finish`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    id: i64,
    /// The URL.
    pub url: String,
    /// Its host.
    pub host: String,
    /// Its link depth (0 for a start URL).
    pub depth: u32,
    /// The page that linked to it, none for a start URL.
    pub parent: Option<String>,
    /// How many pages of its host were fetched before it.
    pub host_fetched: u64,
}

/// A URL to add to the frontier.
#[derive(Debug, Clone)]
pub struct NewUrl<'a> {
    /// The URL.
    pub url: &'a NormalizedUrl,
    /// Its depth.
    pub depth: u32,
    /// The page that linked to it.
    pub parent: Option<&'a str>,
}

/// Where a URL stands in the frontier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlState {
    /// Never met.
    New,
    /// Waiting in its host's queue, at this depth, from this parent.
    Queued {
        /// Its depth.
        depth: u32,
        /// The page that linked to it.
        parent: Option<String>,
    },
    /// Met and no longer waiting: in flight, fetched, or recorded without
    /// a request.
    Taken,
}

/// The frontier file.
pub struct Frontier {
    connection: Connection,
    path: String,
}

impl std::fmt::Debug for Frontier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frontier").field("path", &self.path).finish_non_exhaustive()
    }
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS seen (key INTEGER PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS queue (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    host TEXT NOT NULL,
    url TEXT NOT NULL,
    depth INTEGER NOT NULL,
    parent TEXT,
    in_flight INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS queue_by_host ON queue (host, in_flight, id);
CREATE TABLE IF NOT EXISTS hosts (
    host TEXT PRIMARY KEY,
    ready_at INTEGER NOT NULL DEFAULT 0,
    busy INTEGER NOT NULL DEFAULT 0,
    queued INTEGER NOT NULL DEFAULT 0,
    fetched INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS hosts_by_readiness ON hosts (busy, ready_at) WHERE queued > 0;
CREATE TABLE IF NOT EXISTS contents (hash INTEGER PRIMARY KEY, url TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nofollow (key INTEGER PRIMARY KEY, url TEXT NOT NULL, depth INTEGER NOT NULL, parent TEXT);
CREATE TABLE IF NOT EXISTS probes (host TEXT PRIMARY KEY, hash INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS state (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
";

impl Frontier {
    /// Opens (or creates) the frontier at `path`. URLs left in flight by a
    /// killed run go back to their queues.
    pub fn open(path: &Path) -> Result<Frontier, FrontierError> {
        let name = path.display().to_string();
        let error = |source| FrontierError { path: name.clone(), source };
        let connection = Connection::open(path).map_err(error)?;
        let frontier = Frontier { connection, path: name.clone() };
        frontier.setup().map_err(error)?;
        Ok(frontier)
    }

    /// A frontier in memory, for tests and crawls that need no resume.
    pub fn in_memory() -> Result<Frontier, FrontierError> {
        let error = |source| FrontierError { path: ":memory:".into(), source };
        let connection = Connection::open_in_memory().map_err(error)?;
        let frontier = Frontier { connection, path: ":memory:".into() };
        frontier.setup().map_err(error)?;
        Ok(frontier)
    }

    fn setup(&self) -> rusqlite::Result<()> {
        self.connection.pragma_update(None, "cache_size", -((CACHE_BYTES / 1024) as i64))?;
        self.connection.execute_batch(SCHEMA)?;
        self.connection.execute_batch(
            "UPDATE hosts SET busy = 0,
                 queued = queued + (SELECT COUNT(*) FROM queue WHERE queue.host = hosts.host AND in_flight = 1)
                 WHERE busy = 1;
             UPDATE queue SET in_flight = 0 WHERE in_flight = 1;",
        )
    }

    fn fail(&self, source: rusqlite::Error) -> FrontierError {
        FrontierError { path: self.path.clone(), source }
    }

    /// Starts a transaction: its changes are on disk together once
    /// [`Batch::commit`] returns, and none of them if it is dropped.
    pub fn begin(&mut self) -> Result<Batch<'_>, FrontierError> {
        let path = self.path.clone();
        let tx = self.connection.transaction().map_err(|source| FrontierError { path: path.clone(), source })?;
        Ok(Batch { tx, path })
    }

    /// Runs `work` in one transaction: everything it did is on disk
    /// together, or none of it.
    pub fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut Batch<'_>) -> Result<T, FrontierError>,
    ) -> Result<T, FrontierError> {
        let mut batch = self.begin()?;
        let value = work(&mut batch)?;
        batch.commit()?;
        Ok(value)
    }

    /// What the soft-404 probe of `host` found: `None` when it was not
    /// probed; `Some(None)` when a random path was not answered with a
    /// page; `Some(Some(hash))`, the text hash of the page it was
    /// answered with.
    pub fn probe_of(&self, host: &str) -> Result<Option<Option<ContentHash>>, FrontierError> {
        self.connection
            .query_row("SELECT hash FROM probes WHERE host = ?1", [host], |row| row.get::<_, Option<i64>>(0))
            .optional()
            .map(|found| found.map(|hash| hash.map(|h| ContentHash(h as u64))))
            .map_err(|e| self.fail(e))
    }

    /// The next URL to fetch: the oldest queued URL of the host that has
    /// been ready longest, among hosts with nothing in flight whose
    /// next-ready time (milliseconds of the caller's clock) is not after
    /// `now_ms`.
    pub fn lease(&mut self, now_ms: i64) -> Result<Option<Lease>, FrontierError> {
        self.transaction(|batch| batch.lease(now_ms))
    }

    /// When the next host becomes ready, if any host with queued URLs has
    /// nothing in flight.
    pub fn next_ready_at(&self) -> Result<Option<i64>, FrontierError> {
        self.connection
            .query_row("SELECT MIN(ready_at) FROM hosts WHERE busy = 0 AND queued > 0", [], |row| row.get(0))
            .map_err(|e| self.fail(e))
    }

    /// Where `url` stands: new, waiting in its queue, or taken.
    pub fn state_of(&self, url: &NormalizedUrl) -> Result<UrlState, FrontierError> {
        state_of(&self.connection, url).map_err(|e| self.fail(e))
    }

    /// Whether any URL is queued or in flight.
    pub fn has_work(&self) -> Result<bool, FrontierError> {
        self.connection.query_row("SELECT EXISTS (SELECT 1 FROM queue)", [], |row| row.get(0)).map_err(|e| self.fail(e))
    }

    /// How many URLs the seen set holds.
    pub fn seen_count(&self) -> Result<u64, FrontierError> {
        self.connection
            .query_row("SELECT COUNT(*) FROM seen", [], |row| row.get::<_, i64>(0))
            .map(|count| count as u64)
            .map_err(|e| self.fail(e))
    }

    /// A counter kept with the frontier (0 when never set).
    pub fn counter(&self, name: &str) -> Result<u64, FrontierError> {
        self.connection
            .query_row("SELECT value FROM state WHERE name = ?1", [name], |row| row.get::<_, i64>(0))
            .optional()
            .map(|v| v.unwrap_or(0) as u64)
            .map_err(|e| self.fail(e))
    }

    /// How many bytes of output the last finished transaction accounted
    /// for: the length to cut the output back to on resume.
    pub fn output_bytes(&self) -> Result<u64, FrontierError> {
        self.counter(OUTPUT_BYTES)
    }

    /// Links not followed for `nofollow` whose URL no page led to
    /// otherwise, with their depth and parent, in the order met: each
    /// gets its record when the crawl ends.
    pub fn nofollow_only(&self) -> Result<Vec<(String, u32, Option<String>)>, FrontierError> {
        let mut statement = self
            .connection
            .prepare("SELECT url, depth, parent FROM nofollow WHERE key NOT IN (SELECT key FROM seen) ORDER BY rowid")
            .map_err(|e| self.fail(e))?;
        let rows: Vec<(String, u32, Option<String>)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|e| self.fail(e))?;
        Ok(rows)
    }
}

/// Where `url` stands, read through `connection` (the frontier's own, or
/// its open transaction). A queued URL is looked for among its host's
/// waiting URLs, through the host index.
fn state_of(connection: &Connection, url: &NormalizedUrl) -> rusqlite::Result<UrlState> {
    let seen: bool =
        connection
            .query_row("SELECT EXISTS (SELECT 1 FROM seen WHERE key = ?1)", [url.key() as i64], |row| row.get(0))?;
    if !seen {
        return Ok(UrlState::New);
    }
    let queued = connection
        .query_row(
            "SELECT depth, parent FROM queue WHERE host = ?1 AND in_flight = 0 AND url = ?2 LIMIT 1",
            [url.host(), url.as_str()],
            |row| Ok(UrlState::Queued { depth: row.get(0)?, parent: row.get(1)? }),
        )
        .optional()?;
    Ok(queued.unwrap_or(UrlState::Taken))
}

/// The name of the output-length counter.
const OUTPUT_BYTES: &str = "output_bytes";

/// The changes of one transaction ([`Frontier::transaction`]).
pub struct Batch<'a> {
    tx: rusqlite::Transaction<'a>,
    path: String,
}

impl std::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Batch<'_> {
    /// Commits the transaction.
    pub fn commit(self) -> Result<(), FrontierError> {
        let path = self.path;
        self.tx.commit().map_err(|source| FrontierError { path, source })
    }

    /// Records what the soft-404 probe of `host` found.
    pub fn set_probe(&mut self, host: &str, hash: Option<ContentHash>) -> Result<(), FrontierError> {
        self.tx
            .execute(
                "INSERT OR REPLACE INTO probes (host, hash) VALUES (?1, ?2)",
                params![host, hash.map(|h| h.0 as i64)],
            )
            .map(drop)
            .map_err(|e| self.fail(e))
    }

    /// Forgets the links noted for `nofollow` (once they are recorded).
    pub fn clear_nofollow(&mut self) -> Result<(), FrontierError> {
        self.tx.execute("DELETE FROM nofollow", []).map(drop).map_err(|e| self.fail(e))
    }

    /// The oldest queued URL of any host, ready or not: how the queue is
    /// emptied once the crawl stops.
    pub fn lease_any(&mut self) -> Result<Option<Lease>, FrontierError> {
        self.lease(i64::MAX)
    }

    fn fail(&self, source: rusqlite::Error) -> FrontierError {
        FrontierError { path: self.path.clone(), source }
    }

    /// Adds `url` to the seen set; `true` when it was not seen before.
    pub fn see(&mut self, url: &NormalizedUrl) -> Result<bool, FrontierError> {
        let key = url.key() as i64;
        let added = self.tx.execute("INSERT OR IGNORE INTO seen (key) VALUES (?1)", [key]).map_err(|e| self.fail(e))?;
        Ok(added == 1)
    }

    /// Adds `url` to the seen set and, when it is new, to its host's
    /// queue; `true` when it was new.
    pub fn push(&mut self, new: &NewUrl<'_>) -> Result<bool, FrontierError> {
        if !self.see(new.url)? {
            return Ok(false);
        }
        let host = new.url.host();
        self.tx
            .execute(
                "INSERT INTO queue (host, url, depth, parent) VALUES (?1, ?2, ?3, ?4)",
                params![host, new.url.as_str(), new.depth, new.parent],
            )
            .map_err(|e| self.fail(e))?;
        self.tx
            .execute(
                "INSERT INTO hosts (host, queued) VALUES (?1, 1)
                 ON CONFLICT (host) DO UPDATE SET queued = queued + 1",
                [host],
            )
            .map_err(|e| self.fail(e))?;
        Ok(true)
    }

    /// Takes `url` out of the crawl's way without a request: a new URL
    /// is marked seen, a queued one leaves its queue. Returns where it
    /// stood before; a [`UrlState::Taken`] URL is left as it is.
    pub fn settle(&mut self, url: &NormalizedUrl) -> Result<UrlState, FrontierError> {
        let state = state_of(&self.tx, url).map_err(|e| self.fail(e))?;
        match state {
            UrlState::New => {
                self.see(url)?;
            }
            UrlState::Queued { .. } => {
                self.tx
                    .execute(
                        "DELETE FROM queue WHERE host = ?1 AND url = ?2 AND in_flight = 0",
                        [url.host(), url.as_str()],
                    )
                    .map_err(|e| self.fail(e))?;
                self.tx
                    .execute("UPDATE hosts SET queued = queued - 1 WHERE host = ?1", [url.host()])
                    .map_err(|e| self.fail(e))?;
            }
            UrlState::Taken => {}
        }
        Ok(state)
    }

    /// Notes a link not followed for `nofollow` (once per URL).
    pub fn note_nofollow(&mut self, new: &NewUrl<'_>) -> Result<(), FrontierError> {
        self.tx
            .execute(
                "INSERT OR IGNORE INTO nofollow (key, url, depth, parent) VALUES (?1, ?2, ?3, ?4)",
                params![new.url.key() as i64, new.url.as_str(), new.depth, new.parent],
            )
            .map(drop)
            .map_err(|e| self.fail(e))
    }

    /// Records the content hash of `url`'s page: the URL that had it
    /// first when it was seen before.
    pub fn content_seen(&mut self, hash: u64, url: &str) -> Result<Option<String>, FrontierError> {
        let earlier: Option<String> = self
            .tx
            .query_row("SELECT url FROM contents WHERE hash = ?1", [hash as i64], |row| row.get(0))
            .optional()
            .map_err(|e| self.fail(e))?;
        if earlier.is_none() {
            self.tx
                .execute("INSERT INTO contents (hash, url) VALUES (?1, ?2)", params![hash as i64, url])
                .map_err(|e| self.fail(e))?;
        }
        Ok(earlier)
    }

    pub(crate) fn lease(&mut self, now_ms: i64) -> Result<Option<Lease>, FrontierError> {
        let host: Option<(String, i64)> = self
            .tx
            .query_row(
                "SELECT host, fetched FROM hosts WHERE busy = 0 AND queued > 0 AND ready_at <= ?1
                 ORDER BY ready_at LIMIT 1",
                [now_ms],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(|e| self.fail(e))?;
        let Some((host, fetched)) = host else { return Ok(None) };
        let (id, url, depth, parent) = self
            .tx
            .query_row(
                "SELECT id, url, depth, parent FROM queue WHERE host = ?1 AND in_flight = 0 ORDER BY id LIMIT 1",
                [&host],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
            )
            .map_err(|e| self.fail(e))?;
        self.tx.execute("UPDATE queue SET in_flight = 1 WHERE id = ?1", [id]).map_err(|e| self.fail(e))?;
        self.tx
            .execute("UPDATE hosts SET busy = 1, queued = queued - 1 WHERE host = ?1", [&host])
            .map_err(|e| self.fail(e))?;
        Ok(Some(Lease { id, url, host, depth, parent, host_fetched: fetched as u64 }))
    }

    /// Ends `lease`: the URL leaves its queue, its host is free again from
    /// `ready_at_ms` on, and counts one more page fetched when `fetched`.
    pub fn finish(&mut self, lease: &Lease, ready_at_ms: i64, fetched: bool) -> Result<(), FrontierError> {
        self.tx.execute("DELETE FROM queue WHERE id = ?1", [lease.id]).map_err(|e| self.fail(e))?;
        self.tx
            .execute(
                "UPDATE hosts SET busy = 0, ready_at = ?2, fetched = fetched + ?3 WHERE host = ?1",
                params![lease.host, ready_at_ms, fetched as i64],
            )
            .map(drop)
            .map_err(|e| self.fail(e))
    }

    /// Adds `delta` to a counter kept with the frontier.
    pub fn add_to_counter(&mut self, name: &str, delta: u64) -> Result<(), FrontierError> {
        self.tx
            .execute(
                "INSERT INTO state (name, value) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET value = value + ?2",
                params![name, delta as i64],
            )
            .map(drop)
            .map_err(|e| self.fail(e))
    }

    /// Sets the output length this transaction accounts for.
    pub fn set_output_bytes(&mut self, bytes: u64) -> Result<(), FrontierError> {
        self.tx
            .execute(
                "INSERT INTO state (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = ?2",
                params![OUTPUT_BYTES, bytes as i64],
            )
            .map(drop)
            .map_err(|e| self.fail(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(frontier: &mut Frontier, url: &str, depth: u32) -> bool {
        let url = NormalizedUrl::parse(url).unwrap();
        frontier.transaction(|b| b.push(&NewUrl { url: &url, depth, parent: None })).unwrap()
    }

    #[test]
    fn a_url_is_queued_once_and_hosts_take_turns() {
        let mut frontier = Frontier::in_memory().unwrap();
        assert!(push(&mut frontier, "https://a.test/1", 0));
        assert!(!push(&mut frontier, "https://a.test/1#again", 1));
        assert!(push(&mut frontier, "https://a.test/2", 1));
        assert!(push(&mut frontier, "https://b.test/1", 0));
        let first = frontier.lease(0).unwrap().unwrap();
        assert_eq!(first.url, "https://a.test/1");
        // a.test has a request in flight: b.test goes next, then nothing.
        let second = frontier.lease(0).unwrap().unwrap();
        assert_eq!(second.url, "https://b.test/1");
        assert_eq!(frontier.lease(0).unwrap(), None);
        // a.test waits out its delay; b.test's is shorter.
        frontier.transaction(|b| b.finish(&first, 1_000, true)).unwrap();
        assert_eq!(frontier.lease(999).unwrap(), None);
        assert_eq!(frontier.next_ready_at().unwrap(), Some(1_000));
        let third = frontier.lease(1_000).unwrap().unwrap();
        assert_eq!((third.url.as_str(), third.host_fetched), ("https://a.test/2", 1));
    }

    #[test]
    fn urls_in_flight_go_back_to_their_queue_on_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frontier.sqlite");
        let mut frontier = Frontier::open(&path).unwrap();
        push(&mut frontier, "https://a.test/1", 0);
        let lease = frontier.lease(0).unwrap().unwrap();
        drop(frontier);
        let mut frontier = Frontier::open(&path).unwrap();
        assert_eq!(frontier.lease(0).unwrap().map(|l| l.url), Some(lease.url));
    }

    #[test]
    fn content_hashes_name_the_first_url() {
        let mut frontier = Frontier::in_memory().unwrap();
        assert_eq!(frontier.transaction(|b| b.content_seen(7, "https://a.test/1")).unwrap(), None);
        let earlier = frontier.transaction(|b| b.content_seen(7, "https://a.test/2")).unwrap();
        assert_eq!(earlier.as_deref(), Some("https://a.test/1"));
    }
}
