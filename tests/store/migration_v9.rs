//! The database a schema version 8 server leaves on disk (issue 30's puzzles, before issue 31):
//! the fixture `tests/data/schema_v8/`, written by the binary of that version over HTTP and
//! WebSocket, opens with today's code with every version 8 value kept, and its games, ratings
//! and puzzle rounds read as before. The migrations after version 8 (issue 31's rooms) test what
//! they add on this same fixture, through the helpers here ([`made`], [`V8_TABLES`],
//! [`upgraded`]).
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v8/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::time::Duration;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::raw_db::{DB, copy_fixture, fixture_dir, older_server, raw_i64, raw_tables};
use support::s;
use support::session::Session;
use support::store_contract::bounded;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V8_SERVER";

/// The tables a version 8 database has.
pub const V8_TABLES: [&str; 15] = [
    "games",
    "events",
    "users",
    "sessions",
    "ratings",
    "rated_games",
    "turn_deadlines",
    "chat_lines",
    "account_settings",
    "arenas",
    "arena_players",
    "puzzles",
    "puzzle_themes",
    "puzzle_players",
    "puzzle_rounds",
];

/// The fixture's `games.json`: what the generator made, by key (`open`, `playing`,
/// `rated_mate`, `casual_resigned`, `puzzle`).
pub fn made() -> Value {
    let text = std::fs::read_to_string(fixture_dir("schema_v8").join("games.json"))
        .expect("the fixture's games.json");
    serde_json::from_str(&text).expect("json")
}

/// Whether this run is the generator's (the ordinary tests then stand aside).
pub fn generating() -> bool {
    std::env::var(GENERATE_ENV).is_ok()
}

/// A copy of the fixture opened (so migrated) by today's store, after checking that every
/// version 8 value is kept. The directory must outlive the store.
pub fn upgraded() -> (tempfile::TempDir, SqliteStore) {
    let data = copy_fixture("schema_v8");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 8);
    let before = raw_tables(&db, &V8_TABLES);
    let store = SqliteStore::open(data.path()).expect("open migrates");
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V8_TABLES), before, "every old value kept");
    (data, store)
}

/// alice's id in the fixture.
pub fn alice(data: &tempfile::TempDir) -> UserId {
    UserId(raw_i64(
        &data.path().join(DB),
        "SELECT id FROM users WHERE username = 'alice'",
    ))
}

#[tokio::test]
async fn a_schema_version_8_database_opens_with_every_value_kept() {
    if generating() {
        return;
    }
    let made = made();
    let (data, store) = upgraded();
    let alice = alice(&data);

    let alices = bounded(store.user_games(alice, 10, 0))
        .await
        .expect("alice's games");
    assert_eq!(
        alices.len(),
        4,
        "open, playing, rated mate, casual resigned"
    );
    for (key, status) in [
        ("open", GameStatus::Open),
        ("playing", GameStatus::Playing),
        ("rated_mate", GameStatus::Finished),
        ("casual_resigned", GameStatus::Finished),
    ] {
        let (game, events) = bounded(store.load_game(&s(&made[key]["id"])))
            .await
            .expect("load")
            .expect("there");
        assert_eq!(game.status, status, "{key}");
        assert!(!events.is_empty(), "{key}");
    }
    let rated = bounded(store.game_rating(&s(&made["rated_mate"]["id"])))
        .await
        .expect("read")
        .expect("the rated end");
    assert_eq!(rated.white, alice);
    assert!(
        bounded(store.puzzle_count()).await.expect("count") > 0,
        "the set the server imported"
    );
    let player = bounded(store.puzzle_player(alice))
        .await
        .expect("read")
        .expect("alice's puzzle rating");
    assert_eq!((player.solved, player.failed), (0, 1), "the round given up");
    let attempts = bounded(store.puzzle_attempts(alice, 10))
        .await
        .expect("rounds");
    assert_eq!(attempts.len(), 1);
    bounded(store.close()).await;
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v8/.

#[tokio::test]
async fn generate() {
    let Some((scratch, server)) = older_server(GENERATE_ENV).await else {
        return;
    };
    let addr = server.addr;
    let mut made = serde_json::Map::new();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let blitz = json!({"base_secs": 300, "increment_secs": 2});
    let (status, reply) = alice
        .call(
            addr,
            "POST",
            "/api/games",
            Some(&json!({"color": "white", "clock": blitz})),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
    made.insert("open".into(), json!({"id": s(&reply["id"])}));
    tokio::time::sleep(Duration::from_millis(5)).await;

    // A game being played, a rated game ended by mate, a casual game ended by resignation.
    for (key, rated) in [
        ("playing", false),
        ("rated_mate", true),
        ("casual_resigned", false),
    ] {
        let body = json!({"rated": rated, "color": "white", "clock": blitz});
        let (status, reply) = alice.call(addr, "POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 201, "{reply}");
        let id = s(&reply["id"]);
        let path = format!("/api/games/{id}/join");
        let (status, reply) = bob.call(addr, "POST", &path, None).await;
        assert_eq!(status, 200, "{reply}");
        let mut w = alice.connect(addr, &id, "").await;
        let mut b = bob.connect(addr, &id, "").await;
        w.skip_to("state").await;
        b.skip_to("state").await;
        match key {
            "rated_mate" => {
                play_until_white_mates_in_one(&mut w, &mut b).await;
                w.play("d1h5", "w2").await;
                w.recv_type("end").await;
            }
            "casual_resigned" => {
                w.play("e2e4", "w1").await;
                b.play("e7e5", "b1").await;
                b.play("g8f6", "b2").await;
                w.send(json!({"t": "resign"})).await;
                w.recv_type("end").await;
            }
            _ => {
                w.play("e2e4", "w1").await;
            }
        }
        made.insert(key.into(), json!({"id": id}));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // A puzzle round of alice's: the next puzzle, given up (a rated, failed first try).
    let (status, reply) = alice.call(addr, "GET", "/api/puzzles/next", None).await;
    assert_eq!(status, 200, "{reply}");
    let puzzle = s(&reply["puzzle"]["id"]);
    let path = format!("/api/puzzles/{puzzle}/solution");
    let (status, reply) = alice.call(addr, "POST", &path, Some(&json!({}))).await;
    assert_eq!(status, 200, "{reply}");
    made.insert("puzzle".into(), json!({"id": puzzle}));

    assert!(server.terminate().await, "a clean shutdown");
    support::raw_db::save_fixture(scratch.path(), "schema_v8", 8, Value::Object(made));
}
