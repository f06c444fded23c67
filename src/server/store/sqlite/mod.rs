//! [`SqliteStore`]: the production [`Store`], one embedded SQLite database in WAL mode.
//!
//! This module owns opening the database (pragmas, schema, schema version) and the read side.
//! Writes go through the group-commit writer thread (writer.rs), whose WAL checkpoints run on a
//! thread of their own (checkpoint.rs); both update the counters of stats.rs. Reads use a small pool
//! of separate connections on tokio's blocking threads, so in WAL mode they never wait for the
//! writer (they read the last committed snapshot).

mod checkpoint;
mod stats;
mod writer;

pub use stats::StoreStats;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, params};
use tokio::sync::{Semaphore, oneshot, watch};

use self::checkpoint::{Checkpointer, Policy};
use self::stats::Counters;
use self::writer::Pending;
use super::{Commit, GameListing, GameStatus, LoadedGame, Store, StoreError, StoreFuture};

/// The database file inside the data directory.
pub const DB_FILE_NAME: &str = "marseillais.sqlite3";

/// The schema this program writes (`PRAGMA user_version`). A database with a newer version was
/// written by a newer program and is refused rather than misread; an older one is migrated
/// ([`MIGRATIONS`]).
pub const SCHEMA_VERSION: i64 = 2;

/// How long a connection waits on a lock held by another connection before failing. Only a
/// checkpoint or a second process should ever hold one; waiting beats failing a move.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections: at most this many reads run at once (others queue for a permit), and as
/// many connections are kept open between reads. Bounded so a burst of lobby requests cannot
/// open hundreds of connections and blocking threads.
const MAX_READERS: usize = 4;

/// Version 1: the games' listing rows and their event logs.
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS games (
    id          TEXT PRIMARY KEY NOT NULL,
    status      TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    summary     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_status_updated ON games (status, updated_ms, id);
CREATE TABLE IF NOT EXISTS events (
    game_id  TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    payload  TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// Version 2: unlisted (private) games. Rows written by version 1 are listed, as every game was.
/// The lobby index gets `listed` after `status` so that `list()` still reads one index range;
/// it replaces the version 1 index (one index to maintain per commit, as before).
const SCHEMA_V2: &str = "
ALTER TABLE games ADD COLUMN listed INTEGER NOT NULL DEFAULT 1;
DROP INDEX IF EXISTS games_by_status_updated;
CREATE INDEX games_by_status_listed_updated ON games (status, listed, updated_ms, id);
";

/// `MIGRATIONS[n]` takes a database from version `n` to `n + 1` (version 0: empty). Each runs in
/// the same transaction as the version bump, so a crash mid-migration leaves the old version.
const MIGRATIONS: [&str; 2] = [SCHEMA_V1, SCHEMA_V2];

/// Tuning knobs; [`SqliteStore::open`] uses the defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct SqliteOptions {
    /// Refuse to grow the database beyond this many bytes: writes then fail with
    /// [`StoreError::Io`] ("database or disk is full") exactly as on a full disk. `None`: no limit.
    pub max_db_bytes: Option<u64>,
}

fn io(e: impl std::fmt::Display) -> StoreError {
    StoreError::Io(e.to_string())
}

/// The SQLite-backed [`Store`]. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct SqliteStore {
    shared: Arc<Shared>,
}

struct Shared {
    path: PathBuf,
    /// `None` once `close()` was called: dropping the only sender is what tells the writer to
    /// drain and stop.
    to_writer: Mutex<Option<Sender<Pending>>>,
    writer_stopped: watch::Receiver<bool>,
    counters: Arc<Counters>,
    readers: Mutex<Vec<Connection>>,
    read_permits: Arc<Semaphore>,
}

