//! Schema version 5 (issue 14: personal settings kept in the account): a database written by the
//! server before it (the schema version 4 fixture, `tests/data/schema_v4/`, written by the
//! binary of that version over HTTP and WebSocket) upgrades in place on first open, in one
//! transaction, keeps every row of every table exactly as it was (games, events, users,
//! sessions, ratings, rated games, the turn-deadline index, chat lines), and gains the settings
//! table, which works through the store at once.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v4/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::path::Path;
use std::time::Duration;

use marseillais::server::players::account::UserId;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::raw_db::{
    DB, check_a_failed_migration_leaves_the_fixture_as_it_was, copy_fixture, older_server, raw_i64,
    raw_tables, save_fixture, table_exists,
};
use support::s;
use support::session::Session;
use support::store_contract::bounded;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V4_SERVER";

/// The tables a version 4 database has, each read whole.
const V4_TABLES: [&str; 8] = [
    "games",
    "events",
    "users",
    "sessions",
    "ratings",
    "rated_games",
    "turn_deadlines",
    "chat_lines",
];

fn user_id(db: &Path, name: &str) -> UserId {
    UserId(raw_i64(
        db,
        &format!("SELECT id FROM users WHERE username = '{name}'"),
    ))
}

#[tokio::test]
async fn a_schema_version_4_database_upgrades_in_place_keeps_every_row_and_gains_settings() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = copy_fixture("schema_v4");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 4);
    assert!(!table_exists(&db, "account_settings"));
    let before = raw_tables(&db, &V4_TABLES);
    assert_eq!(before["games"].len(), 3, "the fixture's three games");
    assert_eq!(before["users"].len(), 2, "alice and bob");
    assert_eq!(before["rated_games"].len(), 1, "one rated game");
    assert_eq!(before["turn_deadlines"].len(), 1, "the correspondence game");
    assert_eq!(before["chat_lines"].len(), 1, "one chat line");
    let alice = user_id(&db, "alice");
    let bob = user_id(&db, "bob");

    let store = SqliteStore::open(data.path()).expect("open migrates");
    for row in &before["games"] {
        let rusqlite::types::Value::Text(id) = &row[0] else {
            panic!("a game id is text, not {:?}", row[0]);
        };
        let (listing, events) = bounded(store.load_game(id))
            .await
            .expect("load")
            .expect("every game is still there");
        assert_eq!(&listing.id, id);
        assert!(!events.is_empty(), "{id}");
    }
    assert_eq!(
        bounded(store.turn_deadlines()).await.expect("index").len(),
        1
    );
    assert!(
        bounded(store.list(GameStatus::Playing, 100, 0))
            .await
            .expect("list")
            .len()
            >= 2
    );
    // Nobody has settings yet; a save works at once and is the user's alone.
    assert_eq!(
        bounded(store.account_settings(alice)).await.expect("read"),
        None
    );
    bounded(store.set_account_settings(alice, r#"{"theme":"green"}"#.to_owned(), 1))
        .await
        .expect("save");
    assert_eq!(
        bounded(store.account_settings(alice)).await.expect("read"),
        Some(r#"{"theme":"green"}"#.to_owned())
    );
    assert_eq!(
        bounded(store.account_settings(bob)).await.expect("read"),
        None
    );
    bounded(store.close()).await;
    drop(store);

    // Upgraded in place: same file, the current version, every old row untouched.
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V4_TABLES), before);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM account_settings"), 1);
    // Opening it again is a no-op (no second migration: the row just written is still there).
    let store = SqliteStore::open(data.path()).expect("reopen");
    assert_eq!(
        bounded(store.account_settings(alice)).await.expect("read"),
        Some(r#"{"theme":"green"}"#.to_owned())
    );
    bounded(store.close()).await;
}

#[tokio::test]
async fn a_version_5_migration_that_fails_leaves_the_version_4_database_as_it_was() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    check_a_failed_migration_leaves_the_fixture_as_it_was(
        "schema_v4",
        4,
        &V4_TABLES,
        "CREATE TABLE account_settings (x INTEGER)",
    );
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v4/.

async fn pause() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

async fn create(addr: std::net::SocketAddr, creator: &Session, body: Value) -> Value {
    let (status, reply) = creator.call(addr, "POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 201, "{reply}");
    reply
}

async fn join(addr: std::net::SocketAddr, joiner: &Session, id: &str) -> Value {
    let path = format!("/api/games/{id}/join");
    let (status, reply) = joiner.call(addr, "POST", &path, None).await;
    assert_eq!(status, 200, "{reply}");
    reply
}

#[tokio::test]
async fn generate() {
    let Some((scratch, server)) = older_server(GENERATE_ENV).await else {
        return;
    };
    let addr = server.addr;
    let mut games = serde_json::Map::new();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;

    // Correspondence, 3 days a turn, alice (White) - bob: 1. e4, Black to move (a deadline row),
    // and one line in the players' chat.
    let created = create(
        addr,
        &alice,
        json!({"color": "white", "clock": {"days_per_turn": 3}}),
    )
    .await;
    let id = s(&created["id"]);
    join(addr, &bob, &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    w.skip_to("state").await;
    w.play("e2e4", "w1").await;
    w.send(json!({"t": "chat", "d": {"room": "player", "text": "bonne chance"}}))
        .await;
    w.skip_to("chat").await;
    games.insert("correspondence_playing".into(), json!({"id": id}));
    pause().await;

    // Casual 300+2, alice (White) - bob, playing: 1. e4.
    let created = create(
        addr,
        &alice,
        json!({"color": "white", "clock": {"base_secs": 300, "increment_secs": 2}}),
    )
    .await;
    let id = s(&created["id"]);
    join(addr, &bob, &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    w.skip_to("state").await;
    w.play("e2e4", "w1").await;
    games.insert("accounts_playing".into(), json!({"id": id}));
    pause().await;

    // Rated blitz alice (White) - bob, finished by mate: both ratings changed once.
    let created = create(
        addr,
        &alice,
        json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}}),
    )
    .await;
    let id = s(&created["id"]);
    join(addr, &bob, &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    let mut b = bob.connect(addr, &id, "").await;
    w.skip_to("state").await;
    b.skip_to("state").await;
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    w.recv_type("end").await;
    games.insert("rated_mate".into(), json!({"id": id}));

    assert!(server.terminate().await, "a clean shutdown");
    save_fixture(scratch.path(), "schema_v4", 4, Value::Object(games));
}
