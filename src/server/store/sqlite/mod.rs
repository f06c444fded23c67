//! [`SqliteStore`]: the production [`Store`], one embedded SQLite database in WAL mode.
//!
//! This module owns opening the database (pragmas, schema, schema version) and the read side.
//! Writes go through the group-commit writer thread (writer.rs), whose WAL checkpoints run on a
//! thread of their own (checkpoint.rs); both update the counters of stats.rs. Reads use a small pool
//! of separate connections on tokio's blocking threads, so in WAL mode they never wait for the
//! writer (they read the last committed snapshot).

mod checkpoint;
mod next_seq;
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
use self::writer::{Done, Pending, Work};
use super::{
    Commit, GameListing, GameStatus, LoadedGame, RatedGame, SessionHash, Store, StoreError,
    StoreFuture, UserRecord, session_alive, session_needs_touch,
};
use crate::server::chat::{ChatLine, ChatRoom, NewChatLine};
use crate::server::domain::rating::Rating;
use crate::server::domain::user::{Account, UserId, Username};
use crate::server::game::speed::Speed;

/// The database file inside the data directory.
pub const DB_FILE_NAME: &str = "marseillais.sqlite3";

/// The schema this program writes (`PRAGMA user_version`). A database with a newer version was
/// written by a newer program and is refused rather than misread; an older one is migrated
/// ([`MIGRATIONS`]).
pub const SCHEMA_VERSION: i64 = 6;

/// How long a connection waits on a lock held by another connection before failing. Only a
/// checkpoint or a second process should ever hold one; waiting beats failing a move.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections: at most this many reads run at once (others queue for a permit), and as
/// many connections are kept open between reads. Bounded so a burst of lobby requests cannot
/// open hundreds of connections and blocking threads. The soak test bounds the server's open
/// database files by this number (`DATABASE_FDS_AT_MOST` in `tests/reliability/soak.rs`): raise
/// both together.
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

