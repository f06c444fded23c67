//! The database a schema version 10 server leaves on disk (issue 31's analysis board, opening
//! explorer and lessons, before issue 32's safety rooms): the fixture `tests/data/schema_v10/`,
//! written by the binary of that version over HTTP and WebSocket, opens with today's code with
//! every version 10 value kept, and its accounts, sessions, games, chat, settings, lesson
//! progress and explorer counts read as before.
//!
//! The fixture's generator is at the end of this file; `tests/data/schema_v10/generate.sh` runs
//! it against an older binary (see the README beside the fixture).

use crate::support;

use std::time::Duration;

use futures_util::SinkExt;
use marseillais::server::domain::chat::ChatRoom;
use marseillais::server::domain::user::UserId;
use marseillais::server::store::sqlite::SCHEMA_VERSION;
use marseillais::server::store::{GameStatus, SqliteStore, Store};
use serde_json::{Value, json};
use support::game::play_until_white_mates_in_one;
use support::lobby::LobbyClient;
use support::raw_db::{DB, copy_fixture, fixture_dir, older_server, raw_i64, raw_tables};
use support::s;
use support::session::Session;
use support::store_contract::bounded;
use tokio_tungstenite::tungstenite::Message;

/// The path of an older `marseillais` binary: set, the generator writes the fixture with it.
const GENERATE_ENV: &str = "MARSEILLAIS_FIXTURE_V10_SERVER";

/// The tables a version 10 database has.
pub const V10_TABLES: [&str; 19] = [
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
    "lesson_steps",
    "explorer_games",
    "explorer_turns",
    "explorer_examples",
];

/// The fixture's `games.json`: what the generator made, by key (`playing`, `rated_mate`,
/// `casual_resigned`).
pub fn made() -> Value {
    let text = std::fs::read_to_string(fixture_dir("schema_v10").join("games.json"))
        .expect("the fixture's games.json");
    serde_json::from_str(&text).expect("json")
}

/// Whether this run is the generator's (the ordinary tests then stand aside).
pub fn generating() -> bool {
    std::env::var(GENERATE_ENV).is_ok()
}

/// A copy of the fixture opened (so migrated) by today's store, after checking that every
/// version 10 value is kept. The directory must outlive the store.
pub fn upgraded() -> (tempfile::TempDir, SqliteStore) {
    let data = copy_fixture("schema_v10");
    let db = data.path().join(DB);
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), 10);
    let before = raw_tables(&db, &V10_TABLES);
    let store = SqliteStore::open(data.path()).expect("open migrates");
    assert_eq!(raw_i64(&db, "PRAGMA user_version"), SCHEMA_VERSION);
    assert_eq!(raw_tables(&db, &V10_TABLES), before, "every old value kept");
    (data, store)
}

/// A user's id in the fixture, by name.
pub fn user(data: &tempfile::TempDir, name: &str) -> UserId {
    UserId(raw_i64(
        &data.path().join(DB),
        &format!("SELECT id FROM users WHERE username = '{name}'"),
    ))
}

#[tokio::test]
async fn a_schema_version_10_database_opens_with_every_value_kept() {
    if generating() {
        return;
    }
    let made = made();
    let (data, store) = upgraded();
    let alice = user(&data, "alice");

    let games = bounded(store.user_games(alice, 10, 0))
        .await
        .expect("games");
    assert_eq!(games.len(), 3, "playing, rated mate, casual resigned");
    for (key, status) in [
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
    let chat = bounded(store.recent_chat(
        Some(&s(&made["casual_resigned"]["id"])),
        ChatRoom::Player,
        10,
    ))
    .await
    .expect("chat");
    let said: Vec<&str> = chat.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(said, ["good luck", "you too"]);
    let lobby = bounded(store.recent_chat(None, ChatRoom::Lobby, 10))
        .await
        .expect("lobby chat");
    assert_eq!(lobby.len(), 1);
    let settings = bounded(store.account_settings(alice))
        .await
        .expect("settings")
        .expect("alice saved hers");
    assert!(settings.contains("green"), "{settings}");
    let steps = bounded(store.lesson_steps(alice)).await.expect("steps");
    assert_eq!(steps.len(), 1, "the first step of the first lesson");
    assert_eq!(
        raw_i64(&data.path().join(DB), "SELECT COUNT(*) FROM explorer_games"),
        2,
        "the two finished games between accounts were counted"
    );
    bounded(store.close()).await;
}

// ---------------------------------------------------------------------------------------------
// The generator: plays the fixture's games on an older binary and writes tests/data/schema_v10/.

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

    // A game being played, a rated game ended by mate, a casual game with chat ended by
    // resignation.
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
                for (client, text) in [(&mut w, "good luck"), (&mut b, "you too")] {
                    client
                        .send(json!({"t": "chat", "d": {"room": "player", "text": text}}))
                        .await;
                    client.skip_to("chat").await;
                }
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

    // A lobby line, alice's settings, and the first step of the first lesson.
    let mut lobby = LobbyClient::connect(addr, Some(&alice.cookie)).await;
    let frame = json!({"t": "chat", "d": {"room": "lobby", "text": "anyone?"}}).to_string();
    lobby
        .ws
        .send(Message::text(frame))
        .await
        .expect("lobby open");
    lobby
        .until("the lobby line", |m| {
            matches!(
                m,
                marseillais::server::lobby::channel::msg::LobbyMsg::Chat(_)
            )
        })
        .await;
    let settings = json!({
        "confirmMoves": "on", "premoves": false, "sound": false, "volume": 35,
        "theme": "green", "legalDots": false, "coordinates": false, "language": "fr",
    });
    let (status, reply) = alice
        .call(addr, "PUT", "/api/account/settings", Some(&settings))
        .await;
    assert!(status == 200 || status == 204, "{status} {reply}");
    let step = json!({"moves": ["a1a5", "a5e5"]});
    let (status, reply) = alice
        .call(addr, "POST", "/api/learn/moving-twice/1/moves", Some(&step))
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["verdict"], json!("right"), "{reply}");

    assert!(server.terminate().await, "a clean shutdown");
    support::raw_db::save_fixture(scratch.path(), "schema_v10", 10, Value::Object(made));
}
