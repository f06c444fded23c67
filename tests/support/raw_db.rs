//! The migration tests' database files, handled with plain SQL and no store code: the fixtures
//! older servers wrote (`tests/data/schema_vN/`: copied for a test, saved by a generator) and
//! what a test compares before and after an upgrade (every row of every table, each value in
//! its SQLite type, so that an integer column that became text would show).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;

/// The columns of `games` from schema version 3 to 5. Version 6 added `active_minute`, derived
/// from `updated_ms`: a migration test compares the columns the old version wrote.
const GAMES_V3_TO_V5: &str =
    "id, status, created_ms, updated_ms, summary, listed, white_user, black_user";

/// The columns `users` had from version 3 to 10 (version 11 added `status` and `status_ms`,
/// whose defaults the migration tests of issue 32 check on their own).
const USERS_V3_TO_V10: &str = "id, username, username_key, password_hash, created_ms";

/// One integer that `sql` selects.
pub fn raw_i64(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    conn.query_row(sql, [], |row| row.get(0)).expect("query")
}

/// Every row of each of `tables` (`games`: its version 3 to 5 columns; `users`: its version 3
/// to 10 columns), in key order.
pub fn raw_tables(db: &Path, tables: &[&'static str]) -> BTreeMap<&'static str, Vec<Vec<Value>>> {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let mut read = BTreeMap::new();
    for &table in tables {
        let columns = match table {
            "games" => GAMES_V3_TO_V5,
            "users" => USERS_V3_TO_V10,
            _ => "*",
        };
        let mut statement = conn
            .prepare(&format!("SELECT {columns} FROM {table} ORDER BY 1, 2"))
            .expect("prepare");
        let count = statement.column_count();
        let rows = statement
            .query_map([], |row| {
                (0..count)
                    .map(|i| row.get::<_, Value>(i))
                    .collect::<Result<Vec<_>, _>>()
            })
            .expect("query")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows");
        read.insert(table, rows);
    }
    read
}

/// Whether the database has a table or index of that name.
pub fn table_exists(db: &Path, name: &str) -> bool {
    raw_i64(
        db,
        &format!("SELECT count(*) FROM sqlite_schema WHERE name = '{name}'"),
    ) == 1
}

/// The database file of a data directory and of a fixture.
pub const DB: &str = "marseillais.sqlite3";

/// `tests/data/<name>/`, where a fixture database written by an older server lives.
pub fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A copy of the fixture `tests/data/<name>/` in a fresh data directory (the fixture itself is
/// never opened by the code under test: a migration would rewrite it).
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("temp dir");
    std::fs::copy(fixture_dir(name).join(DB), data.path().join(DB)).expect("copy the fixture");
    data
}

/// Saves what a fixture generator's older server left in `data_dir` as `tests/data/<name>/`:
/// the database folded into one file (no `-wal` beside it) and compacted, as a shut-down server
/// leaves it, refused unless it is at schema `version` (a generator run with the wrong binary
/// would write a fixture that proves nothing), and `games` (what the tests look the games up by)
/// as `games.json`.
pub fn save_fixture(data_dir: &Path, name: &str, version: i64, games: serde_json::Value) {
    let out = fixture_dir(name);
    std::fs::create_dir_all(&out).expect("fixture dir");
    let conn = rusqlite::Connection::open(data_dir.join(DB)).expect("open the result");
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("version");
    assert_eq!(
        found, version,
        "the generator must run a schema version {version} binary"
    );
    let target = out.join(DB);
    let _ = std::fs::remove_file(&target);
    conn.execute("VACUUM INTO ?1", [target.to_string_lossy().as_ref()])
        .expect("vacuum into the fixture");
    drop(conn);
    std::fs::write(
        out.join("games.json"),
        serde_json::to_string_pretty(&games).expect("json") + "\n",
    )
    .expect("write games.json");
}

/// Puts `obstacle` (SQL run on a copy of the fixture `name`, at schema `version`) in the way of
/// the next migration, then opens the copy with the current store: the open must fail, naming
/// the version it came from, and leave the database at `version` with every row of `tables` as
/// it was (the migration is one transaction). Returns the data directory for more checks.
pub fn check_a_failed_migration_leaves_the_fixture_as_it_was(
    name: &str,
    version: i64,
    tables: &[&'static str],
    obstacle: &str,
) -> tempfile::TempDir {
    let data = copy_fixture(name);
    let db = data.path().join(DB);
    rusqlite::Connection::open(&db)
        .expect("raw open")
        .execute_batch(obstacle)
        .expect("an obstacle in the way");
    let before = raw_tables(&db, tables);
    match marseillais::server::store::SqliteStore::open(data.path()) {
        Err(e) => assert!(
            e.to_string().contains(&format!("version {version} to ")),
            "{e}"
        ),
        Ok(_) => panic!("the migration must fail"),
    }
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), version);
    assert_eq!(raw_tables(&db, tables), before);
    data
}

/// The older server a fixture generator plays on, on a fresh data directory: the binary the
/// environment variable `env` names. `None` when it is unset: the generator is then a no-op in
/// ordinary test runs.
pub async fn older_server(env: &str) -> Option<(tempfile::TempDir, super::process::ServerProcess)> {
    let exe = std::env::var(env).ok()?;
    let scratch = tempfile::tempdir().expect("temp dir");
    let server = super::process::Spawn::new(scratch.path())
        .binary(Path::new(&exe))
        .relaxed_limits()
        .spawn()
        .await;
    Some((scratch, server))
}
