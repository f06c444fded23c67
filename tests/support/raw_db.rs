//! A database file read with plain SQL, no store code: what the migration tests compare before
//! and after an upgrade (every row of every table, each value in its SQLite type, so that an
//! integer column that became text would show).

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::types::Value;

/// The columns of `games` from schema version 3 to 5. Version 6 added `active_minute`, derived
/// from `updated_ms`: a migration test compares the columns the old version wrote.
const GAMES_V3_TO_V5: &str =
    "id, status, created_ms, updated_ms, summary, listed, white_user, black_user";

/// One integer that `sql` selects.
pub fn raw_i64(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    conn.query_row(sql, [], |row| row.get(0)).expect("query")
}

/// Every row of each of `tables` (`games`: its version 3 to 5 columns), in key order.
pub fn raw_tables(db: &Path, tables: &[&'static str]) -> BTreeMap<&'static str, Vec<Vec<Value>>> {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let mut read = BTreeMap::new();
    for &table in tables {
        let columns = if table == "games" {
            GAMES_V3_TO_V5
        } else {
            "*"
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
