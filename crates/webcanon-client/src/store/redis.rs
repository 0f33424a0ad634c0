//! The fleet store: Redis or Valkey, shared by every process of a fleet,
//! over a local store that takes over whenever the server does not answer.
//!
//! Keys (the prefix is `webcanon` unless [`RedisOptions::prefix`] says
//! otherwise):
//!
//! | key | value | expires |
//! |---|---|---|
//! | `webcanon:robots:{origin}` | the latest outcome | an hour after it stops being fresh (the next fetch still counts failures for its back-off) |
//! | `webcanon:robots-good:{origin}` | the last good copy | 30 days after it was fetched |
//! | `webcanon:llms:{url}` | an llms.txt outcome | as the latest robots outcome |
//! | `webcanon:robots-lock:{origin}` | the token of the process fetching robots.txt | the lock time |
//! | `webcanon:pace:{host}` | the last reserved request slot, µs on the server clock | a minute after the slot |
//!
//! Values are one line of JSON (every field of [`RobotsRecord`] but the
//! body), a newline, then the body as it was received.
//!
//! The trait is synchronous, so every call blocks the calling thread; the
//! connect and response timeouts (250 ms by default) bound that, and after
//! a failure the server is left alone for [`RedisOptions::retry_interval`]
//! (calls go straight to the local layer), so a dead or hung server costs a
//! runtime thread at most one timeout per interval. A killed server or a
//! refused connection fails in microseconds. While the server is away:
//! entries are read from and written to the local store, no fetch lock is
//! taken (the client's own single flight remains), no slot is reserved (the
//! client paces locally), [`RobotsStore::health`] reports the outage, and
//! one `tracing` warning says so; the first call that succeeds again ends
//! the outage.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::{Connection, RedisError, RedisResult, Script};
use serde::{Deserialize, Serialize};
use webcanon_core::policy::RobotsAvailability;

use super::{FetchLock, RobotsRecord, RobotsStore, StoreError, StoreHealth, unix_now};
use crate::robots_cache::LAST_GOOD_MAX_AGE;

/// How long a latest outcome is kept after it stops being fresh.
const LATEST_GRACE: u64 = 60 * 60;
/// How long a pacing slot is kept after its time, at least.
const PACE_KEEP: Duration = Duration::from_secs(60);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 16;
/// The version of the value layout.
const LAYOUT: u32 = 1;
/// The name under which llms.txt outcomes reach the store (see `llms_hint`).
const LLMS_PREFIX: &str = "llms.txt ";

/// Deletes the lock only if it still holds the caller's token.
const RELEASE_LUA: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Reserves the next slot for a host: at least ARGV[1] µs after the slot
/// reserved before it, never in the past; returns the wait in µs. Time is
/// the server's, so the processes' clocks do not matter.
const RESERVE_LUA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]))
local at = now
if last and last + interval > now then
  at = last + interval
end
local keep_ms = math.floor((at - now + tonumber(ARGV[2])) / 1000) + 1
redis.call('SET', KEYS[1], string.format('%.0f', at), 'PX', keep_ms)
return math.floor(at - now)
";

/// Timeouts and names of a [`RedisStore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// The longest wait for an answer (and for a request to be written).
    pub response_timeout: Duration,
    /// After a failure, how long the server is left alone before the next try.
    pub retry_interval: Duration,
    /// The first part of every key.
    pub prefix: String,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            connect_timeout: Duration::from_millis(250),
            response_timeout: Duration::from_millis(250),
            retry_interval: Duration::from_secs(1),
            prefix: "webcanon".into(),
        }
    }
}

