//! Schema version 4 (issue 12: the turn-deadline index of correspondence games, and chat): a
//! database written by the server before it (the schema version 3 fixture,
//! `tests/data/schema_v3/`, written by the binary of that version over HTTP and WebSocket)
//! upgrades in place on first open, in one transaction, and keeps every row of every table
//! exactly as it was (games, events, users, sessions, ratings, rated games); the new tables work
//! on it at once.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v3/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::time::Duration;

use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::http::http;
use support::raw_db::{
    DB, check_a_failed_migration_leaves_the_fixture_as_it_was, copy_fixture, older_server, raw_i64,
    raw_tables, save_fixture, table_exists,
};
use support::s;
use support::session::Session;
use support::store_contract::bounded;
use support::ws::Client;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V3_SERVER";

/// The tables a version 3 database has, each read whole.
const V3_TABLES: [&str; 6] = [
    "games",
    "events",
    "users",
    "sessions",
    "ratings",
    "rated_games",
];

#[tokio::test]
async fn a_schema_version_3_database_upgrades_in_place_and_keeps_every_row() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    let data = copy_fixture("schema_v3");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 3);
    let before = raw_tables(&db, &V3_TABLES);
    assert_eq!(before["games"].len(), 6, "the fixture's six games");
    assert_eq!(before["users"].len(), 2, "alice and bob");
    assert_eq!(before["rated_games"].len(), 1, "one rated game");
    let ids: Vec<String> = before["games"]
        .iter()
        .map(|row| match &row[0] {
            rusqlite::types::Value::Text(id) => id.clone(),
            other => panic!("a game id is text, not {other:?}"),
        })
        .collect();

    let store = SqliteStore::open(data.path()).expect("open migrates");
    // Every game loads through the store as it was written.
    for id in &ids {
        let (listing, events) = bounded(store.load_game(id))
            .await
            .expect("load")
            .expect("every game is still there");
        assert_eq!(&listing.id, id);
        assert!(!events.is_empty(), "{id}");
    }
    assert_eq!(
        bounded(store.list(GameStatus::Open, 100, 0))
            .await
            .expect("list")
            .len(),
        1,
        "the listed open game"
    );
    assert!(
        bounded(store.turn_deadlines())
            .await
            .expect("the index reads")
            .is_empty()
    );
    bounded(store.close()).await;
    drop(store);

    // Upgraded in place: same file, the current version, every old row untouched (read by raw SQL).
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V3_TABLES), before);
    // The new tables are there, empty, and take rows of the shape they were made for.
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM turn_deadlines"), 0);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM chat_lines"), 0);
    {
        let conn = rusqlite::Connection::open(&db).expect("raw open");
        conn.execute(
            "INSERT INTO turn_deadlines (game_id, deadline_ms) VALUES (?1, 1764612345000)",
            [&ids[0]],
        )
        .expect("a deadline");
        conn.execute(
            "INSERT INTO chat_lines (game_id, room, at_ms, user_id, author, text) \
             VALUES (?1, 'player', 1, NULL, 'white', 'hi'), (NULL, 'lobby', 2, 1, 'alice', 'yo')",
            [&ids[0]],
        )
        .expect("chat lines");
        let lobby: String = conn
            .query_row(
                "SELECT text FROM chat_lines WHERE game_id IS NULL AND room = 'lobby' ORDER BY id",
                [],
                |row| row.get(0),
            )
            .expect("the lobby line");
        assert_eq!(lobby, "yo");
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT id FROM chat_lines WHERE game_id = ?1 AND room = 'player' ORDER BY id DESC LIMIT 50",
                [&ids[0]],
                |row| row.get(3),
            )
            .expect("plan");
        assert!(plan.contains("chat_lines_by_room"), "{plan}");
        assert!(
            conn.execute(
                "INSERT INTO turn_deadlines (game_id, deadline_ms) VALUES (?1, 1)",
                [&ids[0]],
            )
            .is_err(),
            "one deadline per game"
        );
    }
    // Opening it again is a no-op (no second migration: the rows just written are still there).
    let store = SqliteStore::open(data.path()).expect("reopen");
    bounded(store.close()).await;
    drop(store);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM turn_deadlines"), 1);
    assert_eq!(raw_i64(&db, "SELECT count(*) FROM chat_lines"), 2);
}