impl SqliteStore {
    /// Opens (creating if needed) `data_dir/marseillais.sqlite3` and starts the writer thread.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(data_dir, SqliteOptions::default())
    }

    pub fn open_with(data_dir: &Path, options: SqliteOptions) -> Result<Self, StoreError> {
        Self::open_with_policy(data_dir, options, Policy::default())
    }

    /// [`SqliteStore::open_with`] with a checkpoint policy (the tests of checkpoint.rs use short
    /// ones).
    fn open_with_policy(
        data_dir: &Path,
        options: SqliteOptions,
        policy: Policy,
    ) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            StoreError::Io(format!(
                "cannot create data directory {}: {e}",
                data_dir.display()
            ))
        })?;
        let path = data_dir.join(DB_FILE_NAME);
        let conn = open_writer(&path, options)
            .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
        // Open one reader now so that a database we cannot read fails here, not on first use.
        let reader = open_reader(&path)?;

        let (to_writer, from_callers) = mpsc::channel();
        let (stopped_tx, stopped_rx) = watch::channel(false);
        let counters = Arc::new(Counters::default());
        let checkpointer =
            Checkpointer::start(open_checkpointer(&path)?, Arc::clone(&counters), policy).map_err(
                |e| StoreError::Io(format!("cannot start the store checkpoint thread: {e}")),
            )?;
        let writer_counters = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("store-writer".to_owned())
            .spawn(move || {
                writer::run(
                    conn,
                    from_callers,
                    writer_counters,
                    checkpointer,
                    stopped_tx,
                )
            })
            .map_err(|e| StoreError::Io(format!("cannot start the store writer thread: {e}")))?;

        Ok(Self {
            shared: Arc::new(Shared {
                path,
                to_writer: Mutex::new(Some(to_writer)),
                writer_stopped: stopped_rx,
                counters,
                readers: Mutex::new(vec![reader]),
                read_permits: Arc::new(Semaphore::new(MAX_READERS)),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// A snapshot of the writer's counters.
    pub fn stats(&self) -> StoreStats {
        self.shared.counters.snapshot()
    }

    /// Runs `f` on a pooled read connection on a blocking thread.
    fn read<T, F>(&self, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let permit = Arc::clone(&shared.read_permits)
                .acquire_owned()
                .await
                .map_err(|_| StoreError::Closed)?;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let pooled = lock(&shared.readers).pop();
                let mut conn = match pooled {
                    Some(conn) => conn,
                    None => open_reader(&shared.path)?,
                };
                let result = f(&mut conn);
                // A connection that just failed may be in a bad state: drop it.
                if result.is_ok() {
                    let mut idle = lock(&shared.readers);
                    if idle.len() < MAX_READERS {
                        idle.push(conn);
                    }
                }
                result
            })
            .await
            .map_err(|e| StoreError::Io(format!("read task failed: {e}")))?
        })
    }
}

/// The guarded data stays consistent even if a holder panicked (every critical section is a
/// single push/pop/take), so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes SQLite plan each statement without looking at the values bound to it (the query
/// planner stability guarantee). Without it a statement like `... WHERE game_id = ?1` is marked
/// "may plan better for another value" (an `=` against a parameter that might be a small
/// integer), and since rusqlite clears the bindings of a statement returned to its cache, SQLite
/// compiles it again at its next use: once per commit for the writer's sequence check, about 3 %
/// of the server's CPU at saturation. Our statements have one good plan whatever the value.
fn plan_once(conn: &Connection) -> Result<(), StoreError> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(io)?;
    Ok(())
}

fn open_writer(path: &Path, options: SqliteOptions) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(io)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(io)?;
    plan_once(&conn)?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .map_err(io)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io(format!(
            "cannot switch the database to WAL mode (journal_mode is {mode})"
        )));
    }
    // FULL: in WAL mode the WAL is fsync'd at every commit, so an acknowledged commit survives
    // power loss, not only a process crash.
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(io)?;
    // Checkpoints run on their own thread (checkpoint.rs), not inside the COMMIT that
    // crosses 1000 WAL pages, which every acknowledgement of that batch would wait for.
    conn.pragma_update(None, "wal_autocheckpoint", 0)
        .map_err(io)?;
    if let Some(bytes) = options.max_db_bytes {
        let page_size: i64 = conn
            .query_row("PRAGMA page_size", [], |row| row.get(0))
            .map_err(io)?;
        let pages = bytes / u64::try_from(page_size.max(1)).unwrap_or(4096);
        conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
            .map_err(io)?;
    }
    migrate(&conn)?;
    Ok(conn)
}