/// Version 3: accounts, sessions and ratings (issue 11). Games gain the accounts seated in them
/// (NULL for anonymous seats and every older game); their indexes are partial, so anonymous
/// games (most of them) cost no index entry at all, and `user_games` reads one index range per
/// colour. Sessions are keyed by the SHA-256 of their id, never the id. A rating is one row per
/// user and speed; `rated_games` keeps each rated game's before/after ratings (keyed by game id:
/// a game is rated at most once).
const SCHEMA_V3: &str = "
CREATE TABLE users (
    id             INTEGER PRIMARY KEY,
    username       TEXT NOT NULL,
    username_key   TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL,
    created_ms     INTEGER NOT NULL
);
CREATE TABLE sessions (
    id_hash       BLOB PRIMARY KEY NOT NULL,
    user_id       INTEGER NOT NULL REFERENCES users (id),
    created_ms    INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE TABLE ratings (
    user_id     INTEGER NOT NULL REFERENCES users (id),
    speed       TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    PRIMARY KEY (user_id, speed)
) WITHOUT ROWID;
CREATE TABLE rated_games (
    game_id      TEXT PRIMARY KEY NOT NULL,
    speed        TEXT NOT NULL,
    ended_ms     INTEGER NOT NULL,
    white_user   INTEGER NOT NULL REFERENCES users (id),
    black_user   INTEGER NOT NULL REFERENCES users (id),
    score_white  REAL NOT NULL,
    white_before_rating REAL NOT NULL, white_before_deviation REAL NOT NULL,
    white_before_volatility REAL NOT NULL, white_before_games INTEGER NOT NULL,
    white_after_rating REAL NOT NULL, white_after_deviation REAL NOT NULL,
    white_after_volatility REAL NOT NULL, white_after_games INTEGER NOT NULL,
    black_before_rating REAL NOT NULL, black_before_deviation REAL NOT NULL,
    black_before_volatility REAL NOT NULL, black_before_games INTEGER NOT NULL,
    black_after_rating REAL NOT NULL, black_after_deviation REAL NOT NULL,
    black_after_volatility REAL NOT NULL, black_after_games INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX rated_games_by_white ON rated_games (white_user, ended_ms);
CREATE INDEX rated_games_by_black ON rated_games (black_user, ended_ms);
ALTER TABLE games ADD COLUMN white_user INTEGER;
ALTER TABLE games ADD COLUMN black_user INTEGER;
CREATE INDEX games_by_white_user ON games (white_user, updated_ms, id) WHERE white_user IS NOT NULL;
CREATE INDEX games_by_black_user ON games (black_user, updated_ms, id) WHERE black_user IS NOT NULL;
";

/// Version 4: correspondence games and chat (issue 12). `turn_deadlines` is the timer index of
/// correspondence games being played: one row per game whose side to move has a deadline
/// (Unix ms), written in the commit that starts or ends the turn, read whole at startup into
/// the in-memory schedule, so that the rooms of idle games can leave memory and still be
/// flagged on time. Live games never have a row (their clocks are in their events).
/// `chat_lines` keeps the chat of game rooms (`player`, `spectator`) and of the lobby
/// (`game_id` NULL, room `lobby`); `author` is the label shown (a username, `white`, `black`
/// or `anonymous`). Its index serves "the recent lines of one room" as one index range.
const SCHEMA_V4: &str = "
CREATE TABLE turn_deadlines (
    game_id      TEXT PRIMARY KEY NOT NULL,
    deadline_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE chat_lines (
    id       INTEGER PRIMARY KEY,
    game_id  TEXT,
    room     TEXT NOT NULL,
    at_ms    INTEGER NOT NULL,
    user_id  INTEGER,
    author   TEXT NOT NULL,
    text     TEXT NOT NULL
);
CREATE INDEX chat_lines_by_room ON chat_lines (game_id, room, id);
";

/// Version 5: personal settings (issue 14). One row per account that saved any: the settings
/// object as JSON (validated by the account layer on the way in and out, opaque here, so a new
/// setting needs no migration) and when it was last saved. Keyed by the user: one read, one
/// upsert.
const SCHEMA_V5: &str = "
CREATE TABLE account_settings (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id),
    settings    TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL
);
";

/// Version 6: the games' indexes order by the minute of their last activity, not the
/// millisecond (issue 9). `updated_ms` changes with every sub-move, so an index holding it moved
/// the game's entries (a delete and an insert each) at every commit. Measured with 1,000 games
/// in batches of 14 commits: a listing update wrote 1.58 WAL frames for an anonymous game and
/// 2.47 for a game between accounts (three indexes), 0.91 and 0.92 now; at saturation `pwrite`
/// fell from 6.0 to 5.3 per sub-move (docs/performance.md). `active_minute` ([`writer::active_minute`]:
/// `updated_ms / 60000`) changes at most once a minute, and the writer assigns it (and the other
/// indexed columns) only when it changes, so a sub-move rewrites the row and no index entry.
/// The listings are as exact as before: the reads order by `active_minute, updated_ms, id`,
/// which is the order of `updated_ms, id` (the minute is a non-decreasing function of the
/// millisecond); the index gives the minutes in order and SQLite sorts within a minute ("USE
/// TEMP B-TREE FOR RIGHT PART OF ORDER BY"), so a lobby read sorts the games active in the
/// minutes it reaches, not every game.
const SCHEMA_V6: &str = "
ALTER TABLE games ADD COLUMN active_minute INTEGER NOT NULL DEFAULT 0;
UPDATE games SET active_minute = updated_ms / 60000;
DROP INDEX games_by_status_listed_updated;
CREATE INDEX games_by_status_listed_minute ON games (status, listed, active_minute);
DROP INDEX games_by_white_user;
DROP INDEX games_by_black_user;
CREATE INDEX games_by_white_user_minute ON games (white_user, active_minute)
    WHERE white_user IS NOT NULL;
CREATE INDEX games_by_black_user_minute ON games (black_user, active_minute)
    WHERE black_user IS NOT NULL;
";

/// `MIGRATIONS[n]` takes a database from version `n` to `n + 1` (version 0: empty). Each runs in
/// the same transaction as the version bump, so a crash mid-migration leaves the old version.
const MIGRATIONS: [&str; 6] = [
    SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6,
];

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

    /// Hands a unit of work to the writer thread; the future resolves once it is durable.
    ///
    /// Sent now, not when the future is first polled: work reaches the writer in call order,
    /// which is what lets a room pipeline commits for the same game.
    fn write(&self, work: Work) -> StoreFuture<Done> {
        let (done, outcome) = oneshot::channel();
        let sent = match lock(&self.shared.to_writer).as_ref() {
            Some(to_writer) => to_writer.send(Pending { work, done }).is_ok(),
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
        white_user: row.get::<_, Option<i64>>(6)?.map(UserId),
        black_user: row.get::<_, Option<i64>>(7)?.map(UserId),
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

const LISTING_COLUMNS: &str =
    "id, status, created_ms, updated_ms, summary, listed, white_user, black_user";

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

const USER_COLUMNS: &str = "id, username, password_hash, created_ms";
const USER_COLUMNS_OF_USERS: &str =
    "users.id, users.username, users.password_hash, users.created_ms";

/// Reads a `users` row from column `first` on (outer error SQLite's, inner one a stored name
/// this program would not accept: a damaged or foreign database).
fn user_from_row(
    row: &rusqlite::Row<'_>,
    first: usize,
) -> rusqlite::Result<Result<UserRecord, StoreError>> {
    let id: i64 = row.get(first)?;
    let name: String = row.get(first + 1)?;
    let name = match Username::parse(&name) {
        Ok(name) => name,
        Err(e) => return Ok(Err(StoreError::Io(format!("user {id}: {e}")))),
    };
    Ok(Ok(UserRecord {
        account: Account {
            id: UserId(id),
            name,
        },
        password_hash: row.get(first + 2)?,
        created_ms: row.get(first + 3)?,
    }))
}

fn user_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Option<UserRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let mut rows = stmt.query(params).map_err(io)?;
    match rows.next().map_err(io)? {
        None => Ok(None),
        Some(row) => Ok(Some(user_from_row(row, 0).map_err(io)??)),
    }
}

fn parse_speed(text: &str) -> Result<Speed, StoreError> {
    Speed::parse(text).ok_or_else(|| StoreError::Io(format!("unknown speed {text:?} stored")))
}

/// Four columns from `first` on: rating, deviation, volatility, games.
fn rating_from_row(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Rating> {
    Ok(Rating {
        rating: row.get(first)?,
        deviation: row.get(first + 1)?,
        volatility: row.get(first + 2)?,
        games: u32::try_from(row.get::<_, i64>(first + 3)?).unwrap_or(u32::MAX),
    })
}

const RATED_COLUMNS: &str = "game_id, speed, ended_ms, white_user, black_user, score_white,
    white_before_rating, white_before_deviation, white_before_volatility, white_before_games,
    white_after_rating, white_after_deviation, white_after_volatility, white_after_games,
    black_before_rating, black_before_deviation, black_before_volatility, black_before_games,
    black_after_rating, black_after_deviation, black_after_volatility, black_after_games";

fn rated_where(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<RatedGame>, StoreError> {
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let rows = stmt
        .query_map(params, |row| {
            Ok((
                row.get::<_, String>(1)?,
                RatedGame {
                    game_id: row.get(0)?,
                    // Replaced below once parsed.
                    speed: Speed::Bullet,
                    ended_ms: row.get(2)?,
                    white: UserId(row.get(3)?),
                    black: UserId(row.get(4)?),
                    score_white: row.get(5)?,
                    white_before: rating_from_row(row, 6)?,
                    white_after: rating_from_row(row, 10)?,
                    black_before: rating_from_row(row, 14)?,
                    black_after: rating_from_row(row, 18)?,
                },
            ))
        })
        .map_err(io)?;
    let mut games = Vec::new();
    for row in rows {
        let (speed, mut game) = row.map_err(io)?;
        game.speed = parse_speed(&speed)?;
        games.push(game);
    }
    Ok(games)
}

impl Store for SqliteStore {
    fn commit(&self, commit: Commit) -> StoreFuture<()> {
        self.commit_all(vec![commit])
    }

    fn commit_all(&self, commits: Vec<Commit>) -> StoreFuture<()> {
        let written = self.write(Work::Commits(commits));
        Box::pin(async move { written.await.map(|_| ()) })
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
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games WHERE status = ?1
                     AND id NOT IN (SELECT game_id FROM turn_deadlines) ORDER BY id"
                ),
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
                // `listed IN (0, 1)`: both ranges of the (status, listed, active_minute) index.
                &format!(
                    "SELECT {LISTING_COLUMNS} FROM games
                     WHERE status = ?1 AND listed IN (0, 1) AND active_minute <= ?5
                         AND updated_ms < ?2
                     ORDER BY active_minute, updated_ms, id LIMIT ?3 OFFSET ?4"
                ),
                params![
                    status.as_str(),
                    updated_before_ms,
                    limit,
                    offset,
                    writer::active_minute(updated_before_ms)
                ],
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
                     ORDER BY active_minute DESC, updated_ms DESC, id DESC LIMIT ?2 OFFSET ?3"
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

    fn create_user(
        &self,
        username: Username,
        password_hash: String,
        at_ms: i64,
    ) -> StoreFuture<UserId> {
        let written = self.write(Work::CreateUser {
            username,
            password_hash,
            at_ms,
        });
        Box::pin(async move {
            match written.await? {
                Done::User(id) => Ok(id),
                Done::Stored | Done::ChatLine(_) => {
                    Err(StoreError::Io("the writer returned no user id".to_owned()))
                }
            }
        })
    }

    fn find_user(&self, username: &Username) -> StoreFuture<Option<UserRecord>> {
        let key = username.key();
        self.read(move |conn| {
            user_where(
                conn,
                &format!("SELECT {USER_COLUMNS} FROM users WHERE username_key = ?1"),
                [key],
            )
        })
    }

    fn user_by_id(&self, id: UserId) -> StoreFuture<Option<UserRecord>> {
        self.read(move |conn| {
            user_where(
                conn,
                &format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"),
                [id.0],
            )
        })
    }

    fn create_session(&self, hash: SessionHash, user: UserId, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::CreateSession { hash, user, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn session_account(&self, hash: SessionHash, now_ms: i64) -> StoreFuture<Option<Account>> {
        let found = self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT sessions.last_seen_ms, {USER_COLUMNS_OF_USERS} FROM sessions
                     JOIN users ON users.id = sessions.user_id WHERE sessions.id_hash = ?1"
                ))
                .map_err(io)?;
            let mut rows = stmt.query([&hash[..]]).map_err(io)?;
            match rows.next().map_err(io)? {
                None => Ok(None),
                Some(row) => {
                    let last_seen: i64 = row.get(0).map_err(io)?;
                    let user = user_from_row(row, 1).map_err(io)??;
                    Ok(Some((last_seen, user.account)))
                }
            }
        });
        let store = self.clone();
        Box::pin(async move {
            let Some((last_seen, account)) = found.await? else {
                return Ok(None);
            };
            if !session_alive(last_seen, now_ms) {
                return Ok(None);
            }
            if session_needs_touch(last_seen, now_ms) {
                // Best effort: a session that could not be touched is still valid now, and the
                // next request tries again.
                if let Err(e) = store
                    .write(Work::TouchSession {
                        hash,
                        at_ms: now_ms,
                    })
                    .await
                {
                    tracing::warn!(error = %e, "store: could not record a session's last use");
                }
            }
            Ok(Some(account))
        })
    }

    fn delete_session(&self, hash: SessionHash) -> StoreFuture<()> {
        let written = self.write(Work::DeleteSession { hash });
        Box::pin(async move { written.await.map(|_| ()) })
    }

    fn ratings(&self, user: UserId) -> StoreFuture<Vec<(Speed, Rating)>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT speed, rating, deviation, volatility, games FROM ratings
                     WHERE user_id = ?1",
                )
                .map_err(io)?;
            let rows = stmt
                .query_map([user.0], |row| {
                    Ok((row.get::<_, String>(0)?, rating_from_row(row, 1)?))
                })
                .map_err(io)?;
            let mut ratings = Vec::new();
            for row in rows {
                let (speed, rating) = row.map_err(io)?;
                ratings.push((parse_speed(&speed)?, rating));
            }
            ratings.sort_by_key(|(speed, _)| *speed);
            Ok(ratings)
        })
    }

    fn rating_history(
        &self,
        user: UserId,
        speed: Option<Speed>,
        limit: u32,
    ) -> StoreFuture<Vec<RatedGame>> {
        self.read(move |conn| {
            // NULL speed: every speed. Each half reads one (colour, ended_ms) index range.
            let sql = format!(
                "SELECT * FROM (
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE white_user = ?1 AND (?2 IS NULL OR speed = ?2)
                     UNION ALL
                     SELECT {RATED_COLUMNS} FROM rated_games
                         WHERE black_user = ?1 AND white_user <> ?1 AND (?2 IS NULL OR speed = ?2))
                 ORDER BY ended_ms DESC, game_id DESC LIMIT ?3"
            );
            let mut games =
                rated_where(conn, &sql, params![user.0, speed.map(Speed::as_str), limit])?;
            games.reverse();
            Ok(games)
        })
    }

    fn user_games(&self, user: UserId, limit: u32, offset: u32) -> StoreFuture<Vec<GameListing>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached(&format!(
                    "SELECT {LISTING_COLUMNS} FROM (
                         SELECT {LISTING_COLUMNS}, active_minute FROM games WHERE white_user = ?1
                         UNION ALL
                         SELECT {LISTING_COLUMNS}, active_minute FROM games
                             WHERE black_user = ?1 AND (white_user IS NULL OR white_user <> ?1))
                     ORDER BY active_minute DESC, updated_ms DESC, id DESC LIMIT ?2 OFFSET ?3"
                ))
                .map_err(io)?;
            let rows = stmt
                .query_map(params![user.0, limit, offset], listing_from_row)
                .map_err(io)?;
            let mut listings = Vec::new();
            for row in rows {
                listings.push(row.map_err(io)??);
            }
            Ok(listings)
        })
    }

    fn game_rating(&self, game_id: &str) -> StoreFuture<Option<RatedGame>> {
        let game_id = game_id.to_owned();
        self.read(move |conn| {
            let sql = format!("SELECT {RATED_COLUMNS} FROM rated_games WHERE game_id = ?1");
            Ok(rated_where(conn, &sql, [game_id])?.pop())
        })
    }

    fn append_chat(&self, line: NewChatLine) -> StoreFuture<i64> {
        let written = self.write(Work::AppendChat(line));
        Box::pin(async move {
            match written.await? {
                Done::ChatLine(id) => Ok(id),
                Done::Stored | Done::User(_) => Err(StoreError::Io(
                    "the writer returned no chat line id".to_owned(),
                )),
            }
        })
    }

    fn recent_chat(
        &self,
        game_id: Option<&str>,
        room: ChatRoom,
        limit: u32,
    ) -> StoreFuture<Vec<ChatLine>> {
        let game_id = game_id.map(str::to_owned);
        self.read(move |conn| {
            // The newest `limit` by the (game_id, room, id) index, then put oldest first.
            let mut stmt = conn
                .prepare_cached(
                    "SELECT id, game_id, at_ms, user_id, author, text FROM chat_lines
                     WHERE game_id IS ?1 AND room = ?2 ORDER BY id DESC LIMIT ?3",
                )
                .map_err(io)?;
            let rows = stmt
                .query_map(params![game_id, room.as_str(), limit], |row| {
                    Ok(ChatLine {
                        id: row.get(0)?,
                        game_id: row.get(1)?,
                        room,
                        at_ms: row.get(2)?,
                        user_id: row.get::<_, Option<i64>>(3)?.map(UserId),
                        author: row.get(4)?,
                        text: row.get(5)?,
                    })
                })
                .map_err(io)?;
            let mut lines = rows.collect::<Result<Vec<_>, _>>().map_err(io)?;
            lines.reverse();
            Ok(lines)
        })
    }

    fn turn_deadlines(&self) -> StoreFuture<Vec<(String, i64)>> {
        self.read(|conn| {
            let mut statement = conn
                .prepare("SELECT game_id, deadline_ms FROM turn_deadlines")
                .map_err(io)?;
            let rows = statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(io)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(io)?;
            Ok(rows)
        })
    }

    fn account_settings(&self, user: UserId) -> StoreFuture<Option<String>> {
        self.read(move |conn| {
            let mut stmt = conn
                .prepare_cached("SELECT settings FROM account_settings WHERE user_id = ?1")
                .map_err(io)?;
            let mut rows = stmt.query([user.0]).map_err(io)?;
            match rows.next().map_err(io)? {
                None => Ok(None),
                Some(row) => Ok(Some(row.get(0).map_err(io)?)),
            }
        })
    }

    fn set_account_settings(&self, user: UserId, json: String, at_ms: i64) -> StoreFuture<()> {
        let written = self.write(Work::SetSettings { user, json, at_ms });
        Box::pin(async move { written.await.map(|_| ()) })
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
