//! Blocks (issue 32) on a database written by an older program: the schema version 8 fixture
//! (SQLite) gains an empty `blocks` table (the helpers of migration_v9.rs), whose rows its
//! accounts then write and a reopened store still reads; a PostgreSQL database at the version
//! before gains the table and keeps its users.

use crate::support;

use marseillais::server::store::postgres::{SCHEMA_VERSION as PG_VERSION, migrate_to};
use marseillais::server::store::{PostgresStore, SqliteStore, Store};
use support::postgres::{TestDatabase, server_url};
use support::raw_db::{DB, raw_i64};
use support::store_contract::{bounded, puzzle_user};

use super::migration_v9::{alice, generating, upgraded};

#[tokio::test]
async fn the_version_8_fixture_gains_an_empty_block_table_its_accounts_then_fill() {
    if generating() {
        return;
    }
    let (data, store) = upgraded();
    let alice = alice(&data);
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM blocks"), 0);
    assert_eq!(
        bounded(store.block_relations(alice)).await.expect("read"),
        []
    );
    let zed = puzzle_user(&store, "zed").await;
    bounded(store.block(alice, zed, 5)).await.expect("block");
    bounded(store.close()).await;
    let store = SqliteStore::open(data.path()).expect("reopen");
    assert!(
        bounded(store.blocked_between(zed, alice))
            .await
            .expect("read")
    );
    let list = bounded(store.blocks_of(alice)).await.expect("read");
    assert_eq!(list.len(), 1);
    assert_eq!(
        (list[0].user, list[0].name.as_str(), list[0].at_ms),
        (zed, "zed", 5)
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_database_of_the_version_before_gains_the_block_table() {
    let Some(server) = server_url("migrate_blocks") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_blocks").await;
    let mut raw = db.connect().await;
    // The version before this one's.
    migrate_to(&mut raw, 9)
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
    let ben = puzzle_user(&store, "ben").await;
    bounded(store.block(ann, ben, 7)).await.expect("block");
    assert!(
        bounded(store.blocked_between(ben, ann))
            .await
            .expect("read")
    );
    bounded(store.close()).await;
}