/// Robots.txt outcomes, fetch locks and pacing slots on a Redis or Valkey
/// server, with a local store (memory or SQLite) that keeps a copy of
/// everything written and serves alone while the server is away.
pub struct RedisStore {
    client: redis::Client,
    label: String,
    options: RedisOptions,
    local: Arc<dyn RobotsStore>,
    idle: Mutex<Vec<Connection>>,
    outage: Mutex<Option<Outage>>,
    errors: AtomicU64,
    release: Script,
    reserve: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("label", &self.label)
            .field("options", &self.options)
            .field("local", &self.local)
            .field("health", &self.health())
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Outage {
    reason: String,
    retry_at: Instant,
}

/// A record as stored, without its body (which follows the JSON line).
#[derive(Serialize, Deserialize)]
struct Header {
    v: u32,
    origin: String,
    robots_url: String,
    fetched_at: u64,
    expires_at: u64,
    status: Option<u16>,
    availability: RobotsAvailability,
    has_body: bool,
    failures: u32,
    error: Option<String>,
}

fn encode(record: &RobotsRecord) -> Vec<u8> {
    let header = Header {
        v: LAYOUT,
        origin: record.origin.clone(),
        robots_url: record.robots_url.clone(),
        fetched_at: record.fetched_at,
        expires_at: record.expires_at,
        status: record.status,
        availability: record.availability,
        has_body: record.body.is_some(),
        failures: record.failures,
        error: record.error.clone(),
    };
    let mut value = serde_json::to_vec(&header).expect("a record serialises");
    value.push(b'\n');
    if let Some(body) = &record.body {
        value.extend_from_slice(body);
    }
    value
}

fn decode(value: &[u8]) -> Result<RobotsRecord, String> {
    let split = memchr::memchr(b'\n', value).ok_or("no header line")?;
    let header: Header = serde_json::from_slice(&value[..split]).map_err(|e| format!("bad header: {e}"))?;
    if header.v != LAYOUT {
        return Err(format!("layout version {} (this webcanon writes {LAYOUT})", header.v));
    }
    Ok(RobotsRecord {
        origin: header.origin,
        robots_url: header.robots_url,
        fetched_at: header.fetched_at,
        expires_at: header.expires_at,
        status: header.status,
        availability: header.availability,
        body: header.has_body.then(|| value[split + 1..].to_vec()),
        failures: header.failures,
        error: header.error,
    })
}

/// A token no other lock holder has: process, time, and a counter.
fn lock_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Milliseconds for `PX`, at least 1.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl RedisStore {
    /// A store on the server at `url` (`redis://HOST:PORT[/DB]`,
    /// `valkey://…`, `redis+unix:///PATH`, `unix:///PATH`), over `local`.
    /// Nothing is sent yet: a server that is down at first is an outage
    /// like any other, not an error. Errors: a URL that is not a Redis URL,
    /// or asks for TLS (`rediss://`), which this build does not speak.
    pub fn open(url: &str, local: Arc<dyn RobotsStore>, options: RedisOptions) -> Result<RedisStore, StoreError> {
        let label = redacted(url);
        let client = client_for(url).map_err(|message| StoreError { store: format!("redis {label}"), message })?;
        Ok(RedisStore {
            client,
            label: format!("redis {label}"),
            options,
            local,
            idle: Mutex::new(Vec::new()),
            outage: Mutex::new(None),
            errors: AtomicU64::new(0),
            release: Script::new(RELEASE_LUA),
            reserve: Script::new(RESERVE_LUA),
        })
    }

    /// Checks that `url` is a Redis URL this store can use, and says what
    /// is wrong when it is not (for a usage error naming the option).
    pub fn check_url(url: &str) -> Result<(), String> {
        client_for(url).map(|_| ())
    }

    /// `url` with any password replaced by `***`: how a server URL is
    /// shown in messages.
    pub fn redact_url(url: &str) -> String {
        redacted(url)
    }

    /// `redis URL` with any password left out, as used in messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The local store that keeps a copy and serves during outages.
    pub fn local(&self) -> &Arc<dyn RobotsStore> {
        &self.local
    }

    /// The key of a kind of entry (`robots`, `robots-good`, `robots-lock`,
    /// `pace`) for `name` (an origin or a host).
    pub fn key(&self, kind: &str, name: &str) -> String {
        match name.strip_prefix(LLMS_PREFIX) {
            Some(url) if kind == "robots" => format!("{}:llms:{url}", self.options.prefix),
            _ => format!("{}:{kind}:{name}", self.options.prefix),
        }
    }

    fn connect(&self) -> RedisResult<Connection> {
        let connection = self.client.get_connection_with_timeout(self.options.connect_timeout)?;
        connection.set_read_timeout(Some(self.options.response_timeout))?;
        connection.set_write_timeout(Some(self.options.response_timeout))?;
        Ok(connection)
    }

    /// Whether to send anything now: yes unless an outage is under way and
    /// its retry time has not come (the caller that sees it come makes the
    /// one try; the others keep to the local layer meanwhile).
    fn may_try(&self) -> bool {
        let mut outage = self.outage.lock().unwrap_or_else(|p| p.into_inner());
        match outage.as_mut() {
            None => true,
            Some(o) => {
                let now = Instant::now();
                if now < o.retry_at {
                    return false;
                }
                o.retry_at = now + self.options.retry_interval;
                true
            }
        }
    }

    fn failed(&self, what: &str, err: &RedisError) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let reason = format!("{what}: {err}");
        let mut outage = self.outage.lock().unwrap_or_else(|p| p.into_inner());
        if outage.is_none() {
            tracing::warn!(
                "{} does not answer ({reason}); using the local cache, local single flight and local pacing until it does",
                self.label
            );
        }
        *outage = Some(Outage { reason, retry_at: Instant::now() + self.options.retry_interval });
    }

    fn answered(&self) {
        let mut outage = self.outage.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(ended) = outage.take() {
            tracing::info!(
                "{} answers again (the outage was: {}); shared cache, locks and pacing resumed",
                self.label,
                ended.reason
            );
        }
    }

