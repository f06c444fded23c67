//! Opening the database: its file, the pragmas of each kind of connection (the writer, the
//! checkpointer, the readers), and the schema brought up to date when the writer opens it.

use std::path::Path;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::schema::migrate;
use crate::server::store::StoreError;

/// The database file inside the data directory.
pub const DB_FILE_NAME: &str = "marseillais.sqlite3";

/// How long a connection waits on a lock held by another connection before failing. Only a
/// checkpoint or a second process should ever hold one; waiting beats failing a move.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Tuning knobs; [`SqliteStore::open`] uses the defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct SqliteOptions {
    /// Refuse to grow the database beyond this many bytes: writes then fail with
    /// [`StoreError::Io`] ("database or disk is full") exactly as on a full disk. `None`: no limit.
    pub max_db_bytes: Option<u64>,
}

pub(super) fn io(e: impl std::fmt::Display) -> StoreError {
    StoreError::Io(e.to_string())
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

pub(super) fn open_writer(path: &Path, options: SqliteOptions) -> Result<Connection, StoreError> {
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
    // A WAL that starts over is cut back to the bound: no burst leaves a larger file behind.
    conn.query_row(
        &format!(
            "PRAGMA journal_size_limit = {}",
            super::checkpoint::JOURNAL_SIZE_LIMIT
        ),
        [],
        |_| Ok(()),
    )
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

/// The checkpoint thread's connection: it writes the database file (copying WAL pages), never
/// runs a transaction of its own.
pub(super) fn open_checkpointer(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)
        .map_err(|e| StoreError::Io(format!("cannot open database {}: {e}", path.display())))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(io)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(io)?;
    Ok(conn)
}

pub(super) fn open_reader(path: &Path) -> Result<Connection, StoreError> {
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
