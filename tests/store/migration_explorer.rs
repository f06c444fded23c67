//! The opening explorer's tables, what is each backend's own (the contract every backend keeps
//! is in tests/support/store_contract/explorer.rs): a version 8 SQLite database (the fixture
//! `tests/data/schema_v8/`) and a version 5 Postgres one gain the tables, empty (no backfill
//! of the games finished before: docs/explorer.md), and count what finishes after; a
//! position's reads are ranges of the tables' primary keys on both (SQLite's
//! `EXPLAIN QUERY PLAN`, Postgres's `EXPLAIN` of the very statements the stores run).

use crate::support;

use marseillais::rules::Position;
use marseillais::server::explorer::extract::position_key;
use marseillais::server::store::postgres::{
    EXPLORER_EXAMPLES_SQL as PG_EXAMPLES, EXPLORER_TURNS_SQL as PG_TURNS,
    SCHEMA_VERSION as PG_VERSION, migrate_to,
};
use marseillais::server::store::sqlite::{
    DB_FILE_NAME, EXPLORER_EXAMPLES_SQL as SQLITE_EXAMPLES, EXPLORER_TURNS_SQL as SQLITE_TURNS,
};
use marseillais::server::store::{
    ExplorerGame, ExplorerPosition, ExplorerResult, PostgresStore, SqliteStore, Store,
};
use support::postgres::{TestDatabase, server_url};
use support::store_contract::{bounded, explorer_game, explorer_rows};

use super::migration_v9::{generating, upgraded};

/// Many games through a few positions, each game its own deep line: enough rows that a
/// planner weighing its options picks what it would in production.
fn many_games() -> Vec<ExplorerGame> {
    (0..2_000)
        .map(|i| {
            let mut game = explorer_game(&format!("m{i:05}"), i, ExplorerResult::Draw, "e2e4");
            game.turns[1].key = 1_000 + i % 300;
            game
        })
        .collect()
}

#[tokio::test]
async fn a_schema_version_8_database_gains_empty_explorer_tables_and_counts_new_games() {
    if generating() {
        return;
    }
    let (_data, store) = upgraded();
    // The fixture's finished games (a rated mate, a casual resignation) are not backfilled.
    let start = position_key(&Position::initial());
    assert_eq!(
        bounded(store.explorer_position(start)).await.expect("read"),
        ExplorerPosition::default()
    );
    let added = bounded(store.add_explorer_games(vec![explorer_game(
        "new",
        5,
        ExplorerResult::BlackWins,
        "d2d4",
    )]))
    .await
    .expect("add");
    assert_eq!(added, 1);
    let root = explorer_rows(&store, 1).await;
    assert_eq!((root.turns.len(), root.turns[0].black), (1, 1));
    bounded(store.close()).await;
}

/// SQLite's plan of `sql` with `params`, one line per step.
fn sqlite_plan(conn: &rusqlite::Connection, sql: &str, key: i64) -> String {
    let mut statement = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .expect("explain");
    let rows = statement
        .query_map([key], |row| row.get::<_, String>(3))
        .expect("plan")
        .collect::<Result<Vec<_>, _>>()
        .expect("plan rows");
    rows.join("\n")
}

#[tokio::test]
async fn on_sqlite_a_position_is_read_as_ranges_of_the_primary_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(store.add_explorer_games(many_games()))
        .await
        .expect("add");
    bounded(store.close()).await;
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE_NAME)).expect("raw open");
    conn.execute_batch("ANALYZE").expect("analyze");
    let plan = sqlite_plan(&conn, SQLITE_TURNS, 1);
    assert!(
        plan.contains("SEARCH explorer_turns USING PRIMARY KEY (key=?)"),
        "{plan}"
    );
    let plan = sqlite_plan(&conn, SQLITE_EXAMPLES, 1);
    assert!(
        plan.contains("SEARCH e USING PRIMARY KEY (key=?)"),
        "{plan}"
    );
    assert!(
        plan.contains("SEARCH g USING PRIMARY KEY (game_id=?)"),
        "{plan}"
    );
    for step in plan.lines() {
        assert!(!step.starts_with("SCAN"), "a scan:\n{plan}");
    }
}

/// Postgres's plan of `sql` for key `key`.
async fn pg_plan(client: &tokio_postgres::Client, sql: &str, key: i64) -> String {
    let rows = client
        .query(&format!("EXPLAIN {sql}"), &[&key])
        .await
        .expect("explain");
    rows.iter()
        .map(|row| row.get::<_, String>(0))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn on_postgres_a_position_is_read_as_ranges_of_the_primary_keys() {
    let Some(server) = server_url("explorer_plans") else {
        return;
    };
    let db = TestDatabase::create(&server, "explorer_plans").await;
    let store = bounded(PostgresStore::open(&db.url)).await.expect("open");
    bounded(store.add_explorer_games(many_games()))
        .await
        .expect("add");
    let raw = db.connect().await;
    raw.batch_execute("ANALYZE").await.expect("analyze");
    let plan = pg_plan(&raw, PG_TURNS, 1_005).await;
    assert!(plan.contains("explorer_turns_pkey"), "{plan}");
    let plan = pg_plan(&raw, PG_EXAMPLES, 1_005).await;
    assert!(plan.contains("explorer_examples_pkey"), "{plan}");
    assert!(plan.contains("explorer_games_pkey"), "{plan}");
    assert!(!plan.contains("Seq Scan"), "{plan}");
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_version_5_database_gains_the_explorer_tables() {
    let Some(server) = server_url("explorer_migrate_v5") else {
        return;
    };
    let db = TestDatabase::create(&server, "explorer_migrate_v5").await;
    let mut raw = db.connect().await;
    // Version 6 (the lessons): the last before version 7 added the explorer's tables.
    migrate_to(&mut raw, 6)
        .await
        .expect("the schema before the explorer");
    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, PG_VERSION);
    let added = bounded(store.add_explorer_games(vec![explorer_game(
        "g",
        1,
        ExplorerResult::WhiteWins,
        "e2e4",
    )]))
    .await
    .expect("add");
    assert_eq!(added, 1);
    assert_eq!(explorer_rows(&store, 1).await.turns.len(), 1);
    bounded(store.close()).await;
}

#[tokio::test]
async fn marseillais_migrate_copies_the_explorer_tables_to_postgres() {
    let Some(server) = server_url("migrate_explorer") else {
        return;
    };
    let source = tempfile::tempdir().expect("temp dir");
    let sqlite = SqliteStore::open(source.path()).expect("open the source");
    let mut games = many_games();
    games[0].white.rating = None;
    bounded(sqlite.add_explorer_games(games))
        .await
        .expect("add");
    bounded(sqlite.close()).await;
    let db = TestDatabase::create(&server, "migrate_explorer").await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_marseillais"))
        .arg("migrate")
        .arg("--from")
        .arg(format!("sqlite:{}", source.path().display()))
        .arg("--to")
        .arg(&db.url)
        .output()
        .expect("run marseillais migrate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for table in ["explorer_games", "explorer_turns", "explorer_examples"] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{table} ")))
            .unwrap_or_else(|| panic!("{table} counted: {stdout}"));
        assert!(line.ends_with("ok"), "{line}");
    }
    let sqlite = SqliteStore::open(source.path()).expect("open the source");
    let postgres = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open the copy");
    for key in [1, 2, 1_000, 1_299] {
        assert_eq!(
            explorer_rows(&postgres, key).await,
            explorer_rows(&sqlite, key).await,
            "position {key}"
        );
    }
    bounded(sqlite.close()).await;
    bounded(postgres.close()).await;
}
