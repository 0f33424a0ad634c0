//! The persistent store: one SQLite file in WAL mode, shared by the CLI,
//! the service and the MCP server, across threads and processes.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use webcanon_core::policy::RobotsAvailability;

use super::{RobotsRecord, RobotsStore, StoreError, unix_now};

/// The file name used by [`SqliteStore::open_dir`].
pub const FILE_NAME: &str = "robots.sqlite3";
/// The schema version this code writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;
/// Latest outcomes older than this are removed on open.
const STALE_LATEST: u64 = 30 * 24 * 60 * 60;

/// Robots.txt outcomes in a SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// Saves since the store was opened: every [`PRUNE_EVERY`]th prunes, so a
    /// long-lived process keeps the file to what is still of use.
    saves: std::sync::atomic::AtomicU64,
}

/// How many saves pass between two prunes.
const PRUNE_EVERY: u64 = 1000;

const TABLES: [&str; 2] = ["robots_latest", "robots_last_good"];

impl SqliteStore {
    /// Opens (or creates) `dir/robots.sqlite3`, creating `dir` if needed.
    pub fn open_dir(dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError {
            store: format!("sqlite {}", dir.display()),
            message: format!("cannot create the cache directory: {e}"),
        })?;
        SqliteStore::open(&dir.join(FILE_NAME))
    }

    /// Opens (or creates) the store at `path`: WAL mode, a busy timeout so
    /// concurrent processes wait instead of failing, the schema migrated,
    /// and entries past their use pruned.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let err =
            |e: rusqlite::Error| StoreError { store: format!("sqlite {}", path.display()), message: e.to_string() };
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(err)?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0)).map_err(|e| StoreError {
            store: format!("sqlite {}", path.display()),
            message: format!("not a usable SQLite database: {e}"),
        })?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError {
                store: format!("sqlite {}", path.display()),
                message: format!("cannot switch to WAL mode (journal mode is {mode})"),
            });
        }
        conn.execute_batch("PRAGMA synchronous=NORMAL;").map_err(err)?;
        let store = SqliteStore { path: path.to_path_buf(), conn: Mutex::new(conn), saves: Default::default() };
        store.migrate()?;
        store.prune(unix_now(), Duration::from_secs(crate::robots_cache::LAST_GOOD_MAX_AGE))?;
        Ok(store)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        StoreError { store: format!("sqlite {}", self.path.display()), message: e.to_string() }
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| self.error(e))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError {
                store: format!("sqlite {}", self.path.display()),
                message: format!("schema version {version} is newer than this webcanon understands ({SCHEMA_VERSION})"),
            });
        }
        if version < 1 {
            let mut sql = String::from("BEGIN IMMEDIATE;");
            for table in TABLES {
                sql.push_str(&format!(
                    "CREATE TABLE IF NOT EXISTS {table} (
                        origin TEXT PRIMARY KEY,
                        robots_url TEXT NOT NULL,
                        fetched_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        status INTEGER,
                        availability TEXT NOT NULL,
                        body BLOB,
                        failures INTEGER NOT NULL,
                        error TEXT
                    );"
                ));
            }
            sql.push_str("PRAGMA user_version = 1; COMMIT;");
            conn.execute_batch(&sql).map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// Removes last good copies older than `max_last_good_age`, latest
    /// outcomes that expired long ago, and llms.txt outcomes as soon as they
    /// expire (nothing is learnt from an old one).
    pub fn prune(&self, now: u64, max_last_good_age: Duration) -> Result<usize, StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let good_cutoff = now.saturating_sub(max_last_good_age.as_secs()) as i64;
        let latest_cutoff = now.saturating_sub(STALE_LATEST) as i64;
        let a = conn
            .execute("DELETE FROM robots_last_good WHERE fetched_at < ?1", params![good_cutoff])
            .map_err(|e| self.error(e))?;
        let b = conn
            .execute("DELETE FROM robots_latest WHERE expires_at < ?1", params![latest_cutoff])
            .map_err(|e| self.error(e))?;
        let c = conn
            .execute(
                "DELETE FROM robots_latest WHERE origin LIKE 'llms.txt %' AND expires_at < ?1",
                params![now as i64],
            )
            .map_err(|e| self.error(e))?;
        Ok(a + b + c)
    }

    fn load_from(&self, table: &str, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let sql = format!(
            "SELECT origin, robots_url, fetched_at, expires_at, status, availability, body, failures, error \
             FROM {table} WHERE origin = ?1"
        );
        let row = conn
            .query_row(&sql, params![origin], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, Option<i64>>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, Option<Vec<u8>>>(6)?,
                    row.get::<_, i64>(7)?,
                    row.get::<_, Option<String>>(8)?,
                ))
            })
            .optional()
            .map_err(|e| self.error(e))?;
        let Some((origin, robots_url, fetched_at, expires_at, status, availability, body, failures, error)) = row
        else {
            return Ok(None);
        };
        let availability = availability_from(&availability).ok_or_else(|| StoreError {
            store: format!("sqlite {}", self.path.display()),
            message: format!("unknown availability `{availability}` for {origin}"),
        })?;
        Ok(Some(RobotsRecord {
            origin,
            robots_url,
            fetched_at: fetched_at.max(0) as u64,
            expires_at: expires_at.max(0) as u64,
            status: status.and_then(|s| u16::try_from(s).ok()),
            availability,
            body,
            failures: u32::try_from(failures).unwrap_or(u32::MAX),
            error,
        }))
    }

    fn save_to(&self, table: &str, r: &RobotsRecord) -> Result<(), StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let sql = format!(
            "INSERT OR REPLACE INTO {table} \
             (origin, robots_url, fetched_at, expires_at, status, availability, body, failures, error) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        );
        conn.execute(
            &sql,
            params![
                r.origin,
                r.robots_url,
                i64::try_from(r.fetched_at).unwrap_or(i64::MAX),
                i64::try_from(r.expires_at).unwrap_or(i64::MAX),
                r.status.map(i64::from),
                availability_name(r.availability),
                r.body,
                i64::from(r.failures),
                r.error,
            ],
        )
        .map_err(|e| self.error(e))?;
        Ok(())
    }
}

fn availability_name(a: RobotsAvailability) -> &'static str {
    match a {
        RobotsAvailability::Parsed => "parsed",
        RobotsAvailability::NotRobots => "not_robots",
        RobotsAvailability::Unavailable => "unavailable",
        RobotsAvailability::AuthDisallowAll => "auth_disallow_all",
        RobotsAvailability::Unreachable => "unreachable",
    }
}

fn availability_from(name: &str) -> Option<RobotsAvailability> {
    [
        RobotsAvailability::Parsed,
        RobotsAvailability::NotRobots,
        RobotsAvailability::Unavailable,
        RobotsAvailability::AuthDisallowAll,
        RobotsAvailability::Unreachable,
    ]
    .into_iter()
    .find(|a| availability_name(*a) == name)
}

impl RobotsStore for SqliteStore {
    fn load(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        self.load_from("robots_latest", origin)
    }

    fn save(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        self.save_to("robots_latest", record)?;
        if self.saves.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1
            && let Err(err) = self.prune(unix_now(), Duration::from_secs(crate::robots_cache::LAST_GOOD_MAX_AGE))
        {
            tracing::warn!("{err}; the cache file was not pruned");
        }
        Ok(())
    }

    fn load_last_good(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        self.load_from("robots_last_good", origin)
    }

    fn save_last_good(&self, record: &RobotsRecord) -> Result<(), StoreError> {
        self.save_to("robots_last_good", record)
    }
}
