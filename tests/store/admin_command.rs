//! `marseillais admin grant-mod NAME` / `revoke-mod NAME` run as the binary on the server's
//! store (SQLite by `--data-dir`, Postgres by `--store`): the role is given and taken, each
//! change is in the moderation log as done by `console`, and an unknown name changes nothing
//! (exit 2).

use crate::support;

use std::path::Path;
use std::process::Output;

use marseillais::server::store::{PostgresStore, SqliteStore, Store};
use support::postgres::{TestDatabase, server_url};
use support::store_contract::{bounded, puzzle_user};

fn admin(command: &str, name: &str, store: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_marseillais"))
        .arg("admin")
        .arg(command)
        .arg(name)
        .args(store)
        .output()
        .expect("run marseillais admin")
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

async fn with_user(dir: &Path) -> marseillais::server::domain::user::UserId {
    let store = SqliteStore::open(dir).expect("open");
    let id = puzzle_user(&store, "Alice").await;
    bounded(store.close()).await;
    id
}

#[tokio::test]
async fn admin_grant_mod_and_revoke_mod_change_the_role_on_sqlite_logged_as_console() {
    let dir = tempfile::tempdir().expect("temp dir");
    let alice = with_user(dir.path()).await;
    let data_dir = dir.path().display().to_string();
    let flags = ["--data-dir", data_dir.as_str()];

    let said = ok(&admin("grant-mod", "alice", &flags));
    assert!(said.contains("Alice is now a moderator"), "{said}");
    let store = SqliteStore::open(dir.path()).expect("open");
    assert!(bounded(store.is_moderator(alice)).await.expect("read"));
    let log = bounded(store.mod_log(5)).await.expect("read");
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].moderator.as_str(), log[0].action.as_str()),
        ("console", "grant_mod")
    );
    bounded(store.close()).await;

    let said = ok(&admin("revoke-mod", "Alice", &flags));
    assert!(said.contains("is no longer a moderator"), "{said}");
    let unknown = admin("grant-mod", "nobody", &flags);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no such user"));

    let store = SqliteStore::open(dir.path()).expect("open");
    assert!(!bounded(store.is_moderator(alice)).await.expect("read"));
    let log = bounded(store.mod_log(5)).await.expect("read");
    let actions: Vec<&str> = log.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["revoke_mod", "grant_mod"]);
    bounded(store.close()).await;
}

#[tokio::test]
async fn admin_grant_mod_works_on_postgres_through_the_store_flag() {
    let Some(server) = server_url("admin_command") else {
        return;
    };
    let db = TestDatabase::create(&server, "admin_command").await;
    let store = bounded(PostgresStore::open(&db.url)).await.expect("open");
    let bob = puzzle_user(&store, "bob").await;
    bounded(store.close()).await;
    let said = ok(&admin("grant-mod", "bob", &["--store", &db.url]));
    assert!(said.contains("bob is now a moderator"), "{said}");
    let store = bounded(PostgresStore::open(&db.url)).await.expect("open");
    assert!(bounded(store.is_moderator(bob)).await.expect("read"));
    assert_eq!(
        bounded(store.mod_log(5)).await.expect("read")[0].moderator,
        "console"
    );
    bounded(store.close()).await;
}
