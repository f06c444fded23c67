//! Moderation (issue 32) on a database written by an older program: the schema version 8
//! fixture (SQLite) gains the moderation tables empty with every old value kept (the helpers
//! of migration_v9.rs), and its accounts can then be reported, banned and marked in a store
//! that is reopened; a PostgreSQL database at the version before gains the tables.

use crate::support;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::postgres::{SCHEMA_VERSION as PG_VERSION, migrate_to};
use marseillais::server::store::{
    Mark, ModAction, ModActionKind, NewReport, PostgresStore, ReportFiled, ReportReason,
    SqliteStore, Store,
};
use support::postgres::{TestDatabase, server_url};
use support::raw_db::{DB, raw_i64};
use support::store_contract::{bounded, puzzle_user};

use super::migration_v9::{alice, generating, upgraded};

async fn report_and_mark(store: &dyn Store, reporter: UserId, reported: UserId) {
    let filed = store
        .file_report(
            NewReport {
                reporter,
                reported,
                reason: ReportReason::Other,
                text: String::new(),
                game_id: None,
                at_ms: 5,
            },
            0,
            3,
        )
        .await
        .expect("file");
    assert!(matches!(filed, ReportFiled::Filed(_)));
    let settled = store
        .moderate(ModAction {
            moderator: "console".into(),
            target: reported,
            kind: ModActionKind::Mark(Mark::Engine),
            reason: "r".into(),
            at_ms: 6,
        })
        .await
        .expect("mark");
    assert_eq!(settled, 1);
}

#[tokio::test]
async fn the_version_8_fixture_gains_empty_moderation_tables_its_accounts_then_use() {
    if generating() {
        return;
    }
    let (data, store) = upgraded();
    let alice = alice(&data);
    let db = data.path().join(DB);
    for table in ["moderators", "reports", "marks", "chat_bans", "mod_log"] {
        assert_eq!(
            raw_i64(&db, &format!("SELECT count(*) FROM {table}")),
            0,
            "{table}"
        );
    }
    let other = puzzle_user(&store, "zed").await;
    report_and_mark(&store, other, alice).await;
    bounded(store.close()).await;
    let store = SqliteStore::open(data.path()).expect("reopen");
    let mark = bounded(store.user_mark(alice)).await.expect("read");
    assert_eq!(mark.map(|m| m.mark), Some(Mark::Engine));
    assert_eq!(bounded(store.mod_log(5)).await.expect("read").len(), 1);
    assert_eq!(bounded(store.open_reports(5)).await.expect("read"), []);
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_postgres_database_of_the_version_before_gains_the_moderation_tables() {
    let Some(server) = server_url("migrate_moderation") else {
        return;
    };
    let db = TestDatabase::create(&server, "migrate_moderation").await;
    let mut raw = db.connect().await;
    migrate_to(&mut raw, 8)
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
    let bea = puzzle_user(&store, "bea").await;
    report_and_mark(&store, ann, bea).await;
    assert!(bounded(store.user_mark(bea)).await.expect("read").is_some());
    bounded(store.close()).await;
}