#[tokio::test]
async fn a_migration_that_fails_half_way_leaves_the_version_3_database_as_it_was() {
    if std::env::var(GENERATE_ENV).is_ok() {
        return;
    }
    // A table in the way of the migration's later statements: `turn_deadlines` is created
    // first, so this makes a later step (chat_lines) fail after an earlier one ran.
    let data = check_a_failed_migration_leaves_the_fixture_as_it_was(
        "schema_v3",
        3,
        &V3_TABLES,
        "CREATE TABLE chat_lines (x INTEGER)",
    );
    let db = data.path().join(DB);
    assert!(
        !table_exists(&db, "turn_deadlines"),
        "the step before the failure was rolled back"
    );
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v3/.

/// A pause between games, so that no two share a last-activity millisecond.
async fn pause() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

/// Creates a game as `creator` (signed in, or anonymous when `None`) with `body`; returns the
/// creation reply.
async fn create(addr: std::net::SocketAddr, creator: Option<&Session>, body: Value) -> Value {
    let (status, reply) = match creator {
        Some(session) => session.call(addr, "POST", "/api/games", Some(&body)).await,
        None => {
            let (status, text) = http(addr, "POST", "/api/games", Some(&body.to_string())).await;
            (status, serde_json::from_str(&text).expect("json"))
        }
    };
    assert_eq!(status, 201, "{reply}");
    reply
}

async fn join(addr: std::net::SocketAddr, joiner: Option<&Session>, id: &str) -> Value {
    let path = format!("/api/games/{id}/join");
    let (status, reply) = match joiner {
        Some(session) => session.call(addr, "POST", &path, None).await,
        None => {
            let (status, text) = http(addr, "POST", &path, None).await;
            (status, serde_json::from_str(&text).expect("json"))
        }
    };
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

    // Anonymous, untimed, playing: 1. e4 e5,Nf6.
    let created = create(addr, None, json!({"color": "white"})).await;
    let id = s(&created["id"]);
    let joined = join(addr, None, &id).await;
    let mut w = Client::seat(addr, &id, &s(&created["token"])).await;
    let mut b = Client::seat(addr, &id, &s(&joined["token"])).await;
    w.play("e2e4", "w1").await;
    b.play("e7e5", "b1").await;
    b.play("g8f6", "b2").await;
    games.insert(
        "anonymous_playing".into(),
        json!({"id": id, "white": created["token"], "black": joined["token"]}),
    );
    pause().await;

    // Anonymous, clocked 180+2, finished by mate: 1. e4 f6,g5 2. Qh5#.
    let created = create(
        addr,
        None,
        json!({"color": "white", "clock": {"base_secs": 180, "increment_secs": 2}}),
    )
    .await;
    let id = s(&created["id"]);
    let joined = join(addr, None, &id).await;
    let mut w = Client::seat(addr, &id, &s(&created["token"])).await;
    let mut b = Client::seat(addr, &id, &s(&joined["token"])).await;
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    w.recv_type("end").await;
    games.insert("anonymous_mate".into(), json!({"id": id}));
    pause().await;

    // Two accounts, casual 300+2, playing: alice (White) 1. e4.
    let created = create(
        addr,
        Some(&alice),
        json!({"color": "white", "clock": {"base_secs": 300, "increment_secs": 2}}),
    )
    .await;
    let id = s(&created["id"]);
    join(addr, Some(&bob), &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    w.skip_to("state").await;
    w.play("e2e4", "w1").await;
    games.insert("accounts_playing".into(), json!({"id": id}));
    pause().await;

    // Rated blitz alice (White) - bob, finished by mate: both ratings changed once.
    let created = create(
        addr,
        Some(&alice),
        json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}}),
    )
    .await;
    let id = s(&created["id"]);
    join(addr, Some(&bob), &id).await;
    let mut w = alice.connect(addr, &id, "").await;
    let mut b = bob.connect(addr, &id, "").await;
    w.skip_to("state").await;
    b.skip_to("state").await;
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    w.recv_type("end").await;
    games.insert("rated_mate".into(), json!({"id": id}));
    pause().await;

    // Anonymous, untimed, resigned by Black after 1. e4.
    let created = create(addr, None, json!({"color": "white"})).await;
    let id = s(&created["id"]);
    let joined = join(addr, None, &id).await;
    let mut w = Client::seat(addr, &id, &s(&created["token"])).await;
    let mut b = Client::seat(addr, &id, &s(&joined["token"])).await;
    w.play("e2e4", "w1").await;
    b.send(json!({"t": "resign"})).await;
    w.recv_type("end").await;
    games.insert("anonymous_resigned".into(), json!({"id": id}));
    pause().await;

    // Open, listed, created by alice signed in, 600+0: nobody joined.
    let created = create(
        addr,
        Some(&alice),
        json!({"color": "white", "clock": {"base_secs": 600, "increment_secs": 0}}),
    )
    .await;
    games.insert(
        "open".into(),
        json!({"id": created["id"], "white": created["token"]}),
    );

    assert!(server.terminate().await, "a clean shutdown");
    save_fixture(scratch.path(), "schema_v3", 3, Value::Object(games));
}