/// Brings the database to [`SCHEMA_VERSION`]: creates the schema in an empty database, runs the
/// migrations an older one needs (all in one transaction), refuses newer ones.
fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(io)?;
    if !(0..=SCHEMA_VERSION).contains(&version) {
        return Err(StoreError::Io(format!(
            "database schema version {version} is not supported (this program knows version {SCHEMA_VERSION})"
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    let steps: String = MIGRATIONS
        .iter()
        .skip(usize::try_from(version).unwrap_or(0))
        .copied()
        .collect();
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
    ))
    .map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        StoreError::Io(format!(
            "cannot migrate the database from schema version {version} to {SCHEMA_VERSION}: {e}"
        ))
    })?;
    if version > 0 {
        tracing::info!(
            from = version,
            to = SCHEMA_VERSION,
            "store: database schema migrated"
        );
    }
    Ok(())
}

/// The checkpoint thread's connection: it writes the database file (copying WAL pages), never
/// runs a transaction of its own.
fn open_checkpointer(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)
        .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(io)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(io)?;
    Ok(conn)
}

fn open_reader(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(io)?;
    plan_once(&conn)?;
    // Readers never write; this makes an accidental write an error instead of a second writer.
    conn.pragma_update(None, "query_only", true).map_err(io)?;
    Ok(conn)
}

/// Reads a `games` row. The outer error is SQLite's; the inner one a status text this program
/// does not know (a damaged or foreign database).
fn listing_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<GameListing, StoreError>> {
    let id: String = row.get(0)?;
    let status: String = row.get(1)?;
    let status = match status.parse() {
        Ok(status) => status,
        Err(e) => return Ok(Err(StoreError::Io(format!("game {id}: {e}")))),
    };
    Ok(Ok(GameListing {
        id,
        status,
        created_ms: row.get(2)?,
        updated_ms: row.get(3)?,
        summary: row.get(4)?,
        listed: row.get(5)?,
    }))
}

/// The events of one game, in order.
const EVENTS_OF: &str = "SELECT seq, payload FROM events WHERE game_id = ?1 ORDER BY seq";