    /// Runs `op` on a connection, or says why not (`None`): an outage, or a
    /// failure, which starts one. A pooled connection that turns out dead
    /// (the server restarted) is replaced once before giving up.
    fn run<T>(&self, what: &str, op: impl Fn(&mut Connection) -> RedisResult<T>) -> Option<T> {
        if !self.may_try() {
            self.errors.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let pooled = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let reused = pooled.is_some();
        let mut connection = match pooled.map_or_else(|| self.connect(), Ok) {
            Ok(connection) => connection,
            Err(err) => {
                self.failed(what, &err);
                return None;
            }
        };
        let mut result = op(&mut connection);
        if reused && result.as_ref().is_err_and(|e| e.is_connection_dropped() || e.is_io_error()) {
            result = self.connect().and_then(|mut fresh| {
                let answer = op(&mut fresh);
                connection = fresh;
                answer
            });
        }
        match result {
            Ok(value) => {
                self.answered();
                let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
                if idle.len() < MAX_IDLE {
                    idle.push(connection);
                }
                Some(value)
            }
            Err(err) => {
                self.failed(what, &err);
                None
            }
        }
    }

    fn get(&self, key: &str) -> Result<Option<Option<RobotsRecord>>, StoreError> {
        let Some(value) = self.run("GET", |c| redis::cmd("GET").arg(key).query::<Option<Vec<u8>>>(c)) else {
            return Ok(None);
        };
        match value {
            None => Ok(Some(None)),
            Some(bytes) => decode(&bytes).map(|record| Some(Some(record))).map_err(|message| StoreError {
                store: self.label.clone(),
                message: format!("entry {key}: {message}"),
            }),
        }
    }

    /// Writes `record` under `key` until `keep_until` (seconds since the
    /// epoch); a record already past it is removed instead.
    fn put(&self, key: &str, record: &RobotsRecord, keep_until: u64) {
        let now = unix_now();
        if keep_until <= now {
            self.run("DEL", |c| redis::cmd("DEL").arg(key).query::<i64>(c));
            return;
        }
        let value = encode(record);
        let px = (keep_until - now).saturating_mul(1000);
        self.run("SET", |c| redis::cmd("SET").arg(key).arg(&value).arg("PX").arg(px).query::<()>(c));
    }
}

/// A client for `url`: a Redis URL of a scheme this build speaks.
fn client_for(url: &str) -> Result<redis::Client, String> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("redis" | "valkey" | "redis+unix" | "valkey+unix" | "unix") => {}
        Some("rediss" | "valkeys") => {
            return Err("TLS (rediss://, valkeys://) is not supported; use redis:// or a unix socket".into());
        }
        _ => return Err("not a Redis URL: expected redis://HOST:PORT, valkey://HOST:PORT or redis+unix:///PATH".into()),
    }
    redis::Client::open(url).map_err(|e| format!("not a usable Redis URL: {e}"))
}

/// `url` without its password.
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

