//! Lesson progress (issue 31) on a database written by an older program: the schema version 8
//! fixture (SQLite) gains `lesson_steps` with every old value kept (the helpers of
//! migration_v9.rs), its accounts record steps that a reopened store still lists; a PostgreSQL
//! database at the version before gains the table and keeps its users.

use crate::support;

use marseillais::server::store::postgres::{SCHEMA_VERSION as PG_VERSION, migrate_to};
use marseillais::server::store::{LessonStep, PostgresStore, SqliteStore, Store};
use support::postgres::{TestDatabase, server_url};
use support::raw_db::{DB, raw_i64};
use support::store_contract::{bounded, puzzle_user};

use super::migration_v9::{alice, generating, upgraded};

#[tokio::test]
async fn the_version_8_fixture_gains_an_empty_lesson_table_its_accounts_then_fill() {
    if generating() {
        return;
    }
    let (data, store) = upgraded();
    let alice = alice(&data);
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM lesson_steps"), 0);
    assert_eq!(bounded(store.lesson_steps(alice)).await.expect("read"), []);
    bounded(store.record_lesson_step(alice, "moving-twice", 1, 5))
        .await
        .expect("record");
    bounded(store.close()).await;
    let store = SqliteStore::open(data.path()).expect("reopen");
    assert_eq!(
        bounded(store.lesson_steps(alice)).await.expect("read"),
        [LessonStep {
            lesson: "moving-twice".to_owned(),
            step: 1,
            done_ms: 5,
        }]
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_database_of_the_version_before_gains_the_lesson_table() {
    let Some(server) = server_url("migrate_learn") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_learn").await;
    let mut raw = db.connect().await;
    // Version 5 (the puzzles): the last before version 6 added the lesson table.
    migrate_to(&mut raw, 5)
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
    bounded(store.record_lesson_step(ann, "en-passant", 2, 7))
        .await
        .expect("record");
    assert_eq!(
        bounded(store.lesson_steps(ann)).await.expect("read"),
        [LessonStep {
            lesson: "en-passant".to_owned(),
            step: 2,
            done_ms: 7,
        }]
    );
    bounded(store.close()).await;
}
