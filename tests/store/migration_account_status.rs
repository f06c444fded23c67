//! The account's status (issue 32; SQLite v11, Postgres v8) on a database written by an older
//! program: every account of the schema version 8 fixture comes out active (its sessions still
//! resolve), and can then be closed; a PostgreSQL database at the version before gains the
//! columns with the same default.

use crate::support;

use marseillais::server::domain::user::{AccountStatus, Username};
use marseillais::server::store::postgres::{SCHEMA_VERSION as PG_VERSION, migrate_to};
use marseillais::server::store::{PostgresStore, SqliteStore, Store};
use support::postgres::{TestDatabase, server_url};
use support::raw_db::{DB, raw_i64};
use support::store_contract::bounded;

use super::migration_v9::{alice, generating, upgraded};

#[tokio::test]
async fn every_account_of_the_version_8_fixture_is_active_and_can_then_be_closed() {
    if generating() {
        return;
    }
    let (data, store) = upgraded();
    let alice = alice(&data);
    let db = data.path().join(DB);
    assert_eq!(
        raw_i64(&db, "SELECT count(*) FROM users WHERE status <> 'active'"),
        0
    );
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM users WHERE status_ms IS NOT NULL"
        ),
        0
    );
    let record = bounded(store.user_by_id(alice))
        .await
        .expect("read")
        .expect("alice");
    assert_eq!(record.status, AccountStatus::Active);
    bounded(store.set_account_status(alice, AccountStatus::Closed, 9))
        .await
        .expect("close");
    bounded(store.close()).await;
    let store = SqliteStore::open(data.path()).expect("reopen");
    let record = bounded(store.user_by_id(alice))
        .await
        .expect("read")
        .expect("alice");
    assert_eq!(record.status, AccountStatus::Closed);
    assert_eq!(
        raw_i64(
            &db,
            "SELECT count(*) FROM sessions
             WHERE user_id = (SELECT id FROM users WHERE username = 'alice')"
        ),
        0,
        "her sessions went with the closing"
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_database_of_the_version_before_gains_the_account_status() {
    let Some(server) = server_url("migrate_account_status") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_account_status").await;
    let mut raw = db.connect().await;
    // Version 7 (the explorer): the last before version 8 added the status.
    migrate_to(&mut raw, 7)
        .await
        .expect("build the version before");
    raw.execute(
        "INSERT INTO users (username, username_key, password_hash, created_ms)
         VALUES ('ann', 'ann', 'hash', 1)",
        &[],
    )
    .await
    .expect("an older account");
    let store = bounded(PostgresStore::open(&db.url))
        .await
        .expect("open migrates");
    let version: i32 = raw
        .query_one("SELECT version FROM schema_version", &[])
        .await
        .expect("version")
        .get(0);
    assert_eq!(version, PG_VERSION);
    let ann = bounded(store.find_user(&Username::parse("ann").expect("a name")))
        .await
        .expect("read")
        .expect("ann kept");
    assert_eq!(ann.status, AccountStatus::Active);
    bounded(store.set_account_status(ann.account.id, AccountStatus::Closed, 5))
        .await
        .expect("close");
    let ann = bounded(store.user_by_id(ann.account.id))
        .await
        .expect("read")
        .expect("ann kept");
    assert_eq!(ann.status, AccountStatus::Closed);
    bounded(store.close()).await;
}