impl RobotsStore for RedisStore {
    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        match self.get(&self.key("robots", origin))? {
            Some(Some(record)) => Ok(Some(record)),
            // Not on the server (never written, expired, or a server that
            // restarted empty), or no server: what this process kept.
            _ => self.local.load(origin),
        }
    }

    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        let local = self.local.save(record);
        let keep_until = record.expires_at.saturating_add(LATEST_GRACE);
        self.put(&self.key("robots", &record.origin), record, keep_until);
        local
    }

    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        match self.get(&self.key("robots-good", origin))? {
            Some(Some(record)) => Ok(Some(record)),
            _ => self.local.load_last_good(origin),
        }
    }

    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        let local = self.local.save_last_good(record);
        let keep_until = record.fetched_at.saturating_add(LAST_GOOD_MAX_AGE);
        self.put(&self.key("robots-good", &record.origin), record, keep_until);
        local
    }

    fn try_fetch_lock(&self, origin: &str, ttl: Duration) -> Result<FetchLock, StoreError> {
        let key = self.key("robots-lock", origin);
        let token = lock_token();
        let px = millis(ttl);
        let taken = self.run("SET NX", |c| {
            redis::cmd("SET").arg(&key).arg(&token).arg("NX").arg("PX").arg(px).query::<Option<String>>(c)
        });
        Ok(match taken {
            None => FetchLock::Local,
            Some(Some(_)) => FetchLock::Acquired(token),
            Some(None) => FetchLock::Busy,
        })
    }

    fn release_fetch_lock(&self, origin: &str, token: &str) -> Result<(), StoreError> {
        let key = self.key("robots-lock", origin);
        // Failing to release only costs the others a wait until the lock expires.
        self.run("release lock", |c| self.release.key(&key).arg(token).invoke::<i64>(c));
        Ok(())
    }

    fn paces(&self) -> bool {
        true
    }

    fn reserve_slot(&self, host: &str, interval: Duration) -> Result<Option<Duration>, StoreError> {
        let key = self.key("pace", host);
        let keep = micros(interval.max(PACE_KEEP));
        let wait =
            self.run("reserve slot", |c| self.reserve.key(&key).arg(micros(interval)).arg(keep).invoke::<i64>(c));
        Ok(wait.map(|us| Duration::from_micros(u64::try_from(us).unwrap_or(0))))
    }

    fn health(&self) -> StoreHealth {
        let outage = self.outage.lock().unwrap_or_else(|p| p.into_inner());
        StoreHealth {
            degraded: outage.as_ref().map(|o| format!("{} does not answer ({})", self.label, o.reason)),
            errors: self.errors.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    fn record(body: Option<&[u8]>) -> RobotsRecord {
        RobotsRecord {
            origin: "https://a.test:8443".into(),
            robots_url: "https://a.test:8443/robots.txt".into(),
            fetched_at: 1_000,
            expires_at: 2_000,
            status: Some(200),
            availability: RobotsAvailability::Parsed,
            body: body.map(<[u8]>::to_vec),
            failures: 0,
            error: Some("line\nbreak".into()),
        }
    }

    #[test]
    fn values_round_trip_with_any_body() {
        for body in [None, Some(&b""[..]), Some(b"User-agent: *\nDisallow: /\n\n"), Some(&[0xff, 0, b'\n', 0x80][..])] {
            let record = record(body);
            assert_eq!(decode(&encode(&record)).unwrap(), record);
        }
    }

    #[test]
    fn undecodable_values_are_errors() {
        assert!(decode(b"no newline").unwrap_err().contains("no header"));
        assert!(decode(b"{\"v\":1}\nbody").unwrap_err().contains("bad header"));
        let mut future = encode(&record(None));
        future[5] = b'9';
        assert!(decode(&future).unwrap_err().contains("layout version 9"), "{:?}", decode(&future));
    }

    #[test]
    fn urls_are_checked() {
        let local: Arc<dyn RobotsStore> = Arc::new(MemoryStore::new());
        let open = |url: &str| RedisStore::open(url, local.clone(), RedisOptions::default()).map(|_| ());
        assert!(open("redis://127.0.0.1:6379").is_ok());
        assert!(open("valkey://cache.internal:6380/2").is_ok());
        assert!(open("redis+unix:///run/redis.sock").is_ok());
        let err = open("foo://x").unwrap_err().to_string();
        assert!(err.contains("not a Redis URL"), "{err}");
        let err = open("rediss://secure:6379").unwrap_err().to_string();
        assert!(err.contains("TLS"), "{err}");
        let err = open("127.0.0.1:6379").unwrap_err().to_string();
        assert!(err.contains("not a Redis URL"), "{err}");
        let err = RedisStore::open("redis://user:secret@h:1/x", local.clone(), RedisOptions::default())
            .unwrap_err()
            .to_string();
        assert!(!err.contains("secret"), "{err}");
    }

    #[test]
    fn keys_are_namespaced() {
        let store =
            RedisStore::open("redis://127.0.0.1:1", Arc::new(MemoryStore::new()), RedisOptions::default()).unwrap();
        assert_eq!(store.key("robots", "https://a.test"), "webcanon:robots:https://a.test");
        assert_eq!(store.key("robots-good", "https://a.test"), "webcanon:robots-good:https://a.test");
        assert_eq!(store.key("robots", "llms.txt https://a.test/llms.txt"), "webcanon:llms:https://a.test/llms.txt");
        assert_eq!(store.key("pace", "a.test"), "webcanon:pace:a.test");
    }

    #[test]
    fn a_dead_server_degrades_to_the_local_store_quickly() {
        // Port 1 on loopback: nothing listens, the connection is refused.
        let store =
            RedisStore::open("redis://127.0.0.1:1", Arc::new(MemoryStore::new()), RedisOptions::default()).unwrap();
        let started = Instant::now();
        let mut record = record(Some(b"User-agent: *\nDisallow: /x\n"));
        record.expires_at = unix_now() + 60;
        store.save(&record).unwrap();
        assert_eq!(store.load(&record.origin).unwrap(), Some(record.clone()));
        assert_eq!(store.try_fetch_lock(&record.origin, Duration::from_secs(5)).unwrap(), FetchLock::Local);
        assert_eq!(store.reserve_slot("a.test", Duration::from_millis(50)).unwrap(), None);
        // Refused at once: the bound only tells that from a client that
        // sleeps between reconnection attempts, with room for a loaded machine.
        assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
        let health = store.health();
        assert!(health.degraded.as_deref().is_some_and(|d| d.contains("127.0.0.1:1")), "{health:?}");
        assert_eq!(health.errors, 4);
    }
}