/// All events of one game in seq order, checking they are exactly 0, 1, 2, ...
fn events_of(conn: &Connection, game_id: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(EVENTS_OF).map_err(io)?;
    let rows = stmt
        .query_map([game_id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(io)?;
    let mut events = Vec::new();
    for row in rows {
        let (seq, payload) = row.map_err(io)?;
        if usize::try_from(seq).ok() != Some(events.len()) {
            return Err(StoreError::Io(format!(
                "game {game_id}: event {seq} found where {} was expected",
                events.len()
            )));
        }
        events.push(payload);
    }
    Ok(events)
}

const LISTING_COLUMNS: &str = "id, status, created_ms, updated_ms, summary, listed";

/// Runs a listing query and loads every game it returns with its events, all in one read
/// transaction (listings and events come from the same snapshot).
fn load_games_where(
    conn: &mut Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<LoadedGame>, StoreError> {
    let tx = conn.transaction().map_err(io)?;
    let listings = {
        let mut stmt = tx.prepare_cached(sql).map_err(io)?;
        let rows = stmt.query_map(params, listing_from_row).map_err(io)?;
        let mut listings = Vec::new();
        for row in rows {
            listings.push(row.map_err(io)??);
        }
        listings
    };
    let mut games = Vec::with_capacity(listings.len());
    for listing in listings {
        let events = events_of(&tx, &listing.id)?;
        games.push((listing, events));
    }
    tx.finish().map_err(io)?;
    Ok(games)
}

impl Store for SqliteStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.commit_all(vec![commit])
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        let (done, outcome) = oneshot::channel();
        // Sent now, not when the future is first polled: commits reach the writer in call order,
        // which is what lets a room pipeline commits for the same game.
        let sent = match lock(&self.shared.to_writer).as_ref() {
            Some(to_writer) => to_writer.send(Pending { commits, done }).is_ok(),
            None => false,
        };
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            outcome.await.unwrap_or_else(|_| {
                Err(StoreError::Io(
                    "the store writer stopped before reporting on this commit".to_owned(),
                ))
            })
        })
    }

    fn load_unfinished(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.read(|conn| {
            load_games_where(
                conn,
                // IN rather than <> 'finished': uses the status index instead of scanning
                // every game ever played at each startup.
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status IN (?1, ?2) ORDER BY id"
                ),
                [GameStatus::Open.as_str(), GameStatus::Playing.as_str()],
            )
        })
    }

    fn load_playing(&self) -> StoreFuture<Vec<LoadedGame>> {
        self.read(|conn| {
            load_games_where(
                conn,
                &format!("SELECT {LISTING_COLUMNS} FROM games WHERE status = ?1 ORDER BY id"),
                [GameStatus::Playing.as_str()],
            )
        })
    }

    fn load_stale(
        &self,
        status: GameStatus,
        updated_before_ms: i64,
        limit: u32,
        offset: u32,
    ) -> StoreFuture<Vec<LoadedGame>> {
        self.read(move |conn| {
            load_games_where(
                conn,
                // `listed IN (0, 1)`: both ranges of the (status, listed, updated_ms) index.
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games
                     WHERE status = ?1 AND listed IN (0, 1) AND updated_ms < ?2
                     ORDER BY updated_ms, id LIMIT ?3 OFFSET ?4"
                ),
                params![status.as_str(), updated_before_ms, limit, offset],
            )
        })
    }

    fn load_game(&self, id: &str) -> StoreFuture<Option<LoadedGame>> {
        let id = id.to_owned();
        self.read(move |conn| {
            let tx = conn.transaction().map_err(io)?;
            let row = {
                let mut stmt = tx
                    .prepare_cached(&format!(
                        "SELECT {LISTING_COLUMNS} FROM games WHERE id = ?1"
                    ))
                    .map_err(io)?;
                let mut rows = stmt.query_map([&id], listing_from_row).map_err(io)?;
                rows.next().transpose().map_err(io)?
            };
            let game = match row {
                None => None,
                Some(row) => {
                    let listing = row?;
                    let events = events_of(&tx, &id)?;
                    Some((listing, events))
                }
            };
            tx.finish().map_err(io)?;
            Ok(game)
        })
    }

    fn list(&self, status: GameStatus, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status = ?1 AND listed = 1
                     ORDER BY updated_ms DESC, id DESC LIMIT ?2 OFFSET ?3"
                ))
                .map_err(io)?;
            let rows = stmt
                .query_map(params![status.as_str(), limit, offset], listing_from_row)
                .map_err(io)?;
            let mut listings = Vec::new();
            for row in rows {
                listings.push(row.map_err(io)??);
            }
            Ok(listings)
        })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        // Dropping the only sender: the writer finishes what is queued, then stops.
        drop(lock(&self.shared.to_writer).take());
        let mut stopped = self.shared.writer_stopped.clone();
        Box::pin(async move {
            // Err means the writer is gone without signalling (it panicked): stopped as well.
            let _ = stopped.wait_for(|stopped| *stopped).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::StatementStatus;

    /// Runs `sql` (whose one parameter is a game id) from the connection's statement cache for
    /// several games, as the store does, and says how often SQLite compiled it again.
    fn reprepares(conn: &Connection, sql: &str) -> i32 {
        for game in ["g1", "g2", "g3", "g4"] {
            let mut stmt = conn.prepare_cached(sql).expect("prepare");
            let mut rows = stmt.query([game]).expect("query");
            while rows.next().expect("step").is_some() {}
        }
        let stmt = conn.prepare_cached(sql).expect("prepare");
        stmt.get_status(StatementStatus::RePrepare)
    }

    #[test]
    fn the_cached_statements_keyed_by_game_are_compiled_once_not_once_per_game() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE_NAME);
        let writer = open_writer(&path, SqliteOptions::default()).expect("writer");
        assert_eq!(
            reprepares(&writer, writer::LAST_SEQ),
            0,
            "writer: sequence check"
        );
        let reader = open_reader(&path).expect("reader");
        assert_eq!(
            reprepares(&reader, EVENTS_OF),
            0,
            "reader: events of a game"
        );
    }
}
