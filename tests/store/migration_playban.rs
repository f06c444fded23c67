//! Playban outcomes (issue 32) on a database written by an older program: the schema version 8
//! fixture (SQLite) gains `playban_outcomes`, empty, with every old value kept (the helpers of
//! migration_v9.rs), and its accounts' outcomes are then kept across a reopen; a PostgreSQL
//! database at the version before gains the table; a user's read is a range of the index.

use crate::support;

use marseillais::server::store::postgres::{SCHEMA_VERSION as PG_VERSION, migrate_to};
use marseillais::server::store::sqlite::{DB_FILE_NAME, PLAYBAN_OUTCOMES_SQL};
use marseillais::server::store::{
    PlaybanEnd, PlaybanEntry, PlaybanOutcome, PostgresStore, SqliteStore, Store,
};
use support::postgres::{TestDatabase, server_url};
use support::raw_db::{DB, raw_i64};
use support::store_contract::{bounded, puzzle_user};

use super::migration_v9::{alice, generating, upgraded};

fn aborted(game: &str, user: marseillais::server::domain::user::UserId) -> PlaybanEnd {
    PlaybanEnd {
        game_id: game.to_owned(),
        at_ms: 5,
        seats: vec![(user, PlaybanOutcome::Abort)],
    }
}

fn entry(game: &str) -> PlaybanEntry {
    PlaybanEntry {
        game_id: game.to_owned(),
        outcome: PlaybanOutcome::Abort,
        at_ms: 5,
    }
}

#[tokio::test]
async fn the_version_8_fixture_gains_an_empty_playban_table_its_accounts_then_fill() {
    if generating() {
        return;
    }
    let (data, store) = upgraded();
    let alice = alice(&data);
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM playban_outcomes"), 0);
    bounded(store.record_playban(aborted("g1", alice)))
        .await
        .expect("record");
    bounded(store.close()).await;
    let store = SqliteStore::open(data.path()).expect("reopen");
    assert_eq!(
        bounded(store.playban_outcomes(alice, 0, 10))
            .await
            .expect("read"),
        [entry("g1")]
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn on_sqlite_a_users_outcomes_are_read_as_a_range_of_the_time_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(dir.path()).expect("open");
    bounded(store.close()).await;
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE_NAME)).expect("raw open");
    let mut statement = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {PLAYBAN_OUTCOMES_SQL}"))
        .expect("explain");
    let plan: Vec<String> = statement
        .query_map(rusqlite::params![1, 0, 10], |row| row.get::<_, String>(3))
        .expect("plan")
        .collect::<Result<_, _>>()
        .expect("rows");
    let plan = plan.join("\n");
    assert!(
        plan.contains("USING COVERING INDEX playban_outcomes_by_time (user_id=? AND at_ms>?)")
            || plan.contains("USING INDEX playban_outcomes_by_time (user_id=? AND at_ms>?)"),
        "{plan}"
    );
}

#[tokio::test]
async fn a_postgres_database_of_the_version_before_gains_the_playban_table() {
    let Some(server) = server_url("migrate_playban") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_playban").await;
    let mut raw = db.connect().await;
    migrate_to(&mut raw, 10)
        .await
        .expect("build the version before");
    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, PG_VERSION);
    let ann = puzzle_user(&store, "ann").await;
    bounded(store.record_playban(aborted("g1", ann)))
        .await
        .expect("record");
    assert_eq!(
        bounded(store.playban_outcomes(ann, 0, 10))
            .await
            .expect("read"),
        [entry("g1")]
    );
    bounded(store.close()).await;
}
